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

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor._core import CHANCE, STAND_IN, Game, named_card
from advisor.errors import AdvisorError
from advisor.notation import CHANCE as OUTCOME
from advisor.notation import (CAVE, CAVE_SRC, DRAGON, DRAGON_SRC, DRAW_CAVE, DRAW_DRAGON, EGG, ENTICE, EXCAVATE, EXPLORE, KIND_SHIFT, NO, PASS, PLACE, RES,
                              ROW, SPOT, TOP_LEVEL, YES, action_text, kind, make)
from advisor.wording import chance_words, decision_words, followed, group_words, point_words

REBIND_TRIES = 64       # bindings tried before an entry is refused: as many swaps of a card, then bound anew
BINDS = 6               # cards of a face-down outcome bound anew in turn, where the one listed is not theirs
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
        a choice it brings): one card for each outcome, in words, of the seat's hand in this binding
        or, where the seat holds cards the viewer does not know, of any card it may hold instead
        (`chosen`); the options that name no card (declining) as they are."""
        g = self.game
        seat = g.decider
        before = g.observation(self.viewer)["players"][seat]
        out: list[tuple[int, str]] = [(a, self.text(a)) for a in g.legal_actions() if not a_card(a)]
        for group in self._by_outcome().values():
            a, t = group[0]
            out.append((a, "a card, then " + followed(t, seat, before, self.names, self.viewer)))
        return tuple(out)

    def _by_outcome(self) -> dict[str, list[tuple[int, Game]]]:
        """The cards the seat deciding may choose face down, as choices, by what follows each (what
        the viewer then sees): the seat's hand in this binding first, each with a look at the game."""
        g = self.game
        cards = [a for a in g.legal_actions() if a_card(a)]
        out: dict[str, list[tuple[int, Game]]] = {}
        for a in cards + self._instead(cards):
            t = self.chosen(a, look=True)
            if t is not None:
                _settle(t, self.viewer, self.seed)
                out.setdefault(shown_after(t, self.viewer, g.decider), []).append((a, t))
        return out

    def _instead(self, cards: list[int]) -> list[int]:
        """The face-down choice of each card of the kind that the seat may hold instead of one of
        its hand in this binding that the viewer does not know (none if it knows them all)."""
        if not cards or not self._unseen_in_hand(cards):
            return []
        k = kind(cards[0])
        of = "dragon" if k in (DRAGON, DRAW_DRAGON) else "cave"
        held = {named_card(a) for a in cards}
        return [a for a in (make(k, n) for n in sorted(self.unplaced()[of])) if named_card(a) not in held]

    def _unseen_in_hand(self, cards: list[int]) -> list[tuple[str, int]]:
        """The cards of `cards` (options of the seat deciding) that the viewer does not know it holds."""
        unseen = set(self._unseen_hand(self.game.decider))
        return [c for c in map(named_card, cards) if c in unseen]

    def _unseen_hand(self, seat: int, of: str | None = None) -> list[tuple[str, int]]:
        """The cards of `seat`'s hand in this binding (of kind `of`: "dragon" or "cave") that the
        viewer does not know it holds."""
        own = self.game.observation(seat)["players"][seat]
        seen = self.game.observation(self.viewer)["players"][seat]
        return [("dragon", n) for n in own["hand_dragons"] if n not in seen["known_dragons"] and of != "cave"] + \
            [("cave", n) for n in own["hand_caves"] if n not in seen["known_caves"] and of != "dragon"]

    def chosen(self, action: int, look: bool = False) -> Game | None:
        """A copy of the game with `action`'s card chosen face down by the seat deciding: from its
        hand in this binding, or another card it may hold instead of one the viewer does not know
        there: bound by a swap (`Game.swapped`) or else anew (`Game.rebind`), or for a `look` at what
        follows (`Game.holding`, no binding). None if no binding lets the seat choose it."""
        g = self.game
        legal = g.legal_actions()
        if action in legal:
            t = g.clone()
            t.apply(action, stand_in=True)
            return t
        card = named_card(action)
        if card is None:
            return None
        unseen = [c for c in self._unseen_in_hand([a for a in legal if a_card(a)]) if c[0] == card[0]]
        for old in unseen if look else []:
            try:
                return g.holding(action, old)
            except AdvisorError:
                pass
        for old in unseen:
            try:
                t = g.swapped(card, old)
            except AdvisorError:
                continue
            if action in t.legal_actions():
                t.apply(action, stand_in=True)
                return t
        if look:
            return None
        try:
            return g.rebind(_seed(self.seed, len(g.history)), REBIND_TRIES, [action | STAND_IN], g.decider)
        except AdvisorError:
            return None

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
                self._hide(UNSEEN)
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
        swap = self._swapped(action, who)
        if swap is not None:
            return swap
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

    def _swapped(self, action: int, seat: int) -> Game | None:
        """The game with `action` taken after the card it names traded places with one this
        binding puts where the entry needs it (`Game.swapped`): a card of the deck at a chance point,
        one of the deciding seat's hand the viewer does not know at its decision. Every other card
        stays bound as it was; None if no such swap makes the entry legal."""
        g = self.game
        card = named_card(action)
        who = g.decider if seat < 0 else seat
        if card is None or (g.decider == CHANCE and seat >= 0):     # (a seat's step the stand-ins skipped)
            return None
        if g.decider == CHANCE:
            partners = [c for c in map(named_card, g.legal_actions()) if c is not None and c != card]
        else:
            partners = self._unseen_hand(who, card[0])
        random.Random(_seed(self.seed, len(g.history))).shuffle(partners)
        for other in partners[:REBIND_TRIES]:
            try:
                t = g.swapped(card, other)
            except AdvisorError:
                continue
            fit = t.as_legal(action)
            if (t.decider != CHANCE and fit not in t.legal_actions()) or \
                    t.decider != (CHANCE if g.decider == CHANCE else who):
                continue
            try:
                t.apply(fit)
            except AdvisorError:
                continue
            return t
        return None

    def _still_theirs(self, action: int) -> int | None:
        """Who entered a step that the point asked now does not take: another seat a decision of the
        last entry's turn asks it of, which their stand-ins did not give them (a cave's "play a
        dragon" with no dragon to play, or their "no" to it): the seat whose turn it was where a move
        or a chance outcome of another kind is asked, else the seat of the last entry (a card). None
        if it is not that."""
        g = self.game
        if kind(action) in TOP_LEVEL:
            return None
        if g.decider == CHANCE:
            if any(kind(a) == kind(action) for a in g.legal_actions()):
                return None         # an outcome of this chance point
            seat = self.last_turn()
        elif g.decision == "move":
            seat = self.last_turn()
        elif named_card(action) is None or action in self.could_be():
            return None
        else:
            seat = self.last_turn(decider=True)
        return None if seat in (self.viewer, g.decider) else seat

    def last_turn(self, decider: bool = False) -> int | None:
        """The seat whose turn the last entry was in (`decider`: who made it; None before any)."""
        if not self.entered:
            return None
        h = self.game.clone()
        h.rewind(self.entered[-1])
        return None if h.is_terminal() else h.decider if decider else h.active

    def _hide(self, action: int) -> None:
        """Which card went face down the table does not show: the card of the outcome entered (or
        any of the seat's hand, for UNSEEN) stands in for it."""
        g = self.game
        cards = [a for a in g.legal_actions() if a_card(a)]
        t = self.chosen(cards[0] if action == UNSEEN else action)
        # a card of the same outcome where that one cannot be theirs in any binding (seen going
        # where they could not take it from)
        same = [] if t is not None or action == UNSEEN else \
            next((group for group in self._by_outcome().values() if action in dict(group)), [])
        for other, _ in [x for x in same if x[0] != action][:BINDS]:
            if (t := self.chosen(other)) is not None:
                break
        if t is None:
            raise TableError(f"{self.text(action)}: no deal of the cards you have not seen lets "
                             f"{self.names[g.decider]} choose that face down")
        self.game = t

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


def shown_after(game: Game, viewer: int, seat: int | None = None) -> str:
    """What `viewer` sees of `game` now, as one comparable text (the question asked included, and
    its options if it is the viewer's, or `seat`'s that name no card: the choice of resources a
    card chosen face down brings, not the cards of a hand the viewer does not see)."""
    import json
    obs: Any = game.observation(viewer)
    obs.pop("legal_actions", None)
    legal = game.legal_actions()
    options = sorted(legal) if game.decider == viewer else \
        sorted(a for a in legal if not a_card(a)) if game.decider == seat else None
    return json.dumps([obs, game.decider, game.decision, options], sort_keys=True)


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
