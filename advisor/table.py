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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor._core import CHANCE, Game, named_card
from advisor.errors import AdvisorError
from advisor.notation import CHANCE as OUTCOME
from advisor.notation import (CAVE, CAVE_SRC, DRAGON, DRAGON_SRC, DRAW_CAVE, DRAW_DRAGON, EGG, ENTICE, EXCAVATE, EXPLORE, KIND_SHIFT, NO, PASS, PLACE, RES,
                              ROW, SPOT, TOP_LEVEL, YES, action_text, kind, make)

REBIND_TRIES = 64       # bindings of the stand-ins tried before an entry is refused
REDEALS = 8             # from a position: other deals of what the viewer could not see there, tried then

# decisions whose card the other seats never see (it goes face down from the hand)
HIDDEN_CHOICES = ("tuck card",)

UNSEEN = -1     # the answer for what the table did not show: a stand-in is bound for it

# chance points asked together, in one entry: the display's slots, a starting hand, the objective
# tiles, the cards of one draw
FAMILIES = {"display dragon": "display", "display cave": "display", "deal dragon": "deal", "deal cave": "deal",
            "objective": "objective", "hand dragon": "draw", "hand cave": "draw"}


# the answers of another seat's step that name no card: each resource, yes, no and pass, each
# cave to explore, each egg and place spot (13 of each), each row, each guild ability and the
# fixed-VP spot, a display slot or the deck
SIMPLE_ANSWERS = ([make(RES, r) for r in range(4)] + [make(YES), make(NO), make(PASS)]
                  + [make(EXPLORE, c) for c in range(3)] + [make(EGG, s) for s in range(13)]
                  + [make(PLACE, s) for s in range(13)] + [make(ROW, r) for r in range(3)]
                  + [make(SPOT, s) for s in (0, 4, 8, 12, 16)]
                  + [make(k, s) for k in (DRAGON_SRC, CAVE_SRC) for s in range(4)])


def _seed(seed: int, n: int) -> int:
    """The seed of the n-th stand-in of a table's game: the same table binds the same way."""
    return (seed * 0x9E3779B97F4A7C15 + n * 0xBF58476D1CE4E5B9) & ((1 << 63) - 1)


class TableError(AdvisorError):
    """An entry that no binding of the cards the viewer has not seen makes legal."""


@dataclass(frozen=True)
class Question:
    """What the table is asked now: `seat` decides (None: chance, the table shows a card or tile),
    `about` says what for in the player's words, `options` are the answers (action, text).

    A chance question may ask for `count` outcomes at once, in the order the table lays them out
    (the display's slots left to right, dragon cards before cave cards; a starting hand; the four
    objective tiles): `parts` names each one, and `Table.answer` takes them as one entry. Where
    another seat decides among cards the viewer has not seen, `unseen` says so: any such card of
    theirs is an answer (`Table.could_be` lists them), and UNSEEN where the table hides which."""
    seat: int | None
    about: str
    options: tuple[tuple[int, str], ...]
    forced: bool = False        # one option only: the answer is there to be confirmed
    count: int = 1
    parts: tuple[str, ...] = ()
    points: tuple[tuple[str, int], ...] = ()    # each part's chance point: (event, who)
    unseen: bool = False
    hidden: bool = False        # the table does not show which card it is (a tuck face down)


@dataclass
class Table:
    """A game at the table as `viewer` sees it (`players` 1-5; 1 = solo against the Automa)."""
    players: int
    viewer: int
    automa: str = "2"
    printing: str = "base"
    seed: int = 0
    names: tuple[str, ...] = ()     # the seats' names (default P0, P1, ...; the Automa's last in solo)
    position: str | None = None     # a position file's text the game starts from (else a new game)
    game: Game = field(init=False)
    entered: list[int] = field(init=False, default_factory=list)   # history lengths at each entry

    def __post_init__(self) -> None:
        if not 0 <= self.viewer < max(self.players, 1):
            raise TableError(f"viewer: seat {self.viewer} is not one of the {self.players} players")
        seats = self.players + (self.players == 1)
        if not self.names:
            self.names = tuple(f"P{i}" for i in range(self.players)) + (("Automa",) if self.players == 1 else ())
        if len(self.names) != seats:
            raise TableError(f"names: {seats} seats, {len(self.names)} names")
        self.game = self._start(0)
        self._settle()

    def _start(self, deal: int) -> Game:
        """The game as it begins: a new one, or the position's with the cards the viewer cannot see
        dealt (`deal`: which dealing; stand-ins, like all the table hides)."""
        if self.position is None:
            return Game.new(self.players, self.seed, self.printing, self.automa, chance="told")
        from advisor.positions import parse_position
        d: Any = parse_position(self.position, "position").to_game(_seed(self.seed, -1 - deal)).to_dict()
        for part in ("core", "segment_start"):
            if isinstance(d.get(part), dict):
                d[part]["chance"] = "told"
        return Game.from_dict(d)

    @classmethod
    def from_position(cls, text: str, seed: int = 0) -> Table:
        """A table whose game starts at a position file's (the viewer's turn)."""
        from advisor.positions import AUTOMA_NAME, parse_position
        pos = parse_position(text, "position")
        players = 1 if pos.solo else len(pos.names)
        names = pos.names + ((AUTOMA_NAME,) if pos.solo else ())
        return cls(players, pos.viewer, pos.automa_level or "2", pos.printing, seed, names, text)

    # ------------------------------------------------------------------ what is asked
    def question(self) -> Question | None:
        """The question the table answers next; None once the game is over."""
        g = self.game
        if g.is_terminal():
            return None
        if g.decider == CHANCE:
            return self._chance_question()
        options = tuple((a, self.text(a)) for a in g.legal_actions())
        who = "you" if g.decider == self.viewer else self.names[g.decider]
        # another seat choosing among cards of a hand the viewer does not wholly know: any card
        # the viewer cannot place may be theirs
        unseen = g.decider != self.viewer and self._unknown_hand() and (
            g.decision == "move" or any(a_card(a) for a, _ in options))
        hidden = _face_down(g, self.viewer)
        about = f"{who}: {decision_words(g, self.viewer, self.names)}"
        if hidden:
            options, about = self._outcomes(), f"{about} (face down: what followed?)"
        return Question(g.decider, about, options, forced=len(options) == 1 and not unseen,
                        unseen=unseen, hidden=hidden)

    def _outcomes(self) -> tuple[tuple[int, str], ...]:
        """A card chosen face down, by what the table shows follows it (a resource its kind gives,
        a choice it brings): one card of the seat's hand in this binding for each outcome, in words;
        the options that name no card (declining) as they are."""
        g = self.game
        seat = g.decider
        before = g.observation(self.viewer)["players"][seat]
        out: dict[Any, tuple[int, str]] = {}
        for a in g.legal_actions():
            if not a_card(a):
                out[a] = (a, self.text(a))
                continue
            t = g.clone()
            t.apply(a, stand_in=True)
            _settle(t, self.viewer, self.seed)
            key = shown_after(t, self.viewer)
            if key not in out:
                out[key] = (a, "a card, then " + followed(t, seat, before, self.names, self.viewer))
        return tuple(out.values())

    def _chance_question(self) -> Question:
        """The chance points of one family the table shows next in a row (looked ahead on a copy:
        which points come does not depend on which cards they bring), asked as one question."""
        g = self.game
        ev = g.chance_event
        assert ev is not None
        family = FAMILIES.get(ev.event)
        points: list[tuple[str, int]] = []
        options: dict[int, str] = {}
        unplaced: dict[str, set[int]] = {}
        ahead = g.clone()
        while True:
            e = ahead.chance_event
            if e is None or not asks(ahead, self.viewer) or (points and (family is None or FAMILIES.get(e.event) != family)):
                break
            points.append((e.event, e.who))
            legal = ahead.legal_actions()
            for a in legal:
                options.setdefault(a, self.text(a, ahead))
            card = named_card(legal[0]) if legal else None
            if card is not None:        # a card a stand-in holds may be the one that comes up
                unplaced = unplaced or self.unplaced()
                for n in sorted(unplaced[card[0]]):
                    a = make(kind(legal[0]), n)
                    options.setdefault(a, self.text(a, ahead))
            if family is None:
                break
            ahead.sample(_seed(self.seed, len(ahead.history)))
            _settle(ahead, self.viewer, self.seed)
        order = {"dragon": 0, "cave": 1}
        points.sort(key=lambda p: (order.get(p[0].split()[-1], 0), p[1]) if family == "display" else 0)
        about = group_words(g, self.viewer, points, self.names)
        return Question(None, about, tuple(options.items()), count=len(points),
                        parts=tuple(point_words(g, self.viewer, p, self.names) for p in points), points=tuple(points))

    def text(self, action: int, game: Game | None = None) -> str:
        """An answer in the table's words (seats by name)."""
        g = game or self.game
        ev = g.chance_event
        if ev is not None and ev.event == "first player" and kind(action) == OUTCOME:
            value = action & ((1 << KIND_SHIFT) - 1)
            return f"{self.names[value]} starts" if value < len(self.names) else f"seat {value} starts"
        try:
            return action_text(action, g.printing, g)
        except (ValueError, IndexError):        # an id that is no action (from a page, a save)
            return str(action)

    def could_be(self) -> list[int]:
        """The answers of the seat deciding now as the viewer knows them: its legal actions, and,
        where it chooses among cards the viewer has not seen, the same actions with any card the
        viewer cannot place (the stand-ins are bound anew when one is entered)."""
        g = self.game
        legal = g.legal_actions()
        if g.is_terminal() or g.decider in (CHANCE, self.viewer) or not self._unknown_hand():
            return legal
        held = self.may_hold(g.decider)
        out = dict.fromkeys(legal)
        kinds = {kind(a) for a in legal if named_card(a) is not None}
        if g.decision == "move":        # a card they hold may be enticed or excavated
            kinds |= {ENTICE, EXCAVATE}
        if kinds & {DRAGON, CAVE}:      # a pick from the hand: which kinds are left to pick follows the hand
            kinds |= {DRAGON, CAVE}
        for k in sorted(kinds):
            of = "dragon" if k in (DRAGON, ENTICE, DRAW_DRAGON) else "cave"
            spots = range(3) if k in (ENTICE, EXCAVATE) else range(1)     # the three caves
            for n in sorted(held[of]):
                for spot in spots:
                    out.setdefault(make(k, (n << 2 | spot) if k in (ENTICE, EXCAVATE) else n))
        return list(out)

    def could_follow(self) -> list[int]:
        """Answers another seat may give that no binding of the current stand-ins offers now,
        though another may (a resource the card they tucked unseen gives): the simple answers of
        every decision, each tried by binding the stand-ins anew when entered."""
        g = self.game
        if g.is_terminal() or g.decider in (CHANCE, self.viewer):
            return []
        # a card the deck brings next, where another binding ends the turn without this question
        unplaced = self.unplaced()
        return SIMPLE_ANSWERS + [make(DRAW_DRAGON, d) for d in sorted(unplaced["dragon"])] + \
            [make(DRAW_CAVE, c) for c in sorted(unplaced["cave"])]

    def could_have_followed(self) -> list[int]:
        """Answers of the seat whose turn the last entry was in to a decision the stand-ins did not
        give them (a cave's "play a dragon" with no dragon to play in the binding, a "no" to one),
        entered where the table asks next (the viewer's move, the display's refill): the simple
        answers of a step of a turn and the cards they may hold; [] if the last turn is the viewer's."""
        seat = self.last_turn()
        if seat is None or seat == self.viewer:
            return []
        held = self.may_hold(seat)
        return [a for a in SIMPLE_ANSWERS if kind(a) not in TOP_LEVEL] + \
            [make(DRAW_DRAGON, d) for d in sorted(held["dragon"])] + [make(DRAW_CAVE, c) for c in sorted(held["cave"])]

    def may_hold(self, seat: int) -> dict[str, set[int]]:
        """The cards `seat` may hold as the viewer knows it, by kind: those the viewer cannot place
        and those the viewer saw them take (which this binding may not offer where the cards' order
        matters: an exchange's items are picked in that order)."""
        unplaced = self.unplaced()
        P = self.game.observation(self.viewer)["players"][seat]
        return {"dragon": unplaced["dragon"] | set(P["known_dragons"]), "cave": unplaced["cave"] | set(P["known_caves"])}

    def unplaced(self) -> dict[str, set[int]]:
        """The cards that may be anywhere the viewer cannot see, by kind: those the engine's model
        says the viewer cannot place (`Game.unplaced`), and those a stand-in put out of sight (a
        card tucked face down for another seat), which a binding anew may free."""
        g = self.game
        dragons, caves = g.unplaced(self.viewer)
        placed_d, placed_c = g.placed(self.viewer)
        stand_ins = g.stand_ins
        history = g.history
        for i in stand_ins:
            card = named_card(history[i])
            if card is not None:
                (dragons if card[0] == "dragon" else caves).add(card[1])
        return {"dragon": dragons - placed_d, "cave": caves - placed_c}

    def _unknown_hand(self) -> bool:
        """Whether the seat deciding holds cards the viewer does not know."""
        P = self.game.observation(self.viewer)["players"][self.game.decider]
        return (P["n_hand_dragons"] > len(P["known_dragons"]) or P["n_hand_caves"] > len(P["known_caves"]))

    def answer(self, action: int | Sequence[int], seat: int | None = None) -> None:
        """Enter what the table shows, as one entry (`seat`: who did it, where the table says).
        A chance question of several outcomes takes them all, each to the point it fits, in order;
        UNSEEN binds a stand-in for what the table did not show. An entry the stand-ins do not allow
        binds them anew; another seat's optional decision that only the stand-ins gave them is
        declined first. TableError if nothing of what the viewer has not seen allows the entry:
        then nothing of it is entered."""
        g = self.game
        if g.is_terminal():
            raise TableError("the game is over")
        mark = len(g.history)
        if isinstance(action, int):
            self._one(action, seat)
        else:
            self._many(list(action))
        self.entered.append(mark)

    def _many(self, actions: list[int]) -> None:
        """The outcomes of a chance question of several, each to the first point it fits."""
        q = self.question()
        if q is None or q.seat is not None:
            raise TableError("several answers are for a question of chance (the cards the table shows)")
        if len(actions) != q.count:
            raise TableError(f"{q.about}: {q.count} answer{'s' if q.count != 1 else ''}, not {len(actions)}")
        before = self.game.clone()
        points = list(q.points)
        try:
            while points:
                ev = self.game.chance_event
                at = (ev.event, ev.who) if ev is not None else None
                if at not in points:
                    raise TableError(f"{q.about}: the game asks '{self._words()}' before the last "
                                     f"{len(points)} answer{'s' if len(points) > 1 else ''}")
                i = points.index(at)
                points.pop(i)
                self._one(actions.pop(i), None)
        except AdvisorError:
            self.game = before
            raise

    def _words(self) -> str:
        g = self.game
        return chance_words(g, self.viewer, self.names) if g.decider == CHANCE else \
            decision_words(g, self.viewer, self.names)

    def _one(self, action: int, seat: int | None) -> None:
        g = self.game
        mark = len(g.history)
        if action == UNSEEN:
            if g.decider == CHANCE:
                g.sample(_seed(self.seed, mark))
            elif self._hidden_choice():
                cards = [a for a in g.legal_actions() if a_card(a)]
                self._hide(cards[0])
            else:
                raise TableError(f"'?' is for what the table does not show; {self._words()} is shown")
        elif self._hidden_choice() and a_card(action):
            self._hide(action)
        elif (same := _same(g, action)) is not None:
            g.apply(same)
        elif g.decider == CHANCE or action in self.could_be() or not self._declined(action, seat):
            if seat is None:
                seat = self._still_theirs(action)
            if seat is None and (g.decider == self.viewer or (g.decider == CHANCE and named_card(action) is None)):
                self._refuse(action)
            # a card a stand-in holds: another seat plays it, or it comes up from the deck
            try:
                self.game = self._rebind(action, seat)
            except AdvisorError as e:
                who = "the deck bring" if seat is None and g.decider == CHANCE else \
                    f"{self.names[g.decider if seat is None else seat]} do"
                raise TableError(f"{self.text(action)}: no deal of the cards you have not "
                                 f"seen lets {who} that ({REBIND_TRIES} tried)") from e
        self._settle()

    def _rebind(self, action: int, seat: int | None) -> Game:
        """The game with its stand-ins bound anew so that the history and `action` replay; from a
        position, on other deals of the cards the viewer could not see there too."""
        g = self.game
        who = -1 if seat is None else seat
        try:
            return g.rebind(_seed(self.seed, len(g.history)), REBIND_TRIES, [action], who)
        except AdvisorError as e:
            failed: AdvisorError | None = e
        # an optional decision the stand-ins gave another seat, which the table did not have: declined
        # (as a stand-in, which a binding that does not give it drops), then bound anew
        # a step the table took by itself since the last entry, another seat's with one answer in this
        # binding (the resource the card they tucked unseen gave): another binding may give them a
        # choice there, which the entry answers; taken back, then bound anew
        for h in [later.game for later in self.declined()[:2]] + self._forced_since_entry():
            try:
                return h.rebind(_seed(self.seed, len(h.history)), REBIND_TRIES, [action], who)
            except AdvisorError:
                pass
        if self.position is None:
            assert failed is not None
            raise failed
        for deal in range(1, REDEALS + 1):
            h = self._start(deal)
            stand_ins = set(g.stand_ins)
            try:
                for i, a in enumerate(g.history):
                    if i not in stand_ins:
                        h.apply(a)
                    elif a in h.legal_actions():
                        h.apply(a, stand_in=True)
                    elif h.decider == CHANCE:
                        h.sample(_seed(self.seed, i))
                    else:
                        h.apply(h.legal_actions()[0], stand_in=True)
                return h.rebind(_seed(self.seed, len(g.history) + deal), REBIND_TRIES // REDEALS, [action], who)
            except AdvisorError as e:
                failed = e
        assert failed is not None
        raise failed

    def _forced_since_entry(self) -> list[Game]:
        """Copies of the game taken back over the steps the table played by itself after the last
        entry that were another seat's with one answer, one more each, from the latest."""
        g = self.game
        if not self.entered:
            return []
        stand_ins = set(g.stand_ins)
        out: list[Game] = []
        for i in range(len(g.history) - 1, self.entered[-1], -1):
            h = g.clone()
            h.rewind(i)
            if i in stand_ins or h.decider in (CHANCE, self.viewer) or len(h.legal_actions()) != 1:
                break
            out.append(h)
        return out

    def _still_theirs(self, action: int) -> int | None:
        """Who entered a step of a turn where a move or a chance outcome of another kind is asked:
        another seat whose turn the last entry was in (a card of theirs asked for by a decision
        their stand-ins did not give them, such as a cave's "play a dragon" with no dragon to play,
        or their "no" to it); None if it is not that."""
        g = self.game
        if g.decider == CHANCE:
            if any(kind(a) == kind(action) for a in g.legal_actions()):
                return None         # an outcome of this chance point
        elif g.decision != "move" or kind(action) in TOP_LEVEL:
            return None
        seat = self.last_turn()
        return None if seat == self.viewer else seat

    def last_turn(self) -> int | None:
        """The seat whose turn the last entry was in (None before any)."""
        if not self.entered:
            return None
        h = self.game.clone()
        h.rewind(self.entered[-1])
        return None if h.is_terminal() else h.active

    def _hide(self, action: int) -> None:
        """Which card went face down the table does not show: the card of the outcome entered (or
        any, for UNSEEN) stands in for it."""
        g = self.game
        cards = [a for a in g.legal_actions() if a_card(a)]
        g.apply(action if action in cards else cards[_seed(self.seed, len(g.history)) % len(cards)], stand_in=True)

    def _hidden_choice(self) -> bool:
        g = self.game
        return _face_down(g, self.viewer)

    def _declined(self, action: int, seat: int | None) -> bool:
        """Whether `action` (by `seat`, or by any seat) is legal once the optional decisions
        before it are declined: ones the stand-ins gave another seat, which the table did not show
        (an ability of a card they do not hold)."""
        for later in self.declined():
            g = later.game
            if not g.is_terminal() and g.decider != CHANCE and \
                    seat in (None, g.decider) and action in g.legal_actions():
                g.apply(action)
                self.game = g
                return True
        return False

    def declined(self) -> list[Table]:
        """Copies of the table with the optional decisions of other seats before the next entry
        declined, one more each (for reading an entry that answers a later decision)."""
        out: list[Table] = []
        t = self
        for _ in range(4):
            g = t.game
            if g.is_terminal() or g.decider in (CHANCE, self.viewer):
                break
            no = [a for a in g.legal_actions() if kind(a) == NO]
            if not no:
                break
            t = Table.__new__(Table)
            t.__dict__.update(self.__dict__)
            t.game = g.clone()
            t.entered = list(self.entered)
            t.game.apply(no[0], stand_in=True)
            _settle(t.game, self.viewer, self.seed)
            out.append(t)
        return out

    def _refuse(self, action: int) -> None:
        g = self.game
        raise TableError(f"{self.text(action)} is not one of the answers to '{self._words()}'")

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
        return {"players": self.players, "viewer": self.viewer, "names": list(self.names), "automa": self.automa,
                "printing": self.printing, "seed": self.seed, "history": self.game.history,
                "stand_ins": self.game.stand_ins, "entered": list(self.entered)} | (
                    {"position": self.position} if self.position is not None else {})

    @classmethod
    def from_dict(cls, d: Any) -> Table:
        """The table a `to_dict` describes, replayed; TableError naming the field that is wrong."""
        if not isinstance(d, dict):
            raise TableError("a table is a mapping of its fields")
        players = _number(d, "players", 1, 5)
        names = d.get("names", [])
        if not isinstance(names, list) or not all(isinstance(n, str) and 0 < len(n) <= 40 for n in names):
            raise TableError("names: a list of names (1-40 characters)")
        automa, printing = d.get("automa", "2"), d.get("printing", "base")
        if not isinstance(automa, str) or not isinstance(printing, str):
            raise TableError("automa and printing are names")
        position = d.get("position")
        if position is not None and not isinstance(position, str):
            raise TableError("position: a position file's text")
        try:
            t = cls(players, _number(d, "viewer", 0, 4), automa, printing, _number(d, "seed", 0, (1 << 63) - 1),
                    tuple(names), position)
        except AdvisorError as e:
            raise TableError(str(e)) from None
        history = _numbers(d, "history", 0, (1 << 31) - 1)
        stand_ins = set(_numbers(d, "stand_ins", 0, len(history)))
        entered = _numbers(d, "entered", 0, len(history))
        if entered != sorted(entered):
            raise TableError("entered: the entries' places in the history, in order")
        t.game = t._start(0)
        for i, a in enumerate(history):
            try:
                t.game.apply(a, stand_in=i in stand_ins)
            except AdvisorError as e:
                raise TableError(f"history[{i}]: {a} does not replay ({e})") from None
        t.entered = entered
        t._settle()
        return t

    # ------------------------------------------------------------------ the rest is the table's
    def _settle(self) -> None:
        _settle(self.game, self.viewer, self.seed)


def asks(game: Game, viewer: int) -> bool:
    """Whether the table is asked at `game`'s point (else it plays on by itself): a chance outcome
    the viewer sees, or a decision, except one forced (unless it is another seat's move or pick of
    a card) and another seat's choice made face down."""
    if game.is_terminal():
        return False
    event = game.chance_event
    if event is not None:
        return viewer in event.observers
    if _face_down(game, viewer):
        return any(kind(a) == NO for a in game.legal_actions())      # whether is seen, not what
    # another seat's move or pick among cards: asked even where it is forced, since how many
    # options they have follows their hand, which the viewer cannot see
    legal = game.legal_actions()
    return len(legal) > 1 or (game.decider != viewer and (game.decision == "move" or any(map(a_card, legal))))


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


def shown_after(game: Game, viewer: int) -> str:
    """What `viewer` sees of `game` now, as one comparable text (the question asked included)."""
    import json
    obs: Any = game.observation(viewer)
    obs.pop("legal_actions", None)
    return json.dumps([obs, game.decider, game.decision, sorted(game.legal_actions()) if game.decider == viewer else
                       None], sort_keys=True)


def followed(game: Game, seat: int, before: Any, names: Sequence[str], viewer: int) -> str:
    """What `seat` got after a face-down choice, in words: resources, eggs, cached and tucked, and
    their next decision if it is theirs."""
    from advisor.notation import RESOURCES
    after: Any = game.observation(viewer)["players"][seat]
    words = [f"+{n - m} {r}" for r, n, m in zip(RESOURCES, after["resources"], before["resources"]) if n > m]
    for field_, word in (("coins", "coin"), ("nest_eggs", "nest egg")):
        if after[field_] > before[field_]:
            words.append(f"+{after[field_] - before[field_]} {word}")
    if game.is_terminal():
        return ", ".join(words) or "nothing more"
    if game.decider == seat:
        words.append(f"their {game.decision}")
    elif game.decider == CHANCE and game.chance_event is not None:
        words.append(chance_words(game, -1, names) or "")
    else:
        words.append(f"{names[game.decider]}'s {game.decision}" if game.decider >= 0 else "")
    return ", ".join(w for w in words if w)


def _same(game: Game, action: int) -> int | None:
    """`action` if legal, or the legal action that reads the same (a guild ability's next free
    spot, whichever spot number was entered); None if neither."""
    legal = game.legal_actions()
    if action in legal:
        return action
    if kind(action) == SPOT:
        text = action_text(action, game.printing, game)
        return next((a for a in legal if kind(a) == SPOT and action_text(a, game.printing, game) == text), None)
    return None


def a_card(action: int) -> bool:
    """Whether an action names a card."""
    return named_card(action) is not None


def _face_down(game: Game, viewer: int) -> bool:
    """Whether another seat now chooses a card to go face down (the viewer cannot see which)."""
    return (game.decider not in (CHANCE, viewer) and game.decision in HIDDEN_CHOICES
            and any(map(a_card, game.legal_actions())))


def _number(d: dict[str, Any], key: str, lo: int, hi: int) -> int:
    x = d.get(key)
    if type(x) is not int or not lo <= x <= hi:
        raise TableError(f"{key}: a whole number from {lo} to {hi}")
    return x


def _numbers(d: dict[str, Any], key: str, lo: int, hi: int) -> list[int]:
    xs = d.get(key, [])
    if not isinstance(xs, list) or not all(type(x) is int and lo <= x <= hi for x in xs):
        raise TableError(f"{key}: a list of whole numbers from {lo} to {hi}")
    return xs


def _whose(who: int, viewer: int, names: Sequence[str]) -> str:
    return "your" if who == viewer else f"{names[who]}'s"


def point_words(game: Game, viewer: int, point: tuple[str, int], names: Sequence[str]) -> str:
    """One chance point in the player's words."""
    event, who = point
    return {
        "hand dragon": "a dragon card from the deck", "hand cave": "a cave card from the deck",
        "display dragon": f"dragon slot {who + 1}", "display cave": f"cave slot {who + 1}",
        "deal dragon": "a dragon card", "deal cave": "a cave card",
        **BY_A_CARD, "guild tile": "the guild tile", "objective": f"round {who + 1}", "first player": "who goes first", "automa card": "the Automa's card",
    }[event]


def group_words(game: Game, viewer: int, points: Sequence[tuple[str, int]], names: Sequence[str]) -> str:
    """What a chance question of `points` (one family, in order) is for, in the player's words."""
    event, who = points[0]
    n = len(points)
    kinds = [p[0].split()[-1] for p in points]
    cards = " and ".join(f"{kinds.count(k)} {k} card{'s' if kinds.count(k) > 1 else ''}"
                         for k in ("dragon", "cave") if k in kinds)
    if event.startswith("display"):
        if game.phase in ("objective", "deal"):
            return f"round {game.round} display, left to right: {cards}"
        slots = ", ".join(point_words(game, viewer, p, names) for p in points)
        return f"refill of the display: {slots}"
    if event.startswith("deal"):
        return f"{_whose(who, viewer, names)} starting hand: {cards}"
    if event == "objective":
        return "the objective tiles of rounds 1-4, with their sides" if n == 4 else \
            f"the objective tile{'s' if n > 1 else ''} of round{'s' if n > 1 else ''} " + \
            ", ".join(str(p[1] + 1) for p in points)
    if event.startswith("hand"):
        return f"{'the card' if n == 1 else f'the {n} cards'} {_whose(who, viewer, names)} draw takes from the deck: {cards}"
    return chance_words(game, viewer, names)


# chance points a card's ability brings: their words name the card
BY_A_CARD = {"tuck": "the card tucked from the deck", "reveal": "the dragon card turned up from the deck",
             "play cave": "the cave card played from the deck"}
ASKING_TIMINGS = {"when_played": "when played", "if_activated": "if activated", "once_per_round": "once per round",
                  "end_game": "at game end", "on_feed": "when fed", "grow_up": "when grown up"}
MAT_CAVES = ("Crimson Cavern", "Golden Grotto", "Amethyst Abyss")


def asker_words(game: Game, viewer: int = -1, names: Sequence[str] = ()) -> str | None:
    """The card or rule that asks the current decision (Game.asked_by), in the player's words: a
    card by its name, with whose it is where another seat's ability asks the decider. None where
    the rules themselves ask (a move, a round's egg, the hand limit, ...)."""
    from advisor.cards import load_database
    asked = game.asked_by
    if asked is None:
        return None
    db = load_database(game.printing)
    owner = game.asking_seat
    whose = ""
    if owner is not None and owner != game.decider:
        whose = "your " if owner == viewer else f"{names[owner] if owner < len(names) else f'P{owner}'}'s "
    if len(asked) == 1:
        return "the fourth slot's exchange"
    kind_, x = asked[0], asked[1]
    if len(asked) == 3:
        if kind_ == "dragon":
            return f"{whose}{_dragon_name(db, x)}, {ASKING_TIMINGS[str(asked[2])]}"
        benefit = int(asked[2])     # "mat": a cave's benefit
        return f"{whose}{MAT_CAVES[x]}'s " + (f"column {benefit} benefit" if benefit else "first benefit")
    if kind_ == "cave":
        return f"{whose}cave {x}"
    if kind_ == "guild track":
        return "the guild track"
    if kind_ == "guild tile":
        tiles = db.guild_tiles
        tile = game.observation(game.decider if 0 <= game.decider < game.players else 0)["guild_tile"]
        return f"ability {x + 1} of the " + (tiles[tile].name if tile < len(tiles) else "guild tile")
    return f"{_dragon_name(db, x)}'s cost"       # "cost": paying for the dragon being enticed


def _dragon_name(db: Any, d: int) -> str:
    return db.dragons[d - 1].name if 1 <= d <= len(db.dragons) else f"dragon {d}"


def decision_words(game: Game, viewer: int = -1, names: Sequence[str] = ()) -> str:
    """The current decision with the card or rule that asks it: "cache for Keen Cricketcatcher, when
    played", or the decision alone where the rules ask ("move")."""
    asker = asker_words(game, viewer, names)
    return str(game.decision) if asker is None else f"{game.decision} for {asker}"


def by_a_card(game: Game) -> bool:
    """Whether the chance point now is one a card's ability brings (its words name the card)."""
    ev = game.chance_event
    return ev is not None and ev.event in BY_A_CARD


def chance_words(game: Game, viewer: int, names: Sequence[str] = ()) -> str:
    """What a chance point is for, in the player's words."""
    ev = game.chance_event
    if ev is None:
        return ""
    # `who` is a seat only for the events into a hand (a slot or a round for the others)
    whose = "your" if ev.who == viewer else (f"{names[ev.who]}'s" if ev.who < len(names) else f"P{ev.who}'s")
    round_ = game.round         # at a new round's display the round has already begun
    if ev.event in BY_A_CARD:
        asker = asker_words(game, viewer, names)
        return BY_A_CARD[ev.event] + (f" for {asker}" if asker else "")
    return {
        "hand dragon": f"the dragon card {whose} draw takes from the deck",
        "hand cave": f"the cave card {whose} draw takes from the deck",
        "display dragon": (f"round {round_} display: dragon card in slot {ev.who + 1}"
                           if game.phase in ("objective", "deal") else f"refill of dragon display slot {ev.who + 1}"),
        "display cave": (f"round {round_} display: cave card in slot {ev.who + 1}"
                         if game.phase in ("objective", "deal") else f"refill of cave display slot {ev.who + 1}"),
        "deal dragon": f"a dragon card of {whose} starting hand",
        "deal cave": f"a cave card of {whose} starting hand",
        "guild tile": "the guild tile",
        "objective": f"round {ev.who + 1}'s objective tile and side",
        "first player": "who goes first",
        "automa card": "the Automa's card",
    }[ev.event]
