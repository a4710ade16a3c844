"""Tournaments: the plan, determinism for any worker count and on a Dask cluster, JSONL resume after
a kill or Ctrl-C, the error path, the report's statistics on fixtures with known answers, the CLI."""
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.tournaments import plan as P
from advisor.tournaments import records as Rec
from advisor.tournaments import report as Rep
from advisor.tournaments import runners as R
from advisor.search.params import PLAY_VERSION
from advisor.search.agents import AGENTS, Agent, RandomAgent, make_agent, play_game
from advisor.cli import main
from helpers import results_before_play_version, results_of_play_version, results_with_settings

FAST = [("A", "ismcts:iterations=20"), ("G", "greedy"), ("R", "random")]


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def stripped(records):
    return {k: Rec.strip_timing(r) for k, r in records.items()}


def lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]


# ---------------------------------------------------------------------------------- plan
def test_plan_duplicate_deals_rotate_seats_and_never_reuse_a_seed():
    plan = P.plan_tournament(FAST[:2], 2, 40, seed=5)
    assert len(plan.games) == 40 and plan.deals == 20
    by_deal = {}
    for g in plan.games:
        by_deal.setdefault(g.deal, []).append(g)
    for gs in by_deal.values():
        assert len({g.seed for g in gs}) == 1                       # one seed per deal
        assert sorted(g.agents for g in gs) == [("A", "G"), ("G", "A")]   # every agent in every seat
    seeds = [gs[0].seed for gs in by_deal.values()]
    assert len(set(seeds)) == len(seeds)
    again = P.plan_tournament(FAST[:2], 2, 40, seed=5)
    assert [g.to_dict() for g in again.games] == [g.to_dict() for g in plan.games]
    other = P.plan_tournament(FAST[:2], 2, 40, seed=6)
    assert other.id != plan.id and not {g.seed for g in other.games} & set(seeds)
    assert P.plan_tournament(FAST[:2], 2, 41, seed=5).keys() >= plan.keys()   # more games extend the plan


def test_plan_lineups_for_fewer_more_and_solo():
    names = ["A", "B", "C"]
    four = P.plan_tournament([(n, "random") for n in names], 4, 12, seed=0)
    seats = {n: [0] * 4 for n in names}
    for g in four.games:
        for i, a in enumerate(g.agents):
            seats[a][i] += 1
    assert all(len(set(v)) == 1 for v in seats.values())            # each agent as often in each seat
    assert sum(seats["A"]) == sum(seats["B"]) == sum(seats["C"])    # extra seats shared out evenly
    two = P.plan_tournament([(n, "random") for n in names], 2, 6, seed=0)
    assert {frozenset(g.agents) for g in two.games} == {frozenset("AB"), frozenset("AC"), frozenset("BC")}
    assert P.rotations(("A", "B", "A", "B")) == [("A", "B", "A", "B"), ("B", "A", "B", "A")]
    solo = P.plan_tournament([(n, "random") for n in names], 1, 6, seed=0)
    assert [g.agents for g in solo.games[:3]] == [("A",), ("B",), ("C",)]
    assert len({g.seed for g in solo.games[:3]}) == 1              # every agent plays the same seed


def test_a_record_replays_with_play_game():
    plan = P.plan_tournament(FAST, 2, 2, seed=9)
    g = plan.games[0]
    rec = R.play_planned(g.to_dict())
    assert rec["error"] is None and rec["seats"][1]["seed"] == g.seed * 31 + 1
    game = play_game([make_agent(s) for s in g.specs], 2, g.seed)
    assert rec["scores"] == game.scores() and rec["winners"] == game.winners()
    assert [b["total"] for b in rec["breakdown"]] == rec["scores"]
    assert sum(rec["decisions"]) > 20


def test_solo_tournament_against_the_automa():
    plan = P.plan_tournament(FAST, 1, 6, seed=4, automa="r1")
    assert plan.automa == "R1" and plan.deals == 2
    assert plan.id != P.plan_tournament(FAST, 1, 6, seed=4, automa="2").id
    run = R.run_tournament(plan, workers=2)
    assert not run.errors and len(run.records) == 6
    for rec in run.records.values():
        assert len(rec["scores"]) == len(rec["seats"]) == 1
        assert rec["automa"]["level"] == "R1" and rec["automa"]["score"] == rec["automa"]["breakdown"]["total"]
        assert (0 in rec["winners"]) == (rec["winner_agents"][:1] == [rec["seats"][0]["agent"]])
        for objectives, part in ((rec["round_objectives"][0], rec["breakdown"][0]["objectives"]),
                                 (rec["automa"]["round_objectives"], rec["automa"]["breakdown"]["objectives"])):
            assert len(objectives["count"]) == len(objectives["vp"]) == 4 and sum(objectives["vp"]) == part
    rep = Rep.tournament_report(plan, run.records, bootstrap=20)
    for row in rep["breakdown"]:
        o = row["objectives"]
        assert o["rounds"] == 4 * row["seats"] == o["won"] + o["tied"] + o["lost"]
        assert o["lost"] >= o["lost_by_1"] + o["lost_by_2"]
    assert rep["automa"]["level"] == "R1" and rep["automa"]["mean_score"] > 0
    assert all(p["games"] == 2 and p["deals"] == 2 for p in rep["pairs"])   # compared on the same seeds
    assert stripped(run.records) == stripped(R.run_tournament(plan, workers=1).records)
    g = next(p for p in plan.games if p.agents == ("G",))
    two = R.play_planned(P.plan_tournament(FAST, 1, 3, seed=4).games[1].to_dict())   # level 2, as play_game
    assert two["scores"] == play_game([make_agent("greedy")], 1, g.seed).scores()[:1]


# ---------------------------------------------------------------------------------- determinism
@pytest.mark.slow
def test_same_results_for_any_worker_count():
    plan = P.plan_tournament(FAST, 3, 12, seed=3)
    one = R.run_tournament(plan, workers=1)
    two = R.run_tournament(plan, workers=2)
    three = R.run_tournament(plan, workers=3)
    assert len(one.records) == 12 and not one.errors
    assert stripped(one.records) == stripped(two.records) == stripped(three.records)
    def report(run):
        rep = Rep.tournament_report(plan, run.records)
        for a in rep["agents"]:
            del a["seconds_per_decision"]
        return rep
    assert report(one) == report(two)


@pytest.mark.slow
def test_dask_local_cluster_gives_the_local_results():
    distributed = pytest.importorskip("distributed")
    plan = P.plan_tournament(FAST, 2, 8, seed=4)
    local = R.run_tournament(plan, workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = R.run_tournament(plan, scheduler=cluster.scheduler_address)
    assert stripped(local.records) == stripped(remote.records)


def test_unreachable_scheduler_is_a_user_error():
    pytest.importorskip("distributed")
    with pytest.raises(R.ClusterError, match="cannot reach"):
        R.DaskRunner("tcp://127.0.0.1:9", timeout=0.5)


# ---------------------------------------------------------------------------------- resume
def _cli_cmd(out, games, workers=2, spec="ismcts:iterations=40"):
    return [sys.executable, "-m", "advisor.cli", "tournament", "--agent", f"S={spec}", "--agent", "G=greedy",
            "--games", str(games), "--seed", "7", "--workers", str(workers), "--out", str(out), "--no-progress"]


def _start_and_stop(cmd, out, sig, min_lines=4, timeout=60):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    t0 = time.time()
    while time.time() - t0 < timeout:
        if out.exists() and out.read_bytes().count(b"\n") >= min_lines:
            break
        if p.poll() is not None:
            pytest.fail(f"the run ended before it could be stopped: {p.communicate()}")
        time.sleep(0.01)
    if sig == signal.SIGKILL:
        os.killpg(p.pid, signal.SIGKILL)          # the parent and its workers, mid-run
    else:
        os.kill(p.pid, sig)
    _, err = p.communicate(timeout=30)
    return p.returncode, err.decode()


@pytest.mark.slow
def test_resume_after_a_kill_has_every_game_exactly_once(tmp_path):
    out = tmp_path / "r.jsonl"
    rc, _ = _start_and_stop(_cli_cmd(out, 80), out, signal.SIGKILL)
    assert rc == -signal.SIGKILL
    before = out.read_bytes().count(b"\n")
    assert 4 <= before < 80
    r = subprocess.run(_cli_cmd(out, 80) + ["--resume", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    recs = lines(out)
    keys = [x["key"] for x in recs]
    plan = P.plan_tournament([("S", "ismcts:iterations=40"), ("G", "greedy")], 2, 80, seed=7)
    assert sorted(keys) == sorted(plan.keys()) and len(keys) == len(set(keys)) == 80
    assert all(x["error"] is None for x in recs)
    assert json.loads(r.stdout)["games"] == 80 and json.loads(r.stdout)["resumed"] >= before - 1


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_ctrl_c_or_kill_stops_cleanly_with_whole_lines(tmp_path, sig):
    out = tmp_path / "r.jsonl"
    rc, err = _start_and_stop(_cli_cmd(out, 80), out, sig)
    assert rc == 130 and re.search(r"interrupted: \d+ of 80 games in .*--resume", err) and "Traceback" not in err, err
    data = out.read_bytes()
    assert data.endswith(b"\n")
    recs = lines(out)                                  # every line whole JSON
    assert len({x["key"] for x in recs}) == len(recs) < 80


def test_torn_last_line_is_dropped_and_a_missing_newline_kept(tmp_path):
    plan = P.plan_tournament(FAST[1:], 2, 6, seed=1)
    out = tmp_path / "r.jsonl"
    R.run_tournament(plan, out=out)
    full = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(full[:3]) + full[3][:25])           # a kill in the middle of a write
    run = R.run_tournament(plan, out=out, resume=True)
    assert run.resumed == 3 and run.played == 3
    assert sorted(x["key"] for x in lines(out)) == sorted(plan.keys())
    out.write_bytes(b"".join(full[:4]).rstrip(b"\n"))             # whole, without the last newline
    run = R.run_tournament(plan, out=out, resume=True)
    assert run.resumed == 4 and sorted(x["key"] for x in lines(out)) == sorted(plan.keys())


class SuicidalAgent(RandomAgent):
    """Kills its own process in its first game ever (a marker file remembers), then plays randomly."""
    name = "suicidal"

    def choose(self, game):
        marker = os.environ["TOURNAMENT_TEST_MARKER"]
        if self.decisions == 5 and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().choose(game)


@pytest.mark.skipif(__import__("multiprocessing").get_start_method() != "fork",
                    reason="the test agent reaches the workers only through fork")
def test_a_killed_worker_loses_no_game(tmp_path, monkeypatch):
    monkeypatch.setitem(AGENTS, "suicidal", SuicidalAgent)
    monkeypatch.setenv("TOURNAMENT_TEST_MARKER", str(tmp_path / "died"))
    plan = P.plan_tournament([("K", "suicidal"), ("G", "greedy")], 2, 12, seed=2)
    out = tmp_path / "r.jsonl"
    run = R.run_tournament(plan, out=out, workers=2)
    assert (tmp_path / "died").exists()
    assert not run.errors and sorted(x["key"] for x in lines(out)) == sorted(plan.keys())
    assert stripped(run.records) == stripped(R.run_tournament(plan, workers=1).records)


def test_a_pool_broken_between_waits_loses_no_game(monkeypatch):
    """A worker can die after one wait and before the next submit: the submit then raises, and the
    games in flight are replayed like those of a pool found broken while waiting."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    class BreaksOnce(ProcessPoolExecutor):
        calls = 0

        def submit(self, *args, **kwargs):
            BreaksOnce.calls += 1
            if BreaksOnce.calls == 8:
                raise BrokenProcessPool("a worker died")
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(R.LocalRunner, "_pool", lambda self, n: BreaksOnce(max_workers=n))
    plan = P.plan_tournament([("R", "random"), ("G", "greedy")], 2, 12, seed=3)
    run = R.run_tournament(plan, workers=2)
    assert BreaksOnce.calls > 8 and not run.errors
    assert stripped(run.records) == stripped(R.run_tournament(plan, workers=1).records)


# ---------------------------------------------------------------------------------- errors
class BoomAgent(Agent):
    """Raises on its 10th decision in games whose seed is odd (while BOOM is set)."""
    name = "boom"

    def choose(self, game):
        self.decisions += 1
        if os.environ.get("BOOM") and self.decisions == 10 and (self.seed // 31) % 2:
            raise ValueError("boom at decision 10")
        legal = game.legal_actions()
        return legal[0]


def test_a_game_that_raises_is_recorded_and_the_rest_go_on(tmp_path, monkeypatch):
    monkeypatch.setitem(AGENTS, "boom", BoomAgent)
    monkeypatch.setenv("BOOM", "1")
    out = tmp_path / "r.jsonl"
    args = ["tournament", "--agent", "X=boom", "--agent", "G=greedy", "--games", 12, "--workers", 1,
            "--out", out, "--seed", 1]
    r = run_cli(*args)
    assert r.exit_code == 1, r.output
    recs = lines(out)
    bad = [x for x in recs if x["error"]]
    good = [x for x in recs if not x["error"]]
    assert len(recs) == 12 and bad and good
    assert all(x["error"] == "ValueError: boom at decision 10" and x["seed"] % 2 and "Traceback" in x["traceback"]
               for x in bad)
    assert "raised an error" in r.stderr and "boom at decision 10" in r.stdout
    monkeypatch.delenv("BOOM")                                  # fixed: --resume plays just those again
    r = run_cli(*args, "--resume", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["errors"] == 0 and rep["games"] == 12 and rep["played"] == len(bad)


@pytest.mark.parametrize("args, message", [
    (["--agent", "A=ismcts:itrations=5"], "did you mean 'iterations'"),
    (["--agent", "A=gredy"], "did you mean 'greedy'"),
    (["--agent", "A=ismcts:c=99"], "expected 0.0..10.0"),
    (["--agent", "A=random", "--agent", "A=greedy"], "given twice"),
    (["--agent", "A=random:x=1"], "takes no settings"),
    (["--agent", "A=random", "--resume"], "--resume needs --out"),
    (["--agent", "A=random", "--agent", "B=greedy", "--reuse", "x.jsonl"], "--reuse takes solo games only"),
    (["--agent", "A=random", "--agent", "automa:2", "--reuse", "no-such.jsonl"], "no such results file"),
])
def test_bad_input_is_one_line_exit_2(args, message):
    r = run_cli("tournament", "--games", 2, *args)
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr


def test_unusable_results_files(tmp_path):
    base = ["tournament", "--agent", "greedy", "--agent", "random", "--games", 2, "--workers", 1, "--out"]
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"key": 1}\n')
    r = run_cli(*base, junk, "--resume")
    assert r.exit_code == 2 and "not a game record" in r.stderr
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\n")
    assert "not a JSON game record" in run_cli(*base, binary, "--resume").stderr
    out = tmp_path / "r.jsonl"
    assert run_cli(*base, out).exit_code == 0
    r = run_cli(*base, out)
    assert r.exit_code == 2 and "--resume" in r.stderr                  # never appended to by accident
    r = run_cli("tournament", "--agent", "greedy", "--games", 2, "--seed", 5, "--out", out, "--resume")
    assert r.exit_code == 2 and "another tournament" in r.stderr
    if os.geteuid() != 0:
        out.chmod(0)
        assert "cannot read" in run_cli(*base, out, "--resume").stderr


# ---------------------------------------------------------------------------------- CLI
@pytest.mark.slow
def test_cli_report_table_json_and_plot(tmp_path):
    args = ["tournament", "--agent", "A=ismcts:iterations=20", "--agent", "greedy", "--agent", "random",
            "--players", 3, "--games", 6, "--workers", 1, "--seed", 2]
    r = run_cli(*args)
    assert r.exit_code == 0, r.output
    assert "win rate" in r.stdout and "rating" in r.stdout and "A vs greedy" in r.stdout
    assert "where the points come from" in r.stdout and "margin over her" not in r.stdout
    r = run_cli(*args, "--json", "--bootstrap", 20)
    rep = json.loads(r.stdout)
    assert rep["games"] == 6 and rep["players"] == 3 and rep["rating"]["model"] == "plackett-luce"
    assert {a["name"] for a in rep["agents"]} == {"A", "greedy", "random"}
    assert all(len(a["win_rate_ci"]) == 2 for a in rep["agents"]) and len(rep["pairs"]) == 3
    assert [b["agent"] for b in rep["breakdown"]] == ["A", "greedy", "random"]
    assert all(b["seats"] == 6 and "automa_parts" not in b for b in rep["breakdown"])
    pytest.importorskip("matplotlib")
    png = tmp_path / "chart.png"
    r = run_cli(*args, "--plot", png, "--bootstrap", 20)
    assert r.exit_code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_command_quick():
    r = run_cli("bench", "--json", "--quick")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["clone_ns"] > 0 and out["random_games_per_s"]["2"] > 0 and out["decisions_per_s"] > 0
    assert out["ismcts_iterations_per_s"] > 0 and out["version"] and out["machine"]["cores"] >= 1
    assert out["random_games_per_s"]["1"] > 0 and out["ismcts_solo_iterations_per_s"] > 0


def test_automa_spec_makes_a_solo_tournament(tmp_path):
    out = tmp_path / "s.jsonl"
    r = run_cli("tournament", "--agent", "g=greedy", "--agent", "automa:3", "--games", 2, "--workers", 1,
                "--out", out, "--json")
    assert r.exit_code == 0, r.output
    recs = lines(out)
    assert len(recs) == 2 and all(x["players"] == 1 and x["automa"]["level"] == "3" for x in recs)
    bad = run_cli("tournament", "--agent", "g=greedy", "--agent", "automa:7", "--games", 2)
    assert bad.exit_code == 2 and "the Automa's level is one of" in bad.output


def test_reuse_takes_the_solo_games_of_another_run(tmp_path):
    """A new agent is compared on the same deals without replaying the old agent's games: they are
    taken from the earlier results (matched by deal seed and spec, not name) and equal a replay."""
    a_spec, b_spec = "ismcts:iterations=10", "greedy"
    first = tmp_path / "a.jsonl"
    R.run_tournament(P.plan_tournament([("old", a_spec)], 1, 3, seed=9, automa="3"), out=first, workers=1)
    plan = P.plan_tournament([("A", a_spec), ("B", b_spec)], 1, 4, seed=9, automa="3")
    out = tmp_path / "ab.jsonl"
    run = R.run_tournament(plan, out=out, workers=1, reuse=[first])
    assert (run.reused, run.played) == (2, 2)      # deals 0 and 1 of the first run; B's games played
    recs = {r["key"]: r for r in lines(out)}
    assert set(recs) == plan.keys()
    old = {r["seed"]: r for r in lines(first)}
    for r in recs.values():
        if r["seats"][0]["agent"] == "A":
            assert r["reused"]["file"] == str(first) and r["tournament"] == plan.id
            assert r["scores"] == old[r["seed"]]["scores"] and r["seats"][0]["spec"] == a_spec
            assert set(r["winner_agents"]) <= {"A", "automa"}
        else:
            assert "reused" not in r
    fresh = R.run_tournament(plan, workers=1)      # the same games played afresh
    assert stripped(fresh.records) == {k: Rec.strip_timing({x: y for x, y in r.items() if x != "reused"})
                                       for k, r in recs.items()}
    rep = Rep.tournament_report(plan, run.records, bootstrap=0)
    assert rep["pairs"][0]["deals"] == 2
    again = R.run_tournament(plan, out=out, resume=True, workers=1, reuse=[first])
    assert (again.reused, again.played, again.resumed) == (0, 0, 4)     # nothing twice
    # a game whose spec resolved to other settings (a default changed since) is not the same player
    stale = results_with_settings(first, tmp_path / "stale.jsonl", lambda st: {**st, "c": 0.7})
    assert Rec.reusable_games(plan, [stale]) == {}
    assert lines(first)[0]["seats"][0]["settings"]["c"] == 0.15      # solo default, recorded
    # a parameter added since (absent from the record) played as its default: still the same player
    older = results_with_settings(first, tmp_path / "older.jsonl", lambda st: {k: v for k, v in st.items() if k != "cut"})
    assert set(Rec.reusable_games(plan, [older])) == set(Rec.reusable_games(plan, [first])) != set()
    # games of another play version (the engine chose other moves then) are not today's player's
    assert lines(first)[0]["play"] == PLAY_VERSION
    assert Rec.reusable_games(plan, [results_before_play_version(first, tmp_path / "before.jsonl")]) == {}


def test_an_experimental_play_version_is_another_player(tmp_path):
    """A record's `play` may be an experimental build's string ("5 with coins (0.8, 0.0), ...", as
    in bench/results/): --reuse skips its games and --resume refuses them in one line, where both
    raised ValueError reading it as a number."""
    spec = "ismcts:iterations=10"
    first = tmp_path / "a.jsonl"
    R.run_tournament(P.plan_tournament([("A", spec)], 1, 2, seed=9, automa="3"), out=first, workers=1)
    version = f"{PLAY_VERSION} with coins (0.8, 0.0), end_game_now (1.4, -0.2), guild_markers (0.0, 0.0)"
    tried = results_of_play_version(first, tmp_path / "tried.jsonl", version)
    plan = P.plan_tournament([("A", spec), ("B", "greedy")], 1, 2, seed=9, automa="3")
    assert Rec.reusable_games(plan, [first]) and Rec.reusable_games(plan, [tried]) == {}
    args = ("tournament", "--agent", f"A={spec}", "--agent", "automa:3", "--games", 3, "--seed", 9, "--workers", 1)
    r = run_cli(*args, "--out", tried, "--resume")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    (error,) = r.stderr.splitlines()
    assert f"was played by play version {PLAY_VERSION} with coins (0.8, 0.0), end_game_now" in error
    r = run_cli("tournament", "--agent", f"A={spec}", "--agent", "B=greedy", "--agent", "automa:3", "--games", 2,
                "--seed", 9, "--workers", 1, "--reuse", tried, "--out", tmp_path / "ab.jsonl")
    assert r.exit_code == 0, r.output
    assert not any("reused" in x for x in lines(tmp_path / "ab.jsonl"))


def test_reuse_reads_a_gzip_results_file_and_resume_refuses_one(tmp_path):
    spec = "ismcts:iterations=10"
    first = tmp_path / "a.jsonl"
    R.run_tournament(P.plan_tournament([("old", spec)], 1, 2, seed=9, automa="3"), out=first, workers=1)
    packed = tmp_path / "a.jsonl.gz"
    packed.write_bytes(gzip.compress(first.read_bytes()))
    plan = P.plan_tournament([("A", spec)], 1, 2, seed=9, automa="3")
    assert Rec.reusable_games(plan, [packed]).keys() == Rec.reusable_games(plan, [first]).keys() == plan.keys()
    with pytest.raises(Rec.ResultsFileError, match="is compressed: it is never appended to"):
        R.run_tournament(plan, out=packed, resume=True, workers=1)
    hidden = tmp_path / "b.jsonl"                     # gzip under a plain name: refused too
    hidden.write_bytes(packed.read_bytes())
    with pytest.raises(Rec.ResultsFileError, match="compressed"):
        R.run_tournament(plan, out=hidden, resume=True, workers=1)


def test_a_results_file_in_use_is_refused_in_one_line(tmp_path):
    """Two runs appending to one results file would interleave their games: the second stops."""
    from filelock import FileLock

    out = tmp_path / "r.jsonl"
    args = ["tournament", "--agent", "greedy", "--agent", "random", "--games", 2, "--workers", 1, "--out", out]
    with FileLock(str(out) + ".lock"):
        r = run_cli(*args)
        assert r.exit_code == 2, r.output
        assert r.stderr.count("\n") == 1 and "is being written by another run" in r.stderr
        assert not out.exists()
    r = run_cli(*args)                                # free again
    assert r.exit_code == 0, r.output
    assert len(lines(out)) == 2


@pytest.mark.slow
def test_a_second_run_and_a_resume_on_a_file_being_written_are_refused(tmp_path):
    """Issue 46: two runs on one --out, and a --resume started meanwhile, would each play every game
    again. While the first run plays, both stop at once with exit 2; the first one's games are in
    the file exactly once."""
    out = tmp_path / "r.jsonl"
    slow = "ismcts:iterations=3000"                     # games of a few seconds each
    first = subprocess.Popen(_cli_cmd(out, 40, workers=1, spec=slow), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        t0 = time.time()
        while not Path(str(out) + ".lock").exists():      # it holds the lock: it plays
            assert first.poll() is None and time.time() - t0 < 60, first.communicate()
            time.sleep(0.01)
        for extra in ([], ["--resume"]):
            r = subprocess.run(_cli_cmd(out, 40, workers=1, spec=slow) + extra, capture_output=True, text=True, timeout=60)
            assert r.returncode == 2, (extra, r.stderr)
            assert r.stderr.count("\n") == 1 and "is being written by another run" in r.stderr, r.stderr
        assert first.poll() is None                    # the refusals came while it was still playing
    finally:
        os.kill(first.pid, signal.SIGINT)
        first.communicate(timeout=60)
    keys = [x["key"] for x in lines(out)] if out.exists() else []
    assert len(keys) == len(set(keys))


def test_resume_says_how_many_games_it_kept_and_will_play(tmp_path):
    out = tmp_path / "r.jsonl"
    args = ["tournament", "--agent", "greedy", "--agent", "random", "--workers", 1, "--out", out, "--no-progress"]
    assert run_cli(*args, "--games", 4).exit_code == 0
    r = run_cli(*args, "--games", 10, "--resume")
    assert r.exit_code == 0, r.output
    assert f"resuming {out}: 4 of 10 games kept, 6 to play" in " ".join(r.stderr.split())    # wrapped at 80
    r = run_cli(*args, "--games", 10, "--resume")
    assert f"resuming {out}: 10 of 10 games kept, 0 to play" in " ".join(r.stderr.split())
    assert "resuming" not in run_cli(*args, "--games", 10, "--resume", "--json").stderr


def test_resume_refuses_games_played_with_other_settings(tmp_path):
    """One command's games resumed after a default changed would mix two players in one file."""
    spec = "ismcts:iterations=10"
    first = tmp_path / "a.jsonl"
    plan = P.plan_tournament([("A", spec)], 1, 3, seed=9, automa="3")
    R.run_tournament(P.plan_tournament([("A", spec)], 1, 2, seed=9, automa="3"), out=first, workers=1)
    stale = results_with_settings(first, tmp_path / "stale.jsonl", lambda st: {**st, "c": 0.7})
    with pytest.raises(Rec.ResultsFileError, match=r"stale.jsonl: record 1 \(A\) played c=0.7, but "
                       r"ismcts:iterations=10 now plays c=0.15 \(a default changed\)"):
        R.run_tournament(plan, out=stale, resume=True, workers=1)
    assert len(lines(stale)) == 2                        # nothing written
    # a parameter added since (absent from the records) played as its default: resumes
    older = results_with_settings(first, tmp_path / "older.jsonl", lambda st: {k: v for k, v in st.items() if k != "cut"})
    run = R.run_tournament(plan, out=older, resume=True, workers=1)
    assert (run.resumed, run.played) == (2, 1)
    # records of an earlier play version (before the field: version 1) are another player too
    before = results_before_play_version(first, tmp_path / "before.jsonl")
    with pytest.raises(Rec.ResultsFileError, match=r"before.jsonl: record 1 was played by play version 1, "
                       rf"not {PLAY_VERSION}: use another --out"):
        R.run_tournament(plan, out=before, resume=True, workers=1)
    assert len(lines(before)) == 2


def test_seats_count_from_0_as_everywhere():
    """Issue 46: tournament seats counted from 1 while `play --seat`, P0/P1 and JSON count from 0."""
    r = run_cli("tournament", "--agent", "greedy", "--agent", "random", "--games", 2, "--workers", 1)
    assert r.exit_code == 0, r.output
    assert "win rate by seat: P0 " in r.output and ", P1 " in r.output


def test_plot_without_matplotlib_fails_before_the_games(tmp_path, monkeypatch):
    import sys

    import advisor.tournaments.runners as runners
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # as if not installed

    def played(*args, **kwargs):
        raise AssertionError("the games ran before --plot was checked")
    monkeypatch.setattr(runners, "run_tournament", played)
    r = CliRunner().invoke(main, ["tournament", "--agent", "random", "--agent", "greedy", "--games", "2",
                                  "--plot", str(tmp_path / "t.png")])
    assert r.exit_code == 2 and "--plot needs matplotlib" in r.output and "Traceback" not in r.output
