"""Fit the learnt evaluation (evaluation=learned) from solo games played by the search itself.

record: play solo games with an agent spec, noting at every decision of the human the features of
both seats (value_features_of), the score so far and, at the end, the final scores.
fit: per round, least squares (a little ridge) of the VP still to come on those features, for the
human and for the Automa; prints held-out errors and writes ext/value_weights.pxi.
gap: with `record --playouts K`, how far the greedy playouts from each position (K determinizations
of the human's view, as the search sees it) fall short of the margin the search went on to reach,
against the coins still to come (held + 6 a later round). With `record --search-means` instead, the
playout means the search itself gave the move it chose: the only way to measure playouts that learn
within a search (greedy_mast), which cannot run alone.

  python bench/learn_value.py record --games 400 --out /tmp/value.npz
  python bench/learn_value.py fit /tmp/value.npz [--write]
  python bench/learn_value.py record --agent ismcts:time=0.25 --levels 3 --games 80 --playouts 16 --out /tmp/gap.npz
  python bench/learn_value.py record --agent ismcts:time=0.25,rollout=greedy_mast --levels 3 --games 80 --search-means --out /tmp/gm.npz
  python bench/learn_value.py gap /tmp/gap.npz [--write]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import pathlib
import sys

import numpy as np

from advisor import _core, forecast
from advisor.agents import make_agent, parse_spec
from advisor.params import parse_settings

MAX_HAND, MAX_MAT = 40, 12        # room for a hand's and a mat's dragons in the arrays
N_CARDS = 184                     # dragon card numbers 1..183 (0 pads)
WEIGHTS = pathlib.Path(__file__).resolve().parents[1] / "ext" / "value_weights.pxi"


def _score_now(game: "_core.Game", p: int) -> float:
    b = game.score_breakdown()[p]
    return b["total"] - (b["coins"] + b["items"] if p == 0 else 0)


def _playouts(game: "_core.Game", k: int, seed: int) -> list[tuple[int, int]]:
    """(human, Automa) final scores of k greedy playouts, each from a determinization of her view."""
    return [tuple(_core.playout_scores(game.determinize(0, seed + i), "greedy", seed + i)) for i in range(k)]


def _dragons(game: "_core.Game") -> tuple[list[int], list[int]]:
    """The card numbers of the human's hand dragons and of the dragons on her mat."""
    me = game.to_dict()["core"]["players"][0]
    return me["hand_dragons"], [d for row in me["dragons"] for d in row if d]


def play(job: tuple[str, int, str, int, bool]) -> dict:
    """One solo game of `spec`; a row for each decision of the human (search_means: each one searched)."""
    spec, seed, level, k, search_means = job
    game = _core.Game.new(1, seed, automa=level)
    agent = make_agent(spec, seed)
    agent.reset(seed)
    rows = []
    last_round = None
    while not game.is_terminal():
        if game.decider != 0 or (search_means and len(game.legal_actions()) == 1):
            game.apply(agent.choose(game))
            continue
        hand, mat = _dragons(game)
        row = [min(game.round - 1, 3), _core.value_features_of(game, 0), _core.value_features_of(game, 1),
               _score_now(game, 0), _score_now(game, 1), None, forecast.coins_to_come(game, 0),
               hand, mat, int(game.round != last_round), 0.0]
        last_round = game.round
        if not search_means:
            row[5] = _playouts(game, k, seed * 1000 + len(rows) * k)
        game.apply(agent.choose(game))
        if search_means:
            best = agent.last.best     # the chosen move's playout means, and their noise
            row[5], row[10] = [(best.score, best.score - best.margin)], best.margin_se ** 2
        rows.append(tuple(row))
    final = game.scores()
    automa = game.score_breakdown()[1]["total"]
    return {"seed": seed, "rows": rows, "final": (final[0], automa)}


def record(args) -> None:
    jobs = [(args.agent, args.seed + i, args.levels[i % len(args.levels)], args.playouts, args.search_means)
            for i in range(args.games)]
    _, given = parse_spec(args.agent)
    playout = forecast.playout(parse_settings(given, solo=True)) if args.search_means else "greedy"
    with mp.Pool(args.workers) as pool:
        games = []
        for i, g in enumerate(pool.imap(play, jobs)):
            games.append(g)
            if (i + 1) % 10 == 0:
                print(f"{i + 1} games, mean {np.mean([x['final'][0] for x in games]):.1f} "
                      f"vs {np.mean([x['final'][1] for x in games]):.1f}", flush=True)
    save(games, args.out, 1 if args.search_means else args.playouts, playout,
         "python bench/learn_value.py " + " ".join(sys.argv[1:]))


def save(games: list[dict], out: str, k: int, playout: str = "greedy", command: str = "") -> None:
    """The recorded games as arrays, one row a position of the human (`fit`, `gap`)."""
    game_id, rnd, fh, fa, yh, ya, po, fs, coins = [], [], [], [], [], [], [], [], []
    hands, mats, first, noise = [], [], [], []
    for gi, g in enumerate(games):
        for r, h, a, sh, sa, playouts, to_come, hand, mat, new_round, var in g["rows"]:
            hands.append(hand + [0] * (MAX_HAND - len(hand)))
            mats.append(mat + [0] * (MAX_MAT - len(mat)))
            first.append(new_round)
            game_id.append(gi)
            rnd.append(r)
            fh.append(h)
            fa.append(a)
            yh.append(g["final"][0] - sh)
            ya.append(g["final"][1] - sa)
            po.append(playouts)
            fs.append(g["final"])
            coins.append(to_come)
            noise.append(var)
    np.savez(out, game=game_id, round=rnd, human=fh, automa=fa, human_to_come=yh, automa_to_come=ya,
             playouts=np.array(po, dtype=float).reshape(len(po), k, 2), final=fs, coins_to_come=coins,
             hand=np.array(hands, dtype=np.int16).reshape(len(hands), MAX_HAND),
             mat=np.array(mats, dtype=np.int16).reshape(len(mats), MAX_MAT), round_start=first,
             search_noise=noise, playout=playout, command=command)
    print(f"{len(rnd)} positions from {len(games)} games -> {out}")


def ridge(x: np.ndarray, y: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Least squares with a penalty `lam` per column (0 for the bias)."""
    return np.linalg.solve(x.T @ x + np.diag(lam), x.T @ y)


def one_hot(ids: np.ndarray) -> np.ndarray:
    """Rows of card numbers (0 pads) as counts per card number."""
    out = np.zeros((len(ids), N_CARDS))
    np.add.at(out, (np.repeat(np.arange(len(ids)), ids.shape[1]), ids.ravel()), 1.0)
    out[:, 0] = 0.0
    return out


def fit(args) -> None:
    d = np.load(args.data)
    held = d["game"] % 5 == 0                           # every fifth game held out
    start = d["round_start"].astype(bool) if "round_start" in d else np.zeros(len(held), bool)
    cards = args.cards and "hand" in d
    out = {}
    for who, names in (("human", _core.VALUE_FEATURES), ("automa", _core.AUTOMA_VALUE_FEATURES)):
        x, y = d[who].astype(float), d[f"{who}_to_come"].astype(float)
        lam = np.r_[0.0, np.full(x.shape[1] - 1, args.ridge)]
        if who == "human" and cards:
            # the very dragons in hand and on the mat, shrunk harder than the counts
            x = np.column_stack([x, one_hot(d["hand"]), one_hot(d["mat"])])
            lam = np.r_[lam, np.full(2 * N_CARDS, args.card_ridge)]
        ws = []
        for r in range(4):
            tr = (d["round"] == r) & ~held
            te = (d["round"] == r) & held
            w = ridge(x[tr], y[tr], lam)
            base = np.sqrt(np.mean((y[te] - y[tr].mean()) ** 2))
            err = np.sqrt(np.mean((y[te] - x[te] @ w) ** 2))
            ts = te & start
            at_start = f", at the round's start {np.sqrt(np.mean((y[ts] - x[ts] @ w) ** 2)):.2f} ({ts.sum()})" if ts.any() else ""
            print(f"{who} round {r + 1}: {tr.sum()} positions, held-out rms {err:.2f} (mean alone {base:.2f}){at_start}")
            print("   " + ", ".join(f"{n} {v:+.2f}" for n, v in zip(names, w)))
            ws.append([round(float(v), 4) for v in w])
        out[who] = ws
    human = [w[:len(_core.VALUE_FEATURES)] for w in out["human"]]
    n = len(_core.VALUE_FEATURES)
    hand = [w[n:n + N_CARDS] if cards else [0.0] * N_CARDS for w in out["human"]]
    mat = [w[n + N_CARDS:] if cards else [0.0] * N_CARDS for w in out["human"]]
    if args.write:
        lines = ["# Generated by bench/learn_value.py: the learnt evaluation's weights per round (VALUE_FEATURES,",
                 "# AUTOMA_VALUE_FEATURES; a dragon's worth in hand and on the mat by card number).",
                 "# Do not edit by hand; refit instead.",
                 "cdef double VW[4][N_VFEAT]", "cdef double AW[4][N_AFEAT]",
                 "cdef double VWH[4][N_DRAGON_ROWS]", "cdef double VWM[4][N_DRAGON_ROWS]"]
        lines += [f"VW[{r}][:] = {human[r]}" for r in range(4)]
        lines += [f"AW[{r}][:] = {out['automa'][r]}" for r in range(4)]
        lines += [f"VWH[{r}][:] = {hand[r]}" for r in range(4)]
        lines += [f"VWM[{r}][:] = {mat[r]}" for r in range(4)]
        WEIGHTS.write_text("\n".join(lines) + "\n")
        print(f"wrote {WEIGHTS}; rebuild the core")


def gap(args) -> None:
    """How far the playouts' means fall short of the game the search went on to play, against the
    coins still to come; the spread around that; a calibration table; --write: forecast.toml."""
    d = np.load(args.data)
    po, final = d["playouts"], d["final"].astype(float)
    if po.shape[1] == 0:
        raise SystemExit(f"{args.data}: recorded without --playouts or --search-means")
    k = po.shape[1]
    margins = po[:, :, 0] - po[:, :, 1]
    to_come = d["coins_to_come"].astype(float)
    short_score = final[:, 0] - po[:, :, 0].mean(axis=1)
    short_margin = (final[:, 0] - final[:, 1]) - margins.mean(axis=1)
    per_coin = {n: float(to_come @ y / (to_come @ to_come))
                for n, y in (("score_per_coin", short_score), ("margin_per_coin", short_margin))}
    res = short_margin - per_coin["margin_per_coin"] * to_come
    # older recordings name this field "rollout"
    playout = next((str(d[k]) for k in ("playout", "rollout") if k in d), "greedy")
    searched = "search_noise" in d and bool(np.any(d["search_noise"]))
    if searched:
        noise = np.minimum(d["search_noise"], 100.0)     # the search's own standard errors (inf: 1 visit)
    else:
        noise = margins.var(axis=1, ddof=1) / k if k > 1 else np.zeros(len(res))
    x = np.column_stack([np.ones(len(res)), to_come])
    (a, b), *_ = np.linalg.lstsq(x, res ** 2 - noise, rcond=None)
    c = {**per_coin, "spread_base": float(np.sqrt(max(a, 1.0))), "spread_per_coin": float(np.sqrt(max(b, 0.0)))}
    won = (final[:, 0] >= final[:, 1]).astype(float)       # ties go to the human
    expected = margins.mean(axis=1) + c["margin_per_coin"] * to_come

    def win_chance(shift):
        cs = {**c, "win_shift": shift}
        return np.clip([forecast.win_chance(m, t, cs) for m, t in zip(expected, to_come)], 1e-6, 1 - 1e-6)

    def loglik(shift):
        p = win_chance(shift)
        return float(np.sum(won * np.log(p) + (1 - won) * np.log(1 - p)))
    c["win_shift"] = max((s / 10 for s in range(-80, 81)), key=loglik)
    print(f"{len(res)} positions from {d['game'].max() + 1} games, {playout} playouts, "
          + ("the means the search gave its moves" if searched else f"{k} each"))
    print(f"short by {short_margin.mean():.1f} VP of margin, {short_score.mean():.1f} of score on average; "
          f"per coin to come: margin {c['margin_per_coin']:.2f}, score {c['score_per_coin']:.2f}; "
          f"rms of the margin shortfall {np.sqrt(np.mean(short_margin ** 2)):.1f} -> {np.sqrt(np.mean(res ** 2)):.1f}")
    print(f"spread of the final margin: sqrt({c['spread_base']:.2f}^2 + {c['spread_per_coin']:.2f}^2 x coins to come); "
          f"win shift {c['win_shift']:+.1f} VP")
    for r in range(4):
        s = d["round"] == r
        print(f"  round {r + 1}: {s.sum()} positions, {to_come[s].mean():.1f} coins to come, margin short by "
              f"{short_margin[s].mean():.1f}, after the coins {res[s].mean():+.1f} (rms {np.sqrt(np.mean(res[s] ** 2)):.1f})")
    p = win_chance(c["win_shift"])
    print("coins to come   positions   forecast win   won    Brier (a constant's)")
    for lo, hi in ((0, 3), (3, 8), (8, 14), (14, 20), (20, 99)):
        s = (to_come >= lo) & (to_come < hi)
        if s.any():
            print(f"  {lo:2d}-{hi:2d}          {s.sum():6d}        {p[s].mean():5.2f}      {won[s].mean():5.2f}   "
                  f"{np.mean((p[s] - won[s]) ** 2):.3f} ({np.mean((won[s].mean() - won[s]) ** 2):.3f})")
    if args.write:
        how = args.command or (str(d["command"]) if "command" in d else "")
        write_table(playout, c, f"{how}; {len(res)} positions from {d['game'].max() + 1} games")


FORECAST_HEADER = """# Generated by bench/learn_value.py gap --write: how far the playouts of a solo search fall short
# of the game the search goes on to play (advisor/forecast.py), one table per playout (the rollout,
# and a greedy rollout's lookahead where it is not the heuristic). Refit rather than edit."""


def write_table(playout: str, c: dict[str, float], how: str, path: pathlib.Path = forecast.FORECAST_FILE) -> None:
    """Replace (or add) `playout`'s table in forecast.toml, keeping the other playouts' tables."""
    blocks = path.read_text().strip().split("\n\n") if path.exists() else []
    block = "\n".join([f"# {playout}: {how}", f"[forecast.{playout}]"]
                      + [f"{n} = {round(c[n], 3)}" for n in forecast.FIELDS])
    kept = [b for b in blocks[1:] if f"[forecast.{playout}]" not in b]
    path.write_text("\n\n".join([FORECAST_HEADER, *kept, block]) + "\n")
    print(f"wrote [forecast.{playout}] in {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--agent", default="ismcts:iterations=300")
    r.add_argument("--games", type=int, default=400)
    r.add_argument("--levels", default="23", help="Automa levels, cycled")
    r.add_argument("--seed", type=int, default=1_000_000)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--out", default="value.npz")
    r.add_argument("--playouts", type=int, default=0, help="greedy playouts noted a position (for gap)")
    r.add_argument("--search-means", action="store_true",
                   help="note the playout means the search gave its chosen move instead (for gap)")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--ridge", type=float, default=1.0)
    f.add_argument("--cards", action="store_true", help="also a worth for each dragon card in hand and on the mat")
    f.add_argument("--card-ridge", type=float, default=30.0)
    f.add_argument("--write", action="store_true")
    g = sub.add_parser("gap")
    g.add_argument("data")
    g.add_argument("--write", action="store_true", help="write advisor/data/forecast.toml")
    g.add_argument("--command", default="", help="how the data was recorded (for the file's header; "
                   "default: as the data file says)")
    args = ap.parse_args()
    if args.cmd == "record":
        args.levels = list(args.levels)
        record(args)
    elif args.cmd == "gap":
        gap(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
