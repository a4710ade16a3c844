"""The card or rule that asks a decision (Game.asked_by, issue "advisor serve": "each sub-decision
with its options and the card that asks"): the engine records whose ability's program is running
when it stops, the innermost where one ability runs another."""
from __future__ import annotations

import pytest

from advisor._core import ASK_KINDS, ASK_TIMINGS, CHANCE, Game, greedy_action
from advisor.cards.compiler import ENTRY_TIMINGS
from helpers import DB, blank, do, give, player, put, start, texts

KEEN = 76           # Keen Cricketcatcher: when played, pay any resource to use a when-played ability again
KOIWYRM = 115       # Custodial Koiwyrm: when played, gain 2 resources of your choice and cache them


def test_the_timings_are_the_card_databases():
    assert ASK_TIMINGS == ENTRY_TIMINGS
    assert ASK_KINDS[0] is None


def _decisions(players: int, seeds: range):
    """Every player's decision of greedy games, with the game there."""
    for seed in seeds:
        g = Game.new(players, seed)
        n = 0
        while not g.is_terminal():
            yield g
            g.apply(greedy_action(g, n))
            n += 1


def _consistent(g: Game) -> None:
    """What asked_by says fits the table: the asking card is the asking seat's, in play."""
    asked, seat = g.asked_by, g.asking_seat
    assert (asked is None) == (seat is None)
    if g.decision == "move":
        assert asked is None
    if g.option_of is not None and g.option_of[0] == "choice":     # only a program has choices
        assert asked is not None
    if asked is None:
        return
    assert seat is not None and 0 <= seat < g.players
    mat = g.to_dict()["core"]["players"][seat]
    if asked[0] == "dragon":
        d, timing = asked[1], asked[2]
        assert any(d in row for row in mat["dragons"]), (asked, mat["dragons"])
        assert DB.dragons[d - 1].ability(str(timing)) is not None
    elif asked[0] == "cave":
        assert any(asked[1] in row for row in mat["caves"]), (asked, mat["caves"])
    elif asked[0] == "mat":
        assert 0 <= int(asked[1]) < 3 and 0 <= int(asked[2]) <= 4
    elif asked[0] == "guild track":
        assert 0 <= int(asked[1]) < 12
    elif asked[0] == "guild tile":
        assert 0 <= int(asked[1]) < 4
    elif asked[0] == "cost":        # the dragon being enticed: paid for before it is placed
        core = g.to_dict()["core"]
        d = asked[1]
        # it is in the payer's hand, or taken from the display or the deck: in no other pile
        elsewhere = [core["display_dragons"], core["deck_dragons"], core["discard_dragons"]]
        elsewhere += [row for q in core["players"] for row in q["dragons"]]
        elsewhere += [q["hand_dragons"] for i, q in enumerate(core["players"]) if i != seat]
        assert not any(d in pile for pile in elsewhere), (asked, core)
    else:
        assert asked == ("exchange",)


def test_every_kind_of_asker_is_reported_and_fits_the_table():
    seen: dict[str, int] = {}
    for g in _decisions(2, range(8)):
        _consistent(g)
        if g.asked_by is not None:
            seen[str(g.asked_by[0])] = seen.get(str(g.asked_by[0]), 0) + 1
            if g.asked_by[0] == "dragon":
                seen[f"dragon {g.asked_by[2]}"] = seen.get(f"dragon {g.asked_by[2]}", 0) + 1
    for kind in ASK_KINDS[1:]:
        assert seen.get(str(kind), 0) > 0, (kind, seen)
    for timing in ("when_played", "if_activated", "once_per_round"):
        assert seen.get(f"dragon {timing}", 0) > 0, (timing, seen)


def test_a_clone_and_a_state_dict_keep_it():
    for g in _decisions(2, range(2)):
        if g.asked_by is not None and g.decisions_in_segment:
            assert g.clone().asked_by == g.asked_by and g.clone().asking_seat == g.asking_seat
            again = Game.from_dict(g.to_dict())
            assert again.asked_by == g.asked_by and again.asking_seat == g.asking_seat
            return
    pytest.fail("no decision asked by a card")


def test_a_chance_game_reports_it_at_decisions_and_chance_points_alike():
    g = Game.new(2, 3, chance="told")
    while not g.is_terminal() and len(g.history) < 400:
        if g.decider == CHANCE:
            g.sample(len(g.history))
        else:
            _consistent(g)
            g.apply(greedy_action(g, len(g.history)))


def test_explore_asks_by_the_mat_then_the_guild_track():
    """Crimson: icon 0 (any resource), the Hyenic Serpent (meat), icon 1 (a guild step to space 1:
    lay an egg), icon 2 (any resource)."""
    core = blank()
    core["players"][1]["passed"] = 1
    put(core, 0, "crimson", 1, dragon=166)
    put(core, 0, "crimson", 2, dragon=177)
    give(core, 0, coins=2)
    g = start(core)
    assert g.asked_by is None                   # the move: the rules ask
    do(g, "explore crimson")
    assert g.decision == "resource" and g.asked_by == ("mat", 0, 0) and g.asking_seat == 0
    do(g, "gold")
    assert g.decision == "lay egg" and g.asked_by == ("guild track", 1)
    do(g, "mat nest")
    assert g.decision == "resource" and g.asked_by == ("mat", 0, 2)


def test_a_cave_in_column_4_asks_the_order_then_the_exchange_asks():
    core = blank()
    give(core, 0, caves=[16], dragons=[98, 122], coins=3, nest_eggs=2, res=(1, 0, 0, 0))
    put(core, 0, "crimson", 2, cave_card=40)
    put(core, 0, "crimson", 3, cave_card=41)
    g = start(core)
    do(g, "excavate cave 16 into crimson")
    assert g.decision == "order" and g.asked_by == ("cave", 16)
    do(g, "option 2")
    assert g.decision == "exchange" and g.asked_by == ("exchange",)


def test_an_ability_run_by_another_asks_as_the_inner_card_then_the_outer_again():
    """The Keen Cricketcatcher's when-played ability pays a resource to use another dragon's
    when-played ability again: the Koiwyrm's choices are asked by the Koiwyrm; the payment for the
    Keen Cricketcatcher is asked by its cost."""
    core = blank()
    give(core, 0, dragons=[KEEN], coins=1, res=(1, 2, 2, 0))
    put(core, 0, "amethyst", 1, dragon=KOIWYRM)
    g = start(core)
    do(g, "entice Keen Cricketcatcher into crimson")
    asked = []
    while g.decider == 0 and g.decision != "move":
        asked.append((g.decision, g.asked_by))
        options = g.legal_actions()
        words = texts(g)
        pick = next((a for a, t in zip(options, words, strict=True) if t not in ("no", "crystal")), options[0])
        g.apply(pick)
    assert ("payment", ("cost", KEEN)) in asked, asked
    keen = [i for i, (_, by) in enumerate(asked) if by == ("dragon", KEEN, "when_played")]
    koi = [i for i, (_, by) in enumerate(asked) if by == ("dragon", KOIWYRM, "when_played")]
    assert keen and koi and max(keen) < min(koi), asked
    assert any(d == "cache" for d, by in asked if by == ("dragon", KOIWYRM, "when_played")), asked
    assert player(g, 0)["dragons"][0][0] == KEEN
