"""The `advisor` command line: the click group `main` and its commands, by area: one game
(`advisor.cli.game`), the card database (`advisor.cli.cards`) and measuring the AI
(`advisor.cli.tournaments`); the options they share are in `advisor.cli.options`."""
from __future__ import annotations

import contextlib
import errno
import os
import sys
from typing import Any, NoReturn

import click

from advisor import __version__
from advisor.cli.cards import cards
from advisor.cli.game import legal, new, params, play, show, suggest
from advisor.cli.options import fail
from advisor.cli.review import review
from advisor.cli.serve import serve
from advisor.cli.tournaments import bench, report, tournament, tune
from advisor.cli.track import track


class _Commands(click.Group):
    """The command group. A usage error (an unknown option, a value out of range) is one line with
    exit status 2, as every other input error; so is a command's output that cannot be written
    (disk full, a quota) rather than a traceback (files the commands write report their own
    errors, so what reaches here is standard output)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            _usage(e)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            _usage(e)
        except OSError as e:
            if e.errno not in _WRITE_ERRORS:
                raise
            with contextlib.suppress(OSError):
                # nothing more reaches the full device, not even the interpreter's flush at exit
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            fail(f"cannot write the output: {e.strerror or e}")


def _usage(e: click.UsageError) -> NoReturn:
    """click's own form takes three lines (usage, a hint, the error): one, naming the help. A bare
    command asking for its help (click 8.2 raises that as a usage error too) gets the help."""
    if isinstance(e, _HELP_ASKED):
        raise e
    where = e.ctx.command_path if e.ctx is not None else "advisor"
    fail(f"{e.format_message().removeprefix('Invalid value for ')} (see {where} --help)")


_HELP_ASKED = getattr(click.exceptions, "NoArgsIsHelpError", ())
_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="advisor")
def main() -> None:
    """Wyrmspan AI opponent and move advisor."""


for command in (cards, suggest, legal, show, new, params, play, track, serve, review, tournament, report, tune, bench):
    main.add_command(command)
