"""`advisor play`: a game of Wyrmspan at the terminal, one human seat against AI agents or the Automa.

The modules, one job each: setup (how a game starts: PlaySetup, make_setup), session (the game in
progress: the record of decisions, undo), saves (save files and the position beside them), render
(the table as one player sees it), terminal (the dialogue and the `advisor play` command) and
commands (what the human can type at a prompt besides a decision). docs/play.md describes the
dialogue."""
from advisor.play.saves import load_session, position_path, save_session, save_text
from advisor.play.session import Session, state_digest, visible_cards
from advisor.play.setup import PlayError, PlaySetup, make_setup
from advisor.play.terminal import Terminal, play

# render is not re-exported: the name is its module's (advisor.play.render.render)
__all__ = ["PlayError", "PlaySetup", "Session", "Terminal", "load_session", "make_setup", "play", "position_path",
           "save_session", "save_text", "state_digest", "visible_cards"]
