"""Ctrl-C (SIGINT) during a search: the core stops within a fraction of a second with what it found,
`suggest` prints that ranking marked as interrupted and exits 130, root-parallel workers end with
it, and `advisor play` pauses at a prompt when it comes while an AI thinks. Real signals, sent to
real processes, through a pipe and through a pseudo-terminal."""
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


def _interrupt_me(after: float) -> None:
    """SIGINT to this process in `after` seconds, from another process: a thread could not send it
    while the core's search holds the interpreter."""
    subprocess.Popen(["sh", "-c", f"sleep {after}; kill -INT {os.getpid()}"])


def _gone(pgid: int, timeout: float = 3.0) -> bool:
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
    _interrupt_me(0.3)
    t0 = time.monotonic()
    with pytest.raises(_core.SearchInterrupted) as e:
        _core.search(g, core_params(time=30))
    assert time.monotonic() - t0 < 1.5
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
        params = [core_params(seed=s, time=30) for s in (1, 2)]
        _interrupt_me(0.5)
        t0 = time.monotonic()
        with pytest.raises(WorkersInterrupted) as e:
            w.search(g.to_dict(), params, None)
        assert time.monotonic() - t0 < 2.0
        assert len(e.value.results) == 2 and all(r["interrupted"] and r["iterations"] for r in e.value.results)
        # the workers go on serving, their idle SIGINT ignored
        for p in w._procs:
            os.kill(p.pid, signal.SIGINT)
        time.sleep(0.2)
        assert all(r["interrupted"] is False for r in w.search(g.to_dict(), [core_params(iterations=64)] * 2, None))
    finally:
        w.close()


def _interrupt_command(args: list[str], after: float, timeout: float = 20) -> tuple[int, bytes, bytes, float, int]:
    """`advisor ARGS` in a session of its own, SIGINT to it alone `after` seconds in: (exit status,
    stdout, stderr, seconds it took to stop, its pid)."""
    p = subprocess.Popen([sys.executable, "-m", "advisor.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, preexec_fn=_default_sigint)
    try:
        time.sleep(after)                                # the work is under way
        assert p.poll() is None
        p.send_signal(signal.SIGINT)                     # to the command alone: it stops its workers
        t0 = time.monotonic()
        out, err = p.communicate(timeout=timeout)
        stopped = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, err, stopped, p.pid


# ---------------------------------------------------------------------------- suggest through a pipe
@pytest.mark.parametrize("args", [(), ("--json",), ("--workers", "2"), ("--workers", "2", "--json")],
                         ids=["text", "json", "workers", "workers-json"])
def test_suggest_interrupted_through_a_pipe(position, args):
    rc, out, err, stopped, pid = _interrupt_command(["suggest", position, "--time", "60", *args], after=3.0)
    assert rc == 130, (out, err)
    assert stopped < 1.5
    assert b"Traceback" not in err and b"Exception ignored" not in err, err.decode()
    assert _gone(pid), "a worker process outlived suggest"
    text = out.decode()
    if "--json" in args:
        doc = json.loads(text)
        assert doc["interrupted"] is True and doc["moves"] and doc["iterations"] > 0
    else:
        assert re.match(r"interrupted after [\d,]+ iterations in \d+\.\d\d s", text), text
        assert "Ctrl-C stopped the search: the ranking so far" in text
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
            self.read(None, timeout=20)
            return self.p.wait(timeout=20)
        finally:
            if self.p.poll() is None:
                self.p.kill()
            os.close(self.fd)

    def text(self) -> str:
        return _plain(self.seen.decode(errors="replace"))


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_suggest_interrupted_on_a_terminal(position, workers):
    t = Terminal("suggest", position, "--time", "60", "--workers", workers)
    t.read(r"searching", timeout=30)                     # the progress bar: the search runs
    time.sleep(0.5)
    t.send("\x03")
    t0 = time.monotonic()
    t.read(r"interrupted after", timeout=5)
    assert time.monotonic() - t0 < 1.5
    rc = t.close()
    text = t.text()
    assert rc == 130, text[-2000:]
    assert "Traceback" not in text and "Exception ignored" not in text, text[-3000:]
    assert "Ctrl-C stopped the search: the ranking so far" in text
    assert _gone(t.p.pid)


def test_play_pauses_when_ctrl_c_comes_while_the_ai_thinks(tmp_path):
    save = tmp_path / "g.toml"
    # seed 3: P1 starts, so the AI's setup discard is the first thing searched
    t = Terminal("play", "--opponent", "ismcts:time=60", "--seed", "3", "--save", str(save))
    try:
        t.read(r"P1 thinking", timeout=30)
        time.sleep(0.3)
        t.send("\x03")
        t0 = time.monotonic()
        t.read(r"\(paused\) > $", timeout=5)
        assert time.monotonic() - t0 < 1.5
        t.send("hint\n")
        t.read(r"not yours.*\n.*\(paused\) > $", timeout=5)
        t.send("\n")                                     # on: P1 thinks again
        t.read(r"P1 thinking", timeout=10)
        time.sleep(0.3)
        t.send("\x03")
        t.read(r"\(paused\) > $", timeout=5)
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
        t.read(r"\n> $", timeout=30)
        t.send("hint\n")
        t.read(r"advisor thinking", timeout=10)
        time.sleep(0.5)
        t.send("\x03")
        t.read(r"advisor: interrupted after [\d,]+ iterations(.|\n)*\n> $", timeout=5)
        t.send("1\n")                                    # the game goes on: both setup discards
        t.read(r"-> ", timeout=10)
        t.send("1\n")
        t.read(r"-> discard .*; discard ", timeout=10)
        t.send("quit\n")
        t.read(r"Save before leaving\? A file name, or Enter to leave unsaved: $", timeout=10)
        t.send("\n")                                     # leave it unsaved
        rc = t.close()
    finally:
        if t.p.poll() is None:
            t.p.kill()
    text = t.text()
    assert rc == 0 and "Quit: leaving the game" in text
    assert "Traceback" not in text and "Exception ignored" not in text, text[-3000:]
