"""`advisor track`: follow a game played at a real table, move by move, and ask for advice at any
turn (docs/track.md)."""
from __future__ import annotations

import sys

import click

from advisor.cli.options import interruptible, printing_option, seed_option, solo_level_option, user_errors
from advisor.variants import MAX_PLAYERS, MIN_PLAYERS


@click.command()
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
              help="Players at the table (1 with --solo-level).")
@click.option("--names", default=None, help="The players' names in turn order, comma-separated.")
@click.option("--viewer", default=None, help="Whose view it is: your name (default the first).")
@solo_level_option
@click.option("--position", type=click.Path(dir_okay=False), default=None,
              help="Start from this position file (the viewer's turn) instead of a new game.")
@click.option("--load", type=click.Path(dir_okay=False), default=None, help="Resume a tracked game.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Save the game here after every entry (default: the --load file, else track.json).")
@seed_option("The engine's stand-ins for the cards you cannot see.")
@printing_option()
@user_errors
@interruptible
def track(players: int | None, names: str | None, viewer: str | None, solo_level: str | None,
          position: str | None, load: str | None, save: str | None, seed: int, printing: str) -> None:
    """Follow a game at the table: enter the moves as they happen; `suggest` at any of your decisions."""
    from advisor.table import Table
    from advisor.track import Console, Dialogue, TrackSession
    console = Console()
    if load:
        session = TrackSession.load(load)
        if save or session.path is None:        # a game the web page followed goes on in a save of its own
            session.claim(save or "track.json")
    elif position:
        from advisor.track.setup import from_position
        session = from_position(position, seed)
        session.claim(save or "track.json")
    else:
        if solo_level is not None and players not in (None, 1):
            raise click.UsageError(f"--solo-level makes a solo game (1 player), not {players} players")
        n = 1 if solo_level is not None else (players or 2)
        if n == 1 and solo_level is None:
            raise click.UsageError("a 1-player game is against the Automa: give --solo-level")
        given = [x.strip() for x in names.split(",")] if names else [f"P{i}" for i in range(n)]
        if len(given) != n or len(set(given)) != n or not all(given) or any(len(x) > 40 for x in given):
            raise click.UsageError(f"--names: {n} different names (at most 40 characters each), comma-separated")
        if viewer is not None and viewer not in given:
            raise click.UsageError(f"--viewer: one of {', '.join(given)}")
        seat = given.index(viewer) if viewer else 0
        table = Table(n, seat, solo_level or "2", printing, seed, tuple(given) + (("Automa",) if n == 1 else ()))
        session = TrackSession(table)
        session.claim(save or "track.json")
    sys.exit(Dialogue(session, console).run(loaded=bool(load)))
