"""The agent's own play as judge of a commitment: the top candidates of a search, each scored by
whole games that the agent plays on from worlds sampled from the player's view, pruned by
sequential halving.

A search ranks moves by its playouts, which play far worse than the agent; the decisions that set a
game's direction (setup, the first moves of round 1) are where that hurts most. Here each candidate
is played out by the agent itself (every seat an ISMCTS agent at `ROLLOUT_ITERATIONS` a decision,
with the settings given), from the same sampled worlds for every candidate of a round, so the
comparison is paired. Sequential halving spends the games on the candidates still in the running:
each round plays every survivor on new worlds and keeps the better half by mean reward (the
search's own: win and margin, weighted by `margin_weight`). Never reads the true hidden state:
every world is dealt from the player's view."""
from __future__ import annotations

import math
import multiprocessing as mp
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from advisor import _core
from advisor.errors import AdvisorError
from advisor.notation import action_text

ROLLOUT_ITERATIONS = 200    # a decision of the agent's games: past a few hundred they cost more than they tell
CANDIDATES = 4              # the search's best moves that the games judge


@dataclass
class DeepInfo:
    """One candidate as the agent's games judged it."""
    action: int
    text: str
    games: int = 0
    rewards: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    margins: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    round_out: int = 0      # the halving round it was dropped in (0: it lasted)

    def mean(self, what: str) -> float:
        v = getattr(self, what)
        return float(np.mean(v)) if v else math.nan

    def se(self, what: str) -> float:
        v = getattr(self, what)
        return float(np.std(v, ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.inf


@dataclass
class DeepAnalysis:
    player: int
    candidates: list[DeepInfo]      # best first: the last survivor, then by the round dropped and mean
    games: int                      # played to the end
    seconds: float
    errors: int = 0                 # games the engine failed in (left out)
    interrupted: bool = False

    @property
    def best(self) -> DeepInfo:
        return self.candidates[0]


class DeepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped an agent's judgement; `analysis` is the judgement so far."""

    def __init__(self, analysis: DeepAnalysis):
        super().__init__("deep judgement interrupted")
        self.analysis = analysis


def is_commitment(game: "_core.Game") -> bool:
    """A decision that sets the game's direction: setup, or the player's first two turns' moves."""
    obs = game.observation(game.decider)
    return obs["phase"] == "setup" or (game.round == 1 and game.decision == "move"
                                       and obs["turns"] < 2 * len(obs["players"]))


def _rounds(candidates: int) -> int:
    """Sequential halving's rounds for that many candidates (one when there is one)."""
    return max(1, math.ceil(math.log2(candidates)))


def rollout(job: tuple[dict, str, int, int, int, dict]) -> tuple[float, float, float] | None:
    """One game played on by the agent after `action` in the world `world_seed` deals from the
    player's view: (her final score, margin over the best other, share of the win); None when the
    engine failed in it (counted, as the search counts its failed iterations)."""
    try:
        return _rollout(job)
    except (_core.EngineError, AdvisorError, RuntimeError, ValueError):
        return None


def _rollout(job: tuple[dict, str, int, int, int, dict]) -> tuple[float, float, float]:
    from advisor.search.agents import ISMCTSAgent
    state, printing, player, action, world_seed, settings = job
    world = _core.Game.from_dict(state).determinize(player, world_seed)
    world.apply(action)
    seats = 1 if world.automa_level is not None else world.players
    agents = [ISMCTSAgent(settings) for _ in range(seats)]
    for s, agent in enumerate(agents):
        agent.reset(world_seed * 7 + s)
    while not world.is_terminal():
        world.apply(agents[world.decider].choose(world))
    scores = [b["total"] for b in world.score_breakdown()]
    winners = world.winners()
    best_other = max(s for i, s in enumerate(scores) if i != player)
    return float(scores[player]), float(scores[player] - best_other), \
        (1.0 / len(winners)) if player in winners else 0.0


def deep_analyse(game: "_core.Game", actions: list[int], games: int, settings: dict[str, Any],
                 seed: int = 0, workers: int = 1,
                 progress: Callable[[float], None] | None = None) -> DeepAnalysis:
    """Judge `actions` (best first by the search; as many of them as `games` can play once a
    halving round each) by at most `games` games of the agent with `settings` (its budget replaced
    by ROLLOUT_ITERATIONS), by sequential halving. Ctrl-C returns the judgement so far,
    `interrupted` set."""
    from advisor.search.params import parse_settings
    t0 = time.perf_counter()
    player = game.decider
    solo = game.automa_level is not None
    given = {k: v for k, v in settings.items() if k not in ("time", "iterations", "workers", "deep")}
    played = {**given, "iterations": ROLLOUT_ITERATIONS, "time": 0}
    weight = parse_settings(played, solo=solo)["margin_weight"]
    state = game.to_dict()
    # as many candidates as the games can play once a round each
    k = max((k for k in range(1, len(actions) + 1) if k * _rounds(k) <= games), default=1)
    infos = [DeepInfo(a, action_text(a, game.printing, game)) for a in actions[:k]]
    alive = list(infos)
    rounds = _rounds(k)
    worlds = seed * 1_000_003 + 17
    done, errors, interrupted = 0, 0, False
    pool = mp.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        for r in range(rounds):
            per = max(1, (games - done) // ((rounds - r) * len(alive)))     # the budget left, shared alike
            jobs = [(state, game.printing, player, info.action, worlds + w, played)
                    for w in range(per) for info in alive]
            worlds += per
            results = pool.imap(rollout, jobs) if pool else map(rollout, jobs)
            for (w, info), result in zip(((w, i) for w in range(per) for i in alive), results):
                done += 1
                if result is None:
                    errors += 1
                    continue
                score, margin, win = result
                info.scores.append(score)
                info.margins.append(margin)
                info.wins.append(win)
                info.rewards.append(_core.reward(win, margin, weight))
                info.games += 1
                if progress is not None:
                    progress(min(1.0, done / max(1, games)))
            if len(alive) > 1:
                alive.sort(key=lambda i: i.mean("rewards"), reverse=True)
                for info in alive[(len(alive) + 1) // 2:]:
                    info.round_out = r + 1
                alive = alive[:(len(alive) + 1) // 2]
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if pool is not None:
            pool.terminate()
    ranked = sorted(infos, key=lambda i: (i.round_out == 0, i.round_out, i.mean("rewards") if i.games else -1),
                    reverse=True)
    return DeepAnalysis(player=player, candidates=ranked, games=done - errors, seconds=time.perf_counter() - t0,
                        errors=errors, interrupted=interrupted)
