"""Where tracking starts when it is not a new game: a position file (the viewer's turn, as `advisor
suggest` reads it). What the viewer cannot see there is dealt as stand-ins, dealt again when an
entry needs it (advisor/table.py)."""
from __future__ import annotations

from advisor.files import POSITION_LIMIT, FileError, read_text
from advisor.table import Table
from advisor.track.session import SaveError, TrackSession


def from_position(path: str, seed: int) -> TrackSession:
    """A tracked game from a position file."""
    from advisor.positions import PositionError
    try:
        text = read_text(path, POSITION_LIMIT, "position file")
        return TrackSession(Table.from_position(text, seed))
    except FileError as e:
        raise SaveError(str(e)) from None
    except PositionError as e:
        raise SaveError(f"{path}: {e}") from None
