"""Fit the distilled playouts (issue 65): a factor on the weighted policy's weight of every option,
by the kind of decision (its prompt) and the round, so that playouts choose as the net agent does
at the weighted policy's cost (no lookahead).

Net agents play every seat (with chance --epsilon a decision is the weighted policy's, to see more
positions; those are not learnt from); each of their choices among options is a sample. The model
is a conditional logit: an option's chance is proportional to its weighted-policy weight times
e^(t_any + t_round), with t_any one number per (prompt, option) and t_round one per (prompt,
round, option), both shrunk towards 0 (unseen options keep the weighted policy's weight). The
shrinkage is the one of least log loss on the last tenth of the games, held out; the factors are
then fitted on all of them.

The games' choices are kept in --choices as they are played (every 200 games, and at Ctrl-C):
--resume plays on from there, and a fit with other settings need not play them again.

Run: python bench/fit_distilled.py --games 5000 [--players 2] [--out advisor/data/distilled.npz]
[--choices FILE --resume]"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
import zipfile
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from scipy.optimize import minimize
from tqdm import tqdm

from advisor import _core
from advisor.search import data

ANY_ROUND = _core.DISTILLED_ANY_ROUND   # the round of a key for every round
SHRINKS = (10.0, 3.0, 1.0, 0.3)     # L2 weights tried, per factor; each fit starts where the last ended


def fail(msg: str, status: int = 2) -> NoReturn:
    print(f"fit_distilled: {msg}", file=sys.stderr)
    sys.exit(status)


FIELDS = ("prompts", "rounds", "offsets", "opts", "chosen")     # a game's choices, as judged_game gives them
SAVE_EVERY = 200


def collect(path: Path, games: int, settings: dict[str, Any], resume: bool) -> list[dict[str, Any]]:
    """Each game's choices (judged_game's `choices`), the ones in `path` first with `resume`;
    kept in `path` as they come. Ctrl-C stops the play and keeps the games played."""
    out = load_choices(path, settings) if resume and path.exists() else []
    if resume and not path.exists():
        print(f"{path}: not there yet, starting", file=sys.stderr)
    data.use_judge()
    players, seed = settings["players"], settings["seed"]
    try:
        for i in tqdm(range(len(out), games), desc="net games", unit="game", initial=len(out), total=games):
            n = players[i % len(players)]
            r = _core.judged_game(n, seed + i, ["net"] * n, samples=settings["samples"],
                                  epsilon=settings["epsilon"], choices=True)
            out.append(dict(zip(FIELDS, r["choices"], strict=True)))
            if len(out) % SAVE_EVERY == 0:
                save_choices(path, out, settings)
    except KeyboardInterrupt:
        save_choices(path, out, settings)
        fail(f"stopped: {len(out)} games' choices kept in {path} (--resume goes on)", 130)
    save_choices(path, out, settings)
    return out


def save_choices(path: Path, games: list[dict[str, Any]], settings: dict[str, Any]) -> None:
    """The games' choices, concatenated with each game's count, and the settings that played them."""
    if not games:
        return
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, settings=np.str_(json.dumps(settings, sort_keys=True)),
                        counts=np.array([len(g["prompts"]) for g in games], dtype=np.int64),
                        offsets=np.concatenate([np.diff(g["offsets"]) for g in games]),
                        **{k: np.concatenate([g[k] for g in games]) for k in FIELDS if k != "offsets"})
    os.replace(tmp, path)


def load_choices(path: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The games of a --choices file, which the same settings played (else the run stops)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            theirs = json.loads(str(z["settings"]))
            parts = {k: z[k] for k in ("counts", *FIELDS)}
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as e:
        fail(f"{path}: not a --choices file ({e})")
    if theirs != settings:
        diff = sorted(k for k in settings if theirs.get(k) != settings[k])
        fail(f"{path}: played with other settings ({', '.join(diff)}): use another --choices file")
    out, c, o = [], 0, 0
    for n in parts["counts"].tolist():
        sizes = parts["offsets"][c:c + n]
        g = {k: parts[k][c:c + n] for k in ("prompts", "rounds", "chosen")}
        g["offsets"] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
        g["opts"] = parts["opts"][o:o + int(sizes.sum())]
        out.append(g)
        c, o = c + n, o + int(sizes.sum())
    return out


class Choices:
    """Choices flattened: every option's weighted-policy log weight and factor keys, by choice;
    `index` gives the factors' places in a parameter vector."""

    def __init__(self, games: list[dict[str, Any]]):
        prompts = np.concatenate([g["prompts"] for g in games]).astype(np.int64)
        rounds = np.concatenate([g["rounds"] for g in games]).astype(np.int64)
        sizes = np.concatenate([np.diff(g["offsets"]) for g in games]).astype(np.int64)
        opts = np.concatenate([g["opts"] for g in games]).astype(np.int64)
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        self.chosen = self.starts + np.concatenate([g["chosen"] for g in games]).astype(np.int64)
        self.choice_of = np.repeat(np.arange(len(sizes)), sizes)
        p, r = prompts[self.choice_of], rounds[self.choice_of]
        self.base = np.log(_core.policy_weights(opts))
        self.any_keys = _core.distilled_keys(p, np.full_like(r, ANY_ROUND), opts)
        self.round_keys = _core.distilled_keys(p, r, opts)

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The factors seen, sorted: one per (prompt, option) and one per (prompt, round, option)."""
        return np.unique(self.any_keys), np.unique(self.round_keys)

    def index(self, any_index: np.ndarray, round_index: np.ndarray) -> "Choices":
        """Parameters by the sorted keys `any_index` and `round_index` (options without: none)."""
        self.any, self.round = lookup(self.any_keys, any_index), lookup(self.round_keys, round_index)
        return self

    def loss(self, t_any: np.ndarray, t_round: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, float]:
        """(summed log loss, its gradient in t_any and in t_round, share of choices ranked first; ties
        share)."""
        s = self.base + take(t_any, self.any) + take(t_round, self.round)
        top = np.maximum.reduceat(s, self.starts)
        e = np.exp(s - top[self.choice_of])
        z = np.add.reduceat(e, self.starts)
        nll = float(np.sum(np.log(z) + top - s[self.chosen]))
        g = e / z[self.choice_of]
        g[self.chosen] -= 1
        best = s >= top[self.choice_of] - 1e-9
        hits = float(np.mean(best[self.chosen] / np.add.reduceat(best.astype(float), self.starts)))
        return nll, grad(g, self.any, len(t_any)), grad(g, self.round, len(t_round)), hits


def lookup(keys: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Each key's parameter index (its place in the sorted `index`), -1 where it has none."""
    at = np.minimum(np.searchsorted(index, keys), max(len(index) - 1, 0))
    return np.where(index[at] == keys, at, -1).astype(np.int64) if len(index) else np.full(len(keys), -1)


def take(t: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.where(idx >= 0, t[np.maximum(idx, 0)], 0.0)


def grad(g: np.ndarray, idx: np.ndarray, n: int) -> np.ndarray:
    keep = idx >= 0
    return np.bincount(idx[keep], weights=g[keep], minlength=n)


def fit(c: Choices, n_any: int, n_round: int, shrink: float,
        start: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The factors' logs of least log loss plus shrink/2 times their squares, from `start` (a
    nearby fit's: far fewer steps than from zero)."""
    def f(x: np.ndarray) -> tuple[float, np.ndarray]:
        nll, ga, gr, _ = c.loss(x[:n_any], x[n_any:])
        return nll + shrink / 2 * float(x @ x), np.concatenate([ga, gr]) + shrink * x
    x0 = np.zeros(n_any + n_round) if start is None else np.concatenate(start)
    r = minimize(f, x0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return r.x[:n_any], r.x[n_any:]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=5000, help="net agents' games to learn from")
    ap.add_argument("--players", type=int, nargs="+", default=[2], help="player counts, in turn")
    ap.add_argument("--samples", type=int, default=4, help="the net agents' worlds a decision")
    ap.add_argument("--epsilon", type=float, default=0.05, help="share of decisions by the weighted policy")
    ap.add_argument("--seed", type=int, default=650_000)
    ap.add_argument("--out", type=Path, default=data.DISTILLED_FILE)
    ap.add_argument("--choices", type=Path, default=Path("fit_distilled-choices.npz"),
                    help="where the games' choices are kept")
    ap.add_argument("--resume", action="store_true", help="play on from the games in --choices")
    a = ap.parse_args(argv)
    if not 10 <= a.games <= 10**7 or not all(2 <= p <= 5 for p in a.players) or not 1 <= a.samples <= 64 \
            or not 0 <= a.epsilon < 1:
        fail("--games 10..10^7, --players 2..5, --samples 1..64 and --epsilon 0..1 (below 1)")
    t0 = time.time()
    settings = {"players": a.players, "seed": a.seed, "samples": a.samples, "epsilon": a.epsilon}
    games = collect(a.choices, a.games, settings, a.resume)[:a.games]
    if len(games) < 10:
        fail(f"{len(games)} games played: too few to fit")
    try:
        write(a, games, shlex.join(argv if argv is not None else sys.argv[1:]), t0)
    except KeyboardInterrupt:
        fail(f"stopped while fitting: the choices are in {a.choices} (--resume fits them without playing)", 130)


def write(a: argparse.Namespace, games: list[dict[str, Any]], args: str, t0: float) -> None:
    """Fit the factors to `games` (the shrinkage by the held-out tenth) and write them to a.out."""
    cut = len(games) - max(1, len(games) // 10)
    train = Choices(games[:cut])
    any_index, round_index = train.keys()
    train.index(any_index, round_index)
    held = Choices(games[cut:]).index(any_index, round_index)
    none_any, none_round = np.zeros(len(any_index)), np.zeros(len(round_index))
    nll0, _, _, hits0 = held.loss(none_any, none_round)
    n_held = len(held.starts)
    print(f"{len(train.starts):,} choices to fit, {n_held:,} held out; {len(any_index):,} + "
          f"{len(round_index):,} factors")
    print(f"weighted policy: held-out log loss {nll0 / n_held:.4f} a choice, the net's choice first {hits0:.1%}")
    best = None
    t: tuple[np.ndarray, np.ndarray] | None = None
    for shrink in SHRINKS:
        t = fit(train, len(any_index), len(round_index), shrink, t)
        nll, _, _, hits = held.loss(*t)
        print(f"shrink {shrink:5.1f}: held-out log loss {nll / n_held:.4f}, the net's choice first {hits:.1%}")
        if best is None or nll < best[1]:
            best = (shrink, nll, t)
    assert best is not None
    shrink, (t_any, t_round) = best[0], best[2]
    every = Choices(games)
    keys_any, keys_round = every.keys()
    every.index(keys_any, keys_round)
    # from the chosen shrinkage's fit, each parameter moved to its key's place among all the games'
    t_any, t_round = fit(every, len(keys_any), len(keys_round), shrink,
                         (take(t_any, lookup(keys_any, any_index)), take(t_round, lookup(keys_round, round_index))))
    any_index, round_index = keys_any, keys_round
    # a (prompt, round, option) factor stores both terms; the core falls back on the any-round one
    any_of_round = np.zeros(len(round_index), dtype=np.int64)
    any_of_round[every.round] = every.any
    factors = np.concatenate([np.exp(t_any), np.exp(t_any[any_of_round] + t_round)]).astype(np.float32)
    keys = np.concatenate([any_index, round_index])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, keys=keys, factors=factors, games=np.int64(len(games)),
                        command=np.str_("python bench/fit_distilled.py " + args),
                        shrink=np.float64(shrink), held_out_log_loss=np.float64(best[1] / n_held),
                        weighted_log_loss=np.float64(nll0 / n_held))
    print(f"wrote {a.out}: {len(keys):,} factors from {len(games):,} games (shrink {shrink}) "
          f"in {time.time() - t0:.0f} s")



if __name__ == "__main__":
    main()
