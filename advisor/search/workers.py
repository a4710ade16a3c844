"""Root-parallel search processes that outlive a decision.

Each process keeps its own `SearchTree`, so an agent searching with several workers goes on from
the subtree of the moves played, as a one-worker agent does, and no process is started per
decision. Worker `i` runs exactly the search a one-worker agent with worker `i`'s seed and tree
would run: the result depends only on (seed, workers)."""
from __future__ import annotations

import multiprocessing
from multiprocessing.connection import wait
from typing import Callable

from advisor import _core


def _serve(conn) -> None:
    """A worker's loop: ("search", state, params, since) -> the core's root statistics, with this
    process's tree; ("clear",) forgets the tree; None ends the loop."""
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
        try:
            conn.send(("ok", _core.search(_core.Game.from_dict(state), params, None, tree, since)))
        except Exception as e:                  # reported in the parent, which raises it
            conn.send(("error", f"{type(e).__name__}: {e}"))


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

    def search(self, state: dict, params: list[dict], since: list[int] | None,
               tick: Callable[[], None] | None = None) -> list[dict]:
        """Every worker searches `state` with its params (in order); `tick()` is called about ten
        times a second while they run."""
        if len(params) != self.n:
            raise ValueError(f"{len(params)} parameter sets for {self.n} workers")
        for conn, p in zip(self._conns, params):
            conn.send(("search", state, p, since))
        replies: dict[int, tuple] = {}
        while len(replies) < self.n:
            pending = [c for i, c in enumerate(self._conns) if i not in replies]
            for ready in wait(pending, timeout=0.1):
                i = self._conns.index(ready)   # type: ignore[arg-type]  # wait returns the connections given
                replies[i] = self._conns[i].recv()
            if tick is not None:
                tick()
        errors = [r[1] for r in replies.values() if r[0] == "error"]
        if errors:
            raise _core.EngineError(errors[0])
        return [replies[i][1] for i in range(self.n)]

    def clear(self) -> None:
        """Forget every worker's tree (a new game)."""
        for conn in self._conns:
            conn.send(("clear",))

    def close(self) -> None:
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
