"""How strong and how costly each playout policy is: solo games played out from the deal by the
policy alone, against an Automa level (the search's playouts, without the search).

A policy's playouts are what the search averages, so their score says how far their judgement is
from the search's own play (about 100 VP at level 3), at a cost of milliseconds rather than the
hours a tournament takes. Run: python bench/playout_strength.py [--games 2000] [--level 3]
[--players 2] [--distilled FILE]"""
import argparse
import statistics
import time
from pathlib import Path

from advisor import _core
from advisor.search import data


def policy_strength(policy: str, seeds, level: str, lookahead: str = "heuristic",
                    players: int = 1) -> tuple[float, float, float]:
    """(mean score, its standard error, milliseconds a playout) of `policy` over solo deals (with
    `players` above 1: the mean a seat of the policy in every seat); greedy policies value their
    moves by `lookahead` (the heuristic, or it plus the card worths)."""
    scores = []
    t0 = time.perf_counter()
    for s in seeds:
        game = _core.Game.new(players, s, automa=level)
        seats = _core.playout_scores(game, policy, s, lookahead)
        scores.append(seats[0] if players == 1 else sum(seats) / players)
    ms = (time.perf_counter() - t0) / len(scores) * 1e3
    return statistics.mean(scores), statistics.stdev(scores) / len(scores) ** 0.5, ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--level", default="3")
    ap.add_argument("--players", type=int, default=1, help="1: solo against --level; 2-5: the policy in every seat")
    ap.add_argument("--distilled", type=Path, help="the distilled playouts' file (default: the shipped one)")
    args = ap.parse_args()
    if args.distilled:
        data.use_distilled(args.distilled)
    print(f"{'policy':30s} {'mean VP':>8s} {'+-':>5s} {'ms/playout':>10s}")
    # MAST learns within a search: it has no playouts of its own
    for policy in (p for p in _core.PLAYOUTS if "mast" not in p):
        for lookahead in _core.LOOKAHEADS if policy.startswith("greedy") else ("heuristic",):
            m, se, ms = policy_strength(policy, range(args.games), args.level, lookahead, args.players)
            name = policy + (f", lookahead={lookahead}" if lookahead != "heuristic" else "")
            print(f"{name:30s} {m:8.1f} {se:5.1f} {ms:10.3f}")


if __name__ == "__main__":
    main()
