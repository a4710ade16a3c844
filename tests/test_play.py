"""`advisor play` end to end: whole games driven by scripted input through click's runner and through
a real pseudo-terminal, bad input at every prompt, hint, undo, save and --load."""
import fcntl
import json
import os
import pty
import random
import re
import select
import struct
import subprocess
import sys
import termios
import time
import tomllib
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from advisor import _core
from advisor.cli import main
from advisor.notation import CAVE, DRAGON, action_text, arg, kind, make
from advisor.play import (PlayError, Session, load_session, make_setup, position_path, save_session, save_text,
                          state_digest, visible_cards)
from advisor.positions import load_position
from advisor.play.render import render

BAD = ["zzz", "999", "", "undo now", "hint abc", "card", "card nosuchdragon"]


def play(*args, input=""):
    r = CliRunner().invoke(main, ["play", *map(str, args)], input=input)
    assert "Traceback" not in r.output
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


def applied(output: str) -> int:
    """How many decisions the human took (each is echoed as '-> text')."""
    return len(re.findall(r"^-> ", output, re.M))


def flat(output: str) -> str:
    """The output with every run of white space one space (undoes the wrapping at 80 columns)."""
    return " ".join(output.split())


def final_block(output: str) -> str:
    return output[output.index("Final score"):]


def record_of(path) -> str:
    text = Path(path).read_text()
    return text[text.index("record = ["):]


# ---------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("args", [
    ("--players", 2, "--opponent", "random", "--seed", 3),
    ("--players", 3, "--seat", 1, "--opponent", "random", "--opponent", "greedy", "--seed", 11),
    ("--solo-level", "R2", "--seed", 4),
], ids=["2p", "3p-seat1", "solo-R2"])
def test_whole_game_with_bad_input_at_every_prompt(args):
    """Every prompt first gets a row of bad input (each answered, the prompt asked again), then 1."""
    script = "\n".join(BAD + ["1"]) + "\n"
    r = play(*args, input=script * 1000)
    assert r.exit_code == 0, r.output[-3000:]
    out = r.output
    n = applied(out)
    assert n > 20
    assert out.count("is not a legal action now") == n                      # zzz, at every prompt
    assert len(re.findall(r"999 is not a number from 1 to \d+", out)) == n
    assert out.count("undo takes no argument") == n
    assert out.count("is not a number of seconds") == n
    assert out.count("type a number from 1 to") >= 2 * n                    # the empty line and zzz
    assert "Final score" in out and re.search(r"^total\s+\d+", out, re.M)
    assert "You win!" in out or "wins" in out or "Shared win" in out
    kinds = set(re.findall(r"^(?:Setup|Your turn|P\d+(?: \(you\))?.s turn|[A-Z][a-z ]+ of round \d): "
                           r"([a-z][^\n]*)$", out, re.M))
    assert {"your move", "your 3 starting resources"} <= kinds and len(kinds) >= 5, kinds
    assert max(len(line) for line in out.splitlines()) <= 80


def test_solo_game_reports_the_automa():
    r = play("--solo-level", 1, "--seed", 8, input="1\n" * 600)
    assert r.exit_code == 0
    assert re.search(r"^Automa: played card", r.output, re.M)
    assert "Automa (level 1)" in r.output
    assert re.search(r"^caves\s+\d+\s+\d+", r.output, re.M)               # her category in the breakdown


def test_ai_turns_are_summarised_in_one_line():
    r = play("--opponent", "random", "--seed", 5, input="1\n" * 600)
    lines = [line for line in r.output.splitlines() if line.startswith("P1")]
    assert any(re.match(r"P1( \(setup\))?: ", line) for line in lines)
    assert any(re.match(r"P1: (entice|excavate|explore|pass)", line) for line in lines)


def test_ismcts_opponent_moves():
    r = play("--opponent", "ismcts:time=0.02", "--seed", 6, input="1\n" * 12 + "quit\n")
    assert r.exit_code == 0
    assert re.search(r"^P1 \(setup\): ", r.output, re.M)
    assert "Quit: leaving the game" in r.output


def test_ai_decisions_keep_unseen_cards_hidden():
    """A card an AI chose that the human cannot see (tucked from its hand) is never named."""
    hidden = 0
    for seed in (12, 13):
        s = Session(make_setup(3, 0, ("random",), seed=seed))
        rng = random.Random(seed)
        while not s.game.is_terminal():
            s.apply(rng.choice(s.game.legal_actions()))
            i = len(s.record) - 1
            if s.deciders[i] != 0 and kind(s.record[i]) == DRAGON:
                seen = arg(s.record[i]) in visible_cards(s.game, 0)[0]
                assert s.public_texts([i]) == [s.texts[i] if seen else "a dragon card"]
                hidden += not seen
    assert hidden > 0


# ---------------------------------------------------------------------------- the prompt
def test_notation_with_did_you_mean():
    r = play("--opponent", "random", "--seed", 3,
             input="1\n1\n1\nexplor crimsen\nexplore crimson\nquit\n")
    assert "did you mean: explore crimson" in " ".join(r.output.split())
    assert "-> explore crimson" in r.output
    r = play("--opponent", "random", "--seed", 3, input="1\n1\n1\ncave\nquit\n")
    assert re.search(r"'cave' matches \d+ legal actions", r.output)


def test_help_show_list_and_card():
    r = play("--opponent", "random", "--seed", 3,
             input="help\nshow\nlist\ncard patient redwyrm\ncard cave 12\ncard wyrm\nquit\n")
    out = r.output
    assert "hint [S]" in out and "save [FILE]" in out
    assert out.count("Display:") == 2                                       # drawn, then shown again
    assert "Patient Redwyrm (dragon" in out and "Cave 12" in out
    assert "did you mean" in out or "matches" in out                        # "wyrm" names many cards
    assert r.exit_code == 0


def test_hint_ranks_the_options():
    r = play("--opponent", "random", "--seed", 3, "--hint-time", 0.05,
             input="hint\nhint 0.05\nhint 0\nquit\n")
    assert r.output.count("iterations in") == 2
    assert re.search(r"^\s*\d+ \S.*\d+\.\d%(\s+\d+\.\d){2}\s+\d+$", r.output, re.M)     # win, 2 scores, visits
    assert "then: " in r.output
    assert "'0' is not a number of seconds" in r.output


def test_end_of_input_and_quit_leave_cleanly():
    for script in ("", "1\n", "1\n1\n1\nhint 0.02\n"):
        r = play("--opponent", "random", "--seed", 2, input=script)
        assert r.exit_code == 0 and "End of input: leaving the game" in r.output
    r = play("--opponent", "random", "--seed", 2, input="quit\n")
    assert r.exit_code == 0 and "Quit: leaving the game (not saved)" in r.output


def test_quit_offers_to_save_unsaved_decisions(tmp_path):
    kept = tmp_path / "kept.toml"
    r = play("--opponent", "random", "--seed", 2, input=f"1\n1\n1\nquit\n{kept}\n")
    assert r.exit_code == 0 and "Save before leaving?" in r.output
    assert f"Quit: leaving the game; saved in {kept}" in " ".join(r.output.split()) and record_of(kept)
    for answer in ("\n", ""):          # Enter, or the end of input: leave unsaved
        r = play("--opponent", "random", "--seed", 2, input="1\n1\n1\nquit\n" + answer)
        assert r.exit_code == 0 and "Quit: leaving the game (not saved)" in r.output


# ---------------------------------------------------------------------------- undo
def test_undo_in_the_dialogue(tmp_path):
    r = play("--opponent", "random", "--seed", 9, input="undo\nquit\n")
    assert "nothing to undo" in r.output
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    play("--opponent", "random", "--seed", 9, input=f"1\n1\n1\nsave {a}\nquit\n")
    # one more decision (a move, or part of one), then undo: back at the same move start
    r = play("--opponent", "random", "--seed", 9, input=f"1\n1\n1\n1\nundo\nsave {b}\nquit\n")
    assert re.search(r"took back \d+ decisions?", r.output)
    assert record_of(a) == record_of(b)


def _drive(session, rng, human_moves):
    """Play on with random decisions until the human has started `human_moves` more moves; stops at
    the human's next move start."""
    started = 0
    while not session.game.is_terminal():
        if session.move_starts_here():
            if started == human_moves:
                return
            started += 1
        session.apply(rng.choice(session.game.legal_actions()))


def test_undo_takes_back_the_last_move_and_the_ai_moves_after_it():
    rng = random.Random(1)
    s = Session(make_setup(3, 2, ("random",), seed=21))
    _drive(s, rng, 6)
    before, n_before = s.game.to_dict(), len(s.record)
    _drive(s, rng, 1)                                   # one whole move of the human, then the AIs
    n_after = len(s.record)
    assert n_after > n_before + 1 and s.deciders[-1] != s.human
    assert s.undo() == n_after - n_before
    assert s.game.to_dict() == before and len(s.record) == n_before
    s.apply(s.game.legal_actions()[0])                  # in the middle of a move: undo goes to its start
    if not s.move_starts_here():
        s.undo()
        assert s.game.to_dict() == before


def test_undo_back_to_the_start():
    s = Session(make_setup(2, 0, ("random",), seed=4))
    rng = random.Random(2)
    _drive(s, rng, 0)                                   # the human's first decision
    start, n_start = s.game.to_dict(), len(s.record)
    _drive(s, rng, 5)
    while s.can_undo():
        s.undo()
    assert s.game.to_dict() == start and len(s.record) == n_start
    with pytest.raises(PlayError, match="nothing to undo"):
        s.undo()


# ---------------------------------------------------------------------------- save and --load
def test_save_and_load_resume_the_same_game(tmp_path):
    f = tmp_path / "g.toml"
    r = play("--opponent", "random", "--seed", 12, input="1\n" * 12 + f"save {f}\nquit\n")
    assert f"saved {f}" in flat(r.output)
    text = f.read_text()
    assert text.startswith("# A game of Wyrmspan saved by `advisor play`") and "record = [" in text
    session, warnings = load_session(str(f))
    assert warnings == [] and state_digest(session.game) in text
    # resumed and saved at once: the same file
    g = tmp_path / "g2.toml"
    r = play("--load", f, input=f"save {g}\nquit\n")
    assert r.exit_code == 0 and "loaded" in r.output
    assert f.read_text() == g.read_text()
    # resumed and played to the end: the same end as the game played without a break
    straight = play("--opponent", "random", "--seed", 12, input="1\n" * 600)
    resumed = play("--load", f, input="1\n" * 600)
    assert final_block(resumed.output) == final_block(straight.output)


def test_save_file_fields_and_an_old_save_with_comments(tmp_path):
    f = tmp_path / "g.toml"
    play("--opponent", "random", "--seed", 12, input="1\n" * 6 + f"save {f}\nquit\n")
    saved = tomllib.loads(f.read_text())
    assert saved["decisions"] == len(saved["record"]) == len(saved["notation"]) > 6
    assert all(re.fullmatch(r"P[01]: .+", text) for text in saved["notation"])
    # a file of the earlier hand-written writer: each decision's notation a comment, no notation field
    lines = [f"{k} = {json.dumps(v)}" for k, v in saved.items() if k not in ("record", "notation")]
    lines += ["record = ["] + [f"  {a},   # {text}" for a, text in zip(saved["record"], saved["notation"], strict=True)] + ["]"]
    old = tmp_path / "old.toml"
    old.write_text("# A game of Wyrmspan saved by `advisor play`; resume it with `advisor play --load FILE`.\n"
                   + "\n".join(lines) + "\n")
    session, warnings = load_session(str(old))
    assert warnings == [] and session.record == saved["record"]


def test_save_writes_the_position_at_a_turn_start(tmp_path):
    s = Session(make_setup(2, 1, ("greedy",), seed=30))
    _drive(s, random.Random(5), 4)
    while not (s.game.phase == "turn" and s.game.decision == "move" and s.move_starts_here()):
        s.apply(s.game.legal_actions()[0])
    f = tmp_path / "mine.toml"
    pos = save_session(s, str(f))
    assert pos == position_path(str(f)) == str(tmp_path / "mine.position.toml")
    p = load_position(pos)
    assert p.viewer == 1
    r = CliRunner().invoke(main, ["show", pos])
    assert r.exit_code == 0 and "(you)" in r.output
    s.apply(s.game.legal_actions()[0])
    if not s.move_starts_here():                        # mid-move: no position, the old one removed
        assert save_session(s, str(f)) is None and not os.path.exists(pos)


def test_autosave_and_load_of_a_finished_game(tmp_path):
    f = tmp_path / "auto.toml"
    r = play("--opponent", "random", "--seed", 13, "--save", f, input="1\n" * 5 + "quit\n")
    assert f"saved in {f}" in flat(r.output)
    n = len(load_session(str(f))[0].record)
    assert n > 5
    play("--load", f, "--save", f, input="1\n" * 600)
    done, _ = load_session(str(f))
    assert done.game.is_terminal()
    r = play("--load", f)
    assert r.exit_code == 0 and "Final score" in r.output


def test_save_never_overwrites_other_files(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("mine\n")
    r = play("--opponent", "random", "--seed", 3, input=f"save {other}\nsave {tmp_path / 'no' / 'x.toml'}\nquit\n")
    assert "exists and is not a file written by `advisor play`" in flat(r.output)
    assert "cannot write" in r.output
    assert other.read_text() == "mine\n" and r.exit_code == 0


def test_load_with_another_opponent(tmp_path):
    f = tmp_path / "g.toml"
    play("--opponent", "random", "--seed", 14, input=f"1\n1\n1\nsave {f}\nquit\n")
    r = play("--load", f, "--opponent", "greedy", input="1\n" * 4 + f"save {f}\nquit\n")
    assert r.exit_code == 0 and tomllib.loads(f.read_text())["opponents"] == ["greedy"]


# ---------------------------------------------------------------------------- bad options and files
@pytest.mark.parametrize("args, message", [
    (("--players", 2, "--seat", 2), "is not a seat of a 2-player game"),
    (("--players", 1), "give --solo-level"),
    (("--solo-level", 2, "--players", 3), "makes a solo game"),
    (("--solo-level", 2, "--opponent", "random"), "the Automa is the opponent"),
    (("--solo-level", 2, "--seat", 1), "you sit at seat 0"),
    (("--players", 4, "--opponent", "random", "--opponent", "greedy"), "one for each (3), not 2"),
    (("--opponent", "randon"), "did you mean 'random'"),
    (("--opponent", "ismcts:tiem=1"), "did you mean"),
    (("--load", "nope.toml"), "no such file"),
    (("--players", 3, "--opponent", "automa:2", "--opponent", "random"), "the Automa plays only solo games"),
    (("--opponent", "automa:3", "--solo-level", "R1"), "name two levels"),
    (("--opponent", "automa:9"), "the Automa's level is one of"),
])
def test_bad_options(args, message):
    r = play(*args)
    assert r.exit_code == 2 and message in r.output, r.output
    assert r.output.startswith("error:")


def test_the_automa_as_opponent_is_a_solo_game():
    setup = make_setup(opponents=("automa:r2",), seed=3)
    assert setup == make_setup(solo_level="R2", seed=3)
    assert (setup.players, setup.solo_level, setup.opponents) == (1, "R2", ())
    assert setup.describe() == "P0 in a solo game (seed 3) against the Automa at level R2"
    assert make_setup(opponents=(" Automa ",), seed=3).solo_level == "2"
    assert make_setup(opponents=("automa:3",), solo_level="3", seed=3) == make_setup(solo_level="3", seed=3)


def test_bad_save_files(tmp_path):
    f = tmp_path / "s.toml"
    play("--opponent", "random", "--seed", 3, input=f"1\n1\nsave {f}\nquit\n")
    good = f.read_text()
    cases = {
        "not toml": ("players = [", "not valid TOML"),
        "fields": (good.replace("seat = 0", 'seat = "x"').replace("format = 1", "format = 9"),
                   "seat: must be an integer"),
        "illegal": (good.replace("record = [\n", "record = [\n  5,\n"), "record[1]: 5 is not a legal decision"),
        "extra": (good + "colour = 1\n", "colour: not a field"),
    }
    for name, (text, message) in cases.items():
        f.write_text(text)
        r = play("--load", f)
        assert r.exit_code == 2 and message in r.output and r.output.startswith("error:"), (name, r.output)
    f.write_text(good.replace('state = "', 'state = "0'))
    r = play("--load", f, input="quit\n")
    assert r.exit_code == 0 and "differs from the one saved" in r.output
    f.write_text(good)
    r = play("--load", f, "--seed", 3)
    assert r.exit_code == 2 and "--seed cannot change it" in r.output


# ---------------------------------------------------------------------------- drawing
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_table_fits_80_columns_in_colour_too(players):
    game = _core.Game.new(players, 40 + players, automa="R3")
    rng = random.Random(players)
    viewer = 0
    for step in range(400):
        if game.is_terminal():
            break
        if step % 37 == 0:
            plain = render(game.observation(viewer), viewer, game.printing, game.scores())
            coloured = render(game.observation(viewer), viewer, game.printing, game.scores(), colour=True)
            assert click.unstyle(coloured) == plain and ("\x1b[" in coloured)
            assert max(len(line) for line in plain.splitlines()) <= 80
            assert "(you)" in plain and ("Automa (level R3)" in plain) == (players == 1)
        game.apply(rng.choice(game.legal_actions()))


# ---------------------------------------------------------------------------- a real terminal
class Pty:
    """`advisor play` in a pseudo-terminal: send lines, read up to the next prompt."""
    PROMPT = re.compile(rb"\n(?:\x1b\[[0-9;]*m)*> (?:\x1b\[[0-9;]*m)*$")

    def __init__(self, *args):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))   # 40 rows, 80 columns
        env = dict(os.environ, TERM="xterm")
        for k in ("NO_COLOR", "COLUMNS", "LINES"):
            env.pop(k, None)

        def controlling_terminal():                 # so that Ctrl-C is a SIGINT, as in a terminal
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        self.p = subprocess.Popen([sys.executable, "-m", "advisor.cli", "play", *map(str, args)],
                                  stdin=slave, stdout=slave, stderr=slave, close_fds=True, env=env,
                                  preexec_fn=controlling_terminal)
        os.close(slave)
        self.fd, self.seen = master, b""

    def read(self, until=PROMPT, timeout=30.0) -> str:
        """Output up to `until` (or the end of the process); '' at the end."""
        buf, end = b"", time.monotonic() + timeout
        while time.monotonic() < end:
            if until is not None and until.search(buf):
                break
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:                 # the child closed the terminal
                break
            if not chunk:
                break
            buf += chunk
        else:
            raise TimeoutError(buf[-2000:].decode(errors="replace"))
        self.seen += buf
        return buf.decode(errors="replace")

    def send(self, line: str) -> str:
        os.write(self.fd, line.encode() + b"\n")
        return self.read()

    def close(self) -> int:
        self.read(until=None, timeout=20)
        rc = self.p.wait(timeout=20)
        os.close(self.fd)
        return rc


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


def test_real_terminal_whole_game():
    t = Pty("--opponent", "ismcts:time=0.02", "--seed", 17, "--hint-time", 0.05)
    try:
        first = t.read()
        assert "\x1b[" in first                                  # colour on a terminal
        assert "Display:" in _plain(first)
        assert "is not a legal action now" in _plain(t.send("zzz"))
        assert "iterations in" in _plain(t.send("hint"))
        for _ in range(400):
            out = t.send("1")
            if "Final score" in _plain(out) or t.p.poll() is not None:
                break
        rc = t.close()
    finally:
        if t.p.poll() is None:
            t.p.kill()
    text = _plain(t.seen.decode(errors="replace"))
    assert rc == 0, text[-2000:]
    assert "Final score" in text and "Traceback" not in text
    assert "P1 thinking" in text                                 # the AI's progress bar


def test_real_terminal_interrupt_and_end_of_input():
    t = Pty("--opponent", "random", "--seed", 18)
    try:
        t.read()
        # Ctrl-C at the prompt. A signal that comes between the prompt and the read of the line is
        # only seen when the read returns (CPython), so it is sent again if nothing happens
        for _ in range(5):
            os.write(t.fd, b"\x03")
            try:
                t.read(until=re.compile(rb"Interrupted"), timeout=2)
                break
            except TimeoutError:
                continue
        rc = t.close()
    finally:
        if t.p.poll() is None:
            t.p.kill()
    text = _plain(t.seen.decode(errors="replace"))
    assert rc == 130 and "Interrupted: leaving the game" in text and "Traceback" not in text
    t = Pty("--opponent", "random", "--seed", 18)
    try:
        t.read()
        os.write(t.fd, b"\x04")                                  # Ctrl-D: end of input
        rc = t.close()
    finally:
        if t.p.poll() is None:
            t.p.kill()
    text = _plain(t.seen.decode(errors="replace"))
    assert rc == 0 and "End of input: leaving the game" in text and "Traceback" not in text


# ---------------------------------------------------------------------------- no progress lost silently
def test_load_without_save_goes_on_saving_to_the_loaded_file(tmp_path):
    f = tmp_path / "g.toml"
    play("--opponent", "random", "--seed", 12, input="1\n" * 6 + f"save {f}\nquit\n")
    n = len(load_session(str(f))[0].record)
    r = play("--load", f, input="1\n" * 6 + "quit\n")
    assert r.exit_code == 0 and f"saving to {f} as you play" in flat(r.output)
    assert f"Quit: leaving the game; saved in {f}" in flat(r.output)
    assert len(load_session(str(f))[0].record) > n


def test_a_save_that_cannot_be_written_is_refused_before_play(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("mine\n")
    for path, message in ((tmp_path / "no" / "x.toml", "--save: cannot write"),
                          (other, "--save: " + str(other) + " exists and is not a file written by")):
        r = play("--opponent", "random", "--seed", 3, "--save", path, input="1\n" * 3 + "quit\n")
        assert r.exit_code == 2 and r.output.startswith("error:") and message in flat(r.output), r.output
        assert "saved in" not in r.output
    assert other.read_text() == "mine\n"


def test_a_failed_autosave_is_never_reported_as_saved(tmp_path, monkeypatch):
    import advisor.play.terminal as terminal
    f = tmp_path / "g.toml"
    calls = []

    def failing(session, path):
        calls.append(path)
        if len(calls) > 1:
            raise PlayError(f"cannot write {path}: No space left on device")
        return save_session(session, path)
    monkeypatch.setattr(terminal, "save_session", failing)
    r = play("--opponent", "random", "--seed", 3, "--save", f, input="1\n" * 5 + "quit\n")
    out = flat(r.output)
    assert "autosave failed: cannot write" in out
    assert "saved in" not in out and "Quit: leaving the game; NOT saved (autosave failed" in out


def test_save_files_that_would_resume_another_game_are_refused(tmp_path):
    f = tmp_path / "s.toml"
    play("--opponent", "random", "--seed", 3, input=f"1\n1\n1\n1\nsave {f}\nquit\n")
    good = f.read_text()
    n = tomllib.loads(good)["decisions"]
    cases = {
        "empty record": (re.sub(r"record = \[[^\]]*\]", "record = []", good),
                         f"holds 0 decisions, the file says {n}: cut or edited"),
        "no players": (good.replace("players = 2", "players = 0"), "players: must be from 1 to 5, got 0"),
        "six players": (good.replace("players = 2", "players = 6"), "players: must be from 1 to 5, got 6"),
    }
    for name, (text, message) in cases.items():
        f.write_text(text)
        r = play("--load", f, input="quit\n")
        assert r.exit_code == 2 and message in flat(r.output) and r.output.startswith("error:"), (name, r.output)
    with pytest.raises(PlayError, match="is not from 1 to 5"):
        make_setup(players=0)


def test_a_position_file_given_to_load_says_what_it_is(tmp_path):
    pos = tmp_path / "p.toml"
    assert CliRunner().invoke(main, ["new", "-o", str(pos), "--seed", "3"]).exit_code == 0
    r = play("--load", pos)
    assert r.exit_code == 2 and r.output.startswith("error:")
    assert "is a position file, not a save" in flat(r.output)
    assert "must be" not in r.output and r.output.count("error:") == 1


def test_an_edited_record_is_not_blamed_on_the_engine_nor_saved_over(tmp_path):
    f = tmp_path / "s.toml"
    play("--opponent", "random", "--seed", 3, input=f"1\n1\n1\n1\nsave {f}\nquit\n")
    edited = f.read_text().replace('state = "', 'state = "0')
    f.write_text(edited)
    r = play("--load", f, input="1\nquit\n")
    assert r.exit_code == 0 and "the file was edited, or the engine" in flat(r.output)
    assert f.read_text() == edited and "(not saved)" in r.output


# ---------------------------------------------------------------------------- what the prompt explains
def _to_human(t) -> None:
    while not t.s.human_to_decide():
        t.ai_step()
    t.flush()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), data=st.data())
def test_setup_discard_takes_any_cards_in_any_order_and_shows_each(seed, players, data, capsys):
    from advisor.play.terminal import Terminal
    s = Session(make_setup(players, data.draw(st.integers(0, players - 1)), ("random",), seed=seed))
    t = Terminal(s, colour=False, bars=False)
    _to_human(t)
    hand = s.discard_choices()
    n = s.discards_to_pick()
    assert n == 2 and len(hand) == 6 and t.choices() == hand
    picks = data.draw(st.permutations(hand))[:n]
    capsys.readouterr()
    t.take(picks[0])
    assert t.choices() == [a for a in hand if a != picks[0]]
    t.take(picks[1])
    out = capsys.readouterr().out.replace("\n    ", " ")          # lines wrapped at 80 columns joined
    names = [action_text(a, s.game.printing) for a in picks]
    echo = [line for line in out.splitlines() if line.startswith("-> ")][-1]
    assert all(re.search(rf"(?<!\w){re.escape(x)}(?!\w)", echo) for x in names), (names, echo)
    kept = s.discard_choices() if s.game.decision == "setup discard" else None
    assert kept is None
    P = s.game.observation(s.human)["players"][s.human]
    assert len(P["hand_dragons"]) + len(P["hand_caves"]) == 4
    assert not set(picks) & ({make(DRAGON, d) for d in P["hand_dragons"]} | {make(CAVE, c) for c in P["hand_caves"]})
    # the same game as the engine's order gives
    same = Session(s.setup)
    for i, a in enumerate(s.record):
        same.apply(a)
    assert state_digest(same.game) == state_digest(s.game)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), data=st.data())
def test_a_save_between_two_discard_picks_keeps_the_first(tmp_path, seed, players, data, capsys):
    """A save made after the first pick of a setup discard (not applied until the second) held
    nothing of it: the loaded game asked the first pick again."""
    from advisor.play.terminal import Terminal
    setup = make_setup(players, data.draw(st.integers(0, players - 1)), ("random",), seed=seed)
    t = Terminal(Session(setup), colour=False, bars=False)
    _to_human(t)
    first, second = data.draw(st.permutations(t.choices()))[:2]
    t.take(first)
    f = tmp_path / f"g{seed}.toml"
    save_session(t.s, str(f))
    loaded, warnings = load_session(str(f))
    assert not warnings and loaded.picked == [first] and loaded.record == t.s.record
    u = Terminal(loaded, colour=False, bars=False)
    assert u.choices() == [a for a in t.choices()] and first not in u.choices()
    assert f"discard {action_text(first, loaded.game.printing)}" in u.header()[1]
    u.take(second)
    t.take(second)
    assert loaded.record == t.s.record and not loaded.picked
    assert state_digest(loaded.game) == state_digest(t.s.game)
    capsys.readouterr()


def test_leaving_between_two_discard_picks_saves_the_first(tmp_path):
    f = tmp_path / "g.toml"
    r = play("--seed", 7, "--opponent", "greedy", "--save", f, input="cave 61\nquit\n")
    assert "saved in" in r.output and tomllib.loads(f.read_text())["picked"] == [make(CAVE, 61)]
    r = play("--load", f, input="cave 48\nquit\n")
    assert "loaded" in r.output and "0 decisions and 1 discard picked" in flat(r.output)
    assert "-> discard cave 48 and cave 61" in r.output
    assert "picked" not in f.read_text()                # applied with the second pick, and saved so
    good = f.read_text()
    for picked, message in [("[5]", "picked: no setup discard of yours starts here"),
                            ('["x"]', "picked: must be a list of action ids")]:
        f.write_text(good.replace("record = [", f"picked = {picked}\nrecord = ["))
        r = play("--load", f)
        assert r.exit_code == 2 and r.output.startswith(f"error: {f}: {message}"), r.output


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_a_hint_at_the_setup_discard_names_the_pair_each_first_card_makes(seed, players):
    from advisor.play.commands import _with_forced
    from advisor.play.session import _hand
    from advisor.search.analysis import MoveInfo
    g = Session(make_setup(players, 0, ("random",), seed=seed)).game
    hand = sorted(_hand(g, g.decider))
    for a in g.legal_actions():
        m = MoveInfo(action=a, text=action_text(a, g.printing), visits=1, mean_reward=0, win_rate=0, score=0,
                     score_se=0, margin=0, margin_se=0)
        text = _with_forced(g, m).text
        if a == hand[-2]:               # the last card is left to pair: the engine discards it too
            assert text == f"{m.text} and {action_text(hand[-1], g.printing)}"
        else:
            assert text == m.text


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_every_setup_discard_is_shown_and_saved_even_the_forced_one(seed, players):
    """The engine takes a seat's last discard itself when one card is left to pair: the record
    does not hold it, but the texts shown and saved name it."""
    s = Session(make_setup(players, 0, ("random",), seed=seed))
    rng = random.Random(seed)
    dealt = [set(s.game.observation(p)["players"][p]["hand_dragons"]) for p in range(players)]
    dealt_caves = [set(s.game.observation(p)["players"][p]["hand_caves"]) for p in range(players)]
    while s.game.phase == "setup":
        legal = s.game.legal_actions()
        # the last card offered first leaves one card to pair: the engine discards it itself
        s.apply(legal[-1] if rng.random() < 0.5 else rng.choice(legal))
    for p in range(players):
        P = s.game.observation(p)["players"][p]
        gone = sorted(f"cave {c}" for c in dealt_caves[p] - set(P["hand_caves"])) + sorted(
            action_text(make(DRAGON, d)) for d in dealt[p] - set(P["hand_dragons"]))
        said = " and ".join(s.texts[i] for i in range(len(s.record)) if s.deciders[i] == p
                            and s.texts[i].startswith("discard "))
        assert len(gone) == 2 and all(re.search(rf"(?<!\w){re.escape(x)}(?!\w)", said) for x in gone), (gone, said)
        notation = [line for line in tomllib.loads(save_text(s).split("\n", 3)[3])["notation"]
                    if line.startswith(f"{s.setup.names()[p]}: discard")]
        assert " and ".join(x.split(": ", 1)[1] for x in notation) == said


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4))
def test_what_came_from_the_decks_is_shown(seed, players, capsys):
    """Every card the human draws from a deck is named, and so is every card the display is
    refilled with (also between the AI's turns): a card taken from the display was seen there."""
    from advisor.play.terminal import Terminal
    s = Session(make_setup(players, 0, ("random",), seed=seed))
    t = Terminal(s, colour=False, bars=False)
    rng = random.Random(seed)
    obs = s.game.observation(0)
    seen = {f"cave {c}" for c in obs["display_caves"] if c} | {
        action_text(make(DRAGON, d)) for d in obs["display_dragons"] if d}
    stream = ""
    entered: set[str] = set()           # the cards that came into the human's hand in the AI's turns

    def in_hand() -> set[str]:
        P = s.game.observation(0)["players"][0]
        return {action_text(make(DRAGON, d)) for d in P["hand_dragons"]} | {f"cave {c}" for c in P["hand_caves"]}
    for _ in range(250):
        if s.game.is_terminal():
            break
        if not s.human_to_decide():
            had = in_hand()
            t.ai_step()
            entered |= in_hand() - had
            continue
        t.flush()
        stream += capsys.readouterr().out
        hand = s.game.observation(0)["players"][0]
        had = [action_text(make(DRAGON, d)) for d in hand["hand_dragons"]] + [f"cave {c}" for c in hand["hand_caves"]]
        t.take(rng.choice(t.choices()))
        out = capsys.readouterr().out
        stream += out
        out = flat(out) + " "
        hand = s.game.observation(0)["players"][0]
        now = [action_text(make(DRAGON, d)) for d in hand["hand_dragons"]] + [f"cave {c}" for c in hand["hand_caves"]]
        for card in set(now) - set(had):
            assert f"({card})" in out or re.search(rf"you drew (.*, )?{re.escape(card)}[,\s]", out), (card, out)
    t.flush()
    stream += capsys.readouterr().out
    taken = 0
    stream = re.sub(r"\n {4}(?=\S)", " ", stream)       # the lines wrapped at 80 columns joined
    for m in re.finditer(r"display refilled: (.+)|from display \d \(([^)]+)\)", stream):
        if m[1]:
            seen |= {x.strip() for x in m[1].split(", ")}
        else:
            assert m[2] in seen, (m[2], stream[max(0, m.start() - 2000):m.end()])
            taken += 1
    assert taken
    for card in entered:
        assert f"({card})" in stream or re.search(rf"you drew ([^\n]*, )?{re.escape(card)}(?!\w)", stream), card


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(1, 5), printing=st.sampled_from(["base", "2025"]),
       depth=st.integers(0, 400))
def test_the_table_never_says_1_of_a_plural(seed, players, printing, depth):
    """"1 coins", "1 markers": a count of one is singular wherever the table (play, show) says it."""
    g = _core.Game.new(players, seed, automa="2", printing=printing)
    rng = random.Random(seed)
    for step in range(depth):
        if g.is_terminal():
            break
        if step % 5 == 0:
            for viewer in range(g.players):
                text = render(g.observation(viewer), viewer, g.printing, g.scores())
                assert not re.search(r"(?<![\d.,/+-])\b1 [a-z]+s\b", text), text
        g.apply(rng.choice(g.legal_actions()))


def test_a_decision_in_another_players_turn_names_whose_card_asks(capsys):
    from advisor.cards import load_database
    from advisor.play.terminal import Terminal
    asked = exact = 0
    for seed in range(4):
        s = Session(make_setup(3, 0, ("random",), seed=seed))
        t = Terminal(s, colour=False, bars=False)
        rng = random.Random(seed)
        while not s.game.is_terminal():
            g = s.game
            if g.decider == 0 and g.phase == "turn" and g.active != 0:
                capsys.readouterr()
                t.show_options()
                out = flat(capsys.readouterr().out)
                assert re.search(rf"asked by P{g.active}'s (cave \d+|[A-Z][\w' -]+)", out), out
                by = g.asked_by
                if by is not None and by[0] in ("dragon", "cave") and g.asking_seat == g.active:
                    card = f"cave {by[1]}" if by[0] == "cave" else load_database(g.printing).dragon(by[1]).name
                    assert f"asked by P{g.active}'s {card}:" in out, out      # the engine's asking card
                    assert f"(P{g.active}'s {card}" in out, out               # in the heading too
                    exact += 1
                asked += 1
            s.apply(rng.choice(g.legal_actions()))
    assert asked > 5 and exact > 0


def test_the_tables_short_forms_are_accepted():
    # seed 3 after the setup: the hand holds caves 8, 32, 49; the table prints crim/gold/amet, c33
    r = play("--opponent", "random", "--seed", 3, input="1\n1\n1\nexcavate c8 amet\nc33\nquit\n")
    assert "-> excavate cave 8 into amethyst" in r.output
    assert "-> cave from display 1 (cave 33)" in r.output
