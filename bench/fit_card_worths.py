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
against heuristic + worths) and with --write writes advisor/data/card-worths.toml (read by the core
at its first search: no rebuild).

  python bench/fit_card_worths.py record --agent ismcts:iterations=2000 --games 400 --out /tmp/cards.npz
  python bench/fit_card_worths.py fit /tmp/cards.npz [more.npz ...] [--ridge 2] [--write]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import sys

import numpy as np

from advisor import _core
from advisor.search.agents import make_agent
from advisor.search.data import CARD_WORTHS_FILE

N_KEYS = len(_core.card_worths()[0][0])
HEADER = """\
# The learnt worth in VP of a move's card (cards: per round, by card_worth_key: 0 nothing,
# 1-183 the dragon enticed, 184 + n cave card n excavated, then the three caves explored, then
# the pass) and of its cave (caves: per round, per count of CAVE_MOVE_FEATURES), added to the
# heuristic by greedy lookahead with lookahead=cards. Written by bench/fit_card_worths.py;
# refit rather than edit. Fitted with:
"""
MAX_HAND = 20         # dragons in hand recorded a decision (mat: dragons 3x4, caves 3x4, hand, explores 3)
N_DRAGONS = 183
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
        me = game.to_dict()["core"]["players"][0]
        mat = np.array([me["dragons"], me["caves"]]).ravel()            # where the moves' caves stand
        hand = np.zeros(MAX_HAND, int)
        hand[:min(len(me["hand_dragons"]), MAX_HAND)] = me["hand_dragons"][:MAX_HAND]
        a = agent.choose(game)
        visits = {m.action: m.visits for m in agent.last.moves}
        rows.append((min(game.round - 1, 3), v, np.array([_core.card_worth_key(b) for b in actions]),
                     np.array([visits.get(b, 0) for b in actions], float), np.array(actions),
                     np.concatenate([mat, hand, me["explores"]])))
        game.apply(a)
    return rows


def record(args) -> None:
    """Games of args.agent on args.workers processes, saved every 5 games (a long recording
    stopped early keeps what it has)."""
    jobs = [(args.agent, args.seed + i, args.level, args.samples) for i in range(args.games)]
    games = []
    with mp.Pool(args.workers) as pool:
        for i, rows in enumerate(pool.imap(play, jobs)):
            games.append(rows)
            if (i + 1) % 5 == 0 or i + 1 == len(jobs):
                save(games, args.out)
                print(f"{i + 1} games, {sum(len(g) for g in games)} move decisions", flush=True)
    print(f"wrote {args.out}")


def save(games: list[list[tuple]], out: str) -> None:
    rows = [(i, *row) for i, g in enumerate(games) for row in g]
    n = max(len(r[2]) for r in rows)
    v = np.zeros((len(rows), n))
    keys = np.zeros((len(rows), n), int)
    visits = np.zeros((len(rows), n))
    actions = np.full((len(rows), n), -1)
    for k, (_, _, val, key, vis, act, _) in enumerate(rows):
        v[k, :len(val)], keys[k, :len(key)], visits[k, :len(vis)], actions[k, :len(act)] = val, key, vis, act
    np.savez_compressed(out, round=np.array([r[1] for r in rows]), value=v, key=keys, visits=visits, actions=actions,
                        mat=np.array([r[6] for r in rows]),
                        moves=np.array([len(r[2]) for r in rows]), game=np.array([r[0] for r in rows]),
                        command="python bench/fit_card_worths.py " + " ".join(sys.argv[1:]))


def _habitats() -> np.ndarray:
    from advisor.cards import load_database
    db = load_database()
    caves = db.mat["caves"]
    out = np.zeros((N_DRAGONS + 1, 3))
    for d in db.dragons:
        for c in d.caves:
            out[d.number, list(caves).index(c)] = 1
    return out


def cave_features(actions: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """[decisions, moves, len(CAVE_MOVE_FEATURES)]: what each move's cave holds before it, from the
    recorded mat (the counts the core's cave_move_worth weighs)."""
    from advisor import notation
    dragons, caves = mat[:, :12].reshape(-1, 3, 4), mat[:, 12:24].reshape(-1, 3, 4)
    hand, explores = mat[:, 24:24 + MAX_HAND], mat[:, 24 + MAX_HAND:27 + MAX_HAND]
    fit = _habitats()[hand].sum(axis=1)                                    # [d, cave]
    room = (((np.arange(4) == 0) | (caves > 0)) & (dragons == 0)).sum(axis=2)
    per_cave = np.stack([fit, room, (dragons > 0).sum(axis=2), (caves > 0).sum(axis=2), explores], axis=2)
    kind, cave = actions >> notation.KIND_SHIFT, np.clip(actions & 3, 0, 2)
    rows = np.arange(len(actions))[:, None]
    f = per_cave[rows, cave]                                               # [d, moves, 5]
    out = np.zeros(actions.shape + (3 * per_cave.shape[2],))
    for i, k in enumerate((notation.ENTICE, notation.EXCAVATE, notation.EXPLORE)):
        out[..., 5 * i:5 * i + 5] = np.where(((kind == k) & (actions >= 0))[..., None], f, 0.0)
    return out


def _explore(cave: int) -> int:
    from advisor import notation
    return notation.make(notation.EXPLORE, cave)


def _groups(keys):
    return [keys] if isinstance(keys, np.ndarray) else list(keys)


def _dense(value, extra):
    return value[..., None] if extra is None else np.concatenate([value[..., None], extra], axis=2)


def probs(value, keys, mask, beta, theta, extra=None, gamma=None):
    """The softmax over each decision's moves of beta x value (+ gamma . extra, the moves' other
    numeric features) + the sum of theta over the move's keys (`keys`: one array of keys
    [decisions, moves], or several, one key of each per move)."""
    z = beta * value + sum(theta[k] for k in _groups(keys))
    if extra is not None:
        z = z + extra @ gamma
    z = np.where(mask, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def conditional_logit(value, keys, mask, target, ridge, cards=True, n_keys=None, extra=None, ridge_extra=0.1,
                      beta=None):
    """beta (logits a VP of heuristic value is worth), gamma (extra's weights) and theta (each key's
    logits) maximising sum(target * log softmax(beta value + gamma . extra + theta[keys])) -
    sum(ridge theta^2) - ridge_extra |gamma|^2, by Newton's method (ridge: one number, or one per
    key; keys as in probs; cards=False: beta alone). The Hessian is built from per-decision sums by
    key, so it never needs a dense design matrix for the keys. `beta` given: held there, so that the
    rest are corrections to the heuristic on its own scale. Returns beta, theta (and gamma when
    extra is given)."""
    groups = _groups(keys)
    d, k = len(value), n_keys or N_KEYS
    x = _dense(value, extra if cards else None)
    f = x.shape[2]
    ridge = np.broadcast_to(np.asarray(ridge, float), (k,))
    rd = np.array([0.0] + [ridge_extra] * (f - 1))
    w, theta = np.r_[0.5 if beta is None else beta, np.zeros(f - 1)], np.zeros(k)
    free = slice(0 if beta is None else 1, None)
    rows = np.repeat(np.arange(d)[:, None], value.shape[1], axis=1)
    for _ in range(60):
        p = probs(x[..., 0], groups, mask, w[0], theta, x[..., 1:] if f > 1 else None, w[1:])
        r = np.where(mask, p - target, 0.0)
        pm = np.where(mask, p, 0.0)
        g_w = np.einsum("dn,dnf->f", r, x) + 2 * rd * w
        mx = np.einsum("dn,dnf->df", pm, x)          # expected features under p, per decision
        h_ww = np.einsum("dn,dnf,dng->fg", pm, x, x) - mx.T @ mx + np.diag(2 * rd)
        if not cards:
            step_w, step_t = np.linalg.solve(h_ww, g_w), np.zeros(k)
        else:
            P = np.zeros((d, k))                      # each decision's probability by key
            A = np.zeros((k, k))                      # the probability of moves holding both keys
            for g in groups:
                np.add.at(P, (rows, g), pm)
                for h in groups:
                    np.add.at(A, (g.ravel(), h.ravel()), pm.ravel())
            g_t = sum(np.bincount(g.ravel(), r.ravel(), k) for g in groups) + 2 * ridge * theta
            h_wt = np.stack([sum(np.bincount(g.ravel(), (pm * x[..., i]).ravel(), k) for g in groups)
                             for i in range(f)]) - mx.T @ P
            h_tt = A + np.diag(2 * ridge) - P.T @ P
            h = np.block([[h_ww, h_wt], [h_wt.T, h_tt]])[free, free]
            step = np.linalg.solve(h + 1e-9 * np.eye(len(h)), np.concatenate([g_w, g_t])[free])
            step = np.r_[np.zeros(f + k - len(step)), step]
            step_w, step_t = step[:f], step[f:]
        w -= step_w
        theta -= step_t
        if max(np.abs(step_w).max(), np.abs(step_t).max()) < 1e-7:
            break
    return (w[0], theta) if extra is None else (w[0], theta, w[1:])


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
    # the moves' caves as they stand, where every file recorded the mat (the cave worths stay 0 else)
    extra = None
    if all("mat" in d and "actions" in d for d in parts):
        extra = np.concatenate([cave_features(np.pad(d["actions"], ((0, 0), (0, n - d["actions"].shape[1])),
                                                     constant_values=-1), d["mat"]) for d in parts])
    n_cave = len(_core.CAVE_MOVE_FEATURES)
    # two keys a move: its card's, and its kind's (entice, excavate; the explores and the pass are
    # kinds of their own, so their second key is pinned at 0). The kinds and the explores and pass
    # are seen at most decisions: a light ridge; each card far less often, so it is held near its
    # kind's logit unless the data insist
    explore = _core.card_worth_key(_explore(0))
    kind = np.where(keys < CAVE_KEY, ENTICE_KIND, np.where(keys < explore, EXCAVATE_KIND, NO_KIND))
    ridge = np.full(N_KEYS + 3, args.ridge)
    ridge[explore:] = args.ridge_moves
    ridge[NO_KIND] = 1e9
    out, cave_out = [], []
    for r in range(4):
        tr, te = (rnd == r) & ~held & ok, (rnd == r) & held & ok
        b0, _ = conditional_logit(value[tr], keys[tr], mask[tr], target[tr], args.ridge, cards=False)
        fixed = b0 if args.fix_beta else None
        if extra is None:
            b, t = conditional_logit(value[tr], (keys[tr], kind[tr]), mask[tr], target[tr], ridge,
                                     n_keys=N_KEYS + 3, beta=fixed)
            gamma = np.zeros(n_cave)
        else:
            b, t, gamma = conditional_logit(value[tr], (keys[tr], kind[tr]), mask[tr], target[tr], ridge,
                                            n_keys=N_KEYS + 3, extra=extra[tr], ridge_extra=args.ridge_moves,
                                            beta=fixed)
        both = t[:N_KEYS] + t[np.where(np.arange(N_KEYS) < CAVE_KEY, ENTICE_KIND,
                                        np.where(np.arange(N_KEYS) < explore, EXCAVATE_KIND, NO_KIND))]
        worth = both / b if b > 0 else np.zeros(N_KEYS)
        cave_worth = gamma / b if b > 0 else np.zeros(n_cave)
        print(f"   kinds (VP): entice {t[ENTICE_KIND] / b:+.2f}, excavate {t[EXCAVATE_KIND] / b:+.2f}, explore "
              + " / ".join(f"{worth[explore + c]:+.2f}" for c in range(3)) + f", pass {worth[N_KEYS - 1]:+.2f}")
        line = []
        if te.any():
            for name, bb, tt, gg in (("heuristic", b0, np.zeros(N_KEYS), None), ("+ worths", b, both, gamma)):
                p = probs(value[te], keys[te], mask[te], bb, tt, None if gg is None else extra[te], gg)
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
        if extra is not None:
            print("   caves (VP a count): " + ", ".join(f"{f} {c:+.2f}" for f, c in zip(_core.CAVE_MOVE_FEATURES, cave_worth, strict=True)))
        worth[0] = 0.0
        out.append([round(float(c), 3) for c in worth])
        cave_out.append([round(float(c), 3) for c in cave_worth])
    if args.write:
        import tomli_w
        command = f"# python bench/fit_card_worths.py {' '.join(sys.argv[1:])}\n"
        CARD_WORTHS_FILE.write_text(HEADER + command + tomli_w.dumps({"cards": out, "caves": cave_out}))
        print(f"wrote {CARD_WORTHS_FILE}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--agent", default="ismcts:iterations=2000")
    r.add_argument("--level", default="3")
    r.add_argument("--games", type=int, default=400)
    r.add_argument("--samples", type=int, default=4, help="determinizations a move's lookahead averages over")
    r.add_argument("--seed", type=int, default=70_000)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--ridge", type=float, default=2.0, help="on each card's logits")
    f.add_argument("--ridge-moves", type=float, default=0.1, help="on the explores' and the pass's logits")
    f.add_argument("--target", choices=("visits", "best"), default="visits",
                   help="fit the search's visit shares, or its most visited move alone")
    f.add_argument("--fix-beta", action="store_true",
                   help="hold the heuristic's scale at its fit alone: the worths correct it, in its VP")
    f.add_argument("--all", action="store_true", help="fit on every decision (no held-out fifth)")
    f.add_argument("--write", action="store_true")
    args = ap.parse_args()
    {"record": record, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main()
