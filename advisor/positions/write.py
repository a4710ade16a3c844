"""Writing a position file: what one player sees of an engine game at the start of their turn.

The file is the document of docs/position-format.md written by tomli-w, so any name (quotes, dots)
is spelled as TOML needs it. TOML writers keep no comments, so what the old hand-written file said
beside a field (what `objectives` lists, what the automa section holds) is in the header instead."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import tomli_w

from advisor.cards import load_database
from advisor.cards.database import N_DRAGONS, Database
from advisor.positions.checker import PositionError
from advisor.positions.rules import (AUTOMA_NAME, CAVES, COLUMNS, EMPTY_SLOT, FORMAT_VERSION, GROWN_AT,
                                     GUILD_SIDES, RESOURCES, Rules, feed_count, fixed_spot_vp, printing_rules)

if TYPE_CHECKING:
    from advisor._core import CoreState, Game

HEADER = """\
# Wyrmspan position: what {viewer} sees at the start of their turn.
# Format: docs/position-format.md. objectives: the tiles of rounds 1 to 4, with their sides.
"""
SOLO_HEADER = """\
# Solo: against the Automa (the automa section): revealed is her cards revealed this round, in
# order; markers, those ready to place; objective_coins, her coins on each round's tile so far.
"""


def position_text(game: Game, viewer: int, names: Sequence[str] | None = None) -> str:
    """The position file of what `viewer` sees, at the start of their turn in `game`. In a solo game
    `names` is the human's name alone (or the human's and AUTOMA_NAME); the viewer is seat 0."""
    seats = _seat_names(game, viewer, names)
    header = HEADER.format(viewer=_in_comment(seats[viewer]))
    if game.automa_level is not None:
        header += SOLO_HEADER
    return header + tomli_w.dumps(position_document(game, viewer, seats))


def _in_comment(text: str) -> str:
    """`text` with the characters a TOML comment cannot hold (line breaks, controls) as spaces."""
    return "".join(" " if ch < " " and ch != "\t" or ch == "\x7f" else ch for ch in text)


def _seat_names(game: Game, viewer: int, names: Sequence[str] | None) -> tuple[str, ...]:
    """A name per engine seat (the Automa's is AUTOMA_NAME), once the game is checked to be at the
    start of the viewer's turn."""
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
        human = tuple(names) if names is not None else ("P0",)
        if len(human) == 2 and human[1] == AUTOMA_NAME:
            human = human[:1]
        if (len(human) != 1 or not isinstance(human[0], str) or not human[0].strip()
                or human[0].strip().lower() == AUTOMA_NAME.lower()):
            raise PositionError([f"{where}: names: a solo game takes the human player's name only (not "
                                 f"empty, not '{AUTOMA_NAME}'), got {len(human)}: {human!r}"])
        names = human + (AUTOMA_NAME,)
    seats = tuple(names) if names is not None else tuple(f"P{i}" for i in range(game.players))
    if len(seats) != game.players or len(set(seats)) != len(seats) or not all(
            isinstance(x, str) and x.strip() for x in seats):
        raise PositionError([f"{where}: names: {len(seats)} names given for {game.players} players "
                             "(distinct, not empty)"])
    return seats


def position_document(game: Game, viewer: int, names: tuple[str, ...]) -> dict[str, Any]:
    """The position file's content (as tomllib reads it) of a game checked by _seat_names."""
    solo = game.automa_level is not None
    printing = game.printing
    db = load_database(printing)
    rules = printing_rules(printing)
    d = game.to_dict()["core"]
    n = game.players
    humans = n - 1 if solo else n

    def dn(x: int) -> str:
        return db.dragon(x).name

    def cn(x: int) -> str:
        return db.cave(x).name

    # where every card is: what is out of play is tucked face down
    in_play = set(d["deck_dragons"]) | set(d["discard_dragons"]) | {x for x in d["display_dragons"] if x}
    for P in d["players"]:
        in_play |= set(P["hand_dragons"]) | {x for row in P["dragons"] for x in row if x}
    out_of_play = set(range(1, N_DRAGONS + 1)) - in_play
    if solo:
        out_of_play -= rules.solo_removed
    public = set(d["public_dragons"]) & out_of_play
    hers: list[int] = []
    automa = d["automa"]
    if solo:
        assert automa is not None, "a solo game's state has the Automa's"
        # the dragons she took are public and out of play; so are cards tucked from the display and
        # dragons covered by another. The engine keeps only her count: which of those public cards
        # are hers cannot always be told, and it changes nothing in play (all are out of it)
        candidates = sorted(public - set(d["players"][viewer]["seen_dragons"]))
        if len(candidates) < automa["dragons"]:
            raise PositionError([f"position_text: game: the Automa has {automa['dragons']} dragons but "
                                 f"only {len(candidates)} public dragon cards are out of play (an engine "
                                 "problem)"])
        hers = candidates[:automa["dragons"]]
    known_tucked = sorted(((set(d["players"][viewer]["seen_dragons"]) | public) & out_of_play) - set(hers))

    guild: dict[str, Any] = {"tile": db.guild_tiles[d["guild_tile"]].name, "side": GUILD_SIDES[n > 2]}
    for a in range(4):
        guild[f"ability_{a + 1}"] = [names[s - 1] for s in d["guild_spots"][a] if s]
    guild["fixed_vp"] = [names[q] for q in _fixed_order(d, rules)]
    doc: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "players": humans,
        "round": d["round"] + 1,
        "turn_order": list(names[:humans]),
        "start_player": names[d["start_player"]],
        "viewer": names[viewer],
        "passed": [names[q] for q in range(humans) if d["players"][q]["passed"]],
        "printing": printing,
        "objectives": [f"{t + 1}{'ab'[s]}" for t, s in zip(d["objective_tiles"], d["objective_sides"], strict=True)],
        "known_tucked": [dn(x) for x in known_tucked],
        "guild": guild,
        "display": {"dragons": [dn(x) if x else EMPTY_SLOT for x in d["display_dragons"]],
                    "caves": [cn(x) if x else EMPTY_SLOT for x in d["display_caves"]]},
        "discards": {"dragons": [dn(x) for x in d["discard_dragons"]],
                     "caves": [cn(x) for x in d["discard_caves"]]},
    }
    if automa is not None:
        A = d["players"][1]
        doc["automa"] = {
            "level": automa["level"],
            "revealed": [rules.automa_corners[k] for k in automa["deck"][:automa["next"]]],
            "passed": bool(A["passed"]),
            "dragons": [dn(x) for x in hers],
            "caves": [cn(x) for x in d["public_caves"]],
            "guild_steps": A["guild_steps"],
            "markers": automa["markers"],
            "objective_coins": list(automa["objective_coins"][:d["round"] + 1]),
            "objective_vp": list(A["objective_vp"][:d["round"]]),
        }
    doc["player"] = {names[q]: _player(db, d, q, q == viewer, dn, cn) for q in range(humans)}
    return doc


def _player(db: Database, d: CoreState, q: int, is_viewer: bool, dn: Callable[[int], str],
            cn: Callable[[int], str]) -> dict[str, Any]:
    """A player's table: supply, hand (the viewer's card by card, another's as counts) and mat."""
    P = d["players"][q]
    if is_viewer:
        hand: dict[str, Any] = {"dragons": [dn(x) for x in P["hand_dragons"]],
                                "caves": [cn(x) for x in P["hand_caves"]]}
    else:
        hand = {"dragons": len(P["hand_dragons"]), "caves": len(P["hand_caves"])}
    if P["known_dragons"]:
        hand["known_dragons"] = [dn(x) for x in P["known_dragons"]]
    if P["known_caves"]:
        hand["known_caves"] = [cn(x) for x in P["known_caves"]]
    out: dict[str, Any] = {
        "coins": P["coins"],
        "resources": {r: P["resources"][i] for i, r in enumerate(RESOURCES)},
        "mat_eggs": P["nest_eggs"],
        "guild_steps": P["guild_steps"],
        "markers_left": P["markers_left"],
        "objective_vp": list(P["objective_vp"][:d["round"]]),
        "hand": hand,
    }
    for ci, cave in enumerate(CAVES):
        row: dict[str, Any] = {"explores": P["explores"][ci]}
        for k in range(COLUMNS):
            space: dict[str, Any] = {}
            if P["caves"][ci][k]:
                space["cave"] = cn(P["caves"][ci][k])
            dragon = P["dragons"][ci][k]
            if dragon:
                D = db.dragon(dragon)
                space["dragon"] = dn(dragon)
                if P["eggs"][ci][k]:
                    space["eggs"] = P["eggs"][ci][k]
                cached = P["cached"][ci][k]
                if any(cached):
                    space["cached"] = {r: cached[i] for i, r in enumerate(RESOURCES) if cached[i]}
                if P["tucked"][ci][k]:
                    space["tucked"] = P["tucked"][ci][k]
                if D.is_hatchling:
                    grown = bool(P["grown"][ci][k])
                    if grown != (feed_count(D, cached, P["tucked"][ci][k]) >= GROWN_AT):
                        space["grown"] = grown          # written only when it is not what the meals say
                if cave not in D.caves:
                    space["swapped"] = True
            if space:
                row[str(k + 1)] = space
        out[cave] = row
    return out


def _fixed_order(d: CoreState, rules: Rules) -> list[int]:
    """Who placed the markers on the fixed-VP spot, in order (from each player's VP there)."""
    n = len(d["players"])
    count = [rules.markers - P["markers_left"] - sum(P["tile_markers"]) for P in d["players"]]
    vp = [P["fixed_vp"] for P in d["players"]]
    automa = d["automa"]
    if automa:                  # the Automa (seat 1, Ravel levels) keeps her own count and VP there
        count[1] = d["fixed_count"] - count[0]
        vp[1] = automa["fixed_vp"]
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
                got[q] += fixed_spot_vp(i, rules)
            if got == vp:
                return full
    raise PositionError(["position_text: game: the fixed-VP guild spot holds markers that no "
                         "placement order explains (an engine problem)"])
