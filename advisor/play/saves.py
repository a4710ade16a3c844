"""Save files of `advisor play`: the setup and the record of a game (TOML, written by tomli-w), and
beside it the human's position file at the start of a turn of theirs (for `advisor suggest`).

A save file holds the setup (`printing`, `players`, `seat`, `opponents`, `solo_level`, `seed`),
`record` (every decision's action id, in order), `notation` (each decision as the human saw it, for
a reader; the loader ignores it), `state`, a digest of the state the record reaches, and `picked`
when saved between the picks of a setup discard (the cards picked so far, as action ids)."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

import tomli_w

from advisor.files import SAVE_LIMIT, FileError, parse_toml, read_head, read_text, replace_file
from advisor.play.session import Session, state_digest
from advisor.play.setup import PlayError, make_setup
from advisor.variants import AUTOMA_LEVELS as LEVELS
from advisor.positions import PositionError, position_text

SAVE_FORMAT = 1
SAVE_MARK = "# A game of Wyrmspan saved by `advisor play`"     # how a save file starts
POSITION_MARK = "# Wyrmspan position"                           # how position_text starts
SAVE_HEADER = f"""\
{SAVE_MARK}; resume it with `advisor play --load FILE`.
# The game is the seed's deal and the decisions of `record`, in order (docs/play.md); `state` is a
# digest of the state they reach, `notation` each decision as you saw it.
"""
_FIELDS = ("format", "printing", "players", "seat", "opponents", "solo_level", "seed", "decisions", "state",
           "record", "notation", "picked")


def save_text(session: Session) -> str:
    """The save file: the setup, the record (with each decision's notation) and a digest of the
    state it reaches."""
    st = session.setup
    doc: dict[str, Any] = {"format": SAVE_FORMAT, "printing": st.printing, "players": st.players,
                           "seat": st.seat, "opponents": list(st.opponents)}
    if st.solo_level:
        doc["solo_level"] = st.solo_level
    names = st.names()
    texts = session.public_texts(range(len(session.record)))
    doc |= {"seed": st.seed, "decisions": len(session.record), "state": state_digest(session.game),
            "record": list(session.record),
            "notation": [f"{names[who]}: {text}" for who, text in zip(session.deciders, texts, strict=True)]}
    if session.picked:
        doc["picked"] = list(session.picked)
    return SAVE_HEADER + tomli_w.dumps(doc)


def write_file(path: str, text: str, mark: str) -> None:
    """Write `path` (atomically); an existing file is replaced only if it starts with `mark` (one
    this command wrote), so a mistyped name never destroys another file."""
    if os.path.lexists(path):
        ours = read_head(path, len(mark.encode())) == mark.encode()    # a FIFO or device is not ours
        if not ours:
            raise PlayError(f"{path} exists and is not a file written by `advisor play`; choose another name")
    try:
        replace_file(path, text.encode("utf-8"), "save file")
    except FileError as e:
        raise PlayError(str(e)) from None


def position_path(path: str) -> str:
    """Where the position file beside save file `path` goes: game.toml -> game.position.toml."""
    root, ext = os.path.splitext(path)
    return f"{root}.position{ext or '.toml'}"


def save_session(session: Session, path: str) -> str | None:
    """Write the save file, and beside it the human's position file when a turn of theirs starts
    (for `advisor suggest` / `advisor show`); a position file left there by an earlier save is
    removed otherwise. Returns the position file's path, or None."""
    write_file(path, save_text(session), SAVE_MARK)
    g = session.game
    pos = position_path(path)
    text = None
    if not (g.is_terminal() or g.phase != "turn" or g.decision != "move" or g.decisions_in_segment
            or g.decider != session.human):
        try:
            text = position_text(g, session.human)
        except PositionError:
            text = None
    if text is None:
        if read_head(pos, len(POSITION_MARK.encode())) == POSITION_MARK.encode():
            with contextlib.suppress(OSError):
                os.unlink(pos)
        return None
    write_file(pos, text, POSITION_MARK)
    return pos


def load_session(path: str, opponents: Sequence[str] = ()) -> tuple[Session, list[str]]:
    """The session saved in `path` (replayed from its record), and warnings. `opponents` replaces
    the saved agent specs (one for all, or one per opponent)."""
    try:
        data = parse_toml(read_text(path, SAVE_LIMIT, "save file"), path)
    except FileError as e:
        raise PlayError(str(e)) from None
    if "record" not in data and {"viewer", "turn_order", "player"} & set(data):
        raise PlayError(f"{path} is a position file, not a save: `advisor show` and `suggest` read it")
    errors: list[str] = []

    def need(key: str, typ: type, what: str) -> Any:
        v = data.get(key)
        if not isinstance(v, typ) or isinstance(v, bool):
            errors.append(f"{path}: {key}: must be {what}" + ("" if key not in data else f", got {v!r}"))
            return None
        return v
    fmt = need("format", int, "an integer")
    if fmt is not None and fmt != SAVE_FORMAT:
        errors.append(f"{path}: format: {fmt} is not a save format this version reads ({SAVE_FORMAT})")
    players = need("players", int, "an integer (1 to 5)")
    if players is not None and not 1 <= players <= 5:
        errors.append(f"{path}: players: must be from 1 to 5, got {players}")
        players = None
    seat = need("seat", int, "an integer (the human's seat)")
    seed = need("seed", int, "an integer")
    printing = data.get("printing", "base")
    specs = data.get("opponents", [])
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        errors.append(f"{path}: opponents: must be a list of agent specs")
        specs = []
    level = data.get("solo_level")
    if level is not None and not isinstance(level, str):
        errors.append(f"{path}: solo_level: must be a string ({', '.join(LEVELS)})")
    record = data.get("record")
    if not isinstance(record, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in record):
        errors.append(f"{path}: record: must be a list of action ids (integers)")
        record = []
    picked = data.get("picked", [])
    if not isinstance(picked, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in picked):
        errors.append(f"{path}: picked: must be a list of action ids (integers)")
        picked = []
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        errors.append(f"{path}: {', '.join(unknown)}: not a field of a save file")
    if errors:
        raise PlayError("\n".join(errors))
    try:
        setup = make_setup(players, seat, tuple(opponents) or tuple(specs), level, seed, printing)
    except PlayError as e:
        raise PlayError(f"{path}: {e}") from None
    session = Session.replay(setup, record, where=f"{path}: record")
    wrong = session.check_picked(picked)
    if wrong:
        raise PlayError(f"{path}: picked: {wrong}")
    session.picked = list(picked)
    decisions = data.get("decisions")
    if isinstance(decisions, int) and not isinstance(decisions, bool) and decisions != len(record):
        raise PlayError(f"{path}: record: holds {len(record)} decisions, the file says {decisions}: cut or edited")
    warnings = []
    digest = data.get("state")
    if isinstance(digest, str) and digest != state_digest(session.game):
        warnings.append(f"{path}: the replayed game differs from the one saved (the file was edited, or the "
                        "engine or the card data changed since); playing on from the replayed one, and "
                        f"{path} is left as it is (--save FILE saves this game)")
    return session, warnings


