"""The tracked game: the engine's game of the table, with the chance outcomes the viewer sees taken
from the table and the rest left to the engine (its own cards stand for what the viewer cannot see).

A move is entered in two steps: `prepare(text)` reads it (making a card an opponent plays from their
hand theirs first, if the engine dealt them another) and names the draws the viewer will see;
`commit(prepared, answers)` makes the drawn cards the table's and plays the move."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from advisor._core import EngineError, Game
from advisor.cards import load_database
from advisor.errors import AdvisorError, IllegalActionError
from advisor.notation import (CAVE, DRAGON, ENTICE, EXCAVATE, RESOURCES, ActionParseError, action_text, arg,
                              kind, make, parse_action, _norm, _query)
from advisor.track.chance import (AUTOMA, KINDS, ChanceError, Place, State, counted, drawn, swap_automa, swap_cards,
                                  state_of, told_cards, unseen, view_of, visible, with_told)

HIDDEN = "?"        # an opponent's choice the viewer cannot see (a card tucked face down)
OUTCOME = "outcome"     # the kind of a question: what an opponent's hidden choice gave them
_REDEALS = 64       # deals of the unseen cards tried for an opponent's move the engine's cards do not allow
_TRIES = 4          # rounds of edits before a drawn card that will not come up is refused
# several cards of a hand, in ascending order (_lift). Not "pay card": lifting every low stand-in
# there took out a card the seat kept and named next (5p random seeds 45, 52); lifting only as many
# as the further picks need let the engine take them itself, unasked (greedy 4p 16, 5p 68)
_PICKS = ("discard", "setup discard", "exchange")


class TrackError(AdvisorError):
    """A move or answer the tracked game cannot take."""


class AmbiguousEntry(TrackError):
    """A move that names more than one legal action (with the opponent's unseen card made theirs,
    perhaps): to be entered in full, not looked for on other deals."""


@dataclass
class Prepared:
    """A move read and ready: the action, the state to play it from and the draws to ask about."""
    text: str
    action: int
    state: dict[str, Any] = field(repr=False)      # Game.to_dict() to play the action from
    seen: dict[str, Any] = field(repr=False)       # the viewer's observation now (edits keep it)
    settled: set[tuple[str, Any]] = field(default_factory=set)   # cards settled: (kind, Draw.place)
    named: set[tuple[str, int]] = field(default_factory=set)     # the cards the table named for them
    outcomes: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)   # a hidden choice's
    # outcomes to ask about: what it gives, the state to play it from and the action
    exact: bool = True          # read as written, not tolerantly
    revealed: bool = False      # read after an unseen card was moved into the decider's hand
    forced: list[int] = field(default_factory=list)     # the move as entered, now the engine's to take:
    # a swap of stand-ins left the decider no other choice, and `action` is the decision before it


def card_of(action: int) -> tuple[str, int] | None:
    """The hand card an action names: (kind, number), or None."""
    k, a = kind(action), arg(action)
    if k == ENTICE:
        return ("dragons", a >> 2)
    if k == EXCAVATE:
        return ("caves", a >> 2)
    if k == DRAGON:
        return ("dragons", a)
    if k == CAVE:
        return ("caves", a)
    return None


def naming(action: int, card: int) -> int:
    """`action` with `card` in place of the hand card it names (card_of)."""
    k = kind(action)
    return make(k, card << 2 | arg(action) & 3 if k in (ENTICE, EXCAVATE) else card)


def seen_in(g: Game, viewer: int, kind_: str) -> set[int]:
    """The cards of a kind the viewer sees in a game (their own decision may show cards that lie
    nowhere yet: the cards revealed for them to choose from)."""
    out = visible(state_of(g)["core"], viewer, kind_, g.printing)
    if g.decider == viewer:
        out |= {c[1] for a in g.legal_actions() if (c := card_of(a)) and c[0] == kind_}
    return out


def restarted(state: dict[str, Any], start: State, **rest: Any) -> dict[str, Any]:
    """`state` replayed from another segment start (its log played again on it)."""
    return {**state, "segment_start": start, "core": start, **rest}


def game_from(state: dict[str, Any]) -> Game:
    return Game.from_dict(state)


class TrackedGame:
    """The game at the table as the viewer (seat `viewer`) follows it."""

    def __init__(self, game: Game, viewer: int, reveals_first: bool = True):
        self.game = game
        self.viewer = viewer
        self.printing = game.printing
        self.db = load_database(self.printing)
        self.reveals_first = reveals_first     # the order of a move's questions (False: saves of format 1)

    def copy(self) -> TrackedGame:
        return TrackedGame(self.game.clone(), self.viewer, self.reveals_first)

    # ------------------------------------------------------------------ what the viewer sees
    def observation(self) -> dict[str, Any]:
        return view_of(self.game, self.viewer)

    def visible(self, kind_: str) -> set[int]:
        return visible(state_of(self.game)["core"], self.viewer, kind_, self.printing)

    def card_name(self, kind_: str, card: int) -> str:
        if kind_ == "dragons":
            return self.db.dragons[card - 1].name
        if kind_ == "caves":
            return f"cave {card}"
        return str(card)            # the Automa's cards go by their number

    def moves(self) -> list[tuple[int, str]]:
        """The legal moves to list: for an opponent, not the ones naming a card the engine dealt
        them in place of one the viewer cannot see (any unseen card may be named instead)."""
        g = self.game
        out = []
        for a in g.legal_actions():
            c = card_of(a)
            if g.decider != self.viewer and c and c[1] not in self.visible(c[0]):
                continue
            out.append((a, action_text(a, self.printing, g)))
        return out

    # ------------------------------------------------------------------ entering a move
    def prepare(self, text: str) -> Prepared:
        g = self.game
        if g.is_terminal():
            raise TrackError("the game is over")
        state = state_of(g)
        t = text.strip()
        if t == HIDDEN:
            return self._hidden(state)
        revealed = None
        try:
            action = self._parse(g, t)
        except ActionParseError as e:
            ambiguous = [e] if e.ambiguous else []
            if g.decider != self.viewer:
                revealed = self._reveal(state, t, ambiguous=ambiguous) or self._redeal(t, ambiguous)
            if revealed is None:
                raise (AmbiguousEntry(str(ambiguous[0])) if ambiguous else TrackError(str(e))) from None
            state, action = revealed
        if g.decider != self.viewer and g.decision in _PICKS and (c := card_of(action)):
            state = self._lift(state, g.decider, c)
        # a reveal changed the state: its game names the move (else the game at hand does)
        names = game_from(state) if revealed else g
        exact = t.isdigit() or _norm(action_text(action, self.printing, names)) == _query(t)
        return Prepared(t, action, state, self.observation(), exact=exact, revealed=revealed is not None)

    def _lift(self, state: dict[str, Any], seat: int, picked: tuple[str, int]) -> dict[str, Any]:
        """`state` with the unseen cards of the seat's hand numbered below the card picked swapped for
        unseen cards above it: the engine takes a discard's cards in ascending order, so a stand-in
        below the card the table names first could never be the table's next card."""
        kind_, card = picked
        seen = self.observation()
        P = state_of(game_from(state))["core"]["players"][seat]
        hand = set(P[f"hand_{kind_}"])
        low = sorted(c for c in hand - set(P[f"known_{kind_}"]) if c < card)
        start = state["segment_start"]
        high = sorted((c for c in unseen(start, self.viewer, kind_, self.printing) - hand if c > card), reverse=True)
        for c in low:
            for up in high:
                try:
                    s = swap_cards(start, self.viewer, kind_, c, up)
                    lifted = restarted(state, s)
                    if view_of(game_from(lifted), self.viewer) != seen:
                        continue
                except (ChanceError, EngineError):
                    continue
                state, start = lifted, s
                high.remove(up)
                break
        return state

    def _parse(self, g: Game, text: str) -> int:
        """The move `text` names in `g`. An opponent's must name the card the text does: the tolerant
        reading may take another (cave 17 for "cave 1") where the engine did not deal them the card,
        or a stand-in the text does not name at all ("no" read within "Ravenous ...")."""
        action = parse_action(g, text)
        if g.decider == self.viewer:
            return action
        named, c = self._named_cards(text), card_of(action)
        if named:
            stray = c not in named
        else:
            stray = c is not None and c[1] not in visible(state_of(g)["core"], self.viewer, c[0], self.printing)
        if stray:
            raise ActionParseError(f"'{text}' is not a legal action now")
        return action

    def _hidden(self, state: dict[str, Any]) -> Prepared:
        """An opponent's choice of a card the viewer does not see: any of their unknown cards. When
        the unknown cards would give the opponent different things the viewer sees (a tucked card
        whose kind decides a gain), one choice per outcome is kept and the viewer is asked which."""
        g = self.game
        if g.decider == self.viewer:
            raise TrackError(f"'{HIDDEN}' stands for an opponent's hidden choice; name your own move")
        before = self.observation()
        outcomes: dict[str, tuple[dict[str, Any], int]] = {}
        for a in g.legal_actions():
            c = card_of(a)
            if not c or c[1] in self.visible(c[0]):
                continue
            # the card chosen may be any the viewer cannot place: each in place of the stand-in
            for card in [c[1], *sorted(unseen(state["core"], self.viewer, c[0], self.printing) - {c[1]})]:
                tried = self._play_as(state, a, c[0], card, before)
                if tried is not None and tried[2]:
                    outcomes.setdefault(tried[1], tried[0])
            break
        if not outcomes:
            raise TrackError(f"no hidden choice here: name the move ({g.decision})")
        st, action = next(iter(outcomes.values()))
        prep = Prepared(HIDDEN, action, st, before)
        if len(outcomes) > 1:
            prep.outcomes = [(label, st, b) for label, (st, b) in outcomes.items()]
        return prep

    def _hide_another(self, prep: Prepared, card: int) -> None:
        """The hidden choice made with another unseen card of the same outcome: the table names
        `card`, which the tracker had chosen unseen, elsewhere in the move."""
        c = card_of(prep.action)
        assert c is not None
        now = self._play_as(prep.state, prep.action, c[0], c[1], prep.seen)
        assert now is not None
        named = self._named(prep)
        for other in sorted(unseen(prep.state["core"], self.viewer, c[0], self.printing) - {card}):
            tried = None if (c[0], other) in named else self._play_as(prep.state, prep.action, c[0], other,
                                                                      prep.seen)
            if tried is not None and tried[1] == now[1]:
                prep.state, prep.action = tried[0]
                return

    def _play_as(self, state: dict[str, Any], action: int, kind_: str, card: int, before: dict[str, Any]
                 ) -> tuple[tuple[dict[str, Any], int], str, bool] | None:
        """`action` made with `card` in place of the card it names (_as_card): (the state and action,
        what it gives the decider as the viewer sees it, whether the card stays hidden); None if
        the card cannot be there."""
        found = self._as_card(state, action, kind_, card, before)
        if found is None:
            return None
        h = game_from(found[0])
        seat = h.decider
        h.apply(found[1])
        hidden = card not in visible(state_of(h)["core"], self.viewer, kind_, self.printing)
        return found, gain(before, h, seat, self.viewer), hidden

    def _as_card(self, state: dict[str, Any], action: int, kind_: str, card: int, before: dict[str, Any]
                 ) -> tuple[dict[str, Any], int] | None:
        """The state with `card` in place of the card `action` names (swapped where it lay unseen),
        and the action naming it; None if it cannot be there."""
        old = card_of(action)
        if old is None or card == old[1]:
            return (state, action) if old else None
        try:
            s = swap_cards(state["segment_start"], self.viewer, kind_, old[1], card)
            h = game_from(restarted(state, s))
        except (ChanceError, EngineError):
            return None
        if view_of(h, self.viewer) != before:
            return None
        same = [b for b in h.legal_actions() if card_of(b) == (kind_, card) and kind(b) == kind(action)]
        return (state_of(h), same[0]) if same else None

    def _named_cards(self, text: str) -> list[tuple[str, int]]:
        """The cards a move's text names (a dragon by name, a cave card by number), longest name first."""
        q = _norm(text)
        out: list[tuple[str, int]] = []
        names = sorted(((_norm(d.name), d.number) for d in self.db.dragons), key=lambda x: -len(x[0]))
        for name, number in names:
            if name and re.search(rf"(^| ){re.escape(name)}( |$)", q):
                out.append(("dragons", number))
                break
        out += [("caves", int(n)) for n in re.findall(r"\bcave (\d+)\b", q)]
        return out

    def _reveal(self, state: dict[str, Any], text: str, g: Game | None = None,
                ambiguous: list[ActionParseError] | None = None) -> tuple[dict[str, Any], int] | None:
        """The state with a card the text names moved into the opponent's hand (from where it lay
        unseen), and the move it makes legal; None if no such card makes the text a move (a
        reading of more than one move is added to `ambiguous`)."""
        g = g or self.game
        seat = g.decider
        before = view_of(g, self.viewer)
        core = state_of(g)["core"]
        for kind_, card in self._named_cards(text):
            if card not in unseen(core, self.viewer, kind_, self.printing):
                continue
            P = core["players"][seat]
            hidden = unseen(core, self.viewer, kind_, self.printing)
            # in place of a card of theirs the viewer does not know: in their hand (drawn this turn,
            # perhaps), or one their decision offers (a card drawn for them to keep or tuck)
            olds = [c for c in P[f"hand_{kind_}"] if c not in P[f"known_{kind_}"]]
            olds += [c[1] for a in g.legal_actions()
                     if (c := card_of(a)) and c[0] == kind_ and c[1] in hidden and c[1] not in olds]
            for old in olds:
                try:
                    s = swap_cards(state["segment_start"], self.viewer, kind_, old, card)
                except ChanceError:
                    continue
                cand = restarted(state, s)
                try:
                    h = game_from(cand)
                except EngineError:
                    continue
                if view_of(h, self.viewer) != before:
                    continue
                if (read := self._read(h, text, ambiguous)) is not None:
                    return read
        return None

    def _read(self, h: Game, text: str, ambiguous: list[ActionParseError] | None
              ) -> tuple[dict[str, Any], int] | None:
        """`h`'s state and the move the text names in it; None if it names none (a reading of more
        than one move is added to `ambiguous`)."""
        try:
            return state_of(h), self._parse(h, text)
        except ActionParseError as e:
            if e.ambiguous and ambiguous is not None:
                ambiguous.append(e)
            return None

    def _redeal(self, text: str, ambiguous: list[ActionParseError] | None = None
                ) -> tuple[dict[str, Any], int] | None:
        """The game with the cards the viewer cannot see dealt again (the engine's stand-ins gave an
        opponent other choices than the table's), in a deal where the text is a move; None if none
        of a few deals makes it one (a reading of more than one move is added to `ambiguous`)."""
        obs = view_of(self.game, self.viewer)
        for seed in range(_REDEALS):
            h = self.game.determinize(self.viewer, seed, fresh=False)   # its hidden cards are stand-ins
            if view_of(h, self.viewer) != obs:
                continue
            if (read := self._read(h, text, ambiguous)) is not None:
                return read
            if (read := self._reveal(state_of(h), text, h, ambiguous)) is not None:
                return read
        return None

    # ------------------------------------------------------------------ its draws, one by one
    def _run(self, prep: Prepared) -> tuple[Game, dict[str, Any], dict[str, Any]]:
        """The prepared move played: the game after it, the state before and after."""
        g = game_from(counted(prep.state))
        before = state_of(g)["core"]
        g.apply(prep.action)
        return g, before, state_of(g)["core"]

    def _seen_after(self, g: Game, kind_: str) -> set[int]:
        return seen_in(g, self.viewer, kind_)

    def question(self, prep: Prepared) -> Draw | None:
        """The next card of the move the viewer sees or may see: a card from a deck (its card may
        decide where it goes), the Automa's card, or a card an opponent shows from their hand; None
        when all are settled. A draw no card would show the viewer is settled here (an opponent's
        blind draw: the engine's card stands for it). Cards that were hidden before the move come
        first: the one revealed may decide what the move draws (a cave's bonus)."""
        if prep.outcomes and (OUTCOME, None) not in prep.settled:
            labels = tuple(label for label, _, _ in prep.outcomes)
            return Draw(OUTCOME, 0, (OUTCOME, self.game.decider, *labels))
        while True:
            g, before, after = self._run(prep)
            named = self._named(prep)
            start = counted(prep.state)["segment_start"]
            shown, drew = self._reveals(g, before), draws_of(start, before, after)
            pending = [d for d in (shown + drew if self.reveals_first else drew + shown)
                       if (d.kind, d.place) not in prep.settled
                       and not (d.place[0] == "hand" and (d.kind, d.index) in named)]
            if not pending:
                return None
            d = pending[0]
            if d.place[0] != "deck" or self._may_show(prep, before, d):
                return d
            prep.settled.add((d.kind, d.place))

    def _reveals(self, g: Game, before: dict[str, Any]) -> list[Draw]:
        """Cards the viewer could not place before the move and sees after it, not drawn by it: a
        card an opponent shows from their hand, or one drawn unseen earlier in the turn."""
        return reveals(before, g, self.viewer)

    def _named(self, prep: Prepared) -> set[tuple[str, int]]:
        """The cards the decisions of the turn so far name (entered by the table: known)."""
        return {c for a in [*prep.state["log"], prep.action, *prep.forced] if (c := card_of(a))}

    def _with_card(self, prep: Prepared, d: Draw, card: int) -> dict[str, Any] | None:
        """prep's state with `card` where `d` takes its card from (None: it cannot be there): a
        deck card swapped into the place the draw takes; after the deck ran out in the turn, told
        to the engine for that draw."""
        start = counted(prep.state)["segment_start"]
        try:
            if d.kind == AUTOMA:
                s = swap_automa(start, d.index, card)
            elif d.place[0] == "deck":
                j = deck_place(start, d)
                if j is not None:       # the deck has not run out: the card goes where the draw takes it
                    s = swap_cards(start, self.viewer, d.kind, start[f"deck_{d.kind}"][j], card)
                elif card in {c for k, c in told_cards(start, d.kind).items() if k != d.index}:
                    return None         # told already for another draw
                else:                   # after a reshuffle: told to the engine at the draw
                    s = with_told(start, d.kind, d.index, card)
            else:
                k = self._drawn_after_reshuffle(prep, d)
                s = (swap_cards(start, self.viewer, d.kind, d.index, card) if k is None
                     else with_told(start, d.kind, k, card))
        except ChanceError:
            return None
        return {"segment_start": s, "core": s, "log": prep.state["log"], "printing": self.printing}

    def _drawn_after_reshuffle(self, prep: Prepared, d: Draw) -> int | None:
        """For a card shown from a hand that this segment drew after its deck ran out (the
        discards shuffled in; no swap reaches it), the number of the draw that took it: told there,
        the engine takes the card named instead. None for a card that lay in a hand or the deck."""
        start = counted(prep.state)["segment_start"]
        if d.index in start[f"deck_{d.kind}"] or any(d.index in P[f"hand_{d.kind}"] for P in start["players"]):
            return None
        _, before, _ = self._run(prep)
        for k in range(drawn(start, before, d.kind)):
            if deck_place(start, Draw(d.kind, k, ("deck", k))) is not None:
                continue
            try:            # told its own card, the draw that took it changes nothing
                again = state_of(game_from(restarted(prep.state, with_told(start, d.kind, k, d.index))))["core"]
            except (ChanceError, EngineError):
                continue
            if {x: v for x, v in again.items() if x != "told"} == {x: v for x, v in before.items() if x != "told"}:
                return k
        return None

    def _shows(self, prep: Prepared, state: dict[str, Any], d: Draw, card: int) -> bool | None:
        """Whether `card`, taken where `d` takes its card, ends where the viewer sees it (None: the
        state does not replay to the viewer's view of now)."""
        try:
            g = game_from(state)
        except EngineError:
            return None
        if view_of(g, self.viewer) != prep.seen:
            return None
        try:
            g.apply(prep.action)
        except (EngineError, IllegalActionError):
            return None
        if state_of(g)["core"].get("told", {}).get("missed"):
            return None                 # the told card was not in the deck at the draw
        return d.kind == AUTOMA or card in self._seen_after(g, d.kind)

    def _mend(self, prep: Prepared, state: dict[str, Any], d: Draw, card: int) -> dict[str, Any] | None:
        """`state` (`card` swapped in where `d` takes its card) made to replay the turn, or None. The
        swap moved the card that lay there into an opponent's unseen hand, in `card`'s place: an
        unseen choice of theirs earlier in the segment (a tuck) must now name it, and it may change
        their options (a discard's cards are named in ascending order). Tried with it and then with
        each other card the viewer cannot place in its stead."""
        old = counted(prep.state)["segment_start"]
        j = deck_place(old, d) if d.place[0] == "deck" else None
        displaced = old[f"deck_{d.kind}"][j] if j is not None else d.index if d.place[0] == "hand" else None
        if displaced is None or d.kind == AUTOMA:
            return None
        start = state["segment_start"]
        keep = {c for k, c in prep.named | self._named(prep) if k == d.kind} | {card, displaced}
        for other in [displaced, *sorted(unseen(start, self.viewer, d.kind, self.printing) - keep)]:
            try:
                s = start if other == displaced else swap_cards(start, self.viewer, d.kind, displaced, other)
            except ChanceError:
                continue
            log = [naming(a, other) if card_of(a) == (d.kind, card) else a for a in state["log"]]
            mended = restarted(state, s, log=log)
            if self._shows(prep, mended, d, card) is not None:
                return mended
            if (earlier := self._forced(prep, mended, d, card)) is not None:
                return earlier
        return None

    def _forced(self, prep: Prepared, mended: dict[str, Any], d: Draw, card: int) -> dict[str, Any] | None:
        """`mended` where the swap left the decider no choice but the move entered (the rest of a
        discard: a stand-in numbered above the last card named is gone), so the engine takes it after
        the decision before: that decision becomes the one played (prep changed to it) and the move
        entered is kept as `forced`. None when that is not so."""
        log, c = mended["log"], card_of(prep.action)
        if not log or prep.forced or c is None:
            return None
        shorter = {**mended, "log": log[:-1]}
        try:
            seen = view_of(game_from({**prep.state, "log": prep.state["log"][:-1]}), self.viewer)
            g = game_from(shorter)
            seat = g.decider
            if view_of(g, self.viewer) != seen:
                return None
            g.apply(log[-1])
        except (EngineError, IllegalActionError):
            return None
        core = state_of(g)["core"]
        if c[1] in core["players"][seat][f"hand_{c[0]}"] or c[1] not in core[f"discard_{c[0]}"]:
            return None                 # the engine did not take the move entered
        trial = Prepared(prep.text, log[-1], shorter, seen, forced=[prep.action])
        if self._shows(trial, shorter, d, card) is None:
            return None
        prep.action, prep.seen, prep.forced = log[-1], seen, [prep.action]
        return shorter

    def _candidates(self, prep: Prepared, before: dict[str, Any], d: Draw) -> list[int]:
        """The cards that may be drawn by d: the engine's own first, then the unseen ones; after
        the deck ran out in the move, the cards of the discard pile shuffled into it too."""
        start = counted(prep.state)["segment_start"]
        j = deck_place(start, d)
        here = [start[f"deck_{d.kind}"][j]] if j is not None else []
        rest = unseen(before, self.viewer, d.kind, self.printing)
        if j is None:
            rest |= set(before[f"discard_{d.kind}"])
        return here + sorted(rest - set(here))

    def _may_show(self, prep: Prepared, before: dict[str, Any], d: Draw) -> bool:
        for c in self._candidates(prep, before, d):
            state = self._with_card(prep, d, c)
            if state is not None and self._shows(prep, state, d, c):
                return True
        return False

    def answer(self, prep: Prepared, d: Draw, card: int | None) -> None:
        """The table's card for `d` (None: the viewer did not see it)."""
        if d.kind == OUTCOME:
            if card is None or not 1 <= card <= len(prep.outcomes):
                raise TrackError(f"give the number of what they got, 1 to {len(prep.outcomes)}")
            _, prep.state, prep.action = prep.outcomes[card - 1]
            prep.settled.add((OUTCOME, None))
            return
        if card is not None and prep.text == HIDDEN and card_of(prep.action) == (d.kind, card):
            self._hide_another(prep, card)
        _, before, _ = self._run(prep)
        if card is None:
            if d.place[0] != "deck":
                raise TrackError("that card is face up: name it")
            for c in self._candidates(prep, before, d):
                state = self._with_card(prep, d, c)
                if state is not None and self._shows(prep, state, d, c) is False:
                    prep.state = state
                    prep.settled.add((d.kind, d.place))
                    return
            raise TrackError("that card comes face up whatever it is: name it")
        if d.kind == AUTOMA:
            ok = True
        elif d.place[0] == "deck":
            ok = card in self._candidates(prep, before, d)
        else:
            ok = card == d.index or card in unseen(before, self.viewer, d.kind, self.printing)
        state = self._with_card(prep, d, card) if ok else None
        if state is not None and self._shows(prep, state, d, card) is None:
            state = self._mend(prep, state, d, card)
        if state is None:
            raise TrackError(f"{self.card_name(d.kind, card)} cannot be that card: "
                             + ("it is not among her cards still to turn" if d.kind == AUTOMA
                                else "it is seen elsewhere, already came up or is out of the game"))
        prep.state = state
        prep.settled.add((d.kind, d.place if d.place[0] != "hand" else ("hand", d.place[1], card)))
        prep.named.add((d.kind, card))
        if d.place[0] == "out":
            prep.settled.add((d.kind, ("out", card)))

    def commit(self, prep: Prepared) -> None:
        """Play a prepared move whose cards are all settled."""
        if self.question(prep) is not None:
            raise TrackError("a card of this move is not answered yet")
        self.game = self._run(prep)[0]


@dataclass(frozen=True)
class Draw:
    """A card of a move that chance or an opponent's hidden hand decides. `place` is where it comes
    from: ("deck", k), the k-th draw from the deck of `kind` since the segment's start (told to
    the engine at that draw: the engine's chance from outside); ("automa", i), the Automa's card turned at
    index i of her deck of the round; ("hand", seat, card), a card the seat shows from their hand
    (`card`: the engine's stand-in). `index` is i, or the stand-in card."""
    kind: str
    index: int
    place: Place
    nth: int = 0        # a deck draw: the draws of its deck earlier in the same move


def deck_place(start: State, d: Draw) -> int | None:
    """Where in the deck of the segment start a draw takes its card; None once the deck has run
    out and the discards were shuffled in."""
    deck = start[f"deck_{d.kind}"]
    return len(deck) - 1 - d.index if d.index < len(deck) else None


def reveals(before: State, g: Game, viewer: int) -> list[Draw]:
    """The cards hidden from the viewer in `before` that they see in `g` (the game after a move from
    `before`), not from the decks: ("hand", seat, card) for a card from an opponent's hand, ("out",
    card) for one that lay nowhere (drawn unseen earlier in the turn)."""
    out = []
    for kind_ in KINDS:
        was = visible(before, viewer, kind_, g.printing) | set(before[f"deck_{kind_}"])
        for c in sorted(seen_in(g, viewer, kind_) - was):
            holder = [q for q, P in enumerate(before["players"]) if c in P[f"hand_{kind_}"]]
            out.append(Draw(kind_, c, ("hand", holder[0], c) if holder else ("out", c)))
    return out


def draws_of(start: State, before: State, after: State) -> list[Draw]:
    """The draws between two states of one segment's game (`start`: its segment start, which
    numbers its draws, chance.told_all): the Automa's cards first
    (what she does decides what is drawn after), then the decks in the order they are drawn."""
    out = []
    for kind_ in KINDS:
        first = drawn(start, before, kind_)
        for k in range(first, drawn(start, after, kind_)):
            out.append(Draw(kind_, k, ("deck", k), k - first))
    a0, a1 = before.get("automa"), after.get("automa")
    if a0 and a1:
        # a round ended on the way: she had turned every card she plays this round (she passes
        # only then); her deck of the new round is shuffled after this move's start
        last = a1["next"] if after["round"] == before["round"] else a0["playable"]
        out = [Draw(AUTOMA, i, (AUTOMA, i)) for i in range(a0["next"], last)] + out
    return out


def outcome(before: dict[str, Any], after: dict[str, Any], seat: int) -> str:
    """What a move gave a seat, as the viewer sees it: '+1 crystal, +1 tucked' (their observations
    before and after)."""
    a, b = before["players"][seat], after["players"][seat]
    parts = [f"{n:+d} {r}" for r, x, y in zip(RESOURCES, a["resources"], b["resources"]) if (n := y - x)]
    for key in a:
        count = key in _CARDS       # lists of card numbers: how many, not their sum
        if key != "resources" and (n := _total(b[key], count) - _total(a[key], count)):
            parts.append(f"{n:+d} {key.replace('n_hand_', 'in hand, ').replace('_', ' ')}")
    rest = {k: v for k, v in after.items() if k not in ("players", "decider", "decision", "legal_actions")}
    if rest != {k: v for k, v in before.items() if k in rest}:
        parts.append("changes on the table")
    return ", ".join(parts) or "nothing"


def gain(before: dict[str, Any], g: Game, seat: int, viewer: int) -> str:
    """What a hidden choice gave a seat (`g`: the game after it), as the viewer sees it, with the
    choice it leaves them next when that names no hidden card (a resource to take, an exchange):
    the hidden card may decide its options, and the viewer sees which one they take."""
    out = outcome(before, view_of(g, viewer), seat)
    if not g.is_terminal() and g.decider == seat:
        actions = g.legal_actions()
        if len(actions) > 1 and not any(card_of(a) for a in actions):
            out += f", then a {g.decision} of " + " or ".join(sorted(action_text(a, g.printing, g) for a in actions))
    return out


_CARDS = {"dragons", "caves", "hand_dragons", "hand_caves", "known_dragons", "known_caves"}


def _total(x: Any, count: bool = False) -> int:
    if isinstance(x, list):
        return sum(_total(y, count) for y in x)
    if count:
        return int(x != 0)
    return int(x) if isinstance(x, (int, bool)) else 0


def describe(d: Draw, names: tuple[str, ...] | list[str] | None = None) -> str:
    if d.kind == OUTCOME:
        who = names[d.place[1]] if names else f"P{d.place[1]}"
        options = "; ".join(f"{n} {label}" for n, label in enumerate(d.place[2:], 1))
        return f"What did {who}'s hidden choice give them? ({options}): give the number"
    if d.kind == AUTOMA:
        return "Which Automa card was turned?"
    what = "dragon" if d.kind == "dragons" else "cave card"
    if d.place[0] == "hand":
        who = names[d.place[1]] if names else f"P{d.place[1]}"
        return f"{who} showed a {what} from their hand: which?"
    if d.place[0] == "out":
        return f"A {what} drawn unseen earlier this turn is face up now: which?"
    return f"A {what} came from the deck: which? ('?' if you did not see it)"
