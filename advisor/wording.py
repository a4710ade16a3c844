"""The words of the table's questions (advisor/table.py): what a decision or chance point is for,
whose card or rule asks it, and what a card chosen face down was followed by, in the player's
words (seats by name, "your" for the viewer)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from advisor._core import CHANCE, Game, named_card
from advisor.notation import action_text


def followed(game: Game, seat: int, before: Any, names: Sequence[str], viewer: int) -> str:
    """What `seat` got after a face-down choice, in words: resources, eggs, cached and tucked, and
    their next decision if it is theirs."""
    from advisor.notation import RESOURCES
    after: Any = game.observation(viewer)["players"][seat]
    words = [f"+{n - m} {r}" for r, n, m in zip(RESOURCES, after["resources"], before["resources"], strict=True) if n > m]
    for field_, word in (("coins", "coin"), ("nest_eggs", "nest egg")):
        if after[field_] > before[field_]:
            words.append(f"+{after[field_] - before[field_]} {word}")
    if game.is_terminal():
        return ", ".join(words) or "nothing more"
    if game.decider == seat:
        legal = game.legal_actions()
        simple = len(legal) <= 4 and all(named_card(a) is None for a in legal)     # (not a hand's cards)
        choice = f" ({' or '.join(action_text(a, game.printing, game) for a in legal)})" if simple else ""
        words.append(f"their {game.decision}{choice}")
    elif game.decider == CHANCE and game.chance_event is not None:
        words.append(chance_words(game, -1, names) or "")
    else:
        words.append(f"{names[game.decider]}'s {game.decision}" if game.decider >= 0 else "")
    return ", ".join(w for w in words if w)


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
