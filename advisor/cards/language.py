"""The card effect language: syntax, schema and validation.

An effect is a small program, e.g. ``pay(coin) { lay(3) }``. Statements are separated by ``;``;
a statement is ``op(args)`` optionally followed by a ``{ block }``. What each op means, which
arguments it takes and how its block is used is declared once in ``OPS`` below; the compiler
(``compiler.py``) turns validated programs into the fixed-width instructions the Cython core runs,
and ``describe.py`` turns them into English. See docs/effect-language.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, TypeAlias, Union

from advisor.errors import EffectSyntaxError

# ---------------------------------------------------------------------------- vocabulary
RESOURCES = ("meat", "gold", "crystal", "milk")
# Items an effect can gain, pay or cache. "any" = one resource of the player's choice.
# picked = the resource chosen by pick(); gained = an item gained earlier in this ability;
# tucked_cost = one resource among those printed in the cost of the card tucked earlier;
# revealed = the card shown by reveal().
ITEMS = RESOURCES + ("any", "coin", "egg", "dragon_card", "cave_card",
                     "picked", "gained", "tucked_cost", "revealed")
CAVES = ("crimson", "golden", "amethyst")
SIZES = ("hatchling", "small", "medium", "large")
PERSONALITIES = ("shy", "helpful", "aggressive", "playful")
TIMINGS = ("when_played", "if_activated", "once_per_round", "end_game")

# Symbol domains. Every symbol value is encoded as its index in its domain.
DOMAINS: dict[str, tuple[str, ...]] = {
    "item": ITEMS,
    "card_source": ("any", "display", "deck"),
    "lay_target": ("auto", "any", "here", "this_cave", "this_column", "adjacent",
                   "each_in_cave", "each_in_column"),
    "cache_source": ("supply", "general"),
    "cache_target": ("here", "any", "this_column"),
    "tuck_source": ("hand", "deck", "display", "gained", "revealed"),
    "tuck_target": ("here", "any", "this_column", "each_in_cave"),
    "pay_source": ("anywhere", "this_cave", "adjacent"),
    "play_source": ("hand", "display", "deck"),
    "entice_cost": ("printed", "free", "no_resources", "discount_one"),
    "entice_onto": ("space", "dragon"),
    "discard_source": ("gained", "revealed"),
    "cave": CAVES,
    "timing": TIMINGS,
    "size": SIZES,
    "personality": PERSONALITIES,
    "yes_no": ("no", "yes"),
    "resource": RESOURCES,
    "count_of": ("dragons", "cave_cards", "cards_in_cave", "eggs", "cached", "tucked", "capacity",
                 "guild_markers", "objectives_lowest", "personality_sets", "size_sets",
                 "full_columns", "distinct_sizes", "max_cave_cost"),
    "where": ("mat", "here", "this_cave", "this_column", "adjacent", "crimson", "golden",
              "amethyst"),
}

# ---------------------------------------------------------------------------- syntax tree
# An argument: a number, a name, a nested count or condition, a { block }, or a [list, of, names].
Value: TypeAlias = Union[int, str, "Node", "Block", tuple[str, ...]]


@dataclass
class Node:
    op: str
    args: list[Value] = field(default_factory=list)       # positional values
    kwargs: dict[str, Value] = field(default_factory=dict)  # keyword values
    block: Block | None = None                             # trailing { ... }


@dataclass
class Block:
    stmts: list[Node]


# ---------------------------------------------------------------------------- parser
_TOKEN = re.compile(r"\s*(?P<token>(-?\d+)|([a-z_][a-z0-9_]*)|(.))")
Token: TypeAlias = tuple[str, str, int]   # kind ("int", "name", "sym", "end"), text, column


def _tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only trailing whitespace
            break
        _, num, name, sym = m.groups()
        start = m.start("token")
        if num is not None:
            out.append(("int", num, start))
        elif name is not None:
            out.append(("name", name, start))
        else:
            if sym not in "(){}[];,=":
                raise EffectSyntaxError(f"unexpected character {sym!r} at column {start + 1}")
            out.append(("sym", sym, start))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokenize(text)
        self.i = 0

    def peek(self) -> Token:
        return self.toks[self.i]

    def take(self, kind: str | None = None, value: str | None = None) -> Token:
        tok = self.toks[self.i]
        if (kind and tok[0] != kind) or (value is not None and tok[1] != value):
            want = value or kind
            got = tok[1] or "end of text"
            raise EffectSyntaxError(f"expected {want!r} at column {tok[2] + 1}, found {got!r}")
        self.i += 1
        return tok

    def seq(self, closer: str) -> Block:
        stmts: list[Node] = []
        while True:
            if self.peek()[1] == closer or self.peek()[0] == "end":
                break
            stmts.append(self.stmt())
            if self.peek()[1] == ";":
                self.take()
                continue
            break
        return Block(stmts)

    def stmt(self) -> Node:
        name = self.take("name")[1]
        node = Node(name)
        if self.peek()[1] == "(":
            self.take()
            if self.peek()[1] != ")":
                while True:
                    self.arg(node)
                    if self.peek()[1] == ",":
                        self.take()
                        continue
                    break
            self.take("sym", ")")
        if self.peek()[1] == "{":
            node.block = self.block()
        return node

    def block(self) -> Block:
        self.take("sym", "{")
        b = self.seq("}")
        self.take("sym", "}")
        return b

    def arg(self, node: Node) -> None:
        tok = self.peek()
        if tok[0] == "name" and self.toks[self.i + 1][1] == "=":
            self.take()
            self.take()
            if tok[1] in node.kwargs:
                raise EffectSyntaxError(f"keyword {tok[1]!r} given twice")
            node.kwargs[tok[1]] = self.value()
        else:
            if node.kwargs:
                raise EffectSyntaxError(f"positional argument after keywords at column {tok[2] + 1}")
            node.args.append(self.value())

    def value(self) -> Value:
        tok = self.peek()
        if tok[0] == "int":
            self.take()
            return int(tok[1])
        if tok[1] == "{":
            return self.block()
        if tok[1] == "[":
            self.take()
            items: list[str] = []
            while self.peek()[1] != "]":
                items.append(self.take("name")[1])
                if self.peek()[1] == ",":
                    self.take()
            self.take("sym", "]")
            return tuple(items)
        if tok[0] == "name":
            if self.toks[self.i + 1][1] == "(":
                return self.stmt()
            self.take()
            return tok[1]
        raise EffectSyntaxError(f"unexpected {tok[1] or 'end of text'!r} at column {tok[2] + 1}")


def parse(text: str) -> Block:
    """Parse effect text into a Block (syntax only; see validate())."""
    p = _Parser(text)
    b = p.seq("")
    if p.peek()[0] != "end":
        tok = p.peek()
        raise EffectSyntaxError(f"unexpected {tok[1]!r} at column {tok[2] + 1}")
    if not b.stmts:
        raise EffectSyntaxError("empty effect")
    return b


# ---------------------------------------------------------------------------- schema
@dataclass(frozen=True)
class Param:
    name: str
    kind: str          # a DOMAINS key, "int", "set:<domain>", "count", "cond", "block", "amount"
    default: Value | None = None   # None: the argument is required (or, for a block, absent)


@dataclass(frozen=True)
class OpSpec:
    role: str                      # "effect", "count" or "cond"
    items: str | None = None       # positional items: a DOMAINS key listed 1..6 times
    items_allowed: tuple[str, ...] = ()   # subset of that domain allowed here (empty = all)
    pos: tuple[Param, ...] = ()           # other positional params (after no items)
    kw: tuple[Param, ...] = ()            # keyword params, in slot order
    block: str = "none"            # "none", "optional", "required"
    help: str = ""


MAX_ITEMS = 6
MAX_KW = 10

_CARD_ITEMS = ("dragon_card", "cave_card")
_GAINABLE = RESOURCES + ("any", "coin", "dragon_card", "cave_card", "picked", "tucked_cost")
_PAYABLE = RESOURCES + ("any", "coin", "egg", "dragon_card", "cave_card")
_CACHEABLE = RESOURCES + ("any", "picked", "gained")

_COUNT_FILTERS = (
    Param("in", "where", "mat"),
    Param("size", "set:size", ()),
    Param("personality", "set:personality", ()),
    Param("except", "set:personality", ()),
    Param("ability", "set:timing", ()),
    Param("cost_min", "int", 0),
    Param("cost_max", "int", 99),
    Param("other", "yes_no", "no"),
    Param("among", "set:size", ()),
    Param("resource", "set:resource", ()),
)

OPS: dict[str, OpSpec] = {
    # ---- benefits
    "gain": OpSpec("effect", items="item", items_allowed=_GAINABLE,
                   kw=(Param("from", "card_source", "any"),), block="optional",
                   help="gain each listed item; cards come from the display or deck (from=any), "
                        "the display only, or the deck only; the block may use what was gained"),
    "lay": OpSpec("effect", pos=(Param("n", "int", 1),),
                  kw=(Param("on", "lay_target", "auto"), Param("except", "set:personality", ())),
                  help="lay n eggs; auto = on this dragon if it has room, else anywhere"),
    "guild": OpSpec("effect", pos=(Param("n", "int", 1),), help="n Dragon Guild steps"),
    "cache": OpSpec("effect", items="item", items_allowed=_CACHEABLE,
                    kw=(Param("from", "cache_source", "supply"), Param("on", "cache_target", "here"),
                        Param("required", "yes_no", "no")),
                    block="optional", help="cache each listed resource"),
    "tuck": OpSpec("effect", pos=(Param("n", "int", 1),),
                   kw=(Param("from", "tuck_source", "hand"), Param("under", "tuck_target", "here"),
                       Param("personality", "set:personality", ()), Param("required", "yes_no", "no")),
                   block="optional", help="tuck up to n dragon cards"),
    "pay": OpSpec("effect", items="item", items_allowed=_PAYABLE,
                  kw=(Param("from", "pay_source", "anywhere"),), block="required",
                  help="optionally pay the listed items; the block happens only if paid"),
    "excavate": OpSpec("effect", kw=(Param("from", "play_source", "hand"), Param("free", "yes_no", "no")),
                       help="play a cave card into the leftmost empty space of a cave"),
    "entice": OpSpec("effect",
                     kw=(Param("from", "play_source", "hand"), Param("cost", "entice_cost", "printed"),
                         Param("onto", "entice_onto", "space")),
                     help="play a dragon (never costs the action coin)"),
    "swap_dragons": OpSpec("effect", help="swap two of your dragons, ignoring cave preferences"),
    "activate": OpSpec("effect", items="timing", items_allowed=("when_played", "once_per_round",
                                                                "if_activated"),
                       help="run the ability of the listed kind(s) of one of your other dragons"),
    "activate_mat": OpSpec("effect", help="run one 'if activated' benefit printed on your mat"),
    "reveal": OpSpec("effect", kw=(Param("size", "set:size", ()), Param("hit", "block"),
                                   Param("miss", "block")),
                     help="reveal the top dragon of the deck; hit if its size is listed"),
    "take": OpSpec("effect", pos=(Param("what", "discard_source"),), help="put the card in hand"),
    "discard": OpSpec("effect", pos=(Param("n", "int", 1),),
                      kw=(Param("from", "discard_source", "gained"),),
                      help="discard n of the cards gained or revealed by this ability (required)"),
    "pick": OpSpec("effect", pos=(Param("what", "item"),), block="required",
                   help="choose a resource; the block refers to it as 'picked'"),
    # ---- structure
    "choice": OpSpec("effect", block="required", help="do exactly one of the block's statements"),
    "different": OpSpec("effect", pos=(Param("n", "int"),), block="required",
                        help="do n different statements of the block"),
    "upto": OpSpec("effect", pos=(Param("n", "int"),), block="required",
                   help="do the block up to n times, each time optional"),
    "repeat": OpSpec("effect", pos=(Param("times", "count"),), block="required",
                     help="do the block once per counted thing"),
    "each_opponent": OpSpec("effect", block="required",
                            help="each other player, in turn order, may do the block for themself"),
    "if": OpSpec("effect", pos=(Param("cond", "cond"),), block="required"),
    "vp": OpSpec("effect", pos=(Param("amount", "amount"),),
                 kw=(Param("each", "int", 1), Param("per", "int", 1), Param("max", "int", 0)),
                 help="end-game VP: amount, or each * (count // per), capped at max if max > 0"),
    # ---- counts
    "count": OpSpec("count", pos=(Param("of", "count_of"),), kw=_COUNT_FILTERS),
    # ---- conditions
    "at_least": OpSpec("cond", pos=(Param("count", "count"), Param("n", "int"))),
    "at_most": OpSpec("cond", pos=(Param("count", "count"), Param("n", "int"))),
    "column_full": OpSpec("cond"),
    "cave_full": OpSpec("cond"),
    "cave_excavated": OpSpec("cond"),
    "last_in_cave": OpSpec("cond"),
    "between_dragons": OpSpec("cond"),
    "not_fewer_than_left": OpSpec("cond", pos=(Param("cave", "cave"),),
                                  help="you have at least as many dragons in that cave as your "
                                       "left neighbour"),
}

assert all(len(s.kw) <= MAX_KW and len(s.pos) <= MAX_ITEMS for s in OPS.values())
# a keyword left out takes its default; only a block keyword may be absent
assert all(p.default is not None or p.kind == "block" for s in OPS.values() for p in s.kw)

# Effect ops that may only appear in an end-game ability, and ops never allowed there.
END_GAME_ONLY = {"vp"}


# ---------------------------------------------------------------------------- validation
def _check_value(kind: str, value: Value, where: str) -> None:
    if kind == "int":
        if not isinstance(value, int):
            raise EffectSyntaxError(f"{where}: expected a number, got {value!r}")
        return
    if kind == "block":
        if not isinstance(value, Block):
            raise EffectSyntaxError(f"{where}: expected a {{ block }}")
        _check_block(value, "effect")
        return
    if kind in ("count", "cond"):
        if not isinstance(value, Node) or value.op not in OPS or OPS[value.op].role != kind:
            raise EffectSyntaxError(f"{where}: expected a {kind} expression, got {_show(value)}")
        _check_node(value, kind)
        return
    if kind == "amount":
        if isinstance(value, int):
            return
        _check_value("count", value, where)
        return
    if kind.startswith("set:"):
        dom = kind[4:]
        vals = value if isinstance(value, tuple) else (value,)
        for v in vals:
            if not isinstance(v, str) or v not in DOMAINS[dom]:
                raise EffectSyntaxError(f"{where}: {v!r} is not a {dom} "
                                        f"(one of {', '.join(DOMAINS[dom])})")
        return
    if not isinstance(value, str) or value not in DOMAINS[kind]:
        raise EffectSyntaxError(f"{where}: {_show(value)} is not one of {', '.join(DOMAINS[kind])}")


def _show(v: Value) -> str:
    if isinstance(v, Node):
        return f"{v.op}(...)"
    if isinstance(v, Block):
        return "{...}"
    return repr(v)


def _check_node(node: Node, role: str) -> None:
    spec = OPS.get(node.op)
    if spec is None:
        raise EffectSyntaxError(f"unknown operation {node.op!r}")
    if spec.role != role:
        raise EffectSyntaxError(f"{node.op!r} is a {spec.role}, not allowed where a {role} is expected")
    where = node.op
    args = list(node.args)
    if spec.items:
        if not args:
            raise EffectSyntaxError(f"{where}: needs at least one item")
        if len(args) > MAX_ITEMS:
            raise EffectSyntaxError(f"{where}: at most {MAX_ITEMS} items")
        allowed = spec.items_allowed or DOMAINS[spec.items]
        for a in args:
            if not isinstance(a, str) or a not in allowed:
                raise EffectSyntaxError(f"{where}: {_show(a)} cannot be used here "
                                        f"(allowed: {', '.join(allowed)})")
        args = []
    if len(args) > len(spec.pos):
        raise EffectSyntaxError(f"{where}: too many arguments")
    for i, (p, a) in enumerate(zip(spec.pos, args, strict=False)):
        # a bare condition name such as `column_full` is a call with no arguments
        if p.kind in ("cond", "count", "amount") and isinstance(a, str) and a in OPS:
            args[i] = node.args[i] = Node(a)
    for p, a in zip(spec.pos, args, strict=False):
        _check_value(p.kind, a, f"{where} {p.name}")
    for p in spec.pos[len(args):]:
        if p.default is None:
            raise EffectSyntaxError(f"{where}: missing {p.name}")
    kw_names = {p.name: p for p in spec.kw}
    for k, v in node.kwargs.items():
        if k not in kw_names:
            raise EffectSyntaxError(f"{where}: unknown keyword {k!r} "
                                    f"(allowed: {', '.join(kw_names) or 'none'})")
        _check_value(kw_names[k].kind, v, f"{where} {k}")
    for p in spec.kw:
        if p.kind == "block" and p.name not in node.kwargs and p.default is None:
            raise EffectSyntaxError(f"{where}: missing {p.name}={{...}}")
    if spec.block == "none" and node.block is not None:
        raise EffectSyntaxError(f"{where}: takes no {{ block }}")
    if spec.block == "required" and node.block is None:
        raise EffectSyntaxError(f"{where}: needs a {{ block }}")
    if node.block is not None:
        _check_block(node.block, "effect")
        # choice and different require a block (checked above)
        options = len(node.block.stmts)
        if node.op in ("choice", "different") and options < 2:
            raise EffectSyntaxError(f"{where}: needs at least two options")
        if node.op == "different" and not 1 <= as_int(node.args[0]) < options:
            raise EffectSyntaxError(f"{where}: n must be between 1 and the number of options - 1")
    if node.op == "gain" and "from" in node.kwargs and not all(a in _CARD_ITEMS for a in node.args):
        raise EffectSyntaxError(f"{where}: from= applies to cards only")
    if node.op in ("upto", "lay", "tuck", "guild", "discard") and node.args and as_int(node.args[0]) < 1:
        raise EffectSyntaxError(f"{where}: n must be at least 1")


def _check_block(block: Block, role: str) -> None:
    if not block.stmts:
        raise EffectSyntaxError("empty { block }")
    for s in block.stmts:
        _check_node(s, role)


def _walk(block: Block) -> Iterator[Node]:
    for s in block.stmts:
        yield s
        for v in list(s.args) + list(s.kwargs.values()):
            if isinstance(v, Node):
                yield v
            elif isinstance(v, Block):
                yield from _walk(v)
        if s.block is not None:
            yield from _walk(s.block)


def ops_used(block: Block) -> set[str]:
    return {n.op for n in _walk(block)} | {
        v.op for n in _walk(block) for v in list(n.args) if isinstance(v, Node)}


def validate(text: str, timing: str) -> Block:
    """Parse and check an effect for a given timing; raise EffectSyntaxError if wrong."""
    block = parse(text)
    _check_block(block, "effect")
    if timing != "end_game" and ops_used(block) & END_GAME_ONLY:
        raise EffectSyntaxError(f"'vp' is only allowed in end-game abilities, not {timing}")
    return block


# ---------------------------------------------------------------------------- reading programs
# validate() guarantees each argument's type from the schema; these give it its static type. A
# wrong type means a program that skipped validation: a bug, so TypeError rather than a user error.
def as_int(v: Value | None) -> int:
    if not isinstance(v, int):
        raise TypeError(f"expected a number in a validated program, got {v!r}")
    return v


def as_str(v: Value | None) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a name in a validated program, got {v!r}")
    return v


def as_node(v: Value | None) -> Node:
    if not isinstance(v, Node):
        raise TypeError(f"expected a count or condition in a validated program, got {v!r}")
    return v


def as_block(v: Value | None) -> Block:
    if not isinstance(v, Block):
        raise TypeError(f"expected a {{ block }} in a validated program, got {v!r}")
    return v


def as_names(v: Value | None) -> tuple[str, ...]:
    """A set argument: one name, [names], or nothing (an empty name or no value)."""
    if isinstance(v, tuple):
        return v
    if v is None or v == "":
        return ()
    return (as_str(v),)


# ---------------------------------------------------------------------------- canonical form
def _fmt_value(v: Value) -> str:
    if isinstance(v, Node):
        return format_node(v)
    if isinstance(v, Block):
        return "{ " + format_block(v) + " }"
    if isinstance(v, tuple):
        return "[" + ", ".join(v) + "]"
    return str(v)


def format_node(n: Node) -> str:
    parts = [_fmt_value(a) for a in n.args] + [f"{k}={_fmt_value(v)}" for k, v in n.kwargs.items()]
    s = n.op + (f"({', '.join(parts)})" if parts else "")
    if n.block is not None:
        s += " { " + format_block(n.block) + " }"
    return s


def format_block(b: Block) -> str:
    return "; ".join(format_node(s) for s in b.stmts)
