"""Rule scenarios: one focused test per rule of the rules text and per ruling of clarifications.md.

Each test prepares a state (tests/helpers.py), plays the decisions in notation and checks concrete
numbers. Constants come from the data files (mat.toml, guild.toml, objectives.toml) so a corrected
assumption changes the expectation with it. In `blank()` states the other players have no coins and
no cards, so their turns are forced passes and play comes straight back to the player under test.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from advisor._core import Game
from helpers import CAVES, DB, RES, blank, do, excavate_all, give, heads, player, put, start, texts

DATA = Path(__file__).resolve().parent.parent / "advisor" / "data"
MAT = tomllib.loads((DATA / "mat.toml").read_text())
GUILD = tomllib.loads((DATA / "guild.toml").read_text())
OBJ = tomllib.loads((DATA / "objectives.toml").read_text())
VP_BY_ROUND = [OBJ["vp_by_round"][f"round_{r}"] for r in range(1, 5)]

MEAT, GOLD, CRYSTAL, MILK = range(4)
CR, GO, AM = range(3)
NEST = "mat nest"

# Cards used below, with the facts the tests rely on (checked in test_card_facts_used_here).
HOARDING = 56      # Hoarding Flyer: 1 meat + 1 gold, crimson/golden, if activated: gain gold
HYENIC = 166       # Hyenic Serpent: 2 meat, crimson only, if activated: gain meat
DOWSING = 177      # Dowsing Fae: 1 meat, crimson only, if activated: gain crystal
SPITTER = 128      # Sharp-Tongued Spitter: 1 meat + 1 crystal, crimson, if activated: gain meat
STOIC = 81         # Stoic Gryphdragon: 7 VP, 1 meat + 1 coin, crimson, end game: last in cave 3 VP
SEEDEATER = 11     # Seedeating Drake: hatchling, 1 milk + 1 egg, golden
LITTLE = 98        # Little Amphiptere: 2 VP, no printed cost, crimson/golden, end game only
YELLOW = 122       # Yellow-Bellied Lung Dragon: 3 VP, no printed cost, every cave, end game only
RAINBOW = 46       # Rainbow Guardian: 1 coin, every cave, capacity 1, end game only
ALOOF = 51         # Aloof Gryphdragon: 1 coin, every cave, capacity 3, end game only
WEARY = 39         # Weary Gryphdragon: every cave, capacity 2, end game only
HOMELY = 167       # Homely Fae: 3 VP, crimson, end game: 5 VP with 4 crimson dragons


def core_of(g: Game) -> dict:
    return g.to_dict()["core"]


def n_cards(P: dict) -> int:
    return len(P["hand_dragons"]) + len(P["hand_caves"])


def eggs_of(P: dict) -> int:
    return P["nest_eggs"] + sum(map(sum, P["eggs"]))


def keep_round(core: dict, p: int = 1) -> dict:
    """Give player p a coin so the round does not end when the player under test runs dry."""
    core["players"][p]["coins"] = 1
    return core


def four_dragons(core: dict, p: int, cave: str, eggs=(0, 0, 0, 0)) -> dict:
    """Fill a cave with the 4 every-cave dragons without if-activated abilities (columns 2-4
    excavated)."""
    for col, (d, e) in enumerate(zip((YELLOW, RAINBOW, ALOOF, WEARY), eggs, strict=True), start=1):
        put(core, p, cave, col, dragon=d, eggs=e)
    c = CAVES.index(cave)
    P = core["players"][p]
    for k in range(1, 4):
        if not P["caves"][c][k]:
            P["caves"][c][k] = core["deck_caves"].pop()
    return core


def test_card_facts_used_here():
    d = DB.dragon
    assert d(HOARDING).cost["meat"] == 1 and d(HOARDING).cost["gold"] == 1
    assert d(HOARDING).caves == ("crimson", "golden")
    assert d(HYENIC).cost["meat"] == 2 and d(HYENIC).caves == ("crimson",)
    assert d(STOIC).vp == 7 and d(STOIC).cost["coin"] == 1 and d(STOIC).cost["meat"] == 1
    assert d(SEEDEATER).is_hatchling and d(SEEDEATER).cost["egg"] == 1 and d(SEEDEATER).cost["milk"] == 1
    assert sum(d(LITTLE).cost.values()) == 0 and sum(d(YELLOW).cost.values()) == 0
    for n in (YELLOW, RAINBOW, ALOOF, WEARY):
        assert d(n).caves == ("crimson", "golden", "amethyst")
        assert {a.timing for a in d(n).abilities} == {"end_game"}
    assert [d(n).capacity for n in (YELLOW, RAINBOW, ALOOF, WEARY)] == [1, 1, 3, 2]
    assert DB.cave(16).abilities[0].text == "gain(crystal, crystal)"
    assert DB.cave(12).abilities[0].text == "gain(coin)"
    assert DB.cave(9).abilities[0].text == "gain(cave_card); guild(1)"


# ============================================================================ setup
def test_setup_each_player_gets_6_coins_1_nested_egg_3_dragons_3_caves():
    g = Game.new(3, 5)
    c = core_of(g)
    for P in c["players"]:
        assert P["coins"] == MAT["start"]["coins"] == 6
        assert P["nest_eggs"] == MAT["start"]["eggs"] == 1
        assert len(P["hand_dragons"]) == 3 and len(P["hand_caves"]) == 3
        assert P["guild_steps"] == 0 and P["markers_left"] == GUILD["track"]["markers"] == 4
        assert P["resources"] == [0, 0, 0, 0]
        assert all(k == 0 for row in P["caves"] for k in row)
    assert all(c["display_dragons"]) and all(c["display_caves"])
    assert len(c["deck_dragons"]) == 183 - 3 - 3 * 3 and len(c["deck_caves"]) == 75 - 3 - 3 * 3
    assert len(set(c["objective_tiles"])) == 4 and all(0 <= t < 10 for t in c["objective_tiles"])
    assert all(s in (0, 1) for s in c["objective_sides"])
    assert 0 <= c["guild_tile"] < 4


def test_setup_keep_4_of_6_every_pair_of_discards_is_offered():
    g = Game.new(2, 3)
    p = g.decider
    hand = player(g, p)["hand_dragons"] + [100 + k for k in player(g, p)["hand_caves"]]
    assert g.decision == "setup discard"
    pairs = set()
    for a in g.legal_actions():
        h = g.clone()
        h.apply(a)
        assert h.decider == p
        # a forced second discard (only one card left to choose from) is taken automatically
        seconds = h.legal_actions() if h.decision == "setup discard" else [None]
        for b in seconds:
            k = h.clone()
            if b is not None:
                k.apply(b)
            P = player(k, p)
            kept = P["hand_dragons"] + [100 + c for c in P["hand_caves"]]
            assert len(kept) == MAT["start"]["keep"] == 4
            pairs.add(frozenset(set(hand) - set(kept)))
    assert len(pairs) == 15 and all(len(x) == 2 for x in pairs)   # C(6, 2): any mix


def test_setup_discards_go_to_the_discard_piles():
    g = Game.new(2, 3)
    p = g.decider
    d1, d2, d3 = player(g, p)["hand_dragons"]
    c1 = player(g, p)["hand_caves"][0]
    do(g, DB.dragon(d1).name, f"cave {c1}")
    c = core_of(g)
    assert c["discard_dragons"] == [d1] and c["discard_caves"] == [c1]
    assert c["players"][p]["hand_dragons"] == [d2, d3] and len(c["players"][p]["hand_caves"]) == 2


def test_setup_three_starting_resources_in_any_mix():
    g = Game.new(2, 3)
    g.apply(g.legal_actions()[0])
    g.apply(g.legal_actions()[0])
    p = g.decider
    assert g.decision == "setup resources"
    options = texts(g)
    assert len(options) == 20          # multisets of 3 among 4 resources
    assert "take 3 milk" in options and "take 1 meat + 1 gold + 1 crystal" in options
    do(g, "take 1 meat + 2 crystal")
    assert player(g, p)["resources"] == [1, 0, 2, 0]


def test_setup_start_player_is_random():
    starts = {core_of(Game.new(3, s))["start_player"] for s in range(60)}
    assert starts == {0, 1, 2}


def test_setup_is_decided_in_turn_order_from_the_start_player():
    seed = next(s for s in range(100) if core_of(Game.new(3, s))["start_player"] == 2)
    g = Game.new(3, seed)
    order = []
    while g.phase == "setup":
        order.append((g.decider, g.decision))
        g.apply(g.legal_actions()[0])
    assert order == [(2, "setup discard"), (2, "setup discard"), (2, "setup resources"),
                     (0, "setup discard"), (0, "setup discard"), (0, "setup resources"),
                     (1, "setup discard"), (1, "setup discard"), (1, "setup resources")]
    assert g.phase == "turn" and g.active == 2 and g.decider == 2 and g.round == 1
    for P in core_of(g)["players"]:
        assert n_cards(P) == 4 and sum(P["resources"]) == 3


# ============================================================================ excavate
@pytest.mark.parametrize("col", [2, 3, 4])
def test_excavate_cost_by_column(col):
    eggs_needed = MAT["excavate"]["column_eggs"][col - 1]
    assert eggs_needed == {2: 0, 3: 1, 4: 2}[col]
    core = blank()
    give(core, 0, caves=[16], coins=5, nest_eggs=2)
    for k in range(2, col):
        put(core, 0, "crimson", k, cave_card=40 + k)
    g = start(core)
    do(g, "excavate cave 16 into crimson")
    P = player(g, 0)
    assert P["caves"][CR][col - 1] == 16
    assert P["coins"] == 5 - MAT["excavate"]["action_coins"] == 4
    assert P["nest_eggs"] == 2 - eggs_needed
    assert P["resources"] == [0, 0, 2, 0]          # cave 16's when-played effect ran


def test_excavate_column_1_is_never_excavated():
    core = blank()
    give(core, 0, caves=[16], coins=5)
    g = start(core)
    do(g, "excavate cave 16 into golden")
    assert player(g, 0)["caves"][GO] == [0, 16, 0, 0]


def test_excavate_eggs_may_come_from_any_nest():
    core = blank()
    give(core, 0, caves=[16, 12], coins=5, nest_eggs=1)
    put(core, 0, "crimson", 1, dragon=ALOOF, eggs=2)
    put(core, 0, "golden", 2, cave_card=41)
    g = start(core)
    do(g, "excavate cave 16 into golden")
    assert g.decision == "egg source" and g.decider == 0
    assert sorted(texts(g)) == ["egg from crimson 1", "egg from mat nest"]
    do(g, "egg from crimson 1")
    P = player(g, 0)
    assert P["eggs"][CR][0] == 1 and P["nest_eggs"] == 1 and P["caves"][GO] == [0, 41, 16, 0]
    # column 4 (2 eggs) paid from the dragon and the mat nest together
    do(g, "excavate cave 12 into golden")     # 2 eggs: the only way left is forced
    P = player(g, 0)
    assert P["caves"][GO] == [0, 41, 16, 12] and eggs_of(P) == 0


def test_excavate_not_offered_without_the_column_eggs_or_a_coin():
    core = blank()
    give(core, 0, caves=[16], coins=1, nest_eggs=0)
    put(core, 0, "crimson", 2, cave_card=41)
    g = start(core)
    t = texts(g)
    assert "excavate cave 16 into crimson" not in t       # column 3 needs an egg
    assert "excavate cave 16 into golden" in t and "excavate cave 16 into amethyst" in t
    core["players"][0]["coins"] = 0
    assert not any(x.startswith("excavate") for x in texts(start(core)))


def test_excavate_fills_cave_spaces_left_to_right():
    core = blank()
    give(core, 0, caves=[12, 13, 16], coins=6)
    put(core, 0, "crimson", 1, dragon=ALOOF, eggs=3)
    g = start(core)
    do(g, "excavate cave 16 into amethyst")
    assert player(g, 0)["caves"][AM] == [0, 16, 0, 0]
    do(g, "excavate cave 12 into amethyst")
    assert player(g, 0)["caves"][AM] == [0, 16, 12, 0]
    do(g, "excavate cave 13 into amethyst")
    assert player(g, 0)["caves"][AM] == [0, 16, 12, 13]
    assert not any("into amethyst" in x for x in texts(g))     # the cave is fully excavated


def _col4_state(hand_dragons=(), hand_caves=(), res=(0, 0, 0, 0), coins=3):
    core = blank()
    give(core, 0, caves=[16, *hand_caves], dragons=hand_dragons, coins=coins, nest_eggs=2, res=res)
    put(core, 0, "crimson", 2, cave_card=40)
    put(core, 0, "crimson", 3, cave_card=41)
    return core


def test_column_4_exchange_any_3_items_for_a_coin_before_the_card():
    core = _col4_state(hand_dragons=[LITTLE, YELLOW], res=(1, 0, 0, 0))
    g = start(core)
    do(g, "excavate cave 16 into crimson")
    assert g.decision == "order" and texts(g) == ["cave card first, then the exchange", "the exchange first, then the cave card"]
    do(g, "option 2")                      # the exchange first
    assert g.decision == "exchange" and texts(g) == ["yes", "no"]
    do(g, "yes")                           # exactly 3 items: meat + both dragon cards
    P = player(g, 0)
    assert P["coins"] == 3 - 1 + 1
    assert P["hand_dragons"] == [] and P["resources"] == [0, 0, 2, 0]   # crystals came after
    assert sorted(core_of(g)["discard_dragons"]) == [LITTLE, YELLOW]


def test_column_4_exchange_after_the_card_may_use_what_the_card_gave():
    core = _col4_state(hand_dragons=[LITTLE, YELLOW], res=(1, 0, 0, 0))
    g = start(core)
    do(g, "excavate cave 16 into crimson", "option 1", "yes")
    # items are picked as a set in resource, dragon, cave order: the 2 crystals are there
    assert g.decision == "exchange" and texts(g) == ["meat", "crystal"]
    do(g, "crystal", "crystal", "Yellow-Bellied Lung Dragon")
    P = player(g, 0)
    assert P["coins"] == 3 and P["resources"] == [1, 0, 0, 0] and P["hand_dragons"] == [LITTLE]


def test_column_4_exchange_accepts_cave_cards_and_is_optional():
    core = _col4_state(hand_caves=[12, 13, 14])
    g = start(core)
    do(g, "excavate cave 16 into crimson", "option 2", "no")
    P = player(g, 0)
    assert P["coins"] == 2 and P["hand_caves"] == [12, 13, 14] and P["resources"] == [0, 0, 2, 0]
    g = start(core)
    do(g, "excavate cave 16 into crimson", "option 2", "yes")
    P = player(g, 0)
    assert P["coins"] == 3 and P["hand_caves"] == [] and sorted(core_of(g)["discard_caves"]) == [12, 13, 14]


def test_column_4_exchange_needs_3_items_coins_and_eggs_do_not_count():
    core = _col4_state(hand_dragons=[LITTLE], coins=8)
    g = start(core)
    do(g, "excavate cave 16 into crimson")
    # 8 coins and 2 eggs do not count; 1 card + the 2 crystals of the card do (after it)
    assert g.decision == "exchange" and texts(g) == ["yes", "no"]
    core = _col4_state(coins=8)
    g = start(core)
    do(g, "excavate cave 16 into crimson")
    assert g.decision == "move" and player(g, 0)["coins"] == 7     # no exchange was possible


def test_column_4_exchange_only_in_column_4():
    core = blank()
    give(core, 0, caves=[16], dragons=[LITTLE, YELLOW, RAINBOW], coins=3, nest_eggs=2)
    put(core, 0, "crimson", 2, cave_card=40)
    g = start(core)
    do(g, "excavate cave 16 into crimson")
    assert g.decision == "move" and player(g, 0)["coins"] == 2
    assert len(player(g, 0)["hand_dragons"]) == 3


# ============================================================================ entice
def test_entice_costs_one_coin_plus_the_printed_cost():
    core = blank()
    give(core, 0, dragons=[HOARDING], coins=3, res=(1, 1, 0, 0))
    g = start(core)
    do(g, "entice Hoarding Flyer into crimson")
    P = player(g, 0)
    assert P["dragons"][CR] == [HOARDING, 0, 0, 0]
    assert P["coins"] == 2 and P["resources"] == [0, 0, 0, 0] and P["hand_dragons"] == []


def test_entice_printed_coin_cost_is_added_to_the_action_coin():
    core = keep_round(blank())
    give(core, 0, dragons=[STOIC], coins=2, res=(1, 0, 0, 0))
    g = start(core)
    do(g, "entice Stoic Gryphdragon into crimson")
    assert player(g, 0)["coins"] == 0 and player(g, 0)["dragons"][CR][0] == STOIC
    core["players"][0]["coins"] = 1
    assert "entice Stoic Gryphdragon into crimson" not in texts(start(core))


def test_entice_hatchling_costs_an_egg_and_milk():
    core = keep_round(blank())
    give(core, 0, dragons=[SEEDEATER], coins=1, res=(0, 0, 0, 1), nest_eggs=1)
    g = start(core)
    assert texts(g)[0] == "entice Seedeating Drake into golden"
    do(g, "entice Seedeating Drake into golden")
    P = player(g, 0)
    assert P["dragons"][GO][0] == SEEDEATER
    assert P["coins"] == 0 and P["resources"] == [0, 0, 0, 0] and P["nest_eggs"] == 0
    core["players"][0]["nest_eggs"] = 0
    assert not any(t.startswith("entice") for t in texts(start(core)))


def test_entice_only_into_caves_the_dragon_may_live_in():
    core = blank()
    give(core, 0, dragons=[HYENIC, HOARDING, YELLOW], coins=5, res=(3, 3, 0, 0))
    t = [x for x in texts(start(core)) if x.startswith("entice")]
    assert sorted(t) == sorted([
        "entice Hyenic Serpent into crimson",
        "entice Hoarding Flyer into crimson", "entice Hoarding Flyer into golden",
        "entice Yellow-Bellied Lung Dragon into crimson", "entice Yellow-Bellied Lung Dragon into golden",
        "entice Yellow-Bellied Lung Dragon into amethyst"])


def test_entice_into_the_leftmost_empty_excavated_space():
    core = blank()
    give(core, 0, dragons=[HOARDING], coins=3, res=(1, 1, 0, 0))
    put(core, 0, "crimson", 1, dragon=LITTLE)
    put(core, 0, "crimson", 2, cave_card=40)
    put(core, 0, "crimson", 3, cave_card=41)
    g = start(core)
    do(g, "entice Hoarding Flyer into crimson")
    assert player(g, 0)["dragons"][CR] == [LITTLE, HOARDING, 0, 0]


def test_entice_column_2_needs_a_cave_card():
    core = blank()
    give(core, 0, dragons=[HOARDING], coins=3, res=(1, 1, 0, 0))
    put(core, 0, "crimson", 1, dragon=LITTLE)
    t = texts(start(core))
    assert "entice Hoarding Flyer into crimson" not in t      # column 2 not excavated
    assert "entice Hoarding Flyer into golden" in t           # column 1 needs no cave card


def test_entice_not_offered_into_a_full_cave():
    core = four_dragons(blank(), 0, "golden")
    give(core, 0, dragons=[HOARDING], coins=3, res=(1, 1, 0, 0))
    t = texts(start(core))
    assert "entice Hoarding Flyer into golden" not in t and "entice Hoarding Flyer into crimson" in t


def test_resources_exchange_two_for_one_while_paying():
    core = blank()
    give(core, 0, dragons=[HOARDING], coins=3, res=(1, 0, 2, 1))    # no gold
    g = start(core)
    do(g, "entice Hoarding Flyer into crimson")
    assert g.decision == "payment"
    assert sorted(texts(g)) == ["pay 1 meat + 1 crystal + 1 milk", "pay 1 meat + 2 crystal"]
    do(g, "pay 1 meat + 1 crystal + 1 milk")
    assert player(g, 0)["resources"] == [0, 0, 1, 0]
    core["players"][0]["resources"] = [1, 0, 1, 0]                   # 2 short of the exchange
    assert not any(t.startswith("entice") for t in texts(start(core)))


def test_entice_into_column_1_needs_no_cave_card():
    """Column 1 of every cave is excavated from the start: a dragon fits there with no cave card."""
    core = keep_round(blank())
    give(core, 0, dragons=[YELLOW], coins=1)
    g = start(core)
    do(g, "entice Yellow-Bellied Lung Dragon into amethyst")
    P = player(g, 0)
    assert P["dragons"][AM] == [YELLOW, 0, 0, 0] and P["caves"][AM] == [0, 0, 0, 0] and P["coins"] == 0


# ============================================================================ explore
def test_explore_costs_rise_with_each_explore_of_a_cave_in_a_round():
    assert MAT["explore"]["coins"] == [1, 1, 1] and MAT["explore"]["eggs"] == [0, 1, 2]
    core = blank()
    give(core, 0, coins=5)
    put(core, 0, "golden", 1, dragon=ALOOF, eggs=3)          # 3 eggs, all on one dragon
    g = start(core)
    seen = []
    for _ in range(3):
        before = player(g, 0)
        do(g, "explore crimson", "meat")                     # crimson is empty: icon 0 only
        after = player(g, 0)
        seen.append((before["coins"] - after["coins"], eggs_of(before) - eggs_of(after)))
    assert seen == [(1, 0), (1, 1), (1, 2)]
    P = player(g, 0)
    assert P["explores"] == [3, 0, 0] and P["resources"] == [3, 0, 0, 0] and P["coins"] == 2


def test_explore_at_most_3_times_per_cave_per_round():
    assert MAT["explore"]["max_per_cave"] == 3
    core = blank()
    give(core, 0, coins=5, nest_eggs=2)
    core["players"][0]["explores"] = [3, 2, 0]
    t = texts(start(core))
    assert "explore crimson" not in t and "explore golden" in t and "explore amethyst" in t


def test_explore_not_offered_without_its_eggs():
    core = blank()
    give(core, 0, coins=5, nest_eggs=1)
    core["players"][0]["explores"] = [2, 1, 0]               # crimson needs 2 eggs, golden 1
    t = texts(start(core))
    assert "explore crimson" not in t and "explore golden" in t and "explore amethyst" in t
    keep_round(core)
    core["players"][0]["coins"] = 0                          # no coin: only a (forced) pass
    g = start(core)
    assert g.decider == 1 and player(g, 0)["passed"] == 1


def test_explore_walk_icon_0_then_each_dragon_then_its_icon_and_stops_at_the_first_empty_space():
    """Crimson: icon 0 (any resource), Hyenic (meat), icon 1 (guild step: lay an egg), Dowsing
    (crystal), icon 2 (any resource), then column 3 is empty: stop (Spitter in column 4 never
    runs, nor icon 3)."""
    core = keep_round(blank())
    put(core, 0, "crimson", 1, dragon=HYENIC)
    put(core, 0, "crimson", 2, dragon=DOWSING)
    put(core, 0, "crimson", 4, dragon=SPITTER)
    give(core, 0, coins=2)
    g = start(core)
    do(g, "explore crimson")
    assert g.decision == "resource" and player(g, 0)["resources"] == [0, 0, 0, 0]        # icon 0
    do(g, "gold")
    # Hyenic's meat came before icon 1's guild step (space 1: lay an egg); Dowsing not yet
    assert g.decision == "lay egg" and player(g, 0)["resources"] == [1, 1, 0, 0]
    assert player(g, 0)["guild_steps"] == 1
    do(g, NEST)
    assert g.decision == "resource" and player(g, 0)["resources"] == [1, 1, 1, 0]        # icon 2
    do(g, "milk")
    P = player(g, 0)
    assert g.decider == 1
    assert P["resources"] == [1, 1, 1, 1]        # no second meat: the Spitter was not reached
    assert P["nest_eggs"] == 1 and P["eggs"][CR] == [0, 0, 0, 0]   # icon 3 (lay) not reached
    assert P["explores"] == [1, 0, 0] and P["coins"] == 1


@pytest.mark.parametrize("cave", CAVES)
def test_explore_empty_cave_runs_only_icon_0(cave):
    core = keep_round(blank())
    give(core, 0, coins=1)
    g = start(core)
    do(g, f"explore {cave}")
    expected_prompt = {"crimson": "resource", "golden": "gain dragon", "amethyst": "gain cave"}[cave]
    assert g.decision == expected_prompt
    g.apply(g.legal_actions()[-1])
    P = player(g, 0)
    assert g.decider == 1 and P["guild_steps"] == 0 and P["nest_eggs"] == 0
    assert (sum(P["resources"]), len(P["hand_dragons"]), len(P["hand_caves"])) == {
        "crimson": (1, 0, 0), "golden": (0, 1, 0), "amethyst": (0, 0, 1)}[cave]


def test_explore_full_crimson_benefits_from_mat_toml():
    assert MAT["benefits"]["crimson"] == ["gain(any)", "guild(1)", "gain(any)", "lay(1)",
                                          "upto(2) { cache(any, from=supply, on=any) }"]
    core = four_dragons(keep_round(blank()), 0, "crimson")
    give(core, 0, coins=1, res=(0, 0, 0, 1))
    g = start(core)
    do(g, "explore crimson", "meat")                         # icon 0
    assert g.decision == "lay egg" and player(g, 0)["guild_steps"] == 1    # icon 1: guild space 1
    do(g, "crimson 3", "gold")                               # icon 2
    assert g.decision == "lay egg"                           # icon 3
    do(g, "crimson 3")
    assert g.decision == "cache" and texts(g) == ["crimson 1", "crimson 2", "crimson 3", "crimson 4", "no"]
    do(g, "crimson 4", "milk", "pay 1 milk", "crimson 4", "gold")   # icon 4, twice (milk: paid
    # directly, not by the 2:1 exchange of meat + gold that is also offered)
    P = player(g, 0)
    assert g.decider == 1
    assert P["cached"][CR][3] == [0, 1, 0, 1] and P["resources"] == [1, 0, 0, 0]
    assert P["eggs"][CR] == [0, 0, 2, 0] and P["guild_steps"] == 1


def test_explore_full_golden_benefits_from_mat_toml():
    assert MAT["benefits"]["golden"][4] == "upto(2) { tuck(from=hand, under=any) }"
    core = four_dragons(keep_round(blank()), 0, "golden")
    give(core, 0, coins=1, dragons=[LITTLE])
    g = start(core)
    do(g, "explore golden")
    assert g.decision == "gain dragon" and len(texts(g)) == 4      # gain: display or deck
    do(g, "dragon from deck", NEST, "dragon from deck", NEST)     # icons 0-3
    assert g.decision == "tuck card"                               # icon 4
    do(g, "Little Amphiptere", "golden 2", "no")
    P = player(g, 0)
    assert g.decider == 1 and len(P["hand_dragons"]) == 2 and LITTLE not in P["hand_dragons"]
    assert P["tucked"][GO] == [0, 1, 0, 0] and P["nest_eggs"] == 2 and P["guild_steps"] == 1


def test_explore_full_amethyst_benefits_from_mat_toml():
    assert MAT["benefits"]["amethyst"][4] == "upto(2) { pay(cave_card) { lay(2) } }"
    core = four_dragons(keep_round(blank()), 0, "amethyst")
    give(core, 0, coins=1, caves=[12])
    g = start(core)
    do(g, "explore amethyst")
    assert g.decision == "gain cave" and len(texts(g)) == 4
    do(g, "cave from deck", NEST, "cave from deck", NEST)          # icons 0-3
    assert g.decision == "use ability"                             # icon 4: pay a cave card?
    do(g, "yes", "cave 12", "amethyst 3", "amethyst 3", "no")
    P = player(g, 0)
    assert g.decider == 1 and 12 not in P["hand_caves"] and len(P["hand_caves"]) == 2
    assert P["eggs"][AM] == [0, 0, 2, 0] and P["nest_eggs"] == 2
    assert 12 in core_of(g)["discard_caves"]


# ============================================================================ hand limits
def test_hand_limit_9_cards_at_end_of_own_turn():
    assert MAT["limits"] == {"cards": 9, "coins": 9, "resources": 9}
    core = keep_round(blank())
    give(core, 0, dragons=[LITTLE, YELLOW, RAINBOW, ALOOF, WEARY], caves=[12, 13, 14, 16], coins=1)
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    assert g.decision == "discard" and g.decider == 0 and n_cards(player(g, 0)) == 10
    assert "cave 12" in texts(g) and "Little Amphiptere" in texts(g)
    do(g, "cave 12")
    P = player(g, 0)
    assert n_cards(P) == 9 and 12 not in P["hand_caves"] and 12 in core_of(g)["discard_caves"]


def test_hand_limit_9_coins_at_end_of_own_turn():
    core = keep_round(blank())
    give(core, 0, coins=11)
    g = start(core)
    do(g, "explore crimson", "meat")
    assert g.decider == 1 and player(g, 0)["coins"] == 9


def test_hand_limit_9_resources_at_end_of_own_turn():
    core = keep_round(blank())
    give(core, 0, coins=1, res=(5, 4, 0, 0))
    g = start(core)
    do(g, "explore crimson", "milk")
    assert g.decision == "discard" and texts(g)[:3] == ["meat", "gold", "milk"]
    assert all(t.startswith("exchange") for t in texts(g)[3:])      # or 2:1 instead of discarding
    do(g, "milk")
    assert player(g, 0)["resources"] == [5, 4, 0, 0]


def test_hand_limits_are_three_separate_limits():
    core = keep_round(blank())
    give(core, 0, dragons=[LITTLE, YELLOW, RAINBOW, ALOOF, WEARY], caves=[12, 13, 14, 16],
         coins=10, res=(8, 0, 0, 0))
    g = start(core)
    do(g, "explore crimson", "gold")
    P = player(g, 0)
    assert g.decider == 1                      # no discard: 9 + 9 + 9 items are allowed
    assert (n_cards(P), P["coins"], sum(P["resources"])) == (9, 9, 9)


def test_no_hand_limit_when_passing():
    core = keep_round(blank())
    give(core, 0, dragons=[LITTLE, YELLOW, RAINBOW, ALOOF, WEARY, HOMELY], caves=[12, 13, 14, 16],
         coins=12, res=(11, 0, 0, 0))
    g = start(core)
    do(g, "pass")
    P = player(g, 0)
    assert g.decider == 1 and P["passed"] == 1
    assert (n_cards(P), P["coins"], sum(P["resources"])) == (10, 12, 11)


def test_items_gained_on_another_turn_are_checked_at_the_end_of_your_own_turn():
    core = keep_round(blank())
    give(core, 0, dragons=[178], coins=1, res=(1, 0, 1, 0))   # Watchful Wyvern: opponents gain gold
    give(core, 1, res=(9, 0, 0, 0))
    g = start(core)
    do(g, "entice Watchful Wyvern into crimson")
    assert g.decider == 1 and g.decision == "move"
    assert player(g, 1)["resources"] == [9, 1, 0, 0]          # 10: no discard on p0's turn
    do(g, "explore crimson", "milk")
    assert g.decision == "discard" and g.decider == 1
    do(g, "gold", "milk")
    assert player(g, 1)["resources"] == [9, 0, 0, 0]


# ============================================================================ turns and passing
def test_turn_order_skips_passed_players_and_the_round_ends_when_all_passed():
    core = blank(3, active=0)
    for p in range(3):
        give(core, p, coins=5)
    g = start(core)
    assert g.decider == 0
    do(g, "pass")
    assert g.decider == 1 and player(g, 0)["passed"] == 1
    do(g, "explore crimson", "meat")
    assert g.decider == 2
    do(g, "explore crimson", "meat")
    assert g.decider == 1 and g.active == 1                  # player 0 is skipped
    do(g, "explore golden", "dragon from deck")
    assert g.decider == 2
    do(g, "pass")
    assert g.decider == 1                                    # the last player goes on alone
    do(g, "explore amethyst", "cave from deck")
    assert g.decider == 1 and g.round == 1
    do(g, "pass")
    # all passed: round 2 starts with the next start player
    c = core_of(g)
    assert g.round == 2 and c["round"] == 1 and c["start_player"] == 1
    assert g.phase == "turn" and g.decider == 1
    assert [P["passed"] for P in c["players"]] == [0, 0, 0]


def test_passed_players_still_take_benefits_of_other_players_abilities():
    core = keep_round(blank())
    core["players"][1]["passed"] = 1
    give(core, 0, dragons=[181], coins=1, res=(1, 0, 0, 0))   # Gamboling Landragon
    assert DB.dragon(181).abilities[0].text == "gain(meat, meat); each_opponent { gain(meat) }"
    core["players"][0]["coins"] = 2
    g = start(core)
    do(g, "entice Gamboling Landragon into crimson")
    assert player(g, 0)["resources"] == [2, 0, 0, 0] and player(g, 1)["resources"] == [1, 0, 0, 0]
    assert g.decider == 0                                    # p1 passed: p0 plays on


def test_each_opponent_decides_for_themself_in_turn_order_passed_players_included():
    core = blank(3, active=1)
    give(core, 1, dragons=[174], coins=2, res=(1, 0, 0, 0), nest_eggs=1)   # Steadfast Southern Drake
    give(core, 2, nest_eggs=1, coins=1)
    give(core, 0, nest_eggs=1)
    core["players"][0]["passed"] = 1
    g = start(core)
    do(g, "entice Steadfast Southern Drake into crimson")
    assert (g.decider, g.decision) == (1, "use ability")      # the owner first (optional for them)
    do(g, "no")
    assert (g.decider, g.decision) == (2, "use ability")      # then clockwise: player 2
    do(g, "no")
    assert (g.decider, g.decision) == (0, "use ability")      # then player 0, although passed
    do(g, "yes")
    assert (g.decider, g.decision) == (0, "option") and len(texts(g)) == 3
    do(g, "option 1", "crystal")                             # option 1: any resource
    c = core_of(g)
    assert c["players"][0]["nest_eggs"] == 0 and c["players"][0]["resources"] == [0, 0, 1, 0]
    assert c["players"][1]["nest_eggs"] == 1 and c["players"][2]["nest_eggs"] == 1
    assert g.decider == 2 and g.decision == "move"


# ============================================================================ end of round
def _round_end(players=3, start_player=1):
    core = blank(players, active=start_player)
    core.update(phase="round end", phase_player=start_player, phase_count=0,
                start_player=start_player)
    core["objective_tiles"][0], core["objective_sides"][0] = 2, 1      # tile 3b: eggs
    return core


def test_once_per_round_abilities_run_per_player_in_turn_order_from_the_start_player():
    core = _round_end(3, start_player=1)
    put(core, 0, "crimson", 1, dragon=153)     # Blue Keeper: cache a resource here, lay an egg here
    put(core, 1, "crimson", 1, dragon=120)     # Knowing Guardian: cache, draw a dragon
    put(core, 2, "golden", 1, dragon=161)      # Greater Scorpio: gain milk, may cache it
    give(core, 0, res=(1, 0, 0, 0))
    give(core, 1, res=(1, 0, 0, 0))
    g = start(core)
    order = []
    while g.phase == "round end":
        order.append(g.decider)
        assert g.decision == "cache"
        g.apply(g.legal_actions()[0])
    assert order == [1, 2, 0]
    c = core_of(g)
    assert c["players"][0]["cached"][CR][0] == [1, 0, 0, 0] and c["players"][0]["eggs"][CR][0] == 1
    assert len(c["players"][1]["hand_dragons"]) == 1
    assert c["players"][2]["cached"][GO][0] == [0, 0, 0, 1]


def test_each_player_orders_their_own_once_per_round_abilities():
    core = _round_end(2, start_player=0)
    put(core, 0, "crimson", 1, dragon=139)     # Oracular Dragon: lay an egg here
    put(core, 0, "crimson", 2, dragon=153)     # Blue Keeper
    put(core, 0, "crimson", 2, cave_card=40)
    give(core, 0, res=(1, 0, 0, 0))
    g = start(core)
    assert (g.decider, g.decision) == (0, "order") and texts(g) == ["crimson 1", "crimson 2"]
    do(g, "crimson 2", "crimson 2")           # Blue Keeper first: cache on it (then its egg)
    assert player(g, 0)["eggs"][CR] == [1, 1, 0, 0]     # then Oracular ran without a decision


def test_objective_is_scored_after_once_per_round_abilities():
    core = _round_end(2, start_player=0)
    put(core, 0, "crimson", 1, dragon=139)     # Oracular Dragon: lay an egg here
    g = start(core)
    c = core_of(g)
    assert c["players"][0]["objective_count"][0] == 1 and c["players"][0]["objective_vp"][0] == 4
    assert c["players"][1]["objective_count"][0] == 0 and c["players"][1]["objective_vp"][0] == 0


# ============================================================================ objectives
def _objective(counts, round_, tile=0, side=0):
    """Players with the given number of cave cards on their mat, at the objective of `round_`
    (tile 1a by default: cave cards)."""
    core = blank(len(counts))
    core.update(phase="objective", round=round_ - 1, phase_count=0)
    core["objective_tiles"][round_ - 1], core["objective_sides"][round_ - 1] = tile, side
    for p, n in enumerate(counts):
        for i in range(n):
            c, k = divmod(i, 3)
            core["players"][p]["caves"][c][k + 1] = core["deck_caves"].pop()
    g = start(core)
    c = core_of(g)
    return g, [P["objective_vp"][round_ - 1] for P in c["players"]], \
        [P["objective_count"][round_ - 1] for P in c["players"]]


@pytest.mark.parametrize("round_", [1, 2, 3, 4])
def test_objective_vp_by_rank_from_objectives_toml(round_):
    first, second, third = VP_BY_ROUND[round_ - 1]
    assert VP_BY_ROUND == [[4, 1, 0], [5, 2, 1], [6, 3, 2], [7, 4, 3]]
    _, vp, counts = _objective([5, 4, 3, 2, 1], round_)
    assert counts == [5, 4, 3, 2, 1]
    assert vp == [first, second, third, 0, 0]


@pytest.mark.parametrize("round_", [1, 4])
def test_objective_ties_are_friendly(round_):
    first, second, third = VP_BY_ROUND[round_ - 1]
    _, vp, _ = _objective([3, 3, 2, 1], round_)
    assert vp == [first, first, second, third]       # the tied pair shares 1st; next is 2nd
    _, vp, _ = _objective([4, 2, 2, 1], round_)
    assert vp == [first, second, second, third]


def test_objective_zero_count_scores_nothing():
    _, vp, counts = _objective([0, 0], 2)
    assert counts == [0, 0] and vp == [0, 0]
    _, vp, _ = _objective([2, 0, 0], 4)
    assert vp == [7, 0, 0]                           # zero never takes 2nd or 3rd place


def test_objective_of_each_round_uses_its_own_tile():
    # round 3 objective = tile 3b (eggs); the players' cave cards do not count there
    core = blank(2)
    core.update(phase="objective", round=2)
    core["objective_tiles"][2], core["objective_sides"][2] = 2, 1
    excavate_all(core, 0)
    core["players"][1]["nest_eggs"] = 2
    g = start(core)
    c = core_of(g)
    assert [P["objective_count"][2] for P in c["players"]] == [0, 2]
    assert [P["objective_vp"][2] for P in c["players"]] == [0, 6]
    assert c["n_scored"] == 3


def test_objective_guild_markers_ties_broken_by_guild_position():
    """Tile 4b (markers on the guild tile) breaks ties by position on the guild track."""
    assert OBJ["tile"][3]["b"]["tiebreak"] == "guild_position"
    core = blank(3)
    core.update(phase="objective", round=0)
    core["objective_tiles"][0], core["objective_sides"][0] = 3, 1
    for p, (left, steps) in enumerate([(3, 7), (3, 9), (4, 2)]):
        core["players"][p]["markers_left"] = left
        core["players"][p]["guild_steps"] = steps
    g = start(core)
    c = core_of(g)
    assert [P["objective_count"][0] for P in c["players"]] == [1, 1, 0]
    assert [P["objective_vp"][0] for P in c["players"]] == [1, 4, 0]


# ============================================================================ start of a round
def test_next_round_refreshes_display_gives_6_coins_an_egg_and_passes_the_start_player():
    core = blank(3, active=2)
    core.update(phase="objective", round=0, start_player=2)
    for P in core["players"]:
        P["coins"], P["explores"], P["passed"] = 2, [3, 1, 0], 1
    core["players"][1]["coins"] = 8
    old_d, old_c = list(core["display_dragons"]), list(core["display_caves"])
    top_d, top_c = core["deck_dragons"][-3:][::-1], core["deck_caves"][-3:][::-1]
    g = start(core)
    c = core_of(g)
    assert g.round == 2 and c["round"] == 1
    assert c["start_player"] == 0 and g.phase == "turn" and g.decider == 0
    assert c["display_dragons"] == top_d and c["display_caves"] == top_c
    assert c["discard_dragons"] == old_d and c["discard_caves"] == old_c
    assert [P["coins"] for P in c["players"]] == [8, 14, 8]    # 14: no limit until own turn ends
    assert [P["nest_eggs"] for P in c["players"]] == [1, 1, 1]
    assert all(P["explores"] == [0, 0, 0] and P["passed"] == 0 for P in c["players"])


def test_next_round_egg_only_if_there_is_room_and_where_the_player_chooses():
    core = blank(2)
    core.update(phase="objective", round=1, start_player=1)
    core["players"][0]["nest_eggs"] = 2                       # full, no dragons: no egg
    put(core, 1, "crimson", 1, dragon=YELLOW)                 # capacity 1
    g = start(core)
    # the new start player (0) lays first but has no room; player 1 chooses where
    assert (g.phase, g.decider, g.decision) == ("round start", 1, "lay egg")
    assert texts(g) == ["crimson 1", "mat nest"]
    do(g, "crimson 1")
    c = core_of(g)
    assert c["start_player"] == 0 and g.round == 3
    assert c["players"][0]["nest_eggs"] == 2 and eggs_of(c["players"][0]) == 2
    assert c["players"][1]["eggs"][CR][0] == 1 and c["players"][1]["nest_eggs"] == 0


def test_game_ends_after_the_fourth_round_without_a_new_round():
    core = blank(2)
    core.update(phase="objective", round=3)
    for P in core["players"]:
        P["coins"] = 2
    g = start(core)
    assert g.is_terminal() and g.phase == "over" and g.legal_actions() == []
    assert [P["coins"] for P in core_of(g)["players"]] == [2, 2]
    assert core_of(g)["n_scored"] == 4


def test_a_random_game_lasts_four_rounds():
    g = Game.new(2, 21)
    g.play_random(3)
    c = core_of(g)
    assert c["round"] == 3 and c["n_scored"] == 4 and g.is_terminal()


# ============================================================================ the Dragon Guild
ETERNAL = 57        # Eternal Feydragon: 2 gold + 1 crystal, golden; guild(2); each opponent guild(1)


def _guild_step_for_p1(steps, tile=0, markers_left=4, spots=None, fixed_count=0):
    """Player 0 entices Eternal Feydragon: player 1 (at `steps`) moves 1 guild step.
    Player 0 starts at 9 so their own 2 steps (coin, milk) need no decision."""
    assert DB.dragon(ETERNAL).abilities[0].text == "guild(2); each_opponent { guild(1) }"
    core = keep_round(blank())
    core["guild_tile"] = tile
    core["fixed_count"] = fixed_count
    if spots:
        core["guild_spots"] = spots
    give(core, 0, dragons=[ETERNAL], coins=1, res=(0, 2, 1, 0))
    core["players"][0]["guild_steps"] = 9
    core["players"][1].update(guild_steps=steps, markers_left=markers_left)
    g = start(core)
    do(g, "entice Eternal Feydragon into golden")
    return g


SPACE_GAIN = {   # space: (resources, coins, nest eggs, dragon cards, cave cards)
    1: ((0, 0, 0, 0), 1, 1, 0, 0), 2: ((1, 0, 0, 0), 1, 0, 0, 0), 3: ((0, 0, 0, 0), 1, 0, 1, 0),
    4: ((0, 0, 0, 0), 1, 0, 0, 1), 5: ((0, 0, 1, 0), 1, 0, 0, 0), 7: ((0, 0, 0, 0), 1, 1, 0, 0),
    8: ((0, 1, 0, 0), 1, 0, 0, 0), 9: ((0, 0, 0, 0), 1, 0, 1, 0), 10: ((0, 0, 0, 0), 2, 0, 0, 0),
    11: ((0, 0, 0, 1), 1, 0, 0, 0)}


@pytest.mark.parametrize("space", sorted(SPACE_GAIN))
def test_guild_step_gains_the_benefit_of_the_space(space):
    assert GUILD["track"]["brown"] == [0, 6]
    g = _guild_step_for_p1(space - 1)
    p0 = player(g, 0)
    assert p0["guild_steps"] == 11 and p0["coins"] == 1 and p0["resources"] == [0, 0, 0, 1]
    if g.decision in ("gain dragon", "gain cave"):
        assert g.decider == 1
        g.apply(g.legal_actions()[-1])                      # from the deck
    P = player(g, 1)
    assert g.decision == "move" and g.decider == 1
    assert P["guild_steps"] == space
    assert (tuple(P["resources"]), P["coins"], P["nest_eggs"], len(P["hand_dragons"]),
            len(P["hand_caves"])) == SPACE_GAIN[space]


def test_guild_several_steps_gain_every_space_passed():
    core = keep_round(blank())
    give(core, 0, dragons=[121], coins=3, res=(0, 1, 2, 0))   # Archaic Whiskered: pay a coin, 3 steps
    assert DB.dragon(121).abilities[0].text == "pay(coin) { guild(3) }"
    core["players"][0]["guild_steps"] = 1
    g = start(core)
    do(g, "entice Archaic Whiskered Lung Dragon into golden", "yes",
       "dragon from deck", "cave from deck")                  # spaces 2 (meat), 3, 4
    P = player(g, 0)
    assert P["guild_steps"] == 4 and P["coins"] == 1 and P["resources"] == [1, 0, 0, 0]
    assert len(P["hand_dragons"]) == 1 and len(P["hand_caves"]) == 1


def test_guild_brown_space_6_places_a_marker_and_runs_the_spot_ability():
    g = _guild_step_for_p1(5, tile=0)                          # Plains Guild
    assert (g.decider, g.decision) == (1, "guild spot")
    assert heads(g) == ["guild ability 1", "guild ability 2", "guild ability 3", "guild ability 4",
                        "fixed vp spot"]
    assert "guild ability 3: gain 1 coin; lay 2 eggs" in texts(g)
    do(g, "guild ability 3")                                   # gain a coin; lay 2 eggs
    c = core_of(g)
    P = c["players"][1]
    assert P["guild_steps"] == 6 and P["markers_left"] == 3 and P["tile_markers"] == [0, 0, 1, 0]
    assert c["guild_spots"][2][0] == 2                          # seat 1 + 1
    assert P["coins"] == 2 and P["nest_eggs"] == 2


def test_guild_brown_space_0_after_a_full_lap():
    g = _guild_step_for_p1(11, tile=1)                         # Guild of Seafarers
    assert (g.decider, g.decision) == (1, "guild spot")
    do(g, "guild ability 3", "dragon from deck", "dragon from deck")   # coin + 2 dragon cards
    P = player(g, 1)
    assert P["guild_steps"] == 12 and P["markers_left"] == 3
    assert P["coins"] == 2 and len(P["hand_dragons"]) == 2


def test_guild_start_space_places_no_marker_at_setup():
    for P in core_of(Game.new(4, 2))["players"]:
        assert P["guild_steps"] == 0 and P["markers_left"] == 4 and P["tile_markers"] == [0, 0, 0, 0]


def test_guild_spots_hold_one_marker_each():
    # Plains: ability 1 has 2 spots, ability 2 one; player 0 holds ability 2 and one of ability 1
    spots = [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    g = _guild_step_for_p1(5, tile=0, spots=spots)
    assert heads(g) == ["guild ability 1", "guild ability 3", "guild ability 4", "fixed vp spot"]
    spots = [[1, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]
    g = _guild_step_for_p1(5, tile=0, spots=spots)
    # only the unlimited fixed-VP spot is left: taken without a decision
    P = player(g, 1)
    assert g.decision == "move" and P["markers_left"] == 3 and P["fixed_vp"] == 6


def test_guild_at_most_4_markers_then_the_token_keeps_moving():
    g = _guild_step_for_p1(5, tile=0, markers_left=0)
    c = core_of(g)
    P = c["players"][1]
    assert g.decision == "move" and P["guild_steps"] == 6 and P["markers_left"] == 0
    assert P["tile_markers"] == [0, 0, 0, 0] and P["fixed_vp"] == 0
    assert c["guild_spots"] == [[0] * 4] * 4 and c["fixed_count"] == 0


@pytest.mark.parametrize("before,vp", [(0, 6), (1, 3), (2, 1), (3, 1), (7, 1)])
def test_guild_fixed_vp_spot_6_3_1(before, vp):
    assert GUILD["fixed_vp_spot"]["vp"] == [6, 3, 1]
    g = _guild_step_for_p1(5, tile=0, fixed_count=before)
    do(g, "fixed vp spot")
    c = core_of(g)
    assert c["players"][1]["fixed_vp"] == vp and c["fixed_count"] == before + 1
    assert c["players"][1]["markers_left"] == 3
    assert g.score_breakdown()[1]["guild"] == vp


def test_guild_end_game_tile_ability_scores_once_per_marker():
    core = blank(2)
    core.update(phase="end game", phase_player=0, phase_count=0, guild_tile=0)   # Plains
    P = core["players"][0]
    P["tile_markers"] = [0, 0, 0, 1]                         # end game: 1 VP per 2 eggs
    P["fixed_vp"] = 3
    P["nest_eggs"] = 2
    put(core, 0, "crimson", 1, dragon=ALOOF, eggs=3)
    core["guild_spots"][3][0] = 1
    g = start(core)
    assert g.is_terminal()
    assert player(g, 0)["tile_vp"] == 2 and g.score_breakdown()[0]["guild"] == 3 + 2
    core["guild_tile"] = 3                                   # Rainforest ability 4 has 2 spots
    P["tile_markers"] = [0, 0, 0, 2]                         # 1 VP per printed cost in the best cave
    put(core, 0, "golden", 1, dragon=HOARDING)               # cost 2
    g = start(core)
    assert player(g, 0)["tile_vp"] == 2 * 2


# ============================================================================ final scoring
def _end_game(players=2):
    core = blank(players)
    core.update(phase="end game", phase_player=0, phase_count=0, round=3)
    return core


def test_final_score_adds_every_category():
    core = _end_game()
    P = core["players"][0]
    put(core, 0, "crimson", 1, dragon=HOMELY, cached=(1, 0, 1, 0))      # 3 VP; end game: 0
    put(core, 0, "crimson", 2, dragon=STOIC, eggs=2, tucked=2)          # 7 VP; last in cave: +3
    put(core, 0, "crimson", 2, cave_card=40)
    give(core, 0, dragons=[LITTLE, YELLOW], caves=[12], coins=5, res=(2, 1, 1, 1), nest_eggs=1)
    P["fixed_vp"] = 6
    P["objective_vp"] = [4, 2, 0, 7]
    g = start(core)
    assert g.is_terminal()
    b = g.score_breakdown()[0]
    assert b == {"guild": 6, "dragons": 10, "end_game": 3, "eggs": 3, "cached": 2, "tucked": 2,
                 "objectives": 13, "coins": 5, "items": 2, "caves": 0, "total": 46}
    assert g.scores()[0] == 46


def test_final_score_other_items_1_vp_per_4_rounded_down():
    core = _end_game()
    give(core, 0, dragons=[LITTLE, YELLOW, RAINBOW], caves=[12, 13], res=(1, 1, 0, 0))   # 7 items
    give(core, 1, dragons=[ALOOF, WEARY], caves=[14], res=(3, 0, 0, 2))                 # 8 items
    g = start(core)
    assert [b["items"] for b in g.score_breakdown()] == [1, 2]
    assert [b["total"] for b in g.score_breakdown()] == [1, 2]


def test_final_score_hand_and_tucked_dragons_score_no_printed_vp():
    core = _end_game()
    give(core, 0, dragons=[STOIC])
    put(core, 0, "golden", 1, dragon=LITTLE, tucked=3)
    g = start(core)
    b = g.score_breakdown()[0]
    assert b["dragons"] == DB.dragon(LITTLE).vp == 2 and b["tucked"] == 3 and b["items"] == 0


def test_tie_break_most_dragons_on_the_mat():
    core = _end_game()
    put(core, 0, "crimson", 1, dragon=YELLOW)            # 3 VP, 1 dragon
    give(core, 1, coins=3)                                # 3 VP, 0 dragons
    g = start(core)
    assert g.scores() == [3, 3] and g.winners() == [0]


def test_tie_break_then_most_eggs():
    core = _end_game()
    put(core, 0, "crimson", 1, dragon=YELLOW)            # 3 VP
    put(core, 1, "crimson", 1, dragon=LITTLE)            # 2 VP
    give(core, 1, nest_eggs=1)                            # + 1 egg
    g = start(core)
    assert g.scores() == [3, 3] and g.winners() == [1]


def test_tie_break_else_a_shared_win():
    core = _end_game(3)
    give(core, 0, coins=4)
    give(core, 1, coins=4)
    give(core, 2, coins=3)
    g = start(core)
    assert g.scores() == [4, 4, 3] and g.winners() == [0, 1]


def test_most_vp_wins():
    core = _end_game()
    give(core, 1, coins=1)
    put(core, 0, "crimson", 1, dragon=YELLOW)
    put(core, 0, "golden", 1, dragon=LITTLE)
    give(core, 1, coins=1, nest_eggs=2)
    g = start(core)
    assert g.scores() == [5, 3] and g.winners() == [0]


def test_end_game_abilities_run_for_every_player_at_game_end():
    core = _end_game()
    put(core, 0, "crimson", 1, dragon=STOIC)              # last in cave: 3
    put(core, 1, "golden", 1, dragon=179)                 # Nurturing Feydragon: 1 VP per 2 eggs
    give(core, 1, nest_eggs=2)
    core["players"][1]["eggs"][GO][0] = 3
    g = start(core)
    assert [player(g, p)["end_vp"] for p in range(2)] == [3, 2]
    assert [b["end_game"] for b in g.score_breakdown()] == [3, 2]


# ============================================================================ display and decks
def test_display_slot_taken_in_a_turn_is_refilled_at_its_end():
    core = keep_round(blank())
    give(core, 0, coins=1)
    taken = core["display_dragons"][1]
    top = core["deck_dragons"][-1]
    g = start(core)
    do(g, "explore golden", "dragon from display 2")
    c = core_of(g)
    assert c["players"][0]["hand_dragons"] == [taken]
    assert c["display_dragons"][1] == top and len(c["deck_dragons"]) == len(core["deck_dragons"]) - 1


def test_display_slot_stays_empty_until_the_end_of_the_turn():
    core = keep_round(blank())
    give(core, 0, coins=1)
    put(core, 0, "golden", 1, dragon=YELLOW)              # so icon 1 (guild: lay an egg) follows
    g = start(core)
    do(g, "explore golden", "dragon from display 1")
    assert g.decision == "lay egg" and core_of(g)["display_dragons"][0] == 0
    do(g, NEST)
    assert core_of(g)["display_dragons"][0] != 0


def test_display_is_replaced_between_rounds_even_if_untouched():
    core = blank(2)
    core.update(phase="objective", round=0)
    before = set(core["display_dragons"]) | set(core["display_caves"])
    c = core_of(start(core))
    assert not (set(c["display_dragons"]) | set(c["display_caves"])) & before


def test_empty_deck_is_rebuilt_from_its_discard_pile():
    core = keep_round(blank())
    give(core, 0, coins=1)
    pile = core["deck_dragons"][:5]
    core["deck_dragons"] = []
    core["discard_dragons"] = pile
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    c = core_of(g)
    drawn = c["players"][0]["hand_dragons"]
    assert len(drawn) == 1 and drawn[0] in pile
    assert c["reshuffles"] == 1 and c["discard_dragons"] == []
    assert sorted(c["deck_dragons"] + drawn) == sorted(pile)


def test_empty_cave_deck_is_rebuilt_at_the_display_refill():
    core = keep_round(blank())
    give(core, 0, coins=1)
    pile = core["deck_caves"]
    core["deck_caves"], core["discard_caves"] = [], pile
    g = start(core)
    do(g, "explore amethyst", "cave from display 3")
    c = core_of(g)
    assert c["display_caves"][2] in pile and c["reshuffles"] == 1
    assert len(c["deck_caves"]) == len(pile) - 1 and c["discard_caves"] == []


# ============================================================================ costs, payments, optional abilities
def test_ability_entice_never_costs_the_action_coin_discount_one_waives_a_resource():
    assert DB.cave(52).abilities[0].text == "entice(from=hand, cost=discount_one)"
    core = keep_round(blank())
    give(core, 0, caves=[52], dragons=[HOARDING], coins=2, res=(1, 1, 0, 0))
    g = start(core)
    do(g, "excavate cave 52 into crimson")
    assert g.decision == "play dragon" and texts(g) == ["Hoarding Flyer", "no"]
    do(g, "Hoarding Flyer", "golden")
    assert g.decision == "waive" and texts(g) == ["waive meat", "waive gold"]
    do(g, "waive gold")
    P = player(g, 0)
    assert P["coins"] == 1                                   # only the excavate coin
    assert P["resources"] == [0, 1, 0, 0] and P["dragons"][GO][0] == HOARDING


def test_ability_entice_free_costs_nothing():
    assert DB.dragon(146).abilities[0].text == "pay(any) { entice(from=hand, cost=free) }"
    core = keep_round(blank())
    give(core, 0, dragons=[146, HOARDING], coins=2, res=(3, 0, 0, 0))   # Crafty Moray: 2 meat
    g = start(core)
    do(g, "entice Crafty Moray into crimson", "yes")          # pay the 3rd meat: entice for free
    assert g.decision == "play dragon"
    do(g, "Hoarding Flyer")                                   # only golden has a free space
    P = player(g, 0)
    assert P["coins"] == 1 and P["resources"] == [0, 0, 0, 0]
    assert P["dragons"][CR][0] == 146 and P["dragons"][GO][0] == HOARDING


def test_free_excavate_pays_no_column_eggs_but_still_offers_the_column_4_exchange():
    assert DB.dragon(113).abilities[0].text == "excavate(from=hand, free=yes)"
    core = keep_round(blank())
    give(core, 0, dragons=[113, LITTLE, YELLOW], caves=[16], coins=2, res=(0, 0, 2, 0))
    put(core, 0, "amethyst", 2, cave_card=40)
    put(core, 0, "amethyst", 3, cave_card=41)                # column 4 would cost 2 eggs; none
    g = start(core)
    do(g, "entice Shaly Rockbreaker into amethyst", "cave 16")
    assert g.decision == "cave" and texts(g) == ["crimson", "golden", "amethyst"]
    do(g, "amethyst")
    assert g.decision == "exchange" and texts(g) == ["yes", "no"]
    do(g, "yes", "crystal", "Little Amphiptere")    # (a first crystal is forced) + crystal + card
    P = player(g, 0)
    assert P["caves"][AM] == [0, 40, 41, 16] and P["coins"] == 1
    assert P["resources"] == [0, 0, 0, 0] and P["hand_dragons"] == [YELLOW]


def test_pay_x_if_you_do_y():
    assert DB.dragon(45).abilities[0].text == "pay(coin) { lay(3) }"      # Tranquil Wyrm
    core = keep_round(blank())
    put(core, 0, "amethyst", 1, dragon=45)
    give(core, 0, coins=3)
    g = start(core)
    do(g, "explore amethyst", "cave from deck")
    assert g.decision == "use ability"
    h = g.clone()
    do(h, "no", NEST)                                        # NEST: icon 1, guild space 1
    assert player(h, 0)["coins"] == 2 and eggs_of(player(h, 0)) == 1
    do(g, "yes")                                             # lay(3) all go on the Wyrm itself
    assert g.decision == "lay egg" and player(g, 0)["eggs"][AM][0] == 3
    do(g, "amethyst 1")                                      # icon 1, guild space 1
    P = player(g, 0)
    assert P["coins"] == 1 and P["eggs"][AM][0] == 4
    core["players"][0]["coins"] = 1                          # the explore takes the only coin
    g = start(core)
    do(g, "explore amethyst", "cave from deck")
    assert g.decision != "use ability" and player(g, 0)["eggs"][AM][0] == 0


def test_gained_item_not_cached_stays_in_the_supply():
    assert DB.dragon(161).abilities[0].text == "gain(milk) { cache(gained, on=any) }"
    core = blank(2)
    core.update(phase="round end", phase_player=0, phase_count=0)
    core["objective_tiles"][0], core["objective_sides"][0] = 2, 1
    put(core, 0, "golden", 1, dragon=161)
    g = start(core)
    assert g.decision == "cache" and texts(g) == ["golden 1", "no"]
    do(g, "no")
    P = player(g, 0)
    assert P["resources"] == [0, 0, 0, 1] and P["cached"][GO][0] == [0, 0, 0, 0]


def test_an_egg_laid_by_a_dragon_goes_on_that_dragon_if_possible():
    assert DB.dragon(37).abilities[0].text == "lay(2); each_opponent { lay(1, on=any) }"
    core = keep_round(blank())
    give(core, 0, dragons=[37], coins=1, res=(0, 0, 2, 0))   # Subterranean Basilisk, capacity 3
    g = start(core)
    do(g, "entice Subterranean Basilisk into amethyst")
    assert g.decider == 1                                    # no decision: both on the Basilisk
    assert player(g, 0)["eggs"][AM][0] == 2 and player(g, 0)["nest_eggs"] == 0
    assert player(g, 1)["nest_eggs"] == 1                    # the opponent lays anywhere


def test_dragons_hold_no_more_eggs_than_their_capacity():
    core = keep_round(blank())
    put(core, 0, "crimson", 1, dragon=YELLOW, eggs=1)        # capacity 1: full
    give(core, 0, coins=1, nest_eggs=1)
    g = start(core)
    do(g, "explore crimson", "meat")                         # icon 1: guild space 1 lays an egg
    P = player(g, 0)
    assert g.decider == 1 and P["eggs"][CR][0] == 1 and P["nest_eggs"] == 2
    assert P["guild_steps"] == 1


def test_gain_take_and_draw_card_sources():
    # gain: display or deck (explore golden); take: display only; draw: deck only
    core = keep_round(blank())
    give(core, 0, coins=1)
    assert len([t for t in texts(do(start(core), "explore golden")) if t.startswith("dragon")]) == 4
    assert DB.dragon(64).abilities[0].text == "excavate(from=display, free=yes)"
    core = keep_round(blank())
    give(core, 0, dragons=[64, 165], coins=5, res=(0, 4, 1, 0))
    g = start(core)
    do(g, "entice Scaly Rock Dragon into golden")
    assert g.decision == "play cave"
    assert [t[:19] for t in texts(g)] == [f"cave from display {i}" for i in (1, 2, 3)] + ["no"]
    assert DB.dragon(165).abilities[0].text == \
        "gain(dragon_card, dragon_card); each_opponent { gain(dragon_card, from=deck) }"
    core = keep_round(blank())
    give(core, 0, dragons=[165], coins=1, res=(0, 1, 1, 0))
    top = core["deck_dragons"][-1]
    g = start(core)
    do(g, "entice Clairvoyant Feydragon into golden", "dragon from display 1", "dragon from display 2")
    assert player(g, 1)["hand_dragons"] == [top]             # drawn from the deck, no choice


def test_eggs_and_coins_are_not_resources():
    core = keep_round(blank())
    give(core, 0, coins=1)
    g = start(core)
    do(g, "explore crimson")
    assert g.decision == "resource" and texts(g) == list(RES)


def test_hatchling_feeds_and_grows_up_once():
    """Redwood Lung Dragon: if activated cache a milk here; each milk cached: gain a milk; the
    third: lay 2 eggs (once)."""
    d = DB.dragon(15)
    assert d.feeds == "milk" and d.ability("on_feed").text == "gain(milk)"
    assert d.ability("grow_up").text == "lay(2)"
    core = keep_round(blank())
    give(core, 0, coins=3, res=(0, 0, 0, 1))
    put(core, 0, "amethyst", 1, dragon=15, cached=(0, 0, 0, 2))
    g = start(core)
    do(g, "explore amethyst", "cave from deck", "amethyst 1")
    P = player(g, 0)
    assert P["cached"][AM][0] == [0, 0, 0, 3] and P["resources"] == [0, 0, 0, 1]   # fed: +1 milk
    assert P["grown"][AM][0] == 1 and P["nest_eggs"] == 2                          # grew up
    do(g, "pass")                                            # player 1 passes; player 0 again
    do(g, "explore amethyst", "cave from deck", "amethyst 1")
    P = player(g, 0)
    assert P["cached"][AM][0] == [0, 0, 0, 4]
    assert P["resources"] == [1, 0, 0, 1]                    # fed again (+ guild space 2: meat)
    assert P["grown"][AM][0] == 1 and eggs_of(P) == 2 - 1    # paid 1 egg; no second grow-up


def test_hatchling_fed_by_another_dragons_ability():
    """Contrary Lung Dragon (once per round: gain a meat, may cache it on any dragon) feeds a
    meat-eating hatchling: its second row runs."""
    assert DB.dragon(154).abilities[0].text == "gain(meat) { cache(gained, on=any) }"
    assert DB.dragon(23).feeds == "meat" and DB.dragon(23).ability("on_feed").text == "lay(1)"
    core = blank(2)
    core.update(phase="round end", phase_player=0, phase_count=0)
    core["objective_tiles"][0], core["objective_sides"][0] = 2, 1
    put(core, 0, "crimson", 1, dragon=154)
    put(core, 0, "amethyst", 1, dragon=23)                   # Ravenous Granite Dragon
    g = start(core)
    do(g, "amethyst 1", NEST)                                # cache on the hatchling; its egg
    P = player(g, 0)
    assert P["cached"][AM][0] == [1, 0, 0, 0] and P["resources"] == [0, 0, 0, 0]
    assert P["objective_count"][0] == 1                     # its lay(1) ran before the objective


def test_tucked_cards_are_not_dragons():
    assert DB.dragon(93).abilities[0].text == "if(at_least(count(dragons, in=golden), 4)) { vp(5) }"
    others = (HOARDING, 50, 40)                    # golden dragons without end-game abilities
    assert all(DB.dragon(n).ability("end_game") is None for n in others)
    core = _end_game()
    for col, d in enumerate((93, *others[:2]), start=1):
        put(core, 0, "golden", col, dragon=d, tucked=3)      # 3 dragons, 9 tucked cards
    g = start(core)
    assert player(g, 0)["end_vp"] == 0 and g.score_breakdown()[0]["tucked"] == 9
    put(core, 0, "golden", 4, dragon=others[2])
    g = start(core)
    assert player(g, 0)["end_vp"] == 5


# ============================================================================ rulings on single cards
def test_cave_9_gains_a_cave_card_and_a_guild_step():
    core = keep_round(blank())
    give(core, 0, caves=[9], coins=1)
    g = start(core)
    do(g, "excavate cave 9 into golden", "cave from deck")
    P = player(g, 0)
    assert P["hand_caves"] != [] and len(P["hand_caves"]) == 1 and P["guild_steps"] == 1
    assert P["nest_eggs"] == 1                                # guild space 1: lay an egg


def test_dragon_73_activates_one_of_the_15_mat_benefits():
    assert DB.dragon(73).abilities[0].text == "pay(cave_card) { activate_mat }"
    core = keep_round(blank())
    put(core, 0, "amethyst", 1, dragon=73)
    give(core, 0, coins=1, caves=[12])
    g = start(core)
    do(g, "explore amethyst", "cave from deck", "yes", "cave 12")
    assert g.decision == "mat benefit"
    assert len(texts(g)) == 16 and texts(g)[-1] == "no"
    assert "crimson benefit 0" in heads(g) and "amethyst benefit 4" in heads(g)
    assert "golden benefit 1: advance 1 step on the Dragon Guild" in texts(g)
    do(g, "golden benefit 1")                                 # 1 guild step
    assert player(g, 0)["guild_steps"] == 1


def test_left_neighbour_dragon_compares_with_the_next_player_clockwise():
    assert DB.dragon(47).abilities[0].text == "if(not_fewer_than_left(golden)) { gain(dragon_card) }"
    core = keep_round(blank(3), 2)
    core["players"][1]["coins"] = 1
    put(core, 0, "golden", 1, dragon=47)                      # Owlatic Amphiptere
    give(core, 0, coins=1)
    put(core, 2, "golden", 1, dragon=LITTLE)                  # player 2 has more: irrelevant
    put(core, 2, "golden", 2, dragon=YELLOW)
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    assert g.decision == "gain dragon"                        # 1 golden dragon >= player 1's 0
    core2 = keep_round(blank(3), 2)
    put(core2, 0, "golden", 1, dragon=47)
    give(core2, 0, coins=1)
    put(core2, 1, "golden", 1, dragon=LITTLE)
    put(core2, 1, "golden", 2, dragon=YELLOW)
    g = start(core2)
    do(g, "explore golden", "dragon from deck")
    # 1 golden dragon < player 1's 2: no dragon card; next comes icon 1 (guild space 1: lay)
    assert g.decision == "lay egg" and len(player(g, 0)["hand_dragons"]) == 1


def test_2025_printing_changes_dragon_119():
    core = _end_game()
    put(core, 0, "crimson", 1, dragon=119)                    # Chameleon Coatl: per medium dragon
    put(core, 0, "golden", 1, dragon=HOARDING)                # medium
    put(core, 0, "amethyst", 1, dragon=43)                    # Blue Forest Spirit: medium
    assert {DB.dragon(n).size for n in (119, HOARDING, 43)} == {"medium"}
    base = Game.from_dict({"core": core, "printing": "base"})
    new = Game.from_dict({"core": core, "printing": "2025"})
    assert player(base, 0)["end_vp"] == 3 * 2 and player(new, 0)["end_vp"] == 3 * 3


def test_2025_printing_removes_the_guild_option_of_caves_50_and_51():
    core = keep_round(blank())
    give(core, 0, caves=[50], coins=1)
    g = Game.from_dict({"core": core, "printing": "base"})
    do(g, "excavate cave 50 into crimson")
    assert g.decision == "option" and len(texts(g)) == 3     # 2 of 4 options: the first of 3 pairs
    g = Game.from_dict({"core": core, "printing": "2025"})
    do(g, "excavate cave 50 into crimson")
    assert g.decision == "option" and len(texts(g)) == 2     # 2 of 3


def test_highlands_entice_onto_a_dragon_covers_it_as_a_tucked_card():
    core = keep_round(blank())
    core["guild_tile"] = 2                                    # Guild of Highlands
    put(core, 0, "crimson", 1, dragon=ALOOF, eggs=3)          # capacity 3
    give(core, 0, dragons=[LITTLE], caves=[12])
    core["players"][0]["guild_steps"] = 5
    core["players"][0]["coins"] = 1
    g = start(core)
    do(g, "explore crimson", "meat", "guild ability 2", "yes")     # pays the only cave card
    assert g.decision == "play dragon"
    do(g, "Little Amphiptere")
    P = player(g, 0)
    assert P["dragons"][CR][0] == LITTLE and P["tucked"][CR][0] == 1
    assert P["eggs"][CR][0] == DB.dragon(LITTLE).capacity == 1     # eggs above capacity lost


# ============================================================================ hidden information
def test_observation_hides_other_hands_except_cards_known_to_be_there():
    core = keep_round(blank())
    give(core, 0, coins=1, dragons=[LITTLE])
    taken = core["display_dragons"][0]
    g = start(core)
    do(g, "explore golden", "dragon from display 1")
    obs = g.observation(1)
    assert obs["players"][0]["hand_dragons"] == [taken]      # taken face up: known
    assert "deck_dragons" not in obs and "deck_caves" not in obs
    assert obs["discard_dragons"] == core_of(g)["discard_dragons"]
    assert sorted(g.observation(0)["players"][0]["hand_dragons"]) == sorted([LITTLE, taken])


# ============================================================================ more rules
def test_shared_benefits_in_clockwise_order_later_players_may_miss_display_cards():
    """Cave 50: the owner does 2 different benefits, then each opponent in turn may take 1. A
    display slot emptied by an earlier player stays empty for the later ones (refilled only at
    the end of the turn)."""
    core = blank(3)
    for p in (1, 2):
        core["players"][p]["coins"] = 1
    give(core, 0, caves=[50], coins=2)
    shown = list(core["display_dragons"])
    g = start(core)
    do(g, "excavate cave 50 into crimson", "option 1", "dragon from display 1", "option 4", "meat")
    assert (g.decider, g.decision) == (1, "option") and len(texts(g)) == 4
    do(g, "option 1")
    assert [t[:19] for t in texts(g)] == ["dragon from display", "dragon from display", "dragon from deck"]
    do(g, "dragon from display 2")
    assert g.decider == 2
    do(g, "option 1")
    assert [t[:21] for t in texts(g)] == ["dragon from display 3", "dragon from deck"]
    do(g, "dragon from display 3")
    c = core_of(g)
    assert [P["hand_dragons"] for P in c["players"]] == [[shown[0]], [shown[1]], [shown[2]]]
    assert not set(c["display_dragons"]) & set(shown) and all(c["display_dragons"])
    assert g.decider == 1 and g.decision == "move"


def test_guild_brown_space_passed_in_the_middle_of_a_move():
    core = keep_round(blank())
    core["guild_tile"] = 0
    give(core, 0, dragons=[121], coins=3, res=(0, 1, 2, 0))   # Archaic Whiskered: 3 steps
    core["players"][0]["guild_steps"] = 4
    g = start(core)
    do(g, "entice Archaic Whiskered Lung Dragon into golden", "yes")
    assert g.decision == "guild spot" and player(g, 0)["resources"] == [0, 0, 1, 0]   # 5: crystal
    do(g, "fixed vp spot")
    assert g.decision == "lay egg"                                                    # 7: lay
    do(g, NEST)
    P = player(g, 0)
    assert P["guild_steps"] == 7 and P["fixed_vp"] == 6 and P["nest_eggs"] == 1 and P["coins"] == 1


def test_explore_pays_eggs_from_any_nest_one_at_a_time():
    core = keep_round(blank())
    give(core, 0, coins=2, nest_eggs=1)
    put(core, 0, "golden", 1, dragon=ALOOF, eggs=2)
    core["players"][0]["explores"] = [2, 0, 0]               # third crimson explore: 2 eggs
    g = start(core)
    do(g, "explore crimson")
    # the eggs are chosen as a set, in slot order: a first egg from golden 1 is forced (the
    # nest alone cannot pay 2), the second may come from either place
    assert g.decision == "egg source" and sorted(texts(g)) == ["egg from golden 1", "egg from mat nest"]
    h = g.clone()
    do(h, "egg from golden 1", "meat")
    assert player(h, 0)["eggs"][GO][0] == 0 and player(h, 0)["nest_eggs"] == 1
    do(g, "egg from mat nest", "meat")
    P = player(g, 0)
    assert P["eggs"][GO][0] == 1 and P["nest_eggs"] == 0 and P["explores"] == [3, 0, 0]


def test_resource_exchange_at_any_time_also_before_the_hand_limit_discard():
    """Ruling: any 2 resources may be exchanged for 1 of your choice at any time. With 10 meat at
    the end of a turn, exchanging 2 meat for 1 gold leaves 9 resources (8 meat + 1 gold) with no
    discard, which is not the same as discarding a meat."""
    core = keep_round(blank())
    give(core, 0, coins=1, res=(9, 0, 0, 0))
    g = start(core)
    do(g, "explore crimson", "meat")                          # 10 meat at the end of the turn
    finals = set()
    stack = [g]
    while stack:
        h = stack.pop()
        if h.decider != 0 or h.decision == "move":
            finals.add(tuple(player(h, 0)["resources"]))
            continue
        for a in h.legal_actions():
            k = h.clone()
            k.apply(a)
            stack.append(k)
    assert (9, 0, 0, 0) in finals
    assert (8, 1, 0, 0) in finals


def _place(core: dict, p: int, dragons) -> dict:
    """Put dragons on a fully excavated mat, each in the first free space of a cave it likes."""
    excavate_all(core, p)
    P = core["players"][p]
    for d in dragons:
        c = next(CAVES.index(cv) for cv in DB.dragon(d).caves if 0 in P["dragons"][CAVES.index(cv)])
        put(core, p, c, P["dragons"][c].index(0) + 1, dragon=d)
    return core


@pytest.mark.parametrize("card,others,base,updated", [
    (119, [38, 43], 6, 9), (119, [38, 43, 56, 48], 8, 12),            # per medium, max 8 / 12
    (124, [37, 60], 6, 9), (124, [37, 60, 36, 45], 8, 12),             # per large
    (131, [11, 50, 56], 4, 6),                                         # per set of the 4 sizes
    (132, [40, 62], 6, 9), (132, [40, 62, 66, 70, 75], 8, 12),         # per small
    (134, [1, 2], 6, 8), (134, [1, 2, 4, 5], 9, 12),                   # per hatchling, max 9 / 12
])
def test_2025_printing_of_the_dragon_academy_dragons(card, others, base, updated):
    assert all(DB.dragon(n).ability("end_game") is None for n in others)
    core = _place(_end_game(), 0, [card, *others])
    old = Game.from_dict({"core": core, "printing": "base"})
    new = Game.from_dict({"core": core, "printing": "2025"})
    assert (player(old, 0)["end_vp"], player(new, 0)["end_vp"]) == (base, updated)


def test_tucked_cards_are_face_down_only_their_owner_saw_them():
    """Tucking from hand: the owner has seen the card, nobody else; from the display: public."""
    core = keep_round(blank())
    put(core, 0, "golden", 1, dragon=84)                      # Malcontent: tuck from hand here
    give(core, 0, coins=1, dragons=[LITTLE])
    g = start(core)
    do(g, "explore golden", "dragon from deck", "Little Amphiptere")
    c = core_of(g)
    assert c["players"][0]["tucked"][GO][0] == 1
    assert LITTLE in c["players"][0]["seen_dragons"] and LITTLE not in c["public_dragons"]
    assert LITTLE not in c["players"][1]["seen_dragons"]
    assert "seen_dragons" not in g.observation(1)["players"][0]


def test_once_per_round_abilities_also_run_at_the_end_of_round_4_then_the_game_ends():
    core = blank(2)
    core.update(phase="round end", phase_player=1, phase_count=0, start_player=1, round=3)
    core["objective_tiles"][3], core["objective_sides"][3] = 2, 1      # eggs
    put(core, 0, "crimson", 1, dragon=139)                  # Oracular Dragon: lay an egg here
    g = start(core)
    assert g.is_terminal()
    P = player(g, 0)
    assert P["eggs"][CR][0] == 1 and P["objective_count"][3] == 1 and P["objective_vp"][3] == 7
    assert g.score_breakdown()[0]["objectives"] == 7 and P["coins"] == 0


def test_resource_exchange_while_caching_a_named_resource():
    """A hatchling caching milk from your supply: 2 meat may be exchanged for the milk."""
    core = keep_round(blank())
    put(core, 0, "amethyst", 1, dragon=15)                   # Redwood Lung Dragon: cache milk here
    give(core, 0, coins=1, res=(2, 0, 0, 0))
    g = start(core)
    do(g, "explore amethyst", "cave from deck")
    assert g.decision == "cache" and texts(g) == ["amethyst 1", "no"]
    do(g, "amethyst 1")                                      # pays 2 meat (forced), feeds: + 1 milk
    P = player(g, 0)
    assert P["cached"][AM][0] == [0, 0, 0, 1] and P["resources"] == [0, 0, 0, 1]


def _turn_outcomes(g: Game, p: int, key, first_only=("lay egg",)):
    """Every value of key(player state) at the end of p's current turn, over all decisions
    (decisions named in first_only take their first option only)."""
    out, stack = set(), [g]
    while stack:
        h = stack.pop()
        if h.decider != p or h.decision == "move":
            out.add(key(player(h, p)))
            continue
        for a in h.legal_actions()[:1] if h.decision in first_only else h.legal_actions():
            k = h.clone()
            k.apply(a)
            stack.append(k)
    return out


def _red_guardian_state(res, cached_milk=0):
    assert DB.dragon(125).abilities[0].text == "cache(any, from=supply, on=this_column)"
    assert DB.dragon(9).feeds == "milk" and DB.dragon(9).ability("grow_up").text == "gain(crystal, crystal)"
    core = keep_round(blank())
    put(core, 0, "crimson", 1, dragon=125)                   # Red Guardian
    for col, d in ((2, YELLOW), (3, RAINBOW), (4, ALOOF)):
        put(core, 0, "crimson", col, dragon=d)
    excavate_all(core, 0)
    put(core, 0, "amethyst", 1, dragon=9, cached=(0, 0, 0, cached_milk))   # Leafeating Cricketcatcher
    give(core, 0, coins=1, res=res)
    return core


def test_resource_exchange_at_any_time_also_to_cache_a_resource_you_lack():
    """Crimson explore with Red Guardian (cache any resource on its column) in column 1 and a
    milk-eating hatchling (Leafeating Cricketcatcher) below it: 3 milk cached grow it up. Icons 0
    and 2 give 2 milk; the third must come from exchanging the 2 meat, at any time."""
    g = start(_red_guardian_state(res=(2, 0, 0, 0)))
    do(g, "explore crimson")
    grown = _turn_outcomes(g, 0, lambda P: P["grown"][AM][0])
    assert grown == {0, 1}


def test_red_guardian_and_icon_4_caches_can_grow_a_hatchling_up():
    """Control for the test above: with 1 milk already cached, the 2 milk of icons 0 and 2 are
    enough, so the hatchling can grow up in this walk."""
    g = start(_red_guardian_state(res=(0, 0, 0, 0), cached_milk=1))
    do(g, "explore crimson")
    outcomes = _turn_outcomes(g, 0, lambda P: (P["grown"][AM][0], P["cached"][AM][0][MILK]))
    assert (1, 3) in outcomes


def test_a_card_may_say_where_its_eggs_are_paid_from():
    """Primordiasaur (once per round): pay an egg from this cave to move 2 guild steps. Eggs
    elsewhere on the mat cannot pay it."""
    assert DB.dragon(72).abilities[0].text == "pay(egg, from=this_cave) { guild(2) }"
    core = _round_end(2, start_player=0)
    put(core, 0, "golden", 1, dragon=72)
    put(core, 0, "crimson", 1, dragon=ALOOF, eggs=3)
    give(core, 0, nest_eggs=2)
    g = start(core)
    assert g.phase != "round end" and player(g, 0)["guild_steps"] == 0      # not offered
    core["players"][0]["eggs"][GO][0] = 1
    g = start(core)
    assert (g.phase, g.decision) == ("round end", "use ability")
    do(g, "yes")               # guild space 1: lay (only the Primordiasaur has room); 2: meat
    P = player(g, 0)
    assert P["guild_steps"] == 2 and P["eggs"][CR][0] == 3 and P["nest_eggs"] == 2
    assert P["resources"] == [1, 0, 0, 0]
    # paid 1 (from golden), laid 1 (guild) and the round 2 egg: the only room is there
    assert g.round == 2 and P["eggs"][GO][0] == 1 - 1 + 1 + 1


@pytest.mark.parametrize("top,hit", [(LITTLE, False), (HOARDING, True)])
def test_revealed_cards_are_shown_to_all_players(top, hit):
    """Stalking Drake: reveal the top dragon; medium or large: tuck it here, else take it."""
    core = keep_round(blank())
    put(core, 0, "golden", 1, dragon=110)
    give(core, 0, coins=1)
    core["deck_dragons"].remove(top)
    core["deck_dragons"].append(top)                          # on top of the deck
    shown = core["display_dragons"][0]
    g = start(core)
    do(g, "explore golden", "dragon from display 1")          # not from the deck
    if hit:
        assert g.decision == "tuck card" and texts(g) == [DB.dragon(top).name, "no"]
        do(g, DB.dragon(top).name)
    assert g.decision == "lay egg"                            # icon 1 comes after the reveal
    c = core_of(g)
    P = c["players"][0]
    if hit:
        assert P["tucked"][GO][0] == 1 and top in c["public_dragons"] and top not in P["hand_dragons"]
    else:
        assert P["tucked"][GO][0] == 0 and sorted(P["hand_dragons"]) == sorted([shown, top])
        assert sorted(g.observation(1)["players"][0]["hand_dragons"]) == sorted([shown, top])
