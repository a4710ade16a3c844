"""`advisor bench`: a short standard set of speed measurements (well under a minute).

Each measure is timed a few times and the median kept; the machine and the version are reported
with it so numbers from different machines are not mixed up. The pytest-benchmark suite in
`bench/` measures more, with statistics."""
from __future__ import annotations

import os
import platform
import random
import statistics
import time

REPEATS = 3


def midgame(players: int, seed: int = 3, decisions: int = 60):
    """A game some way in, reached by random decisions that avoid passing."""
    from advisor._core import Game
    g = Game.new(players, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if g.is_terminal():
            break
        legal = [a for a in g.legal_actions() if a >> 20 != 1] or g.legal_actions()
        g.apply(rng.choice(legal))
    return g


def round2_game(players: int = 2, seed: int = 5, automa: str = "3"):
    """The first turn of round 2 of a game played by greedy agents: a typical position to search
    (`players` 1: solo against the Automa at level `automa`)."""
    from advisor._core import Game
    from advisor.search.agents import make_agent
    g = Game.new(players, seed, automa=automa)
    agents = [make_agent("greedy", seed * 10 + p) for p in range(players)]
    while not g.is_terminal():
        if (g.round >= 2 and g.phase == "turn" and g.decision == "move" and g.decisions_in_segment == 0):
            return g
        g.apply(agents[g.decider].choose(g))
    raise RuntimeError("the game ended before round 2")


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return {"cpu": cpu, "cores": cores, "machine": platform.machine(), "system": platform.system(),
            "python": platform.python_version()}


def _median_rate(fn, repeats: int = REPEATS) -> float:
    """fn() -> (units, seconds); the median rate over `repeats` runs."""
    return statistics.median(u / s for u, s in (fn() for _ in range(repeats)))


def _calibrate(run, target: float, start: int) -> int:
    """A count of work units that takes about `target` seconds."""
    n = start
    while True:
        t = time.perf_counter()
        run(n)
        dt = time.perf_counter() - t
        if dt >= target / 4 or n >= 10**8:
            return max(1, int(n * target / max(dt, 1e-9)))
        n *= 4


def run_benchmarks(target: float = 0.6, progress=None) -> dict:
    """The standard set. `target`: seconds per timed run (3 runs per measure); the large search
    is 100,000 x `target` iterations (60,000 by default, what 1 s buys at 2 players)."""
    from advisor import __version__, _core
    from advisor._core import Game
    from advisor.search.analysis import _core_params
    from advisor.search.params import parse_settings
    from advisor.search.forecast import playout

    t_start = time.perf_counter()
    note = progress or (lambda _msg: None)
    out: dict = {"version": __version__, "machine": machine()}

    note("clone")
    g5 = midgame(5)
    out["clone_ns"] = statistics.median(_core.clone_ns(g5, 200_000) for _ in range(REPEATS))
    out["clone_players"] = 5

    note("random games")
    rates: dict[str, float | None] = {}
    decisions_per_s = None
    for players in (1, 2):
        n = _calibrate(lambda k: _core.random_games(players, k, 1), target, 20)
        runs = []
        for r in range(REPEATS):
            t = time.perf_counter()
            d = _core.random_games(players, n, 100 + r)
            runs.append((n, d, time.perf_counter() - t))
        rates[str(players)] = statistics.median(k / s for k, _, s in runs)
        if players == 2:
            decisions_per_s = statistics.median(d / s for _, d, s in runs)
    out["random_games_per_s"] = rates
    out["decisions_per_s"] = decisions_per_s

    note("decisions from Python")
    def py_decisions():
        rng = random.Random(7)
        n, t0, seed = 0, time.perf_counter(), 0
        while time.perf_counter() - t0 < target:
            g = Game.new(2, seed)
            seed += 1
            while not g.is_terminal():
                legal = g.legal_actions()
                g.apply(legal[rng.randrange(len(legal))])
                n += 1
        return n, time.perf_counter() - t0
    out["python_decisions_per_s"] = _median_rate(py_decisions)

    note("ISMCTS")
    duo, solo = round2_game(2), round2_game(1)
    # the solo search as played against the Automa (its defaults), whose strength grows with
    # iterations up to a few thousand a decision (docs/strength.md); and a 2-player search as large
    # as 1 s of play, whose nodes of many children cost what small trees hide
    big = int(100_000 * target)
    duo_settings = parse_settings({"time": 0})
    for key, pos, settings, count in (
            ("ismcts_iterations_per_s", duo, duo_settings, None),
            ("ismcts_1s_tree_iterations_per_s", duo, duo_settings, big),
            ("ismcts_solo_iterations_per_s", solo, parse_settings({"time": 0}, solo=True), None)):
        def search(k, pos=pos, settings=settings):
            return _core.search(pos, {**_core_params(settings, 11), "iterations": k, "seconds": 0.0})
        n = count or _calibrate(search, target, 100)
        def timed(n=n, search=search):
            r = search(n)
            return r["iterations"], r["seconds"]
        out[key] = _median_rate(timed)
    out["ismcts_1s_tree_iterations"] = big
    out["ismcts_position"] = "2 players, first turn of round 2 (greedy play, seed 5)"
    # named by playout: the playout and, if not the heuristic, its lookahead (their speeds differ)
    out["ismcts_solo_playout"] = playout(parse_settings({}, solo=True))
    out["ismcts_solo_position"] = ("solo against the Automa level 3, first turn of round 2, solo defaults "
                                   f"({out['ismcts_solo_playout']} playouts)")
    out["seconds"] = round(time.perf_counter() - t_start, 2)
    return out


def bench_text(r: dict) -> str:
    """The measures as a table: labels in one column, the figures right-aligned in the next."""
    m = r["machine"]
    rows = [(f"clone of a {r['clone_players']}-player game (core)", f"{r['clone_ns']:.1f}", "ns")]
    for p, v in r["random_games_per_s"].items():
        rows.append((f"random games, {p} player{'s' if p != '1' else ''}, in the core", f"{v:,.0f}", "/ s"))
    rows += [("decisions in those 2-player games", f"{r['decisions_per_s']:,.0f}", "/ s"),
             ("decisions driven from Python (legal + apply)", f"{r['python_decisions_per_s']:,.0f}", "/ s"),
             ("ISMCTS iterations, 2 players, weighted playouts", f"{r['ismcts_iterations_per_s']:,.0f}", "/ s"),
             (f"the same, searches of {r['ismcts_1s_tree_iterations']:,} iterations",
              f"{r['ismcts_1s_tree_iterations_per_s']:,.0f}", "/ s"),
             (f"ISMCTS iterations, solo, {r['ismcts_solo_playout']} playouts",
              f"{r['ismcts_solo_iterations_per_s']:,.0f}", "/ s")]
    label_w = max(len(label) for label, _, _ in rows)
    figure_w = max(len(figure) for _, figure, _ in rows)
    lines = [f"advisor {r['version']} on {m['cpu'] or m['machine']} ({m['cores']} cores), Python {m['python']}"]
    lines += [f"{label:{label_w}}  {figure:>{figure_w}} {unit}" for label, figure, unit in rows]
    lines.append(f"({r['seconds']:.1f} s in all)")
    return "\n".join(lines)
