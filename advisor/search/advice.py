"""Advice as a player reads it: a search's ranking in 80 columns, with forecasts, plans and reasons."""
from __future__ import annotations

import math
import textwrap
from typing import Any, Callable, Sequence

from advisor.search import reasons
from advisor.search.analysis import Analysis, MoveInfo
from advisor.search.forecast import playout as playout_name


def wrap(text: str, first: str, indent: str, width: int = 80) -> str:
    """`text` in `width` columns, words (card names, moves) kept whole."""
    return "\n".join(textwrap.wrap(text, width, initial_indent=first, subsequent_indent=indent,
                                   break_on_hyphens=False, break_long_words=False)) or first.rstrip()


def playout_text(used: dict[str, Any]) -> str:
    """The playouts of a search that ran with the settings `used` (Analysis.settings) in words: the
    policy, and a greedy playout's lookahead where it is not the heuristic (it changes how they play)."""
    play = used["playout"]
    return play if playout_name(used) == play else f"{play} ({used['lookahead']} lookahead)"


def ranking_lines(a: Analysis, moves: list[MoveInfo], names: Sequence[str], playout: str,
                  number: Callable[[int, MoveInfo], int] | None = None) -> list[str]:
    """The ranking in 80 columns: each move's win chance and every seat's final score (the player's
    first), its plan (the rest of her turn, then the turns the search expects next), and for the
    others where their points differ from the best move's. `number(rank, move)` numbers the moves
    (default: their rank from 1)."""
    order = [a.player] + [s for s in range(len(names)) if s != a.player]
    w = 80 - 3 - 7 - 7 * len(order) - 8        # the move column; a longer move gets a line of its own
    out = [f"{'':3}{'move':{w}} {'win':>6}" + "".join(f" {names[s][:6]:>6}" for s in order) + f" {'visits':>7}"]
    for i, m in enumerate(moves, 1):
        k = number(i, m) if number else i
        win: float | None = None                    # none: no outcome of it this search to forecast
        scores: list[float | None] = [None] * len(order)
        if m.forecast or not moves[0].forecast:
            win = m.forecast.win if m.forecast else m.win_rate
            seats = m.forecast.scores if m.forecast else m.seat_scores
            scores = [seats[s] if seats else (m.score if s == a.player else None) for s in order]
        figures = (f"{win:>6.1%}" if win is not None else f"{'-':>6}") \
            + "".join(f" {x:>6.1f}" if x is not None else f" {'-':>6}" for x in scores) + f" {m.visits:>7}"
        if len(m.text) <= w:
            out.append(f"{k:>2} {m.text:{w}} {figures}")
        else:
            out.append(wrap(m.text, f"{k:>2} ", " " * 3))
            out.append(f"{'':3}{'':{w}} {figures}")
        if m.continuation:
            out.append(wrap(f"then: {'; '.join(m.continuation)}", " " * 4, " " * 10))
        if m.expected:
            out.append(wrap("next: " + "; ".join(f"{names[p]} {move}" for p, move in m.expected), " " * 4, " " * 10))
        why = reasons.text(m, moves[0]) if i > 1 else None
        if why:
            out.append(wrap(why, " " * 4, " " * 6))
    budget = moves[0].forecast.budget if moves and moves[0].forecast else None
    ranked = "ranked by visits (how often the search chose each move); "
    if budget and a.iterations > 1.5 * budget:     # the forecasts are of weaker play than this search's
        out.append(wrap(f"{ranked}win, scores: forecasts of play at {budget:,} iterations a move; docs/forecasts.md",
                        "", ""))
    elif moves and moves[0].forecast:
        out.append(wrap(f"{ranked}win, scores: forecasts at the advisor's strength (how: docs/forecasts.md)", "", ""))
    elif moves:
        out.append(wrap(f"{ranked}win, scores: {playout} playouts' means, not forecasts", "", ""))
    return out


def searched_text(a: Analysis) -> str:
    """How long the search ran: '1,792 iterations in 0.16 s (1 worker)'."""
    return (f"{'interrupted after ' if a.interrupted else ''}{a.iterations:,} iterations in {a.seconds:.2f} s "
            f"({a.workers} worker{'s' if a.workers > 1 else ''})")


def stopped_text(a: Analysis) -> str | None:
    """Why the search stopped before its budget, when it did."""
    if not a.stopped_early:
        return None
    asked = []
    if a.budget.iterations:
        asked.append(f"{a.budget.iterations * a.workers:,} iterations")
    if a.budget.time:
        asked.append(f"{a.budget.time:g} s")
    return (f"stopped before the {' or '.join(asked)} asked: the best move could no longer be overtaken "
            "(--set stop_early=0 searches on)")


def json_number(x: float | None, digits: int = 4) -> float | None:
    """A figure for JSON: rounded, None for none or an infinite or undefined one."""
    return None if x is None or not math.isfinite(x) else round(x, digits)
