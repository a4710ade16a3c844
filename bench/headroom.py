"""Headroom of the solo game: how far above the search's own scores the same deals allow.

A clairvoyant search sees the true state (every deck's order, the Automa's cards, the chance to
come) and plays each deal at the same budget as the normal search; the paired difference bounds
what any better judge of hidden information and of positions can win. Never advice: only this
script calls the core's search with `clairvoyant=True`.

  python bench/headroom.py --levels 3 R3 --deals 50 --iterations 2000 --out headroom.jsonl [--workers 2]
  python bench/headroom.py --report headroom.jsonl

Games go to the results file as they end (one JSON line each); a run resumes where it stopped.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys

import numpy as np
from scipy import stats

from advisor import _core
from advisor.search.agents import ISMCTSAgent
from advisor.search.analysis import _core_params
from advisor.search.params import parse_settings

MODES = ("normal", "clairvoyant")


class ClairvoyantAgent(ISMCTSAgent):
    """The ISMCTS agent's search on the true state: the same budget, tree kept between decisions."""

    def _decide(self, game) -> int:
        if not isinstance(self._tree, _core.SearchTree):
            self._tree = _core.SearchTree()
        settings = parse_settings(self.given, solo=game.automa_level is not None)    # the solo defaults
        res = _core.search(game, _core_params(settings, self._next_seed()), tree=self._tree,
                           since=self._since, clairvoyant=True)
        best = max(res["children"], key=lambda ch: (ch["visits"], ch["reward"] / max(1, ch["visits"])))
        return best["action"]


def play(job: tuple[int, str, str, int]) -> dict:
    """One solo game of the deal `seed` at `level`, the player's decisions by the `mode` search."""
    seed, level, mode, iterations = job
    settings = {"iterations": iterations, "time": 0}
    agent = ClairvoyantAgent(settings) if mode == "clairvoyant" else ISMCTSAgent(settings)
    agent.reset(seed)
    game = _core.Game.new(1, seed, automa=level)
    while not game.is_terminal():
        game.apply(agent.choose(game))
    agent.close()
    total = [b["total"] for b in game.score_breakdown()]
    return {"seed": seed, "level": level, "mode": mode, "iterations": iterations, "score": total[0],
            "automa": total[1], "won": 0 in game.winners()}


def _records(path: str) -> list[dict]:
    """The games in a results file; a line cut off by a kill is left out (it is played again)."""
    out = []
    with open(path) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def run(args) -> None:
    done = set()
    if os.path.exists(args.out):
        done = {(r["seed"], r["level"], r["mode"], r["iterations"]) for r in _records(args.out)}
    jobs = [(args.seed + i, level, mode, args.iterations) for level in args.levels for i in range(args.deals)
            for mode in MODES if (args.seed + i, level, mode, args.iterations) not in done]
    print(f"{len(done)} games kept, {len(jobs)} to play", flush=True)
    with mp.Pool(args.workers) as pool, open(args.out, "a") as out:
        try:
            for i, rec in enumerate(pool.imap_unordered(play, jobs), 1):
                out.write(json.dumps(rec) + "\n")
                out.flush()
                if i % 10 == 0:
                    print(f"{i} of {len(jobs)} games", flush=True)
        except KeyboardInterrupt:
            pool.terminate()
            print("interrupted: the games that ended are kept; run again to go on", file=sys.stderr)
            sys.exit(130)
    report(args.out)


def report(path: str) -> None:
    """Per level: both searches' mean score and wins on the deals both played, and the difference."""
    recs = _records(path)
    print("| level | budget | deals | search: mean, wins | clairvoyant: mean, wins | headroom, 95% interval |")
    print("|---|---|---|---|---|---|")
    for level, iterations in sorted({(r["level"], r["iterations"]) for r in recs}):
        by = {m: {r["seed"]: r for r in recs if (r["level"], r["iterations"], r["mode"]) == (level, iterations, m)}
              for m in MODES}
        seeds = sorted(set(by["normal"]) & set(by["clairvoyant"]))
        if len(seeds) < 2:
            continue
        a, b = (np.array([by[m][s]["score"] for s in seeds], float) for m in MODES)
        wins = [sum(by[m][s]["won"] for s in seeds) for m in MODES]
        d = b - a
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        print(f"| {level} | {iterations} | {len(seeds)} | {a.mean():.1f}, {wins[0]} | {b.mean():.1f}, {wins[1]} | "
              f"{d.mean():+.1f} [{d.mean() - half:+.1f}, {d.mean() + half:+.1f}] |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", nargs="+", default=["3", "R3"], help="Automa levels (1-3, R1-R3)")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="headroom.jsonl")
    ap.add_argument("--report", metavar="FILE", help="only report a results file")
    args = ap.parse_args()
    if args.report:
        report(args.report)
    else:
        run(args)


if __name__ == "__main__":
    main()
