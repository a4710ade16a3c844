"""The user's files: read only regular files, up to a size cap, as UTF-8 (a leading byte-order mark
dropped), TOML and JSON (hostile nesting reported, not raised); write a file whole or report why not.

A path a user gives may name anything: /dev/zero never ends, a FIFO blocks until a writer comes, a
directory cannot be read. Each is one line (FileError), at once, before any memory is spent."""
from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import sys
import threading
import tomllib
from collections.abc import Iterator
from typing import Any

from advisor.errors import AdvisorError, clip

MB = 1 << 20
POSITION_LIMIT = 1 * MB         # a position file is a few kilobytes
SAVE_LIMIT = 16 * MB            # a save holds a game's record: tens of kilobytes
RESULTS_LIMIT = 512 * MB        # a results file: about a kilobyte a game


class FileError(AdvisorError):
    """A file a user named cannot be read or written: names the file and why."""


class MissingFileError(FileError):
    """The file does not exist."""


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def check_regular(path: str | os.PathLike[str], what: str = "file") -> None:
    """FileError unless `path` is a regular file or does not exist yet (a file to write)."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        return
    except OSError as e:
        raise FileError(f"{name}: cannot use it: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileError(f"{name}: {_kind(st.st_mode)}, not a {what} (only regular files are used)")


def check_png(path: str, option: str = "--plot") -> None:
    """FileError unless `path` can take a PNG image, checked before any work is done for it: a name
    ending in .png, in a folder that exists, of a regular file or none yet (not standard output, a
    device or a FIFO)."""
    if path == "-":
        raise FileError(f"{option} -: an image goes to a file, not to standard output; name a .png file")
    ext = os.path.splitext(path)[1]
    if ext.lower() != ".png":
        raise FileError(f"{option} {clip(path)}: the image is a PNG: give a name ending in .png"
                        + (f" (not {clip(ext, 12)})" if ext else ""))
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise FileError(f"{option} {clip(path)}: no such folder {clip(folder)}")
    check_regular(path, "PNG file")


def read_bytes(path: str | os.PathLike[str], limit: int, what: str = "file") -> bytes:
    """The content of the regular file `path`, at most `limit` bytes, else FileError."""
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below)
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise MissingFileError(f"{name}: no such file") from None
    except OSError as e:
        raise FileError(f"{name}: cannot read it: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileError(f"{name}: {_kind(st.st_mode)}, not a {what} (only regular files are read)")
        if st.st_size > limit:
            raise FileError(f"{name}: {st.st_size / MB:.1f} MB is too big for a {what} (at most {limit // MB} MB)")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, MB))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:                # it grew while being read
            raise FileError(f"{name}: more than {limit // MB} MB, too big for a {what}")
        return b"".join(chunks)
    except OSError as e:
        raise FileError(f"{name}: cannot read it: {e.strerror or e}") from None
    finally:
        os.close(fd)


def read_head(path: str | os.PathLike[str], n: int) -> bytes | None:
    """The first `n` bytes of `path` if it is a regular file, else None (never blocks on a FIFO)."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return os.read(fd, n) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)


def decode_text(raw: bytes, name: str) -> str:
    """UTF-8 text; a leading byte-order mark (as some editors write) is dropped."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise FileError(f"{name}: not UTF-8 text (byte {raw[e.start]:#04x} at offset {e.start})") from None


def read_text(path: str | os.PathLike[str], limit: int, what: str = "file") -> str:
    """A regular UTF-8 text file of at most `limit` bytes (see read_bytes, decode_text)."""
    return decode_text(read_bytes(path, limit, what), os.fspath(path))


def parse_toml(text: str, name: str) -> dict[str, Any]:
    """TOML text as a dict, or FileError with one line saying where it is wrong."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FileError(toml_error(name, e)) from None
    except RecursionError:
        raise FileError(f"{name}: not valid TOML: arrays or tables nested too deeply") from None


def parse_json(text: str, name: str) -> Any:
    """JSON text as Python data, or FileError with one line saying where it is wrong (hostile
    nesting and numbers too long to read are reported, not raised)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FileError(f"{name}: line {e.lineno}, column {e.colno}: not valid JSON: {e.msg.lower()}") from None
    except RecursionError:
        raise FileError(f"{name}: not valid JSON: arrays or objects nested too deeply") from None
    except ValueError:          # an integer of more digits than Python converts
        raise FileError(f"{name}: not valid JSON: a number too long to read") from None


def toml_error(filename: str, e: Exception) -> str:
    """tomllib's message as 'FILE: line L, column C: not valid TOML: what'."""
    msg = str(e)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    where = "end of file"
    if m:
        where = f"line {m.group(1)}, column {m.group(2)}"
        msg = msg[:m.start()]
    else:
        m = re.search(r"\s*\(at end of document\)$", msg)
        if m:
            msg = msg[:m.start()]
    msg = msg[:1].lower() + msg[1:]
    return f"{filename}: {where}: not valid TOML: {msg}"


def write_new(path: str, text: str, what: str = "file") -> str:
    """Write `text` to the new file `path` (an existing file is never overwritten), or to standard
    output for '-'. A failed write (no such folder, disk full) leaves no partial file: FileError.
    Returns where it went ('standard output' or the path)."""
    if path == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except OSError as e:
            raise FileError(f"cannot write the {what} to standard output: {e.strerror or e}") from None
        return "standard output"
    try:
        f = open(path, "x", encoding="utf-8")
    except FileExistsError:
        raise FileError(f"{path} exists; choose another name or delete it") from None
    except OSError as e:
        raise FileError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        _remove_quietly(path)
        raise FileError(f"cannot write {path}: {e.strerror or e}") from None
    return path


HELD: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Defer Ctrl-C, a `kill` (SIGTERM) or a closed terminal (SIGHUP) that arrives during the
    block to its end, so a file is never left half written; then it acts as it would have (Ctrl-C
    raises KeyboardInterrupt, the others end the process as before). Only the main thread can."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old: dict[int, Any] = {}
    try:
        for held in HELD:
            old[held] = signal.signal(held, lambda signum, _: got.append(signum))
    except (ValueError, OSError):
        pass
    try:
        yield
    finally:
        for held, handler in old.items():
            signal.signal(held, signal.SIG_DFL if handler is None else handler)
        for came in dict.fromkeys(got):
            if came == signal.SIGINT and old.get(came) in (signal.default_int_handler, None):
                raise KeyboardInterrupt
            os.kill(os.getpid(), came)           # its own handler, or the default: ends the process


def _temporary(path: str) -> str:
    return f"{path}.tmp{os.getpid()}"


def _remove_stale(path: str) -> None:
    """Remove the temporary files of `path` left by writers that were killed (kill -9 gives no
    chance to clean up): PATH.tmpPID of a process that no longer runs."""
    folder, name = os.path.split(path)
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return
    for entry in entries:
        pid = entry[len(name) + 4:] if entry.startswith(f"{name}.tmp") else ""
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _remove_quietly(os.path.join(folder, entry))
        except (OSError, OverflowError):
            pass                                # another user's process: not ours to judge


def replace_file(path: str, data: bytes, what: str = "file") -> None:
    """Write `data` to `path` whole, replacing what was there only once all of it is written (a
    full disk leaves the old file as it was); a device or FIFO at `path` is refused: FileError.
    A kill or Ctrl-C meanwhile waits for the file to be whole; the temporary file a kill -9 left
    is removed by the next write."""
    check_regular(path, what)
    _remove_stale(path)
    tmp = _temporary(path)
    try:
        with signals_held():
            try:
                with open(tmp, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException:
                _remove_quietly(tmp)
                raise
    except OSError as e:
        raise FileError(f"cannot write {path}: {e.strerror or e}") from None


def _remove_quietly(path: str) -> None:
    """Remove a partly written file; one that is already gone is fine."""
    with contextlib.suppress(OSError):
        os.unlink(path)
