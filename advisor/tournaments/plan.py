"""Planning a tournament: the agents it seats (parsed from `--agent` options), its duplicate deals,
their seeds and seatings, and the play version its records are played by.

Every game is planned in the parent from the tournament seed: its game seed, its seating and the
agent specs of every seat. Agents are built inside the worker from their spec strings and seeded
from the planned game seed exactly as `advisor.search.agents.play_game` seeds them (seat i gets
`seed * 31 + i`), so a result depends only on the plan, never on the worker count or the order in
which workers finish, and any recorded game can be replayed with `play_game`.

Games are played as duplicate deals: one game seed per deal, the same lineup with its seats
rotated through every distinct rotation, which takes most of the luck of the draw out of the
comparison. The statistics (docs/tournaments.md) treat a deal as the independent unit."""
from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from typing import Any, Sequence

from advisor.errors import AdvisorError

SCHEMA_VERSION = 1


class TournamentError(AdvisorError):
    """A tournament cannot be planned or run as asked."""


def parse_agent_option(text: str) -> tuple[str, str]:
    """`NAME=SPEC` or a bare `SPEC` (named after itself) -> (name, spec)."""
    text = text.strip()
    head, eq, rest = text.partition("=")
    if eq and ":" not in head and head.strip():
        name, spec = head.strip(), rest.strip()
    else:
        name, spec = text, text
    if not spec:
        raise TournamentError(f"--agent '{text}': empty agent spec (NAME=SPEC, e.g. A=ismcts:iterations=200)")
    if any(c in name for c in ",\n\t") or not name:
        raise TournamentError(f"--agent '{text}': bad agent name '{name}'")
    return name, spec


def check_agents(agents: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Validate names (unique) and specs (buildable); returns them with specs normalised."""
    from advisor.search.agents import make_agent

    if not agents:
        raise TournamentError("no agents: give at least one --agent NAME=SPEC")
    seen: set[str] = set()
    out = []
    for name, spec in agents:
        if name in seen:
            raise TournamentError(f"agent name '{name}' is given twice; names must be unique")
        seen.add(name)
        try:
            make_agent(spec, 0)
        except AdvisorError as e:
            raise TournamentError(f"agent '{name}': {e}") from None
        out.append((name, spec.strip()))
    return out


def time_budgeted(spec: str) -> bool:
    """True when the spec's search stops on the clock (its games are then not reproducible)."""
    from advisor.search.agents import parse_spec
    from advisor.search.params import parse_settings
    name, settings = parse_spec(spec)
    if name != "ismcts":
        return False
    s = parse_settings(settings)
    return s["time"] > 0


def resolved_settings(spec: str, players: int) -> dict[str, Any] | None:
    """Every search setting an ismcts spec plays with (its own over the defaults of the game's
    kind, which may change between versions); None for agents without settings."""
    from advisor.search.agents import parse_spec
    from advisor.search.params import parse_settings
    name, items = parse_spec(spec)
    return parse_settings(items, solo=players == 1) if name == "ismcts" else None


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in `seat`: the same as `advisor.search.agents.play_game` uses."""
    return game_seed * 31 + seat


@dataclass(frozen=True)
class PlannedGame:
    tournament: str
    key: str
    deal: int
    game: int                  # index within the deal
    seed: int                  # game seed (the deal's seed)
    players: int
    printing: str
    agents: tuple[str, ...]    # agent name per seat
    specs: tuple[str, ...]     # agent spec per seat
    automa: str | None = None  # solo: the Automa's level

    def to_dict(self) -> dict[str, Any]:
        return {"tournament": self.tournament, "key": self.key, "deal": self.deal, "game": self.game,
                "seed": self.seed, "players": self.players, "printing": self.printing,
                "agents": list(self.agents), "specs": list(self.specs), "automa": self.automa}


@dataclass
class Plan:
    id: str
    seed: int
    players: int
    printing: str
    agents: list[tuple[str, str]]
    games: list[PlannedGame]
    deals: int
    requested: int
    automa: str | None = None

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self.agents]

    def keys(self) -> set[str]:
        return {g.key for g in self.games}


def tournament_id(agents: Sequence[tuple[str, str | None]], players: int, seed: int, printing: str,
                  lineup: Sequence[str] | None = None, automa: str | None = None) -> str:
    d = {"v": SCHEMA_VERSION, "agents": [list(a) for a in agents], "players": players, "seed": seed,
         "printing": printing, "lineup": list(lineup) if lineup else None}
    if players == 1:
        d["automa"] = automa
    blob = json.dumps(d, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of a deal: 48 bits hashed from (tournament seed, deal number)."""
    h = hashlib.blake2b(f"wyrmspan-deal:{seed}:{deal}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") >> 16


def rotations(lineup: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The distinct cyclic rotations of a seating (A,B,A,B has two, A,B,C three)."""
    out: list[tuple[str, ...]] = []
    for r in range(len(lineup)):
        t = tuple(lineup[r:]) + tuple(lineup[:r])
        if t not in out:
            out.append(t)
    return out


def deal_lineups(names: list[str], players: int, deal: int, lineup: Sequence[str] | None = None,
                 _combos: list[tuple[int, ...]] | None = None) -> list[tuple[str, ...]]:
    """The seatings played in one deal.

    Solo: every agent plays the deal's seed once. Otherwise one lineup of `players` seats with all its
    distinct rotations: with at most as many agents as seats, the agents in turn fill the seats
    (starting from a different agent each deal, so extra seats are shared out evenly); with more
    agents than seats, deal d takes the d-th combination of agents, cycling."""
    if lineup is not None:
        return rotations(tuple(lineup))
    k = len(names)
    if players == 1:
        return [(n,) for n in names]
    if k <= players:
        base = tuple(names[(deal + i) % k] for i in range(players))
    else:
        combos = _combos if _combos is not None else list(itertools.combinations(range(k), players))
        base = tuple(names[i] for i in combos[deal % len(combos)])
    return rotations(base)


def plan_tournament(agents: list[tuple[str, str]], players: int, games: int, seed: int = 0,
                    printing: str = "base", lineup: Sequence[str] | None = None, automa: str = "2") -> Plan:
    """Plan whole deals until at least `games` games are planned. `automa`: the Automa's level in
    solo games (1, 2, 3, R1, R2, R3)."""
    if not 1 <= players <= 5:
        raise TournamentError(f"players must be 1 to 5, got {players}")
    if games < 1:
        raise TournamentError("the tournament needs at least one game")
    names = [n for n, _ in agents]
    specs = dict(agents)
    if lineup is not None:
        if len(lineup) != players or any(n not in specs for n in lineup):
            raise TournamentError(f"lineup {lineup} does not fit {players} players and agents {names}")
    combos = None
    if lineup is None and players > 1 and len(names) > players:
        if math.comb(len(names), players) > 100_000:
            raise TournamentError(f"{len(names)} agents in {players}-player games: too many lineups")
        combos = list(itertools.combinations(range(len(names)), players))
    level = str(automa).upper() if players == 1 else None
    tid = tournament_id(agents, players, seed, printing, lineup, level)
    planned: list[PlannedGame] = []
    seeds: set[int] = set()
    deal = 0
    while len(planned) < games:
        s = deal_seed(seed, deal)
        salt = 0
        while s in seeds:                  # never reuse a seed within a tournament
            salt += 1
            s = deal_seed(seed, deal * 1_000_003 + salt + 10**12)
        seeds.add(s)
        for i, seating in enumerate(deal_lineups(names, players, deal, lineup, combos)):
            planned.append(PlannedGame(tid, f"d{deal}.g{i}", deal, i, s, players, printing, seating,
                                       tuple(specs[n] for n in seating), level))
        deal += 1
    return Plan(tid, seed, players, printing, list(agents), planned, deal, games, level)


