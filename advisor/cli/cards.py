"""`advisor cards`: browse the card database (list, show, check)."""
from __future__ import annotations

import json
import textwrap
from typing import Any

import click

from advisor.cli.options import printing_option, user_errors


@click.group()
def cards() -> None:
    """Browse the card database."""


def _wrap(text: str, first: str, indent: str) -> str:
    """`text` in 80 columns (words kept whole)."""
    return "\n".join(textwrap.wrap(text, 80, initial_indent=first, subsequent_indent=indent,
                                   break_on_hyphens=False, break_long_words=False)) or first.rstrip()


def _cost_text(cost: dict[str, int]) -> str:
    parts = [f"{v} {k}" + ("s" if v != 1 and k in ("coin", "egg") else "") for k, v in cost.items() if v]
    return ", ".join(parts) or "-"


def card_json(card: Any) -> dict[str, Any]:
    """A card as `advisor cards --json` prints it."""
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
@printing_option()
@user_errors
def cards_list(kind: str | None, as_json: bool, printing: str) -> None:
    """List every card."""
    from advisor.cards import load_database
    db = load_database(printing)
    chosen = [c for k in ("dragon", "cave") if kind in (None, k)
              for c in (db.dragons if k == "dragon" else db.caves)]
    if as_json:
        click.echo(json.dumps([card_json(c) for c in chosen], indent=1))
        return
    from advisor.cards import describe_card
    for c in chosen:                   # 80 columns: a dragon on two lines, a cave's text wrapped
        if c.kind == "dragon":
            click.echo(f"D{c.number:<4} {c.name:<29} {c.size:<9} {c.personality:<10} {c.vp:>2} VP")
            click.echo(_wrap(f"cost {_cost_text(c.cost)}; lives in {'/'.join(c.caves)}", "      ", "      "))
            click.echo(_wrap(describe_card(c), "      ", "      "))
        else:
            click.echo(_wrap(describe_card(c), f"C{c.number:<4} ", "      "))


@cards.command("show")
@click.argument("card")
@click.option("--kind", type=click.Choice(["dragon", "cave"]), default=None,
              help="Where to look up a bare number (default: dragon).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@click.option("--program", is_flag=True, help="Also the abilities in the effect language (docs/effect-language.md).")
@printing_option()
@user_errors
def cards_show(card: str, kind: str | None, as_json: bool, program: bool, printing: str) -> None:
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
    click.echo(_wrap(describe_card(c), "  ", "  "))
    if program:
        for a in c.abilities:
            click.echo(_wrap(f"[{a.timing}] {a.text}", "  ", "    "))


@cards.command("check")
@printing_option()
@user_errors
def cards_check(printing: str) -> None:
    """Load, validate and compile every data file into the core; print a summary."""
    from advisor import _core
    from advisor.cards import install_core_tables, load_database
    db = load_database(printing)
    install_core_tables(printing)
    click.echo(_wrap(f"{len(db.dragons)} dragons, {len(db.caves)} caves, {len(db.guild_tiles)} guild tiles, "
                     f"{len(db.objectives)} objective tiles, {len(db.automa_cards)} Automa cards; "
                     f"{_core.n_instructions()} core instructions ({printing} printing)", "", "  "))
