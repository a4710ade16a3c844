"""Root-parallel search processes that outlive a decision.

Each process keeps its own `SearchTree`, so an agent searching with several workers goes on from
the subtree of the moves played, as a one-worker agent does, and no process is started per
decision. Worker `i` runs exactly the search a one-worker agent with worker `i`'s seed and tree
would run: the result depends only on (seed, workers)."""
from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.connection import wait
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


_searching = False      # in a worker: whether a search runs (an interrupt then stops it)


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """A worker's SIGINT: stops the search in progress (the core then answers with its statistics
    so far); between searches it is ignored, so an idle worker never dies of a Ctrl-C."""
    if _searching:
        raise KeyboardInterrupt


def _serve(conn: Any) -> None:
    """A worker's loop: ("search", state, params, since) -> the core's root statistics, with this
    process's tree; ("clear",) forgets the tree; None ends the loop. An interrupted search answers
    ("ok", statistics so far) or ("stopped", None) when it had not begun."""
    global _searching
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


class SearchWorkers:
    """`n` search processes, each with its own tree kept between searches."""

    def __init__(self, n: int):
        ctx = multiprocessing.get_context()
        self._conns = []
        self._procs = []
        for _ in range(n):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(child,), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)

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
        for conn, p in zip(self._conns, params):
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
