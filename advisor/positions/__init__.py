"""Position files: a Wyrmspan position as one player sees it at the start of their turn (TOML).

The format is documented in docs/position-format.md. `parse_position` / `load_position` read and
check a file and report every problem at once (PositionError: one line per problem, "FILE: field.path:
what is wrong"); `Position.to_game(seed)` deals every card the viewer cannot see from the unseen pool
and returns an engine Game at the viewer's decision; `position_text(game, viewer)` writes the
viewer's view of an engine state at the start of their turn.

Solo games (players = 1): the human plays against the Automa, who sits in engine seat 1. Her state
is the `[automa]` section; in guild lists she is named AUTOMA_NAME.

The modules, one job each: rules (the format's limits and a printing's rule facts), checker
(PositionError and the value checks), check (the reader and the top-level sections), check_player,
check_automa, cross (the checks between sections), build (Position and the engine game), write."""
from advisor.positions.build import Position
from advisor.positions.check import load_position, parse_position
from advisor.positions.checker import PositionError
from advisor.positions.rules import AUTOMA_LEVELS, AUTOMA_NAME, FORMAT_VERSION
from advisor.positions.write import position_text

__all__ = ["AUTOMA_LEVELS", "AUTOMA_NAME", "FORMAT_VERSION", "Position", "PositionError", "load_position",
           "parse_position", "position_text"]
