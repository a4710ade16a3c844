"""Chance as the engine's interface (ext/engine/chance.pxi): a game with chance told stops at every
chance event for its outcome; the game keeps its whole history and undoes it.

The central property: a told game given the outcomes a sampled game took (the deck's top card, the
Automa's next card, the deal's tiles and first player) plays that sampled game exactly, state for
state. So sampled play (search, tournaments) and told play (the table) are one engine."""
from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor._core import CHANCE, CHANCE_EVENTS, Game, chance_observers, named_card
from advisor.errors import IllegalActionError
from advisor.notation import DRAGON
from advisor.search import Limit, analyse


def _sampled_outcome(told: Game, dealt: dict[str, Any]) -> int:
    """The outcome a sampled game with the told game's seed takes at its chance point."""
    ev = told.chance_event
    core = told.to_dict()["core"]
    if ev.event in ("guild tile",):
        value = dealt["guild_tile"]
    elif ev.event == "objective":
        value = dealt["objective_tiles"][ev.who] * 2 + dealt["objective_sides"][ev.who]
    elif ev.event == "first player":
        value = dealt["start_player"]
    elif ev.event == "automa card":
        value = core["automa"]["deck"][core["automa"]["next"]]
    else:
        # the top card (the discards are shuffled in before the point where it pauses)
        value = (core["deck_caves"] if "cave" in ev.event else core["deck_dragons"])[-1]
    (a,) = [a for a in ev.outcomes if a & ((1 << 20) - 1) == value]
    return a


def _comparable(g: Game) -> dict[str, Any]:
    core = g.to_dict()["core"]
    core.pop("chance", None)
    return core


# picks of several cards from a hand (and a fourth column's exchange of items): sampled, in
# ascending order (each set once); told, in any order
PICKS = ("setup discard", "discard", "pay card", "exchange")


def _settle(told: Game, dealt: dict[str, Any]) -> None:
    while told.decider == CHANCE or (not told.is_terminal() and len(told.legal_actions()) == 1):
        # a told game pauses at forced decisions too: the sampled one takes them unasked
        told.apply(_sampled_outcome(told, dealt) if told.decider == CHANCE else told.legal_actions()[0])


def _caught_up(told: Game, sampled: Game, dealt: dict[str, Any], depth: int = 3) -> Game | None:
    """The told game after the picks the sampled one took unasked (the last cards of a pick that
    ascending order forces), or None."""
    if told.decider == sampled.decider and told.decision == sampled.decision and \
            _comparable(told) == _comparable(sampled):
        return told
    if depth == 0 or told.decision not in PICKS:
        return None
    for a in told.legal_actions():
        t = told.clone()
        t.apply(a)
        _settle(t, dealt)
        if (found := _caught_up(t, sampled, dealt, depth - 1)) is not None:
            return found
    return None


def _follow(players: int, seed: int, moves: int, automa: str = "2") -> tuple[Game, Game]:
    """A sampled game of random moves and a told game given its outcomes, side by side."""
    rng = random.Random(seed)
    sampled = Game.new(players, seed, automa=automa)
    told = Game.new(players, seed, automa=automa, chance="told")
    dealt = sampled.to_dict()["core"]
    for _ in range(moves):
        _settle(told, dealt)
        caught = _caught_up(told, sampled, dealt)
        assert caught is not None
        told = caught
        if told.decision in PICKS:
            assert set(sampled.legal_actions()) <= set(told.legal_actions())
        else:
            assert told.legal_actions() == sampled.legal_actions()
        if sampled.is_terminal():
            break
        a = rng.choice(sampled.legal_actions())
        sampled.apply(a)
        told.apply(a)
    return sampled, told


@pytest.mark.parametrize("players,seed", [(1, 3), (2, 1), (3, 7), (4, 11), (5, 2)])
def test_a_told_game_given_the_sampled_outcomes_plays_the_sampled_game(players: int, seed: int) -> None:
    sampled, told = _follow(players, seed, 10_000)
    assert sampled.is_terminal() and told.is_terminal()
    assert told.scores() == sampled.scores()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(1, 5), seed=st.integers(0, 2**32), moves=st.integers(0, 120))
def test_told_and_sampled_agree_at_every_decision(players: int, seed: int, moves: int) -> None:
    _follow(players, seed, moves)


def test_the_deal_asks_every_outcome_in_order() -> None:
    g = Game.new(2, 5, chance="told")
    events = []
    while g.decider == CHANCE:
        ev = g.chance_event
        events.append((ev.event, ev.who, ev.observers))
        g.sample(len(events))
    assert events[0] == ("guild tile", 0, (0, 1))
    assert [e[:2] for e in events[1:5]] == [("objective", r) for r in range(4)]
    assert [e[:2] for e in events[5:11]] == [("display dragon", 0), ("display cave", 0), ("display dragon", 1),
                                            ("display cave", 1), ("display dragon", 2), ("display cave", 2)]
    deals = [e for e in events if e[0].startswith("deal")]
    assert {e[2] for e in deals} == {(0,), (1,)}          # a starting hand is seen by its owner alone
    assert events[-1][0] == "first player"
    assert g.phase == "setup" and g.decision == "setup discard"
    assert len(g.stand_ins) == len(events)


def test_objective_outcomes_leave_out_used_tiles_and_sides_the_automa_cannot_score() -> None:
    g = Game.new(1, 0, chance="told")
    g.apply(g.legal_actions()[0])                    # guild tile
    first = g.chance_event
    assert first.event == "objective"
    g.apply(first.outcomes[0])
    tile = (first.outcomes[0] & 0xFFFFF) >> 1
    assert all((a & 0xFFFFF) >> 1 != tile for a in g.chance_event.outcomes)
    assert len(first.outcomes) < 20                   # some sides are not the Automa's to score


def test_a_draw_offers_exactly_the_cards_left_in_the_deck() -> None:
    g = Game.new(2, 9, chance="told")
    while g.decider == CHANCE:
        ev = g.chance_event
        if ev.event == "display dragon":
            deck = g.to_dict()["core"]["deck_dragons"]
            assert sorted(a & 0xFFFFF for a in ev.outcomes) == sorted(deck)
            assert ev.outcomes == sorted(ev.outcomes)
        g.sample(1)


def test_observers_by_event() -> None:
    assert chance_observers(CHANCE_EVENTS.index("hand dragon"), 2, 4) == (2,)
    assert chance_observers(CHANCE_EVENTS.index("tuck"), 1, 3) == ()
    assert chance_observers(CHANCE_EVENTS.index("display cave"), 1, 3) == (0, 1, 2)
    assert chance_observers(CHANCE_EVENTS.index("automa card"), 0, 2) == (0, 1)


def test_every_event_of_told_games_is_reached() -> None:
    """Random told games reach every kind of chance point, each with legal outcomes only."""
    seen = set()
    for seed in range(13):
        g = Game.new(1 + seed % 5, seed, chance="told")
        rng = random.Random(seed)
        while not g.is_terminal():
            if g.decider == CHANCE:
                seen.add(g.chance_event.event)
                with pytest.raises(IllegalActionError):
                    g.apply(max(g.legal_actions()) + 1)
            g.apply(rng.choice(g.legal_actions()))
    assert seen >= set(CHANCE_EVENTS) - {"play cave"}


def test_undo_steps_back_through_decisions_and_chance() -> None:
    g = Game.new(3, 4, chance="told")
    rng = random.Random(4)
    states = [g.to_dict()]
    while not g.is_terminal() and len(states) < 400:
        g.apply(rng.choice(g.legal_actions()))
        states.append(g.to_dict())
    assert len(g.history) == len(states) - 1
    while g.history:
        g.undo()
        states.pop()
        assert g.to_dict() == states[-1]
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        g.undo()


def test_undo_of_a_sampled_game_and_of_one_from_a_dict() -> None:
    g = Game.new(2, 8)
    g.play_random(3)
    end = g.to_dict()
    last = g.history[-1]
    assert g.undo() == last
    g.apply(last)
    assert g.to_dict() == end
    mid = Game.new(2, 8)
    for a in g.history[:50]:
        mid.apply(a)
    h = Game.from_dict(mid.to_dict())
    assert h.history == []
    h.apply(h.legal_actions()[0])
    h.undo()
    assert h.to_dict() == mid.to_dict()


def test_rewind_goes_back_to_any_point_of_the_history() -> None:
    g = Game.new(2, 8, chance="told")
    rng = random.Random(8)
    states = [g.to_dict()]
    while not g.is_terminal():
        g.sample(rng.randrange(99)) if g.decider == CHANCE else g.apply(rng.choice(g.legal_actions()))
        states.append(g.to_dict())
    g.rewind(70)
    assert len(g.history) == 70 and g.to_dict() == states[70]
    g.rewind(0)
    assert g.to_dict() == states[0]
    with pytest.raises(IllegalActionError, match=f"cannot rewind to {len(states)}"):
        g.rewind(len(states))


def test_stand_ins_are_kept_through_undo_and_clone() -> None:
    g = Game.new(2, 1, chance="told")
    g.apply(g.legal_actions()[2])                  # the table shows the guild tile
    g.sample(7)
    assert g.stand_ins == [1]
    c = g.clone()
    c.sample(8)
    assert c.stand_ins == [1, 2] and g.stand_ins == [1]
    c.undo()
    assert c.stand_ins == [1]
    s = Game.new(2, 1)
    s.apply(s.legal_actions()[0], stand_in=True)      # a choice the table did not see
    assert s.stand_ins == [0]


def test_a_told_state_round_trips_through_its_dict() -> None:
    g = Game.new(2, 2, chance="told")
    for i in range(30):
        g.sample(i) if g.decider == CHANCE else g.apply(g.legal_actions()[0])
    d = g.to_dict()
    assert d["core"]["chance"] == "told"
    h = Game.from_dict(d)
    assert h.chance == "told" and h.to_dict() == d and h.legal_actions() == g.legal_actions()
    assert "chance" not in Game.new(2, 2).to_dict()["core"]


def test_a_determinization_of_a_told_game_samples() -> None:
    g = Game.new(2, 6, chance="told")
    rng = random.Random(6)
    while g.decider == CHANCE or g.phase == "setup":
        g.sample(rng.randrange(10**6)) if g.decider == CHANCE else g.apply(rng.choice(g.legal_actions()))
    d = g.determinize(g.decider, 3)
    assert d.chance == "sampled" and d.decider == g.decider
    d.play_random(1)                                 # plays on without asking chance
    assert d.is_terminal()
    at_chance = Game.new(2, 6, chance="told")
    with pytest.raises(IllegalActionError, match="chance point"):
        at_chance.determinize(0, 1)


def test_the_search_ranks_the_moves_of_a_told_game() -> None:
    g = Game.new(2, 12, chance="told")
    rng = random.Random(12)
    while g.decider == CHANCE or g.phase == "setup":
        g.sample(rng.randrange(10**6)) if g.decider == CHANCE else g.apply(rng.choice(g.legal_actions()))
    result = analyse(g, limit=Limit(iterations=300))
    assert {m.action for m in result.moves} <= set(g.legal_actions())
    assert g.chance == "told"                         # the search left the game as it was


def test_a_bad_chance_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="chance must be one of sampled, told"):
        Game.new(2, 0, chance="dealt")
    d = Game.new(2, 0).to_dict()
    d["core"]["chance"] = d["segment_start"]["chance"] = "maybe"
    with pytest.raises(ValueError, match="chance: expected one of sampled, told, got 'maybe'"):
        Game.from_dict(d)


def _tracked(players: int, seed: int, viewer: int = 0, entries: int = 400) -> Game:
    """A told game as `viewer` follows it: the outcomes its observers include are the table's,
    the rest stand-ins; every decision is the table's (random play)."""
    rng = random.Random(seed)
    g = Game.new(players, seed, chance="told")
    while not g.is_terminal() and len(g.history) < entries:
        ev = g.chance_event
        if ev is None:
            g.apply(rng.choice(g.legal_actions()))
        elif viewer in ev.observers:
            g.apply(rng.choice(ev.outcomes))
        else:
            g.sample(rng.randrange(1 << 30))
    return g


def test_a_rebinding_keeps_everything_the_table_showed() -> None:
    """Over random games followed from seat 0: nearly every one rebinds, and a rebinding changes
    nothing but stand-ins (the rest are random games whose opponents' face-down choices the model
    here treats as seen, which the table never shows)."""
    rebound = 0
    for seed in range(40):
        g = _tracked(2 + seed % 4, seed)
        try:
            h = g.rebind(seed)
        except IllegalActionError as e:
            assert "replays the game past entry" in str(e)
            continue
        rebound += 1
        shown = [a for i, a in enumerate(g.history) if i not in g.stand_ins]
        assert [a for i, a in enumerate(h.history) if i not in h.stand_ins] == shown
        assert h.to_dict()["core"]["round"] == g.to_dict()["core"]["round"]
    assert rebound >= 38


def test_a_rebinding_makes_an_opponents_unseen_card_the_one_the_table_names() -> None:
    """The tracker's case: an opponent plays a card the viewer never saw, which the stand-ins do
    not hold; a rebinding deals it to them, and the same seed gives the same binding."""
    g = Game.new(2, 21, chance="told")
    rng = random.Random(21)
    while g.decider != 1 or g.decision != "setup discard":
        ev = g.chance_event
        if ev is None:
            g.apply(rng.choice(g.legal_actions()))
        elif 0 in ev.observers:
            g.apply(ev.outcomes[0])
        else:
            g.sample(rng.randrange(1 << 30))
    held = {a & 0xFFFFF for a in g.legal_actions() if a >> 20 == 11}
    deck = g.to_dict()["core"]["deck_dragons"]
    unseen = next(d for d in deck if d not in held)
    wanted = (11 << 20) | unseen                        # P1 discards a dragon card it was dealt
    with pytest.raises(IllegalActionError):
        g.clone().apply(wanted)
    h = g.rebind(5, then=[wanted])
    assert h.history[-1] == wanted and h.decider == 1
    assert h.history[:-1] != g.history                  # the stand-ins moved
    assert g.rebind(5, then=[wanted]).history == h.history


def test_a_rebinding_that_cannot_replay_says_how_far_it_got() -> None:
    g = Game.new(2, 3, chance="told")
    while g.decider == CHANCE:                          # the table shows the display, not the hands
        g.apply(g.chance_event.outcomes[0]) if g.chance_event.event.startswith("display") else g.sample(1)
    seen = g.to_dict()["core"]["display_dragons"][0]
    with pytest.raises(IllegalActionError, match="past entry 24"):
        g.rebind(0, tries=4, then=[(11 << 20) | seen])  # a card face up in the display


def test_two_unseen_cards_trade_places() -> None:
    """Game.swapped, the tracker's first repair: every stand-in that bound the one card binds the
    other, so the hand that held it holds the other; what the table showed stays as it was."""
    g = _tracked(3, 7, entries=150)
    draws = [i for i in g.stand_ins if (c := named_card(g.history[i])) is not None and c[0] == "dragon"]
    swaps = []      # (random play here shows the opponents' face-down choices: those cards stay)
    for i in reversed(draws):
        a = named_card(g.history[i])
        for b in [("dragon", d) for d in g.to_dict()["core"]["deck_dragons"][:5]]:
            try:
                swaps.append((i, a, b, g.swapped(a, b)))
            except IllegalActionError:
                pass
    assert len(swaps) >= 5
    i, a, b, h = swaps[0]
    assert named_card(h.history[i]) == b
    for j, (x, y) in enumerate(zip(g.history, h.history, strict=True)):
        if j not in g.stand_ins:
            assert x == y
        elif named_card(x) not in (a, b):
            assert x == y
    assert h.stand_ins == g.stand_ins and len(h.history) == len(g.history)
    assert g.swapped(a, b).history == h.history            # the same every time
    assert h.swapped(a, b).history == g.history            # and undone by the same swap


def test_a_card_the_table_showed_does_not_trade_places() -> None:
    g = Game.new(2, 3, chance="told")
    while g.decider == CHANCE:                          # the table shows the display, not the hands
        g.apply(g.chance_event.outcomes[0]) if g.chance_event.event.startswith("display") else g.sample(1)
    seen = ("dragon", g.to_dict()["core"]["display_dragons"][0])
    held = [c for i in g.stand_ins if (c := named_card(g.history[i])) is not None and c[0] == "dragon"]
    with pytest.raises(IllegalActionError, match="does not replay"):
        g.swapped(held[-1], seen)                       # a hand would be dealt a card of the display
    with pytest.raises(IllegalActionError, match="one kind"):
        g.swapped(("dragon", 1), ("cave", 1))


def test_a_known_card_tucked_face_down_leaves_the_hand_unknown() -> None:
    """The others cannot tell which card went under a dragon face down: when it was one they knew,
    no card of that hand stays known (a known card kept known would tell them which one it was)."""
    found = 0
    for seed in range(40):
        g = Game.new(3, seed)
        rng = random.Random(seed)
        while not g.is_terminal() and found < 3:
            me = g.decider
            known = g.observation((me + 1) % 3)["players"][me]["known_dragons"] if me >= 0 else []
            if g.decision == "tuck card" and (picks := [a for a in g.legal_actions() if a & 0xFFFFF in known
                                                        and a >> 20 == DRAGON]):
                g.apply(picks[0])
                while g.decider == me and g.decision == "tuck under":
                    g.apply(g.legal_actions()[0])
                after = g.observation((me + 1) % 3)["players"][me]
                assert after["known_dragons"] == []
                found += 1
                continue
            g.apply(rng.choice(g.legal_actions()))
        if found >= 3:
            break
    assert found >= 1
