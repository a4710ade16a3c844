"""The `advisor` command line."""
from __future__ import annotations

import functools
import json
import sys

import click

from advisor import __version__
from advisor.errors import AdvisorError


def _fail(message: str) -> None:
    for line in message.splitlines() or [""]:
        click.echo(f"error: {line}", err=True)
    sys.exit(2)


def user_errors(fn):
    """Report AdvisorError as one line on stderr with exit status 2, never a traceback."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AdvisorError as e:
            _fail(str(e))
    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="advisor")
def main():
    """Wyrmspan AI opponent and move advisor."""


# ---------------------------------------------------------------------------- cards
_printing = click.option("--printing", type=click.Choice(["base", "2025"]), default="base",
                         show_default=True, help="Card printing: base game or the 2025 updated cards.")


@main.group()
def cards():
    """Browse the card database."""


def _cost_text(cost: dict) -> str:
    parts = [f"{v} {k}" for k, v in cost.items() if v]
    return ", ".join(parts) or "-"


def card_json(card) -> dict:
    from advisor.cards import describe_card
    if card.kind == "cave":
        return {"kind": "cave", "number": card.number, "timing": "when_played",
                "effect": card.abilities[0].text, "description": describe_card(card)}
    return {
        "kind": "dragon", "number": card.number, "name": card.name, "vp": card.vp,
        "size": card.size, "capacity": card.capacity, "personality": card.personality,
        "cost": dict(card.cost), "caves": list(card.caves), "timing": card.timing,
        "hatchling": {"feeds": card.feeds} if card.feeds else None,
        "abilities": {a.timing: a.text for a in card.abilities},
        "description": describe_card(card),
    }


@cards.command("list")
@click.option("--kind", type=click.Choice(["dragon", "cave"]), default=None,
              help="Only dragons or only caves (default: both).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_printing
@user_errors
def cards_list(kind, as_json, printing):
    """List every card."""
    from advisor.cards import load_database
    db = load_database(printing)
    chosen = [c for k in ("dragon", "cave") if kind in (None, k)
              for c in (db.dragons if k == "dragon" else db.caves)]
    if as_json:
        click.echo(json.dumps([card_json(c) for c in chosen], indent=1))
        return
    from advisor.cards import describe_card
    for c in chosen:
        if c.kind == "dragon":
            click.echo(f"D{c.number:<4} {c.name:<32} {c.size:<9} {c.personality:<10} {c.vp:>2} VP  "
                       f"cost {_cost_text(c.cost):<22} {'/'.join(c.caves)}")
        else:
            click.echo(f"C{c.number:<4} {describe_card(c)}")


@cards.command("show")
@click.argument("card")
@click.option("--kind", type=click.Choice(["dragon", "cave"]), default=None,
              help="Where to look up a bare number (default: dragon).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_printing
@user_errors
def cards_show(card, kind, as_json, printing):
    """Show one card by NAME (any unambiguous part, any case) or NUMBER ("cave 12" for caves)."""
    from advisor.cards import describe_card, load_database
    db = load_database(printing)
    c = db.lookup(card, kind)
    if as_json:
        click.echo(json.dumps(card_json(c), indent=1))
        return
    if c.kind == "cave":
        click.echo(f"Cave {c.number}")
    else:
        click.echo(f"Dragon {c.number}: {c.name}")
        click.echo(f"  {c.size}, {c.personality}, {c.vp} VP, egg capacity {c.capacity}")
        click.echo(f"  cost: {_cost_text(c.cost)} (plus 1 coin to entice)")
        click.echo(f"  lives in: {', '.join(c.caves)}")
    click.echo(f"  {describe_card(c)}")
    for a in c.abilities:
        click.echo(f"  [{a.timing}] {a.text}")


@cards.command("check")
@_printing
@user_errors
def cards_check(printing):
    """Load, validate and compile every data file into the core; print a summary."""
    from advisor import _core
    from advisor.cards import install_core_tables, load_database
    db = load_database(printing)
    install_core_tables(printing)
    click.echo(f"{len(db.dragons)} dragons, {len(db.caves)} caves, {len(db.guild_tiles)} guild tiles, "
               f"{len(db.objectives)} objective tiles, {len(db.automa_cards)} Automa cards; "
               f"{_core.n_instructions()} core instructions ({printing} printing)")


# ---------------------------------------------------------------------------- positions
def _load(file):
    from advisor.positions import load_position
    return load_position(file)


def _settings_option(fn):
    return click.option("--set", "sets", multiple=True, metavar="NAME=VALUE",
                        help="Any search parameter of the registry (see `advisor params`).")(fn)


def _parse_sets(sets) -> dict:
    out = {}
    for item in sets:
        k, eq, v = item.partition("=")
        if not eq:
            raise click.BadParameter(f"'{item}' is not NAME=VALUE", param_hint="--set")
        out[k.strip()] = v.strip()
    return out


def _move_json(m) -> dict:
    def num(x):
        return None if x == float("inf") else round(x, 4)
    f = m.forecast
    return {"move": m.text, "action": m.action, "visits": m.visits, "win_rate": num(m.win_rate),
            "mean_reward": num(m.mean_reward), "score": num(m.score), "score_se": num(m.score_se),
            "margin": num(m.margin), "margin_se": num(m.margin_se), "continuation": m.continuation,
            "forecast": None if f is None else {"win": num(f.win), "score": num(f.score), "margin": num(f.margin)}}


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--time", "seconds", type=click.FloatRange(0.01, 3600), default=None,
              help="Seconds of search (default 1 when no --iterations).")
@click.option("--iterations", type=click.IntRange(1, 10**9), default=None, help="Iterations of search.")
@click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Root-parallel worker processes.")
@click.option("--seed", type=int, default=0, show_default=True, help="Search seed (same seed, same result).")
@click.option("--top", type=click.IntRange(1, 1000), default=5, show_default=True, help="Moves to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only (schema: docs/cli-json.md).")
@_settings_option
@user_errors
def suggest(file, seconds, iterations, workers, seed, top, as_json, sets):
    """Rank the moves of the position in FILE for the player whose view it is."""
    from advisor.params import parse_settings
    from advisor.forecast import playout as playout_name
    from advisor.search import Limit, analyse
    pos = _load(file)
    game = pos.to_game(seed)
    settings = {**_parse_sets(sets), "workers": workers}
    parse_settings(settings)                # bad --set values fail before the search
    limit = Limit(time=seconds if seconds else (None if iterations else 1.0), iterations=iterations)
    bar = None
    if not as_json and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=1000, desc="searching", leave=False, bar_format="{l_bar}{bar}| {elapsed}")

    def progress(share):
        if bar is not None:
            bar.update(int(share * 1000) - bar.n)
    try:
        a = analyse(game, settings, seed=seed, limit=limit, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    moves = a.moves[:top]
    if as_json:
        click.echo(json.dumps({"file": file, "player": a.player, "decision": game.decision,
                               "iterations": a.iterations, "seconds": round(a.seconds, 3),
                               "workers": a.workers, "moves": [_move_json(m) for m in moves]}, indent=1))
        return
    click.echo(f"{a.iterations} iterations in {a.seconds:.2f} s ({a.workers} worker"
               f"{'s' if a.workers > 1 else ''}); P{a.player} to play ({game.decision})")
    click.echo(f"{'':3}{'move':44} {'visits':>7} {'win':>6} {'score':>12} {'margin':>12}")
    for i, m in enumerate(moves, 1):
        win, score, margin = m.outlook()
        click.echo(f"{i:>2} {m.text[:44]:44} {m.visits:>7} {win:>6.1%} "
                   f"{score:>6.1f} ±{min(m.score_se, 99):<4.1f} {margin:>+6.1f} ±{min(m.margin_se, 99):<4.1f}")
        if m.continuation:
            click.echo(f"{'':4}then: {'; '.join(m.continuation)}")
    used = parse_settings(settings, solo=game.automa_level is not None)
    # a greedy rollout's lookahead other than the heuristic changes how its playouts play: name it
    play = used["rollout"]
    if playout_name(used) != play:
        play += f" with the {used['lookahead']} lookahead:"
    if used["rollout_depth"]:
        playout = (f"{play} play for {used['rollout_depth']} decisions after the move, then the "
                   f"{used['evaluation']} value")
    elif used["cut"] == "round":
        playout = f"{play} play to the next round's start after the move, then the {used['evaluation']} value"
    else:
        playout = f"{play} play to the end after the move"
    if moves and moves[0].forecast:
        click.echo(f"win, score, margin: forecasts if the search plays on from here: its playouts' means "
                   f"({playout}; {moves[0].score:.1f} VP for the first move) plus what they fall short by "
                   f"for the {a.coins_to_come} coins still to come (docs/strength.md)")
    else:
        click.echo(f"win, score, margin: means over the search's playouts ({playout}); they rank the moves, "
                   "they do not forecast your score")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@user_errors
def legal(file, as_json):
    """Every legal top-level move of the position in FILE, in the game's notation."""
    from advisor.notation import action_text
    game = _load(file).to_game(0)
    moves = [(a, action_text(a, game.printing, game)) for a in game.legal_actions()]
    if as_json:
        click.echo(json.dumps([{"action": a, "move": t} for a, t in moves], indent=1))
        return
    for i, (_, t) in enumerate(moves, 1):
        click.echo(f"{i:>3} {t}")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@user_errors
def show(file):
    """Draw the position in FILE (mats, hands, display, scores so far)."""
    from advisor.play.render import render
    pos = _load(file)
    game = pos.to_game(0)
    click.echo(render(game.observation(pos.viewer), pos.viewer, game.printing, game.scores()))


@main.command()
@click.option("--players", type=click.IntRange(1, 5), default=None,
              help="Players (default 2; 1 only with --solo-level).")
@click.option("--solo-level", type=click.Choice(["1", "2", "3", "R1", "R2", "R3"], case_sensitive=False),
              default=None, help="A solo game against the Automa at this level (R1-R3: Ravel).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--after-turns", type=click.IntRange(0, 200), default=0, show_default=True,
              help="Play this many turns (greedy agents) before writing the position.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="Position file to write (an existing file is not overwritten).")
@user_errors
def new(players, solo_level, seed, after_turns, output):
    """Write a fresh position (after setup) or one after some turns of play."""
    import os

    from advisor import _core
    from advisor.agents import make_agent
    from advisor.positions import position_text
    if solo_level is not None and players not in (None, 1):
        raise click.UsageError(f"--solo-level makes a solo game (1 player), not {players} players")
    if solo_level is None and players == 1:
        raise click.UsageError("a 1-player game is a solo game against the Automa: give --solo-level "
                               "(1, 2, 3, R1, R2, R3)")
    players = 1 if solo_level is not None else (players or 2)
    if os.path.exists(output):
        raise click.UsageError(f"{output} exists; choose another name or delete it")
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
    with open(output, "x") as f:
        f.write(text)
    who = f"solo against the Automa (level {solo_level})" if solo_level else f"{players} players"
    click.echo(f"wrote {output}: {who}, round {game.round}, P{game.decider} to play")


@main.command()
@user_errors
def params():
    """List the search parameters (name, default, range, help)."""
    from advisor.params import PARAMS
    for p in PARAMS.values():
        rng = ", ".join(p.choices) if p.choices else f"{p.low}..{p.high}"
        solo = f" (solo: {p.solo})" if p.solo is not None else ""
        click.echo(f"{p.name:18} {str(p.default):10} {rng:24} {p.help}{solo}")


@main.command()
@click.option("--players", type=click.IntRange(1, 5), default=None,
              help="Players (default 2; 1 only with --solo-level).")
@click.option("--seat", type=click.IntRange(0, 4), default=None,
              help="Your seat, 0 = P0 (default 0; the start player is dealt at random).")
@click.option("--opponent", "opponents", multiple=True, metavar="SPEC",
              help="Agent spec of the AI seats: once for all, or once per opponent in seat order "
                   "(default ismcts:time=1; random, greedy, ismcts:time=S,...).")
@click.option("--solo-level", type=click.Choice(["1", "2", "3", "R1", "R2", "R3"], case_sensitive=False),
              default=None, help="A solo game against the Automa at this level (R1-R3: Ravel).")
@click.option("--seed", type=int, default=None, help="Deal of the game (default: a random one, shown).")
@click.option("--load", type=click.Path(dir_okay=False), default=None, help="Resume a saved game.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Save the game to this file at each of your moves and when you leave.")
@click.option("--hint-time", type=click.FloatRange(0.01, 600), default=2.0, show_default=True,
              help="Seconds of search for `hint`.")
@click.option("--printing", type=click.Choice(["base", "2025"]), default=None, help="Card printing (default base).")
@user_errors
def play(players, seat, opponents, solo_level, seed, load, save, hint_time, printing):
    """Play a game at the terminal against AI opponents or the Automa (docs/play.md)."""
    from advisor.play import play as play_game
    sys.exit(play_game(players, seat, opponents, solo_level, seed, load, save, hint_time, printing))


from advisor.cli_tournament import register  # noqa: E402
register(main)

if __name__ == "__main__":
    main()
