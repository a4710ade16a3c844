"""Results files: one JSON record per game, appended as games finish (JSONL), read back for a
report, resumed after a kill, and taken from for `--reuse`. A `.jsonl.gz` file (gzip) is read
wherever a results file is read; only plain files are appended to. A lock file beside the results
file (FILE.lock) keeps two runs from appending to one file at once."""
from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import os
import socket
import time
import zlib
from typing import Any, Iterable, Iterator, NoReturn

from filelock import FileLock, Timeout

from advisor.errors import clip
from advisor.files import RESULTS_LIMIT, FileError, MissingFileError, read_bytes, read_head, signals_held
from advisor.search.params import PLAY_VERSION
from advisor.tournaments.plan import (SCHEMA_VERSION, Plan, TournamentError, agent_seed,
                                      resolved_settings)
from advisor.variants import AUTOMA_LEVELS, MAX_PLAYERS, MIN_PLAYERS, PRINTINGS

SCORE_PARTS = ("guild", "dragons", "end_game", "eggs", "cached", "tucked", "objectives", "coins", "items", "caves")
_TIMING_FIELDS = ("seconds", "think_seconds", "worker")
_GZIP_MAGIC = b"\x1f\x8b"


class ResultsFileError(TournamentError):
    """A results file cannot be read, or holds something other than this tournament's games."""


def play_version(rec: dict[str, Any]) -> int | str:
    """The play version a record was played by: 1 before records said; a string (`"5 with coins
    (0.8, 0.0), ..."`) for an experimental build's games, which is never today's version."""
    v = rec.get("play", 1)
    return v if isinstance(v, str) else int(v)


def strip_timing(rec: dict[str, Any]) -> dict[str, Any]:
    """A record without the fields that depend on the machine (for comparing runs)."""
    return {k: v for k, v in rec.items() if k not in _TIMING_FIELDS}


# ---------------------------------------------------------------------------------- records
def settings_changed(then: dict[str, Any] | None, now: dict[str, Any] | None) -> list[str]:
    """The settings a recorded seat played with that its spec no longer resolves to (`now`): a
    changed default, or a parameter since removed. A parameter added since the record was written
    played as its default (a new parameter's default keeps the old play), so only the record's own
    settings count; agents without settings never differ."""
    if then is None or now is None:
        return []
    return [k for k, v in then.items()
            if (k not in now and STAYED.get(k) != v) or (k in now and now[k] != v)]


# settings removed whose value then is how the search plays now: records played with it still match
STAYED = {"observers": "single"}


def base_record(g: dict[str, Any]) -> dict[str, Any]:
    """The fields of a planned game's record that do not depend on how it went."""
    rec: dict[str, Any] = {"v": SCHEMA_VERSION, "tournament": g["tournament"], "key": g["key"], "deal": g["deal"],
           "game": g["game"], "players": g["players"], "printing": g["printing"], "seed": g["seed"],
           "seats": [{"agent": a, "spec": s, "seed": agent_seed(g["seed"], i)}
                     for i, (a, s) in enumerate(zip(g["agents"], g["specs"], strict=True))], "play": PLAY_VERSION}
    for seat in rec["seats"]:
        settings = resolved_settings(seat["spec"], g["players"])
        if settings is not None:
            seat["settings"] = settings
    if g.get("automa"):
        rec["automa"] = {"level": g["automa"]}
    return rec


def error_record(g: dict[str, Any], message: str, tb: str | None = None, seconds: float = 0.0) -> dict[str, Any]:
    """The record of a game that raised (`message`: one line)."""
    rec = base_record(g)
    rec.update(error=message, traceback=tb, seconds=round(seconds, 4), worker=worker_name())
    return rec


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# ---------------------------------------------------------------------------------- the file
def load_results(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], int, bool | None]:
    """The records of a results file (plain or gzip), the byte length of its whole lines, and what
    follows the last newline: None (nothing), True (a whole record without its newline) or False (a
    line cut off mid-write by a kill, dropped on resume)."""
    name = os.fspath(path)
    try:
        raw = read_bytes(name, RESULTS_LIMIT, "results file")
    except MissingFileError:
        return [], 0, None
    except FileError as e:
        raise ResultsFileError(str(e)) from None
    if raw.startswith(_GZIP_MAGIC):
        try:
            # read at most the cap: a small file can inflate without bound
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = z.read(RESULTS_LIMIT + 1)
        except (OSError, EOFError, zlib.error) as e:
            raise ResultsFileError(f"{name}: not a whole gzip file ({e})") from None
        if len(raw) > RESULTS_LIMIT:
            raise ResultsFileError(f"{name}: more than {RESULTS_LIMIT >> 20} MB uncompressed, too big for a "
                                   "results file")
    records = []
    lines = raw.split(b"\n")
    tail = lines.pop()                  # text after the last newline (b'' when the file ends whole)
    for n, line in enumerate(lines, 1):
        if line.strip():
            records.append(_parse_line(name, n, line))
    whole = len(raw) - len(tail)
    if not tail.strip():
        return records, whole, None
    try:
        rec = _decode(name, len(lines) + 1, tail)
    except ResultsFileError:                # cut off mid-write: dropped
        return records, whole, False
    records.append(check_record(rec, f"{name}:{len(lines) + 1}"))
    return records, whole, True


def compressed(path: str | os.PathLike[str]) -> bool:
    """True when the file is gzip (by its first bytes, whatever its name)."""
    return read_head(path, 2) == _GZIP_MAGIC


def _decode(name: str, n: int, line: bytes) -> Any:
    """A line's JSON value; ResultsFileError if it is not JSON (cut off, damaged, nested too deeply)."""
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsFileError(f"{name}:{n}: not a JSON game record ({e.__class__.__name__})") from None
    except RecursionError:
        raise ResultsFileError(f"{name}:{n}: not a game record: arrays or objects nested too deeply") from None


def _parse_line(name: str, n: int, line: bytes) -> dict[str, Any]:
    return check_record(_decode(name, n, line), f"{name}:{n}")


# ---------------------------------------------------------------------------------- a record's fields
def _integer(lo: int | None = None, hi: int | None = None) -> Any:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int):
            return "must be an integer"
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return f"must be from {lo} to {hi}" if hi is not None else f"must be {lo} or more"
        return None
    return check


def _number(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "must be a finite number"
    return None


def _text(v: Any) -> str | None:
    return None if isinstance(v, str) else "must be a string"


def _one_of(choices: tuple[str, ...]) -> Any:
    return lambda v: None if v in choices else f"must be one of {', '.join(choices)}"


def _optional(check: Any) -> Any:
    return lambda v: None if v is None else check(v)


def _list_of(check: Any) -> Any:
    def each(v: Any) -> str | None:
        if not isinstance(v, list):
            return "must be a list"
        for i, x in enumerate(v):
            wrong = check(x)
            if wrong:
                return f"item {i + 1} {wrong}"
        return None
    return each


def _object(v: Any) -> str | None:
    return None if isinstance(v, dict) else "must be an object"


def _object_of(fields: dict[str, Any], required: tuple[str, ...] = ()) -> Any:
    def check(v: Any) -> str | None:
        if not isinstance(v, dict):
            return "must be an object"
        for k in required:
            if k not in v:
                return f"has no {k}"
        for k, field_check in fields.items():
            if k in v:
                wrong = field_check(v[k])
                if wrong:
                    return f"{k} {wrong}"
        return None
    return check


_PARTS = _object_of({p: _number for p in (*SCORE_PARTS, "total")})
_SEAT = _object_of({"agent": _text, "spec": _text, "seed": _integer(), "settings": _optional(_object)},
                   ("agent", "spec"))
_FIELDS: dict[str, Any] = {
    "tournament": _text, "key": _text, "deal": _integer(0), "game": _integer(0),
    "players": _integer(MIN_PLAYERS, MAX_PLAYERS), "printing": _one_of(PRINTINGS), "seed": _integer(0),
    "seats": _list_of(_SEAT), "play": lambda v: None if isinstance(v, str) else _integer(1)(v),
    "automa": _object_of({"level": _one_of(AUTOMA_LEVELS), "score": _number, "breakdown": _PARTS,
                          "round_objectives": _object}, ("level",)),
    "scores": _list_of(_number), "breakdown": _list_of(_PARTS), "round_objectives": _list_of(_object),
    "winners": _list_of(_integer(0)), "winner_agents": _list_of(_text), "decisions": _list_of(_integer(0)),
    "actions": _list_of(_integer(0)), "outlooks": _list_of(lambda v: None if isinstance(v, list) else "must be a list"),
    "think_seconds": _list_of(_number), "error": _optional(_text), "traceback": _optional(_text),
    "seconds": _number, "worker": _text, "reused": _object,
}
_PER_SEAT = ("scores", "breakdown", "round_objectives", "decisions", "think_seconds")


def check_record(rec: Any, where: str) -> dict[str, Any]:
    """`rec` if it is a game record of `advisor tournament` whose every field has its type and
    range (so a report or a review of an edited file never meets a wrong one), else
    ResultsFileError naming the place (FILE:LINE) and the field."""
    if not isinstance(rec, dict) or not {"tournament", "key", "seats"} <= rec.keys():
        raise ResultsFileError(f"{where}: not a game record of a tournament (needs tournament, key and seats)")
    if rec.get("v") != SCHEMA_VERSION:
        raise ResultsFileError(f"{where}: results format version {clip(json.dumps(rec.get('v')))}, "
                               f"expected {SCHEMA_VERSION}")

    def refuse(field: str, wrong: str) -> NoReturn:
        raise ResultsFileError(f"{where}: {field} {wrong}, got {clip(json.dumps(rec.get(field)))}")
    for k, check in _FIELDS.items():
        if k in rec:
            wrong = check(rec[k])
            if wrong:
                refuse(k, wrong)
    seats = len(rec["seats"])
    if "players" in rec and seats != rec["players"]:
        refuse("seats", f"must list {rec['players']} seat{'s' if rec['players'] > 1 else ''} "
                        f"(players = {rec['players']}), one per player")
    if rec.get("players") == 1 and not rec.get("automa") and not rec.get("error"):
        refuse("automa", "must name the Automa's level in a solo game")
    if rec.get("automa") and rec.get("players", 1) != 1:
        refuse("automa", "is only in solo games (players = 1)")
    for k in _PER_SEAT:
        if k in rec and len(rec[k]) != seats:
            refuse(k, f"must have one item per seat ({seats})")
    others = seats + (1 if rec.get("automa") else 0)
    if any(w >= others for w in rec.get("winners", [])):
        refuse("winners", f"must be seats from 0 to {others - 1}")
    return rec


class ResultsWriter:
    """Appends one whole, flushed line per game (O_APPEND; Ctrl-C is held off during a write)."""

    def __init__(self, path: str | os.PathLike[str], whole: int = 0, tail: bool | None = None) -> None:
        self.path = os.fspath(path)
        self.fd: int | None = None
        try:
            if tail is False:                   # drop a line cut off by a kill
                os.truncate(self.path, whole)
            self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if tail is True:                    # a whole last record without its newline
                os.write(self.fd, b"\n")
        except OSError as e:
            raise ResultsFileError(f"cannot write {self.path}: {e.strerror or e}") from None
        self.last_sync = time.monotonic()

    def append(self, rec: dict[str, Any]) -> None:
        assert self.fd is not None, "append after close"
        data = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
        try:
            with sigint_held():
                view = memoryview(data)
                while view:
                    n = os.write(self.fd, view)
                    view = view[n:]
            if time.monotonic() - self.last_sync > 2.0:
                os.fsync(self.fd)
                self.last_sync = time.monotonic()
        except OSError as e:
            # the records before stay whole in the file; a line cut short here is dropped on resume
            raise ResultsFileError(f"cannot write {self.path}: {e.strerror or e}; the games in it are kept "
                                   "(--resume goes on)") from None

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self.fd)
            os.close(self.fd)
            self.fd = None


sigint_held = signals_held      # a results line is never half written by a Ctrl-C or a kill


# ---------------------------------------------------------------------------------- resume and reuse
def reusable_games(plan: Plan, paths: Iterable[str | os.PathLike[str]]) -> dict[str, dict[str, Any]]:
    """Planned solo games already played in other tournaments' results files: same deal seed,
    printing, Automa level, agent spec (the name may differ) and, where the record has them, the
    search settings the spec resolved to (so a changed default is never mistaken for the same
    player). In solo a game's outcome depends on nothing else, so a new agent can be compared on
    the same deals without replaying the old ones. Returns key -> the record, renamed into this
    tournament (with `reused` saying whence)."""
    files = [os.fspath(p) for p in paths]
    if not files:
        return {}
    if plan.players != 1:
        raise TournamentError("--reuse takes solo games only: with more seats, every agent shapes a game")
    found: dict[tuple[Any, ...], list[tuple[str, dict[str, Any]]]] = {}
    for path in files:
        if not os.path.exists(path):
            raise ResultsFileError(f"--reuse {path}: no such results file")
        for rec in load_results(path)[0]:
            if (rec.get("error") or rec.get("players") != 1 or len(rec["seats"]) != 1
                    or play_version(rec) != PLAY_VERSION):
                continue
            what = (rec.get("seed"), rec.get("printing"), (rec.get("automa") or {}).get("level"),
                    rec["seats"][0].get("spec"))
            found.setdefault(what, []).append((path, rec))
    out: dict[str, dict[str, Any]] = {}
    now = {spec: resolved_settings(spec, 1) for spec in {g.specs[0] for g in plan.games}}
    for g in plan.games:
        hit = next(((path, rec) for path, rec in found.get((g.seed, g.printing, g.automa, g.specs[0]), [])
                    if not settings_changed(rec["seats"][0].get("settings"), now[g.specs[0]])), None)
        if hit is None:
            continue
        path, rec = hit
        rec = dict(rec, tournament=plan.id, key=g.key, deal=g.deal, game=g.game,
                   seats=[dict(rec["seats"][0], agent=g.agents[0])],
                   winner_agents=[g.agents[0] if w == 0 else "automa" for w in rec.get("winners", [])],
                   reused={"file": path, "tournament": rec["tournament"], "key": rec["key"]})
        out[g.key] = rec
    return out




def resumed_records(plan: Plan, out: str, resume: bool) -> tuple[dict[str, dict[str, Any]], int, bool | None]:
    """The records already in `out` that count for `plan` (key -> the first finished record, else
    the last error), with `load_results`'s whole length and tail. Refuses a file that holds games
    without --resume, another tournament's games, or games played by another player (another play
    version, or settings the spec no longer resolves to)."""
    if os.path.isdir(out):
        raise ResultsFileError(f"{out} is a directory, not a results file")
    if out.endswith(".gz") or compressed(out):
        raise ResultsFileError(f"{out} is compressed: it is never appended to (gunzip it, or another --out)")
    existing, whole, tail = load_results(out)
    if existing and not resume:
        raise ResultsFileError(f"{out} already holds {len(existing)} games: give --resume, or another --out")
    records: dict[str, dict[str, Any]] = {}
    keys = plan.keys()
    now = {spec: resolved_settings(spec, plan.players) for spec in {s for g in plan.games for s in g.specs}}
    for n, rec in enumerate(existing, 1):
        if rec["tournament"] != plan.id:
            raise ResultsFileError(f"{out} holds another tournament's games (record {n}): use another --out")
        if play_version(rec) != PLAY_VERSION:
            raise ResultsFileError(f"{out}: record {n} was played by play version "
                                   f"{clip(str(play_version(rec)))}, not {PLAY_VERSION}: use another --out")
        for seat in rec["seats"]:
            changed = settings_changed(seat.get("settings"), now.get(seat["spec"]))
            if changed:
                k = changed[0]
                raise ResultsFileError(
                    f"{out}: record {n} ({seat['agent']}) played {k}={seat['settings'][k]!r}, but "
                    f"{seat['spec']} now plays {k}={(now[seat['spec']] or {}).get(k, '(no such setting)')!r} "
                    "(a default changed)")
        prev = records.get(rec["key"])
        if rec["key"] in keys and (prev is None or prev.get("error")):
            records[rec["key"]] = rec        # the first success counts; an error can be replaced
    beyond = {rec["key"] for rec in existing} - keys
    if beyond:
        held = len(keys | beyond)
        raise ResultsFileError(f"{out} holds {held} games, more than --games {len(keys)}: give --games {held} or more")
    return records, whole, tail


@contextlib.contextmanager
def results_lock(out: str) -> Iterator[None]:
    """Hold OUT.lock for the block: a second run on the same results file stops at once with one
    line instead of interleaving its records. The lock file stays behind (removing it would let a
    third run lock a new file while the second still holds the old one)."""
    lock = FileLock(out + ".lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise ResultsFileError(f"{out} is being written by another run ({out}.lock): wait, or use another "
                               "--out") from None
    except OSError as e:
        raise ResultsFileError(f"cannot lock {out}: cannot create {out}.lock: {e.strerror or e}") from None
    try:
        yield
    finally:
        lock.release()
