"""Tune the heuristic value's feature weights (advisor/data/heuristic.toml).

The heuristic values a position during play (greedy playouts' lookahead, the greedy agent): VP on
the board plus what the player holds, each feature worth base + per_round x rounds still to play.

  greedy   coordinate search on the greedy player's solo score (a few hundred games a second):
           python bench/tune_heuristic.py greedy [--games 400] [--level 3] [--write]
  search   NTBEA (advisor.tournaments.tune.ntbea) on the solo margin of searches that use the
           weights in their playouts, one deal an evaluation; the weights recommended are then
           played on fresh deals:
           python bench/tune_heuristic.py search --param coins=0.1,0.3,0.5 --param end_game_now_round=-0.2,0 \\
               [--base ismcts:iterations=2000,time=0] [--level 3] [--budget 400] [--seed 5151] [--workers 2 --batch 2]
           A weight is named by its feature (base) or feature_round (per round).

--write puts the weights found into advisor/data/heuristic.toml, which the core reads. A search's
weights become the default only through a screen (docs/strength.md)."""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import statistics
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, NoReturn

import tomli_w

from advisor import _core
from advisor.errors import AdvisorError
from advisor.search.agents import make_agent
from advisor.search.data import HEURISTIC_FILE, heuristic_weights
from advisor.tournaments.plan import deal_seed
from advisor.tournaments.runners import _init_worker, play_planned
from advisor.tournaments.tune import DealResult, base_settings, candidate_spec, deal_result, ntbea

Weights = dict[str, list[float]]


def fail(message: str) -> NoReturn:
    """Bad input: one line, status 2."""
    print(f"tune_heuristic: {message}", file=sys.stderr)
    raise SystemExit(2)


def greedy_score(seeds: range, level: str) -> float:
    scores = []
    for s in seeds:
        g = _core.Game.new(1, s, automa=level)
        agent = make_agent("greedy", s)
        while not g.is_terminal():
            g.apply(agent.choose(g))
        scores.append(g.scores()[0])
    return statistics.mean(scores)


def write(weights: Weights) -> None:
    header = "".join(line + "\n" for line in HEURISTIC_FILE.read_text().splitlines() if line.startswith("#"))
    HEURISTIC_FILE.write_text(header + tomli_w.dumps({"heuristic": weights}))
    print(f"wrote {HEURISTIC_FILE}")


def show(weights: Weights) -> None:
    for f in _core.HEURISTIC_FEATURES:
        print(f"{f:16} base {weights[f][0]:+.3f}  per round {weights[f][1]:+.3f}")


def tune_greedy(args: argparse.Namespace) -> Weights:
    train, valid = range(args.games), range(10_000, 10_000 + args.games)
    weights = {f: list(v) for f, v in heuristic_weights().items()}

    def score(w: Weights) -> float:
        _core.set_heuristic_weights({f: (v[0], v[1]) for f, v in w.items()})
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
    _core.set_heuristic_weights({f: (v[0], v[1]) for f, v in weights.items()})
    print(f"train {best:.2f}, validation {greedy_score(valid, args.level):.2f}")
    return weights


# ---------------------------------------------------------------------------------- by the search
def weight_slot(name: str) -> tuple[str, int]:
    """(feature, 0 for base or 1 for per round) of a weight's name."""
    if name in _core.HEURISTIC_FEATURES:
        return name, 0
    if name.endswith("_round") and name[:-6] in _core.HEURISTIC_FEATURES:
        return name[:-6], 1
    names = [f + r for f in _core.HEURISTIC_FEATURES for r in ("", "_round")]
    close = difflib.get_close_matches(name, names, n=1)
    fail(f"unknown weight '{name}'" + (f" (did you mean '{close[0]}'?)" if close else
                                       f" (a feature of {', '.join(_core.HEURISTIC_FEATURES)}, or one + _round)"))


def parse_space(items: list[str]) -> list[tuple[str, list[float]]]:
    space = []
    for item in items:
        name, _, values = item.partition("=")
        weight_slot(name)
        try:
            vals = [float(v) for v in values.split(",")]
        except ValueError:
            fail(f"--param {item}: expected NAME=V1,V2,...")
        if len(set(vals)) < 2:
            fail(f"--param {item}: give at least two different values")
        space.append((name, vals))
    return space


def applied(start: Weights, values: dict[str, float]) -> Weights:
    out = {f: list(v) for f, v in start.items()}
    for name, v in values.items():
        f, j = weight_slot(name)
        out[f][j] = v
    return out


def digest(weights: Weights) -> str:
    """A short digest of a full set of weights."""
    return hashlib.sha256(json.dumps(weights, sort_keys=True).encode()).hexdigest()[:12]


def play_with(weights: Weights, base: str, level: str, seed: int, deal: int) -> dict[str, Any]:
    """One solo deal played by the search with these weights (in a worker): its record. The deal and
    the agent's seed are the tournament's of the same --seed, so default weights replay its games."""
    _core.set_heuristic_weights({f: (v[0], v[1]) for f, v in weights.items()})   # every one: none carries over
    g = {"tournament": "tune-heuristic", "key": f"d{deal}", "deal": deal, "game": 0, "seed": deal_seed(seed, deal),
         "players": 1, "printing": "base", "agents": ["cand"], "specs": [base], "automa": level}
    rec = play_planned(g)
    if rec.get("error"):
        raise RuntimeError(f"deal {deal}: {rec['error']}")
    return rec


class WeightsEvaluator:
    """ntbea's evaluator: a candidate's "spec" is its weight values (advisor.tournaments.tune's
    candidate_spec of them), played by `base` on solo deals of `seed`. Each deal's result is
    appended to `out` (JSON lines) as it is known; a run started again with the same arguments and
    heuristic.toml (each line has its digest) takes those instead of playing them, and NTBEA,
    deterministic in its results, goes the same way."""
    deal_games = 1

    def __init__(self, start: Weights, base: str, level: str, seed: int, workers: int, out: str | None) -> None:
        self.start, self.base, self.level, self.seed = start, base, level, seed
        self.pool = ProcessPoolExecutor(workers, initializer=_init_worker)
        self.done: dict[tuple[str, int], DealResult] = {}
        self.out = out
        self.file = digest(start)      # the weights NTBEA does not tune come from here
        if out and Path(out).exists():
            text = Path(out).read_text()
            lines = text.splitlines()
            for n, line in enumerate(lines, 1):
                try:
                    e = json.loads(line)
                    self.done[(self.spec(e["values"]), e["deal"])] = DealResult(e["fitness"], e["margin"], e["score"])
                    played = (e["base"], e["level"], e["seed"])
                    weights = e.get("file")
                except (ValueError, KeyError, TypeError):
                    if n == len(lines) and not text.endswith("\n"):
                        # torn by a kill while written: cut off, that deal is played again
                        Path(out).write_text("".join(x + "\n" for x in lines[:-1]))
                        break
                    fail(f"{out}:{n}: not an evaluation line")
                if played != (base, level, seed):
                    fail(f"{out}:{n}: played with --base {played[0]} --level {played[1]} "
                             f"--seed {played[2]}, not this run's")
                if weights != self.file:
                    fail(f"{out}:{n}: played with other untuned weights than {HEURISTIC_FILE.name}'s now "
                         "(restore the file or write to another --out)")

    @staticmethod
    def values(spec: str) -> dict[str, float]:
        body = spec.split(":", 1)[1]
        return {k: float(v) for k, v in (kv.split("=") for kv in body.split(",") if kv)}

    @staticmethod
    def spec(values: dict[str, float]) -> str:
        return candidate_spec({}, values)

    def evaluate(self, jobs: list[tuple[str, str, int]]) -> dict[tuple[str, int], DealResult]:
        out = {}
        todo: list[tuple[str, str, int, Future[dict[str, Any]]]] = []
        for tag, spec, deal in jobs:
            if (spec, deal) in self.done:
                out[(tag, deal)] = self.done[(spec, deal)]
            else:
                todo.append((tag, spec, deal, self.pool.submit(play_with, applied(self.start, self.values(spec)),
                                                               self.base, self.level, self.seed, deal)))
        for tag, spec, deal, f in todo:
            out[(tag, deal)] = res = self.done[(spec, deal)] = deal_result([f.result()])
            if self.out:
                with open(self.out, "a") as fh:
                    fh.write(json.dumps({"tag": tag, "deal": deal, "values": self.values(spec), "score": res.score,
                                         "margin": res.margin, "fitness": res.fitness, "base": self.base,
                                         "level": self.level, "seed": self.seed, "file": self.file}) + "\n")
        return out

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


def tune_search(args: argparse.Namespace) -> Weights:
    start = {f: list(v) for f, v in heuristic_weights().items()}
    space = parse_space(args.param)
    try:
        base_settings(args.base)
    except AdvisorError as e:
        fail(str(e))
    ev = WeightsEvaluator(start, args.base, args.level, args.seed, args.workers, args.out)
    if ev.done:
        print(f"{len(ev.done)} deals already in {args.out}: taken as played", flush=True)
    try:
        out = ntbea(space, {}, ev, args.budget, seed=args.seed, log=lambda m: print(m, flush=True), by="margin",
                    batch=args.batch)
    except KeyboardInterrupt:
        print(f"interrupted: {len(ev.done)} deals kept{' in ' + args.out if args.out else ''}", file=sys.stderr)
        raise SystemExit(130)
    finally:
        ev.close()
    best = out["best"]
    lo, hi = best["mean_margin_ci"]
    print(f"{out['evaluations']} deals explored {out['candidates']} weight sets; the recommended one on "
          f"{best['deals']} fresh deals: margin {best['mean_margin']:+.1f} [{lo:+.1f}, {hi:+.1f}] VP, "
          f"score {best['mean_score']:.1f}, won {100 * best['win_rate']:.1f}%")
    for row in out["table"][:5]:
        print(f"  estimate {row['estimate']:+.1f} VP over {row['deals']} deals: {row['spec'].split(':', 1)[1]}")
    return applied(start, ev.values(best["spec"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="by", required=True)
    g = sub.add_parser("greedy", help="coordinate search on the greedy player's solo score")
    g.add_argument("--games", type=int, default=400)
    g.add_argument("--min-gain", type=float, default=0.2, help="VP a change must add to be kept")
    s = sub.add_parser("search", help="NTBEA on the solo margin of searches playing with the weights")
    s.add_argument("--param", action="append", required=True, metavar="NAME=V1,V2,...")
    s.add_argument("--base", default="ismcts:iterations=2000,time=0")
    s.add_argument("--budget", type=int, default=400, help="games: 3/4 explore, 1/4 check the recommendation")
    s.add_argument("--seed", type=int, default=5151)
    s.add_argument("--workers", type=int, default=2)
    s.add_argument("--batch", type=int, default=1, help="weight sets played at once (about --workers)")
    s.add_argument("--out", help="every deal's result (JSON lines); an existing file's are taken as played")
    for p in (g, s):
        p.add_argument("--level", default="3")
        p.add_argument("--write", action="store_true", help="write advisor/data/heuristic.toml")
    args = ap.parse_args()
    weights = tune_greedy(args) if args.by == "greedy" else tune_search(args)
    show(weights)
    if args.write:
        write(weights)


if __name__ == "__main__":
    main()
