"""Whole random games through the core: they end, scores add up, and a seed fixes the game."""
import pytest

from advisor._core import Game
from advisor.errors import AdvisorError, IllegalActionError


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_end(players):
    for seed in range(200):
        g = Game.new(players, seed)
        n = g.play_random(seed)
        assert g.is_terminal() and n > 0
        assert g.legal_actions() == [] and g.decider == -1
        for b in g.score_breakdown():
            assert b["total"] == sum(v for k, v in b.items() if k != "total")
        assert g.winners()


def test_same_seed_same_game():
    a, b = Game.new(3, 42), Game.new(3, 42)
    assert a.to_dict() == b.to_dict()
    a.play_random(7)
    b.play_random(7)
    assert a.to_dict() == b.to_dict() and a.scores() == b.scores()


def test_different_seeds_differ():
    assert Game.new(2, 1).to_dict() != Game.new(2, 2).to_dict()


def test_round_counts_from_one_and_the_state_dicts_from_zero():
    g = Game.new(2, 5)
    seen = set()
    while not g.is_terminal():
        seen.add(g.round)
        assert g.observation(g.decider)["round"] == g.to_dict()["core"]["round"] == g.round - 1
        g.apply(g.legal_actions()[0])
    assert seen == {1, 2, 3, 4}


def test_an_illegal_action_is_refused_with_a_typed_error():
    g = Game.new(2, 5)
    before = g.to_dict()
    illegal = next(a for a in range(1, 1 << 24) if a not in g.legal_actions())
    with pytest.raises(IllegalActionError, match=f"action {illegal} is not legal now") as err:
        g.apply(illegal)
    assert isinstance(err.value, AdvisorError) and isinstance(err.value, ValueError)   # old callers
    assert g.to_dict() == before                                # the game is untouched
    g.play_random(1)
    with pytest.raises(IllegalActionError, match="the game is over"):
        g.apply(0)
