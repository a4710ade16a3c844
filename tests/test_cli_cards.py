"""`advisor cards ...` through click's runner and as a real subprocess."""
import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from advisor import __version__
from advisor.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_help_lists_commands():
    r = run("--help")
    assert r.exit_code == 0 and "cards" in r.output


def test_version():
    r = run("--version")
    assert r.exit_code == 0 and __version__ in r.output


def test_list_all_json():
    r = run("cards", "list", "--json")
    assert r.exit_code == 0
    cards = json.loads(r.output)
    assert len(cards) == 183 + 75


def test_list_caves_text():
    r = run("cards", "list", "--kind", "cave")
    assert r.exit_code == 0 and sum(line.startswith("C") for line in r.output.splitlines()) == 75


def test_list_and_show_fit_80_columns():
    """Issue 46: cave lines of `cards list` ran to 300 columns; long texts wrap under their card."""
    for args in (["list"], ["show", "Miniature Rex"], ["show", "cave 2"]):
        lines = run("cards", *args).output.splitlines()
        assert lines and max(map(len, lines)) <= 80, args
    listing = run("cards", "list").output.splitlines()
    assert sum(line.startswith("D") for line in listing) == 183


def test_show_takes_the_id_that_list_prints():
    """Issue 46: `cards list` prints D70 and C12; `cards show D70` said there was no such card."""
    assert run("cards", "show", "D70").output.startswith("Dragon 70: Patient Redwyrm")
    assert run("cards", "show", "d70").output.startswith("Dragon 70: Patient Redwyrm")
    assert run("cards", "show", "C12").output.startswith("Cave 12")
    listed = run("cards", "list").output.split()
    assert "D70" in listed and "C12" in listed


def test_show_dragon_json_has_the_documented_keys():
    r = run("cards", "show", "patient redwyrm", "--json")
    assert r.exit_code == 0
    d = json.loads(r.output)
    assert {"number", "name", "vp", "size", "capacity", "personality", "cost", "caves", "timing",
            "description"} <= set(d)
    assert d["number"] == 70 and d["timing"] == "once_per_round"
    assert set(d["cost"]) == {"meat", "gold", "crystal", "milk", "coin", "egg"}
    assert set(d["caves"]) <= {"crimson", "golden", "amethyst"}
    assert "each opponent may" in d["description"]


def test_show_cave_by_number_json():
    r = run("cards", "show", "cave 9", "--json")
    assert r.exit_code == 0
    c = json.loads(r.output)
    assert c["number"] == 9 and "description" in c and "Dragon Guild" in c["description"]


def test_show_number_and_kind_option():
    assert "Cave 12" in run("cards", "show", "12", "--kind", "cave").output
    assert "Savanna Dragonette" in run("cards", "show", "12").output


def test_show_2025_printing():
    r = run("cards", "show", "119", "--printing", "2025", "--json")
    assert "each=3, max=12" in json.loads(r.output)["abilities"]["end_game"]


@pytest.mark.parametrize("query,expect", [
    ("Wiley Lindworm", "did you mean 'Wily Lindworm'"),
    ("grazer", "matches 4 cards"),
    ("999", "no dragon number 999"),
    ("cave 80", "no cave number 80"),
    ("zzzzzz", "no card named 'zzzzzz'"),
    ("x", "no card named 'x' (3 letters or more)"),    # matched Miniature Rex
    ("g", "did you mean 'White-Bellied Grazer'"),
    ("D999", "no dragon number 999"),
])
def test_bad_lookup_is_one_line_exit_2(query, expect):
    r = run("cards", "show", query)
    assert r.exit_code == 2
    assert expect in r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_bad_option_exit_2():
    r = run("cards", "list", "--kind", "wyvern")
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_check_compiles_into_core():
    r = run("cards", "check")
    assert r.exit_code == 0 and "183 dragons, 75 caves" in r.output


def test_subprocess_entry_point():
    out = subprocess.run([sys.executable, "-m", "advisor.cli", "cards", "show", "Wily", "--json"],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, check=True)
    assert json.loads(out.stdout)["name"] == "Wily Lindworm"
    bad = subprocess.run([sys.executable, "-m", "advisor.cli", "cards", "show", "Wilyy Lindwrm"],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "did you mean" in bad.stderr


@pytest.mark.parametrize("printing", ["base", "2025"])
def test_list_shows_every_cards_abilities(printing):
    """`cards list` shows each card with what it does (dragons were listed without)."""
    from advisor.cards import describe_card, load_database
    db = load_database(printing)
    out = " ".join(run("cards", "list", "--printing", printing).output.split())
    for c in db.dragons:
        entry = re.split(r" [DC]\d+ ", out[out.index(f"D{c.number} "):])[0]
        assert entry.endswith(" ".join(describe_card(c).split())), c.name
    for c in db.caves:
        assert " ".join(describe_card(c).split()) in out


@pytest.mark.parametrize("printing", ["base", "2025"])
def test_show_prints_the_effect_language_only_under_program(printing):
    from advisor.cards import load_database
    db = load_database(printing)
    for c in [*db.dragons, *db.caves]:
        what = f"cave {c.number}" if c.kind == "cave" else f"D{c.number}"
        plain = run("cards", "show", what, "--printing", printing).output
        program = run("cards", "show", what, "--printing", printing, "--program").output
        texts = [" ".join(f"[{a.timing}] {a.text}".split()) for a in c.abilities]
        assert not any(t in " ".join(plain.split()) for t in texts) and "[" not in plain, plain
        assert all(t in " ".join(program.split()) for t in texts) and program.startswith(plain)
