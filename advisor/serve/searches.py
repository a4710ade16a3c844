""""What now?": the search of a decision, run in a process of its own so that the server answers
every other request while it runs (the search holds the interpreter while it works).

One search per game at a time. The process gets the game as data (`Game.to_dict`), ranks its
moves with the search's one entry point (`advisor.search.suggest`) and sends its progress and then
the ranking (`ranking_json`, as `advisor suggest --json` prints it) back over a pipe. Stop sends it
Ctrl-C (SIGINT): the search answers with the ranking found so far, marked interrupted."""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from advisor._core import Game

MAX_SECONDS = 120.0
TOP = 8


def _run(state: dict[str, Any], settings: dict[str, Any], seed: int, names: list[str], out: Connection) -> None:
    """The search process: progress as ("progress", share), then ("ranking", json) or ("error", text)."""
    from advisor.errors import AdvisorError
    from advisor.search.suggest import ranking_json, suggest
    last = [0.0]

    def progress(share: float) -> None:
        if time.monotonic() - last[0] >= 0.2 or share >= 1.0:
            last[0] = time.monotonic()
            out.send(("progress", share))
    try:
        game = Game.from_dict(state)
        a = suggest(game, settings, seed=seed, progress=progress)
        out.send(("ranking", ranking_json(a, game, names, TOP, None)))
    except KeyboardInterrupt:
        out.send(("error", "the search was stopped before it ranked a move"))
    except AdvisorError as e:
        out.send(("error", str(e)))
    finally:
        out.close()


@dataclass
class Search:
    """A search of one game's decision (`at`: the history length it was started at)."""
    game_id: str
    at: int
    seconds: float
    process: Any = None
    conn: Connection | None = None
    progress: float = 0.0
    ranking: dict[str, Any] | None = None
    error: str | None = None
    done: bool = False
    started: float = field(default_factory=time.monotonic)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def stop(self) -> None:
        if not self.done and self.process is not None and self.process.pid:
            try:
                os.kill(self.process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def state(self) -> dict[str, Any]:
        return {"at": self.at, "seconds": self.seconds, "progress": round(self.progress, 3), "done": self.done,
                "ranking": self.ranking, "error": self.error}


class Searches:
    """The searches running or done, one per game (a game's last search kept until the next)."""

    def __init__(self) -> None:
        self.by_game: dict[str, Search] = {}
        self.context = multiprocessing.get_context("spawn")     # no fork of a server's threads

    def running(self, game_id: str) -> Search | None:
        s = self.by_game.get(game_id)
        return s if s is not None and not s.done else None

    def start(self, game_id: str, game: Game, names: list[str], seconds: float, seed: int) -> Search:
        reader, writer = self.context.Pipe(duplex=False)
        s = Search(game_id, len(game.history), seconds)
        s.process = self.context.Process(target=_run, args=(game.to_dict(), {"time": seconds}, seed, names, writer),
                                         daemon=True)
        s.process.start()
        writer.close()
        s.conn = reader
        self.by_game[game_id] = s
        asyncio.get_running_loop().run_in_executor(None, self._follow, s, asyncio.get_running_loop())
        return s

    def _follow(self, s: Search, loop: asyncio.AbstractEventLoop) -> None:
        """In a thread: read what the search process sends until it ends."""
        assert s.conn is not None
        try:
            while True:
                try:
                    kind, value = s.conn.recv()
                except (EOFError, OSError):
                    break
                if kind == "progress":
                    s.progress = float(value)
                elif kind == "ranking":
                    s.ranking, s.progress = value, 1.0
                else:
                    s.error = str(value)
                loop.call_soon_threadsafe(s.changed.set)
        finally:
            s.conn.close()
            s.process.join()
            if s.ranking is None and s.error is None:
                s.error = f"the search ended without a ranking (exit status {s.process.exitcode})"
            s.done = True
            loop.call_soon_threadsafe(s.changed.set)

    def stop_all(self) -> None:
        """At shutdown: every search stopped (Ctrl-C, then ended if it does not within a second)."""
        running = [s for s in self.by_game.values() if not s.done and s.process is not None]
        for s in running:
            s.stop()
        deadline = time.monotonic() + 1.0
        for s in running:
            s.process.join(max(0.0, deadline - time.monotonic()))
            if s.process.is_alive():
                s.process.terminate()
