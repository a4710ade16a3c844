"""Ctrl-C (SIGINT) during a search: the core stops within a fraction of a second with what it found,
`suggest` prints that ranking marked as interrupted and exits 130, root-parallel workers end with
it, and `advisor play` pauses at a prompt when it comes while an AI thinks. Real signals, sent to
real processes, through a pipe and through a pseudo-terminal.

No test sleeps and hopes: each sends its signal once a condition shows the work under way (the
search's own callback, a progress bar that moved, CPU a command spent beyond its start), and
waits for what the signal should bring with a generous timeout, HANG, which catches a command that
never stops, not a slow one: how fast a search stops under load is no unit test's business."""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor import _core
from advisor.cli import main
from advisor.search import AnalysisInterrupted, analyse
from advisor.search.workers import SearchWorkers, WorkersInterrupted
from test_search import _midgame, core_params


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)        # as a shell starts a command


@pytest.fixture(scope="module")
def position(tmp_path_factory):
    f = tmp_path_factory.mktemp("pos") / "p.toml"
    r = CliRunner().invoke(main, ["new", "-o", str(f), "--seed", "3", "--after-turns", "2"])
    assert r.exit_code == 0, r.output
    return str(f)


HANG = 30.0         # seconds: a command that has not stopped by then never will


def _ticks(pids: list[int]) -> int:
    """Clock ticks of CPU (user + system) that the processes `pids` have used (an ended one: 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])          # utime, stime
    return total


def _tree(pid: int) -> list[int]:
    """`pid` and its children (a command's search workers)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return [pid, *kids]


def _until(condition, what: str, timeout: float = HANG) -> None:
    """Wait until `condition()` holds (AssertionError naming `what` after `timeout` seconds)."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.02)


def _delivered(pid: int) -> bool:
    """Whether process `pid` has no SIGINT pending (a signal sent to it has been taken)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    pending = [int(line.split()[1], 16) for line in status.splitlines() if line.startswith(("SigPnd", "ShdPnd"))]
    return not any(mask & (1 << (signal.SIGINT - 1)) for mask in pending)


def _gone(pgid: int, timeout: float = HANG) -> bool:
    """Whether every process of the group has ended."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# ---------------------------------------------------------------------------- the core
def test_a_signal_stops_the_core_search_with_its_statistics():
    g = _midgame()
    sent: list[subprocess.Popen] = []

    def under_way(iterations, seconds):
        # the search runs: SIGINT from another process (a thread could not send it while the
        # core's search holds the interpreter), which the core takes on its own
        if not sent:
            sent.append(subprocess.Popen(["kill", "-INT", str(os.getpid())]))
    try:
        with pytest.raises(_core.SearchInterrupted) as e:
            _core.search(g, core_params(time=HANG), under_way)
    finally:
        for p in sent:
            p.wait()
    res = e.value.result
    assert res["interrupted"] and res["iterations"] > 0 and res["children"]
    assert sum(c["visits"] for c in res["children"]) > 0
    assert isinstance(e.value, KeyboardInterrupt)
    assert _core.search(g, core_params(iterations=50))["interrupted"] is False


def test_a_progress_callbacks_exception_stops_the_search():
    g = _midgame()

    def stop(it, sec):
        raise KeyboardInterrupt
    with pytest.raises(_core.SearchInterrupted) as e:
        _core.search(g, core_params(iterations=100_000), stop)
    assert e.value.result["iterations"] == 1024          # the first call

    def broken(it, sec):
        raise ValueError("a bug in the callback")
    with pytest.raises(ValueError, match="a bug in the callback"):      # no longer printed and ignored
        _core.search(g, core_params(iterations=100_000), broken)

    def stop_partial(result):           # the statistics-so-far callback stops the search alike
        raise KeyboardInterrupt
    with pytest.raises(_core.SearchInterrupted) as e:
        _core.search(g, core_params(iterations=100_000), lambda it, sec: time.sleep(0.3), partial=stop_partial)
    assert e.value.result["iterations"] == 2048          # its first call: half a second in


def test_analyse_gives_the_ranking_so_far():
    g = _midgame()
    calls = []

    def progress(share):
        calls.append(share)
        if len(calls) == 3:
            raise KeyboardInterrupt
    with pytest.raises(AnalysisInterrupted) as e:
        analyse(g, {"iterations": 1_000_000}, progress=progress)
    a = e.value.analysis
    assert a.interrupted and a.moves and a.iterations >= 2048


def test_workers_stop_and_answer_with_what_they_found():
    g = _midgame()
    w = SearchWorkers(2)
    try:
        params = [core_params(seed=s, time=HANG) for s in (1, 2)]
        before = {p.pid: _ticks([p.pid]) for p in w._procs}

        def tick():
            # every worker searches (it spent CPU since it was asked): Ctrl-C, as the terminal
            # gives it to the waiting parent
            if all(_ticks([pid]) >= ticks + 5 for pid, ticks in before.items()):
                os.kill(os.getpid(), signal.SIGINT)
        with pytest.raises(WorkersInterrupted) as e:
            w.search(g.to_dict(), params, None, tick)
        assert len(e.value.results) == 2 and all(r["interrupted"] and r["iterations"] for r in e.value.results)
        # the workers go on serving, their idle SIGINT ignored
        for p in w._procs:
            os.kill(p.pid, signal.SIGINT)
        _until(lambda: all(_delivered(p.pid) for p in w._procs), "the idle workers took their SIGINT")
        assert all(r["interrupted"] is False for r in w.search(g.to_dict(), [core_params(iterations=64)] * 2, None))
    finally:
        w.close()


@pytest.fixture(scope="module")
def start_ticks(position) -> int:
    """The CPU a whole short `suggest` of the position takes (its start: imports, tables, the file)."""
    p = subprocess.Popen([sys.executable, "-m", "advisor.cli", "suggest", position, "--iterations", "1", "--json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0
    return round((usage.ru_utime + usage.ru_stime) * os.sysconf("SC_CLK_TCK"))


def _interrupt_command(args: list[str], start: int, sig: int = signal.SIGINT) -> tuple[int, bytes, bytes, int]:
    """`advisor ARGS` in a session of its own, `sig` to it alone once its search runs (it and its
    workers spent twice the CPU of a whole short run, `start` ticks, and 30 ticks more): (exit status,
    stdout, stderr, its pid)."""
    p = subprocess.Popen([sys.executable, "-m", "advisor.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, preexec_fn=_default_sigint)
    try:
        _until(lambda: p.poll() is not None or _ticks(_tree(p.pid)) >= 2 * start + 30, "the search ran",
               timeout=10 * HANG)
        assert p.poll() is None
        p.send_signal(sig)                               # to the command alone: it stops its workers
        out, err = p.communicate(timeout=HANG)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, err, p.pid


# ---------------------------------------------------------------------------- suggest through a pipe
@pytest.mark.parametrize("args,sig", [((), signal.SIGINT), (("--json",), signal.SIGINT),
                                      (("--workers", "2"), signal.SIGINT), (("--workers", "2", "--json"), signal.SIGINT),
                                      ((), signal.SIGTERM), (("--workers", "2"), signal.SIGTERM)],
                         ids=["text", "json", "workers", "workers-json", "kill", "kill-workers"])
def test_suggest_interrupted_through_a_pipe(position, start_ticks, args, sig):
    rc, out, err, pid = _interrupt_command(["suggest", position, "--time", "600", *args], start_ticks, sig)
    assert rc == 130, (out, err)
    assert b"Traceback" not in err and b"Exception ignored" not in err, err.decode()
    assert _gone(pid), "a worker process outlived suggest"
    text = out.decode()
    if "--json" in args:
        doc = json.loads(text)
        assert doc["interrupted"] is True and doc["moves"] and doc["iterations"] > 0
    else:
        assert re.match(r"interrupted after [\d,]+ iterations in \d+\.\d\d s", text), text
        assert "stopped early (Ctrl-C or kill): the ranking so far" in text
        assert re.search(r"^ 1 \S", text, re.M)


def test_suggest_json_says_when_the_search_ran_its_course(position):
    r = CliRunner().invoke(main, ["suggest", position, "--iterations", "200", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["interrupted"] is False


# ---------------------------------------------------------------------------- a real terminal
class Terminal:
    """A command in a pseudo-terminal that is its controlling terminal: Ctrl-C sends SIGINT to its
    whole process group, workers included, as a shell's terminal does."""

    def __init__(self, *args: str):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
        env = dict(os.environ, TERM="xterm")
        env.pop("NO_COLOR", None)

        def controlling_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        self.p = subprocess.Popen([sys.executable, "-m", "advisor.cli", *args], stdin=slave, stdout=slave,
                                  stderr=slave, close_fds=True, env=env, preexec_fn=controlling_terminal)
        os.close(slave)
        self.fd, self.seen = master, b""

    def read(self, until: str | None, timeout: float = 30.0) -> str:
        """Output up to the regular expression `until` (or the end); TimeoutError if it never comes."""
        end = time.monotonic() + timeout
        start = len(self.seen)
        while True:
            text = _plain(self.seen[start:].decode(errors="replace"))
            if until is not None and re.search(until, text):
                return text
            if time.monotonic() > end:
                raise TimeoutError(text[-2000:])
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                if until is None:
                    return text
                raise TimeoutError("ended: " + text[-2000:])
            self.seen += chunk

    def send(self, data: str) -> None:
        os.write(self.fd, data.encode())

    def close(self) -> int:
        try:
            self.read(None, timeout=HANG)
            return self.p.wait(timeout=HANG)
        finally:
            if self.p.poll() is None:
                self.p.kill()
            os.close(self.fd)

    def text(self) -> str:
        return _plain(self.seen.decode(errors="replace"))


MOVED = r"{}:\s*[1-9]\d*%"    # a progress bar that shows 1% or more: its search runs


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_suggest_interrupted_on_a_terminal(position, workers):
    t = Terminal("suggest", position, "--time", "60", "--workers", workers)
    t.read(MOVED.format("searching"), timeout=10 * HANG)     # the progress bar moved: the search runs
    if workers == "1":
        t.read(r"best so far: \w", timeout=HANG)            # the ranking so far, on the bar's line
    t.send("\x03")
    t.read(r"interrupted after", timeout=HANG)
    rc = t.close()
    text = t.text()
    assert rc == 130, text[-2000:]
    assert "Traceback" not in text and "Exception ignored" not in text, text[-3000:]
    assert "stopped early (Ctrl-C or kill): the ranking so far" in text
    assert _gone(t.p.pid)


def test_play_pauses_when_ctrl_c_comes_while_the_ai_thinks(tmp_path):
    save = tmp_path / "g.toml"
    # seed 3: P1 starts, so the AI's setup discard is the first thing searched
    t = Terminal("play", "--opponent", "ismcts:time=60", "--seed", "3", "--save", str(save))
    try:
        t.read(MOVED.format("P1 thinking"), timeout=10 * HANG)
        t.send("\x03")
        t.read(r"\(paused\) > $", timeout=HANG)
        t.send("hint\n")
        t.read(r"not yours.*\n.*\(paused\) > $", timeout=HANG)
        t.send("\n")                                     # on: P1 thinks again
        t.read(MOVED.format("P1 thinking"), timeout=10 * HANG)
        t.send("\x03")
        t.read(r"\(paused\) > $", timeout=HANG)
        t.send("quit\n")
        rc = t.close()
    finally:
        if t.p.poll() is None:
            t.p.kill()
    text = t.text()
    assert rc == 0, text[-2000:]
    assert text.count("Interrupted: P1 stopped thinking") == 2
    assert not re.search(r"^P1 \(setup\): *$", text, re.M)        # no summary of a decision not taken
    assert f"Quit: leaving the game; saved in {save}" in " ".join(text.split())
    assert "Traceback" not in text and "Exception ignored" not in text, text[-3000:]
    assert save.exists()


def test_ctrl_c_during_a_hint_shows_its_ranking_so_far():
    t = Terminal("play", "--opponent", "random", "--seed", "1", "--hint-time", "60")
    try:
        t.read(r"\n> $", timeout=10 * HANG)
        t.send("hint\n")
        t.read(MOVED.format("advisor thinking"), timeout=10 * HANG)
        t.send("\x03")
        t.read(r"advisor: interrupted after [\d,]+ iterations(.|\n)*\n> $", timeout=HANG)
        t.send("1\n")                                    # the game goes on: both setup discards
        t.read(r"-> ", timeout=HANG)
        t.send("1\n")
        t.read(r"-> discard .*; discard ", timeout=HANG)
        t.send("quit\n")
        t.read(r"Save before leaving\? A file name, or Enter to leave unsaved: $", timeout=HANG)
        t.send("\n")                                     # leave it unsaved
        rc = t.close()
    finally:
        if t.p.poll() is None:
            t.p.kill()
    text = t.text()
    assert rc == 0 and "Quit: leaving the game" in text
    assert "Traceback" not in text and "Exception ignored" not in text, text[-3000:]
