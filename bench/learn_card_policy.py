"""Fit the learnt card worths (lookahead=cards) to the search's own move choices: expert iteration.

Greedy playouts pick a move by the heuristic's value where its turn ends; the heuristic counts a
dragon by its printed VP and counts, not by what it does for the rest of the game. This fits, per
round, a conditional logit of the search's visit shares on [the heuristic's turn value, one
indicator per card a move names (the dragon enticed, the cave card excavated, the cave explored,
the pass)], so each card's weight, divided by the heuristic's, is its worth in VP that the
heuristic misses, as the search's own play judges it.

record: solo games played by an agent; at each of the human's move decisions with a choice, every
legal move's heuristic turn value (averaged over a few determinizations of her view, one weighted
completion each) and card key, and the visits the search gave each move.
fit: prints the held-out agreement with the search's most visited move (the heuristic alone
against heuristic + worths) and with --write writes ext/card_policy_weights.pxi.

  python bench/learn_card_policy.py record --agent ismcts:iterations=2000 --games 400 --out /tmp/cards.npz
  python bench/learn_card_policy.py fit /tmp/cards.npz [more.npz ...] [--ridge 2] [--write]
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

from advisor import _core
from advisor.agents import make_agent

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import learn_policy  # noqa: E402  (its recording loop)

WEIGHTS = pathlib.Path(__file__).resolve().parents[1] / "ext" / "card_policy_weights.pxi"
N_KEYS = len(_core.card_policy_weights()[0])
CAVE_KEY = 184                                   # keys 1-183 name dragons, 184-259 cave cards
ENTICE_KIND, EXCAVATE_KIND, NO_KIND = N_KEYS, N_KEYS + 1, N_KEYS + 2      # the fit's kind keys


def values(game: "_core.Game", samples: int, seed: int) -> tuple[list[int], np.ndarray]:
    """The legal moves and their heuristic turn values, averaged over `samples` determinizations."""
    acc, actions = None, None
    for i in range(samples):
        rows = _core.move_values(game.determinize(0, seed + i), seed + i)
        a = [r[0] for r in rows]
        if actions is None:
            actions, acc = a, np.zeros(len(a))
        elif a != actions:
            raise RuntimeError("a determinization changed the legal moves")
        acc += np.array([r[1] for r in rows])
    return actions, acc / samples


def play(job: tuple[str, int, str, int]) -> list[tuple]:
    """One solo game of `spec`: (round 0-3, values [moves], keys [moves], visits [moves], actions
    [moves]) per move decision of the human with a choice."""
    spec, seed, level, samples = job
    game = _core.Game.new(1, seed, automa=level)
    agent = make_agent(spec, seed)
    agent.reset(seed)
    rows = []
    while not game.is_terminal():
        if game.decider != 0 or game.decision != "move" or len(game.legal_actions()) == 1:
            game.apply(agent.choose(game))
            continue
        actions, v = values(game, samples, seed * 1000 + len(rows) * samples)
        a = agent.choose(game)
        visits = {m.action: m.visits for m in agent.last.moves}
        rows.append((min(game.round - 1, 3), v, np.array([_core.card_policy_key(b) for b in actions]),
                     np.array([visits.get(b, 0) for b in actions], float), np.array(actions)))
        game.apply(a)
    return rows


def record(args) -> None:
    learn_policy.record(args, play, save)


def save(games: list[list[tuple]], out: str) -> None:
    rows = [(i, *row) for i, g in enumerate(games) for row in g]
    n = max(len(r[2]) for r in rows)
    v = np.zeros((len(rows), n))
    keys = np.zeros((len(rows), n), int)
    visits = np.zeros((len(rows), n))
    actions = np.full((len(rows), n), -1)
    for k, (_, _, val, key, vis, act) in enumerate(rows):
        v[k, :len(val)], keys[k, :len(key)], visits[k, :len(vis)], actions[k, :len(act)] = val, key, vis, act
    np.savez_compressed(out, round=np.array([r[1] for r in rows]), value=v, key=keys, visits=visits, actions=actions,
                        moves=np.array([len(r[2]) for r in rows]), game=np.array([r[0] for r in rows]),
                        command="python bench/learn_card_policy.py " + " ".join(sys.argv[1:]))


def _explore(cave: int) -> int:
    from advisor import notation
    return notation.make(notation.EXPLORE, cave)


def _groups(keys):
    return [keys] if isinstance(keys, np.ndarray) else list(keys)


def probs(value, keys, mask, beta, theta):
    """The softmax over each decision's moves of beta x value + the sum of theta over the move's
    keys (`keys`: one array of keys [decisions, moves], or several, one key of each per move)."""
    z = beta * value + sum(theta[k] for k in _groups(keys))
    z = np.where(mask, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def conditional_logit(value, keys, mask, target, ridge, cards=True, n_keys=None):
    """beta (logits a VP of heuristic value is worth) and theta (each key's logits) maximising
    sum(target * log softmax(beta value + theta[keys])) - sum(ridge theta^2), by Newton's method
    (ridge: one number, or one per key; keys as in probs). The Hessian is built from per-decision
    sums by key, so it never needs a dense design matrix."""
    groups = _groups(keys)
    d, k = len(value), n_keys or N_KEYS
    ridge = np.broadcast_to(np.asarray(ridge, float), (k,))
    beta, theta = 0.5, np.zeros(k)
    rows = np.repeat(np.arange(d)[:, None], value.shape[1], axis=1)
    for _ in range(60):
        p = probs(value, groups, mask, beta, theta)
        r = np.where(mask, p - target, 0.0)
        pm = np.where(mask, p, 0.0)
        P = np.zeros((d, k))                      # each decision's probability by key
        A = np.zeros((k, k))                      # the probability of moves holding both keys
        for g in groups:
            np.add.at(P, (rows, g), pm)
            for h in groups:
                np.add.at(A, (g.ravel(), h.ravel()), pm.ravel())
        pv = pm * value
        g_theta = sum(np.bincount(g.ravel(), r.ravel(), k) for g in groups) + 2 * ridge * theta
        g_beta = np.sum(r * value)
        mv = np.sum(pv, axis=1)                   # expected value under p, per decision
        h_bb = np.sum(pv * value) - np.sum(mv ** 2)
        h_bt = sum(np.bincount(g.ravel(), pv.ravel(), k) for g in groups) - mv @ P
        h_tt = A + np.diag(2 * ridge) - P.T @ P
        if not cards:
            step_b, step_t = g_beta / h_bb, np.zeros(k)
        else:
            h = np.block([[np.array([[h_bb]]), h_bt[None, :]], [h_bt[:, None], h_tt]])
            step = np.linalg.solve(h + 1e-9 * np.eye(k + 1), np.concatenate([[g_beta], g_theta]))
            step_b, step_t = step[0], step[1:]
        beta -= step_b
        theta -= step_t
        if max(abs(step_b), np.abs(step_t).max()) < 1e-7:
            break
    return beta, theta


def fit(args) -> None:
    parts = [np.load(f) for f in args.files]
    n = max(p["value"].shape[1] for p in parts)
    pad = lambda name, d: np.pad(d[name], ((0, 0), (0, n - d[name].shape[1])))
    value = np.concatenate([pad("value", d) for d in parts])
    keys = np.concatenate([pad("key", d) for d in parts])
    visits = np.concatenate([pad("visits", d) for d in parts])
    moves = np.concatenate([d["moves"] for d in parts])
    rnd = np.concatenate([d["round"] for d in parts])
    game = np.concatenate([d["game"] + 100000 * k for k, d in enumerate(parts)])
    mask = np.arange(n)[None, :] < moves[:, None]
    ok = visits.sum(axis=1) > 0
    target = visits / np.maximum(visits.sum(axis=1, keepdims=True), 1)
    best = visits.argmax(axis=1)
    if args.target == "best":
        target = np.eye(n)[best]
    held = (game % 5 == 0) if not args.all else np.zeros(len(game), bool)
    # two keys a move: its card's, and its kind's (entice, excavate; the explores and the pass are
    # kinds of their own, so their second key is pinned at 0). The kinds and the explores and pass
    # are seen at most decisions: a light ridge; each card far less often, so it is held near its
    # kind's logit unless the data insist
    explore = _core.card_policy_key(_explore(0))
    kind = np.where(keys < CAVE_KEY, ENTICE_KIND, np.where(keys < explore, EXCAVATE_KIND, NO_KIND))
    ridge = np.full(N_KEYS + 3, args.ridge)
    ridge[explore:] = args.ridge_moves
    ridge[NO_KIND] = 1e9
    out = []
    for r in range(4):
        tr, te = (rnd == r) & ~held & ok, (rnd == r) & held & ok
        b0, _ = conditional_logit(value[tr], keys[tr], mask[tr], target[tr], args.ridge, cards=False)
        b, t = conditional_logit(value[tr], (keys[tr], kind[tr]), mask[tr], target[tr], ridge, n_keys=N_KEYS + 3)
        both = t[:N_KEYS] + t[np.where(np.arange(N_KEYS) < CAVE_KEY, ENTICE_KIND,
                                        np.where(np.arange(N_KEYS) < explore, EXCAVATE_KIND, NO_KIND))]
        worth = both / b if b > 0 else np.zeros(N_KEYS)
        print(f"   kinds (VP): entice {t[ENTICE_KIND] / b:+.2f}, excavate {t[EXCAVATE_KIND] / b:+.2f}, explore "
              + " / ".join(f"{worth[explore + c]:+.2f}" for c in range(3)) + f", pass {worth[N_KEYS - 1]:+.2f}")
        line = []
        if te.any():
            for name, bb, tt in (("heuristic", b0, np.zeros(N_KEYS)), ("+ worths", b, both)):
                p = probs(value[te], keys[te], mask[te], bb, tt)
                agree = np.mean(p.argmax(axis=1) == best[te])
                ll = np.mean(np.sum(target[te] * np.log(np.maximum(p, 1e-12)), axis=1))
                line.append(f"{name} agrees {agree:.1%} (log-lik {ll:.3f})")
        print(f"round {r + 1}: {tr.sum()} decisions, held out {te.sum()}: " + "; ".join(line))
        print(f"   a VP of heuristic value: {b0:.3f} logits alone, {b:.3f} with the worths")
        order = np.argsort(worth)
        seen = np.bincount(keys[tr][mask[tr]], minlength=N_KEYS)
        show = [i for i in order if seen[i] >= 20]
        print("   lowest: " + ", ".join(f"{i}:{worth[i]:+.1f}" for i in show[:6])
              + "; highest: " + ", ".join(f"{i}:{worth[i]:+.1f}" for i in show[-6:]))
        worth[0] = 0.0
        out.append([round(float(c), 3) for c in worth])
    if args.write:
        lines = ["# Generated by bench/learn_card_policy.py: the learnt worth in VP of each move's card per round",
                 "# (lookahead=cards; keys: card_policy_key). Do not edit by hand: refit instead.",
                 f"# {' '.join(str(a) for a in args.files)}, ridge {args.ridge}, on moves {args.ridge_moves}",
                 "cdef double CPW[4][N_CKEYS]"]
        lines += [f"CPW[{r}][:] = {out[r]}" for r in range(4)]
        WEIGHTS.write_text("\n".join(lines) + "\n")
        print(f"wrote {WEIGHTS}; rebuild the core")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--agent", default="ismcts:iterations=2000")
    r.add_argument("--level", default="3")
    r.add_argument("--games", type=int, default=400)
    r.add_argument("--samples", type=int, default=4, help="determinizations a move's value averages over")
    r.add_argument("--seed", type=int, default=70_000)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--ridge", type=float, default=2.0, help="on each card's logits")
    f.add_argument("--ridge-moves", type=float, default=0.1, help="on the explores' and the pass's logits")
    f.add_argument("--target", choices=("visits", "best"), default="visits",
                   help="fit the search's visit shares, or its most visited move alone")
    f.add_argument("--all", action="store_true", help="fit on every decision (no held-out fifth)")
    f.add_argument("--write", action="store_true")
    args = ap.parse_args()
    {"record": record, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main()
