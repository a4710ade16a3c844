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

from advisor._core import EngineError, Game
from advisor.errors import AdvisorError, IllegalActionError
from advisor.files import SAVE_LIMIT, FileError, parse_json, read_text, replace_file
from advisor.notation import action_text
from advisor.track.chance import ChanceError, state_of, swap_cards, unseen, view_of
from advisor.track.game import (HIDDEN, OUTCOME, AmbiguousEntry, Draw, Prepared, TrackedGame, TrackError, describe,
                                restarted)

SAVE_FORMAT = 2     # 2: a move's cards hidden before it are asked before its draws (1: after)
SAVE_MARK = "advisor track"          # the "saved_by" field of a save file this command wrote
_REWIND = 6         # entries played again on another deal when an opponent's entry is not a move
_DEALS = 24         # deals of the unseen cards tried for each


class SaveError(AdvisorError):
    """A save file that cannot be read or written."""


def parse_card(tg: TrackedGame, d: Draw, text: str) -> int | None:
    """An answer to a question: a card by name or number, or '?' (None: not seen)."""
    t = text.strip()
    if t == "?":
        return None
    if d.kind == OUTCOME:
        if not t.isdigit():
            raise TrackError(f"'{t}': give the number of what they got")
        return int(t)
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
class Entry:
    """An entry begun: the game it is played on, the move read, and the last entries played again
    on another deal to make it a move (they replace the last len(redone) games of the history)."""
    tracked: TrackedGame
    prepared: Prepared
    redone: list[TrackedGame]
    carried: list[str] = field(default_factory=list)    # answers of the last entry it took (in order)


@dataclass
class TrackSession:
    """The tracked game, the names of the seats, its start and the record of entries."""
    names: tuple[str, ...]
    start: dict[str, Any] = field(repr=False)     # Game.to_dict() where the tracking began
    viewer: int
    record: list[list[str]] = field(default_factory=list)
    history: list[TrackedGame] = field(default_factory=list, repr=False)    # after each entry
    redone: int = 0     # entries the last entry played again on another deal of the unseen cards
    carried: int = 0    # answers of the entry before it that the last entry took (see _replay)
    passed: list[int] = field(default_factory=list)     # opponents the engine passed in it (_unpassed)
    replaced: list[list[TrackedGame]] = field(default_factory=list, repr=False)    # by each entry, for undo
    read_as: str = ""   # the last entry's move as the notation writes it ('' for a hidden choice)

    @classmethod
    def begin(cls, game: Game, viewer: int, names: Sequence[str], format: int = SAVE_FORMAT) -> TrackSession:
        s = cls(tuple(names), state_of(game), viewer)
        s.history = [TrackedGame(Game.from_dict(s.start), viewer, reveals_first=format >= 2)]
        return s

    @property
    def tracked(self) -> TrackedGame:
        return self.history[-1]

    @property
    def format(self) -> int:
        """The save format whose order of questions the record follows."""
        return SAVE_FORMAT if self.history[0].reveals_first else 1

    def enter(self, lines: Iterator[str] | Sequence[str], ask: Callable[[str], str] | None = None,
              tell: Callable[[str], None] | None = None) -> list[str]:
        """Play one entry: a move, then an answer per question. Lines come from `lines`; when it
        runs dry `ask(question)` gives the next answer, and a bad answer is told (`tell`) and asked
        again. The game is unchanged if the entry fails. Returns the lines the entry took."""
        feed = iter(lines)
        entry = self.begin_entry(next(feed))
        tg, prep = entry.tracked, entry.prepared
        taken = [prep.text]
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
        self.finish_entry(entry, taken)
        return taken

    def begin_entry(self, move: str) -> Entry:
        """An entry's move read on a copy of the game. When it is not a move now and an opponent
        entered it, the last few entries are played again on other deals of the cards the viewer
        cannot see (the engine's stand-ins gave that opponent other choices than the table's: a
        decision skipped for want of a card, a hidden tuck that decided a gain). A card's name that
        is only tolerantly one move of the opponent, or more than one, is first tried as the last
        entry's seat's exact move, with that card made theirs."""
        tg = self.tracked.copy()
        try:
            entry = Entry(tg, tg.prepare(move), [])
        except AmbiguousEntry:
            # more than one move of this opponent: unless it is exactly the last one's (below)
            found = self._rewind(move, exact=True)
            if found is None:
                raise
            return found
        except TrackError as e:
            found = self._rewind(move)
            if found is None:
                raise e from None
            return found
        if entry.prepared.revealed and not entry.prepared.exact:
            # a card name read as this opponent's move only with the card moved into their hand may
            # be what the last opponent did at a decision the stand-ins skipped: that reading is exact
            found = self._rewind(move, exact=True)
            if found is not None:
                return found
        return entry

    def finish_entry(self, entry: Entry, taken: list[str]) -> None:
        """Play a begun entry whose questions are answered, and keep it."""
        prep, g = entry.prepared, entry.tracked.game
        self.read_as = "" if prep.text == HIDDEN else action_text((prep.forced or [prep.action])[-1], g.printing, g)
        entry.tracked.commit(prep)
        self.redone, self.carried = len(entry.redone), len(entry.carried)
        self.replaced.append(self.history[len(self.history) - len(entry.redone):])
        if entry.redone:
            self.history[-len(entry.redone):] = entry.redone
        tracked, self.passed = (entry.tracked, []) if entry.redone else \
            self._unpassed(self.history[-1], entry.tracked, taken)
        self.history.append(tracked)
        self.record.append(taken)

    def _unpassed(self, base: TrackedGame, done: TrackedGame, taken: list[str]) -> tuple[TrackedGame, list[int]]:
        """`done`, the entry `taken` played on `base`; or, where the engine passed an opponent with
        coins left in it (the cards it holds for them leave them no move), the entry played on
        another deal of the unseen cards where they may still move, the viewer's view the same.
        With it, the opponents passed on every deal tried."""
        was, now = base.observation(), done.observation()
        if now["round"] != was["round"] or done.game.is_terminal():
            return done, []
        mover = base.game.decider
        passed = [q for q, (a, b) in enumerate(zip(was["players"], now["players"]))
                  if b["passed"] and not a["passed"] and b["coins"] > 0 and q != self.viewer
                  and not (q == mover and self.read_as == "pass")]
        if not passed:
            return done, []
        for g in _deals(base, ""):
            found = _replay(TrackedGame(g, self.viewer, base.reveals_first), [taken], [now])
            if found is not None and not any(found[0][0].observation()["players"][q]["passed"] for q in passed):
                return found[0][0], []
        return done, passed

    def _rewind(self, move: str, exact: bool = False) -> Entry | None:
        """The entry read after the last entries played again on another deal of the unseen cards
        (the viewer's view after each one unchanged); None if no deal tried makes it a move (with
        `exact`, a move read as written)."""
        # an exact reading is looked for only where it is cheap (the last entry, the named card
        # swapped in): it is tried for every tolerant entry of an opponent's unseen card
        for back in range(1, min(1 if exact else _REWIND, len(self.record)) + 1):
            base = self.history[-back - 1]
            if base.game.decider == self.viewer and back > 1:
                break           # the viewer's own entries are not the stand-ins' doing
            want = [h.observation() for h in self.history[-back:]]
            for g in _deals(base, move, fresh=not exact):
                done = _replay(TrackedGame(g, self.viewer, base.reveals_first), self.record[-back:], want,
                               carry_out=back == 1)
                if done is None:
                    continue
                redone, carried = done
                tg = redone[-1].copy()
                try:
                    prep = tg.prepare(move)
                    if exact and not prep.exact:
                        continue
                    for line in carried:     # the last entry's answers past the decision it now stops at
                        d = tg.question(prep)
                        if d is None:
                            raise TrackError("an answer more")
                        tg.answer(prep, d, parse_card(tg, d, line))
                except TrackError:
                    continue
                return Entry(tg, prep, redone, carried)
        return None

    def undo(self) -> list[str]:
        if not self.record:
            raise TrackError("nothing to undo")
        self.history.pop()
        if old := self.replaced.pop():     # the games its entry played again, as they were
            self.history[-len(old):] = old
        return self.record.pop()

    # ------------------------------------------------------------------ the file
    def to_json(self) -> str:
        g = self.tracked.game
        doc = {"saved_by": SAVE_MARK, "format": self.format, "names": list(self.names), "viewer": self.viewer,
               "state": digest(g), "record": self.record, "start": self.start}
        return json.dumps(doc, indent=None, separators=(",", ":")) + "\n"

    def save(self, path: str) -> None:
        if os.path.lexists(path):
            try:
                doc = parse_json(read_text(path, SAVE_LIMIT, "save file"), path)
                ours = isinstance(doc, dict) and doc.get("saved_by") == SAVE_MARK
            except FileError:           # a FIFO, a device, too big, not JSON: not ours
                ours = False
            if not ours:
                raise SaveError(f"{path} exists and is not a file saved by `advisor track`; choose another name")
        try:
            replace_file(path, self.to_json().encode("utf-8"), "save file")
        except FileError as e:
            raise SaveError(str(e)) from None

    @classmethod
    def load(cls, path: str) -> TrackSession:
        try:
            doc = parse_json(read_text(path, SAVE_LIMIT, "save file"), path)
        except FileError as e:
            raise SaveError(str(e)) from None
        if not isinstance(doc, dict) or doc.get("saved_by") != SAVE_MARK:
            raise SaveError(f"{path}: not a save file of `advisor track`")
        if doc.get("format") not in (1, SAVE_FORMAT):
            raise SaveError(f"{path}: format {doc.get('format')!r} is not one this version reads (1-{SAVE_FORMAT})")
        try:
            s = cls.begin(Game.from_dict(doc["start"]), int(doc["viewer"]), [str(n) for n in doc["names"]],
                          format=doc["format"])
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


def _deals(base: TrackedGame, move: str, fresh: bool = True) -> Iterator[Game]:
    """Other deals of the cards the viewer cannot see at `base`: the cards `move` names put in an
    opponent's hand first (the stand-in dealt there otherwise), then (`fresh`) fresh deals likewise."""
    viewer = base.viewer
    named = base._named_cards(move)
    for seed in range(-1, _DEALS if fresh else 0):
        g = base.game if seed < 0 else base.game.determinize(viewer, seed, fresh=False)   # stand-ins
        if seed >= 0:
            yield g
        state = state_of(g)
        core = state["core"]
        for kind_, card in named:
            if card not in unseen(core, viewer, kind_, base.printing):
                continue
            for q, P in enumerate(core["players"]):
                stand = [c for c in P[f"hand_{kind_}"] if c not in P[f"known_{kind_}"]]
                if q == viewer or not stand:
                    continue
                try:        # swapped where the segment starts, its decisions so far played again
                    s = swap_cards(state["segment_start"], viewer, kind_, stand[0], card)
                    h = Game.from_dict(restarted(state, s))
                except (ChanceError, EngineError, IllegalActionError):
                    continue
                if comparable(view_of(h, viewer)) == comparable(base.observation()):
                    yield h


def _replay(tg: TrackedGame, entries: list[list[str]], want: list[dict[str, Any]], carry_out: bool = False
            ) -> tuple[list[TrackedGame], list[str]] | None:
    """The entries played again from `tg`: the game after each, and (with `carry_out`) the answers
    the last one had more on the deal it was made on; None if one fails or the viewer's view after
    it differs from `want`'s. An entry may stop short on this deal at a decision of its seat that
    the old deal skipped (a dragon played for free before the round's end): the answers it took
    after it then go to the next entry's questions, after its move."""
    out = []
    carry: list[str] = []
    for n, (lines, obs) in enumerate(zip(entries, want)):
        tg = tg.copy()
        seat = tg.game.decider
        feed = iter([lines[0], *carry, *lines[1:]])
        try:
            prep = tg.prepare(next(feed))
            while (d := tg.question(prep)) is not None:
                tg.answer(prep, d, parse_card(tg, d, next(feed)))
            carry = list(feed)
            tg.commit(prep)
        except (TrackError, StopIteration, EngineError, IllegalActionError):
            return None
        last = n == len(entries) - 1
        if carry and (tg.game.is_terminal() or tg.game.decider != seat or (last and not carry_out)):
            return None         # an answer more, not for a decision of theirs this deal made
        # the last may end at a decision the old deal skipped (even one the game ended without, or
        # one the old deal's answers went on past)
        unchecked = last and (carry or obs["phase"] == "over")
        if not unchecked and comparable(tg.observation(), last) != comparable(obs, last):
            return None
        out.append(tg)
    return out, carry


def comparable(obs: dict[str, Any], board_only: bool = False) -> dict[str, Any]:
    """An observation with the legal moves as a set (their order follows hidden cards); with
    `board_only`, without whose decision it is (nor who has passed: a seat the stand-ins left
    nothing but a pass was passed by the engine)."""
    if board_only:
        return {k: ([{x: y for x, y in P.items() if x != "passed"} for P in v] if k == "players" else v)
                for k, v in obs.items() if k not in _FLOW}
    return {**obs, "legal_actions": sorted(obs["legal_actions"])}


_FLOW = {"decider", "decision", "legal_actions", "active", "phase", "phase_player", "phase_count", "turns"}


def digest(game: Game) -> str:
    """A short digest of the full state (hidden cards included; not the draws told to the engine,
    which saves of earlier versions did not have)."""
    d = state_of(game)
    for part in ("core", "segment_start"):
        d[part] = {k: v for k, v in d[part].items() if k != "told"}
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]
