# The search's parts one at a time, for tests, fitting scripts (bench/) and the greedy agent.

cdef enum:
    GREEDY_SAMPLES = 4          # policy completions of the turn averaged by greedy_action

def heuristic_values(Game game):
    """The heuristic value of the position for every seat (score now + potential)."""
    use_tables_of(game)
    need_search_data()
    return [heuristic_value(&game.g.cur, p) for p in range(game.g.cur.n_players)]


def tree_key(Game game, int action):
    """The search tree's name for `action` at `game`'s decision: the action itself, except that a
    display take names the card shown in its slot (payload 4 + card)."""
    use_tables_of(game)
    return tree_key_of(game.g, action)


def greedy_action(Game game, seed=0):
    """One-decision lookahead: the legal action after which the decider's heuristic value (at the
    end of their turn, averaged over a few weighted-policy completions) is highest."""
    use_tables_of(game)
    if game.g.over:
        raise ValueError("the game is over")
    need_search_data()
    return _lookahead_action(game, seed, GREEDY_SAMPLES, JUDGE_HEURISTIC)


def move_values(Game game, seed=0):
    """[(action, value)] for every legal action at the decider's decision: the heuristic's value
    where the decider's turn ends after it (the rest of the turn played once by the weighted policy),
    as greedy playouts' move lookahead judges it (bench/fit_card_worths.py)."""
    use_tables_of(game)
    cdef GameData* tmp
    cdef int i
    cdef double v
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    rng_next(&rng)
    if game.g.over:
        raise ValueError("the game is over")
    need_search_data()
    tmp = <GameData*>malloc(sizeof(GameData))
    if tmp == NULL:
        raise MemoryError()
    try:
        out = []
        for i in range(game.g.nopts):
            v = turn_value(game.g, game.g.opts[i], tmp, &rng)
            if v <= -1e9:
                raise EngineError(_error_text(tmp.error))
            out.append((game.g.opts[i], v))
        return out
    finally:
        free(tmp)


def playout_scores(Game game, policy="greedy", seed=0, lookahead="heuristic"):
    """Every seat's final score after playing the game out from here with a playout policy, as the
    search's playouts do: how strong a policy is, measured in milliseconds instead of tournaments.
    It plays on this game's own hidden state (a measuring tool, not a player). MAST is left out:
    it learns within a search."""
    use_tables_of(game)
    cdef SearchParams sp
    cdef GameData* G
    cdef GameData* tmp
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef int sc[N_SCORE]
    cdef int p
    if policy not in PLAYOUTS or "mast" in policy:
        raise ValueError(f"no playout {policy!r}: choose one of "
                         + ", ".join(r for r in PLAYOUTS if "mast" not in r))
    if lookahead not in LOOKAHEADS:
        raise ValueError(f"no lookahead {lookahead!r}: choose one of " + ", ".join(LOOKAHEADS))
    need_search_data()
    memset(&sp, 0, sizeof(sp))
    sp.playout = PLAYOUTS[policy]
    if sp.playout == PLAYOUT_DISTILLED:
        need_distilled()
    sp.lookahead = LOOKAHEADS[lookahead]
    rng_next(&rng)
    G = <GameData*>malloc(sizeof(GameData))
    tmp = <GameData*>malloc(sizeof(GameData))
    if G == NULL or tmp == NULL:
        free(G)
        free(tmp)
        raise MemoryError()
    try:
        copy_game(G, game.g)
        if playout(G, &sp, &rng, tmp, NULL) < 0:
            raise EngineError(_error_text(G.error))
        out = []
        for p in range(G.cur.n_players):
            score_player(&G.cur, p, sc)
            out.append(sc[S_TOTAL])
        return out
    finally:
        free(G)
        free(tmp)


def determinize_counts(bint reset=False):
    """This process's determinizations so far: how many, and how many fell back on the real hidden
    cards after DET_TRIES samples failed to replay (the others' hands kept; everything kept)."""
    out = {"determinizations": DET_COUNTS[0], "kept_hands": DET_COUNTS[1], "kept_all": DET_COUNTS[2]}
    if reset:
        DET_COUNTS[0] = DET_COUNTS[1] = DET_COUNTS[2] = 0
    return out

