"""A review's results file (`--out FILE`): JSON lines, a header naming the game, seats and budget,
then one line per decision reviewed as it is made, so Ctrl-C or a kill loses at most the decision
in progress and `--resume` goes on from there."""
from __future__ import annotations

import json
import math
import os
from typing import IO, Any

from advisor.review.judge import Verdict
from advisor.review.source import ReviewError

MARK = "advisor review"


def _header(game: str, seats: list[int], limit: dict[str, Any], seed: int) -> dict[str, Any]:
    from advisor.search.params import PLAY_VERSION
    return {"saved_by": MARK, "game": game, "seats": seats, "limit": limit, "seed": seed, "play": PLAY_VERSION}


def _verdict(d: dict[str, Any]) -> Verdict:
    d = {k: (math.nan if v is None and k in ("lost", "lost_ci") else v) for k, v in d.items()}
    return Verdict(**d)


def open_results(path: str, game: str, seats: list[int], limit: dict[str, Any], seed: int,
                 resume: bool) -> tuple[IO[str], dict[int, Verdict]]:
    """The file to append to and the decisions it holds (with --resume; a new file otherwise)."""
    head = _header(game, seats, limit, seed)
    done: dict[int, Verdict] = {}
    if os.path.exists(path):
        if not resume:
            raise ReviewError(f"--out {path} exists: --resume goes on with it, or choose another file")
        try:
            with open(path, encoding="utf-8") as f:
                lines = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as e:
            raise ReviewError(f"--out {path}: not a results file of `advisor review` ({e})") from None
        if not lines or not isinstance(lines[0], dict) or lines[0].get("saved_by") != MARK:
            raise ReviewError(f"--out {path}: not a results file of `advisor review`")
        if lines[0] != head:
            diff = [k for k in head if lines[0].get(k) != head[k]]
            raise ReviewError(f"--out {path} reviews with another {', '.join(diff)}: run the same command "
                              "to resume it, or choose another file")
        try:
            done = {v.index: v for v in map(_verdict, lines[1:])}
        except TypeError as e:
            raise ReviewError(f"--out {path}: a damaged line ({e})") from None
        f = open(path, "a", encoding="utf-8")
    else:
        try:
            f = open(path, "w", encoding="utf-8")
        except OSError as e:
            raise ReviewError(f"--out {path}: cannot write it: {e.strerror or e}") from None
        f.write(json.dumps(head) + "\n")
        f.flush()
    return f, done


def keep(f: IO[str], v: Verdict) -> None:
    d = {k: (None if isinstance(x, float) and math.isnan(x) else x) for k, x in v.to_json().items()}
    f.write(json.dumps(d) + "\n")
    f.flush()
