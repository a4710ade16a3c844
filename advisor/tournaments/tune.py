"""Tuning search parameters by play: successive halving or an N-tuple bandit (NTBEA) over the
parameter registry, and a sequential probability ratio test (SPRT) of "B beats A".

Every evaluation is a duplicate deal on the tournament machinery (`advisor.tournaments`): the
candidate sits in one seat against copies of the opponent, the seats rotate through the deal, and
all candidates meet the same deal seeds in the same order (common random numbers), so the
differences measured are mostly the candidates' and not the cards'. Results depend only on the
seed, never on the worker count (deals are judged in plan order)."""
from __future__ import annotations

import itertools
import math
import random
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol

from advisor.errors import AdvisorError
from advisor.figures import signed
from advisor.search.params import PARAMS, ParamError
from advisor.tournaments.plan import deal_lineups, deal_seed, tournament_id
from advisor.tournaments.runners import make_runner, progress_bar
from advisor.tournaments.statistics import comparison_groups, mean_ci, proportion_ci, win_shares

NOT_TUNABLE = ("workers", "max_nodes")
OBJECTIVES = ("wins", "margin")     # what a candidate is judged by: its win share, or its mean margin
MARGIN_UNIT = 40.0                  # NTBEA's model takes margins in units of 40 VP, near a win's scale
Log = Callable[[str], None]


class TuneError(AdvisorError):
    """A tuning run cannot be set up as asked (bad range, bad spec, budget too small)."""


# ---------------------------------------------------------------------------------- the space
def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def parse_range(text: str) -> tuple[str, list[Any]]:
    """`NAME=LO..HI` (5 evenly spaced values), `NAME=LO..HI:N` (N values), `NAME=V1,V2,...` or, for a
    parameter with named choices, `NAME=*` (all of them). Every value is checked by the registry."""
    import difflib

    name, eq, rng = text.partition("=")
    name, rng = name.strip(), rng.strip()
    where = f"--param '{text}'"
    if not eq or not name or not rng:
        raise TuneError(f"{where}: expected NAME=LO..HI[:N] or NAME=V1,V2,...")
    if name not in PARAMS:
        close = difflib.get_close_matches(name, list(PARAMS), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise TuneError(f"{where}: unknown search parameter '{name}'{hint}; see `advisor params`")
    if name in NOT_TUNABLE:
        raise TuneError(f"{where}: '{name}' is not a playing-strength parameter and cannot be tuned")
    p = PARAMS[name]
    try:
        if ".." in rng:
            if p.kind is str:
                raise TuneError(f"{where}: '{name}' takes named values ({', '.join(p.choices)}): "
                                f"list them, or use {name}=*")
            span, _, steps = rng.partition(":")
            lo_t, _, hi_t = span.partition("..")
            lo: Any = p.parse(lo_t.strip())
            hi: Any = p.parse(hi_t.strip())
            if lo >= hi:
                raise TuneError(f"{where}: the low end {lo} is not below the high end {hi}")
            try:
                n = int(steps) if steps.strip() else 5
            except ValueError:
                raise TuneError(f"{where}: ':{steps}' is not a number of values") from None
            if not 2 <= n <= 100:
                raise TuneError(f"{where}: the number of values must be 2..100, got {n}")
            raw = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
            values = [p.parse(round(v) if p.kind is int else round(v, 6)) for v in raw]
        elif rng == "*":
            if not p.choices:
                raise TuneError(f"{where}: '*' only lists named choices; give LO..HI for '{name}'")
            values = list(p.choices)
        else:
            values = [p.parse(v.strip()) for v in rng.split(",") if v.strip()]
    except ParamError as e:
        raise TuneError(f"{where}: {e}") from None
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    if len(out) < 2:
        raise TuneError(f"{where}: give at least two different values to choose between")
    return name, out


def base_settings(spec: str) -> dict[str, str]:
    """The explicit settings of an ismcts spec (the ones every candidate keeps)."""
    from advisor.search.agents import parse_spec
    from advisor.search.params import parse_settings
    try:
        name, settings = parse_spec(spec)
        if name != "ismcts":
            raise TuneError(f"--base '{spec}': only ismcts agents have search parameters to tune")
        parse_settings(settings)
    except TuneError:
        raise
    except AdvisorError as e:
        raise TuneError(f"--base '{spec}': {e}") from None
    return settings


def candidate_spec(base: dict[str, str], values: dict[str, Any]) -> str:
    merged = {**base, **{k: _fmt(v) for k, v in values.items()}}
    return "ismcts:" + ",".join(f"{k}={merged[k]}" for k in sorted(merged))


def check_opponent(spec: str, what: str = "--against") -> str:
    from advisor.search.agents import make_agent
    try:
        make_agent(spec, 0)
    except AdvisorError as e:
        raise TuneError(f"{what} '{spec}': {e}") from None
    return spec.strip()


# ---------------------------------------------------------------------------------- evaluations
class Evaluations(Protocol):
    """What the methods need: deals played by a candidate spec, scored (bench/tune_heuristic.py
    gives its own)."""
    deal_games: int

    def evaluate(self, jobs: list[tuple[str, str, int]]) -> dict[tuple[str, int], "DealResult"]: ...


class Evaluator:
    """Plays deals of one candidate against the opponent and scores them, in plan order."""

    def __init__(self, opponent: str | None, players: int, seed: int, printing: str = "base",
                 workers: int = 1, scheduler: str | None = None, automa: str = "2", bar: Any = None):
        self.bar = bar                  # a progress bar of games (progress_bar), or None
        self.opponent, self.players, self.seed, self.printing = opponent, players, seed, printing
        self.automa = str(automa).upper() if players == 1 else None
        self.runner = make_runner(workers, scheduler)
        self.games = 0
        lineup = ("cand",) + ("opp",) * (players - 1) if players > 1 else None
        self.lineup = lineup
        self.deal_games = len(deal_lineups(["cand", "opp"] if players > 1 else ["cand"], players, 0, lineup))

    def close(self) -> None:
        self.runner.close()

    def _games(self, spec: str, deal: int, tag: str) -> list[dict[str, Any]]:
        tid = tournament_id([("cand", spec), ("opp", self.opponent)], self.players, self.seed, self.printing,
                            self.lineup, self.automa)
        s = deal_seed(self.seed, deal)
        names = ["cand", "opp"] if self.players > 1 else ["cand"]
        specs = {"cand": spec, "opp": self.opponent}
        return [{"tournament": tid, "key": f"{tag}.d{deal}.g{i}", "deal": deal, "game": i, "seed": s,
                 "players": self.players, "printing": self.printing, "agents": list(seating),
                 "specs": [specs[n] for n in seating], "automa": self.automa}
                for i, seating in enumerate(deal_lineups(names, self.players, deal, self.lineup))]

    def evaluate(self, jobs: list[tuple[str, str, int]]) -> dict[tuple[str, int], "DealResult"]:
        """Play (tag, spec, deal) jobs (in parallel); each deal's result keyed by (tag, deal)."""
        games = [g for tag, spec, deal in jobs for g in self._games(spec, deal, tag)]
        got: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for rec in self.runner.run(games):
            if rec.get("error"):
                specs = ", ".join(s["spec"] for s in rec["seats"])
                raise TuneError(f"game {rec['key']} (seed {rec['seed']}, seats {specs}) raised: {rec['error']}")
            tag = rec["key"].split(".d")[0]
            got.setdefault((tag, rec["deal"]), []).append(rec)
            if self.bar is not None:
                self.bar.update(1)
        self.games += len(games)
        return {k: deal_result(v) for k, v in got.items()}


@dataclass
class DealResult:
    fitness: float          # the candidate's mean win share over the deal's games
    margin: float           # candidate score minus the best opponent score, mean over the games
    score: float


def deal_result(records: list[dict[str, Any]]) -> DealResult:
    f = m = sc = 0.0
    for r in records:
        seat = next(i for i, s in enumerate(r["seats"]) if s["agent"] == "cand")
        f += win_shares(r)[seat]
        others = [x for i, x in enumerate(r["scores"]) if i != seat]
        if r.get("automa", {}).get("score") is not None:
            others.append(r["automa"]["score"])
        m += r["scores"][seat] - (max(others) if others else 0)
        sc += r["scores"][seat]
    n = len(records)
    return DealResult(f / n, m / n, sc / n)


@dataclass
class Candidate:
    values: dict[str, Any]
    spec: str
    deals: list[DealResult] = field(default_factory=list)      # DealResult per deal, in deal order
    round: int = 0                                  # successive halving: last round played

    @property
    def games(self) -> int:
        return len(self.deals)

    def win_rate(self) -> float:
        return sum(d.fitness for d in self.deals) / len(self.deals) if self.deals else 0.0

    def margin(self) -> float:
        return sum(d.margin for d in self.deals) / len(self.deals) if self.deals else 0.0

    def rank(self, by: str) -> tuple[float, float]:
        """The sort key of objective `by`: the one measure, then the other to break ties."""
        return (self.margin(), self.win_rate()) if by == "margin" else (self.win_rate(), self.margin())


def unit(by: str) -> float:
    """What one unit of NTBEA's model is worth in the objective `by`'s own measure."""
    return MARGIN_UNIT if by == "margin" else 1.0


def fitness(d: DealResult, by: str) -> float:
    """One deal's result as NTBEA's model takes it."""
    return (d.margin if by == "margin" else d.fitness) / unit(by)


def _summary(c: Candidate, deal_games: int) -> dict[str, Any]:
    wr, ci = proportion_ci([d.fitness * deal_games for d in c.deals], [deal_games] * len(c.deals))
    _, margin_ci, _ = mean_ci([d.margin for d in c.deals])
    return {"settings": {k: v for k, v in c.values.items()}, "spec": c.spec, "deals": len(c.deals),
            "games": len(c.deals) * deal_games, "win_rate": wr, "win_rate_ci": ci, "mean_margin": c.margin(),
            "mean_margin_ci": margin_ci,
            "mean_score": sum(d.score for d in c.deals) / len(c.deals) if c.deals else None}


# ---------------------------------------------------------------------------------- methods
def successive_halving(space: list[tuple[str, list[Any]]], base: dict[str, str], ev: Evaluator, budget: int,
                       seed: int = 0, log: Log | None = None, by: str = "wins") -> dict[str, Any]:
    """Every candidate plays the same new deals each round; the better half (by the objective `by`
    over all its deals, then the other measure) goes on; the rounds share the budget equally."""
    grid = [dict(zip([n for n, _ in space], combo, strict=True)) for combo in itertools.product(*[v for _, v in space])]
    dg = ev.deal_games
    n_max = budget // (2 * dg)
    if n_max < 2:
        raise TuneError(f"--budget {budget} is too small: successive halving needs {4 * dg} games or more")
    sampled = len(grid) > n_max
    if sampled:
        grid = random.Random(seed).sample(grid, n_max)
    cands = [Candidate(v, candidate_spec(base, v)) for v in grid]
    rounds = max(1, math.ceil(math.log2(len(cands))))
    alive = list(cands)
    deal = 0
    left = budget
    for r in range(rounds):
        share = left // (rounds - r)
        per = max(1, share // (len(alive) * dg))
        jobs = [(f"c{cands.index(c)}", c.spec, d) for c in alive for d in range(deal, deal + per)]
        res = ev.evaluate(jobs)
        for c in alive:
            tag = f"c{cands.index(c)}"
            c.deals += [res[(tag, d)] for d in range(deal, deal + per)]
            c.round = r + 1
        deal += per
        left -= per * len(alive) * dg
        alive.sort(key=lambda c: c.rank(by), reverse=True)
        if log:
            lead = f"{signed(alive[0].margin())} VP" if by == "margin" else f"{100 * alive[0].win_rate():.1f}%"
            log(f"round {r + 1}/{rounds}: {len(alive)} candidates x {per} deals; leader {alive[0].spec} {lead}")
        if r < rounds - 1:
            alive = alive[:max(1, math.ceil(len(alive) / 2))]
    best = alive[0]
    ranked = sorted(cands, key=lambda c: (c.round, *c.rank(by)), reverse=True)
    return {"method": "halving", "rounds": rounds, "candidates": len(cands), "sampled": sampled,
            "best": _summary(best, dg), "table": [_summary(c, dg) | {"round": c.round} for c in ranked],
            "validated": False}


class NTupleModel:
    """NTBEA's model: running means of the fitness for every 1-tuple, 2-tuple and the full tuple of
    parameter values, combined with UCB exploration bonuses."""

    def __init__(self, dims: int, k: float = 1.0, eps: float = 0.5, pairs: bool = True) -> None:
        subsets: list[tuple[int, ...]] = [(i,) for i in range(dims)]
        if pairs and dims > 2:
            subsets += list(itertools.combinations(range(dims), 2))
        if dims > 1:
            subsets.append(tuple(range(dims)))
        self.subsets = subsets
        self.stats: list[dict[tuple[Any, ...], list[float]]] = [{} for _ in subsets]
        self.k, self.eps, self.n = k, eps, 0

    def add(self, x: tuple[int, ...], f: float) -> None:
        self.n += 1
        for s, st in zip(self.subsets, self.stats, strict=True):
            key = tuple(x[i] for i in s)
            a = st.setdefault(key, [0, 0.0])
            a[0] += 1
            a[1] += f

    def value(self, x: tuple[int, ...], explore: bool = True) -> float:
        tot, used = 0.0, 0
        for s, st in zip(self.subsets, self.stats, strict=True):
            a = st.get(tuple(x[i] for i in s))
            if a is None:
                if explore:
                    tot += self.k * math.sqrt(math.log(self.n + 1) / self.eps)
                    used += 1
                continue
            tot += a[1] / a[0] + (self.k * math.sqrt(math.log(self.n + 1) / (a[0] + self.eps)) if explore else 0.0)
            used += 1
        return tot / used if used else 0.0


def ntbea(space: list[tuple[str, list[Any]]], base: dict[str, str], ev: Evaluations, budget: int, seed: int = 0,
          neighbours: int = 50, validation: float = 0.25, log: Log | None = None, by: str = "wins",
          batch: int = 1) -> dict[str, Any]:
    """N-tuple bandit evolutionary search (Lucas et al. 2018): evaluate the current point on one
    deal, update the tuple model, move to the best-by-UCB of a few mutated neighbours. The
    recommended point (best model estimate without exploration) is then measured on fresh deals with
    the rest of the budget, so its reported win rate is not inflated by the selection. `batch`:
    points evaluated at once (workers play them together), each on its own deal: the neighbour
    that one at a time would move to and the next best by UCB (first `batch` random points); the
    result depends on it, never on the worker count."""
    names = [n for n, _ in space]
    sizes = [len(v) for _, v in space]
    dg = ev.deal_games
    evals = int(budget * (1 - validation)) // dg
    if evals < 2 or budget // dg - evals < 1:
        raise TuneError(f"--budget {budget} is too small for ntbea: at least {4 * dg} games ({dg} per deal)")
    if batch < 1:
        raise TuneError(f"--batch {batch}: at least 1")
    rng = random.Random(seed)
    model = NTupleModel(len(space))
    points = [tuple(rng.randrange(s) for s in sizes) for _ in range(batch)]
    seen: dict[tuple[int, ...], Candidate] = {}

    def values(p: tuple[int, ...]) -> dict[str, Any]:
        return {n: space[i][1][p[i]] for i, n in enumerate(names)}

    t = 0
    while t < evals:
        points = points[:evals - t]
        for p in points:
            if p not in seen:
                seen[p] = Candidate(values(p), candidate_spec(base, values(p)))
        got = ev.evaluate([("n", seen[p].spec, t + i) for i, p in enumerate(points)])
        for i, p in enumerate(points):
            res = got[("n", t + i)]
            seen[p].deals.append(res)
            model.add(p, fitness(res, by))
        x = points[0]
        pool: set[tuple[int, ...]] = set()
        for _ in range(neighbours * 4):
            if len(pool) >= neighbours:
                break
            y = list(x)
            flips = [i for i in range(len(sizes)) if sizes[i] > 1 and rng.random() < 1 / len(sizes)]
            if not flips:
                flips = [rng.randrange(len(sizes))]
            for i in flips:
                y[i] = rng.choice([v for v in range(sizes[i]) if v != x[i]] or [x[i]])
            pool.add(tuple(y))
        # the best by UCB is the next current point; a batch adds the runners-up
        points = sorted(sorted(pool), key=lambda y: (model.value(y), rng.random()), reverse=True)[:batch]
        done = t + len(got)
        if log and done // max(1, evals // 5) > t // max(1, evals // 5):
            log(f"ntbea {done}/{evals} deals")
        t = done
    best_x = max(seen, key=lambda p: (model.value(p, explore=False), seen[p].games))
    best = seen[best_x]
    v_deals = budget // dg - evals
    valid = Candidate(best.values, best.spec)
    got = ev.evaluate([("v", best.spec, d) for d in range(evals, evals + v_deals)])
    valid.deals = [got[("v", d)] for d in range(evals, evals + v_deals)]
    ranked = sorted(seen.items(), key=lambda kv: model.value(kv[0], explore=False), reverse=True)
    return {"method": "ntbea", "evaluations": evals, "candidates": len(seen), "sampled": False,
            "best": _summary(valid, dg), "validated": True,
            "table": [_summary(c, dg) | {"estimate": model.value(p, explore=False) * unit(by)} for p, c in ranked[:20]]}


def tune(params: list[str], against: str | None, budget: int, base: str = "ismcts:iterations=200",
         players: int = 2, seed: int = 0, method: str = "halving", workers: int = 1, scheduler: str | None = None,
         printing: str = "base", automa: str = "2", log: Log | None = None,
         progress: bool | None = False, by: str | None = None, batch: int = 1) -> dict[str, Any]:
    """Search the given parameter ranges for the settings that do best against `against` (in solo:
    against the Automa at level `automa`; then `against` must be None) by the objective `by`: "wins"
    (win share) or "margin" (mean VP over the best other seat or the Automa); None: margin in solo,
    where win rates saturate, else wins. `progress`: a bar of the games played out of the budget, as
    for a tournament."""
    by = by or ("margin" if players == 1 else "wins")
    if by not in OBJECTIVES:
        raise TuneError(f"unknown objective '{by}' ({' or '.join(OBJECTIVES)})")
    if not params:
        raise TuneError("nothing to tune: give at least one --param NAME=RANGE")
    space = [parse_range(p) for p in params]
    if len({n for n, _ in space}) != len(space):
        raise TuneError("a parameter is given twice in --param")
    settings = base_settings(base)
    for n, _ in space:
        settings.pop(n, None)
    if players == 1:
        if against:
            raise TuneError("a solo game's opponent is the Automa: no --against (see --automa-level)")
    else:
        if not against:
            raise TuneError("give the opponent: --against SPEC (e.g. --against greedy)")
        against = check_opponent(against)
    check_opponent(candidate_spec(settings, {n: v[0] for n, v in space}), "candidate")
    bar = progress_bar(budget, progress)
    ev = Evaluator(against, players, seed, printing, workers, scheduler, automa, bar)
    try:
        if method == "halving":
            if batch != 1:
                raise TuneError("--batch is NTBEA's: successive halving plays a whole round at once")
            out = successive_halving(space, settings, ev, budget, seed=seed, log=_beside(bar, log), by=by)
        elif method == "ntbea":
            out = ntbea(space, settings, ev, budget, seed=seed, log=_beside(bar, log), by=by, batch=batch)
        else:
            raise TuneError(f"unknown method '{method}' (halving or ntbea)")
    finally:
        ev.close()
        if bar is not None:
            bar.close()
    out.update(by=by, against=against or f"the Automa (level {ev.automa})", base=base, players=players, seed=seed,
               budget=budget, games=ev.games,
               space={n: v for n, v in space}, baseline=1.0 / players if players > 1 else None)
    return out


def _beside(bar: Any, log: Log | None) -> Log | None:
    """`log` that writes above the progress bar instead of through it."""
    if bar is None or log is None or bar.disable:
        return log
    return lambda m: bar.write(m, file=sys.stderr)


# ---------------------------------------------------------------------------------- SPRT
def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10 ** (-elo / 400.0))


def score_to_elo(s: float) -> float:
    """The Elo difference that predicts score s (infinite at 0 and 1)."""
    if s <= 0:
        return -math.inf
    if s >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0


def sprt_llr(xs: list[float], elo0: float, elo1: float) -> float:
    """Generalised SPRT log-likelihood ratio on per-deal scores in [0, 1] (normal approximation):
    N (s1 - s0) (2 m - s0 - s1) / (2 v), with m and v the mean and variance of the deal scores and
    s0, s1 the scores the two Elo hypotheses predict."""
    n = len(xs)
    if n < 2:
        return 0.0
    m = sum(xs) / n
    v = sum((x - m) ** 2 for x in xs) / n
    v = max(v, 1e-3)                    # a floor: a few identical deals must not decide at once
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)


def sprt(a: str, b: str, budget: int, players: int = 2, seed: int = 0, elo0: float = 0.0, elo1: float = 20.0,
         alpha: float = 0.05, beta: float = 0.05, min_deals: int = 8, workers: int = 1,
         scheduler: str | None = None, printing: str = "base", automa: str = "2",
         log: Log | None = None, progress: bool | None = False) -> dict[str, Any]:
    """Sequential test of B against A head to head: H0 B is `elo0` stronger than A (or less),
    H1 B is `elo1` stronger. Deals are judged in plan order after each one finishes; the test stops at
    the first crossing of log(beta/(1-alpha)) or log((1-beta)/alpha), or when the budget ends."""
    a, b = check_opponent(a, "--sprt A"), check_opponent(b, "--sprt B")
    if not elo1 > elo0:
        raise TuneError(f"--elo1 ({elo1}) must be above --elo0 ({elo0})")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise TuneError("--alpha and --beta must be between 0 and 0.5")
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    agents = [("A", a), ("B", b)]
    lineup = ("B",) + ("A",) * (players - 1) if players > 1 else None
    names = ["A", "B"]
    level = str(automa).upper() if players == 1 else None
    tid = tournament_id(agents, players, seed, printing, lineup, level)
    per_deal = len(deal_lineups(names, players, 0, lineup))
    max_deals = budget // per_deal
    if max_deals < min_deals:
        raise TuneError(f"--budget {budget} is too small for the test: at least {min_deals * per_deal} games")
    specs = dict(agents)

    def games() -> Iterator[dict[str, Any]]:
        for d in range(max_deals):
            s = deal_seed(seed, d)
            for i, seating in enumerate(deal_lineups(names, players, d, lineup)):
                yield {"tournament": tid, "key": f"d{d}.g{i}", "deal": d, "game": i, "seed": s,
                       "players": players, "printing": printing, "agents": list(seating),
                       "specs": [specs[n] for n in seating], "automa": level}

    runner = make_runner(workers, scheduler)
    bar = progress_bar(max_deals * per_deal, progress)
    by_deal: dict[int, list[dict[str, Any]]] = {}
    xs: list[float] = []
    margins: list[float] = []
    decision, llr, nxt = "inconclusive", 0.0, 0
    stream = runner.run(games())
    try:
        for rec in stream:
            if rec.get("error"):
                raise TuneError(f"game {rec['key']} (seed {rec['seed']}) raised: {rec['error']}")
            by_deal.setdefault(rec["deal"], []).append(rec)
            if bar is not None:
                bar.update(1)
            while len(by_deal.get(nxt, ())) == per_deal:
                x, mg = _b_vs_a(by_deal.pop(nxt))
                xs.append(x)
                margins.append(mg)
                nxt += 1
                llr = sprt_llr(xs, elo0, elo1)
                if len(xs) >= min_deals and (llr >= upper or llr <= lower):
                    decision = "H1" if llr >= upper else "H0"
                    break
            if decision != "inconclusive":
                break
    finally:
        stream.close()
        runner.close()
        if bar is not None:
            bar.close()
    n = len(xs)
    m, interval, _ = mean_ci(xs)
    ci = None if interval is None else [max(0.0, interval[0]), min(1.0, interval[1])]
    mm = sum(margins) / n if n else None
    text = {"H1": f"B is stronger than A (accepted H1: B - A >= {elo1:g} Elo)",
            "H0": f"B is not stronger than A (accepted H0: B - A <= {elo0:g} Elo)",
            "inconclusive": "no decision within the budget"}[decision]
    return {"method": "sprt", "a": a, "b": b, "players": players, "seed": seed, "decision": decision,
            "conclusion": text, "llr": llr, "bounds": [lower, upper], "elo0": elo0, "elo1": elo1,
            "alpha": alpha, "beta": beta, "deals": n, "games": n * per_deal, "budget": budget,
            "b_score": m, "b_score_ci": ci, "elo": None if m is None else score_to_elo(m),
            "elo_ci": None if ci is None else [score_to_elo(ci[0]), score_to_elo(ci[1])],
            "b_margin": mm}


def _b_vs_a(records: list[dict[str, Any]]) -> tuple[float, float]:
    """B's share of its comparisons with A in one deal (1 ahead, 1/2 level) and its mean margin."""
    sh, mg, n = 0.0, 0.0, 0
    for gs in comparison_groups(records).values():
        for g in gs:
            sa = [s for a, s in g if a == "A"]
            sb = [s for a, s in g if a == "B"]
            for y in sb:
                for x in sa:
                    sh += 1.0 if y > x else 0.5 if y == x else 0.0
                    mg += y - x
                    n += 1
    return (sh / n, mg / n) if n else (0.5, 0.0)
