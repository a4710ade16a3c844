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
    assert r.exit_code == 2 and "unfinished game (10 decisions)" in r.output


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


# ---------------------------------------------------------------------------- the totals and the plot
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from advisor._core import Game  # noqa: E402
from advisor.review.judge import Verdict  # noqa: E402
from advisor.review.report import figure, text  # noqa: E402
from advisor.review.source import PlayedGame  # noqa: E402


@st.composite
def verdict_lists(draw: st.DrawFn) -> list[Verdict]:
    n = draw(st.integers(1, 40))
    indices = sorted(draw(st.sets(st.integers(0, 300), min_size=n, max_size=n)))
    out = []
    for i in indices:
        lost = draw(st.one_of(st.just(0.0), st.just(math.nan), st.floats(0, 30)))
        ci = 0.0 if lost == 0 else draw(st.floats(0, 10))
        out.append(Verdict(index=i, seat=0, round=1 + i * 4 // 301, decision="move", kind="moves", options=5,
                           played="pass" if lost else "explore golden", best="explore golden", lost=lost,
                           lost_ci=ci, score=draw(st.floats(40, 120)), opponent=draw(st.floats(40, 120)),
                           played_visits=100, basis="playouts"))
    return out


def _played() -> PlayedGame:
    return PlayedGame(start=Game.new(2, 0), actions=[], names=["P0", "P1"], default_seats=[0], label="g.toml")


@settings(max_examples=60, deadline=None)
@given(verdicts=verdict_lists())
def test_the_totals_count_only_losses_whose_interval_lies_above_0(verdicts: list[Verdict]) -> None:
    """Each loss is floored at 0, so noise-sized ones would add up with the budget's noise: the
    totals count a loss only when its 95% interval lies above 0, and the text says so."""
    s = summary(verdicts, 0)
    clear = [v for v in verdicts if not math.isnan(v.lost) and v.lost >= 0.05 and v.lost - v.lost_ci > 0]
    noise = [v for v in verdicts if not math.isnan(v.lost) and v.lost >= 0.05 and v.lost - v.lost_ci <= 0]
    assert s["lost"] == pytest.approx(sum(v.lost for v in clear), abs=0.01)
    assert s["by_kind"]["moves"]["lost"] == s["lost"]
    assert s["mistakes"] == len(clear) and s["within_noise"] == len(noise)
    assert set(s["largest"]) <= {v.index for v in clear}
    out = " ".join(" ".join(text(_played(), verdicts, [0])).split())
    assert (f"{s['lost']:.1f} points lost in all, in {len(clear)} clear mistake"
            f"{'' if len(clear) == 1 else 's'} ({len(noise)} more within noise)") in out
    assert "Only clear mistakes, whose interval lies above 0, count in the totals" in out
    assert out.count("within noise: ") == len(noise)


@settings(max_examples=6, deadline=None)
@given(verdicts=verdict_lists())
def test_every_mistake_on_the_plot_has_a_label_and_no_two_overlap(verdicts: list[Verdict]) -> None:
    import matplotlib.pyplot as plt
    fig = figure(_played(), verdicts, [0])
    try:
        marked = [v for v in verdicts if not math.isnan(v.lost) and v.lost >= 2 and v.lost - v.lost_ci > 0]
        labels = [t for t in fig.axes[0].texts]
        assert sorted(t.get_text() for t in labels) == sorted(f"-{v.lost:.0f}" for v in marked)
        renderer = fig.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    finally:
        plt.close(fig)


def test_plot_without_matplotlib_fails_before_the_review(blunder: tuple[Path, int],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import advisor.review.judge as judge
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # as if not installed

    def searched(*args: object, **kwargs: object) -> None:
        raise AssertionError("the review ran before --plot was checked")
    monkeypatch.setattr(judge, "review", searched)
    r = CliRunner().invoke(main, ["review", str(blunder[0]), *BUDGET, "--plot", "x.png"])
    assert r.exit_code == 2 and "--plot needs matplotlib" in r.output and "Traceback" not in r.output
