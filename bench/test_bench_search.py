"""Benchmarks of search and positions: ISMCTS iterations from a 2-player round-2 position (the
multiplayer defaults at 2,000 and 60,000 iterations, and random playouts) and from a solo one (the solo defaults),
position files parsed and written, and random solo games against the Automa.
Run: python -m pytest bench --benchmark-only"""
from pathlib import Path

import pytest

from advisor import _core
from advisor.search.benchmark import round2_game
from advisor.search.params import parse_settings
from advisor.positions import parse_position, position_text
from advisor.search.analysis import _core_params

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.toml"))
ITERATIONS = 2000


def _rate(benchmark, key, units):
    """Record units per second (skipped when benchmarks are disabled: no timings then)."""
    if benchmark.stats:
        benchmark.extra_info[key] = units / benchmark.stats.stats.mean


@pytest.fixture(scope="module")
def round2():
    return round2_game(2)


def _search(game, iterations=ITERATIONS, solo=False, **settings):
    # a fixed number of iterations: no early stop once the choice is decided
    params = {**_core_params(parse_settings({"time": 0, "stop_early": 0, **settings}, solo=solo), 11),
              "iterations": iterations, "seconds": 0.0}
    return lambda: _core.search(game, params)


def test_ismcts_iterations(benchmark, round2):
    result = benchmark.pedantic(_search(round2), rounds=5, iterations=1)
    assert result["iterations"] == ITERATIONS
    _rate(benchmark, "iterations_per_s", ITERATIONS)


def test_ismcts_iterations_1s_tree(benchmark, round2):
    """The multiplayer defaults at the count 1 s buys at 2 players (docs/strength.md): a tree that
    large has nodes of many children, whose lookups cost what small trees do not show."""
    n = 60000
    result = benchmark.pedantic(_search(round2, iterations=n), rounds=3, iterations=1)
    assert result["iterations"] == n
    _rate(benchmark, "iterations_per_s", n)


def test_ismcts_solo_iterations(benchmark):
    """The solo search with its defaults against the Automa, level 3."""
    result = benchmark.pedantic(_search(round2_game(1), iterations=500, solo=True), rounds=5, iterations=1)
    assert result["iterations"] == 500
    _rate(benchmark, "iterations_per_s", 500)


def test_ismcts_iterations_random_playouts(benchmark, round2):
    benchmark.pedantic(_search(round2, playout="random"), rounds=5, iterations=1)
    _rate(benchmark, "iterations_per_s", ITERATIONS)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_parse_position(benchmark, path):
    text = path.read_text()
    benchmark(parse_position, text, path.name)


def test_position_round_trip(benchmark, round2):
    def trip():
        return parse_position(position_text(round2, round2.decider)).to_game(0)
    benchmark(trip)


def test_random_games_solo(benchmark):
    n = 200
    benchmark.pedantic(_core.random_games, args=(1, n, 1), rounds=5, iterations=1)
    _rate(benchmark, "games_per_s", n)
