"""Every sub-decision that chooses among a card's effects is named by what the option does (issue
"Advice a player can read"): "advance 1 step on the Dragon Guild", not "option 2". The engine tells
which effect program's choice a decision belongs to (Game.option_of)."""
from __future__ import annotations

import pytest

from advisor._core import Game, greedy_action
from advisor.cards import ability_text, choice_options, load_database
from advisor.cards.compiler import DRAGON_COLS
from advisor.notation import OPTION, ORDER_OPTIONS, action_text, arg, kind, make, parse_action


def _option_decisions(players: int, seeds: range) -> list[Game]:
    out = []
    for seed in seeds:
        g = Game.new(players, seed)
        n = 0
        while not g.is_terminal():
            if any(kind(a) == OPTION for a in g.legal_actions()):
                out.append(g.clone())
            g.apply(greedy_action(g, n))
            n += 1
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_every_option_is_named_in_words(players: int) -> None:
    games = _option_decisions(players, range(12))
    assert len(games) > 10
    for g in games:
        texts = [action_text(a, g.printing, g) for a in g.legal_actions()]
        assert not any(t.startswith("option ") for t in texts), texts
        assert len(set(texts)) == len(texts)            # each names one option
        if g.decision == "option":
            of = g.option_of
            assert of is not None and of[0] == "choice"
            assert set(texts) <= set(choice_options(g.printing, of[1]))
        else:
            assert set(texts) <= set(ORDER_OPTIONS)
        # the words and the old number both parse back to the option
        for a in g.legal_actions():
            assert parse_action(g, action_text(a, g.printing, g)) == a
            assert parse_action(g, f"option {arg(a) + 1}") == a


def test_without_a_game_an_option_is_its_number() -> None:
    assert action_text(make(OPTION, 1)) == "option 2"


def test_option_of_is_none_at_other_decisions() -> None:
    g = Game.new(2, 1)
    assert g.decision != "option" and g.option_of is None


def test_a_dragons_ability_in_words() -> None:
    db = load_database("base")
    from advisor.cards import _compiled
    tables = _compiled("base")
    col = DRAGON_COLS.index("entry_if_activated")
    d = next(d for d in db.dragons if tables.dragons[d.number][col] >= 0)
    text = ability_text("base", d.number, 1)
    assert text.startswith("its if-activated ability: ") and len(text) > 30
