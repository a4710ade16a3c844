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
    for playout, c in forecast.tables().items():
        assert set(c) == set(forecast.FIELDS), playout
        assert 0 < c["margin_per_coin"] < 5 and 0 < c["score_per_coin"] < 5 and c["spread_base"] > 0
    bad = tmp_path / "forecast.toml"
    bad.write_text("[forecast.greedy]\nscore_per_coin = 1.5\nmargin_per_coin = 'x'\n")
    with pytest.raises(forecast.ForecastDataError,
                       match="forecast.toml: \\[forecast.greedy\\] margin_per_coin must be a number"):
        forecast.constants("greedy", bad)
    bad.write_text("[forecast]\nscore_per_coin = 1.5\n")
    with pytest.raises(forecast.ForecastDataError, match="no \\[forecast.PLAYOUT\\] tables"):
        forecast.constants("greedy", bad)
    with pytest.raises(forecast.ForecastDataError, match="no \\[forecast.mast\\] table"):
        forecast.constants("mast")
    with pytest.raises(forecast.ForecastDataError, match="file not found"):
        forecast.constants("greedy", tmp_path / "missing.toml")
    bad.write_text("[forecast\n")
    with pytest.raises(forecast.ForecastDataError, match="not valid TOML"):
        forecast.constants("greedy", bad)


def test_forecast_arithmetic():
    c = forecast.constants()
    f = forecast.forecast(60.0, -30.0, 10)
    assert f.score == pytest.approx(60.0 + 10 * c["score_per_coin"])
    assert f.margin == pytest.approx(-30.0 + 10 * c["margin_per_coin"])
    spread = math.hypot(c["spread_base"], c["spread_per_coin"] * math.sqrt(10))
    assert f.win == pytest.approx(0.5 * (1 + math.erf((f.margin + c["win_shift"]) / (spread * math.sqrt(2)))))
    # nothing to come: the playouts are the forecast, and the chance follows the margin's sign
    end = forecast.forecast(90.0, 3.0, 0)
    assert (end.score, end.margin) == (90.0, 3.0) and end.win > 0.5
    assert forecast.forecast(90.0, -20.0, 0).win < 0.01
    wins = [forecast.forecast(50.0, m, 12).win for m in range(-60, 20, 5)]
    assert wins == sorted(wins) and 0 <= wins[0] < wins[-1] <= 1


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


def test_only_solo_games_with_measured_playouts_get_forecasts():
    solo = _core.Game.new(1, 2, automa="2")
    duo = _core.Game.new(2, 2)
    for name in forecast.tables():              # the solo default's among them
        playout, _, look = name.partition("-")
        a = analyse(solo, {"iterations": 300, "playout": playout, "lookahead": look or "heuristic"}, seed=1)
        assert all(m.forecast is not None for m in a.moves if m.visits)
    assert forecast.playout(defaults(solo=True)) in forecast.tables()
    for settings in ({"iterations": 300, "playout": "weighted"}, {"iterations": 300, "playout": "mast"},
                     {"iterations": 300, "playout": "greedy", "lookahead": "cards"}):
        assert all(m.forecast is None for m in analyse(solo, settings, seed=1).moves)
    b = analyse(duo, {"iterations": 300}, seed=1)
    assert b.coins_to_come is None and all(m.forecast is None for m in b.moves)


def test_forecasts_shift_every_move_alike_and_keep_the_ranking():
    game = _core.Game.new(1, 9, automa="3")
    a = analyse(game, {"iterations": 600}, seed=4)
    to_come = forecast.coins_to_come(game, a.player)
    assert a.coins_to_come == to_come
    c = forecast.constants(forecast.playout(defaults(solo=True)))
    moves = [m for m in a.moves if m.visits]
    for m in moves:
        assert m.forecast.margin - m.margin == pytest.approx(c["margin_per_coin"] * to_come)
        assert m.forecast.score - m.score == pytest.approx(c["score_per_coin"] * to_come)
        assert m.outlook() == (m.forecast.win, m.forecast.score, m.forecast.margin)
    by_margin = sorted(moves, key=lambda m: m.margin)
    assert [m.forecast.win for m in by_margin] == sorted(m.forecast.win for m in moves)


SOLO_EXAMPLE = str(Path(__file__).parent.parent / "examples" / "solo-l2.toml")


def test_suggest_shows_forecasts_on_a_solo_position():
    r = CliRunner().invoke(main, ["suggest", SOLO_EXAMPLE, "--iterations", 300])
    assert r.exit_code == 0, r.output
    note = " ".join(r.output.split("win, score, margin: ")[-1].split())        # wrapped at 80 columns
    assert note.startswith("forecasts if the search plays on")
    out = json.loads(CliRunner().invoke(main, ["suggest", SOLO_EXAMPLE, "--iterations", 300, "--json"]).output)
    f = out["moves"][0]["forecast"]
    assert set(f) == {"win", "score", "margin"} and 0 <= f["win"] <= 1 and f["score"] > out["moves"][0]["score"]


def test_the_bench_records_playouts_and_measures_the_gap(tmp_path):
    """bench/fit_forecast.py record --playouts, then gap: the measurement behind forecast.toml."""
    import subprocess
    import sys
    bench = Path(__file__).parent.parent / "bench" / "fit_forecast.py"
    data = tmp_path / "gap.npz"
    r = subprocess.run([sys.executable, bench, "record", "--agent", "ismcts:iterations=20", "--levels", "3",
                        "--games", "2", "--playouts", "2", "--workers", "1", "--out", data],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, bench, "gap", data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "positions from 2 games, greedy playouts, 2 each" in r.stdout and "per coin to come: margin" in r.stdout
    assert "wrote" not in r.stdout                      # only --write touches advisor/data/forecast.toml
    # playouts that learn within a search (the solo defaults' greedy_mast, with the cards lookahead)
    # are measured by the means the search gave its moves, and named by playout and lookahead
    r = subprocess.run([sys.executable, bench, "record", "--agent", "ismcts:iterations=20",
                        "--levels", "3", "--games", "1", "--search-means", "--workers", "1", "--out", data],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, bench, "gap", data], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "positions from 1 games, greedy_mast-cards playouts, the means the search gave its moves" in r.stdout


def test_a_refit_replaces_its_own_playouts_table_and_keeps_the_others(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("fit_forecast", Path(__file__).parent.parent / "bench" / "fit_forecast.py")
    lv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lv)
    path = tmp_path / "forecast.toml"
    path.write_text(forecast.FORECAST_FILE.read_text())
    old = forecast.tables(path)
    c = dict.fromkeys(forecast.FIELDS, 1.5)
    lv.write_table("greedy_mast", c, "a test", path)
    lv.write_table("greedy_mast", {**c, "win_shift": -2.0}, "again", path)
    forecast.tables.cache_clear()                       # the file is read once a process
    new = forecast.tables(path)
    assert new == {**old, "greedy_mast": {**c, "win_shift": -2.0}}
    assert path.read_text().count("greedy_mast:") == 1 and "# greedy_mast: again" in path.read_text()
