"""Benchmark of `advisor review`: a whole 2-player game (greedy play, seed 22) reviewed for one seat at
the default budget (1 s a decision) with 2 root-parallel workers; the target is under 3 minutes.
Run: python -m pytest bench/test_bench_review.py --benchmark-only"""
from pathlib import Path

import pytest

from advisor._core import greedy_action
from advisor.play.saves import save_session
from advisor.play.session import Session
from advisor.play.setup import make_setup
from advisor.review import load_played, review
from advisor.review.judge import count
from advisor.search.analysis import Limit


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory):
    s = Session(make_setup(players=2, seat=0, opponents=["greedy"], seed=22))
    n = 0
    while not s.game.is_terminal():
        s.apply(greedy_action(s.game, n))
        n += 1
    path = Path(tmp_path_factory.mktemp("review")) / "game.toml"
    save_session(s, str(path))
    return load_played(str(path))


def test_review_a_2p_game_one_seat(benchmark, game):
    verdicts = benchmark.pedantic(lambda: review(game, [0], Limit(time=1.0), workers=2), rounds=1, iterations=1)
    assert len(verdicts) == count(game, [0])
    if benchmark.stats:
        benchmark.extra_info["decisions"] = len(verdicts)
        benchmark.extra_info["seconds"] = benchmark.stats.stats.mean
