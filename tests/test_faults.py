"""`review`, `report` and the worker processes under bad input and faults (issue 66): a review's
--out file cut or edited, edited tournament records, special files, --plot names, a 5,000-digit
number, a megabyte of input in an error line, a kill -9 of a command with --workers 2, a kill
during a save. Generated inputs (hypothesis): every one gets a result or one error line naming
the file and line, never a traceback."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from advisor._core import greedy_action
from advisor.cli import main
from advisor.cli.options import ERROR_WIDTH
from advisor.files import FileError, check_png
from advisor.play.saves import save_session
from advisor.play.session import Session
from advisor.play.setup import make_setup
from advisor.review import ReviewError, Verdict, load_played
from advisor.review.judge import decisions
from advisor.review.store import ResultsFile
from advisor.tournaments.records import ResultsFileError, load_results
from advisor.tournaments.report import read_results, results_report

EXAMPLES = Path(__file__).parent.parent / "examples"
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
LIMIT = {"time": None, "iterations": 10, "workers": 1}
# any JSON value, nested a little
JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8)


def cli(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def one_error_line(text: str, starts: str = "error: ") -> str:
    lines = [x for x in text.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith(starts) and "Traceback" not in text, text[-2000:]
    return lines[0]


def finished_save(path: Path, seed: int = 4) -> Path:
    """A finished 2-player game saved by `advisor play` (greedy moves on both sides: milliseconds)."""
    s = Session(make_setup(players=2, seat=0, opponents=["greedy"], seed=seed))
    n = 0
    while not s.game.is_terminal():
        s.apply(greedy_action(s.game, n))
        n += 1
    save_session(s, str(path))
    return path


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return finished_save(tmp_path_factory.mktemp("faults") / "game.toml")


# ---------------------------------------------------------------------------------- numbers and huge input
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(digits=st.tuples(st.integers(1, 6000), st.text("0123456789", min_size=1, max_size=8)).map(
    lambda t: (t[1] * t[0])[:t[0]]), kind=st.sampled_from(["", "dragon ", "cave ", "d"]))
def test_a_card_number_of_any_length_is_a_card_or_one_short_line(digits, kind):
    r = cli("cards", "show", kind + digits)
    if r.exit_code != 0:
        assert r.exit_code == 2 and len(one_error_line(r.stderr)) < 120


@settings(max_examples=10, deadline=None)
@given(word=st.sampled_from(["show", "review --seat", "review --game", "suggest --set", "seed"]),
       text=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).map(lambda t: t * 5000))
def test_an_error_never_echoes_a_huge_input(game, word, text):
    args = {"show": ("cards", "show", text), "review --seat": ("review", game, "--seat", text),
            "review --game": ("review", game, "--game", text),
            "suggest --set": ("suggest", EXAMPLES / "early-2p.toml", "--set", text),
            "seed": ("review", game, "--seed", text)}[word]
    r = cli(*args)
    if r.exit_code != 0:
        assert r.exit_code == 2 and len(one_error_line(r.stderr)) <= len("error: ") + ERROR_WIDTH


@pytest.fixture(scope="module")
def quiet_play() -> str:
    """What `play` prints when the first thing typed is quit."""
    return cli("play", "--seed", 1, "--opponent", "random", input="quit\n").stdout


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.large_base_example, HealthCheck.too_slow])
@given(line=st.one_of(st.text("0123456789", min_size=4300, max_size=6000),
                      st.text("0123456789", min_size=4300, max_size=6000).map("card ".__add__),
                      st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs")), min_size=1, max_size=4).map(
                          lambda t: t * 20_000)))
def test_play_answers_a_huge_line_in_a_short_one(quiet_play, line):
    r = cli("play", "--seed", 1, "--opponent", "random", input=f"{line}\nquit\n")
    assert r.exit_code == 0 and r.exception is None
    assert len(r.stdout) - len(quiet_play) - len(line) < 300      # the test's runner echoes the line typed


# ---------------------------------------------------------------------------------- saves under kills
REPLACING = """
import signal, sys
from advisor.files import replace_file
# each signal as a terminal's kill delivers it, whatever this test's own parent ignores (nohup, a
# shell's background job)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGINT, signal.default_int_handler)
print("ready", flush=True)
n = 0
while True:
    n += 1
    replace_file(sys.argv[1], (str(n) * 200_000).encode()[:200_000] + b"end")
"""


@settings(max_examples=12, deadline=None)
@given(after=st.floats(0.0, 0.3), how=st.sampled_from([signal.SIGTERM, signal.SIGINT, signal.SIGHUP]))
def test_a_kill_during_a_save_leaves_the_file_whole_and_no_temporary(tmp_path_factory, after, how):
    folder = tmp_path_factory.mktemp("saves")
    path = folder / "game.toml"
    path.write_bytes(b"0" * 200_000 + b"end")
    p = subprocess.Popen([sys.executable, "-c", REPLACING, str(path)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    assert p.stdout is not None and p.stdout.readline() == b"ready\n"
    time.sleep(after)
    p.send_signal(how)
    assert p.wait(timeout=20) != 0
    assert os.listdir(folder) == ["game.toml"]
    assert path.read_bytes().endswith(b"end") and len(path.read_bytes()) == 200_003


def test_the_temporary_file_a_kill_9_left_is_removed_by_the_next_save(tmp_path):
    from advisor.files import replace_file
    path = tmp_path / "game.toml"
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live = tmp_path / f"game.toml.tmp{p.pid}"           # a save in progress elsewhere: kept
        live.write_text("half")
        (tmp_path / "game.toml.tmp999999999").write_text("half")    # its writer is gone
        (tmp_path / "game.toml.tmpx").write_text("not ours")
        replace_file(str(path), b"whole")
        assert sorted(os.listdir(tmp_path)) == sorted(["game.toml", live.name, "game.toml.tmpx"])
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------------------------- tournament records
@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("records") / "t.jsonl"
    r = cli("tournament", "--agent", "g=greedy", "--agent", "r=random", "--players", 2, "--games", 2, "--seed", 3,
            "--workers", 1, "--out", out)
    assert r.exit_code == 0, r.output
    return json.loads(out.read_text().splitlines()[0])


def mutations(rec: dict) -> st.SearchStrategy[dict]:
    """A record with one field (or one seat's field) set to any JSON value, dropped, or one more seat."""
    def set_field(k, v):
        return {**rec, k: v}

    def set_seat(k, v):
        return {**rec, "seats": [{**rec["seats"][0], k: v}, *rec["seats"][1:]]}
    return st.one_of(
        st.builds(set_field, st.sampled_from(sorted(rec)), JSON),
        st.builds(set_seat, st.sampled_from(["agent", "spec", "seed", "settings"]), JSON),
        st.sampled_from(sorted(rec)).map(lambda k: {x: v for x, v in rec.items() if x != k}),
        st.builds(set_field, st.just("players"), st.integers(-10**30, 10**30)),
        st.just({**rec, "seats": [*rec["seats"], {**rec["seats"][0], "agent": "ghost"}]}))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_edited_record_is_reviewed_reported_or_refused_in_one_line(record, tmp_path, data):
    rec = data.draw(mutations(record))
    path = tmp_path / "edited.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    try:
        load_results(path)
    except ResultsFileError as e:
        assert "\n" not in str(e) and len(str(e)) < 300 and str(e).startswith(f"{path}:1: "), str(e)
        return
    for read in (lambda: load_played(str(path), str(rec.get("key"))),
                 lambda: results_report(read_results([path]), bootstrap=5)):
        try:
            read()
        except (ReviewError, ResultsFileError) as e:
            assert "\n" not in str(e), str(e)


@pytest.mark.parametrize("line, says", [
    ('{"v":1,"tournament":"t","key":"k","seats":' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"v":1,"tournament":"t","key":"k","seats":[],"seed":Infinity}', "seed must be an integer, got Infinity"),
])
def test_records_nested_deeply_or_with_infinities_are_refused(tmp_path, line, says):
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n" + line + "\n")
    for command in (("report", path), ("review", path, "--game", "k")):
        r = cli(*command)
        assert r.exit_code == 2 and says in one_error_line(r.stderr) and f"{path}:1: " in r.stderr


def test_a_two_player_record_with_a_third_seat_is_refused(record, tmp_path):
    path = tmp_path / "ghost.jsonl"
    path.write_text(json.dumps({**record, "seats": [*record["seats"], {**record["seats"][0], "agent": "ghost"}]}) + "\n")
    r = cli("review", path, "--game", record["key"])
    assert r.exit_code == 2 and "seats must list 2 seats (players = 2)" in one_error_line(r.stderr)


# ---------------------------------------------------------------------------------- review --out --resume
class Kept(tuple):
    def __repr__(self) -> str:          # hypothesis prints the fixtures of a failing example
        return f"<a review file of {len(self[0])} bytes>"


@pytest.fixture(scope="module")
def review_file(game: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, int]:
    """A whole --out file of a review of `game` (made-up verdicts, one per decision: the file
    checks their fields, not their values) and the length of its header line."""
    played = load_played(str(game))
    path = tmp_path_factory.mktemp("out") / "r.jsonl"
    f = ResultsFile(str(path), played, [0], LIMIT, 0, resume=False)
    for i, g, a in decisions(played, [0]):
        f.keep(Verdict(index=i, seat=0, round=g.round, decision=g.decision or "", kind="moves",
                       options=len(g.legal_actions()), played=str(a), best="x", lost=float("nan") if i % 7 else 1.25,
                       lost_ci=0.5, score=50.0, opponent=-3, played_visits=i, basis="forecast"))
    f.close()
    raw = path.read_bytes()
    return Kept((raw, raw.index(b"\n") + 1))


def resume(path: Path, game: Path) -> ResultsFile:
    f = ResultsFile(str(path), load_played(str(game)), [0], LIMIT, 0, resume=True)
    f.close()
    return f


@FAST
@given(cut=st.floats(0, 1))
def test_a_cut_last_line_is_dropped_and_the_decisions_before_it_kept(game, review_file, tmp_path, cut):
    raw, header = review_file
    at = header + int(cut * (len(raw) - header))
    path = tmp_path / "cut.jsonl"
    path.write_bytes(raw[:at])
    f = resume(path, game)
    whole = raw[:at].rfind(b"\n") + 1
    kept = raw[header:at].count(b"\n") + (1 if raw[:at].endswith(b"}") and at < len(raw) else 0)
    assert len(f.done) == kept
    # the file holds exactly the whole lines kept, ready to be appended to
    assert path.read_bytes() in (raw[:whole], raw[:at] + b"\n")


def verdict_lines(raw: bytes, header: int) -> list[dict]:
    return [json.loads(x) for x in raw[header:].splitlines()]


@FAST
@given(data=st.data())
def test_a_damaged_line_is_one_error_naming_the_file_and_line(game, review_file, tmp_path, data):
    raw, header = review_file
    lines = verdict_lines(raw, header)
    n = data.draw(st.integers(0, len(lines) - 1), "line")
    line = dict(lines[n])
    how = data.draw(st.sampled_from(["value", "field", "drop", "add", "index"]), "how")
    if how == "value":
        text = json.dumps(data.draw(JSON, "value"))
    else:
        if how == "field":
            line[data.draw(st.sampled_from(sorted(line)), "field")] = data.draw(JSON, "to")
        elif how == "drop":
            del line[data.draw(st.sampled_from(sorted(line)), "dropped")]
        elif how == "add":
            line[data.draw(st.text(max_size=6).filter(lambda k: k not in line), "added")] = 1
        else:
            line["index"] = data.draw(st.integers(-5, 400) | st.sampled_from([x["index"] for x in lines]), "index")
        text = json.dumps(line)
    path = tmp_path / "edited.jsonl"
    path.write_bytes(raw[:header] + b"".join((text if i == n else json.dumps(x)).encode() + b"\n"
                                             for i, x in enumerate(lines)))
    try:
        f = resume(path, game)
    except ReviewError as e:
        message = str(e)
        assert "\n" not in message and len(message) < 300
        assert message.startswith(f"--out {path}:{n + 2}: ") or f"(line {n + 2} too)" in message, message
        return
    # taken: a line as good as the original; every decision kept once, so none is reviewed twice
    assert len(f.done) == len(lines)
    assert sorted(f.done) == sorted(x["index"] for x in lines)


def test_resume_goes_on_from_a_cut_line_whatever_path_names_the_game(game, tmp_path, monkeypatch):
    monkeypatch.chdir(game.parent)
    out = tmp_path / "r.jsonl"
    base = ["review", "--iterations", "5", "--out", out, "--json"]
    whole = cli("review", game.name, "--iterations", 5, "--json")
    first = cli(*base[:1], game.name, *base[1:])
    assert first.exit_code == 0 and first.stdout == whole.stdout
    raw = out.read_bytes()
    out.write_bytes(raw[:len(raw) - len(raw.splitlines()[-1]) // 2 - 1])   # the last line cut in half
    for name in (f"./{game.name}", game.resolve()):
        again = cli(*base[:1], name, *base[1:], "--resume")
        assert again.exit_code == 0, again.output
        assert json.loads(again.stdout)["seats"] == json.loads(whole.stdout)["seats"]
        assert out.read_bytes() == raw
    other = finished_save(tmp_path / "other.toml", seed=5)
    r = cli(*base[:1], other, *base[1:], "--resume")
    assert r.exit_code == 2 and "reviews with another game" in one_error_line(r.stderr)


def run_process(*args, timeout=30):
    return subprocess.run([sys.executable, "-m", "advisor.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("where", ["game", "out", "out-zero"])
def test_special_files_are_refused_at_once(game, tmp_path, where):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    args = {"game": (fifo,), "out": (game, "--out", fifo, "--resume"),
            "out-zero": (game, "--out", "/dev/zero", "--resume")}[where]
    r = run_process("review", *args, "--iterations", 5, timeout=20)
    line = one_error_line(r.stderr)
    assert r.returncode == 2 and ("fifo" in line or "/dev/zero" in line) and "regular file" in line


def test_a_save_edited_since_is_reviewed_as_replayed_with_a_warning(game, tmp_path):
    edited = tmp_path / "edited.toml"
    text = game.read_text()
    edited.write_text(text.replace('state = "', 'state = "0'))
    played = load_played(str(edited))
    assert len(played.warnings) == 1 and "differs from the one saved" in played.warnings[0]
    r = cli("review", edited, "--iterations", 5)
    assert r.exit_code == 0 and r.stderr.startswith(f"warning: {edited}: the replayed game differs")
    assert not load_played(str(game)).warnings


# ---------------------------------------------------------------------------------- --plot
@given(name=st.text(st.characters(blacklist_characters="\x00/"), min_size=1, max_size=12),
       ext=st.sampled_from(["", ".txt", ".xyz", ".toml", ".png", ".PNG", ".png.txt"]))
def test_a_plot_is_a_png_named_so(tmp_path_factory, name, ext):
    path = os.path.join(tmp_path_factory.getbasetemp(), name + ext)
    if os.path.lexists(path) and not os.path.isfile(path):
        return
    if ext.lower() == ".png":
        check_png(path)
    else:
        with pytest.raises(FileError, match="give a name ending in .png"):
            check_png(path)


@pytest.mark.parametrize("plot, says", [("r.txt", "give a name ending in .png"), ("r", "give a name ending in .png"),
                                        ("-", "not to standard output"), ("/dev/full", ".png"),
                                        ("missing/r.png", "no such folder")])
def test_a_wrong_plot_is_refused_before_the_review(game, tmp_path, monkeypatch, plot, says):
    from advisor.review import judge

    def never(*args, **kwargs):
        raise AssertionError("the review ran")
    monkeypatch.setattr(judge, "review", never)
    monkeypatch.chdir(tmp_path)
    r = cli("review", game, "--plot", plot)
    assert r.exit_code == 2 and says in one_error_line(r.stderr)
    assert os.listdir(tmp_path) == []


def test_a_plot_is_written_whole_under_its_name(game, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "r.PNG"
    r = cli("review", game, "--iterations", 5, "--plot", png)
    assert r.exit_code == 0 and png.read_bytes()[:4] == b"\x89PNG" and f"wrote {png}" in r.stdout
    assert os.listdir(tmp_path) == ["r.PNG"]


# ---------------------------------------------------------------------------------- workers
def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads children from /proc (Linux)")
@pytest.mark.parametrize("command", [
    ("suggest", EXAMPLES / "early-2p.toml", "--time", 60),
    ("review", "GAME", "--time", 60, "--out", "OUT"),
    ("tournament", "--agent", "greedy", "--agent", "ismcts:iterations=100000", "--games", 8, "--out", "OUT"),
], ids=lambda c: c[0])
def test_workers_end_when_their_command_is_killed(game, tmp_path, command):
    args = [str(tmp_path / "out.jsonl") if a == "OUT" else str(game) if a == "GAME" else str(a) for a in command]
    p = subprocess.Popen([sys.executable, "-m", "advisor.cli", *args, "--workers", "2"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while len(_children(p.pid)) < 2 and time.monotonic() - t0 < 30:
            time.sleep(0.05)
        workers = _children(p.pid)
        assert len(workers) >= 2
        time.sleep(0.3)                 # at work
    finally:
        p.kill()
        p.wait()
    t0 = time.monotonic()
    while any(map(_alive, workers)) and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left


WATCHED = """
import os, sys, time
from advisor.search.workers import end_with_parent
parent = os.getpid()
child = os.fork()
if child == 0:
    end_with_parent(parent, main_thread=False)    # no kernel signal: the watching thread alone
    time.sleep(30)
    os._exit(0)
print(child, flush=True)
time.sleep(30)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
def test_a_worker_without_the_kernels_signal_still_ends_with_its_parent():
    p = subprocess.Popen([sys.executable, "-c", WATCHED], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None
    child = int(p.stdout.readline())
    p.kill()
    p.wait()
    t0 = time.monotonic()
    while _alive(child) and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    assert not _alive(child)
