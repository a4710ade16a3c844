"""The statistics of a tournament's games (docs/tournaments.md): win rates with Wilson intervals over
clustered games, mean scores and paired margins with normal intervals over deals, and
Plackett-Luce ratings (choix) with intervals from a percentile bootstrap over deals (scipy).

A deal is the independent unit: its games share one seed, so their outcomes are correlated."""
from __future__ import annotations

import itertools
import math
from typing import Any, Sequence

import choix
import numpy as np
from scipy import stats

from advisor.tournaments.records import SCORE_PARTS

Z95 = float(stats.norm.ppf(0.975))          # two-sided 95% normal quantile
Record = dict[str, Any]


def win_shares(rec: Record) -> list[float]:
    """Per seat: 1 for the sole winner, 1/k for each of k tied winners, else 0."""
    w = rec["winners"]
    return [1.0 / len(w) if i in w else 0.0 for i in range(len(rec["seats"]))]


# ---------------------------------------------------------------------------------- intervals
def ratio_ci(ys: Sequence[float], ns: Sequence[float]) -> tuple[float | None, float | None]:
    """Ratio estimate sum(y)/sum(n) over clusters with its cluster-robust standard error (no
    library offers this small estimator without a model-fitting package around it)."""
    Y, N, D = sum(ys), sum(ns), len(ns)
    if N == 0:
        return None, None
    r = Y / N
    if D < 2:
        return r, None
    var = D / (D - 1) * sum((y - r * n) ** 2 for y, n in zip(ys, ns, strict=True)) / N ** 2
    return r, math.sqrt(var)


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion p over n trials. scipy computes the same interval
    (`binomtest(k, n).proportion_ci(method="wilson")`, pinned equal by a test) but only for whole
    numbers of successes and trials, and a clustered win rate has a fractional effective n."""
    if n <= 0:
        return 0.0, 1.0
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / d
    return (0.0 if p <= 0 else max(0.0, c - h)), (1.0 if p >= 1 else min(1.0, c + h))


def proportion_ci(ys: Sequence[float], ns: Sequence[float]) -> tuple[float | None, list[float] | None]:
    """A win rate over clustered games: the Wilson interval at the effective sample size that the
    cluster-robust variance implies (never more than the number of games)."""
    r, se = ratio_ci(ys, ns)
    if r is None:
        return None, None
    N = sum(ns)
    if se is None:
        return r, None
    n_eff = N if se == 0 or r in (0.0, 1.0) else min(N, r * (1 - r) / se ** 2)
    return r, list(wilson(r, n_eff))


def mean_ci(values: Sequence[float]) -> tuple[float | None, list[float] | None, float | None]:
    """Mean of independent values (one per deal) with a normal 95% interval and its standard error."""
    n = len(values)
    if n == 0:
        return None, None, None
    m = float(np.mean(values))
    if n < 2:
        return m, None, None
    se = float(stats.sem(values))
    if se == 0:
        return m, [m, m], se
    lo, hi = stats.norm.interval(0.95, loc=m, scale=se)
    return m, [float(lo), float(hi)], se


# ---------------------------------------------------------------------------------- pairs
def comparison_groups(records: list[dict]) -> dict[int, list[list[tuple[str, float]]]]:
    """deal -> groups of (agent, score) that played the same cards against each other: each game,
    or, in solo tournaments, the deal's games side by side (the same seed against the Automa)."""
    deals: dict[int, list] = {}
    for r in records:
        seats = [(s["agent"], float(sc)) for s, sc in zip(r["seats"], r["scores"], strict=True)]
        deals.setdefault(r["deal"], []).append(seats)
    if records and records[0]["players"] == 1:
        return {d: [[s for g in gs for s in g]] for d, gs in deals.items()}
    return deals


def pair_stats(records: list[dict], a: str, b: str) -> dict:
    """A's margin over B (mean score of A's seats minus B's) and A's share of the A-B comparisons it
    won, from the games where both played: averaged within each deal, then over deals (the paired
    estimate; its interval comes from the spread between deals)."""
    margins, ahead_sum, ahead_n, groups = [], [], [], 0
    for d, gs in sorted(comparison_groups(records).items()):
        dm, da = [], []
        for g in gs:
            sa = [s for n, s in g if n == a]
            sb = [s for n, s in g if n == b]
            if not sa or not sb:
                continue
            groups += 1
            dm.append(sum(sa) / len(sa) - sum(sb) / len(sb))
            da.append(sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in sa for y in sb) / (len(sa) * len(sb)))
        if dm:
            margins.append(sum(dm) / len(dm))
            ahead_sum.append(sum(da))
            ahead_n.append(len(da))
    m, mci, _ = mean_ci(margins)
    h, hci = proportion_ci(ahead_sum, ahead_n)
    return {"a": a, "b": b, "games": groups, "deals": len(margins), "margin": m, "margin_ci": mci,
            "a_ahead": h, "a_ahead_ci": hci}


def _rankings(records: list[Record], index: dict[str, int]) -> list[tuple[int, float, list[int]]]:
    """(deal, weight, [agent index best first]) for every ordering of every comparison group; tied
    scores count as every order of the tied agents, equally weighted."""
    out: list[tuple[int, float, list[int]]] = []
    for d, gs in comparison_groups(records).items():
        for g in gs:
            if len(g) < 2:
                continue
            by_score: dict[float, list[int]] = {}
            for n, s in g:
                by_score.setdefault(s, []).append(index[n])
            blocks = [by_score[s] for s in sorted(by_score, reverse=True)]
            options = [list(itertools.permutations(b)) if len(b) <= 5 else [tuple(sorted(b))] for b in blocks]
            total = math.prod(len(o) for o in options)
            for combo in itertools.product(*options):
                out.append((d, 1.0 / total, [i for block in combo for i in block]))
    return out


def plackett_luce(records: list[Record], names: list[str], prior: float = 1.0, bootstrap: int = 200,
                  seed: int = 0) -> dict[str, Any]:
    """Plackett-Luce strengths from the finishing orders (Bradley-Terry for two seats), the maximum
    likelihood fit of choix's I-LSR, on the Elo scale (400 log10 of the strength ratio), centred on
    the mean of the agents that played. `prior`: each agent also draws one win and one loss against
    a virtual reference, which keeps ratings finite when an agent won or lost every game. Intervals:
    percentiles of refits on deals resampled with replacement (scipy's bootstrap)."""
    index = {n: i for i, n in enumerate(names)}
    ranks = _rankings(records, index)
    played = sorted({i for _, _, order in ranks for i in order})
    result: dict[str, Any] = {
        "model": "plackett-luce" if any(len(o) > 2 for _, _, o in ranks) else "bradley-terry",
        "scale": "elo", "prior": prior, "bootstrap": bootstrap,
        "ratings": {n: None for n in names}, "ci": {n: None for n in names},
        "unbounded": {n: perfect_record(ranks, index[n]) for n in names}}
    if len(played) < 2:
        return result
    item = {agent: k for k, agent in enumerate(played)}        # choix's items; the reference last
    ref = len(played)
    n_items = ref + 1 if prior > 0 else ref
    deals = sorted({d for d, _, _ in ranks})
    dpos = {d: i for i, d in enumerate(deals)}
    if result["model"] == "bradley-terry":
        # pairs only: a matrix of weighted wins holds the data whole, and choix fits it fast
        wins = np.zeros((len(deals), n_items, n_items))
        for d, w, (first, second) in ranks:
            wins[dpos[d], item[first], item[second]] += w
        virtual = np.zeros((n_items, n_items))
        if prior > 0:
            virtual[:ref, ref] = virtual[ref, :ref] = prior

        def ilsr(counts: np.ndarray, start: np.ndarray | None) -> np.ndarray:
            return choix.ilsr_pairwise_dense(virtual + np.tensordot(counts, wins, 1), initial_params=start,
                                             max_iter=1000, tol=1e-12)
    else:
        # choix takes unweighted rankings: a tie's orders (weight 1/k! each) and the prior's virtual
        # games become whole copies, every weight scaled by one factor (which leaves the fit unchanged)
        totals = [round(1 / w) for _, w, _ in ranks]
        scale = math.lcm(*totals)
        if abs(scale * prior - round(scale * prior)) > 1e-9:
            raise ValueError(f"prior {prior}: a whole number of virtual games is needed")
        by_deal: list[list[tuple[int, ...]]] = [[] for _ in deals]
        for (d, _, order), total in zip(ranks, totals, strict=True):
            by_deal[dpos[d]] += [tuple(item[i] for i in order)] * (scale // total)
        copies = [pair for k in range(ref) for pair in ((k, ref), (ref, k))] * round(scale * prior)

        def ilsr(counts: np.ndarray, start: np.ndarray | None) -> np.ndarray:
            data = copies + [r for d, c in enumerate(counts) for r in by_deal[d] * int(c)]
            return choix.ilsr_rankings(n_items, data, initial_params=start, max_iter=1000, tol=1e-9)

    def fit(counts: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """Ratings (Elo, centred) of the played agents with each deal counted `counts` times."""
        try:
            theta = ilsr(counts, start)
        except RuntimeError:            # no maximum (an agent won or lost every game, no prior)
            return np.full(ref, np.nan)
        r = 400 * np.asarray(theta[:ref]) / math.log(10)
        return r - np.mean(r)

    every = np.ones(len(deals))
    r0 = fit(every)
    for k, i in enumerate(played):
        result["ratings"][names[i]] = float(r0[k]) if np.isfinite(r0[k]) else None
    if bootstrap > 0 and len(deals) >= 2:
        start = np.append(r0 * math.log(10) / 400, 0.0) if prior > 0 else r0 * math.log(10) / 400

        def refit(sample: np.ndarray) -> np.ndarray:
            return fit(np.bincount(sample, minlength=len(deals)), start if np.all(np.isfinite(start)) else None)

        res = stats.bootstrap((np.arange(len(deals)),), refit, n_resamples=bootstrap, vectorized=False,
                              method="percentile", random_state=np.random.default_rng(seed))
        lo, hi = res.confidence_interval
        for k, i in enumerate(played):
            # a perfect record leaves the rating to the prior, and every resample repeats it: that
            # interval says nothing, so none is given (nor any of zero width)
            if (np.isfinite(lo[k]) and np.isfinite(hi[k]) and hi[k] - lo[k] > 1e-9
                    and result["unbounded"][names[i]] is None):
                result["ci"][names[i]] = [float(lo[k]), float(hi[k])]
    return result


def perfect_record(ranks: list[tuple[int, float, list[int]]], agent: int) -> str | None:
    """'above' when the agent finished alone first in every comparison it took part in (its rating
    has no upper bound: only the prior keeps it finite), 'below' when alone last in every one, else
    None. Ties are not perfect (every order of tied agents is among the rankings)."""
    mine = [order for _, _, order in ranks if agent in order]
    if not mine:
        return None
    if all(order[0] == agent for order in mine):
        return "above"
    if all(order[-1] == agent for order in mine):
        return "below"
    return None


# ---------------------------------------------------------------------------------- summaries
def score_breakdown(ok: list[dict], agents: list[tuple[str, str]], players: int) -> list[dict]:
    """Per agent: its mean VP by scoring part; in solo games also the Automa's in its games, and its
    margin over her (a mean over deals with a 95% interval)."""
    rows = []
    for name, _ in agents:
        mine = [(r, i) for r in ok for i, s in enumerate(r["seats"]) if s["agent"] == name and r.get("breakdown")]
        if not mine:
            continue
        row: dict[str, Any] = {"agent": name, "seats": len(mine),
               "parts": {p: sum(r["breakdown"][i].get(p, 0) for r, i in mine) / len(mine) for p in SCORE_PARTS}}
        row["parts"]["total"] = sum(r["scores"][i] for r, i in mine) / len(mine)
        if players == 1:
            hers = [r["automa"]["breakdown"] for r, _ in mine]
            row["automa_parts"] = {p: sum(b.get(p, 0) for b in hers) / len(hers) for p in SCORE_PARTS + ("total",)}
            by_deal: dict[int, list[float]] = {}
            for r, i in mine:
                by_deal.setdefault(r["deal"], []).append(r["scores"][i] - r["automa"]["score"])
            m, ci, _ = mean_ci([sum(v) / len(v) for v in by_deal.values()])
            row["margin"], row["margin_ci"] = m, ci
            objectives = objectives_against_her([(r["round_objectives"][i], r["automa"]["round_objectives"])
                                                 for r, i in mine if "round_objectives" in r])
            if objectives:
                row["objectives"] = objectives
        rows.append(row)
    return rows


def objectives_against_her(games: list[tuple[dict, dict]]) -> dict:
    """Round objectives of solo games, ours against hers: how many rounds we took more VP from
    than she did (won), as many (tied; a tie ranks both first) or fewer (lost), and of the lost
    ones how many by one and by two items. `games`: (our objectives, hers) as recorded."""
    out = {"rounds": 0, "won": 0, "tied": 0, "lost": 0, "lost_by_1": 0, "lost_by_2": 0}
    for mine, hers in games:
        for r in range(len(mine["vp"])):
            out["rounds"] += 1
            ours, theirs = mine["vp"][r], hers["vp"][r]
            kind = "won" if ours > theirs else "lost" if ours < theirs else "tied"
            out[kind] += 1
            short = hers["count"][r] - mine["count"][r]
            if kind == "lost" and short in (1, 2):
                out[f"lost_by_{short}"] += 1
    return out if out["rounds"] else {}


def summarize(ok: list[dict], errors: list[dict], agents: list[tuple[str, str]], players: int,
              automa: str | None, bootstrap: int = 200) -> dict:
    """Per agent (name, spec) its win rate, mean score, rating and time; every pair's paired margin;
    the seats' win rates; the Automa's mean score (solo); the games that raised. `ok`: finished
    records, compared within a game, or in solo games side by side on one deal. The bootstrap is
    seeded from the games' own deal seeds, so every report of the same games (the tournament's
    own, `advisor report` of its file) gives the same intervals."""
    ok = sorted(ok, key=lambda r: (r["deal"], r["game"]))
    seed = min((int(r["seed"]) for r in ok), default=0)
    names = [n for n, _ in agents]
    rows = []
    for n, spec in agents:
        wins_d: dict[int, float] = {}
        seats_d: dict[int, int] = {}
        score_d: dict[int, float] = {}
        decisions = think = 0.0
        games = 0
        for r in ok:
            mine = [i for i, s in enumerate(r["seats"]) if s["agent"] == n]
            if not mine:
                continue
            games += 1
            sh = win_shares(r)
            d = r["deal"]
            wins_d[d] = wins_d.get(d, 0.0) + sum(sh[i] for i in mine)
            seats_d[d] = seats_d.get(d, 0) + len(mine)
            score_d[d] = score_d.get(d, 0.0) + sum(r["scores"][i] for i in mine)
            decisions += sum(r["decisions"][i] for i in mine)
            think += sum(r["think_seconds"][i] for i in mine)
        ds = sorted(seats_d)
        wr, wci = proportion_ci([wins_d[d] for d in ds], [seats_d[d] for d in ds])
        ms, mse = ratio_ci([score_d[d] for d in ds], [seats_d[d] for d in ds])
        rows.append({
            "name": n, "spec": spec, "games": games, "seats": sum(seats_d.values()), "deals": len(ds),
            "win_rate": wr, "win_rate_ci": wci, "mean_score": ms,
            "mean_score_ci": None if ms is None or mse is None else [ms - Z95 * mse, ms + Z95 * mse],
            "decisions": int(decisions),
            "seconds_per_decision": think / decisions if decisions else None})
    pairs = [pair_stats(ok, a, b) for a, b in itertools.combinations(names, 2)]
    rating = plackett_luce(ok, names, bootstrap=bootstrap, seed=seed)
    for a in rows:
        a["rating"] = rating["ratings"][a["name"]]
        a["rating_ci"] = rating["ci"][a["name"]]
        a["rating_unbounded"] = rating["unbounded"][a["name"]]
    seat_wins = [[0.0, 0] for _ in range(players)]
    for r in ok:
        for i, s in enumerate(win_shares(r)):
            seat_wins[i][0] += s
            seat_wins[i][1] += 1
    her = None
    if players == 1:
        a_scores = [r["automa"]["score"] for r in ok if r.get("automa", {}).get("score") is not None]
        her = {"level": automa, "mean_score": sum(a_scores) / len(a_scores) if a_scores else None}
    return {
        "automa": her, "agents": rows, "pairs": pairs,
        "rating": {k: rating[k] for k in ("model", "scale", "prior", "bootstrap")},
        "seat_win_rates": [w / n if n else None for w, n in seat_wins],
        "error_games": [{"key": r["key"], "seed": r["seed"], "agents": [s["agent"] for s in r["seats"]],
                         "error": r["error"]} for r in sorted(errors, key=lambda r: (r["deal"], r["game"]))],
        "breakdown": score_breakdown(ok, agents, players),
    }


