"""Measure the forecasts' constants (advisor/data/forecast.toml) on games the search plays itself.

tournament: the same rows from the `outlooks` of `advisor tournament` results files (their
games at any budget, against any agents), for one agent's seats (--agent NAME).
record: play games of one agent spec in every seat (--players 2-5), or solo against the Automa
(--players 1 --levels 2 3), noting at every searched decision the round, every seat's playout mean
of the move chosen, their coins still to come, the search's noise and how the game ended.
fit: the table for the recorded player count and playouts: how far each seat's playout mean falls
short of its final score, against its coins still to come and the round; the spread of the final
margins around that; the win shift by likelihood. --write replaces that table in forecast.toml.
calibration: the published check, by game in two halves (each fitted on the other): the forecast
score's error by round and a reliability table of the win chances by decile, with the Brier score.

  python bench/fit_forecast.py record --players 2 --agent ismcts:iterations=2000,time=0 --games 200 --out f2.npz
  python bench/fit_forecast.py tournament results.jsonl.gz --agent x --out f2.npz
  python bench/fit_forecast.py fit f2.npz [--write]
  python bench/fit_forecast.py calibration f2.npz [f3.npz ...]
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
from advisor.tournaments.runners import outlook


def play(job: tuple[str, int, int, str | None]) -> dict:
    """One game of `spec` in every searching seat; a row for each of their decisions with a choice."""
    spec, seed, players, level = job
    game = _core.Game.new(players, seed, automa=level) if level else _core.Game.new(players, seed)
    seats = 1 if level else players
    agents = [make_agent(spec, seed * 10 + s) for s in range(seats)]
    for s, agent in enumerate(agents):
        agent.reset(seed * 10 + s)
    outlooks = []
    while not game.is_terminal():
        agent = agents[min(game.decider, seats - 1)]
        before = getattr(agent, "last", None)
        action = agent.choose(game)            # forced moves too: the agent follows them (tree reuse)
        if getattr(agent, "last", None) is not before:
            outlooks.append(outlook(0, game, agent.last))
        game.apply(action)
    rows = [(rnd, seat, means, to_come, noise, n) for _, rnd, seat, means, to_come, noise, n in outlooks if means]
    for agent in agents:
        agent.close()
    final = [b["total"] for b in game.score_breakdown()]
    winners = game.winners()
    won = [(1.0 / len(winners)) if s in winners else 0.0 for s in range(len(final))]
    return {"seed": seed, "rows": rows, "final": final, "won": won}


def record(args) -> None:
    level = args.levels if args.players == 1 else None
    jobs = [(args.agent, args.seed + i, args.players, level[i % len(level)] if level else None)
            for i in range(args.games)]
    _, given = parse_spec(args.agent)
    playout = forecast.playout(parse_settings(given, solo=args.players == 1))
    games = []
    with mp.Pool(args.workers) as pool:
        try:
            for i, g in enumerate(pool.imap(play, jobs)):
                games.append(g)
                if (i + 1) % 10 == 0:
                    print(f"{i + 1} games, mean final {np.mean([x['final'] for x in games], axis=0).round(1)}",
                          flush=True)
        except KeyboardInterrupt:
            print(f"interrupted: keeping {len(games)} games", file=sys.stderr)
    save(games, args.out, args.players, playout, "python bench/fit_forecast.py " + " ".join(sys.argv[1:]))


def save(games: list[dict], out: str, players: int, playout: str, command: str = "") -> None:
    """The recorded games as arrays, a row for each searched decision."""
    cols: dict[str, list] = {k: [] for k in ("game", "round", "seat", "means", "to_come", "noise", "iterations",
                                             "final", "won")}
    for gi, g in enumerate(games):
        for rnd, seat, means, to_come, noise, n in g["rows"]:
            for k, v in zip(cols, (gi, rnd, seat, means, to_come, noise, n, g["final"], g["won"][seat]), strict=True):
                cols[k].append(v)
    np.savez_compressed(out, **{k: np.array(v, dtype=float) for k, v in cols.items()},
                        players=players, playout=playout, command=command)
    print(f"{len(cols['round'])} decisions from {len(games)} games -> {out}")


def tournament(args) -> None:
    """The rows of one agent's searches in a tournament's games (records with `outlooks`)."""
    from advisor.tournaments.records import load_results
    games, playouts, players = [], set(), set()
    records = [rec for path in args.results for rec in load_results(path)[0]]
    for rec in records:
        if rec.get("error") or "outlooks" not in rec:
            continue
        seats = [i for i, s in enumerate(rec["seats"]) if args.agent in (None, s["agent"]) and "settings" in s]
        if not seats:
            continue
        solo = "automa" in rec and rec["automa"].get("score") is not None
        final = rec["scores"] + ([rec["automa"]["score"]] if solo else [])
        won = [1.0 / len(rec["winners"]) if s in rec["winners"] else 0.0 for s in range(len(final))]
        # records from before outlooks kept the iterations: a fixed budget's, else unknown
        settings = {s: rec["seats"][s]["settings"] for s in seats}
        fixed = {s: float(b["iterations"]) if b.get("time", 0) <= 0 and b.get("iterations", 0) > 0 else np.nan
                 for s, b in settings.items()}
        rows = [(o[1], o[2], o[3], o[4], o[5], o[6] if len(o) > 6 else fixed[o[2]]) for o in rec["outlooks"]
                if o[2] in seats and o[3] is not None]
        for s in seats:
            playouts.add(forecast.playout(rec["seats"][s]["settings"]))
        players.add(1 if solo else rec["players"])
        games.append({"seed": rec["seed"], "rows": rows, "final": final, "won": won})
    if len(playouts) != 1 or len(players) != 1:
        raise SystemExit(f"{' '.join(args.results)}: the seats chosen play {sorted(playouts) or 'no recorded searches'} "
                         f"at {sorted(players)} players: choose one agent with --agent NAME")
    save(games, args.out, players.pop(), playouts.pop(), "python bench/fit_forecast.py " + " ".join(sys.argv[1:]))


def load(path: str) -> dict:
    d = dict(np.load(path))
    if "means" not in d:
        raise SystemExit(f"{path}: not recorded by this script's record")
    d["players"], d["playout"], d["command"] = int(d["players"]), str(d["playout"]), str(d["command"])
    d["round"] = np.clip(d["round"].astype(int), 1, forecast.ROUNDS)
    d["seat"] = d["seat"].astype(int)
    d.setdefault("iterations", np.full(len(d["round"]), np.nan))
    return d


def budget(d: dict, path: str) -> int:
    """The iteration budget a decision that the data was played at (the median, at a time budget)."""
    n = d["iterations"]
    if np.isnan(n).any():
        raise SystemExit(f"{path}: some decisions have no iteration count (a time budget's records from "
                         "before they were kept): say the budget they stand for with --iterations N")
    return int(round(float(np.median(n))))


def _rows(d: dict, pick: np.ndarray | None = None) -> dict:
    keep = np.ones(len(d["round"]), bool) if pick is None else pick
    return {k: (v[keep] if isinstance(v, np.ndarray) and v.shape[:1] == keep.shape else v) for k, v in d.items()}


def _shortfall(y: np.ndarray, to_come: np.ndarray, rnd: np.ndarray) -> tuple[float, list[float]]:
    """Least squares of the shortfall `y` on the coins to come and a constant a round."""
    x = np.column_stack([to_come] + [(rnd == r + 1).astype(float) for r in range(forecast.ROUNDS)])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    return float(coef[0]), [float(v) for v in coef[1:]]


def forecasts(d: dict, c: dict) -> tuple[np.ndarray, np.ndarray]:
    """Every row's forecast scores (rows x seats) and win chance with the constants `c`."""
    return forecast.forecast_rows(d["means"], d["seat"], d["to_come"], d["round"], c)


def fit_table(d: dict) -> dict:
    """The constants of `d`'s player count and playouts."""
    n, seats = len(d["round"]), d["means"].shape[1]
    idx = np.arange(n)
    me = np.zeros((n, seats), bool)
    me[idx, d["seat"]] = True
    short = d["final"] - d["means"]
    rnd = np.repeat(d["round"][:, None], seats, axis=1)
    c: dict = {}
    c["me_per_coin"], c["me_by_round"] = _shortfall(short[me], d["to_come"][me], rnd[me])
    c["other_per_coin"], c["other_by_round"] = _shortfall(short[~me], d["to_come"][~me], rnd[~me])
    c.update(spread_base=1.0, spread_per_coin=0.0, win_shift=0.0)
    scores, _ = forecasts(d, c)
    mine = scores[idx, d["seat"]]
    err = ((d["final"][idx, d["seat"]][:, None] - d["final"]) - (mine[:, None] - scores))[~me].reshape(n, -1)
    to_come = d["to_come"][idx, d["seat"]]
    x = np.column_stack([np.ones(n), to_come])
    (a, b), *_ = np.linalg.lstsq(np.repeat(x, seats - 1, axis=0), (err ** 2).ravel()
                                 - np.repeat(d["noise"], seats - 1), rcond=None)
    c["spread_base"], c["spread_per_coin"] = float(np.sqrt(max(a, 1.0))), float(np.sqrt(max(b, 0.0)))
    won = d["won"]

    def loglik(shift: float, scale: float) -> float:
        cs = {**c, "win_shift": shift, "spread_base": c["spread_base"] * scale,
              "spread_per_coin": c["spread_per_coin"] * scale}
        p = np.clip(forecasts(d, cs)[1], 1e-6, 1 - 1e-6)
        return float(np.sum(won * np.log(p) + (1 - won) * np.log(1 - p)))
    # the margins' spread measures the scores; the win chances are calibrated on the outcomes: a
    # shift (ties, the order of play) and a scale of that spread, by likelihood on a coarse grid
    shift, scale = max(((s / 5, k / 20) for s in range(-40, 41, 2) for k in range(10, 41, 2)),
                       key=lambda sk: loglik(*sk))
    shift, scale = max(((shift + s / 10, scale + k / 40) for s in range(-2, 3) for k in range(-2, 3)),
                       key=lambda sk: loglik(*sk))
    c["win_shift"] = shift
    c["spread_base"] *= scale
    c["spread_per_coin"] *= scale
    return c


def fit(args) -> None:
    d = load(args.data)
    c = fit_table(d)
    name = forecast.key(d["players"], d["playout"])
    games = int(d["game"].max()) + 1
    at = args.iterations or budget(d, args.data)
    print(f"[forecast.{name}.{at}]: {len(d['round'])} decisions from {games} games at {at} iterations a decision")
    print(f"short per coin to come: the player's {c['me_per_coin']:.2f}, another seat's {c['other_per_coin']:.2f}; "
          "a round: " + " ".join(f"{a:+.1f}/{b:+.1f}" for a, b in zip(c["me_by_round"], c["other_by_round"], strict=True)))
    print(f"spread of a final margin: sqrt({c['spread_base']:.2f}^2 + {c['spread_per_coin']:.2f}^2 x coins "
          f"to come); win shift {c['win_shift']:+.1f} VP")
    if args.write:
        write_table(name, at, c, f"{args.command or d['command']}; {len(d['round'])} decisions from {games} games")


def _checked(d: dict, c: dict | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each decision's forecast score and win chance, and which half of the games it is in: with
    the constants `c`, or (None) each half forecast with the constants fitted on the other."""
    n = len(d["round"])
    half = d["game"].astype(int) % 2
    scores, win = np.zeros(n), np.zeros(n)
    for h in (0, 1):
        pick = half == h
        part = _rows(d, pick)
        s, w = forecasts(part, c if c is not None else fit_table(_rows(d, ~pick)))
        scores[pick], win[pick] = s[np.arange(len(part["round"])), part["seat"]], w
    return scores, win, half


def _by_game_interval(x: np.ndarray, game: np.ndarray, draws: int = 1000) -> tuple[float, float]:
    """A 95% interval of the mean of `x` over decisions (a frequency won, an error), by resampling
    whole games: a game's decisions share its outcome, so they are far from independent."""
    ids, inverse = np.unique(game, return_inverse=True)
    wins, counts = np.bincount(inverse, weights=x), np.bincount(inverse)
    pick = np.random.default_rng(0).integers(0, len(ids), size=(draws, len(ids)))
    freq = wins[pick].sum(axis=1) / np.maximum(counts[pick].sum(axis=1), 1)
    return float(np.quantile(freq, 0.025)), float(np.quantile(freq, 0.975))


def calibration(args) -> None:
    """The calibration of every data file's forecasts as markdown tables (docs/forecasts.md): fitted
    on one half of its games and checked on the other (each half's mean error shown: pooled, the
    two cancel), or with --fit-on, fitted on another file's games and checked on all of these."""
    given = fit_table(load(args.fit_on)) if args.fit_on else None
    print(f"| players | decisions (games) | round | forecast error, mean{' [95% interval]' if given else ''} | spread |")
    print("|---|---|---|---|---|")
    reliability = []
    for path in args.data:
        d = load(path)
        scores, win, half = _checked(d, given)
        err = scores - d["final"][np.arange(len(d["round"])), d["seat"]]
        games = int(d["game"].max()) + 1
        for r in range(1, forecast.ROUNDS + 1):
            s = d["round"] == r
            lo, hi = _by_game_interval(err[s], d["game"][s]) if given else (0.0, 0.0)
            mean = (f"{err[s].mean():+.1f} [{lo:+.1f}, {hi:+.1f}]" if given else
                    " / ".join(f"{err[s & (half == h)].mean():+.1f}" for h in (0, 1)))
            print(f"| {d['players']} | {s.sum()} ({games}) | {r} | {mean} | {err[s].std():.1f} |")
        reliability.append((d["players"], win, d["won"], d["game"].astype(int)))
    print("\n| players | forecast win chance | decisions | forecast, mean | won [95% interval] | Brier (a constant's) |")
    print("|---|---|---|---|---|---|")
    for players, p, won, game in reliability:
        for k in range(10):
            s = (p >= k / 10) & ((p < (k + 1) / 10) | (k == 9))
            if s.any():
                lo, hi = _by_game_interval(won[s], game[s])
                print(f"| {players} | {k * 10}-{k * 10 + 10}% | {s.sum()} | {p[s].mean():.1%} | {won[s].mean():.1%} "
                      f"[{lo:.1%}, {hi:.1%}] | |")
        print(f"| {players} | all | {len(p)} | {p.mean():.1%} | {won.mean():.1%} | "
              f"{np.mean((p - won) ** 2):.3f} ({np.mean((won.mean() - won) ** 2):.3f}) |")


FORECAST_HEADER = """\
# Written by bench/fit_forecast.py fit --write: how far a search's playouts fall short of the game
# the search goes on to play (advisor/search/forecast.py), one table per player count (1p: solo)
# and playout (the playout, and a greedy playout's lookahead where it is not the heuristic), at
# the iterations a decision of the games measured (a table without one stands for any budget).
# Refit rather than edit."""


def write_table(name: str, iterations: int, c: dict, how: str, path: pathlib.Path = forecast.FORECAST_FILE) -> None:
    """Replace (or add) table `name` (forecast.key()) at `iterations` a decision in forecast.toml,
    keeping the others, and its other budgets' (but not one table standing for every budget)."""
    players, playout = name.split(".", 1)
    blocks = path.read_text().strip().split("\n\n") if path.exists() else []
    fields = {k: round(c[k], 3) for k in forecast.FIELDS} | \
        {k: [round(v, 2) for v in c[k]] for k in forecast.ROUND_FIELDS}
    table = tomli_w.dumps({"forecast": {players: {playout: {str(iterations): fields}}}}).strip()
    full = f"{name}.{iterations}"
    block = f"# {full}: {how}\n{table}"
    kept = [b for b in blocks[1:] if f"[forecast.{full}]" not in b and f"[forecast.{name}]" not in b]
    path.write_text("\n\n".join([FORECAST_HEADER, *kept, block]) + "\n")
    forecast.tables.cache_clear()
    print(f"wrote [forecast.{full}] in {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--players", type=int, default=2, choices=range(1, 6))
    r.add_argument("--agent", default="ismcts:iterations=2000,time=0")
    r.add_argument("--games", type=int, default=200)
    r.add_argument("--levels", nargs="+", default=["2", "3"], help="solo: Automa levels (1-3, R1-R3), cycled")
    r.add_argument("--seed", type=int, default=1_000_000)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--out", default="forecast.npz")
    t = sub.add_parser("tournament")
    t.add_argument("results", nargs="+")
    t.add_argument("--agent", default=None, help="the agent whose seats to take (default: every seat)")
    t.add_argument("--out", default="forecast.npz")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--write", action="store_true", help="write advisor/data/forecast.toml")
    f.add_argument("--iterations", type=int, default=None, help="the budget a decision the games stand for "
                   "(default: their searches' median)")
    f.add_argument("--command", default="", help="how the data was recorded (for the file's comment; "
                   "default: as the data file says)")
    c = sub.add_parser("calibration")
    c.add_argument("data", nargs="+")
    c.add_argument("--fit-on", default=None, help="fit on this data file's games instead (e.g. another budget's)")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args)
    elif args.cmd == "tournament":
        tournament(args)
    elif args.cmd == "fit":
        fit(args)
    else:
        calibration(args)


if __name__ == "__main__":
    main()
