# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: the engine (card tables, game state, rules, effect interpreter, Automa and the
Python-facing Game) and the search (ISMCTS), which uses the engine and never the other way round.

One compilation unit (the .pxi files below) so the hot paths inline across files; the state it
keeps for the whole process is declared in one place, process.pxi."""

import numpy as np

include "engine/opcodes.pxi"
include "engine/tables.pxi"
include "engine/state.pxi"
include "engine/rules.pxi"
include "engine/automa.pxi"
include "engine/chance.pxi"
include "engine/effects.pxi"
include "engine/game.pxi"
include "engine/hidden.pxi"
include "engine/dicts.pxi"
include "search/params.pxi"
include "search/evaluate.pxi"
include "search/distilled.pxi"
include "search/playout.pxi"
include "search/judge.pxi"
include "search/tree.pxi"
include "search/search.pxi"
include "search/tools.pxi"
include "process.pxi"
