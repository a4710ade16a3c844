"""The dialogue of `advisor track`: read a line, and it is a command (suggest, show, moves, undo,
export, help, quit) or the next move of the game; a move's cards that the viewer sees come up are
asked for after it. Bad input gets one line and the question again; nothing entered is lost. The
game is saved after every entry."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import textwrap
from collections.abc import Callable
from typing import Any, TextIO

from advisor.errors import AdvisorError
from advisor.notation import _norm
from advisor.track.chance import view_of
from advisor.track.game import HIDDEN, TrackError
from advisor.track.session import TrackSession

HELP = "\n".join(textwrap.fill(p, 80, break_on_hyphens=False) for p in (
    "Enter each move as it happens, in the notation of `advisor legal` (or its number in `moves`). "
    f"For an opponent, name the card they play; '{HIDDEN}' for a card they chose unseen (tucked face down). "
    "When a card you see comes up (a draw, a refill, the Automa's card), you are asked which: its name "
    "(or number); '?' if you did not see it.",
    "Commands: suggest [options of `advisor suggest`], show, moves, undo, export FILE, help, quit."))


class InputEnded(AdvisorError):
    """The input ended while a question waited for its answer (not a bad answer: not asked again)."""


class Console:
    """Lines in and out. `interactive`: a person at a terminal (prompts through readline); otherwise
    each line read is echoed after its prompt, a transcript of the scripted session."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, interactive: bool | None = None):
        self.stdin, self.stdout = stdin or sys.stdin, stdout or sys.stdout
        self.interactive = self.stdin.isatty() if interactive is None else interactive

    def say(self, text: str) -> None:
        """Print `text`, a line wider than 80 columns wrapped under itself."""
        lines = [w for line in text.splitlines() or [""] for w in
                 (textwrap.wrap(line, 80, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False)
                  if len(line) > 80 else [line])]
        print("\n".join(lines), file=self.stdout, flush=True)

    def read(self, prompt: str) -> str | None:
        """The next line (None at the end of the input)."""
        if self.interactive and self.stdin is sys.stdin:
            try:
                return input(prompt)
            except EOFError:
                return None
        line = self.stdin.readline()
        if not line:
            return None
        self.say(f"{prompt}{line.rstrip()}")
        return line.rstrip("\n")

    def ask(self, question: str) -> str:
        """An answer to a question (InputEnded at the end of the input)."""
        while True:
            line = self.read(f"{question} ")
            if line is None:
                raise InputEnded("the input ended before the question was answered")
            if line.strip():
                return line

    def tell(self, error: str) -> None:
        self.say(f"error: {error}")


class Dialogue:
    """The loop over a console."""

    def __init__(self, session: TrackSession, save: str | None, console: Console | None = None):
        self.s = session
        self.save_path = save
        self.console = console or Console()
        self.say, self.read = self.console.say, self.console.read
        self.stdout = self.console.stdout

    def prompt(self) -> str:
        g = self.s.tracked.game
        if g.is_terminal():
            return "game over> "
        return f"{self.s.names[g.decider]} ({g.decision})> "

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        self.say(f"Tracking for {self.s.names[self.s.viewer]}. 'help' lists the commands.")
        if self.s.tracked.game.is_terminal():
            self._final()
        while True:
            line = self.read(self.prompt())
            if line is None:
                return 0
            t = line.strip()
            if not t:
                continue
            word, _, rest = t.partition(" ")
            try:
                if word == "quit":
                    return 0
                command = self.COMMANDS.get(word)
                if command is not None:
                    command(self, rest.strip())
                else:
                    self.move(t)
            except (AdvisorError, StopIteration) as e:
                self.say(f"error: {e}")

    def move(self, text: str) -> None:
        tg = self.s.tracked
        moves = [] if tg.game.is_terminal() else tg.moves()
        if text.isdigit() and 1 <= int(text) <= len(moves):
            text = moves[int(text) - 1][1]
        try:
            self.s.enter([text], ask=self.console.ask, tell=self.console.tell)
        except TrackError:
            # an opponent's last choice the stand-in cards ended the game without is still taken
            if tg.game.is_terminal():
                raise TrackError("the game is over ('undo' to take back the last entry)") from None
            raise
        if self.s.read_as and _norm(self.s.read_as) != _norm(text):
            self.say(f"(read as: {self.s.read_as})")     # a tolerant reading the player should see
        if self.s.carried:
            n = self.s.carried
            self.say(f"(the cards you have not seen were dealt again: the last entry now stops at this "
                     f"decision, and the {n} answer{'s' if n > 1 else ''} you gave after it count for this move)")
        elif self.s.redone:
            self.say(f"(the cards you have not seen were dealt again and the last {self.s.redone} "
                     f"entr{'y' if self.s.redone == 1 else 'ies'} played on them: your view is the same)")
        for q in self.s.passed:
            self.say(f"({self.s.names[q]} passed: on every deal tried of the cards you have not seen they have "
                     "no other move; if they move at the table, enter it)")
        self._saved()
        if self.s.tracked.game.is_terminal():
            self._final()

    def _final(self) -> None:
        g = self.s.tracked.game
        self.say("The game is over: " + ", ".join(f"{n} {v}" for n, v in zip(self.s.names, g.scores())))

    def _saved(self) -> None:
        if self.save_path:
            self.s.save(self.save_path)

    # ------------------------------------------------------------------ commands
    def cmd_help(self, rest: str) -> None:
        self.say(HELP)

    def cmd_show(self, rest: str) -> None:
        from advisor.play.render import render
        g = self.s.tracked.game
        self.say(render(view_of(g, self.s.viewer), self.s.viewer, g.printing, g.scores(),
                        names=self._seat_names()))

    def cmd_moves(self, rest: str) -> None:
        tg = self.s.tracked
        moves = tg.moves()
        for i, (_, t) in enumerate(moves, 1):
            self.say(f"{i:>3} {t}")
        if tg.game.decider != self.s.viewer:
            self.say("    (or any card of theirs you had not seen, by name)")

    def cmd_undo(self, rest: str) -> None:
        taken = self.s.undo()
        self._saved()
        self.say(f"undone: {' / '.join(taken)}")

    def cmd_export(self, rest: str) -> None:
        if not rest:
            raise TrackError("export FILE: name the position file to write")
        from advisor.play.saves import POSITION_MARK, write_file
        write_file(os.path.expanduser(rest), self.position_text(), POSITION_MARK)
        self.say(f"wrote {rest}")

    def cmd_suggest(self, rest: str) -> None:
        """`advisor suggest` with these options on the position now (the viewer's view of it, as
        `export` writes it): the same ranking, by the search's one suggest function."""
        import json
        from advisor.positions import PositionError, parse_position
        from advisor.search.suggest import ranking_json, ranking_text, suggest, suggest_settings
        o = _suggest_options(rest)
        try:
            pos = parse_position(self.position_text(), "position")
            settings = suggest_settings(o["sets"], o["time"], o["iterations"], o["workers"])
            game = pos.to_game(o["seed"])
            a = suggest(game, settings, seed=o["seed"])
        except (PositionError, AdvisorError) as e:
            raise TrackError(f"suggest: {e}") from None
        if o["json"]:
            self.say(json.dumps(ranking_json(a, game, pos.seat_names, o["top"], None), indent=1))
        else:
            for line in ranking_text(a, game, pos.seat_names, o["top"]):
                self.say(line)

    def position_text(self) -> str:
        from advisor.positions import PositionError, position_text
        g = self.s.tracked.game
        if (g.is_terminal() or g.phase != "turn" or g.decision != "move" or g.decisions_in_segment
                or g.decider != self.s.viewer):
            raise TrackError("a position is written at the start of your turn only")
        try:
            return position_text(g, self.s.viewer, self._seat_names(position=True))
        except PositionError as e:
            raise TrackError(str(e)) from None

    def _seat_names(self, position: bool = False) -> list[str]:
        names = list(self.s.names)
        g = self.s.tracked.game
        if g.automa_level is not None and position:
            return names[:1]
        return names

    COMMANDS: dict[str, Callable[[Dialogue, str], None]] = {
        "help": cmd_help, "show": cmd_show, "moves": cmd_moves, "undo": cmd_undo, "export": cmd_export,
        "suggest": cmd_suggest}


class _Options(argparse.ArgumentParser):
    def error(self, message: str) -> Any:          # one line for the prompt, never an exit
        raise TrackError(f"suggest: {message}")


def _suggest_options(rest: str) -> dict[str, Any]:
    """The options of `advisor suggest` given to the tracker's `suggest` (see `advisor suggest --help`)."""
    p = _Options(prog="suggest", add_help=False, allow_abbrev=False)
    p.add_argument("--time", type=float, default=None)
    p.add_argument("--iterations", type=int, default=None)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=int, default=5)
    p.add_argument("--json", action="store_true")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    try:
        o = vars(p.parse_args(shlex.split(rest)))
    except ValueError as e:                         # shlex: an unclosed quote
        raise TrackError(f"suggest: {e}") from None
    if o["top"] < 1:
        raise TrackError(f"suggest: --top {o['top']}: at least 1 move is listed")
    sets = {}
    for item in o.pop("set"):
        name, eq, value = item.partition("=")
        if not eq:
            raise TrackError(f"suggest: --set '{item}' is not NAME=VALUE")
        sets[name.strip()] = value.strip()
    return o | {"sets": sets}
