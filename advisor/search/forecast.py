"""Solo forecasts: the final score, margin and chance of winning if the search plays on.

The search ranks moves by the means of its playouts, which spend coins far worse than the search
itself: in solo games their margin falls short of the one the search goes on to reach by about
`margin_per_coin` VP for every coin still to come (held now, plus the round coins of each later
round), and by nothing else that 17 position features can tell. A forecast adds that shortfall
back to a move's playout means and reads the chance of winning off the spread measured around it.
Each playout policy falls short by its own amount: `advisor/data/forecast.toml` has a table of
constants per playout (`[forecast.greedy]`, `[forecast.greedy_mast-cards]`, ...: the playout, and a
greedy playout's lookahead where it is not the heuristic), measured by `bench/fit_forecast.py gap --write`.

The shortfall is a calibration over the time left in the game, not the value of a coin: the same
shift applies to every move of one decision, so forecasts never reorder the search's ranking."""
from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import AdvisorError

FORECAST_FILE = Path(__file__).resolve().parent.parent / "data" / "forecast.toml"
FIELDS = ("score_per_coin", "margin_per_coin", "spread_base", "spread_per_coin", "win_shift")


class ForecastDataError(AdvisorError):
    """advisor/data/forecast.toml is missing or malformed."""


@dataclass(frozen=True)
class Forecast:
    score: float    # the searching player's final score if the search plays on
    margin: float   # the player's final margin over the Automa
    win: float      # chance of winning (ties go to the human)


@functools.lru_cache(maxsize=None)
def tables(path: Path = FORECAST_FILE) -> dict[str, dict[str, float]]:
    """The measured constants of every playout in the file, checked: every field present and a number."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ForecastDataError(f"{path.name}: file not found in {path.parent}") from None
    except tomllib.TOMLDecodeError as e:
        raise ForecastDataError(f"{path.name}: not valid TOML: {e}") from None
    top = data.get("forecast")
    if not isinstance(top, dict) or not top or not all(isinstance(t, dict) for t in top.values()):
        raise ForecastDataError(f"{path.name}: no [forecast.PLAYOUT] tables")
    out: dict[str, dict[str, float]] = {}
    for key, table in top.items():
        out[key] = {}
        for name in FIELDS:
            v = table.get(name)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ForecastDataError(f"{path.name}: [forecast.{key}] {name} must be a number, got {v!r}")
            out[key][name] = float(v)
    return out


def playout(settings: dict) -> str:
    """The name of a search's playouts in forecast.toml: the playout, and after a dash the lookahead
    of a greedy playout where it is not the heuristic (each lookahead plays the playouts differently)."""
    name, look = settings["playout"], settings.get("lookahead", "heuristic")
    return f"{name}-{look}" if name.startswith("greedy") and look != "heuristic" else name


def constants(playout: str = "greedy", path: Path = FORECAST_FILE) -> dict[str, float]:
    """The constants measured for the playouts named `playout` (see `playout()`)."""
    try:
        return tables(path)[playout]
    except KeyError:
        raise ForecastDataError(f"{path.name}: no [forecast.{playout}] table") from None


@functools.lru_cache(maxsize=None)
def round_coins() -> int:
    """The coins each later round start gives (mat.toml)."""
    from advisor.cards.database import load_database
    return load_database("base").mat["round_start"]["coins"]


def applies(game, settings: dict) -> bool:
    """Forecasts are measured for solo games, per playout."""
    return game.automa_level is not None and playout(settings) in tables()


def coins_to_come(game, player: int) -> int:
    """Coins `player` holds plus those every later round start will give."""
    held = game.observation(player)["players"][player]["coins"]
    return held + round_coins() * (4 - game.round)


def win_chance(final_margin: float, to_come: float, c: dict[str, float]) -> float:
    """P(the final margin is >= 0): normal around `final_margin`, wider with more coins to come."""
    spread = math.sqrt(c["spread_base"] ** 2 + c["spread_per_coin"] ** 2 * to_come)
    return 0.5 * (1.0 + math.erf((final_margin + c["win_shift"]) / (spread * math.sqrt(2.0))))


def forecast(score: float, margin: float, to_come: int, playout: str = "greedy") -> Forecast:
    """The forecast for the means `score` and `margin` of the playouts named `playout` with
    `to_come` coins still to come."""
    c = constants(playout)
    final_margin = margin + c["margin_per_coin"] * to_come
    return Forecast(score=score + c["score_per_coin"] * to_come, margin=final_margin,
                    win=win_chance(final_margin, to_come, c))
