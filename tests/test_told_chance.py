"""Chance told from outside (ext/engine/state.pxi `told_*`, used by `advisor track`): a state may
tell the engine the cards that some of its next draws of a deck take (0: the deck's own card). The
engine takes a told card at the draw itself, wherever it lies in the deck, after a reshuffle too;
without told cards nothing changes."""
from __future__ import annotations

from typing import Any

import pytest

from advisor._core import Game, greedy_action
from advisor.track.chance import KINDS, TOLD, counted, drawn, told_cards, with_told


def _to_first_draw(players: int, seed: int, reshuffled: bool = False) -> tuple[Game, int, str]:
    """A seeded greedy game at a decision whose action `a` draws from a deck (one whose draw comes
    after the deck ran out, with `reshuffled`): the game, the action and the deck's kind."""
    g = Game.new(players, seed)
    n = 0
    while not g.is_terminal():
        for a in g.legal_actions():
            h = g.clone()
            before = h.to_dict()["core"]
            h.apply(a)
            after = h.to_dict()["core"]
            for kind in KINDS:
                fewer = len(after[f"deck_{kind}"]) < len(before[f"deck_{kind}"])
                if (after["reshuffles"] > before["reshuffles"]) if reshuffled else fewer:
                    if not reshuffled or len(after[f"discard_{kind}"]) < len(before[f"discard_{kind}"]):
                        return g, a, kind
        g.apply(greedy_action(g, n))
        n += 1
    raise AssertionError("no draw found")


def _played(state: dict[str, Any], start: dict[str, Any], action: int) -> tuple[dict[str, Any], dict[str, Any]]:
    h = Game.from_dict({**state, "segment_start": start})
    before = h.to_dict()["core"]
    h.apply(action)
    return before, h.to_dict()["core"]


def test_a_game_without_told_draws_has_no_told_field() -> None:
    g = Game.new(3, 4)
    for n in range(60):
        g.apply(greedy_action(g, n))
        d = g.to_dict()
        assert "told" not in d["core"] and "told" not in d["segment_start"]


def test_counting_draws_changes_no_play() -> None:
    g, a, kind = _to_first_draw(2, 7)
    state = counted(g.to_dict())
    before, after = _played(state, state["segment_start"], a)
    plain = g.clone()
    plain.apply(a)
    expect = plain.to_dict()["core"]
    assert {k: v for k, v in after.items() if k != "told"} == expect
    assert drawn(state["segment_start"], after, kind) > drawn(state["segment_start"], before, kind)


def test_a_told_card_is_drawn_wherever_it_lies_in_the_deck() -> None:
    g, a, kind = _to_first_draw(2, 7)
    state = counted(g.to_dict())
    start = state["segment_start"]
    before, _ = _played(state, start, a)
    k = drawn(start, before, kind)
    deck = start[f"deck_{kind}"]
    for card in (deck[0], deck[len(deck) // 2]):
        _, after = _played(state, with_told(start, kind, k, card), a)
        assert card not in after[f"deck_{kind}"]
        assert after["told"]["missed"] == 0
        assert told_cards(with_told(start, kind, k, card), kind) == {k: card}


def test_a_told_card_not_in_the_deck_is_missed_and_the_deck_draws_its_own() -> None:
    g, a, kind = _to_first_draw(3, 2)
    state = counted(g.to_dict())
    start = state["segment_start"]
    before, plain = _played(state, start, a)
    shown = [c for c in start[f"display_{kind}"] if c]
    _, after = _played(state, with_told(start, kind, drawn(start, before, kind), shown[0]), a)
    assert after["told"]["missed"] == 1
    assert after[f"deck_{kind}"] == plain[f"deck_{kind}"]


def test_a_told_card_is_drawn_after_the_discards_are_shuffled_in() -> None:
    for seed in range(40):          # a reshuffle needs a long game: the first seed with one
        try:
            g, a, kind = _to_first_draw(5, seed, reshuffled=True)
            break
        except AssertionError:
            continue
    state = counted(g.to_dict())
    start = state["segment_start"]
    before, after = _played(state, start, a)
    k = len(start[f"deck_{kind}"])          # the first draw from the shuffled discards
    assert drawn(start, after, kind) > k
    pile = set(before[f"discard_{kind}"])
    for card in sorted(pile)[:5]:
        _, now = _played(state, with_told(start, kind, k, card), a)
        assert now["told"]["missed"] == 0
        assert card not in now[f"deck_{kind}"]


def test_told_draws_are_not_in_the_viewers_observation() -> None:
    g, a, kind = _to_first_draw(2, 7)
    state = counted(g.to_dict())
    start = with_told(state["segment_start"], kind, 0, state["segment_start"][f"deck_{kind}"][0])
    assert told_cards(start, kind) == {0: state["segment_start"][f"deck_{kind}"][0]}
    h = Game.from_dict({**state, "segment_start": start})
    assert "told" in h.to_dict()["segment_start"]
    assert all("told" not in h.observation(q) for q in range(2))


def test_the_tracker_and_the_engine_keep_as_many_told_draws() -> None:
    state = counted(Game.new(2, 1).to_dict())
    h = Game.from_dict({**state, "segment_start": state["segment_start"]})
    told = h.to_dict()["segment_start"]["told"]
    assert len(told["dragons"]) == len(told["caves"]) == TOLD
    too_many = {**state["segment_start"], "told": {**told, "dragons": [0] * (TOLD + 1)}}
    with pytest.raises(ValueError, match="told"):
        Game.from_dict({**state, "segment_start": too_many})
