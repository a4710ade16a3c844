"""`advisor play`: a game of Wyrmspan at the terminal, one human seat against AI agents or the Automa.

`Terminal` is the dialogue: it draws the table (advisor.play.render) at the start of each of the
human's moves, lists the legal decisions by number, reads a number, the game's notation
(advisor.notation, tolerant, with did-you-mean) or a command (advisor.play.commands), plays the AI
seats with a progress bar and a one-line summary of each of their turns, and ends with the score
breakdown. Bad input at a prompt is answered and asked again; end of input leaves the game cleanly.
The dialogue is described in docs/play.md."""
from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

import click

from advisor import _core
from advisor.errors import clip
from advisor.notation import ENTICE, EXCAVATE, ActionParseError, action_text, arg, kind, parse_action
from advisor.play.commands import COMMANDS, Leave, run_command
from advisor.play.explain import asked_by, not_offered
from advisor.cards import load_database
from advisor.play.render import render
from advisor.play.saves import load_session, save_session
from advisor.play.session import Session, mix_seed
from advisor.play.setup import PlayError, make_setup
from advisor.wording import asker_words

DEFAULT_SAVE = "wyrmspan-game.toml"
DEFAULT_HINT_TIME = 2.0
WIDTH = 80
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


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def arrivals(before: Mapping[str, Any], after: Mapping[str, Any], viewer: int,
             printing: str) -> tuple[list[str], list[str]]:
    """What came from the decks between two observations of `viewer`: the cards they drew into
    their hand (not from the display), and those the display was refilled with."""
    db = load_database(printing)
    P0, P1 = before["players"][viewer], after["players"][viewer]
    shown_d, shown_c = set(before["display_dragons"]), set(before["display_caves"])
    drawn = [db.dragons[d - 1].name for d in P1["hand_dragons"] if d not in P0["hand_dragons"] and d not in shown_d]
    drawn += [f"cave {c}" for c in P1["hand_caves"] if c not in P0["hand_caves"] and c not in shown_c]
    refilled = [db.dragons[d - 1].name for d in after["display_dragons"] if d and d not in shown_d]
    refilled += [f"cave {c}" for c in after["display_caves"] if c and c not in shown_c]
    return drawn, refilled


class _Offered:
    """A game as parse_action reads it, with the human's choices as its legal actions."""

    def __init__(self, game: _core.Game, legal: list[int]):
        self.game, self.legal = game, legal

    def legal_actions(self) -> list[int]:
        return self.legal

    def __getattr__(self, name: str) -> Any:       # the rest as the game has it
        return getattr(self.game, name)


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
        from advisor.search.agents import make_agent
        self.s = session
        self.hint_time = hint_time
        self.save_path = save_path
        self.default_save = save_path or DEFAULT_SAVE
        self.colour = (_isatty(sys.stdout) and not os.environ.get("NO_COLOR")) if colour is None else colour
        self.bars = _isatty(sys.stderr) if bars is None else bars
        self.agents = {q: make_agent(session.setup.spec(q), 0) for q in session.setup.ai_seats}
        self.names = session.setup.names()
        # the AI turn being summarised: [key, label, record indices, display refills, the human's draws]
        self.group: list[Any] | None = None
        self.drawn_at: int | None = None      # record length when the table was last drawn
        self.seen: Mapping[str, Any] | None = None   # the human's observation at their last decision
        self.saved_at: tuple[int, tuple[int, ...]] | None = None      # Session.progress() at the last save
        self.saved_in: str | None = None      # where that save went
        self.save_error: str | None = None    # why the last autosave failed

    @property
    def picked(self) -> list[int]:
        """The human's setup discards so far, applied with the last (kept by the session: saved)."""
        return self.s.picked

    @picked.setter
    def picked(self, picks: list[int]) -> None:
        self.s.picked = picks

    # -------------------------------------------------------------- output
    def say(self, text: str = "", **style: Any) -> None:
        """Print `text` (lines longer than 80 columns wrapped), styled when the output has colour."""
        if any(len(click.unstyle(line)) > WIDTH for line in text.splitlines()):
            text = "\n".join(w for line in text.splitlines() for w in
                             (textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_on_hyphens=False,
                                            break_long_words=False)
                              if len(click.unstyle(line)) > WIDTH else [line]))
        if style and self.colour:
            text = click.style(text, **style)
        click.echo(text, color=self.colour)

    def wrap(self, text: str, indent: str = "    ", **style: Any) -> None:
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
    def bar(self, desc: str) -> Iterator[Callable[[float], None] | None]:
        """A progress bar on standard error (when it is a terminal) while a search runs."""
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
        g = self.s.game
        self.say()
        self.say(render(g.observation(self.s.human), self.s.human, g.printing, g.scores(),
                        colour=self.colour, names=self.names))
        self.drawn_at = len(self.s.record)

    def choices(self) -> list[int]:
        """The human's options as numbered: the engine's legal actions, except at a setup discard,
        where any card of the hand may be picked in any order (Session.discard)."""
        if self.s.discards_to_pick():
            return self.s.discard_choices(self.picked)
        return self.s.game.legal_actions()

    def options(self) -> list[str]:
        g = self.s.game
        return [action_text(a, g.printing, g) for a in self.choices()]

    def header(self) -> tuple[str, list[str]]:
        """What is asked ("Your turn: how to pay"), and the decisions of this turn so far."""
        g = self.s.game
        decision = g.decision or ""
        ask = DECISIONS.get(decision, decision)
        if decision == "order" and g.asked_by is not None:     # a cave in column 4, not round end
            ask = "the cave card or the exchange first"
        asker = asker_words(g, self.s.human, self.names)
        if asker:
            ask = f"{ask} ({asker})"
        log = self.s.public_texts(range(len(self.s.record) - g.decisions_in_segment, len(self.s.record)))
        log += [f"discard {action_text(a, g.printing)}" for a in self.picked]
        n = self.s.discards_to_pick()
        if n:
            ask = f"a card to discard ({len(self.picked) + 1} of {n}, in any order; you keep the rest)"
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
        asked = asked_by(self.s, self.names)
        if asked:
            self.wrap(f"  {asked}", indent="    ")
        if log:
            self.wrap(f"  so far: {'; '.join(log)}", indent="    ")
            card = None if asked else self.playing()
            if card:
                self.wrap(f"  {card}", indent="    ")
        for line in columns(self.options()):
            self.say(line)
        why = not_offered(self.s)
        if why:
            self.wrap(f"  ({why})", indent="    ")

    # -------------------------------------------------------------- what happened meanwhile
    def flush(self) -> None:
        if self.group:
            _, label, indices, refilled, drawn = self.group
            if indices:                         # none when Ctrl-C stopped the AI's first decision
                self.wrap(f"{label}: {'; '.join(self.s.public_texts(indices))}", indent="    ", fg="cyan")
            if refilled:
                self.wrap(f"  display refilled: {', '.join(refilled)}", indent="    ", fg="cyan")
            if drawn:
                self.wrap(f"  you drew {', '.join(drawn)}", indent="    ", fg="cyan")
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

    def automa_news(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
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
        coins = [b - a for a, b in zip(A0["objective_coins"], A1["objective_coins"], strict=True)]
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
            self.group = [key, label, [], [], []]
        from advisor.search import AnalysisInterrupted
        try:
            action = self.choose(seat)
        except AnalysisInterrupted:
            self.pause(seat)
            return
        before = self.s.game.observation(self.s.human)
        self.group[2].append(self.s.apply(action))
        drawn, refilled = arrivals(before, self.s.game.observation(self.s.human), self.s.human, g.printing)
        self.group[3] += refilled
        self.group[4] += drawn          # a card their effect has you draw

    def pause(self, seat: int) -> None:
        """Ctrl-C while an AI thinks: its search is dropped and the human gets a prompt. Enter lets
        it think again (the same search: the game plays as without the interrupt); undo, save,
        show, card, help and quit work as at the human's own prompt; Ctrl-C again leaves."""
        self.flush()
        self.say()
        self.wrap(f"Interrupted: {self.names[seat]} stopped thinking. Press Enter to let them go on, or type "
                  "undo, save, show, card, help or quit.", fg="yellow")
        while True:
            line = self.ask("(paused) > ").strip()
            if not line:
                return
            word, _, rest = line.partition(" ")
            cmd = word.lower()
            if cmd in ("hint", "list", "moves"):
                self.say(f"{cmd}: this is {self.names[seat]}'s decision, not yours; press Enter to let them "
                         "go on", fg="red")
            elif cmd in ("show", "table", "board"):
                self.draw()                     # not their options: those may name cards of their hand
            elif cmd in COMMANDS:
                if run_command(self, cmd, rest.strip()):
                    return
            else:
                self.say(f"'{clip(line)}': press Enter to let {self.names[seat]} go on, or type undo, save, show, "
                         "card, help or quit", fg="red")

    def choose(self, seat: int) -> int:
        from advisor.search.agents import ISMCTSAgent
        from advisor.search import analyse
        g = self.s.game
        agent = self.agents[seat]
        agent.reset(mix_seed(self.s.setup.seed, seat, len(self.s.record)))
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
                self.say(f"type a number from 1 to {len(self.choices())}, a move, or help")
                continue
            word, _, rest = line.partition(" ")
            cmd = word.lower()
            if cmd in COMMANDS:
                if run_command(self, cmd, rest.strip()):
                    return
                continue
            try:
                action = parse_action(_Offered(self.s.game, self.choices()), line)
            except ActionParseError as e:
                self.wrap(str(e), fg="red")
                why = not_offered(self.s)
                if why:
                    self.wrap(why, fg="red")
                self.wrap(f"(type a number from 1 to {len(self.choices())}, a move in the notation, or help)")
                continue
            self.take(action)
            return

    def take(self, action: int) -> None:
        """Apply the human's decision `action` (one of choices()) and echo it."""
        n = self.s.discards_to_pick()
        if n and len(self.picked) + 1 < n:
            self.picked.append(action)
            self.say(f"-> discard {action_text(action, self.s.game.printing)} (pick the next)", fg="green")
            return
        before = self.s.game.observation(self.s.human)
        if n:
            picks, self.picked = self.picked + [action], []
            taken = self.s.discard(picks)
        else:
            taken = [self.s.apply(action)]
        drawn, refilled = arrivals(before, self.s.game.observation(self.s.human), self.s.human, self.s.game.printing)
        self.say(f"-> {'; '.join(self.s.texts[i] for i in taken)}", fg="green")
        if drawn:
            self.wrap(f"   you drew {', '.join(drawn)}", indent="    ", fg="green")
        if refilled:
            self.wrap(f"   display refilled: {', '.join(refilled)}", indent="    ", fg="green")

    def autosave(self) -> None:
        if self.save_path and self.saved_at != self.s.progress():
            try:
                save_session(self.s, self.save_path)
                self.saved(self.save_path)
            except PlayError as e:
                self.save_error = str(e)
                self.say(f"autosave failed: {e}", fg="red")

    def saved(self, path: str) -> None:
        self.saved_at, self.saved_in, self.save_error = self.s.progress(), path, None

    def leave_note(self) -> str:
        """How the game stands as the human leaves: where it is saved, or that it is not."""
        if self.saved_at == self.s.progress():
            return f"; saved in {self.saved_in}"
        if self.save_error:
            return f"; NOT saved (autosave failed: {self.save_error}); type save FILE next time before leaving"
        return " (not saved)"

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
            self.say(f"{'End of input' if str(e) == 'end of input' else 'Quit'}: leaving the game{self.leave_note()}")
            return 0
        except KeyboardInterrupt:
            self.flush()
            self.autosave()
            self.say()
            self.say(f"Interrupted: leaving the game{self.leave_note()}")
            return 130


def play(players: int | None = None, seat: int | None = None, opponents: Sequence[str] = (),
         solo_level: str | None = None, seed: int | None = None, load: str | None = None,
         save: str | None = None, hint_time: float = DEFAULT_HINT_TIME, printing: str | None = None) -> int:
    """The `advisor play` command: returns its exit status."""
    given_save = save is not None
    if load:
        given = [n for n, v in (("--players", players), ("--seat", seat), ("--solo-level", solo_level),
                                ("--seed", seed), ("--printing", printing)) if v is not None]
        if given:
            raise PlayError(f"--load resumes the game as saved: {', '.join(given)} cannot change it "
                            "(--opponent can)")
        session, warnings = load_session(load, opponents)
        for w in warnings:
            click.echo(f"warning: {w}", err=True)
        # the game goes on saving where it came from, unless that file holds another game now
        back = save is None and not warnings
        click.echo(textwrap.fill(f"loaded {load}: {session.describe_progress()}"
                                 + (f"; saving to {load} as you play (--save FILE: elsewhere)" if back else ""),
                                 WIDTH, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False))
        if back:
            save = load
    else:
        session = Session(make_setup(players, seat, opponents, solo_level, seed, printing or "base"))
    t = Terminal(session, hint_time=hint_time, save_path=save)
    if save:
        try:                                  # a save that cannot be written is refused before play
            save_session(session, save)
        except PlayError as e:
            if load and save == load and not given_save:
                raise PlayError(f"--load: the game cannot be saved back as you play ({e}); give --save FILE") \
                    from None
            raise PlayError(f"--save: {e}") from None
        t.saved(save)
    return t.run()
