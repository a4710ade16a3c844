"""Every number and every file a user can give: NaN and infinities, settings given two ways,
contradictory options, special files (/dev/zero, a FIFO, a directory), write errors, a byte-order
mark, hostile TOML nesting, an unknown viewer, and `new -o` (issue 46: Numbers, Files)."""
import errno
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.cli import main
from advisor.files import FileError, parse_toml, write_new
from advisor.positions import PositionError, load_position
from advisor.tournaments import records as Rec

EXAMPLES = Path(__file__).parent.parent / "examples"
EARLY = EXAMPLES / "early-2p.toml"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def error_lines(r):
    return [line for line in r.stderr.splitlines() if line.strip()]


def run_process(*args, timeout=30):
    """The real command in a child with a memory cap, so a file that never ends fails the test
    instead of the machine."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "advisor.cli", *map(str, args)], capture_output=True, text=True,
                       timeout=timeout, preexec_fn=cap, stdin=subprocess.DEVNULL)
    return r, time.monotonic() - t0


# ---------------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("args", [
    ("suggest", EARLY, "--time", "nan"),
    ("suggest", EARLY, "--time", "inf"),
    ("suggest", EARLY, "--time", "-inf"),
    ("play", "--hint-time", "nan"),
    ("play", "--hint-time", "infinity"),
    ("tune", "--sprt", "greedy", "random", "--budget", 10, "--elo0", "nan"),
    ("tune", "--sprt", "greedy", "random", "--budget", 10, "--elo1", "inf"),
    ("tune", "--sprt", "greedy", "random", "--budget", 10, "--alpha", "nan"),
    ("tune", "--sprt", "greedy", "random", "--budget", 10, "--beta", "-inf"),
], ids=lambda a: " ".join(map(str, a[-2:])) if isinstance(a, tuple) else None)
def test_number_options_refuse_nan_and_infinities(args):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert "is not a finite number" in r.stderr


@pytest.mark.parametrize("args", [
    ("suggest", EARLY, "--set", "c=nan"),
    ("suggest", EARLY, "--set", "margin_weight=nan"),
    ("suggest", EARLY, "--set", "time=inf"),
    ("suggest", EARLY, "--set", "iterations=inf"),
    ("tournament", "--agent", "ismcts:time=nan", "--agent", "greedy", "--games", 2),
    ("tournament", "--agent", "A=ismcts:c=inf", "--agent", "greedy", "--games", 2),
    ("tune", "--param", "c=0..nan", "--against", "greedy", "--budget", 10),
    ("tune", "--param", "c=nan,1", "--against", "greedy", "--budget", 10),
    ("tune", "--base", "ismcts:c=-inf", "--param", "c=0..1", "--against", "greedy", "--budget", 10),
    ("tune", "--sprt", "ismcts:c=nan", "greedy", "--budget", 10),
], ids=lambda a: " ".join(map(str, a[-2:])) if isinstance(a, tuple) else None)
def test_settings_and_specs_refuse_nan_and_infinities(args):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert len(error_lines(r)) == 1 and ("finite number" in r.stderr or "must be an integer" in r.stderr)


def test_play_opponent_spec_refuses_nan():
    r = run("play", "--opponent", "ismcts:c=nan", "--seed", 1)
    assert r.exit_code == 2 and "finite number" in r.stderr


def _suggest_json(*args):
    r = run("suggest", EARLY, "--json", *args)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_suggest_honours_set_iterations_time_and_workers():
    assert _suggest_json("--set", "iterations=100")["iterations"] == 100
    # the same search as --iterations (the setting is the option given another way)
    assert _suggest_json("--set", "iterations=120", "--seed", 2)["moves"] == \
        _suggest_json("--iterations", 120, "--seed", 2)["moves"]
    timed = _suggest_json("--set", "time=0.2")
    assert 0 < timed["seconds"] < 0.6 and timed["iterations"] > 0
    two = _suggest_json("--set", "workers=2", "--iterations", 50)
    assert two["workers"] == 2 and two["iterations"] == 100


@pytest.mark.parametrize("args, says", [
    (("--set", "workers=-1"), "workers"),
    (("--set", "workers=0"), "workers"),
    (("--set", "reuse=1"), "--set reuse"),
    (("--iterations", 10, "--set", "iterations=100"), "--iterations and --set iterations"),
    (("--time", 0.5, "--set", "time=0.2"), "--time and --set time"),
    (("--workers", 2, "--set", "workers=3"), "--workers and --set workers"),
])
def test_suggest_refuses_settings_it_would_ignore(args, says):
    r = run("suggest", EARLY, *args)
    assert r.exit_code == 2 and says in r.stderr, r.output


@pytest.mark.parametrize("args, says", [
    (("tournament", "--agent", "g=greedy", "--agent", "automa:2", "--players", 2, "--games", 2),
     "makes a solo game"),
    (("tournament", "--agent", "g=greedy", "--agent", "random", "--automa-level", 3, "--games", 2),
     "--automa-level is for solo games"),
    (("tournament", "--agent", "g=greedy", "--agent", "random", "--players", 3, "--automa-level", 1, "--games", 3),
     "not 3 players"),
    (("tournament", "--agent", "g=greedy", "--agent", "automa:2", "--automa-level", 3, "--games", 2),
     "two levels of the Automa"),
    (("tune", "--param", "c=0.1,1", "--against", "automa:2", "--players", 3, "--budget", 10),
     "makes a solo game"),
    (("tune", "--param", "c=0.1,1", "--against", "greedy", "--automa-level", 1, "--budget", 10),
     "--automa-level is for solo games"),
])
def test_contradictory_options_are_refused(args, says):
    r = run(*args)
    assert r.exit_code == 2 and says in r.stderr, r.output
    assert len(error_lines(r)) == 1


def test_play_names_the_option_that_made_the_game_solo():
    r = run("play", "--players", 2, "--opponent", "automa:2", "--seed", 1)
    assert r.exit_code == 2 and "--opponent automa:2 makes a solo game" in r.stderr, r.output


def test_solo_options_that_agree_still_run(tmp_path):
    out = tmp_path / "s.jsonl"
    r = run("tournament", "--agent", "g=greedy", "--agent", "automa:3", "--players", 1, "--automa-level", 3,
            "--games", 2, "--workers", 1, "--out", out, "--json")
    assert r.exit_code == 0, r.output
    assert all(json.loads(x)["automa"]["level"] == "3" for x in out.read_text().splitlines())


def test_resume_with_fewer_games_is_refused(tmp_path):
    out = tmp_path / "r.jsonl"
    base = ("tournament", "--agent", "random", "--agent", "greedy", "--workers", 1, "--out", out, "--json")
    assert run(*base, "--games", 6).exit_code == 0
    before = out.read_text()
    r = run(*base, "--games", 2, "--resume")
    assert r.exit_code == 2 and "give --games 6 or more" in r.stderr, r.output
    assert out.read_text() == before
    again = run(*base, "--games", 6, "--resume")
    assert again.exit_code == 0 and json.loads(again.stdout)["played"] == 0


# ---------------------------------------------------------------------------------- special files
@pytest.fixture(scope="module")
def specials(tmp_path_factory):
    d = tmp_path_factory.mktemp("specials")
    fifo = d / "fifo"
    os.mkfifo(fifo)
    return {"/dev/zero": "/dev/zero", "fifo": fifo, "directory": d / "dir"}


READERS = {
    "show": lambda f: ("show", f),
    "suggest": lambda f: ("suggest", f, "--iterations", 10),
    "legal": lambda f: ("legal", f),
    "play --load": lambda f: ("play", "--load", f),
    "report": lambda f: ("report", f),
    "tournament --reuse": lambda f: ("tournament", "--agent", "greedy", "--agent", "automa:1", "--games", 1,
                                     "--workers", 1, "--reuse", f),
    "tournament --out": lambda f: ("tournament", "--agent", "random", "--agent", "greedy", "--games", 2,
                                   "--workers", 1, "--out", f),
}


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "directory"])
@pytest.mark.parametrize("command", list(READERS))
def test_special_files_are_refused_at_once(specials, command, kind):
    path = specials[kind]
    if kind == "directory":
        Path(path).mkdir(exist_ok=True)
    r, seconds = run_process(*READERS[command](path))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and str(path) in lines[0], lines
    assert "regular file" in lines[0] or "a directory" in lines[0], lines
    assert seconds < 20


def test_oversized_files_are_refused(tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(2 << 20)                 # 2 MB of zero bytes (sparse): no position is that big
    r = run("show", big)
    assert r.exit_code == 2 and "too big for a position file" in r.stderr and len(error_lines(r)) == 1


def test_a_gzip_results_file_that_inflates_past_the_cap_is_refused(tmp_path, monkeypatch):
    import gzip
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"\n" * (3 << 20)))
    monkeypatch.setattr(Rec, "RESULTS_LIMIT", 1 << 20)
    with pytest.raises(Rec.ResultsFileError, match="too big"):
        Rec.load_results(bomb)


# ---------------------------------------------------------------------------------- write errors
def test_out_on_a_device_is_refused_without_a_lock_beside_it(tmp_path):
    r, seconds = run_process("tournament", "--agent", "random", "--agent", "greedy", "--games", 2,
                             "--workers", 1, "--out", "/dev/full")
    assert r.returncode == 2 and "/dev/full" in r.stderr and seconds < 20
    assert not os.path.exists("/dev/full.lock")


def test_disk_full_mid_tournament_keeps_the_games_written(tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    writes = []
    real = os.write

    def write(fd, data):
        if fd > 2 and len(writes) >= 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        writes.append(len(data))
        return real(fd, data)
    monkeypatch.setattr(Rec.os, "write", write)
    base = ("tournament", "--agent", "random", "--agent", "greedy", "--games", 6, "--workers", 1, "--out", out)
    r = run(*base)
    assert r.exit_code == 2, r.output
    assert "No space left on device" in r.stderr and "--resume" in r.stderr and len(error_lines(r)) == 1
    kept = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(kept) == 2
    monkeypatch.setattr(Rec.os, "write", real)
    again = run(*base, "--resume", "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["played"] == 4


@pytest.mark.parametrize("args", [("params",), ("legal", EARLY, "--json"), ("suggest", EARLY, "--iterations", 20)])
def test_output_to_a_full_disk_is_one_line(args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "advisor.cli", *map(str, args)], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == "error: cannot write the output: No space left on device"


def test_save_onto_a_fifo_does_not_hang(specials):
    r = subprocess.run([sys.executable, "-m", "advisor.cli", "play", "--save", str(specials["fifo"]), "--seed", "1",
                        "--opponent", "random"], input="quit\n", capture_output=True, text=True, timeout=30)
    assert "is not a file written by `advisor play`" in " ".join((r.stdout + r.stderr).split())


def test_a_chart_that_cannot_be_written_is_an_error_and_the_old_one_stays(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    base = ("tournament", "--agent", "random", "--agent", "greedy", "--games", 2, "--workers", 1, "--plot")
    r = run(*base, "/dev/full")
    assert r.exit_code == 2 and "/dev/full" in r.stderr and len(error_lines(r)) == 1
    chart = tmp_path / "c.png"
    chart.write_bytes(b"old chart")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", full)
    r = run(*base, chart)
    assert r.exit_code == 2 and "No space left on device" in r.stderr
    assert chart.read_bytes() == b"old chart" and [p.name for p in tmp_path.iterdir()] == ["c.png"]


def test_new_leaves_no_partial_file_when_the_disk_is_full(tmp_path, monkeypatch):
    target = tmp_path / "x.toml"

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(FileError, match="No space left"):
        write_new(str(target), "format = 1\n")
    assert not target.exists()
    monkeypatch.undo()
    r = run("new", "-o", target, "--seed", 1)
    assert r.exit_code == 0 and load_position(target).viewer == 0


def test_new_into_a_missing_folder_is_one_line(tmp_path):
    r = run("new", "-o", tmp_path / "missing-dir" / "x.toml")
    assert r.exit_code == 2 and len(error_lines(r)) == 1 and "missing-dir" in r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_new_to_dash_writes_standard_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("new", "-o", "-", "--seed", 2)
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "-").exists()
    assert r.stdout.startswith("# Wyrmspan position") and "wrote standard output" in r.stderr
    (tmp_path / "p.toml").write_text(r.stdout)
    assert run("legal", tmp_path / "p.toml").exit_code == 0


# ---------------------------------------------------------------------------------- reading text
def test_a_position_file_with_a_byte_order_mark_is_read(tmp_path):
    p = tmp_path / "bom.toml"
    p.write_bytes(b"\xef\xbb\xbf" + EARLY.read_bytes())
    r = run("legal", p)
    assert r.exit_code == 0, r.output
    assert r.stdout == run("legal", EARLY).stdout
    assert load_position(p).names == load_position(EARLY).names


def test_a_save_file_with_a_byte_order_mark_is_read(tmp_path):
    from advisor.play import load_session
    save = tmp_path / "g.toml"
    save.write_text('format = 1\nprinting = "base"\nplayers = 2\nseat = 0\nopponents = ["random"]\nseed = 5\n'
                    'record = []\n', encoding="utf-8-sig")
    session, _ = load_session(str(save))
    assert session.setup.seed == 5


@pytest.mark.parametrize("deep", ["a = " + "[" * 5000 + "]" * 5000, "a = " + "{b=" * 3000 + "1" + "}" * 3000])
def test_deeply_nested_toml_is_a_one_line_error(tmp_path, deep):
    f = tmp_path / "deep.toml"
    f.write_text(deep)
    for args in (("play", "--load", f), ("show", f)):
        r = run(*args)
        assert r.exit_code == 2, r.output
        assert "nested too deeply" in r.stderr and len(error_lines(r)) == 1
        assert not isinstance(r.exception, RecursionError)
    with pytest.raises(FileError, match="nested too deeply"):
        parse_toml(deep, "x")


@pytest.mark.parametrize("viewer, says", [('viewer = "Zed"', "viewer: 'Zed'"), ("viewer = 7", "viewer: must be"),
                                          ("", "viewer: missing")])
@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_an_unknown_viewer_is_reported_once(tmp_path, example, viewer, says):
    text = example.read_text()
    bad = tmp_path / "v.toml"
    bad.write_text("\n".join(viewer if line.startswith("viewer =") else line for line in text.splitlines()) + "\n")
    with pytest.raises(PositionError) as e:
        load_position(bad)
    assert len(e.value.errors) == 1 and says in e.value.errors[0], e.value.errors


@pytest.mark.parametrize("args, message", [
    (["suggest", EARLY, "--sets", "c=1"], "No such option '--sets'. (Did you mean one of: '--seed', '--set'?) "
                                          "(see advisor suggest --help)"),
    (["tournament", "--players", "9", "--agent", "greedy", "--games", "1"], "'--players': 9 is not in the range"),
    (["tune", "--by", "score", "--budget", "2"], "'--by': 'score' is not one of 'wins', 'margin'"),
    (["suggest"], "Missing argument 'FILE'"),
    (["sugest"], "No such command 'sugest'"),
    (["--bogus"], "No such option '--bogus'. (see advisor --help)"),
    (["cards", "show", "--bogus"], "(see advisor cards show --help)"),
])
def test_usage_errors_are_one_line(args, message):
    """click's usage errors (an unknown option or command, a value out of range) come out as every
    other input error: one line, exit status 2, with the command whose help to read."""
    r = CliRunner().invoke(main, [str(a) for a in args], prog_name="advisor")
    assert r.exit_code == 2 and error_lines(r) == [error_lines(r)[0]] and message in r.stderr, r.output
    assert r.stderr.startswith("error: ")
