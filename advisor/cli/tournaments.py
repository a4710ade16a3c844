"""Commands that measure the AI (docs/tournaments.md): `tournament`, `report`, `tune` and `bench`."""
from __future__ import annotations

import json
import sys
import textwrap

import click

from advisor.cli.options import (FiniteFloat, automa_option, cores, interruptible, json_safe, printing_option, scheduler_option,
                                 seed_option, user_errors, workers_option)
from advisor.figures import signed
from advisor.variants import MAX_PLAYERS, MIN_PLAYERS


def say(text: str, err: bool = False) -> None:
    """A line of text output in 80 columns: what is too long wraps, indented, under it."""
    click.echo("\n".join(textwrap.wrap(text, 80, subsequent_indent="    ", break_on_hyphens=False,
                                       break_long_words=False)) or text, err=err)


def _interrupted(done: int, total: int, out: str | None) -> None:
    where = f" in {out}" if out else ""
    resume = "; run the same command with --resume to finish" if out else " (no --out: nothing was kept)"
    click.echo(f"interrupted: {done} of {total} games{where}{resume}", err=True)
    sys.exit(130)


def solo_game(players: int | None, level: str | None, spec_level: str | None, spec: str) -> tuple[int, str]:
    """(players, Automa level) from --players, --automa-level and an `automa:L` opponent spec (the
    Automa is the opponent of a solo game); a contradiction between them is refused, never settled
    silently."""
    from advisor.tournaments.plan import TournamentError
    if spec_level is not None:
        if players not in (None, 1):
            raise TournamentError(f"{spec} makes a solo game, not --players {players}: drop one of them")
        if level is not None and level.upper() != spec_level:
            raise TournamentError(f"--automa-level {level} and {spec} name two levels of the Automa: give one")
        return 1, spec_level
    players = 2 if players is None else players
    if level is not None and players != 1:
        raise TournamentError(f"--automa-level is for solo games (--players 1), not {players} players")
    return players, (level or "2").upper()


def _automa_spec(agent_opts: tuple[str, ...], players: int | None,
                 automa: str | None) -> tuple[tuple[str, ...], int, str]:
    """`--agent automa:L` (or NAME=automa:L) is the opponent of a solo game: it means --players 1
    and the Automa at level L instead of adding a seat."""
    from advisor.search.agents import automa_level
    from advisor.tournaments.plan import TournamentError
    rest, found = [], []
    for a in agent_opts:
        lv = automa_level(a.split("=", 1)[1] if "=" in a.split(":", 1)[0] else a)
        if lv:
            found.append(lv)
        else:
            rest.append(a)
    if len(set(found)) > 1:
        raise TournamentError(f"the Automa can play one level per tournament, got {', '.join(found)}")
    players, automa = solo_game(players, automa, found[0] if found else None, f"--agent automa:{found[0]}"
                                if found else "")
    return tuple(rest), players, automa


# ---------------------------------------------------------------------------------- tournament
@click.command()
@click.option("--agent", "agent_opts", multiple=True, required=True, metavar="NAME=SPEC",
              help="An agent: NAME=SPEC (e.g. A=ismcts:iterations=400,c=0.7), or a bare SPEC. Repeat.")
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None, help="Seats per game (default 2).")
@click.option("--games", type=click.IntRange(1, 10**7), required=True,
              help="Games to play (rounded up to whole duplicate deals).")
@seed_option("Tournament seed: plans every game.")
@workers_option
@scheduler_option
@click.option("--out", type=click.Path(), default=None,
              help="Append each game's record to this JSONL file as it finishes (locked for the run: OUT.lock).")
@click.option("--resume", is_flag=True, help="Play only the games not yet in --out (and those that raised).")
@click.option("--reuse", "reuse", multiple=True, type=click.Path(), metavar="FILE",
              help="Solo: take games already in this results file (.jsonl or .jsonl.gz; same deal, Automa "
                   "level, printing, agent spec and the settings it resolved to) instead of playing them "
                   "again. Repeat.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON only.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Also draw the report as a PNG chart.")
@click.option("--bootstrap", type=click.IntRange(0, 100_000), default=200, show_default=True,
              help="Bootstrap resamples for the rating intervals.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@automa_option
@printing_option()
@user_errors
@interruptible
def tournament(agent_opts: tuple[str, ...], players: int | None, games: int, seed: int, workers: int | None,
               scheduler: str | None, out: str | None, resume: bool, reuse: tuple[str, ...], as_json: bool,
               plot: str | None, bootstrap: int, progress: bool | None, automa: str | None, printing: str) -> None:
    """Play agents against each other in duplicate deals and report win rates, scores, margins and
    ratings with 95% intervals."""
    from advisor.tournaments.plan import check_agents, parse_agent_option, plan_tournament, time_budgeted
    from advisor.tournaments.report import plot_report, report_text, tournament_report
    from advisor.tournaments.runners import run_tournament
    if plot:
        from advisor.files import check_png
        from advisor.review.report import need_matplotlib
        check_png(plot)                 # before the games, not after them
        need_matplotlib()
    agent_opts, players, automa = _automa_spec(agent_opts, players, automa)
    agents = check_agents([parse_agent_option(a) for a in agent_opts])
    plan = plan_tournament(agents, players, games, seed, printing, automa=automa)
    slow = [n for n, s in agents if time_budgeted(s)]
    if slow and not as_json:
        say(f"note: {', '.join(slow)} search by the clock, so their games are not exactly reproducible "
            "(give iterations= without time= for that)", err=True)
    if plan.deals and len(plan.games) != games and not as_json:
        say(f"note: {len(plan.games)} games planned ({plan.deals} whole duplicate deals)", err=True)
    run = run_tournament(plan, out=out, resume=resume, workers=workers or cores(), scheduler=scheduler,
                         progress=progress, reuse=reuse, log=None if as_json else (lambda m: say(m, err=True)))
    if run.interrupted:
        _interrupted(len([r for r in run.records.values() if not r.get("error")]), len(plan.games), out)
    rep = tournament_report(plan, run.records, bootstrap=bootstrap)
    rep.update(out=out, played=run.played, resumed=run.resumed, reused=run.reused)
    if run.reused and not as_json:
        say(f"note: {run.reused} game{'s' if run.reused != 1 else ''} taken from --reuse, not played again",
            err=True)
    if plot:
        plot_report(rep, plot)
    if as_json:
        click.echo(json.dumps(json_safe(rep), indent=1))
    else:
        click.echo(report_text(rep))
        if plot:
            click.echo(f"chart: {plot}")
    if rep["errors"]:
        say(f"{rep['errors']} game{'s' if rep['errors'] != 1 else ''} raised an error"
            f"{' (records with error in ' + out + '; --resume plays them again)' if out else ''}", err=True)
        sys.exit(1)


# ---------------------------------------------------------------------------------- tune
@click.command()
@click.option("--param", "params", multiple=True, metavar="NAME=RANGE",
              help="A parameter to tune: NAME=LO..HI[:N] (N values, default 5), NAME=V1,V2,... or NAME=* "
                   "(every named choice). Repeat.")
@click.option("--against", default=None, metavar="SPEC",
              help="The opponent in the other seats (e.g. greedy), or automa:L for solo games against her.")
@click.option("--base", default="ismcts:iterations=200", show_default=True, metavar="SPEC",
              help="The ismcts spec whose settings the candidates start from.")
@click.option("--budget", type=click.IntRange(1, 10**8), required=True, help="Games to play in all.")
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
              help="Seats per game (default 2; 1: solo against the Automa; then no --against).")
@seed_option("Plans every deal (same seed, same result).")
@click.option("--method", type=click.Choice(["halving", "ntbea"]), default="halving", show_default=True,
              help="Successive halving over the grid, or the N-tuple bandit (NTBEA).")
@click.option("--batch", type=click.IntRange(1, 256), default=1, show_default=True,
              help="NTBEA: settings played at once, one deal each (give about --workers / games a deal, so "
                   "the workers are busy); the result depends on it, not on --workers.")
@click.option("--by", type=click.Choice(["wins", "margin"]), default=None,
              help="What a candidate is judged by: its win rate, or its mean margin in VP over the best "
                   "other seat or the Automa (default: margin in solo, where win rates saturate; else wins).")
@click.option("--sprt", nargs=2, default=None, metavar="A B",
              help="Instead of a search: a sequential test of whether spec B beats spec A head to head.")
@click.option("--elo0", type=FiniteFloat(), default=0.0, show_default=True, help="SPRT: H0, B - A at most this (Elo).")
@click.option("--elo1", type=FiniteFloat(), default=20.0, show_default=True, help="SPRT: H1, B - A at least this (Elo).")
@click.option("--alpha", type=FiniteFloat(), default=0.05, show_default=True, help="SPRT: false-positive rate.")
@click.option("--beta", type=FiniteFloat(), default=0.05, show_default=True, help="SPRT: false-negative rate.")
@workers_option
@scheduler_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON only.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar of the games on stderr (default: when stderr is a terminal).")
@automa_option
@printing_option()
@user_errors
@interruptible
def tune(params: tuple[str, ...], against: str | None, base: str, budget: int, players: int | None, seed: int,
         method: str, batch: int, by: str | None,
         sprt: tuple[str, str] | None, elo0: float, elo1: float, alpha: float, beta: float, workers: int | None,
         scheduler: str | None, as_json: bool, progress: bool | None, automa: str | None, printing: str) -> None:
    """Find better search settings by play (successive halving or NTBEA over the parameter registry),
    or test whether one setting beats another with the fewest games (--sprt A B)."""
    from advisor.tournaments import tune as T
    from advisor.search.agents import automa_level
    level = automa_level(against) if against else None
    players, automa = solo_game(players, automa, level, f"--against {against}")
    if level:
        against = None                                 # as --players 1 --automa-level L
    log = None if as_json else (lambda m: say(m, err=True))
    w = workers or cores()
    if sprt:
        if params or against or by or batch != 1:
            raise T.TuneError("--sprt takes no --param, --against, --by or --batch")
        res = T.sprt(sprt[0], sprt[1], budget, players, seed, elo0, elo1, alpha, beta, workers=w,
                     scheduler=scheduler, printing=printing, automa=automa, log=log, progress=progress)
        if as_json:
            click.echo(json.dumps(json_safe(res), indent=1))
            return
        say(f"SPRT B={res['b']} vs A={res['a']}: {res['conclusion']}")
        say(f"  {res['games']} games in {res['deals']} deals (budget {res['budget']}); "
                   f"LLR {res['llr']:.2f} in [{res['bounds'][0]:.2f}, {res['bounds'][1]:.2f}]")
        if res["b_score"] is not None:
            ci = res["b_score_ci"]
            eci = res["elo_ci"]
            say(f"  B's score against A {100 * res['b_score']:.1f}%"
                       + (f" [{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]" if ci else "")
                       + f", {signed(res['elo'], 0)} Elo" + (f" [{signed(eci[0], 0)}, {signed(eci[1], 0)}]" if eci else "")
                       + f", mean margin {signed(res['b_margin'])} VP")
        return
    res = T.tune(list(params), against, budget, base=base, players=players, seed=seed, method=method,
                 workers=w, scheduler=scheduler, printing=printing, automa=automa, log=log, progress=progress, by=by,
                 batch=batch)
    if as_json:
        click.echo(json.dumps(json_safe(res), indent=1))
        return
    b = res["best"]
    ci, mci = b["win_rate_ci"], b["mean_margin_ci"]
    say(f"best settings: {' '.join(f'{k}={v}' for k, v in b['settings'].items())} (by {res['by']})")
    say(f"  spec {b['spec']}")
    say(f"  win rate against {res['against']}: {100 * b['win_rate']:.1f}%"
               + (f" [{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]" if ci else "")
               + f" over {b['games']} games ({b['deals']} deals); mean margin {signed(b['mean_margin'])} VP"
               + (f" [{signed(mci[0])}, {signed(mci[1])}]" if mci else "")
               + ("" if res["validated"] else " (the games it was selected on: a little optimistic)"))
    if res["baseline"]:
        say(f"  (an equal player wins {100 * res['baseline']:.0f}% of {res['players']}-player games)")
    say(f"{res['method']}: {res['candidates']} candidates{' (sampled from the grid)' if res['sampled'] else ''}, "
               f"{res['games']} games")
    for row in res["table"][:10]:
        ci, mci = row["win_rate_ci"], row["mean_margin_ci"]
        if res["by"] == "margin":
            head = f"  {signed(row['mean_margin'], 1, 6)} VP" + (f" [{signed(mci[0], 1, 6)}, {signed(mci[1], 1, 6)}]"
                                                                if mci else " " * 18)
        else:
            head = f"  {100 * row['win_rate']:5.1f}%" + (f" [{100 * ci[0]:4.1f}, {100 * ci[1]:5.1f}]" if ci else " " * 14)
        say(head + f" {row['games']:>5} games  " + " ".join(f"{k}={v}" for k, v in row["settings"].items()))


# ---------------------------------------------------------------------------------- bench
@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@click.option("--quick", is_flag=True, help="Time each measure briefly (a smoke test; noisier numbers).")
@user_errors
@interruptible
def bench(as_json: bool, quick: bool) -> None:
    """Measure the engine and search speed on this machine (a short standard set, ~10 s)."""
    from advisor.search.benchmark import bench_text, run_benchmarks
    note = None if as_json else (lambda m: click.echo(f"measuring {m} ...", err=True))
    r = run_benchmarks(target=0.05 if quick else 0.6, progress=note)
    click.echo(json.dumps(json_safe(r), indent=1) if as_json else bench_text(r))


# ---------------------------------------------------------------------------------- report
@click.command()
@click.argument("files", nargs=-1, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON only.")
@click.option("--bootstrap", type=click.IntRange(0, 100_000), default=200, show_default=True,
              help="Bootstrap resamples for the rating intervals.")
@user_errors
def report(files: tuple[str, ...], as_json: bool, bootstrap: int) -> None:
    """Report on the games in results files (`tournament --out`), one tournament or several of one
    kind: agents of different files are compared on the deals they share (same deal seed), and
    each agent's points are broken down by where they come from."""
    from advisor.tournaments.report import read_results, results_report, results_text
    rep = results_report(read_results(list(files)), bootstrap=bootstrap)
    click.echo(json.dumps(json_safe(rep), indent=1) if as_json else results_text(rep))
