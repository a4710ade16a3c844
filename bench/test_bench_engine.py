"""Benchmarks of the rules engine. Targets (issue 3): clone at 5 players <= 1 us; >= 3,000 random
2-player games per second driven in the core. Compare ratios within one run: machines are shared."""
import pytest

from advisor import _core
from advisor._core import Game


def _midgame(players, seed=3, decisions=60):
    import random
    g = Game.new(players, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        legal = [a for a in g.legal_actions() if a >> 20 != 1] or g.legal_actions()   # avoid passing
        g.apply(rng.choice(legal))
    return g


def test_clone_5p_python(benchmark):
    g = _midgame(5)
    benchmark(g.clone)


def test_clone_5p_in_core(benchmark):
    g = _midgame(5)
    ns = benchmark.pedantic(_core.clone_ns, args=(g, 200000), rounds=5, iterations=1)
    benchmark.extra_info["clone_ns"] = ns


@pytest.mark.parametrize("players", [2, 4, 5])
def test_random_games_in_core(benchmark, players):
    n = 500
    benchmark.pedantic(_core.random_games, args=(players, n, 1), rounds=5, iterations=1)
    if benchmark.stats:                 # None with --benchmark-disable
        benchmark.extra_info["games_per_s"] = n / benchmark.stats.stats.mean


def test_legal_and_apply(benchmark):
    g0 = _midgame(2)

    def step():
        g = g0.clone()
        g.apply(g.legal_actions()[0])
    benchmark(step)


def test_determinize(benchmark):
    g = _midgame(4)
    benchmark(g.determinize, g.decider, 7)
