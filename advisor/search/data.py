"""The search's learnt numbers, read from advisor/data/ and installed into the core.

heuristic.toml holds the heuristic's feature weights, card-worths.toml the worths that greedy
lookahead adds with lookahead=cards. The core calls `install()` before its first search, through
the installer `import advisor` gives it (advisor/__init__.py), as it installs the card tables;
the fitting scripts in bench/ write these files. judge.npz, when shipped, holds the learnt judge's
network (the `net` agent; bench/train_judge.py writes it, and its checkpoints are the same format):
`use_judge(path)` installs one."""
from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from advisor import _core
from advisor.errors import AdvisorError

DATA = Path(__file__).resolve().parent.parent / "data"
HEURISTIC_FILE = DATA / "heuristic.toml"
CARD_WORTHS_FILE = DATA / "card-worths.toml"
JUDGE_FILE = DATA / "judge.npz"
JUDGE_ARRAYS = ("w1", "b1", "w2", "b2")


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


def judge_weights(path: Path = JUDGE_FILE) -> dict[str, Any]:
    """A network file's arrays (w1, b1, w2, b2) and what it says of itself (games, command)."""
    if not path.is_file():
        if path == JUDGE_FILE:
            raise SearchDataError(f"{path.name}: no learnt judge shipped; bench/train_judge.py trains one")
        raise SearchDataError(f"{path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in JUDGE_ARRAYS if k not in z]
            if missing:
                raise SearchDataError(f"{path.name}: not a judge network (no {', '.join(missing)})")
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise SearchDataError(f"{path.name}: {e}") from None


_judge_in_use: tuple[str, float, int] | None = None    # file, its time, the core's install count


def use_judge(path: Path = JUDGE_FILE) -> None:
    """Install a network file's judge into the core, unless it is the one installed already (and
    no other was installed since, by a fitting script)."""
    global _judge_in_use
    path = Path(path).resolve()
    try:
        key = (str(path), path.stat().st_mtime, _core.judge_installs())
    except OSError:
        key = None
    if key is not None and key == _judge_in_use and _core.judge_installed():
        return
    w = judge_weights(path)
    try:
        _core.install_judge(w["w1"], w["b1"], w["w2"], w["b2"])
    except ValueError as e:
        raise SearchDataError(f"{path.name}: {e}") from None
    _judge_in_use = None if key is None else (key[0], key[1], _core.judge_installs())
