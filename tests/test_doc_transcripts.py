"""The docs' transcripts show what the program prints. A transcript is a fenced block of README.md
or docs/*.md whose first line is a command after a `$ ` prompt (`$ advisor suggest ...`); each
line after it up to the next `$ ` line is what that command prints, standard output and error as
a terminal shows them. Each command runs as shown, in a fresh folder that holds `examples/` and
`bench/results/` (so the docs' relative paths work), and its output must equal the transcript line
for line, but for:

- what varies from run to run, each rewritten to a placeholder in both texts by NORMALISE below
  (seconds taken, rates, the folder it ran in): nothing else is loosened;
- a line `...` of the transcript, which stands for one or more whole lines left out (a table
  drawn in full, say).

A session (`advisor play`) is typed as the transcript shows it: each time the program asks for a
line, after a prompt such as `> `, the line the transcript shows there, after that prompt, is
typed; where the transcript shows none, the input ends. A transcript whose commands take long is
marked slow in SLOW, and so left to `pytest -m slow`."""
from __future__ import annotations

import difflib
import io
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import click
import click.testing
import pytest
from click.testing import CliRunner

from advisor.cli import main

ROOT = Path(__file__).parent.parent
LEFT_OUT: set[str] = set()      # docs whose transcripts are not checked (none)
DOCS = [d for d in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if d.name not in LEFT_OUT]

# what legitimately differs between two runs of the same command: (pattern, placeholder)
NORMALISE = [
    (re.compile(r"\b\d+(\.\d+)? s\b(?=[);,.]| \(|$)"), "<seconds> s"),       # "in 0.03 s", "(4.2 s)"
    (re.compile(r"\b[\d,]+(\.\d+)? (games|decisions|iterations)/s\b"), r"<rate> \2/s"),
    (re.compile(r"\b[\d,]+(\.\d+)? / s\b"), "<rate> / s"),
]

# transcripts (doc, command) whose run takes more than a few seconds
SLOW: set[tuple[str, str]] = set()


@dataclass
class Transcript:
    doc: str
    line: int                   # of the command in the doc, from 1
    command: str                # as shown, without the `$ `
    shown: list[str]            # what the transcript shows it prints (a session's typed lines too)


def transcripts(doc: Path) -> list[Transcript]:
    """Every command of a fenced block that starts with `$ `, with its shown output."""
    found = []
    text = doc.read_text()
    for block in re.finditer(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
        lines = re.sub(r"\\\n\s*", " ", block[1]).splitlines()     # a command continued with \ joined
        if not lines or not lines[0].startswith("$ "):
            continue
        first = text[:block.start(1)].count("\n") + 1
        for i, line in enumerate(lines):
            if line.startswith("$ "):
                end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("$ ")), len(lines))
                found.append(Transcript(doc.name, first + i, line[2:], lines[i + 1:end]))
    return found


TRANSCRIPTS = [t for d in DOCS for t in transcripts(d)]


def normalised(lines: list[str], here: Path) -> list[str]:
    out = []
    for line in lines:
        line = line.replace(str(here) + "/", "").replace(str(here), ".").rstrip()
        for pattern, placeholder in NORMALISE:
            line = pattern.sub(placeholder, line)
        out.append(line)
    return out


def reached(shown: list[str], printed: list[str]) -> set[int]:
    """The places in `shown` that `printed` can reach from its start: i where printed equals
    shown[:i], a `...` line of shown standing for one or more lines."""
    states = {(0, False)}           # (i, inside): at shown[i]; inside: a `...` there took a line
    for line in printed:
        after = set()
        for i, inside in states:
            if i < len(shown) and shown[i] == "...":
                after.add((i, True))
                if inside and i + 1 < len(shown) and shown[i + 1] == line:
                    after.add((i + 2, False))
            elif i < len(shown) and shown[i] == line:
                after.add((i + 1, False))
        states = after
    return {i + 1 if inside else i for i, inside in states if inside or i == len(shown) or shown[i] != "..."}


def matches(shown: list[str], printed: list[str]) -> bool:
    """`printed` equals `shown`, a `...` line of which stands for one or more lines."""
    return len(shown) in reached(shown, printed)


class Typist(io.RawIOBase):
    """Standard input that types, each time the program asks for a line, what the transcript shows
    after the prompt just printed; the input ends where the output left the transcript or the
    transcript shows nothing typed there."""

    def __init__(self, shown: list[str], here: Path, printed: Callable[[], str]):
        self.shown, self.here, self.printed = shown, here, printed
        self.pending = b""
        self.ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not len(buffer):
            return 0                # click's probe whether the stream is binary
        if not self.pending and not self.ended:
            line = self.next_line()
            self.ended = line is None
            self.pending = b"" if line is None else f"{line}\n".encode()
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n

    def next_line(self) -> str | None:
        sys.stdout.flush()
        sys.stderr.flush()
        *done, prompt = click.unstyle(self.printed()).split("\n")
        prompt = normalised([prompt], self.here)[0]
        for i in sorted(reached(self.shown, normalised(done, self.here))):
            if prompt and i < len(self.shown) and self.shown[i].startswith(prompt):
                typed = self.shown[i][len(prompt):].lstrip() if len(self.shown[i]) > len(prompt) else ""
                # a typed line wrapped under its prompt goes on in the lines indented by 4
                for more in self.shown[i + 1:]:
                    if not (more.startswith("    ") and not more.startswith("     ")):
                        break
                    typed += " " + more.strip()
                return typed
        return None


def run(t: Transcript, here: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What `t`'s command prints, typed what the transcript shows (normalised lines)."""
    mixers: list[click.testing.StreamMixer] = []

    class Recorded(click.testing.StreamMixer):      # the output so far, for the typist
        def __init__(self) -> None:
            super().__init__()
            mixers.append(self)
    monkeypatch.setattr(click.testing, "StreamMixer", Recorded)
    shown = normalised(t.shown, here)
    typist = Typist(shown, here, lambda: mixers[-1].output.getvalue().decode(errors="replace"))
    words = shlex.split(t.command)
    assert words[0] == "advisor", f"{t.doc}:{t.line}: only `advisor` commands are run"
    r = CliRunner().invoke(main, words[1:], input=typist)
    assert "Traceback" not in r.output, r.output[-3000:]
    return normalised(click.unstyle(r.output).splitlines(), here)


def test_the_docs_have_transcripts() -> None:
    """The check below has transcripts to check (a doc's block it does not recognise would be
    skipped silently), a session among them."""
    assert len(TRANSCRIPTS) >= 5, [(t.doc, t.command) for t in TRANSCRIPTS]
    assert any(" play " in t.command for t in TRANSCRIPTS)


def test_a_transcript_is_read_as_its_lines(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("Text.\n\n```\n$ advisor play --seed 7\nTable\n> 5\n-> discard\n> quit\n$ advisor params\n"
                   "c ...\n```\n\n```\nadvisor show FILE\n```\n")
    play, params = transcripts(doc)
    assert (play.line, play.command) == (4, "advisor play --seed 7")
    assert play.shown == ["Table", "> 5", "-> discard", "> quit"]
    assert (params.line, params.shown) == (9, ["c ..."])


def test_the_normalisation_is_narrow(tmp_path: Path) -> None:
    """Only the measures that vary become placeholders; a count, a score or a move stays as it is."""
    lines = ["300 iterations in 0.03 s (1 worker); Ann to play", "played 4 games in 12.5 s, 1,234 games/s",
             f"wrote {tmp_path}/game.toml", "1 s a decision", " 1 explore golden   42.7%   82.0  41"]
    assert normalised(lines, tmp_path) == [
        "300 iterations in <seconds> s (1 worker); Ann to play", "played 4 games in <seconds> s, <rate> games/s",
        "wrote game.toml", "1 s a decision", " 1 explore golden   42.7%   82.0  41"]


def test_an_elision_stands_for_one_or_more_lines() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "b", "d"])
    assert not matches(["a", "...", "d"], ["a", "d"])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert not matches(["a", "...", "d"], ["a", "b", "d", "e"])
    assert reached(["a", "> 5", "...", "> quit"], ["a"]) == {1}
    assert reached(["a", "> 5", "...", "> quit"], ["a", "> 5", "x", "y"]) == {3}


@pytest.mark.parametrize("t", [pytest.param(t, marks=[pytest.mark.slow] if (t.doc, t.command) in SLOW else [],
                                            id=f"{t.doc}:{t.line}") for t in TRANSCRIPTS])
def test_each_transcript_shows_what_the_command_prints(t: Transcript, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for folder in ("examples", "bench/results"):
        (tmp_path / folder).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    printed = run(t, tmp_path, monkeypatch)
    shown = normalised(t.shown, tmp_path)
    if not matches(shown, printed):
        diff = "\n".join(difflib.unified_diff(shown, printed, f"{t.doc}:{t.line}", "printed", lineterm=""))
        pytest.fail(f"{t.doc}:{t.line}: `{t.command}` prints otherwise than shown:\n{diff}", pytrace=False)
