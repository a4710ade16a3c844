"""The card database: data files -> validated cards -> compiled tables in the Cython core."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from advisor.cards.database import (PRINTINGS, Cave, Database, Dragon, load_database,  # noqa: F401
                                    lookup)
from advisor.cards.describe import describe_card  # noqa: F401

if TYPE_CHECKING:   # annotations only: the functions below import the compiler when called
    from advisor.cards.compiler import Tables


@functools.lru_cache(maxsize=None)
def _compiled(printing: str) -> Tables:
    from advisor.cards.compiler import compile_database

    return compile_database(load_database(printing))


def install_core_tables(printing: str = "base") -> Tables:
    """Compile the database for a printing and copy it into advisor._core (once per printing; the
    core keeps a set per printing). The core's table queries then read this printing's set."""
    from advisor import _core
    from advisor.cards.compiler import install

    tables = _compiled(printing)
    if _core.installed(printing):
        _core.use_tables(printing)
    else:
        install(tables)
    return tables


def choice_options(printing: str, row: int) -> list[str]:
    """In words, the statements that the effect's choice at instruction `row` chooses among (the
    options of an "option" decision, Game.option_of), in order."""
    from advisor.cards.compiler import COL_CHILD, decode_block
    from advisor.cards.describe import node

    rows = _compiled(printing).program
    return [node(n) for n in decode_block(rows, int(rows[row][COL_CHILD])).stmts]


def ability_text(printing: str, dragon: int, timing: int) -> str:
    """In words, a dragon's ability of one timing (0 when played, 1 if activated, 2 once per
    round: the options of a dragon's "option" decision)."""
    from advisor.cards.compiler import DRAGON_COLS, ENTRY_TIMINGS
    from advisor.cards.describe import _TIMING

    name = ENTRY_TIMINGS[timing]
    entry = int(_compiled(printing).dragons[dragon][DRAGON_COLS.index(f"entry_{name}")])
    return f"its {_TIMING[name]} ability: {_entry_text(printing, entry)}"


def mat_benefit_text(printing: str, cave: int, icon: int) -> str | None:
    """In words, the if-activated benefit printed on the mat at cave `cave`, column icon `icon`."""
    return _entry_text(printing, int(_compiled(printing).mat_benefits[cave][icon]))


def guild_ability_text(printing: str, tile: int, ability: int) -> str | None:
    """In words, ability `ability` (0-3) of guild tile `tile`."""
    return _entry_text(printing, int(_compiled(printing).guild_tiles[tile][ability][0]))


def _entry_text(printing: str, entry: int) -> str | None:
    from advisor.cards.compiler import decode_block
    from advisor.cards.describe import effect
    return effect(decode_block(_compiled(printing).program, entry)) if entry >= 0 else None
