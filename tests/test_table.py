"""A real game followed from one seat (advisor/table.py): the table is asked only what the viewer
sees, and the viewer's view of the followed game equals their view of the real one throughout."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from advisor._core import Game
from advisor.table import Question, Table, TableError, asks, chance_words

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from table_scan import point as _point, real_game  # noqa: E402  (the scan's real games and points)


def follow(players: int, seed: int, viewer: int) -> tuple[Table, int]:
    """The real game entered at a table from `viewer`'s seat; returns the table and the entries."""
    real = real_game(players, seed, "random")
    table = Table(players, viewer, seed=seed)
    replay = Game.new(players, seed, chance="told")
    entries = 0
    for a in real.history:
        if asks(replay, viewer):
            if _point(replay) == _point(table.game):
                assert replay.observation(viewer) == table.game.observation(viewer)
            table.answer(a, replay.decider if replay.decider >= 0 else None)
            entries += 1
        replay.apply(a)
    assert table.game.is_terminal()
    assert table.game.scores() == real.scores()
    return table, entries


@pytest.mark.parametrize("players,seed", [(2, 1), (2, 2), (3, 3), (4, 4), (5, 5), (1, 6)])
def test_a_real_game_is_followed_from_every_seat(players: int, seed: int) -> None:
    for viewer in range(max(players, 1) if players > 1 else 1):
        table, entries = follow(players, seed, viewer)
        assert 0 < entries < len(table.game.history)       # the hidden steps were not asked


def test_the_table_is_asked_the_viewers_cards_and_not_the_others() -> None:
    t = Table(2, viewer=1, seed=3)
    asked = []
    while t.question() is not None and t.game.phase in ("deal", "setup"):
        q = t.question()
        asked.append(q.about)
        t.answer(q.options[0][0])
    assert "the guild tile" in asked and "round 1's objective tile and side" in asked
    assert asked.count("a dragon card of your starting hand") == 3
    assert not any("P0's starting hand" in a for a in asked)


def test_undo_takes_back_the_last_entry_and_what_followed_it() -> None:
    t = Table(3, viewer=0, seed=9)
    rng = random.Random(9)
    views = []
    for _ in range(60):
        views.append((len(t.game.history), t.game.observation(0)))
        q = t.question()
        t.answer(rng.choice(q.options)[0])
    for n, view in reversed(views):
        t.undo()
        assert len(t.game.history) == n and t.game.observation(0) == view
    with pytest.raises(TableError, match="nothing to undo"):
        t.undo()


def test_a_table_saves_and_loads_to_the_same_game() -> None:
    t = Table(2, viewer=0, seed=4)
    rng = random.Random(4)
    for _ in range(80):
        t.answer(rng.choice(t.question().options)[0])
    u = Table.from_dict(t.to_dict())
    assert u.game.to_dict() == t.game.to_dict() and u.entered == t.entered
    assert u.question() == t.question()


def test_an_entry_no_binding_allows_is_refused_in_one_line() -> None:
    t = Table(2, viewer=0, seed=2)
    while t.game.decider != 1:
        t.answer(t.question().options[0][0])
    mine = t.game.observation(0)["players"][0]["hand_dragons"][0]
    with pytest.raises(TableError, match="no deal of the cards you have not seen"):
        t.answer((11 << 20) | mine)                   # a card in the viewer's own hand


def test_questions_say_what_they_are_for() -> None:
    t = Table(2, viewer=0, seed=1)
    q = t.question()
    assert q == Question(None, "the guild tile", q.options) and len(q.options) == 4
    g = Game.new(2, 1, chance="told")
    while g.chance_event.event != "display dragon":
        g.sample(0)
    assert chance_words(g, 0) == "refill of dragon display slot 1"


def test_a_cave_numbered_as_a_dragon_of_yours_is_still_unseen() -> None:
    """Dragon and cave cards are numbered apart: P3's forced second setup discard, cave 61, is
    asked of the table although the viewer holds dragon 61."""
    real = real_game(4, 1, "greedy")
    g = Game.new(4, 1, chance="told")
    for a in real.history[:37]:
        g.apply(a)
    assert g.decider == 3 and g.decision == "setup discard" and g.legal_actions() == [(12 << 20) | 61]
    assert 61 in g.observation(1)["players"][1]["hand_dragons"]
    assert asks(g, 1)
