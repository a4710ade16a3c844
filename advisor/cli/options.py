"""Options and decorators shared by the commands: one-line user errors, Ctrl-C, printing, Automa
level, seeds, search budgets and settings, workers, and JSON output."""
from __future__ import annotations

import functools
import math
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterable, NoReturn, TypeVar

import click

from advisor.errors import AdvisorError, clip

F = TypeVar("F", bound=Callable[..., Any])
from advisor.variants import AUTOMA_LEVELS as LEVELS, PRINTINGS


class FiniteFloat(click.FloatRange):
    """A number a user types: NaN and infinities refused (a search cannot run for nan seconds),
    then the range checked (no bounds: any finite number)."""
    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)     # click's own float parsing, unchecked
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)

    def __repr__(self) -> str:
        return "FiniteFloat" if self.min is None and self.max is None else super().__repr__()

    def _describe_range(self) -> str:
        # no bounds: nothing to show in the help (click would print "x<=None")
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()


ERROR_WIDTH = 400       # the longest error line: a path or two and what is wrong


def fail(message: str) -> NoReturn:
    """Each line of `message` as "error: ..." on stderr; exit status 2. A line is cut at
    ERROR_WIDTH characters: a value a user gave is never echoed whole (a megabyte of it)."""
    for line in message.splitlines() or [""]:
        click.echo(f"error: {clip(line, ERROR_WIDTH)}", err=True)
    sys.exit(2)


def user_errors(fn: F) -> F:
    """Report AdvisorError as one line on stderr with exit status 2, never a traceback."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AdvisorError as e:
            fail(str(e))
    return wrapper  # type: ignore[return-value]


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def interruptible(fn: F) -> F:
    """Ctrl-C, or a `kill` (SIGTERM) as a job scheduler sends: the work stops as for Ctrl-C, keeping
    what was done, with one line on stderr and exit status 130, never a traceback. A command started
    in the background ignores Ctrl-C; `kill` stops it the same way."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        old = None
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            old = signal.signal(signal.SIGTERM, _stop)
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        finally:
            if old is not None:
                signal.signal(signal.SIGTERM, old)
    return wrapper  # type: ignore[return-value]


def printing_option(default: str | None = "base") -> Callable[[F], F]:
    """--printing: the base game's cards or the 2025 updated ones."""
    return click.option("--printing", type=click.Choice(PRINTINGS), default=default,
                        show_default=default is not None,
                        help="Card printing: base game or the 2025 updated cards"
                             + ("." if default is not None else " (default base)."))


def automa_option(fn: F) -> F:
    """--automa-level for solo games."""
    return click.option("--automa-level", "automa", type=click.Choice(LEVELS, case_sensitive=False), default=None,
                        help="Solo (--players 1): the Automa's level (default 2; R1-R3: Ravel).")(fn)


def solo_level_option(fn: F) -> F:
    """--solo-level: a solo game against the Automa at this level."""
    return click.option("--solo-level", type=click.Choice(LEVELS, case_sensitive=False), default=None,
                        help="A solo game against the Automa at this level (R1-R3: Ravel).")(fn)


def seed_option(help: str, default: int | None = 0) -> Callable[[F], F]:
    """--seed with the command's own meaning of it."""
    return click.option("--seed", type=int, default=default, show_default=default is not None, help=help)


def search_budget(fn: F) -> F:
    """--time and --iterations: how long a search runs (seconds by default)."""
    fn = click.option("--iterations", type=click.IntRange(1, 10**9), default=None, help="Iterations of search.")(fn)
    return click.option("--time", "seconds", type=FiniteFloat(0.01, 3600), default=None,
                        help="Seconds of search (default 1 when no --iterations).")(fn)


def settings_option(fn: F) -> F:
    """--set NAME=VALUE (repeatable): any search parameter of the registry."""
    return click.option("--set", "sets", multiple=True, metavar="NAME=VALUE",
                        help="Any search parameter of the registry (see `advisor params`).")(fn)


def parse_sets(sets: Iterable[str]) -> dict[str, str]:
    """--set values as a settings dict (their values are checked by the registry)."""
    out = {}
    for item in sets:
        k, eq, v = item.partition("=")
        if not eq:
            raise click.BadParameter(f"'{clip(item)}' is not NAME=VALUE", param_hint="--set")
        out[k.strip()] = v.strip()
    return out


def workers_option(fn: F) -> F:
    """--workers for games on local processes."""
    return click.option("--workers", type=click.IntRange(1, 256), default=None,
                        help="Local worker processes (default: one per core; 1 plays in this process).")(fn)


def scheduler_option(fn: F) -> F:
    """--scheduler: games on a Dask cluster instead."""
    return click.option("--scheduler", metavar="ADDRESS", default=None,
                        help="Run the games on this Dask distributed scheduler (tcp://host:8786) "
                             "instead of local processes; needs the [cluster] extra.")(fn)


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def json_safe(x: Any) -> Any:
    """JSON-safe: floats rounded, non-finite numbers as null."""
    if isinstance(x, float):
        return round(x, 6) if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x
