"""Chance from the table: where the cards lie in an engine state, which of them the viewer can
see, and the edits that make a named card the one the engine draws or reveals next.

The engine draws every card from the end of its decks and turns the Automa's cards in the order of
her shuffled deck; all of it is state. A chance outcome told by the table is therefore an edit of the
state at the start of the current segment (`Game.to_dict()["segment_start"]`, which the engine
replays with the decisions taken since): the named card is swapped into the place the draw takes it
from, out of wherever it lies unseen by the viewer (a deck, an opponent's unknown hand card, the cards
out of play). Every card stays in exactly one place and nothing the viewer has seen moves. A deck
draw is also told to the engine at the draw itself (the segment start's "told" lists): after a deck
runs out and the discards are shuffled in during a move, that is what takes the table's card."""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, cast

from advisor.cards.database import N_CAVES, N_DRAGONS
from advisor.errors import AdvisorError
from advisor.positions.rules import printing_rules

if TYPE_CHECKING:
    from advisor._core import Game

KINDS = ("dragons", "caves")
TOTAL = {"dragons": N_DRAGONS, "caves": N_CAVES}
AUTOMA = "automa"           # the kind of a chance outcome that is the Automa's turned card
TOLD = 4                    # told draws of each deck the engine keeps (ext/engine/state.pxi)


class ChanceError(AdvisorError):
    """A card the table names that cannot be there (seen elsewhere, out of the deck)."""


State = dict[str, Any]      # a core state dict (Game.to_dict()["core"] or ["segment_start"])


def state_of(game: Game) -> dict[str, Any]:
    """game.to_dict() as the plain data the tracker reads and edits by keys it builds (f"hand_{kind}"),
    which the core's typed dicts (advisor/_core.pyi) cannot check."""
    return cast("dict[str, Any]", game.to_dict())


def view_of(game: Game, viewer: int) -> dict[str, Any]:
    """game.observation(viewer) as plain data (see state_of)."""
    return cast("dict[str, Any]", game.observation(viewer))
Place = tuple[Any, ...]     # where a card came from: ("deck", index), ("hand", seat), ("automa", index)


def in_play(core: State, kind: str) -> set[int]:
    """The cards of `kind` somewhere in the state (the others are out of play: tucked face down, or
    left out of a solo game)."""
    out = set(core[f"deck_{kind}"]) | set(core[f"discard_{kind}"]) | set(core[f"display_{kind}"])
    for P in core["players"]:
        out |= set(P[f"hand_{kind}"]) | {c for row in P[kind] for c in row}
    out.discard(0)
    return out


def visible(core: State, viewer: int, kind: str, printing: str = "base") -> set[int]:
    """The cards of `kind` whose place the viewer knows: face up anywhere, in their hand, known to
    be in another hand, seen face down, or out of a solo game."""
    out = set(core[f"discard_{kind}"]) | set(core[f"display_{kind}"])
    for q, P in enumerate(core["players"]):
        out |= {c for row in P[kind] for c in row}
        out |= set(P[f"known_{kind}"])
        if q == viewer:
            out |= set(P[f"hand_{kind}"])
            if kind == "dragons":
                out |= set(P["seen_dragons"])
    out |= set(core.get(f"public_{kind}", ()))
    if kind == "dragons" and core.get("automa"):
        out |= printing_rules(printing).solo_removed
    out.discard(0)
    return out


def unseen(core: State, viewer: int, kind: str, printing: str = "base") -> set[int]:
    """The cards of `kind` the viewer cannot place: the table may name any of them for a draw."""
    return set(range(1, TOTAL[kind] + 1)) - visible(core, viewer, kind, printing)


def _locate(core: State, viewer: int, kind: str, card: int) -> tuple[str, Any]:
    """Where an unseen card lies in a state: ("deck", index), ("hand", seat) or ("out", None)."""
    deck = core[f"deck_{kind}"]
    if card in deck:
        return ("deck", deck.index(card))
    for q, P in enumerate(core["players"]):
        if q != viewer and card in P[f"hand_{kind}"] and card not in P[f"known_{kind}"]:
            return ("hand", q)
    if card in in_play(core, kind):
        raise ChanceError(f"{kind[:-1]} {card} is not where an unseen card can be")
    return ("out", None)


def _put(core: State, kind: str, where: tuple[str, Any], old: int, new: int) -> None:
    """Replace card `old` by `new` at `where` (the other half of a swap)."""
    if where[0] == "deck":
        core[f"deck_{kind}"][where[1]] = new
    elif where[0] == "hand":
        P = core["players"][where[1]]
        P[f"hand_{kind}"] = sorted([c for c in P[f"hand_{kind}"] if c != old] + [new])


def swap_cards(core: State, viewer: int, kind: str, a: int, b: int) -> State:
    """A copy of `core` with two cards the viewer cannot place in each other's places (a deck
    index, an opponent's hand, out of play)."""
    out = copy.deepcopy(core)
    if a == b:
        return out
    wa, wb = _locate(out, viewer, kind, a), _locate(out, viewer, kind, b)
    if wa == wb and wa[0] != "deck":
        return out          # both in one hand, or both out of play: nothing moves
    _put(out, kind, wa, a, b)
    _put(out, kind, wb, b, a)
    return out


def swap_into_deck(core: State, viewer: int, kind: str, index: int, card: int) -> State:
    """A copy of `core` with `card` at `index` of its deck; the card there goes where `card` was."""
    return swap_cards(core, viewer, kind, core[f"deck_{kind}"][index], card)


def swap_automa(core: State, index: int, card: int) -> State:
    """A copy with the Automa's card `card` turned at `index` of her deck (swapped with a card of
    hers not turned yet)."""
    out = copy.deepcopy(core)
    A = out["automa"]
    deck = A["deck"]
    if deck[index] == card:
        return out
    later = [j for j in range(A["next"], len(deck)) if deck[j] == card and j != index]
    if not later:
        raise ChanceError(f"the Automa's card {card} is not among her cards still to turn")
    j = later[0]
    deck[index], deck[j] = deck[j], deck[index]
    return out


def told_cards(start: State, kind_: str) -> dict[int, int]:
    """The cards told to the engine for draws of a deck, by draw number since `start`."""
    t = start.get("told")
    if not t:
        return {}
    i = KINDS.index(kind_)
    first = t["at"][i] - t["drawn"][i]
    return {first + n: c for n, c in enumerate(t[kind_]) if c and first + n >= 0}


def told_all(start: State) -> State:
    """A segment start that numbers its draws (the engine counts them where it was told chance)."""
    if start.get("told"):
        return start
    return {**start, "told": {"drawn": [0, 0], "at": [0, 0], "dragons": [0] * TOLD, "caves": [0] * TOLD,
                              "missed": 0}}


def with_told(start: State, kind_: str, k: int, card: int) -> State:
    """A copy of a segment start that tells the engine `card` for its k-th draw of the deck since
    then, wherever the card lies in the deck at that draw (after a reshuffle, the discards)."""
    start = told_all(start)
    t = copy.deepcopy(start["told"])
    i = KINDS.index(kind_)
    cards = told_cards(start, kind_)
    if not cards:               # a fresh window of told draws from this one on
        t["at"][i] = t["drawn"][i] + k
        t[kind_] = [0] * TOLD
    n = t["drawn"][i] + k - t["at"][i]
    if not 0 <= n < TOLD:
        raise ChanceError(f"more than {TOLD} {kind_} drawn in a turn after the deck ran out")
    t[kind_][n] = card
    t["missed"] = 0
    return {**start, "told": t}


def counted(state: dict[str, Any]) -> dict[str, Any]:
    """A Game.to_dict() whose segment start numbers its draws (told_all)."""
    return {**state, "segment_start": told_all(state["segment_start"])}


def drawn(start: State, core: State, kind_: str) -> int:
    """The draws of a deck between a segment start (told_all's) and a state of its segment."""
    i = KINDS.index(kind_)
    return int(core["told"]["drawn"][i] - start["told"]["drawn"][i])
