"""Collecting the problems of a position file: PositionError, field paths, and the value checks.

Every problem is one line, "FILE: field.path: what is wrong"; the reader reports them all at once.
A `Checker` holds them while a file is read; each of its checks returns None for a bad value
(already reported), so the reader goes on and finds the next problem."""
from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Sequence
from typing import Any

import tomli_w

from advisor.cards.database import Database
from advisor.cards.database import _norm as norm_name
from advisor.errors import AdvisorError, CardLookupError
from advisor.positions.rules import printing_rules


class PositionError(AdvisorError):
    """A position file that cannot be read or describes an impossible position. `errors` holds one
    line per problem ("FILE: field.path: what is wrong"); str(e) is all of them, one per line."""

    def __init__(self, errors: Iterable[str]):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))


# ---------------------------------------------------------------------------- field paths
@functools.lru_cache(maxsize=4096)
def key(k: str) -> str:
    """A key as the written file spells it (quoted when TOML needs it): tomli-w's own spelling, so a
    path in a message is the one in the file."""
    return tomli_w.dumps({k: 0})[:-len(" = 0\n")]


def join(path: str, k: str) -> str:
    return f"{path}.{key(k)}" if path else key(k)


def at(path: str, i: int) -> str:
    """A list element's path; positions count from 1."""
    return f"{path}[{i + 1}]"


def show(v: object) -> str:
    """A value as the message names it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return repr(v)
    return str(v)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ---------------------------------------------------------------------------- the checker
class Checker:
    """Collects every problem of a file; each check returns None for a bad value."""

    def __init__(self, filename: str):
        self.file = filename
        self.errors: list[str] = []
        self.places: dict[tuple[str, int], str] = {}     # (kind, number) -> where the card is
        self._db: Database | None = None
        self.solo = False

    @property
    def db(self) -> Database:
        assert self._db is not None, "the printing is read before any card"
        return self._db

    @db.setter
    def db(self, db: Database) -> None:
        self._db = db

    def err(self, path: str, msg: str) -> None:
        self.errors.append(f"{self.file}: {path}: {msg}")

    def table(self, v: Any, path: str) -> dict | None:
        if not isinstance(v, dict):
            self.err(path, f"must be a table, got {show(v)}")
            return None
        return v

    def fields(self, tbl: dict, path: str, allowed: Sequence[str], required: Sequence[str] = (),
               hint: str = "") -> None:
        for k in tbl:
            if k not in allowed:
                close = difflib.get_close_matches(k, list(allowed), n=1, cutoff=0.6)
                extra = f" (did you mean '{close[0]}'?)" if close else hint
                self.err(join(path, k), f"unknown field{extra}")
        for k in required:
            if k not in tbl:
                self.err(join(path, k), "missing (this field is required)")

    def integer(self, v: Any, path: str, lo: int, hi: int, what: str = "") -> int | None:
        if isinstance(v, bool) or not isinstance(v, int):
            self.err(path, f"must be a whole number, got {show(v)}")
            return None
        if not lo <= v <= hi:
            self.err(path, f"{v} is out of range {lo}..{hi}{what}")
            return None
        return v

    def field_int(self, tbl: dict, k: str, path: str, lo: int, hi: int, default: Any = ...,
                  what: str = "") -> Any:
        """tbl[k] checked as a whole number; `default` when absent (None when no default)."""
        if k not in tbl:
            return None if default is ... else default
        return self.integer(tbl[k], join(path, k), lo, hi, what)

    def boolean(self, v: Any, path: str) -> bool | None:
        if not isinstance(v, bool):
            self.err(path, f"must be true or false, got {show(v)}")
            return None
        return v

    def string(self, v: Any, path: str) -> str | None:
        if not isinstance(v, str):
            self.err(path, f"must be a text in quotes, got {show(v)}")
            return None
        return v

    def array(self, v: Any, path: str, max_len: int | None = None) -> list | None:
        if not isinstance(v, list):
            self.err(path, f"must be a list, got {show(v)}")
            return None
        if max_len is not None and len(v) > max_len:
            self.err(path, f"has {len(v)} entries, at most {max_len} allowed")
            return None
        return v

    def card(self, v: Any, kind: str, path: str) -> int | None:
        """A dragon or cave card number from a name (tolerant) or a number."""
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            self.err(path, f"must be a {kind} card name or number, got {show(v)}")
            return None
        if kind == "dragon" and isinstance(v, str):
            n = printing_rules(self.db.printing).names.get(norm_name(v))
            if n is not None:
                return n
        try:
            card = self.db.lookup(str(v), kind)
        except CardLookupError as e:
            self.err(path, str(e))
            return None
        if card.kind != kind:
            self.err(path, f"{show(v)} is a {card.kind} card, not a {kind} card")
            return None
        return card.number

    def name(self, v: int, kind: str) -> str:
        return self.db.dragon(v).name if kind == "dragon" else self.db.cave(v).name

    def place(self, kind: str, number: int, path: str) -> bool:
        """Record where a card is; a second place is an error."""
        first = self.places.get((kind, number))
        if first is not None:
            self.err(path, f"'{self.name(number, kind)}' is already at {first} (a card is in one place only)")
            return False
        self.places[(kind, number)] = path
        return True

    def player_name(self, v: Any, names: Sequence[str] | None, path: str) -> int | None:
        """The seat a name stands for (its index in `names`)."""
        v = self.string(v, path)
        if v is None or names is None:
            return None
        if v in names:
            return list(names).index(v)
        close = difflib.get_close_matches(v, list(names), n=1, cutoff=0.5)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        if self.solo and len(names) == 2:          # the guild's seats: the human and the Automa
            self.err(path, f"'{v}' is neither the human player nor the Automa ({', '.join(names)}){hint}")
        else:
            self.err(path, f"'{v}' is not in turn_order ({', '.join(names)}){hint}")
        return None
