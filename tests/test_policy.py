"""The learnt move policy (lookahead=policy): its features, its weights, the rollouts and the
search using it, and the fit in bench/learn_policy.py."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from advisor import _core
from advisor.agents import make_agent
from advisor.params import ParamError, parse_settings
from advisor.search import analyse

BENCH = Path(__file__).parent.parent / "bench" / "learn_policy.py"


def _bench():
    spec = importlib.util.spec_from_file_location("learn_policy", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def heuristic_policy():
    """The policy's weights set to the hand-tuned heuristic's and the heuristic's end_game_now (no
    policy feature) off, restored afterwards."""
    old, old_h = _core.policy_weights(), _core.heuristic_weights()
    _core.set_policy_weights([list(_bench().HEURISTIC)] * 4)
    _core.set_heuristic_weights({"end_game_now": (0.0, 0.0)})
    yield
    _core.set_policy_weights(old)
    _core.set_heuristic_weights(old_h)


def _move_positions(seed, level="3"):
    g = _core.Game.new(1, seed, automa=level)
    agent = make_agent("greedy", seed)
    while not g.is_terminal():
        if g.decider == 0 and g.decision == "move" and len(g.legal_actions()) > 1:
            yield g
        g.apply(agent.choose(g))


def test_weights_have_the_features_names():
    assert [len(w) for w in _core.policy_weights()] == [len(_core.POLICY_FEATURES)] * 4
    assert _core.POLICY_FEATURES[0] == "score" and _core.POLICY_FEATURES[-1] == "pass"
    assert _core.POLICY_FEATURES[1:-1] == _core.VALUE_FEATURES[1:]


@pytest.mark.parametrize("seed", range(3))
def test_move_features_describe_where_each_move_ends_the_turn(seed):
    """A pass is valued where it stands; every other move where the turn ends after it."""
    for n, g in enumerate(_move_positions(seed)):
        if n % 5:
            continue
        rows = _core.move_features(g, seed)
        assert [a for a, _ in rows] == g.legal_actions()
        b = g.score_breakdown()[0]
        here = [b["total"] - b["coins"] - b["items"]] + _core.value_features_of(g, 0)[1:]
        for a, f in rows:
            assert len(f) == len(_core.POLICY_FEATURES)
            if f[-1] == 1:
                assert f[:-1] == here
            else:
                assert f[-1] == 0 and f[0] >= here[0] - 2    # a turn loses no VP but paid leftovers


def test_heuristic_weights_make_the_policy_play_as_the_heuristic(heuristic_policy):
    """With the heuristic's weights the policy is the heuristic: the same lookahead choices and the
    same playouts, random number for random number."""
    for n, g in enumerate(_move_positions(4)):
        if n % 3 == 0:
            for s in range(3):
                assert _core.greedy_action(g, s, "policy") == _core.greedy_action(g, s, "heuristic")
    g = _core.Game.new(1, 9, automa="3")
    for s in range(20):
        assert _core.playout_scores(g, "greedy", s, "policy") == _core.playout_scores(g, "greedy", s)


def test_other_weights_change_the_playouts(heuristic_policy):
    g = _core.Game.new(1, 9, automa="3")
    w = _core.policy_weights()
    w = [[c if i != 1 else 5.0 for i, c in enumerate(r)] for r in w]     # hoard coins
    _core.set_policy_weights(w)
    assert [_core.playout_scores(g, "greedy", s, "policy") for s in range(20)] != \
        [_core.playout_scores(g, "greedy", s) for s in range(20)]


def test_the_search_takes_the_lookahead_setting():
    assert parse_settings({"lookahead": "policy"})["lookahead"] == "policy"
    with pytest.raises(ParamError, match="lookahead"):
        parse_settings({"lookahead": "learnt"})
    g = _core.Game.new(1, 3, automa="3")
    a = analyse(g, {"iterations": 60, "stop_early": 0, "lookahead": "policy", "rollout": "greedy_mast"}, seed=5)
    b = analyse(g, {"iterations": 60, "stop_early": 0, "lookahead": "policy", "rollout": "greedy_mast"}, seed=5)
    assert a.iterations == 60 and [m.visits for m in a.moves] == [m.visits for m in b.moves]
    assert a.best.action in g.legal_actions()


def test_the_fit_recovers_the_weights_that_made_the_choices():
    """Visits drawn from a soft-max of known weights: the conditional logit finds those weights."""
    lp = _bench()
    rng = np.random.default_rng(1)
    true = np.array([1.0, -0.5, 0.25])
    x = rng.normal(size=(3000, 6, 3))
    mask = np.ones((3000, 6), bool)
    mask[::2, 4:] = False                          # decisions with fewer moves
    p = lp._probs(x, mask, true)
    visits = np.array([rng.multinomial(30, q) for q in p], float)
    w = lp.conditional_logit(x, mask, visits / visits.sum(axis=1, keepdims=True), ridge=0.0)
    assert np.allclose(w, true, atol=0.06)


def test_the_bench_records_and_fits(tmp_path):
    """bench/learn_policy.py record then fit (without --write: the weights file stays as it is)."""
    data = tmp_path / "policy.npz"
    r = subprocess.run([sys.executable, BENCH, "record", "--agent", "ismcts:iterations=20", "--games", "5",
                        "--samples", "2", "--workers", "1", "--out", data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = np.load(data)
    assert len(d["round"]) == len(d["x"]) == len(d["visits"]) > 50 and set(d["round"]) == {0, 1, 2, 3}
    assert (d["visits"].sum(axis=1) > 0).all() and (d["chosen"] < d["moves"]).all()
    assert ((d["actions"] >= 0).sum(axis=1) == d["moves"]).all()
    before = (Path(__file__).parent.parent / "ext" / "policy_weights.pxi").read_text()
    r = subprocess.run([sys.executable, BENCH, "fit", data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("held out") == 4 and "heuristic agrees" in r.stdout and "wrote" not in r.stdout
    assert (Path(__file__).parent.parent / "ext" / "policy_weights.pxi").read_text() == before


def test_rollout_strength_measures_every_policy_that_plays_alone(capsys, monkeypatch):
    """bench/rollout_strength.py: each policy but MAST's (which learns within a search), the greedy
    ones with every lookahead."""
    spec = importlib.util.spec_from_file_location("rollout_strength", BENCH.parent / "rollout_strength.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(sys, "argv", ["rollout_strength.py", "--games", "3"])
    mod.main()
    out = capsys.readouterr().out
    assert "greedy, lookahead=policy" in out and "greedy_key, lookahead=policy" in out
    assert "greedy_all, lookahead=two_ply" in out
    assert "greedy_all, lookahead=cards" in out
    assert "mast" not in out and len(out.splitlines()) == 1 + 5 + 3 * (len(_core.LOOKAHEADS) - 1)
