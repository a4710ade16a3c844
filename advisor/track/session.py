"""A tracked game's record and its save file. The record is every entry as typed (a move and its
answers, one list of lines per entry); the save file (JSON) holds the state the tracking started
from and the record, so `advisor track --load` replays it to exactly the same game (the tracker's
choices are deterministic), with `undo` back to any entry."""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor._core import Game
from advisor.errors import AdvisorError
from advisor.track.game import Draw, TrackedGame, TrackError, describe

SAVE_FORMAT = 1
SAVE_MARK = "advisor track"          # the "saved_by" field of a save file this command wrote


class SaveError(AdvisorError):
    """A save file that cannot be read or written."""


def parse_card(tg: TrackedGame, d: Draw, text: str) -> int | None:
    """An answer to a question: a card by name or number, or '?' (None: not seen)."""
    t = text.strip()
    if t == "?":
        return None
    if d.kind == "automa":
        t = t.lower().removeprefix("automa").removeprefix(" card").strip()
        if not t.isdigit():
            raise TrackError(f"'{t}': give the number of the Automa's card")
        return int(t)
    from advisor.cards.database import CardLookupError
    try:
        return tg.db.lookup(t, "dragon" if d.kind == "dragons" else "cave").number
    except CardLookupError as e:
        raise TrackError(str(e)) from None


@dataclass
class TrackSession:
    """The tracked game, the names of the seats, its start and the record of entries."""
    names: tuple[str, ...]
    start: dict[str, Any] = field(repr=False)     # Game.to_dict() where the tracking began
    viewer: int
    record: list[list[str]] = field(default_factory=list)
    history: list[TrackedGame] = field(default_factory=list, repr=False)    # after each entry

    @classmethod
    def begin(cls, game: Game, viewer: int, names: Sequence[str]) -> TrackSession:
        s = cls(tuple(names), game.to_dict(), viewer)
        s.history = [TrackedGame(Game.from_dict(s.start), viewer)]
        return s

    @property
    def tracked(self) -> TrackedGame:
        return self.history[-1]

    def enter(self, lines: Iterator[str] | Sequence[str], ask: Callable[[str], str] | None = None,
              tell: Callable[[str], None] | None = None) -> list[str]:
        """Play one entry: a move, then an answer per question. Lines come from `lines`; when it
        runs dry `ask(question)` gives the next answer, and a bad answer is told (`tell`) and asked
        again. The game is unchanged if the entry fails. Returns the lines the entry took."""
        feed = iter(lines)
        tg = self.tracked.copy()
        move = next(feed)
        prep = tg.prepare(move)
        taken = [move]
        while (d := tg.question(prep)) is not None:
            q = describe(d, self.names)
            if d.kind == "automa":
                left = sorted(set(prep.state["segment_start"]["automa"]["deck"][d.index:]))
                q = f"{q} ({', '.join(map(str, left))})"
            while True:
                line = next(feed, None)
                if line is None:
                    if ask is None:
                        raise TrackError(f"no answer to: {q}")
                    line = ask(q)
                try:
                    tg.answer(prep, d, parse_card(tg, d, line))
                    break
                except TrackError as e:
                    if ask is None or tell is None:
                        raise
                    tell(str(e))
            taken.append(line.strip())
        tg.commit(prep)
        self.history.append(tg)
        self.record.append(taken)
        return taken

    def undo(self) -> list[str]:
        if not self.record:
            raise TrackError("nothing to undo")
        self.history.pop()
        return self.record.pop()

    # ------------------------------------------------------------------ the file
    def to_json(self) -> str:
        g = self.tracked.game
        doc = {"saved_by": SAVE_MARK, "format": SAVE_FORMAT, "names": list(self.names), "viewer": self.viewer,
               "state": digest(g), "record": self.record, "start": self.start}
        return json.dumps(doc, indent=None, separators=(",", ":")) + "\n"

    def save(self, path: str) -> None:
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    ours = json.load(f).get("saved_by") == SAVE_MARK
            except (OSError, ValueError, AttributeError):
                ours = False
            if not ours:
                raise SaveError(f"{path} exists and is not a file saved by `advisor track`; choose another name")
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(self.to_json())
            os.replace(tmp, path)
        except OSError as e:
            raise SaveError(f"cannot write {path}: {e.strerror or e}") from None

    @classmethod
    def load(cls, path: str) -> TrackSession:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            raise SaveError(f"{path}: no such file") from None
        except (OSError, ValueError) as e:
            raise SaveError(f"{path}: not a save file of `advisor track`: {e}") from None
        if not isinstance(doc, dict) or doc.get("saved_by") != SAVE_MARK:
            raise SaveError(f"{path}: not a save file of `advisor track`")
        if doc.get("format") != SAVE_FORMAT:
            raise SaveError(f"{path}: format {doc.get('format')!r} is not one this version reads ({SAVE_FORMAT})")
        try:
            s = cls.begin(Game.from_dict(doc["start"]), int(doc["viewer"]), [str(n) for n in doc["names"]])
            for i, entry in enumerate(doc["record"]):
                try:
                    s.enter([str(x) for x in entry])
                except (TrackError, StopIteration) as e:
                    raise SaveError(f"{path}: entry {i + 1} ({' / '.join(map(str, entry))}): {e}") from None
        except (KeyError, TypeError, ValueError) as e:
            raise SaveError(f"{path}: a damaged save file ({e})") from None
        if doc.get("state") != digest(s.tracked.game):
            raise SaveError(f"{path}: the replayed game differs from the one saved (the engine or the "
                            "card data changed since)")
        return s


def digest(game: Game) -> str:
    """A short digest of the full state (hidden cards included)."""
    return hashlib.sha256(json.dumps(game.to_dict(), sort_keys=True).encode()).hexdigest()[:16]
