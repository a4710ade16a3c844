"""Follow real games at a `Table` (advisor/table.py) from one seat and count those followed to the
end with the viewer's view equal to the real game's at every question. The real games are played
with chance told, every outcome and decision at random (`--policy random`) or by the greedy agent.

    python bench/table_scan.py --seeds 0-100 --players 1-5
"""
from __future__ import annotations

import argparse
import random
import sys

from advisor._core import CHANCE, Game, greedy_action
from advisor.errors import AdvisorError
from advisor.table import Table, asks


def real_game(players: int, seed: int, policy: str) -> Game:
    rng = random.Random(seed)
    g = Game.new(players, seed, chance="told")
    while not g.is_terminal():
        if g.decider == CHANCE or policy == "random" or len(g.legal_actions()) == 1:
            g.apply(rng.choice(g.legal_actions()))
        else:
            g.apply(greedy_action(g, rng.randrange(1 << 30)))
    return g


def point(g: Game) -> tuple:
    ev = g.chance_event
    return ("chance", ev.event, ev.who) if ev else (g.decider, g.decision)


def follow(players: int, seed: int, viewer: int, policy: str) -> str | None:
    """None if the table follows the game; else what went wrong."""
    real = real_game(players, seed, policy)
    table = Table(players, viewer, seed=seed)
    replay = Game.new(players, seed, chance="told")
    for i, a in enumerate(real.history):
        if asks(replay, viewer):
            if point(replay) == point(table.game) and replay.observation(viewer) != table.game.observation(viewer):
                return f"entry {i}: the views differ"
            try:
                table.answer(a, replay.decider if replay.decider >= 0 else None)
            except AdvisorError as e:
                return f"entry {i}: {e}"
        replay.apply(a)
    if not table.game.is_terminal() or table.game.scores() != real.scores():
        return "the followed game did not end as the real one"
    return None


def main(follow=follow, doc: str = __doc__) -> None:
    """The scan's command line, for this scan's `follow` or another's (bench/track_scan.py)."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--seeds", default="0-20")
    p.add_argument("--players", default="1-5")
    p.add_argument("--policy", choices=("random", "greedy"), default="random")
    args = p.parse_args()
    lo, hi = map(int, args.seeds.split("-"))
    plo, phi = map(int, args.players.split("-"))
    followed = total = 0
    for seed in range(lo, hi):
        for players in range(plo, phi + 1):
            viewer = seed % max(players, 1) if players > 1 else 0
            why = follow(players, seed, viewer, args.policy)
            total += 1
            followed += why is None
            if why:
                print(f"{players}p seed {seed} viewer P{viewer}: {why}", flush=True)
    print(f"followed {followed} of {total}")
    sys.exit(0 if followed == total else 1)


if __name__ == "__main__":
    main()
