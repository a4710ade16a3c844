"""A game of `advisor play` in progress: the game from its setup, whose history is the record of
every decision applied to it. The engine is deterministic given the seed and the record, so the
record alone restores a game (advisor.play.saves); `undo` rewinds the game's history to where the
human's last move began."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence

from advisor import _core
from advisor.notation import CAVE, DRAGON, action_text, arg, kind, make
from advisor.play.setup import PlayError, PlaySetup


def mix_seed(*xs: int) -> int:
    """A seed from several numbers (the game's seed, a seat, a record length): the AI seats and the
    hints choose the same way whenever the game is replayed."""
    h = 0x9E3779B97F4A7C15
    for x in xs:
        h = ((h ^ (x & ((1 << 64) - 1))) * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & ((1 << 62) - 1)
    return h


def state_digest(game: _core.Game) -> str:
    """A short digest of the whole state (hidden information included)."""
    return hashlib.sha256(json.dumps(game.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


def visible_cards(game: _core.Game, viewer: int) -> tuple[set[int], set[int]]:
    """The dragon and cave cards `viewer` can tell apart now (the engine's model: `Game.placed`)."""
    return game.placed(viewer)


def _hand(game: _core.Game, seat: int) -> set[int]:
    """`seat`'s hand as actions (dragon and cave cards), from their own view."""
    P = game.observation(seat)["players"][seat]
    return {make(DRAGON, d) for d in P["hand_dragons"]} | {make(CAVE, c) for c in P["hand_caves"]}


def forced_discards(before: _core.Game, after: _core.Game, action: int, picked: Sequence[int] = ()) -> list[int]:
    """The cards the engine discarded by itself after the setup discard `action` (`picked`: the
    decider's discards before it): the last ones, when no choice is left."""
    if after.decision == "setup discard" and after.decider == before.decider:
        return []
    who = before.decider
    return sorted(_hand(before, who) - _hand(after, who) - set(picked) - {action})


class Session:
    """A game from `setup` and the decisions applied to it (`record`), with the undo points."""

    def __init__(self, setup: PlaySetup):
        self.setup = setup
        self.game: _core.Game = setup.new_game()
        self.deciders: list[int] = []         # the seat that took each decision of the record
        self.texts: list[str] = []            # its notation (display slots name their card)
        self.marks: list[int] = []            # record lengths where the human's moves start
        self.picked: list[int] = []           # the human's setup discards so far, applied with the last

    def progress(self) -> tuple[int, tuple[int, ...]]:
        """How far the game is: the record's length and the discards picked but not yet applied
        (a save between two picks keeps the first)."""
        return len(self.record), tuple(self.picked)

    @property
    def record(self) -> list[int]:
        """The decisions applied since the setup (action ids, in order): the game's history."""
        return self.game.history

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

    def public_texts(self, indices: Iterable[int]) -> list[str]:
        """The notation of the decisions at `indices` of the record as the human may see them now:
        a card another seat chose that the human cannot see (one tucked from a hand) is unnamed."""
        visible: tuple[set[int], set[int]] | None = None
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
            self.marks.append(len(self.deciders))
        text = action_text(action, g.printing, g)
        discard = g.decision == "setup discard"
        before = g.clone() if discard else None
        picked = self.record[len(self.record) - g.decisions_in_segment:]
        g.apply(action)
        if before is not None:
            text = " and ".join([f"discard {text}"] + [action_text(a, g.printing)
                                                       for a in forced_discards(before, g, action, picked)])
        self.deciders.append(who)
        self.texts.append(text)
        return len(self.deciders) - 1

    def discards_to_pick(self) -> int:
        """How many cards the human picks at a setup discard that starts now (0: none starts): the
        engine asks them in hand order so each set comes once, but the human picks in any order."""
        g = self.game
        if not self.human_to_decide() or g.decision != "setup discard" or g.decisions_in_segment:
            return 0
        # the first pick leaves room for the rest after it in hand order
        return len(_hand(g, self.human)) - len(g.legal_actions()) + 1

    def discard_choices(self, picked: Sequence[int] = ()) -> list[int]:
        """The cards of the human's hand (as actions, in hand order) that a setup discard may still
        take after `picked`."""
        return sorted(_hand(self.game, self.human) - set(picked))

    def describe_progress(self) -> str:
        """"12 decisions", and the discards picked but not yet applied ("and 1 discard picked")."""
        k = len(self.picked)
        return f"{len(self.record)} decisions" + (f" and {k} discard{'s' if k > 1 else ''} picked" if k else "")

    def check_picked(self, picked: Sequence[int]) -> str | None:
        """Why `picked` cannot be the human's setup discards picked so far, or None."""
        n = self.discards_to_pick()
        if not picked:
            return None
        if not n:
            return "no setup discard of yours starts here"
        if len(picked) >= n or len(set(picked)) < len(picked):
            return f"{len(picked)} cards, but a setup discard picks {n} different ones, the last applying them"
        wrong = [a for a in picked if a not in self.discard_choices()]
        return f"{wrong[0]} is not a card of your hand" if wrong else None

    def discard(self, picks: Sequence[int]) -> list[int]:
        """Apply the human's setup discards `picks` (any order) in the engine's order; returns the
        record indices of the decisions taken (the engine takes a last forced card itself)."""
        taken = []
        for a in sorted(picks):
            if self.game.decision == "setup discard":     # else the engine took the last card itself
                taken.append(self.apply(a))
        return taken

    def can_undo(self) -> bool:
        return bool(self.marks)

    def undo(self) -> int:
        """Back to the start of the human's last move (the one in progress, if any); returns how many
        decisions (the AI's included) were taken back."""
        if not self.marks:
            raise PlayError("nothing to undo: you have made no move yet")
        n = self.marks.pop()
        taken = len(self.deciders) - n
        self.game.rewind(n)
        del self.deciders[n:], self.texts[n:]
        return taken

    @classmethod
    def replay(cls, setup: PlaySetup, record: Sequence[int], where: str = "record") -> Session:
        s = cls(setup)
        for i, a in enumerate(record):
            if s.game.is_terminal():
                raise PlayError(f"{where}[{i + 1}]: the game is over before this decision ({a})")
            if a not in s.game.legal_actions():
                raise PlayError(f"{where}[{i + 1}]: {a} is not a legal decision there ({s.game.decision} of "
                                f"P{s.game.decider}); other engine or card data")
            s.apply(a)
        return s

