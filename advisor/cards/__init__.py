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
