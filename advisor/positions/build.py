"""From a checked position file to the engine: `assemble` builds a Position (the engine state
without the cards the viewer cannot see) and `Position.to_game(seed)` deals those cards from the
unseen pool and starts the engine at the viewer's decision."""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.cards.database import N_CAVES, N_DRAGONS
from advisor.positions.checker import Checker, PositionError
from advisor.positions.rules import (CAVES, PRINTINGS, RESOURCES, Rules, automa_markers, fixed_spot_vp,
                                     last_brown_space, printing_rules)

if TYPE_CHECKING:
    from advisor._core import Game


@dataclass
class Position:
    """A checked position. `viewer` is the seat (0-based, in turn order) whose view it is. In a solo
    position `names` holds the human only and the Automa (`automa_level`) is engine seat 1."""
    filename: str
    printing: str
    names: tuple[str, ...]
    viewer: int
    round: int
    core: dict[str, Any] = field(repr=False)   # the engine state without the cards the viewer cannot see
    unknown_hand: tuple[tuple[int, int], ...] = field(repr=False)  # per seat: (dragon cards, cave cards) not known
    unknown_tucked: int = field(repr=False)     # face-down tucked cards the viewer does not know
    automa_level: str | None = None             # solo: her level ("1".."3", "R1".."R3")
    automa_unrevealed: tuple[int, ...] = field(default=(), repr=False)  # solo: her cards not revealed this round

    @property
    def players(self) -> int:
        """Players in the file: 1 in a solo game (the Automa is not counted)."""
        return len(self.names)

    @property
    def solo(self) -> bool:
        return self.automa_level is not None

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The name of each engine seat, as the file spells it (the Automa's seat 1: "Automa")."""
        return (self.names[0], "Automa") if self.solo else self.names

    def to_game(self, seed: int = 0) -> Game:
        """The engine game at the start of the viewer's turn. Every card the viewer cannot see
        (opponents' unknown hand cards, the decks, face-down tucked cards, in a solo game the order
        of the Automa's unrevealed cards) is dealt by the engine's one model of hidden cards
        (`Game.determinize` for the viewer, from `seed`); the file's cards are first laid in any
        order, which that deal replaces."""
        from advisor._core import EngineError, Game
        core = copy.deepcopy(self.core)
        for kind, total, deck in (("dragons", N_DRAGONS, "deck_dragons"), ("caves", N_CAVES, "deck_caves")):
            seen = set(core[f"display_{kind}"]) | set(core[f"discard_{kind}"])
            seen |= set(core.get(f"public_{kind}", ()))         # the Automa's cards, face up by her
            if kind == "dragons" and self.solo:
                seen |= printing_rules(self.printing).solo_removed      # not in a solo game
            for P in core["players"]:
                seen |= set(P[f"hand_{kind}"])
                seen |= {c for row in P[kind] for c in row}
            if kind == "dragons":
                seen |= set(core["players"][self.viewer]["seen_dragons"])
            pool = [c for c in range(1, total + 1) if c not in seen]
            for q, P in enumerate(core["players"]):
                need = self.unknown_hand[q][0 if kind == "dragons" else 1]
                P[f"hand_{kind}"] = sorted(P[f"hand_{kind}"] + pool[:need])
                del pool[:need]
            if kind == "dragons":
                del pool[:self.unknown_tucked]      # face down under dragons: out of play
            core[deck] = pool
        if self.solo:
            core["automa"]["deck"] = core["automa"]["deck"] + list(self.automa_unrevealed)
        core["rng"] = 0
        try:
            game = Game.from_dict({"core": core, "printing": self.printing})
        except (EngineError, ValueError, OverflowError, KeyError, TypeError) as e:
            raise PositionError([f"{self.filename}: the engine cannot start from this position "
                                 f"(an engine problem, please report it): {e}"]) from None
        if (game.is_terminal() or game.phase != "turn" or game.active != self.viewer
                or game.decider != self.viewer or game.decision != "move" or game.decisions_in_segment):
            raise PositionError([f"{self.filename}: viewer: {self.names[self.viewer]} can only pass "
                                 "(nothing else is affordable), so there is no decision to advise on"])
        return game.determinize(self.viewer, random.Random(seed).getrandbits(64))


def assemble(c: Checker, printing: str, rules: Rules, names: tuple[str, ...], viewer: int, start: int,
             passed: set[int], round_: int, objectives: list[tuple[int, int]], guild: dict[str, Any],
             display: dict[str, Any], discards: dict[str, list[int]], known_tucked: list[int],
             players: list[dict[str, Any]], automa: dict[str, Any] | None = None) -> Position:
    """The Position of a file whose sections are checked (each argument is one section's result)."""
    n = len(names) + (1 if automa is not None else 0)        # seats; the Automa is seat 1
    spots = [[0] * 4 for _ in range(4)]
    tile_markers = [[0] * 4 for _ in range(n)]
    for a, seats in enumerate(guild["spots"]):
        for j, q in enumerate(seats):
            spots[a][j] = q + 1
            tile_markers[q][a] += 1
    fixed_vp = [0] * n
    for i, q in enumerate(guild["fixed"]):
        fixed_vp[q] += fixed_spot_vp(i, rules)
    out_players: list[dict[str, Any]] = []
    unknown_hand: list[tuple[int, int]] = []
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
    automa_core: dict[str, Any] | None = None
    unrevealed: tuple[int, ...] = ()
    if automa is not None:
        A = automa
        revealed = list(A["revealed"])
        placed = sum(tile_markers[1]) + guild["fixed"].count(1)
        out_players.append({
            "dragons": _empty(), "caves": _empty(), "eggs": _empty(),
            "cached": [[[0] * len(RESOURCES) for _ in range(4)] for _ in range(len(CAVES))],
            "tucked": _empty(), "grown": _empty(), "nest_eggs": 0, "coins": 0, "resources": [0] * len(RESOURCES),
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
            "markers": automa_markers(rules, round_) - placed, "fixed_vp": fixed_vp[1],
            "last_brown": last_brown_space(A["guild_steps"], rules),
            "objective_coins": list(A["objective_coins"])}
    core: dict[str, Any] = {
        "players": out_players, "round": round_ - 1, "phase": "turn", "phase_player": start,
        "phase_count": n, "active": viewer, "start_player": start, "printing": PRINTINGS.index(printing),
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




def _empty() -> list[list[int]]:
    """A number per space of a mat, all 0 (the Automa's mat in the engine: she has none)."""
    return [[0] * 4 for _ in range(len(CAVES))]
