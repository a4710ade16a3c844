"""AI-vs-AI tournaments: planning, running (local processes or a Dask cluster), JSONL results with
resume, and the report's statistics.

Every game is planned in the parent from the tournament seed: its game seed, its seating and the
agent specs of every seat. Agents are built inside the worker from their spec strings and seeded
from the planned game seed exactly as `advisor.search.agents.play_game` seeds them (seat i gets
`seed * 31 + i`), so a result depends only on the plan, never on the worker count or the order in
which workers finish, and any recorded game can be replayed with `play_game`.

Games are played as duplicate deals: one game seed per deal, the same lineup with its seats
rotated through every distinct rotation, which takes most of the luck of the draw out of the
comparison. The statistics (docs/tournaments.md) treat a deal as the independent unit."""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import signal
import socket
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from advisor.errors import AdvisorError

SCHEMA_VERSION = 1
# Bump when a change makes some agent play other moves with the same spec and settings (a rule, the
# heuristic, a rollout): records of another play version are never resumed or reused as today's
# player. Records written before the field are version 1.
PLAY_VERSION = 3
MAX_DECISIONS = 100_000        # a game longer than this is an engine bug: recorded as an error
Z95 = 1.959963984540054         # two-sided 95% normal quantile
SCORE_PARTS = ("guild", "dragons", "end_game", "eggs", "cached", "tucked", "objectives", "coins", "items", "caves")
_TIMING_FIELDS = ("seconds", "think_seconds", "worker")


def play_version(rec: dict) -> int:
    """The play version a record was played by (1 before records said)."""
    return rec.get("play", 1)


class TournamentError(AdvisorError):
    """A tournament cannot be planned or run as asked."""


class ResultsFileError(TournamentError):
    """A results file cannot be read, or holds something other than this tournament's games."""


class ClusterError(TournamentError):
    """The Dask cluster cannot be used (not installed, unreachable, no workers, other version)."""


# ---------------------------------------------------------------------------------- agents
def parse_agent_option(text: str) -> tuple[str, str]:
    """`NAME=SPEC` or a bare `SPEC` (named after itself) -> (name, spec)."""
    text = text.strip()
    head, eq, rest = text.partition("=")
    if eq and ":" not in head and head.strip():
        name, spec = head.strip(), rest.strip()
    else:
        name, spec = text, text
    if not spec:
        raise TournamentError(f"--agent '{text}': empty agent spec (expected NAME=SPEC, e.g. A=ismcts:iterations=200)")
    if any(c in name for c in ",\n\t") or not name:
        raise TournamentError(f"--agent '{text}': bad agent name '{name}'")
    return name, spec


def check_agents(agents: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Validate names (unique) and specs (buildable); returns them with specs normalised."""
    from advisor.search.agents import make_agent

    if not agents:
        raise TournamentError("no agents: give at least one --agent NAME=SPEC")
    seen = set()
    out = []
    for name, spec in agents:
        if name in seen:
            raise TournamentError(f"agent name '{name}' is given twice; names must be unique")
        seen.add(name)
        try:
            make_agent(spec, 0)
        except AdvisorError as e:
            raise TournamentError(f"agent '{name}': {e}") from None
        out.append((name, spec.strip()))
    return out


def time_budgeted(spec: str) -> bool:
    """True when the spec's search stops on the clock (its games are then not reproducible)."""
    from advisor.search.agents import parse_spec
    from advisor.search.params import parse_settings
    name, settings = parse_spec(spec)
    if name != "ismcts":
        return False
    s = parse_settings(settings)
    return s["time"] > 0


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in `seat`: the same as `advisor.search.agents.play_game` uses."""
    return game_seed * 31 + seat


# ---------------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class PlannedGame:
    tournament: str
    key: str
    deal: int
    game: int                  # index within the deal
    seed: int                  # game seed (the deal's seed)
    players: int
    printing: str
    agents: tuple[str, ...]    # agent name per seat
    specs: tuple[str, ...]     # agent spec per seat
    automa: str | None = None  # solo: the Automa's level

    def to_dict(self) -> dict:
        return {"tournament": self.tournament, "key": self.key, "deal": self.deal, "game": self.game,
                "seed": self.seed, "players": self.players, "printing": self.printing,
                "agents": list(self.agents), "specs": list(self.specs), "automa": self.automa}


@dataclass
class Plan:
    id: str
    seed: int
    players: int
    printing: str
    agents: list[tuple[str, str]]
    games: list[PlannedGame]
    deals: int
    requested: int
    automa: str | None = None

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self.agents]

    def keys(self) -> set[str]:
        return {g.key for g in self.games}


def tournament_id(agents, players: int, seed: int, printing: str, lineup=None, automa: str | None = None) -> str:
    d = {"v": SCHEMA_VERSION, "agents": [list(a) for a in agents], "players": players, "seed": seed,
         "printing": printing, "lineup": list(lineup) if lineup else None}
    if players == 1:
        d["automa"] = automa
    blob = json.dumps(d, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of a deal: 48 bits hashed from (tournament seed, deal number)."""
    h = hashlib.blake2b(f"wyrmspan-deal:{seed}:{deal}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") >> 16


def rotations(lineup: tuple) -> list[tuple]:
    """The distinct cyclic rotations of a seating (A,B,A,B has two, A,B,C three)."""
    out = []
    for r in range(len(lineup)):
        t = tuple(lineup[r:]) + tuple(lineup[:r])
        if t not in out:
            out.append(t)
    return out


def deal_lineups(names: list[str], players: int, deal: int, lineup=None, _combos=None) -> list[tuple]:
    """The seatings played in one deal.

    Solo: every agent plays the deal's seed once. Otherwise one lineup of `players` seats with all its
    distinct rotations: with at most as many agents as seats, the agents in turn fill the seats
    (starting from a different agent each deal, so extra seats are shared out evenly); with more
    agents than seats, deal d takes the d-th combination of agents, cycling."""
    if lineup is not None:
        return rotations(tuple(lineup))
    k = len(names)
    if players == 1:
        return [(n,) for n in names]
    if k <= players:
        base = tuple(names[(deal + i) % k] for i in range(players))
    else:
        combos = _combos if _combos is not None else list(itertools.combinations(range(k), players))
        base = tuple(names[i] for i in combos[deal % len(combos)])
    return rotations(base)


def plan_tournament(agents: list[tuple[str, str]], players: int, games: int, seed: int = 0,
                    printing: str = "base", lineup=None, automa: str = "2") -> Plan:
    """Plan whole deals until at least `games` games are planned. `automa`: the Automa's level in
    solo games (1, 2, 3, R1, R2, R3)."""
    if not 1 <= players <= 5:
        raise TournamentError(f"players must be 1 to 5, got {players}")
    if games < 1:
        raise TournamentError("the tournament needs at least one game")
    names = [n for n, _ in agents]
    specs = dict(agents)
    if lineup is not None:
        if len(lineup) != players or any(n not in specs for n in lineup):
            raise TournamentError(f"lineup {lineup} does not fit {players} players and agents {names}")
    combos = None
    if lineup is None and players > 1 and len(names) > players:
        if math.comb(len(names), players) > 100_000:
            raise TournamentError(f"{len(names)} agents in {players}-player games: too many lineups")
        combos = list(itertools.combinations(range(len(names)), players))
    automa = str(automa).upper() if players == 1 else None
    tid = tournament_id(agents, players, seed, printing, lineup, automa)
    planned: list[PlannedGame] = []
    seeds: set[int] = set()
    deal = 0
    while len(planned) < games:
        s = deal_seed(seed, deal)
        salt = 0
        while s in seeds:                  # never reuse a seed within a tournament
            salt += 1
            s = deal_seed(seed, deal * 1_000_003 + salt + 10**12)
        seeds.add(s)
        for i, seating in enumerate(deal_lineups(names, players, deal, lineup, combos)):
            planned.append(PlannedGame(tid, f"d{deal}.g{i}", deal, i, s, players, printing, seating,
                                       tuple(specs[n] for n in seating), automa))
        deal += 1
    return Plan(tid, seed, players, printing, list(agents), planned, deal, games, automa)


# ---------------------------------------------------------------------------------- playing
def resolved_settings(spec: str, players: int) -> dict | None:
    """Every search setting an ismcts spec plays with (its own over the defaults of the game's
    kind, which may change between versions); None for agents without settings."""
    from advisor.search.agents import parse_spec
    from advisor.search.params import parse_settings
    name, items = parse_spec(spec)
    return parse_settings(items, solo=players == 1) if name == "ismcts" else None


def settings_changed(then: dict | None, now: dict | None) -> list[str]:
    """The settings a recorded seat played with that its spec no longer resolves to (`now`): a
    changed default, or a parameter since removed. A parameter added since the record was written
    played as its default (a new parameter's default keeps the old play), so only the record's own
    settings count; agents without settings never differ."""
    if then is None or now is None:
        return []
    return [k for k, v in then.items() if k not in now or now[k] != v]


def _base_record(g: dict) -> dict:
    rec = {"v": SCHEMA_VERSION, "tournament": g["tournament"], "key": g["key"], "deal": g["deal"],
           "game": g["game"], "players": g["players"], "printing": g["printing"], "seed": g["seed"],
           "seats": [{"agent": a, "spec": s, "seed": agent_seed(g["seed"], i)}
                     for i, (a, s) in enumerate(zip(g["agents"], g["specs"]))], "play": PLAY_VERSION}
    for seat in rec["seats"]:
        settings = resolved_settings(seat["spec"], g["players"])
        if settings is not None:
            seat["settings"] = settings
    if g.get("automa"):
        rec["automa"] = {"level": g["automa"]}
    return rec


def error_record(g: dict, message: str, tb: str | None = None, seconds: float = 0.0) -> dict:
    rec = _base_record(g)
    rec.update(error=message, traceback=tb, seconds=round(seconds, 4), worker=_worker_name())
    return rec


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def play_planned(g: dict) -> dict:
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
        n = 0
        while not game.is_terminal():
            seat = game.decider
            t = time.perf_counter()
            action = agents[seat].choose(game)
            think[seat] += time.perf_counter() - t
            game.apply(action)
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
        rec = _base_record(g)
        if len(scores) > n:
            rec["automa"].update(score=scores[n], breakdown=breakdown[n], round_objectives=objectives[n])
        rec.update(scores=scores[:n], breakdown=breakdown[:n], round_objectives=objectives[:n], winners=winners,
                   winner_agents=[g["agents"][w] if w < n else "automa" for w in winners],
                   decisions=decisions, think_seconds=[round(x, 6) for x in think], error=None,
                   seconds=round(time.perf_counter() - t0, 4), worker=_worker_name())
        return rec
    except Exception as e:          # recorded; KeyboardInterrupt and SystemExit still stop the run
        msg = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
        return error_record(g, msg, traceback.format_exc(limit=-12), time.perf_counter() - t0)
    finally:
        for a in agents:
            a.close()


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the parent's to handle


def _worker_info() -> dict:
    import platform

    import advisor
    return {"advisor": advisor.__version__, "python": platform.python_version()}


class LocalRunner:
    """Games on local worker processes (concurrent.futures); `workers=1` plays in this process."""

    def __init__(self, workers: int = 1):
        self.workers = max(1, int(workers))

    def close(self) -> None:
        pass

    def run(self, games: Iterable[dict]) -> Iterator[dict]:
        """Records as games finish (any order). Pulls `games` lazily, a few per worker in flight;
        closing the iterator cancels what is still running."""
        if self.workers == 1:
            for g in games:
                yield play_planned(g)
            return
        yield from self._run_pool(iter(games))

    def _pool(self, n: int):
        from concurrent.futures import ProcessPoolExecutor
        return ProcessPoolExecutor(max_workers=n, initializer=_init_worker)

    @staticmethod
    def _kill(ex) -> None:
        procs = list((getattr(ex, "_processes", None) or {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            with contextlib.suppress(Exception):
                p.terminate()
        for p in procs:
            with contextlib.suppress(Exception):
                p.join(timeout=2)

    def _alone(self, g: dict) -> dict:
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

    def _run_pool(self, it: Iterator[dict]) -> Iterator[dict]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        depth = self.workers * 3
        ex = self._pool(self.workers)
        pending: dict = {}
        exhausted = False
        try:
            while True:
                broken = []
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

    def __init__(self, address: str, timeout: float = 15.0):
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("--scheduler needs dask.distributed: pip install 'wyrmspan-advisor[cluster]'") from None
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

    def run(self, games: Iterable[dict]) -> Iterator[dict]:
        from distributed import as_completed

        it = iter(games)
        depth = self.workers * 4
        live: dict = {}                      # future key -> (future, game)
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


def make_runner(workers: int = 1, scheduler: str | None = None):
    return DaskRunner(scheduler) if scheduler else LocalRunner(workers)


# ---------------------------------------------------------------------------------- results file
def load_results(path) -> tuple[list[dict], int, bool | None]:
    """The records of a results file, the byte length of its whole lines, and what follows the last
    newline: None (nothing), True (a whole record without its newline) or False (a line cut off
    mid-write by a kill, dropped on resume)."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return [], 0, None
    except OSError as e:
        raise ResultsFileError(f"cannot read {name}: {e.strerror or e}") from None
    records = []
    lines = raw.split(b"\n")
    tail = lines.pop()                  # text after the last newline (b'' when the file ends whole)
    for n, line in enumerate(lines, 1):
        if line.strip():
            records.append(_parse_line(name, n, line))
    whole = len(raw) - len(tail)
    if not tail.strip():
        return records, whole, None
    try:
        records.append(_parse_line(name, len(lines) + 1, tail))
        return records, whole, True
    except ResultsFileError:
        return records, whole, False


def _parse_line(name: str, n: int, line: bytes) -> dict:
    try:
        rec = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsFileError(f"{name}:{n}: not a JSON game record ({e.__class__.__name__})") from None
    if not isinstance(rec, dict) or not {"tournament", "key", "seats"} <= rec.keys():
        raise ResultsFileError(f"{name}:{n}: not a game record of `advisor tournament` "
                               "(needs tournament, key and seats)")
    if rec.get("v") != SCHEMA_VERSION:
        raise ResultsFileError(f"{name}:{n}: results format version {rec.get('v')!r}, expected {SCHEMA_VERSION}")
    return rec


class ResultsWriter:
    """Appends one whole, flushed line per game (O_APPEND; Ctrl-C is held off during a write)."""

    def __init__(self, path, whole: int = 0, tail: bool | None = None):
        self.path = os.fspath(path)
        self.fd = None
        try:
            if tail is False:                   # drop a line cut off by a kill
                os.truncate(self.path, whole)
            self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if tail is True:                    # a whole last record without its newline
                os.write(self.fd, b"\n")
        except OSError as e:
            raise ResultsFileError(f"cannot write {self.path}: {e.strerror or e}") from None
        self.last_sync = time.monotonic()

    def append(self, rec: dict) -> None:
        data = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
        with _sigint_held():
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        if time.monotonic() - self.last_sync > 2.0:
            os.fsync(self.fd)
            self.last_sync = time.monotonic()

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self.fd)
            os.close(self.fd)
            self.fd = None


@contextlib.contextmanager
def _sigint_held():
    """Defer a Ctrl-C that arrives during the block to its end (so a line is never half written)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got = []
    try:
        old = signal.signal(signal.SIGINT, lambda *_: got.append(1))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if got:
            raise KeyboardInterrupt


# ---------------------------------------------------------------------------------- running
@dataclass
class TournamentRun:
    plan: Plan
    records: dict[str, dict]        # key -> record (a successful one if any)
    played: int = 0                 # games played by this run
    resumed: int = 0                # games already in the file
    reused: int = 0                 # solo games taken from other tournaments' results (`reuse`)
    interrupted: bool = False
    out: str | None = None

    @property
    def errors(self) -> list[dict]:
        return [r for r in self.records.values() if r.get("error")]

    @property
    def missing(self) -> int:
        return len(self.plan.games) - len(self.records)


def reusable_games(plan: Plan, paths: Iterable) -> dict[str, dict]:
    """Planned solo games already played in other tournaments' results files: same deal seed,
    printing, Automa level, agent spec (the name may differ) and, where the record has them, the
    search settings the spec resolved to (so a changed default is never mistaken for the same
    player). In solo a game's outcome depends on nothing else, so a new agent can be compared on
    the same deals without replaying the old ones. Returns key -> the record, renamed into this
    tournament (with `reused` saying whence)."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        return {}
    if plan.players != 1:
        raise TournamentError("--reuse takes solo games only (--players 1 against the Automa): with more "
                              "seats a game's outcome depends on every agent at the table")
    found: dict[tuple, list[tuple[str, dict]]] = {}
    for path in paths:
        if not os.path.isfile(path):
            raise ResultsFileError(f"--reuse {path}: no such results file")
        for rec in load_results(path)[0]:
            if (rec.get("error") or rec.get("players") != 1 or len(rec["seats"]) != 1
                    or play_version(rec) != PLAY_VERSION):
                continue
            what = (rec.get("seed"), rec.get("printing"), (rec.get("automa") or {}).get("level"),
                    rec["seats"][0].get("spec"))
            found.setdefault(what, []).append((path, rec))
    out = {}
    now = {spec: resolved_settings(spec, 1) for spec in {g.specs[0] for g in plan.games}}
    for g in plan.games:
        hit = next(((path, rec) for path, rec in found.get((g.seed, g.printing, g.automa, g.specs[0]), [])
                    if not settings_changed(rec["seats"][0].get("settings"), now[g.specs[0]])), None)
        if hit is None:
            continue
        path, rec = hit
        rec = dict(rec, tournament=plan.id, key=g.key, deal=g.deal, game=g.game,
                   seats=[dict(rec["seats"][0], agent=g.agents[0])],
                   winner_agents=[g.agents[0] if w == 0 else "automa" for w in rec.get("winners", [])],
                   reused={"file": path, "tournament": rec["tournament"], "key": rec["key"]})
        out[g.key] = rec
    return out


def run_tournament(plan: Plan, out=None, resume: bool = False, workers: int = 1,
                   scheduler: str | None = None, progress: bool | None = False,
                   on_record: Callable[[dict], None] | None = None, reuse: Iterable = ()) -> TournamentRun:
    """Play every planned game not yet in `out` and append each record to it as it finishes.
    `reuse`: results files whose solo games stand in for the same planned games
    (`reusable_games`); they are copied into `out` instead of being played.

    Ctrl-C stops the run: every finished game is in the file, whole; `interrupted` is set."""
    records: dict[str, dict] = {}
    whole, tail = 0, None
    if out is not None:
        out = os.fspath(out)
        if os.path.isdir(out):
            raise ResultsFileError(f"{out} is a directory, not a results file")
        existing, whole, tail = load_results(out)
        if existing and not resume:
            raise ResultsFileError(f"{out} already holds {len(existing)} game records: pass --resume to "
                                   "finish that tournament, or choose another --out")
        keys = plan.keys()
        now = {spec: resolved_settings(spec, plan.players) for spec in {s for g in plan.games for s in g.specs}}
        for n, rec in enumerate(existing, 1):
            if rec["tournament"] != plan.id:
                raise ResultsFileError(
                    f"{out} holds games of another tournament ({rec['tournament']}, record {n}); this one is "
                    f"{plan.id}: the agents, --players, --seed, --printing or --automa-level differ. Use another --out")
            if play_version(rec) != PLAY_VERSION:
                raise ResultsFileError(
                    f"{out}: record {n} was played by play version {play_version(rec)} of the engine, this one "
                    f"plays version {PLAY_VERSION} (the same settings choose other moves now): its games cannot "
                    "be resumed as the same player. Use another --out")
            for seat in rec["seats"]:
                changed = settings_changed(seat.get("settings"), now.get(seat["spec"]))
                if changed:
                    k = changed[0]
                    raise ResultsFileError(
                        f"{out}: record {n} ({seat['agent']}) played {k}={seat['settings'][k]!r}, but "
                        f"{seat['spec']} now plays {k}={(now[seat['spec']] or {}).get(k, '(no such setting)')!r} "
                        "(a default changed): its games cannot be resumed as the same player. Use another --out")
            prev = records.get(rec["key"])
            if rec["key"] in keys and (prev is None or prev.get("error")):
                records[rec["key"]] = rec        # the first success counts; an error can be replaced
    elif resume:
        raise TournamentError("--resume needs --out FILE (the results to resume)")
    done = {k for k, r in records.items() if not r.get("error")}
    borrowed = {k: r for k, r in reusable_games(plan, reuse).items() if k not in done}
    run = TournamentRun(plan, records, resumed=len(done), out=out, reused=len(borrowed))
    done |= borrowed.keys()
    todo = [g for g in plan.games if g.key not in done]     # games that raised are played again
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
    bar = None
    if progress is not False:
        from tqdm import tqdm

        class _Bar(tqdm):
            monitor_interval = 0         # no monitor thread: worker processes are forked after this
        bar = _Bar(total=len(plan.games), initial=len(done), unit="game", desc="games",
                   disable=None if progress is None else False, dynamic_ncols=True, smoothing=0.05)
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
        with _sigint_held():
            stream.close()
            runner.close()
            if bar is not None:
                bar.close()
            if writer is not None:
                writer.close()
    return run


# ---------------------------------------------------------------------------------- statistics
def win_shares(rec: dict) -> list[float]:
    """Per seat: 1 for the sole winner, 1/k for each of k tied winners, else 0."""
    w = rec["winners"]
    return [1.0 / len(w) if i in w else 0.0 for i in range(len(rec["seats"]))]


def ratio_ci(ys, ns):
    """Ratio estimate sum(y)/sum(n) over clusters with its cluster-robust standard error."""
    Y, N, D = sum(ys), sum(ns), len(ns)
    if N == 0:
        return None, None
    r = Y / N
    if D < 2:
        return r, None
    var = D / (D - 1) * sum((y - r * n) ** 2 for y, n in zip(ys, ns)) / N ** 2
    return r, math.sqrt(var)


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / d
    return (0.0 if p <= 0 else max(0.0, c - h)), (1.0 if p >= 1 else min(1.0, c + h))


def proportion_ci(ys, ns) -> tuple[float | None, list | None]:
    """A win rate over clustered games: the Wilson interval at the effective sample size that the
    cluster-robust variance implies (never more than the number of games)."""
    r, se = ratio_ci(ys, ns)
    if r is None:
        return None, None
    N = sum(ns)
    if se is None:
        return r, None
    n_eff = N if se == 0 or r in (0.0, 1.0) else min(N, r * (1 - r) / se ** 2)
    return r, list(wilson(r, n_eff))


def mean_ci(values) -> tuple[float | None, list | None, float | None]:
    """Mean of independent values (one per deal) with a normal 95% interval."""
    n = len(values)
    if n == 0:
        return None, None, None
    m = sum(values) / n
    if n < 2:
        return m, None, None
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    se = sd / math.sqrt(n)
    return m, [m - Z95 * se, m + Z95 * se], se


def comparison_groups(records: list[dict]) -> dict[int, list[list[tuple[str, float]]]]:
    """deal -> groups of (agent, score) that played the same cards against each other: each game,
    or, in solo tournaments, the deal's games side by side (the same seed against the Automa)."""
    deals: dict[int, list] = {}
    for r in records:
        seats = [(s["agent"], float(sc)) for s, sc in zip(r["seats"], r["scores"])]
        deals.setdefault(r["deal"], []).append(seats)
    if records and records[0]["players"] == 1:
        return {d: [[s for g in gs for s in g]] for d, gs in deals.items()}
    return deals


def pair_stats(records: list[dict], a: str, b: str) -> dict:
    """A's margin over B (mean score of A's seats minus B's) and A's share of the A-B comparisons it
    won, from the games where both played: averaged within each deal, then over deals (the paired
    estimate; its interval comes from the spread between deals)."""
    margins, ahead_sum, ahead_n, groups = [], [], [], 0
    for d, gs in sorted(comparison_groups(records).items()):
        dm, da = [], []
        for g in gs:
            sa = [s for n, s in g if n == a]
            sb = [s for n, s in g if n == b]
            if not sa or not sb:
                continue
            groups += 1
            dm.append(sum(sa) / len(sa) - sum(sb) / len(sb))
            da.append(sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in sa for y in sb) / (len(sa) * len(sb)))
        if dm:
            margins.append(sum(dm) / len(dm))
            ahead_sum.append(sum(da))
            ahead_n.append(len(da))
    m, mci, _ = mean_ci(margins)
    h, hci = proportion_ci(ahead_sum, ahead_n)
    return {"a": a, "b": b, "games": groups, "deals": len(margins), "margin": m, "margin_ci": mci,
            "a_ahead": h, "a_ahead_ci": hci}


def _rankings(records: list[dict], index: dict[str, int]):
    """(deal, weight, [agent index best first]) for every ordering of every comparison group; tied
    scores count as every order of the tied agents, equally weighted."""
    out = []
    for d, gs in comparison_groups(records).items():
        for g in gs:
            if len(g) < 2:
                continue
            by_score: dict[float, list[int]] = {}
            for n, s in g:
                by_score.setdefault(s, []).append(index[n])
            blocks = [by_score[s] for s in sorted(by_score, reverse=True)]
            options = [list(itertools.permutations(b)) if len(b) <= 5 else [tuple(sorted(b))] for b in blocks]
            total = math.prod(len(o) for o in options)
            for combo in itertools.product(*options):
                out.append((d, 1.0 / total, [i for block in combo for i in block]))
    return out


def plackett_luce(records: list[dict], names: list[str], prior: float = 1.0, bootstrap: int = 200,
                  seed: int = 0) -> dict:
    """Plackett-Luce strengths from the finishing orders (Bradley-Terry for two seats), fitted by
    Hunter's MM algorithm, on the Elo scale (400 log10 of the strength ratio), centred on the mean
    of the agents that played. `prior`: each agent also draws one win and one loss against a
    virtual reference, which keeps ratings finite when an agent won or lost every game. Intervals:
    percentiles of refits on deals resampled with replacement."""
    import numpy as np

    index = {n: i for i, n in enumerate(names)}
    K = len(names)
    ranks = _rankings(records, index)
    played = sorted({i for _, _, order in ranks for i in order})
    result = {"model": "plackett-luce" if any(len(o) > 2 for _, _, o in ranks) else "bradley-terry",
              "scale": "elo", "prior": prior, "bootstrap": bootstrap,
              "ratings": {n: None for n in names}, "ci": {n: None for n in names}}
    if len(played) < 2:
        return result
    rows, chosen, weight, deal_of = [], [], [], []
    deals = sorted({d for d, _, _ in ranks})
    dpos = {d: i for i, d in enumerate(deals)}
    for d, w, order in ranks:
        for s in range(len(order) - 1):
            row = np.zeros(K + 1)
            for i in order[s:]:
                row[i] += 1
            rows.append(row)
            chosen.append(order[s])
            weight.append(w)
            deal_of.append(dpos[d])
    if prior > 0:                          # virtual games against the reference (column K)
        for i in played:
            for c in (i, K):
                row = np.zeros(K + 1)
                row[i] = row[K] = 1
                rows.append(row)
                chosen.append(c)
                weight.append(prior)
                deal_of.append(-1)
    S = np.array(rows)
    chosen_a = np.array(chosen)
    base_w = np.array(weight)
    deal_a = np.array(deal_of)
    mask = np.zeros(K + 1, bool)
    mask[played] = True

    free = np.array(played if prior > 0 else played[1:])     # without the prior, fix one agent at 0

    def loglik(theta, w):
        return float(np.sum(w * (theta[chosen_a] - np.log(S @ np.exp(theta)))))

    def fit(w, start=None):
        """Maximum likelihood by Newton's method on log-strengths (the log-likelihood is concave),
        with step halving; a few iterations suffice."""
        theta = np.zeros(K + 1) if start is None else start.copy()
        wins = np.bincount(chosen_a, weights=w, minlength=K + 1)
        ll = loglik(theta, w)
        for _ in range(100):
            e = np.exp(theta)
            P = S * e / (S @ e)[:, None]               # each column's share of a stage's strength
            wp = w[:, None] * P
            grad = wins - wp.sum(0)
            H = (P.T * w) @ P - np.diag(wp.sum(0))   # Hessian (negative semi-definite)
            Hf = H[np.ix_(free, free)] - 1e-12 * np.eye(len(free))
            try:
                step = np.linalg.solve(-Hf, grad[free])
            except np.linalg.LinAlgError:
                break
            t = 1.0
            while True:
                cand = theta.copy()
                cand[free] += t * step
                new_ll = loglik(cand, w)
                if new_ll >= ll - 1e-12 or t < 1e-6:
                    break
                t /= 2
            theta, ll = cand, new_ll
            if np.max(np.abs(t * step)) < 1e-10:
                break
        r = 400 * theta[:K] / math.log(10)
        r = r - np.mean(r[mask[:K]])
        return theta, r

    g0, r0 = fit(base_w)
    ok = np.isfinite(r0)
    for i in played:
        result["ratings"][names[i]] = float(r0[i]) if ok[i] else None
    if bootstrap > 0 and len(deals) >= 2:
        rng = np.random.default_rng(seed)
        reps = []
        for _ in range(bootstrap):
            counts = np.bincount(rng.integers(0, len(deals), len(deals)), minlength=len(deals)).astype(float)
            w = base_w * np.where(deal_a >= 0, counts[np.maximum(deal_a, 0)], 1.0)
            _, r = fit(w, g0)
            reps.append(r)
        reps = np.array(reps)
        for i in played:
            col = reps[:, i]
            col = col[np.isfinite(col)]
            if len(col):
                result["ci"][names[i]] = [float(np.percentile(col, 2.5)), float(np.percentile(col, 97.5))]
    return result


def tournament_report(plan: Plan, records: dict[str, dict] | list[dict], bootstrap: int = 200) -> dict:
    """The statistics of a tournament's finished games (docs/tournaments.md)."""
    recs = list(records.values()) if isinstance(records, dict) else list(records)
    keys = plan.keys()
    recs = [r for r in recs if r["key"] in keys]
    ok = [r for r in recs if not r.get("error")]
    errors = [r for r in recs if r.get("error")]
    stats = summarize(ok, errors, plan.agents, plan.players, plan.automa, bootstrap=bootstrap, seed=plan.seed)
    return {
        "tournament": plan.id, "players": plan.players, "seed": plan.seed, "printing": plan.printing,
        "automa": stats.pop("automa"),
        "planned_games": len(plan.games), "deals": plan.deals, "games": len(ok), "errors": len(errors),
        "missing": len(plan.games) - len(ok) - len(errors), **stats}


def score_breakdown(ok: list[dict], agents: list[tuple[str, str]], players: int) -> list[dict]:
    """Per agent: its mean VP by scoring part; in solo games also the Automa's in its games, and its
    margin over her (a mean over deals with a 95% interval)."""
    rows = []
    for name, _ in agents:
        mine = [(r, i) for r in ok for i, s in enumerate(r["seats"]) if s["agent"] == name and r.get("breakdown")]
        if not mine:
            continue
        row = {"agent": name, "seats": len(mine),
               "parts": {p: sum(r["breakdown"][i].get(p, 0) for r, i in mine) / len(mine) for p in SCORE_PARTS}}
        row["parts"]["total"] = sum(r["scores"][i] for r, i in mine) / len(mine)
        if players == 1:
            hers = [r["automa"]["breakdown"] for r, _ in mine]
            row["automa_parts"] = {p: sum(b.get(p, 0) for b in hers) / len(hers) for p in SCORE_PARTS + ("total",)}
            by_deal: dict[int, list[float]] = {}
            for r, i in mine:
                by_deal.setdefault(r["deal"], []).append(r["scores"][i] - r["automa"]["score"])
            m, ci, _ = mean_ci([sum(v) / len(v) for v in by_deal.values()])
            row["margin"], row["margin_ci"] = m, ci
            objectives = objectives_against_her([(r["round_objectives"][i], r["automa"]["round_objectives"])
                                                 for r, i in mine if "round_objectives" in r])
            if objectives:
                row["objectives"] = objectives
        rows.append(row)
    return rows


def objectives_against_her(games: list[tuple[dict, dict]]) -> dict:
    """Round objectives of solo games, ours against hers: how many rounds we took more VP from
    than she did (won), as many (tied; a tie ranks both first) or fewer (lost), and of the lost
    ones how many by one and by two items. `games`: (our objectives, hers) as recorded."""
    out = {"rounds": 0, "won": 0, "tied": 0, "lost": 0, "lost_by_1": 0, "lost_by_2": 0}
    for mine, hers in games:
        for r in range(len(mine["vp"])):
            out["rounds"] += 1
            ours, theirs = mine["vp"][r], hers["vp"][r]
            kind = "won" if ours > theirs else "lost" if ours < theirs else "tied"
            out[kind] += 1
            short = hers["count"][r] - mine["count"][r]
            if kind == "lost" and short in (1, 2):
                out[f"lost_by_{short}"] += 1
    return out if out["rounds"] else {}


def summarize(ok: list[dict], errors: list[dict], agents: list[tuple[str, str]], players: int,
              automa: str | None, bootstrap: int = 200, seed: int = 0) -> dict:
    """Per agent (name, spec) its win rate, mean score, rating and time; every pair's paired margin;
    the seats' win rates; the Automa's mean score (solo); the games that raised. `ok`: finished
    records, compared within a game, or in solo games side by side on one deal."""
    ok = sorted(ok, key=lambda r: (r["deal"], r["game"]))
    names = [n for n, _ in agents]
    rows = []
    for n, spec in agents:
        wins_d, seats_d, score_d = {}, {}, {}
        decisions = think = 0.0
        games = 0
        for r in ok:
            mine = [i for i, s in enumerate(r["seats"]) if s["agent"] == n]
            if not mine:
                continue
            games += 1
            sh = win_shares(r)
            d = r["deal"]
            wins_d[d] = wins_d.get(d, 0.0) + sum(sh[i] for i in mine)
            seats_d[d] = seats_d.get(d, 0) + len(mine)
            score_d[d] = score_d.get(d, 0.0) + sum(r["scores"][i] for i in mine)
            decisions += sum(r["decisions"][i] for i in mine)
            think += sum(r["think_seconds"][i] for i in mine)
        ds = sorted(seats_d)
        wr, wci = proportion_ci([wins_d[d] for d in ds], [seats_d[d] for d in ds])
        ms, mse = ratio_ci([score_d[d] for d in ds], [seats_d[d] for d in ds])
        rows.append({
            "name": n, "spec": spec, "games": games, "seats": sum(seats_d.values()), "deals": len(ds),
            "win_rate": wr, "win_rate_ci": wci, "mean_score": ms,
            "mean_score_ci": None if mse is None else [ms - Z95 * mse, ms + Z95 * mse],
            "decisions": int(decisions),
            "seconds_per_decision": think / decisions if decisions else None})
    pairs = [pair_stats(ok, a, b) for a, b in itertools.combinations(names, 2)]
    rating = plackett_luce(ok, names, bootstrap=bootstrap, seed=seed)
    for a in rows:
        a["rating"] = rating["ratings"][a["name"]]
        a["rating_ci"] = rating["ci"][a["name"]]
    seat_wins = [[0.0, 0] for _ in range(players)]
    for r in ok:
        for i, s in enumerate(win_shares(r)):
            seat_wins[i][0] += s
            seat_wins[i][1] += 1
    her = None
    if players == 1:
        a_scores = [r["automa"]["score"] for r in ok if r.get("automa", {}).get("score") is not None]
        her = {"level": automa, "mean_score": sum(a_scores) / len(a_scores) if a_scores else None}
    return {
        "automa": her, "agents": rows, "pairs": pairs,
        "rating": {k: rating[k] for k in ("model", "scale", "prior", "bootstrap")},
        "seat_win_rates": [w / n if n else None for w, n in seat_wins],
        "error_games": [{"key": r["key"], "seed": r["seed"], "agents": [s["agent"] for s in r["seats"]],
                         "error": r["error"]} for r in sorted(errors, key=lambda r: (r["deal"], r["game"]))],
        "breakdown": score_breakdown(ok, agents, players),
    }


# ---------------------------------------------------------------------------------- output
def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci_text(v, ci, fmt="{:.1f}", scale=1.0) -> str:
    if v is None:
        return "-"
    s = fmt.format(v * scale)
    if ci is None:
        return s + " (n/a)"
    return f"{s} [{fmt.format(ci[0] * scale)}, {fmt.format(ci[1] * scale)}]"


def report_text(rep: dict) -> str:
    who = (f"solo against the Automa (level {rep['automa']['level']})" if rep.get("automa")
           else f"{rep['players']} players")
    lines = [f"tournament {rep['tournament']}: {who}, "
             f"{rep['games']} of {rep['planned_games']} games in {rep['deals']} duplicate deals "
             f"(seed {rep['seed']}, {rep['printing']} printing), {rep['errors']} error"
             f"{'s' if rep['errors'] != 1 else ''}"]
    return "\n".join(lines + [tables_text(rep)])


def tables_text(rep: dict) -> str:
    """The agents, pairs and the notes under them, of a tournament_report or summarize result."""
    lines = []
    w = max([5] + [len(a["name"]) for a in rep["agents"]])
    ws = max([4] + [len(a["spec"]) for a in rep["agents"]])
    lines.append(f"{'agent':{w}}  {'spec':{ws}}  {'games':>5}  {'win rate [95% CI]':24}  "
                 f"{'mean score [95% CI]':22}  {'rating [95% CI]':20}  {'ms/decision':>11}")
    for a in rep["agents"]:
        spd = "-" if a["seconds_per_decision"] is None else f"{1000 * a['seconds_per_decision']:.2f}"
        lines.append(f"{a['name']:{w}}  {a['spec']:{ws}}  {a['games']:>5}  "
                     f"{_ci_text(a['win_rate'], a['win_rate_ci'], '{:.1f}%', 100):24}  "
                     f"{_ci_text(a['mean_score'], a['mean_score_ci']):22}  "
                     f"{_ci_text(a['rating'], a['rating_ci'], '{:+.0f}'):20}  {spd:>11}")
    pairs = [p for p in rep["pairs"] if p["games"]]
    if pairs:
        lines.append("")
        lines.append(f"{'pair (A vs B)':{2 * w + 4}}  {'games':>5}  {'deals':>5}  {'mean margin A-B [95% CI]':26}  A ahead of B")
        for p in pairs:
            lines.append(f"{p['a'] + ' vs ' + p['b']:{2 * w + 4}}  {p['games']:>5}  {p['deals']:>5}  "
                         f"{_ci_text(p['margin'], p['margin_ci'], '{:+.1f}'):26}  "
                         f"{_ci_text(p['a_ahead'], p['a_ahead_ci'], '{:.1f}%', 100)}")
    if rep.get("automa") and rep["automa"]["mean_score"] is not None:
        lines.append(f"the Automa's mean score: {rep['automa']['mean_score']:.1f} (win rate = games won against her)")
    lines.append("")
    lines.append(f"rating: {rep['rating']['model']} on the Elo scale, intervals from {rep['rating']['bootstrap']} "
                 "bootstrap resamples of deals; win rates count a shared win as 1/k")
    if rep["players"] > 1 and any(a["games"] for a in rep["agents"]):
        lines.append("win rate by seat: " + ", ".join(f"{i + 1}: {_pct(x)}" for i, x in enumerate(rep["seat_win_rates"])))
    lines += breakdown_text(rep.get("breakdown") or [], rep["players"])
    for e in rep["error_games"][:10]:
        lines.append(f"error in game {e['key']} (seed {e['seed']}, {', '.join(e['agents'])}): {e['error']}")
    if len(rep["error_games"]) > 10:
        lines.append(f"... and {len(rep['error_games']) - 10} more errors")
    return "\n".join(lines)


def breakdown_text(rows: list[dict], players: int) -> list[str]:
    if not rows:
        return []
    w = max([10] + [len(r["agent"]) + 2 for r in rows])
    heads = SCORE_PARTS + ("total",)
    lines = ["", "where the points come from (mean VP a game)", f"{'':{w}}" + "".join(f"{h:>11}" for h in heads)]
    for r in rows:
        lines.append(f"{r['agent']:{w}}" + "".join(f"{r['parts'][h]:11.1f}" for h in heads))
        if "automa_parts" in r:
            lines.append(f"{'  her':{w}}" + "".join(f"{r['automa_parts'][h]:11.1f}" for h in heads))
    if players == 1:
        lines.append("")
        lines += [f"{r['agent']}: margin over her {_ci_text(r['margin'], r['margin_ci'], '{:+.1f}')} VP" for r in rows]
        for r in rows:
            o = r.get("objectives")
            if o:
                lines.append(f"{r['agent']}: round objectives against her, of {o['rounds']}: won {o['won']}, "
                             f"tied {o['tied']}, lost {o['lost']} (by one item {o['lost_by_1']}, "
                             f"by two {o['lost_by_2']})")
    return lines


def plot_report(rep: dict, path) -> None:
    """A PNG chart: win rate, mean score and rating per agent with their 95% intervals."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TournamentError("--plot needs matplotlib: pip install 'wyrmspan-advisor[plot]'") from None
    agents = rep["agents"]
    names = [a["name"] for a in agents]
    panels = [("win rate (%)", "win_rate", "win_rate_ci", 100.0), ("mean score", "mean_score", "mean_score_ci", 1.0),
              ("rating (Elo)", "rating", "rating_ci", 1.0)]
    fig, axes = plt.subplots(1, 3, figsize=(12, 0.6 * len(names) + 2.2))
    for ax, (title, key, ckey, scale) in zip(axes, panels):
        ys = list(range(len(names)))
        vals = [(a[key] or 0.0) * scale for a in agents]
        lo = [max(0.0, v - a[ckey][0] * scale) if a[ckey] else 0.0 for v, a in zip(vals, agents)]
        hi = [max(0.0, a[ckey][1] * scale - v) if a[ckey] else 0.0 for v, a in zip(vals, agents)]
        ax.errorbar(vals, ys, xerr=[lo, hi], fmt="o", capsize=4, color="tab:blue")
        ax.set_yticks(ys)
        ax.set_yticklabels(names if ax is axes[0] else [""] * len(names))
        ax.invert_yaxis()
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
    if rep["players"] > 1:
        axes[0].axvline(100.0 / rep["players"], color="grey", ls="--", lw=1)
    fig.suptitle(f"tournament {rep['tournament']}: {rep['games']} games, {rep['players']} players, 95% intervals")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as e:
        raise TournamentError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        plt.close(fig)


def strip_timing(rec: dict) -> dict:
    """A record without the fields that depend on the machine (for comparing runs)."""
    return {k: v for k, v in rec.items() if k not in _TIMING_FIELDS}
