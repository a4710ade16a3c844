"""Position files (advisor/positions/, docs/position-format.md): the examples load, every kind of
impossible position is rejected with exact messages, no input makes the reader crash, and any engine
state at the start of a turn round-trips through a file to the same observation."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor._core import Game
from advisor.positions import PositionError, load_position, parse_position, position_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
F = "pos.toml"
FUZZ = int(os.environ.get("POSITION_FUZZ_EXAMPLES", "400"))   # raise it for a long fuzz run

BASE = """\
players = 2
round = 2
turn_order = ["Alice", "Bob"]
start_player = "Bob"
viewer = "Alice"
objectives = ["1a", "3b", "7a", "10b"]

[guild]
tile = "Plains Guild"
ability_1 = ["Bob"]

[display]
dragons = ["Mosaic Guardian", "Ringtail Serpent", "Tendering Mothdragon"]
caves = ["Cave 19", "Cave 66", "Cave 70"]

[discards]
caves = ["Cave 48"]

[player.Alice]
coins = 5
resources = { meat = 1, gold = 1 }
mat_eggs = 1
guild_steps = 3
objective_vp = [4]
hand = { dragons = ["Starlit Shepherd"], caves = ["Cave 4", "Cave 5"] }

[player.Alice.golden]
explores = 1
1 = { dragon = "Stalking Drake", eggs = 1 }
2 = { cave = "Cave 10", dragon = "Fastidious Horned Dragon", eggs = 2, cached = { gold = 1 } }

[player.Alice.amethyst]
1 = { dragon = "Frugivorous Grazer", cached = { milk = 1 } }

[player.Bob]
coins = 6
guild_steps = 7
objective_vp = [1]
hand = { dragons = 3, caves = 2, known_dragons = ["Patient Redwyrm"] }

[player.Bob.crimson]
1 = { dragon = "Genial Mothdragon", tucked = 1 }
"""


def edit(*pairs: str) -> str:
    """BASE with each (old, new) replacement made (old must occur)."""
    text = BASE
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def errors(text: str) -> list[str]:
    with pytest.raises(PositionError) as e:
        parse_position(text, F)
    assert str(e.value) == "\n".join(e.value.errors)
    return e.value.errors


# ---------------------------------------------------------------------------- valid files
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_load_and_play(path):
    pos = load_position(path)
    game = pos.to_game(seed=0)
    assert game.phase == "turn" and game.decision == "move"
    assert game.active == game.decider == pos.viewer
    assert game.decisions_in_segment == 0 and game.to_dict()["log"] == []
    assert len(game.legal_actions()) > 1
    # writing the game back gives the same position
    again = parse_position(position_text(game, pos.viewer, pos.names), "again.toml").to_game(0)
    assert again.observation(pos.viewer) == game.observation(pos.viewer)


def test_examples_cover_the_brief():
    kinds = {(load_position(p).players, load_position(p).round) for p in EXAMPLES}
    assert len(EXAMPLES) >= 3
    assert any(n == 2 and r == 1 for n, r in kinds)      # early 2-player
    assert any(n == 4 and r in (2, 3) for n, r in kinds)  # mid-game 4-player
    assert any(n == 2 and r == 4 for n, r in kinds)      # late 2-player


def test_base_position_builds_the_game():
    pos = parse_position(BASE, F)
    assert (pos.players, pos.viewer, pos.round, pos.names) == (2, 0, 2, ("Alice", "Bob"))
    game = pos.to_game(seed=5)
    d = game.to_dict()["core"]
    alice, bob = d["players"]
    assert d["round"] == 1 and d["start_player"] == 1 and d["active"] == 0
    assert alice["dragons"][1][:2] == [110, 96] and alice["caves"][1][1] == 10
    assert alice["eggs"][1][:2] == [1, 2] and alice["cached"][1][1] == [0, 1, 0, 0]
    assert alice["hand_dragons"] == [137] and alice["hand_caves"] == [4, 5]
    assert len(bob["hand_dragons"]) == 3 and 70 in bob["hand_dragons"] and bob["known_dragons"] == [70]
    assert len(bob["hand_caves"]) == 2
    assert bob["guild_steps"] == 7 and bob["markers_left"] == 3 and bob["tile_markers"] == [1, 0, 0, 0]
    assert d["guild_spots"][0][0] == 2 and d["discard_caves"] == [48]
    assert [alice["objective_vp"][0], bob["objective_vp"][0]] == [4, 1]
    # every card is somewhere exactly once; Bob's tucked card is out of play
    seen = list(d["deck_dragons"]) + d["display_dragons"] + d["discard_dragons"]
    for P in d["players"]:
        seen += P["hand_dragons"] + [x for row in P["dragons"] for x in row if x]
    assert len(seen) == len(set(seen)) == 183 - 1
    # the unseen cards are dealt from the seed: same seed, same deal; another seed, another deal
    assert pos.to_game(5).to_dict() == game.to_dict()
    assert pos.to_game(6).to_dict()["core"]["deck_dragons"] != d["deck_dragons"]


def test_defaults_and_tolerant_names():
    text = edit('"Stalking Drake"', '"stalking  DRAKE"', '"Cave 10"', "10",
                '"Starlit Shepherd"', "137", 'tile = "Plains Guild"', 'tile = "plains"')
    d = parse_position(text, F).to_game(0).to_dict()["core"]
    assert d["players"][0]["dragons"][1][0] == 110 and d["players"][0]["caves"][1][1] == 10
    assert d["players"][0]["hand_dragons"] == [137] and d["guild_tile"] == 0
    # hatchlings fed three times have grown up unless the file says otherwise
    text = edit('cached = { milk = 1 }', 'cached = { milk = 3 }')
    assert parse_position(text, F).to_game(0).to_dict()["core"]["players"][0]["grown"][2][0] == 1
    text = edit('cached = { milk = 1 }', 'cached = { milk = 3 }, grown = false')
    assert parse_position(text, F).to_game(0).to_dict()["core"]["players"][0]["grown"][2][0] == 0


def test_load_position_reads_files(tmp_path):
    p = tmp_path / "a.toml"
    p.write_text(BASE)
    assert load_position(p).viewer == 0
    with pytest.raises(PositionError) as e:
        load_position(tmp_path / "missing.toml")
    assert e.value.errors == [f"{tmp_path / 'missing.toml'}: no such file"]
    p.write_bytes(b"players = 2\n\xff\n")
    with pytest.raises(PositionError) as e:
        load_position(p)
    assert e.value.errors == [f"{p}: not UTF-8 text (byte 0xff at offset 12)"]


# ---------------------------------------------------------------------------- each kind of error
def test_toml_syntax_error_names_the_line():
    assert errors(edit("coins = 5", "coins = = 5")) == [
        f"{F}: line 20, column 9: not valid TOML: invalid value"]
    assert errors('players = "2') == [f"{F}: end of file: not valid TOML: unterminated string"]
    assert errors('players = 2\n[player]]\n') == [
        f"{F}: line 2, column 9: not valid TOML: expected newline or end of document after a statement"]


def test_unknown_card_name_suggests():
    assert errors(edit('"Stalking Drake"', '"Stalkng Drake"')) == [
        f"{F}: player.Alice.golden.1.dragon: no card named 'Stalkng Drake'; did you mean 'Stalking Drake' or "
        "'Seedeating Drake'?"]
    assert errors(edit('"Cave 4"', '"Cove 4"')) == [
        f"{F}: player.Alice.hand.caves[1]: no card named 'Cove 4'; did you mean 'Cave 4' or 'Cave 74' or "
        "'Cave 64'?"]


def test_ambiguous_card_name():
    assert errors(edit('"Patient Redwyrm"', '"Redwyrm"')) == [
        f"{F}: player.Bob.hand.known_dragons[1]: 'Redwyrm' matches 2 cards: Patient Redwyrm, "
        "Impenetrable Redwyrm"]


def test_wrong_kind_and_bad_numbers():
    assert errors(edit('"Cave 19"', '"Stalking Drake"', '"Ringtail Serpent"', '"Cave 3"',
                       '"Tendering Mothdragon"', "184")) == [
        f"{F}: display.dragons[2]: 'Cave 3' is a cave card, not a dragon card",
        f"{F}: display.dragons[3]: there is no dragon number 184 (1-183)",
        f"{F}: display.caves[1]: no card named 'Stalking Drake'",
    ]


def test_card_in_two_places():
    assert errors(edit('"Starlit Shepherd"', '"Mosaic Guardian"')) == [
        f"{F}: player.Alice.hand.dragons[1]: 'Mosaic Guardian' is already at display.dragons[1] "
        "(a card is in one place only)"]
    assert errors(edit('caves = ["Cave 48"]', 'caves = ["Cave 10"]')) == [
        f"{F}: player.Alice.golden.2.cave: 'Cave 10' is already at discards.caves[1] "
        "(a card is in one place only)"]


def test_dragon_in_a_cave_it_cannot_live_in():
    text = edit("[player.Bob.crimson]", "[player.Bob.amethyst]")
    assert errors(text) == [
        f"{F}: player.Bob.amethyst.1.dragon: 'Genial Mothdragon' cannot live in amethyst (it lives in "
        "crimson); if a swap put it there, add swapped = true",
    ]
    # a swap explains it only with a swapping card on that mat
    text = edit("[player.Bob.crimson]", "[player.Bob.amethyst]", "tucked = 1 }", "tucked = 1, swapped = true }")
    assert errors(text) == [
        f"{F}: player.Bob.amethyst.1.swapped: nothing on this mat swaps dragons (neither "
        "'Wily Lindworm' nor 'Cave 66' is there)"]
    text = edit("[player.Bob.crimson]", "[player.Bob.amethyst]", "tucked = 1 }",
                'tucked = 1, swapped = true }\n2 = { cave = "Cave 66" }', '"Cave 19", "Cave 66"', '"Cave 19", "Cave 67"')
    assert parse_position(text, F).to_game(0).to_dict()["core"]["players"][1]["dragons"][2][0] == 2


def test_gaps_in_a_row():
    text = edit('2 = { cave = "Cave 10", dragon = "Fastidious Horned Dragon", eggs = 2, cached = { gold = 1 } }',
                '3 = { cave = "Cave 10", dragon = "Fastidious Horned Dragon" }\n'
                '4 = { cave = "Cave 11" }')
    assert errors(text) == [
        f"{F}: player.Alice.golden.3.cave: a cave card in column 3 needs one in column 2 "
        "(cave cards fill columns 2 to 4 from the left)",
        f"{F}: player.Alice.golden.3.dragon: a dragon in column 3 needs one in column 2 "
        "(dragons fill a cave from the left)",
    ]
    text = edit('1 = { dragon = "Stalking Drake", eggs = 1 }', '1 = { cave = "Cave 11" }')
    assert errors(text) == [
        f"{F}: player.Alice.golden.1.cave: column 1 is excavated from the start and holds no cave card",
        f"{F}: player.Alice.golden.2.dragon: a dragon in column 2 needs one in column 1 "
        "(dragons fill a cave from the left)",
    ]
    text = edit('2 = { cave = "Cave 10", dragon', '2 = { dragon')
    assert errors(text) == [
        f"{F}: player.Alice.golden.2.dragon: column 2 is not excavated: a dragon there needs a cave "
        "card in column 2"]


def test_eggs_above_capacity():
    assert errors(edit("eggs = 2, cached", "eggs = 3, cached")) == [
        f"{F}: player.Alice.golden.2.eggs: 'Fastidious Horned Dragon' holds at most 2 eggs, got 3"]
    assert errors(edit("cached = { milk = 1 }", "eggs = 1")) == [
        f"{F}: player.Alice.amethyst.1.eggs: 'Frugivorous Grazer' holds no eggs (capacity 0), got 1"]
    assert errors(edit('2 = { cave = "Cave 10", dragon = "Fastidious Horned Dragon", eggs = 2, cached = { gold = 1 } }',
                       '2 = { cave = "Cave 10", eggs = 2, tucked = 1 }')) == [
        f"{F}: player.Alice.golden.2.eggs: there is no dragon here to hold eggs",
        f"{F}: player.Alice.golden.2.tucked: there is no dragon here to tuck cards under"]


def test_hatchlings_grow_only_when_fed_three_times():
    assert errors(edit("cached = { milk = 1 }", "cached = { milk = 2 }, grown = true",
                       'eggs = 1 }', 'eggs = 1, grown = true }')) == [
        f"{F}: player.Alice.golden.1.grown: 'Stalking Drake' is not a hatchling (only hatchlings grow up)",
        f"{F}: player.Alice.amethyst.1.grown: 'Frugivorous Grazer' grows up when its third milk arrives; "
        "it has 2",
    ]


def test_counts_out_of_range():
    assert errors(edit("coins = 5", "coins = 120", "round = 2", "round = 5", "mat_eggs = 1", "mat_eggs = 3",
                       "explores = 1", "explores = 4", "coins = 6", "coins = -1")) == [
        f"{F}: round: 5 is out of range 1..4",
        f"{F}: player.Alice.coins: 120 is out of range 0..99",
        f"{F}: player.Alice.mat_eggs: 3 is out of range 0..2 (the mat has 2 nests)",
        f"{F}: player.Alice.golden.explores: 4 is out of range 0..3 (a cave is explored at most 3 times a round)",
        f"{F}: player.Bob.coins: -1 is out of range 0..99",
    ]
    assert errors(edit("players = 2", "players = 3")) == [f"{F}: turn_order: lists 2 players but players = 3"]
    assert errors(edit("players = 2", "players = 1")) == [     # solo: tests/test_position_solo.py
        f"{F}: automa: missing: a solo game (players = 1) needs an [automa] section (the Automa's level "
        "and state)",
        f"{F}: turn_order: lists 2 players but players = 1",
        f"{F}: display.dragons[2]: 'Ringtail Serpent' is not used in solo games (the 5 dragons whose "
        "abilities affect a left neighbour leave the deck)"]
    assert errors(edit("objective_vp = [4]", "objective_vp = [3]")) == [
        f"{F}: player.Alice.objective_vp[1]: 3 VP is not possible in round 1 (4, 1, 0)"]
    assert errors(edit("objective_vp = [4]", "objective_vp = [4, 5]")) == [
        f"{F}: player.Alice.objective_vp: 2 values given but 1 objective scored before round 2 "
        "(one value per finished round)"]


def test_more_cards_than_exist():
    assert errors(edit("hand = { dragons = 3,", "hand = { dragons = 180,")) == [
        f"{F}: cards: 189 dragon cards are needed (9 in sight, 179 in opponents' hands unseen, "
        "1 tucked face down) but the game has only 183"]
    assert errors(edit("caves = 2,", "caves = 70,")) == [
        f"{F}: cards: 77 cave cards are needed (7 in sight, 70 in opponents' hands unseen) but the game "
        "has only 75"]
    assert errors(edit('known_dragons = ["Patient Redwyrm"]',
                       'known_dragons = ["Patient Redwyrm", "Silent Cobrette", "Red Guardian", "Green Ghost"]')) == [
        f"{F}: player.Bob.hand.known_dragons: 4 known cards but the hand has 3 dragon cards"]
    assert errors(edit('viewer = "Alice"', 'viewer = "Alice"\nknown_tucked = ["Green Ghost", "Red Guardian"]')) == [
        f"{F}: known_tucked: 2 cards listed but only 1 card is tucked on the mats"]


def test_guild_markers_follow_the_track():
    assert errors(edit("guild_steps = 7", "guild_steps = 5")) == [
        f"{F}: player.Bob.guild_steps: Bob's guild token reached a brown space 0 times (guild_steps 5), "
        "so 0 markers should be on the guild tile; the guild section has 1"]
    assert errors(edit('ability_1 = ["Bob"]', 'ability_1 = ["Bob", "Bob", "Bob"]', "guild_steps = 7",
                       "guild_steps = 18")) == [
        f"{F}: guild.ability_1: 3 markers but ability 1 of Plains Guild has 2 spots"]
    assert errors(edit("guild_steps = 7", "guild_steps = 7\nmarkers_left = 4")) == [
        f"{F}: player.Bob.markers_left: is 4 but Bob has 1 marker on the guild tile (4 in all)"]
    text = edit('ability_1 = ["Bob"]', 'fixed_vp = ["Bob", "Alice", "Bob"]', "guild_steps = 7", "guild_steps = 14",
                "guild_steps = 3", "guild_steps = 6")
    d = parse_position(text, F).to_game(0).to_dict()["core"]
    assert [P["fixed_vp"] for P in d["players"]] == [3, 7] and d["fixed_count"] == 3


def test_objective_ranks_are_dense():
    assert errors(edit("objective_vp = [4]", "objective_vp = [1]")) == [
        f"{F}: player.Alice.objective_vp[1]: 1 VP is 2nd place in round 1, but nobody has 1st place (4 VP)",
        f"{F}: player.Bob.objective_vp[1]: 1 VP is 2nd place in round 1, but nobody has 1st place (4 VP)",
    ]


def test_players_passes_and_display():
    assert errors(edit('viewer = "Alice"', 'viewer = "Alce"\npassed = ["Bob", "Bob"]')) == [
        f"{F}: viewer: 'Alce' is not in turn_order (Alice, Bob); did you mean 'Alice'?",
        f"{F}: passed[2]: 'Bob' is listed twice",
    ]
    assert errors(edit('viewer = "Alice"', 'viewer = "Alice"\npassed = ["Alice"]')) == [
        f"{F}: passed[1]: the viewer 'Alice' cannot have passed: the position is at the start of their turn"]
    assert errors(edit('"Tendering Mothdragon"]', '"empty"]')) == [
        f"{F}: display.dragons: 1 slot empty: a display slot stays empty only when the deck and the "
        "discard pile are both empty (here 172 unseen dragon cards would be in the deck)"]
    assert errors(edit("[player.Bob]", "[player.Bobby]", "[player.Bob.crimson]", "[player.Bobby.crimson]")) == [
        f"{F}: player.Bobby: 'Bobby' is not in turn_order (Alice, Bob); did you mean 'Bob'?",
        f"{F}: player.Bob: missing: every player in turn_order needs a [player.Bob] table",
    ]
    assert errors(edit('objectives = ["1a", "3b", "7a", "10b"]', 'objectives = ["1a", "3c", "1b", "10b"]')) == [
        f"{F}: objectives[2]: '3c' is not an objective tile and side (1a to 10b)",
        f"{F}: objectives[3]: tile 1 is used twice (the 4 rounds have 4 different tiles)",
    ]
    assert errors(edit('tile = "Plains Guild"', 'tile = "Plains Guild"\nside = "3-5"')) == [
        f"{F}: guild.side: the tile is on side 1-2 with 2 players, not 3-5"]


def test_types_missing_and_unknown_fields():
    assert errors(edit("coins = 5", 'coins = "five"', "mat_eggs = 1", "mat_egs = 1", "round = 2\n", "",
                       "explores = 1", "explores = 1\n5 = { }", "hand = { dragons = 3,", "hand = { dragons = [],",
                       "cached = { gold = 1 }", "cached = { gould = 1.5 }")) == [
        f"{F}: round: missing (this field is required)",
        f"{F}: player.Alice.mat_egs: unknown field (did you mean 'mat_eggs'?)",
        f"{F}: player.Alice.coins: must be a whole number, got 'five'",
        f"{F}: player.Alice.golden.5: there is no such column (columns are 1 to 4)",
        f"{F}: player.Alice.golden.2.cached.gould: unknown field (did you mean 'gold'?)",
        f"{F}: player.Bob.hand.dragons: an opponent's hand is a number of cards; list the cards known "
        "to be there in known_dragons",
    ]
    assert errors(edit('hand = { dragons = ["Starlit Shepherd"], ', 'hand = { dragons = 1, ', "players = 2",
                       "automa = { level = 1 }\nplayers = 2")) == [
        f"{F}: automa: an [automa] section is for solo games (players = 1), not 2 players",
        f"{F}: player.Alice.hand.dragons: the viewer's hand lists its cards by name (a number of cards is "
        "for opponents), got 1",
    ]


def test_all_errors_of_a_file_are_listed():
    text = edit('"Stalking Drake"', '"Stalkng Drake"', "coins = 5", "coins = 100", '"Starlit Shepherd"',
                '"Mosaic Guardian"', "eggs = 2, cached", "eggs = 5, cached", "[player.Bob.crimson]",
                "[player.Bob.golden]")
    assert errors(text) == [
        f"{F}: player.Alice.coins: 100 is out of range 0..99",
        f"{F}: player.Alice.hand.dragons[1]: 'Mosaic Guardian' is already at display.dragons[1] "
        "(a card is in one place only)",
        f"{F}: player.Alice.golden.1.dragon: no card named 'Stalkng Drake'; did you mean 'Stalking Drake' "
        "or 'Seedeating Drake'?",
        f"{F}: player.Alice.golden.2.eggs: 'Fastidious Horned Dragon' holds at most 2 eggs, got 5",
        f"{F}: player.Bob.golden.1.dragon: 'Genial Mothdragon' cannot live in golden (it lives in crimson); "
        "if a swap put it there, add swapped = true",
    ]


def test_a_position_with_only_a_pass_has_nothing_to_decide():
    pos = parse_position(edit("coins = 5", "coins = 0"), F)
    with pytest.raises(PositionError) as e:
        pos.to_game(0)
    assert e.value.errors == [f"{F}: viewer: Alice can only pass (nothing else is affordable), so there is "
                              "no decision to advise on"]


def test_position_text_only_at_the_start_of_the_viewers_turn():
    game = Game.new(2, 3)
    with pytest.raises(PositionError) as e:
        position_text(game, 0)
    assert e.value.errors[0].startswith("position_text: game: a position is written only at the start of a "
                                        "turn of the viewer (seat 0); the game is phase 'setup'")
    while not (game.decision == "move" and game.decisions_in_segment == 0):
        game.apply(game.legal_actions()[0])
    other = 1 - game.decider
    with pytest.raises(PositionError):
        position_text(game, other)
    with pytest.raises(PositionError):
        position_text(game, 7)
    assert parse_position(position_text(game, game.decider), F).viewer == game.decider
    # any names: quoted where TOML needs it, in the file and in error paths
    names = ('Big "Al"', "Bo.b") if game.decider == 0 else ("Bo.b", 'Big "Al"')
    text = position_text(game, game.decider, names)
    assert '[player."Big \\"Al\\""]' in text and '[player."Bo.b".crimson]' in text
    pos = parse_position(text, F)
    assert pos.names == names and pos.names[pos.viewer] == 'Big "Al"'
    first = '"Big \\"Al\\""' if names[0].startswith("Big") else '"Bo.b"'
    assert errors(text.replace("coins = ", "coins = -", 1))[0].startswith(f"{F}: player.{first}.coins: -")


def test_known_tucked_cards_stay_out_of_the_deal():
    text = edit('viewer = "Alice"', 'viewer = "Alice"\nknown_tucked = ["Green Ghost"]')
    d = parse_position(text, F).to_game(1).to_dict()["core"]
    assert d["players"][0]["seen_dragons"] == [d_no("Green Ghost")]
    everywhere = d["deck_dragons"] + [x for P in d["players"] for x in P["hand_dragons"]]
    assert d_no("Green Ghost") not in everywhere


def d_no(name: str) -> int:
    from advisor.cards import load_database
    return load_database("base").lookup(name, "dragon").number


# ---------------------------------------------------------------------------- fuzzing the reader
def _toml(d: dict) -> str:
    return tomli_w.dumps(d)


def _check_reader(text: str) -> None:
    """The reader returns a position or raises PositionError; a position gives a game or a PositionError."""
    try:
        pos = parse_position(text, F)
    except PositionError as e:
        assert e.errors and all(line.startswith(f"{F}: ") for line in e.errors)
        assert not any("internal error" in line for line in e.errors), e.errors
        return
    try:
        game = pos.to_game(0)
    except PositionError as e:
        assert "engine" not in str(e), str(e)
        return
    assert game.decision == "move" and game.decider == pos.viewer


FRAGMENTS = ["players", "round", "viewer", "turn_order", "[player.Alice]", "[player.Bob.golden]", "[guild]",
             "[display]", "[[player]]", "1", "2", "=", " = ", "\n", "[", "]", "{", "}", ",", '"', "'", '"Alice"',
             '"Bob"', '"Stalking Drake"', '"Cave 4"', "hand", "dragons", "caves", "coins", "eggs", "tucked",
             "true", "1979-05-27", "3.5", "-1", "99999999999999999999", "#", "\\", "\u00e9", "nan", "inf",
             "objectives", '["1a", "2b", "3a", "4b"]', "explores", "cached = { meat = 1 }"]


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300),
                 st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join),
                 st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(lambda xs: BASE + "".join(xs)),
                 st.integers(0, len(BASE)).flatmap(
                     lambda i: st.text(max_size=8).map(lambda s: BASE[:i] + s + BASE[i + len(s):]))))
def test_fuzz_text_never_crashes(text):
    _check_reader(text)


def _values():
    return st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.integers(-3, 300),
                  st.floats(allow_nan=True), st.text(max_size=20),
                  st.sampled_from(["Alice", "Bob", "Stalking Drake", "Cave 4", "Cave 66", "1a", "empty",
                                   "Wily Lindworm", "Genial Mothdragon", "Plains Guild", ""])),
        lambda inner: st.one_of(st.lists(inner, max_size=5),
                                st.dictionaries(st.sampled_from(["dragon", "cave", "eggs", "1", "2", "x",
                                                                 "meat", "dragons", "caves", "coins"]),
                                                inner, max_size=4)),
        max_leaves=8)


def _paths(d, prefix=()):
    """Every (container path, key) of a parsed file."""
    items = d.items() if isinstance(d, dict) else enumerate(d)
    for k, v in items:
        yield prefix, k
        if isinstance(v, (dict, list)):
            yield from _paths(v, prefix + (k,))


def _get(d, path):
    for k in path:
        d = d[k]
    return d


@pytest.mark.slow
@settings(max_examples=FUZZ * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_mutated_fields_never_crash(data):
    import tomllib
    source = data.draw(st.sampled_from([BASE] + [p.read_text() for p in EXAMPLES]))
    d = tomllib.loads(source)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(_paths(d))
        prefix, key = data.draw(st.sampled_from(paths))
        parent = _get(d, prefix)
        how = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "number"]))
        if how == "delete":
            del parent[key]
        elif how == "add" and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["extra", "coin", "2", "5", "dragon", "explores", "automa"]))] = \
                data.draw(_values())
        elif how == "number":
            parent[key] = data.draw(st.integers(-5, 300))
        else:
            v = data.draw(_values())
            parent[key] = 0 if v is None else v
    _check_reader(_toml(_strip_none(d)))


def _strip_none(v):
    if isinstance(v, dict):
        return {k: _strip_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_none(x) for x in v if x is not None]
    return v


# ---------------------------------------------------------------------------- round trip
# Observation fields that a position legitimately does not hold (history, not the table):
# - turns: how many turns were taken so far in the game;
# - reshuffles: how many times a deck was rebuilt from its discard pile;
# - objective_count (each player): the quantity counted when a past objective was scored; the
#   round tracker only keeps the VP (rank) markers, which are in the file as objective_vp.
# Everything else (including hand and deck sizes, the decider, the decision and the legal actions)
# must be equal; so must the scores (not part of the observation) and the written file itself.
NOT_IN_A_POSITION = ("turns", "reshuffles")
NOT_IN_A_POSITION_PER_PLAYER = ("objective_count",)


def _comparable(obs: dict) -> dict:
    out = {k: v for k, v in obs.items() if k not in NOT_IN_A_POSITION}
    out["players"] = [{k: v for k, v in P.items() if k not in NOT_IN_A_POSITION_PER_PLAYER}
                      for P in obs["players"]]
    return out


def _sizes(game: Game) -> tuple:
    d = game.to_dict()["core"]
    return ([(len(P["hand_dragons"]), len(P["hand_caves"])) for P in d["players"]],
            len(d["deck_dragons"]), len(d["deck_caves"]), game.scores())


@pytest.mark.slow
def test_round_trip_over_random_states():
    from advisor import _core
    states = 0
    for gi in range(48):
        players = 2 + gi % 4
        game = Game.new(players, 1000 + gi)
        rng = random.Random(gi)
        greedy = gi % 3 == 0           # some games with sensible play: fuller mats, later rounds
        while not game.is_terminal():
            if game.decision == "move" and game.decisions_in_segment == 0:
                viewer = game.decider
                text = position_text(game, viewer)
                pos = parse_position(text, f"state{gi}-{states}.toml")
                rebuilt = pos.to_game(seed=states)
                assert _comparable(rebuilt.observation(viewer)) == _comparable(game.observation(viewer)), text
                assert _sizes(rebuilt) == _sizes(game), text
                assert position_text(rebuilt, viewer) == text
                states += 1
            if greedy and rng.random() < 0.7:
                game.apply(_core.greedy_action(game, rng.getrandbits(32)))
            else:
                game.apply(rng.choice(game.legal_actions()))
    assert states >= 2000
