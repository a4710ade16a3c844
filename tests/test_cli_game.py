"""The advisor commands end to end: click's runner and a real subprocess on the shipped examples."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.cli import main

EXAMPLES = sorted(Path(__file__).parent.parent.glob("examples/*.toml"))


def run(*args):
    return CliRunner().invoke(main, list(map(str, args)))


def test_examples_exist():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_suggest_json_on_every_example(path):
    r = run("suggest", path, "--iterations", 300, "--json", "--top", 3)
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)                      # only JSON on stdout
    assert out["iterations"] == 300 and 1 <= len(out["moves"]) <= 3
    m = out["moves"][0]
    assert set(m) == {"move", "action", "visits", "win_rate", "mean_reward", "score", "score_se",
                      "margin", "margin_se", "seat_scores", "continuation", "expected", "forecast", "categories",
                      "against_best"}
    # forecasts exactly where the player count's default playouts are measured
    from advisor.search import forecast
    from advisor.search.params import defaults
    solo = path.name.startswith("solo")
    players = 1 if solo else len(m["seat_scores"])
    measured = forecast.key(players, forecast.playout(defaults(solo=solo))) in forecast.tables()
    assert (m["forecast"] is not None) == measured
    assert sum(m["categories"].values()) == pytest.approx(m["score"], abs=0.05)
    assert set(m["against_best"].values()) == {0.0}             # the best move against itself
    for other in out["moves"][1:]:
        assert sum(other["against_best"].values()) == pytest.approx(other["score"] - m["score"], abs=0.05)
    assert m["visits"] == max(x["visits"] for x in out["moves"])
    legal = json.loads(run("legal", path, "--json").output)
    assert m["move"] in [x["move"] for x in legal]


def test_suggest_is_deterministic_for_a_seed():
    a = run("suggest", EXAMPLES[0], "--iterations", 400, "--seed", 3, "--json").output
    b = run("suggest", EXAMPLES[0], "--iterations", 400, "--seed", 3, "--json").output
    strip = (lambda s: {k: v for k, v in json.loads(s).items() if k != "seconds"})
    assert strip(a) == strip(b)


def test_suggest_text_table():
    r = run("suggest", EXAMPLES[0], "--iterations", 200)
    assert r.exit_code == 0
    assert "iterations" in r.output and "visits" in r.output and " 1 " in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80
    # the statistics say what they are: playout outcomes, not a forecast (a note wrapped at 80 columns)
    r = run("suggest", EXAMPLES[0], "--iterations", 50, "--set", "playout=greedy", "--set", "lookahead=cards")
    assert r.output.splitlines()[-1] == "win, scores: greedy (cards lookahead) playouts' means: a ranking, not forecasts"
    # every candidate but the best says where its points differ from the best move's
    r = run("suggest", EXAMPLES[0], "--iterations", 2000, "--top", 3)
    assert r.output.count("VP against the best") == 2


def test_suggest_settings_and_bad_settings():
    r = run("suggest", EXAMPLES[0], "--iterations", 100, "--set", "c=1.5", "--set", "playout=random")
    assert r.exit_code == 0, r.output
    r = run("suggest", EXAMPLES[0], "--iterations", 100, "--set", "playot=random")
    assert r.exit_code == 2 and "did you mean 'playout'" in r.output and "Traceback" not in r.output


def test_legal_and_show():
    r = run("legal", EXAMPLES[0])
    assert r.exit_code == 0 and "pass" in r.output
    r = run("show", EXAMPLES[0])
    assert r.exit_code == 0 and "(you)" in r.output and "Display" in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80


def test_new_writes_a_loadable_position(tmp_path):
    out = tmp_path / "p.toml"
    r = run("new", "--players", 3, "--seed", 5, "--after-turns", 6, "-o", out)
    assert r.exit_code == 0, r.output
    assert run("legal", out).exit_code == 0
    again = run("new", "--players", 3, "-o", out)                 # never overwrites
    assert again.exit_code == 2 and "exists" in again.output


def test_bad_position_files(tmp_path):
    missing = run("suggest", tmp_path / "nope.toml")
    assert missing.exit_code == 2 and missing.output.startswith("error:") and "Traceback" not in missing.output
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLES[0].read_text().replace("=", "= [", 1))
    r = run("show", bad)
    assert r.exit_code == 2 and all(line.startswith("error:") for line in r.output.splitlines())


def test_subprocess_suggest_json():
    p = subprocess.run([sys.executable, "-m", "advisor.cli", "suggest", str(EXAMPLES[0]),
                        "--iterations", "200", "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["moves"]


# ---------------------------------------------------------------------------------- names and layout
def test_show_suggest_and_legal_use_the_players_names_from_the_file():
    """Issue 46: Alice and Bob of the position file became P0 and P1."""
    early = EXAMPLES[0].parent / "early-2p.toml"
    shown = run("show", early).output
    assert "start player Alice, Bob (you) to play" in shown and "\nAlice: " in shown and "\nBob (you): " in shown
    assert "P0" not in shown and "P1" not in shown
    r = run("suggest", early, "--iterations", 50)
    assert "; Bob to play (move)" in r.output.splitlines()[0] and "P1" not in r.output
    assert json.loads(run("suggest", early, "--iterations", 50, "--json").output)["name"] == "Bob"
    assert run("legal", early).output.splitlines()[0].startswith("Bob to play (move): ")
    solo = EXAMPLES[0].parent / "solo-l2.toml"
    assert "Automa (level 2)" in run("show", solo).output


def test_suggest_fits_80_columns_and_cuts_no_move(tmp_path):
    """Issue 46: continuation lines ran to 500 columns and long moves were cut at 44 characters."""
    five = tmp_path / "five.toml"
    assert run("new", "--players", 5, "--seed", 3, "--after-turns", 7, "-o", five).exit_code == 0
    r = run("suggest", five, "--iterations", 400, "--top", 10, "--seed", 2, "--json")
    moves = json.loads(r.output)["moves"]
    text = run("suggest", five, "--iterations", 400, "--top", 10, "--seed", 2).output
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    column = 80 - 3 - 7 - 7 * 5 - 8             # the move column beside the win chance, 5 scores and visits
    long = [m["move"] for m in moves if len(m["move"]) > column]
    assert long, "the example has a move longer than the column"
    for m in long:
        assert any(line[3:] == m for line in lines)           # whole, on a line of its own
    joined = " ".join(line.strip() for line in lines)
    for m in moves:
        if m["continuation"]:
            assert "then: " + "; ".join(m["continuation"]) in joined


def test_params_has_a_header_and_fits_80_columns():
    r = run("params")
    lines = r.output.splitlines()
    assert lines[0].split() == ["name", "default", "range"]
    assert max(map(len, lines)) <= 80
    assert any(line.startswith("c ") for line in lines)


def _documented(command: str) -> dict:
    """The JSON example of `command` in docs/cli-json.md, its // comments taken out."""
    import re
    text = (Path(__file__).parent.parent / "docs" / "cli-json.md").read_text()
    block = text.split(f"## `advisor {command}")[1].split("```json")[1].split("```")[0]
    return json.loads(re.sub(r"//[^\n]*", "", block))


def _same_keys(doc, real, where=""):
    if isinstance(doc, dict):
        assert set(doc) == set(real), where
        for k in doc:
            if isinstance(doc[k], (dict, list)) and real[k]:
                _same_keys(doc[k], real[k], f"{where}.{k}")
    elif isinstance(doc, list) and doc:
        _same_keys(doc[0], real[0], f"{where}[0]")


def test_suggest_json_is_what_docs_cli_json_says():
    solo = EXAMPLES[0].parent / "solo-l2.toml"
    out = json.loads(run("suggest", solo, "--iterations", 3000, "--json").output)
    assert out["moves"][0]["forecast"]
    _same_keys(_documented("suggest FILE --json"), out)
    expected = [e for m in out["moves"] for e in m["expected"]]
    assert expected and all(set(e) == {"seat", "move"} for e in expected)
