"""The search's learnt numbers, read from advisor/data/ and installed into the core.

heuristic.toml holds the heuristic's feature weights, card-worths.toml the worths that greedy
lookahead adds with lookahead=cards. The core calls `install()` before its first search, through
the installer `import advisor` gives it (advisor/__init__.py), as it installs the card tables;
the fitting scripts in bench/ write these files. judge.npz, when shipped, holds the learnt judge's
network (the `net` agent; bench/train_judge.py writes it, and its checkpoints are the same format):
`use_judge(path)` installs one. distilled.npz holds the distilled playouts' factors
(bench/fit_distilled.py writes it); the core installs it on first use, `use_distilled(path)` another."""
from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from advisor import _core
from advisor.errors import AdvisorError

DATA = Path(__file__).resolve().parent.parent / "data"
HEURISTIC_FILE = DATA / "heuristic.toml"
CARD_WORTHS_FILE = DATA / "card-worths.toml"
JUDGE_FILE = DATA / "judge.npz"
JUDGE_ARRAYS = ("w1", "b1", "w2", "b2")
DISTILLED_FILE = DATA / "distilled.npz"
DISTILLED_ARRAYS = ("keys", "factors")


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


def _arrays(path: Path, names: tuple[str, ...], what: str, fitter: str) -> dict[str, Any]:
    """An .npz file's arrays, which must include `names` (it is `what`: "a judge network"), and
    what it says of itself (games, command); `fitter` writes such files."""
    if not path.is_file():
        raise SearchDataError(f"{path if path.parent != DATA else path.name}: no such file; {fitter} writes one")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in names if k not in z]
            if missing:
                raise SearchDataError(f"{path.name}: not {what} (no {', '.join(missing)})")
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise SearchDataError(f"{path.name}: {e}") from None


def judge_weights(path: Path = JUDGE_FILE) -> dict[str, Any]:
    """A network file's arrays (w1, b1, w2, b2) and what it says of itself (games, command)."""
    return _arrays(path, JUDGE_ARRAYS, "a judge network", "bench/train_judge.py")


def distilled_factors(path: Path = DISTILLED_FILE) -> dict[str, Any]:
    """A distilled playouts file's arrays (keys, factors) and what it says of itself (games, command)."""
    return _arrays(path, DISTILLED_ARRAYS, "distilled playouts", "bench/fit_distilled.py")


class _Installed:
    """Which file's numbers the core holds: installing the same unchanged file again is skipped,
    unless the core installed others since (a fitting script's)."""

    def __init__(self, installs: Callable[[], int]):
        self.installs = installs
        self.key: tuple[str, float, int] | None = None     # file, its time, the core's install count

    def install(self, path: Path, read: Callable[[Path], dict[str, Any]],
                put: Callable[[dict[str, Any]], None]) -> None:
        path = Path(path).resolve()
        try:
            key: tuple[str, float, int] | None = (str(path), path.stat().st_mtime, self.installs())
        except OSError:
            key = None
        if key is not None and key == self.key:
            return
        arrays = read(path)
        try:
            put(arrays)
        except ValueError as e:
            raise SearchDataError(f"{path.name}: {e}") from None
        self.key = None if key is None else (key[0], key[1], self.installs())


_judge = _Installed(_core.judge_installs)
_distilled = _Installed(_core.distilled_installs)


def use_judge(path: Path = JUDGE_FILE) -> None:
    """Install a network file's judge into the core, unless it is the one installed already."""
    _judge.install(path, judge_weights, lambda w: _core.install_judge(w["w1"], w["b1"], w["w2"], w["b2"]))


def use_distilled(path: Path = DISTILLED_FILE) -> None:
    """Install a file's distilled playouts into the core, unless they are the ones installed already."""
    _distilled.install(path, distilled_factors, lambda d: _core.install_distilled(d["keys"], d["factors"]))
