"""What a position file may hold: the format's limits and the rule facts of a printing.

The checks need a few facts of the rules that the card data holds (nests on a mat, the guild track's
brown spaces, objective VP by rank, the Automa's cards and levels, ...); `printing_rules` gathers
them once per printing."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from advisor.cards import load_database
from advisor.cards.database import Dragon
from advisor.cards.database import _norm as norm_name
from advisor.variants import AUTOMA_LEVELS, MAX_PLAYERS, MIN_PLAYERS, PRINTINGS  # noqa: F401  (the checks read them here)

FORMAT_VERSION = 1
CAVES = ("crimson", "golden", "amethyst")
RESOURCES = ("meat", "gold", "crystal", "milk")
COLUMNS = 4
ROUNDS = 4
MAX_COINS = 99
MAX_RESOURCES = 99                       # of one kind, in a supply or cached on one dragon
MAX_TUCKED = 99                          # under one dragon
MAX_GUILD_STEPS = 200
GUILD_SIDES = ("1-2", "3-5")
EMPTY_SLOT = "empty"
AUTOMA_NAME = "Automa"                   # how guild lists name her in a solo position
MAX_OBJECTIVE_COINS = 8                  # on one round's tile: at most one per card she plays
GROWN_AT = 3                             # a hatchling grows up when its third meal arrives


@dataclass(frozen=True)
class Rules:
    """The rule facts of one printing that a position's checks need."""
    mat_nests: int
    explore_max: int
    markers: int
    brown: tuple[int, ...]
    track_spaces: int
    fixed_vp: tuple[int, ...]
    objective_vp: tuple[tuple[int, ...], ...]   # per round: VP by rank
    swap_dragons: frozenset[int]      # dragons whose abilities swap dragons (ignoring cave preferences)
    swap_caves: frozenset[int]        # cave cards whose abilities do
    cover_abilities: dict[int, tuple[int, ...]]   # guild tile index -> abilities (0-based) that play onto a dragon
    names: dict[str, int]             # normalised dragon name -> number
    automa_corners: tuple[str, ...]   # corner id of each Automa card (engine card index = position)
    automa_levels: dict[str, tuple[int, ...]]   # level name (AUTOMA_LEVELS) -> the 8 card indexes of that level
    automa_objective: tuple[int, ...]  # objective coins each Automa card adds (+1 / 0 / -1)
    automa_passes: tuple[bool, ...]   # whether each Automa card shows the pass icon
    automa_playable: int              # of her 8 cards, how many she plays a round
    automa_markers: tuple[int, int]   # markers she has at the start, and gains each round
    solo_objectives: frozenset[tuple[int, int]]   # (tile, side) pairs used in solo (the Automa can score them)
    solo_removed: frozenset[int]      # dragons that leave the game in solo


@functools.lru_cache(maxsize=None)
def printing_rules(printing: str) -> Rules:
    db = load_database(printing)
    track = db.guild["track"]
    cover = {t: tuple(a for a, ab in enumerate(tile.abilities) if "onto=dragon" in ab.effect.text)
             for t, tile in enumerate(db.guild_tiles)}
    corners = [a.corner for a in db.automa_cards]
    return Rules(
        mat_nests=int(db.mat["mat_nests"]), explore_max=int(db.mat["explore"]["max_per_cave"]),
        markers=int(track["markers"]), brown=tuple(track["brown"]), track_spaces=len(track["spaces"]),
        fixed_vp=tuple(db.guild["fixed_vp_spot"]["vp"]), objective_vp=tuple(map(tuple, db.objective_vp)),
        swap_dragons=frozenset(d.number for d in db.dragons
                               if any("swap_dragons" in a.text for a in d.abilities)),
        swap_caves=frozenset(k.number for k in db.caves if any("swap_dragons" in a.text for a in k.abilities)),
        cover_abilities=cover, names={norm_name(d.name): d.number for d in db.dragons},
        automa_corners=tuple(corners),
        automa_levels={name: tuple(corners.index(x)
                                   for x in db.automa_levels[name if name[0] == "R" else "L" + name])
                       for name in AUTOMA_LEVELS},
        automa_objective=tuple(a.objective for a in db.automa_cards),
        automa_passes=tuple(a.passes for a in db.automa_cards),
        automa_playable=8 - int(db.automa_turns["set_aside"]),
        automa_markers=(int(db.automa_turns["markers_at_start"]), int(db.automa_turns["markers_per_round"])),
        solo_objectives=frozenset((t, s) for t, tile in enumerate(db.objectives)
                                  for s, side in enumerate((tile.a, tile.b)) if side.solo),
        solo_removed=frozenset(_solo_removed()))


def _solo_removed() -> frozenset[int]:
    from advisor._core import LEFT_NEIGHBOUR_DRAGONS      # the engine's list, so both agree
    return frozenset(LEFT_NEIGHBOUR_DRAGONS)


def brown_spaces_reached(steps: int, rules: Rules) -> int:
    """How many times a guild token that moved `steps` steps from START reached a brown space."""
    n = 0
    for b in rules.brown:
        first = b if b > 0 else rules.track_spaces
        if steps >= first:
            n += (steps - first) // rules.track_spaces + 1
    return n


def last_brown_space(steps: int, rules: Rules) -> int:
    """The step count at which a token that moved `steps` steps last reached a brown space (0: never)."""
    browns = [s for s in range(1, steps + 1) if s % rules.track_spaces in rules.brown]
    return browns[-1] if browns else 0


def fixed_spot_vp(i: int, rules: Rules) -> int:
    """VP of the i-th (0-based) marker placed on the fixed-VP spot."""
    return rules.fixed_vp[min(i, len(rules.fixed_vp) - 1)]


def automa_markers(rules: Rules, round_: int) -> int:
    """Guild markers the Automa has had by the given round (1-based)."""
    return rules.automa_markers[0] + (round_ - 1) * rules.automa_markers[1]


def corner_key(v: object) -> str:
    """An Automa card's corner id as typed, for matching: "R 2", "r2" and "R  2" are the same."""
    return re.sub(r"\s+", "", str(v)).upper()


def feed_count(dragon: Dragon, cached: list[int], tucked: int) -> int:
    """What a hatchling has been fed: the meat or milk cached on it, or the cards tucked under it."""
    if dragon.feeds == "meat":
        return cached[0]
    if dragon.feeds == "milk":
        return cached[3]
    return tucked


def feed_name(dragon: Dragon) -> str:
    return {"meat": "meat", "milk": "milk"}.get(dragon.feeds or "", "tucked card")
