"""Root-parallel search processes that outlive a decision.

Each process keeps its own `SearchTree`, so an agent searching with several workers goes on from
the subtree of the moves played, as a one-worker agent does, and no process is started per
decision. Worker `i` runs exactly the search a one-worker agent with worker `i`'s seed and tree
would run: the result depends only on (seed, workers)."""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Callable

from advisor import _core

ANSWER_AFTER_INTERRUPT = 5.0    # seconds an interrupted worker has to send what it found


class WorkersInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the workers' search; `results` are their statistics so far (those that
    answered), each as the core's search returns it."""

    def __init__(self, results: list[_core.SearchResult]):
        super().__init__("search interrupted")
        self.results = results


PR_SET_PDEATHSIG = 1            # prctl(2): the signal a process gets when its parent ends
WATCH_PARENT_EVERY = 0.5        # seconds between a worker's looks at whether its parent still runs


def parent_for_workers() -> tuple[int | None, bool]:
    """What a worker about to be started is told of its parent (see `end_with_parent`): this
    process's id (None when a fork server starts the workers, which is then their parent) and
    whether this is the main thread (Linux ties a parent-death signal to the starting thread)."""
    forkserver = multiprocessing.get_start_method(allow_none=True) == "forkserver"
    return (None if forkserver else os.getpid()), threading.current_thread() is threading.main_thread()


def end_with_parent(parent: int | None, main_thread: bool = True) -> None:
    """In a worker process: end when its parent ends, however it ends (a kill -9 too, which gives
    the parent no chance to end its workers). On Linux the kernel sends SIGKILL at once
    (PR_SET_PDEATHSIG; not when the starting thread was not the main one, as that thread may end
    first); everywhere, a thread watches the parent's id and exits when it changes (the parent
    ended and the worker was handed to another process)."""
    expected = os.getppid() if parent is None else parent
    if main_thread and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != expected:        # the parent ended before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(expected,), name="end-with-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(WATCH_PARENT_EVERY)
        if os.getppid() != parent:
            os._exit(1)


_searching = False      # in a worker: whether a search runs (an interrupt then stops it)


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """A worker's SIGINT: stops the search in progress (the core then answers with its statistics
    so far); between searches it is ignored, so an idle worker never dies of a Ctrl-C."""
    if _searching:
        raise KeyboardInterrupt


def _serve(conn: Any, parent: tuple[int | None, bool] = (None, False)) -> None:
    """A worker's loop: ("search", state, params, since) -> the core's root statistics, with this
    process's tree; ("clear",) forgets the tree; None ends the loop. An interrupted search answers
    ("ok", statistics so far) or ("stopped", None) when it had not begun. It ends with the process
    that started it (`parent`: see `parent_for_workers`)."""
    global _searching
    end_with_parent(*parent)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:    # a tournament's workers leave Ctrl-C to it
        signal.signal(signal.SIGINT, _on_interrupt)
    tree = _core.SearchTree()
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        if msg[0] == "clear":
            tree.clear()
            continue
        _, state, params, since = msg
        reply: tuple[str, Any]
        try:
            _searching = True
            reply = ("ok", _core.search(_core.Game.from_dict(state), params, None, tree, since))
        except _core.SearchInterrupted as e:
            reply = ("ok", e.result)
        except KeyboardInterrupt:
            reply = ("stopped", None)
        except Exception as e:                  # reported in the parent, which raises it
            reply = ("error", f"{type(e).__name__}: {e}")
        finally:
            _searching = False
        conn.send(reply)


def start_processes(n: int, target: Callable[..., None], args: tuple[Any, ...],
                    method: str | None = None) -> tuple[list[Connection], list[BaseProcess]]:
    """`n` daemon processes running target(conn, *args), each with its end of a pipe: (the
    parent's ends, the processes)."""
    ctx: Any = multiprocessing.get_context(method)     # a fork or spawn context alike
    conns: list[Connection] = []
    procs: list[BaseProcess] = []
    for _ in range(n):
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=target, args=(child, *args), daemon=True)
        proc.start()
        child.close()
        conns.append(parent)
        procs.append(proc)
    return conns, procs


class SearchWorkers:
    """`n` search processes, each with its own tree kept between searches."""

    def __init__(self, n: int):
        self._conns, self._procs = start_processes(n, _serve, (parent_for_workers(),))

    @property
    def n(self) -> int:
        return len(self._conns)

    def search(self, state: _core.GameState, params: list[dict], since: list[int] | None,
               tick: Callable[[], None] | None = None) -> list[_core.SearchResult]:
        """Every worker searches `state` with its params (in order); `tick()` is called about ten
        times a second while they run. Ctrl-C stops every worker's search: WorkersInterrupted then
        carries what they found so far (a worker that does not answer in time is ended)."""
        if len(params) != self.n:
            raise ValueError(f"{len(params)} parameter sets for {self.n} workers")
        for conn, p in zip(self._conns, params, strict=True):
            conn.send(("search", state, p, since))
        replies: dict[int, tuple] = {}
        deadline: float | None = None         # set by an interrupt
        while len(replies) < self.n:
            try:
                if deadline is not None and time.monotonic() > deadline:
                    break
                pending = [c for i, c in enumerate(self._conns) if i not in replies]
                for ready in wait(pending, timeout=0.1):
                    i = self._conns.index(ready)   # type: ignore[arg-type]  # wait returns the connections given
                    replies[i] = self._conns[i].recv()
                if tick is not None and deadline is None:
                    tick()
            except KeyboardInterrupt:
                if deadline is None:
                    deadline = time.monotonic() + ANSWER_AFTER_INTERRUPT
                    self._interrupt([i for i in range(self.n) if i not in replies])
            except EOFError:
                self.close()
                raise _core.EngineError("a search worker ended unexpectedly") from None
        errors = [r[1] for r in replies.values() if r[0] == "error"]
        if errors:
            raise _core.EngineError(errors[0])
        results = [replies[i][1] for i in sorted(replies) if replies[i][0] == "ok"]
        if deadline is not None:
            if len(replies) < self.n:          # a worker that did not answer: its pipe is unusable
                self.close()
            raise WorkersInterrupted(results)
        if len(results) < self.n or any(r.get("interrupted") for r in results):
            raise WorkersInterrupted(results)   # a worker's own Ctrl-C (a terminal sends it to all)
        return results

    def _interrupt(self, workers: list[int]) -> None:
        """Stop the searches of `workers` (they answer with their statistics so far)."""
        for i in workers:
            pid = self._procs[i].pid
            if pid is not None and self._procs[i].is_alive():
                try:
                    os.kill(pid, signal.SIGINT)
                except OSError:
                    pass

    def clear(self) -> None:
        """Forget every worker's tree (a new game)."""
        for conn in self._conns:
            conn.send(("clear",))

    def close(self) -> None:
        """End the worker processes."""
        for conn in self._conns:
            try:
                conn.send(None)
                conn.close()
            except OSError:
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self._conns, self._procs = [], []

    def __del__(self):
        if self._procs:
            self.close()
