"""`advisor review` (advisor/review/): each decision of a finished game searched again, the move
played against the best and the points it gave up; from a play save or a tournament game."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor._core import greedy_action
from advisor.cli import main
from advisor.notation import ENTICE, kind
from advisor.play.saves import save_session
from advisor.play.session import Session
from advisor.play.setup import make_setup
from advisor.review import load_played, review
from advisor.review.report import WIDTH, summary
from advisor.search.analysis import Limit, analyse

BUDGET = ["--iterations", "400"]


def _blunder_save(path: Path) -> int:
    """A finished 2-player game saved by `advisor play`: greedy play for both seats, except for one
    deliberate blunder of the human (seat 0): at the move where enticing a dragon is best by the
    widest margin (a 2,000-iteration search of its own, another seed than the review's), the move
    that search rated worst. Returns the blunder's decision index."""
    setup = make_setup(players=2, seat=0, opponents=["greedy"], seed=22)
    plain = Session(setup)
    n, widest, target = 0, 0.0, (-1, -1)
    while not plain.game.is_terminal():
        g = plain.game
        if g.decider == 0 and g.decision == "move" and any(kind(b) == ENTICE for b in g.legal_actions()):
            a = analyse(g, {"pw_c": 0.0}, seed=99, limit=Limit(iterations=2000))
            judged = [m for m in a.moves if m.visits >= 20]
            worst = min(judged, key=lambda m: m.score)
            if kind(a.best.action) == ENTICE and a.best.score - worst.score > widest:
                widest, target = a.best.score - worst.score, (len(plain.record), worst.action)
        plain.apply(greedy_action(g, n))
        n += 1
    assert widest > 10
    s = Session(setup)
    n = 0
    while not s.game.is_terminal():
        s.apply(target[1] if len(s.record) == target[0] else greedy_action(s.game, n))
        n += 1
    save_session(s, str(path))
    return target[0]


@pytest.fixture(scope="module")
def blunder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("review") / "game.toml"
    return path, _blunder_save(path)


def test_the_deliberate_blunder_is_the_largest_mistake(blunder: tuple[Path, int]) -> None:
    path, index = blunder
    played = load_played(str(path))
    assert played.default_seats == [0]
    verdicts = review(played, [0], Limit(iterations=400), seed=1)
    s = summary(verdicts, 0)
    assert s["largest"][0] == index
    worst = next(v for v in verdicts if v.index == index)
    assert worst.best.startswith("entice ") and worst.lost > 8 and worst.lost - worst.lost_ci > 0
    assert s["lost"] >= worst.lost and s["decisions"] == len(verdicts) > 20
    assert s["by_kind"]["moves"]["lost"] >= worst.lost
    assert all(v.seat == 0 for v in verdicts)
    # the same seed gives the same review
    again = review(played, [0], Limit(iterations=400), seed=1)
    assert [v.to_json() for v in again] == [v.to_json() for v in verdicts]


def test_text_fits_80_columns_and_json_says_the_same(blunder: tuple[Path, int]) -> None:
    path, index = blunder
    r = CliRunner().invoke(main, ["review", str(path), *BUDGET, "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert max(len(line) for line in r.output.splitlines()) <= WIDTH
    assert f"1. decision {index + 1} (round " in r.output
    j = CliRunner().invoke(main, ["review", str(path), *BUDGET, "--seed", "1", "--json"])
    doc = json.loads(j.output)
    seat = doc["seats"][0]
    assert seat["name"] == "P0" and seat["summary"]["largest"][0] == index
    assert set(seat["decisions"][0]) == {"index", "seat", "round", "decision", "kind", "options", "played", "best",
                                         "lost", "lost_ci", "score", "opponent", "played_visits", "basis"}
    assert f"{seat['summary']['lost']:.1f} points lost in all" in r.output


def test_a_tournament_game_by_its_key_and_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    r = CliRunner().invoke(main, ["tournament", "--agent", "g=greedy", "--agent", "r=random", "--players", "2",
                                  "--games", "2", "--seed", "3", "--workers", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    played = load_played(str(out), "d0.g1")
    assert played.names == ["r", "g"] and played.default_seats == [0, 1]     # the deal's second seating
    r = CliRunner().invoke(main, ["review", str(out), "--game", "d0.g1", "--seat", "r", "--iterations", "50",
                                  "--workers", "2"])
    assert r.exit_code == 0 and r.output.startswith("r: ")
    for args, message in [(["--game", "d0.g7"], "no finished game with that key"),
                          ([], "choose a game with --game KEY"),
                          (["--game", "d0.g0", "--seat", "gg"], "did you mean g?")]:
        r = CliRunner().invoke(main, ["review", str(out), *args, "--iterations", "50"])
        assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_records_without_decisions_are_refused(tmp_path: Path) -> None:
    old = Path(__file__).parent.parent / "bench/results/mp-self-3p-15k-seed47.jsonl.gz"
    r = CliRunner().invoke(main, ["review", str(old), "--game", "d0.g0"])
    assert r.exit_code == 2 and "recorded without its decisions" in r.output


def test_an_unfinished_save_is_refused(tmp_path: Path) -> None:
    s = Session(make_setup(players=2, seat=0, opponents=["greedy"], seed=4))
    for n in range(10):
        s.apply(greedy_action(s.game, n))
    save_session(s, str(tmp_path / "half.toml"))
    r = CliRunner().invoke(main, ["review", str(tmp_path / "half.toml")])
    assert r.exit_code == 2 and "the game is not finished" in r.output


def test_resume_takes_the_decisions_kept_and_refuses_another_budget(blunder: tuple[Path, int],
                                                                     tmp_path: Path) -> None:
    path, _ = blunder
    played = load_played(str(path))
    out = tmp_path / "r.jsonl"
    whole = CliRunner().invoke(main, ["review", str(path), "--iterations", "100", "--json"])
    first = CliRunner().invoke(main, ["review", str(path), "--iterations", "100", "--out", str(out), "--json"])
    assert first.exit_code == 0 and first.output == whole.output
    # a review cut short: keep the header and the first ten decisions, then resume
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:11]) + "\n")
    again = CliRunner().invoke(main, ["review", str(path), "--iterations", "100", "--out", str(out), "--resume",
                                      "--json"])
    assert again.exit_code == 0 and again.output == whole.output
    assert len(out.read_text().splitlines()) == len(lines)
    r = CliRunner().invoke(main, ["review", str(path), "--iterations", "100", "--out", str(out)])
    assert r.exit_code == 2 and "--resume goes on with it" in r.output
    r = CliRunner().invoke(main, ["review", str(path), "--iterations", "99", "--out", str(out), "--resume"])
    assert r.exit_code == 2 and "reviews with another limit" in r.output
    assert played.names[0] == "P0"


def test_interrupt_keeps_what_was_reviewed(blunder: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.review import judge as review_module
    path, _ = blunder
    played = load_played(str(path))
    calls = {"n": 0}
    real = review_module.review_decision

    def stop_on_the_fifth(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(review_module, "review_decision", stop_on_the_fifth)
    with pytest.raises(review_module.ReviewInterrupted) as e:
        review_module.review(played, [0], Limit(iterations=50))
    assert len(e.value.verdicts) == 4
    assert all(not math.isnan(v.score) for v in e.value.verdicts)


def test_plot(blunder: tuple[Path, int], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path, _ = blunder
    png = tmp_path / "review.png"
    r = CliRunner().invoke(main, ["review", str(path), "--iterations", "50", "--plot", str(png)])
    assert r.exit_code == 0 and png.read_bytes()[:4] == b"\x89PNG"
