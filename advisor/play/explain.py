"""What the prompt of `advisor play` explains besides the options: whose card asks the human a
decision inside another player's turn, and why cards of the hand are not offered at a setup
discard."""
from __future__ import annotations

import re
from typing import Any

from advisor.cards import describe_card, load_database
from advisor.errors import CardLookupError
from advisor.notation import CAVE, CAVE_SRC, DRAGON, DRAGON_SRC, ENTICE, EXCAVATE, EXPLORE, action_text, arg, kind, make
from advisor.play.session import Session


def asked_by(session: Session, names: list[str]) -> str | None:
    """Whose effect asks the human a decision during another player's turn (or round start): the
    engine's asking card (Game.asked_by) where it is theirs, else the cards of theirs played, taken
    or activated now with an `each_opponent` block, by name."""
    g = session.game
    obs = g.observation(session.human)
    owner = g.active if g.phase == "turn" else obs["phase_player"]
    if g.decider != session.human or owner == session.human or g.phase == "setup":
        return None
    db = load_database(g.printing)
    by, seat = g.asked_by, g.asking_seat
    if by is not None and len(by) > 1 and by[0] in ("dragon", "cave") and seat is not None and seat != session.human:
        card: Any = db.dragon(by[1]) if by[0] == "dragon" else db.cave(by[1])
        label = card.name if by[0] == "dragon" else f"cave {card.number}"
        return f"asked by {names[seat]}'s {label}: {describe_card(card)}"
    # else the card of theirs that let the human decide (the decision may be asked by the human's
    # own rule inside it: a guild step's spot): the cards they played, took or activated
    n = g.decisions_in_segment
    segment = [(a, session.texts[i]) for i, a in
               enumerate(session.record[len(session.record) - n:], len(session.record) - n)
               if session.deciders[i] == owner]
    cards: list[Any] = []              # (card, the timing whose ability asks)
    for a, text in segment:
        shown = re.search(r"\((.+)\)$", text)   # a card taken from the display (and played, maybe)
        if kind(a) in (DRAGON_SRC, CAVE_SRC) and shown:
            try:
                cards.append((db.lookup(shown.group(1), "dragon" if kind(a) == DRAGON_SRC else "cave"),
                              "when_played"))
            except CardLookupError:
                pass
        elif kind(a) == ENTICE:
            cards.append((db.dragon(arg(a) >> 2), "when_played"))
        elif kind(a) == EXCAVATE:
            cards.append((db.cave(arg(a) >> 2), "when_played"))
        elif kind(a) == EXPLORE:       # the dragons of the explored cave are activated
            cards += [(db.dragon(d), "if_activated") for d in obs["players"][owner]["dragons"][arg(a)] if d]
        elif kind(a) == DRAGON:
            cards.append((db.dragon(arg(a)), "when_played"))
        elif kind(a) == CAVE:
            cards.append((db.cave(arg(a)), "when_played"))
    if g.phase != "turn":
        cards += [(db.dragon(d), "once_per_round") for row in obs["players"][owner]["dragons"] for d in row if d]
    asking = []
    for card, timing in cards:
        ab = next((b for b in card.abilities if b.timing == timing), None)
        if ab is not None and "each_opponent" in ab.text and card not in asking:
            asking.append(card)
    whose = names[owner]
    if len(asking) == 1:
        c = asking[0]
        label = c.name if c.kind != "cave" else f"cave {c.number}"
        return f"asked by {whose}'s {label}: {describe_card(c)}"
    if asking:
        return f"asked by one of {whose}'s " + ", ".join(
            c.name if c.kind != "cave" else f"cave {c.number}" for c in asking)
    return f"asked by an effect of {whose}'s {'turn' if g.phase == 'turn' else g.phase}"


def not_offered(session: Session) -> str | None:
    """Why cards of the hand are missing from a setup discard's options: the two discards are
    asked in hand order, so after the first only the cards after it are offered. The terminal
    takes both discards in any order (Session.discard), so this is only met in a game saved
    between the two."""
    g = session.game
    if g.decision != "setup discard" or not g.decisions_in_segment:
        return None
    P = g.observation(session.human)["players"][session.human]
    legal = set(g.legal_actions()) | set(session.record[len(session.record) - g.decisions_in_segment:])
    missing = [make(DRAGON, d) for d in P["hand_dragons"] if make(DRAGON, d) not in legal]
    missing += [make(CAVE, c) for c in P["hand_caves"] if make(CAVE, c) not in legal]
    if not missing:
        return None
    names = ", ".join(action_text(a, g.printing) for a in missing)
    return (f"not offered: {names}. The two discards are asked in hand order (dragons, then caves) so "
            f"each pair comes once, and you discarded {session.texts[-1]} first: to discard one of "
            "those, type undo and pick it first")
