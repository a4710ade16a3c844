"""Following a game played at a real table (`advisor track`, docs/track.md), on the table driver
advisor/table.py. The modules, one job each: entry (a typed line read into the table's answer),
session (the tracked game and its save file), setup (a position file as the start) and dialogue
(the prompts and commands over an input stream)."""
from advisor.track.dialogue import Console, Dialogue
from advisor.track.entry import EntryError, read_entry
from advisor.track.session import SaveError, TrackSession

__all__ = ["Console", "Dialogue", "EntryError", "SaveError", "TrackSession", "read_entry"]
