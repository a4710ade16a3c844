"""The search's defaults per player count, pinned: changing one is a decision of play (a new play
version, the play-identity pins rewritten, docs/strength.md updated), never a side effect."""
from advisor.search.params import defaults

MULTIPLAYER = {"time": 1.0, "iterations": 0, "c": 0.7, "playout": "weighted", "mast_epsilon": 0.3,
               "lookahead": "heuristic", "expand": "random", "margin_weight": 0.8, "judge": 0.0, "pw_c": 0.0,
               "stop_early": 1, "reuse": 1, "max_nodes": 2_000_000, "workers": 1}
SOLO = {**MULTIPLAYER, "c": 0.15, "playout": "greedy_mast", "lookahead": "cards", "expand": "playout",
        "pw_c": 1.0, "stop_early": 0}


def test_multiplayer_defaults_for_2_to_5_players():
    assert defaults(solo=False) == MULTIPLAYER


def test_solo_defaults_against_the_automa():
    assert defaults(solo=True) == SOLO
