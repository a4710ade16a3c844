"""How strong and how costly each playout policy is: solo games played out from the deal by the
policy alone, against an Automa level (the search's playouts, without the search).

A policy's playouts are what the search averages, so their score says how far their judgement is
from the search's own play (about 100 VP at level 3), at a cost of milliseconds rather than the
hours a tournament takes. Run: python bench/playout_strength.py [--games 2000] [--level 3]"""
import argparse
import statistics
import time

from advisor import _core


def policy_strength(policy: str, seeds, level: str, lookahead: str = "heuristic") -> tuple[float, float, float]:
    """(mean score, its standard error, milliseconds a playout) of `policy` over solo deals;
    greedy policies value their moves by `lookahead` (the heuristic, or it plus the card worths)."""
    scores = []
    t0 = time.perf_counter()
    for s in seeds:
        scores.append(_core.playout_scores(_core.Game.new(1, s, automa=level), policy, s, lookahead)[0])
    ms = (time.perf_counter() - t0) / len(scores) * 1e3
    return statistics.mean(scores), statistics.stdev(scores) / len(scores) ** 0.5, ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--level", default="3")
    args = ap.parse_args()
    print(f"{'policy':30s} {'mean VP':>8s} {'+-':>5s} {'ms/playout':>10s}")
    # MAST learns within a search: it has no playouts of its own
    for policy in (p for p in _core.PLAYOUTS if "mast" not in p):
        for lookahead in _core.LOOKAHEADS if policy.startswith("greedy") else ("heuristic",):
            m, se, ms = policy_strength(policy, range(args.games), args.level, lookahead)
            name = policy + (f", lookahead={lookahead}" if lookahead != "heuristic" else "")
            print(f"{name:30s} {m:8.1f} {se:5.1f} {ms:10.3f}")


if __name__ == "__main__":
    main()
