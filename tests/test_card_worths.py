"""The learnt card worths (lookahead=cards): the keys of moves' cards, the lookahead using them,
the data file they are read from, and the record and fit in bench/fit_card_worths.py."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from advisor import _core, notation
from advisor.search.agents import make_agent
from advisor.search.params import parse_settings
from advisor.search import analyse
from advisor.search import data as search_data

BENCH = Path(__file__).parent.parent / "bench" / "fit_card_worths.py"
N_KEYS = len(_core.card_worths()[0][0])


def _bench():
    spec = importlib.util.spec_from_file_location("fit_card_worths", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def worths():
    """Set card worths for a test, the cave worths all 0; the built-in ones are restored afterwards."""
    _core.set_card_worths(caves=[[0.0] * len(_core.CAVE_MOVE_FEATURES) for _ in range(4)])
    yield lambda cards: _core.set_card_worths(cards=cards)
    search_data.install()


def _move_positions(seed):
    g = _core.Game.new(1, seed, automa="3")
    agent = make_agent("greedy", seed)
    while not g.is_terminal():
        if g.decider == 0 and g.decision == "move" and len(g.legal_actions()) > 1:
            yield g
        g.apply(agent.choose(g))


def test_each_move_names_its_card():
    """Entices key by the dragon, excavations by the cave card, explores by the cave, the pass alone:
    moves naming the same card share a key, different cards never do."""
    assert N_KEYS == 1 + 183 + 1 + 75 + 3 + 1 and [len(r) for r in _core.card_worths()[0]] == [N_KEYS] * 4
    expected = {notation.ENTICE: lambda a: notation.arg(a) >> 2,
                notation.EXCAVATE: lambda a: 184 + (notation.arg(a) >> 2),
                notation.EXPLORE: lambda a: 260 + notation.arg(a),
                notation.PASS: lambda a: 263}
    kinds = set()
    for n, g in enumerate(_move_positions(2)):
        for a in g.legal_actions():
            kinds.add(notation.kind(a))
            assert _core.card_worth_key(a) == expected[notation.kind(a)](a), notation.action_text(a, game=g)
    assert kinds == set(expected)
    assert _core.card_worth_key(notation.make(notation.EGG, 3)) == 0     # not a move


def test_move_values_are_the_lookaheads_turn_values():
    """A pass is worth the heuristic value where it stands, less the lookahead's 0.5; every move is
    valued once per legal action, in order."""
    for n, g in enumerate(_move_positions(3)):
        if n % 4:
            continue
        rows = _core.move_values(g, n)
        assert [a for a, _ in rows] == g.legal_actions()
        for a, v in rows:
            if _core.card_worth_key(a) == N_KEYS - 1:
                assert v == pytest.approx(_core.heuristic_values(g)[0] - 0.5)
            assert -1e6 < v < 1e6


def test_zero_worths_play_as_the_heuristic(worths):
    """With every worth 0 the lookahead is the heuristic's, random number for random number."""
    worths([[0.0] * N_KEYS for _ in range(4)])
    g = _core.Game.new(1, 9, automa="3")
    for s in range(10):
        assert _core.playout_scores(g, "greedy", s, "cards") == _core.playout_scores(g, "greedy", s)
    a = analyse(g, {"iterations": 80, "stop_early": 0, "lookahead": "cards", "playout": "greedy_mast"}, seed=5)
    b = analyse(g, {"iterations": 80, "stop_early": 0, "lookahead": "heuristic", "playout": "greedy_mast"}, seed=5)
    assert [(m.action, m.visits) for m in a.moves] == [(m.action, m.visits) for m in b.moves]


def test_a_worth_steers_the_playouts(worths):
    """A pass worth 100 VP in every round: greedy playouts pass at each move and score far less."""
    g = _core.Game.new(1, 9, automa="3")
    plain = np.mean([_core.playout_scores(g, "greedy", s)[0] for s in range(10)])
    w = [[0.0] * N_KEYS for _ in range(4)]
    for r in w:
        r[N_KEYS - 1] = 100.0
    worths(w)
    passing = np.mean([_core.playout_scores(g, "greedy", s, "cards")[0] for s in range(10)])
    assert passing < plain - 15


def test_the_search_takes_the_cards_lookahead():
    assert parse_settings({"lookahead": "cards"})["lookahead"] == "cards"
    g = _core.Game.new(1, 3, automa="3")
    a = analyse(g, {"iterations": 60, "stop_early": 0, "lookahead": "cards", "playout": "greedy_mast"}, seed=5)
    assert a.iterations == 60 and a.best.action in g.legal_actions()


@pytest.mark.slow
def test_the_fit_recovers_the_worths_that_made_the_choices():
    """Visits drawn from a soft-max of beta x value + theta[key]: the fit finds beta and theta."""
    lp = _bench()
    rng = np.random.default_rng(1)
    d, n = 6000, 6
    value = rng.normal(scale=3.0, size=(d, n))
    keys = rng.integers(1, 40, size=(d, n))
    mask = np.ones((d, n), bool)
    mask[::3, 4:] = False
    theta = np.zeros(N_KEYS)
    theta[1:40] = rng.normal(scale=0.8, size=39)
    p = lp.probs(value, keys, mask, 0.7, theta)
    visits = np.array([rng.multinomial(40, q) for q in p], float)
    beta, fitted = lp.conditional_logit(value, keys, mask, visits / visits.sum(axis=1, keepdims=True), ridge=0.0)
    assert beta == pytest.approx(0.7, abs=0.03)
    # a softmax fixes the keys' logits up to a constant: compare them centred
    assert np.allclose(fitted[1:40] - fitted[1:40].mean(), theta[1:40] - theta[1:40].mean(), atol=0.12)
    # two keys a move (a card's and its kind's, as the fit uses them): the sums are found
    kind = N_KEYS + (keys >= 20)
    theta2 = np.zeros(N_KEYS + 2)
    theta2[1:40] = theta[1:40]
    theta2[N_KEYS:] = [0.0, 1.5]
    p = lp.probs(value, (keys, kind), mask, 0.7, theta2)
    visits = np.array([rng.multinomial(40, q) for q in p], float)
    beta, fitted = lp.conditional_logit(value, (keys, kind), mask, visits / visits.sum(axis=1, keepdims=True),
                                        ridge=1e-6, n_keys=N_KEYS + 2)
    total = lambda t: t[1:40] + t[N_KEYS + (np.arange(1, 40) >= 20)]
    assert beta == pytest.approx(0.7, abs=0.03)
    assert np.allclose(total(fitted) - total(fitted).mean(), total(theta2) - total(theta2).mean(), atol=0.12)


@pytest.mark.slow
def test_the_bench_records_and_fits(tmp_path):
    """record then fit (without --write: the weights file stays as it is)."""
    data = tmp_path / "cards.npz"
    r = subprocess.run([sys.executable, BENCH, "record", "--agent", "ismcts:iterations=20", "--games", "4",
                        "--samples", "2", "--workers", "1", "--out", data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = np.load(data)
    assert len(d["round"]) == len(d["value"]) == len(d["visits"]) > 40 and set(d["round"]) == {0, 1, 2, 3}
    assert (d["visits"].sum(axis=1) > 0).all()
    assert ((d["key"] > 0).sum(axis=1) == d["moves"]).all()
    assert ((d["actions"] >= 0).sum(axis=1) == d["moves"]).all()
    on = d["actions"] >= 0
    assert (np.vectorize(_core.card_worth_key)(d["actions"][on]) == d["key"][on]).all()
    before = search_data.CARD_WORTHS_FILE.read_text()
    r = subprocess.run([sys.executable, BENCH, "fit", data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("held out") == 4 and "heuristic agrees" in r.stdout and "wrote" not in r.stdout
    assert r.stdout.count("kinds (VP)") == 4
    assert search_data.CARD_WORTHS_FILE.read_text() == before


def test_recorded_caves_give_the_cores_cave_features():
    """The fit computes each move's cave counts from the recorded mat; they are the counts the
    core's lookahead weighs (cave_move_features), move for move."""
    lp = _bench()
    for n, g in enumerate(_move_positions(5)):
        if n % 3:
            continue
        me = g.to_dict()["core"]["players"][0]
        hand = (me["hand_dragons"] + [0] * lp.MAX_HAND)[:lp.MAX_HAND]
        mat = np.array([np.concatenate([np.ravel(me["dragons"]), np.ravel(me["caves"]), hand, me["explores"]])])
        actions = np.array([g.legal_actions()])
        ours = lp.cave_features(actions, mat)[0]
        assert ours.tolist() == [_core.cave_move_features(g, a) for a in g.legal_actions()]


def test_cave_worths_steer_the_playouts(worths):
    """A large worth for exploring a cave already explored this round makes greedy playouts explore
    the same cave again and again: their scores change."""
    g = _core.Game.new(1, 9, automa="3")
    worths([[0.0] * N_KEYS for _ in range(4)])
    plain = [_core.playout_scores(g, "greedy", s, "cards") for s in range(10)]
    w = [[0.0] * len(_core.CAVE_MOVE_FEATURES) for _ in range(4)]
    for r in w:
        r[_core.CAVE_MOVE_FEATURES.index("explore:explores")] = 50.0
    _core.set_card_worths(caves=w)
    assert [_core.playout_scores(g, "greedy", s, "cards") for s in range(10)] != plain


def test_the_core_holds_the_data_files_numbers():
    """The worths and heuristic weights in the core are those of advisor/data/, and a bad file
    is refused by name."""
    cards, caves = search_data.card_worths()
    assert _core.card_worths() == (cards, caves)
    assert _core.heuristic_weights() == search_data.heuristic_weights()


def test_bad_search_data_is_named(tmp_path):
    bad = tmp_path / "heuristic.toml"
    bad.write_text("[heuristic]\ncoins = [0.3]\n")
    with pytest.raises(search_data.SearchDataError, match="heuristic.toml: heuristic.coins must be"):
        search_data.heuristic_weights(bad)
    bad.write_text("[heuristic]\ncoin = [0.3, 0.0]\n")
    with pytest.raises(search_data.SearchDataError, match="unknown \\['coin'\\]"):
        search_data.heuristic_weights(bad)
    with pytest.raises(ValueError, match="card worths: expected 4 rounds"):
        _core.set_card_worths(cards=[[1.0, 2.0]] * 4)
