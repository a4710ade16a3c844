"""Checking the [automa] section of a solo position: her level, the cards she revealed this round,
what she took, her guild track and markers, and her objective coins and VP."""
from __future__ import annotations

import difflib
import re
from typing import Any, cast

from advisor.positions.check_player import check_objective_vp
from advisor.positions.checker import Checker, at, ordinal, plural, show
from advisor.positions.rules import (AUTOMA_LEVELS, MAX_GUILD_STEPS, MAX_OBJECTIVE_COINS, ROUNDS, Rules,
                                     automa_markers, brown_spaces_reached, corner_key, last_brown_space)

_AUTOMA_FIELDS = ("level", "revealed", "passed", "dragons", "caves", "guild_steps", "last_brown", "markers",
                  "objective_coins", "objective_vp")


def check_automa(c: Checker, v: Any, round_: int | None, rules: Rules) -> dict[str, Any] | None:
    """The [automa] section of a solo position."""
    t = c.table(v, "automa")
    if t is None:
        return None
    c.fields(t, "automa", _AUTOMA_FIELDS, required=("level",))
    A: dict[str, Any] = {"level": None, "revealed": None, "dragons": [], "caves": []}
    if "level" in t:
        x = t["level"]
        if isinstance(x, bool) or not isinstance(x, (str, int)):
            c.err("automa.level", f"must be an Automa level ({', '.join(AUTOMA_LEVELS)}), got {show(x)}")
        else:
            key = corner_key(x)
            key = key[1:] if re.fullmatch(r"L[123]", key) else key
            if key in AUTOMA_LEVELS:
                A["level"] = key
            else:
                c.err("automa.level", f"'{x}' is not an Automa level ({', '.join(AUTOMA_LEVELS)}; "
                                      "R1-R3 are the Ravel levels)")
    corners = {corner_key(k): i for i, k in enumerate(rules.automa_corners)}
    revealed: list[int] | None = [] if "revealed" not in t else None
    if "revealed" in t:
        path = "automa.revealed"
        lst = c.array(t["revealed"], path)
        if lst is not None:
            out: list[int | None] = []
            for i, x in enumerate(lst):
                p = at(path, i)
                if isinstance(x, bool) or not isinstance(x, (str, int)):
                    c.err(p, f"must be a card's corner id in quotes (e.g. \"1/4\", \"R 2\"), got {show(x)}")
                    out.append(None)
                    continue
                card = corners.get(corner_key(x))
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
                c.err(path, f"{plural(len(lst), 'card')} revealed but she plays at most "
                            f"{rules.automa_playable} a round ({aside} of her 8 cards "
                            f"{'is' if aside == 1 else 'are'} set aside unseen)")
            elif None not in out:
                revealed = cast(list[int], out)
    if A["level"] is not None:
        A["revealed"] = revealed
    for kind in ("dragons", "caves"):
        if kind not in t:
            continue
        path = f"automa.{kind}"
        x = t[kind]
        if not isinstance(x, list):
            c.err(path, f"must be a list of the {kind[:-1]} cards she took (she keeps them face up), "
                        f"got {show(x)}")
            continue
        for i, y in enumerate(x):
            n = c.card(y, kind[:-1], at(path, i))
            if n is not None and c.place(kind[:-1], n, at(path, i)):
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
            c.err(opath, f"{plural(len(lst), 'value')} given but this is round {round_} (one value per "
                         "round so far, the current one included)")
            A["objective_coins"] = None
        elif lst is not None and round_ is not None:
            for r, x in enumerate(lst):
                n = c.integer(x, at(opath, r), 0, MAX_OBJECTIVE_COINS)
                if n is not None and r == round_ - 1 and coins is not None and n != coins:
                    c.err(at(opath, r), f"is {n} but the cards she revealed this round leave {coins} "
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
    A["objective_vp"] = check_objective_vp(c, t, "automa", round_, rules)
    if A["passed"] is not None and A["revealed"] is not None:
        done = len(A["revealed"]) >= rules.automa_playable
        if A["passed"] and not done:
            c.err("automa.passed", f"she passes after her {ordinal(rules.automa_playable)} card of the "
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


def automa_guild_checks(c: Checker, rules: Rules, guild: dict[str, Any], round_: int | None, A: dict[str, Any],
                        placed: int) -> None:
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
                                    f"{plural(reached, 'time')} (guild_steps {A['guild_steps']}), so at most "
                                    f"{plural(reached, 'marker')} of hers can be on the guild tile; the guild "
                                    f"section has {placed}")
        return
    if round_ is None:
        return
    had = automa_markers(rules, round_)
    if placed > had:
        c.err("guild", f"the Automa has {placed} markers on the guild tile but only {had} by round {round_} "
                       f"({rules.automa_markers[0]} at the start, {rules.automa_markers[1]} more each round)")
    elif A["markers"] is not None and A["markers"] != had - placed:
        c.err("automa.markers", f"is {A['markers']} but she has {had - placed} ready ({had} by round {round_}, "
                                f"{placed} on the guild tile)")


