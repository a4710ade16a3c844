"""Iterations a second of search settings side by side, over the positions of whole games: the
iteration count 1 s buys each of them (docs/strength.md screens each candidate at that count).

Greedy agents play `--games` deals; at every `--every`-th move decision each spec searches the same
position for `--iterations` iterations (or its own `iterations=N`: a rate depends on the tree's
size, so measure each spec at the count it is to be given), the specs in turn so that load on the
machine falls on them alike. Prints each spec's iterations a second (total iterations / total seconds) and its ratio to the
first spec's. Run under `valgrind --tool=callgrind` with one spec at a time to compare instruction
counts instead of a busy machine's clock.

    python bench/iteration_rates.py ismcts: ismcts:lookahead=heuristic --players 1 --games 2
"""
from __future__ import annotations

import argparse
import time

from advisor import _core
from advisor.search.agents import make_agent, parse_spec
from advisor.search.analysis import _core_params
from advisor.search.params import parse_settings


def positions(players: int, games: int, seed: int, every: int, level: str) -> list[_core.Game]:
    """Every `every`-th move decision of greedy play, `games` deals from `seed`."""
    out = []
    for s in range(seed, seed + games):
        g = _core.Game.new(players, s, automa=level)
        agents = [make_agent("greedy", s * 10 + p) for p in range(players)]
        moves = 0
        while not g.is_terminal():
            if g.decision == "move" and len(g.legal_actions()) > 1:
                if moves % every == 0:
                    out.append(g.clone())
                moves += 1
            g.apply(agents[g.decider].choose(g))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="+", help="ismcts specs (ismcts:lookahead=heuristic, ...); their budget is --iterations unless they give one")
    ap.add_argument("--players", type=int, default=1, choices=range(1, 6))
    ap.add_argument("--level", default="3", help="solo: the Automa's level")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--every", type=int, default=4, help="search every n-th move decision")
    ap.add_argument("--iterations", type=int, default=500, help="a search's iterations")
    ap.add_argument("--seconds", type=float, default=0.0,
                    help="search each position this long instead and print the mean count a search reached (the count 1 s buys: --seconds 1)")
    ap.add_argument("--seed", type=int, default=9100)
    args = ap.parse_args(argv)
    settings, counts = [], []
    for spec in args.specs:
        name, given = parse_spec(spec)
        if name != "ismcts":
            ap.error(f"{spec}: not an ismcts spec")
        s = parse_settings({**given, "time": 0, "stop_early": 0}, solo=args.players == 1)
        settings.append(s)
        counts.append(s["iterations"] if "iterations" in given else args.iterations)
    todo = positions(args.players, args.games, args.seed, args.every, args.level)
    done = [0] * len(settings)
    spent = [0.0] * len(settings)
    for i, g in enumerate(todo):
        for k, s in enumerate(settings):
            budget = {"iterations": 0, "seconds": args.seconds} if args.seconds else {"iterations": counts[k], "seconds": 0.0}
            params = {**_core_params(s, 1000 + i), **budget}
            t = time.perf_counter()
            r = _core.search(g, params)
            spent[k] += time.perf_counter() - t
            done[k] += r["iterations"]
    each = f"{args.seconds:g} s" if args.seconds else ", ".join(f"{n:,}" for n in counts) + " iterations"
    print(f"{len(todo)} positions ({args.games} deals from seed {args.seed}, {args.players} player(s)), {each} each")
    base = done[0] / spent[0]
    for spec, n, sec in zip(args.specs, done, spent, strict=True):
        reached = f"  {n / len(todo):10,.0f} a search" if args.seconds else ""
        print(f"{spec:40s} {n / sec:10,.0f} iterations/s  {n / sec / base:6.3f}x{reached}")


if __name__ == "__main__":
    main()
