"""Where a move's points come from: its expected final score by scoring category, against the best
move's. The categories are the game's (leftovers: VP for coins and items left at the end).

A forecast shifts every move of one decision alike, so the differences of the playouts' means by
category are the forecast differences too."""
from __future__ import annotations

from advisor.figures import signed
from advisor.search.analysis import MoveInfo

GROUPS: dict[str, tuple[str, ...]] = {
    "dragons": ("dragons",), "eggs": ("eggs",), "cached": ("cached",), "tucked": ("tucked",),
    "end-game abilities": ("end_game",), "guild": ("guild",), "objectives": ("objectives",),
    "leftovers": ("coins", "items", "caves")}


def categories(m: MoveInfo) -> dict[str, float] | None:
    """The player's expected final score after `m` by category (None: no playouts of it this search)."""
    if m.parts is None:
        return None
    return {name: sum(m.parts.get(k, 0.0) for k in keys) for name, keys in GROUPS.items()}


def against(m: MoveInfo, best: MoveInfo) -> dict[str, float] | None:
    """`m`'s expected points by category minus `best`'s."""
    mine, theirs = categories(m), categories(best)
    if mine is None or theirs is None:
        return None
    return {k: mine[k] - theirs[k] for k in GROUPS}


def text(m: MoveInfo, best: MoveInfo, least: float = 0.5) -> str | None:
    """'-2.3 VP: objectives -3.5, eggs -1.2, dragons +2.4': the categories that differ by at least
    `least` VP, largest first."""
    diff = against(m, best)
    if diff is None:
        return None
    parts = sorted((v for v in diff.items() if abs(v[1]) >= least), key=lambda kv: -abs(kv[1]))
    head = f"{signed(sum(diff.values()))} VP against the best"
    return head + (": " + ", ".join(f"{k} {signed(v)}" for k, v in parts) if parts
                   else f"; no category differs by {least:g} VP or more")
