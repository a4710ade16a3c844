"""Solo position files (the [automa] section, docs/position-format.md): a solo file builds the engine
game with the Automa in seat 1, her unrevealed cards dealt from the seed; every kind of impossible
Automa state is rejected with an exact message; any solo engine state at the start of the human's
turn round-trips through a file to the same observation, at all 6 levels; the solo example works
with `advisor suggest`, and `advisor new --solo-level` writes solo positions."""
from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor import _core
from advisor._core import Game
from advisor.cli import main
from advisor.positions import PositionError, load_position, parse_position, position_text

from test_position import FUZZ, _check_reader, _comparable, _get, _paths, _sizes, _strip_none, _toml, _values

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "solo-l2.toml"
F = "solo.toml"
LEVELS = ("1", "2", "3", "R1", "R2", "R3")

SOLO = """\
players = 1
round = 2
turn_order = ["Alice"]
viewer = "Alice"
objectives = ["1a", "3b", "7a", "10b"]

[guild]
tile = "Plains Guild"
ability_1 = ["Automa"]

[display]
dragons = ["Mosaic Guardian", "Tendering Mothdragon", "Genial Mothdragon"]
caves = ["Cave 19", "Cave 66", "Cave 70"]

[automa]
level = "2"
revealed = ["1/4", "7"]
dragons = ["Patient Redwyrm"]
caves = ["Cave 12"]
guild_steps = 9
objective_coins = [1, 1]
objective_vp = [4]

[player.Alice]
coins = 5
resources = { meat = 1, gold = 1 }
mat_eggs = 1
guild_steps = 3
objective_vp = [1]
hand = { dragons = ["Starlit Shepherd"], caves = ["Cave 4", "Cave 5"] }

[player.Alice.golden]
1 = { dragon = "Stalking Drake", eggs = 1 }
2 = { cave = "Cave 10", dragon = "Fastidious Horned Dragon", eggs = 2 }
"""


def edit(*pairs: str) -> str:
    text = SOLO
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def errors(text: str) -> list[str]:
    with pytest.raises(PositionError) as e:
        parse_position(text, F)
    return e.value.errors


def run(*args):
    return CliRunner().invoke(main, list(map(str, args)))


# ---------------------------------------------------------------------------- a solo file
def test_solo_position_builds_the_game():
    pos = parse_position(SOLO, F)
    assert (pos.players, pos.viewer, pos.round, pos.names, pos.solo, pos.automa_level) == \
        (1, 0, 2, ("Alice",), True, "2")
    game = pos.to_game(seed=3)
    assert game.automa_level == "2" and game.players == 2
    assert game.decider == 0 and game.decision == "move" and len(game.legal_actions()) > 1
    d = game.to_dict()["core"]
    a, her, alice = d["automa"], d["players"][1], d["players"][0]
    corners = [c.corner for c in _db().automa_cards]
    level = {corners.index(x) for x in _db().automa_levels["L2"]}
    assert [corners[k] for k in a["deck"][:2]] == ["1/4", "7"] and a["next"] == 2 and a["playable"] == 7
    assert set(a["deck"]) == level and len(a["deck"]) == 8          # the rest of her 8, dealt
    assert (a["dragons"], a["caves"], a["markers"], a["fixed_vp"], a["last_brown"]) == (1, 1, 1, 0, 6)
    assert a["objective_coins"] == [1, 1, 0, 0]
    assert her["guild_steps"] == 9 and her["tile_markers"] == [1, 0, 0, 0] and her["passed"] == 0
    assert her["objective_vp"] == [4, 0, 0, 0] and her["markers_left"] == 0
    assert alice["objective_vp"] == [1, 0, 0, 0] and alice["markers_left"] == 4
    assert d["guild_spots"][0][0] == 2 and d["start_player"] == 0
    assert d["public_dragons"] == [70] and d["public_caves"] == [12]
    # her cards and the 5 left-neighbour dragons are dealt nowhere
    dealt_d = set(d["deck_dragons"]) | set(alice["hand_dragons"])
    assert not dealt_d & {70, *_core.LEFT_NEIGHBOUR_DRAGONS} and 12 not in d["deck_caves"]
    assert len(d["deck_dragons"]) == 183 - 5 - 1 - 3 - 1 - 2     # her 1, the display, hand, mat
    # her card order is drawn from the seed: the same seed, the same order
    assert pos.to_game(3).to_dict() == game.to_dict()
    orders = {tuple(pos.to_game(s).to_dict()["core"]["automa"]["deck"]) for s in range(12)}
    assert len(orders) > 1 and all(o[:2] == tuple(a["deck"][:2]) for o in orders)
    # her score: 7 VP a dragon at level 2, 2 a cave, 3 steps past the brown space at 6, 4 objective VP
    assert game.score_breakdown()[1]["total"] == 7 + 2 + 3 + 4


def test_solo_defaults_and_tolerant_ids():
    text = edit('revealed = ["1/4", "7"]', 'revealed = ["1 / 4 ", 7]', 'level = "2"', "level = 2",
                "objective_coins = [1, 1]\n", "", "objective_vp = [4]\n", "objective_vp = [4]\nmarkers = 1\n"
                "passed = false\nlast_brown = 6\n")
    d = parse_position(text, F).to_game(0).to_dict()["core"]
    assert d["automa"]["objective_coins"] == [0, 1, 0, 0]          # the current round's from her cards
    text = edit('level = "2"', 'level = "r2"', 'revealed = ["1/4", "7"]', 'revealed = ["r1/4", "R  8"]',
                "objective_coins = [1, 1]", "objective_coins = [1, 0]")
    d = parse_position(text, F).to_game(0).to_dict()["core"]
    assert d["automa"]["level"] == "R2" and d["automa"]["next"] == 2
    # a fresh round: nothing revealed, her whole deck dealt
    text = edit('revealed = ["1/4", "7"]\n', "", "objective_coins = [1, 1]", "objective_coins = [1, 0]")
    d = parse_position(text, F).to_game(0).to_dict()["core"]
    assert d["automa"]["next"] == 0 and len(set(d["automa"]["deck"])) == 8


def test_solo_ravel_fixed_vp_and_passed():
    # Ravel: her marker on the fixed-VP spot after the human's (3 VP for her)
    text = edit('level = "2"', 'level = "R3"', 'revealed = ["1/4", "7"]',
                'revealed = ["R 1/4", "R 2/5", "R 3/6", "1/4", "2/5", "3/6", "7"]\npassed = true',
                "guild_steps = 9", "guild_steps = 13", 'ability_1 = ["Automa"]',
                'fixed_vp = ["Alice", "Automa"]', "guild_steps = 3", "guild_steps = 7",
                "objective_coins = [1, 1]", "objective_coins = [3, 0]")   # card 7 (pass icon) is not played
    game = parse_position(text, F).to_game(0)
    d = game.to_dict()["core"]
    assert d["automa"]["fixed_vp"] == 3 and d["players"][0]["fixed_vp"] == 6 and d["fixed_count"] == 2
    assert d["players"][1]["passed"] == 1 and d["automa"]["next"] == 7 and d["automa"]["markers"] == 1
    assert game.score_breakdown()[1]["guild"] == 1 + 3
    assert tomllib.loads(position_text(game, 0, ("Alice",)))["guild"]["fixed_vp"] == ["Alice", "Automa"]


# ---------------------------------------------------------------------------- each kind of error
def test_automa_section_only_in_solo():
    assert f"{F}: automa: an [automa] section is for solo games (players = 1), not 2 players" in errors(
        SOLO.replace("players = 1", "players = 2").replace('turn_order = ["Alice"]', 'turn_order = ["Alice", "Bob"]'))
    assert errors(edit("[automa]", "[automaton]")) == [
        f"{F}: automaton: unknown field (did you mean 'automa'?)",
        f"{F}: automa: missing: a solo game (players = 1) needs an [automa] section (the Automa's level "
        "and state)",
    ]
    assert errors(edit('turn_order = ["Alice"]', 'turn_order = ["Alice", "Automa"]')) == [
        f"{F}: turn_order: lists 2 players but players = 1"]


def test_level_and_revealed_cards():
    assert errors(edit('level = "2"', 'level = "4"')) == [
        f"{F}: automa.level: '4' is not an Automa level (1, 2, 3, R1, R2, R3; R1-R3 are the Ravel levels)"]
    all_ids = "1, 2, 3, 4, 5, 6, 7, 8, 1/4, 2/5, 3/6, R 1/4, R 2, R 3/6, R 8, R 2/5"
    assert errors(edit('revealed = ["1/4", "7"]', 'revealed = ["1/4", "9", "R 2", "1/4", "R 8/6", true]')) == [
        f"{F}: automa.revealed[2]: '9' is not the corner id of an Automa card ({all_ids})",
        f"{F}: automa.revealed[3]: 'R 2' is not one of the 8 cards of level 2 (1/4, 2/5, 3/6, 4, 5, 6, 7, 8)",
        f"{F}: automa.revealed[4]: '1/4' is listed twice (each of her cards is revealed once a round)",
        f"{F}: automa.revealed[5]: 'R 8/6' is not the corner id of an Automa card ({all_ids}); "
        "did you mean 'R 3/6'?",
        f"{F}: automa.revealed[6]: must be a card's corner id in quotes (e.g. \"1/4\", \"R 2\"), got true",
    ]
    assert errors(edit('revealed = ["1/4", "7"]', 'revealed = ["1/4", "2/5", "3/6", "4", "5", "6", "7", "8"]')) == [
        f"{F}: automa.revealed: 8 cards revealed but she plays at most 7 a round (1 of her 8 cards is "
        "set aside unseen)"]


def test_passed_coins_and_track():
    assert errors(edit("guild_steps = 9", "guild_steps = 9\npassed = true")) == [
        f"{F}: automa.passed: she passes after her 7th card of the round (at a pass icon on that card she "
        "passes instead of playing it); she has revealed 2"]
    assert errors(edit('revealed = ["1/4", "7"]', 'revealed = ["1/4", "2/5", "3/6", "4", "5", "6", "7"]',
                       "guild_steps = 9", "guild_steps = 9\npassed = false",
                       "objective_coins = [1, 1]", "objective_coins = [1, 1]")) == [
        f"{F}: automa.passed: she has revealed 7 cards, her last of the round, so she has passed"]
    assert errors(edit("objective_coins = [1, 1]", "objective_coins = [1, 3]")) == [
        f"{F}: automa.objective_coins[2]: is 3 but the cards she revealed this round leave 1 on round 2's "
        "objective"]
    assert errors(edit("objective_coins = [1, 1]", "objective_coins = [1, 1, 0]")) == [
        f"{F}: automa.objective_coins: 3 values given but this is round 2 (one value per round so far, "
        "the current one included)"]
    assert errors(edit("objective_coins = [1, 1]", "objective_coins = [9, 1]")) == [
        f"{F}: automa.objective_coins[1]: 9 is out of range 0..8"]
    assert errors(edit("guild_steps = 9", "guild_steps = 9\nlast_brown = 9")) == [
        f"{F}: automa.last_brown: is 9 but with guild_steps 9 the last brown space she reached is at step 6"]
    assert errors(edit("guild_steps = 9", "guild_steps = 9\nmarkers = 2")) == [
        f"{F}: automa.markers: is 2 but she has 1 ready (2 by round 2, 1 on the guild tile)"]
    assert errors(edit("guild_steps = 9", "guild_steps = 5")) == [
        f"{F}: automa.guild_steps: the Automa's guild token reached a brown space 0 times (guild_steps 5), "
        "so at most 0 markers of hers can be on the guild tile; the guild section has 1"]
    assert errors(edit('ability_1 = ["Automa"]', 'ability_1 = ["Automa"]\nability_2 = ["Automa"]\n'
                       'ability_3 = ["Automa"]', "guild_steps = 9", "guild_steps = 19")) == [
        f"{F}: guild: the Automa has 3 markers on the guild tile but only 2 by round 2 (1 at the start, "
        "1 more each round)"]
    assert errors(edit('ability_1 = ["Automa"]', 'fixed_vp = ["Automa"]')) == [
        f"{F}: guild.fixed_vp: the Automa puts markers on the fixed-VP spot only at the Ravel levels "
        "(R1-R3); this is level 2"]
    assert errors(edit("objective_vp = [4]", "objective_vp = [0]")) == [
        f"{F}: player.Alice.objective_vp[1]: 1 VP is 2nd place in round 1, but nobody has 1st place (4 VP)"]
    assert errors(edit("objective_vp = [4]", "objective_vp = [4, 5]")) == [
        f"{F}: automa.objective_vp: 2 values given but 1 objective scored before round 2 (one value per "
        "finished round)"]


def test_her_cards_and_the_solo_deck():
    assert errors(edit('dragons = ["Patient Redwyrm"]', 'dragons = 1', 'caves = ["Cave 12"]',
                       'caves = ["Cave 19"]')) == [
        f"{F}: automa.dragons: must be a list of the dragon cards she took (she keeps them face up), got 1",
        f"{F}: automa.caves[1]: 'Cave 19' is already at display.caves[1] (a card is in one place only)",
    ]
    assert errors(edit('"Genial Mothdragon"]', '"Ringtail Serpent"]', '"Patient Redwyrm"', '"Miserly Amphiptere"')) == [
        f"{F}: display.dragons[3]: 'Ringtail Serpent' is not used in solo games (the 5 dragons whose "
        "abilities affect a left neighbour leave the deck)",
        f"{F}: automa.dragons[1]: 'Miserly Amphiptere' is not used in solo games (the 5 dragons whose "
        "abilities affect a left neighbour leave the deck)",
    ]
    assert errors(edit('"10b"]', '"4b"]')) == [
        f"{F}: objectives[4]: 4b is not used in solo games (the Automa cannot score it; its other side 4a "
        "is used instead)"]


def test_the_automa_is_not_a_player():
    assert errors(edit('viewer = "Alice"', 'viewer = "Automa"\npassed = ["Automa"]\nstart_player = "Automa"')) == [
        f"{F}: viewer: the Automa has no view: in a solo game the viewer is the human player",
        f"{F}: start_player: the human player starts every round of a solo game",
        f"{F}: passed[1]: the Automa's pass is written in the automa section (passed = true)",
    ]
    text = SOLO.replace('"Alice"', '"automa"').replace("player.Alice", "player.automa")
    assert errors(text)[0] == (f"{F}: turn_order[1]: 'automa' names the Automa in a solo game; give the "
                               "human player another name")
    assert errors(edit("[player.Alice.golden]", "[player.Automa]\ncoins = 1\nhand = { dragons = 0, caves = 0 }"
                       "\n\n[player.Alice.golden]")) == [
        f"{F}: player.Automa: 'Automa' is not in turn_order (Alice)"]
    assert errors(edit('ability_1 = ["Automa"]', 'ability_1 = ["Automat"]')) == [
        f"{F}: guild.ability_1[1]: 'Automat' is neither the human player nor the Automa (Alice, Automa); "
        "did you mean 'Automa'?"]


def test_position_text_solo_names_and_viewer():
    game = parse_position(SOLO, F).to_game(0)
    with pytest.raises(PositionError) as e:
        position_text(game, 1)
    assert e.value.errors == ["position_text: viewer: seat 1 is the Automa, who has no view; the viewer of "
                              "a solo game is the human (seat 0)"]
    with pytest.raises(PositionError):
        position_text(game, 0, ("Automa",))
    with pytest.raises(PositionError):
        position_text(game, 0, ("Alice", "Bob"))
    assert position_text(game, 0, ("Alice", "Automa")) == position_text(game, 0, ("Alice",))
    text = position_text(game, 0)
    written = tomllib.loads(text)
    assert written["turn_order"] == ["P0"] and written["players"] == 1 and "Automa" not in written["player"]
    assert "[automa]" in text and "[player.Automa]" not in text
    assert parse_position(text, F).to_game(0).observation(0) == game.observation(0)


# ---------------------------------------------------------------------------- round trip
@pytest.mark.slow
def test_solo_round_trip_over_random_states():
    states = 0
    seen = {lvl: 0 for lvl in LEVELS}
    cover = {"passed": 0, "fixed_vp": 0, "caves": 0, "round 4": 0, "tucked and taken": 0}
    for gi in range(120):
        level = LEVELS[gi % 6]
        game = Game.new(1, 3000 + gi, automa=level)
        rng = random.Random(gi)
        greedy = gi % 2 == 0
        while not game.is_terminal():
            if game.decision == "move" and game.decisions_in_segment == 0:
                text = position_text(game, 0)
                pos = parse_position(text, f"solo{gi}-{states}.toml")
                rebuilt = pos.to_game(seed=states)
                assert _comparable(rebuilt.observation(0)) == _comparable(game.observation(0)), text
                assert _sizes(rebuilt) == _sizes(game), text
                assert position_text(rebuilt, 0) == text
                d = game.to_dict()["core"]
                cover["passed"] += d["players"][1]["passed"]
                cover["fixed_vp"] += d["automa"]["fixed_vp"] > 0
                cover["caves"] += d["automa"]["caves"] > 0
                cover["round 4"] += d["round"] == 3
                cover["tucked and taken"] += len(d["public_dragons"]) > d["automa"]["dragons"] > 0
                seen[level] += 1
                states += 1
            if greedy and rng.random() < 0.7:
                game.apply(_core.greedy_action(game, rng.getrandbits(32)))
            else:
                game.apply(rng.choice(game.legal_actions()))
    assert states >= 2000 and min(seen.values()) >= 200
    assert min(cover.values()) >= 10, cover


# ---------------------------------------------------------------------------- example and commands
def test_solo_example_loads_and_plays():
    pos = load_position(EXAMPLE)
    assert pos.solo and pos.automa_level == "2" and pos.players == 1 and 2 <= pos.round <= 3
    game = pos.to_game(0)
    assert game.decision == "move" and game.decider == 0 and len(game.legal_actions()) > 1
    d = game.to_dict()["core"]
    assert d["automa"]["next"] > 0 and d["automa"]["dragons"] > 0 and sum(d["players"][1]["tile_markers"]) > 0
    assert parse_position(position_text(game, 0, pos.names), "again.toml").to_game(0).observation(0) == \
        game.observation(0)


def test_suggest_json_on_the_solo_example():
    r = run("suggest", EXAMPLE, "--iterations", 300, "--json", "--top", 3)
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["player"] == 0 and out["decision"] == "move" and out["iterations"] == 300
    legal = json.loads(run("legal", EXAMPLE, "--json").output)
    assert len(out["moves"]) == min(3, len(legal))
    assert {m["move"] for m in out["moves"]} <= {x["move"] for x in legal}


def test_new_solo(tmp_path):
    out = tmp_path / "solo.toml"
    r = run("new", "--solo-level", 3, "--after-turns", 5, "-o", out)
    assert r.exit_code == 0, r.output
    assert "solo against the Automa (level 3)" in r.output
    pos = load_position(out)
    assert pos.solo and pos.automa_level == "3" and pos.players == 1
    assert pos.to_game(0).decision == "move"
    r = run("new", "--players", 1, "--solo-level", "r1", "-o", tmp_path / "r1.toml")
    assert r.exit_code == 0, r.output
    assert load_position(tmp_path / "r1.toml").automa_level == "R1"
    r = run("new", "--players", 2, "--solo-level", 1, "-o", tmp_path / "x.toml")
    assert r.exit_code == 2 and "--solo-level makes a solo game (1 player), not 2 players" in r.output
    r = run("new", "--players", 1, "-o", tmp_path / "x.toml")
    assert r.exit_code == 2 and "give --solo-level" in r.output
    r = run("new", "--solo-level", 4, "-o", tmp_path / "x.toml")
    assert r.exit_code == 2
    assert not (tmp_path / "x.toml").exists()


def _db():
    from advisor.cards import load_database
    return load_database("base")


# ---------------------------------------------------------------------------- fuzzing the solo reader
AUTOMA_VALUES = st.one_of(_values(), st.sampled_from(["1/4", "R 2", "R2", "7", "9", "Automa", "Patient Redwyrm",
                                                      "Cave 12", "Ringtail Serpent", "4b"]),
                          st.lists(st.sampled_from(["1/4", "2/5", "3/6", "4", "5", "6", "7", "8", "R 2"]),
                                   max_size=9))


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_solo_fields_never_crash(data):
    d = tomllib.loads(data.draw(st.sampled_from([SOLO, EXAMPLE.read_text()])))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(_paths(d))
        prefix, key = data.draw(st.sampled_from(paths))
        parent = _get(d, prefix)
        how = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "number"]))
        if how == "delete":
            del parent[key]
        elif how == "add" and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["passed", "markers", "last_brown", "fixed_vp", "automa", "2"]))] = \
                data.draw(AUTOMA_VALUES)
        elif how == "number":
            parent[key] = data.draw(st.integers(-5, 300))
        else:
            v = data.draw(AUTOMA_VALUES)
            parent[key] = 0 if v is None else v
    _check_reader(_toml(_strip_none(d)))
