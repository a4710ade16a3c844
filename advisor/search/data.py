"""The search's learnt numbers, read from advisor/data/ and installed into the core.

heuristic.toml holds the heuristic's feature weights, card-worths.toml the worths that greedy
lookahead adds with lookahead=cards. The core calls `install()` before its first search, through
the installer `import advisor` gives it (advisor/__init__.py), as it installs the card tables;
the fitting scripts in bench/ write these files."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from advisor import _core
from advisor.errors import AdvisorError

DATA = Path(__file__).resolve().parent.parent / "data"
HEURISTIC_FILE = DATA / "heuristic.toml"
CARD_WORTHS_FILE = DATA / "card-worths.toml"


class SearchDataError(AdvisorError):
    """A data file of the search is missing or malformed."""


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SearchDataError(f"{path.name}: {e}") from None


def heuristic_weights(path: Path = HEURISTIC_FILE) -> dict[str, tuple[float, float]]:
    """{feature: (base, per_round)} as the file gives them."""
    table = _read(path).get("heuristic")
    if not isinstance(table, dict):
        raise SearchDataError(f"{path.name}: no [heuristic] table")
    out = {}
    for name, pair in table.items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, (int, float)) for x in pair)):
            raise SearchDataError(f"{path.name}: heuristic.{name} must be [base, per_round], got {pair!r}")
        out[name] = (float(pair[0]), float(pair[1]))
    unknown = set(out) - set(_core.HEURISTIC_FEATURES)
    missing = set(_core.HEURISTIC_FEATURES) - set(out)
    if unknown or missing:
        raise SearchDataError(f"{path.name}: heuristic features unknown {sorted(unknown)}, missing {sorted(missing)}")
    return out


def card_worths(path: Path = CARD_WORTHS_FILE) -> tuple[list[list[float]], list[list[float]]]:
    """(card worths per round, cave worths per round) as the file gives them."""
    d = _read(path)
    if "cards" not in d or "caves" not in d:
        raise SearchDataError(f"{path.name}: needs the arrays 'cards' and 'caves'")
    return d["cards"], d["caves"]


def install() -> None:
    """Copy the files' numbers into the core (again: back to the files' numbers)."""
    cards, caves = card_worths()
    try:
        _core.install_search_data(heuristic_weights(), cards, caves)
    except ValueError as e:
        raise SearchDataError(f"{CARD_WORTHS_FILE.name}: {e}") from None
