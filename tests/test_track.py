"""`advisor track`: a game at the table followed move by move (advisor/track/, docs/track.md).

The replay tests play seeded games with the engine's own chance and replay them through the tracker
from the viewer's view only: the moves in the notation, the cards the viewer sees come up named,
the rest left to the engine. The viewer's observation must equal the original's after every move,
and the final scores must be equal."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from advisor.cli import main
from advisor.notation import ENTICE, action_text, arg, kind
from advisor.positions import parse_position, position_text
from advisor.track import Console, Dialogue, TrackError, TrackSession
from advisor.track.chance import swap_cards, unseen, visible
from advisor.track.session import SaveError, comparable

sys.path.insert(0, str(Path(__file__).parent))
from track_replay import Step, entries, replay, start, table_game  # noqa: E402

# seeds 0-9 at every player count (viewer P0), and later games whose stand-ins stopped or misled
# the tracker or the replay once: the table's card held by a stand-in in an opponent's hand or hidden
# tuck (5 12), a discard of hidden cards the stand-ins numbered below the table's (4 16, 4 18), an
# opponent's card read tolerantly as another (4 17), a hidden tuck deciding a resource choice (5 17),
# a discard's last card the table's engine took for them (5 26), 4 11, a dragon the stand-ins left an
# opponent no choice to play for free (2 29), one whose name alone read as the next opponent's entice
# (4 10); with other viewers: a stand-in cave whose bonus drew before its own card was asked (5 58 P3),
# the rest of a discard the stand-ins forced (3 75), an opponent who passed for want of a move at a
# round's end (2 79 P1), a discard showing a card drawn after the deck ran out that turn (5 68 P3),
# a stand-in whose card came up later while the last card of a discard was entered (3 49 P1), a
# dragon played by a cave's bonus that the stand-ins left no choice to play, mid-turn (4 85 P1), an
# opponent the stand-ins left nothing but a pass (4 106 P2), a discard at a round's end (2 121 P1),
# one shuffled into the deck in the same move (5 134 P4), a dragon a cave's bonus let an opponent
# play for free before the round's end, which the stand-ins skipped (4 90 P2), and a payment's
# second card the engine took for the stand-ins, then the table's next decision (4 92)
GAMES = [(p, s, 0) for p in range(1, 6) for s in range(10)] + [
    (2, 29, 0), (4, 10, 0), (4, 11, 0), (4, 16, 0), (4, 17, 0), (4, 18, 0), (5, 12, 0), (5, 17, 0), (5, 26, 0),
    (5, 58, 3), (3, 75, 0), (2, 79, 1), (5, 68, 3), (3, 49, 1),
    (4, 85, 1), (4, 106, 2), (2, 121, 1), (5, 134, 4), (4, 90, 2), (4, 92, 0)]


# seats that take any legal action: an opponent's 'no' to a choice the stand-ins did not give them,
# which the tolerant reading took for an entice of a stand-in named "Raveno..." (2 4), and an
# exchange of three cards whose stand-ins were numbered below the table's (2 54), and an opponent
# the stand-ins left nothing but a pass, who moved on at the table (5 48 P3)
RANDOM_GAMES = [(2, 4, 0), (2, 54, 0), (5, 48, 3)]

# the replays the README's test command runs; the others are slow (CI runs them: pytest -m slow)
QUICK = {(1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0), (2, 4, 0)}


def _quick_or_slow(games: list[tuple[int, int, int]]) -> list[Any]:
    return [g if g in QUICK else pytest.param(*g, marks=pytest.mark.slow) for g in games]


def _follows(players: int, seed: int, viewer: int, policy: str = "greedy") -> list[str]:
    """Replay the game and check the viewer's view after every step; the lines typed."""
    compared = []

    def check(step: Step, tg) -> None:
        assert comparable(tg.observation()) == comparable(step.observation), (step.who, step.text)
        compared.append(step)
    tg, end, lines = replay(players, seed, viewer, check=check, policy=policy)
    assert tg.game.is_terminal() and end.is_terminal()
    assert tg.game.scores() == end.scores()
    assert len(compared) > (50 if policy == "greedy" else 20)
    return lines


@pytest.mark.parametrize("players,seed,viewer", _quick_or_slow(GAMES))
def test_replay_shows_the_viewer_the_same_game(players: int, seed: int, viewer: int) -> None:
    lines = _follows(players, seed, viewer)
    if players == 1:
        assert any(line.isdigit() for line in lines)        # her turned cards were asked for


@pytest.mark.parametrize("players,seed,viewer", _quick_or_slow(RANDOM_GAMES))
def test_replay_of_random_play_shows_the_viewer_the_same_game(players: int, seed: int, viewer: int) -> None:
    _follows(players, seed, viewer, "random")


def test_swapping_keeps_every_card_in_one_place() -> None:
    g = start(3, 1)
    core = g.to_dict()["core"]
    hidden = sorted(unseen(core, 0, "dragons"))
    a, b = core["players"][1]["hand_dragons"][0], core["deck_dragons"][5]
    out = swap_cards(core, 0, "dragons", a, b)
    assert b in out["players"][1]["hand_dragons"] and out["deck_dragons"][5] == a
    assert visible(out, 0, "dragons") == visible(core, 0, "dragons")
    assert sorted(unseen(out, 0, "dragons")) == hidden


def _script(players: int, seed: int, tmp_path: Path) -> tuple[Path, list[str], list[int]]:
    """A position at the viewer's first turn and the lines that replay the game from it."""
    first = start(players, seed)
    viewer = first.active
    text = position_text(first, viewer)
    pos = tmp_path / "first.toml"
    pos.write_text(text)
    tg, end, lines = replay(players, seed, viewer, begin=lambda g: parse_position(text).to_game(5))
    return pos, lines, end.scores()


def test_scripted_session_with_bad_input_undo_and_load(tmp_path: Path) -> None:
    pos, lines, scores = _script(2, 0, tmp_path)
    save = tmp_path / "game.json"
    # bad input here and there: an illegal move, a made-up card, an undo of a move entered again
    script = (lines[:3] + ["entice Nobody into nowhere", "show", "moves"] + lines[3:4] + ["undo"]
              + lines[3:40] + ["export " + str(tmp_path / "now.toml")] + lines[40:])
    r = CliRunner().invoke(main, ["track", "--position", str(pos), "--seed", "5", "--save", str(save)],
                           input="\n".join(script) + "\n")
    assert r.exit_code == 0, r.output
    assert "error: 'entice Nobody into nowhere' is not a legal action now" in r.output
    assert "undone: " + lines[3] in r.output
    assert f"The game is over: P0 {scores[0]}, P1 {scores[1]}" in r.output
    saved = json.loads(save.read_text())
    assert sum(len(e) for e in saved["record"]) == len(lines)
    # resuming replays the record to the same state (the digest is checked on load)
    s = TrackSession.load(str(save))
    assert s.tracked.game.is_terminal() and s.tracked.game.scores() == scores


def test_bad_answer_is_asked_again(tmp_path: Path) -> None:
    pos, lines, _ = _script(2, 0, tmp_path)
    session = TrackSession.begin(parse_position(pos.read_text()).to_game(5), 0, ("P0", "P1"))
    # find an entry with a question; answer it first with a card the viewer sees in the display
    out = io.StringIO()
    console = Console(io.StringIO(), out, interactive=False)
    d = Dialogue(session, None, console)
    i = 0
    while i < len(lines):
        tg = session.tracked
        prep = tg.prepare(lines[i])
        if tg.question(prep) is not None:
            break
        session.enter([lines[i]])
        i += 1
    shown = session.tracked.observation()["display_dragons"]
    wrong = session.tracked.card_name("dragons", next(c for c in shown if c))
    answers = [wrong] if session.tracked.question(session.tracked.prepare(lines[i])).kind == "dragons" else ["999"]
    console.stdin = io.StringIO("\n".join(answers + lines[i + 1:i + 2]) + "\n")
    before = len(session.record)
    d.move(lines[i])
    assert "error: " in out.getvalue()
    assert len(session.record) == before + 1 and session.record[-1] == lines[i:i + 2]


def test_a_move_read_tolerantly_is_said_in_full(db) -> None:
    g = start(2, 0)
    name = next(db.dragons[(arg(a) >> 2) - 1].name for a in g.legal_actions() if kind(a) == ENTICE)
    out = io.StringIO()
    d = Dialogue(TrackSession.begin(g, g.decider, ("A", "B")), None, Console(io.StringIO(), out, interactive=False))
    d.move(name)                            # a bare dragon name: the entice into its cave
    assert out.getvalue().startswith(f"(read as: entice {name} into ")
    out.truncate(0)
    out.seek(0)
    d.move(d.s.tracked.moves()[0][1])       # written as the notation writes it: nothing to say
    assert "read as" not in out.getvalue()


def test_suggest_in_track_ranks_as_advisor_suggest_on_the_export(tmp_path: Path) -> None:
    first = start(2, 3)
    game = parse_position(position_text(first, first.active)).to_game(5)
    session = TrackSession.begin(game, game.active, ("P0", "P1"))
    out = io.StringIO()
    d = Dialogue(session, None, Console(io.StringIO(), out, interactive=False))
    options = "--iterations 400 --seed 7 --json --top 8"
    d.cmd_suggest(options)
    inside = json.loads(out.getvalue())
    exported = tmp_path / "exported.toml"
    d.cmd_export(str(exported))
    r = CliRunner().invoke(main, ["suggest", str(exported), *options.split()])
    assert r.exit_code == 0, r.output
    outside = json.loads(r.output)
    assert [m["move"] for m in inside["moves"]] == [m["move"] for m in outside["moves"]]
    assert [m["visits"] for m in inside["moves"]] == [m["visits"] for m in outside["moves"]]


def test_ctrl_c_in_suggest_prints_the_ranking_so_far_and_tracking_goes_on(monkeypatch) -> None:
    import advisor.search.suggest
    from advisor.search import AnalysisInterrupted, analyse

    def stopped(game, settings, **kwargs):
        progress = kwargs.pop("progress", None)

        def stop(share):
            raise KeyboardInterrupt
        return analyse(game, {**settings, "iterations": 100_000}, progress=stop, **kwargs)
    monkeypatch.setattr(advisor.search.suggest, "analyse", stopped)
    first = start(2, 3)
    game = parse_position(position_text(first, first.active)).to_game(5)
    out = io.StringIO()
    d = Dialogue(TrackSession.begin(game, game.active, ("P0", "P1")), None,
                 Console(io.StringIO(), out, interactive=False))
    with pytest.raises(AnalysisInterrupted):
        stopped(game, {})
    d.cmd_suggest("--json")                                  # no TrackError: nothing failed
    assert json.loads(out.getvalue())["interrupted"] is True


def test_export_only_at_the_viewers_turn(tmp_path: Path) -> None:
    g = start(2, 0)
    viewer = 1 - g.active
    d = Dialogue(TrackSession.begin(g, viewer, ("A", "B")), None, Console(io.StringIO(), io.StringIO(), False))
    with pytest.raises(TrackError, match="start of your turn"):
        d.cmd_export(str(tmp_path / "x.toml"))


def test_table_setup_then_setup_moves(tmp_path: Path) -> None:
    answers = ["6a 5b 10 3a", "6a 5b 10a 3a", "Plains", "Bea", "1, 2, 3", "1, 2, 3",
               "4, 5, 6", "4, 5, 6", "show"]
    r = CliRunner().invoke(main, ["track", "--players", "2", "--names", "Al,Bea", "--viewer", "Al",
                                  "--save", str(tmp_path / "t.json")], input="\n".join(answers) + "\n")
    assert r.exit_code == 0, r.output
    assert "error: give the 4 objective tiles" in r.output
    assert "Bea (setup discard)> show" in r.output
    s = TrackSession.load(str(tmp_path / "t.json"))
    core = s.tracked.game.to_dict()["core"]
    assert core["objective_tiles"] == [5, 4, 9, 2] and core["objective_sides"] == [0, 1, 0, 0]
    assert core["display_dragons"] == [1, 2, 3] and core["players"][0]["hand_dragons"] == [4, 5, 6]
    assert core["display_caves"] == [1, 2, 3] and core["players"][0]["hand_caves"] == [4, 5, 6]


def test_input_ending_at_the_table_setup_is_one_line(tmp_path: Path) -> None:
    # a bad answer is asked again, the end of the input is not (it was asked again forever)
    r = subprocess.run([sys.executable, "-m", "advisor.cli", "track", "--players", "2", "--save",
                        str(tmp_path / "t.json")], input="help\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout.count("error: give the 4 objective tiles") == 1
    assert r.stderr == "error: the input ended before the question was answered\n"
    assert not (tmp_path / "t.json").exists()


def test_load_refuses_other_files(tmp_path: Path) -> None:
    other = tmp_path / "notes.json"
    other.write_text("{}")
    r = CliRunner().invoke(main, ["track", "--load", str(other)])
    assert r.exit_code == 2 and "not a save file of `advisor track`" in r.output


@pytest.mark.slow
def test_a_save_of_format_1_loads_in_its_order_of_questions(tmp_path: Path) -> None:
    # format 1 asked a move's draws before the cards it showed from a hand; its records keep that
    first, _, steps = table_game(3, 1, 0)
    old = TrackSession.begin(first.determinize(0, 2), 0, ("P0", "P1", "P2"), format=1)
    for _ in entries(old, steps):
        pass
    path = tmp_path / "old.json"
    old.save(str(path))
    assert json.loads(path.read_text())["format"] == 1
    again = TrackSession.load(str(path))
    assert again.format == 1 and again.record == old.record
    assert again.tracked.observation() == old.tracked.observation()
    doc = json.loads(path.read_text())
    doc["format"] = 2       # its answers in today's order: a question gets another's card
    path.write_text(json.dumps(doc))
    with pytest.raises(SaveError):
        TrackSession.load(str(path))
    doc["format"] = 3
    path.write_text(json.dumps(doc))
    with pytest.raises(SaveError, match="format 3 is not one this version reads"):
        TrackSession.load(str(path))


def _pty_session(args: list[str], lines: list[str], expect: list[str], timeout: float = 60) -> str:
    """Run `advisor` on a pseudo-terminal: send each line once the previous expectation shows."""
    import os
    import select
    import subprocess
    import time
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "advisor.cli", *args], stdin=slave, stdout=slave,
                            stderr=slave, close_fds=True, env={**os.environ, "TERM": "dumb"})
    os.close(slave)
    out = b""

    def wait_for(text: str) -> None:
        nonlocal out
        end = time.time() + timeout
        while text.encode() not in out:
            assert time.time() < end, f"waited for {text!r}; got:\n{out.decode(errors='replace')}"
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    break
    try:
        for line, text in zip(lines, expect):
            wait_for(text)
            os.write(master, (line + "\n").encode())
        proc.wait(timeout=timeout)
        while True:
            r, _, _ = select.select([master], [], [], 0.2)
            if not r:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return out.decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_interactive_session_on_a_pseudo_terminal(tmp_path: Path) -> None:
    pos, lines, _ = _script(2, 0, tmp_path)
    game = parse_position(pos.read_text()).to_game(5)
    session = TrackSession.begin(game, game.active, ("P0", "P1"))
    # play up to the first entry with a question about a dragon
    i = 0
    while True:
        tg = session.tracked
        q = tg.question(tg.prepare(lines[i]))
        if q is not None and q.kind == "dragons" and q.place[0] == "deck":
            break
        taken = session.enter(iter(lines[i:]))
        i += len(taken)
    save = tmp_path / "game.json"
    session.save(str(save))
    answer = lines[i + 1]
    seen = session.tracked.observation()["display_dragons"]
    wrong = session.tracked.card_name("dragons", next(c for c in seen if c))
    prompt = f"{session.names[session.tracked.game.decider]} ({session.tracked.game.decision})> "
    out = _pty_session(["track", "--load", str(save), "--save", str(save)],
                       [lines[i], wrong, answer, "undo", "quit"],
                       [prompt, "which?", "error: ", prompt, "undone: "])
    assert "error: " in out and "cannot be that card" in out
    assert f"undone: {lines[i]} / {answer}" in out
    # the save after the undo is the game before the entry; loading it resumes there
    resumed = TrackSession.load(str(save))
    assert resumed.record == session.record
    out = _pty_session(["track", "--load", str(save), "--save", str(save)], [lines[i], answer, "quit"],
                       [prompt, "which?", prompt])
    assert TrackSession.load(str(save)).record == session.record + [[lines[i], answer]]


def test_an_opponents_entry_the_stand_ins_refuse_deals_them_again() -> None:
    # 2 players, seed 4: the stand-in cards made the engine skip a dragon the opponent played from
    # their hand; the tracker deals the unseen cards again and plays the last entries on them
    first, end, steps = table_game(2, 4)
    ts = TrackSession.begin(first.determinize(0, 5), 0, ("P0", "P1"))
    redone = []
    for step, _ in entries(ts, steps):
        if step is not None and ts.redone:
            redone.append((step.who, step.text))
    assert redone and all(who == 1 for who, _ in redone)
    assert ts.tracked.game.scores() == end.scores()


def test_a_decision_skipped_before_the_rounds_end_takes_the_answers_given_after_it(tmp_path: Path) -> None:
    # 4 players, seed 90, viewer P2: P3's cave let them play a dragon for free, which the stand-ins
    # could not; the tracker went on to the round's end and asked for the new display first. The
    # dragon named next stops P3's entry at that decision on a deal where they hold it, and the
    # display's answers count for the dragon's move: a save replays it, and undo restores the view
    first, end, steps = table_game(4, 90, 2)
    ts = TrackSession.begin(first.determinize(2, 91), 2, ("P0", "P1", "P2", "P3"))
    views = {0: ts.tracked.observation()}
    for step, _ in entries(ts, steps):
        views[len(ts.record)] = ts.tracked.observation()
        if step is not None and ts.carried:
            break
    assert ts.carried == 6 and ts.redone == 1      # 3 dragons and 3 caves of the new display
    assert ts.tracked.observation() != views[len(ts.record) - 1]
    path = tmp_path / "carried.json"
    ts.save(str(path))
    again = TrackSession.load(str(path))
    assert again.tracked.observation() == ts.tracked.observation() and again.record == ts.record
    n = len(ts.record)
    # at the prompt, the player is told where their answers went
    table = TrackSession.begin(first.determinize(2, 91), 2, ("P0", "P1", "P2", "P3"))
    for lines in ts.record[:-1]:
        table.enter(lines)
    out = io.StringIO()
    Dialogue(table, None, Console(io.StringIO("\n".join(ts.record[-1]) + "\n"), out, interactive=False)).run()
    assert "the 6 answers you gave after it count for this move" in out.getvalue()
    assert table.tracked.observation() == ts.tracked.observation()
    ts.undo()
    assert ts.tracked.observation() == views[n - 1]     # the round's end as first entered
    ts.save(str(path))
    assert TrackSession.load(str(path)).tracked.observation() == views[n - 1]


@pytest.mark.slow
def test_an_opponent_the_stand_ins_leave_no_move_is_dealt_one(monkeypatch) -> None:
    # 5 players, seed 48 (random play), viewer P3: after P0's pass the engine's stand-ins for P2's
    # hidden cards left them nothing but a pass, while P2 still moved at the table; the pass entry is
    # played on another deal where P2 may move. Where no deal tried gives them a move, the engine
    # passes them and the player is told.
    from advisor.track import session as track_session
    first, _, steps = table_game(5, 48, 3, "random")
    names = tuple(f"P{q}" for q in range(5))
    ts = TrackSession.begin(first.determinize(3, 49), 3, names)
    for step, _ in entries(ts, steps):
        if step is not None and step.text == "pass" and step.who == 0 and step.before["round"] == 2:
            break
    assert comparable(ts.tracked.observation()) == comparable(step.observation) and ts.passed == []
    table = TrackSession.begin(first.determinize(3, 49), 3, names)
    for lines in ts.record[:-1]:
        table.enter(lines)
    monkeypatch.setattr(track_session, "_deals", lambda base, move, fresh=True: iter(()))
    out = io.StringIO()
    Dialogue(table, None, Console(io.StringIO("pass\n"), out, interactive=False)).run()
    assert table.passed == [2] and table.tracked.observation()["players"][2]["passed"]
    said = [line for line in out.getvalue().replace("\n    ", " ").splitlines() if "passed:" in line]   # unwrapped
    assert said == ["(P2 passed: on every deal tried of the cards you have not seen they have no other move; if "
                    "they move at the table, enter it)"]


@pytest.mark.slow
def test_what_a_hidden_choice_gave_is_asked(tmp_path: Path) -> None:
    # 4 players, seed 9: which card an opponent tucked unseen decided what they gained
    pos, lines, scores = _script(4, 9, tmp_path)
    save = tmp_path / "game.json"
    r = CliRunner().invoke(main, ["track", "--position", str(pos), "--seed", "5", "--save", str(save)],
                           input="\n".join(lines + ["pass"]) + "\n")
    assert r.exit_code == 0, r.output
    assert "hidden choice give them? (1 " in r.output
    assert "error: the game is over ('undo' to take back the last entry)" in r.output
    assert "The game is over: " + ", ".join(f"P{q} {v}" for q, v in enumerate(scores)) in r.output
    assert TrackSession.load(str(save)).tracked.game.scores() == scores


def test_an_opponents_card_name_alone_is_taken_or_said_to_be_ambiguous() -> None:
    # 3 players, seed 1: opponents entice dragons the viewer has not seen; a bare name is their
    # entice where it has one cave, and where it has several the error lists them (it said "not a
    # legal action now" after seconds of dealing the cards again)
    first, end, steps = table_game(3, 1)
    ts = TrackSession.begin(first.determinize(0, 2), 0, ("P0", "P1", "P2"))
    taken, ambiguous = [], []
    for step, _ in entries(ts, steps):
        if step is None or steps.index(step) + 1 == len(steps):
            continue
        following = steps[steps.index(step) + 1]
        if following.who == 0 or not following.text.startswith("entice ") or ts.tracked.game.decider != following.who:
            continue
        name = following.text.removeprefix("entice ").rsplit(" into ", 1)[0]
        try:
            entry = ts.begin_entry(name)
        except TrackError as e:
            assert f"'{name}' matches " in str(e) and following.text in str(e)
            ambiguous.append(name)
        else:
            assert action_text(entry.prepared.action, ts.tracked.printing, ts.tracked.game) == following.text
            taken.append(name)
        if len(ambiguous) >= 2 and taken:
            break
    assert len(ambiguous) >= 2 and taken

