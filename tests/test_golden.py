"""Golden playthroughs: seeded games written out decision by decision, diffed against tests/golden.

A change to the rules engine that alters play shows up here as a readable diff. After an intended
change, rewrite the files with `GOLDEN_UPDATE=1 python -m pytest tests/test_golden.py` and review
the diff before committing."""
import os
from pathlib import Path

import pytest

from advisor._core import Game
from advisor.notation import action_text

GOLDEN = Path(__file__).parent / "golden"
CASES = [(2, 11), (3, 12), (4, 13), (5, 14), (1, 15)]     # 1 = solo against the Automa (level 2)
MASK = (1 << 64) - 1


def _pick(state: list, n: int) -> int:
    """A fixed pseudo-random index (splitmix64), so the playthrough never depends on Python's RNG."""
    state[0] = (state[0] + 0x9E3779B97F4A7C15) & MASK
    z = state[0]
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return (z ^ (z >> 31)) % n


def playthrough(players: int, seed: int) -> str:
    g = Game.new(players, seed)
    d = g.to_dict()["core"]
    lines = [f"# {players} players, seed {seed}" + (f", Automa level {g.automa_level}" if g.automa_level else ""),
             f"guild tile {d['guild_tile'] + 1}; objectives "
             + ", ".join(f"{t + 1}{'ab'[s]}" for t, s in zip(d["objective_tiles"], d["objective_sides"], strict=True)),
             f"start player {d['start_player']}"]
    state = [seed]
    while not g.is_terminal():
        legal = g.legal_actions()
        a = legal[_pick(state, len(legal))]
        lines.append(f"r{g.round} p{g.decider} {g.decision}: {action_text(a, g.printing, g)}"
                     f"  [{len(legal)} options]")
        g.apply(a)
    for p, b in enumerate(g.score_breakdown()):
        lines.append(f"score p{p}: " + " ".join(f"{k}={v}" for k, v in b.items()))
    lines.append(f"winners: {g.winners()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("players,seed", CASES)
def test_golden_playthrough(players, seed):
    path = GOLDEN / f"game_{players}p_seed{seed}.txt"
    text = playthrough(players, seed)
    if os.environ.get("GOLDEN_UPDATE"):
        path.write_text(text)
    assert path.exists(), f"missing {path}: run with GOLDEN_UPDATE=1"
    assert text == path.read_text()
