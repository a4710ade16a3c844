"""`advisor review`: the decisions of a finished game searched again, with the points each move
played gave up against the best (docs/review.md)."""
from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

import click

from advisor.cli.options import interruptible, json_safe, search_budget, seed_option, user_errors


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--game", "key", default=None, metavar="KEY",
              help="A tournament results file: the game to review (its key, as d3.g1).")
@click.option("--seat", "seat_names", multiple=True, metavar="NAME",
              help="A seat to review, by name or number (repeatable; default: the human's seat of a "
                   "play save, every seat of a tournament game).")
@search_budget
@click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Root-parallel worker processes for each search.")
@seed_option("Search seed (same seed, same review).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only (schema: docs/cli-json.md).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Draw the expected final scores through the game, mistakes marked, to this PNG "
                   "(needs the plot extra: matplotlib).")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Keep each decision reviewed in this file as it is made (JSON lines).")
@click.option("--resume", is_flag=True, help="Go on with the review in --out.")
@user_errors
@interruptible
def review(file: str, key: str | None, seat_names: tuple[str, ...], seconds: float | None,
           iterations: int | None, workers: int, seed: int, as_json: bool, plot: str | None,
           out: str | None, resume: bool) -> None:
    """Review a finished game: for each decision of a seat, the move played, the best move and
    the points given up. FILE: a game saved by `advisor play`, or a tournament results file with
    --game KEY. Ctrl-C keeps what was reviewed (--out and --resume go on later)."""
    from advisor.review import ReviewInterrupted, load_played
    from advisor.review import report
    from advisor.review.judge import count, review as run
    from advisor.files import check_png
    from advisor.review.store import ResultsFile
    from advisor.search.analysis import Limit

    if resume and not out:
        raise click.UsageError("--resume goes on with the review in --out FILE: give it")
    if plot:
        check_png(plot)                 # before the review, not after it
        report.need_matplotlib()
    played = load_played(file, key)
    for warning in played.warnings:
        click.echo(f"warning: {warning}", err=True)
    seats = sorted({played.seat(n) for n in seat_names}) if seat_names else played.default_seats
    limit = Limit(time=seconds if seconds is not None or iterations is None else None, iterations=iterations)
    if limit.time is None and limit.iterations is None:
        limit = Limit(time=1.0)
    budget = {"time": limit.time, "iterations": limit.iterations, "workers": workers}
    sink: ResultsFile | None = None
    done: dict[int, Any] = {}
    if out:
        sink = ResultsFile(out, played, seats, budget, seed, resume)
        done = sink.done
    total = count(played, seats)
    interrupted = False
    with contextlib.ExitStack() as stack:
        if sink is not None:
            stack.callback(sink.close)
        bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm
            t = stack.enter_context(tqdm(total=total, desc="review", unit="decision", leave=False, file=sys.stderr))
            bar = t.update
        try:
            verdicts = run(played, seats, limit, seed, workers, done,
                           kept=sink.keep if sink is not None else None, bar=bar)
        except ReviewInterrupted as e:
            verdicts, interrupted = e.verdicts, True
    if as_json:
        click.echo(json.dumps(json_safe(report.as_json(played, verdicts, seats, budget, interrupted)), indent=1))
    else:
        for line in report.text(played, verdicts, seats, interrupted):
            click.echo(line)
    if plot and verdicts:
        report.plot(played, verdicts, seats, plot)
        if not as_json:
            click.echo(f"wrote {plot}")
    if interrupted:
        sys.exit(130)
