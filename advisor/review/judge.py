"""Each decision of a finished game searched again: the move played against the best move, and
the points the played move gives up (`advisor review`)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

from advisor import _core
from advisor.notation import action_text
from advisor.review.source import PlayedGame
from advisor.search.analysis import Analysis, AnalysisInterrupted, Limit, MoveInfo, analyse
from advisor.search.workers import SearchWorkers

PAYMENTS = {"payment", "pay card", "exchange", "waive", "setup discard", "setup resources"}
Z95 = 1.96


def kind_of(decision: str) -> str:
    """The kind of a decision as the review totals it: moves, payments or targets (where and
    which: eggs, caches, cards, resources, options)."""
    if decision == "move":
        return "moves"
    return "payments" if decision in PAYMENTS else "targets"


@dataclass
class Verdict:
    """One decision reviewed."""
    index: int          # the decision's number in the game, from 0
    seat: int
    round: int          # 1-4
    decision: str       # what it was about (Game.decision)
    kind: str           # moves, payments or targets
    options: int
    played: str
    best: str
    lost: float         # points of the seat's final score the played move gives up (0 if it is the best)
    lost_ci: float      # half-width of the 95% interval of `lost`
    score: float        # the seat's expected final score with the best move
    opponent: float     # the best opponent's (or the Automa's) expected final score then
    played_visits: int
    basis: str          # "forecast" (solo: docs/strength.md) or "playouts" (the search's playout means)

    def to_json(self) -> dict[str, object]:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def decisions(played: PlayedGame, seats: list[int]) -> Iterator[tuple[int, _core.Game, int]]:
    """(index, the game before it, the action) for each decision of `seats` that had a choice."""
    g = played.start.clone()
    for i, a in enumerate(played.actions):
        if g.decider in seats and len(g.legal_actions()) > 1:
            yield i, g.clone(), a
        g.apply(a)


def _outlook(m: MoveInfo) -> tuple[float, float]:
    """The seat's expected final score after a move and the best opponent's."""
    _, score, margin = m.outlook()
    return score, score - margin


def verdict(index: int, game: _core.Game, action: int, a: Analysis) -> Verdict:
    best = a.moves[0]
    mine = next((m for m in a.moves if m.action == action), None)
    score, opponent = _outlook(best)
    if mine is None or mine.visits < 2 or not math.isfinite(best.score_se):
        lost, ci, visits = math.nan, math.nan, mine.visits if mine else 0     # too few playouts to judge
    elif mine is best:
        lost, ci, visits = 0.0, 0.0, mine.visits
    else:
        lost = max(0.0, score - _outlook(mine)[0])
        ci = Z95 * math.hypot(best.score_se, mine.score_se)
        visits = mine.visits
    return Verdict(index=index, seat=game.decider, round=game.round, decision=game.decision or "",
                   kind=kind_of(game.decision or ""), options=len(game.legal_actions()),
                   played=action_text(action, game.printing, game), best=best.text, lost=lost, lost_ci=ci,
                   score=score, opponent=opponent, played_visits=visits,
                   basis="forecast" if best.forecast is not None else "playouts")


def review_decision(index: int, game: _core.Game, action: int, limit: Limit, seed: int = 0,
                    workers: int = 1, pool: SearchWorkers | None = None) -> Verdict:
    """Search one decision (every candidate tried: no widening, so the move played has its own
    mean) and judge the move played. `pool`: worker processes kept across decisions (each search
    still starts a fresh tree)."""
    a = analyse(game, {"pw_c": 0.0, "workers": workers, "reuse": 0}, seed=seed * 1_000_003 + index, limit=limit,
                tree=pool)
    return verdict(index, game, action, a)


class ReviewInterrupted(KeyboardInterrupt):
    """Ctrl-C during a review: `verdicts` are the decisions reviewed so far."""

    def __init__(self, verdicts: list[Verdict]):
        super().__init__("review interrupted")
        self.verdicts = verdicts


def review(played: PlayedGame, seats: list[int], limit: Limit, seed: int = 0, workers: int = 1,
           done: dict[int, Verdict] | None = None, kept: Callable[[Verdict], None] | None = None,
           bar: Callable[[int], None] | None = None) -> list[Verdict]:
    """Every decision of `seats` with a choice, reviewed in order. `done` holds decisions reviewed
    before (a resumed review); `kept(v)` is called for each new one as it is made; `bar(n)` after
    each decision. Ctrl-C raises ReviewInterrupted with what was reviewed."""
    done = done or {}
    out: list[Verdict] = []
    pool = SearchWorkers(workers) if workers > 1 else None
    try:
        for i, game, action in decisions(played, seats):
            v = done.get(i)
            out.append(v if v is not None else review_decision(i, game, action, limit, seed, workers, pool))
            if v is None and kept:          # after it is counted: a Ctrl-C in `kept` keeps it
                kept(out[-1])
            if bar:
                bar(1)
    except (AnalysisInterrupted, KeyboardInterrupt):
        raise ReviewInterrupted(out) from None
    finally:
        if pool is not None:
            pool.close()
    return out


def count(played: PlayedGame, seats: list[int]) -> int:
    return sum(1 for _ in decisions(played, seats))
