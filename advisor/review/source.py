"""The finished games `advisor review` reads: a game saved by `advisor play`, or one game of a
tournament results file (its record lists every decision, `actions`)."""
from __future__ import annotations

import difflib
import hashlib
import json
import os
from dataclasses import dataclass, field

from advisor import _core
from advisor.errors import AdvisorError, clip
from advisor.files import FileError, check_regular, read_head


class ReviewError(AdvisorError):
    """A game that cannot be reviewed (one line)."""


@dataclass
class PlayedGame:
    """A game as it was played: its start, every decision in order, the seats' names and the
    seats reviewed unless told otherwise (the human's; in a tournament, every seat)."""
    start: _core.Game
    actions: list[int]
    names: list[str]
    default_seats: list[int]
    label: str
    path: str = ""                  # the file it was read from
    key: str | None = None          # its key in a tournament results file
    warnings: list[str] = field(default_factory=list)

    @property
    def digest(self) -> str:
        """The game's content (its start and decisions), whatever path named its file."""
        doc = json.dumps([self.start.to_dict(), self.actions], sort_keys=True)
        return hashlib.sha256(doc.encode()).hexdigest()[:16]

    def seat(self, name: str) -> int:
        """A seat by its name (case-insensitive) or number."""
        for q, n in enumerate(self.names):
            if name.lower() == n.lower() or name == str(q):
                return q
        close = difflib.get_close_matches(name, self.names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ReviewError(f"--seat {clip(name)}: no such seat in {self.label}; seats: {', '.join(self.names)}{hint}")


def is_results_file(path: str) -> bool:
    if path.endswith((".jsonl", ".jsonl.gz", ".gz")):
        return True
    return read_head(path, 2) in (b"\x1f\x8b", b'{"')      # never blocks on a FIFO


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (./game.toml, its absolute path, a link to it)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def load_played(path: str, key: str | None = None) -> PlayedGame:
    """The game in `path`: an `advisor play` save, or game `key` of a tournament results file."""
    try:
        check_regular(path, "game file")
    except FileError as e:
        raise ReviewError(str(e)) from None
    if not os.path.exists(path):
        raise ReviewError(f"{path}: no such file")
    if key is not None or is_results_file(path):
        return _from_results(path, key)
    return _from_save(path)


def _from_save(path: str) -> PlayedGame:
    from advisor.play.saves import load_session
    from advisor.play.setup import PlayError
    try:
        session, warnings = load_session(path)
    except PlayError as e:
        raise ReviewError(str(e)) from None
    setup = session.setup
    if not session.game.is_terminal():
        raise ReviewError(f"{path}: unfinished game ({len(session.record)} decisions): "
                          "`advisor play --load` plays it on")
    # a save whose digest differs is reviewed as replayed, saying so (as `play --load` plays on from it)
    if warnings:
        warnings = [f"{path}: the replayed game differs from the one saved (the file was edited, or the engine "
                    "or the card data changed since): reviewing the replayed one"]
    return PlayedGame(setup.new_game(), list(session.record), setup.names(), [setup.seat], path, path,
                      warnings=warnings)


def _from_results(path: str, key: str | None) -> PlayedGame:
    from advisor.tournaments.records import ResultsFileError, load_results
    try:
        records, _, _ = load_results(path)
    except (ResultsFileError, FileError) as e:
        raise ReviewError(str(e)) from None
    games = {r["key"]: r for r in records if not r.get("error")}
    if not games:
        raise ReviewError(f"{path}: no finished games")
    if key is None:
        some = ", ".join(list(games)[:6])
        raise ReviewError(f"{path} is a tournament results file: choose a game with --game KEY ({some}, ...)")
    if key not in games:
        close = difflib.get_close_matches(key, list(games), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ReviewError(f"--game {clip(key)}: no finished game with that key in {path}{hint}")
    rec = games[key]
    if "actions" not in rec:
        raise ReviewError(f"{path}: game {key} was recorded without its decisions (before records kept them)")
    automa = rec.get("automa")
    try:
        if automa:
            game = _core.Game.new(1, int(rec["seed"]), rec["printing"], automa=str(automa["level"]))
        else:
            game = _core.Game.new(int(rec["players"]), int(rec["seed"]), rec["printing"])
    except (KeyError, TypeError, ValueError) as e:
        raise ReviewError(f"{path}: game {key}: a damaged record ({e})") from None
    agents = [s["agent"] for s in rec["seats"]]
    # one agent in several seats (self-play): each by its seat too
    names = [f"{a} P{q}" if agents.count(a) > 1 else a for q, a in enumerate(agents)] + (["Automa"] if automa else [])
    label = f"{path} game {key}"
    _check_replay(game, rec["actions"], label)
    return PlayedGame(game, [int(a) for a in rec["actions"]], names, list(range(len(rec["seats"]))), label, path, key)


def _check_replay(start: _core.Game, actions: list[int], label: str) -> None:
    g = start.clone()
    for i, a in enumerate(actions):
        if g.is_terminal() or a not in g.legal_actions():
            raise ReviewError(f"{label}: decision {i + 1} ({a}) does not replay: another engine or card data")
        g.apply(a)
    if not g.is_terminal():
        raise ReviewError(f"{label}: the recorded decisions stop before the game's end")
