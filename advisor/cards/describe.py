"""Plain-English descriptions generated from effect programs (never from printed card text)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from advisor.cards.language import (OPS, Block, Node, Value, as_block, as_int, as_names, as_node,
                                    as_str)

if TYPE_CHECKING:
    from advisor.cards.database import Cave, Dragon

_ITEM = {
    "meat": ("meat", "meat"), "gold": ("gold", "gold"), "crystal": ("crystal", "crystal"),
    "milk": ("milk", "milk"), "any": ("resource of your choice", "resources of your choice"),
    "coin": ("coin", "coins"), "egg": ("egg", "eggs"), "dragon_card": ("dragon card", "dragon cards"),
    "cave_card": ("cave card", "cave cards"), "picked": ("of that resource", "of that resource"),
    "tucked_cost": ("resource shown in the tucked dragon's cost",
                    "resources shown in the tucked dragon's cost"),
}
_PLACE = {
    "here": "this dragon", "any": "any of your dragons", "this_column": "a dragon in this column",
    "this_cave": "a dragon in this cave", "adjacent": "an orthogonally adjacent dragon",
}
_WHERE = {
    "mat": "on your mat", "here": "on this dragon", "this_cave": "in this cave",
    "this_column": "in this column", "adjacent": "in orthogonally adjacent spaces",
    "crimson": "in your Crimson Cavern", "golden": "in your Golden Grotto",
    "amethyst": "in your Amethyst Abyss",
}
_TIMING = {"when_played": "when-played", "if_activated": "if-activated",
           "once_per_round": "once-per-round", "end_game": "end-game"}
_CAVE = {"crimson": "Crimson Cavern", "golden": "Golden Grotto", "amethyst": "Amethyst Abyss"}


def _or(words: Iterable[str]) -> str:
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _and(words: Iterable[str]) -> str:
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _names(n: Node) -> list[str]:
    """The items (or timings) an op lists as its arguments."""
    return [as_str(a) for a in n.args]


def items(names: Iterable[str]) -> str:
    """['coin', 'any', 'any'] -> '1 coin and 2 resources of your choice'."""
    counts = Counter(names)
    parts = []
    for name, k in counts.items():
        one, many = _ITEM[name]
        parts.append(f"{k} {one if k == 1 else many}")
    return _and(parts)


def _kw(n: Node, key: str) -> Value | None:
    if key in n.kwargs:
        return n.kwargs[key]
    for p in OPS[n.op].kw:
        if p.name == key:
            return p.default
    raise KeyError(key)


def _pos(n: Node, i: int) -> Value | None:
    if i < len(n.args):
        return n.args[i]
    return OPS[n.op].pos[i].default


def _s(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


# ---------------------------------------------------------------------------- counts
def count(n: Node, plural: bool = True) -> str:
    """The counted things as a noun phrase: plural ('shy dragons in this cave') or singular."""
    of = as_str(_pos(n, 0))
    where = _WHERE[as_str(_kw(n, "in"))]
    if of == "dragons":
        adj = list(as_names(_kw(n, "personality")))
        sizes = as_names(_kw(n, "size"))
        noun = "hatchling" if sizes == ("hatchling",) else (_or(sizes) + " dragon" if sizes else "dragon")
        noun += "s" if plural else ""
        words = []
        if _kw(n, "other") == "yes":
            words.append("other")
        if adj:
            words.append(_or(adj))
        desc = " ".join(words + [noun])
        ab = as_names(_kw(n, "ability"))
        if ab:
            desc += f" with {'an ' if not plural and ab[0][0] in 'ie' else '' if plural else 'a '}{_or(_TIMING[a] for a in ab)} abilit{'ies' if plural else 'y'}"
        exc = as_names(_kw(n, "except"))
        if exc:
            desc += f" that {'are' if plural else 'is'} not {_or(exc)}"
        lo, hi = as_int(_kw(n, "cost_min")), as_int(_kw(n, "cost_max"))
        if (lo, hi) != (0, 99):
            desc += (f" with a printed cost of {lo} to {hi} items" if hi < 99
                     else f" with a printed cost of {lo} or more items")
        return f"{desc} {where}"
    simple = {
        "cave_cards": f"cave cards {where} (also those under dragons)",
        "cards_in_cave": f"dragons and cave cards {where}",
        "eggs": f"eggs {where}", "cached": f"resources cached {where}",
        "tucked": f"cards tucked {'under this dragon' if _kw(n, 'in') == 'here' else where}",
        "capacity": f"egg capacity of your dragons {where.replace('on your mat', '')}".strip(),
        "guild_markers": "markers you have placed on the Dragon Guild",
        "objectives_lowest": "objectives where your marker is placed lowest (ties included)",
        "personality_sets": "sets of one aggressive, helpful, playful and shy dragon on your mat",
        "size_sets": "sets of one hatchling, small, medium and large dragon on your mat",
        "full_columns": "columns of your mat with a dragon in every cave",
        "distinct_sizes": f"different sizes among {_or(as_names(_kw(n, 'among')) or ('dragons',))} {where}",
        "max_cave_cost": "resources printed in the costs of the dragons of your most expensive cave",
    }
    text = simple[of].replace("  ", " ")
    if not plural:
        singular = {"cave_cards": f"cave card {where} (also those under dragons)",
                    "cards_in_cave": f"dragon or cave card {where}", "eggs": f"egg {where}",
                    "cached": f"resource cached {where}",
                    "tucked": f"card tucked {'under this dragon' if _kw(n, 'in') == 'here' else where}",
                    "full_columns": "column of your mat with a dragon in every cave"}
        text = _SINGULAR.get(of) or singular.get(of, text).replace("  ", " ")
    return text


_SINGULAR = {
    "guild_markers": "marker you have placed on the Dragon Guild",
    "objectives_lowest": "objective where your marker is placed lowest (ties included)",
    "personality_sets": "set of one aggressive, helpful, playful and shy dragon on your mat",
    "size_sets": "set of one hatchling, small, medium and large dragon on your mat",
}


def cond(n: Node) -> str:
    op = n.op
    if op == "at_least":
        c, k = as_node(n.args[0]), as_int(n.args[1])
        if c.args[0] == "distinct_sizes":
            return f"you have a {_and(as_names(_kw(c, 'among')))} dragon {_WHERE[as_str(_kw(c, 'in'))]}"
        if c.args[0] == "guild_markers":
            return f"you have placed at least {_s(k, 'marker')} on the Dragon Guild"
        if k == 1:
            return f"there is {'another' if _kw(c, 'other') == 'yes' else 'a'} " + \
                count(c, plural=False).replace("other ", "", 1)
        return f"there are at least {k} {count(c)}"
    if op == "at_most":
        c, k = as_node(n.args[0]), as_int(n.args[1])
        return f"there are no {count(c)}" if k == 0 else f"there are at most {k} {count(c)}"
    return {
        "column_full": "this dragon's column is full",
        "cave_full": "this dragon's cave is full",
        "cave_excavated": "every space of this cave is excavated",
        "last_in_cave": "this is the rightmost dragon in its cave",
        "between_dragons": "this dragon is between two other dragons in its cave",
    }.get(op) or (f"you have at least as many dragons in your {_CAVE[as_str(_pos(n, 0))]} "
                  f"as your left neighbour")


# ---------------------------------------------------------------------------- effects
def _gain(n: Node) -> str:
    src = _kw(n, "from")
    names = _names(n)
    if src == "deck":
        s = f"draw {items(names)} from the deck"
    elif src == "display":
        s = f"take {items(names)} from the display"
    else:
        s = f"gain {items(names)}"
    return s


def _lay(n: Node) -> str:
    k, on = as_int(_pos(n, 0)), as_str(_kw(n, "on"))
    eggs = _s(k, "egg")
    exc = as_names(_kw(n, "except"))
    if on == "auto":
        return f"lay {eggs}"
    if on == "any":
        return f"lay {eggs} anywhere"
    if on in ("each_in_cave", "each_in_column"):
        place = "cave" if on == "each_in_cave" else "column"
        tail = f" that is not {_or(exc)}" if exc else ""
        return f"lay 1 egg on each dragon in this {place}{tail}"
    return f"lay {eggs} on {_PLACE[on]}"


def _cache(n: Node) -> str:
    names = _names(n)
    on = _PLACE[as_str(_kw(n, "on"))]
    if names[0] == "gained":
        k = len(names)
        what = "it" if k == 1 and _gained[-1] == 1 else ("one of them" if k == 1 else f"up to {k} of them")
        verb = "cache" if _kw(n, "required") == "yes" else "you may cache"
        return f"{verb} {what} on {on}"
    src = "your supply" if _kw(n, "from") == "supply" else "the general supply"
    return f"cache {items(names)} from {src} on {on}"


def _tuck(n: Node) -> str:
    k, src, under = as_int(_pos(n, 0)), as_str(_kw(n, "from")), as_str(_kw(n, "under"))
    pers = as_names(_kw(n, "personality"))
    if under == "each_in_cave":
        return f"tuck 1 dragon card from the deck under each {_or(pers) + ' ' if pers else ''}dragon in this cave"
    target = _PLACE[under]
    if src == "gained":
        what = "it" if k == 1 and _gained[-1] == 1 else ("one of them" if k == 1 else f"up to {k} of them")
        verb = "tuck" if _kw(n, "required") == "yes" else "you may tuck"
        return f"{verb} {what} under {target}"
    if src == "revealed":
        return f"tuck it under {target}"
    origin = {"hand": "from your hand", "deck": "from the deck", "display": "from the display"}[src]
    return f"tuck {_s(k, 'dragon card')} {origin} under {target}"


def _pay(n: Node) -> str:
    src = as_str(_kw(n, "from"))
    where = {"anywhere": "", "this_cave": " from a dragon in this cave",
             "adjacent": " from orthogonally adjacent dragons"}[src]
    then = effect(as_block(n.block), ' and ')
    if then.startswith("up to"):
        return f"pay {items(_names(n))}{where}, then {then}"
    return f"pay {items(_names(n))}{where} to {then}"


def _entice(n: Node) -> str:
    src, cost, onto = as_str(_kw(n, "from")), as_str(_kw(n, "cost")), _kw(n, "onto")
    where = {"hand": "from your hand", "display": "from the display", "deck": "from the deck"}[src]
    how = {"printed": "paying its cost", "free": "for free",
           "no_resources": "without paying its resource costs",
           "discount_one": "paying 1 egg or 1 resource less"}[cost]
    s = f"play a dragon {where} {how}"
    if onto == "dragon":
        s += ", on top of one of your dragons"
    return s


def _reveal(n: Node) -> str:
    sizes = as_names(_kw(n, "size"))
    return (f"reveal the top dragon card of the deck: if it is {_or(sizes)}, "
            f"{effect(as_block(_kw(n, 'hit')), ' and ')}; "
            f"otherwise {effect(as_block(_kw(n, 'miss')), ' and ')}")


def _vp(n: Node) -> str:
    amount = _pos(n, 0)
    if isinstance(amount, int):
        return f"score {amount} VP" if amount >= 0 else f"lose {-amount} VP"
    amount = as_node(amount)
    each, per, cap = as_int(_kw(n, "each")), as_int(_kw(n, "per")), as_int(_kw(n, "max"))
    if amount.args[0] in ("cached", "tucked") and _kw(amount, "in") == "here":
        res = as_names(_kw(amount, "resource"))
        thing = f"{_or(res) if res else 'resource'} cached on" if amount.args[0] == "cached" else "card tucked under"
        s = f"score {each} VP for each {thing} this dragon"
    elif amount.args[0] == "max_cave_cost":
        s = f"score 1 VP per {count(amount).replace('resources', 'resource', 1)}"
    else:
        verb = "score" if each >= 0 else "lose"
        c = count(amount)
        s = (f"{verb} {abs(each)} VP for every {per} {c}" if per > 1
             else f"{verb} {abs(each)} VP for each {count(amount, plural=False)}")
    if cap:
        s += f" (at most {cap} VP)"
    return s


def _repeat(n: Node) -> str:
    return f"for each {count(as_node(n.args[0]), plural=False)}, {effect(as_block(n.block))}"


def _pick(n: Node) -> str:
    return f"choose a resource; {effect(as_block(n.block))}"


_gained: list[int] = [1]   # how many things the enclosing gain produced ("it" vs "one of them")


def node(n: Node) -> str:
    op = n.op
    if op == "gain":
        s = _gain(n)
        if not n.block:
            return s
        _gained.append(len(n.args))
        try:
            return s + f"; {effect(n.block)}"
        finally:
            _gained.pop()
    if op == "cache":
        s = _cache(n)
        return s + (f"; if you do, {effect(n.block)}" if n.block else "")
    if op == "tuck":
        s = _tuck(n)
        return s + (f"; if you do, {effect(n.block)}" if n.block else "")
    if op == "lay":
        return _lay(n)
    if op == "guild":
        k = as_int(_pos(n, 0))
        return f"advance {_s(k, 'step')} on the Dragon Guild"
    if op == "pay":
        return _pay(n)
    if op == "excavate":
        src, free = as_str(_kw(n, "from")), _kw(n, "free") == "yes"
        where = {"hand": "from your hand", "display": "from the display",
                 "deck": "drawn from the deck"}[src]
        return f"excavate a space with a cave card {where}{' for free' if free else ''}"
    if op == "entice":
        return _entice(n)
    if op == "swap_dragons":
        return "swap the places of two of your dragons, ignoring their cave preferences"
    if op == "activate":
        kinds = _or(_TIMING[t] for t in _names(n))
        return f"use the {kinds} ability of another of your dragons"
    if op == "activate_mat":
        return "use one if-activated benefit printed on your mat"
    if op == "reveal":
        return _reveal(n)
    if op == "take":
        return "put it in your hand"
    if op == "discard":
        return "discard it" if _kw(n, "from") == "revealed" else f"discard {_pos(n, 0)} of them"
    if op == "pick":
        return _pick(n)
    if op == "choice":
        return "choose one: " + _or(effect(Block([s])) for s in as_block(n.block).stmts)
    if op == "different":
        return (f"choose {n.args[0]} different benefits among: "
                + _or(effect(Block([s])) for s in as_block(n.block).stmts))
    if op == "upto":
        return f"up to {n.args[0]} times, {effect(as_block(n.block))}"
    if op == "repeat":
        return _repeat(n)
    if op == "each_opponent":
        return "each opponent may " + effect(as_block(n.block)).replace("of your choice", "of their choice")
    if op == "if":
        return f"if {cond(as_node(n.args[0]))}, {effect(as_block(n.block))}"
    if op == "vp":
        return _vp(n)
    raise ValueError(f"no description for {op}")


def effect(block: Block, sep: str = "; ") -> str:
    return sep.join(node(s) for s in block.stmts).replace("2 of that resource", "2 of it")


_HEAD = {
    "when_played": "When played", "if_activated": "If activated",
    "once_per_round": "Once per round", "end_game": "End of game",
    "on_feed": "Each time one is placed here", "grow_up": "When the 3rd is placed here",
}


def sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def describe_card(card: Dragon | Cave) -> str:
    """The card's full description: one sentence per ability part."""
    parts = []
    for ab in card.abilities:
        parts.append(f"{_HEAD[ab.timing]}: {sentence(effect(ab.program))}")
    if card.kind == "dragon" and card.feeds:
        parts.insert(1, f"(Feeds on {'dragon cards tucked here' if card.feeds == 'dragon_card' else card.feeds + ' cached here'}.)")
    return " ".join(parts)
