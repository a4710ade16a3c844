"""The learnt evaluation (evaluation=learned): its features, its weights and the search using it."""
import pytest

from advisor import _core, notation
from advisor.agents import make_agent
from advisor.params import ParamError, parse_settings
from advisor.search import analyse


def _solo_positions(seed, level="3", every=1):
    g = _core.Game.new(1, seed, automa=level)
    agent = make_agent("greedy", seed)
    n = 0
    while not g.is_terminal():
        if g.decider == 0 and n % every == 0:
            yield g
        n += 1
        g.apply(agent.choose(g))
    yield g


def test_features_have_their_names():
    g = _core.Game.new(1, 2, automa="2")
    assert len(_core.value_features_of(g, 0)) == len(_core.VALUE_FEATURES)
    assert len(_core.value_features_of(g, 1)) == len(_core.AUTOMA_VALUE_FEATURES)
    human, automa = _core.value_weights()
    assert [len(w) for w in human] == [len(_core.VALUE_FEATURES)] * 4
    assert [len(w) for w in automa] == [len(_core.AUTOMA_VALUE_FEATURES)] * 4


@pytest.mark.parametrize("seed", range(6))
def test_affordable_dragons_are_the_enticeable_ones(seed):
    """`affordable` counts the hand dragons that a legal entice move exists for, at every move."""
    names = _core.VALUE_FEATURES
    for g in _solo_positions(seed):
        if g.is_terminal() or g.decision != "move":
            continue
        f = dict(zip(names, _core.value_features_of(g, 0)))
        enticeable = {notation.arg(a) >> 2 for a in g.legal_actions() if notation.kind(a) == notation.ENTICE}
        assert f["affordable"] == len(enticeable)
        assert f["coins"] == g.to_dict()["core"]["players"][0]["coins"]
        assert f["hand_dragons"] == len(g.to_dict()["core"]["players"][0]["hand_dragons"])
        assert 0 <= f["affordable_vp"] <= f["hand_vp"]


def test_value_is_score_plus_weighted_features_and_the_final_score_at_the_end():
    saved = _core.value_weights()
    try:
        human = [[0.0] * len(_core.VALUE_FEATURES) for _ in range(4)]
        automa = [[0.0] * len(_core.AUTOMA_VALUE_FEATURES) for _ in range(4)]
        human[1][1] = 2.0                                       # coins in round 2
        automa[1][0] = 10.0                                     # her bias in round 2
        _core.set_value_weights(human, automa)
        seen = 0
        for g in _solo_positions(3, every=7):
            b = g.score_breakdown()
            v = _core.learnt_values(g)
            if g.is_terminal():
                assert v == [float(b[0]["total"]), float(b[1]["total"])]
                continue
            coins = _core.value_features_of(g, 0)[1]
            now = b[0]["total"] - b[0]["coins"] - b[0]["items"]
            assert v[0] == pytest.approx(now + (2.0 * coins if g.round == 2 else 0.0))
            assert v[1] == pytest.approx(b[1]["total"] + (10.0 if g.round == 2 else 0.0))
            seen += g.round == 2
        assert seen > 0
    finally:
        _core.set_value_weights(*saved)
    assert _core.value_weights() == saved


def test_search_with_the_learnt_evaluation_is_deterministic():
    g = _core.Game.new(1, 11, automa="3")
    agent = make_agent("greedy", 1)
    for _ in range(25):
        g.apply(agent.choose(g))
    settings = {"iterations": 300, "evaluation": "learned", "rollout_depth": 12, "stop_early": 0}
    a = analyse(g, settings, seed=5)
    b = analyse(g.clone(), settings, seed=5)
    assert [(m.action, m.visits) for m in a.moves] == [(m.action, m.visits) for m in b.moves]
    assert a.best.action in g.legal_actions()
    # the estimate of a cut-off rollout is the learnt value, not the bare score so far
    assert a.best.score > g.score_breakdown()[0]["total"]


def test_evaluation_is_a_registered_choice():
    assert parse_settings({"evaluation": "learned"})["evaluation"] == "learned"
    with pytest.raises(ParamError, match="evaluation"):
        parse_settings({"evaluation": "neural"})
    g = _core.Game.new(1, 4, automa="1")
    assert _core.greedy_action(g, 3, "learned") in g.legal_actions()


def _play_to_round(seed, rnd, level="3"):
    g = _core.Game.new(1, seed, automa=level)
    agent = make_agent("greedy", seed)
    while g.round < rnd or g.decider != 0 or g.decision != "move":
        g.apply(agent.choose(g))
    return g


def test_a_round_cut_in_the_last_round_plays_to_the_end():
    g = _play_to_round(6, 4)
    settings = {"iterations": 200, "stop_early": 0}
    a = analyse(g, {**settings, "cut": "round", "evaluation": "learned"}, seed=3)
    b = analyse(g.clone(), {**settings, "cut": "end"}, seed=3)
    assert [(m.action, m.visits, m.score) for m in a.moves] == [(m.action, m.visits, m.score) for m in b.moves]


def test_a_round_cut_values_the_start_of_the_next_round():
    """Biases by the round of the cut: a playout from round 1 carries round 2's, so it is cut where
    round 2 starts, not in round 1 nor later; after a pass (the round ends at once: the tree's next
    node is round 2's first move) playouts start in round 2 or 3 and are cut at the next start."""
    saved = _core.value_weights()
    try:
        human = [[0.0] * len(_core.VALUE_FEATURES) for _ in range(4)]
        automa = [[0.0] * len(_core.AUTOMA_VALUE_FEATURES) for _ in range(4)]
        human[0][0] = -5000.0                                   # her bias in round 1
        human[1][0] = 1000.0                                    # in round 2
        human[2][0] = human[3][0] = 11000.0                     # in rounds 3 and 4
        _core.set_value_weights(human, automa)
        g = _play_to_round(8, 1)
        # few iterations: below the root the tree stays in round 1; no widening, so the root tries pass
        res = analyse(g, {"iterations": 40, "stop_early": 0, "pw_c": 0, "cut": "round", "evaluation": "learned"},
                      seed=2)
        moves = [m for m in res.moves if m.visits]
        assert len(moves) > 3 and any(m.text == "pass" for m in moves)
        for m in moves:
            assert (11000 < m.score < 11200) if m.text == "pass" else (1000 < m.score < 1100), m.text
        end = analyse(g.clone(), {"iterations": 40, "stop_early": 0}, seed=2)
        assert all(m.score < 200 for m in end.moves if m.visits)
    finally:
        _core.set_value_weights(*saved)


def test_card_worths_add_for_the_dragons_in_hand_and_on_the_mat():
    saved = _core.card_value_weights()
    weights = _core.value_weights()
    try:
        zero = [[0.0] * len(_core.VALUE_FEATURES) for _ in range(4)]
        _core.set_value_weights(zero, weights[1])
        hand = [[0.0] * 184 for _ in range(4)]
        mat = [[0.0] * 184 for _ in range(4)]
        for r in range(4):
            for d in range(1, 184):
                hand[r][d] = d * 0.001 + r          # distinct per card and round
                mat[r][d] = d * 1.0
        _core.set_card_value_weights(hand, mat)
        seen = 0
        for g in _solo_positions(5, every=9):
            if g.is_terminal():
                continue
            me = g.to_dict()["core"]["players"][0]
            r = min(g.round - 1, 3)
            on_mat = [d for row in me["dragons"] for d in row if d]
            b = g.score_breakdown()[0]
            now = b["total"] - b["coins"] - b["items"]
            want = now + sum(d * 0.001 + r for d in me["hand_dragons"]) + sum(on_mat)
            assert _core.learnt_values(g)[0] == pytest.approx(want)
            seen += bool(on_mat and me["hand_dragons"])
        assert seen > 0
    finally:
        _core.set_value_weights(*weights)
        _core.set_card_value_weights(*saved)
    assert _core.card_value_weights() == saved


def test_cut_is_a_registered_choice():
    assert parse_settings({"cut": "round"})["cut"] == "round"
    with pytest.raises(ParamError, match="cut"):
        parse_settings({"cut": "turn"})
