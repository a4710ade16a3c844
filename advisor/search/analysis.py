"""ISMCTS analysis of a position: budgets, root-parallel workers, one info record per candidate.

The tree search itself runs in the core (`ext/search/`); this module sets it up from the
parameter registry, merges root-parallel workers by summing their root statistics, and reports
each root candidate with its continuation in the game's notation."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, get_args

import numpy as np

from advisor import _core
from advisor.errors import IllegalActionError
from advisor.search import data, forecast as fc
from advisor.notation import CAVES, ENTICE, EXCAVATE, TOP_LEVEL, action_text, arg, display_take, kind
from advisor.search.params import PARAMS, parse_settings
from advisor.search.workers import SearchWorkers, WorkersInterrupted

Stat = Literal["visits", "avail", "reward", "win_sum", "score_sum", "score_sq", "margin_sum", "margin_sq", "outcomes"]
_STATS: tuple[Stat, ...] = get_args(Stat)     # a root child's statistics that workers' results sum


@dataclass(frozen=True)
class Limit:
    """A search budget: seconds per decision and/or iterations (whichever ends first)."""
    time: float | None = None
    iterations: int | None = None

    def settings(self) -> dict:
        return {"time": self.time or 0.0, "iterations": self.iterations or 0}


@dataclass
class MoveInfo:
    """What the search found about one root candidate."""
    action: int
    text: str
    visits: int
    mean_reward: float
    win_rate: float
    score: float            # mean final score of the searching player after this move
    score_se: float         # its standard error across iterations
    margin: float           # mean final margin over the best opponent
    margin_se: float
    continuation: list[str] = field(default_factory=list)
    continuation_ids: list[int] = field(default_factory=list)
    expected: list[tuple[int, str]] = field(default_factory=list)   # the turns that follow: (seat, move)
    seat_scores: tuple[float, ...] | None = None   # every seat's mean final score (solo: the Automa second)
    parts: dict[str, float] | None = None          # the searching player's mean final score by category
    forecast: fc.Forecast | None = None  # every seat's final score and the win chance if the search plays on

    def outlook(self) -> tuple[float, float, float]:
        """(win, score, margin) to show: the forecast where there is one, else the playout means."""
        f = self.forecast
        return (f.win, f.score, f.margin) if f else (self.win_rate, self.score, self.margin)


@dataclass
class Analysis:
    player: int
    iterations: int
    nodes: int
    seconds: float
    workers: int
    moves: list[MoveInfo]   # best first
    settings: dict[str, Any]            # every search setting it ran with (resolved from the registry)
    coins_to_come: int | None = None    # the player's, which her moves' forecasts were made with, or None
    interrupted: bool = False           # Ctrl-C stopped the search: the ranking so far
    budget: Limit = field(default_factory=Limit)   # what it was given (iterations: each worker's)
    stopped_early: bool = False         # it stopped before its budget: the best move could not be overtaken

    @property
    def best(self) -> MoveInfo:
        return self.moves[0]


class AnalysisInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the search; `analysis` ranks what it found so far (`interrupted` set)."""

    def __init__(self, analysis: Analysis):
        super().__init__("search interrupted")
        self.analysis = analysis


# registry names the core knows by another name, and those only the Python side uses
_CORE_NAMES = {"time": "seconds"}
_PYTHON_ONLY = ("reuse", "workers")


def _core_params(settings: dict, seed: int) -> dict:
    """What the core's search is given: every registry parameter but the Python side's own."""
    out = {_CORE_NAMES.get(k, k): settings[k] for k in PARAMS if k not in _PYTHON_ONLY}
    out["seed"] = seed
    return out


def worker_seed(seed: int, worker: int) -> int:
    """Seeds are fixed in the parent so a result depends only on (seed, workers)."""
    return (seed * 1_000_003 + worker * 7919 + 1) & ((1 << 63) - 1)


def _continuation_text(game: "_core.Game", player: int, move: int, actions: list[int]) -> list[str]:
    """The planned sub-decisions as 'what: choice', replayed after `move` on one world dealt from
    `player`'s view (the real game would tell by its formatting whether the search guessed a hidden
    card right); a step that is not legal there is shown bare, and so is the rest."""
    g = game.determinize(player, 0)
    try:
        g.apply(move)
    except IllegalActionError:
        return [action_text(b, game.printing) for b in actions]
    out: list[str] = []
    for i, a in enumerate(actions):
        if not g.is_terminal():
            a = display_take(g, a)
        if g.is_terminal() or a not in g.legal_actions():
            # off the real game's path: the rest shown bare
            return out + [action_text(b, game.printing) for b in [a, *actions[i + 1:]]]
        out.append(f"{g.decision}: {action_text(a, g.printing, g)}")
        g.apply(a)
    return out


EXPECTED_TURNS = 4     # the turns shown after a move's own


def _expected(game: "_core.Game", player: int, path: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """The turns' moves on the search's most visited path after a move's own, as (seat, move):
    sub-decisions left out, and the card another seat entices or excavates left unnamed (the
    search's guess at a hidden hand; where it cannot deal another, its world keeps the real one)."""
    out = []
    for p, a in path:
        if kind(a) not in TOP_LEVEL:
            continue
        if p != player and kind(a) in (ENTICE, EXCAVATE):
            card = "a dragon" if kind(a) == ENTICE else "a cave card"
            out.append((p, f"{'entice' if kind(a) == ENTICE else 'excavate'} {card} into {CAVES[arg(a) % 4]}"))
        else:
            out.append((p, action_text(a, game.printing)))
        if len(out) == EXPECTED_TURNS:
            break
    return out


def _se(total: float, sq: float, n: int) -> float:
    if n < 2:
        return float("inf")
    mean = total / n
    var = max(0.0, sq / n - mean * mean) * n / (n - 1)
    return math.sqrt(var / n)


def analyse(game: "_core.Game", settings: dict | None = None, seed: int = 0,
            limit: Limit | None = None, progress=None, tree: "_core.SearchTree | SearchWorkers | None" = None,
            since: list[int] | None = None, partial: Callable[[Analysis], object] | None = None) -> Analysis:
    """Search the decision of `game.decider` and rank its candidates (best first).

    `settings` are the explicit ones; the others take the registry's defaults for this game (solo
    or not). `progress(fraction)` is called now and then with the share of the budget used (0..1).
    `partial(analysis)` is given the ranking so far about every half second while the search runs
    (one worker only: root-parallel workers report at their end, so with `workers` > 1 it gets
    none); it does not change the search or its result.
    `tree` is kept between calls: given the decisions taken `since` its last search, the search
    goes on from the subtree they reach. A `SearchTree` serves one worker; `SearchWorkers` of
    as many processes as `workers` keep a tree each (another kind or count: fresh trees).

    Ctrl-C stops the search within a fraction of a second, workers too: AnalysisInterrupted (a
    KeyboardInterrupt) then carries the ranking found so far."""
    s = parse_settings({**(settings or {}), **(limit.settings() if limit else {})},
                       solo=game.automa_level is not None)
    if s["time"] <= 0 and s["iterations"] <= 0:
        s["time"] = 1.0
    if s["judge"] > 0:
        data.use_judge()            # the shipped judge, whatever a net agent installed (workers: the core's installer)
    workers = s["workers"]
    params = [_core_params(s, worker_seed(seed, w)) for w in range(workers)]
    def share(iterations: int, seconds: float) -> float:
        parts = [iterations / s["iterations"] if s["iterations"] > 0 else 0.0,
                 seconds / s["time"] if s["time"] > 0 else 0.0]
        return min(1.0, max(parts))

    tick = None if progress is None else (lambda it, sec: progress(share(it, sec)))
    budget = Limit(time=s["time"] or None, iterations=s["iterations"] or None)
    so_far = None if partial is None else (lambda r: partial(_ranking(game, s, [r], 1, False, budget)))
    interrupted = False
    try:
        if workers == 1:
            results = [_core.search(game, params[0], tick, tree if isinstance(tree, _core.SearchTree) else None,
                                    since, partial=so_far)]
        else:
            import time

            state = game.to_dict()
            t0 = time.perf_counter()

            def clock() -> None:
                if progress is not None and s["time"] > 0:
                    progress(min(1.0, (time.perf_counter() - t0) / s["time"]))
            if isinstance(tree, SearchWorkers) and tree.n == workers:
                results = tree.search(state, params, since, clock)
            else:
                pool = SearchWorkers(workers)      # fresh trees: the same searches as without a tree
                try:
                    results = pool.search(state, params, None, clock)
                finally:
                    pool.close()
    except _core.SearchInterrupted as e:
        results, interrupted = [e.result], True
    except WorkersInterrupted as e:
        results, interrupted = e.results, True
    if progress is not None and not interrupted:
        try:
            progress(1.0)
        except KeyboardInterrupt:               # the search is done: its ranking is whole
            interrupted = True
    a = _ranking(game, s, results, workers, interrupted, budget)
    # a search stops early (stop_early) where the best move can no longer be overtaken: neither
    # budget is used up then (by one worker at least)
    a.stopped_early = bool(not interrupted and s["stop_early"] and any(
        (s["iterations"] <= 0 or r["iterations"] < s["iterations"]) and (s["time"] <= 0 or r["seconds"] < s["time"])
        for r in results))
    if interrupted:
        raise AnalysisInterrupted(a)
    return a


def _ranking(game: "_core.Game", s: dict, results: list[_core.SearchResult], workers: int,
             interrupted: bool, budget: Limit) -> Analysis:
    """The analysis from the workers' root statistics (summed), searched with `budget`."""
    merged: dict[int, dict] = {}
    for res in results:
        for ch in res["children"]:
            m = merged.setdefault(ch["action"], {k: 0 for k in _STATS} | {"continuation": [], "expected": [], "best": -1,
                                                                           "seats": 0.0, "parts": {}})
            for k in _STATS:
                m[k] += ch[k]
            m["seats"] = np.add(m["seats"], ch["seat_score_sums"])
            m["parts"] = {k: m["parts"].get(k, 0.0) + v for k, v in ch["part_sums"].items()}
            if ch["visits"] > m["best"]:
                m["best"], m["continuation"], m["expected"] = ch["visits"], ch["continuation"], ch["expected"]
    player = results[0]["player"] if results else game.decider
    table = fc.for_search(game, s, sum(r["iterations"] for r in results))
    to_come = fc.seat_coins_to_come(game, player) if table else None
    moves = []
    for a, m in merged.items():
        n = max(1, m["visits"])
        score, margin = m["score_sum"] / n, m["margin_sum"] / n
        seats = tuple(float(x) / m["outcomes"] for x in m["seats"]) if m["outcomes"] else None
        moves.append(MoveInfo(
            action=a, text=action_text(a, game.printing, game), visits=m["visits"],
            mean_reward=m["reward"] / n, win_rate=m["win_sum"] / n, score=score,
            score_se=_se(m["score_sum"], m["score_sq"], m["visits"]), margin=margin,
            margin_se=_se(m["margin_sum"], m["margin_sq"], m["visits"]),
            continuation=_continuation_text(game, player, a, m["continuation"]),
            continuation_ids=list(m["continuation"]), expected=_expected(game, player, m["expected"]), seat_scores=seats,
            parts={k: v / m["outcomes"] for k, v in m["parts"].items()} if m["outcomes"] else None,
            forecast=fc.forecast(seats, player, to_come, game.round, table) if to_come and table and seats else None))
    moves.sort(key=lambda mi: (mi.visits, mi.mean_reward), reverse=True)
    return Analysis(player=player, settings=s, iterations=sum(r["iterations"] for r in results),
                    nodes=sum(r["nodes"] for r in results), seconds=max((r["seconds"] for r in results), default=0.0),
                    workers=workers, moves=moves, coins_to_come=to_come[player] if to_come else None,
                    interrupted=interrupted, budget=budget)
