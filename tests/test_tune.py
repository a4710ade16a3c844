"""Tuning: parameter ranges, successive halving and NTBEA finding the better of two clearly different
settings, the SPRT deciding both ways, determinism for any worker count, the CLI's errors."""
import json
import math

import pytest
from click.testing import CliRunner

from advisor.tournaments import tune as T
from advisor.cli import main

BASE = "ismcts"


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("text, expected", [
    ("c=0.2..1.0", ("c", [0.2, 0.4, 0.6, 0.8, 1.0])),
    ("c=0.5..1.5:3", ("c", [0.5, 1.0, 1.5])),
    ("iterations=10..20:3", ("iterations", [10, 15, 20])),
    ("iterations=1..3:5", ("iterations", [1, 2, 3])),          # integer steps, repeats dropped
    ("playout=random,weighted", ("playout", ["random", "weighted"])),
    ("expand=*", ("expand", ["random", "playout"])),
    ("pw_c = 0, 2", ("pw_c", [0.0, 2.0])),
])
def test_parse_range(text, expected):
    assert T.parse_range(text) == expected


@pytest.mark.parametrize("text, message", [
    ("c", "expected NAME=LO..HI"),
    ("cc=1..2", "did you mean 'c'"),
    ("c=2..1", "not below"),
    ("c=0..20", "expected 0.0..10.0"),
    ("c=0.1..1:1", "2..100"),
    ("c=0.1..1:x", "not a number"),
    ("c=0.7", "at least two"),
    ("c=0.7,0.7", "at least two"),
    ("playout=random,fast", "expected one of random, weighted"),
    ("playout=a..b", "list them"),
    ("c=*", "named choices"),
    ("workers=1,2", "cannot be tuned"),
])
def test_bad_ranges(text, message):
    with pytest.raises(T.TuneError, match=message):
        T.parse_range(text)


def test_candidate_specs_merge_base_settings():
    assert T.base_settings("ismcts:iterations=50,c=0.3") == {"iterations": "50", "c": "0.3"}
    assert T.candidate_spec({"iterations": "50", "c": "0.3"}, {"c": 1.2}) == "ismcts:c=1.2,iterations=50"
    with pytest.raises(T.TuneError, match="only ismcts"):
        T.base_settings("greedy")


@pytest.mark.slow
def test_successive_halving_finds_the_better_setting_for_any_worker_count():
    kw = dict(against="random", budget=24, base=BASE, seed=3)
    one = T.tune(["iterations=1,30"], workers=1, **kw)
    two = T.tune(["iterations=1,30"], workers=2, **kw)
    assert one["best"]["settings"] == {"iterations": 30}
    assert one["best"]["win_rate"] > 0.8 and one["best"]["win_rate_ci"][0] > 0.5
    assert one["games"] <= 24
    assert one == two


@pytest.mark.slow
def test_ntbea_finds_the_better_setting():
    res = T.tune(["iterations=1,30", "playout=random,weighted"], "random", 48, base=BASE, method="ntbea", seed=1)
    assert res["best"]["settings"]["iterations"] == 30
    assert res["validated"] and res["best"]["games"] >= 12 and res["games"] <= 48
    assert res["best"]["win_rate"] > 0.7


@pytest.mark.slow
def test_ntbea_batches_explore_as_many_deals_a_step_as_asked():
    """--batch 3: three settings a step, each on its own deal; the deals and the budget are the
    same as one at a time, and the result depends on the batch, never on the workers."""
    steps = []

    class Counting(T.Evaluator):
        def evaluate(self, jobs):
            steps.append([d for _, _, d in jobs])
            return super().evaluate(jobs)

    def run(batch, workers):
        steps.clear()
        ev = Counting("random", 2, 4, workers=workers)
        try:
            space = [T.parse_range(p) for p in ("iterations=1,30", "c=0.3,0.7,1.5")]
            return T.ntbea(space, T.base_settings(BASE), ev, 48, seed=4, batch=batch), list(steps)
        finally:
            ev.close()

    res, seen = run(3, 1)
    explore = [s for s in seen[:-1]]
    assert [len(s) for s in explore] == [3] * 6 and sum(explore, []) == list(range(18))
    assert seen[-1] == list(range(18, 24))              # the recommendation on 6 fresh deals
    assert run(3, 2)[0] == res
    assert [len(s) for s in run(1, 1)[1][:-1]] == [1] * 18


@pytest.mark.slow
def test_sprt_decides_both_ways():
    better = T.sprt("ismcts:iterations=1", "ismcts:iterations=30", 200, seed=2)
    assert better["decision"] == "H1" and better["games"] < 200 and better["b_score"] > 0.7
    assert better["llr"] >= better["bounds"][1]
    # the same agent on both sides of duplicate deals scores exactly 1/2: H0 at the earliest chance
    same = T.sprt("greedy", "greedy", 200, seed=2)
    assert same["decision"] == "H0" and same["deals"] == 8 and same["b_score"] == 0.5
    short = T.sprt("random", "greedy", 16, seed=2, elo0=0, elo1=5)
    assert short["decision"] in ("H1", "inconclusive") and short["games"] <= 16


@pytest.mark.slow
def test_sprt_is_the_same_for_any_worker_count():
    a, b = "ismcts:iterations=5", "ismcts:iterations=15"
    assert T.sprt(a, b, 60, seed=5, workers=1) == T.sprt(a, b, 60, seed=5, workers=2)


def test_sprt_llr_formula():
    xs = [1.0, 0.5, 0.75, 1.0, 0.25, 0.75]
    m = sum(xs) / 6
    v = sum((x - m) ** 2 for x in xs) / 6
    s0, s1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert T.sprt_llr(xs, 0, 20) == pytest.approx(6 * (s1 - s0) * (2 * m - s0 - s1) / (2 * v))
    assert T.elo_to_score(0) == 0.5 and T.score_to_elo(T.elo_to_score(150)) == pytest.approx(150)
    assert T.score_to_elo(1.0) == math.inf


@pytest.mark.slow
def test_cli_tune_json_and_text():
    r = run_cli("tune", "--param", "iterations=1,30", "--base", BASE, "--against", "random", "--budget", 24,
                "--workers", 1, "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["best"]["settings"] == {"iterations": 30} and res["method"] == "halving"
    r = run_cli("tune", "--param", "iterations=1,30", "--base", BASE, "--against", "random", "--budget", 24,
                "--workers", 1)
    assert r.exit_code == 0 and "best settings: iterations=30" in r.stdout and "win rate against random" in r.stdout
    r = run_cli("tune", "--sprt", "greedy", "greedy", "--budget", 40, "--workers", 1)
    assert r.exit_code == 0 and "not stronger" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--param", "c=2..1", "--against", "random"], "not below"),
    (["--param", "c=0.5,1", "--against", "randm"], "did you mean 'random'"),
    (["--param", "c=0.5,1"], "--against"),
    (["--param", "c=0.5,1", "--against", "random", "--players", "1"], "the Automa"),
    (["--against", "random"], "nothing to tune"),
    (["--param", "c=0.5,1", "--param", "c=1,2", "--against", "random"], "twice"),
    (["--param", "c=0.5,1", "--against", "random", "--base", "ismcts:c=99"], "expected 0.0..10.0"),
    (["--sprt", "greedy", "gredy"], "did you mean 'greedy'"),
    (["--sprt", "greedy", "random", "--param", "c=1,2"], "takes no --param"),
    (["--sprt", "greedy", "random", "--by", "margin"], "--by"),
    (["--param", "c=0.5,1", "--against", "random", "--by", "score"], "'score' is not one of 'wins', 'margin'"),
    (["--sprt", "greedy", "random", "--elo0", "10", "--elo1", "5"], "must be above"),
    (["--sprt", "greedy", "random", "--batch", "2"], "--batch"),
    (["--param", "c=0.5,1", "--against", "random", "--batch", "2"], "--batch is NTBEA's"),
])
def test_cli_tune_errors_are_one_line(args, message):
    r = run_cli("tune", "--budget", 40, "--workers", 1, *args)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and message in r.stderr


@pytest.mark.slow
def test_solo_tuning_and_sprt_against_the_automa():
    res = T.tune(["iterations=1,30"], None, 12, base=BASE, players=1, seed=1, automa="1")
    assert res["best"]["settings"] == {"iterations": 30} and "Automa" in res["against"]
    same = T.sprt("greedy", "greedy", 40, players=1, seed=1)
    assert same["decision"] == "H0" and same["b_score"] == 0.5


@pytest.mark.slow
def test_solo_tuning_judges_by_margin_where_win_rates_saturate():
    """Against level 1 both candidates win nearly every game: the margin in VP still tells them
    apart. The objective is the default in solo, can be asked for anywhere, and orders the table."""
    res = T.tune(["iterations=1,30"], None, 16, base=BASE, players=1, seed=2, automa="1")
    assert res["by"] == "margin" and res["best"]["settings"] == {"iterations": 30}
    margins = [row["mean_margin"] for row in res["table"]]
    assert margins == sorted(margins, reverse=True) and margins[0] > margins[1] + 5
    lo, hi = res["best"]["mean_margin_ci"]
    assert lo < res["best"]["mean_margin"] < hi
    assert T.tune(["iterations=1,30"], None, 16, base=BASE, players=1, seed=2, automa="1", by="wins")["by"] == "wins"
    nt = T.tune(["iterations=1,30"], "random", 32, base=BASE, seed=1, method="ntbea", by="margin")
    assert nt["by"] == "margin" and nt["best"]["settings"] == {"iterations": 30} and nt["best"]["mean_margin"] > 0
    with pytest.raises(T.TuneError, match="unknown objective"):
        T.tune(["iterations=1,30"], "random", 16, base=BASE, by="score")
    r = run_cli("tune", "--param", "iterations=1,30", "--base", BASE, "--players", 1, "--automa-level", 1,
                "--budget", 16, "--workers", 1, "--seed", 2)
    assert r.exit_code == 0 and "(by margin)" in r.stdout and " VP [" in r.stdout


@pytest.mark.slow
def test_against_the_automa_spec_tunes_solo_games():
    args = ["tune", "--param", "iterations=1,30", "--base", BASE, "--budget", 12, "--workers", 1, "--seed", 1, "--json"]
    spec = run_cli(*args, "--against", "automa:1")
    assert spec.exit_code == 0, spec.output
    assert json.loads(spec.stdout) == json.loads(run_cli(*args, "--players", 1, "--automa-level", 1).stdout)
    r = run_cli("tune", "--sprt", "greedy", "automa:2", "--budget", 40, "--workers", 1)
    assert r.exit_code == 2 and "the Automa plays no seat" in r.stderr and r.stderr.count("\n") == 1


def test_budget_too_small():
    r = run_cli("tune", "--param", "c=0.5,1", "--against", "random", "--budget", 3, "--workers", 1)
    assert r.exit_code == 2 and "too small" in r.stderr


@pytest.mark.slow
def test_tune_shows_a_progress_bar_on_a_terminal():
    """Issue 46: `tune` was silent until a round ended. On a terminal (stderr a tty) a bar of the
    games counts up; off a terminal there is none unless asked (--progress)."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios
    args = ["tune", "--param", "iterations=1,5", "--base", BASE, "--against", "random", "--budget", 8,
            "--workers", 1]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))     # an 80-column terminal
    p = subprocess.Popen([sys.executable, "-m", "advisor.cli", *map(str, args)], stdout=subprocess.PIPE,
                         stderr=slave)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:                                 # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0 and b"best settings" in out
    assert b"games:" in err and b"8/8" in err, err
    r = run_cli(*args)                                  # CliRunner: not a terminal
    assert r.exit_code == 0 and "games:" not in r.stderr
    r = run_cli(*args, "--progress")
    assert r.exit_code == 0 and "8/8" in r.stderr
