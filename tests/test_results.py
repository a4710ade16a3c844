"""`advisor report`: results files read back, tournaments compared deal by deal, the breakdown of the
points, and one-line errors for files it cannot use."""
import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.cli import main
from advisor.tournaments.records import SCORE_PARTS
from advisor.tournaments.report import read_results, results_report
from helpers import results_with_settings


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def solo_run(tmp_path, name, *agents, seed=3, deals=4, level="3"):
    out = tmp_path / f"{name}.jsonl"
    args = ["tournament", "--players", 1, "--automa-level", level, "--games", deals * len(agents), "--seed", seed,
            "--workers", 1, "--out", out]
    for a in agents:
        args += ["--agent", a]
    r = run_cli(*args, "--json", "--bootstrap", 0)
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout)


def records(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]


def test_one_file_reports_as_its_tournament_did_plus_the_breakdown(tmp_path):
    out, tour = solo_run(tmp_path, "t", "G=greedy", "R=random")
    r = run_cli("report", out, "--json", "--bootstrap", 0)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["games"] == tour["games"] == 8 and rep["deals"] == 4 and rep["automa"] == tour["automa"]
    assert rep["agents"] == tour["agents"] and rep["pairs"] == tour["pairs"]
    recs = records(out)
    for row in rep["breakdown"]:
        mine = [x for x in recs if x["seats"][0]["agent"] == row["agent"]]
        assert row["seats"] == len(mine) == 4
        assert row["parts"]["total"] == pytest.approx(sum(x["scores"][0] for x in mine) / 4)
        assert sum(row["parts"][p] for p in SCORE_PARTS) == pytest.approx(row["parts"]["total"])
        assert row["automa_parts"]["total"] == pytest.approx(sum(x["automa"]["score"] for x in mine) / 4)
        assert row["margin"] == pytest.approx(row["parts"]["total"] - row["automa_parts"]["total"])
    text = run_cli("report", out).stdout
    assert "where the points come from" in text and "G: margin over her" in text and "G vs R" in text
    assert "G: round objectives against her, of 16: won" in text
    assert tour["breakdown"] == rep["breakdown"]          # the tournament's own report has it too


@pytest.mark.parametrize("players,agents", [(2, ["S=ismcts:iterations=10", "G=greedy"]),
                                             (3, ["S=ismcts:iterations=10", "G=greedy", "R=random"])])
def test_a_multiplayer_file_reports_as_its_tournament_did(tmp_path, players, agents):
    """Issue 46: a duplicate deal seats its agents in every order; `report` took each seating for a
    tournament of its own (agents 1:S 1:G 2:G 2:S, half the games each). The same figures as the
    tournament's own report, intervals included (the bootstrap resamples the same deals)."""
    out = tmp_path / "t.jsonl"
    args = ["tournament", "--players", players, "--games", 6 * players, "--seed", 4, "--workers", 2, "--out", out,
            "--bootstrap", 50, "--json"]
    for a in agents:
        args += ["--agent", a]
    r = run_cli(*args)
    assert r.exit_code == 0, r.output
    tour = json.loads(r.stdout)
    rep = json.loads(run_cli("report", out, "--json", "--bootstrap", 50).stdout)
    assert len(rep["tournaments"]) == 1 and [a["name"] for a in rep["agents"]] == [a[0] for a in agents]
    for k in ("agents", "pairs", "rating", "seat_win_rates", "breakdown", "games", "deals"):
        assert rep[k] == tour[k], k


def test_a_gzip_results_file_reports_as_the_plain_one(tmp_path):
    """Kept results files are compressed (.jsonl.gz): `advisor report` reads them as they are."""
    out, _ = solo_run(tmp_path, "t", "G=greedy", "R=random")
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(out.read_bytes()))
    plain = json.loads(run_cli("report", out, "--json", "--bootstrap", 20).stdout)
    r = run_cli("report", packed, "--json", "--bootstrap", 20)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep.pop("files") == [str(packed)] and plain.pop("files") == [str(out)]
    assert rep == plain
    assert read_results([packed]).agents == [("G", "greedy"), ("R", "random")]
    torn = tmp_path / "torn.jsonl.gz"
    torn.write_bytes(packed.read_bytes()[:-12])
    r = run_cli("report", torn)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "not a whole gzip file" in r.stderr


def test_one_command_played_with_other_settings_reports_as_two_players(tmp_path):
    """The same command run before and after a default changed: two players, compared deal by deal;
    records lacking a parameter added since stay the same player."""
    a, _ = solo_run(tmp_path, "before", "A=ismcts:iterations=10")
    b = results_with_settings(a, tmp_path / "after.jsonl", lambda st: {**st, "c": 0.5})
    rep = results_report(read_results([a, b]), bootstrap=0)
    assert [x["name"] for x in rep["agents"]] == ["before:A", "after:A"] and len(rep["tournaments"]) == 2
    assert rep["pairs"][0]["deals"] == 4
    c = results_with_settings(a, tmp_path / "older.jsonl", lambda st: {k: v for k, v in st.items() if k != "cut"})
    rep = results_report(read_results([a, c]), bootstrap=0)
    assert [x["name"] for x in rep["agents"]] == ["A"] and rep["games"] == 4


def test_two_runs_of_one_command_compare_deal_by_deal(tmp_path):
    a, _ = solo_run(tmp_path, "old", "A=random")
    b, _ = solo_run(tmp_path, "new", "A=greedy")
    rep = results_report(read_results([a, b]), bootstrap=0)
    assert [x["name"] for x in rep["agents"]] == ["old:A", "new:A"]
    (pair,) = rep["pairs"]
    old = {x["seed"]: x["scores"][0] for x in records(a)}
    new = {x["seed"]: x["scores"][0] for x in records(b)}
    assert old.keys() == new.keys() and pair["deals"] == 4
    assert pair["margin"] == pytest.approx(sum(old[s] - new[s] for s in old) / 4)
    # another seed: the same deal indices hold other cards, so nothing pairs
    c, _ = solo_run(tmp_path, "other", "A=greedy", seed=4)
    rep = results_report(read_results([a, c]), bootstrap=0)
    assert rep["deals"] == 8 and rep["pairs"][0]["games"] == 0


def test_a_tournament_split_over_files_counts_once_and_replays_replace_errors(tmp_path):
    out, _ = solo_run(tmp_path, "t", "G=greedy", "R=random")
    lines = out.read_text().splitlines()
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    ok = json.loads(lines[5])
    failed = {k: ok[k] for k in ("v", "tournament", "key", "deal", "game", "players", "printing", "seed", "seats",
                                 "automa")}
    failed.update(error="RuntimeError: boom", traceback=None, seconds=0.1, worker="w")     # as error_record
    failed["automa"] = {"level": ok["automa"]["level"]}
    first.write_text("\n".join(lines[:5] + [json.dumps(failed)]) + "\n")
    second.write_text("\n".join(lines[5:] + lines[:2]) + "\n")        # a game recorded twice
    whole = results_report(read_results([out]), bootstrap=0)
    split = results_report(read_results([first, second]), bootstrap=0)
    assert split["errors"] == 0 and len(split["tournaments"]) == 1
    assert split["agents"] == whole["agents"] and split["breakdown"] == whole["breakdown"]
    assert results_report(read_results([first]), bootstrap=0)["errors"] == 1


@pytest.mark.parametrize("name, text, message", [
    ("missing.jsonl", None, "missing.jsonl: no such results file"),
    ("", None, "a directory, not a results file"),
    ("empty.jsonl", "", "empty.jsonl: no game records"),
    ("bad.jsonl", "{oops\n", "bad.jsonl:1: not a JSON game record"),
    ("other.jsonl", '{"v": 1, "tournament": "x", "key": "d0.g0", "seats": []}\n', "other.jsonl: record 1 has no 'deal'"),
])
def test_unusable_files_are_one_line_exit_2(tmp_path, name, text, message):
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    r = run_cli("report", path)
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr


def test_games_of_different_kinds_are_refused(tmp_path):
    three, _ = solo_run(tmp_path, "three", "G=greedy", deals=1)
    two, _ = solo_run(tmp_path, "two", "G=greedy", deals=1, level="2")
    r = run_cli("report", three, two)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert "solo games at level 2" in r.stderr and "a report compares games of one kind" in r.stderr
    r = run_cli("report")
    assert r.exit_code == 2 and "no results file given" in r.stderr


def test_reports_fit_80_columns_and_cut_no_name(tmp_path):
    """Issue 46: the report's tables ran to 130 columns. Every line fits 80; a name too long for its
    column gets a line of its own, a long spec breaks after a comma; nothing is cut."""
    long_name = "a_rather_long_agent_name"
    spec = "ismcts:iterations=10,c=0.5,playout=random,expand=playout"
    out, _ = solo_run(tmp_path, "t", f"{long_name}={spec}", "G=greedy", deals=2)
    args = ["tournament", "--players", 1, "--automa-level", 3, "--games", 4, "--seed", 3, "--workers", 1,
            "--agent", f"{long_name}={spec}", "--agent", "G=greedy"]
    for text in (run_cli("report", out).stdout, run_cli(*args).stdout):
        lines = text.splitlines()
        assert max(map(len, lines)) <= 80, max(lines, key=len)
        assert long_name in lines                                       # whole, on a line of its own
        assert "".join(x.strip() for x in text.split("spec", 1)[1].splitlines()[:4]).count(spec) == 1
        assert "where the points come from" in text
    r = run_cli("tune", "--param", "c=0.3,0.9", "--base", "ismcts:iterations=5,playout=random,expand=playout",
                "--against", "greedy", "--budget", 8, "--workers", 1)
    assert r.exit_code == 0 and max(map(len, r.stdout.splitlines())) <= 80, r.stdout


def test_a_removed_setting_matches_where_its_value_is_how_play_stayed():
    from advisor.tournaments.records import settings_changed
    now = {"c": 0.7, "playout": "weighted"}
    assert settings_changed({"c": 0.7, "playout": "weighted", "observers": "single"}, now) == []
    assert settings_changed({"c": 0.7, "playout": "weighted", "observers": "multiple"}, now) == ["observers"]
    assert settings_changed({"c": 0.5, "playout": "weighted"}, now) == ["c"]
