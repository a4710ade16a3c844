"""A decision's moves ranked for the player to decide, as `advisor suggest` shows them: `suggest` is
the one function that the command, the tracker, play's hint and the web call, and `ranking_text` /
`ranking_json` are the ranking as a player reads it and as JSON (docs/cli-json.md)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from advisor import _core
from advisor.search import reasons
from advisor.search.advice import json_number, playout_text, ranking_lines, searched_text, stopped_text, wrap
from advisor.search.analysis import Analysis, AnalysisInterrupted, MoveInfo, analyse
from advisor.search.params import ParamError

BUDGET_NAMES = (("--time", "time"), ("--iterations", "iterations"), ("--workers", "workers"))


def suggest_settings(sets: dict[str, Any], seconds: float | None = None, iterations: int | None = None,
                     workers: int | None = None) -> dict[str, Any]:
    """The settings of one suggestion: `sets` (registry names) with the time, iterations and
    workers given another way (--time, --iterations, --workers): a setting given both ways is
    refused, as is one that means nothing to a single search."""
    if "reuse" in sets:
        raise ParamError("--set reuse means nothing to `suggest`: it searches one decision")
    settings: dict[str, Any] = dict(sets)
    for (option, name), value in zip(BUDGET_NAMES, (seconds, iterations, workers), strict=True):
        if value is None:
            continue
        if name in sets:
            raise ParamError(f"{option} and --set {name}= both set {name}: give one of them")
        settings[name] = value
    return settings


def suggest(game: _core.Game, settings: dict[str, Any] | None = None, seed: int = 0,
            progress: Callable[[float], None] | None = None,
            partial: Callable[[Analysis], object] | None = None) -> Analysis:
    """Rank the moves of `game`'s decision for its decider (best first). `settings` are the
    explicit search settings (the others the registry's defaults for this game); `partial` is
    given the ranking so far about every half second while it searches (one worker: see
    `analyse`). Ctrl-C stops the search: the ranking so far comes back with `interrupted` set."""
    try:
        return analyse(game, settings or {}, seed=seed, progress=progress, partial=partial)
    except AnalysisInterrupted as e:
        return e.analysis


def _move_json(m: MoveInfo, best: MoveInfo) -> dict[str, Any]:
    f = m.forecast
    cats, diff = reasons.categories(m), reasons.against(m, best)
    # the search's own means are named as what they are ("playouts"), apart from the forecast: the
    # text shows the forecast where there is one
    return {"move": m.text, "action": m.action, "visits": m.visits,
            "playouts": {"win": json_number(m.win_rate), "reward": json_number(m.mean_reward),
                         "score": json_number(m.score), "score_se": json_number(m.score_se),
                         "margin": json_number(m.margin), "margin_se": json_number(m.margin_se),
                         "scores": None if m.seat_scores is None else [json_number(x, 2) for x in m.seat_scores]},
            "continuation": m.continuation,
            "expected": [{"seat": p, "move": move} for p, move in m.expected],
            "forecast": None if f is None else {"win": json_number(f.win), "score": json_number(f.score, 2),
                                                "margin": json_number(f.margin, 2),
                                                "scores": [json_number(x, 2) for x in f.scores], "budget": f.budget},
            "categories": None if cats is None else {k: json_number(v, 2) for k, v in cats.items()},
            "against_best": None if diff is None else {k: json_number(v, 2) for k, v in diff.items()}}


def ranking_json(a: Analysis, game: _core.Game, names: Sequence[str], top: int, file: str | None) -> dict[str, Any]:
    """The best `top` moves of `a` as `advisor suggest --json` prints them (`file`: the position
    file searched; None for a caller's own position, as the tracker's)."""
    moves = a.moves[:top]
    return {"file": file, "player": a.player, "name": names[a.player], "decision": game.decision,
            "iterations": a.iterations, "seconds": round(a.seconds, 3), "workers": a.workers,
            "interrupted": a.interrupted,
            "limit": {"time": a.budget.time, "iterations": a.budget.iterations},
            "stopped_early": a.stopped_early,
            "basis": "forecast" if moves and moves[0].forecast else "playouts",
            "moves": [_move_json(m, moves[0]) for m in moves]}


def ranking_text(a: Analysis, game: _core.Game, names: Sequence[str], top: int) -> list[str]:
    """The best `top` moves of `a` as `advisor suggest` prints them: the search's budget, who is to
    play, why it stopped early (if it did), and the ranking in 80 columns."""
    moves = a.moves[:top]
    out = [wrap(f"{searched_text(a)}; {names[a.player]} to play ({game.decision})", "", "    ")]
    stopped = stopped_text(a)
    if stopped:
        out.append(wrap(stopped, "", ""))
    if a.interrupted:
        out.append("stopped early (Ctrl-C or kill): the ranking so far" if moves else
                   "stopped (Ctrl-C or kill) before the search ranked a move")
    return out + ranking_lines(a, moves, names, playout_text(a.settings))
