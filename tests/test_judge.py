"""The learnt judge (issue 65): its features see only what a seat sees, the network in the core is the
numpy one, TD(lambda)'s update is the gradient it claims, training resumes exactly, and the `net`
agent plays from a spec."""
import json

import numpy as np
import pytest
import scipy.sparse
from click.testing import CliRunner

from advisor import _core
from advisor.cli import main
from advisor.search import data
from advisor.search.agents import AgentSpecError, make_agent, play_game
from helpers import bench_module, greedy_midgame, swap_hidden

F, K = _core.JUDGE_FEATURES, _core.JUDGE_OUTPUTS


@pytest.fixture(scope="module")
def train():
    return bench_module("train_judge")


@pytest.fixture
def net(train):
    n = train.new_net(12, seed=3)
    n["b1"] = np.random.default_rng(4).normal(0, 0.3, 12)
    train.install(n)
    return n


@pytest.fixture
def net_file(train, net, tmp_path):
    path = tmp_path / "judge.npz"
    np.savez(path, **net)
    return path


def _midgame(players, seed, moves=60):
    g = _core.Game.new(players, seed, automa="3")
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if g.is_terminal():
            break
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])
    return g


def _dense(idx, val):
    x = np.zeros(F)
    x[idx] = val
    return x


def test_features_never_read_the_hidden_cards_of_other_seats(net):
    # the other seats' hands, the decks and the RNG dealt afresh: the viewer's inputs and values stay
    changed = 0
    for players, seed in ((2, 11), (3, 12), (4, 13), (1, 14)):
        g = _midgame(players, seed)
        for other_seed in range(3):
            d = g.determinize(0, other_seed)
            hands = lambda game: [(p["hand_dragons"], p["hand_caves"]) for p in game.to_dict()["core"]["players"][1:]]
            changed += hands(d) != hands(g)
            assert _core.position_features(d, 0) == _core.position_features(g, 0)
            assert _core.judge_values(d, 0) == _core.judge_values(g, 0)
    assert changed >= 6                 # the hidden cards did change


def test_features_see_the_viewers_own_hand():
    g = _midgame(2, 21)
    before = set(_core.position_features(g, 0)[0])
    d = g.determinize(1, 5)             # seat 0's hand is hidden from seat 1: dealt afresh
    assert d.to_dict()["core"]["players"][0]["hand_dragons"] != g.to_dict()["core"]["players"][0]["hand_dragons"]
    assert set(_core.position_features(d, 0)[0]) != before


def test_the_net_agent_never_reads_hidden_cards(net):
    """Its completions of a turn are played in worlds dealt from the decider's view: other hidden
    cards (the opponent's hand, the deck order) choose the same moves."""
    for seed in range(6):
        g = _core.Game.new(2, 100 + seed)
        greedy = make_agent("greedy", seed)
        for _ in range(30):
            g.apply(greedy.choose(g))
        h = swap_hidden(g)
        assert h.legal_actions() == g.legal_actions()
        for k in range(3):
            assert _core.judged_action(g, k, samples=2) == _core.judged_action(h, k, samples=2)


def test_the_network_in_the_core_is_the_numpy_one(train, net):
    for players, seed in ((2, 31), (1, 32), (5, 33)):
        g = _midgame(players, seed, moves=15)
        assert not g.is_terminal()
        for p in range(len(g.scores())):
            if players == 1 and p == 1:
                continue
            idx, val = _core.position_features(g, p)
            assert len(idx) == len(set(idx)) and all(0 <= i < F for i in idx)
            x = scipy.sparse.csr_matrix(_dense(idx, val)[None, :])
            _, v = train.forward(net, x)
            # the core keeps the weights as floats: equal to float precision
            assert np.allclose(np.array(_core.judge_values(g, p)), 100 * v[0], rtol=1e-5, atol=1e-4)


def test_a_finished_game_is_judged_by_its_scores(net):
    g = _midgame(3, 41, moves=100000)
    assert g.is_terminal()
    s = g.scores()
    assert _core.judge_values(g, 1)[:3] == [s[1], s[2], s[0]]


def test_lambda_targets_are_the_lambda_returns(train):
    rng = np.random.default_rng(0)
    v = rng.normal(size=(7, K))
    seats = np.array([0, 1, 0, 0, 1, 0, 1])
    finals = np.array([80.0, 95.0])
    lam = 0.6
    t, m = train.lambda_targets(v, seats, finals, lam)
    assert (m[:, :2] == 1).all() and (m[:, 2:] == 0).all()
    for s in (0, 1):
        rows = np.flatnonzero(seats == s)
        z = np.zeros(K)
        z[:2] = np.roll(finals, -s) / 100
        for i, r in enumerate(rows):
            # the definition: (1 - lam) * sum of lam^(n-1) * n-step returns, the rest on the outcome
            later = [v[q] for q in rows[i + 1:]] + [z]
            expect = sum((1 - lam) * lam ** n * later[n] for n in range(len(later) - 1)) + lam ** (len(later) - 1) * z
            assert np.allclose(t[r], expect)
    assert np.allclose(train.lambda_targets(v, seats, finals, 0.0)[0][0], v[2])
    assert np.allclose(train.lambda_targets(v, seats, finals, 1.0)[0][0][:2], finals / 100)


def test_the_td_gradient_is_the_losss_gradient(train):
    n = train.new_net(5, seed=1)
    rng = np.random.default_rng(2)
    rows = [rng.choice(F, 30, replace=False) for _ in range(6)]
    x = scipy.sparse.csr_matrix(np.array([_dense(r, rng.uniform(0, 1, 30)) for r in rows]))
    target = rng.normal(0.6, 0.2, (6, K))
    mask = np.zeros((6, K))
    mask[:, :3] = 1
    grad, loss = train.td_gradient(n, x, target, mask)

    def loss_at(m):
        return train.td_gradient(m, x, target, mask)[1]

    checks = [("b2", (0,)), ("b2", (4,)), ("w2", (1, 2)), ("b1", (3,))] + [("w1", (int(rows[0][j]), j % 5)) for j in range(5)]
    for name, at in checks:
        up = {k: a.copy() for k, a in n.items()}
        down = {k: a.copy() for k, a in n.items()}
        up[name][at] += 1e-6
        down[name][at] -= 1e-6
        assert grad[name][at] == pytest.approx((loss_at(up) - loss_at(down)) / 2e-6, rel=1e-5, abs=1e-10)
    assert grad["b2"][4] == 0           # a seat not in play teaches nothing


def test_a_learning_step_lowers_the_loss_on_its_games(train):
    n = train.new_net(8, seed=5)
    train.install(n)
    games = [train.play(g, {"seed": 1, "samples": 1, "epsilon": 0.1}) for g in range(4)]
    adam = train.Adam(n, 0.003)
    first = train.learn(n, adam, games, 0.7)
    for _ in range(20):
        last = train.learn(n, adam, games, 0.7)
    assert last < first


def test_self_play_records_each_seats_positions_and_is_deterministic(net):
    a = _core.judged_game(2, 77, ["net", "net"], samples=1, epsilon=0.1, record=True)
    b = _core.judged_game(2, 77, ["net", "net"], samples=1, epsilon=0.1, record=True)
    assert a["scores"] == b["scores"] and a["winners"] == b["winners"]
    for x, y in zip(a["positions"], b["positions"], strict=True):
        assert np.array_equal(x, y)
    seats, offsets, idx, val = a["positions"]
    assert set(seats.tolist()) == {0, 1} and offsets[0] == 0 and offsets[-1] == len(idx) == len(val)
    solo = _core.judged_game(1, 77, ["net"], record=True)
    assert set(solo["positions"][0].tolist()) == {0}            # the Automa learns nothing
    assert "positions" not in _core.judged_game(2, 77, ["heuristic", "net"])
    with pytest.raises(ValueError, match="one per seat"):
        _core.judged_game(2, 77, ["net"])


def _settings(train):
    return {"hidden": 6, "lam": 0.7, "lr": 0.003, "epsilon": 0.05, "samples": 1, "batch": 4, "seed": 9,
            "command": "test"}


def test_training_resumes_where_it_stopped(train, tmp_path):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert train.train(whole, _settings(train), 16, False, 4, 0, 2, 1, progress=False) == 16
    assert train.train(parts, _settings(train), 8, False, 4, 0, 2, 1, progress=False) == 8
    assert train.train(parts, _settings(train) | {"lr": 99.0}, 16, True, 4, 0, 2, 1, progress=False) == 16
    a, _, ga, sa = train.load(whole / "checkpoint.npz")
    b, adam, gb, sb = train.load(parts / "checkpoint.npz")
    assert ga == gb == 16 and sa == sb and adam.t == 4
    for k in train.ARRAYS:
        assert np.array_equal(a[k], b[k])
    with pytest.raises(SystemExit):                 # a fresh run never overwrites a checkpoint
        train.train(whole, _settings(train), 16, False, 4, 0, 2, 1, progress=False)


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_worker_processes_train_the_same_network(train, tmp_path):
    mixed = _settings(train) | {"players": [1, 2, 3]}
    assert train.train(tmp_path / "one", mixed, 16, False, 8, 0, 2, 1, progress=False) == 16
    assert train.train(tmp_path / "three", mixed, 16, False, 8, 0, 2, 1, progress=False, workers=3) == 16
    a, _, _, _ = train.load(tmp_path / "one" / "checkpoint.npz")
    b, _, _, _ = train.load(tmp_path / "three" / "checkpoint.npz")
    for k in train.ARRAYS:
        assert np.array_equal(a[k], b[k])
    pool = train.SelfPlay(2, mixed)
    try:
        assert len(pool.procs) == 2
        games = pool.play(a, [5, 6, 7])
        train.install(a)
        assert [list(out["scores"]) for out, _ in games] == [list(train.play(g, mixed)[0]["scores"]) for g in (5, 6, 7)]
        with pytest.raises(SystemExit):                 # a worker's error stops the run, named
            pool.play({**a, "w1": a["w1"][:3]}, [8, 9])
    finally:
        pool.close()


def test_the_curve_and_the_export(train, tmp_path):
    out = tmp_path / "run"
    train.train(out, _settings(train), 8, False, 4, 4, 2, 1, progress=False)
    rows = [json.loads(line) for line in (out / "curve.jsonl").read_text().splitlines()]
    assert [r["games"] for r in rows] == [0, 4, 8]
    assert all(0 <= r["duel_wins"] <= 1 and r["deals"] == 2 and r["solo_mean"] > 0 for r in rows)
    train.main(["--out", str(out), "--export", str(tmp_path / "judge.npz")])
    w = data.judge_weights(tmp_path / "judge.npz")
    assert int(w["games"]) == 8 and str(w["command"]) == "test" and w["w1"].shape == (F, 6)


def test_training_cycles_its_player_counts_and_goes_on_from_a_network_file(train, tmp_path):
    mixed = _settings(train) | {"players": [1, 2, 3, 5]}
    assert [train.players_of(g, mixed) for g in range(6)] == [1, 2, 3, 5, 1, 2]
    assert [train.players_of(g, _settings(train)) for g in range(3)] == [1, 2, 1]   # runs from before --players
    first, then = tmp_path / "first", tmp_path / "then"
    train.train(first, mixed, 8, False, 4, 0, 2, 1, progress=False)
    train.main(["--out", str(first), "--export", str(tmp_path / "judge.npz")])
    exported = data.judge_weights(tmp_path / "judge.npz")
    assert train.train(then, mixed | {"hidden": 9, "command": "again"}, 16, False, 4, 8, 3, 1, progress=False,
                       start=tmp_path / "judge.npz") == 16
    net, adam, games, settings = train.load(then / "checkpoint.npz")
    assert games == 16 and adam.t == 2 and settings["command"] == "test; then again" and net["w1"].shape == (F, 6)
    assert not np.allclose(net["w1"], exported["w1"])           # it learnt on from the file's weights
    rows = [json.loads(line) for line in (then / "curve.jsonl").read_text().splitlines()]
    assert [r["games"] for r in rows] == [8, 16]
    assert all(0 <= r["wins_3p"] <= 1 and 0 <= r["wins_5p"] <= 1 and "wins_2p" not in r for r in rows)
    with pytest.raises(SystemExit):             # nothing left to play
        train.train(tmp_path / "none", mixed, 8, False, 4, 0, 2, 1, progress=False, start=tmp_path / "judge.npz")
    with pytest.raises(SystemExit):
        train.main(["--out", str(tmp_path / "x"), "--players", "1,6"])


def test_the_net_agent_plays_from_a_spec(net_file):
    agent = make_agent(f"net:weights={net_file},samples=2")
    g = play_game([agent], 1, seed=5, automa="3")
    assert g.is_terminal()
    again = play_game([make_agent(f"net:weights={net_file},samples=2")], 1, seed=5, automa="3")
    assert again.scores() == g.scores()


def test_the_net_agents_bad_specs(net_file, tmp_path):
    for spec, message in ((f"net:weights={net_file},sample=2", "did you mean 'samples'"),
                          (f"net:weights={net_file},samples=0", "samples must be a whole number 1-64"),
                          (f"net:weights={tmp_path / 'none.npz'}", "no such file")):
        with pytest.raises(AgentSpecError if "samples" in message else data.SearchDataError, match=message):
            make_agent(spec)
    bad = tmp_path / "bad.npz"
    np.savez(bad, w1=np.zeros((3, 3)), b1=np.zeros(3), w2=np.zeros((K, 3)), b2=np.zeros(K))
    with pytest.raises(data.SearchDataError, match=r"bad.npz: w1: expected"):
        data.use_judge(bad)
    if not data.JUDGE_FILE.exists():
        with pytest.raises(data.SearchDataError, match="judge.npz: no such file"):
            make_agent("net")


def test_the_shipped_judge_says_what_made_it_and_plays():
    w = data.judge_weights()
    assert int(w["features"]) == F and int(w["games"]) > 0 and "bench/train_judge.py" in str(w["command"])
    g = play_game([make_agent("net", 1)], 1, seed=3, automa="3")
    assert g.is_terminal()


def test_a_tournament_plays_the_net_agent(net_file, tmp_path):
    out = tmp_path / "t.jsonl"
    r = CliRunner().invoke(main, ["tournament", "--agent", f"n=net:weights={net_file}", "--agent", "automa:3",
                                  "--players", "1", "--games", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert len(out.read_text().splitlines()) >= 2


# ---------------------------------------------------------------------------- judge= (step 2)
def _judged_search(g, seed, **settings):
    from advisor.search import analyse
    a = analyse(g, {"iterations": 120, "stop_early": 0, "judge": 0.5, **settings}, seed=seed)
    return [(m.action, m.visits, round(m.mean_reward, 9)) for m in a.moves]


def test_a_judged_search_is_deterministic_and_uses_the_shipped_judge(train, net):
    g = greedy_midgame(1, 51)
    installs = _core.judge_installs()
    first = _judged_search(g, 3)                            # the fixture's net was installed:
    assert _core.judge_installs() == installs + 1           # the search put the shipped one in
    assert first == _judged_search(g.clone(), 3)            # same seed, same result
    assert sum(v for _, v, _ in first) == 120
    train.install(net)                                      # another net, as a fitting script would
    assert _judged_search(g, 3) == first
    assert _judged_search(g, 3, judge=0) != first           # the judge's share changed the search


@pytest.mark.parametrize("players,playout", [(1, "greedy_mast"), (2, "weighted"), (3, "mast")])
def test_the_judges_share_mixes_the_playouts_reward(players, playout):
    """One iteration plays the same playout whatever the share: its reward is (1 - s) times the
    playout's plus s times the judge's, so the share 1/2 gives the mean of the shares 0 and 1."""
    g = greedy_midgame(players, 70 + players, moves=12)
    def reward(share):
        (m,) = [m for m in _search_moves(g, share, playout) if m.visits]
        return m.action, m.mean_reward
    (a0, r0), (a1, r1), (ah, rh) = reward(0.0), reward(1.0), reward(0.5)
    assert a0 == a1 == ah and r0 != r1
    assert rh == pytest.approx((r0 + r1) / 2, abs=1e-12)


def _search_moves(g, share, playout):
    from advisor.search import analyse
    return analyse(g, {"iterations": 1, "stop_early": 0, "judge": share, "playout": playout}, seed=5).moves


def test_a_judged_search_never_reads_hidden_cards():
    """Other hidden cards (the opponent's hand, the deck order), the same view: the same search."""
    for seed in range(3):
        g = greedy_midgame(2, 200 + seed)
        h = swap_hidden(g)
        assert h.legal_actions() == g.legal_actions()
        assert _judged_search(g, seed) == _judged_search(h, seed)


@pytest.mark.parametrize("share", [0.5, 1.0])
def test_judged_searches_play_whole_games(share):
    for players, seed in ((1, 61), (2, 62)):
        agents = [make_agent(f"ismcts:iterations=40,judge={share}", seed + p) for p in range(players)]
        end = play_game(agents, players, seed, automa="3")
        assert end.is_terminal() and min(end.scores()) > 0
