"""The game's notation: readable text for every action id, and the tolerant parser back.

An action id is `kind << 20 | payload` (ext/rules.pxi). The text of an action names cards by name,
caves by colour and spaces as `<cave> <column>`, e.g. `entice Patient Redwyrm into crimson`,
`pay 1 meat + 2 gold`, `egg from golden 2`. The parser matches text against the legal actions of a
game, so it accepts any unambiguous spelling of one of them (or the number of the action in the
list, or its id)."""
from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from advisor.cards import load_database
from advisor.errors import AdvisorError, clip

CAVES = ("crimson", "golden", "amethyst")
RESOURCES = ("meat", "gold", "crystal", "milk")
KIND_SHIFT = 20

(PASS, ENTICE, EXCAVATE, EXPLORE, PAY, EGG, RES, DRAGON_SRC, CAVE_SRC, PLACE, DRAGON, CAVE, YES, NO,
 OPTION, SPOT, SETUP_RES, ROW, MAT_BENEFIT, WAIVE, EXCHANGE, DRAW_DRAGON, DRAW_CAVE, CHANCE) = range(1, 25)
TOP_LEVEL = (PASS, ENTICE, EXCAVATE, EXPLORE)
DECK = 3            # the source payload of a blind draw; 0-2 are display slots
BY_CARD = DECK + 1  # the search tree names a display take by its card: payload BY_CARD + card


class ActionParseError(AdvisorError):
    """Text that names no legal action, or more than one."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = (), ambiguous: bool = False):
        super().__init__(message)
        self.suggestions = suggestions
        self.ambiguous = ambiguous      # it names more than one: the suggestions are those


def kind(action: int) -> int:
    return action >> KIND_SHIFT


def arg(action: int) -> int:
    return action & ((1 << KIND_SHIFT) - 1)


def make(kind_: int, payload: int = 0) -> int:
    return (kind_ << KIND_SHIFT) | payload


def is_top_level(action: int) -> bool:
    return kind(action) in TOP_LEVEL


def _amounts(packed: int) -> str:
    parts = [f"{(packed >> (4 * i)) & 15} {r}" for i, r in enumerate(RESOURCES) if (packed >> (4 * i)) & 15]
    return " + ".join(parts) or "nothing"


def display_take(game, action: int) -> int:
    """The legal action of `game` meant by a search continuation's step: a display take the search
    names by its card becomes the slot showing that card (unchanged if none does)."""
    k, a = kind(action), arg(action)
    if k in (DRAGON_SRC, CAVE_SRC) and a >= BY_CARD:
        d = game.observation(game.decider)
        shown = d["display_dragons"] if k == DRAGON_SRC else d["display_caves"]
        if a - BY_CARD in shown:
            return make(k, shown.index(a - BY_CARD))
    return action


def _chance_text(value: int, game) -> str:
    """A chance outcome that is a number, in the words of the chance point it answers (the tile's
    number and what it is, as printed on it)."""
    event = game.chance_event.event if game is not None and game.chance_event else None
    if event == "guild tile":
        guilds = load_database(game.printing).guild_tiles
        return guilds[value].name if value < len(guilds) else f"guild tile {value + 1}"
    if event == "objective":
        from advisor.cards.describe import count
        tiles = load_database(game.printing).objectives
        text = f"objective {(value >> 1) + 1}{'ab'[value & 1]}"
        if (value >> 1) < len(tiles):
            tile = tiles[value >> 1]
            text += f": most {count((tile.b if value & 1 else tile.a).count)}"
        return text
    if event == "first player":
        return f"P{value} starts"
    if event == "automa card":
        return f"Automa card {value}"
    return f"outcome {value}"


def slot_text(slot: int) -> str:
    return "mat nest" if slot == 12 else f"{CAVES[slot >> 2]} {(slot & 3) + 1}"


def action_text(action: int, printing: str = "base", game=None) -> str:
    """The notation of an action. With a game, display slots also name the card shown there."""
    db = load_database(printing)
    k, a = kind(action), arg(action)
    dragon = (lambda n: db.dragons[n - 1].name if 1 <= n <= len(db.dragons) else f"dragon {n}")
    if k == PASS:
        return "pass"
    if k == ENTICE:
        return f"entice {dragon(a >> 2)} into {CAVES[a & 3]}"
    if k == EXCAVATE:
        return f"excavate cave {a >> 2} into {CAVES[a & 3]}"
    if k == EXPLORE:
        return f"explore {CAVES[a]}"
    if k == PAY:
        return f"pay {_amounts(a)}"
    if k == EGG:
        return f"egg from {slot_text(a)}"
    if k == RES:
        return RESOURCES[a]
    if k in (DRAGON_SRC, CAVE_SRC):
        what = "dragon" if k == DRAGON_SRC else "cave"
        if a == DECK:
            return f"{what} from deck"
        if a >= BY_CARD:
            card = a - BY_CARD
            return f"{what} from display ({dragon(card) if k == DRAGON_SRC else f'cave {card}'})"
        text = f"{what} from display {a + 1}"
        if game is not None:
            d = game.observation(game.decider)
            card = (d["display_dragons"] if k == DRAGON_SRC else d["display_caves"])[a]
            if card:
                text += f" ({dragon(card) if k == DRAGON_SRC else f'cave {card}'})"
        return text
    if k == PLACE:
        return slot_text(a)
    if k == DRAGON:
        return dragon(a)
    if k == CAVE:
        return f"cave {a}"
    if k == YES:
        return "yes"
    if k == NO:
        return "no"
    if k == OPTION:
        return option_text(a, printing, game)
    if k == SPOT:
        if a == 16:
            return "fixed vp spot"
        text = f"guild ability {(a >> 2) + 1}"
        if game is not None:
            from advisor.cards import guild_ability_text
            does = guild_ability_text(printing, game.observation(game.decider)["guild_tile"], a >> 2)
            text += f": {does}" if does else ""
        return text
    if k == SETUP_RES:
        return f"take {_amounts(a)}"
    if k == ROW:
        return CAVES[a]
    if k == MAT_BENEFIT:
        from advisor.cards import mat_benefit_text
        does = mat_benefit_text(printing, a // 5, a % 5)
        return f"{CAVES[a // 5]} benefit {a % 5}" + (f": {does}" if does else "")
    if k == EXCHANGE:
        return f"exchange {RESOURCES[a >> 4]} + {RESOURCES[(a >> 2) & 3]} for {RESOURCES[a & 3]}"
    if k == WAIVE:
        return "waive egg" if a == 4 else f"waive {RESOURCES[a]}"
    if k == DRAW_DRAGON:
        return dragon(a)
    if k == DRAW_CAVE:
        return f"cave {a}"
    if k == CHANCE:
        return _chance_text(a, game)
    raise ValueError(f"not an action id: {action}")


ORDER_OPTIONS = ("cave card first, then the exchange", "the exchange first, then the cave card")


def option_text(a: int, printing: str, game=None) -> str:
    """An option of a choice in words (what the option does; "option N" without a game)."""
    if game is not None and game.decision == "order" and a < len(ORDER_OPTIONS):
        return ORDER_OPTIONS[a]
    of = game.option_of if game is not None else None
    if of is not None:
        from advisor.cards import ability_text, choice_options
        if of[0] == "ability":
            return ability_text(printing, of[1], a)
        texts = choice_options(printing, of[1])
        if a < len(texts):
            return texts[a]
    return f"option {a + 1}"


def _norm(text: str, asides: bool = False) -> str:
    """Lower case, words and numbers only; without what is in parentheses unless `asides`."""
    text = text.lower() if asides else re.sub(r"\(.*?\)", " ", text.lower())
    return " ".join(re.sub(r"[^a-z0-9+ ]", " ", text).split())


def _query(text: str) -> str:
    """Typed text normalised, with the table's own short forms spelt out: `c12` is cave 12."""
    return " ".join("cave " + w[1:] if re.fullmatch(r"c\d+", w) else w for w in _norm(text).split())


def _names(query: str, text: str) -> bool:
    """Whether every word of `query` is a word of `text` or, from 3 letters on, the start of one (the
    table prints `crim`, `amet`, `gold` for the caves)."""
    words = text.split()
    return all(any(x == w or (len(w) >= 3 and x.startswith(w)) for x in words) for w in query.split())


def parse_action(game, text: str, legal: Sequence[int] | None = None, words: dict[int, str] | None = None) -> int:
    """The legal action of `game` that `text` names: its notation (tolerant), its 1-based number in
    the legal list, or its id. `legal`: the actions to read it among (default the legal ones);
    `words`: their texts where they are not the notation's."""
    legal = list(game.legal_actions() if legal is None else legal)
    if not legal:
        raise ActionParseError("the game is over: no action is legal")
    t = text.strip()
    if re.fullmatch(r"\d+", t):
        digits = t.lstrip("0") or "0"
        n = int(digits) if len(digits) <= 12 else -1    # no action id is longer (nor may int() take 5,000 digits)
        if 1 <= n <= len(legal):
            return legal[n - 1]
        if n in legal:
            return n
        raise ActionParseError(f"{clip(digits, 20)} is not a number from 1 to {len(legal)} or a legal action id")
    shown = {a: (words or {}).get(a) or action_text(a, game.printing, game) for a in legal}
    texts = {a: _norm(s) for a, s in shown.items()}
    q = _query(t)
    numbered = re.fullmatch(r"option (\d+)", q)     # an option by its number, as before they had words
    if numbered and make(OPTION, int(numbered[1]) - 1) in legal:
        return make(OPTION, int(numbered[1]) - 1)
    exact = [a for a, s in texts.items() if s == q]
    if len(exact) == 1:
        return exact[0]
    # a name before its description: "guild ability 2" for "guild ability 2: gain 1 coin; ..."
    named = [a for a, s in shown.items() if ": " in s and _norm(s.split(": ")[0]) == q]
    if len(named) == 1:
        return named[0]
    within = [a for a, s in texts.items() if q and (q in s or _names(q, s))]
    if not within:          # the card a display slot shows: "cave 33" for "cave from display 1 (cave 33)"
        within = [a for a, s in shown.items() if q and _names(q, _norm(s, asides=True))]
    if len(within) == 1:
        return within[0]
    if len(within) > 1:
        some = tuple(action_text(a, game.printing) for a in within[:6])
        raise ActionParseError(f"'{clip(text)}' matches {len(within)} legal actions: {'; '.join(some)}", some, True)
    close = difflib.get_close_matches(q, list(texts.values()), n=3, cutoff=0.6)
    hint = f" (did you mean: {'; '.join(close)}?)" if close else ""
    raise ActionParseError(f"'{clip(text)}' is not a legal action now{hint}", tuple(close))
