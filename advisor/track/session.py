"""A tracked game and its save file. The game is a `Table` (advisor/table.py): its history holds
every entry and the stand-ins bound for what the viewer did not see, so a save is the table's dict
and `--load` replays it to exactly the same game, `undo` included."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from advisor.errors import AdvisorError
from advisor.files import SAVE_LIMIT, FileError, parse_json, read_text, replace_file
from advisor.table import Table, TableError

SAVE_FORMAT = 3     # 3: the table's history (1-2: typed entries on a pre-dealt game, before issue 63)
SAVE_MARK = "advisor track"          # the "saved_by" field of a save file this command wrote
SERVE_MARK = "advisor serve"         # a game `advisor serve` followed (advisor/serve/store.py)


class SaveError(AdvisorError):
    """A save file that cannot be read or written, or one that would lose another game."""


@dataclass
class TrackSession:
    """The tracked game and where it is saved."""
    table: Table
    path: str | None = None         # the save file; None: not saved
    position: dict[str, Any] | None = None      # the position file it started from (setup.py), if any

    @property
    def names(self) -> tuple[str, ...]:
        return self.table.names

    @property
    def viewer(self) -> int:
        return self.table.viewer

    def to_json(self) -> str:
        doc = {"saved_by": SAVE_MARK, "format": SAVE_FORMAT, "state": digest(self.table),
               "table": self.table.to_dict()}
        return json.dumps(doc, separators=(",", ":")) + "\n"

    def save(self) -> None:
        if self.path is None:
            return
        try:
            replace_file(self.path, self.to_json().encode("utf-8"), "save file")
        except FileError as e:
            raise SaveError(str(e)) from None

    def claim(self, path: str) -> None:
        """Save here from now on. A file there that is not this game's save (another tracked game,
        or not a save at all) is refused: a new game never overwrites one."""
        if os.path.lexists(path) and os.path.abspath(path) != os.path.abspath(self.path or ""):
            try:
                other = _read(path)
            except SaveError:
                raise SaveError(f"{path} exists and is not a save of `advisor track`; choose another "
                                "name") from None
            if other["table"] != self.table.to_dict():
                raise SaveError(f"{path} holds another tracked game ({summary(other)}); resume it with "
                                f"--load {path}, or choose another --save")
        self.path = path
        self.save()

    @classmethod
    def load(cls, path: str) -> TrackSession:
        """A saved game: one of `advisor track`'s, saved again where it was; or a game `advisor
        serve` followed, which the tracker goes on with in a save of its own (path None)."""
        doc = _read(path)
        try:
            table = Table.from_dict(doc["table"])
        except TableError as e:
            raise SaveError(f"{path}: table: {e}") from None
        if doc.get("saved_by") == SERVE_MARK:
            return cls(table, None)
        if doc.get("state") != digest(table):
            raise SaveError(f"{path}: the replayed game differs from the one saved (the engine or the card "
                            "data changed since)")
        return cls(table, path)


def _read(path: str) -> dict[str, Any]:
    """A save file's document, checked to be one of ours in this format."""
    try:
        doc = parse_json(read_text(path, SAVE_LIMIT, "save file"), path)
    except FileError as e:
        raise SaveError(str(e)) from None
    if isinstance(doc, dict) and doc.get("saved_by") == SERVE_MARK and isinstance(doc.get("table"), dict):
        return doc                  # a game the web page followed: its table is the same
    if not isinstance(doc, dict) or doc.get("saved_by") != SAVE_MARK:
        raise SaveError(f"{path}: not a save file of `advisor track`")
    if doc.get("format") != SAVE_FORMAT:
        f = doc.get("format")
        raise SaveError(f"{path}: a save of format {clip_repr(f)}; this version reads format {SAVE_FORMAT} "
                        "(saves before it kept typed entries on a pre-dealt game, which it cannot replay)")
    if not isinstance(doc.get("table"), dict):
        raise SaveError(f"{path}: table: missing or not a mapping")
    return doc


def clip_repr(x: Any) -> str:
    from advisor.errors import clip
    return clip(repr(x), 20)


def summary(doc: dict[str, Any]) -> str:
    """Who plays a saved game and how far it got, in a few words."""
    t = doc["table"]
    names = t.get("names") or []
    n = len(t.get("history") or [])
    return f"{', '.join(map(str, names[:5]))}; {n} steps" if names else f"{n} steps"


def digest(table: Table) -> str:
    """A short digest of the game's full state (stand-ins included)."""
    d = table.game.to_dict()
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]
