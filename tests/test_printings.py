"""One process, two printings: every game plays with its own printing's card tables, whatever
game of another printing the process created or used last (issue 45)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from advisor import _core
from advisor._core import Game
from advisor.search import analyse

SEEDS = range(10)               # 10 deals, each played in both printings: 20 games


def _choose(game: Game, rng: random.Random) -> int:
    return rng.choice(game.legal_actions())


def _alone(players: int, seed: int, printing: str) -> dict:
    """The end of a seeded random game played with nothing else created in between."""
    game = Game.new(players, seed, printing)
    rng = random.Random(seed)
    while not game.is_terminal():
        game.apply(_choose(game, rng))
    return _outcome(game)


def _outcome(game: Game) -> dict:
    return {"scores": game.score_breakdown(), "winners": game.winners(), "state": game.to_dict()}


def _interleaved(players: int, seed: int) -> tuple[dict, dict]:
    """The same two games, base and 2025, taking one decision each in turn."""
    games = {"base": Game.new(players, seed, "base"), "2025": Game.new(players, seed, "2025")}
    rngs = {p: random.Random(seed) for p in games}
    while not all(g.is_terminal() for g in games.values()):
        for printing, game in games.items():
            if not game.is_terminal():
                game.apply(_choose(game, rngs[printing]))
                game.score_breakdown()          # scoring mid-game must not disturb the other game
    return _outcome(games["base"]), _outcome(games["2025"])


@pytest.mark.parametrize("players", [2, 1])
def test_interleaved_games_play_as_alone(players):
    differ = 0
    for seed in SEEDS:
        base, new = _interleaved(players, seed)
        assert base == _alone(players, seed, "base"), f"base game, seed {seed}"
        assert new == _alone(players, seed, "2025"), f"2025 game, seed {seed}"
        differ += base["scores"] != new["scores"]
    assert differ > 0, "the printings never changed a score: the test proves nothing"


def _mid_game(printing: str, seed: int = 4, decisions: int = 25) -> Game:
    game = Game.new(2, seed, printing)
    rng = random.Random(seed)
    for _ in range(decisions):
        game.apply(_choose(game, rng))
    return game


def _other(printing: str) -> str:
    return "2025" if printing == "base" else "base"


def _load_last(printing: str) -> None:
    """Create (and play a little of) a game of `printing`, so its tables were the last loaded."""
    Game.new(2, 99, printing).play_random(1)


@pytest.mark.parametrize("printing", ["base", "2025"])
@pytest.mark.parametrize("seed", range(4))
def test_clone_from_dict_and_random_play_keep_their_printing(printing, seed):
    game = _mid_game(printing, seed)
    _load_last(printing)
    clone, copy = game.clone(), Game.from_dict(game.to_dict())
    game.play_random(3)
    expected = game.score_breakdown()
    _load_last(_other(printing))
    assert clone.printing == copy.printing == printing
    clone.play_random(3)
    copy.play_random(3)
    assert clone.score_breakdown() == copy.score_breakdown() == expected


@pytest.mark.parametrize("printing", ["base", "2025"])
@pytest.mark.parametrize("seed", range(4))
def test_determinize_keeps_its_printing(printing, seed):
    game = _mid_game(printing, seed)
    _load_last(printing)
    expected = game.determinize(game.decider, 7)
    expected.play_random(2)
    _load_last(_other(printing))
    again = game.determinize(game.decider, 7)
    again.play_random(2)
    assert again.to_dict() == expected.to_dict()


def test_from_dict_takes_the_printing_of_the_core_when_none_is_named():
    game = _mid_game("2025")
    alone = Game.from_dict({"core": game.to_dict()["segment_start"]})
    assert alone.printing == "2025"
    named = Game.from_dict({"core": game.to_dict()["segment_start"], "printing": "base"})
    assert named.printing == "base" and named.to_dict()["core"]["printing"] == 0


def _root(analysis) -> list[tuple[int, int]]:
    return [(m.action, m.visits) for m in analysis.moves]


@pytest.mark.parametrize("printing", ["base", "2025"])
def test_search_uses_the_games_printing(printing):
    game = _mid_game(printing)
    _load_last(printing)
    expected = _root(analyse(game, {"iterations": 300, "workers": 1}, seed=3))
    _load_last(_other(printing))
    assert _root(analyse(game, {"iterations": 300, "workers": 1}, seed=3)) == expected


def test_random_games_in_core_use_the_printing_asked():
    _load_last("base")
    expected = _core.random_games(2, 5, 11, "2025")
    _load_last("base")
    assert _core.random_games(2, 5, 11, "2025") == expected


def test_every_core_function_on_a_game_uses_its_printing():
    """The core's module functions that take a Game point the tables at its printing first (a new
    one that forgets would read whatever printing was used last)."""
    ext = Path(__file__).resolve().parent.parent / "ext"
    missing = []
    for path in sorted(ext.rglob("*.pxi")):
        text = path.read_text()
        for m in re.finditer(r"^def (\w+)\(Game (\w+)", text, re.M):
            body = text[m.end():].split("\ndef ", 1)[0].split("\ncdef ", 1)[0]
            if f"use_tables_of({m.group(2)})" not in body:
                missing.append(f"{path.name}: {m.group(1)}")
    assert not missing
