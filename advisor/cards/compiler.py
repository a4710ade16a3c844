"""Compile the card database into the flat int16 tables the Cython core executes.

Instruction layout (one row of NCOL int16):
    [op, a0..a5, k0..k9, child, alt, next]
a0..a5 hold positional arguments (items, or the op's positional params), k0..k9 the keyword
params in schema order with defaults filled in. Symbols are indices into their domain, sets are
bitmasks, nested counts/conditions are instruction indices. `child` is the trailing block (or
reveal's hit), `alt` reveal's miss, `next` the next statement of the same block; -1 = none.
A vp amount takes two slots: a0 = constant, a1 = count instruction (-1 when constant).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from advisor.cards import language as L
from advisor.cards.database import Database, DRAGON_TIMINGS, HATCHLING_PARTS

OPCODES: tuple[str, ...] = ("end",) + tuple(L.OPS)      # opcode number = index
NPOS, NKW = 6, 10
COL_OP, COL_POS, COL_KW = 0, 1, 1 + NPOS
COL_CHILD, COL_ALT, COL_NEXT = COL_KW + NKW, COL_KW + NKW + 1, COL_KW + NKW + 2
NCOL = COL_NEXT + 1

ENTRY_TIMINGS = DRAGON_TIMINGS + HATCHLING_PARTS          # dragon entry point columns
SIZE_IDS = {s: i for i, s in enumerate(L.SIZES)}
PERS_IDS = {p: i for i, p in enumerate(L.PERSONALITIES)}
FEEDS = ("none", "meat", "milk", "dragon_card")

# Columns of the dragon table.
DRAGON_COLS = ("number", "vp", "size", "capacity", "personality", "meat", "gold", "crystal", "milk",
               "coin", "egg", "cave_mask", "feeds") + tuple(f"entry_{t}" for t in ENTRY_TIMINGS)


def _encode_symbol(kind: str, value: L.Value | None) -> int:
    if kind == "int":
        return L.as_int(value)
    if kind.startswith("set:"):
        dom = L.DOMAINS[kind[4:]]
        mask = 0
        for v in L.as_names(value):
            mask |= 1 << dom.index(v)
        return mask
    return L.DOMAINS[kind].index(value)


class _Assembler:
    def __init__(self) -> None:
        self.rows: list[list[int]] = [[0] * NCOL]   # row 0 = "end", never an entry point
        self.rows[0][COL_CHILD] = self.rows[0][COL_ALT] = self.rows[0][COL_NEXT] = -1

    def block(self, block: L.Block) -> int:
        first = prev = -1
        for stmt in block.stmts:
            idx = self.node(stmt)
            if prev >= 0:
                self.rows[prev][COL_NEXT] = idx
            else:
                first = idx
            prev = idx
        return first

    def node(self, n: L.Node) -> int:
        spec = L.OPS[n.op]
        idx = len(self.rows)
        row = [-1] * NCOL
        row[COL_OP] = OPCODES.index(n.op)
        for k in range(NKW):
            row[COL_KW + k] = 0
        self.rows.append(row)
        if spec.items:
            for i, item in enumerate(n.args):
                row[COL_POS + i] = L.DOMAINS[spec.items].index(item)
        else:
            slot = COL_POS
            for i, p in enumerate(spec.pos):
                v = n.args[i] if i < len(n.args) else p.default
                if p.kind in ("count", "cond"):
                    row[slot] = self.node(L.as_node(v))
                elif p.kind == "amount":
                    if isinstance(v, int):
                        row[slot], row[slot + 1] = v, -1
                    else:
                        row[slot], row[slot + 1] = 0, self.node(L.as_node(v))
                    slot += 1
                else:
                    row[slot] = _encode_symbol(p.kind, v)
                slot += 1
        for k, p in enumerate(spec.kw):
            v = n.kwargs.get(p.name, p.default)
            if p.kind == "block":
                target = COL_CHILD if p.name == "hit" else COL_ALT
                row[target] = self.block(L.as_block(v)) if v is not None else -1
                row[COL_KW + k] = 0
            else:
                row[COL_KW + k] = _encode_symbol(p.kind, v)
        if n.block is not None:
            row[COL_CHILD] = self.block(n.block)
        return idx


@dataclass
class Tables:
    program: np.ndarray        # int16 [n, NCOL]
    dragons: np.ndarray        # int16 [184, len(DRAGON_COLS)], row 0 unused
    caves: np.ndarray          # int16 [76], entry of each cave's when-played effect
    mat_benefits: np.ndarray   # int16 [3, 5]
    guild_track: np.ndarray    # int16 [12], -1 on brown spaces
    guild_tiles: np.ndarray    # int16 [4, 4, 3]: entry, uses, is_end_game
    objectives: np.ndarray     # int16 [10, 2]: entry of each side's count
    rules: np.ndarray          # int16 [len(RULE_NAMES)]: the mat, guild and objective constants
    automa_cards: np.ndarray   # int16 [16, len(AUTOMA_COLS)]
    automa_levels: np.ndarray  # int16 [6, 8]: card indexes of L1-L3, R1-R3
    automa_objectives: np.ndarray  # int16 [10, 2, 5]: usable in solo, base value per round
    printing: str              # whose set these are: the core keeps one set per printing


def install(tables: "Tables") -> None:
    """Copy compiled tables into advisor._core as their printing's set (every field, in declaration
    order)."""
    from dataclasses import fields

    from advisor import _core
    _core.install_tables(*(getattr(tables, f.name) for f in fields(tables)))


def compile_database(db: Database) -> Tables:
    asm = _Assembler()
    dr = np.full((len(db.dragons) + 1, len(DRAGON_COLS)), -1, dtype=np.int16)
    for d in db.dragons:
        row = dr[d.number]
        mask = sum(1 << L.CAVES.index(c) for c in d.caves)
        vals = [d.number, d.vp, SIZE_IDS[d.size], d.capacity, PERS_IDS[d.personality],
                *(d.cost[k] for k in ("meat", "gold", "crystal", "milk", "coin", "egg")), mask,
                FEEDS.index(d.feeds or "none")]
        row[:len(vals)] = vals
        for ab in d.abilities:
            row[DRAGON_COLS.index(f"entry_{ab.timing}")] = asm.block(ab.program)
    caves = np.full(len(db.caves) + 1, -1, dtype=np.int16)
    for c in db.caves:
        caves[c.number] = asm.block(c.abilities[0].program)
    mat = np.array([[asm.block(a.program) for a in db.mat_benefits[c]] for c in L.CAVES], dtype=np.int16)
    track = np.array([asm.block(a.program) if a else -1 for a in db.guild_track], dtype=np.int16)
    tiles = np.array([[[asm.block(a.effect.program), a.uses, int(a.effect.timing == "end_game")]
                       for a in t.abilities] for t in db.guild_tiles], dtype=np.int16)
    objectives = np.array([[asm.node(t.a.count), asm.node(t.b.count)] for t in db.objectives],
                          dtype=np.int16)
    rules = np.array(_rules(db, asm), dtype=np.int16)
    program = np.array(asm.rows, dtype=np.int16)
    return Tables(program, dr, caves, mat, track, tiles, objectives, rules, *_automa(db), db.printing)


# The Automa's decision cards: columns of the automa_cards table. guild_r1..4 are steps per round,
# or a Ravel rule as a negative code (RAVEL_RULES).
AUTOMA_COLS = ("passes", "refresh", "objective", "guild_r1", "guild_r2", "guild_r3", "guild_r4",
               "brown_dragon", "brown_cave", "brown_ability")
RAVEL_RULES = ("deepest_cave", "shallowest_cave", "deepest_cave_plus_1")   # codes -1, -2, -3
AUTOMA_LEVELS = ("L1", "L2", "L3", "R1", "R2", "R3")


def _automa(db: Database) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The automa_cards, automa_levels and automa_objectives tables."""
    cards = np.zeros((16, len(AUTOMA_COLS)), dtype=np.int16)
    index: dict[str, int] = {}
    for i, c in enumerate(db.automa_cards):
        index[c.corner] = i
        guild = (list(c.guild) if isinstance(c.guild, tuple)
                 else [-1 - RAVEL_RULES.index(c.guild)] * 4)
        cards[i] = [int(c.passes), int(c.refresh), c.objective, *guild, c.brown.get("dragon", 0),
                    c.brown.get("cave", 0), c.brown.get("guild_ability", 0)]
    levels = np.array([[index[corner] for corner in db.automa_levels[name]] for name in AUTOMA_LEVELS],
                      dtype=np.int16)
    objectives = np.zeros((10, 2, 5), dtype=np.int16)
    for t, tile in enumerate(db.objectives):
        for side, obj in enumerate((tile.a, tile.b)):
            if obj.solo and obj.automa:
                objectives[t, side] = [1, *obj.automa]
    return cards, levels, objectives


# The rules constants the core reads, by name; every value comes from a data file.
MAX_EXPLORES = 5
RULE_NAMES: tuple[str, ...] = (
    ("start_coins", "start_eggs", "deal_dragons", "deal_caves", "keep", "start_resources",
     "round_coins", "round_eggs", "excavate_coins")
    + tuple(f"excavate_eggs_{c}" for c in range(1, 5))
    + ("exchange_items", "exchange_entry", "entice_coins", "explore_max")
    + tuple(f"explore_coins_{k}" for k in range(1, MAX_EXPLORES + 1))
    + tuple(f"explore_eggs_{k}" for k in range(1, MAX_EXPLORES + 1))
    + ("limit_cards", "limit_coins", "limit_resources", "mat_nests", "guild_markers")
    + ("fixed_vp_1", "fixed_vp_2", "fixed_vp_3")
    + tuple(f"objective_vp_{r}_{k}" for r in range(1, 5) for k in range(1, 4))
    + ("tiebreak_guild_a", "tiebreak_guild_b")   # bit t: tile t+1's side breaks ties by guild position
    + ("automa_dragon_vp_1", "automa_dragon_vp_2", "automa_dragon_vp_3", "automa_cave_vp",
       "automa_set_aside", "automa_markers_start", "automa_markers_round", "automa_objective_cap",
       "ravel_coins_kept")
)


def _rules(db: Database, asm: "_Assembler") -> list[int]:
    m = db.mat
    ex = m["explore"]
    pad = [0] * MAX_EXPLORES
    vals = {
        "start_coins": m["start"]["coins"], "start_eggs": m["start"]["eggs"],
        "deal_dragons": m["start"]["deal_dragons"], "deal_caves": m["start"]["deal_caves"],
        "keep": m["start"]["keep"], "start_resources": m["start"]["resources"],
        "round_coins": m["round_start"]["coins"], "round_eggs": m["round_start"]["eggs"],
        "excavate_coins": m["excavate"]["action_coins"],
        **{f"excavate_eggs_{c}": m["excavate"]["column_eggs"][c - 1] for c in range(1, 5)},
        "exchange_items": m["column_4_exchange"]["items"],
        "exchange_entry": asm.block(L.parse(m["column_4_exchange"]["gain"])),
        "entice_coins": m["entice"]["action_coins"], "explore_max": ex["max_per_cave"],
        **{f"explore_coins_{k + 1}": v for k, v in enumerate((ex["coins"] + pad)[:MAX_EXPLORES])},
        **{f"explore_eggs_{k + 1}": v for k, v in enumerate((ex["eggs"] + pad)[:MAX_EXPLORES])},
        "limit_cards": m["limits"]["cards"], "limit_coins": m["limits"]["coins"],
        "limit_resources": m["limits"]["resources"], "mat_nests": m["mat_nests"],
        "guild_markers": db.guild["track"]["markers"],
        **{f"fixed_vp_{k + 1}": v for k, v in enumerate((list(db.guild["fixed_vp_spot"]["vp"]) + [0, 0, 0])[:3])},
        **{f"objective_vp_{r + 1}_{k + 1}": db.objective_vp[r][k] for r in range(4) for k in range(3)},
        "tiebreak_guild_a": sum(1 << i for i, t in enumerate(db.objectives) if t.a.tiebreak),
        "tiebreak_guild_b": sum(1 << i for i, t in enumerate(db.objectives) if t.b.tiebreak),
        **{f"automa_dragon_vp_{k + 1}": db.automa_scoring["dragon_vp"][k] for k in range(3)},
        "automa_cave_vp": db.automa_scoring["cave_vp"],
        "automa_set_aside": db.automa_turns["set_aside"],
        "automa_markers_start": db.automa_turns["markers_at_start"],
        "automa_markers_round": db.automa_turns["markers_per_round"],
        "automa_objective_cap": db.automa_turns["objective_cap"],
        "ravel_coins_kept": db.automa_turns["ravel_coins_kept"],
    }
    return [vals[n] for n in RULE_NAMES]


# ---------------------------------------------------------------------------- disassembly
def _decode_symbol(kind: str, code: int) -> L.Value:
    if kind == "int":
        return code
    if kind.startswith("set:"):
        dom = L.DOMAINS[kind[4:]]
        vals = tuple(v for i, v in enumerate(dom) if code >> i & 1)
        return vals
    return L.DOMAINS[kind][code]


class InstructionRows(Protocol):
    """Instructions by index, each a row of NCOL ints: Tables.program, or a view of the core's."""
    def __getitem__(self, i: int, /) -> Sequence[int]: ...


def decode_block(rows: InstructionRows, i: int) -> L.Block:
    """The block of statements that starts at instruction i."""
    out: list[L.Node] = []
    while i >= 0:
        out.append(decode(rows, i))
        i = rows[i][COL_NEXT]
    return L.Block(out)


def decode(rows: InstructionRows, i: int) -> L.Node:
    """The statement (or count or condition) at instruction i."""
    r = [int(v) for v in rows[i]]       # plain ints: the values go into the program's nodes
    op = OPCODES[r[COL_OP]]
    spec = L.OPS[op]
    n = L.Node(op)
    if spec.items:
        n.args = [L.DOMAINS[spec.items][c] for c in r[COL_POS:COL_POS + NPOS] if c >= 0]
    else:
        slot = COL_POS
        for p in spec.pos:
            if p.kind in ("count", "cond"):
                n.args.append(decode(rows, r[slot]))
            elif p.kind == "amount":
                n.args.append(r[slot] if r[slot + 1] < 0 else decode(rows, r[slot + 1]))
                slot += 1
            else:
                n.args.append(_decode_symbol(p.kind, r[slot]))
            slot += 1
    for k, p in enumerate(spec.kw):
        if p.kind == "block":
            target = r[COL_CHILD] if p.name == "hit" else r[COL_ALT]
            if target >= 0:
                n.kwargs[p.name] = decode_block(rows, target)
        else:
            n.kwargs[p.name] = _decode_symbol(p.kind, r[COL_KW + k])
    if spec.block != "none" and r[COL_CHILD] >= 0:
        n.block = decode_block(rows, r[COL_CHILD])
    return n


def disassemble(rows: InstructionRows, entry: int) -> str:
    """Rebuild canonical effect text from instructions.

    Used to prove that the tables held by the core are exactly the compiled programs."""
    if L.OPS[OPCODES[rows[entry][COL_OP]]].role != "effect":
        return normalise(L.format_node(decode(rows, entry)))
    return normalise(L.format_block(decode_block(rows, entry)))


def normalise(text: str) -> str:
    """Canonical text with every default spelled out, so two spellings of one program compare equal."""
    block = L.parse(text)

    def fill(n: L.Node) -> None:
        spec = L.OPS[n.op]
        if not spec.items:
            for i, p in enumerate(spec.pos):
                if i >= len(n.args) and p.default is not None:
                    n.args.append(p.default)
        for p in spec.kw:
            # every keyword but a block has a default (language.py asserts it)
            if p.kind != "block" and p.name not in n.kwargs and p.default is not None:
                n.kwargs[p.name] = p.default
        n.kwargs = {p.name: _norm_val(p.kind, n.kwargs[p.name]) for p in spec.kw if p.name in n.kwargs}
        n.args = [_norm_val(p.kind, a) for p, a in zip(spec.pos, n.args, strict=False)] if not spec.items else n.args
        for v in list(n.args) + list(n.kwargs.values()):
            if isinstance(v, L.Node):
                fill(v)
            elif isinstance(v, L.Block):
                for s in v.stmts:
                    fill(s)
        if n.block:
            for s in n.block.stmts:
                fill(s)

    def _norm_val(kind: str, v: L.Value) -> L.Value:
        if isinstance(v, str) and kind in ("count", "cond", "amount") and v in L.OPS:
            return L.Node(v)
        if kind.startswith("set:"):
            return tuple(sorted(L.as_names(v), key=L.DOMAINS[kind[4:]].index))
        return v

    for s in block.stmts:
        fill(s)
    return L.format_block(block)


# ---------------------------------------------------------------------------- shared constants
def pxi_text() -> str:
    """ext/opcodes.pxi: the constants the Cython core shares with this compiler.

    Regenerate with `python -m advisor.cards.compiler > ext/engine/opcodes.pxi`; a test checks it is current."""
    lines = ["# Generated by `python -m advisor.cards.compiler > ext/engine/opcodes.pxi`. Do not edit.", "",
             "cdef enum:  # opcodes"]
    lines += [f"    OP_{name.upper()} = {i}" for i, name in enumerate(OPCODES)]
    lines += ["", "cdef enum:  # instruction layout",
              f"    NPOS = {NPOS}", f"    NKW = {NKW}", f"    COL_OP = {COL_OP}", f"    COL_POS = {COL_POS}",
              f"    COL_KW = {COL_KW}", f"    COL_CHILD = {COL_CHILD}", f"    COL_ALT = {COL_ALT}",
              f"    COL_NEXT = {COL_NEXT}", f"    NCOL = {NCOL}", "", "cdef enum:  # dragon table columns"]
    lines += [f"    D_{c.upper()} = {i}" for i, c in enumerate(DRAGON_COLS)]
    lines += [f"    NDCOL = {len(DRAGON_COLS)}", "", "cdef enum:  # rules constants"]
    lines += [f"    R_{n.upper()} = {i}" for i, n in enumerate(RULE_NAMES)]
    lines += [f"    NRULES = {len(RULE_NAMES)}", "", "cdef enum:  # automa card columns"]
    lines += [f"    AC_{c.upper()} = {i}" for i, c in enumerate(AUTOMA_COLS)]
    lines += [f"    NACOL = {len(AUTOMA_COLS)}", ""]
    for dom in ("item", "lay_target", "where", "count_of"):
        lines.append(f"cdef enum:  # domain {dom}")
        lines += [f"    {dom.upper()}_{v.upper()} = {i}" for i, v in enumerate(L.DOMAINS[dom])]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(pxi_text(), end="")
