"""Forecasts: every seat's final score and the chance of winning if the search plays on.

The search ranks moves by the means of its playouts, which play far worse than the search itself:
their final scores fall short of the ones the game goes on to reach, by about `me_per_coin` VP of
the searching player's score for every coin she still has to spend (held now, plus the round coins
of each later round), `other_per_coin` of each other seat's for every coin of its own (in solo: the
Automa's, for each of the player's coins), and a constant a round. A forecast adds that shortfall
back to each seat's playout mean and reads the chance of winning off the spread measured around it:
each other seat's final margin is normal around its forecast, the seats' deviations independent.

The constants depend on the number of players, on the playouts (each policy falls short by its
own amount) and, where the search keeps gaining strength from iterations (multiplayer), on its
budget: `advisor/data/forecast.toml` has a table for each, `[forecast.2p.weighted.2000]` (2 players,
2,000 iterations a decision), `[forecast.1p.greedy_mast-cards]` (solo, one budget standing for any),
..., measured on the search's own games by `bench/fit_forecast.py`, with their calibration in
docs/forecasts.md. Between the budgets measured the constants are interpolated in log(iterations).

The shortfall is a calibration over the time left in the game, not the value of a coin: the same
shift applies to every move of one decision, so forecasts never reorder the search's ranking."""
from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from advisor.errors import AdvisorError

FORECAST_FILE = Path(__file__).resolve().parent.parent / "data" / "forecast.toml"
FIELDS = ("me_per_coin", "other_per_coin", "spread_base", "spread_per_coin", "win_shift")
ROUND_FIELDS = ("me_by_round", "other_by_round")     # VP added in rounds 1-4
ROUNDS = 4
ANY = 0                     # the budget key of a table measured at one budget, standing for any
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(32)    # E[f(x)] for x ~ N(0, 1)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


class ForecastDataError(AdvisorError):
    """advisor/data/forecast.toml is missing or malformed."""


@dataclass(frozen=True)
class Forecast:
    scores: tuple[float, ...]   # every seat's final score if the search plays on (solo: the Automa second)
    seat: int                   # the searching player's
    win: float                  # her chance of winning (solo: ties go to her)
    budget: int | None = None   # the iterations a decision of the play forecast (None: any budget's)

    @property
    def score(self) -> float:
        return self.scores[self.seat]

    @property
    def margin(self) -> float:
        """Her final margin over the best other seat."""
        return self.score - max(s for i, s in enumerate(self.scores) if i != self.seat)


def key(players: int, playout: str) -> str:
    """A table's name: the player count (1: solo) and the playouts (see `playout()`)."""
    return f"{players}p.{playout}"


def _checked_table(table: dict, where: str, file: str) -> dict:
    out: dict = {}
    for field in FIELDS:
        v = table.get(field)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ForecastDataError(f"{file}: [forecast.{where}] {field} must be a number, got {v!r}")
        out[field] = float(v)
    for field in ROUND_FIELDS:
        v = table.get(field, [0.0] * ROUNDS)
        if not isinstance(v, list) or len(v) != ROUNDS or \
                not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            raise ForecastDataError(f"{file}: [forecast.{where}] {field} must be {ROUNDS} numbers, got {v!r}")
        out[field] = [float(x) for x in v]
    return out


@functools.lru_cache(maxsize=None)
def tables(path: Path = FORECAST_FILE) -> dict[str, dict[int, dict]]:
    """The measured constants of every (players, playout) in the file, checked, by `key()`: for each,
    the constants by the iteration budget a decision they were measured at (`ANY`: at one budget,
    standing for every budget)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ForecastDataError(f"{path.name}: file not found in {path.parent}") from None
    except tomllib.TOMLDecodeError as e:
        raise ForecastDataError(f"{path.name}: not valid TOML: {e}") from None
    top = data.get("forecast")
    if not isinstance(top, dict) or not top:
        raise ForecastDataError(f"{path.name}: no [forecast.NP.PLAYOUT] tables")
    out: dict[str, dict[int, dict]] = {}
    for players, by_playout in top.items():
        if not (players.endswith("p") and players[:-1].isdigit()) or not isinstance(by_playout, dict) \
                or not all(isinstance(t, dict) for t in by_playout.values()):
            raise ForecastDataError(f"{path.name}: [forecast.{players}] is not a player count's tables "
                                    "([forecast.2p])")
        for name, table in by_playout.items():
            k = f"{players}.{name}"
            if any(field in table for field in FIELDS):
                out[k] = {ANY: _checked_table(table, k, path.name)}
                continue
            out[k] = {}
            for budget, t in table.items():
                if not budget.isdigit() or int(budget) <= 0 or not isinstance(t, dict):
                    raise ForecastDataError(f"{path.name}: [forecast.{k}.{budget}] is not a table at a budget "
                                            f"([forecast.{k}.2000])")
                out[k][int(budget)] = _checked_table(t, f"{k}.{budget}", path.name)
            if not out[k]:
                raise ForecastDataError(f"{path.name}: [forecast.{k}] has no constants")
    return out


def playout(settings: dict) -> str:
    """The name of a search's playouts in forecast.toml: the playout, and after a dash the lookahead
    of a greedy playout where it is not the heuristic (each lookahead plays the playouts differently)."""
    name, look = settings["playout"], settings.get("lookahead", "heuristic")
    return f"{name}-{look}" if name.startswith("greedy") and look != "heuristic" else name


def at_budget(by_budget: dict[int, dict], iterations: float | None) -> dict:
    """The constants for a search of `iterations` a decision: linear in log(iterations) between the
    budgets measured, the nearest one's outside them (a stronger search falls further short in its
    playouts; how much further past the budgets measured is not known)."""
    budgets = sorted(by_budget)
    if len(budgets) == 1 or not iterations:
        return by_budget[budgets[-1]]
    x, xs = math.log(iterations), np.log(budgets)

    def at(values: list[float]) -> float:      # np.interp holds the end values outside
        return float(np.interp(x, xs, values))
    out: dict = {f: at([by_budget[b][f] for b in budgets]) for f in FIELDS}
    out.update({f: [at([by_budget[b][f][r] for b in budgets]) for r in range(ROUNDS)] for f in ROUND_FIELDS})
    return out


def constants(name: str, iterations: float | None = None, path: Path = FORECAST_FILE) -> dict:
    """The constants measured for table `name` (see `key()`) at a search of `iterations` a decision
    (None: the largest budget measured)."""
    try:
        return at_budget(tables(path)[name], iterations)
    except KeyError:
        raise ForecastDataError(f"{path.name}: no [forecast.{name}] table") from None


def players(game) -> int:
    """The player count forecasts are measured for: 1 in solo."""
    return 1 if game.automa_level is not None else game.players


def for_search(game, settings: dict, iterations: float | None) -> dict | None:
    """The constants for a search of `game` with `settings` that ran `iterations` a decision, or
    None where its player count and playouts are not measured."""
    by_budget = tables().get(key(players(game), playout(settings)))
    if not by_budget:
        return None
    # past the budgets measured, what is forecast is the play of the nearest one's
    budget = None if ANY in by_budget else round(min(max(iterations or 0, min(by_budget)), max(by_budget)))
    return at_budget(by_budget, iterations) | {"budget": budget}


@functools.lru_cache(maxsize=None)
def round_coins() -> int:
    """The coins each later round start gives (mat.toml)."""
    from advisor.cards.database import load_database
    return load_database("base").mat["round_start"]["coins"]


def coins_to_come(game, player: int) -> int:
    """Coins `player` holds plus those every later round start will give."""
    held = game.observation(player)["players"][player]["coins"]
    return held + round_coins() * (ROUNDS - game.round)


def seat_coins_to_come(game, player: int) -> list[int]:
    """Every seat's coins still to come, as `player` sees them (coins are public); in solo the
    Automa, who has none, counts the player's: the time left in her game."""
    seen = game.observation(player)["players"]
    later = round_coins() * (ROUNDS - game.round)
    if game.automa_level is not None:
        return [seen[player]["coins"] + later] * 2
    return [p["coins"] + later for p in seen]


def spread(to_come, c: dict):
    """The spread of the final margin over one other seat, wider with more coins to come."""
    return np.sqrt(c["spread_base"] ** 2 + c["spread_per_coin"] ** 2 * np.asarray(to_come, dtype=float))


def win_chances(margins, to_come, c: dict) -> np.ndarray:
    """P(the player ends ahead of every other seat) for each row of forecast `margins` over the
    other seats (rows x seats), her coins still to come `to_come` a row."""
    from scipy.special import ndtr
    m = np.atleast_2d(np.asarray(margins, dtype=float)) + c["win_shift"]
    s = np.atleast_1d(spread(to_come, c))[:, None]
    if m.shape[1] == 1:
        return ndtr(m[:, 0] / s[:, 0])
    # each seat deviates by s / sqrt(2), so that one margin does by s; hers is shared by every margin
    sd = s / math.sqrt(2.0)
    z = (m[:, None, :] + _NODES[None, :, None] * sd[:, :, None]) / sd[:, :, None]
    return np.prod(ndtr(z), axis=2) @ _WEIGHTS


def win_chance(margins: Sequence[float], to_come: float, c: dict) -> float:
    """`win_chances` for one position."""
    return float(win_chances([list(margins)], [to_come], c)[0])


def forecast_rows(means, seats, to_come, rounds, c: dict) -> tuple[np.ndarray, np.ndarray]:
    """Forecasts of many decisions at once: every seat's final score (rows x seats) and the
    searching player's win chance, from every seat's playout means (rows x seats), the searching
    seat of each row, every seat's coins still to come (rows x seats) and the round (1-4)."""
    means = np.atleast_2d(np.asarray(means, dtype=float))
    to_come = np.atleast_2d(np.asarray(to_come, dtype=float))
    n = len(means)
    seats = np.asarray(seats, dtype=int).reshape(n)
    r = np.clip(np.asarray(rounds, dtype=int).reshape(n), 1, ROUNDS) - 1
    me = np.zeros(means.shape, dtype=bool)
    me[np.arange(n), seats] = True
    scores = means + np.where(me, c["me_per_coin"] * to_come + np.array(c["me_by_round"])[r][:, None],
                              c["other_per_coin"] * to_come + np.array(c["other_by_round"])[r][:, None])
    mine = scores[np.arange(n), seats]
    margins = (mine[:, None] - scores)[~me].reshape(n, -1)
    return scores, win_chances(margins, to_come[np.arange(n), seats], c)


def forecast(means: Sequence[float], seat: int, to_come: Sequence[int], rnd: int, c: dict) -> Forecast:
    """The forecast from every seat's playout means `means`, their coins still to come `to_come`, in
    round `rnd` (1-4), for the searching player `seat`, with the constants `c` (`constants()`)."""
    scores, win = forecast_rows([means], [seat], [to_come], [rnd], c)
    return Forecast(scores=tuple(float(x) for x in scores[0]), seat=seat, win=float(win[0]), budget=c.get("budget"))
