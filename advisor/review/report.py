"""What `advisor review` prints: each decision (the move played, the best move and the points
given up) and a summary (points lost in all, the largest mistakes, points lost by kind of
decision), as text within 80 columns or as JSON (docs/cli-json.md)."""
from __future__ import annotations

import math
import textwrap
from typing import Any

from advisor.review.judge import Verdict
from advisor.review.source import PlayedGame

WIDTH = 80
KINDS = ("moves", "payments", "targets")
LARGEST = 5


def _lost(v: Verdict) -> float:
    return 0.0 if math.isnan(v.lost) else v.lost


def summary(verdicts: list[Verdict], seat: int) -> dict[str, Any]:
    mine = [v for v in verdicts if v.seat == seat]
    worst = sorted((v for v in mine if _lost(v) > 0), key=lambda v: -v.lost)[:LARGEST]
    by_kind = {k: {"decisions": sum(1 for v in mine if v.kind == k),
                   "lost": round(sum(_lost(v) for v in mine if v.kind == k), 2)} for k in KINDS}
    return {"decisions": len(mine), "best_played": sum(1 for v in mine if v.played == v.best),
            "lost": round(sum(_lost(v) for v in mine), 2),
            "largest": [v.index for v in worst], "by_kind": by_kind}


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


def text(played: PlayedGame, verdicts: list[Verdict], seats: list[int], interrupted: bool = False) -> list[str]:
    out = []
    basis = {v.basis for v in verdicts}
    for seat in seats:
        name = played.names[seat]
        mine = [v for v in verdicts if v.seat == seat]
        out += _wrap(f"{name}: {len(mine)} decisions with a choice reviewed ({played.label})", "")
        for v in mine:
            head = f"{v.index + 1:>4} r{v.round} {v.decision}: "
            if v.played == v.best:
                out += _wrap(f"{head}{v.played}  (best)", "")
            elif math.isnan(v.lost):
                out += _wrap(f"{head}{v.played}  (too few playouts to judge; best {v.best})", "")
            elif v.lost < 0.05:
                out += _wrap(f"{head}{v.played}  (as good as the best: {v.best})", "")
            else:
                out += _wrap(f"{head}{v.played}  lost {v.lost:.1f} ±{v.lost_ci:.1f}", "")
                out += _wrap(f"best: {v.best}", "       ")
        s = summary(verdicts, seat)
        out += _wrap(f"{name}: {s['lost']:.1f} points lost in all; the best move {s['best_played']} times "
                     f"of {s['decisions']}", "")
        out += _wrap("by kind: " + ", ".join(f"{k} {s['by_kind'][k]['lost']:.1f} ({s['by_kind'][k]['decisions']})"
                                             for k in KINDS), "  ")
        index = {v.index: v for v in mine}
        for n, i in enumerate(s["largest"], 1):
            v = index[i]
            out += _wrap(f"{n}. decision {i + 1} (round {v.round}, {v.decision}): {v.lost:.1f} ±{v.lost_ci:.1f} "
                         f"lost: {v.played}; best {v.best}", "  ")
    if interrupted:
        out += _wrap("interrupted: the decisions above were reviewed; --out FILE --resume goes on with the "
                     "rest", "")
    what = ("forecasts of the final score if play goes on at the advisor's strength"
            if basis == {"forecast"} else "the search's playout means of the final score")
    out += _wrap(f"lost: the final score the move played gives up against the best move, by {what}; "
                 "± a 95% interval.", "")
    return out


def as_json(played: PlayedGame, verdicts: list[Verdict], seats: list[int], limit: dict[str, Any],
            interrupted: bool = False) -> dict[str, Any]:
    return {"game": played.label, "limit": limit, "interrupted": interrupted,
            "seats": [{"seat": q, "name": played.names[q], "summary": summary(verdicts, q),
                       "decisions": [v.to_json() for v in verdicts if v.seat == q]} for q in seats]}


def plot(played: PlayedGame, verdicts: list[Verdict], seats: list[int], path: str) -> None:
    """The expected final scores through the game at the reviewed seats' decisions (each seat and
    its best opponent), the mistakes marked; a PNG (the `plot` extra: matplotlib)."""
    import io

    from advisor.files import FileError, replace_file
    from advisor.review.source import ReviewError
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ReviewError("--plot needs matplotlib: pip install 'wyrmspan-advisor[plot]'") from None
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for seat in seats:
        mine = [v for v in verdicts if v.seat == seat]
        if not mine:
            continue
        x = [v.index + 1 for v in mine]
        line, = ax.plot(x, [v.score for v in mine], label=f"{played.names[seat]}")
        ax.plot(x, [v.opponent for v in mine], linestyle="--", color=line.get_color(), alpha=0.6,
                label=f"{played.names[seat]}'s best opponent")
        bad = [v for v in mine if _lost(v) >= 2.0]
        ax.scatter([v.index + 1 for v in bad], [v.score for v in bad], color="red", zorder=3,
                   label="mistakes (2+ points)" if seat == seats[0] else None)
        for v in sorted(bad, key=lambda v: -v.lost)[:LARGEST]:
            ax.annotate(f"-{v.lost:.0f}", (v.index + 1, v.score), textcoords="offset points", xytext=(0, 6),
                        ha="center", fontsize=8, color="red")
    ax.set_xlabel("decision of the game")
    ax.set_ylabel("expected final score")
    ax.set_title(played.label)
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = io.BytesIO()
    try:
        fig.savefig(png, format="png")
    finally:
        plt.close(fig)
    try:
        replace_file(path, png.getvalue(), "PNG file")     # matplotlib would not say the disk is full
    except FileError as e:
        raise ReviewError(f"--plot {e}") from None
