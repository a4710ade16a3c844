"""Where tracking starts: a position file (the viewer's turn, as `advisor suggest` reads it), or a
new game laid out on the table (objectives, guild tile, start player, display, the viewer's dealt
cards), from which the setup decisions are entered as moves."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from advisor._core import Game
from advisor.cards import load_database
from advisor.cards.database import CardLookupError
from advisor.track.chance import KINDS, state_of
from advisor.track.game import TrackError

Ask = Callable[[str], str]      # asks a question, returns the answer line


def from_position(path: str, seed: int) -> tuple[Game, int, tuple[str, ...]]:
    """The game, the viewer's seat and the seats' names of a position file (cards the viewer cannot
    see are dealt from `seed`)."""
    from advisor.positions import AUTOMA_NAME, load_position
    pos = load_position(path)
    names = pos.names + ((AUTOMA_NAME,) if pos.solo else ())
    return pos.to_game(seed), pos.viewer, names


def _objectives(text: str) -> tuple[list[int], list[int]]:
    parts = re.findall(r"(\d+)\s*([ab])", text.lower())
    if len(parts) != 4 or len(re.sub(r"[\s,]", "", text)) != sum(len(n) + 1 for n, _ in parts):
        raise TrackError("give the 4 objective tiles of rounds 1-4 with their sides, e.g. 6a 5b 10a 3a")
    tiles = [int(n) - 1 for n, _ in parts]
    if not all(0 <= t < 10 for t in tiles) or len(set(tiles)) != 4:
        raise TrackError("objective tiles are 4 different numbers from 1 to 10")
    return tiles, ["ab".index(s) for _, s in parts]


def _cards(db: Any, text: str, kind: str, count: int, taken: Sequence[int] = ()) -> list[int]:
    items = [x.strip() for x in text.split(",") if x.strip()]
    if len(items) != count:
        raise TrackError(f"give {count} {kind} cards, separated by commas")
    try:
        out = [db.lookup(x, kind).number for x in items]
    except CardLookupError as e:
        raise TrackError(str(e)) from None
    if len(set(out)) != len(out):
        raise TrackError(f"the same {kind} twice")
    if set(out) & set(taken):
        raise TrackError(f"{', '.join(str(x) for x in sorted(set(out) & set(taken)))}: in the display already")
    return out


def _ask(ask: Ask, tell: Callable[[str], None], question: str, read: Callable[[str], Any]) -> Any:
    """Ask until the answer reads."""
    while True:
        try:
            return read(ask(question))
        except TrackError as e:
            tell(str(e))


def from_table(players: int, names: Sequence[str], viewer: int, level: str | None, seed: int,
               ask: Ask, tell: Callable[[str], None], printing: str = "base") -> Game:
    """A new game as the table lays it out, at its first setup decision."""
    db = load_database(printing)
    g = Game.new(players, seed, printing, automa=level or "2")
    core = state_of(g)["segment_start"]
    tiles, sides = _ask(ask, tell, "Objective tiles of rounds 1-4 with sides (e.g. 6a 5b 10a 3a):", _objectives)
    guilds = [t.name for t in db.guild_tiles]

    def guild(text: str) -> int:
        t = text.strip().lower()
        hits = [i for i, n in enumerate(guilds) if t == str(i + 1) or t and t in n.lower()]
        if len(hits) != 1:
            raise TrackError(f"the guild tile: 1-4 or a name ({', '.join(guilds)})")
        return hits[0]
    core["guild_tile"] = _ask(ask, tell, "Guild tile:", guild)
    core["objective_tiles"], core["objective_sides"] = tiles, sides
    if level is None:
        def seat(text: str) -> int:
            hits = [i for i, n in enumerate(names) if n.lower() == text.strip().lower()]
            if not hits:
                raise TrackError(f"the start player: one of {', '.join(names)}")
            return hits[0]
        core["start_player"] = core["phase_player"] = _ask(ask, tell, "Start player:", seat)
    want = {
        ("display", "dragons"): _ask(ask, tell, "Dragon display (3 names, left to right):",
                                     lambda t: _cards(db, t, "dragon", 3)),
        ("display", "caves"): _ask(ask, tell, "Cave display (3 cave numbers):",
                                   lambda t: _cards(db, t, "cave", 3)),
    }
    n_d = len(core["players"][viewer]["hand_dragons"])
    n_c = len(core["players"][viewer]["hand_caves"])
    want["hand", "dragons"] = _ask(ask, tell, f"Your {n_d} dealt dragons:",
                                   lambda t: _cards(db, t, "dragon", n_d, want["display", "dragons"]))
    want["hand", "caves"] = _ask(ask, tell, f"Your {n_c} dealt caves:",
                                 lambda t: _cards(db, t, "cave", n_c, want["display", "caves"]))
    for kind in KINDS:
        _deal(core, viewer, kind, want["display", kind], want["hand", kind])
    return Game.from_dict({"core": core, "printing": printing})


def _deal(core: dict[str, Any], viewer: int, kind: str, display: list[int], hand: list[int]) -> None:
    """Lay out the named cards (the display and the viewer's hand); the other hands get the rest of
    what they were dealt, the deck keeps its order without the named cards."""
    named = set(display) | set(hand)
    deck = [c for c in core[f"deck_{kind}"] if c not in named]
    loose = [c for c in core[f"display_{kind}"] if c not in named]
    loose += [c for c in core["players"][viewer][f"hand_{kind}"] if c not in named]
    core[f"display_{kind}"] = list(display)
    core["players"][viewer][f"hand_{kind}"] = sorted(hand)
    for q, P in enumerate(core["players"]):
        if q != viewer:
            keep = [c for c in P[f"hand_{kind}"] if c not in named]
            while len(keep) < len(P[f"hand_{kind}"]):
                keep.append(loose.pop() if loose else deck.pop())
            P[f"hand_{kind}"] = sorted(keep)
    core[f"deck_{kind}"] = loose + deck       # the loose cards go to the bottom
