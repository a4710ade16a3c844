"""Reading a position file: the TOML, its top-level fields, the objectives, the guild tile, the
display and the discards; the players' tables (check_player), the Automa's section (check_automa)
and the checks between sections (cross) are checked by their own modules. `parse_position` /
`load_position` report every problem at once (PositionError) or return the Position."""
from __future__ import annotations

import difflib
import os
import re
from typing import Any, cast

from advisor.cards import load_database
from advisor.files import POSITION_LIMIT, FileError, parse_toml, read_text
from advisor.cards.database import _norm as norm_name
from advisor.positions.build import Position, assemble
from advisor.positions.check_automa import check_automa
from advisor.positions.check_player import check_player
from advisor.positions.checker import Checker, PositionError, at, join, plural, show
from advisor.positions.cross import cross_checks
from advisor.positions.rules import (AUTOMA_NAME, EMPTY_SLOT, FORMAT_VERSION, GUILD_SIDES, MAX_PLAYERS,
                                     MIN_PLAYERS, PRINTINGS, ROUNDS, printing_rules)

_TOP_FIELDS = ("format", "players", "viewer", "round", "turn_order", "start_player", "passed",
               "printing", "objectives", "known_tucked", "guild", "display", "discards", "player", "automa")
_GUILD_FIELDS = ("tile", "side", "ability_1", "ability_2", "ability_3", "ability_4", "fixed_vp")


def load_position(path: str | os.PathLike[str]) -> Position:
    """Read and check a position file (a regular file of at most POSITION_LIMIT bytes)."""
    name = os.fspath(path)
    try:
        text = read_text(name, POSITION_LIMIT, "position file")
    except FileError as e:
        raise PositionError([str(e)]) from None
    return parse_position(text, name)


def parse_position(text: str, filename: str = "<position>") -> Position:
    """Check a position given as TOML text; raise PositionError listing every problem."""
    try:
        data = parse_toml(text, filename)
    except FileError as e:
        raise PositionError([str(e)]) from None
    except Exception as e:             # tomllib may fail in other ways on hostile input
        raise PositionError([f"{filename}: not valid TOML: {type(e).__name__}"]) from None
    c = Checker(filename)
    try:
        pos = _check(c, data)
    except Exception as e:             # a bug in the checks: still one readable line, never a traceback
        c.errors.append(f"{filename}: internal error while checking the position "
                        f"({type(e).__name__}: {e}); please report it")
        pos = None
    if c.errors or pos is None:
        raise PositionError(c.errors)
    return pos


# ---------------------------------------------------------------------------- checking a file
def _check(c: Checker, data: dict[str, Any]) -> Position | None:
    solo = c.solo = type(data.get("players")) is int and data["players"] == 1
    c.fields(data, "", _TOP_FIELDS,
             required=("players", "viewer", "round", "turn_order", "objectives", "guild", "display", "player")
             + (() if solo else ("start_player",)))
    if solo and "automa" not in data:
        c.err("automa", "missing: a solo game (players = 1) needs an [automa] section (the Automa's level "
                        "and state)")
    if "format" in data:
        fmt = c.integer(data["format"], "format", -(2 ** 63), 2 ** 63)
        if fmt is not None and fmt != FORMAT_VERSION:
            c.err("format", f"format {fmt} is not supported (this advisor reads format {FORMAT_VERSION})")
    printing = "base"
    if "printing" in data:
        given = c.string(data["printing"], "printing")
        if given is not None and given not in PRINTINGS:
            c.err("printing", f"'{given}' is not a printing (base or 2025)")
        elif given is not None:
            printing = given
    c.db = load_database(printing)
    rules = printing_rules(printing)

    n_players = None
    if "players" in data:
        n_players = c.integer(data["players"], "players", MIN_PLAYERS, MAX_PLAYERS)
    if "automa" in data and n_players is not None and n_players != 1:
        c.err("automa", f"an [automa] section is for solo games (players = 1), not {n_players} players")

    names: tuple[str, ...] | None = None
    if "turn_order" in data:
        lst = c.array(data["turn_order"], "turn_order")
        if lst is not None:
            ok = True
            seen = set()
            for i, v in enumerate(lst):
                s = c.string(v, at("turn_order", i))
                if s is None:
                    ok = False
                elif not s.strip():
                    c.err(at("turn_order", i), "a player's name cannot be empty")
                    ok = False
                elif s in seen:
                    c.err(at("turn_order", i), f"'{s}' is listed twice")
                    ok = False
                seen.add(s)
            if ok and n_players is not None and len(lst) != n_players:
                c.err("turn_order", f"lists {plural(len(lst), 'player')} but players = {n_players}")
                ok = False
            elif ok and not MIN_PLAYERS <= len(lst) <= MAX_PLAYERS:
                c.err("turn_order", f"lists {plural(len(lst), 'player')}, expected {MIN_PLAYERS}..{MAX_PLAYERS}")
                ok = False
            if ok and solo and lst[0].strip().lower() == AUTOMA_NAME.lower():
                c.err(at("turn_order", 0), f"'{lst[0]}' names the Automa in a solo game; give the human "
                                            "player another name")
                ok = False
            if ok:
                names = tuple(lst)
    # in a solo game the Automa is a seat of the guild tile, but she has no view, no turn order
    # place of her own and no [player] table
    seats = names + (AUTOMA_NAME,) if names is not None and solo else names

    def who(v: Any, path: str, automa_hint: str) -> int | None:
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
    passed: set[int] = set()
    if "passed" in data:
        lst = c.array(data["passed"], "passed")
        for i, v in enumerate(lst or []):
            q = who(v, at("passed", i), "the Automa's pass is written in the automa section "
                                         "(passed = true)")
            if q is None:
                continue
            assert names is not None            # q is a seat of turn_order
            if q in passed:
                c.err(at("passed", i), f"'{names[q]}' is listed twice")
            elif q == viewer:
                c.err(at("passed", i), f"the viewer '{names[q]}' cannot have passed: the position is "
                                        "at the start of their turn")
            passed.add(q)

    round_ = c.integer(data["round"], "round", 1, ROUNDS) if "round" in data else None

    objectives = None
    if "objectives" in data:
        objectives = _check_objectives(c, data["objectives"])
        if solo and objectives is not None:
            for i, (tile, side) in enumerate(objectives):
                if (tile, side) not in rules.solo_objectives:
                    c.err(at("objectives", i), f"{tile + 1}{'ab'[side]} is not used in solo games (the "
                                                f"Automa cannot score it; its other side "
                                                f"{tile + 1}{'ab'[1 - side]} is used instead)")

    # guild tile and display first; players next; then cards everywhere
    guild = None
    if "guild" in data:
        guild = _check_guild(c, data["guild"], seats, n_players)

    display: dict[str, Any] = {"dragons": [0, 0, 0], "caves": [0, 0, 0], "empty_dragons": 0, "empty_caves": 0}
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
                        n = c.card(v, kind[:-1], at(path, i))
                        if n is not None and c.place(kind[:-1], n, at(path, i)):
                            display[kind][i] = n
                    if lst is not None and len(lst) < 3:
                        display[f"empty_{kind}"] += 3 - len(lst)

    discards: dict[str, list[int]] = {"dragons": [], "caves": []}            # left out: not known, the cards count as unseen
    if "discards" in data:
        t = c.table(data["discards"], "discards")
        if t is not None:
            c.fields(t, "discards", ("dragons", "caves"))
            for kind in ("dragons", "caves"):
                if kind in t:
                    path = f"discards.{kind}"
                    for i, v in enumerate(c.array(t[kind], path) or []):
                        n = c.card(v, kind[:-1], at(path, i))
                        if n is not None and c.place(kind[:-1], n, at(path, i)):
                            discards[kind].append(n)

    known_tucked: list[int] = []
    if "known_tucked" in data:
        for i, v in enumerate(c.array(data["known_tucked"], "known_tucked") or []):
            n = c.card(v, "dragon", at("known_tucked", i))
            if n is not None and c.place("dragon", n, at("known_tucked", i)):
                known_tucked.append(n)

    players: list[dict[str, Any] | None] | None = None
    if "player" in data:
        t = c.table(data["player"], "player")
        if t is not None and names is not None:
            for k in t:
                if k not in names:
                    close = difflib.get_close_matches(k, list(names), n=1, cutoff=0.5)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    c.err(join("player", k), f"'{k}' is not in turn_order ({', '.join(names)}){hint}")
            players = []
            for q, name in enumerate(names):
                path = join("player", name)
                if name not in t:
                    c.err(path, f"missing: every player in turn_order needs a [{path}] table")
                    players.append(None)
                    continue
                players.append(check_player(c, t[name], path, q == viewer if viewer is not None else None,
                                             round_, rules))

    automa = None
    if "automa" in data and solo:
        automa = check_automa(c, data["automa"], round_, rules)
    if solo:
        for (kind, number), path in list(c.places.items()):
            if kind == "dragon" and number in rules.solo_removed:
                c.err(path, f"'{c.name(number, 'dragon')}' is not used in solo games (the 5 dragons "
                            "whose abilities affect a left neighbour leave the deck)")

    cross_checks(c, rules, seats, players, guild, round_, display, discards, known_tucked, automa)
    if c.errors:
        return None
    # no problem reported: every section was read (a missing one is a problem)
    assert names is not None and viewer is not None and start is not None and round_ is not None
    assert objectives is not None and guild is not None and players is not None
    return assemble(c, printing, rules, names, viewer, start, passed, round_, objectives, guild, display,
                    discards, known_tucked, cast(list[dict[str, Any]], players), automa)


def _check_objectives(c: Checker, v: Any) -> list[tuple[int, int]] | None:
    lst = c.array(v, "objectives")
    if lst is None:
        return None
    if len(lst) != ROUNDS:
        c.err("objectives", f"needs {ROUNDS} tiles (one per round, e.g. \"3a\"), got {len(lst)}")
        return None
    out: list[tuple[int, int] | None] = []
    for i, x in enumerate(lst):
        path = at("objectives", i)
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
    return None if None in out else cast(list[tuple[int, int]], out)


def _check_guild(c: Checker, v: Any, names: tuple[str, ...] | None,
                 n_players: int | None) -> dict[str, Any] | None:
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
            query = norm_name(x)
            hits = [i for i, g in enumerate(tiles)
                    if query and (query == norm_name(g.name) or query in norm_name(g.name))]
            if re.fullmatch(r"\d+", x.strip()) and 1 <= int(x) <= len(tiles):
                hits = [int(x) - 1]
            if len(hits) == 1:
                tile = hits[0]
            else:
                c.err("guild.tile", f"'{x}' is not a guild tile ({', '.join(g.name for g in tiles)})")
        else:
            c.err("guild.tile", f"must be a guild tile name or number, got {show(x)}")
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
                q = c.player_name(x, names, at(path, i))
                seats.append(q)
            if tile is not None and lst is not None:
                uses = c.db.guild_tiles[tile].abilities[a].uses
                if len(lst) > uses:
                    c.err(path, f"{plural(len(lst), 'marker')} but ability {a + 1} of "
                                f"{c.db.guild_tiles[tile].name} has {plural(uses, 'spot')}")
        spots.append(seats)
    fixed = []
    if "fixed_vp" in t:
        for i, x in enumerate(c.array(t["fixed_vp"], "guild.fixed_vp") or []):
            fixed.append(c.player_name(x, names, at("guild.fixed_vp", i)))
    bad = any(q is None for seats in spots + [fixed] for q in seats)
    return {"tile": tile, "spots": spots, "fixed": fixed, "bad": bad}


