"""Fit the learnt move policy (lookahead=policy) to the search's own move choices: expert iteration.

record: play solo games with an agent spec; at every move decision of the human with a choice, note
each legal move's POLICY_FEATURES where her turn ends (averaged over a few determinizations of her
view, one weighted-policy completion each, as a greedy lookahead sees it) and the visits the search
gave each move.
fit: per round, a conditional logit (soft-max over the moves of one decision) of those visits on the
features, fitted by Newton's method with a little ridge; prints the held-out agreement with the
search's chosen move next to the hand-tuned heuristic's, and with --write writes
ext/policy_weights.pxi (scaled so that a VP of score weighs 1, as in the heuristic).

  python bench/learn_policy.py record --agent ismcts:time=0.25 --games 80 --out /tmp/policy.npz
  python bench/learn_policy.py fit /tmp/policy.npz [/tmp/more.npz ...] [--write]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import pathlib
import sys

import numpy as np

from advisor import _core
from advisor.agents import make_agent

WEIGHTS = pathlib.Path(__file__).resolve().parents[1] / "ext" / "policy_weights.pxi"
N_F = len(_core.POLICY_FEATURES)
# the hand-tuned heuristic written as policy weights (score 1, the ten features it shares with the
# policy, pass -0.5); its end_game_now has no policy feature, so this is the heuristic without it
SHARED = [f for f in _core.HEURISTIC_FEATURES if f in _core.POLICY_FEATURES]
HEURISTIC = np.array([1.0] + [_core.heuristic_weights()[f][0] for f in SHARED]
                     + [0.0] * (N_F - 2 - len(SHARED)) + [-0.5])


def features(game: "_core.Game", samples: int, seed: int) -> tuple[list[int], np.ndarray]:
    """The legal moves and their features, averaged over `samples` determinizations of the human's view."""
    acc, actions = None, None
    for i in range(samples):
        rows = _core.move_features(game.determinize(0, seed + i), seed + i)
        a = [r[0] for r in rows]
        if actions is None:
            actions, acc = a, np.zeros((len(a), N_F))
        elif a != actions:
            raise RuntimeError("a determinization changed the legal moves")
        acc += np.array([r[1] for r in rows])
    return actions, acc / samples


def play(job: tuple[str, int, str, int]) -> list[tuple]:
    """One solo game of `spec`: (round 0-3, features [moves, N_F], visits [moves], the chosen move's
    index, the moves) per move decision."""
    spec, seed, level, samples = job
    game = _core.Game.new(1, seed, automa=level)
    agent = make_agent(spec, seed)
    agent.reset(seed)
    rows = []
    while not game.is_terminal():
        if game.decider != 0 or game.decision != "move" or len(game.legal_actions()) == 1:
            game.apply(agent.choose(game))
            continue
        actions, x = features(game, samples, seed * 1000 + len(rows) * samples)
        a = agent.choose(game)
        visits = {m.action: m.visits for m in agent.last.moves}
        rows.append((min(game.round - 1, 3), x, np.array([visits.get(b, 0) for b in actions], float),
                     actions.index(a), actions))
        game.apply(a)
    return rows


def record(args, play=play, save=None) -> None:
    """Games of args.agent on args.workers processes (`play` one game's rows), saved by `save`
    every 5 games; learn_card_policy.py records its own rows through this too."""
    save = save or globals()["save"]
    jobs = [(args.agent, args.seed + i, args.level, args.samples) for i in range(args.games)]
    games = []
    with mp.Pool(args.workers) as pool:
        for i, rows in enumerate(pool.imap(play, jobs)):
            games.append(rows)
            if (i + 1) % 5 == 0 or i + 1 == len(jobs):
                # saved as it goes: a long recording stopped early keeps what it has
                save(games, args.out)
                print(f"{i + 1} games, {sum(len(g) for g in games)} move decisions", flush=True)
    print(f"wrote {args.out}")


def save(games: list[list[tuple]], out: str) -> None:
    rows = [(i, *row) for i, g in enumerate(games) for row in g]
    n = max(len(r[3]) for r in rows)
    x = np.zeros((len(rows), n, N_F))
    v = np.zeros((len(rows), n))
    actions = np.full((len(rows), n), -1)
    for k, (_, _, f, w, _, a) in enumerate(rows):
        x[k, :len(w)] = f
        v[k, :len(w)] = w
        actions[k, :len(a)] = a
    np.savez_compressed(out, round=np.array([r[1] for r in rows]), x=x, visits=v,
                        moves=np.array([len(r[3]) for r in rows]), chosen=np.array([r[4] for r in rows]),
                        game=np.array([r[0] for r in rows]), actions=actions,
                        command="python bench/learn_policy.py " + " ".join(sys.argv[1:]))


def _probs(x: np.ndarray, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    z = np.where(mask, x @ w, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def conditional_logit(x: np.ndarray, mask: np.ndarray, target: np.ndarray, ridge: float) -> np.ndarray:
    """Weights maximising sum(target * log softmax(x @ w)) - ridge |w|^2 (Newton's method)."""
    w = np.zeros(x.shape[2])
    for _ in range(50):
        p = _probs(x, mask, w)
        d = p - target
        grad = np.einsum("dn,dnf->f", d, x) + 2 * ridge * w
        mean = np.einsum("dn,dnf->df", p, x)
        hess = np.einsum("dn,dnf,dng->fg", p, x, x) - np.einsum("df,dg->fg", mean, mean)
        step = np.linalg.solve(hess + 2 * ridge * np.eye(len(w)), grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def fit(args) -> None:
    parts = [np.load(f) for f in args.files]
    x = np.concatenate([d["x"] for d in parts])
    n = max(p["x"].shape[1] for p in parts)
    x = np.concatenate([np.pad(d["x"], ((0, 0), (0, n - d["x"].shape[1]), (0, 0))) for d in parts])
    v = np.concatenate([np.pad(d["visits"], ((0, 0), (0, n - d["visits"].shape[1]))) for d in parts])
    moves = np.concatenate([d["moves"] for d in parts])
    rnd = np.concatenate([d["round"] for d in parts])
    game = np.concatenate([d["game"] + 100000 * k for k, d in enumerate(parts)])
    mask = np.arange(n)[None, :] < moves[:, None]
    target = v / v.sum(axis=1, keepdims=True)
    best = v.argmax(axis=1)
    held = game % 5 == 0
    scale = x[mask].std(axis=0)
    scale[scale == 0] = 1
    out = []
    for r in range(4):
        tr, te = (rnd == r) & ~held, (rnd == r) & held
        w = conditional_logit(x[tr] / scale, mask[tr], target[tr], args.ridge) / scale
        line = []
        for name, ww in (("heuristic", HEURISTIC), ("fitted", w)):
            p = _probs(x[te], mask[te], ww * (1 if name == "fitted" else args.temperature))
            agree = np.mean(p.argmax(axis=1) == best[te])
            ll = np.mean(np.sum(target[te] * np.log(np.maximum(p, 1e-12)), axis=1))
            line.append(f"{name} agrees {agree:.1%} (log-lik {ll:.3f})")
        print(f"round {r + 1}: {tr.sum()} decisions, held out {te.sum()}: " + "; ".join(line))
        if w[0] <= 0:
            print(f"   the score's weight is {w[0]:.3f}: not a value; kept as fitted")
            ws = w
        else:
            ws = w / w[0]
            print(f"   a VP of score is worth {w[0]:.3f} logits")
        print("   " + ", ".join(f"{f} {c:+.2f}" for f, c in zip(_core.POLICY_FEATURES, ws)))
        out.append([round(float(c), 4) for c in ws])
    if args.write:
        lines = ["# Generated by bench/learn_policy.py: the learnt move policy's weights per round (POLICY_FEATURES).",
                 f"# {' '.join(str(a) for a in args.files)}; do not edit by hand: refit instead.",
                 "cdef double PW[4][N_PFEAT]"]
        lines += [f"PW[{r}][:] = {out[r]}" for r in range(4)]
        WEIGHTS.write_text("\n".join(lines) + "\n")
        print(f"wrote {WEIGHTS}; rebuild the core")


def record_arguments(sub, agent: str, games: int, seed: int) -> None:
    """The `record` subcommand's options, which record() reads (learn_card_policy.py's too)."""
    r = sub.add_parser("record")
    r.add_argument("--agent", default=agent)
    r.add_argument("--level", default="3")
    r.add_argument("--games", type=int, default=games)
    r.add_argument("--samples", type=int, default=4, help="determinizations a move's lookahead averages over")
    r.add_argument("--seed", type=int, default=seed)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--out", required=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    record_arguments(sub, "ismcts:time=0.25", 80, 50_000)
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--ridge", type=float, default=1.0)
    f.add_argument("--temperature", type=float, default=1.0, help="logits a VP of heuristic value is worth (for its log-lik)")
    f.add_argument("--write", action="store_true")
    args = ap.parse_args()
    {"record": record, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main()
