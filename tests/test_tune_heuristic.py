"""bench/tune_heuristic.py's search mode: candidate heuristic weights played by the search on the
tournament's solo deals (NTBEA over them)."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.cli import main
from advisor.search import data as search_data

BENCH = Path(__file__).parent.parent / "bench" / "tune_heuristic.py"
BASE = "ismcts:iterations=30,time=0"


@pytest.fixture
def bench():
    spec = importlib.util.spec_from_file_location("tune_heuristic", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    search_data.install()           # play_with leaves its weights in the process


def _file_weights():
    return {f: list(v) for f, v in search_data.heuristic_weights().items()}


def test_the_files_weights_replay_the_tournaments_game(bench, tmp_path):
    out = tmp_path / "t.jsonl"
    r = CliRunner().invoke(main, ["tournament", "--agent", f"s={BASE}", "--players", "1", "--automa-level", "3",
                                  "--games", "2", "--seed", "7", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    played = {rec["deal"]: rec for rec in map(json.loads, out.read_text().splitlines())}
    other = _file_weights()
    other["coins"][0] += 1.0
    bench.play_with(other, BASE, "3", 7, 0)            # another set first: nothing of it may carry over
    for deal in (0, 1):
        rec = bench.play_with(_file_weights(), BASE, "3", 7, deal)
        assert (rec["actions"], rec["scores"]) == (played[deal]["actions"], played[deal]["scores"])


def test_other_weights_play_otherwise(bench):
    w = _file_weights()
    w["open_spaces"][0] = 3.0
    w["if_activated"][0] = -2.0
    assert bench.play_with(w, BASE, "3", 7, 0)["actions"] != bench.play_with(_file_weights(), BASE, "3", 7, 0)["actions"]


def test_weights_are_named_by_feature_or_feature_round(bench, capsys):
    assert bench.weight_slot("coins") == ("coins", 0)
    assert bench.weight_slot("end_game_now_round") == ("end_game_now", 1)
    for bad, message in ((lambda: bench.weight_slot("coin"), "unknown weight 'coin' (did you mean 'coins'?)"),
                         (lambda: bench.parse_space(["coins=0.3,0.3"]), "at least two different values")):
        with pytest.raises(SystemExit) as e:
            bad()
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and message in err
    with pytest.raises(SystemExit) as e:
        bench.tune_search(bench.argparse.Namespace(param=["coins=1,2"], base="ismcts:c=99", level="3", seed=1,
                                                   workers=1, out=None, batch=1))
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "--base 'ismcts:c=99'" in err
    w = bench.applied(_file_weights(), {"coins": 0.9, "end_game_now_round": 0.0})
    assert w["coins"][0] == 0.9 and w["end_game_now"][1] == 0.0 and w["hand_caves"] == _file_weights()["hand_caves"]


@pytest.mark.slow
def test_ntbea_over_weights_end_to_end_and_resumed(tmp_path):
    log = tmp_path / "evals.jsonl"
    args = [sys.executable, str(BENCH), "search", "--param", "coins=0.1,0.6", "--param", "if_activated=0.6,1.2,2",
            "--base", "ismcts:iterations=20,time=0", "--budget", "8", "--workers", "2", "--batch", "2",
            "--seed", "3", "--out", str(log)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "6 deals explored" in r.stdout and "on 2 fresh deals" in r.stdout
    evals = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["deal"] for e in evals] == [0, 1, 2, 3, 4, 5, 6, 7]     # 6 to explore, 2 to check
    assert [e["tag"] for e in evals] == ["n"] * 6 + ["v"] * 2
    assert all(set(e["values"]) == {"coins", "if_activated"} for e in evals)
    # killed while writing the check's second deal: a new run takes the rest and ends the same
    log.write_text("".join(line + "\n" for line in log.read_text().splitlines()[:7]) + '{"tag": "v", "de')
    again = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "7 deals already" in again.stdout and again.stdout.split("\n", 1)[1] == r.stdout
    assert [json.loads(line) for line in log.read_text().splitlines()][:7] == evals[:7]
    assert len(log.read_text().splitlines()) == 8
    other = subprocess.run([a if a != "3" else "4" for a in args], capture_output=True, text=True, timeout=600)
    assert other.returncode == 2 and other.stderr.count("\n") == 1 and "--seed 3, not this run's" in other.stderr
    # the untuned weights came from another heuristic.toml: refused, the file kept
    edited = log.read_text().replace(f'"file": "{evals[0]["file"]}"', '"file": "0123456789ab"', 1)
    log.write_text(edited)
    changed = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert changed.returncode == 2 and changed.stderr.count("\n") == 1
    assert "evals.jsonl:1: played with other untuned weights than heuristic.toml's now" in changed.stderr
    assert log.read_text() == edited
