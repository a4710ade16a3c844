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
    # one number per meaning: the search's playout means apart, named so, from the forecast
    assert set(m) == {"move", "action", "visits", "playouts", "continuation", "expected", "forecast", "categories",
                      "against_best"}
    assert set(m["playouts"]) == {"win", "reward", "score", "score_se", "margin", "margin_se", "scores"}
    # forecasts exactly where the player count's default playouts are measured
    from advisor.search import forecast
    from advisor.search.params import defaults
    solo = path.name.startswith("solo")
    players = 1 if solo else len(m["playouts"]["scores"])
    measured = forecast.key(players, forecast.playout(defaults(solo=solo))) in forecast.tables()
    assert (m["forecast"] is not None) == measured
    assert out["basis"] == ("forecast" if measured else "playouts")
    assert out["limit"] == {"time": None, "iterations": 300}
    assert sum(m["categories"].values()) == pytest.approx(m["playouts"]["score"], abs=0.05)
    assert set(m["against_best"].values()) == {0.0}             # the best move against itself
    for other in out["moves"][1:]:
        assert sum(other["against_best"].values()) == pytest.approx(
            other["playouts"]["score"] - m["playouts"]["score"], abs=0.05)
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
    assert " ".join(r.output.splitlines()[-2:]) == ("ranked by visits (how often the search chose each move); win, "
                                                    "scores: greedy (cards lookahead) playouts' means, not forecasts")
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


# ---------------------------------------------------------------------------- what suggest's figures say
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from advisor.figures import signed  # noqa: E402


@given(st.floats(-1e6, 1e6), st.integers(0, 3))
def test_a_signed_figure_is_never_plus_or_minus_zero(x, digits):
    text = signed(x, digits)
    assert text.lstrip("+-") != f"{0:.{digits}f}" or text == f"{0:.{digits}f}"
    assert float(text) == pytest.approx(round(x, digits), abs=10 ** -digits)


@settings(max_examples=80)
@given(st.lists(st.floats(-6, 6), min_size=8, max_size=8))
def test_against_the_best_names_the_categories_that_differ_and_no_zero_sign(diffs):
    from advisor.search import reasons
    from advisor.search.analysis import MoveInfo
    keys = [keys[0] for keys in reasons.GROUPS.values()]
    best = MoveInfo(action=1, text="a", visits=9, mean_reward=0, win_rate=0, score=0, score_se=0, margin=0, margin_se=0,
                    parts={k: 10.0 for k in keys})
    m = MoveInfo(action=2, text="b", visits=3, mean_reward=0, win_rate=0, score=0, score_se=0, margin=0, margin_se=0,
                 parts={k: 10.0 + d for k, d in zip(keys, diffs, strict=True)})
    text = reasons.text(m, best)
    assert "+0.0" not in text and "-0.0" not in text and "every category" not in text
    named = [name for name, d in zip(reasons.GROUPS, diffs, strict=True) if abs(d) >= 0.5]
    if named:
        assert all(f"{name} " in text for name in named)
    else:
        assert text.endswith("no category differs by 0.5 VP or more")


@settings(max_examples=12, deadline=None)
@given(iterations=st.integers(50, 3000), example=st.sampled_from(EXAMPLES), workers=st.sampled_from([1, 2]))
def test_a_stated_budget_is_met_or_the_output_says_why_not(iterations, example, workers):
    r = run("suggest", example, "--iterations", iterations, "--workers", workers, "--top", 1)
    assert r.exit_code == 0, r.output
    ran = int(r.output.split(" iterations in ")[0].replace(",", ""))
    text = " ".join(r.output.split())
    if ran != iterations * workers:
        assert ran < iterations * workers
        assert (f"stopped before the {iterations * workers:,} iterations asked: the best move could no longer "
                "be overtaken") in text
    else:
        assert "stopped before" not in text


def test_tracks_suggest_json_names_no_deleted_file(tmp_path):
    """`suggest --json` in `advisor track` searches a scratch file gone once it answers: it names
    no file."""
    r = CliRunner().invoke(main, ["track", "--position", str(EXAMPLES[0]), "--save", str(tmp_path / "t.json")],
                           input="suggest --iterations 50 --top 1 --json\nquit\n")
    assert r.exit_code == 0, r.output
    text = r.output[r.output.index("\n{") + 1:]
    doc = json.loads(text[:text.index("\n}") + 2])
    assert doc["file"] is None and doc["moves"]
