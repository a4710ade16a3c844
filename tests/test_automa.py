"""Solo play against the Automa (docs/rules.md "Solo", clarifications.md "Solo mode: the Automa").

Scenario tests build a 2-seat core dict with an "automa" entry (seat 0 the human, seat 1 the Automa)
and let the engine play on to the human's next decision, so exactly the Automa turn, objective
scoring or round change under test has happened. In these states the human has 1 coin and no cards:
her only moves are 3 explores or a pass, so play stops at her move right after the Automa's turn.

The card table below is written out by hand from the official card list; test_card_table_is_the_data
checks it against advisor/data/automa.toml so the expectations cannot drift from the data silently.

Regression tests of fixed engine bugs each have a companion test that checks their scenario really
reaches the situation, so they cannot pass by missing it.
"""
from __future__ import annotations

import copy
import random
import tomllib
from pathlib import Path

import pytest

from advisor import _core
from advisor._core import Game
from advisor.notation import PASS, kind
from helpers import DB, blank, do, give, put, start

DATA = Path(__file__).resolve().parent.parent / "advisor" / "data"
AUTOMA = tomllib.loads((DATA / "automa.toml").read_text())
GUILD = tomllib.loads((DATA / "guild.toml").read_text())
OBJ = tomllib.loads((DATA / "objectives.toml").read_text())

N_DRAGONS, N_CAVES = 183, 75
LEFT_NEIGHBOURS = (47, 103, 114, 168, 170)
N_SOLO_DRAGONS = N_DRAGONS - len(LEFT_NEIGHBOURS)          # 178
LEVELS = ("1", "2", "3", "R1", "R2", "R3")
PLAINS = 0                  # guild tile 1: abilities with 2, 1, 1, 1 spots
BROWN = 6

# The 16 decision cards, row i = card number i + 1 (the core's card index):
# corner, pass icon, refresh icon, objective coins, guild steps in rounds 1-4 (or a Ravel rule),
# display dragon slot, display cave slot, k-th free guild ability (0 = none)
DEEPEST, SHALLOWEST, DEEPEST_PLUS_1 = "deepest_cave", "shallowest_cave", "deepest_cave_plus_1"
CARDS = [
    ("1", False, False, 0, (1, 2, 2, 2), 3, 0, 3),
    ("2", False, False, -1, (1, 1, 2, 3), 2, 2, 0),
    ("3", True, False, 1, (2, 1, 2, 2), 1, 1, 0),
    ("4", True, False, 0, (1, 1, 1, 2), 3, 3, 0),
    ("5", False, False, -1, (2, 1, 2, 1), 2, 0, 4),
    ("6", True, False, 1, (1, 1, 1, 2), 1, 1, 0),
    ("7", True, True, 1, (1, 1, 2, 3), 2, 0, 2),
    ("8", True, False, 0, (1, 1, 2, 3), 1, 0, 3),
    ("1/4", False, False, 0, (2, 2, 3, 4), 3, 0, 3),
    ("2/5", False, False, 1, (2, 2, 2, 3), 2, 2, 0),
    ("3/6", False, False, -1, (2, 1, 4, 3), 1, 1, 0),
    ("R 1/4", False, False, 0, DEEPEST, 3, 0, 4),
    ("R 2", True, False, 1, SHALLOWEST, 2, 2, 0),
    ("R 3/6", False, False, -1, DEEPEST, 1, 1, 0),
    ("R 8", True, True, 0, DEEPEST, 1, 0, 3),
    ("R 2/5", True, False, 1, DEEPEST_PLUS_1, 2, 2, 0),
]
IDX = {c[0]: i for i, c in enumerate(CARDS)}
# The level lists of clarifications.md, in corner ids
LEVEL_CORNERS = {
    "1": ["1", "2", "3", "4", "5", "6", "7", "8"],
    "2": ["1/4", "2/5", "3/6", "4", "5", "6", "7", "8"],
    "3": ["1", "2", "3", "1/4", "2/5", "3/6", "7", "8"],
    "R1": ["R 1/4", "R 2", "R 3/6", "4", "5", "6", "7", "R 8"],
    "R2": ["1", "2", "3", "R 1/4", "R 2/5", "R 3/6", "7", "R 8"],
    "R3": ["R 1/4", "R 2/5", "R 3/6", "1/4", "2/5", "3/6", "7", "R 8"],
}
LEVEL_CARDS = {lv: sorted(IDX[c] for c in cs) for lv, cs in LEVEL_CORNERS.items()}
DRAGON_VP = {"1": 7, "2": 7, "3": 8, "R1": 7, "R2": 7, "R3": 8}


def level_of(card: int) -> str:
    """A level that uses the card (non-Ravel first)."""
    return next(lv for lv in LEVELS if card in LEVEL_CARDS[lv])


def is_ravel(level: str) -> bool:
    return level.startswith("R")


# ------------------------------------------------------------------------------- prepared states
def solo(level: str = "1", deck=None, nxt: int = 0, round_: int = 1, seed: int = 0,
         steps: int = 0, markers: int = 1, human_passed: int = 0, human_coins: int = 1,
         active: int = 1, phase: str = "turn") -> dict:
    """A solo core at the Automa's turn (active=1) in `round_`: empty human mat and hand, the
    Plains guild tile with every spot free. `deck`: her 8 cards (default: the level in card order)."""
    core = Game.new(1, seed, automa=level).to_dict()["segment_start"]
    for P in core["players"]:
        core["deck_dragons"] += P["hand_dragons"]
        core["deck_caves"] += P["hand_caves"]
        P.update(hand_dragons=[], hand_caves=[], known_dragons=[], known_caves=[], seen_dragons=[],
                 coins=0, resources=[0, 0, 0, 0], nest_eggs=0, explores=[0, 0, 0], passed=0)
    core["players"][0].update(coins=human_coins, passed=human_passed)
    core["players"][1]["guild_steps"] = steps
    core.update(phase=phase, active=active, start_player=0, round=round_ - 1, phase_count=0,
                phase_player=0, guild_tile=PLAINS, guild_spots=[[0] * 4 for _ in range(4)],
                fixed_count=0)
    a = core["automa"]
    deck = list(LEVEL_CARDS[level] if deck is None else deck)
    assert sorted(deck) == LEVEL_CARDS[level], "her deck holds the 8 cards of the level"
    a.update(deck=deck, next=nxt, playable=7, markers=markers, dragons=0, caves=0, fixed_vp=0, last_brown=0,
             objective_coins=[0, 0, 0, 0])
    return core


def human_caves(core: dict, counts=(0, 0, 0)) -> dict:
    """Give the human `counts[c]` cave cards in cave c (columns 2.. in order), from the deck bottom."""
    for c, n in enumerate(counts):
        for k in range(n):
            put(core, 0, c, 2 + k, cave_card=core["deck_caves"][0])
    return core


def after(core: dict) -> tuple[Game, dict]:
    g = start(core)
    return g, g.to_dict()["core"]


def her_turn(core: dict) -> tuple[Game, dict]:
    """Play the Automa's one turn; the game stops at the human's next move."""
    g, c = after(core)
    assert (g.decider, g.decision, c["round"]) == (0, "move", core["round"])
    return g, c


def visible_dragons(core: dict) -> list[int]:
    out = list(core["deck_dragons"]) + list(core["discard_dragons"])
    out += [d for d in core["display_dragons"] if d]
    for P in core["players"]:
        out += P["hand_dragons"] + [d for row in P["dragons"] for d in row if d]
    return out


def visible_caves(core: dict) -> list[int]:
    out = list(core["deck_caves"]) + list(core["discard_caves"])
    out += [k for k in core["display_caves"] if k]
    for P in core["players"]:
        out += P["hand_caves"] + [k for row in P["caves"] for k in row if k]
    return out


def tucked(core: dict) -> int:
    return sum(sum(row) for P in core["players"] for row in P["tucked"])


# ------------------------------------------------------------------------------------- the data
def test_card_table_is_the_data():
    """The hand-written table above equals automa.toml card by card."""
    cards = AUTOMA["card"]
    assert len(cards) == 16
    for i, (corner, passes, refresh, obj, guild, dragon, cave, ability) in enumerate(CARDS):
        c = cards[i]
        assert c["number"] == i + 1 and c["corner"] == corner
        assert (c["pass"], c["refresh"], c["objective"]) == (passes, refresh, obj)
        assert (tuple(c["guild"]) if isinstance(c["guild"], list) else c["guild"]) == guild
        assert (c["brown"].get("dragon", 0), c["brown"].get("cave", 0),
                c["brown"].get("guild_ability", 0)) == (dragon, cave, ability)
    assert AUTOMA["scoring"] == {"dragon_vp": [7, 7, 8], "cave_vp": 2}
    assert AUTOMA["turns"] == {"set_aside": 1, "markers_at_start": 1, "markers_per_round": 1,
                               "objective_cap": 12, "ravel_coins_kept": 2}
    assert GUILD["tile"][PLAINS]["name"] == "Plains Guild"
    assert [a["uses"] for a in GUILD["tile"][PLAINS]["abilities"]] == [2, 1, 1, 1]
    assert GUILD["track"]["brown"] == [0, BROWN] and GUILD["fixed_vp_spot"]["vp"] == [6, 3, 1]


@pytest.mark.parametrize("level", LEVELS)
def test_level_composition_is_the_data_and_the_rulings(level):
    """The 8 cards of each level: clarifications.md == automa.toml == the engine's new game."""
    key = level if is_ravel(level) else f"L{level}"
    assert AUTOMA["levels"][key] == LEVEL_CORNERS[level]
    for seed in range(5):
        g = Game.new(1, seed, automa=level)
        assert g.automa_level == level and g.players == 2
        a = g.to_dict()["core"]["automa"]
        assert sorted(a["deck"]) == LEVEL_CARDS[level]
        assert (a["next"], a["playable"], a["markers"], a["dragons"], a["caves"]) == (0, 7, 1, 0, 0)
        assert a["objective_coins"] == [0, 0, 0, 0] and a["level"] == level


def test_level_card_sets():
    assert LEVEL_CARDS == {
        "1": [0, 1, 2, 3, 4, 5, 6, 7], "2": [3, 4, 5, 6, 7, 8, 9, 10], "3": [0, 1, 2, 6, 7, 8, 9, 10],
        "R1": [3, 4, 5, 6, 11, 12, 13, 14], "R2": [0, 1, 2, 6, 11, 13, 14, 15],
        "R3": [6, 8, 9, 10, 11, 13, 14, 15]}


def test_automa_level_names():
    assert Game.new(2, 0).automa_level is None
    assert Game.new(1, 0, automa="r3").automa_level == "R3"
    with pytest.raises(ValueError):
        Game.new(1, 0, automa="4")
    core = solo()
    core["players"].append(copy.deepcopy(core["players"][0]))
    with pytest.raises(ValueError):
        start(core)                                 # an Automa needs exactly 2 seats


# ----------------------------------------------------------------------------- pass icon
# She takes a turn whenever her seat comes up, whatever the human does (the human passing does not
# stop her), until her 7 playable cards run out. The pass icon counts only on her LAST playable card
# of the round: she passes instead of resolving it (no refresh, no objective coins, no guild steps).
# Any other last card is resolved, then she passes. The 8th card (set aside) is never played.
PASS_CARDS = [2, 3, 5, 6, 7, 12, 14, 15]        # cards 3, 4, 6, 7, 8, R 2, R 8, R 2/5
NO_PASS_CARDS = [0, 1, 4, 8, 9, 10, 11, 13]     # cards 1, 2, 5, 1/4, 2/5, 3/6, R 1/4, R 3/6
ONE_CAVE_EACH = (1, 1, 1)   # the human's caves: Ravel deepest / shallowest 1 step, deepest + 1: 2


def card_steps(card: int, r: int, depth=(0, 0, 0)) -> int:
    """Her guild steps for `card` in core round r (0-3); Ravel: from the human's cave depths."""
    guild = CARDS[card][4]
    if isinstance(guild, tuple):
        return guild[r]
    return {DEEPEST: max(depth), SHALLOWEST: min(depth), DEEPEST_PLUS_1: max(depth) + 1}[guild]


def deck_with(card: int, pos: int) -> tuple[str, list[int]]:
    """A level that uses `card`, and its 8 cards with `card` at index `pos` (the rest in order)."""
    level = level_of(card)
    deck = [x for x in LEVEL_CARDS[level] if x != card]
    deck.insert(pos, card)
    return level, deck


def test_pass_icon_cards():
    assert PASS_CARDS == [i for i, c in enumerate(CARDS) if c[1]]
    assert NO_PASS_CARDS == [i for i, c in enumerate(CARDS) if not c[1]]
    assert all(card_steps(c, 0, ONE_CAVE_EACH) in (1, 2) for c in range(16))


@pytest.mark.parametrize("pos", range(6))
@pytest.mark.parametrize("card", PASS_CARDS)
def test_pass_icon_before_her_last_card_is_resolved(card, pos):
    """A pass icon on any of her first 6 cards: the card is resolved like any other, she plays on."""
    level, deck = deck_with(card, pos)
    core = human_caves(solo(level, deck=deck, nxt=pos), ONE_CAVE_EACH)
    core["automa"]["objective_coins"] = [3, 3, 3, 3]
    old_d, old_c = list(core["display_dragons"]), list(core["display_caves"])
    g, c = her_turn(core)
    a, A = c["automa"], c["players"][1]
    assert A["passed"] == 0 and a["next"] == pos + 1
    assert A["guild_steps"] == card_steps(card, 0, ONE_CAVE_EACH) and a["last_brown"] == 0
    assert a["objective_coins"] == [3 + CARDS[card][3], 3, 3, 3]
    if CARDS[card][2]:                                          # refresh icon: 7, R 8
        assert (c["discard_dragons"], c["discard_caves"]) == (old_d, old_c)
    else:
        assert (c["discard_dragons"], c["discard_caves"]) == ([], [])


def _at_her_7th_card(card: int, human_passed: int = 0) -> dict:
    """Her 7th (last playable) card is `card`; one step takes her to brown space 6."""
    level, deck = deck_with(card, 6)
    core = human_caves(solo(level, deck=deck, nxt=6, steps=BROWN - 1, human_coins=2,
                            human_passed=human_passed), ONE_CAVE_EACH)
    core["automa"]["objective_coins"] = [3, 3, 3, 3]
    return core


@pytest.mark.parametrize("card", PASS_CARDS)
def test_last_playable_card_with_the_pass_icon_is_not_resolved(card):
    """She passes instead: no step (to the brown space 6 one step away), no dragon, cave or marker,
    no objective coin, no refresh. The human plays on alone; she reveals nothing more."""
    core = _at_her_7th_card(card)
    g, c = her_turn(core)
    a, A = c["automa"], c["players"][1]
    assert A["passed"] == 1 and a["next"] == 7 and a["deck"] == core["automa"]["deck"]
    assert A["guild_steps"] == BROWN - 1 and a["last_brown"] == 0
    assert (a["dragons"], a["caves"], a["markers"], a["fixed_vp"]) == (0, 0, 1, 0)
    assert a["objective_coins"] == [3, 3, 3, 3]
    assert c["guild_spots"] == [[0] * 4] * 4 and A["tile_markers"] == [0] * 4
    for key in ("display_dragons", "display_caves", "deck_dragons", "deck_caves", "discard_dragons",
                "discard_caves", "public_dragons", "public_caves"):
        assert c[key] == core[key], key
    do(g, "explore crimson", "meat")
    c = g.to_dict()["core"]
    assert (g.decider, g.decision, c["round"]) == (0, "move", 0)
    assert c["players"][1]["guild_steps"] == BROWN - 1 and c["automa"]["next"] == 7
    do(g, "pass")                                              # the round ends
    c = g.to_dict()["core"]
    assert (g.decider, g.decision, c["round"]) == (0, "move", 1) and c["automa"]["next"] == 0
    assert c["players"][1]["guild_steps"] == BROWN - 1 and c["automa"]["dragons"] == 0
    assert c["automa"]["objective_coins"] == [3, 3, 3, 3]


@pytest.mark.parametrize("card", PASS_CARDS)
def test_the_same_pass_icon_card_as_her_6th_is_resolved(card):
    """Companion of the previous test: the same card one place earlier reaches the brown space."""
    level, deck = deck_with(card, 5)
    core = human_caves(solo(level, deck=deck, nxt=5, steps=BROWN - 1), ONE_CAVE_EACH)
    g, c = her_turn(core)
    a, A = c["automa"], c["players"][1]
    assert A["passed"] == 0 and a["next"] == 6
    assert A["guild_steps"] == BROWN - 1 + card_steps(card, 0, ONE_CAVE_EACH)
    assert a["last_brown"] == BROWN and a["dragons"] == 1 and a["caves"] == bool(CARDS[card][6])
    assert a["markers"] == 1 - bool(CARDS[card][7])


@pytest.mark.parametrize("card", NO_PASS_CARDS)
def test_last_playable_card_without_the_pass_icon_is_resolved_then_she_passes(card):
    core = _at_her_7th_card(card)
    g, c = her_turn(core)
    a, A = c["automa"], c["players"][1]
    steps = BROWN - 1 + card_steps(card, 0, ONE_CAVE_EACH)
    assert A["passed"] == 1 and a["next"] == 7
    assert A["guild_steps"] == steps and a["last_brown"] == BROWN
    assert a["dragons"] == 1 and a["caves"] == bool(CARDS[card][6])
    assert a["markers"] == 1 - bool(CARDS[card][7])
    assert a["objective_coins"] == [max(0, 3 + CARDS[card][3]), 3, 3, 3]
    do(g, "explore crimson", "meat")                           # the human plays on alone
    c = g.to_dict()["core"]
    assert (g.decider, g.decision, c["round"]) == (0, "move", 0)
    assert c["players"][1]["guild_steps"] == steps and c["automa"]["next"] == 7


@pytest.mark.parametrize("card", PASS_CARDS + NO_PASS_CARDS)
def test_her_last_card_after_the_human_passed(card):
    """The human has passed: the same rule for her last card, then the round ends."""
    core = _at_her_7th_card(card, human_passed=1)
    g, c = after(core)
    assert (g.decider, g.decision, c["round"]) == (0, "move", 1) and c["automa"]["next"] == 0
    resolved = not CARDS[card][1]
    n = card_steps(card, 0, ONE_CAVE_EACH) if resolved else 0
    assert c["players"][1]["guild_steps"] == BROWN - 1 + n
    assert c["automa"]["last_brown"] == (BROWN if resolved else 0)
    assert c["automa"]["dragons"] == int(resolved)
    assert c["automa"]["objective_coins"] == [max(0, 3 + CARDS[card][3] * resolved), 3, 3, 3]


@pytest.mark.parametrize("deck,steps,coins,markers_on,discards", [
    # 3, 1, 2, 4, 5 (brown space 6: dragon slot 2, 4th ability), 6 resolved; 7 (pass icon, last) not
    ([2, 0, 1, 3, 4, 5, 6, 7], 8, 1, [0, 0, 0, 1], 3),
    # 3, 4, 6, 7 (refresh), 8 (brown space 6: slot 1, 3rd ability): pass icons, not her last; then
    # 2, and 1 (no pass icon) resolved as her last
    ([2, 3, 5, 6, 7, 1, 0, 4], 8, 2, [0, 0, 1, 0], 6),
])
def test_the_human_passing_does_not_stop_her(deck, steps, coins, markers_on, discards):
    """The human has passed before her first card: she plays all 7 playable cards in a row, then
    the round ends. Discards: the round change's 3 + 3, and 3 + 3 more for a refresh."""
    core = solo("1", deck=deck, human_passed=1)
    g, c = after(core)
    a, A = c["automa"], c["players"][1]
    assert (g.decider, g.decision, c["round"]) == (0, "move", 1) and a["next"] == 0
    assert A["guild_steps"] == steps and a["last_brown"] == BROWN
    assert (a["dragons"], a["caves"], a["objective_coins"]) == (1, 0, [coins, 0, 0, 0])
    assert A["tile_markers"] == markers_on and a["markers"] == 1         # 1 placed, 1 gained
    assert (len(c["discard_dragons"]), len(c["discard_caves"])) == (discards, discards)


@pytest.mark.parametrize("k", range(1, 8))
def test_she_plays_her_7_cards_whenever_the_human_passes(k):
    """Level 1 in card order (card 8 set aside); the human passes after her k-th card. Cards 1-6 are
    resolved (steps 1+1+2+1+2+1, brown space 6 on card 5, objective coins 0, 0, 1, 1, 0, 1) and card 7,
    her last with the pass icon, is not: the same end of round for every k."""
    core = solo("1", human_coins=7)
    give(core, 0, caves=core["deck_caves"][:3])
    g, c = her_turn(core)
    for t in range(1, k):
        move = g.legal_actions()[0]              # excavate or explore; the pass comes last
        assert kind(move) != PASS
        g.apply(move)
        while g.decision != "move":
            g.apply(g.legal_actions()[0])
        c = g.to_dict()["core"]
        assert c["round"] == 0 and c["automa"]["next"] == t + 1
    assert c["automa"]["next"] == k and c["players"][1]["passed"] == (k == 7)
    do(g, "pass")
    while g.decision != "move":                  # round 2 starts: the human's round-start eggs
        g.apply(g.legal_actions()[0])
    c = g.to_dict()["core"]
    a = c["automa"]
    assert (g.decider, g.decision, c["round"]) == (0, "move", 1) and a["next"] == 0
    assert c["players"][1]["guild_steps"] == 8 and a["last_brown"] == BROWN
    assert (a["dragons"], a["caves"], a["objective_coins"]) == (1, 0, [1, 0, 0, 0])


def test_she_passes_after_her_last_playable_card():
    # 6 of her 7 playable cards revealed; the 7th (card 1, no pass icon) is her last: she passes
    core = solo("1", deck=[2, 3, 5, 6, 7, 1, 0, 4], nxt=6, human_coins=2)
    g, c = her_turn(core)
    assert c["players"][1]["passed"] == 1 and c["automa"]["next"] == 7
    assert c["players"][1]["guild_steps"] == 1
    do(g, "explore crimson", "meat")               # the human plays on alone
    c = g.to_dict()["core"]
    assert (g.decider, g.decision, c["round"]) == (0, "move", 0)
    assert c["players"][1]["guild_steps"] == 1 and c["automa"]["next"] == 7


def test_all_seven_cards_without_the_human_passing_then_the_set_aside_card_is_never_played():
    """The human never passes (3 excavations, 3 explores); the Automa plays her 7 cards and then
    passes; card 8 (set aside) is never revealed. Level 1 in card order, round 1: cards 1-6 take
    1+1+2+1+2+1 = 8 steps, brown space 6 reached on card 5; card 7 (pass icon, her last) is not
    resolved."""
    core = solo("1", human_coins=7)
    give(core, 0, caves=core["deck_caves"][:3])
    g, c = her_turn(core)
    turns = 1
    while not c["players"][1]["passed"]:
        move = g.legal_actions()[0]              # excavate or explore; the pass comes last
        assert kind(move) != PASS
        g.apply(move)
        while g.decision != "move":
            g.apply(g.legal_actions()[0])
        c = g.to_dict()["core"]
        turns += 1
        assert turns <= 7
    assert turns == 7 and c["players"][0]["passed"] == 0
    assert c["automa"]["next"] == 7 and c["automa"]["deck"][7] == 7
    assert c["players"][1]["guild_steps"] == 8 and c["automa"]["last_brown"] == 6
    assert c["automa"]["dragons"] == 1 and c["automa"]["objective_coins"] == [1, 0, 0, 0]


# ---------------------------------------------------------------------------- refresh icon
@pytest.mark.parametrize("card", [IDX["7"], IDX["R 8"]])
def test_refresh_icon_replaces_the_display(card):
    level = level_of(card)
    core = solo(level, deck=[card] + [x for x in LEVEL_CARDS[level] if x != card])
    old_d, old_c = list(core["display_dragons"]), list(core["display_caves"])
    dd, dc = list(core["deck_dragons"]), list(core["deck_caves"])
    g, c = her_turn(core)                       # R 8 with no human caves: 0 steps
    assert c["display_dragons"] == dd[-1:-4:-1] and c["display_caves"] == dc[-1:-4:-1]
    assert c["discard_dragons"] == old_d and c["discard_caves"] == old_c
    assert c["deck_dragons"] == dd[:-3] and c["deck_caves"] == dc[:-3]


def test_no_refresh_icon_keeps_the_display():
    core = solo("1")                            # card 1
    g, c = her_turn(core)
    assert c["display_dragons"] == core["display_dragons"] and c["discard_dragons"] == []
    assert c["display_caves"] == core["display_caves"] and c["discard_caves"] == []


# ------------------------------------------------------------------------- objective coins
@pytest.mark.parametrize("card,before,expected", [
    (IDX["3"], 0, 1), (IDX["3"], 4, 5), (IDX["2"], 2, 1), (IDX["2"], 0, 0), (IDX["5"], 0, 0),
    (IDX["1"], 3, 3), (IDX["R 2/5"], 1, 2), (IDX["R 3/6"], 1, 0), (IDX["R 3/6"], 0, 0)])
@pytest.mark.parametrize("round_", [1, 3])
def test_objective_coins_move_on_this_rounds_tile_never_below_0(card, before, expected, round_):
    level = level_of(card)
    core = solo(level, deck=[card] + [x for x in LEVEL_CARDS[level] if x != card], round_=round_)
    coins = [7, 7, 7, 7]
    coins[round_ - 1] = before
    core["automa"]["objective_coins"] = coins
    g, c = her_turn(core)
    coins[round_ - 1] = expected
    assert c["automa"]["objective_coins"] == coins


# --------------------------------------------------------------------------------- guild steps
@pytest.mark.parametrize("round_", [1, 2, 3, 4])
@pytest.mark.parametrize("card", range(11))
def test_guild_steps_per_round_from_the_card(card, round_):
    level = level_of(card)
    core = solo(level, deck=[card] + [x for x in LEVEL_CARDS[level] if x != card], round_=round_)
    g, c = her_turn(core)
    assert c["players"][1]["guild_steps"] == CARDS[card][4][round_ - 1]
    assert c["automa"]["last_brown"] == 0 and c["automa"]["dragons"] == 0   # no brown space reached
    assert c["players"][0]["guild_steps"] == 0


def test_her_steps_gain_no_space_benefits():
    core = solo("3", deck=[IDX["1/4"], 0, 1, 2, 6, 7, 9, 10], round_=4)   # 4 steps: spaces 1-4
    g, c = her_turn(core)
    P = c["players"][1]
    assert P["guild_steps"] == 4
    assert (P["coins"], P["resources"], P["nest_eggs"], P["hand_dragons"], P["hand_caves"]) == (
        0, [0, 0, 0, 0], 0, [], [])


# -------------------------------------------------------------------------------- Ravel steps
@pytest.mark.parametrize("counts,deepest,shallowest", [
    ((0, 0, 0), 0, 0), ((2, 1, 0), 2, 0), ((1, 1, 1), 1, 1), ((3, 1, 2), 3, 1), ((3, 3, 3), 3, 3)])
@pytest.mark.parametrize("card", [IDX["R 1/4"], IDX["R 2"], IDX["R 3/6"], IDX["R 8"], IDX["R 2/5"]])
def test_ravel_steps_from_the_humans_excavated_caves(card, counts, deepest, shallowest):
    level = level_of(card)
    core = human_caves(solo(level, deck=[card] + [x for x in LEVEL_CARDS[level] if x != card]), counts)
    g, c = her_turn(core)
    rule = CARDS[card][4]
    want = {DEEPEST: deepest, SHALLOWEST: shallowest, DEEPEST_PLUS_1: deepest + 1}[rule]
    assert c["players"][1]["guild_steps"] == want


def test_ravel_steps_count_at_her_turn_in_every_round():
    core = human_caves(solo("R3", deck=[IDX["R 2/5"], 6, 8, 9, 10, 11, 13, 14], round_=3), (1, 2, 0))
    g, c = her_turn(core)
    assert c["players"][1]["guild_steps"] == 3


# --------------------------------------------------------------------------- brown spaces
def expected_brown(core: dict, card: int) -> dict:
    """A model of her turn when it lands exactly on brown space 6 (Plains tile, all spots free)."""
    _, _, _, _, _, d_slot, c_slot, k = CARDS[card]
    disp_d, disp_c = list(core["display_dragons"]), list(core["display_caves"])
    dd, dc = list(core["deck_dragons"]), list(core["deck_caves"])
    if CARDS[card][2]:                         # refresh first
        disp_d, disp_c = [dd.pop() for _ in range(3)], [dc.pop() for _ in range(3)]
    taken_d = taken_c = None
    if d_slot:
        taken_d = disp_d[d_slot - 1]
        disp_d[d_slot - 1] = dd.pop()          # refilled at the end of her turn
    if c_slot:
        taken_c = disp_c[c_slot - 1]
        disp_c[c_slot - 1] = dc.pop()
    spots = [[0] * 4 for _ in range(4)]
    tile_markers = [0, 0, 0, 0]
    if k:
        spots[k - 1][0] = 2                    # seat 1 + 1
        tile_markers[k - 1] = 1
    return dict(taken_d=taken_d, taken_c=taken_c, display_d=disp_d, display_c=disp_c, spots=spots,
                tile_markers=tile_markers, markers=1 - bool(k))


@pytest.mark.parametrize("card", range(16))
def test_brown_space_takes_the_printed_slots_and_marks_the_kth_ability(card):
    level = level_of(card)
    core = solo(level, deck=[card] + [x for x in LEVEL_CARDS[level] if x != card])
    steps = CARDS[card][4][0] if isinstance(CARDS[card][4], tuple) else 1
    if not isinstance(CARDS[card][4], tuple):
        # Ravel: the human's caves give exactly 1 step (deepest 0 + 1, or 1 in every cave)
        human_caves(core, (0, 0, 0) if CARDS[card][4] == DEEPEST_PLUS_1 else (1, 1, 1))
    core["players"][1]["guild_steps"] = BROWN - steps
    want = expected_brown(core, card)
    g, c = her_turn(core)
    a, P = c["automa"], c["players"][1]
    assert P["guild_steps"] == BROWN and a["last_brown"] == BROWN
    assert a["dragons"] == (want["taken_d"] is not None) and a["caves"] == (want["taken_c"] is not None)
    assert c["display_dragons"] == want["display_d"] and c["display_caves"] == want["display_c"]
    assert c["guild_spots"] == want["spots"] and P["tile_markers"] == want["tile_markers"]
    assert a["markers"] == want["markers"] and a["fixed_vp"] == 0 and c["fixed_count"] == 0
    assert P["hand_dragons"] == [] and P["hand_caves"] == [] and P["dragons"] == [[0] * 4] * 3
    # her cards are out of play: in no pile, display, hand or mat, and counted as hers
    if want["taken_d"]:
        assert want["taken_d"] not in visible_dragons(c) and want["taken_d"] in c["public_dragons"]
    if want["taken_c"]:
        assert want["taken_c"] not in visible_caves(c) and want["taken_c"] in c["public_caves"]
    assert len(visible_dragons(c)) + a["dragons"] == N_SOLO_DRAGONS
    assert len(visible_caves(c)) + a["caves"] == N_CAVES
    # ... and determinize never deals them again
    for s in range(5):
        h = g.determinize(0, s).to_dict()["core"]
        assert want["taken_d"] is None or want["taken_d"] not in visible_dragons(h)
        assert want["taken_c"] is None or want["taken_c"] not in visible_caves(h)
        assert h["automa"]["dragons"] == a["dragons"] and h["automa"]["caves"] == a["caves"]


def test_brown_space_scores_her_card_vp():
    core = solo("3", deck=[IDX["2/5"], 0, 1, 2, 6, 7, 8, 10], steps=4)   # 2 steps: dragon + cave
    g, c = her_turn(core)
    b = g.score_breakdown()[1]
    assert b == {"guild": 0, "dragons": 8, "end_game": 0, "eggs": 0, "cached": 0, "tucked": 0,
                 "objectives": 0, "coins": 0, "items": 0, "caves": 2, "total": 10}


def test_passing_a_brown_space_counts_and_the_steps_after_it_score():
    # card 1/4 in round 4: 4 steps from 4 -> 8, brown space 6 on the way
    core = solo("3", deck=[IDX["1/4"], 0, 1, 2, 6, 7, 9, 10], round_=4, steps=4)
    g, c = her_turn(core)
    assert c["players"][1]["guild_steps"] == 8 and c["automa"]["last_brown"] == 6
    assert c["automa"]["dragons"] == 1 and c["guild_spots"][2][0] == 2
    assert g.score_breakdown()[1]["guild"] == 2


def test_brown_space_0_after_a_lap():
    core = solo("1", steps=11)                                          # card 1: 1 step to 12
    g, c = her_turn(core)
    assert c["players"][1]["guild_steps"] == 12 and c["automa"]["last_brown"] == 12
    assert c["automa"]["dragons"] == 1 and c["players"][1]["tile_markers"] == [0, 0, 1, 0]


def test_kth_ability_counts_only_abilities_with_a_free_spot():
    # the human holds both spots of ability 1 and the spot of ability 3: free are abilities 2 and 4
    core = solo("1", deck=[IDX["7"], 0, 1, 2, 3, 4, 5, 7], steps=5)        # 7: 2nd free ability
    core["guild_spots"][0][:2] = [1, 1]
    core["guild_spots"][2][0] = 1
    core["players"][0]["tile_markers"] = [2, 0, 1, 0]
    core["players"][0]["markers_left"] = 1
    g, c = her_turn(core)
    assert c["guild_spots"] == [[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0]]
    assert c["players"][1]["tile_markers"] == [0, 0, 0, 1] and c["automa"]["markers"] == 0


def test_ability_with_one_spot_left_of_two_is_free():
    core = solo("1", deck=[IDX["7"], 0, 1, 2, 3, 4, 5, 7], steps=5)        # 2nd free ability
    # free: ability 1 (1 spot of 2 left), 3 and 4; the 2nd of them is ability 3
    core["guild_spots"][0][0] = 1
    core["guild_spots"][1][0] = 1
    core["players"][0].update(tile_markers=[1, 1, 0, 0], markers_left=2)
    g, c = her_turn(core)
    assert c["guild_spots"] == [[1, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0]]


def test_no_kth_free_ability_places_no_marker_outside_ravel():
    # card 5: 4th free ability; only 3 abilities are free
    core = solo("1", deck=[IDX["5"], 0, 1, 2, 3, 5, 6, 7], steps=4)       # 2 steps to 6
    core["guild_spots"][1][0] = 1
    g, c = her_turn(core)
    assert c["automa"]["dragons"] == 1 and c["automa"]["markers"] == 1
    assert c["players"][1]["tile_markers"] == [0, 0, 0, 0]
    assert c["fixed_count"] == 0 and c["automa"]["fixed_vp"] == 0


def test_no_ready_marker_places_no_marker_but_still_takes_the_dragon():
    core = solo("1", steps=5, markers=0)                                 # card 1
    g, c = her_turn(core)
    assert c["automa"]["dragons"] == 1 and c["automa"]["markers"] == 0
    assert c["guild_spots"] == [[0] * 4] * 4 and c["players"][1]["tile_markers"] == [0] * 4


@pytest.mark.parametrize("fixed_before,vp", [(0, 6), (1, 3), (2, 1), (5, 1)])
def test_ravel_marker_goes_on_the_fixed_vp_spot_when_no_ability_is_free(fixed_before, vp):
    # R 1/4: 4th free ability; ability 2 is taken, so there is none; the human's deepest cave: 1
    core = human_caves(solo("R1", deck=[IDX["R 1/4"], 3, 4, 5, 6, 12, 13, 14], steps=5), (1, 0, 0))
    core["guild_spots"][1][0] = 1
    core["fixed_count"] = fixed_before
    g, c = her_turn(core)
    a = c["automa"]
    assert c["players"][1]["guild_steps"] == 6 and a["dragons"] == 1
    assert a["fixed_vp"] == vp and c["fixed_count"] == fixed_before + 1 and a["markers"] == 0
    assert c["players"][1]["tile_markers"] == [0, 0, 0, 0]
    assert g.score_breakdown()[1]["guild"] == vp                  # 0 steps past space 6


def test_ravel_marker_on_the_kth_ability_when_there_is_one():
    core = human_caves(solo("R1", deck=[IDX["R 1/4"], 3, 4, 5, 6, 12, 13, 14], steps=5), (1, 0, 0))
    g, c = her_turn(core)
    assert c["players"][1]["tile_markers"] == [0, 0, 0, 1] and c["automa"]["fixed_vp"] == 0
    assert c["fixed_count"] == 0 and c["automa"]["markers"] == 0


def test_ravel_without_a_ready_marker_places_nothing():
    core = human_caves(solo("R1", deck=[IDX["R 1/4"], 3, 4, 5, 6, 12, 13, 14], steps=5, markers=0),
                       (1, 0, 0))
    core["guild_spots"][1][0] = 1
    g, c = her_turn(core)
    assert c["automa"]["fixed_vp"] == 0 and c["fixed_count"] == 0 and c["automa"]["dragons"] == 1


def test_human_fixed_vp_after_her_ravel_marker():
    """The fixed-VP spot is shared: after her marker there the human's first one scores 3."""
    core = human_caves(solo("R1", deck=[IDX["R 1/4"], 3, 4, 5, 6, 12, 13, 14], steps=5,
                            human_coins=2), (1, 0, 0))
    core["guild_spots"][1][0] = 1
    core["players"][0]["guild_steps"] = 5
    give(core, 0, dragons=[57], res=(0, 2, 1, 0))      # Eternal Feydragon: guild(2)
    g, c = her_turn(core)
    assert c["fixed_count"] == 1
    # the human's 2 steps: space 6 (brown), then 7 (lay 1 egg, on the mat nest or on the dragon)
    do(g, "entice Eternal Feydragon into golden", "fixed vp spot")
    if g.decision == "lay egg":
        g.apply(g.legal_actions()[0])
    c = g.to_dict()["core"]
    assert c["players"][0]["fixed_vp"] == 3 and c["fixed_count"] == 2


# ------------------------------------------------------------------ round changes (objective phase)
def round_end(level="1", round_=1, seed=0, human_coins=0) -> dict:
    """The objective phase of `round_` (then the next round starts, or the game ends)."""
    core = solo(level, seed=seed, round_=round_, phase="objective", active=0, human_coins=human_coins)
    core["players"][0]["passed"] = core["players"][1]["passed"] = 1
    core["automa"]["next"] = 5
    return core


@pytest.mark.parametrize("level", LEVELS)
def test_between_rounds_her_deck_is_reshuffled_and_she_gains_a_marker(level):
    core = round_end(level, round_=2)
    core["automa"]["markers"] = 1
    g, c = after(core)
    a = c["automa"]
    assert c["round"] == 2 and (g.decider, g.decision) == (0, "move")
    assert sorted(a["deck"]) == LEVEL_CARDS[level] and (a["next"], a["playable"]) == (0, 7)
    assert a["markers"] == 2 and c["players"][1]["passed"] == 0 and c["players"][1]["coins"] == 0


def test_set_aside_card_changes_from_round_to_round():
    """Over 40 shuffles every one of the 8 cards is the set-aside one at least once, and the
    revealed order differs between shuffles."""
    aside, orders = set(), set()
    for r in range(40):
        core = round_end("2")
        core["rng"] = 1000 + r
        a = after(core)[1]["automa"]
        aside.add(a["deck"][7])
        orders.add(tuple(a["deck"]))
    assert aside == set(LEVEL_CARDS["2"])
    assert len(orders) == 40


@pytest.mark.parametrize("round_", [1, 2, 3])
def test_human_is_start_player_every_round(round_):
    core = round_end("1", round_=round_)
    core["start_player"] = 1                           # even if it were the Automa's
    g, c = after(core)
    assert c["start_player"] == 0 and c["active"] == 0 and (g.decider, g.decision) == (0, "move")
    assert c["round"] == round_ and c["automa"]["next"] == 0   # she has not played yet
    # in a 2-player game the marker passes clockwise instead
    core2 = blank(2, round_=round_)
    core2.update(phase="objective", start_player=0, active=0)
    c2 = start(core2).to_dict()["core"]
    assert c2["start_player"] == 1 and c2["active"] == 1


@pytest.mark.parametrize("coins,level,expected", [
    (5, "R1", 2 + 6), (1, "R2", 1 + 6), (2, "R3", 2 + 6), (9, "R3", 2 + 6), (5, "1", 5 + 6), (9, "3", 15)])
def test_ravel_human_discards_down_to_2_coins_between_rounds(coins, level, expected):
    g, c = after(round_end(level, round_=1, human_coins=coins))
    assert c["round"] == 1 and c["players"][0]["coins"] == expected


@pytest.mark.parametrize("level", ["R1", "1"])
def test_no_coin_discard_after_the_last_round(level):
    g, c = after(round_end(level, round_=4, human_coins=5))
    assert g.is_terminal() and c["players"][0]["coins"] == 5
    assert g.score_breakdown()[0]["coins"] == 5


# -------------------------------------------------------------------------- her objective quantity
def objective_state(tile: int, side: int, round_: int, her_coins: int, level="1") -> dict:
    core = round_end(level, round_=round_)
    core["objective_tiles"][round_ - 1] = tile
    core["objective_sides"][round_ - 1] = side
    core["automa"]["objective_coins"][round_ - 1] = her_coins
    return core


def test_objective_base_values_are_the_data():
    assert [OBJ["tile"][0]["a"]["automa"], OBJ["tile"][2]["a"]["automa"], OBJ["tile"][3]["a"]["automa"]] == [
        [1, 2, 4, 7], [4, 7, 10, 17], [0, 1, 3, 5]]
    assert OBJ["vp_by_round"]["round_1"] == [4, 1, 0] and OBJ["vp_by_round"]["round_4"] == [7, 4, 3]


@pytest.mark.parametrize("her_coins,her_count,vp", [(0, 1, (4, 1)), (1, 2, (4, 4)), (3, 4, (1, 4))])
def test_her_objective_is_base_plus_coins_and_ranks_with_friendly_ties(her_coins, her_count, vp):
    # tile 1 side a (cave cards), round 1: her base 1; the human has 2 cave cards
    core = human_caves(objective_state(0, 0, 1, her_coins), (1, 1, 0))
    g, c = after(core)
    assert [P["objective_count"][0] for P in c["players"]] == [2, her_count]
    assert tuple(P["objective_vp"][0] for P in c["players"]) == vp


def test_her_objective_in_round_4():
    core = human_caves(objective_state(0, 0, 4, 1), (3, 3, 2))     # 8 vs 7 + 1: tie
    g, c = after(core)
    assert g.is_terminal()
    assert [P["objective_count"][3] for P in c["players"]] == [8, 8]
    assert [P["objective_vp"][3] for P in c["players"]] == [7, 7]
    assert [b["objectives"] for b in g.score_breakdown()] == [7, 7]


@pytest.mark.parametrize("round_,her_coins,count", [(4, 0, 12), (4, 3, 12), (3, 2, 12), (3, 3, 12),
                                                    (3, 1, 11), (2, 0, 7)])
def test_her_objective_is_capped_at_12(round_, her_coins, count):
    g, c = after(objective_state(2, 0, round_, her_coins))          # capacity: 4, 7, 10, 17
    assert c["players"][1]["objective_count"][round_ - 1] == count
    assert c["players"][1]["objective_vp"][round_ - 1] == OBJ["vp_by_round"][f"round_{round_}"][0]
    assert c["players"][0]["objective_vp"][round_ - 1] == 0


@pytest.mark.parametrize("her_coins,human_cached,vp,counts", [
    (0, 0, (0, 0), (0, 0)), (0, 1, (4, 0), (1, 0)), (1, 0, (0, 4), (0, 1)), (1, 1, (4, 4), (1, 1))])
def test_her_objective_of_0_scores_nothing(her_coins, human_cached, vp, counts):
    core = objective_state(3, 0, 1, her_coins)                       # cached: base 0 in round 1
    put(core, 0, "crimson", 1, dragon=56, cached=(human_cached, 0, 0, 0))
    g, c = after(core)
    assert tuple(P["objective_count"][0] for P in c["players"]) == counts
    assert tuple(P["objective_vp"][0] for P in c["players"]) == vp


def test_sides_she_cannot_score_are_redrawn():
    """Only tile 4 side b (guild markers) has no Automa value; it never appears in solo games,
    while 2-player games draw it; tile 4 still appears in solo, on side a."""
    usable = {(t, s) for t, tile in enumerate(OBJ["tile"]) for s, k in enumerate("ab")
              if tile[k].get("solo", True) and "automa" in tile[k]}
    assert {(t, s) for t in range(10) for s in range(2)} - usable == {(3, 1)}
    solo_sides, duo_sides = set(), set()
    for seed in range(300):
        c = Game.new(1, seed).to_dict()["core"]
        solo_sides |= set(zip(c["objective_tiles"], c["objective_sides"], strict=True))
        c = Game.new(2, seed).to_dict()["core"]
        duo_sides |= set(zip(c["objective_tiles"], c["objective_sides"], strict=True))
    assert solo_sides == usable and (3, 0) in solo_sides
    assert (3, 1) in duo_sides


# ------------------------------------------------------------------------------ her final score
def end_state(level: str, human_coins: int = 0, **automa) -> dict:
    core = solo(level, round_=4, phase="end game", active=0, human_coins=human_coins)
    core["automa"].update(automa)
    return core


@pytest.mark.parametrize("level,expected", [
    ("1", (21, 3, 41)), ("2", (21, 3, 41)), ("3", (24, 3, 44)),
    ("R1", (21, 12, 50)), ("R2", (21, 12, 50)), ("R3", (24, 12, 53))])
def test_her_final_score(level, expected):
    dragons_vp, guild_vp, total = expected
    core = end_state(level, dragons=3, caves=2, last_brown=12, fixed_vp=9 if is_ravel(level) else 0)
    core["players"][1]["guild_steps"] = 15
    core["players"][1]["objective_vp"] = [4, 2, 0, 7]
    g, c = after(core)
    assert g.is_terminal()
    assert g.score_breakdown()[1] == {
        "guild": guild_vp, "dragons": dragons_vp, "end_game": 0, "eggs": 0, "cached": 0, "tucked": 0,
        "objectives": 13, "coins": 0, "items": 0, "caves": 4, "total": total}
    assert g.scores() == [0, total] and g.winners() == [1]


def test_her_steps_before_any_brown_space_all_score():
    core = end_state("2", last_brown=0)
    core["players"][1]["guild_steps"] = 5
    g, _ = after(core)
    assert g.score_breakdown()[1]["guild"] == 5 and g.scores()[1] == 5


@pytest.mark.parametrize("human_coins,winners", [(6, [1]), (7, [0]), (8, [0])])
def test_ties_go_to_the_human(human_coins, winners):
    core = end_state("1", human_coins=human_coins, dragons=1)           # she has 7 VP
    g, _ = after(core)
    assert g.scores() == [human_coins, 7] and g.winners() == winners


def test_a_tie_in_a_2_player_game_is_shared():
    core = blank(2)
    core.update(phase="end game", phase_player=0, phase_count=0, round=3)
    core["players"][0]["coins"] = core["players"][1]["coins"] = 7
    g = start(core)
    assert g.scores() == [7, 7] and g.winners() == [0, 1]


# ---------------------------------------------------------------------- each_opponent skips her
EACH_OPPONENT = [   # dragon, cave, payment resources, extra decisions
    (85, "crimson", (1, 1, 0, 0), []),            # Wealthy Koiwyrm: each opponent gains a crystal
    (57, "golden", (0, 2, 1, 0), []),             # Eternal Feydragon: each opponent 1 guild step
    (165, "golden", (0, 1, 1, 0), ["dragon from deck", "dragon from deck"]),  # Clairvoyant: a card
]


def test_each_opponent_cards_used_here():
    assert "each_opponent { gain(crystal) }" in DB.dragon(85).abilities[0].text
    assert "each_opponent { guild(1) }" in DB.dragon(57).abilities[0].text
    assert "each_opponent { gain(dragon_card, from=deck) }" in DB.dragon(165).abilities[0].text


def _play_each_opponent(core, dragon, cave, res, extra):
    give(core, 0, dragons=[dragon], res=res, coins=2)
    core["players"][0]["guild_steps"] = 9            # steps 10, 11: coin and milk, no decision
    core["players"][1]["guild_steps"] = 5            # one step would reach a brown space
    core["players"][1]["passed"] = 1
    core["active"] = 0
    g = start(core)
    do(g, f"entice {DB.dragon(dragon).name} into {cave}", *extra)
    return g


@pytest.mark.parametrize("dragon,cave,res,extra", EACH_OPPONENT)
def test_each_opponent_abilities_skip_her(dragon, cave, res, extra):
    g = _play_each_opponent(solo("2"), dragon, cave, res, extra)
    c = g.to_dict()["core"]
    assert (g.decider, g.decision) == (0, "move")
    P = c["players"][1]
    assert (P["guild_steps"], P["resources"], P["hand_dragons"], P["hand_caves"], P["coins"]) == (
        5, [0, 0, 0, 0], [], [], 0)
    assert c["automa"]["dragons"] == 0 and c["automa"]["last_brown"] == 0


@pytest.mark.parametrize("dragon,cave,res,extra", EACH_OPPONENT)
def test_each_opponent_abilities_reach_a_real_opponent(dragon, cave, res, extra):
    """Companion: the same play in a 2-player game gives seat 1 the benefit."""
    g = _play_each_opponent(blank(2), dragon, cave, res, extra)
    c = g.to_dict()["core"]
    P = c["players"][1]
    if dragon == 85:
        assert P["resources"] == [0, 0, 1, 0]
    elif dragon == 57:
        assert P["guild_steps"] == 6 and (g.decider, g.decision) == (1, "guild spot")
    else:
        assert len(P["hand_dragons"]) == 1


# ------------------------------------------------------------------------- hidden card order
def mid_round(level="2", nxt=3) -> dict:
    core = solo(level, active=0, human_coins=1)
    core["automa"]["next"] = nxt
    core["players"][1]["guild_steps"] = 3
    return core


def test_observation_shows_only_her_revealed_cards():
    core = mid_round()
    g = start(core)
    obs = g.observation(0)["automa"]
    assert obs["deck"] == LEVEL_CARDS["2"][:3] and obs["next"] == 3 and obs["playable"] == 7


def test_determinize_reshuffles_her_unrevealed_cards_only():
    core = mid_round()
    g = start(core)
    orders = set()
    for s in range(20):
        a = g.determinize(0, s).to_dict()["core"]["automa"]
        assert a["deck"][:3] == LEVEL_CARDS["2"][:3]
        assert sorted(a["deck"][3:]) == LEVEL_CARDS["2"][3:]
        assert {k: v for k, v in a.items() if k != "deck"} == {
            k: v for k, v in core["automa"].items() if k != "deck"}
        orders.add(tuple(a["deck"][3:]))
    assert len(orders) >= 15                        # 120 orders of 5 cards
    assert g.to_dict()["core"]["automa"]["deck"] == LEVEL_CARDS["2"]


def test_determinize_keeps_everything_once_all_cards_are_revealed():
    core = mid_round(nxt=8)
    g = start(core)
    assert g.determinize(0, 4).to_dict()["core"]["automa"]["deck"] == LEVEL_CARDS["2"]


def _two_true_orders():
    core = mid_round()
    other = copy.deepcopy(core)
    other["automa"]["deck"][3:] = reversed(core["automa"]["deck"][3:])
    return start(core), start(other)


def test_two_true_orders_look_the_same_to_the_human():
    """Companion of the next test: the two states differ only in her hidden order."""
    g, h = _two_true_orders()
    assert g.observation(0) == h.observation(0)
    assert g.to_dict()["core"]["automa"]["deck"] != h.to_dict()["core"]["automa"]["deck"]


def test_determinize_does_not_depend_on_her_true_order():
    g, h = _two_true_orders()
    for s in range(3):
        assert (g.determinize(0, s).to_dict()["core"]["automa"]
                == h.determinize(0, s).to_dict()["core"]["automa"])


def _after_a_reshuffle_mid_turn() -> Game:
    """The human's turn: exploring the Golden Grotto (Aloof Gryphdragon in column 1) she takes a dragon
    card from the empty deck (the discards are reshuffled), then her guild step lays an egg: a
    decision in the same segment as the reshuffle. 3 of the Automa's cards are revealed."""
    core = mid_round()
    core["players"][0]["coins"] = 2
    put(core, 0, "golden", 1, dragon=51)
    core["discard_dragons"], core["deck_dragons"] = core["deck_dragons"], []
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    return g


def test_a_reshuffle_in_the_current_segment_is_reached():
    """Companion of the next test."""
    g = _after_a_reshuffle_mid_turn()
    d = g.to_dict()
    assert (g.decider, g.decision, len(d["log"])) == (0, "lay egg", 2)
    assert d["core"]["reshuffles"] == 1 and d["segment_start"]["reshuffles"] == 0
    assert d["core"]["automa"]["deck"] == LEVEL_CARDS["2"] and d["core"]["automa"]["next"] == 3


def test_determinize_reshuffles_her_cards_even_after_a_reshuffle_in_the_segment():
    g = _after_a_reshuffle_mid_turn()
    orders = {tuple(g.determinize(0, s).to_dict()["core"]["automa"]["deck"][3:]) for s in range(10)}
    assert len(orders) >= 5


# ------------------------------------------------------------------ the left-neighbour dragons
def test_left_neighbour_dragons_are_what_the_rulings_name():
    for d in LEFT_NEIGHBOURS:
        assert any("not_fewer_than_left" in a.text for a in DB.dragon(d).abilities), d
    assert _core.LEFT_NEIGHBOUR_DRAGONS == LEFT_NEIGHBOURS


@pytest.mark.parametrize("level", LEVELS)
def test_left_neighbour_dragons_leave_the_solo_game(level):
    for seed in range(20):
        c = Game.new(1, seed, automa=level).to_dict()["core"]
        vis = visible_dragons(c)
        assert len(vis) == N_SOLO_DRAGONS and len(set(vis)) == N_SOLO_DRAGONS
        assert not set(vis) & set(LEFT_NEIGHBOURS)
    c = Game.new(2, 0).to_dict()["core"]
    assert len(visible_dragons(c)) == N_DRAGONS                # all 183 in a 2-player game


def _solo_decision_points(n_games=6):
    """Decision points of a few random solo games at segment boundaries, with a full deck."""
    out = []
    for seed in range(n_games):
        g = Game.new(1, seed, automa=LEVELS[seed % 6])
        r = random.Random(seed)
        k = 0
        while not g.is_terminal():
            if k % 3 == 0 and not g.to_dict()["log"] and len(g.to_dict()["core"]["deck_dragons"]) > 30:
                out.append(g.clone())
            g.apply(r.choice(g.legal_actions()))
            k += 1
    return out


def test_determinized_solo_states_keep_the_deck_size():
    """Companion of the next test: determinized solo states are reached and keep their sizes."""
    points = _solo_decision_points()
    assert len(points) >= 20
    for g in points:
        c = g.to_dict()["core"]
        assert not set(visible_dragons(c)) & set(LEFT_NEIGHBOURS)
        h = g.determinize(0, 1).to_dict()["core"]
        assert len(h["deck_dragons"]) == len(c["deck_dragons"])
        assert h["players"][0]["hand_dragons"] == c["players"][0]["hand_dragons"]


def test_determinize_never_deals_the_left_neighbour_dragons_in_solo():
    for g in _solo_decision_points():
        for s in range(3):
            h = g.determinize(0, s).to_dict()["core"]
            assert not set(visible_dragons(h)) & set(LEFT_NEIGHBOURS)


# ----------------------------------------------------------------------------- random games
def check_solo_state(g: Game, d: dict | None = None) -> None:
    """Invariants of a solo state at any point."""
    d = g.to_dict() if d is None else d
    for c in (d["segment_start"], d["core"]):
        a, H, A = c["automa"], c["players"][0], c["players"][1]
        level = a["level"]
        assert sorted(a["deck"]) == LEVEL_CARDS[level] and a["playable"] == 7
        assert 0 <= a["next"] <= 7 and c["start_player"] == 0
        assert all(0 <= x <= 200 for x in a["objective_coins"])
        # her cards are out of play; the left-neighbour dragons are nowhere
        vis_d, vis_c = visible_dragons(c), visible_caves(c)
        assert not set(vis_d) & set(LEFT_NEIGHBOURS)
        if not d["log"] or c is d["segment_start"]:
            assert len(vis_d) + tucked(c) + a["dragons"] == N_SOLO_DRAGONS
            assert len(vis_c) + a["caves"] == N_CAVES
        assert len(set(vis_d)) == len(vis_d) and len(set(vis_c)) == len(vis_c)
        assert len(c["public_caves"]) == a["caves"] and not set(c["public_caves"]) & set(vis_c)
        # her seat holds nothing of a human's
        assert (A["coins"], A["resources"], A["nest_eggs"], A["hand_dragons"], A["hand_caves"],
                A["markers_left"], A["fixed_vp"]) == (0, [0, 0, 0, 0], 0, [], [], 0, 0)
        assert A["dragons"] == [[0] * 4] * 3 and A["caves"] == [[0] * 4] * 3
        # her guild token: the last brown space reached, at most 5 steps behind
        assert a["last_brown"] % 6 == 0 and 0 <= A["guild_steps"] - a["last_brown"] <= 5
        # markers: 1 + 1 per round; ready + on abilities + on the fixed-VP spot
        on_fixed = 1 + c["round"] - a["markers"] - sum(A["tile_markers"])
        assert on_fixed >= 0 and (is_ravel(level) or on_fixed == 0)
        human_fixed = 4 - H["markers_left"] - sum(H["tile_markers"])
        assert c["fixed_count"] == human_fixed + on_fixed
        for k in range(4):
            assert sum(s == 2 for s in c["guild_spots"][k]) == A["tile_markers"][k]
        assert (on_fixed == 0) == (a["fixed_vp"] == 0)


def check_solo_scores(g: Game) -> None:
    c = g.to_dict()["core"]
    a, A = c["automa"], c["players"][1]
    bd = g.score_breakdown()
    for b in bd:
        assert b["total"] == sum(v for k, v in b.items() if k != "total")
    assert bd[0]["caves"] == 0
    assert bd[1] == {
        "guild": A["guild_steps"] - a["last_brown"] + a["fixed_vp"],
        "dragons": a["dragons"] * DRAGON_VP[a["level"]], "end_game": 0, "eggs": 0, "cached": 0,
        "tucked": 0, "objectives": sum(A["objective_vp"]), "coins": 0, "items": 0,
        "caves": 2 * a["caves"], "total": bd[1]["total"]}


@pytest.mark.parametrize("level", range(1, 7))
def test_thousands_of_random_solo_games_in_the_core(level):
    n = _core.random_games(1, 5000, 17 + level, automa_level=level)
    assert n == _core.random_games(1, 5000, 17 + level, automa_level=level)
    assert 5000 * 10 < n < 5000 * 3000


@pytest.mark.parametrize("level", LEVELS)
def test_random_solo_games_end_with_invariants(level):
    totals = [0, 0]
    for seed in range(1000):
        g = Game.new(1, seed, automa=level)
        n = g.play_random(seed * 31 + 7)
        assert 0 < n < 3000 and g.is_terminal() and g.phase == "over"
        check_solo_state(g)
        check_solo_scores(g)
        c = g.to_dict()["core"]
        assert c["round"] == 3 and c["n_scored"] == 4
        s = g.scores()
        assert g.winners() == ([0] if s[0] >= s[1] else [1])
        totals[0] += s[0]
        totals[1] += s[1]
    assert totals[1] > totals[0]         # uniformly random play loses to her on average


def cave_depths(core: dict) -> list[int]:
    """Cave cards in each of the human's caves (Ravel steps count from these)."""
    return [sum(1 for k in row[1:] if k) for row in core["players"][0]["caves"]]


def her_expected_cards(prev: dict, until: int, depth: list[int]) -> dict:
    """A model of the Automa's cards prev["automa"]["deck"][prev next:until] in prev's round: each
    is resolved (objective coins, steps - Ravel: from the human's cave depths `depth` - and the brown
    spaces crossed with the slots taken), except her last playable card when it shows the pass icon."""
    a0, steps = prev["automa"], prev["players"][1]["guild_steps"]
    coins = list(a0["objective_coins"])
    r = prev["round"]
    dragons, caves, last = a0["dragons"], a0["caves"], a0["last_brown"]
    for i in range(a0["next"], until):
        card = a0["deck"][i]
        assert i < a0["playable"]                      # the set-aside card is never played
        _, passes, _, obj, _, d_slot, c_slot, _ = CARDS[card]
        if passes and i == a0["playable"] - 1:
            continue                                   # her last card shows the pass icon: she passes
        coins[r] = max(0, coins[r] + obj)
        for _ in range(card_steps(card, r, depth)):
            steps += 1
            if steps % 6 == 0:
                last = steps
                dragons += bool(d_slot)
                caves += bool(c_slot)
    return dict(steps=steps, coins=coins, dragons=dragons, caves=caves, last_brown=last)


def her_expected_turns(prev: dict, seg: dict) -> dict:
    """Her turns between two human turns of the same round: the cards revealed in between, with
    the human's caves at the time (those of `seg`: her turns come after the human's)."""
    assert prev["round"] == seg["round"]
    return her_expected_cards(prev, seg["automa"]["next"], cave_depths(seg))


def her_expected_round_end(prev: dict, later: dict) -> dict:
    """After the human's last turn of a round (`prev` is its start; forced passes take no decision)
    she plays every card she has left. `later`: the first state seen after her turns (the next
    segment boundary, or the end of the game); the Ravel steps count from the human's caves there."""
    return her_expected_cards(prev, prev["automa"]["playable"], cave_depths(later))


def her_model_state(c: dict) -> tuple:
    a = c["automa"]
    return c["players"][1]["guild_steps"], a["objective_coins"], a["dragons"], a["caves"], a["last_brown"]


def model_tuple(want: dict) -> tuple:
    return want["steps"], want["coins"], want["dragons"], want["caves"], want["last_brown"]


@pytest.mark.parametrize("policy", ["uniform", "reluctant"])
@pytest.mark.parametrize("level", LEVELS)
def test_python_driven_solo_games_follow_her_cards(level, policy):
    """Random solo games checked at every decision; "reluctant": the human passes only when she
    must, so more of the Automa's turns fall between two human turns. Between two human turns of a
    round, and from the human's last turn of a round to the first of the next (or to the end), the
    Automa's guild token, cards taken and objective coins follow her revealed cards: she plays all 7
    playable cards of every round, whatever the human does, and a pass icon on the 7th means she
    does not resolve it."""
    brown = modelled = 0
    for seed in range(8):
        g = Game.new(1, seed, automa=level)
        r = random.Random(seed)
        first_turn_seen = set()
        ended = set()                                # rounds whose end was checked
        decks = {}
        prev = None
        while not g.is_terminal():
            assert g.decider == 0                    # she never decides anything
            d = g.to_dict()
            check_solo_state(g, d)
            seg = d["segment_start"]
            if prev is not None and prev["round"] not in ended and (
                    seg["round"] != prev["round"] or seg["phase"] != "turn"):
                # the first boundary after the human's last turn of the round: her cards played out
                assert her_model_state(seg) == model_tuple(her_expected_round_end(prev, seg))
                ended.add(prev["round"])
            if seg["phase"] == "turn":
                if seg["round"] not in first_turn_seen:
                    # the human takes the first turn of every round: nothing of hers revealed yet
                    first_turn_seen.add(seg["round"])
                    assert seg["active"] == 0 and seg["automa"]["next"] == 0
                    assert prev is None or prev["round"] == seg["round"] - 1
                    decks[seg["round"]] = tuple(seg["automa"]["deck"])
                elif prev["turns"] != seg["turns"]:
                    assert her_model_state(seg) == model_tuple(her_expected_turns(prev, seg))
                    modelled += seg["automa"]["next"] > prev["automa"]["next"]
                prev = seg
            legal = g.legal_actions()
            if policy == "reluctant" and g.decision == "move" and len(legal) > 1:
                legal = [x for x in legal if kind(x) != PASS]
            g.apply(r.choice(legal))
        assert first_turn_seen == {0, 1, 2, 3}
        c = g.to_dict()["core"]
        if prev["round"] not in ended:
            assert her_model_state(c) == model_tuple(her_expected_round_end(prev, c))
            ended.add(prev["round"])
        assert ended == {0, 1, 2, 3}
        check_solo_state(g)
        check_solo_scores(g)
        brown += c["automa"]["dragons"] > 0
        assert c["automa"]["next"] == 7                # round 4: all 7 playable cards revealed
        assert len(set(decks.values())) >= 2          # reshuffled between rounds
    assert modelled >= 40 and brown >= 4


def test_determinized_solo_games_play_to_the_end():
    for g in _solo_decision_points(3):
        for s in range(2):
            h = g.determinize(0, s)
            h.play_random(s)
            assert h.is_terminal()
            check_solo_scores(h)


def test_solo_state_round_trips_through_to_dict():
    for level in LEVELS:
        g = Game.new(1, 5, automa=level)
        r = random.Random(5)
        for _ in range(30):
            if g.is_terminal():
                break
            g.apply(r.choice(g.legal_actions()))
        d = g.to_dict()
        again = Game.from_dict(copy.deepcopy(d))
        assert again.to_dict() == d and again.automa_level == level
        x, y = g.clone(), again.clone()
        x.play_random(9)
        y.play_random(9)
        assert x.to_dict() == y.to_dict() and x.scores() == y.scores()
