"""Running planned games: one game in a worker (`play_planned`), the games of a plan on local worker
processes or a Dask cluster, and a whole tournament run with its results file kept as games finish.

A result depends only on the plan, never on the worker count or the order in which workers finish
(`advisor.tournaments.plan`)."""
from __future__ import annotations

import contextlib
import os
import signal
import time
import traceback
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterable, Iterator, Protocol

from advisor.files import FileError, check_regular
from advisor.tournaments.plan import Plan, TournamentError, agent_seed
from advisor.tournaments.records import (ResultsFileError, ResultsWriter, base_record, error_record, results_lock,
                                         resumed_records, reusable_games, sigint_held, worker_name)

MAX_DECISIONS = 100_000        # a game longer than this is an engine bug: recorded as an error


class ClusterError(TournamentError):
    """The Dask cluster cannot be used (not installed, unreachable, no workers, other version)."""


class Runner(Protocol):
    def run(self, games: Iterable[dict[str, Any]]) -> Generator[dict[str, Any], None, None]: ...

    def close(self) -> None: ...


def outlook(index: int, game: Any, a: Any) -> list[Any]:
    """What a search expected of its best move, the one played, compact: [decision index, round,
    seat, every seat's mean final score, every seat's coins still to come, the variance of the
    margin's mean, the search's iterations]."""
    from advisor.search.forecast import seat_coins_to_come
    chosen = a.best
    means = [round(x, 2) for x in chosen.seat_scores] if chosen.seat_scores else None
    return [index, game.round, a.player, means, seat_coins_to_come(game, a.player),
            round(min(chosen.margin_se, 10.0) ** 2, 3), a.iterations]


def play_planned(g: dict[str, Any]) -> dict[str, Any]:
    """Play one planned game (in a worker). Never raises for a game's own failure: the record then
    carries `error` (one line) and `traceback`."""
    from advisor import _core
    from advisor.search.agents import make_agent

    t0 = time.perf_counter()
    players = g["players"]
    agents = []
    try:
        agents = [make_agent(spec, 0) for spec in g["specs"]]
        if g.get("automa"):          # solo: the Automa plays seat 1 inside the core
            game = _core.Game.new(players, g["seed"], g["printing"], automa=g["automa"])
        else:
            game = _core.Game.new(players, g["seed"], g["printing"])
        for i, a in enumerate(agents):
            a.reset(agent_seed(g["seed"], i))
        decisions = [0] * len(agents)
        think = [0.0] * len(agents)
        actions: list[int] = []         # every decision, for `advisor review --game KEY`
        outlooks: list[list[Any]] = []  # every search's outlook, for forecasts (bench/fit_forecast.py)
        n = 0
        while not game.is_terminal():
            seat = game.decider
            before = getattr(agents[seat], "last", None)
            t = time.perf_counter()
            action = agents[seat].choose(game)
            think[seat] += time.perf_counter() - t
            searched = getattr(agents[seat], "last", None)
            if searched is not before:
                outlooks.append(outlook(len(actions), game, searched))
            game.apply(action)
            actions.append(action)
            decisions[seat] += 1
            n += 1
            if n >= MAX_DECISIONS:
                raise RuntimeError(f"the game did not end after {MAX_DECISIONS} decisions")
        n = len(agents)
        scores = list(game.scores())
        breakdown = [dict(b) for b in game.score_breakdown()]
        winners = list(game.winners())           # seat indices; in solo seat 1 is the Automa
        # each round's objective as scored: the count and the VP its rank took, seat by seat
        objectives = [{"count": P["objective_count"], "vp": P["objective_vp"]}
                      for P in game.to_dict()["core"]["players"]]
        rec = base_record(g)
        if len(scores) > n:
            rec["automa"].update(score=scores[n], breakdown=breakdown[n], round_objectives=objectives[n])
        rec.update(scores=scores[:n], breakdown=breakdown[:n], round_objectives=objectives[:n], winners=winners,
                   winner_agents=[g["agents"][w] if w < n else "automa" for w in winners],
                   decisions=decisions, actions=actions, outlooks=outlooks, think_seconds=[round(x, 6) for x in think], error=None,
                   seconds=round(time.perf_counter() - t0, 4), worker=worker_name())
        return rec
    except Exception as e:          # recorded; KeyboardInterrupt and SystemExit still stop the run
        msg = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
        return error_record(g, msg, traceback.format_exc(limit=-12), time.perf_counter() - t0)
    finally:
        for a in agents:
            a.close()


def _init_worker(parent: tuple[int | None, bool] = (None, False)) -> None:
    from advisor.search.workers import end_with_parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)    # a worker killed alone ends; its game is played again
    end_with_parent(*parent)                         # a killed run leaves no worker playing on


def _worker_info() -> dict[str, str]:
    import platform

    import advisor
    return {"advisor": advisor.__version__, "python": platform.python_version()}


class LocalRunner:
    """Games on local worker processes (concurrent.futures); `workers=1` plays in this process."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, int(workers))

    def close(self) -> None:
        pass

    def run(self, games: Iterable[dict[str, Any]]) -> Generator[dict[str, Any], None, None]:
        """Records as games finish (any order). Pulls `games` lazily, a few per worker in flight;
        closing the iterator cancels what is still running."""
        if self.workers == 1:
            for g in games:
                yield play_planned(g)
            return
        yield from self._run_pool(iter(games))

    def _pool(self, n: int) -> ProcessPoolExecutor:
        from advisor.search.workers import parent_for_workers
        return ProcessPoolExecutor(max_workers=n, initializer=_init_worker, initargs=(parent_for_workers(),))

    @staticmethod
    def _kill(ex: ProcessPoolExecutor) -> None:
        procs = list((getattr(ex, "_processes", None) or {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            with contextlib.suppress(Exception):
                p.terminate()
        for p in procs:
            with contextlib.suppress(Exception):
                p.join(timeout=2)

    def _alone(self, g: dict[str, Any]) -> dict[str, Any]:
        """Replay one game alone in a fresh process after its pool broke: a game whose process dies
        again is recorded as an error, any other plays normally."""
        from concurrent.futures.process import BrokenProcessPool
        ex = self._pool(1)
        try:
            return ex.submit(play_planned, g).result()
        except BrokenProcessPool:
            return error_record(g, "the worker process died while playing this game (a crash or a kill)")
        finally:
            self._kill(ex)

    def _run_pool(self, it: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        depth = self.workers * 3
        ex = self._pool(self.workers)
        pending: dict[Future[dict[str, Any]], dict[str, Any]] = {}
        exhausted = False
        try:
            while True:
                broken: list[dict[str, Any]] = []
                while not exhausted and len(pending) < depth:
                    g = next(it, None)
                    if g is None:
                        exhausted = True
                        break
                    try:
                        pending[ex.submit(play_planned, g)] = g
                    except BrokenProcessPool:   # a worker died since the last wait
                        broken.append(g)
                        break
                if not pending and not broken:
                    return
                done, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                for f in done:
                    g = pending.pop(f)
                    try:
                        rec = f.result()
                    except BrokenProcessPool:
                        broken.append(g)
                        continue
                    yield rec
                if broken:
                    # A worker died (killed, out of memory, a crash in the core): every game in flight
                    # is lost with the pool. Replay each alone to find the culprit, then go on.
                    suspects = broken + list(pending.values())
                    pending.clear()
                    self._kill(ex)
                    for g in suspects:
                        yield self._alone(g)
                    ex = self._pool(self.workers)
        finally:
            for f in pending:
                f.cancel()
            self._kill(ex)


class DaskRunner:
    """The same games on an existing Dask distributed cluster (`dask.distributed.Client`)."""

    def __init__(self, address: str, timeout: float = 15.0) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("--scheduler needs dask: pip install 'wyrmspan-advisor[cluster]'") from None
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        try:
            infos = self.client.run(_worker_info)
        except Exception as e:
            self.close()
            raise ClusterError(f"the Dask workers at {address} cannot run the advisor: {type(e).__name__}: {e}") from None
        if not infos:
            self.close()
            raise ClusterError(f"the Dask cluster at {address} has no workers")
        mine = _worker_info()["advisor"]
        other = {w: i.get("advisor") for w, i in infos.items() if i.get("advisor") != mine}
        if other:
            self.close()
            w, v = next(iter(other.items()))
            raise ClusterError(f"Dask worker {w} runs advisor {v}, this machine {mine}: install the same version")
        self.workers = len(infos)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()

    def run(self, games: Iterable[dict[str, Any]]) -> Generator[dict[str, Any], None, None]:
        from distributed import as_completed

        it = iter(games)
        depth = self.workers * 4
        live: dict[Any, tuple[Any, dict[str, Any]]] = {}                      # future key -> (future, game)
        ac = as_completed(loop=self.client.loop)

        def submit() -> None:
            g = next(it, None)
            if g is not None:
                f = self.client.submit(play_planned, g, pure=False)
                live[f.key] = (f, g)
                ac.add(f)

        try:
            for _ in range(depth):
                submit()
            for f in ac:
                _, g = live.pop(f.key)
                try:
                    rec = f.result()
                except Exception as e:       # e.g. KilledWorker: the scheduler gave the game up
                    rec = error_record(g, f"{type(e).__name__}: {e}".splitlines()[0])
                f.release()
                yield rec
                submit()
        finally:
            if live:
                with contextlib.suppress(Exception):
                    self.client.cancel([f for f, _ in live.values()])


def make_runner(workers: int = 1, scheduler: str | None = None) -> Runner:
    """The Dask runner for a scheduler address, else local worker processes."""
    return DaskRunner(scheduler) if scheduler else LocalRunner(workers)


# ---------------------------------------------------------------------------------- running
def progress_bar(total: int, progress: bool | None, initial: int = 0) -> Any:
    """A tqdm bar of games on stderr: always (True), never (False), or when stderr is a terminal
    (None). Returns None when there is none."""
    if progress is False:
        return None
    from tqdm import tqdm

    class _Bar(tqdm):
        monitor_interval = 0         # no monitor thread: worker processes are forked after this
    return _Bar(total=total, initial=initial, unit="game", desc="games",
                disable=None if progress is None else False, dynamic_ncols=True, smoothing=0.05)


@dataclass
class TournamentRun:
    plan: Plan
    records: dict[str, dict[str, Any]]   # key -> record (a successful one if any)
    played: int = 0                 # games played by this run
    resumed: int = 0                # games already in the file
    reused: int = 0                 # solo games taken from other tournaments' results (`reuse`)
    interrupted: bool = False
    out: str | None = None

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [r for r in self.records.values() if r.get("error")]

    @property
    def missing(self) -> int:
        return len(self.plan.games) - len(self.records)


def run_tournament(plan: Plan, out: str | os.PathLike[str] | None = None, resume: bool = False, workers: int = 1,
                   scheduler: str | None = None, progress: bool | None = False,
                   on_record: Callable[[dict[str, Any]], None] | None = None,
                   reuse: Iterable[str | os.PathLike[str]] = (),
                   log: Callable[[str], None] | None = None) -> TournamentRun:
    """Play every planned game not yet in `out` and append each record to it as it finishes.
    `reuse`: results files whose solo games stand in for the same planned games
    (`reusable_games`); they are copied into `out` instead of being played. `out` is locked for the
    run (OUT.lock): a second run on it stops with a ResultsFileError. `log` hears, on resume, how
    many games the file kept and how many this run will play.

    Ctrl-C stops the run: every finished game is in the file, whole; `interrupted` is set."""
    if out is None:
        if resume:
            raise TournamentError("--resume needs --out FILE (the results to resume)")
        return _run(plan, None, {}, 0, None, workers, scheduler, progress, on_record, reuse, None)
    path = os.fspath(out)
    try:
        check_regular(path, "results file")     # before OUT.lock is made beside it
    except FileError as e:
        raise ResultsFileError(str(e)) from None
    with results_lock(path):
        records, whole, tail = resumed_records(plan, path, resume)
        return _run(plan, path, records, whole, tail, workers, scheduler, progress, on_record, reuse,
                    log if resume else None)


def _run(plan: Plan, out: str | None, records: dict[str, dict[str, Any]], whole: int, tail: bool | None,
         workers: int, scheduler: str | None, progress: bool | None,
         on_record: Callable[[dict[str, Any]], None] | None, reuse: Iterable[str | os.PathLike[str]],
         log: Callable[[str], None] | None) -> TournamentRun:
    done = {k for k, r in records.items() if not r.get("error")}
    borrowed = {k: r for k, r in reusable_games(plan, reuse).items() if k not in done}
    run = TournamentRun(plan, records, resumed=len(done), out=out, reused=len(borrowed))
    n_kept = len(done)
    done |= borrowed.keys()
    todo = [g for g in plan.games if g.key not in done]     # games that raised are played again
    if log is not None:
        again = sum(1 for g in todo if g.key in records)      # recorded with an error
        log(f"resuming {out}: {n_kept} of {len(plan.games)} games kept, {len(todo)} to play"
            + (f" ({again} of them raised an error before)" if again else "")
            + (f", {len(borrowed)} taken from --reuse" if borrowed else ""))
    if not todo and not borrowed:
        return run
    writer = ResultsWriter(out, whole, tail) if out is not None else None
    for k, rec in borrowed.items():
        if writer is not None:
            writer.append(rec)
        records[k] = rec
    if not todo:
        if writer is not None:
            writer.close()
        return run
    try:
        runner = make_runner(workers, scheduler)
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    bar = progress_bar(len(plan.games), progress, initial=len(done))
    stream = runner.run(g.to_dict() for g in todo)
    n_err = 0
    try:
        for rec in stream:
            if writer is not None:
                writer.append(rec)
            records[rec["key"]] = rec
            run.played += 1
            if rec.get("error"):
                n_err += 1
            if on_record is not None:
                on_record(rec)
            if bar is not None:
                bar.update(1)
                if n_err:
                    bar.set_postfix(errors=n_err, refresh=False)
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        with sigint_held():
            stream.close()
            runner.close()
            if bar is not None:
                bar.close()
            if writer is not None:
                writer.close()
    return run


