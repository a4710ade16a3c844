"""The one registry of tunable search parameters: name, default, range and help.

The CLI options, agent spec strings (`ismcts:time=1,c=0.7`), config files and the tuner all read
this table; nothing else declares a search parameter. The names of the choices come from the
core (`_core.PLAYOUTS`, ...), where the search reads them."""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any

from advisor import _core
from advisor.errors import AdvisorError


# Bump when a change makes some agent play other moves with the same spec and settings (a rule, the
# heuristic, a playout): tournament records and reviews of another play version are never resumed
# or reused as today's player. Records written before the field are version 1.
PLAY_VERSION = 6    # 6: a card tucked face down from a hand leaves none of its cards known to the others


class ParamError(AdvisorError):
    """A search parameter is unknown or out of range."""


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    kind: type                 # int, float or str
    low: float | None = None   # numeric range (inclusive)
    high: float | None = None
    choices: tuple[str, ...] = ()   # allowed strings
    help: str = ""
    solo: Any = None           # the default in a solo game (against the Automa), when it differs

    def parse(self, value: object) -> Any:
        """A value from text or a number, checked against the range."""
        if self.kind is str:
            v = str(value)
            if self.choices and v not in self.choices:
                raise ParamError(f"parameter '{self.name}' is {v!r}, expected one of {', '.join(self.choices)}")
            return v
        try:
            v = self.kind(value) if not isinstance(value, str) else \
                self.kind(float(value) if self.kind is float else int(value))
        except (TypeError, ValueError, OverflowError):
            what = "an integer" if self.kind is int else "a number"
            raise ParamError(f"parameter '{self.name}' must be {what}, got {value!r}") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise ParamError(f"parameter '{self.name}' must be a finite number, got {value!r}")
        if (self.low is not None and v < self.low) or (self.high is not None and v > self.high):
            raise ParamError(f"parameter '{self.name}' is {v}, expected {self.low}..{self.high}")
        return v


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("time", 1.0, float, 0.0, 3600.0,
          help="seconds per decision (0: iterations only; unset, it is 0 when iterations are given)"),
    Param("iterations", 0, int, 0, 10**9, help="iterations per decision (0: use time)"),
    Param("c", 0.7, float, 0.0, 10.0, solo=0.15,
          help="exploration: how much the search tries moves that look worse so far"),
    Param("playout", "weighted", str, choices=tuple(_core.PLAYOUTS), solo="greedy_mast",
          help="how a simulated game is played to its end: random; weighted (a fast policy that "
               "builds before passing); greedy (each move by a one-turn lookahead); mast (what paid "
               "best so far in this search); greedy_mast (greedy moves, the choices inside them by mast); "
               "distilled (weighted, with factors fitted to the net agent's choices)"),
    Param("mast_epsilon", 0.3, float, 0.0, 1.0,
          help="mast playouts: share of the choices left to the weighted policy"),
    Param("lookahead", "heuristic", str, choices=tuple(_core.LOOKAHEADS), solo="cards",
          help="greedy playouts: how a move is judged where its turn ends: the heuristic value; "
               "or cards: the heuristic plus the learnt worth of the move's card and cave"),
    Param("expand", "random", str, choices=tuple(_core.EXPANSIONS), solo="playout",
          help="which untried move the tree tries first: one at random, or the playout's choice"),
    Param("margin_weight", 0.8, float, 0.0, 1.0,
          help="what the search plays for: 0 only winning, 1 only the score margin (40 VP = a win)"),
    Param("judge", 0.0, float, 0.0, 1.0,
          help="share of each reward from the learnt judge (advisor/data/judge.npz): the final "
               "scores it foresees where the playout's first turn starts; the rest, the playout's"),
    Param("pw_c", 0.0, float, 0.0, 100.0, solo=1.0,
          help="widening: a decision tries at most pw_c x sqrt(visits) moves (0: all of them)"),
    Param("stop_early", 1, int, 0, 1, solo=0,
          help="1: stop once the best move can no longer be overtaken (same choice, less time)"),
    Param("reuse", 1, int, 0, 1,
          help="1: an agent keeps its tree between its decisions and goes on from the moves played"),
    Param("max_nodes", 2_000_000, int, 1000, 50_000_000,
          help="the tree's size cap (memory: about 80 bytes a node)"),
    Param("workers", 1, int, 1, 256, help="processes searching in parallel (their results summed)"),
)}


def defaults(solo: bool = False) -> dict[str, Any]:
    """Every parameter's default; `solo`: the defaults for a game against the Automa."""
    return {name: (p.solo if solo and p.solo is not None else p.default) for name, p in PARAMS.items()}


def parse_settings(items: dict[str, Any], solo: bool = False) -> dict[str, Any]:
    """Validated settings over the defaults (solo: the solo defaults); unknown names get a
    did-you-mean. Keep the explicit items to pass on: a full dict fixes every default."""
    out = defaults(solo)
    for k, v in items.items():
        if k not in PARAMS:
            close = difflib.get_close_matches(k, list(PARAMS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ParamError(f"unknown search parameter '{k}'{hint}")
        out[k] = PARAMS[k].parse(v)
    if out["iterations"] > 0 and "time" not in items:
        # an iteration budget alone: no clock on top, so the search replays exactly on any machine
        out["time"] = 0.0
    return out
