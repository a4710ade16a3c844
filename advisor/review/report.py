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


NOISE = 0.05       # a loss below this is no loss (as good as the best)


def clear(v: Verdict) -> bool:
    """A mistake the search can tell from noise: its loss's 95% interval lies above 0. (Each loss
    is floored at 0, so noise-sized losses would add up with the budget's noise: they are not
    counted.)"""
    return not math.isnan(v.lost) and v.lost >= NOISE and v.lost - v.lost_ci > 0


def _lost(v: Verdict) -> float:
    return v.lost if clear(v) else 0.0


def summary(verdicts: list[Verdict], seat: int) -> dict[str, Any]:
    mine = [v for v in verdicts if v.seat == seat]
    worst = sorted((v for v in mine if clear(v)), key=lambda v: -v.lost)[:LARGEST]
    by_kind = {k: {"decisions": sum(1 for v in mine if v.kind == k),
                   "lost": round(sum(_lost(v) for v in mine if v.kind == k), 2)} for k in KINDS}
    return {"decisions": len(mine), "best_played": sum(1 for v in mine if v.played == v.best),
            "lost": round(sum(_lost(v) for v in mine), 2), "mistakes": sum(1 for v in mine if clear(v)),
            "within_noise": sum(1 for v in mine if not math.isnan(v.lost) and v.lost >= NOISE and not clear(v)),
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
            elif v.lost < NOISE:
                out += _wrap(f"{head}{v.played}  (as good as the best: {v.best})", "")
            elif not clear(v):
                out += _wrap(f"{head}{v.played}  within noise: {v.lost:.1f} ±{v.lost_ci:.1f} (best {v.best})", "")
            else:
                out += _wrap(f"{head}{v.played}  lost {v.lost:.1f} ±{v.lost_ci:.1f}", "")
                out += _wrap(f"best: {v.best}", "       ")
        s = summary(verdicts, seat)
        out += _wrap(f"{name}: {s['lost']:.1f} points lost in all, in {s['mistakes']} clear "
                     f"mistake{'' if s['mistakes'] == 1 else 's'} ({s['within_noise']} more within noise); the best "
                     f"move {s['best_played']} times of {s['decisions']}", "")
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
                 "± a 95% interval. Only clear mistakes, whose interval lies above 0, count in the totals; "
                 "a loss within noise could be none.", "")
    return out


def as_json(played: PlayedGame, verdicts: list[Verdict], seats: list[int], limit: dict[str, Any],
            interrupted: bool = False) -> dict[str, Any]:
    return {"game": played.label, "limit": limit, "interrupted": interrupted,
            "seats": [{"seat": q, "name": played.names[q], "summary": summary(verdicts, q),
                       "decisions": [v.to_json() for v in verdicts if v.seat == q]} for q in seats]}


def need_matplotlib() -> None:
    """--plot draws with matplotlib (the `plot` extra): checked before a review starts, so a missing
    one costs nothing."""
    import importlib.util
    from advisor.review.source import ReviewError
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ReviewError("--plot needs matplotlib: pip install 'wyrmspan-advisor[plot]'")


MISTAKE = 2.0       # the points from which a clear mistake is marked on the plot


def figure(played: PlayedGame, verdicts: list[Verdict], seats: list[int]) -> Any:
    """The plot's matplotlib figure: each reviewed seat's expected final score through the game and
    its best opponent's, each clear mistake of MISTAKE points or more marked and labelled with the
    points lost (labels moved apart where they would overlap)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 4.5))
    marked: list[Verdict] = []
    for seat in seats:
        mine = [v for v in verdicts if v.seat == seat]
        if not mine:
            continue
        x = [v.index + 1 for v in mine]
        line, = ax.plot(x, [v.score for v in mine], label=f"{played.names[seat]}")
        ax.plot(x, [v.opponent for v in mine], linestyle="--", color=line.get_color(), alpha=0.6,
                label=f"{played.names[seat]}'s best opponent")
        bad = [v for v in mine if _lost(v) >= MISTAKE]
        ax.scatter([v.index + 1 for v in bad], [v.score for v in bad], color="red", zorder=3,
                   label=f"clear mistakes ({MISTAKE:g}+ points)" if not marked and bad else None)
        marked += bad
    ax.set_xlabel("decision of the game")
    ax.set_ylabel("expected final score")
    ax.set_title(played.label)
    ax.legend(fontsize=8)
    fig.tight_layout()
    labels = [ax.annotate(f"-{v.lost:.0f}", (v.index + 1, v.score), textcoords="offset points", xytext=(0, 6),
                          ha="center", fontsize=8, color="red", annotation_clip=False)
              for v in sorted(marked, key=lambda v: (v.index, v.score))]
    _apart(fig, labels)
    return fig


def _apart(fig: Any, labels: list[Any]) -> None:
    """Each label moved, above or below its marker and further out step by step, until it overlaps
    no label placed before it."""
    renderer = fig.canvas.get_renderer()
    placed: list[Any] = []
    for label in labels:
        for step in range(60):
            rise = 6 + 10 * (step // 2)
            label.xyann = (0, rise if step % 2 == 0 else -rise - 8)
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(b) for b in placed):
                break
        placed.append(box)


def plot(played: PlayedGame, verdicts: list[Verdict], seats: list[int], path: str) -> None:
    """The expected final scores through the game at the reviewed seats' decisions (each seat and
    its best opponent), the mistakes marked; a PNG (the `plot` extra: matplotlib)."""
    import io

    from advisor.files import FileError, replace_file
    from advisor.review.source import ReviewError
    need_matplotlib()
    import matplotlib.pyplot as plt
    fig = figure(played, verdicts, seats)
    png = io.BytesIO()
    try:
        fig.savefig(png, format="png")
    finally:
        plt.close(fig)
    try:
        replace_file(path, png.getvalue(), "PNG file")     # matplotlib would not say the disk is full
    except FileError as e:
        raise ReviewError(f"--plot {e}") from None
