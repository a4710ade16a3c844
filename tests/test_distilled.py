"""The distilled playouts (issue 65): the net agent's choices as recorded are the ones it made, the
factors steer the weighted policy as fitted (a round's own, else every round's, else none), the fit
recovers a known policy, bad files are refused, and searches with them replay and never read hidden
cards."""
import numpy as np
import pytest

from advisor import _core
from advisor.search import analyse, data
from advisor.search.agents import make_agent, play_game
from helpers import bench_module, greedy_midgame, swap_hidden

MOVE = 0                                        # the prompt of a move decision (P_MOVE)
PASS, ENTICE, EXPLORE = 1 << 20, (2 << 20) | 5, (4 << 20) | 1
WEIGHTS = {PASS: 1, ENTICE: 40, EXPLORE: 16}    # the weighted policy's


@pytest.fixture
def factors():
    """Install (prompt, round, option, factor) rows; the shipped factors again afterwards."""
    def install(rows):
        p, r, a, f = zip(*rows, strict=True)
        _core.install_distilled(_core.distilled_keys(p, r, a), f)
    yield install
    data.use_distilled()


@pytest.fixture(scope="module")
def fit():
    return bench_module("fit_distilled")


def test_the_recorded_choices_replay_the_net_agents_game():
    data.use_judge()
    for players, seed in ((2, 5), (3, 6)):
        r = _core.judged_game(players, seed, ["net"] * players, samples=2, choices=True)
        prompts, rounds, offsets, opts, chosen = r["choices"]
        assert len(prompts) > 100 and offsets[-1] == len(opts) and (chosen < np.diff(offsets)).all()
        g, i = _core.Game.new(players, seed), 0
        while not g.is_terminal():
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply(legal[0])
                continue
            assert legal == opts[offsets[i]:offsets[i + 1]].tolist()
            assert (g.decision, g.round) == (_core.PROMPTS[prompts[i]], rounds[i] + 1)
            g.apply(legal[chosen[i]])
            i += 1
        assert i == len(prompts) and g.scores() == r["scores"]


def _shares(prompt, rnd, opts, draws=6000):
    picks = [_core.distilled_choice(prompt, rnd, opts, seed) for seed in range(draws)]
    return {a: picks.count(a) / draws for a in opts}


def test_unseen_options_keep_the_weighted_policys_weights(factors):
    factors([(MOVE, 4, (2 << 20) | 9, 50.0)])           # another option only
    shares = _shares(MOVE, 1, list(WEIGHTS))
    for a, w in WEIGHTS.items():
        assert shares[a] == pytest.approx(w / sum(WEIGHTS.values()), abs=0.02)


def test_a_rounds_factor_comes_before_every_rounds(factors):
    factors([(MOVE, 4, PASS, 400.0), (MOVE, 0, EXPLORE, 1e4)])
    opts = list(WEIGHTS)
    assert _shares(MOVE, 0, opts, 2000)[EXPLORE] > 0.98     # round 0's own factor
    late = _shares(MOVE, 2, opts)                           # every round's: pass 400 x 1 against 40 + 16
    assert late[PASS] == pytest.approx(400 / 456, abs=0.02)
    assert _shares(3, 2, opts, 2000)[PASS] < 0.05           # another prompt: its own factors (none)


def test_every_factor_is_found_among_many(factors):
    """A factor is found among hundreds at one kind of decision and round, and no other's is taken."""
    options = [(3 << 20) | i for i in range(300)]
    for favourite in (options[0], options[150], options[299]):
        factors([(MOVE, 1, a, 1e7 if a == favourite else 1.0) for a in options] + [(MOVE, 2, PASS, 1e7)])
        picks = {_core.distilled_choice(MOVE, 1, [options[7], favourite, PASS, EXPLORE], seed=s) for s in range(20)}
        assert picks == {favourite}
        assert {_core.distilled_choice(MOVE, 2, [EXPLORE, PASS], seed=s) for s in range(20)} == {PASS}


def test_bad_factors_are_refused(factors, tmp_path):
    keys = _core.distilled_keys([MOVE, MOVE], [0, 1], [PASS, PASS])
    for k, f, what in ((keys, [1.0], "one length"), (keys, [1.0, 0.0], "positive"),
                       (np.array([keys[0], keys[0]]), [1.0, 2.0], "distinct"),
                       (np.array([0, keys[0]], dtype=np.uint64), [1.0, 2.0], "nonzero")):
        with pytest.raises(ValueError, match=what):
            _core.install_distilled(k, f)
    with pytest.raises(data.SearchDataError, match="nothing.npz: no such file"):
        data.use_distilled(tmp_path / "nothing.npz")
    np.savez(tmp_path / "other.npz", keys=keys)
    with pytest.raises(data.SearchDataError, match="other.npz: not distilled playouts"):
        data.use_distilled(tmp_path / "other.npz")
    np.savez(tmp_path / "bad.npz", keys=keys, factors=[1.0, -1.0])
    with pytest.raises(data.SearchDataError, match="bad.npz: the factors are not all positive"):
        data.use_distilled(tmp_path / "bad.npz")


def test_the_loss_gradient_is_the_losss(fit):
    games = [_synthetic_game(np.random.default_rng(1), 300, {PASS: 0.5, ENTICE: 1.0, EXPLORE: 3.0})]
    c = fit.Choices(games)
    any_keys, round_keys = c.keys()
    c.index(any_keys, round_keys)
    rng = np.random.default_rng(2)
    ta, tr = rng.normal(0, 0.5, len(any_keys)), rng.normal(0, 0.5, len(round_keys))
    _, ga, gr, _ = c.loss(ta, tr)
    for t, g in ((ta, ga), (tr, gr)):
        for i in range(len(t)):
            t[i] += 1e-6
            up = c.loss(ta, tr)[0]
            t[i] -= 2e-6
            down = c.loss(ta, tr)[0]
            t[i] += 1e-6
            assert g[i] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-6)


def test_the_fit_recovers_a_known_policy(fit):
    true = {PASS: 20.0, ENTICE: 1.0, EXPLORE: 0.25}    # each option chosen often
    games = [_synthetic_game(np.random.default_rng(s), 2000, true) for s in range(3)]
    c = fit.Choices(games)
    any_keys, round_keys = c.keys()
    t_any, t_round = fit.fit(c.index(any_keys, round_keys), len(any_keys), len(round_keys), 0.01)
    def factor(a):      # both terms: every round's and round 0's (all the choices are in round 0)
        k_any, k_round = (_core.distilled_keys([MOVE], [r], [a]) for r in (fit.ANY_ROUND, 0))
        return np.exp(t_any[fit.lookup(k_any, any_keys)[0]] + t_round[fit.lookup(k_round, round_keys)[0]])
    got = {a: factor(a) for a in true}
    # the factors are known up to a common multiple: compare ratios to entice's
    for a in (PASS, EXPLORE):
        assert got[a] / got[ENTICE] == pytest.approx(true[a] / true[ENTICE], rel=0.15)


def _synthetic_game(rng, n, true):
    """n move choices in round 0 among all three options, drawn by the weighted policy's weights
    times the `true` factors."""
    opts = list(WEIGHTS)
    w = np.array([WEIGHTS[a] * true[a] for a in opts])
    chosen = rng.choice(len(opts), size=n, p=w / w.sum())
    return {"prompts": np.zeros(n, np.int8), "rounds": np.zeros(n, np.int8),
            "offsets": np.arange(n + 1, dtype=np.int32) * len(opts),
            "opts": np.tile(np.array(opts, np.int32), n), "chosen": chosen.astype(np.int16)}


def test_the_shipped_factors_say_what_made_them():
    d = data.distilled_factors()
    assert int(d["games"]) > 0 and "bench/fit_distilled.py" in str(d["command"])
    assert len(d["keys"]) == len(d["factors"]) > 1000


def _search(g, seed):
    a = analyse(g, {"iterations": 150, "stop_early": 0, "playout": "distilled"}, seed=seed)
    return [(m.action, m.visits, round(m.mean_reward, 9)) for m in a.moves]


def test_a_distilled_search_replays_and_never_reads_hidden_cards():
    for seed in range(3):
        g = greedy_midgame(2, 300 + seed)
        first = _search(g, seed)
        assert first == _search(g.clone(), seed) and sum(v for _, v, _ in first) == 150
        h = swap_hidden(g)
        assert h.legal_actions() == g.legal_actions()
        assert _search(h, seed) == first


def test_distilled_searches_play_whole_games():
    for players, seed in ((1, 71), (2, 72), (3, 73)):
        agents = [make_agent("ismcts:iterations=40,playout=distilled", seed + p) for p in range(players)]
        end = play_game(agents, players, seed, automa="3")
        assert end.is_terminal() and min(end.scores()) > 0


def test_the_fit_resumes_its_games_and_writes_factors_that_play(fit, tmp_path, capsys):
    """10 games, then --resume to 12: the same file as 12 games at once; another seed is refused."""
    def run(games, out, choices, *more):
        fit.main(["--games", str(games), "--samples", "1", "--out", str(tmp_path / out),
                  "--choices", str(tmp_path / choices), *more])
    run(12, "once.npz", "once-choices.npz")
    run(10, "part.npz", "twice-choices.npz")
    run(12, "twice.npz", "twice-choices.npz", "--resume")
    once, twice = data.distilled_factors(tmp_path / "once.npz"), data.distilled_factors(tmp_path / "twice.npz")
    assert int(twice["games"]) == 12 and "--resume" in str(twice["command"])
    for k in ("keys", "factors"):
        assert np.array_equal(once[k], twice[k])
    with pytest.raises(SystemExit) as stop:
        run(12, "other.npz", "twice-choices.npz", "--resume", "--seed", "9")
    assert stop.value.code == 2 and "played with other settings (seed)" in capsys.readouterr().err
    try:
        data.use_distilled(tmp_path / "once.npz")
        g = greedy_midgame(2, 90)
        assert sum(m.visits for m in analyse(g, {"iterations": 60, "stop_early": 0, "playout": "distilled"},
                                             seed=1).moves) == 60
    finally:
        data.use_distilled()
