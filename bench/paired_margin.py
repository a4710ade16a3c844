"""One agent's margin over the best other seat, paired between two results files played on the same
deals and seatings (an agent against fixed opponents, run once with each of two versions of it).

`advisor report` pairs agents that sat at the same games; this pairs the same seat of the same game
(deal and game number) across two files, so a candidate in place of the baseline against the same
opponents is judged by the paired difference. Several pairs of files are pooled (deals of each pair
counted apart).

  python bench/paired_margin.py --agent n NEW OLD [NEW OLD ...]

Prints, for each pair and pooled: games, the mean margin over the best other seat (the Automa in
solo) of each file, and the paired difference NEW - OLD with its 95% interval (the spread between
deals)."""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from advisor.tournaments.statistics import mean_ci


def fail(message: str) -> NoReturn:
    print(f"paired_margin: {message}", file=sys.stderr)
    raise SystemExit(2)


def margins(path: Path, agent: str) -> dict[tuple[int, int], tuple[int, float]]:
    """(deal, game) -> (deal, the agent's score less the best other seat's) for every finished game
    where it sat."""
    opener = gzip.open if path.suffix == ".gz" else open
    out: dict[tuple[int, int], tuple[int, float]] = {}
    try:
        with opener(path, "rt") as f:
            for n, line in enumerate(f, 1):
                try:
                    rec: dict[str, Any] = json.loads(line)
                except json.JSONDecodeError:
                    fail(f"{path}:{n}: not a JSON line")
                if "scores" not in rec:
                    continue
                names = [s["agent"] for s in rec["seats"]]
                if agent not in names:
                    continue
                seat = names.index(agent)
                scores = rec["scores"]
                others = [s for i, s in enumerate(scores) if i != seat]
                if "automa" in rec:
                    others.append(rec["automa"]["score"])
                out[(rec["deal"], rec["game"])] = (rec["deal"], scores[seat] - max(others))
    except OSError as e:
        fail(f"{path}: {e.strerror or e}")
    if not out:
        fail(f"{path}: no finished game of agent '{agent}'")
    return out


def paired(new: dict[tuple[int, int], tuple[int, float]], old: dict[tuple[int, int], tuple[int, float]],
           pair: int) -> tuple[list[float], list[float], list[float]]:
    """(new margins, old margins, per-deal mean differences keyed apart by `pair`) on shared games."""
    shared = sorted(set(new) & set(old))
    by_deal: dict[tuple[int, int], list[float]] = {}
    for k in shared:
        by_deal.setdefault((pair, new[k][0]), []).append(new[k][1] - old[k][1])
    return [new[k][1] for k in shared], [old[k][1] for k in shared], [float(np.mean(v)) for v in by_deal.values()]


def line(label: str, a: list[float], b: list[float], diffs: list[float]) -> str:
    m, ci, _ = mean_ci(diffs)
    span = f"[{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else "[-]"
    return (f"{label}: {len(a)} games, {len(diffs)} deals; margin {np.mean(a):+.1f} against {np.mean(b):+.1f}; "
            f"paired {m:+.1f} {span}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agent", required=True, help="the agent's name in both files")
    ap.add_argument("files", nargs="+", type=Path, help="NEW OLD pairs")
    a = ap.parse_args(argv)
    if len(a.files) % 2:
        fail("give files in pairs: NEW OLD [NEW OLD ...]")
    all_a: list[float] = []
    all_b: list[float] = []
    all_d: list[float] = []
    for i in range(0, len(a.files), 2):
        new, old = a.files[i], a.files[i + 1]
        xa, xb, xd = paired(margins(new, a.agent), margins(old, a.agent), i)
        if not xd:
            fail(f"{new} and {old} share no game (the same --seed, deals and seatings?)")
        print(line(f"{new.name} against {old.name}", xa, xb, xd))
        all_a += xa
        all_b += xb
        all_d += xd
    if len(a.files) > 2:
        print(line("pooled", all_a, all_b, all_d))


if __name__ == "__main__":
    main()
