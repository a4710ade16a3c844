"""Measure the solo forecasts' constants (advisor/data/forecast.toml) from games the search plays.

record: play solo games with an agent spec, noting at every decision of the human the coins still
to come, the final scores and either K greedy playouts from a determinization of her view
(--playouts K) or the playout means the search itself gave the move it chose (--search-means: the
only way to measure playouts that learn within a search, such as greedy_mast).
gap: how far those playouts' means fall short of the margin the search went on to reach, against
the coins still to come (held + the round coins of each later round); the spread around that; a
calibration table; --write replaces that playout's table in advisor/data/forecast.toml.

  python bench/fit_forecast.py record --agent ismcts:time=0.25 --levels 3 --games 80 --playouts 16 --out /tmp/gap.npz
  python bench/fit_forecast.py record --agent ismcts:time=0.5 --levels 23 --games 30 --search-means --out /tmp/gm.npz
  python bench/fit_forecast.py gap /tmp/gap.npz [--write]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import pathlib
import sys

import numpy as np

import tomli_w

from advisor import _core
from advisor.search import forecast
from advisor.search.agents import make_agent, parse_spec
from advisor.search.params import parse_settings


def _playouts(game: "_core.Game", k: int, seed: int) -> list[tuple[int, int]]:
    """(human, Automa) final scores of k greedy playouts, each from a determinization of her view."""
    return [tuple(_core.playout_scores(game.determinize(0, seed + i), "greedy", seed + i)) for i in range(k)]


def play(job: tuple[str, int, str, int, bool]) -> dict:
    """One solo game of `spec`; a row for each decision of the human (search_means: each one searched)."""
    spec, seed, level, k, search_means = job
    game = _core.Game.new(1, seed, automa=level)
    agent = make_agent(spec, seed)
    agent.reset(seed)
    rows = []
    while not game.is_terminal():
        if game.decider != 0 or (search_means and len(game.legal_actions()) == 1):
            game.apply(agent.choose(game))
            continue
        row = [min(game.round - 1, 3), None, forecast.coins_to_come(game, 0), 0.0]
        if not search_means:
            row[1] = _playouts(game, k, seed * 1000 + len(rows) * k)
        game.apply(agent.choose(game))
        if search_means:
            best = agent.last.best     # the chosen move's playout means, and their noise
            row[1], row[3] = [(best.score, best.score - best.margin)], best.margin_se ** 2
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
         "python bench/fit_forecast.py " + " ".join(sys.argv[1:]))


def save(games: list[dict], out: str, k: int, playout: str = "greedy", command: str = "") -> None:
    """The recorded games as arrays, one row a position of the human (`gap`)."""
    game_id, rnd, po, fs, coins, noise = [], [], [], [], [], []
    for gi, g in enumerate(games):
        for r, playouts, to_come, var in g["rows"]:
            game_id.append(gi)
            rnd.append(r)
            po.append(playouts)
            fs.append(g["final"])
            coins.append(to_come)
            noise.append(var)
    np.savez(out, game=game_id, round=rnd, playouts=np.array(po, dtype=float).reshape(len(po), k, 2),
             final=fs, coins_to_come=coins, search_noise=noise, playout=playout, command=command)
    print(f"{len(rnd)} positions from {len(games)} games -> {out}")


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
    playout = str(d["playout"]) if "playout" in d else "greedy"
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


FORECAST_HEADER = """\
# Written by bench/fit_forecast.py gap --write: how far the playouts of a solo search fall short
# of the game the search goes on to play (advisor/search/forecast.py), one table per playout (the
# playout, and a greedy playout's lookahead where it is not the heuristic). Refit rather than edit."""


def write_table(playout: str, c: dict[str, float], how: str, path: pathlib.Path = forecast.FORECAST_FILE) -> None:
    """Replace (or add) `playout`'s table in forecast.toml, keeping the other playouts' tables."""
    blocks = path.read_text().strip().split("\n\n") if path.exists() else []
    table = tomli_w.dumps({"forecast": {playout: {n: round(c[n], 3) for n in forecast.FIELDS}}}).strip()
    block = f"# {playout}: {how}\n{table}"
    kept = [b for b in blocks[1:] if f"[forecast.{playout}]" not in b]
    path.write_text("\n\n".join([FORECAST_HEADER, *kept, block]) + "\n")
    forecast.tables.cache_clear()
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
    r.add_argument("--out", default="forecast.npz")
    r.add_argument("--playouts", type=int, default=0, help="greedy playouts noted a position (for gap)")
    r.add_argument("--search-means", action="store_true",
                   help="note the playout means the search gave its chosen move instead (for gap)")
    g = sub.add_parser("gap")
    g.add_argument("data")
    g.add_argument("--write", action="store_true", help="write advisor/data/forecast.toml")
    g.add_argument("--command", default="", help="how the data was recorded (for the file's header; "
                   "default: as the data file says)")
    args = ap.parse_args()
    if args.cmd == "record":
        args.levels = list(args.levels)
        record(args)
    else:
        gap(args)


if __name__ == "__main__":
    main()
