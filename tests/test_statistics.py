"""The report's statistics on fixtures with known answers: win rates (Wilson over clustered games),
means and paired margins, Plackett-Luce ratings (choix) and their bootstrap (scipy), pinned to the
figures of the hand-written code they replaced."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from advisor.tournaments import plan as P
from advisor.tournaments import records as Rec
from advisor.tournaments import report as Rep
from advisor.tournaments import statistics as S


def _fixture_records(plan, table):
    """Records for a planned 2-agent plan; table: per game in plan order, {agent: score}."""
    recs = {}
    for g, scores in zip(plan.games, table, strict=True):
        s = [scores[a] for a in g.agents]
        top = max(s)
        recs[g.key] = {**Rec.base_record(g.to_dict()), "scores": s, "winners": [i for i, x in enumerate(s) if x == top],
                       "decisions": [10] * len(s), "think_seconds": [0.1] * len(s), "error": None}
    return recs


FIXTURE = [{"A": 60, "B": 50}, {"A": 70, "B": 40},      # deal 0: A wins both, margins +10 +30
           {"A": 55, "B": 55}, {"A": 40, "B": 50},      # deal 1: a tie (1/2 each), B wins
           {"A": 80, "B": 60}, {"A": 62, "B": 61},      # deal 2: A wins both
           {"A": 45, "B": 65}, {"A": 66, "B": 50}]      # deal 3: one each


def test_report_statistics_known_answers():
    plan = P.plan_tournament([("A", "random"), ("B", "greedy")], 2, 8, seed=0)
    rep = Rep.tournament_report(plan, _fixture_records(plan, FIXTURE), bootstrap=50)
    a, b = rep["agents"]
    # win rate 5.5/8; cluster-robust variance over deals (wins 2, .5, 2, 1 of 2 each) = 0.1875^2,
    # effective n = p(1-p)/se^2 = 6.1111, Wilson at that n
    assert a["win_rate"] == pytest.approx(0.6875) and b["win_rate"] == pytest.approx(0.3125)
    n_eff, z, p = 0.6875 * 0.3125 / 0.1875 ** 2, S.Z95, 0.6875
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff ** 2)) / (1 + z * z / n_eff)
    assert a["win_rate_ci"] == pytest.approx([centre - half, centre + half])
    assert a["win_rate_ci"] == pytest.approx([0.3182, 0.9121], abs=1e-4)
    # mean score 478/8; per-deal sums 130 95 142 111 -> se sqrt(4/3 * 1289 / 64)
    se = math.sqrt(4 / 3 * 1289 / 64)
    assert a["mean_score"] == pytest.approx(59.75)
    assert a["mean_score_ci"] == pytest.approx([59.75 - z * se, 59.75 + z * se])
    # paired margin: deal means +20, -5, +10.5, -2
    pair = rep["pairs"][0]
    sd = math.sqrt(sum((x - 5.875) ** 2 for x in (20, -5, 10.5, -2)) / 3)
    assert (pair["a"], pair["b"], pair["games"], pair["deals"]) == ("A", "B", 8, 4)
    assert pair["margin"] == pytest.approx(5.875)
    assert pair["margin_ci"] == pytest.approx([5.875 - z * sd / 2, 5.875 + z * sd / 2])
    assert pair["a_ahead"] == pytest.approx(0.6875)
    assert rep["seat_win_rates"] == pytest.approx([4.5 / 8, 3.5 / 8])
    assert a["seconds_per_decision"] == pytest.approx(0.01) and a["decisions"] == 80
    # Bradley-Terry without the prior: strength ratio = wins ratio 5.5 : 2.5
    bt = S.plackett_luce(list(_fixture_records(plan, FIXTURE).values()), ["A", "B"], prior=0, bootstrap=0)
    assert bt["model"] == "bradley-terry"
    assert bt["ratings"]["A"] == pytest.approx(200 * math.log10(2.2), abs=1e-6)
    assert bt["ratings"]["B"] == pytest.approx(-200 * math.log10(2.2), abs=1e-6)
    assert a["rating"] > 0 > b["rating"] and a["rating_ci"][0] <= a["rating"] <= a["rating_ci"][1]


def test_plackett_luce_symmetric_and_stationary():
    names = ["A", "B", "C"]
    plan = P.plan_tournament([(n, "random") for n in names], 3, 18, seed=0)
    # every finishing order equally often: equal ratings
    orders = list(itertools.permutations(names))
    table = [{n: 90 - 10 * orders[i % 6].index(n) for n in names} for i in range(18)]
    recs = _fixture_records(plan, table)
    pl = S.plackett_luce(list(recs.values()), names, prior=0, bootstrap=0)
    assert pl["model"] == "plackett-luce"
    assert all(abs(pl["ratings"][n]) < 1e-6 for n in names)
    # an uneven record: the fitted strengths solve the likelihood equations
    rng = np.random.default_rng(1)
    table = [{"A": 50 + rng.integers(0, 30), "B": 45 + rng.integers(0, 30), "C": 40 + rng.integers(0, 30)}
             for _ in range(18)]
    recs = list(_fixture_records(plan, table).values())
    pl = S.plackett_luce(recs, names, prior=0, bootstrap=0)
    gamma = {n: 10 ** (pl["ratings"][n] / 400) for n in names}
    wins = dict.fromkeys(names, 0.0)
    expected = dict.fromkeys(names, 0.0)
    for _, w, order in S._rankings(recs, {n: i for i, n in enumerate(names)}):
        order = [names[i] for i in order]
        for s in range(len(order) - 1):
            wins[order[s]] += w
            tot = sum(gamma[x] for x in order[s:])
            for x in order[s:]:
                expected[x] += w * gamma[x] / tot
    assert all(wins[n] == pytest.approx(expected[n], rel=1e-6) for n in names)


def test_wilson_and_intervals_basics():
    assert S.wilson(0.5, 100) == pytest.approx([0.4038, 0.5962], abs=1e-4)
    assert S.wilson(1.0, 10)[1] == 1.0 and S.wilson(1.0, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    assert S.proportion_ci([2, 2, 2], [2, 2, 2])[1][0] == pytest.approx(S.wilson(1.0, 6)[0])
    assert S.mean_ci([1.0]) == (1.0, None, None)


def test_round_objectives_against_her_are_told_apart():
    """Won, tied (both first) and lost by the VP each rank took; the lost ones by how many items."""
    mine = {"count": [3, 2, 1, 0], "vp": [4, 5, 3, 0]}
    hers = {"count": [2, 2, 2, 4], "vp": [1, 5, 6, 7]}
    assert S.objectives_against_her([(mine, hers)]) == {
        "rounds": 4, "won": 1, "tied": 1, "lost": 2, "lost_by_1": 1, "lost_by_2": 0}
    assert S.objectives_against_her([]) == {}


# ---------------------------------------------------------------------------------- the libraries
def test_ratings_and_intervals_equal_the_hand_written_fit():
    """choix's I-LSR and scipy's percentile bootstrap give the figures of the Newton fit and the
    bootstrap loop they replaced (values computed by that code on these fixtures)."""
    plan = P.plan_tournament([("A", "random"), ("B", "greedy")], 2, 8, seed=0)
    bt = S.plackett_luce(list(_fixture_records(plan, FIXTURE).values()), ["A", "B"], bootstrap=50, seed=0)
    assert bt["ratings"] == pytest.approx({"A": 59.99515616790721, "B": -59.99515616790721}, abs=1e-6)
    assert bt["ci"]["A"] == pytest.approx([-39.20205197300072, 203.95302126432188], abs=1e-6)
    assert bt["ci"]["B"] == pytest.approx([-203.953021264322, 39.20205197300072], abs=1e-6)
    names = ["A", "B", "C"]
    plan = P.plan_tournament([(n, "random") for n in names], 3, 18, seed=0)
    rng = np.random.default_rng(7)
    table = [{"A": 50 + int(rng.integers(0, 8)), "B": 48 + int(rng.integers(0, 8)), "C": 46 + int(rng.integers(0, 8))}
             for _ in range(18)]
    recs = list(_fixture_records(plan, table).values())
    assert sum(w < 1 for _, w, _ in S._rankings(recs, {n: i for i, n in enumerate(names)})) == 4   # ties
    pl = S.plackett_luce(recs, names, bootstrap=50, seed=3)
    assert pl["model"] == "plackett-luce"
    assert pl["ratings"] == pytest.approx({"A": 237.99714125170215, "B": -67.12949173486574,
                                           "C": -170.8676495168364}, abs=1e-6)
    assert pl["ci"]["A"] == pytest.approx([163.3948318642364, 379.50698441485616], abs=1e-6)
    assert pl["ci"]["B"] == pytest.approx([-181.96240806545828, 18.698242955590526], abs=1e-6)
    assert pl["ci"]["C"] == pytest.approx([-312.83096151987036, -58.405853135529696], abs=1e-6)


def test_wilson_is_scipys_wilson_interval():
    """The hand-written Wilson interval (kept: it takes a fractional effective n) is scipy's."""
    for k, n in [(0, 10), (3, 10), (10, 10), (55, 100), (1, 1), (137, 400)]:
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert S.wilson(k / n, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert S.Z95 == pytest.approx(1.959963984540054, abs=1e-15)


def test_mean_interval_is_the_normal_interval_over_deals():
    values = [20.0, -5.0, 10.5, -2.0]
    m, ci, se = S.mean_ci(values)
    sd = math.sqrt(sum((x - 5.875) ** 2 for x in values) / 3)
    assert (m, se) == pytest.approx((5.875, sd / 2))
    assert ci == pytest.approx([5.875 - 1.959963984540054 * sd / 2, 5.875 + 1.959963984540054 * sd / 2])
    assert S.mean_ci([3.0, 3.0]) == (3.0, [3.0, 3.0], 0.0)
    assert S.mean_ci([]) == (None, None, None)


def test_a_perfect_record_has_an_unbounded_rating_never_a_point():
    """Issue 46: when A wins every game every resample repeats it, and the interval came out as the
    point `+176 [+176, +176]`. Only the prior keeps such a rating finite: it is reported unbounded
    on that side (rating_unbounded), with no interval, in JSON and in the text."""
    plan = P.plan_tournament([("A", "random"), ("B", "greedy")], 2, 8, seed=0)
    table = [{"A": 60 + k, "B": 50} for k in range(8)]
    rep = Rep.tournament_report(plan, _fixture_records(plan, table), bootstrap=50)
    a, b = rep["agents"]
    assert a["rating"] > 0 > b["rating"]
    assert (a["rating_unbounded"], b["rating_unbounded"]) == ("above", "below")
    assert a["rating_ci"] is None and b["rating_ci"] is None
    text = Rep.report_text(rep)
    assert f"{a['rating']:+.0f} [unbounded]" in text and "A: won every game" in text and "B: lost every game" in text
    # a mixed record keeps its interval, never of zero width
    rep = Rep.tournament_report(plan, _fixture_records(plan, FIXTURE), bootstrap=50)
    for x in rep["agents"]:
        assert x["rating_unbounded"] is None and x["rating_ci"][0] < x["rating"] < x["rating_ci"][1]
