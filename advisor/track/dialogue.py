"""The dialogue of `advisor track`: the table's question is the prompt; a line read is a command
(suggest, show, moves, undo, export, help, quit) or its answer. The game is saved after every
entry. At a terminal a bad line gets one line and the question again; a script stops at its first
bad line (its number, exit status 2), with everything before it saved."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import textwrap
from collections.abc import Callable
from typing import Any, TextIO

from advisor.errors import AdvisorError, clip
from advisor.notation import _norm
from advisor._core import CHANCE
from advisor.table import Question, TableError
from advisor.wording import decision_words
from advisor.track.entry import read_entry
from advisor.track.session import TrackSession

COMMANDS_TEXT = "suggest [options of `advisor suggest`], show, moves, undo, export FILE, help, quit"

HELP = "\n".join(textwrap.fill(p, 80, break_on_hyphens=False) for p in (
    "The prompt says whose decision it is, what about and which card asks it, or which cards the table shows now. "
    "Answer a decision in the notation of `advisor legal` (or its number in `moves`); for another "
    "player, name the card they play even if you had not seen it. Answer the cards that come up by "
    "name (caves by number), several in one line where several are asked, separated by commas, "
    "in the order the prompt lists them; '?' for a card you did not see or one tucked face down.",
    f"Commands at every prompt: {COMMANDS_TEXT}."))


class ScriptError(AdvisorError):
    """A scripted session's bad line: the script stops there."""


class Console:
    """Lines in and out. `interactive`: a person at a terminal (line editing, history and completion
    through readline); otherwise each line read is echoed after its prompt, a transcript."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, interactive: bool | None = None):
        self.stdin, self.stdout = stdin or sys.stdin, stdout or sys.stdout
        self.interactive = self.stdin.isatty() if interactive is None else interactive
        self.lines = 0                  # lines read so far (a script's bad line is named by it)
        self.words: list[str] = []      # what completion offers at the prompt now
        if self.interactive and self.stdin is sys.stdin:
            _readline(self)

    def say(self, text: str) -> None:
        """Print `text`, a line wider than 80 columns wrapped under itself."""
        lines = [w for line in text.splitlines() or [""] for w in self._wrapped(line)]
        print("\n".join(lines), file=self.stdout, flush=True)

    def read(self, prompt: str) -> str | None:
        """The next line (None at the end of the input)."""
        self.lines += 1
        if self.interactive and self.stdin is sys.stdin:
            try:
                return input(prompt)
            except EOFError:
                print(file=self.stdout)
                return None
        # the prompt first (a reader of the output sees it before the line is read), then the line
        # after it, the two wrapped together as `say` wraps them
        shown = self._wrapped(prompt + "x")
        head = "\n".join(shown[:-1] + [shown[-1][:-1]])
        print(head, end="", file=self.stdout, flush=True)
        line = self.stdin.readline()
        if not line:
            print(file=self.stdout, flush=True)
            return None
        full = "\n".join(self._wrapped(f"{prompt}{clip(line.rstrip(), 200)}"))
        print(full[len(head):] if full.startswith(head) else "\n" + full, file=self.stdout, flush=True)
        return line.rstrip("\n")

    @staticmethod
    def _wrapped(text: str) -> list[str]:
        return textwrap.wrap(text, 80, subsequent_indent="    ", break_on_hyphens=False,
                             break_long_words=False) if len(text) > 80 else [text]


def _readline(console: Console) -> None:
    """Line editing, history and completion of what the prompt takes (card names, moves, commands)."""
    try:
        import readline
    except ImportError:         # not every Python has it: plain input() still works
        return

    def complete(text: str, state: int) -> str | None:
        typed = readline.get_line_buffer()
        start = typed[:readline.get_begidx()]
        lead = start.rsplit(",", 1)[-1].lstrip()        # within a list, complete the item being typed
        hits = [w[len(lead):] for w in console.words if w.lower().startswith((lead + text).lower())]
        return hits[state] if state < len(hits) else None
    readline.set_completer(complete)
    readline.set_completer_delims(",")
    readline.parse_and_bind("tab: complete")


class Dialogue:
    """The loop over a console."""

    def __init__(self, session: TrackSession, console: Console | None = None):
        self.s = session
        self.console = console or Console()
        self.say = self.console.say
        self.interrupted = False

    @property
    def table(self) -> Any:
        return self.s.table

    def prompt(self, q: Question | None) -> str:
        if q is None:
            return "game over> "
        if q.seat is None:
            return f"{q.about}> "
        if q.hidden:        # which card is not seen: what followed it is ('moves' lists the outcomes)
            return f"{self.s.names[q.seat]} ({self.decision()} face down: what followed?)> "
        return f"{self.s.names[q.seat]} ({self.decision()})> "

    def decision(self) -> str:
        """The decision asked now, with the card or rule that asks it."""
        return decision_words(self.table.game, self.s.viewer, self.s.names)

    def where(self) -> str:
        """How far the game is, in a few words: the round and whose decision."""
        g = self.table.game
        if g.is_terminal():
            return "the game is over"
        if g.phase in ("deal", "setup"):
            return "at the setup"
        q = self.table.question()
        who = "the table shows cards" if q is None or q.seat is None else f"{self.s.names[q.seat]} to play"
        return f"round {g.round}, {who}"

    # ------------------------------------------------------------------ the loop
    def run(self, loaded: bool = False) -> int:
        """The session: 0 at `quit` or the end of the input, 2 at a script's bad line."""
        hello = f"Tracking for {self.s.names[self.s.viewer]}"
        if loaded:
            hello += f" (loaded {self.s.path}: {self.where()})"
        self.say(f"{hello}. 'help' lists the commands.")
        if self.table.game.is_terminal():
            self._final()
        while True:
            q = self.table.question()
            self.console.words = self._words(q)
            line = self.console.read(self.prompt(q))
            if line is None:
                self._bye()
                return 0
            t = line.strip()
            if not t:
                continue
            word, _, rest = t.partition(" ")
            try:
                if word == "quit" and not rest:
                    self._bye()
                    return 0
                command = self.COMMANDS.get(word)
                if command is not None:
                    command(self, rest.strip())
                elif q is None:
                    raise TableError("the game is over ('undo' takes back the last entry)")
                else:
                    self.enter(q, t)
            except AdvisorError as e:
                if not self.console.interactive:
                    self.say(f"error: line {self.console.lines}: {e}")
                    self._bye()
                    return 2
                self.say(f"error: {e}")

    def enter(self, q: Question, text: str) -> None:
        answer = read_entry(self.table, q, text)
        said = self.table.text(answer) if isinstance(answer, int) and answer >= 0 and q.seat is not None else ""
        self.table.answer(answer)
        if said and _norm(said) != _norm(text) and not text.isdigit():
            self.say(f"(read as: {said})")      # a tolerant reading the player should see
        self.s.save()
        if self.table.game.is_terminal():
            self._final()

    def _words(self, q: Question | None) -> list[str]:
        words = [name for name in self.COMMANDS] + ["quit"]
        if q is not None:
            words += [text.split(":")[0] for _, text in q.options]
        return words

    def _final(self) -> None:
        g = self.table.game
        self.say("The game is over: " + ", ".join(f"{n} {v}" for n, v in zip(self.s.names, g.scores(), strict=True)))

    def _bye(self) -> None:
        if self.s.path:
            self.say(f"Saved in {self.s.path} ({self.where()}).")
            self.say(f"Resume with: advisor track --load {self.s.path}")

    # ------------------------------------------------------------------ commands
    def cmd_help(self, rest: str) -> None:
        self.say(HELP)

    def cmd_show(self, rest: str) -> None:
        from advisor.play.render import render
        g = self.table.game
        self.say(render(g.observation(self.s.viewer), self.s.viewer, g.printing, g.scores(), names=self.s.names))

    def cmd_moves(self, rest: str) -> None:
        q = self.table.question()
        if q is None:
            raise TableError("the game is over: there is nothing to answer")
        self.say(f"{q.about}:" if q.seat is None else f"{self.s.names[q.seat]} ({self.decision()}):")
        for i, (_, text) in enumerate(q.options, 1):
            self.say(f"{i:>3} {text}")
        if q.unseen:
            self.say("    (or any card of theirs you had not seen, by name"
                     + ("; '?' if you did not see which)" if q.hidden else ")"))
        if q.count > 1:
            self.say(f"    ({q.count} answers, separated by commas: {', '.join(q.parts)})")

    def cmd_undo(self, rest: str) -> None:
        self.table.undo()
        self.s.save()
        self.say(f"undone; now: {self.prompt(self.table.question()).rstrip('> ')}")

    def cmd_export(self, rest: str) -> None:
        if not rest:
            raise TableError("export FILE: name the position file to write")
        from advisor.play.saves import POSITION_MARK, write_file
        write_file(os.path.expanduser(rest), self.position_text(), POSITION_MARK)
        self.say(f"wrote {rest}")

    def cmd_suggest(self, rest: str) -> None:
        """The moves of the viewer's decision now, ranked by the search's one suggest function on
        the game as the viewer knows it (what they have not seen is dealt anew by the search)."""
        import json
        from advisor.search.suggest import ranking_json, ranking_text, suggest, suggest_settings
        o = _suggest_options(rest)
        g = self.table.game
        if g.is_terminal():
            raise TableError("suggest: the game is over")
        if g.decider != self.s.viewer:
            whose = "the table's cards" if g.decider == CHANCE else f"{self.s.names[g.decider]}'s decision"
            raise TableError(f"suggest ranks your decisions; now it is {whose}")
        try:
            settings = suggest_settings(o["sets"], o["time"], o["iterations"], o["workers"])
            a = suggest(g, settings, seed=o["seed"])
        except AdvisorError as e:
            raise TableError(f"suggest: {e}") from None
        if o["json"]:
            self.say(json.dumps(ranking_json(a, g, self.s.names, o["top"], None), indent=1))
        else:
            for line in ranking_text(a, g, self.s.names, o["top"]):
                self.say(line)

    def position_text(self) -> str:
        from advisor.positions import PositionError, position_text
        g = self.table.game
        if (g.is_terminal() or g.phase != "turn" or g.decision != "move" or g.decisions_in_segment
                or g.decider != self.s.viewer):
            raise TableError("a position is written at the start of your turn only")
        names = list(self.s.names[:1] if g.automa_level is not None else self.s.names)
        try:
            return position_text(g, self.s.viewer, names)
        except PositionError as e:
            raise TableError(str(e)) from None

    COMMANDS: dict[str, Callable[[Dialogue, str], None]] = {
        "help": cmd_help, "show": cmd_show, "moves": cmd_moves, "undo": cmd_undo, "export": cmd_export,
        "suggest": cmd_suggest}


class _Options(argparse.ArgumentParser):
    def error(self, message: str) -> Any:          # one line for the prompt, never an exit
        raise TableError(f"suggest: {message}")


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
        raise TableError(f"suggest: {e}") from None
    if o["top"] < 1:
        raise TableError(f"suggest: --top {o['top']}: at least 1 move is listed")
    sets = {}
    for item in o.pop("set"):
        name, eq, value = item.partition("=")
        if not eq:
            raise TableError(f"suggest: --set '{item}' is not NAME=VALUE")
        sets[name.strip()] = value.strip()
    return o | {"sets": sets}
