"""Position files: a Wyrmspan position as one player sees it at the start of their turn (TOML).

The format is documented in docs/position-format.md. `parse_position` / `load_position` read and
check a file and report every problem at once (PositionError: one line per problem, "FILE: field.path:
what is wrong"); `Position.to_game(seed)` deals every card the viewer cannot see from the unseen pool
and returns an engine Game at the viewer's decision; `position_text(game, viewer)` writes the
viewer's view of an engine state at the start of their turn.

Solo games (players = 1): the human plays against the Automa, who sits in engine seat 1. Her state
is the `[automa]` section; in guild lists she is named AUTOMA_NAME."""
from __future__ import annotations

import difflib
import functools
import os
import random
import re
import tomllib
from dataclasses import dataclass, field

from advisor.cards import load_database
from advisor.cards.database import N_CAVES, N_DRAGONS, Database
from advisor.cards.database import _norm as _norm_name
from advisor.errors import AdvisorError, CardLookupError

FORMAT_VERSION = 1
CAVES = ("crimson", "golden", "amethyst")
RESOURCES = ("meat", "gold", "crystal", "milk")
COLUMNS = 4
MIN_PLAYERS, MAX_PLAYERS = 1, 5          # 1 = solo against the Automa
ROUNDS = 4
MAX_COINS = 99
MAX_RESOURCES = 99                       # of one kind, in a supply or cached on one dragon
MAX_TUCKED = 99                          # under one dragon
MAX_GUILD_STEPS = 200
PRINTINGS = {"base": 0, "2025": 1}
GUILD_SIDES = ("1-2", "3-5")
EMPTY_SLOT = "empty"
AUTOMA_NAME = "Automa"                   # how guild lists name her in a solo position
AUTOMA_LEVELS = ("1", "2", "3", "R1", "R2", "R3")
MAX_OBJECTIVE_COINS = 8                  # on one round's tile: at most one per card she plays

_TOP_FIELDS = ("format", "players", "viewer", "round", "turn_order", "start_player", "passed",
               "printing", "objectives", "known_tucked", "guild", "display", "discards", "player", "automa")
_PLAYER_FIELDS = ("coins", "resources", "mat_eggs", "guild_steps", "markers_left", "objective_vp",
                  "hand") + CAVES
_SPACE_FIELDS = ("dragon", "cave", "eggs", "cached", "tucked", "grown", "swapped")
_GUILD_FIELDS = ("tile", "side", "ability_1", "ability_2", "ability_3", "ability_4", "fixed_vp")
_AUTOMA_FIELDS = ("level", "revealed", "passed", "dragons", "caves", "guild_steps", "last_brown", "markers",
                  "objective_coins", "objective_vp")


class PositionError(AdvisorError):
    """A position file that cannot be read or describes an impossible position. `errors` holds one
    line per problem ("FILE: field.path: what is wrong"); str(e) is all of them, one per line."""

    def __init__(self, errors):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))


# ---------------------------------------------------------------------------- rules from the data
@dataclass(frozen=True)
class _Rules:
    mat_nests: int
    explore_max: int
    markers: int
    brown: tuple
    track_spaces: int
    fixed_vp: tuple
    objective_vp: tuple          # per round: VP by rank
    swap_dragons: frozenset      # dragons whose abilities swap dragons (ignoring cave preferences)
    swap_caves: frozenset        # cave cards whose abilities do
    cover_abilities: dict        # guild tile index -> abilities (0-based) that play onto a dragon
    names: dict                  # normalised dragon name -> number
    automa_corners: tuple        # corner id of each Automa card (engine card index = position)
    automa_levels: dict          # level name (AUTOMA_LEVELS) -> the 8 card indexes of that level
    automa_objective: tuple      # objective coins each Automa card adds (+1 / 0 / -1)
    automa_passes: tuple         # whether each Automa card shows the pass icon
    automa_playable: int         # of her 8 cards, how many she plays a round
    automa_markers: tuple        # markers she has at the start, and gains each round
    solo_objectives: frozenset   # (tile, side) pairs used in solo (the Automa can score them)
    solo_removed: frozenset      # dragons that leave the game in solo


@functools.lru_cache(maxsize=None)
def _rules(printing: str) -> _Rules:
    db = load_database(printing)
    track = db.guild["track"]
    cover = {t: tuple(a for a, ab in enumerate(tile.abilities) if "onto=dragon" in ab.effect.text)
             for t, tile in enumerate(db.guild_tiles)}
    return _Rules(
        mat_nests=int(db.mat["mat_nests"]), explore_max=int(db.mat["explore"]["max_per_cave"]),
        markers=int(track["markers"]), brown=tuple(track["brown"]), track_spaces=len(track["spaces"]),
        fixed_vp=tuple(db.guild["fixed_vp_spot"]["vp"]), objective_vp=db.objective_vp,
        swap_dragons=frozenset(d.number for d in db.dragons
                               if any("swap_dragons" in a.text for a in d.abilities)),
        swap_caves=frozenset(k.number for k in db.caves if any("swap_dragons" in a.text for a in k.abilities)),
        cover_abilities=cover, names={_norm_name(d.name): d.number for d in db.dragons},
        automa_corners=tuple(a.corner for a in db.automa_cards),
        automa_levels={name: tuple([a.corner for a in db.automa_cards].index(x)
                                   for x in db.automa_levels[name if name[0] == "R" else "L" + name])
                       for name in AUTOMA_LEVELS},
        automa_objective=tuple(a.objective for a in db.automa_cards),
        automa_passes=tuple(a.passes for a in db.automa_cards),
        automa_playable=8 - int(db.automa_turns["set_aside"]),
        automa_markers=(int(db.automa_turns["markers_at_start"]), int(db.automa_turns["markers_per_round"])),
        solo_objectives=frozenset((t, s) for t, tile in enumerate(db.objectives)
                                  for s, side in enumerate((tile.a, tile.b)) if side.solo),
        solo_removed=frozenset(_solo_removed()))


def _solo_removed():
    from advisor._core import LEFT_NEIGHBOUR_DRAGONS
    return LEFT_NEIGHBOUR_DRAGONS


def brown_spaces_reached(steps: int, rules: _Rules) -> int:
    """How many times a guild token that moved `steps` steps from START reached a brown space."""
    n = 0
    for b in rules.brown:
        first = b if b > 0 else rules.track_spaces
        if steps >= first:
            n += (steps - first) // rules.track_spaces + 1
    return n


def last_brown_space(steps: int, rules: _Rules) -> int:
    """The step count at which a token that moved `steps` steps last reached a brown space (0: never)."""
    browns = [s for s in range(1, steps + 1) if s % rules.track_spaces in rules.brown]
    return browns[-1] if browns else 0


def _corner_key(v) -> str:
    """A corner id as typed, for matching: "R 2", "r2" and "R  2" are the same."""
    return re.sub(r"\s+", "", str(v)).upper()


def _fixed_spot_vp(i: int, rules: _Rules) -> int:
    """VP of the i-th (0-based) marker placed on the fixed-VP spot."""
    return rules.fixed_vp[min(i, len(rules.fixed_vp) - 1)]


# ---------------------------------------------------------------------------- paths and values
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_str(s: str) -> str:
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _toml_str(k)


def _join(path: str, key: str) -> str:
    return f"{path}.{_key(key)}" if path else _key(key)


def _at(path: str, i: int) -> str:
    """A list element's path; positions count from 1."""
    return f"{path}[{i + 1}]"


def _show(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return repr(v)
    return str(v)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ---------------------------------------------------------------------------- the checker
class _Checker:
    """Collects every problem of a file; each helper returns None for a bad value."""

    def __init__(self, filename: str):
        self.file = filename
        self.errors: list[str] = []
        self.places: dict[tuple[str, int], str] = {}
        self.db: Database | None = None
        self.solo = False

    def err(self, path: str, msg: str) -> None:
        self.errors.append(f"{self.file}: {path}: {msg}")

    def table(self, v, path: str):
        if not isinstance(v, dict):
            self.err(path, f"must be a table, got {_show(v)}")
            return None
        return v

    def fields(self, tbl: dict, path: str, allowed, required=(), hint: str = "") -> None:
        for k in tbl:
            if k not in allowed:
                close = difflib.get_close_matches(k, list(allowed), n=1, cutoff=0.6)
                extra = f" (did you mean '{close[0]}'?)" if close else hint
                self.err(_join(path, k), f"unknown field{extra}")
        for k in required:
            if k not in tbl:
                self.err(_join(path, k), "missing (this field is required)")

    def integer(self, v, path: str, lo: int, hi: int, what: str = ""):
        if isinstance(v, bool) or not isinstance(v, int):
            self.err(path, f"must be a whole number, got {_show(v)}")
            return None
        if not lo <= v <= hi:
            self.err(path, f"{v} is out of range {lo}..{hi}{what}")
            return None
        return v

    def field_int(self, tbl: dict, key: str, path: str, lo: int, hi: int, default=..., what: str = ""):
        if key not in tbl:
            return None if default is ... else default
        return self.integer(tbl[key], _join(path, key), lo, hi, what)

    def boolean(self, v, path: str):
        if not isinstance(v, bool):
            self.err(path, f"must be true or false, got {_show(v)}")
            return None
        return v

    def string(self, v, path: str):
        if not isinstance(v, str):
            self.err(path, f"must be a text in quotes, got {_show(v)}")
            return None
        return v

    def array(self, v, path: str, max_len: int | None = None):
        if not isinstance(v, list):
            self.err(path, f"must be a list, got {_show(v)}")
            return None
        if max_len is not None and len(v) > max_len:
            self.err(path, f"has {len(v)} entries, at most {max_len} allowed")
            return None
        return v

    def card(self, v, kind: str, path: str):
        """A dragon or cave card number from a name (tolerant) or a number."""
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            self.err(path, f"must be a {kind} card name or number, got {_show(v)}")
            return None
        if kind == "dragon" and isinstance(v, str):
            n = _rules(self.db.printing).names.get(_norm_name(v))
            if n is not None:
                return n
        try:
            card = self.db.lookup(str(v), kind)
        except CardLookupError as e:
            self.err(path, str(e))
            return None
        if card.kind != kind:
            self.err(path, f"{_show(v)} is a {card.kind} card, not a {kind} card")
            return None
        return card.number

    def name(self, v, kind: str):
        return self.db.dragon(v).name if kind == "dragon" else self.db.cave(v).name

    def place(self, kind: str, number: int, path: str) -> bool:
        """Record where a card is; a second place is an error."""
        first = self.places.get((kind, number))
        if first is not None:
            self.err(path, f"'{self.name(number, kind)}' is already at {first} (a card is in one place only)")
            return False
        self.places[(kind, number)] = path
        return True

    def player_name(self, v, names, path: str):
        v = self.string(v, path)
        if v is None or names is None:
            return None
        if v in names:
            return names.index(v)
        close = difflib.get_close_matches(v, list(names), n=1, cutoff=0.5)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        if self.solo and len(names) == 2:          # the guild's seats: the human and the Automa
            self.err(path, f"'{v}' is neither the human player nor the Automa ({', '.join(names)}){hint}")
        else:
            self.err(path, f"'{v}' is not in turn_order ({', '.join(names)}){hint}")
        return None


# ---------------------------------------------------------------------------- the position
@dataclass
class Position:
    """A checked position. `viewer` is the seat (0-based, in turn order) whose view it is. In a solo
    position `names` holds the human only and the Automa (`automa_level`) is engine seat 1."""
    filename: str
    printing: str
    names: tuple
    viewer: int
    round: int
    core: dict = field(repr=False)          # the engine state without the cards the viewer cannot see
    unknown_hand: tuple = field(repr=False)  # per seat: (dragon cards, cave cards) not known
    unknown_tucked: int = field(repr=False)  # face-down tucked cards the viewer does not know
    automa_level: str | None = None          # solo: her level ("1".."3", "R1".."R3")
    automa_unrevealed: tuple = field(default=(), repr=False)  # solo: her cards not revealed this round

    @property
    def players(self) -> int:
        """Players in the file: 1 in a solo game (the Automa is not counted)."""
        return len(self.names)

    @property
    def solo(self) -> bool:
        return self.automa_level is not None

    def to_game(self, seed: int = 0):
        """The engine game at the start of the viewer's turn. Every card the viewer cannot see
        (opponents' unknown hand cards, the decks, face-down tucked cards) is dealt from the unseen
        pool in an order drawn from `seed`; the engine's RNG is seeded from it too. In a solo game
        the order of the Automa's unrevealed cards (which of them is set aside) is drawn too."""
        import copy

        from advisor._core import EngineError, Game
        core = copy.deepcopy(self.core)
        rng = random.Random(seed)
        for kind, total, deck in (("dragons", N_DRAGONS, "deck_dragons"), ("caves", N_CAVES, "deck_caves")):
            seen = set(core[f"display_{kind}"]) | set(core[f"discard_{kind}"])
            seen |= set(core.get(f"public_{kind}", ()))         # the Automa's cards, face up by her
            if kind == "dragons" and self.solo:
                seen |= _rules(self.printing).solo_removed      # not in a solo game
            for P in core["players"]:
                seen |= set(P[f"hand_{kind}"])
                seen |= {c for row in P[kind] for c in row}
            if kind == "dragons":
                seen |= set(core["players"][self.viewer]["seen_dragons"])
            pool = [c for c in range(1, total + 1) if c not in seen]
            rng.shuffle(pool)
            for q, P in enumerate(core["players"]):
                need = self.unknown_hand[q][0 if kind == "dragons" else 1]
                P[f"hand_{kind}"] = sorted(P[f"hand_{kind}"] + pool[:need])
                del pool[:need]
            if kind == "dragons":
                del pool[:self.unknown_tucked]      # face down under dragons: out of play
            core[deck] = pool
        if self.solo:
            rest = list(self.automa_unrevealed)
            rng.shuffle(rest)
            core["automa"]["deck"] = core["automa"]["deck"] + rest
        core["rng"] = rng.getrandbits(64)
        try:
            game = Game.from_dict({"core": core, "printing": self.printing})
        except (EngineError, ValueError, OverflowError, KeyError, TypeError) as e:
            raise PositionError([f"{self.filename}: the engine cannot start from this position "
                                 f"(an engine problem, please report it): {e}"]) from None
        if (game.is_terminal() or game.phase != "turn" or game.active != self.viewer
                or game.decider != self.viewer or game.decision != "move" or game.decisions_in_segment):
            raise PositionError([f"{self.filename}: viewer: {self.names[self.viewer]} can only pass "
                                 "(nothing else is affordable), so there is no decision to advise on"])
        return game


def load_position(path) -> Position:
    """Read and check a position file."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise PositionError([f"{name}: cannot read the file: {e.strerror or e}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PositionError([f"{name}: not UTF-8 text (byte {raw[e.start]:#04x} at offset {e.start})"]) from None
    return parse_position(text, name)


def parse_position(text: str, filename: str = "<position>") -> Position:
    """Check a position given as TOML text; raise PositionError listing every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PositionError([_toml_error(filename, e)]) from None
    except Exception as e:             # tomllib may fail in other ways on hostile input (deep nesting)
        raise PositionError([f"{filename}: not valid TOML: {type(e).__name__}"]) from None
    c = _Checker(filename)
    try:
        pos = _check(c, data)
    except Exception as e:             # a bug in the checks: still one readable line, never a traceback
        c.errors.append(f"{filename}: internal error while checking the position "
                        f"({type(e).__name__}: {e}); please report it")
        pos = None
    if c.errors or pos is None:
        raise PositionError(c.errors)
    return pos


def _toml_error(filename: str, e: Exception) -> str:
    msg = str(e)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    where = "end of file"
    if m:
        where = f"line {m.group(1)}, column {m.group(2)}"
        msg = msg[:m.start()]
    else:
        m = re.search(r"\s*\(at end of document\)$", msg)
        if m:
            msg = msg[:m.start()]
    msg = msg[:1].lower() + msg[1:]
    return f"{filename}: {where}: not valid TOML: {msg}"


# ---------------------------------------------------------------------------- checking a file
def _check(c: _Checker, data: dict) -> Position | None:
    solo = c.solo = type(data.get("players")) is int and data["players"] == 1
    c.fields(data, "", _TOP_FIELDS,
             required=("players", "viewer", "round", "turn_order", "objectives", "guild", "display", "player")
             + (() if solo else ("start_player",)))
    if solo and "automa" not in data:
        c.err("automa", "missing: a solo game (players = 1) needs an [automa] section (the Automa's level "
                        "and state)")
    if "format" in data:
        v = c.integer(data["format"], "format", -(2 ** 63), 2 ** 63)
        if v is not None and v != FORMAT_VERSION:
            c.err("format", f"format {v} is not supported (this advisor reads format {FORMAT_VERSION})")
    printing = "base"
    if "printing" in data:
        v = c.string(data["printing"], "printing")
        if v is not None and v not in PRINTINGS:
            c.err("printing", f"'{v}' is not a printing (base or 2025)")
        elif v is not None:
            printing = v
    c.db = load_database(printing)
    rules = _rules(printing)

    n_players = None
    if "players" in data:
        n_players = c.integer(data["players"], "players", MIN_PLAYERS, MAX_PLAYERS)
    if "automa" in data and n_players is not None and n_players != 1:
        c.err("automa", f"an [automa] section is for solo games (players = 1), not {n_players} players")

    names = None
    if "turn_order" in data:
        lst = c.array(data["turn_order"], "turn_order")
        if lst is not None:
            ok = True
            seen = set()
            for i, v in enumerate(lst):
                s = c.string(v, _at("turn_order", i))
                if s is None:
                    ok = False
                elif not s.strip():
                    c.err(_at("turn_order", i), "a player's name cannot be empty")
                    ok = False
                elif s in seen:
                    c.err(_at("turn_order", i), f"'{s}' is listed twice")
                    ok = False
                seen.add(s)
            if ok and n_players is not None and len(lst) != n_players:
                c.err("turn_order", f"lists {_plural(len(lst), 'player')} but players = {n_players}")
                ok = False
            elif ok and not MIN_PLAYERS <= len(lst) <= MAX_PLAYERS:
                c.err("turn_order", f"lists {_plural(len(lst), 'player')}, expected {MIN_PLAYERS}..{MAX_PLAYERS}")
                ok = False
            if ok and solo and lst[0].strip().lower() == AUTOMA_NAME.lower():
                c.err(_at("turn_order", 0), f"'{lst[0]}' names the Automa in a solo game; give the human "
                                            "player another name")
                ok = False
            if ok:
                names = tuple(lst)
    # in a solo game the Automa is a seat of the guild tile, but she has no view, no turn order
    # place of her own and no [player] table
    seats = names + (AUTOMA_NAME,) if names is not None and solo else names

    def who(v, path, automa_hint):
        if solo and isinstance(v, str) and v.strip().lower() == AUTOMA_NAME.lower():
            c.err(path, automa_hint)
            return None
        return c.player_name(v, names, path)

    viewer = (who(data["viewer"], "viewer", "the Automa has no view: in a solo game the viewer is the "
                                            "human player") if "viewer" in data else None)
    start = 0 if solo else None
    if "start_player" in data:
        start = who(data["start_player"], "start_player", "the human player starts every round of a "
                                                          "solo game")
    passed = set()
    if "passed" in data:
        lst = c.array(data["passed"], "passed")
        for i, v in enumerate(lst or []):
            q = who(v, _at("passed", i), "the Automa's pass is written in the automa section "
                                         "(passed = true)")
            if q is None:
                continue
            if q in passed:
                c.err(_at("passed", i), f"'{names[q]}' is listed twice")
            elif q == viewer:
                c.err(_at("passed", i), f"the viewer '{names[q]}' cannot have passed: the position is "
                                        "at the start of their turn")
            passed.add(q)

    round_ = c.integer(data["round"], "round", 1, ROUNDS) if "round" in data else None

    objectives = None
    if "objectives" in data:
        objectives = _check_objectives(c, data["objectives"])
        if solo and objectives is not None:
            for i, (tile, side) in enumerate(objectives):
                if (tile, side) not in rules.solo_objectives:
                    c.err(_at("objectives", i), f"{tile + 1}{'ab'[side]} is not used in solo games (the "
                                                f"Automa cannot score it; its other side "
                                                f"{tile + 1}{'ab'[1 - side]} is used instead)")

    # guild tile and display first; players next; then cards everywhere
    guild = None
    if "guild" in data:
        guild = _check_guild(c, data["guild"], seats, n_players)

    display = {"dragons": [0, 0, 0], "caves": [0, 0, 0], "empty_dragons": 0, "empty_caves": 0}
    if "display" in data:
        t = c.table(data["display"], "display")
        if t is not None:
            c.fields(t, "display", ("dragons", "caves"), required=("dragons", "caves"))
            for kind in ("dragons", "caves"):
                if kind in t:
                    path = f"display.{kind}"
                    lst = c.array(t[kind], path, max_len=3)
                    for i, v in enumerate(lst or []):
                        if isinstance(v, str) and v.strip().lower() in ("", EMPTY_SLOT):
                            display[f"empty_{kind}"] += 1
                            continue
                        n = c.card(v, kind[:-1], _at(path, i))
                        if n is not None and c.place(kind[:-1], n, _at(path, i)):
                            display[kind][i] = n
                    if lst is not None and len(lst) < 3:
                        display[f"empty_{kind}"] += 3 - len(lst)

    discards = {"dragons": [], "caves": []}            # left out: not known, the cards count as unseen
    if "discards" in data:
        t = c.table(data["discards"], "discards")
        if t is not None:
            c.fields(t, "discards", ("dragons", "caves"))
            for kind in ("dragons", "caves"):
                if kind in t:
                    path = f"discards.{kind}"
                    for i, v in enumerate(c.array(t[kind], path) or []):
                        n = c.card(v, kind[:-1], _at(path, i))
                        if n is not None and c.place(kind[:-1], n, _at(path, i)):
                            discards[kind].append(n)

    known_tucked = []
    if "known_tucked" in data:
        for i, v in enumerate(c.array(data["known_tucked"], "known_tucked") or []):
            n = c.card(v, "dragon", _at("known_tucked", i))
            if n is not None and c.place("dragon", n, _at("known_tucked", i)):
                known_tucked.append(n)

    players = None
    if "player" in data:
        t = c.table(data["player"], "player")
        if t is not None and names is not None:
            for k in t:
                if k not in names:
                    close = difflib.get_close_matches(k, list(names), n=1, cutoff=0.5)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    c.err(_join("player", k), f"'{k}' is not in turn_order ({', '.join(names)}){hint}")
            players = []
            for q, name in enumerate(names):
                path = _join("player", name)
                if name not in t:
                    c.err(path, f"missing: every player in turn_order needs a [{path}] table")
                    players.append(None)
                    continue
                players.append(_check_player(c, t[name], path, q == viewer if viewer is not None else None,
                                             round_, rules))

    automa = None
    if "automa" in data and solo:
        automa = _check_automa(c, data["automa"], round_, rules)
    if solo:
        for (kind, number), path in list(c.places.items()):
            if kind == "dragon" and number in rules.solo_removed:
                c.err(path, f"'{c.name(number, 'dragon')}' is not used in solo games (the 5 dragons "
                            "whose abilities affect a left neighbour leave the deck)")

    _cross_checks(c, rules, seats, players, guild, round_, display, discards, known_tucked, automa)
    if c.errors:
        return None
    return _build(c, printing, rules, names, viewer, start, passed, round_, objectives, guild, display,
                  discards, known_tucked, players, automa)


def _check_objectives(c: _Checker, v):
    lst = c.array(v, "objectives")
    if lst is None:
        return None
    if len(lst) != ROUNDS:
        c.err("objectives", f"needs {ROUNDS} tiles (one per round, e.g. \"3a\"), got {len(lst)}")
        return None
    out = []
    for i, x in enumerate(lst):
        path = _at("objectives", i)
        s = c.string(x, path)
        if s is None:
            out.append(None)
            continue
        m = re.fullmatch(r"\s*(\d{1,3})\s*([abAB])\s*", s)
        if not m or not 1 <= int(m.group(1)) <= len(c.db.objectives):
            c.err(path, f"'{s}' is not an objective tile and side (1a to {len(c.db.objectives)}b)")
            out.append(None)
            continue
        tile = int(m.group(1)) - 1
        if any(o is not None and o[0] == tile for o in out):
            c.err(path, f"tile {tile + 1} is used twice (the 4 rounds have 4 different tiles)")
        out.append((tile, "ab".index(m.group(2).lower())))
    return None if None in out else out


def _check_guild(c: _Checker, v, names, n_players):
    t = c.table(v, "guild")
    if t is None:
        return None
    c.fields(t, "guild", _GUILD_FIELDS, required=("tile",))
    tile = None
    if "tile" in t:
        x = t["tile"]
        tiles = c.db.guild_tiles
        if isinstance(x, int) and not isinstance(x, bool):
            tile = c.integer(x, "guild.tile", 1, len(tiles))
            tile = None if tile is None else tile - 1
        elif isinstance(x, str):
            q = _norm_name(x)
            hits = [i for i, g in enumerate(tiles) if q and (q == _norm_name(g.name) or q in _norm_name(g.name))]
            if re.fullmatch(r"\d+", x.strip()) and 1 <= int(x) <= len(tiles):
                hits = [int(x) - 1]
            if len(hits) == 1:
                tile = hits[0]
            else:
                c.err("guild.tile", f"'{x}' is not a guild tile ({', '.join(g.name for g in tiles)})")
        else:
            c.err("guild.tile", f"must be a guild tile name or number, got {_show(x)}")
    if "side" in t:
        s = c.string(t["side"], "guild.side")
        if s is not None:
            s = s.strip().replace(" players", "").replace(" ", "")
            if s not in GUILD_SIDES:
                c.err("guild.side", f"'{t['side']}' is not a side ({' or '.join(GUILD_SIDES)})")
            elif n_players is not None and s != GUILD_SIDES[n_players > 2]:
                c.err("guild.side", f"the tile is on side {GUILD_SIDES[n_players > 2]} "
                                    f"with {n_players} players, not {s}")
    spots = []
    for a in range(4):
        key = f"ability_{a + 1}"
        path = f"guild.{key}"
        seats = []
        if key in t:
            lst = c.array(t[key], path)
            for i, x in enumerate(lst or []):
                q = c.player_name(x, names, _at(path, i))
                seats.append(q)
            if tile is not None and lst is not None:
                uses = c.db.guild_tiles[tile].abilities[a].uses
                if len(lst) > uses:
                    c.err(path, f"{_plural(len(lst), 'marker')} but ability {a + 1} of "
                                f"{c.db.guild_tiles[tile].name} has {_plural(uses, 'spot')}")
        spots.append(seats)
    fixed = []
    if "fixed_vp" in t:
        for i, x in enumerate(c.array(t["fixed_vp"], "guild.fixed_vp") or []):
            fixed.append(c.player_name(x, names, _at("guild.fixed_vp", i)))
    bad = any(q is None for seats in spots + [fixed] for q in seats)
    return {"tile": tile, "spots": spots, "fixed": fixed, "bad": bad}


def _check_automa(c: _Checker, v, round_, rules: _Rules):
    """The [automa] section of a solo position."""
    t = c.table(v, "automa")
    if t is None:
        return None
    c.fields(t, "automa", _AUTOMA_FIELDS, required=("level",))
    A = {"level": None, "revealed": None, "dragons": [], "caves": []}
    if "level" in t:
        x = t["level"]
        if isinstance(x, bool) or not isinstance(x, (str, int)):
            c.err("automa.level", f"must be an Automa level ({', '.join(AUTOMA_LEVELS)}), got {_show(x)}")
        else:
            key = _corner_key(x)
            key = key[1:] if re.fullmatch(r"L[123]", key) else key
            if key in AUTOMA_LEVELS:
                A["level"] = key
            else:
                c.err("automa.level", f"'{x}' is not an Automa level ({', '.join(AUTOMA_LEVELS)}; "
                                      "R1-R3 are the Ravel levels)")
    corners = {_corner_key(k): i for i, k in enumerate(rules.automa_corners)}
    revealed = [] if "revealed" not in t else None
    if "revealed" in t:
        path = "automa.revealed"
        lst = c.array(t["revealed"], path)
        if lst is not None:
            out = []
            for i, x in enumerate(lst):
                p = _at(path, i)
                if isinstance(x, bool) or not isinstance(x, (str, int)):
                    c.err(p, f"must be a card's corner id in quotes (e.g. \"1/4\", \"R 2\"), got {_show(x)}")
                    out.append(None)
                    continue
                card = corners.get(_corner_key(x))
                if card is None:
                    close = difflib.get_close_matches(str(x).strip(), list(rules.automa_corners), n=1,
                                                      cutoff=0.5)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    c.err(p, f"'{x}' is not the corner id of an Automa card "
                             f"({', '.join(rules.automa_corners)}){hint}")
                elif A["level"] is not None and card not in rules.automa_levels[A["level"]]:
                    ids = ", ".join(rules.automa_corners[k] for k in rules.automa_levels[A["level"]])
                    c.err(p, f"'{rules.automa_corners[card]}' is not one of the 8 cards of level "
                             f"{A['level']} ({ids})")
                    card = None
                elif card in out:
                    c.err(p, f"'{rules.automa_corners[card]}' is listed twice (each of her cards is "
                             "revealed once a round)")
                    card = None
                out.append(card)
            if len(lst) > rules.automa_playable:
                aside = 8 - rules.automa_playable
                c.err(path, f"{_plural(len(lst), 'card')} revealed but she plays at most "
                            f"{rules.automa_playable} a round ({aside} of her 8 cards "
                            f"{'is' if aside == 1 else 'are'} set aside unseen)")
            elif None not in out:
                revealed = out
    if A["level"] is not None:
        A["revealed"] = revealed
    for kind in ("dragons", "caves"):
        if kind not in t:
            continue
        path = f"automa.{kind}"
        x = t[kind]
        if not isinstance(x, list):
            c.err(path, f"must be a list of the {kind[:-1]} cards she took (she keeps them face up), "
                        f"got {_show(x)}")
            continue
        for i, y in enumerate(x):
            n = c.card(y, kind[:-1], _at(path, i))
            if n is not None and c.place(kind[:-1], n, _at(path, i)):
                A[kind].append(n)
    A["guild_steps"] = c.field_int(t, "guild_steps", "automa", 0, MAX_GUILD_STEPS, 0)
    A["last_brown"] = c.field_int(t, "last_brown", "automa", 0, MAX_GUILD_STEPS, None)
    A["markers"] = c.field_int(t, "markers", "automa", 0, 99, None)
    A["passed"] = c.boolean(t["passed"], "automa.passed") if "passed" in t else None
    # objective coins: one value per round so far; the current round's follows from her revealed cards
    coins = None
    if A["revealed"] is not None:
        coins = 0
        for i, card in enumerate(A["revealed"]):
            if i == rules.automa_playable - 1 and rules.automa_passes[card]:
                break           # her last playable card with the pass icon is not resolved
            coins = max(0, coins + rules.automa_objective[card])
    A["objective_coins"] = None if round_ is None else [0] * ROUNDS
    if "objective_coins" in t:
        opath = "automa.objective_coins"
        lst = c.array(t["objective_coins"], opath)
        if lst is not None and round_ is not None and len(lst) != round_:
            c.err(opath, f"{_plural(len(lst), 'value')} given but this is round {round_} (one value per "
                         "round so far, the current one included)")
            A["objective_coins"] = None
        elif lst is not None and round_ is not None:
            for r, x in enumerate(lst):
                n = c.integer(x, _at(opath, r), 0, MAX_OBJECTIVE_COINS)
                if n is not None and r == round_ - 1 and coins is not None and n != coins:
                    c.err(_at(opath, r), f"is {n} but the cards she revealed this round leave {coins} "
                                         f"on round {round_}'s objective")
                    n = None
                if n is None:
                    A["objective_coins"] = None
                elif A["objective_coins"] is not None:
                    A["objective_coins"][r] = n
        else:
            A["objective_coins"] = None
    elif round_ is not None and coins is not None:
        A["objective_coins"][round_ - 1] = coins
    A["objective_vp"] = _check_objective_vp(c, t, "automa", round_, rules)
    if A["passed"] is not None and A["revealed"] is not None:
        done = len(A["revealed"]) >= rules.automa_playable
        if A["passed"] and not done:
            c.err("automa.passed", f"she passes after her {_ordinal(rules.automa_playable)} card of the "
                                   f"round (at a pass icon on that card she passes instead of playing it); she has revealed "
                                   f"{len(A['revealed'])}")
        elif not A["passed"] and done:
            c.err("automa.passed", f"she has revealed {rules.automa_playable} cards, her last of the "
                                   "round, so she has passed")
    if A["last_brown"] is not None and A["guild_steps"] is not None:
        want = last_brown_space(A["guild_steps"], rules)
        if A["last_brown"] != want:
            c.err("automa.last_brown", f"is {A['last_brown']} but with guild_steps {A['guild_steps']} the "
                                       + (f"last brown space she reached is at step {want}" if want
                                          else "token has reached no brown space yet (0)"))
    return A


def _check_objective_vp(c: _Checker, t: dict, path: str, round_, rules: _Rules) -> list:
    """`objective_vp` of a player table or the automa section: one value per finished round."""
    obj = [0, 0, 0, 0]
    if "objective_vp" in t:
        opath = _join(path, "objective_vp")
        lst = c.array(t["objective_vp"], opath)
        if lst is not None and round_ is not None and len(lst) != round_ - 1:
            c.err(opath, f"{_plural(len(lst), 'value')} given but {_plural(round_ - 1, 'objective')} "
                         f"scored before round {round_} (one value per finished round)")
            obj = [None] * ROUNDS
        elif lst is not None:
            for r, x in enumerate(lst[:ROUNDS]):
                allowed = sorted(set(rules.objective_vp[r]) | {0}, reverse=True)
                n = c.integer(x, _at(opath, r), 0, max(allowed))
                if n is not None and n not in allowed:
                    c.err(_at(opath, r), f"{n} VP is not possible in round {r + 1} "
                                         f"({', '.join(map(str, allowed))})")
                    n = None
                obj[r] = n
    return obj


def _check_player(c: _Checker, v, path: str, is_viewer, round_, rules: _Rules):
    t = c.table(v, path)
    if t is None:
        return None
    c.fields(t, path, _PLAYER_FIELDS, required=("coins", "hand"))
    P = {"path": path}
    P["coins"] = c.field_int(t, "coins", path, 0, MAX_COINS)
    res = [0, 0, 0, 0]
    if "resources" in t:
        rt = c.table(t["resources"], _join(path, "resources"))
        if rt is not None:
            c.fields(rt, _join(path, "resources"), RESOURCES)
            for r, name in enumerate(RESOURCES):
                res[r] = c.field_int(rt, name, _join(path, "resources"), 0, MAX_RESOURCES, 0)
    P["resources"] = res
    P["mat_eggs"] = c.field_int(t, "mat_eggs", path, 0, rules.mat_nests, 0,
                                f" (the mat has {rules.mat_nests} nests)")
    P["guild_steps"] = c.field_int(t, "guild_steps", path, 0, MAX_GUILD_STEPS, 0)
    P["markers_left"] = c.field_int(t, "markers_left", path, 0, rules.markers, None)
    P["objective_vp"] = _check_objective_vp(c, t, path, round_, rules)
    P["hand"] = _check_hand(c, t["hand"], _join(path, "hand"), is_viewer) if "hand" in t else None
    P["rows"] = [_check_row(c, t.get(cave), _join(path, cave), cave, rules) for cave in CAVES]
    return P


def _check_hand(c: _Checker, v, path: str, is_viewer):
    t = c.table(v, path)
    if t is None:
        return None
    c.fields(t, path, ("dragons", "caves", "known_dragons", "known_caves"), required=("dragons", "caves"))
    H = {"dragons": [], "caves": [], "n_dragons": None, "n_caves": None, "known_dragons": [], "known_caves": []}
    for kind in ("dragons", "caves"):
        kpath = _join(path, kind)
        if kind in t:
            x = t[kind]
            listed = isinstance(x, list)
            if is_viewer is True and not listed:
                c.err(kpath, "the viewer's hand lists its cards by name (a number of cards is for "
                             f"opponents), got {_show(x)}")
            elif is_viewer is False and listed:
                c.err(kpath, f"an opponent's hand is a number of cards; list the cards known to be "
                             f"there in known_{kind}")
            elif listed:
                for i, y in enumerate(x):
                    n = c.card(y, kind[:-1], _at(kpath, i))
                    if n is not None and c.place(kind[:-1], n, _at(kpath, i)):
                        H[kind].append(n)
                H[f"n_{kind}"] = len(H[kind])
                H[f"complete_{kind}"] = len(H[kind]) == len(x)
            else:
                n = c.integer(x, kpath, 0, N_DRAGONS if kind == "dragons" else N_CAVES)
                H[f"n_{kind}"] = n
        key = f"known_{kind}"
        if key in t:
            kp = _join(path, key)
            lst = c.array(t[key], kp)
            for i, y in enumerate(lst or []):
                n = c.card(y, kind[:-1], _at(kp, i))
                if n is None:
                    continue
                if is_viewer:
                    if n not in H[kind] and not H.get(f"complete_{kind}"):
                        continue        # the hand has a bad entry, already reported
                    if n not in H[kind]:
                        c.err(_at(kp, i), f"'{c.name(n, kind[:-1])}' is not in hand.{kind} "
                                          "(known cards are some of the hand's cards)")
                    elif n in H[key]:
                        c.err(_at(kp, i), f"'{c.name(n, kind[:-1])}' is listed twice")
                    else:
                        H[key].append(n)
                elif c.place(kind[:-1], n, _at(kp, i)):
                    H[key].append(n)
            if not is_viewer and lst is not None and isinstance(H[f"n_{kind}"], int) \
                    and len(lst) > H[f"n_{kind}"]:
                c.err(kp, f"{_plural(len(lst), 'known card')} but the hand has "
                          f"{_plural(H[f'n_{kind}'], kind[:-1] + ' card')}")
    return H


def _check_row(c: _Checker, v, path: str, cave: str, rules: _Rules):
    row = {"path": path, "explores": 0, "dragons": [0] * 4, "caves": [0] * 4, "eggs": [0] * 4,
           "cached": [[0] * 4 for _ in range(4)], "tucked": [0] * 4, "grown": [None] * 4,
           "swapped": [False] * 4}
    if v is None:
        return row
    t = c.table(v, path)
    if t is None:
        return row
    for k in t:
        if k == "explores" or k in ("1", "2", "3", "4"):
            continue
        if re.fullmatch(r"\d+", k):
            c.err(_join(path, k), "there is no such column (columns are 1 to 4)")
        else:
            close = difflib.get_close_matches(k, ["explores"], n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else " (a cave has 'explores' and columns 1 to 4)"
            c.err(_join(path, k), f"unknown field{hint}")
    row["explores"] = c.field_int(t, "explores", path, 0, rules.explore_max, 0,
                                  f" (a cave is explored at most {rules.explore_max} times a round)")
    for k in range(4):
        key = str(k + 1)
        if key not in t:
            continue
        spath = _join(path, key)
        s = c.table(t[key], spath)
        if s is None:
            continue
        c.fields(s, spath, _SPACE_FIELDS)
        d = cc = None
        if "cave" in s:
            if k == 0:
                c.err(_join(spath, "cave"), "column 1 is excavated from the start and holds no cave card")
            else:
                cc = c.card(s["cave"], "cave", _join(spath, "cave"))
                if cc is not None and c.place("cave", cc, _join(spath, "cave")):
                    row["caves"][k] = cc
        if "dragon" in s:
            d = c.card(s["dragon"], "dragon", _join(spath, "dragon"))
            if d is not None and c.place("dragon", d, _join(spath, "dragon")):
                row["dragons"][k] = d
            else:
                d = None
        has_dragon = "dragon" in s
        dragon = c.db.dragon(d) if d else None
        if "eggs" in s:
            n = c.integer(s["eggs"], _join(spath, "eggs"), 0, 9)
            if n is not None and not has_dragon:
                c.err(_join(spath, "eggs"), "there is no dragon here to hold eggs")
            elif n is not None and dragon is not None and n > dragon.capacity:
                if dragon.capacity == 0:
                    c.err(_join(spath, "eggs"), f"'{dragon.name}' holds no eggs (capacity 0), got {n}")
                else:
                    c.err(_join(spath, "eggs"), f"'{dragon.name}' holds at most "
                                                f"{_plural(dragon.capacity, 'egg')}, got {n}")
            elif n is not None:
                row["eggs"][k] = n
        if "cached" in s:
            cpath = _join(spath, "cached")
            ct = c.table(s["cached"], cpath)
            if ct is not None:
                c.fields(ct, cpath, RESOURCES)
                for r, name in enumerate(RESOURCES):
                    n = c.field_int(ct, name, cpath, 0, MAX_RESOURCES, 0)
                    row["cached"][k][r] = n or 0
                if not has_dragon and any(ct.values()):
                    c.err(cpath, "there is no dragon here to cache resources on")
        if "tucked" in s:
            n = c.integer(s["tucked"], _join(spath, "tucked"), 0, MAX_TUCKED)
            if n is not None and n and not has_dragon:
                c.err(_join(spath, "tucked"), "there is no dragon here to tuck cards under")
            row["tucked"][k] = n or 0
        if "grown" in s:
            g = c.boolean(s["grown"], _join(spath, "grown"))
            if g is not None and not has_dragon:
                c.err(_join(spath, "grown"), "there is no dragon here")
            elif g and dragon is not None and not dragon.is_hatchling:
                c.err(_join(spath, "grown"), f"'{dragon.name}' is not a hatchling (only hatchlings grow up)")
            elif g is not None:
                row["grown"][k] = g
        if "swapped" in s:
            g = c.boolean(s["swapped"], _join(spath, "swapped"))
            if g is not None and not has_dragon:
                c.err(_join(spath, "swapped"), "there is no dragon here")
            elif g is not None:
                row["swapped"][k] = g
        if dragon is not None:
            if cave not in dragon.caves and not row["swapped"][k]:
                c.err(_join(spath, "dragon"), f"'{dragon.name}' cannot live in {cave} (it lives in "
                                              f"{' or '.join(dragon.caves)}); if a swap put it there, "
                                              "add swapped = true")
            if dragon.is_hatchling:
                feed = _feed_count(dragon, row["cached"][k], row["tucked"][k])
                if row["grown"][k] is None:
                    row["grown"][k] = feed >= 3
                elif row["grown"][k] and feed < 3:
                    c.err(_join(spath, "grown"), f"'{dragon.name}' grows up when its third "
                                                 f"{_feed_name(dragon)} arrives; it has {feed}")
        if row["grown"][k] is None:
            row["grown"][k] = False
    # shape of the row: cave cards from column 2 rightwards, dragons from column 1 rightwards,
    # a dragon only in an excavated space
    spaces = [t.get(str(k + 1), {}) for k in range(4)]     # a space that is not a table: unknown
    for k in range(1, 4):
        spath = _join(path, str(k + 1))
        t_k, prev = spaces[k], spaces[k - 1]
        if not isinstance(t_k, dict):
            continue
        if "cave" in t_k and k >= 2 and isinstance(prev, dict):
            if "cave" not in prev:
                c.err(_join(spath, "cave"), f"a cave card in column {k + 1} needs one in column {k} "
                                            "(cave cards fill columns 2 to 4 from the left)")
        if "dragon" in t_k:
            if "cave" not in t_k:
                c.err(_join(spath, "dragon"), f"column {k + 1} is not excavated: a dragon there needs "
                                              f"a cave card in column {k + 1}")
            if isinstance(prev, dict) and "dragon" not in prev:
                c.err(_join(spath, "dragon"), f"a dragon in column {k + 1} needs one in column {k} "
                                              "(dragons fill a cave from the left)")
    return row


def _feed_count(dragon, cached, tucked) -> int:
    if dragon.feeds == "meat":
        return cached[0]
    if dragon.feeds == "milk":
        return cached[3]
    return tucked


def _feed_name(dragon) -> str:
    return {"meat": "meat", "milk": "milk"}.get(dragon.feeds, "tucked card")


def _cross_checks(c: _Checker, rules: _Rules, names, players, guild, round_, display, discards,
                  known_tucked, automa=None) -> None:
    """`names` are the seats (in a solo game the human and the Automa); `players` the [player] tables."""
    if names is None or players is None:
        return
    ok_players = [P for P in players if P is not None]
    solo = len(names) == len(players) + 1
    # guild markers: every brown space reached with markers left places one
    if guild is not None:
        placed = [0] * len(names)
        cover_markers = [0] * len(names)
        for a, seats in enumerate(guild["spots"]):
            for q in seats:
                if q is not None:
                    placed[q] += 1
                    if guild["tile"] is not None and a in rules.cover_abilities.get(guild["tile"], ()):
                        cover_markers[q] += 1
        for q in guild["fixed"]:
            if q is not None:
                placed[q] += 1
        for q, P in enumerate(players):
            if P is None:
                continue
            P["cover_markers"] = cover_markers[q]
            if P["guild_steps"] is None or guild["bad"]:
                continue                # a bad value is already reported
            expected = min(rules.markers, brown_spaces_reached(P["guild_steps"], rules))
            if placed[q] > rules.markers:
                c.err("guild", f"{names[q]} has {placed[q]} markers on the guild tile; a player has "
                               f"{rules.markers}")
            elif placed[q] != expected:
                c.err(_join(P["path"], "guild_steps"),
                      f"{names[q]}'s guild token reached a brown space "
                      f"{_plural(brown_spaces_reached(P['guild_steps'], rules), 'time')} "
                      f"(guild_steps {P['guild_steps']}), so {_plural(expected, 'marker')} should be on "
                      f"the guild tile; the guild section has {placed[q]}")
            if P["markers_left"] is not None and P["markers_left"] != rules.markers - placed[q] \
                    and placed[q] <= rules.markers:
                c.err(_join(P["path"], "markers_left"),
                      f"is {P['markers_left']} but {names[q]} has {_plural(placed[q], 'marker')} on the "
                      f"guild tile ({rules.markers} in all)")
        if solo and automa is not None and not guild["bad"]:
            _automa_guild_checks(c, rules, guild, round_, automa, placed[1])
    # swapped dragons need a way to swap
    for P in ok_players:
        mat = {d for row in P["rows"] for d in row["dragons"] if d}
        caves = {k for row in P["rows"] for k in row["caves"] if k}
        can_swap = mat & rules.swap_dragons or caves & rules.swap_caves or P.get("cover_markers")
        for row in P["rows"]:
            for k in range(4):
                if row["swapped"][k] and row["dragons"][k] and not can_swap:
                    swappers = [f"'{c.db.dragon(d).name}'" for d in sorted(rules.swap_dragons)]
                    swappers += [f"'{c.db.cave(x).name}'" for x in sorted(rules.swap_caves)]
                    c.err(_join(_join(row["path"], str(k + 1)), "swapped"),
                          f"nothing on this mat swaps dragons (neither {' nor '.join(swappers)} is there)")
    # objective VP: ranks are dense, so a lower rank needs the one above it (solo: her VP count too)
    if round_ is not None and not (solo and automa is None):
        for r in range(round_ - 1):
            vps = rules.objective_vp[r]
            scorers = ok_players + ([{"path": "automa", "objective_vp": automa["objective_vp"]}]
                                    if solo and automa is not None else [])
            have = {P["objective_vp"][r] for P in scorers}
            if None in have:
                continue                # a bad value is already reported
            for P in scorers:
                v = P["objective_vp"][r]
                if not v:
                    continue
                rank = max(i for i, x in enumerate(vps) if x == v)
                if rank > 0 and vps[rank - 1] not in have:
                    c.err(_at(_join(P["path"], "objective_vp"), r),
                          f"{v} VP is {_ordinal(rank + 1)} place in round {r + 1}, but nobody has "
                          f"{_ordinal(rank)} place ({vps[rank - 1]} VP)")
    # cards: no more than exist
    tucked = sum(row["tucked"][k] for P in ok_players for row in P["rows"] for k in range(4)
                 if row["dragons"][k])
    if len(known_tucked) > tucked:
        c.err("known_tucked", f"{_plural(len(known_tucked), 'card')} listed but only "
                              f"{_plural(tucked, 'card')} {'is' if tucked == 1 else 'are'} tucked on the mats")
    for kind, total in (("dragon", N_DRAGONS - (len(rules.solo_removed) if solo else 0)), ("cave", N_CAVES)):
        visible = sum(1 for k, _ in c.places if k == kind)
        unknown = 0
        for P in ok_players:
            H = P["hand"]
            if H is None or not isinstance(H[f"n_{kind}s"], int):
                continue
            unknown += max(0, H[f"n_{kind}s"] - len(H[f"{kind}s"]) - len(H[f"known_{kind}s"]))
        hidden_tucked = max(0, tucked - len(known_tucked)) if kind == "dragon" else 0
        need = visible + unknown + hidden_tucked
        if need > total:
            parts = f"{visible} in sight, {unknown} in opponents' hands unseen"
            if kind == "dragon":
                parts += f", {hidden_tucked} tucked face down"
            c.err("cards", f"{need} {kind} cards are needed ({parts}) but "
                           f"{'a solo game' if solo and kind == 'dragon' else 'the game'} has only {total}")
        elif display[f"empty_{kind}s"] and (need < total or discards[f"{kind}s"]):
            why = (f"here {total - need} unseen {kind} cards would be in the deck" if need < total
                   else "the discard pile is not empty")
            c.err(f"display.{kind}s", f"{_plural(display[f'empty_{kind}s'], 'slot')} empty: a display slot "
                                      f"stays empty only when the deck and the discard pile are both "
                                      f"empty ({why})")


def _automa_markers(rules: _Rules, round_: int) -> int:
    """Guild markers the Automa has had by the given round (1-based)."""
    return rules.automa_markers[0] + (round_ - 1) * rules.automa_markers[1]


def _automa_guild_checks(c: _Checker, rules: _Rules, guild, round_, A, placed: int) -> None:
    """Her markers on the guild tile: one per brown space reached while she had one ready and found a
    free ability (Ravel: or the fixed-VP spot), never more than she has had."""
    fixed = sum(1 for q in guild["fixed"] if q == 1)
    ravel = A["level"] is not None and A["level"].startswith("R")
    if fixed and A["level"] is not None and not ravel:
        c.err("guild.fixed_vp", "the Automa puts markers on the fixed-VP spot only at the Ravel levels "
                                f"(R1-R3); this is level {A['level']}")
    if A["guild_steps"] is None:
        return
    reached = brown_spaces_reached(A["guild_steps"], rules)
    if placed > reached:
        c.err("automa.guild_steps", f"the Automa's guild token reached a brown space "
                                    f"{_plural(reached, 'time')} (guild_steps {A['guild_steps']}), so at most "
                                    f"{_plural(reached, 'marker')} of hers can be on the guild tile; the guild "
                                    f"section has {placed}")
        return
    if round_ is None:
        return
    had = _automa_markers(rules, round_)
    if placed > had:
        c.err("guild", f"the Automa has {placed} markers on the guild tile but only {had} by round {round_} "
                       f"({rules.automa_markers[0]} at the start, {rules.automa_markers[1]} more each round)")
    elif A["markers"] is not None and A["markers"] != had - placed:
        c.err("automa.markers", f"is {A['markers']} but she has {had - placed} ready ({had} by round {round_}, "
                                f"{placed} on the guild tile)")


def _build(c, printing, rules, names, viewer, start, passed, round_, objectives, guild, display,
           discards, known_tucked, players, automa=None) -> Position:
    n = len(names) + (1 if automa is not None else 0)        # seats; the Automa is seat 1
    spots = [[0] * 4 for _ in range(4)]
    tile_markers = [[0] * 4 for _ in range(n)]
    for a, seats in enumerate(guild["spots"]):
        for j, q in enumerate(seats):
            spots[a][j] = q + 1
            tile_markers[q][a] += 1
    fixed_vp = [0] * n
    for i, q in enumerate(guild["fixed"]):
        fixed_vp[q] += _fixed_spot_vp(i, rules)
    out_players = []
    unknown_hand = []
    for q, P in enumerate(players):
        H = P["hand"]
        rows = P["rows"]
        placed = sum(tile_markers[q]) + guild["fixed"].count(q)
        if q == viewer:
            hand_d, hand_c = list(H["dragons"]), list(H["caves"])
            known_d, known_c = list(H["known_dragons"]), list(H["known_caves"])
            unknown_hand.append((0, 0))
        else:
            hand_d, hand_c = list(H["known_dragons"]), list(H["known_caves"])
            known_d, known_c = list(hand_d), list(hand_c)
            unknown_hand.append((H["n_dragons"] - len(hand_d), H["n_caves"] - len(hand_c)))
        out_players.append({
            "dragons": [list(r["dragons"]) for r in rows],
            "caves": [list(r["caves"]) for r in rows],
            "eggs": [list(r["eggs"]) for r in rows],
            "cached": [[list(x) for x in r["cached"]] for r in rows],
            "tucked": [[r["tucked"][k] if r["dragons"][k] else 0 for k in range(4)] for r in rows],
            "grown": [[int(bool(r["grown"][k])) if r["dragons"][k] else 0 for k in range(4)] for r in rows],
            "nest_eggs": P["mat_eggs"], "coins": P["coins"], "resources": list(P["resources"]),
            "explores": [r["explores"] for r in rows], "guild_steps": P["guild_steps"],
            "markers_left": rules.markers - placed, "passed": int(q in passed),
            "objective_vp": list(P["objective_vp"]), "objective_count": [0, 0, 0, 0],
            "fixed_vp": fixed_vp[q], "tile_markers": tile_markers[q],
            "hand_dragons": sorted(hand_d), "hand_caves": sorted(hand_c),
            "known_dragons": sorted(known_d), "known_caves": sorted(known_c),
            "seen_dragons": sorted(known_tucked) if q == viewer else [],
            "end_vp": 0, "tile_vp": 0,
        })
    tucked = sum(sum(row) for P in out_players for row in P["tucked"])
    automa_core = None
    unrevealed = ()
    if automa is not None:
        A = automa
        revealed = list(A["revealed"])
        placed = sum(tile_markers[1]) + guild["fixed"].count(1)
        empty = lambda: [[0] * 4 for _ in range(len(CAVES))]          # noqa: E731
        out_players.append({
            "dragons": empty(), "caves": empty(), "eggs": empty(),
            "cached": [[[0] * len(RESOURCES) for _ in range(4)] for _ in range(len(CAVES))],
            "tucked": empty(), "grown": empty(), "nest_eggs": 0, "coins": 0, "resources": [0] * len(RESOURCES),
            "explores": [0] * len(CAVES), "guild_steps": A["guild_steps"], "markers_left": 0,
            "passed": int(len(revealed) >= rules.automa_playable),
            "objective_vp": list(A["objective_vp"]), "objective_count": [0, 0, 0, 0],
            "fixed_vp": 0, "tile_markers": tile_markers[1], "hand_dragons": [], "hand_caves": [],
            "known_dragons": [], "known_caves": [], "seen_dragons": [], "end_vp": 0, "tile_vp": 0,
        })
        unknown_hand.append((0, 0))
        unrevealed = tuple(k for k in rules.automa_levels[A["level"]] if k not in revealed)
        automa_core = {
            "level": A["level"], "deck": revealed, "next": len(revealed), "playable": rules.automa_playable,
            "dragons": len(A["dragons"]), "caves": len(A["caves"]),
            "markers": _automa_markers(rules, round_) - placed, "fixed_vp": fixed_vp[1],
            "last_brown": last_brown_space(A["guild_steps"], rules),
            "objective_coins": list(A["objective_coins"])}
    core = {
        "players": out_players, "round": round_ - 1, "phase": "turn", "phase_player": start,
        "phase_count": n, "active": viewer, "start_player": start, "printing": PRINTINGS[printing],
        "guild_tile": guild["tile"], "objective_tiles": [o[0] for o in objectives],
        "objective_sides": [o[1] for o in objectives], "guild_spots": spots,
        "fixed_count": len(guild["fixed"]),
        "display_dragons": list(display["dragons"]), "display_caves": list(display["caves"]),
        "deck_dragons": [], "deck_caves": [],
        "discard_dragons": list(discards["dragons"]), "discard_caves": list(discards["caves"]),
        "reshuffles": 0, "n_scored": round_ - 1, "turns": 0, "rng": 0,
        "public_dragons": sorted(automa["dragons"]) if automa else [],
        "public_caves": sorted(automa["caves"]) if automa else [], "automa": automa_core,
    }
    return Position(filename=c.file, printing=printing, names=tuple(names), viewer=viewer, round=round_,
                    core=core, unknown_hand=tuple(unknown_hand), unknown_tucked=tucked - len(known_tucked),
                    automa_level=automa["level"] if automa else None, automa_unrevealed=unrevealed)


# ---------------------------------------------------------------------------- writing a position
def position_text(game, viewer: int, names=None) -> str:
    """The position file of what `viewer` sees, at the start of their turn in `game`. In a solo game
    `names` is the human's name alone (or the human's and AUTOMA_NAME); the viewer is seat 0."""
    where = "position_text"
    solo = game.automa_level is not None
    if not isinstance(viewer, int) or isinstance(viewer, bool) or not 0 <= viewer < game.players:
        raise PositionError([f"{where}: viewer: {viewer!r} is not a seat of this {game.players}-player game"])
    if solo and viewer != 0:
        raise PositionError([f"{where}: viewer: seat {viewer} is the Automa, who has no view; the viewer of "
                             "a solo game is the human (seat 0)"])
    if (game.is_terminal() or game.phase != "turn" or game.decision != "move" or game.active != viewer
            or game.decider != viewer or game.decisions_in_segment != 0):
        state = "over" if game.is_terminal() else (f"phase '{game.phase}', decision '{game.decision}', "
                                                   f"seat {game.decider} deciding, "
                                                   f"{game.decisions_in_segment} decisions into the segment")
        raise PositionError([f"{where}: game: a position is written only at the start of a turn of the "
                             f"viewer (seat {viewer}); the game is {state}"])
    if solo:
        names = tuple(names) if names is not None else ("P0",)
        if len(names) == 2 and names[1] == AUTOMA_NAME:
            names = names[:1]
        if (len(names) != 1 or not isinstance(names[0], str) or not names[0].strip()
                or names[0].strip().lower() == AUTOMA_NAME.lower()):
            raise PositionError([f"{where}: names: a solo game takes the human player's name only (not "
                                 f"empty, not '{AUTOMA_NAME}'), got {len(names)}: {names!r}"])
        names = names + (AUTOMA_NAME,)
    names = tuple(names) if names is not None else tuple(f"P{i}" for i in range(game.players))
    if len(names) != game.players or len(set(names)) != len(names) or not all(
            isinstance(x, str) and x.strip() for x in names):
        raise PositionError([f"{where}: names: {len(names)} names given for {game.players} players "
                             "(distinct, not empty)"])
    printing = game.printing
    db = load_database(printing)
    rules = _rules(printing)
    d = game.to_dict()["core"]
    n = game.players
    humans = n - 1 if solo else n
    dn = lambda x: _toml_str(db.dragon(x).name)            # noqa: E731
    cn = lambda x: _toml_str(db.cave(x).name)              # noqa: E731
    nm = lambda q: _toml_str(names[q])                     # noqa: E731

    def lst(items) -> str:
        return "[" + ", ".join(items) + "]"

    # where every card is: what is out of play is tucked face down
    in_play = set(d["deck_dragons"]) | set(d["discard_dragons"]) | {x for x in d["display_dragons"] if x}
    for P in d["players"]:
        in_play |= set(P["hand_dragons"]) | {x for row in P["dragons"] for x in row if x}
    out_of_play = set(range(1, N_DRAGONS + 1)) - in_play
    if solo:
        out_of_play -= rules.solo_removed
    public = set(d["public_dragons"]) & out_of_play
    hers = []
    if solo:
        # the dragons she took are public and out of play; so are cards tucked from the display and
        # dragons covered by another. The engine keeps only her count: which of those public cards
        # are hers cannot always be told, and it changes nothing in play (all are out of it)
        candidates = sorted(public - set(d["players"][viewer]["seen_dragons"]))
        if len(candidates) < d["automa"]["dragons"]:
            raise PositionError([f"{where}: game: the Automa has {d['automa']['dragons']} dragons but only "
                                 f"{len(candidates)} public dragon cards are out of play (an engine problem)"])
        hers = candidates[:d["automa"]["dragons"]]
    known_tucked = sorted(((set(d["players"][viewer]["seen_dragons"]) | public) & out_of_play) - set(hers))

    lines = [
        f"# Wyrmspan position: what {names[viewer]} sees at the start of their turn.",
        "# Format: docs/position-format.md",
        f"format = {FORMAT_VERSION}",
        f"players = {humans}" + ("   # solo: against the Automa (the automa section)" if solo else ""),
        f"round = {d['round'] + 1}",
        f"turn_order = {lst(nm(q) for q in range(humans))}",
        f"start_player = {nm(d['start_player'])}",
        f"viewer = {nm(viewer)}",
        f"passed = {lst(nm(q) for q in range(humans) if d['players'][q]['passed'])}",
        f"printing = {_toml_str(printing)}",
        "objectives = " + lst(f'"{t + 1}{"ab"[s]}"' for t, s in zip(d["objective_tiles"], d["objective_sides"]))
        + "   # rounds 1 to 4: tile and side",
        f"known_tucked = {lst(dn(x) for x in known_tucked)}",
        "",
        "[guild]",
        f"tile = {_toml_str(db.guild_tiles[d['guild_tile']].name)}",
        f"side = \"{GUILD_SIDES[n > 2]}\"",
    ]
    for a in range(4):
        lines.append(f"ability_{a + 1} = {lst(nm(s - 1) for s in d['guild_spots'][a] if s)}")
    lines.append(f"fixed_vp = {lst(nm(q) for q in _fixed_order(d, rules))}")
    disp = lambda xs, f: lst(f(x) if x else f'"{EMPTY_SLOT}"' for x in xs)   # noqa: E731
    lines += ["", "[display]", f"dragons = {disp(d['display_dragons'], dn)}",
              f"caves = {disp(d['display_caves'], cn)}",
              "", "[discards]", f"dragons = {lst(dn(x) for x in d['discard_dragons'])}",
              f"caves = {lst(cn(x) for x in d['discard_caves'])}"]
    if solo:
        a = d["automa"]
        A = d["players"][1]
        lines += ["", "[automa]", f"level = {_toml_str(a['level'])}",
                  f"revealed = {lst(_toml_str(rules.automa_corners[k]) for k in a['deck'][:a['next']])}"
                  "   # her cards revealed this round, in order",
                  f"passed = {'true' if A['passed'] else 'false'}",
                  f"dragons = {lst(dn(x) for x in hers)}",
                  f"caves = {lst(cn(x) for x in d['public_caves'])}",
                  f"guild_steps = {A['guild_steps']}",
                  f"markers = {a['markers']}   # ready to place",
                  f"objective_coins = {lst(str(v) for v in a['objective_coins'][:d['round'] + 1])}"
                  "   # on each round's objective tile so far",
                  f"objective_vp = {lst(str(v) for v in A['objective_vp'][:d['round']])}"]
    for q, P in enumerate(d["players"][:humans]):
        path = _join("player", names[q])
        res = ", ".join(f"{r} = {P['resources'][i]}" for i, r in enumerate(RESOURCES))
        lines += ["", f"[{path}]", f"coins = {P['coins']}", f"resources = {{ {res} }}",
                  f"mat_eggs = {P['nest_eggs']}", f"guild_steps = {P['guild_steps']}",
                  f"markers_left = {P['markers_left']}",
                  f"objective_vp = {lst(str(v) for v in P['objective_vp'][:d['round']])}"]
        if q == viewer:
            hand = [f"dragons = {lst(dn(x) for x in P['hand_dragons'])}",
                    f"caves = {lst(cn(x) for x in P['hand_caves'])}"]
        else:
            hand = [f"dragons = {len(P['hand_dragons'])}", f"caves = {len(P['hand_caves'])}"]
        if P["known_dragons"]:
            hand.append(f"known_dragons = {lst(dn(x) for x in P['known_dragons'])}")
        if P["known_caves"]:
            hand.append(f"known_caves = {lst(cn(x) for x in P['known_caves'])}")
        lines.append(f"hand = {{ {', '.join(hand)} }}")
        for ci, cave in enumerate(CAVES):
            lines += ["", f"[{_join(path, cave)}]", f"explores = {P['explores'][ci]}"]
            for k in range(COLUMNS):
                parts = []
                if P["caves"][ci][k]:
                    parts.append(f"cave = {cn(P['caves'][ci][k])}")
                dragon = P["dragons"][ci][k]
                if dragon:
                    D = db.dragon(dragon)
                    parts.append(f"dragon = {dn(dragon)}")
                    if P["eggs"][ci][k]:
                        parts.append(f"eggs = {P['eggs'][ci][k]}")
                    cached = P["cached"][ci][k]
                    if any(cached):
                        parts.append("cached = { " + ", ".join(f"{r} = {cached[i]}" for i, r in
                                                                enumerate(RESOURCES) if cached[i]) + " }")
                    if P["tucked"][ci][k]:
                        parts.append(f"tucked = {P['tucked'][ci][k]}")
                    if D.is_hatchling:
                        grown = bool(P["grown"][ci][k])
                        if grown != (_feed_count(D, cached, P["tucked"][ci][k]) >= 3):
                            parts.append(f"grown = {'true' if grown else 'false'}")
                    if cave not in D.caves:
                        parts.append("swapped = true")
                if parts:
                    lines.append(f"{k + 1} = {{ {', '.join(parts)} }}")
    return "\n".join(lines) + "\n"


def _fixed_order(d: dict, rules: _Rules) -> list[int]:
    """Who placed the markers on the fixed-VP spot, in order (from each player's VP there)."""
    n = len(d["players"])
    count = [rules.markers - P["markers_left"] - sum(P["tile_markers"]) for P in d["players"]]
    vp = [P["fixed_vp"] for P in d["players"]]
    if d.get("automa"):         # the Automa (seat 1, Ravel levels) keeps her own count and VP there
        count[1] = d["fixed_count"] - count[0]
        vp[1] = d["automa"]["fixed_vp"]
    total = sum(count)
    if total == 0:
        return []
    candidates = range(n)
    for first in candidates:
        for second in (candidates if total >= 2 else [None]):
            order = [first] + ([second] if second is not None else [])
            rest = list(count)
            ok = True
            for q in order:
                rest[q] -= 1
                ok = ok and rest[q] >= 0
            if not ok:
                continue
            tail = [q for q in range(n) for _ in range(rest[q])]
            full = order + tail
            got = [0] * n
            for i, q in enumerate(full):
                got[q] += _fixed_spot_vp(i, rules)
            if got == vp:
                return full
    raise PositionError(["position_text: game: the fixed-VP guild spot holds markers that no "
                         "placement order explains (an engine problem)"])
