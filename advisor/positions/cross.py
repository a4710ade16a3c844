"""The checks between sections of a position file: guild markers against each guild track, swapped
dragons against what can swap them, objective ranks against each other, and the cards in sight and
unseen against the cards the game has."""
from __future__ import annotations

from typing import Any

from advisor.cards.database import N_CAVES, N_DRAGONS
from advisor.positions.check_automa import automa_guild_checks
from advisor.positions.checker import Checker, at, join, ordinal, plural
from advisor.positions.rules import Rules, brown_spaces_reached


def cross_checks(c: Checker, rules: Rules, names: tuple[str, ...] | None,
                 players: list[dict[str, Any] | None] | None, guild: dict[str, Any] | None,
                 round_: int | None, display: dict[str, Any], discards: dict[str, list[int]],
                 known_tucked: list[int], automa: dict[str, Any] | None = None) -> None:
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
                c.err(join(P["path"], "guild_steps"),
                      f"{names[q]}'s guild token reached a brown space "
                      f"{plural(brown_spaces_reached(P['guild_steps'], rules), 'time')} "
                      f"(guild_steps {P['guild_steps']}), so {plural(expected, 'marker')} should be on "
                      f"the guild tile; the guild section has {placed[q]}")
            if P["markers_left"] is not None and P["markers_left"] != rules.markers - placed[q] \
                    and placed[q] <= rules.markers:
                c.err(join(P["path"], "markers_left"),
                      f"is {P['markers_left']} but {names[q]} has {plural(placed[q], 'marker')} on the "
                      f"guild tile ({rules.markers} in all)")
        if solo and automa is not None and not guild["bad"]:
            automa_guild_checks(c, rules, guild, round_, automa, placed[1])
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
                    c.err(join(join(row["path"], str(k + 1)), "swapped"),
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
                    c.err(at(join(P["path"], "objective_vp"), r),
                          f"{v} VP is {ordinal(rank + 1)} place in round {r + 1}, but nobody has "
                          f"{ordinal(rank)} place ({vps[rank - 1]} VP)")
    # cards: no more than exist
    tucked = sum(row["tucked"][k] for P in ok_players for row in P["rows"] for k in range(4)
                 if row["dragons"][k])
    if len(known_tucked) > tucked:
        c.err("known_tucked", f"{plural(len(known_tucked), 'card')} listed but only "
                              f"{plural(tucked, 'card')} {'is' if tucked == 1 else 'are'} tucked on the mats")
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
            c.err(f"display.{kind}s", f"{plural(display[f'empty_{kind}s'], 'slot')} empty: a display slot "
                                      f"stays empty only when the deck and the discard pile are both "
                                      f"empty ({why})")


