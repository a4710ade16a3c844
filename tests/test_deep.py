"""The agent's own games as judge of a commitment (advisor/search/deep.py): which decisions are
commitments, sequential halving, determinism, no reading of hidden cards, the agent and suggest."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor import _core
from advisor.cli import main
from advisor.search import analyse
from advisor.search.agents import ISMCTSAgent, make_agent
from advisor.search.deep import deep_analyse, is_commitment
from helpers import swap_hidden

EARLY = str(Path(__file__).parent.parent / "examples" / "early-2p.toml")


def _late(seed=4):
    """A 2-player game in round 4, where the agent's games are short."""
    g = _core.Game.new(2, seed)
    agent = make_agent("greedy", seed)
    while g.round < 4 or g.decision != "move" or len(g.legal_actions()) < 4:
        g.apply(agent.choose(g))
    return g


def test_commitments_are_setup_and_the_first_two_turns():
    g = _core.Game.new(3, 2)
    assert g.decision.startswith("setup") and is_commitment(g)
    moves = []
    while g.round == 1:
        if g.decision == "move":
            moves.append(is_commitment(g))
        g.apply(g.legal_actions()[0])
    assert moves[:6] == [True] * 6 and not any(moves[6:])
    assert not is_commitment(_late())


def test_halving_spends_the_games_on_the_survivors_and_is_repeatable():
    g = _late()
    moves = [m.action for m in analyse(g, {"iterations": 300}, seed=1).moves[:4]]
    d = deep_analyse(g, moves, 16, {}, seed=3)
    games = {c.action: c.games for c in d.candidates}
    # round 1: 2 worlds for each of 4; round 2: 4 more for each of the 2 kept
    assert sorted(games.values()) == [2, 2, 6, 6] and d.games == 16
    assert [c.round_out for c in d.candidates] == [0, 2, 1, 1]
    kept = d.candidates[:2]
    assert kept[0].mean("rewards") >= kept[1].mean("rewards")
    again = deep_analyse(g, moves, 16, {}, seed=3, workers=2)      # the same on 2 worker processes
    assert [(c.action, c.scores) for c in again.candidates] == [(c.action, c.scores) for c in d.candidates]
    other = deep_analyse(g, moves, 16, {}, seed=4)
    assert [c.scores for c in other.candidates] != [c.scores for c in d.candidates]


def test_the_games_deal_their_worlds_from_the_players_view():
    g = _late()
    h = swap_hidden(g)
    moves = [m.action for m in analyse(g, {"iterations": 200}, seed=1).moves[:2]]
    assert [c.scores for c in deep_analyse(g, moves, 4, {}, seed=2).candidates] == \
        [c.scores for c in deep_analyse(h, moves, 4, {}, seed=2).candidates]


def test_an_agent_with_deep_judges_its_commitments_by_its_games():
    g = _core.Game.new(2, 6)
    agent = ISMCTSAgent({"iterations": 100, "deep": 4})
    agent.reset(1)
    action = agent.choose(g)
    assert agent.last_deep is not None and agent.last_deep.games == 4 and len(agent.last_deep.candidates) == 2
    assert action == agent.last_deep.best.action
    plain = ISMCTSAgent({"iterations": 100})
    plain.reset(1)
    plain.choose(g)
    assert plain.last_deep is None


def test_suggest_deep_prints_and_returns_the_judgement():
    runner = CliRunner()
    r = runner.invoke(main, ["suggest", EARLY, "--iterations", 300, "--deep", 4, "--json"])
    assert r.exit_code == 0, r.output
    deep = json.loads(r.output)["deep"]
    assert deep["games"] == 4 and deep["rollout_iterations"] == 200
    assert {m["move"] for m in deep["moves"]} <= {m["move"] for m in json.loads(r.output)["moves"]}
    assert set(deep["moves"][0]) == {"move", "action", "games", "win", "score", "margin", "margin_se",
                                     "dropped_in_round"}
    r = runner.invoke(main, ["suggest", EARLY, "--iterations", 300, "--deep", 4])
    assert r.exit_code == 0 and "the advisor's choice: " in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80
    assert json.loads(runner.invoke(main, ["suggest", EARLY, "--iterations", 300, "--json"]).output)["deep"] is None
    r = runner.invoke(main, ["suggest", EARLY, "--deep", 4, "--set", "deep=8"])
    assert r.exit_code == 2 and "--deep and --set deep= both set deep" in r.output


@pytest.mark.parametrize("bad", ["0", "x"])
def test_suggest_refuses_a_bad_number_of_games(bad):
    r = CliRunner().invoke(main, ["suggest", EARLY, "--deep", bad])
    assert r.exit_code == 2 and "Traceback" not in r.output
