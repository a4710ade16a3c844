"""The `advisor` command line: the click group `main` and its commands, by area: one game
(`advisor.cli.game`), the card database (`advisor.cli.cards`) and measuring the AI
(`advisor.cli.tournaments`); the options they share are in `advisor.cli.options`."""
from __future__ import annotations

import click

from advisor import __version__
from advisor.cli.cards import cards
from advisor.cli.game import legal, new, params, play, show, suggest
from advisor.cli.tournaments import bench, report, tournament, tune
from advisor.cli.track import track


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="advisor")
def main() -> None:
    """Wyrmspan AI opponent and move advisor."""


for command in (cards, suggest, legal, show, new, params, play, track, tournament, report, tune, bench):
    main.add_command(command)
