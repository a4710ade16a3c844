"""Tune the heuristic value's feature weights on the greedy player's solo score (coordinate search).

The heuristic values a position during play (greedy playouts' lookahead, the greedy agent):
VP on the board plus what the player holds, each feature worth base + per_round * rounds left.
A better one-step evaluator makes the greedy player score more, which is cheap to measure (a few
hundred games a second). Run: python bench/tune_heuristic.py [--games 400] [--level 3] [--write]
(--write puts the weights found into advisor/data/heuristic.toml, which the core reads)."""
import argparse
import statistics

import tomli_w

from advisor import _core
from advisor.search.agents import make_agent
from advisor.search.data import HEURISTIC_FILE


def greedy_score(seeds, level: str) -> float:
    scores = []
    for s in seeds:
        g = _core.Game.new(1, s, automa=level)
        agent = make_agent("greedy", s)
        while not g.is_terminal():
            g.apply(agent.choose(g))
        scores.append(g.scores()[0])
    return statistics.mean(scores)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--level", default="3")
    ap.add_argument("--min-gain", type=float, default=0.2, help="VP a change must add to be kept")
    ap.add_argument("--write", action="store_true", help="write advisor/data/heuristic.toml")
    args = ap.parse_args()
    train, valid = range(args.games), range(10_000, 10_000 + args.games)
    weights = {f: list(v) for f, v in _core.heuristic_weights().items()}

    def score(w) -> float:
        _core.set_heuristic_weights({f: tuple(v) for f, v in w.items()})
        return greedy_score(train, args.level)

    best = score(weights)
    print(f"start: train {best:.2f}, validation {greedy_score(valid, args.level):.2f}", flush=True)
    for step in (0.6, 0.3, 0.15):
        improved = True
        while improved:
            improved = False
            for f in weights:
                for j in (0, 1):
                    for d in (step, -step):
                        trial = {k: list(v) for k, v in weights.items()}
                        trial[f][j] = round(trial[f][j] + d, 3)
                        v = score(trial)
                        if v > best + args.min_gain:
                            best, weights, improved = v, trial, True
                            print(f"{f}[{'base' if j == 0 else 'per_round'}] = {trial[f][j]}: {best:.2f}", flush=True)
                            break
    _core.set_heuristic_weights({f: tuple(v) for f, v in weights.items()})
    print(f"train {best:.2f}, validation {greedy_score(valid, args.level):.2f}")
    for f in _core.HEURISTIC_FEATURES:
        print(f"{f:16} base {weights[f][0]:+.3f}  per round {weights[f][1]:+.3f}")
    if args.write:
        header = "".join(line + "\n" for line in HEURISTIC_FILE.read_text().splitlines() if line.startswith("#"))
        HEURISTIC_FILE.write_text(header + tomli_w.dumps({"heuristic": weights}))
        print(f"wrote {HEURISTIC_FILE}")


if __name__ == "__main__":
    main()
