"""Commands about one game: `suggest`, `legal` and `show` on a position file, `new` to write one,
`params` (the search settings) and `play` at the terminal."""
from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import click

from advisor.cli.options import (FiniteFloat, interruptible, parse_sets, printing_option, search_budget, seed_option,
                                 settings_option, solo_level_option, user_errors)
from advisor.files import FileError, write_new
from advisor.variants import MAX_PLAYERS, MIN_PLAYERS

if TYPE_CHECKING:
    from advisor.positions import Position
    from advisor.search.analysis import Analysis


def _load(file: str) -> Position:
    from advisor.positions import load_position
    return load_position(file)


@click.command()
@click.argument("file", type=click.Path())
@search_budget
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Root-parallel worker processes (default 1).")
@seed_option("Search seed (same seed, same result).")
@click.option("--top", type=click.IntRange(1, 1000), default=5, show_default=True, help="Moves to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only (schema: docs/cli-json.md).")
@settings_option
@user_errors
@interruptible
def suggest(file: str, seconds: float | None, iterations: int | None, workers: int | None, seed: int, top: int,
            as_json: bool, sets: tuple[str, ...]) -> None:
    """Rank the moves of the position in FILE for the player whose view it is.

    Ctrl-C stops the search: the ranking found so far is printed, marked as interrupted, and the
    exit status is 130."""
    from advisor.search.suggest import ranking_json, ranking_text, suggest, suggest_settings
    settings = suggest_settings(parse_sets(sets), seconds, iterations, workers)
    pos = _load(file)
    game = pos.to_game(seed)
    bar = None
    if not as_json and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=1000, desc="searching", leave=False, bar_format="{l_bar}{bar}| {elapsed}{postfix}")

    def progress(share: float) -> None:
        if bar is not None:
            bar.update(int(share * 1000) - bar.n)

    def so_far(a: Analysis) -> None:        # on the bar's line: the best move so far
        if bar is not None and a.moves:
            bar.set_postfix_str(f"best so far: {a.best.text[:40]}", refresh=False)
    try:
        a = suggest(game, settings, seed=seed, progress=progress, partial=so_far if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    if as_json:
        click.echo(json.dumps(ranking_json(a, game, pos.seat_names, top, file), indent=1))
    else:
        for line in ranking_text(a, game, pos.seat_names, top):
            click.echo(line)
    if a.interrupted:
        sys.exit(130)


@click.command()
@click.argument("file", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@user_errors
def legal(file: str, as_json: bool) -> None:
    """Every legal top-level move of the position in FILE, in the game's notation."""
    from advisor.notation import action_text
    pos = _load(file)
    game = pos.to_game(0)
    moves = [(a, action_text(a, game.printing, game)) for a in game.legal_actions()]
    if as_json:
        click.echo(json.dumps([{"action": a, "move": t} for a, t in moves], indent=1))
        return
    click.echo(f"{pos.seat_names[game.decider]} to play ({game.decision}): {len(moves)} legal "
               f"move{'s' if len(moves) != 1 else ''}")
    for i, (_, t) in enumerate(moves, 1):
        click.echo(f"{i:>3} {t}")


@click.command()
@click.argument("file", type=click.Path())
@user_errors
def show(file: str) -> None:
    """Draw the position in FILE (mats, hands, display, scores so far)."""
    from advisor.play.render import render
    pos = _load(file)
    game = pos.to_game(0)
    click.echo(render(game.observation(pos.viewer), pos.viewer, game.printing, game.scores(), names=pos.seat_names))


@click.command()
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
              help="Players (default 2; 1 only with --solo-level).")
@solo_level_option
@seed_option("The deal of the game.")
@click.option("--after-turns", type=click.IntRange(0, 200), default=0, show_default=True,
              help="Play this many turns (greedy agents) before writing the position.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="Position file to write (an existing file is not overwritten; - for standard output).")
@user_errors
def new(players: int | None, solo_level: str | None, seed: int, after_turns: int, output: str) -> None:
    """Write a fresh position (after setup) or one after some turns of play."""
    from advisor import _core
    from advisor.search.agents import make_agent
    from advisor.positions import position_text
    if solo_level is not None and players not in (None, 1):
        raise click.UsageError(f"--solo-level makes a solo game (1 player), not {players} players")
    if solo_level is None and players == 1:
        raise click.UsageError("a 1-player game is a solo game against the Automa: give --solo-level")
    players = 1 if solo_level is not None else (players or 2)
    if output != "-" and os.path.lexists(output):
        raise FileError(f"{output} exists; choose another name or delete it")
    folder = os.path.dirname(output) or "."
    if output != "-" and not os.path.isdir(folder):
        raise FileError(f"cannot write {output}: no folder {folder}")
    game = _core.Game.new(players, seed, automa=solo_level or "2")
    agents = [make_agent("greedy", seed * 10 + p) for p in range(game.players)]
    turns = -1
    while True:
        at_turn = game.decision == "move" and game.to_dict()["log"] == []
        if at_turn:
            turns += 1
            if turns >= after_turns:
                break
        if game.is_terminal():
            raise click.UsageError(f"the game ended before {after_turns} turns")
        game.apply(agents[game.decider].choose(game))
    text = position_text(game, game.decider)
    where = write_new(output, text, "position file")
    who = f"solo against the Automa (level {solo_level})" if solo_level else f"{players} players"
    # with the position on standard output, the note goes to stderr
    click.echo(f"wrote {where}: {who}, round {game.round}, P{game.decider} to play", err=output == "-")


@click.command()
@user_errors
def params() -> None:
    """List the search parameters (name, default, range, help)."""
    from advisor.search.advice import wrap
    from advisor.search.params import PARAMS
    click.echo(f"{'name':18} {'default':10} range")
    for p in PARAMS.values():
        rng = ", ".join(p.choices) if p.choices else f"{p.low}..{p.high}"
        solo = f" (solo: {p.solo})" if p.solo is not None else ""
        click.echo(wrap(rng, f"{p.name:18} {str(p.default):10} ", " " * 30))
        click.echo(wrap(f"{p.help}{solo}", " " * 4, " " * 4))


@click.command()
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
              help="Players (default 2; 1 only with --solo-level).")
@click.option("--seat", type=click.IntRange(0, MAX_PLAYERS - 1), default=None,
              help="Your seat, 0 = P0 (default 0; the start player is dealt at random).")
@click.option("--opponent", "opponents", multiple=True, metavar="SPEC",
              help="Agent spec of the AI seats: once for all, or once per opponent in seat order "
                   "(default ismcts:time=1; random, greedy, ismcts:time=S,...).")
@solo_level_option
@seed_option("Deal of the game (default: a random one, shown).", default=None)
@click.option("--load", type=click.Path(), default=None, help="Resume a saved game.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Save the game to this file at each of your moves and when you leave.")
@click.option("--hint-time", type=FiniteFloat(0.01, 600), default=2.0, show_default=True,
              help="Seconds of search for `hint`.")
@printing_option(default=None)
@user_errors
def play(players: int | None, seat: int | None, opponents: tuple[str, ...], solo_level: str | None, seed: int | None,
         load: str | None, save: str | None, hint_time: float, printing: str | None) -> None:
    """Play a game at the terminal against AI opponents or the Automa (docs/play.md)."""
    from advisor.play import play as play_game
    sys.exit(play_game(players, seat, opponents, solo_level, seed, load, save, hint_time, printing))
