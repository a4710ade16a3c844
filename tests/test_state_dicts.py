"""Game.from_dict of an edited state (a save or a file someone changed): the core checks every field
it reads and raises GameStateError naming it, and never reads or writes memory out of bounds; and
`advisor track --load` of a damaged save, a device, a FIFO or a huge file is one line (issue 63:
Saves and input). Runs in this process: a crash in the core kills the test run, which fails it."""
import copy
import json
import os
import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from advisor._core import Game
from advisor.cli import main
from advisor.errors import GameStateError
from advisor.files import SAVE_LIMIT


def _states():
    """States of real games: every player count, both printings, solo, setup to the end, and
    states with chance told from outside."""
    out = []
    for players, printing, seed in ((1, "base", 3), (2, "base", 1), (2, "2025", 2), (3, "base", 4),
                                    (4, "2025", 5), (5, "base", 6), (1, "2025", 7)):
        g = Game.new(players, seed=seed, printing=printing)
        k = 0
        while not g.is_terminal():
            if k % 37 == 0:
                out.append(g.to_dict())
            legal = g.legal_actions()
            g.apply(legal[(seed * 31 + k * 7) % len(legal)])
            k += 1
        out.append(g.to_dict())
    told = copy.deepcopy(out[5])
    told["segment_start"]["told"] = {"drawn": [3, 1], "at": [3, 1], "dragons": [7, 0, 9, 0],
                                     "caves": [4, 0, 0, 0], "missed": 0}
    told.pop("log")
    out.append(told)
    return out


STATES = _states()


def _deep(depth: int):
    v: list = []
    for _ in range(depth):
        v = [v]
    return v


# what an edit puts in a field: wrong types, empty and deep values, numbers past every range
REPLACEMENTS = [None, "x", "²", 1.5, float("nan"), True, -1, 0, 1, 3, 4, 5, 9, 15, 16, 75, 76, 183, 184, 255,
                256, 32768, 65535, 65536, 2**31, 2**63, 2**64, -2**63 - 1, 10**5000, [], {}, [0], [1, 1],
                [[]], list(range(300)), "deep", {"players": []}]


def _fresh(value):
    """A replacement of its own (edits go on inside it): 100,000 lists nested for "deep"."""
    return _deep(100_000) if value == "deep" else copy.deepcopy(value)


@st.composite
def edited(draw):
    """A real state's dict with one to three fields replaced, lists cut or lengthened, keys dropped."""
    d = copy.deepcopy(draw(st.sampled_from(STATES)))
    for _ in range(draw(st.integers(1, 3))):
        parent, key = None, None
        node = d
        while isinstance(node, (dict, list)) and node and (parent is None or draw(st.integers(0, 4)) > 0):
            keys = sorted(node) if isinstance(node, dict) else list(range(len(node)))
            parent, key = node, draw(st.sampled_from(keys))
            node = parent[key]
        if parent is None:
            continue
        how = draw(st.sampled_from(["replace", "replace", "replace", "drop", "cut", "grow", "copy"]))
        if how == "replace":
            parent[key] = _fresh(draw(st.sampled_from(REPLACEMENTS)))
        elif how == "drop":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif how == "cut" and isinstance(node, list):
            del node[draw(st.integers(0, len(node))):]
        elif how == "grow" and isinstance(node, list):
            node.extend([_fresh(draw(st.sampled_from(REPLACEMENTS[5:22])))] * draw(st.integers(1, 200)))
        elif how == "copy" and isinstance(parent, list) and parent:
            parent[key] = copy.deepcopy(parent[draw(st.integers(0, len(parent) - 1))])
    return d


FIELD = re.compile(r"^(state|printing|log|segment_start|core)\b[\w.\[\]]*: \S")


def _loads_or_names_the_field(d):
    try:
        g = Game.from_dict(d)
    except GameStateError as e:
        message = str(e)
        event("refused")
        assert FIELD.match(message), message
        assert len(message) < 300 and "\n" not in message
        return None
    event("loaded")
    again = g.to_dict()
    assert Game.from_dict(again).to_dict() == again
    return g


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_an_edited_state_loads_or_names_the_bad_field(d):
    g = _loads_or_names_the_field(d)
    if g is not None and not g.is_terminal():
        g.play_random(seed=1)       # the rules run on whatever was accepted
        assert g.is_terminal()


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_many_edited_states_load_or_name_the_bad_field(d):
    g = _loads_or_names_the_field(d)
    if g is not None and not g.is_terminal():
        g.play_random(seed=2)
        assert g.is_terminal()


def _edit(state, field, value):
    """A copy of `state` with the field at path `field` of its segment start set to `value`."""
    d = copy.deepcopy(state)
    node = d["segment_start"]
    for k in field[:-1]:
        node = node[k]
    node[field[-1]] = value
    return d


@pytest.mark.parametrize("field, value, message", [
    (("objective_tiles",), [], "segment_start.objective_tiles: expected 4 entries, got 0"),
    (("players", 0, "dragons"), [], "segment_start.players[0].dragons: expected 3 entries, got 0"),
    (("players", 0, "resources"), [], "segment_start.players[0].resources: expected 4 entries, got 0"),
    (("players", 0, "hand_dragons"), [65536], "segment_start.players[0].hand_dragons[0]: 65536 is out of range 1..183"),
    (("players", 0, "coins"), 256, "segment_start.players[0].coins: 256 is out of range 0..255"),
    (("rng",), 2**64, "segment_start.rng: a number of 65 bits is out of range 0..18446744073709551615"),
    (("active",), 7, "segment_start.active: 7 is out of range 0..1"),
    (("guild_spots", 2), [[[[]]]], "segment_start.guild_spots[2]: expected 4 entries, got 1"),
    (("players", 1, "coins"), _deep(50_000), "segment_start.players[1].coins: expected a whole number, got a list of 1"),
    (("phase",), "lunch", "segment_start.phase: expected one of setup, turn, round end, objective, round start, "
                          "end game, over, deal, got 'lunch'"),
])
def test_the_fields_the_fuzzer_broke(field, value, message):
    with pytest.raises(GameStateError) as e:
        Game.from_dict(_edit(STATES[3], field, value))
    assert str(e.value) == message


def test_a_card_lies_in_one_place():
    d = copy.deepcopy(STATES[3])
    s = d["segment_start"]
    card = s["deck_dragons"][0]
    s["players"][0]["hand_dragons"].append(card)
    with pytest.raises(GameStateError, match=rf"dragon card {card} is in deck_dragons too|"
                                             rf"deck_dragons\[0\]: dragon card {card} is in"):
        Game.from_dict(d)


def test_a_log_that_is_not_the_games_is_named():
    d = copy.deepcopy(STATES[1])
    d["log"] = [123456]
    with pytest.raises(GameStateError, match=r"^log: the decisions logged are not the game's"):
        Game.from_dict(d)


# ---------------------------------------------------------------------------- `advisor track --load`
def _track_save(table) -> str:
    from advisor.track.session import SAVE_FORMAT, SAVE_MARK
    return json.dumps({"saved_by": SAVE_MARK, "format": SAVE_FORMAT, "state": "", "table": table})


def _table() -> dict:
    from advisor.table import Table
    t = Table(2, 0, seed=3, names=("Ann", "Bo"))
    for _ in range(30):
        t.answer(t.game.legal_actions()[-1])
    return t.to_dict()


def _load(path) -> list[str]:
    r = CliRunner().invoke(main, ["track", "--load", str(path)])
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.output
    return lines


@pytest.mark.parametrize("field, value", [("players", 9), ("players", "2"), ("viewer", -1), ("viewer", 2),
                                          ("viewer", 2**63), ("names", ["Ann"]), ("names", [1, 2]), ("seed", -1),
                                          ("history", [2**40]), ("history", "x"), ("history", 1),
                                          ("stand_ins", [10**6]), ("entered", [5, 1]), ("automa", 7),
                                          ("printing", "nope")])
def test_a_damaged_save_is_one_line(tmp_path, field, value):
    path = tmp_path / "t.json"
    table = _table()
    path.write_text(_track_save(table | {field: table["history"][:10] + [65536] + table["history"][11:]
                                         if value == 1 else value}))
    [line] = _load(path)
    assert "t.json: table: " in line and (field in line or field in ("printing", "automa"))


def test_a_save_of_an_older_format_or_another_program_is_one_line(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"saved_by": "advisor track", "format": 2, "record": [], "start": {}}))
    assert "a save of format 2; this version reads format 3" in _load(path)[0]
    path.write_text(json.dumps({"saved_by": "advisor play"}))
    assert "not a save file of `advisor track`" in _load(path)[0]


def test_a_save_nested_deeply_or_with_a_huge_number_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in _load(deep)[0]
    digits = tmp_path / "digits.json"
    digits.write_text('{"viewer": ' + "9" * 5000 + "}")
    assert "too long" in _load(digits)[0]


def test_track_never_reads_a_device_a_fifo_or_a_huge_file(tmp_path):
    assert "a character device" in _load("/dev/zero")[0]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "a FIFO" in _load(fifo)[0]            # at once: no writer is waited for
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(SAVE_LIMIT + 1)
    assert "too big" in _load(big)[0]
