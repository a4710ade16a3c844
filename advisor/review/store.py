"""A review's results file (`--out FILE`): JSON lines, a header naming the game, seats and budget,
then one line per decision reviewed as it is made, so Ctrl-C or a kill loses at most the decision
in progress and `--resume` goes on from there.

On resume every line is checked (a damaged one is one error naming the file and line, never a
traceback); a last line cut off mid-write (a full disk, a kill) is dropped, as `tournament` does
with its results files, and the decisions before it are kept."""
from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any

from advisor.errors import clip
from advisor.files import MB, FileError, check_regular, read_bytes, signals_held
from advisor.review.judge import Verdict, decisions
from advisor.review.source import PlayedGame, ReviewError, same_file

MARK = "advisor review"
REVIEW_LIMIT = 64 * MB          # a review file: a few hundred bytes a decision
# the JSON types of a decision's fields, by the annotations of Verdict; a float field may be null
# (a loss too uncertain to judge is NaN, kept as null)
_TYPES = {"int": (int,), "str": (str,), "float": (int, float)}
_FIELDS = {f.name: str(f.type) for f in dataclasses.fields(Verdict)}


def _header(played: PlayedGame, seats: list[int], limit: dict[str, Any], seed: int) -> dict[str, Any]:
    from advisor.search.params import PLAY_VERSION
    return {"saved_by": MARK, "game": played.label, "digest": played.digest, "seats": seats, "limit": limit,
            "seed": seed, "play": PLAY_VERSION}


def _same_game(old: dict[str, Any], played: PlayedGame) -> bool:
    """The header's game is this one: the same content (its digest), or for a header written before
    digests, the same file by whatever path it was named."""
    if "digest" in old:
        return old["digest"] == played.digest
    label = old.get("game")
    if not isinstance(label, str):
        return False
    suffix = f" game {played.key}" if played.key is not None else ""
    return label == played.label or (label.endswith(suffix) and same_file(label[:len(label) - len(suffix)],
                                                                          played.path))


def _field_error(d: dict[str, Any]) -> str | None:
    """What is wrong with a decision's fields, or None."""
    missing = [k for k in _FIELDS if k not in d]
    if missing:
        return f"no {', '.join(missing)}"
    unknown = [k for k in d if k not in _FIELDS]
    if unknown:
        return f"{clip(', '.join(map(str, unknown)))}: not a field of a decision"
    for k, typ in _FIELDS.items():
        v = d[k]
        if v is None and typ == "float":
            continue
        if isinstance(v, bool) or not isinstance(v, _TYPES[typ]) or (isinstance(v, float) and not math.isfinite(v)):
            what = {"int": "an integer", "str": "a string", "float": "a finite number or null"}[typ]
            return f"{k}: must be {what}, got {clip(json.dumps(v))}"
    return None


class ResultsFile:
    """The `--out` file of a review: the decisions it holds and appending each new one whole."""

    def __init__(self, path: str, played: PlayedGame, seats: list[int], limit: dict[str, Any], seed: int,
                 resume: bool) -> None:
        self.path = path
        head = _header(played, seats, limit, seed)
        self.done: dict[int, Verdict] = {}
        try:
            check_regular(path, "review file")
        except FileError as e:
            raise ReviewError(f"--out {e}") from None
        if not os.path.lexists(path):
            self.fd = self._open(os.O_CREAT | os.O_EXCL)
            self._write(json.dumps(head) + "\n")
            return
        if not resume:
            raise ReviewError(f"--out {path} exists: --resume goes on with it, or choose another file")
        whole, tail = self._read(played, seats, head)
        self.fd = self._open(0)
        try:
            if tail is False:                   # a line cut off mid-write: dropped
                os.ftruncate(self.fd, whole)
            elif tail is True:                  # a whole last line without its newline
                self._write("\n")
        except OSError as e:
            os.close(self.fd)
            raise ReviewError(f"--out {path}: cannot write it: {e.strerror or e}") from None

    def _open(self, flags: int) -> int:
        try:
            return os.open(self.path, os.O_WRONLY | os.O_APPEND | flags, 0o644)
        except OSError as e:
            raise ReviewError(f"--out {self.path}: cannot write it: {e.strerror or e}") from None

    def _read(self, played: PlayedGame, seats: list[int], head: dict[str, Any]) -> tuple[int, bool | None]:
        """Read the decisions kept; returns the length of the whole lines and what follows them
        (None: nothing, True: a whole line without its newline, False: a cut line)."""
        path = self.path
        try:
            raw = read_bytes(path, REVIEW_LIMIT, "review file")
        except FileError as e:
            raise ReviewError(f"--out {e}") from None
        lines = raw.split(b"\n")
        tail = lines.pop()
        whole = len(raw) - len(tail)
        kept: bool | None = None
        if tail.strip():
            kept = _json(tail) is not _BAD
            if kept:
                lines.append(tail)
        not_ours = f"--out {path}: not a results file of `advisor review`"
        first = _json(lines[0]) if lines else _BAD
        if not isinstance(first, dict) or first.get("saved_by") != MARK:
            raise ReviewError(not_ours)
        if not _same_game(first, played) or any(first.get(k) != head[k] for k in head if k not in ("game", "digest")):
            diff = ["game"] if not _same_game(first, played) else []
            diff += [k for k in head if k not in ("game", "digest") and first.get(k) != head[k]]
            raise ReviewError(f"--out {path} reviews with another {', '.join(diff)}: resume that, or use "
                              "another file")
        seat_of = {i: g.decider for i, g, _ in decisions(played, seats)}
        line_of: dict[int, int] = {}
        for n, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            d = _json(line)
            where = f"--out {path}:{n}"
            if d is _BAD:
                raise ReviewError(f"{where}: not a JSON line (the file was edited or damaged)")
            if not isinstance(d, dict):
                raise ReviewError(f"{where}: not a decision of a review (a JSON object), got {clip(json.dumps(d))}")
            wrong = _field_error(d)
            if wrong:
                raise ReviewError(f"{where}: not a decision of this review: {wrong}")
            i = d["index"]
            if i not in seat_of or seat_of[i] != d["seat"]:
                raise ReviewError(f"{where}: index {i} (seat {d['seat']}) is no reviewed seat's decision with a "
                                  "choice")
            if i in line_of:
                raise ReviewError(f"{where}: decision {i} is kept twice (line {line_of[i]} too)")
            line_of[i] = n
            fields: dict[str, Any] = {k: (math.nan if v is None else v) for k, v in d.items()}
            self.done[i] = Verdict(**fields)
        return whole, kept

    def _write(self, text: str) -> None:
        view = memoryview(text.encode("utf-8"))
        try:
            with signals_held():        # a line is never half written by a Ctrl-C or a kill
                while view:
                    view = view[os.write(self.fd, view):]
        except OSError as e:
            raise ReviewError(f"--out {self.path}: cannot write: {e.strerror or e}; its decisions are kept "
                              "(--resume goes on)") from None

    def keep(self, v: Verdict) -> None:
        """Append decision `v` (one whole line)."""
        d = {k: (None if isinstance(x, float) and math.isnan(x) else x) for k, x in v.to_json().items()}
        self._write(json.dumps(d) + "\n")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


_BAD = object()


def _json(line: bytes) -> Any:
    """A line's JSON value, or _BAD (not UTF-8, not JSON, nested too deeply)."""
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _BAD
