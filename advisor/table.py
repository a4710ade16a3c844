"""A real game followed from one seat: the engine with chance told, asked only what the table shows.

`Table` drives a `Game` made with chance told (ext/engine/chance.pxi) for a viewer. It stops at a
`Question` only where the table shows the viewer something to enter: a chance outcome the viewer
sees (a card drawn into their hand, a refill of the display, the deal's tiles), a decision of
theirs, or what another seat did. What the table hides is bound at random and kept as a stand-in:
a card dealt or drawn into another hand, a card tucked face down from the deck or, unseen, from a
hand. An entry the current binding does not allow (another seat plays a card the stand-ins do not
hold) binds the stand-ins anew so that everything entered so far and the entry replay
(`Game.rebind`), within a stated budget of tries. Undo steps back over the last entry, and the
stand-ins and forced steps that followed it.

The tracker (`advisor track`) and the web app put their prompts on this: the words of a question
say what it is for ("refill of display slot 2", "P1's starting hand", ...)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor._core import CHANCE, Game, named_card
from advisor.errors import AdvisorError
from advisor.notation import NO, action_text

REBIND_TRIES = 64       # bindings of the stand-ins tried before an entry is refused

# decisions whose card the other seats never see (it goes face down from the hand)
HIDDEN_CHOICES = ("tuck card",)


def _seed(seed: int, n: int) -> int:
    """The seed of the n-th stand-in of a table's game: the same table binds the same way."""
    return (seed * 0x9E3779B97F4A7C15 + n * 0xBF58476D1CE4E5B9) & ((1 << 63) - 1)


class TableError(AdvisorError):
    """An entry that no binding of the cards the viewer has not seen makes legal."""


@dataclass(frozen=True)
class Question:
    """What the table is asked now: `seat` decides (None: chance, the table shows a card or tile),
    `about` says what for in the player's words, `options` are the answers (action, text)."""
    seat: int | None
    about: str
    options: tuple[tuple[int, str], ...]
    forced: bool = False        # one option only: the answer is there to be confirmed


@dataclass
class Table:
    """A game at the table as `viewer` sees it (`players` 1-5; 1 = solo against the Automa)."""
    players: int
    viewer: int
    automa: str = "2"
    printing: str = "base"
    seed: int = 0
    game: Game = field(init=False)
    entered: list[int] = field(init=False, default_factory=list)   # history lengths at each entry

    def __post_init__(self) -> None:
        if not 0 <= self.viewer < max(self.players, 1):
            raise TableError(f"viewer: seat {self.viewer} is not one of the {self.players} players")
        self.game = Game.new(self.players, self.seed, self.printing, self.automa, chance="told")
        self._settle()

    # ------------------------------------------------------------------ what is asked
    def question(self) -> Question | None:
        """The question the table answers next; None once the game is over."""
        g = self.game
        if g.is_terminal():
            return None
        options = tuple((a, action_text(a, g.printing, g)) for a in g.legal_actions())
        if g.decider == CHANCE:
            return Question(None, chance_words(g, self.viewer), options)
        who = "you" if g.decider == self.viewer else f"P{g.decider}"
        return Question(g.decider, f"{who}: {g.decision}", options, forced=len(options) == 1)

    def answer(self, action: int, seat: int | None = None) -> None:
        """Enter what the table shows (`seat`: who did it, where the table says). An entry the
        stand-ins do not allow binds them anew; another seat's optional decision that only the
        stand-ins gave them is declined first. TableError if nothing of what the viewer has not
        seen allows the entry."""
        g = self.game
        if g.is_terminal():
            raise TableError("the game is over")
        mark = len(g.history)
        if self._hidden_choice() and a_card(action):
            # which card went face down the table does not show: one the viewer cannot place stands
            # in for it (a card known to be in the hand stays known)
            cards = [a for a in g.legal_actions() if a_card(a)]
            seen = _seen(g, self.viewer)
            cards = [a for a in cards if named_card(a) not in seen] or cards
            g.apply(action if action in cards else cards[_seed(self.seed, mark) % len(cards)], stand_in=True)
        elif action in g.legal_actions():
            g.apply(action)
        elif not self._declined(action, seat):
            if g.decider == self.viewer or named_card(action) is None:
                self._refuse(action)
            # a card a stand-in holds: another seat plays it, or it comes up from the deck
            try:
                self.game = g.rebind(_seed(self.seed, len(g.history)), REBIND_TRIES, [action],
                                     -1 if seat is None else seat)
            except AdvisorError as e:
                who = "the deck bring" if g.decider == CHANCE else f"P{g.decider if seat is None else seat} do"
                raise TableError(f"{action_text(action, g.printing)}: no deal of the cards you have not "
                                 f"seen lets {who} that ({REBIND_TRIES} tried)") from e
        self.entered.append(mark)
        self._settle()

    def _hidden_choice(self) -> bool:
        g = self.game
        return g.decider not in (CHANCE, self.viewer) and g.decision in HIDDEN_CHOICES and _unseen_choice(g, self.viewer)

    def _declined(self, action: int, seat: int | None) -> bool:
        """Whether `action`, by another seat than the one deciding, is legal once that seat's
        optional decisions (ones the stand-ins gave it, which the table did not show) are declined."""
        g = self.game
        trial = g.clone()
        for _ in range(4):
            if trial.decider in (CHANCE, self.viewer) or trial.decider == seat or seat is None:
                return False
            no = [a for a in trial.legal_actions() if a >> 20 == NO]
            if not no or not _unseen_choice(trial, self.viewer):
                return False
            trial.apply(no[0], stand_in=True)
            _settle(trial, self.viewer, self.seed)
            if not trial.is_terminal() and trial.decider == seat and action in trial.legal_actions():
                trial.apply(action)
                self.game = trial
                return True
        return False

    def _refuse(self, action: int) -> None:
        g = self.game
        raise TableError(f"{action_text(action, g.printing)} is not one of the answers to "
                         f"'{chance_words(g, self.viewer) if g.decider == CHANCE else g.decision}'")

    def undo(self) -> None:
        """Take back the last entry (and the stand-ins and forced steps after it)."""
        if not self.entered:
            raise TableError("nothing to undo: nothing has been entered yet")
        self.game.rewind(self.entered.pop())
        self._settle()

    # ------------------------------------------------------------------ saves
    def to_dict(self) -> dict[str, Any]:
        """The table as plain data: its setup, the game's history (stand-ins marked) and the
        entries; `from_dict` replays it."""
        return {"players": self.players, "viewer": self.viewer, "automa": self.automa,
                "printing": self.printing, "seed": self.seed, "history": self.game.history,
                "stand_ins": self.game.stand_ins, "entered": list(self.entered)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Table:
        t = cls(d["players"], d["viewer"], d.get("automa", "2"), d.get("printing", "base"), d.get("seed", 0))
        stand_ins = set(d.get("stand_ins", ()))
        t.game = Game.new(t.players, t.seed, t.printing, t.automa, chance="told")
        for i, a in enumerate(d["history"]):
            try:
                t.game.apply(a, stand_in=i in stand_ins)
            except AdvisorError as e:
                raise TableError(f"history[{i}]: {a} does not replay ({e})") from None
        t.entered = list(d.get("entered", ()))
        t._settle()
        return t

    # ------------------------------------------------------------------ the rest is the table's
    def _settle(self) -> None:
        _settle(self.game, self.viewer, self.seed)


def asks(game: Game, viewer: int) -> bool:
    """Whether the table is asked at `game`'s point (else it plays on by itself): a chance outcome
    the viewer sees, or a decision, except one forced (unless it names a card the viewer cannot
    place) and another seat's choice made face down."""
    if game.is_terminal():
        return False
    event = game.chance_event
    if event is not None:
        return viewer in event.observers
    if game.decider != viewer and game.decision in HIDDEN_CHOICES and _unseen_choice(game, viewer):
        return any(a >> 20 == NO for a in game.legal_actions())      # whether is seen, not what
    return len(game.legal_actions()) > 1 or (game.decider != viewer and _unseen_choice(game, viewer))


def _settle(game: Game, viewer: int, seed: int) -> None:
    """Play on over what the table is not asked: the hidden steps bound at random (stand-ins),
    the forced ones taken."""
    while not game.is_terminal() and not asks(game, viewer):
        if game.decider == CHANCE:
            game.sample(_seed(seed, len(game.history)))
        elif len(game.legal_actions()) == 1:
            game.apply(game.legal_actions()[0])
        else:
            options = game.legal_actions()
            game.apply(options[_seed(seed, len(game.history)) % len(options)], stand_in=True)


def a_card(action: int) -> bool:
    """Whether an action names a card."""
    return named_card(action) is not None


def _unseen_choice(game: Game, viewer: int) -> bool:
    """Whether the decision now names a card the viewer cannot place (another seat's hand)."""
    seen = _seen(game, viewer)
    return any(card is not None and card not in seen for card in map(named_card, game.legal_actions()))


def _seen(game: Game, viewer: int) -> set[tuple[str, int]]:
    """The cards in the viewer's hand and known in the decider's (dragon and cave cards are
    numbered apart: a card is its kind and number)."""
    known = game.observation(viewer)
    me, held = known["players"][viewer], known["players"][game.decider]
    seen = {("dragon", d) for d in me["hand_dragons"] + held["hand_dragons"]}
    return seen | {("cave", c) for c in me["hand_caves"] + held["hand_caves"]}


def chance_words(game: Game, viewer: int) -> str:
    """What a chance point is for, in the player's words."""
    ev = game.chance_event
    if ev is None:
        return ""
    whose = "your" if ev.who == viewer else f"P{ev.who}'s"
    round_ = game.round         # at a new round's display the round has already begun
    return {
        "hand dragon": f"the dragon card {whose} draw takes from the deck",
        "hand cave": f"the cave card {whose} draw takes from the deck",
        "display dragon": (f"round {round_} display: dragon card in slot {ev.who + 1}"
                           if game.phase == "objective" else f"refill of dragon display slot {ev.who + 1}"),
        "display cave": (f"round {round_} display: cave card in slot {ev.who + 1}"
                         if game.phase == "objective" else f"refill of cave display slot {ev.who + 1}"),
        "deal dragon": f"a dragon card of {whose} starting hand",
        "deal cave": f"a cave card of {whose} starting hand",
        "tuck": "the card tucked from the deck",
        "reveal": "the dragon card turned up from the deck",
        "play cave": "the cave card played from the deck",
        "guild tile": "the guild tile",
        "objective": f"round {ev.who + 1}'s objective tile and side",
        "first player": "who goes first",
        "automa card": "the Automa's card",
    }[ev.event]
