"""What the human can type at a prompt of `advisor play` besides a decision: help, hint, undo, save,
show, list, card and quit (docs/play.md). Each command is a function of the Terminal it runs in."""
from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.cards import describe_card, load_database
from advisor.errors import CardLookupError, clip
from advisor.notation import action_text
from advisor.play.render import cost_text
from advisor.play.saves import save_session
from advisor.play.session import forced_discards, mix_seed
from advisor.play.setup import PlayError

if TYPE_CHECKING:
    from advisor import _core
    from advisor.play.terminal import Terminal
    from advisor.search.analysis import MoveInfo

HINT_TOP = 5           # moves a hint lists

HELP = """\
At a prompt, type one of:
  NUMBER         the option with that number in the list
  NOTATION       the option in the game's notation, any unambiguous part of it:
                 "entice redwyrm into crimson", "explore golden", "pay 1 meat"
  hint [S]       the advisor ranks your options ({hint:g} s of search, or S)
  undo           take back your last move (or the one you are in the middle of)
  save [FILE]    save the game (to {save});
                 `advisor play --load FILE` resumes it
  show           draw the table again
  list           list the options again
  card NAME      a card's full text: "card patient redwyrm", "card cave 12"
  help           this text
  quit           leave the game
"""

COMMANDS = ("help", "?", "hint", "undo", "save", "show", "table", "board", "list", "moves", "card",
            "quit", "exit")



class Leave(Exception):
    """The human leaves the game (quit, end of input)."""


def run_command(t: Terminal, cmd: str, rest: str) -> bool:
    """Run a prompt command; True when the game moved (ask the next decision)."""
    if cmd in ("help", "?"):
        t.say(HELP.format(hint=t.hint_time, save=t.default_save).rstrip())
    elif cmd == "hint":
        hint(t, rest)
    elif cmd == "undo":
        if rest:
            t.say("undo takes no argument", fg="red")
            return False
        if t.picked:            # discards picked but not yet applied
            t.say(f"took back your discard of {', '.join(action_text(a, t.s.game.printing) for a in t.picked)}",
                  fg="yellow")
            t.picked = []
            return True
        try:
            n = t.s.undo()
        except PlayError as e:
            t.wrap(str(e), fg="red")
            return False
        t.say(f"took back {n} decision{'s' if n != 1 else ''}", fg="yellow")
        t.picked = []
        t.seen = t.s.game.observation(t.s.human)
        t.drawn_at = None
        return True
    elif cmd == "save":
        save(t, rest or t.default_save)
    elif cmd in ("show", "table", "board"):
        t.draw()
        t.show_options()
    elif cmd in ("list", "moves"):
        t.show_options()
    elif cmd == "card":
        card(t, rest)
    elif cmd in ("quit", "exit"):
        offer_save(t)
        raise Leave("quit")
    return False


def offer_save(t: Terminal) -> None:
    """Before leaving a game with unsaved decisions: a file name saves it there, Enter leaves it."""
    if t.save_path or t.saved_at == t.s.progress() or not (t.s.record or t.picked):
        return          # the autosave keeps it, or nothing is lost
    try:
        path = t.ask("Save before leaving? A file name, or Enter to leave unsaved: ").strip()
    except Leave:
        return          # end of input: leave as it is
    if path:
        save(t, path)


def card(t: Terminal, query: str) -> None:
    """`card NAME`: a card's full text."""
    if not query:
        t.say("card NAME: e.g. card redwyrm, card cave 12", fg="red")
        return
    db = load_database(t.s.game.printing)
    try:
        c = db.lookup(query)
    except CardLookupError as e:
        t.wrap(str(e), fg="red")
        return
    if c.kind == "cave":
        t.say(f"Cave {c.number}", bold=True)
    else:
        t.say(f"{c.name} (dragon {c.number})", bold=True)
        t.wrap(f"  {c.size}, {c.personality}, {c.vp} VP, egg capacity {c.capacity}; cost {cost_text(c)} "
                  f"(and 1 coin to entice); lives in {', '.join(c.caves)}")
    t.wrap("  " + describe_card(c))


def hint(t: Terminal, rest: str) -> None:
    """`hint [S]`: the advisor ranks the human's options."""
    from advisor.search.suggest import suggest
    seconds = t.hint_time
    if rest:
        try:
            seconds = float(rest)
        except ValueError:
            seconds = -1
        if not 0.01 <= seconds <= 600:
            t.say(f"hint SECONDS: '{clip(rest)}' is not a number of seconds from 0.01 to 600", fg="red")
            return
    g = t.s.game
    if t.picked:
        t.say(f"hint ranks the pairs to discard from the first card: type undo to take back your discard of "
              f"{action_text(t.picked[0], g.printing)}, then hint", fg="red")
        return
    legal = t.choices()
    with t.bar("advisor thinking") as progress:     # Ctrl-C: the ranking so far, and back to the prompt
        a = suggest(g, {"time": seconds}, seed=mix_seed(t.s.setup.seed, len(t.s.record), 7), progress=progress)
    if not a.moves:
        t.say("advisor: " + ("interrupted before it ranked a move" if a.interrupted else
                             "the search found no move to rank"), fg="red")
        return
    from advisor.search.advice import playout_text, ranking_lines, searched_text, stopped_text
    t.wrap(f"advisor: {searched_text(a)}, best first (type the number to play it)", bold=True)
    stopped = stopped_text(a)
    if stopped:
        t.wrap(stopped.replace(" (--set stop_early=0 searches on)", ""))
    moves = a.moves[:HINT_TOP]
    if g.decision == "setup discard":
        moves = [_with_forced(g, m) for m in moves]
    for line in ranking_lines(a, moves, t.names, playout_text(a.settings),
                              number=lambda _, m: legal.index(m.action) + 1):
        t.say(line)


def _with_forced(g: _core.Game, m: MoveInfo) -> MoveInfo:
    """A setup discard as the pair it makes: the engine discards a last card left to pair by
    itself, so the search's plan does not name it."""
    from dataclasses import replace
    after = g.clone()
    after.apply(m.action)
    forced = forced_discards(g, after, m.action)
    return replace(m, text=" and ".join([m.text] + [action_text(a, g.printing) for a in forced])) if forced else m


# -------------------------------------------------------------- saving
def save(t: Terminal, path: str) -> None:
    """`save [FILE]`: the save file, and the position file beside it at a turn's start."""
    try:
        pos = save_session(t.s, path)
    except PlayError as e:
        t.wrap(str(e), fg="red")
        return
    t.saved(path)
    t.say(f"saved {path} ({t.s.describe_progress()}); resume with `advisor play --load {path}`")
    if pos:
        t.say(f"your position: {pos} (for `advisor suggest` / `advisor show`)")

