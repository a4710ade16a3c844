"""The one registry of tunable search parameters: name, default, range and help.

The CLI options, agent spec strings (`ismcts:time=1,c=0.7`), config files and the tuner all read
this table; nothing else declares a search parameter."""
from __future__ import annotations

from dataclasses import dataclass

from advisor.errors import AdvisorError


class ParamError(AdvisorError):
    """A search parameter is unknown or out of range."""


@dataclass(frozen=True)
class Param:
    name: str
    default: object
    kind: type                 # int, float or str
    low: float | None = None   # numeric range (inclusive)
    high: float | None = None
    choices: tuple = ()        # allowed strings
    help: str = ""
    solo: object = None        # the default in a solo game (against the Automa), when it differs

    def parse(self, value) -> object:
        """A value from text or a number, checked against the range."""
        if self.kind is str:
            v = str(value)
            if self.choices and v not in self.choices:
                raise ParamError(f"parameter '{self.name}' is {v!r}, expected one of {', '.join(self.choices)}")
            return v
        try:
            v = self.kind(value) if not isinstance(value, str) else self.kind(float(value) if self.kind is float else int(value))
        except (TypeError, ValueError):
            raise ParamError(f"parameter '{self.name}' must be a {self.kind.__name__}, got {value!r}") from None
        if (self.low is not None and v < self.low) or (self.high is not None and v > self.high):
            raise ParamError(f"parameter '{self.name}' is {v}, expected {self.low}..{self.high}")
        return v


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("time", 1.0, float, 0.0, 3600.0,
          help="seconds per decision (0 = iterations only; unset, it is 0 when iterations are given)"),
    Param("iterations", 0, int, 0, 10**9, help="iterations per decision (0 = use time)"),
    Param("c", 0.7, float, 0.0, 10.0, solo=0.15, help="UCB1 exploration constant"),
    Param("c_spread", 0.0, float, 0.0, 100.0,
          help="> 0: explore by c_spread x the spread (sd) of the rewards at each decision instead of c"),
    Param("rollout", "heuristic", str, choices=("random", "heuristic", "greedy", "greedy_key", "greedy_all", "mast", "greedy_mast"),
          solo="greedy_mast",
          help="rollout policy: uniform random; a fast weighted policy that builds before passing; "
               "greedy moves (one-decision lookahead) with weighted sub-decisions; greedy_key: lookahead also "
               "for the key choices (dragon gained or played, guild spot, ability, option, tuck, setup "
               "discard); greedy_all: every "
               "decision by lookahead; or mast: the action with the best mean reward so far in this "
               "search (move-average sampling); greedy_mast: greedy moves, the choices inside them by mast"),
    Param("mast_epsilon", 0.3, float, 0.0, 1.0, help="mast rollouts: share of decisions left to the weighted policy"),
    Param("mast_keep", 0.0, float, 0.0, 1.0,
          help="mast rollouts with tree reuse: share of the move averages' weight kept for the next decision (0 = fresh)"),
    Param("mast_lookahead", 0, int, 0, 1,
          help="greedy_mast rollouts: 1 = a move's lookahead plays the rest of its turn by the move "
               "averages too (as the rollout will), not by the weighted policy"),
    Param("lookahead", "heuristic", str, choices=("heuristic", "policy", "two_ply", "cards"), solo="cards",
          help="greedy rollouts: what values a move where its turn ends: the hand-tuned heuristic, the "
               "move policy learnt from the search's own choices (bench/learn_policy.py), or two_ply: "
               "the heuristic's three best moves judged again by the best next move in the same round; or "
               "cards: the heuristic plus a learnt worth of the move's card by round (bench/learn_card_policy.py)"),
    Param("expand", "random", str, choices=("random", "policy"), solo="policy",
          help="which untried action a tree node grows first: one at random, or the one the rollout "
               "policy prefers (moves by the greedy lookahead, the choices inside them by the move averages)"),
    Param("tree", "all", str, choices=("all", "key", "moves"),
          help="which decisions below the root get tree nodes: all; key: moves and the choices that "
               "shape a game (cards gained or played, caves, abilities, options, guild spots, tucks), "
               "the minor ones (payments, eggs, resources, caches) left to the rollout policy; moves: "
               "moves only"),
    Param("rollout_depth", 0, int, 0, 10000, help="decisions before a cut-off evaluation (0 = to the end)"),
    Param("cut", "end", str, choices=("end", "round"),
          help="where a rollout stops: the game's end, or where the next round starts (the last round "
               "plays to the end), valued there by `evaluation`"),
    Param("evaluation", "heuristic", str, choices=("heuristic", "learned"),
          help="value of a position where a rollout is cut (rollout_depth, cut): the hand-tuned heuristic "
               "(which greedy rollouts always use) or the evaluation learnt from the search's own games "
               "(bench/learn_value.py)"),
    Param("margin_weight", 0.8, float, 0.0, 1.0, help="reward = (1-w) win + w normalised score margin"),
    Param("margin_scale", 40.0, float, 1.0, 500.0, help="VP margin that counts as a full win in the margin term"),
    Param("pw_c", 0.0, float, 0.0, 100.0, solo=1.0, help="progressive widening: at most pw_c * visits^pw_alpha children (0 = off)"),
    Param("pw_alpha", 0.5, float, 0.0, 1.0, help="progressive widening exponent"),
    Param("final", "visits", str, choices=("visits", "mean"), help="final move: most visits or best mean"),
    Param("determinizations", 0, int, 0, 1000, help="fixed pool of determinizations (0 = fresh each iteration)"),
    Param("observers", "single", str, choices=("single", "multiple"), help="single- or multiple-observer trees"),
    Param("stop_early", 1, int, 0, 1, solo=0,
          help="1: stop when the most-visited move can no longer be overtaken (same choice, less time; "
               "the other moves get fewer visits, and a kept tree grows less for the decisions to come)"),
    Param("reuse", 1, int, 0, 1, help="1: an agent keeps its tree between decisions and goes on from "
          "the subtree of the moves played (single observer; with several workers each worker "
          "process keeps its own tree)"),
    Param("max_nodes", 2_000_000, int, 1000, 50_000_000, help="node pool size (memory cap, 88 bytes a node)"),
    Param("workers", 1, int, 1, 256, help="root-parallel worker processes"),
)}


def defaults(solo: bool = False) -> dict:
    """Every parameter's default; `solo`: the defaults for a game against the Automa."""
    return {name: (p.solo if solo and p.solo is not None else p.default) for name, p in PARAMS.items()}


def parse_settings(items: dict, solo: bool = False) -> dict:
    """Validated settings over the defaults (solo: the solo defaults); unknown names get a
    did-you-mean. Keep the explicit items to pass on: a full dict fixes every default."""
    import difflib

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
