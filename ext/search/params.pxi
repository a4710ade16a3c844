# The search's settings as the core sees them, and the names of their choices (read by the
# parameter registry, advisor/search/params.py, so each name is declared once).

from libc.math cimport sqrt, log, exp, pow as cpow
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef enum Playout:
    PLAYOUT_RANDOM
    PLAYOUT_WEIGHTED
    PLAYOUT_GREEDY
    PLAYOUT_MAST
    PLAYOUT_GREEDY_MAST
    PLAYOUT_DISTILLED           # the weighted policy times factors fitted to the net agent's choices

cdef enum Lookahead:            # what a greedy move lookahead values where the move's turn ends
    LOOK_HEURISTIC
    LOOK_CARDS                  # the heuristic plus the learnt worths of the move's card and cave

cdef enum:
    MOVES = 1 << P_MOVE         # a prompt mask: move decisions only
    NOISE_PERCENT = 10          # greedy playouts take the weighted policy's move this often

cdef enum Expansion:            # which untried action a node grows first
    EXPAND_RANDOM
    EXPAND_PLAYOUT              # the one the playout policy would choose

cdef enum:
    MAX_PATH = 4096             # tree depth of one iteration
    MAX_CONTINUATION = 30       # the searcher's own planned decisions reported after a root move
    MAX_EXPECTED = 60           # the decisions of every player reported after those
    MIN_EXPECTED_VISITS = 10    # ... while the search visited them at least this often

# the names of the choices, read by the parameter registry (advisor/search/params.py)
PLAYOUTS = {"random": PLAYOUT_RANDOM, "weighted": PLAYOUT_WEIGHTED, "greedy": PLAYOUT_GREEDY,
            "mast": PLAYOUT_MAST, "greedy_mast": PLAYOUT_GREEDY_MAST, "distilled": PLAYOUT_DISTILLED}
LOOKAHEADS = {"heuristic": LOOK_HEURISTIC, "cards": LOOK_CARDS}
EXPANSIONS = {"random": EXPAND_RANDOM, "playout": EXPAND_PLAYOUT}
# what search() needs in its params, every one given (the registry holds the defaults)
SEARCH_PARAMS = ("c", "iterations", "seconds", "playout", "mast_epsilon", "lookahead", "expand",
                 "margin_weight", "judge", "pw_c", "stop_early", "max_nodes", "seed")

ctypedef struct SearchParams:
    double c                # UCB1 exploration constant
    long iterations         # budget (0 = none)
    double seconds          # budget (0 = none)
    int playout             # Playout
    double mast_epsilon     # MAST playouts: share of decisions taken by the weighted policy
    int lookahead           # Lookahead of greedy playouts
    int expand              # Expansion
    double margin_weight    # reward = (1 - w) * win + w * normalised margin
    double judge            # share of the reward from the learnt judge where the playout's first turn starts
    double pw_c             # progressive widening: at most pw_c * visits^PW_ALPHA children (0 = off)
    long max_nodes
    bint stop_early         # stop once the most-visited root move cannot be overtaken
    uint64_t seed
    bint clairvoyant        # bench/headroom.py only: search the true state (never advice)

cdef double MARGIN_SCALE = 40.0     # a VP margin that counts as a full win or loss in the reward
cdef double JUDGED_WIN_SCALE = 5.0  # a margin the judge foresees counts as a win share 1/(1 + e^(-m/this))
cdef double PW_ALPHA = 0.5          # progressive widening's exponent

