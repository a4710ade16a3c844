"""Agents: one interface, `choose(game) -> action`, for any decider (an opponent accepting a shared
benefit included). Build one from a spec string: `random`, `greedy`, `ismcts:time=1,c=0.7`,
`net:weights=FILE,samples=4`."""
from __future__ import annotations

import abc
import difflib
import random

from advisor import _core
from pathlib import Path

from advisor.errors import AdvisorError
from advisor.search import data
from advisor.search.params import parse_settings
from advisor.variants import AUTOMA_LEVELS
from advisor.search.workers import SearchWorkers
from advisor.search.analysis import analyse


class AgentSpecError(AdvisorError):
    """An agent spec string that names no agent or has bad settings."""


class Agent(abc.ABC):
    """Base class. `seed` makes every choice reproducible; `reset(seed)` starts a new game."""
    name = "agent"

    def __init__(self, seed: int = 0):
        self.reset(seed)

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.decisions = 0

    def _next_seed(self) -> int:
        self.decisions += 1
        return (self.seed * 2_654_435_761 + self.decisions * 40_503) & ((1 << 62) - 1)

    @abc.abstractmethod
    def choose(self, game: "_core.Game") -> int:
        """The action this agent takes at `game`'s current decision (any decider)."""

    def close(self) -> None:
        """Free what the agent holds beyond memory (search processes); it may not choose again."""


class RandomAgent(Agent):
    """Uniformly random legal decisions."""
    name = "random"

    def choose(self, game):
        legal = game.legal_actions()
        return legal[random.Random(self._next_seed()).randrange(len(legal))]


class GreedyAgent(Agent):
    """One-decision lookahead on a heuristic of the final score (the core's heuristic value)."""
    name = "greedy"

    def choose(self, game):
        return _core.greedy_action(game, self._next_seed())


class NetAgent(Agent):
    """The greedy agent's lookahead with the learnt judge (issue 65) in place of the heuristic, each
    turn played out in a world dealt from the decider's view: settings `weights` (a network file;
    the shipped advisor/data/judge.npz by default) and `samples` (worlds averaged, 1-64; 4 as greedy)."""
    name = "net"
    SETTINGS = ("weights", "samples")

    def __init__(self, settings: dict | None = None, seed: int = 0):
        given = dict(settings or {})
        unknown = set(given) - set(self.SETTINGS)
        if unknown:
            close = difflib.get_close_matches(sorted(unknown)[0], self.SETTINGS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise AgentSpecError(f"agent 'net': unknown setting '{sorted(unknown)[0]}'{hint}; "
                                 f"settings: {', '.join(self.SETTINGS)}")
        try:
            self.samples = int(given.get("samples", "4"))
        except ValueError:
            self.samples = 0
        if not 1 <= self.samples <= 64:
            raise AgentSpecError(f"agent 'net': samples must be a whole number 1-64, got {given['samples']!r}")
        self.weights = Path(given["weights"]).expanduser() if "weights" in given else data.JUDGE_FILE
        data.judge_weights(self.weights)                # a missing or bad file fails here, not mid-game
        super().__init__(seed)

    def choose(self, game):
        data.use_judge(self.weights)
        return _core.judged_action(game, self._next_seed(), self.samples)


class ISMCTSAgent(Agent):
    """Information-set MCTS with any settings from the parameter registry."""
    name = "ismcts"

    def __init__(self, settings: dict | None = None, seed: int = 0):
        self.given = dict(settings or {})              # explicit; the rest follow the game (solo)
        self.settings = parse_settings(self.given)
        super().__init__(seed)

    _tree: "_core.SearchTree | SearchWorkers | None"

    def reset(self, seed: int) -> None:
        super().reset(seed)
        old = getattr(self, "_tree", None)
        if isinstance(old, SearchWorkers):
            old.clear()                 # the processes serve the next game too
        else:
            # several workers: processes that keep a tree each, started at the first search
            self._tree = _core.SearchTree() if self.settings["reuse"] and self.settings["workers"] == 1 else None
        self._since: list[int] | None = None

    def close(self) -> None:
        """End the search processes of a several-worker agent (also done when it is collected)."""
        tree = getattr(self, "_tree", None)
        if isinstance(tree, SearchWorkers):
            tree.close()
            self._tree = None

    def choose(self, game):
        # Decisions this agent did not see (other seats') break the chain: the tree then restarts.
        legal = game.legal_actions()
        if len(legal) == 1:
            if self._since is not None:
                self._since.append(legal[0])
            return legal[0]
        action = self._decide(game)
        self._since = [action]
        return action

    def _decide(self, game) -> int:
        """The search's move at a decision with a choice."""
        if self._tree is None and self.settings["reuse"]:
            self._tree = SearchWorkers(self.settings["workers"])
        self.last = analyse(game, self.given, seed=self._next_seed(), tree=self._tree, since=self._since)
        return self.last.best.action


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "ismcts": ISMCTSAgent, "net": NetAgent}


def automa_level(spec: str) -> str | None:
    """The level named by an `automa[:L]` spec (L defaults to 2), None for any other spec. The
    Automa sits in no seat: she is the opponent of a solo game, wherever an opponent is given."""
    name, _, level = spec.strip().partition(":")
    if name.strip().lower() != "automa":
        return None
    lv = (level.strip() or "2").upper()
    if lv not in AUTOMA_LEVELS:
        raise AgentSpecError(f"agent spec '{spec.strip()}': the Automa's level is one of {', '.join(AUTOMA_LEVELS)}")
    return lv


def parse_spec(spec: str) -> tuple[str, dict]:
    """`name[:key=value,...]` -> (name, settings)."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name == "automa":
        raise AgentSpecError(f"'{spec.strip()}': the Automa plays no seat here; she is a solo game's opponent")
    if name not in AGENTS:
        close = difflib.get_close_matches(name, list(AGENTS), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise AgentSpecError(f"unknown agent '{name}' in spec '{spec}'{hint}; agents: {', '.join(AGENTS)}")
    settings = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        k, eq, v = item.partition("=")
        if not eq:
            raise AgentSpecError(f"agent spec '{spec}': '{item}' is not key=value")
        settings[k.strip()] = v.strip()
    if settings and name not in ("ismcts", "net"):
        raise AgentSpecError(f"agent '{name}' takes no settings (spec '{spec}')")
    return name, settings


def make_agent(spec: str, seed: int = 0) -> Agent:
    name, settings = parse_spec(spec)
    if name == "ismcts":
        parse_settings(settings)                        # bad settings fail here, not mid-game
        return ISMCTSAgent(settings, seed)
    if name == "net":
        return NetAgent(settings, seed)
    return AGENTS[name](seed)


def play_game(agents: list[Agent], players: int, seed: int, printing: str = "base",
              automa: str = "2") -> "_core.Game":
    """Play one game, seat i played by agents[i] (solo: players=1, the Automa at level `automa`)."""
    game = _core.Game.new(players, seed, printing, automa)
    for i, a in enumerate(agents):
        a.reset(seed * 31 + i)
    while not game.is_terminal():
        game.apply(agents[game.decider].choose(game))
    return game
