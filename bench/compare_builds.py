"""Speed of two builds side by side in one run: `advisor bench --json` of each source tree (its
core compiled in place), alternated round by round so that load on the machine falls on both alike.
Prints each measure's median per build and the ratio new / base.

    git worktree add /tmp/base <commit> && (cd /tmp/base && python setup.py build_ext --inplace)
    python setup.py build_ext --inplace
    python bench/compare_builds.py /tmp/base . --rounds 5
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

MEASURES = ("decisions_per_s", "python_decisions_per_s", "ismcts_iterations_per_s",
            "ismcts_1s_tree_iterations_per_s", "ismcts_solo_iterations_per_s")


def bench(tree: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    out = subprocess.run([sys.executable, "-c", "from advisor.cli import main; main()", "bench", "--json"],
                         env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measures(result: dict) -> dict[str, float]:
    flat = {k: float(result[k]) for k in MEASURES if k in result}     # a base build may lack newer measures
    flat["clone_ns"] = float(result["clone_ns"])
    flat.update({f"random_games_per_s[{k}]": float(v) for k, v in result["random_games_per_s"].items()})
    return flat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"base": [], "new": []}
    for r in range(args.rounds):
        for name in (("base", "new") if r % 2 == 0 else ("new", "base")):
            runs[name].append(measures(bench(getattr(args, name))))
            print(f"round {r + 1}/{args.rounds}: {name} done", file=sys.stderr)
    print(f"{'measure':32} {'base':>12} {'new':>12} {'new/base':>9}")
    for key in runs["base"][0]:
        b = statistics.median(m[key] for m in runs["base"])
        n = statistics.median(m[key] for m in runs["new"])
        print(f"{key:32} {b:12.1f} {n:12.1f} {n / b:9.3f}")


if __name__ == "__main__":
    main()
