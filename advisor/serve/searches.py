""""What now?": the search of a decision, run in a process of its own so that the server answers
every other request while it runs (the search holds the interpreter while it works).

One search per game at a time. The process gets the game as data (`Game.to_dict`), ranks its
moves with the search's one entry point (`advisor.search.suggest`) and sends its progress, the
ranking so far as the search runs (at most every INTERIM_EVERY seconds), and then the final
ranking (`ranking_json`, as `advisor suggest --json` prints it) back over a pipe. Stop sends it
Ctrl-C (SIGINT): the search answers with the ranking found so far, marked interrupted."""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Callable

from advisor._core import Game

MAX_SECONDS = 120.0
TOP = 8
INTERIM_EVERY = 0.5     # seconds between two rankings so far sent to the page


def _run(state: dict[str, Any], settings: dict[str, Any], seed: int, names: list[str], out: Connection) -> None:
    """The search process: ("progress", share) and ("interim", json) of the ranking so far as it
    runs, then ("ranking", json) or ("error", text)."""
    from advisor.search.analysis import Analysis
    from advisor.search.suggest import ranking_json, suggest
    last = [0.0, 0.0]

    def progress(share: float) -> None:
        if time.monotonic() - last[0] >= 0.2 or share >= 1.0:
            last[0] = time.monotonic()
            out.send(("progress", share))

    def work() -> None:
        game = Game.from_dict(state)

        def interim(a: Analysis) -> None:
            if a.moves and time.monotonic() - last[1] >= INTERIM_EVERY:
                last[1] = time.monotonic()
                out.send(("interim", ranking_json(a, game, names, TOP, None)))
        a = suggest(game, settings, seed=seed, progress=progress, partial=interim)
        out.send(("ranking", ranking_json(a, game, names, TOP, None)))
    _answering(out, "the search was stopped before it ranked a move", work)


def _answering(out: Connection, stopped: str, work: Callable[[], None]) -> None:
    """Run a process's work; a stop before it has an answer, or a game it cannot take, is said
    as ("error", text). The pipe is closed at the end: the server then knows it is done."""
    from advisor.errors import AdvisorError
    try:
        work()
    except KeyboardInterrupt:
        out.send(("error", stopped))
    except AdvisorError as e:
        out.send(("error", str(e)))
    finally:
        out.close()


def _review(state: dict[str, Any], actions: list[int], names: list[str], seat: int, seconds: float,
            out: Connection) -> None:
    """The review process: ("total", n), then ("verdict", json) for each of the seat's decisions
    with a choice (advisor review's judge), then ("summary", json)."""
    from advisor.review.judge import ReviewInterrupted, Verdict, count, review
    from advisor.review.report import clear, summary
    from advisor.review.source import PlayedGame
    from advisor.search.analysis import Limit

    sent = [0]

    def send(v: Verdict) -> None:
        # Stop (SIGINT) held while a verdict is sent and counted: the page gets each verdict once
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            out.send(("verdict", {**v.to_json(), "mistake": clear(v)}))
            sent[0] += 1
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def work() -> None:
        played = PlayedGame(Game.from_dict(state), actions, names, [seat], "the game")
        out.send(("total", count(played, [seat])))
        try:
            verdicts = review(played, [seat], Limit(time=seconds), kept=send)
        except ReviewInterrupted as e:
            verdicts = e.verdicts
            for v in verdicts[sent[0]:]:        # judged, but stopped before it was sent
                send(v)
        out.send(("summary", summary(verdicts, seat)))
    _answering(out, "the review was stopped before it began", work)


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
    final: bool = False         # `ranking` is the search's last (else the ranking so far, as it runs)
    error: str | None = None
    verdicts: list[dict[str, Any]] = field(default_factory=list)      # a review's, as they come
    total: int = 0                                                     # the decisions a review judges
    summary: dict[str, Any] | None = None
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
        out: dict[str, Any] = {"at": self.at, "seconds": self.seconds, "progress": round(self.progress, 3),
                               "done": self.done, "ranking": self.ranking, "final": self.final, "error": self.error}
        if self.total:
            out |= {"verdicts": self.verdicts, "total": self.total, "summary": self.summary}
        return out


class Searches:
    """The searches running or done, one per game (a game's last search kept until the next)."""

    def __init__(self) -> None:
        self.by_game: dict[str, Search] = {}
        self.context = multiprocessing.get_context("spawn")     # no fork of a server's threads

    def running(self, game_id: str) -> Search | None:
        s = self.by_game.get(game_id)
        return s if s is not None and not s.done else None

    def start(self, game_id: str, game: Game, names: list[str], seconds: float, seed: int) -> Search:
        s = Search(game_id, len(game.history), seconds)
        return self._launch(s, _run, (game.to_dict(), {"time": seconds}, seed, names))

    def review(self, game_id: str, start: Game, actions: list[int], names: list[str], seat: int,
               seconds: float) -> Search:
        """Review the seat's decisions of a finished game (`start` and its `actions`), each searched
        `seconds`; kept as the game's search (one at a time), its verdicts streamed as they come."""
        s = Search(game_id, len(actions), seconds)
        return self._launch(s, _review, (start.to_dict(), list(actions), names, seat, seconds))

    def _launch(self, s: Search, target: Any, args: tuple[Any, ...]) -> Search:
        reader, writer = self.context.Pipe(duplex=False)
        s.process = self.context.Process(target=target, args=(*args, writer), daemon=True)
        s.process.start()
        writer.close()
        s.conn = reader
        self.by_game[s.game_id] = s
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
                elif kind == "interim":
                    s.ranking = value
                elif kind == "ranking":
                    s.ranking, s.final, s.progress = value, True, 1.0
                elif kind == "total":
                    s.total = max(1, int(value))
                elif kind == "verdict":
                    s.verdicts.append(value)
                    s.progress = len(s.verdicts) / s.total
                elif kind == "summary":
                    s.summary = value
                else:
                    s.error = str(value)
                loop.call_soon_threadsafe(s.changed.set)
        finally:
            s.conn.close()
            s.process.join()
            if not s.final and s.summary is None and s.error is None:
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
