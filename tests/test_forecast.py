"""Solo forecasts: the playouts' means shifted by their measured shortfall per coin still to come."""
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor import _core
from advisor.search import forecast
from advisor.cli import main
from advisor.search.params import defaults
from advisor.search import analyse


def test_constants_are_read_and_checked(tmp_path):
    for name, by_budget in forecast.tables().items():
        for budget, c in by_budget.items():
            assert set(c) == set(forecast.FIELDS) | set(forecast.ROUND_FIELDS), name
            assert 0 < c["me_per_coin"] < 5 and abs(c["other_per_coin"]) < 5 and c["spread_base"] > 0
    bad = tmp_path / "forecast.toml"
    fields = "me_per_coin = 1.5\nother_per_coin = 0.1\nspread_base = 3\nspread_per_coin = 2\nwin_shift = 0\n"
    bad.write_text("[forecast.2p.greedy]\n" + fields.replace("0.1", "'x'"))
    with pytest.raises(forecast.ForecastDataError,
                       match="forecast.toml: \\[forecast.2p.greedy\\] other_per_coin must be a number"):
        forecast.constants("2p.greedy", path=bad)
    bad.write_text("[forecast.2p.greedy]\n" + fields + "me_by_round = [1, 2]\n")
    with pytest.raises(forecast.ForecastDataError, match="me_by_round must be 4 numbers, got \\[1, 2\\]"):
        forecast.constants("2p.greedy", path=bad)
    bad.write_text("[forecast.greedy]\n" + fields)
    with pytest.raises(forecast.ForecastDataError, match="\\[forecast.greedy\\] is not a player count's tables"):
        forecast.constants("2p.greedy", path=bad)
    bad.write_text("[forecast.2p.greedy.many]\n" + fields)
    with pytest.raises(forecast.ForecastDataError,
                       match="\\[forecast.2p.greedy.many\\] is not a table at a budget"):
        forecast.constants("2p.greedy", path=bad)
    bad.write_text("[forecast.2p.greedy.2000]\n" + fields.replace("spread_base = 3\n", ""))
    with pytest.raises(forecast.ForecastDataError, match="\\[forecast.2p.greedy.2000\\] spread_base must be a number"):
        forecast.constants("2p.greedy", path=bad)
    bad.write_text("[forecast]\n")
    with pytest.raises(forecast.ForecastDataError, match="no \\[forecast.NP.PLAYOUT\\] tables"):
        forecast.constants("2p.greedy", path=bad)
    with pytest.raises(forecast.ForecastDataError, match="no \\[forecast.1p.mast\\] table"):
        forecast.constants("1p.mast")
    with pytest.raises(forecast.ForecastDataError, match="file not found"):
        forecast.constants("1p.greedy", path=tmp_path / "missing.toml")
    bad.write_text("[forecast\n")
    with pytest.raises(forecast.ForecastDataError, match="not valid TOML"):
        forecast.constants("1p.greedy", path=bad)


C = {"me_per_coin": 1.5, "other_per_coin": 0.5, "spread_base": 3.0, "spread_per_coin": 2.0, "win_shift": 0.5,
     "me_by_round": [1.0, 2.0, 3.0, 4.0], "other_by_round": [0.0, -1.0, -2.0, -3.0]}


def test_forecast_arithmetic():
    f = forecast.forecast([60.0, 90.0], 0, [10, 4], 2, C)
    assert f.scores == pytest.approx((60.0 + 15 + 2, 90.0 + 2 - 1)) and f.seat == 0
    assert f.score == f.scores[0] and f.margin == pytest.approx(f.scores[0] - f.scores[1])
    spread = math.hypot(3.0, 2.0 * math.sqrt(10))     # her coins to come widen it
    assert f.win == pytest.approx(0.5 * (1 + math.erf((f.margin + 0.5) / (spread * math.sqrt(2)))))
    # nothing to come, in round 4: the playouts plus the round's constants, the chance by the margin's sign
    end = forecast.forecast([90.0, 80.0], 1, [0, 0], 4, C)
    assert end.scores == (87.0, 84.0) and end.margin == -3.0
    assert end.win == pytest.approx(0.5 * (1 + math.erf((-3.0 + 0.5) / (3.0 * math.sqrt(2)))))
    wins = [forecast.forecast([50.0, 50 - m], 0, [12, 12], 1, C).win for m in range(-60, 20, 5)]
    assert wins == sorted(wins) and 0 <= wins[0] < wins[-1] <= 1


def test_win_chances_against_several_seats():
    c = {**C, "win_shift": 0.0}
    # equal forecasts: each of n seats wins one time in n
    for n in (2, 3, 4, 5):
        assert forecast.win_chance([0.0] * (n - 1), 5, c) == pytest.approx(1 / n, abs=1e-6)
    # a seat far behind changes nothing; two close ones are harder to beat than one
    assert forecast.win_chance([4.0, 200.0], 5, c) == pytest.approx(forecast.win_chance([4.0], 5, c))
    assert forecast.win_chance([4.0, 4.0], 5, c) < forecast.win_chance([4.0], 5, c)
    rows = forecast.win_chances([[4.0, 1.0], [-3.0, 2.0]], [5, 0], c)
    assert rows == pytest.approx([forecast.win_chance([4.0, 1.0], 5, c), forecast.win_chance([-3.0, 2.0], 0, c)])


def test_every_seat_counts_its_own_coins_to_come():
    game = _core.Game.new(3, 5)
    seen = game.observation(1)["players"]
    assert forecast.seat_coins_to_come(game, 1) == [p["coins"] + 6 * 3 for p in seen]
    solo = _core.Game.new(1, 5, automa="3")
    mine = forecast.coins_to_come(solo, 0)
    assert forecast.seat_coins_to_come(solo, 0) == [mine, mine]       # the Automa counts the player's time


def test_coins_to_come_counts_held_and_later_rounds():
    game = _core.Game.new(1, 5, automa="3")
    held = game.observation(0)["players"][0]["coins"]
    assert forecast.coins_to_come(game, 0) == held + 6 * 3
    while game.round < 4:
        game.apply(game.legal_actions()[0])
    assert forecast.coins_to_come(game, 0) == game.observation(0)["players"][0]["coins"]


def test_playouts_are_named_by_playout_and_a_greedy_playouts_lookahead():
    name = lambda **s: forecast.playout(defaults(solo=True) | s)
    assert name(playout="greedy_mast", lookahead="heuristic") == "greedy_mast"
    assert name(playout="greedy_mast", lookahead="cards") == "greedy_mast-cards"
    assert name(playout="greedy", lookahead="cards") == "greedy-cards"
    assert name(playout="mast", lookahead="cards") == "mast"       # only greedy playouts look ahead
    assert name(playout="weighted", lookahead="cards") == "weighted"


def test_games_get_forecasts_where_their_player_count_and_playouts_are_measured():
    solo = _core.Game.new(1, 2, automa="2")
    for name in forecast.tables():
        players, _, play = name.partition(".")
        playout, _, look = play.partition("-")
        game = solo if players == "1p" else _core.Game.new(int(players[:-1]), 2)
        a = analyse(game, {"iterations": 300, "playout": playout, "lookahead": look or "heuristic"}, seed=1)
        assert all(m.forecast is not None and len(m.forecast.scores) == len(m.seat_scores)
                   for m in a.moves if m.visits), name
    assert forecast.key(1, forecast.playout(defaults(solo=True))) in forecast.tables()
    for settings in ({"iterations": 300, "playout": "weighted"}, {"iterations": 300, "playout": "mast"}):
        assert all(m.forecast is None for m in analyse(solo, settings, seed=1).moves)


def test_forecasts_shift_every_move_alike_and_keep_the_ranking():
    game = _core.Game.new(1, 9, automa="3")
    a = analyse(game, {"iterations": 600}, seed=4)
    to_come = forecast.coins_to_come(game, a.player)
    assert a.coins_to_come == to_come
    c = forecast.constants(forecast.key(1, forecast.playout(defaults(solo=True))))
    moves = [m for m in a.moves if m.visits]
    for m in moves:
        assert m.seat_scores[0] == pytest.approx(m.score)       # suggest: every visit has its outcome
        assert m.forecast.score - m.score == pytest.approx(c["me_per_coin"] * to_come + c["me_by_round"][0])
        assert m.forecast.scores[1] - m.seat_scores[1] == pytest.approx(c["other_per_coin"] * to_come
                                                                        + c["other_by_round"][0])
        assert m.outlook() == (m.forecast.win, m.forecast.score, m.forecast.margin)
    by_margin = sorted(moves, key=lambda m: m.forecast.margin)
    assert [m.forecast.win for m in by_margin] == sorted(m.forecast.win for m in moves)


SOLO_EXAMPLE = str(Path(__file__).parent.parent / "examples" / "solo-l2.toml")


def test_suggest_shows_forecasts_on_a_solo_position():
    r = CliRunner().invoke(main, ["suggest", SOLO_EXAMPLE, "--iterations", 300])
    assert r.exit_code == 0, r.output
    assert " ".join(r.output.split()).endswith("ranked by visits (how often the search chose each move); win, scores: "
                                               "forecasts at the advisor's strength (how: docs/forecasts.md)")
    out = json.loads(CliRunner().invoke(main, ["suggest", SOLO_EXAMPLE, "--iterations", 300, "--json"]).output)
    best = out["moves"][0]
    f = best["forecast"]
    assert set(f) == {"win", "score", "margin", "scores", "budget"} and 0 <= f["win"] <= 1 and f["score"] > best["playouts"]["score"]
    assert f["scores"][0] == f["score"] and len(best["playouts"]["scores"]) == 2 and out["basis"] == "forecast"


@pytest.mark.slow
def test_the_bench_records_games_fits_a_table_and_checks_its_calibration(tmp_path):
    """bench/fit_forecast.py record, fit and calibration: the measurement behind forecast.toml."""
    import subprocess
    import sys
    bench = Path(__file__).parent.parent / "bench" / "fit_forecast.py"
    data = [tmp_path / "f2.npz", tmp_path / "f1.npz"]
    for args, out in ((["--players", "2", "--games", "4"], data[0]),
                      (["--players", "1", "--levels", "3", "--games", "2"], data[1])):
        r = subprocess.run([sys.executable, bench, "record", "--agent", "ismcts:iterations=40,time=0", *args,
                            "--workers", "1", "--out", out], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, bench, "fit", data[0]], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "[forecast.2p.weighted.40]: " in r.stdout and "decisions from 4 games at 40 iterations" in r.stdout
    assert "wrote" not in r.stdout                      # only --write touches advisor/data/forecast.toml
    r = subprocess.run([sys.executable, bench, "calibration", *data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = [line.split(" | ") for line in r.stdout.splitlines() if line.startswith("| 2 | ")]
    assert [row[2] for row in rows[:4]] == ["1", "2", "3", "4"]        # the error by round, each half's
    assert all(len(row[3].split(" / ")) == 2 for row in rows[:4])
    assert any(row[1] == "all" and float(row[-1].split()[0]) < 1 for row in rows)      # a Brier score
    # a tournament's games measure forecasts too: its records keep every search's outlook
    results = tmp_path / "t.jsonl"
    r = CliRunner().invoke(main, ["tournament", "--agent", "a=ismcts:iterations=30,time=0", "--agent", "g=greedy",
                                  "--players", 2, "--games", 2, "--seed", 5, "--out", results, "--no-progress"])
    assert r.exit_code == 0, r.output
    r = subprocess.run([sys.executable, bench, "tournament", results, "--agent", "a", "--out", data[0]],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "from 2 games" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, bench, "tournament", results, "--agent", "g", "--out", data[0]],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "no recorded searches" in r.stderr          # greedy does not search
    r = subprocess.run([sys.executable, bench, "calibration", data[0], "--fit-on", data[0]],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "| 2 | " in r.stdout, r.stderr


def test_a_refit_replaces_its_own_table_and_keeps_the_others(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("fit_forecast", Path(__file__).parent.parent / "bench" / "fit_forecast.py")
    lv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lv)
    path = tmp_path / "forecast.toml"
    path.write_text(forecast.FORECAST_FILE.read_text())
    old = forecast.tables(path)
    lv.write_table("2p.greedy_mast", 2000, C, "a test", path)
    lv.write_table("2p.greedy_mast", 2000, {**C, "win_shift": -2.0}, "again", path)
    lv.write_table("2p.greedy_mast", 30000, C, "another budget", path)
    forecast.tables.cache_clear()                       # the file is read once a process
    new = forecast.tables(path)
    assert new == {**old, "2p.greedy_mast": {2000: {**C, "win_shift": -2.0}, 30000: C}}
    text = path.read_text()
    assert text.count("2p.greedy_mast.2000:") == 1 and "# 2p.greedy_mast.2000: again" in text
    # a budget measured replaces the one table that stood for every budget
    lv.write_table("1p.greedy", 2000, C, "measured at a budget", path)
    forecast.tables.cache_clear()
    assert forecast.tables(path)["1p.greedy"] == {2000: C} and "[forecast.1p.greedy]" not in path.read_text()
    forecast.tables.cache_clear()


def test_the_constants_follow_the_search_budget_in_log_iterations():
    low = {**C, "me_by_round": [0.0] * 4}
    high = {k: (v * 3 if isinstance(v, float) else [x + 4.0 for x in v]) for k, v in low.items()}
    by_budget = {2000: low, 32000: high}
    mid = forecast.at_budget(by_budget, 8000)                  # halfway in log(iterations)
    assert mid["me_per_coin"] == pytest.approx(2 * low["me_per_coin"]) and mid["me_by_round"] == [2.0] * 4
    assert forecast.at_budget(by_budget, 500) == low and forecast.at_budget(by_budget, 10 ** 6) == high
    assert forecast.at_budget(by_budget, None) == high and forecast.at_budget({0: low}, 10 ** 6) == low
    # a search takes the constants of the iterations it ran
    game = _core.Game.new(2, 3)
    a = analyse(game, {"iterations": 300}, seed=1)
    c = forecast.for_search(game, defaults(), 300)
    m = a.moves[0]
    assert m.forecast.scores[m.forecast.seat] == pytest.approx(
        m.seat_scores[a.player] + c["me_per_coin"] * a.coins_to_come + c["me_by_round"][0])
    assert forecast.for_search(_core.Game.new(2, 3), defaults() | {"playout": "mast"}, 300) is None
    assert m.forecast.budget == min(forecast.tables()[forecast.key(2, "weighted")])


FOUR = str(Path(__file__).parent.parent / "examples" / "mid-4p.toml")


def test_a_search_past_the_budgets_measured_says_whose_play_it_forecasts():
    top = max(forecast.tables()[forecast.key(4, "weighted")])
    r = CliRunner().invoke(main, ["suggest", FOUR, "--iterations", 2 * top, "--top", 3, "--set", "stop_early=0"])
    assert r.exit_code == 0, r.output
    assert " ".join(r.output.split()).endswith(f"win, scores: forecasts of play at {top:,} iterations a move; "
                                               "docs/forecasts.md")
    out = json.loads(CliRunner().invoke(main, ["suggest", FOUR, "--iterations", 2 * top, "--json", "--set",
                                               "stop_early=0"]).output)
    assert all(m["forecast"]["budget"] == top for m in out["moves"] if m["forecast"])
    assert forecast.tables()["1p.greedy_mast"].keys() == {forecast.ANY}      # one table for every budget
    solo = json.loads(CliRunner().invoke(main, ["suggest", SOLO_EXAMPLE, "--iterations", 300, "--json", "--set",
                                                "playout=greedy_mast", "--set", "lookahead=heuristic"]).output)
    assert solo["moves"][0]["forecast"]["budget"] is None
