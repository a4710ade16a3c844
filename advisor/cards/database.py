"""Loading and validating the card database (advisor/data/*.toml).

Everything is checked once at load: a broken file raises CardDataError naming the file, the card
and the field. The result is immutable; the compiler turns it into the core's tables.
"""
from __future__ import annotations

import difflib
import functools
import re
import tomllib
from dataclasses import dataclass, field
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, NoReturn, TypeVar, overload

from advisor.cards import language as L
from advisor.errors import CardDataError, CardLookupError, EffectSyntaxError, clip

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
from advisor.variants import PRINTINGS
COST_KEYS = ("meat", "gold", "crystal", "milk", "coin", "egg")
DRAGON_TIMINGS = L.TIMINGS
HATCHLING_PARTS = ("on_feed", "grow_up")
N_DRAGONS = 183
N_CAVES = 75


@dataclass(frozen=True)
class Ability:
    timing: str          # when_played, if_activated, once_per_round, end_game, on_feed, grow_up
    text: str            # canonical effect program
    program: L.Block = field(compare=False, repr=False)


@dataclass(frozen=True)
class Dragon:
    number: int
    name: str
    vp: int
    size: str
    capacity: int
    personality: str
    cost: dict[str, int]          # every COST_KEYS entry, 0 when not printed
    caves: tuple[str, ...]
    abilities: tuple[Ability, ...]  # in the order when_played/if_activated/once_per_round/end_game/...
    feeds: str | None = None   # hatchlings: the resource cached, or dragon_card for tucking

    kind: ClassVar[Literal["dragon"]] = "dragon"

    @property
    def timing(self) -> str:
        """The main ability timing printed on the card."""
        main = [a.timing for a in self.abilities if a.timing in DRAGON_TIMINGS]
        return main[0]

    @property
    def is_hatchling(self) -> bool:
        return self.size == "hatchling"

    def ability(self, timing: str) -> Ability | None:
        for a in self.abilities:
            if a.timing == timing:
                return a
        return None

    @property
    def total_cost(self) -> int:
        return sum(self.cost.values())


@dataclass(frozen=True)
class Cave:
    number: int
    abilities: tuple[Ability]     # one Ability, when_played

    kind: ClassVar[Literal["cave"]] = "cave"

    @property
    def name(self) -> str:
        return f"Cave {self.number}"

    @property
    def timing(self) -> str:
        return "when_played"


@dataclass(frozen=True)
class GuildAbility:
    uses: int            # spots, one marker each
    area: str            # top, bottom or both
    effect: Ability      # timing "guild" (an immediate effect) or "end_game"


@dataclass(frozen=True)
class GuildTile:
    number: int
    name: str
    abilities: tuple[GuildAbility, ...]


@dataclass(frozen=True)
class ObjectiveSide:
    count: L.Node        # a count expression
    count_text: str
    automa: tuple[int, ...]   # base values per round, () if not used in solo
    tiebreak: str | None
    solo: bool


@dataclass(frozen=True)
class ObjectiveTile:
    number: int
    a: ObjectiveSide
    b: ObjectiveSide


@dataclass(frozen=True)
class AutomaCard:
    number: int
    corner: str
    passes: bool
    refresh: bool
    objective: int
    guild: tuple[int, ...] | str   # 4 step counts, or a Ravel rule name
    brown: dict[str, int]


@dataclass(frozen=True)
class Database:
    printing: str
    dragons: tuple[Dragon, ...]     # index = number - 1
    caves: tuple[Cave, ...]
    mat: dict[str, Any]             # the raw mat.toml tables
    mat_benefits: dict[str, tuple[Ability, ...]]   # cave -> 5 Ability
    guild_track: tuple[Ability | None, ...]        # 12, None on brown spaces
    guild: dict[str, Any]           # the raw [track] and [fixed_vp_spot] tables
    guild_tiles: tuple[GuildTile, ...]
    objective_vp: tuple[tuple[int, ...], ...]      # per round: (1st, 2nd, 3rd)
    objectives: tuple[ObjectiveTile, ...]
    automa_cards: tuple[AutomaCard, ...]
    automa_levels: dict[str, tuple[str, ...]]      # level -> corner ids
    automa_scoring: dict[str, Any]  # the raw [scoring] table
    automa_turns: dict[str, int]

    def dragon(self, number: int) -> Dragon:
        return self.dragons[number - 1]

    def cave(self, number: int) -> Cave:
        return self.caves[number - 1]

    def lookup(self, query: str, kind: str | None = None) -> Dragon | Cave:
        """A dragon or cave by number, exact name, or unambiguous part of a name."""
        return lookup(self, query, kind)


# ---------------------------------------------------------------------------- helpers
_T = TypeVar("_T")
_D = TypeVar("_D")


class _Ctx:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, where: str, msg: str) -> NoReturn:
        raise CardDataError(f"{self.file}: {where}: {msg}")

    @overload
    def get(self, table: dict[str, Any], key: str, typ: type[_T], where: str, *,
            choices: Collection[object] | None = None, lo: int | None = None,
            hi: int | None = None) -> _T: ...

    @overload
    def get(self, table: dict[str, Any], key: str, typ: type[_T], where: str, *, default: _D,
            choices: Collection[object] | None = None, lo: int | None = None,
            hi: int | None = None) -> _T | _D: ...

    def get(self, table: dict[str, Any], key: str, typ: type[Any], where: str, *,
            default: object = ..., choices: Collection[object] | None = None, lo: int | None = None,
            hi: int | None = None) -> Any:
        """table[key], checked to be a typ (and among choices, within lo..hi); default if absent."""
        if key not in table:
            if default is ...:
                self.fail(where, f"missing field '{key}'")
            return default
        v = table[key]
        if typ is int and (isinstance(v, bool) or not isinstance(v, int)):
            self.fail(where, f"field '{key}' must be a whole number, got {v!r}")
        if typ is not int and not isinstance(v, typ):
            self.fail(where, f"field '{key}' must be {typ.__name__}, got {v!r}")
        if choices is not None and v not in choices:
            self.fail(where, f"field '{key}' is {v!r}, expected one of {', '.join(map(str, choices))}")
        if lo is not None and v < lo or hi is not None and v > hi:
            self.fail(where, f"field '{key}' is {v}, expected {lo}..{hi}")
        return v

    def effect(self, text: object, timing: str, where: str, key: str) -> Ability:
        """Validate effect text; `timing` is stored, and decides whether end-game ops are allowed."""
        if not isinstance(text, str):
            self.fail(where, f"field '{key}' must be an effect text")
        try:
            block = L.validate(text, timing)
        except EffectSyntaxError as e:
            self.fail(where, f"field '{key}': {e}")
        return Ability(timing, L.format_block(block), block)

    def unknown(self, table: dict[str, Any], allowed: Iterable[str], where: str) -> None:
        extra = set(table) - set(allowed)
        if extra:
            self.fail(where, f"unknown field(s) {', '.join(sorted(extra))}")


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise CardDataError(f"{path.name}: file not found in {path.parent}") from None
    except tomllib.TOMLDecodeError as e:
        raise CardDataError(f"{path.name}: not valid TOML: {e}") from None


def _printing_override(ctx: _Ctx, entry: dict[str, Any], printing: str, allowed: Iterable[str],
                       where: str) -> dict[str, Any]:
    override = entry.get("printing_2025")
    if override is None:
        return entry
    if not isinstance(override, dict):
        ctx.fail(where, "field 'printing_2025' must be a table")
    ctx.unknown(override, allowed, where + " printing_2025")
    return {**entry, **override} if printing == "2025" else entry


# ---------------------------------------------------------------------------- loaders
_DRAGON_FIELDS = ("number", "name", "vp", "size", "capacity", "personality", "cost", "caves",
                  "feeds", "printing_2025") + DRAGON_TIMINGS + HATCHLING_PARTS


def _load_dragons(path: Path, printing: str) -> tuple[Dragon, ...]:
    ctx = _Ctx(path.name)
    raw = _read(path).get("dragon")
    if not isinstance(raw, list):
        ctx.fail("file", "expected [[dragon]] tables")
    out: list[Dragon] = []
    seen_names: dict[str, int] = {}
    for i, entry in enumerate(raw):
        num = entry.get("number", "?")
        where = f"dragon {num}" + (f" ({entry['name']})" if isinstance(entry.get("name"), str) else "")
        ctx.unknown(entry, _DRAGON_FIELDS, where)
        number = ctx.get(entry, "number", int, where, lo=1, hi=N_DRAGONS)
        if number != i + 1:
            ctx.fail(where, f"dragons must be listed in number order (expected {i + 1})")
        entry = _printing_override(ctx, entry, printing, DRAGON_TIMINGS + HATCHLING_PARTS, where)
        name = ctx.get(entry, "name", str, where)
        if not name.strip():
            ctx.fail(where, "field 'name' is empty")
        if name.lower() in seen_names:
            ctx.fail(where, f"name also used by dragon {seen_names[name.lower()]}")
        seen_names[name.lower()] = number
        size = ctx.get(entry, "size", str, where, choices=L.SIZES)
        cap_hi = 0 if size == "hatchling" else 9
        capacity = ctx.get(entry, "capacity", int, where, lo=0, hi=cap_hi)
        cost = ctx.get(entry, "cost", dict, where)
        ctx.unknown(cost, COST_KEYS, where + " cost")
        for k, v in cost.items():
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 5:
                ctx.fail(where, f"cost '{k}' must be 1..5, got {v!r}")
        cost = {k: cost.get(k, 0) for k in COST_KEYS}
        caves = ctx.get(entry, "caves", list, where)
        if not caves or len(set(caves)) != len(caves) or any(c not in L.CAVES for c in caves):
            ctx.fail(where, f"field 'caves' must be distinct names among {', '.join(L.CAVES)}")
        abilities: list[Ability] = []
        for t in DRAGON_TIMINGS + HATCHLING_PARTS:
            if t in entry:
                abilities.append(ctx.effect(entry[t], t, where, t))
        main = [a for a in abilities if a.timing in DRAGON_TIMINGS]
        feeds = entry.get("feeds")
        if size == "hatchling":
            if feeds not in ("meat", "milk", "dragon_card"):
                ctx.fail(where, "hatchlings need field 'feeds' = meat, milk or dragon_card")
            if "if_activated" not in entry or "grow_up" not in entry:
                ctx.fail(where, "hatchlings need 'if_activated' and 'grow_up'")
            if ("on_feed" in entry) == ("end_game" in entry):
                ctx.fail(where, "hatchlings need exactly one of 'on_feed' or 'end_game'")
            if cost["egg"] != 1 or cost["milk"] < 1:
                ctx.fail(where, "hatchlings cost 1 egg and at least 1 milk")
        else:
            if feeds is not None or any(a.timing in HATCHLING_PARTS for a in abilities):
                ctx.fail(where, "only hatchlings have 'feeds', 'on_feed' or 'grow_up'")
            if len(main) != 1:
                ctx.fail(where, "a dragon has exactly one ability timing "
                                f"({', '.join(DRAGON_TIMINGS)})")
        out.append(Dragon(
            number=number, name=name, vp=ctx.get(entry, "vp", int, where, lo=0, hi=9), size=size,
            capacity=capacity,
            personality=ctx.get(entry, "personality", str, where, choices=L.PERSONALITIES),
            cost=cost, caves=tuple(c for c in L.CAVES if c in caves),
            abilities=tuple(abilities), feeds=feeds))
    if len(out) != N_DRAGONS:
        ctx.fail("file", f"expected {N_DRAGONS} dragons, found {len(out)}")
    return tuple(out)


def _load_caves(path: Path, printing: str) -> tuple[Cave, ...]:
    ctx = _Ctx(path.name)
    raw = _read(path).get("cave")
    if not isinstance(raw, list):
        ctx.fail("file", "expected [[cave]] tables")
    out: list[Cave] = []
    for i, entry in enumerate(raw):
        where = f"cave {entry.get('number', '?')}"
        ctx.unknown(entry, ("number", "when_played", "printing_2025"), where)
        number = ctx.get(entry, "number", int, where, lo=1, hi=N_CAVES)
        if number != i + 1:
            ctx.fail(where, f"caves must be listed in number order (expected {i + 1})")
        entry = _printing_override(ctx, entry, printing, ("when_played",), where)
        ab = ctx.effect(ctx.get(entry, "when_played", str, where), "when_played", where, "when_played")
        out.append(Cave(number, (ab,)))
    if len(out) != N_CAVES:
        ctx.fail("file", f"expected {N_CAVES} caves, found {len(out)}")
    return tuple(out)


def _load_mat(path: Path) -> tuple[dict[str, Any], dict[str, tuple[Ability, ...]]]:
    ctx = _Ctx(path.name)
    raw = _read(path)
    if raw.get("caves") != list(L.CAVES):
        ctx.fail("caves", f"must be {list(L.CAVES)}")
    columns = ctx.get(raw, "columns", int, "mat", lo=4, hi=4)
    ex = ctx.get(raw, "excavate", dict, "excavate")
    if len(ctx.get(ex, "column_eggs", list, "excavate")) != columns:
        ctx.fail("excavate", f"column_eggs needs {columns} values")
    explore = ctx.get(raw, "explore", dict, "explore")
    n = ctx.get(explore, "max_per_cave", int, "explore", lo=1, hi=5)
    for key in ("coins", "eggs"):
        if len(ctx.get(explore, key, list, "explore")) != n:
            ctx.fail("explore", f"'{key}' needs {n} values (one per explore of a cave in a round)")
    for section, keys in (("limits", ("cards", "coins", "resources")),
                          ("start", ("coins", "eggs", "deal_dragons", "deal_caves", "keep", "resources")),
                          ("round_start", ("coins", "eggs")), ("entice", ("action_coins",))):
        t = ctx.get(raw, section, dict, section)
        for k in keys:
            ctx.get(t, k, int, section, lo=0, hi=20)
    ctx.effect(ctx.get(raw["column_4_exchange"], "gain", str, "column_4_exchange"), "if_activated",
               "column_4_exchange", "gain")
    benefits: dict[str, tuple[Ability, ...]] = {}
    table = ctx.get(raw, "benefits", dict, "benefits")
    for cave in L.CAVES:
        lst = ctx.get(table, cave, list, "benefits")
        if len(lst) != columns + 1:
            ctx.fail(f"benefits {cave}", f"needs {columns + 1} effects (icon 0..{columns})")
        benefits[cave] = tuple(ctx.effect(t, "if_activated", f"benefits {cave}[{k}]", cave)
                               for k, t in enumerate(lst))
    return raw, benefits


def _load_guild(path: Path) -> tuple[dict[str, Any], tuple[Ability | None, ...],
                                     tuple[GuildTile, ...]]:
    ctx = _Ctx(path.name)
    raw = _read(path)
    track = ctx.get(raw, "track", dict, "track")
    spaces = ctx.get(track, "spaces", list, "track")
    brown = ctx.get(track, "brown", list, "track")
    if len(spaces) != 12 or any(not 0 <= b < 12 for b in brown):
        ctx.fail("track", "12 spaces with brown spaces among 0..11")
    ctx.get(track, "markers", int, "track", lo=1, hi=8)
    steps: list[Ability | None] = []
    for k, text in enumerate(spaces):
        if k in brown:
            if text:
                ctx.fail(f"track space {k}", "a brown space has no printed benefit")
            steps.append(None)
        else:
            steps.append(ctx.effect(text, "if_activated", f"track space {k}", "spaces"))
    fixed = ctx.get(raw, "fixed_vp_spot", dict, "fixed_vp_spot")
    ctx.get(fixed, "vp", list, "fixed_vp_spot")
    tiles: list[GuildTile] = []
    for t in ctx.get(raw, "tile", list, "tile"):
        where = f"guild tile {t.get('number', '?')}"
        abilities: list[GuildAbility] = []
        ab_list = ctx.get(t, "abilities", list, where)
        if len(ab_list) != 4:
            ctx.fail(where, "needs 4 abilities")
        for k, a in enumerate(ab_list, 1):
            w = f"{where} ability {k}"
            ctx.unknown(a, ("uses", "area", "effect", "end_game"), w)
            if ("effect" in a) == ("end_game" in a):
                ctx.fail(w, "needs exactly one of 'effect' or 'end_game'")
            timing = "end_game" if "end_game" in a else "guild"
            eff = ctx.effect(a.get("effect", a.get("end_game")), timing, w, timing)
            abilities.append(GuildAbility(ctx.get(a, "uses", int, w, lo=1, hi=5),
                                          ctx.get(a, "area", str, w, choices=("top", "bottom", "both")),
                                          eff))
        tiles.append(GuildTile(ctx.get(t, "number", int, where, lo=1, hi=4),
                               ctx.get(t, "name", str, where), tuple(abilities)))
    if [t.number for t in tiles] != [1, 2, 3, 4]:
        ctx.fail("tile", "needs guild tiles 1-4 in order")
    return raw, tuple(steps), tuple(tiles)


def _count_node(ctx: _Ctx, text: object, where: str) -> L.Node:
    if not isinstance(text, str):
        ctx.fail(where, "field 'count' must be a count expression")
    try:
        node = L.parse(text).stmts[0]
        L._check_node(node, "count")
    except EffectSyntaxError as e:
        ctx.fail(where, f"field 'count': {e}")
    return node


def _load_objectives(path: Path) -> tuple[tuple[tuple[int, ...], ...], tuple[ObjectiveTile, ...]]:
    ctx = _Ctx(path.name)
    raw = _read(path)
    vp = ctx.get(raw, "vp_by_round", dict, "vp_by_round")
    table = tuple(tuple(ctx.get(vp, f"round_{r}", list, "vp_by_round")) for r in range(1, 5))
    tiles: list[ObjectiveTile] = []
    for t in ctx.get(raw, "tile", list, "tile"):
        where = f"objective {t.get('number', '?')}"
        sides: list[ObjectiveSide] = []
        for s in ("a", "b"):
            side = ctx.get(t, s, dict, where)
            w = f"{where}{s}"
            ctx.unknown(side, ("count", "automa", "tiebreak", "solo"), w)
            node = _count_node(ctx, side.get("count"), w)
            solo = ctx.get(side, "solo", bool, w, default=True)
            automa = tuple(ctx.get(side, "automa", list, w, default=[]))
            if solo and len(automa) != 4:
                ctx.fail(w, "needs 4 Automa base values (one per round)")
            sides.append(ObjectiveSide(node, L.format_node(node), automa,
                                       ctx.get(side, "tiebreak", str, w, default=None,
                                               choices=(None, "guild_position")), solo))
        tiles.append(ObjectiveTile(ctx.get(t, "number", int, where, lo=1, hi=10), *sides))
    if [t.number for t in tiles] != list(range(1, 11)):
        ctx.fail("tile", "needs objective tiles 1-10 in order")
    return table, tuple(tiles)


def _load_automa(path: Path) -> tuple[tuple[AutomaCard, ...], dict[str, tuple[str, ...]],
                                      dict[str, Any], dict[str, int]]:
    ctx = _Ctx(path.name)
    raw = _read(path)
    cards: list[AutomaCard] = []
    for c in ctx.get(raw, "card", list, "card"):
        where = f"automa card {c.get('number', '?')}"
        guild = c.get("guild")
        if isinstance(guild, list):
            if len(guild) != 4 or not all(isinstance(g, int) and 0 <= g <= 6 for g in guild):
                ctx.fail(where, "field 'guild' needs 4 step counts")
            guild = tuple(guild)
        elif guild not in ("deepest_cave", "shallowest_cave", "deepest_cave_plus_1"):
            ctx.fail(where, f"field 'guild' is {guild!r}")
        brown = ctx.get(c, "brown", dict, where)
        ctx.unknown(brown, ("dragon", "cave", "guild_ability"), where + " brown")
        cards.append(AutomaCard(ctx.get(c, "number", int, where, lo=1, hi=16),
                                ctx.get(c, "corner", str, where), ctx.get(c, "pass", bool, where),
                                ctx.get(c, "refresh", bool, where),
                                ctx.get(c, "objective", int, where, lo=-1, hi=1), guild, dict(brown)))
    corners = {c.corner for c in cards}
    if len(cards) != 16 or len(corners) != 16:
        ctx.fail("card", "needs 16 Automa cards with distinct corner ids")
    levels = ctx.get(raw, "levels", dict, "levels")
    for name, ids in levels.items():
        if len(ids) != 8 or set(ids) - corners:
            ctx.fail(f"levels {name}", "needs 8 known corner ids")
    turns = ctx.get(raw, "turns", dict, "turns")
    for k in ("set_aside", "markers_at_start", "markers_per_round", "objective_cap", "ravel_coins_kept"):
        ctx.get(turns, k, int, "turns", lo=0, hi=20)
    ctx.unknown(turns, ("set_aside", "markers_at_start", "markers_per_round", "objective_cap",
                        "ravel_coins_kept"), "turns")
    return (tuple(cards), {k: tuple(v) for k, v in levels.items()}, ctx.get(raw, "scoring", dict, "scoring"),
            turns)


@functools.lru_cache(maxsize=None)
def load_database(printing: str = "base", data_dir: str | None = None) -> Database:
    """Load and check every data file. Cached per (printing, folder)."""
    if printing not in PRINTINGS:
        raise CardDataError(f"unknown printing {printing!r} (expected {', '.join(PRINTINGS)})")
    d = Path(data_dir) if data_dir else DATA_DIR
    mat, benefits = _load_mat(d / "mat.toml")
    guild, track, tiles = _load_guild(d / "guild.toml")
    vp_table, objectives = _load_objectives(d / "objectives.toml")
    cards, levels, scoring, turns = _load_automa(d / "automa.toml")
    return Database(printing=printing, dragons=_load_dragons(d / "dragons.toml", printing),
                    caves=_load_caves(d / "caves.toml", printing), mat=mat, mat_benefits=benefits,
                    guild_track=track, guild=guild, guild_tiles=tiles, objective_vp=vp_table,
                    objectives=objectives, automa_cards=cards, automa_levels=levels,
                    automa_scoring=scoring, automa_turns=turns)


# ---------------------------------------------------------------------------- lookup
def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower().replace("'", "")).strip()


MIN_PART = 3            # letters a part of a card name needs to stand for the card


def lookup(db: Database, query: str, kind: str | None = None) -> Dragon | Cave:
    """Find one card by number or tolerant name; raise CardLookupError otherwise."""
    q = query.strip()
    pools: dict[str, tuple[Dragon, ...] | tuple[Cave, ...]] = {"dragon": db.dragons, "cave": db.caves}
    kinds = (kind,) if kind else ("dragon", "cave")
    # a number, "cave 12", or the id `cards list` prints (D70, C12)
    m = re.fullmatch(r"(?:(dragon|cave|d|c)\s*#?\s*)?(\d+)", q.lower())
    if m:
        k = {"d": "dragon", "c": "cave"}.get(m.group(1) or "", m.group(1)) or (kind or "dragon")
        digits = m.group(2).lstrip("0") or "0"
        pool = pools[k]
        n = int(digits) if len(digits) <= 6 else 0     # no card's number has more digits (nor may int() take 5,000)
        if 1 <= n <= len(pool):
            return pool[n - 1]
        raise CardLookupError(f"there is no {k} number {clip(digits, 20)} (1-{len(pool)})")
    cands = [c for k in kinds for c in pools[k]]
    nq = _norm(q)
    if not nq:
        raise CardLookupError("empty card name")
    exact = [c for c in cands if _norm(c.name) == nq]
    if len(exact) == 1:
        return exact[0]
    if len(nq.replace(" ", "")) < MIN_PART:
        # a letter or two is inside dozens of names: never take it for one of them
        starts = [c.name for c in cands if any(w.startswith(nq) for w in _norm(c.name).split())][:3]
        head = f"no card named '{clip(query)}' ({MIN_PART} letters or more)"
        raise CardLookupError(head + _did_you_mean(head, query, starts), tuple(starts))
    part = [c for c in cands if nq in _norm(c.name)]
    if len(part) == 1:
        return part[0]
    if len(part) > 1:
        matches = tuple(c.name for c in part)
        head = f"'{clip(query)}' matches {len(matches)} cards: "
        shown = max((k for k in range(1, len(matches) + 1) if k == 1 or _fits(
            head + ", ".join(matches[:k]) + (f" and {len(matches) - k} more" if k < len(matches) else ""), query)),
            default=1)
        raise CardLookupError(head + ", ".join(matches[:shown])
                              + (f" and {len(matches) - shown} more" if shown < len(matches) else ""), matches)
    names = [c.name for c in cands]
    near = difflib.get_close_matches(q, names, n=3, cutoff=0.6) or [
        names[[_norm(x) for x in names].index(x)]
        for x in difflib.get_close_matches(nq, [_norm(x) for x in names], n=3, cutoff=0.5)]
    head = f"no card named '{clip(query)}'"
    raise CardLookupError(head + _did_you_mean(head, query, near), tuple(near))


MESSAGE_WIDTH = 73      # an error line's words beside "error: " in 80 columns (the query it echoes apart)


def _fits(message: str, query: str) -> bool:
    return len(message) - len(clip(query)) <= MESSAGE_WIDTH


def _did_you_mean(head: str, query: str, names: Sequence[str]) -> str:
    """"; did you mean 'A' or 'B'?" with as many of `names` as keep the error on one line of 80
    columns (the first always: a did-you-mean with no name helps nobody); the error keeps them all."""
    hints = [f"; did you mean {' or '.join(repr(n) for n in names[:k])}?" for k in range(len(names), 0, -1)]
    return next((h for h in hints if _fits(head + h, query)), hints[-1] if hints else "")
