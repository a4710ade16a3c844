"""Checking a player's table of a position file: coins and supply, the hand, and the mat (three
caves of four spaces: cave cards, dragons and what is on them)."""
from __future__ import annotations

import difflib
import re
from typing import Any

from advisor.cards.database import N_CAVES, N_DRAGONS
from advisor.positions.checker import Checker, at, join, plural, show
from advisor.positions.rules import (CAVES, GROWN_AT, MAX_COINS, MAX_GUILD_STEPS, MAX_RESOURCES, MAX_TUCKED,
                                     RESOURCES, ROUNDS, Rules, feed_count, feed_name)

_PLAYER_FIELDS = ("coins", "resources", "mat_eggs", "guild_steps", "markers_left", "objective_vp",
                  "hand") + CAVES
_SPACE_FIELDS = ("dragon", "cave", "eggs", "cached", "tucked", "grown", "swapped")


def check_objective_vp(c: Checker, t: dict[str, Any], path: str, round_: int | None,
                       rules: Rules) -> list[int | None]:
    """`objective_vp` of a player table or the automa section: one value per finished round."""
    obj: list[int | None] = [0, 0, 0, 0]
    if "objective_vp" in t:
        opath = join(path, "objective_vp")
        lst = c.array(t["objective_vp"], opath)
        if lst is not None and round_ is not None and len(lst) != round_ - 1:
            c.err(opath, f"{plural(len(lst), 'value')} given but {plural(round_ - 1, 'objective')} "
                         f"scored before round {round_} (one value per finished round)")
            obj = [None] * ROUNDS
        elif lst is not None:
            for r, x in enumerate(lst[:ROUNDS]):
                allowed = sorted(set(rules.objective_vp[r]) | {0}, reverse=True)
                n = c.integer(x, at(opath, r), 0, max(allowed))
                if n is not None and n not in allowed:
                    c.err(at(opath, r), f"{n} VP is not possible in round {r + 1} "
                                         f"({', '.join(map(str, allowed))})")
                    n = None
                obj[r] = n
    return obj


def check_player(c: Checker, v: Any, path: str, is_viewer: bool | None, round_: int | None,
                 rules: Rules) -> dict[str, Any] | None:
    t = c.table(v, path)
    if t is None:
        return None
    c.fields(t, path, _PLAYER_FIELDS, required=("coins", "hand"))
    P: dict[str, Any] = {"path": path}
    P["coins"] = c.field_int(t, "coins", path, 0, MAX_COINS)
    res: list[int | None] = [0, 0, 0, 0]
    if "resources" in t:
        rt = c.table(t["resources"], join(path, "resources"))
        if rt is not None:
            c.fields(rt, join(path, "resources"), RESOURCES)
            for r, name in enumerate(RESOURCES):
                res[r] = c.field_int(rt, name, join(path, "resources"), 0, MAX_RESOURCES, 0)
    P["resources"] = res
    P["mat_eggs"] = c.field_int(t, "mat_eggs", path, 0, rules.mat_nests, 0,
                                f" (the mat has {rules.mat_nests} nests)")
    P["guild_steps"] = c.field_int(t, "guild_steps", path, 0, MAX_GUILD_STEPS, 0)
    P["markers_left"] = c.field_int(t, "markers_left", path, 0, rules.markers, None)
    P["objective_vp"] = check_objective_vp(c, t, path, round_, rules)
    P["hand"] = _check_hand(c, t["hand"], join(path, "hand"), is_viewer) if "hand" in t else None
    P["rows"] = [_check_row(c, t.get(cave), join(path, cave), cave, rules) for cave in CAVES]
    return P


def _check_hand(c: Checker, v: Any, path: str, is_viewer: bool | None) -> dict[str, Any] | None:
    t = c.table(v, path)
    if t is None:
        return None
    c.fields(t, path, ("dragons", "caves", "known_dragons", "known_caves"), required=("dragons", "caves"))
    H: dict[str, Any] = {"dragons": [], "caves": [], "n_dragons": None, "n_caves": None, "known_dragons": [],
                         "known_caves": []}
    for kind in ("dragons", "caves"):
        kpath = join(path, kind)
        if kind in t:
            x = t[kind]
            listed = isinstance(x, list)
            if is_viewer is True and not listed:
                c.err(kpath, "the viewer's hand lists its cards by name (a number of cards is for "
                             f"opponents), got {show(x)}")
            elif is_viewer is False and listed:
                c.err(kpath, f"an opponent's hand is a number of cards; list the cards known to be "
                             f"there in known_{kind}")
            elif listed:
                for i, y in enumerate(x):
                    n = c.card(y, kind[:-1], at(kpath, i))
                    if n is not None and c.place(kind[:-1], n, at(kpath, i)):
                        H[kind].append(n)
                H[f"n_{kind}"] = len(H[kind])
                H[f"complete_{kind}"] = len(H[kind]) == len(x)
            else:
                n = c.integer(x, kpath, 0, N_DRAGONS if kind == "dragons" else N_CAVES)
                H[f"n_{kind}"] = n
        key = f"known_{kind}"
        # with the viewer unknown (already reported), the hand's own shape says whose it is
        own = is_viewer if is_viewer is not None else isinstance(t.get(kind), list)
        if key in t:
            kp = join(path, key)
            lst = c.array(t[key], kp)
            for i, y in enumerate(lst or []):
                n = c.card(y, kind[:-1], at(kp, i))
                if n is None:
                    continue
                if own:
                    if n not in H[kind] and not H.get(f"complete_{kind}"):
                        continue        # the hand has a bad entry, already reported
                    if n not in H[kind]:
                        c.err(at(kp, i), f"'{c.name(n, kind[:-1])}' is not in hand.{kind} "
                                          "(known cards are some of the hand's cards)")
                    elif n in H[key]:
                        c.err(at(kp, i), f"'{c.name(n, kind[:-1])}' is listed twice")
                    else:
                        H[key].append(n)
                elif c.place(kind[:-1], n, at(kp, i)):
                    H[key].append(n)
            if not own and lst is not None and isinstance(H[f"n_{kind}"], int) \
                    and len(lst) > H[f"n_{kind}"]:
                c.err(kp, f"{plural(len(lst), 'known card')} but the hand has "
                          f"{plural(H[f'n_{kind}'], kind[:-1] + ' card')}")
    return H


def _check_row(c: Checker, v: Any, path: str, cave: str, rules: Rules) -> dict[str, Any]:
    row: dict[str, Any] = {"path": path, "explores": 0, "dragons": [0] * 4, "caves": [0] * 4, "eggs": [0] * 4,
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
            c.err(join(path, k), "there is no such column (columns are 1 to 4)")
        else:
            close = difflib.get_close_matches(k, ["explores"], n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else " (a cave has 'explores' and columns 1 to 4)"
            c.err(join(path, k), f"unknown field{hint}")
    row["explores"] = c.field_int(t, "explores", path, 0, rules.explore_max, 0,
                                  f" (a cave is explored at most {rules.explore_max} times a round)")
    for k in range(4):
        key = str(k + 1)
        if key not in t:
            continue
        spath = join(path, key)
        s = c.table(t[key], spath)
        if s is None:
            continue
        c.fields(s, spath, _SPACE_FIELDS)
        d = cc = None
        if "cave" in s:
            if k == 0:
                c.err(join(spath, "cave"), "column 1 is excavated from the start and holds no cave card")
            else:
                cc = c.card(s["cave"], "cave", join(spath, "cave"))
                if cc is not None and c.place("cave", cc, join(spath, "cave")):
                    row["caves"][k] = cc
        if "dragon" in s:
            d = c.card(s["dragon"], "dragon", join(spath, "dragon"))
            if d is not None and c.place("dragon", d, join(spath, "dragon")):
                row["dragons"][k] = d
            else:
                d = None
        has_dragon = "dragon" in s
        dragon = c.db.dragon(d) if d else None
        if "eggs" in s:
            n = c.integer(s["eggs"], join(spath, "eggs"), 0, 9)
            if n is not None and not has_dragon:
                c.err(join(spath, "eggs"), "there is no dragon here to hold eggs")
            elif n is not None and dragon is not None and n > dragon.capacity:
                if dragon.capacity == 0:
                    c.err(join(spath, "eggs"), f"'{dragon.name}' holds no eggs (capacity 0), got {n}")
                else:
                    c.err(join(spath, "eggs"), f"'{dragon.name}' holds at most "
                                                f"{plural(dragon.capacity, 'egg')}, got {n}")
            elif n is not None:
                row["eggs"][k] = n
        if "cached" in s:
            cpath = join(spath, "cached")
            ct = c.table(s["cached"], cpath)
            if ct is not None:
                c.fields(ct, cpath, RESOURCES)
                for r, name in enumerate(RESOURCES):
                    n = c.field_int(ct, name, cpath, 0, MAX_RESOURCES, 0)
                    row["cached"][k][r] = n or 0
                if not has_dragon and any(ct.values()):
                    c.err(cpath, "there is no dragon here to cache resources on")
        if "tucked" in s:
            n = c.integer(s["tucked"], join(spath, "tucked"), 0, MAX_TUCKED)
            if n is not None and n and not has_dragon:
                c.err(join(spath, "tucked"), "there is no dragon here to tuck cards under")
            row["tucked"][k] = n or 0
        if "grown" in s:
            g = c.boolean(s["grown"], join(spath, "grown"))
            if g is not None and not has_dragon:
                c.err(join(spath, "grown"), "there is no dragon here")
            elif g and dragon is not None and not dragon.is_hatchling:
                c.err(join(spath, "grown"), f"'{dragon.name}' is not a hatchling (only hatchlings grow up)")
            elif g is not None:
                row["grown"][k] = g
        if "swapped" in s:
            g = c.boolean(s["swapped"], join(spath, "swapped"))
            if g is not None and not has_dragon:
                c.err(join(spath, "swapped"), "there is no dragon here")
            elif g is not None:
                row["swapped"][k] = g
        if dragon is not None:
            if cave not in dragon.caves and not row["swapped"][k]:
                c.err(join(spath, "dragon"), f"'{dragon.name}' cannot live in {cave} (it lives in "
                                              f"{' or '.join(dragon.caves)}); if a swap put it there, "
                                              "add swapped = true")
            if dragon.is_hatchling:
                feed = feed_count(dragon, row["cached"][k], row["tucked"][k])
                if row["grown"][k] is None:
                    row["grown"][k] = feed >= GROWN_AT
                elif row["grown"][k] and feed < GROWN_AT:
                    c.err(join(spath, "grown"), f"'{dragon.name}' grows up when its third "
                                                 f"{feed_name(dragon)} arrives; it has {feed}")
        if row["grown"][k] is None:
            row["grown"][k] = False
    # shape of the row: cave cards from column 2 rightwards, dragons from column 1 rightwards,
    # a dragon only in an excavated space
    spaces = [t.get(str(k + 1), {}) for k in range(4)]     # a space that is not a table: unknown
    for k in range(1, 4):
        spath = join(path, str(k + 1))
        t_k, prev = spaces[k], spaces[k - 1]
        if not isinstance(t_k, dict):
            continue
        if "cave" in t_k and k >= 2 and isinstance(prev, dict):
            if "cave" not in prev:
                c.err(join(spath, "cave"), f"a cave card in column {k + 1} needs one in column {k} "
                                            "(cave cards fill columns 2 to 4 from the left)")
        if "dragon" in t_k:
            if "cave" not in t_k:
                c.err(join(spath, "dragon"), f"column {k + 1} is not excavated: a dragon there needs "
                                              f"a cave card in column {k + 1}")
            if isinstance(prev, dict) and "dragon" not in prev:
                c.err(join(spath, "dragon"), f"a dragon in column {k + 1} needs one in column {k} "
                                              "(dragons fill a cave from the left)")
    return row


