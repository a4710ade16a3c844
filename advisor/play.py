"""`advisor play`: a game of Wyrmspan at the terminal, one human seat against AI agents or the Automa.

A `Session` is a game from a known start (`PlaySetup`: players, the human's seat, the opponents'
agent specs, the Automa's level, the seed) plus the record of every decision applied to it. The
engine is deterministic given the seed and the record, so the record alone restores a game:
`save_text` / `load_session` write and read it (a TOML file, with a digest of the state to check
that a resumed game is the saved one), and `undo` goes back to a clone kept at each of the human's
decision points where a move of theirs begins.

`Terminal` is the dialogue: it draws the table (advisor.render) at the start of each of the human's
moves, lists the legal decisions by number, reads a number, the game's notation (advisor.notation,
tolerant, with did-you-mean) or a command (`hint`, `undo`, `save`, `show`, `card`, `help`, `quit`),
plays the AI seats with a progress bar and a one-line summary of each of their turns, and ends with
the score breakdown. Bad input at a prompt is answered and asked again; end of input leaves the
game cleanly. The dialogue is described in docs/play.md."""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import textwrap
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass, field

import click

from advisor import _core
from advisor.errors import AdvisorError
from advisor.positions import AUTOMA_LEVELS as LEVELS
from advisor.notation import (CAVE, DRAGON, ENTICE, EXCAVATE, ActionParseError, action_text, arg, kind,
                              parse_action)

SAVE_FORMAT = 1
SAVE_MARK = "# A game of Wyrmspan saved by `advisor play`"     # how a save file starts
POSITION_MARK = "# Wyrmspan position"                           # how position_text starts
DEFAULT_OPPONENT = "ismcts:time=1"
DEFAULT_SAVE = "wyrmspan-game.toml"
DEFAULT_HINT_TIME = 2.0
PRINTINGS = ("base", "2025")
WIDTH = 80
HINT_TOP = 5
SCORE_LABELS = {"guild": "guild", "dragons": "dragons", "end_game": "end-game abilities", "eggs": "eggs",
                "cached": "cached resources", "tucked": "tucked cards", "objectives": "objectives",
                "coins": "coins", "items": "leftover items", "caves": "caves", "total": "total"}

# what each decision (Game.decision, _core.PROMPTS) asks, in words
DECISIONS = {
    "move": "your move",
    "payment": "how to pay",
    "egg source": "which egg to pay",
    "resource": "which resource",
    "gain dragon": "which dragon card to take",
    "gain cave": "which cave card to take",
    "lay egg": "where to lay an egg",
    "cache": "where to cache",
    "tuck card": "which card to tuck",
    "tuck under": "which dragon to tuck under",
    "use ability": "use the ability?",
    "option": "which option",
    "guild spot": "where to place your guild marker",
    "order": "which once-per-round ability next",
    "setup discard": "a card to discard (you discard 2 of the 6 dealt)",
    "setup resources": "your 3 starting resources",
    "discard": "what to discard (over the limit)",
    "pay card": "which card to pay",
    "cave": "which cave",
    "play dragon": "which dragon to play",
    "play cave": "which cave card to play",
    "swap": "which dragons to swap",
    "activate": "which dragon to activate",
    "exchange": "a 2-for-1 resource exchange?",
    "waive": "what to waive",
    "mat benefit": "which mat benefit",
    "cache resource": "which resource to cache",
}

HELP = """\
At a prompt, type one of:
  NUMBER         the option with that number in the list
  NOTATION       the option in the game's notation, any unambiguous part of it:
                 "entice redwyrm into crimson", "explore golden", "pay 1 meat"
  hint [S]       the advisor ranks your options ({hint:g} s of search, or S)
  undo           take back your last move (or the one you are in the middle of)
  save [FILE]    save the game (to {save});
                 `advisor play --load FILE` resumes it
  show           draw the table again           list       list the options again
  card NAME      a card's full text: "card patient redwyrm", "card cave 12"
  help           this text                      quit       leave the game
"""

COMMANDS = ("help", "?", "hint", "undo", "save", "show", "table", "board", "list", "moves", "card",
            "quit", "exit")


class PlayError(AdvisorError):
    """A play setup or save file that cannot be used (one line per problem)."""


# ---------------------------------------------------------------------------- the game's setup
@dataclass(frozen=True)
class PlaySetup:
    """How a game starts: `players` (1 = solo against the Automa at `solo_level`), the human's
    `seat`, one agent spec per other engine seat (`opponents`, none in solo), `seed`, `printing`."""
    players: int
    seat: int
    opponents: tuple[str, ...]
    solo_level: str | None
    seed: int
    printing: str = "base"

    @property
    def seats(self) -> int:
        """Engine seats: the Automa is seat 1 of a solo game."""
        return 2 if self.solo_level else self.players

    @property
    def ai_seats(self) -> list[int]:
        return [] if self.solo_level else [s for s in range(self.players) if s != self.seat]

    def spec(self, seat: int) -> str:
        return self.opponents[self.ai_seats.index(seat)]

    def names(self) -> list[str]:
        names = [f"P{s}" for s in range(self.seats)]
        if self.solo_level:
            names[1] = "Automa"
        return names

    def new_game(self) -> "_core.Game":
        return _core.Game.new(1 if self.solo_level else self.players, self.seed, self.printing,
                              automa=self.solo_level or "2")

    def describe(self) -> str:
        if self.solo_level:
            return f"P0 in a solo game (seed {self.seed}) against the Automa at level {self.solo_level}"
        others = ", ".join(f"P{s} {self.spec(s)}" for s in self.ai_seats)
        return f"P{self.seat} in a {self.players}-player game (seed {self.seed}) against {others}"


def make_setup(players: int | None = None, seat: int | None = None, opponents=(), solo_level: str | None = None,
               seed: int | None = None, printing: str = "base") -> PlaySetup:
    """A checked setup from the command's options (None: the default)."""
    from advisor.agents import automa_level, make_agent
    levels = {automa_level(s) for s in opponents} - {None}
    if levels:                            # --opponent automa:L is --solo-level L
        if len(opponents) > 1:
            raise PlayError("--opponent: the Automa plays only solo games; give automa:L alone")
        (level,) = levels
        if solo_level is not None and str(solo_level).upper() != level:
            raise PlayError(f"--opponent automa:{level} and --solo-level {solo_level} name two levels")
        solo_level, opponents = level, ()
    if solo_level is not None:
        solo_level = str(solo_level).upper()
        if solo_level not in LEVELS:
            raise PlayError(f"--solo-level: '{solo_level}' is not one of {', '.join(LEVELS)}")
        if players not in (None, 1):
            raise PlayError(f"--solo-level makes a solo game (1 player against the Automa), not {players} players")
        if opponents:
            raise PlayError("--opponent: in a solo game the Automa is the opponent; give no --opponent")
        if seat not in (None, 0):
            raise PlayError(f"--seat: in a solo game you sit at seat 0 (the Automa is seat 1), not {seat}")
        players = 1
    elif players == 1:
        raise PlayError("a 1-player game is a solo game against the Automa: give --solo-level "
                        f"({', '.join(LEVELS)})")
    players = players or 2
    if not 1 <= players <= 5:
        raise PlayError(f"--players: {players} is not from 1 to 5")
    seat = seat or 0
    if not 0 <= seat < players:
        raise PlayError(f"--seat: {seat} is not a seat of a {players}-player game (seats 0 to {players - 1})")
    if printing not in PRINTINGS:
        raise PlayError(f"--printing: '{printing}' is not one of {', '.join(PRINTINGS)}")
    n_ai = 0 if solo_level else players - 1
    specs = tuple(s.strip() for s in opponents) or (DEFAULT_OPPONENT,)
    if solo_level:
        specs = ()
    elif len(specs) == 1:
        specs = specs * n_ai
    elif len(specs) != n_ai:
        raise PlayError(f"--opponent: give one spec for every opponent ({n_ai}) or one for all of them, "
                        f"not {len(specs)}")
    for s in set(specs):
        make_agent(s)                     # AgentSpecError: an unknown agent or bad settings
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    return PlaySetup(players, seat, specs, solo_level, int(seed), printing)


# ---------------------------------------------------------------------------- the session
def _mix(*xs: int) -> int:
    h = 0x9E3779B97F4A7C15
    for x in xs:
        h = ((h ^ (x & ((1 << 64) - 1))) * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & ((1 << 62) - 1)
    return h


def state_digest(game: "_core.Game") -> str:
    """A short digest of the whole state (hidden information included)."""
    return hashlib.sha256(json.dumps(game.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


def visible_cards(game: "_core.Game", viewer: int) -> tuple[set, set]:
    """The dragon and cave cards `viewer` can tell apart now: on mats, in the display, in the discard
    piles, in their own hand, known in other hands, public (the Automa's), seen by them."""
    core = game.to_dict()["core"]
    dragons = set(core["display_dragons"]) | set(core["discard_dragons"]) | set(core["public_dragons"])
    caves = set(core["display_caves"]) | set(core["discard_caves"]) | set(core["public_caves"])
    for q, P in enumerate(core["players"]):
        dragons |= {d for row in P["dragons"] for d in row} | set(P["known_dragons"])
        caves |= {c for row in P["caves"] for c in row} | set(P["known_caves"])
        if q == viewer:
            dragons |= set(P["hand_dragons"]) | set(P["seen_dragons"])
            caves |= set(P["hand_caves"])
    return dragons, caves


@dataclass
class Session:
    """A game from `setup` and the decisions applied to it (`record`), with the undo points."""
    setup: PlaySetup
    game: "_core.Game" = None
    record: list = field(default_factory=list)      # action ids, in order
    deciders: list = field(default_factory=list)    # the seat that took each
    texts: list = field(default_factory=list)       # its notation (display slots name their card)
    marks: list = field(default_factory=list)       # (record length, Game clone) at the human's move starts

    def __post_init__(self):
        if self.game is None:
            self.game = self.setup.new_game()

    @property
    def human(self) -> int:
        return self.setup.seat

    def human_to_decide(self) -> bool:
        return not self.game.is_terminal() and self.game.decider == self.human

    def move_starts_here(self) -> bool:
        """Whether a move of the human's begins at this decision: the first decision of a segment
        (a turn, a setup, a round-start egg), or their first answer inside another seat's turn."""
        g = self.game
        if not self.human_to_decide():
            return False
        if g.decisions_in_segment == 0:
            return True
        return g.active != self.human and (not self.deciders or self.deciders[-1] != self.human)

    def public_texts(self, indices) -> list[str]:
        """The notation of the decisions at `indices` of the record as the human may see them now:
        a card another seat chose that the human cannot see (one tucked from a hand) is unnamed."""
        visible = None
        out = []
        for i in indices:
            a, text = self.record[i], self.texts[i]
            if self.deciders[i] != self.human and kind(a) in (DRAGON, CAVE):
                if visible is None:
                    visible = visible_cards(self.game, self.human)
                if arg(a) not in visible[kind(a) == CAVE]:
                    text = "a dragon card" if kind(a) == DRAGON else "a cave card"
            out.append(text)
        return out

    def apply(self, action: int) -> int:
        """Apply one legal decision; returns its index in the record."""
        g = self.game
        if action not in g.legal_actions():
            raise PlayError(f"{action} is not a legal decision now")
        who = g.decider
        if who == self.human and self.move_starts_here():
            self.marks.append((len(self.record), g.clone()))
        text = action_text(action, g.printing, g)
        g.apply(action)
        self.record.append(action)
        self.deciders.append(who)
        self.texts.append(text)
        return len(self.record) - 1

    def can_undo(self) -> bool:
        return bool(self.marks)

    def undo(self) -> int:
        """Back to the start of the human's last move (the one in progress, if any); returns how many
        decisions (the AI's included) were taken back."""
        if not self.marks:
            raise PlayError("nothing to undo: you have made no move yet")
        n, game = self.marks.pop()
        taken = len(self.record) - n
        self.game = game.clone()
        del self.record[n:], self.deciders[n:], self.texts[n:]
        return taken

    @classmethod
    def replay(cls, setup: PlaySetup, record, where: str = "record") -> "Session":
        s = cls(setup)
        for i, a in enumerate(record):
            if s.game.is_terminal():
                raise PlayError(f"{where}[{i + 1}]: the game is over before this decision ({a})")
            if a not in s.game.legal_actions():
                raise PlayError(f"{where}[{i + 1}]: {a} is not a legal decision there ({s.game.decision} of "
                                f"P{s.game.decider}); the file does not fit this engine or card data")
            s.apply(a)
        return s


# ---------------------------------------------------------------------------- save files
def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def save_text(session: Session) -> str:
    """The save file: the setup, the record (with each decision's text as a comment) and a digest
    of the state it reaches."""
    st = session.setup
    lines = [f"{SAVE_MARK}; resume it with `advisor play --load FILE`.",
             "# The game is the seed's deal and the decisions of `record`, in order (docs/play.md).",
             f"format = {SAVE_FORMAT}",
             f"printing = {_toml_str(st.printing)}",
             f"players = {st.players}",
             f"seat = {st.seat}",
             "opponents = [" + ", ".join(_toml_str(s) for s in st.opponents) + "]"]
    if st.solo_level:
        lines.append(f"solo_level = {_toml_str(st.solo_level)}")
    names = st.names()
    lines += [f"seed = {st.seed}",
              f"decisions = {len(session.record)}",
              f"state = {_toml_str(state_digest(session.game))}   # digest of the state reached",
              "record = ["]
    texts = session.public_texts(range(len(session.record)))
    for a, who, text in zip(session.record, session.deciders, texts):
        lines.append(f"  {a},   # {names[who]}: {text}")
    lines.append("]")
    return "\n".join(lines) + "\n"


def _write(path: str, text: str, mark: str) -> None:
    """Write `path` (atomically); an existing file is replaced only if it starts with `mark` (one
    this command wrote), so a mistyped name never destroys another file."""
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as f:
                ours = f.read(len(mark)) == mark
        except (OSError, UnicodeDecodeError):
            ours = False
        if not ours:
            raise PlayError(f"{path} exists and is not a file written by `advisor play`; choose another name")
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise PlayError(f"cannot write {path}: {e.strerror or e}") from None


def position_path(path: str) -> str:
    """Where the position file beside save file `path` goes: game.toml -> game.position.toml."""
    root, ext = os.path.splitext(path)
    return f"{root}.position{ext or '.toml'}"


def save_session(session: Session, path: str) -> str | None:
    """Write the save file, and beside it the human's position file when a turn of theirs starts
    (for `advisor suggest` / `advisor show`); a position file left there by an earlier save is
    removed otherwise. Returns the position file's path, or None."""
    from advisor.positions import PositionError, position_text
    _write(path, save_text(session), SAVE_MARK)
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
        try:
            with open(pos, encoding="utf-8") as f:
                stale = f.read(len(POSITION_MARK)) == POSITION_MARK
            if stale:
                os.unlink(pos)
        except (OSError, UnicodeDecodeError):
            pass
        return None
    _write(pos, text, POSITION_MARK)
    return pos


def load_session(path: str, opponents=()) -> tuple[Session, list[str]]:
    """The session saved in `path` (replayed from its record), and warnings. `opponents` replaces
    the saved agent specs (one for all, or one per opponent)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise PlayError(f"{path}: no such file") from None
    except OSError as e:
        raise PlayError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise PlayError(f"{path}: not a TOML file: {e}") from None
    errors = []

    def need(key, typ, what):
        v = data.get(key)
        if not isinstance(v, typ) or isinstance(v, bool):
            errors.append(f"{path}: {key}: must be {what}" + ("" if key not in data else f", got {v!r}"))
            return None
        return v
    fmt = need("format", int, "an integer")
    if fmt is not None and fmt != SAVE_FORMAT:
        errors.append(f"{path}: format: {fmt} is not a save format this version reads ({SAVE_FORMAT})")
    players = need("players", int, "an integer (1 to 5)")
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
    unknown = sorted(set(data) - {"format", "printing", "players", "seat", "opponents", "solo_level", "seed",
                                  "decisions", "state", "record"})
    if unknown:
        errors.append(f"{path}: {', '.join(unknown)}: not a field of a save file")
    if errors:
        raise PlayError("\n".join(errors))
    try:
        setup = make_setup(players, seat, tuple(opponents) or tuple(specs), level, seed, printing)
    except PlayError as e:
        raise PlayError(f"{path}: {e}") from None
    session = Session.replay(setup, record, where=f"{path}: record")
    warnings = []
    digest = data.get("state")
    if isinstance(digest, str) and digest != state_digest(session.game):
        warnings.append(f"{path}: the replayed game differs from the one saved (the engine or the card "
                        "data changed since); playing on from the replayed one")
    return session, warnings


# ---------------------------------------------------------------------------- the dialogue
class Leave(Exception):
    """The human leaves the game (quit, end of input)."""


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def columns(entries: list[str], width: int = WIDTH) -> list[str]:
    """Numbered entries in as many columns as fit `width`, numbered down each column."""
    if not entries:
        return []
    nw = len(str(len(entries)))
    cells = [f"{i:>{nw}}  {t}" for i, t in enumerate(entries, 1)]
    cw = max(len(c) for c in cells) + 3
    ncol = max(1, min(len(cells), (width + 3) // cw))
    rows = -(-len(cells) // ncol)
    ncol = -(-len(cells) // rows)
    out = []
    for r in range(rows):
        row = [cells[c * rows + r] for c in range(ncol) if c * rows + r < len(cells)]
        line = "".join(f"{c:<{cw}}" for c in row[:-1]) + row[-1]
        out.append(line if len(line) <= width else line[:width - 1] + "…")
    return out


class Terminal:
    """The game at the terminal: `run()` plays it to the end, or until the human leaves."""

    def __init__(self, session: Session, hint_time: float = DEFAULT_HINT_TIME, save_path: str | None = None,
                 colour: bool | None = None, bars: bool | None = None):
        from advisor.agents import make_agent
        self.s = session
        self.hint_time = hint_time
        self.save_path = save_path
        self.default_save = save_path or DEFAULT_SAVE
        self.colour = (_isatty(sys.stdout) and not os.environ.get("NO_COLOR")) if colour is None else colour
        self.bars = _isatty(sys.stderr) if bars is None else bars
        self.agents = {q: make_agent(session.setup.spec(q), 0) for q in session.setup.ai_seats}
        self.names = session.setup.names()
        self.group = None           # the AI turn being summarised: [key, label, record indices]
        self.drawn_at = None        # record length when the table was last drawn
        self.seen = None            # the human's observation at their last decision
        self.saved_at = None        # record length at the last save

    # -------------------------------------------------------------- output
    def say(self, text: str = "", **style) -> None:
        """Print `text` (lines longer than 80 columns wrapped), styled when the output has colour."""
        if any(len(click.unstyle(line)) > WIDTH for line in text.splitlines()):
            text = "\n".join(w for line in text.splitlines() for w in
                             (textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_on_hyphens=False,
                                            break_long_words=False)
                              if len(click.unstyle(line)) > WIDTH else [line]))
        if style and self.colour:
            text = click.style(text, **style)
        click.echo(text, color=self.colour)

    def wrap(self, text: str, indent: str = "    ", **style) -> None:
        for line in textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False,
                                  break_long_words=False) or [""]:
            self.say(line, **style)

    def name(self, seat: int) -> str:
        return self.names[seat] + (" (you)" if seat == self.s.human else "")

    def ask(self, prompt: str) -> str:
        fn = getattr(click.termui, "visible_prompt_func", input)
        if self.colour:
            prompt = click.style(prompt, bold=True)
        try:
            return fn(prompt)
        except EOFError:
            raise Leave("end of input") from None

    @contextmanager
    def bar(self, desc: str):
        if not self.bars:
            yield None
            return
        from tqdm import tqdm
        bar = tqdm(total=1000, desc=desc, leave=False, file=sys.stderr,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")
        try:
            yield (lambda share: bar.update(max(0, int(share * 1000) - bar.n)))
        finally:
            bar.close()

    # -------------------------------------------------------------- the table
    def draw(self) -> None:
        from advisor.render import render
        g = self.s.game
        self.say()
        self.say(render(g.observation(self.s.human), self.s.human, g.printing, g.scores(),
                        colour=self.colour, names=self.names))
        self.drawn_at = len(self.s.record)

    def options(self) -> list[str]:
        g = self.s.game
        return [action_text(a, g.printing, g) for a in g.legal_actions()]

    def header(self) -> tuple[str, list[str]]:
        """What is asked ("Your turn: how to pay"), and the decisions of this turn so far."""
        g = self.s.game
        ask = DECISIONS.get(g.decision, g.decision)
        log = self.s.public_texts(range(len(self.s.record) - g.decisions_in_segment, len(self.s.record)))
        if g.phase == "setup":
            where = "Setup"
        elif g.phase == "turn":
            where = "Your turn" if g.active == self.s.human else f"{self.name(g.active)}'s turn"
        else:
            where = g.phase[:1].upper() + g.phase[1:] + f" of round {g.round}"
        return f"{where}: {ask}", log

    def playing(self) -> str | None:
        """The card whose effects are being resolved, when the turn is an entice or an excavate."""
        from advisor.cards import describe_card, load_database
        g = self.s.game
        n = g.decisions_in_segment
        if not n or g.phase != "turn":
            return None
        first = self.s.record[len(self.s.record) - n]
        db = load_database(g.printing)
        if kind(first) == ENTICE:
            card = db.dragon(arg(first) >> 2)
            return f"{card.name}: {describe_card(card)}"
        if kind(first) == EXCAVATE:
            return f"cave {arg(first) >> 2}: {describe_card(db.cave(arg(first) >> 2))}"
        return None

    def show_options(self) -> None:
        head, log = self.header()
        self.say()
        self.say(head, bold=True)
        if log:
            self.wrap(f"  so far: {'; '.join(log)}", indent="    ")
            card = self.playing()
            if card:
                self.wrap(f"  {card}", indent="    ")
        for line in columns(self.options()):
            self.say(line)

    # -------------------------------------------------------------- what happened meanwhile
    def flush(self) -> None:
        if self.group:
            _, label, indices = self.group
            self.wrap(f"{label}: {'; '.join(self.s.public_texts(indices))}", indent="    ", fg="cyan")
            self.group = None

    def news(self) -> None:
        """Rounds scored and the Automa's turns since the human's last decision."""
        g = self.s.game
        obs = g.observation(self.s.human)
        old, self.seen = self.seen, obs
        if old is None:
            return
        for r in range(old["n_scored"], obs["n_scored"]):
            vp = ", ".join(f"{self.names[q]} {P['objective_vp'][r]}" for q, P in enumerate(obs["players"]))
            self.wrap(f"Round {r + 1} objective scored: {vp} VP", fg="yellow")
        if obs["round"] != old["round"]:
            self.say(f"-- Round {obs['round'] + 1} --", bold=True)
        if obs.get("automa") and old.get("automa"):
            self.automa_news(old, obs)

    def automa_news(self, old: dict, new: dict) -> None:
        from advisor.cards import load_database
        db = load_database(self.s.game.printing)
        A0, A1 = old["automa"], new["automa"]
        P0, P1 = old["players"][1], new["players"][1]
        same_round = old["round"] == new["round"]
        start = A0["next"] if same_round else 0
        cards = [db.automa_cards[k].corner for k in A1["deck"][start:A1["next"]]]
        bits = []
        if cards:
            bits.append(f"played card{'s' if len(cards) > 1 else ''} {', '.join(cards)}")
        if P1["guild_steps"] != P0["guild_steps"]:
            bits.append(f"guild +{P1['guild_steps'] - P0['guild_steps']} (to {P1['guild_steps']})")
        took = A1["dragons"] - A0["dragons"]
        if took > 0:
            bits.append(f"took {took} dragon{'s' if took > 1 else ''}")
        took = A1["caves"] - A0["caves"]
        if took > 0:
            bits.append(f"took {took} cave{'s' if took > 1 else ''}")
        placed = sum(1 for a in new["guild_spots"] for s in a if s == 2) - sum(
            1 for a in old["guild_spots"] for s in a if s == 2) + (new["fixed_count"] - old["fixed_count"])
        if placed > 0:
            bits.append(f"placed {placed} guild marker{'s' if placed > 1 else ''}")
        coins = [b - a for a, b in zip(A0["objective_coins"], A1["objective_coins"])]
        if any(coins):
            bits.append("objective coins " + " ".join(f"R{r + 1} {c:+d}" for r, c in enumerate(coins) if c))
        if P1["passed"] and not P0["passed"]:
            bits.append("passed")
        if bits:
            self.wrap(f"Automa: {'; '.join(bits)}", fg="cyan")

    # -------------------------------------------------------------- the AI seats
    def ai_step(self) -> None:
        g = self.s.game
        seat = g.decider
        key = (seat, g.phase, g.active)
        if self.group is None or self.group[0] != key or g.decisions_in_segment == 0:
            self.flush()
            if g.phase == "turn":
                label = self.name(seat) + ("" if g.active == seat else f" (on {self.name(g.active)}'s turn)")
            else:
                label = f"{self.name(seat)} ({g.phase})"
            self.group = [key, label, []]
        action = self.choose(seat)
        self.group[2].append(self.s.apply(action))

    def choose(self, seat: int) -> int:
        from advisor.agents import ISMCTSAgent
        from advisor.search import analyse
        g = self.s.game
        agent = self.agents[seat]
        agent.reset(_mix(self.s.setup.seed, seat, len(self.s.record)))
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if isinstance(agent, ISMCTSAgent):
            with self.bar(f"{self.names[seat]} thinking") as progress:
                return analyse(g, agent.given, seed=agent._next_seed(), progress=progress).best.action
        return agent.choose(g)

    # -------------------------------------------------------------- the human seat
    def human_step(self) -> None:
        self.flush()
        self.news()
        if self.s.move_starts_here() and self.drawn_at != len(self.s.record):
            self.draw()
            self.autosave()
        self.show_options()
        while True:
            line = self.ask("> ").strip()
            if not line:
                self.say(f"type a number from 1 to {len(self.s.game.legal_actions())}, a move, or help")
                continue
            word, _, rest = line.partition(" ")
            cmd = word.lower()
            if cmd in COMMANDS:
                if self.command(cmd, rest.strip()):
                    return
                continue
            try:
                action = parse_action(self.s.game, line)
            except ActionParseError as e:
                self.wrap(str(e), fg="red")
                self.wrap(f"(type a number from 1 to {len(self.s.game.legal_actions())}, a move in the "
                          "notation, or help)")
                continue
            text = self.s.texts[self.s.apply(action)]
            self.say(f"-> {text}", fg="green")
            return

    def command(self, cmd: str, rest: str) -> bool:
        """Run a prompt command; True when the game moved (ask the next decision)."""
        if cmd in ("help", "?"):
            self.say(HELP.format(hint=self.hint_time, save=self.default_save).rstrip())
        elif cmd == "hint":
            self.hint(rest)
        elif cmd == "undo":
            if rest:
                self.say("undo takes no argument", fg="red")
                return False
            try:
                n = self.s.undo()
            except PlayError as e:
                self.wrap(str(e), fg="red")
                return False
            self.say(f"took back {n} decision{'s' if n != 1 else ''}", fg="yellow")
            self.seen = self.s.game.observation(self.s.human)
            self.drawn_at = None
            return True
        elif cmd == "save":
            self.save(rest or self.default_save)
        elif cmd in ("show", "table", "board"):
            self.draw()
            self.show_options()
        elif cmd in ("list", "moves"):
            self.show_options()
        elif cmd == "card":
            self.card(rest)
        elif cmd in ("quit", "exit"):
            raise Leave("quit")
        return False

    def card(self, query: str) -> None:
        from advisor.cards import describe_card, load_database
        from advisor.errors import CardLookupError
        from advisor.render import cost_text
        if not query:
            self.say("card NAME: e.g. card redwyrm, card cave 12", fg="red")
            return
        db = load_database(self.s.game.printing)
        try:
            c = db.lookup(query)
        except CardLookupError as e:
            self.wrap(str(e), fg="red")
            return
        if c.kind == "cave":
            self.say(f"Cave {c.number}", bold=True)
        else:
            self.say(f"{c.name} (dragon {c.number})", bold=True)
            self.wrap(f"  {c.size}, {c.personality}, {c.vp} VP, egg capacity {c.capacity}; cost {cost_text(c)} "
                      f"(and 1 coin to entice); lives in {', '.join(c.caves)}")
        self.wrap("  " + describe_card(c))

    def hint(self, rest: str) -> None:
        from advisor.search import Limit, analyse
        seconds = self.hint_time
        if rest:
            try:
                seconds = float(rest)
            except ValueError:
                seconds = -1
            if not 0.01 <= seconds <= 600:
                self.say(f"hint SECONDS: '{rest}' is not a number of seconds from 0.01 to 600", fg="red")
                return
        g = self.s.game
        legal = g.legal_actions()
        with self.bar("advisor thinking") as progress:
            a = analyse(g, {}, seed=_mix(self.s.setup.seed, len(self.s.record), 7),
                        limit=Limit(time=seconds), progress=progress)
        if not a.moves:
            self.say("advisor: the search found no move to rank", fg="red")
            return
        self.say(f"advisor: {a.iterations} iterations in {a.seconds:.2f} s, best first "
                 "(type the number to play it)", bold=True)
        self.say(f"{'#':>4}  {'move':40} {'visits':>7} {'win':>6} {'score':>6} {'margin':>7}")
        for m in a.moves[:HINT_TOP]:
            n = legal.index(m.action) + 1
            win, score, margin = m.outlook()
            self.say(f"{n:>4}  {m.text[:40]:40} {m.visits:>7} {win:>6.1%} {score:>6.1f} {margin:>+7.1f}")
            if m.continuation:
                self.wrap(f"      then: {'; '.join(m.continuation)}", indent="            ")

    # -------------------------------------------------------------- saving
    def save(self, path: str) -> None:
        try:
            pos = save_session(self.s, path)
        except PlayError as e:
            self.wrap(str(e), fg="red")
            return
        self.saved_at = len(self.s.record)
        self.say(f"saved {path} ({len(self.s.record)} decisions); resume with `advisor play --load {path}`")
        if pos:
            self.say(f"your position: {pos} (for `advisor suggest` / `advisor show`)")

    def autosave(self) -> None:
        if self.save_path and self.saved_at != len(self.s.record):
            try:
                save_session(self.s, self.save_path)
                self.saved_at = len(self.s.record)
            except PlayError as e:
                self.say(f"autosave failed: {e}", fg="red")

    # -------------------------------------------------------------- the end
    def final(self) -> None:
        g = self.s.game
        self.flush()
        self.news()
        self.draw()
        rows = g.score_breakdown()
        cats = [c for c in _core.SCORE_CATEGORIES if c != "total"] + ["total"]
        cw = max(8, min(12, (WIDTH - 20) // max(1, len(rows))))
        self.say()
        self.say("Final score", bold=True)
        self.say(f"{'':20}" + "".join(f"{self.name(q)[:cw - 1]:>{cw}}" for q in range(len(rows))))
        for c in cats:
            line = f"{SCORE_LABELS.get(c, c):20}" + "".join(f"{r[c]:>{cw}}" for r in rows)
            self.say(line, bold=(c == "total"))
        win = g.winners()
        if win == [self.s.human]:
            self.say("You win!", bold=True, fg="green")
        elif len(win) > 1:
            self.say(f"Shared win: {', '.join(self.name(q) for q in win)}", bold=True)
        elif win:
            self.say(f"{self.name(win[0])} wins", bold=True)
        for q in self.s.setup.ai_seats:
            self.say(f"{self.names[q]}: {self.s.setup.spec(q)}")

    def run(self) -> int:
        """Play until the game ends (0) or the human leaves (0; 130 on an interrupt)."""
        self.wrap(f"You are {self.s.setup.describe()}. Type help for the commands.", bold=True)
        try:
            while not self.s.game.is_terminal():
                if self.s.human_to_decide():
                    self.human_step()
                else:
                    self.ai_step()
            self.final()
            self.autosave()
            return 0
        except Leave as e:
            self.flush()
            self.autosave()
            self.say()
            note = f"; saved in {self.save_path}" if self.save_path else (
                "" if self.saved_at == len(self.s.record) else " (not saved)")
            self.say(f"{'End of input' if str(e) == 'end of input' else 'Quit'}: leaving the game{note}")
            return 0
        except KeyboardInterrupt:
            self.flush()
            self.autosave()
            self.say()
            self.say("Interrupted: leaving the game" + (f"; saved in {self.save_path}" if self.save_path else ""))
            return 130


def play(players=None, seat=None, opponents=(), solo_level=None, seed=None, load=None, save=None,
         hint_time: float = DEFAULT_HINT_TIME, printing: str | None = None) -> int:
    """The `advisor play` command: returns its exit status."""
    if load:
        given = [n for n, v in (("--players", players), ("--seat", seat), ("--solo-level", solo_level),
                                ("--seed", seed), ("--printing", printing)) if v is not None]
        if given:
            raise PlayError(f"--load resumes the saved game as it was: {', '.join(given)} cannot change it "
                            "(--opponent can)")
        session, warnings = load_session(load, opponents)
        for w in warnings:
            click.echo(f"warning: {w}", err=True)
        click.echo(f"loaded {load}: {len(session.record)} decisions")
    else:
        session = Session(make_setup(players, seat, opponents, solo_level, seed, printing or "base"))
    return Terminal(session, hint_time=hint_time, save_path=save).run()
