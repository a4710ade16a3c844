# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: card tables, game state, rules, effect interpreter and the Python-facing Game.

One compilation unit (the .pxi files below) so the hot paths inline across files."""

import numpy as np

include "opcodes.pxi"
include "tables.pxi"
include "state.pxi"
include "rules.pxi"
include "automa.pxi"
include "effects.pxi"
include "game.pxi"
include "search/params.pxi"
include "search/evaluate.pxi"
include "search/playout.pxi"
include "search/tree.pxi"
include "search/search.pxi"
include "search/tools.pxi"
