"""The web app's games, each saved on the server after every entry.

A game lives in the games directory as `<id>.json`: the seats' names, the table (`Table.to_dict`:
its setup, the game's history with the stand-ins marked, the entries) and a summary for the list of
games to resume. The browser names a game by its id only, never a path; an id is checked against
its pattern before it reaches the file system. Writes go through `advisor/files.py` (whole or not at
all), so a crash or Ctrl-C never leaves half a save."""
from __future__ import annotations

import json
import os
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from advisor._core import Game
from advisor.errors import AdvisorError
from advisor.files import SAVE_LIMIT, FileError, parse_json, read_text, replace_file
from advisor.serve.kept import Kept
from advisor.serve.played import Played
from advisor.serve.view import about_words
from advisor.table import Table, TableError

SAVED_BY = "advisor serve"
FORMAT = 1
ID = re.compile(r"[0-9a-f]{12}")


class StoreError(AdvisorError):
    """A game that is not there, or a save that cannot be read or written."""


class UnknownGame(StoreError):
    """No game of that id (404 on the web)."""


def default_games_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "wyrmspan-advisor", "games")


@dataclass
class Followed(Kept):
    """A game followed in the browser: its table."""
    table: Table
    log: list[dict[str, str]] = field(default_factory=list)    # each entry in words, as answered

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def viewer(self) -> int:
        return self.table.viewer

    def from_start(self) -> tuple[Game, list[int]]:
        """The game as it began and every step since, chance outcomes and stand-ins included (a
        review replays them; its search, from the viewer's seat, deals anew all the viewer did not
        see, so a stand-in is no more to it than any other deal)."""
        start = self.game.clone()
        start.rewind(0)
        return start, self.game.history

    def entered(self, question: str, answer: str) -> None:
        self.log.append({"question": question, "answer": answer})

    def undone(self) -> None:
        if self.log:
            self.log.pop()

    def summary(self) -> dict[str, Any]:
        g = self.table.game
        q = self.table.question()
        return {"id": self.id, "mode": "follow", "names": self.names, "viewer": self.table.viewer,
                "players": self.table.players,
                "round": min(g.round, 4), "over": g.is_terminal(),
                "about": "game over" if q is None else about_words(self.table, q, self.names),
                "entries": len(self.table.entered), "updated": self.updated}

    def to_dict(self) -> dict[str, Any]:
        return {"saved_by": SAVED_BY, "format": FORMAT, "names": self.names, "created": self.created,
                "updated": self.updated, "summary": self.summary(), "log": self.log,
                "table": self.table.to_dict()}


class Store:
    """The games of one games directory, kept in memory once read."""

    def __init__(self, folder: str):
        self.folder = folder
        self.games: dict[str, Followed | Played] = {}
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot make the games directory {folder}: {e.strerror or e}") from None

    def path(self, game_id: str) -> str:
        if not ID.fullmatch(game_id):
            raise UnknownGame(f"no game '{game_id[:20]}': a game id is 12 hex digits")
        return os.path.join(self.folder, f"{game_id}.json")

    def new_id(self) -> str:
        game_id = secrets.token_hex(6)
        while os.path.exists(self.path(game_id)):
            game_id = secrets.token_hex(6)
        return game_id

    def new(self, names: list[str], table: Table) -> Followed:
        f = Followed(self.new_id(), names, table)
        self.games[f.id] = f
        self.save(f)
        return f

    def add(self, p: Played) -> Played:
        self.games[p.id] = p
        self.save(p)
        return p

    def save(self, f: Followed | Played) -> None:
        f.updated = time.time()
        try:
            replace_file(self.path(f.id), json.dumps({"saved_by": SAVED_BY, "format": FORMAT, **f.to_dict()},
                                                     indent=1).encode(), "save file")
        except FileError as e:
            raise StoreError(str(e)) from None

    def get(self, game_id: str) -> Followed | Played:
        if game_id in self.games:
            return self.games[game_id]
        path = self.path(game_id)
        if not os.path.exists(path):
            raise UnknownGame(f"no game '{game_id}' in the games directory")
        d = self._read(path)
        if d.get("mode") == "play":
            try:
                p = Played.from_dict(game_id, d)
            except (KeyError, TypeError, ValueError, AdvisorError) as e:
                raise StoreError(f"{os.path.basename(path)}: not a game this server can resume ({e})") from None
            self.games[game_id] = p
            return p
        try:
            table = Table.from_dict(d["table"])
            names = [str(n) for n in d["names"]]
        except (KeyError, TypeError, ValueError, TableError) as e:
            raise StoreError(f"{os.path.basename(path)}: not a game this server can resume ({e})") from None
        log = d.get("log", [])
        if not isinstance(log, list) or not all(isinstance(e, dict) for e in log):
            log = []
        f = Followed(game_id, names, table, [{"question": str(e.get("question", "")), "answer": str(e.get("answer", ""))}
                                             for e in log][-len(table.entered):] if table.entered else [],
                     created=float(d.get("created", 0)), updated=float(d.get("updated", 0)))
        self.games[game_id] = f
        return f

    def _read(self, path: str) -> dict[str, Any]:
        try:
            d = parse_json(read_text(path, SAVE_LIMIT, "save file"), os.path.basename(path))
        except FileError as e:
            raise StoreError(str(e)) from None
        if not isinstance(d, dict) or d.get("saved_by") != SAVED_BY:
            raise StoreError(f"{os.path.basename(path)}: not a save of {SAVED_BY}")
        return d

    def listing(self) -> list[dict[str, Any]]:
        """Every game of the directory, the last played first (unreadable files are left out)."""
        out = []
        for name in os.listdir(self.folder):
            game_id = name.removesuffix(".json")
            if not name.endswith(".json") or not ID.fullmatch(game_id):
                continue
            if game_id in self.games:
                out.append(self.games[game_id].summary())
                continue
            try:
                d = self._read(os.path.join(self.folder, name))
            except StoreError:
                continue
            if isinstance(d.get("summary"), dict):
                out.append({**d["summary"], "id": game_id})
        return sorted(out, key=lambda s: -float(s.get("updated", 0)))

    def delete(self, game_id: str) -> None:
        path = self.path(game_id)
        self.games.pop(game_id, None)
        try:
            os.unlink(path)
        except FileNotFoundError:
            raise UnknownGame(f"no game '{game_id}' in the games directory") from None
        except OSError as e:
            raise StoreError(f"cannot remove {path}: {e.strerror or e}") from None
