"""How a game of `advisor play` starts: the players, the human's seat, the opponents' agents (or
the Automa's level), the seed and the printing, checked from the command's options."""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from advisor import _core
from advisor.errors import AdvisorError
from advisor.variants import AUTOMA_LEVELS as LEVELS, PRINTINGS

DEFAULT_OPPONENT = "ismcts:time=1"


class PlayError(AdvisorError):
    """A play setup or save file that cannot be used (one line per problem)."""


@dataclass(frozen=True)
class PlaySetup:
    """How a game starts: `players` (1 = solo against the Automa at `solo_level`), the human's
    `seat`, one agent spec per other engine seat (`opponents`, none in solo), `seed`, `printing`."""
    players: int
    seat: int
    opponents: tuple[str, ...]
    solo_level: str | None
    seed: int
    printing: str = "base"

    @property
    def seats(self) -> int:
        """Engine seats: the Automa is seat 1 of a solo game."""
        return 2 if self.solo_level else self.players

    @property
    def ai_seats(self) -> list[int]:
        return [] if self.solo_level else [s for s in range(self.players) if s != self.seat]

    def spec(self, seat: int) -> str:
        return self.opponents[self.ai_seats.index(seat)]

    def names(self) -> list[str]:
        names = [f"P{s}" for s in range(self.seats)]
        if self.solo_level:
            names[1] = "Automa"
        return names

    def new_game(self) -> _core.Game:
        return _core.Game.new(1 if self.solo_level else self.players, self.seed, self.printing,
                              automa=self.solo_level or "2")

    def describe(self) -> str:
        if self.solo_level:
            return f"P0 in a solo game (seed {self.seed}) against the Automa at level {self.solo_level}"
        others = ", ".join(f"P{s} {self.spec(s)}" for s in self.ai_seats)
        return f"P{self.seat} in a {self.players}-player game (seed {self.seed}) against {others}"


def make_setup(players: int | None = None, seat: int | None = None, opponents: Sequence[str] = (),
               solo_level: str | None = None, seed: int | None = None, printing: str = "base") -> PlaySetup:
    """A checked setup from the command's options (None: the default)."""
    from advisor.search.agents import automa_level, make_agent
    levels = {automa_level(s) for s in opponents} - {None}
    solo_by = "--solo-level"               # the option that made the game solo, for the messages
    if levels:                            # --opponent automa:L is --solo-level L
        if len(opponents) > 1:
            raise PlayError("--opponent: the Automa plays only solo games; give automa:L alone")
        (level,) = levels
        if solo_level is not None and str(solo_level).upper() != level:
            raise PlayError(f"--opponent automa:{level} and --solo-level {solo_level} name two levels")
        solo_level, opponents, solo_by = level, (), f"--opponent automa:{level}"
    if solo_level is not None:
        solo_level = str(solo_level).upper()
        if solo_level not in LEVELS:
            raise PlayError(f"--solo-level: '{solo_level}' is not one of {', '.join(LEVELS)}")
        if players not in (None, 1):
            raise PlayError(f"{solo_by} makes a solo game (1 player against the Automa), not {players} players")
        if opponents:
            raise PlayError("--opponent: in a solo game the Automa is the opponent; give no --opponent")
        if seat not in (None, 0):
            raise PlayError(f"--seat: in a solo game you sit at seat 0 (the Automa is seat 1), not {seat}")
        players = 1
    elif players == 1:
        raise PlayError("a 1-player game is a solo game against the Automa: give --solo-level "
                        f"({', '.join(LEVELS)})")
    players = 2 if players is None else players
    if not 1 <= players <= 5:
        raise PlayError(f"--players: {players} is not from 1 to 5")
    seat = seat or 0
    if not 0 <= seat < players:
        raise PlayError(f"--seat: {seat} is not a seat of a {players}-player game (seats 0 to {players - 1})")
    if printing not in PRINTINGS:
        raise PlayError(f"--printing: '{printing}' is not one of {', '.join(PRINTINGS)}")
    n_ai = 0 if solo_level else players - 1
    specs = tuple(s.strip() for s in opponents) or (DEFAULT_OPPONENT,)
    if solo_level:
        specs = ()
    elif len(specs) == 1:
        specs = specs * n_ai
    elif len(specs) != n_ai:
        raise PlayError(f"--opponent: give one spec for all opponents or one for each ({n_ai}), not {len(specs)}")
    for s in set(specs):
        make_agent(s)                     # AgentSpecError: an unknown agent or bad settings
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    return PlaySetup(players, seat, specs, solo_level, int(seed), printing)

