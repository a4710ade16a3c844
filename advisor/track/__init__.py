"""Following a game played at a real table (`advisor track`, docs/track.md).

The modules, one job each: chance (where cards lie, what the viewer sees, the edits that make a
named card the one drawn), game (TrackedGame: a move read, its cards asked for and played), session
(the record of entries, undo, the save file), setup (where tracking starts: a position file or a new
game laid out on the table) and dialogue (the commands and questions over an input stream)."""
from advisor.track.dialogue import Console, Dialogue
from advisor.track.game import HIDDEN, TrackedGame, TrackError
from advisor.track.session import SaveError, TrackSession
from advisor.track.setup import from_position, from_table

__all__ = ["HIDDEN", "Console", "Dialogue", "SaveError", "TrackError", "TrackSession", "TrackedGame", "from_position",
           "from_table"]
