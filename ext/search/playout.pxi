# Playouts: from where the tree ends, the game is played to its end by a fast policy. The weighted
# policy (the engine's policy_weight), one-decision greedy lookahead on the heuristic, move averages
# (MAST) learnt within the search, or greedy moves with the choices inside them by the averages.

cdef inline int pick_weighted(const GameData* G, uint64_t* rng) noexcept nogil:
    return policy_pick(PICK_WEIGHTED, G.nopts, G.opts, rng)

ctypedef struct Autoplay:
    bint on, one_segment, skip
    int policy, pause
    uint64_t* rng
    AutoPick pick
    void* ctx


def set_autoplay(bint on):
    """Autoplay playout decisions (the default) or pause for each; the play is the same."""
    global AUTOPLAY
    AUTOPLAY = on

cdef inline Autoplay autoplay_set(bint on, int policy, int pause, bint one_segment, uint64_t* rng) noexcept nogil:
    """Switch autoplay (rules.pxi, RUN) on or off; returns the settings it replaces."""
    cdef Autoplay old
    old.on = RUN.autoplay; old.one_segment = RUN.auto_one_segment
    old.policy = RUN.auto_policy; old.pause = RUN.auto_pause; old.rng = RUN.auto_rng
    old.skip = RUN.skip_move_list
    old.pick = RUN.auto_pick; old.ctx = RUN.auto_ctx
    RUN.autoplay = on; RUN.auto_one_segment = one_segment
    RUN.auto_policy = policy; RUN.auto_pause = pause; RUN.auto_rng = rng
    RUN.skip_move_list = False
    return old

cdef inline void autoplay_restore(Autoplay old) noexcept nogil:
    autoplay_set(old.on, old.policy, old.pause, old.one_segment, old.rng)
    RUN.skip_move_list = old.skip
    RUN.auto_pick = old.pick; RUN.auto_ctx = old.ctx

cdef int play_turn_out(const GameData* G, int a, GameData* tmp, uint64_t* rng) noexcept:
    """tmp: `G` after action `a` and the rest of the decider's turn played by the weighted policy.
    -1 on an engine error."""
    cdef int r, b
    cdef Autoplay outer
    copy_game_to_replay(tmp, G)
    # the policy plays the rest of the turn inside one replay (autoplay to the segment's end: the
    # same choices from the same random numbers as one pause per decision), then stops at the
    # next decision without listing the moves
    outer = autoplay_set(AUTOPLAY, PICK_WEIGHTED, 0, True, rng)
    r = apply_action(tmp, a)
    autoplay_restore(outer)
    if r < 0:
        return -1
    while not tmp.over and tmp.nlog > 0:
        if tmp.error or tmp.nopts <= 0:
            return -1
        b = pick_weighted(tmp, rng)
        if apply_action(tmp, b) < 0:
            return -1
    return 0

cdef double turn_value(const GameData* G, int a, GameData* tmp, uint64_t* rng) noexcept:
    """The decider's heuristic value after action `a` and the rest of their turn (play_turn_out);
    a pass is judged where the turn ends, before the others and the round end."""
    cdef int me = G.decider
    if A_KIND(a) == K_PASS:
        return heuristic_value(&G.cur, me) - 0.5
    if play_turn_out(G, a, tmp, rng) < 0:
        return -1e9
    return heuristic_value(&tmp.cur, me)

cdef int pick_greedy(const GameData* G, GameData* tmp, uint64_t* rng, int lookahead) noexcept:
    """A move by one-decision lookahead (with a little noise), any other decision by the weighted
    policy: much stronger play than the weighted policy at a few times its cost."""
    if G.prompt != P_MOVE or G.nopts == 1 or rng_below(rng, 100) < NOISE_PERCENT:
        return pick_weighted(G, rng)
    return best_by_lookahead(G, G.nopts, G.opts, tmp, rng, lookahead)

cdef int best_by_lookahead(const GameData* G, int n, const int* opts, GameData* tmp, uint64_t* rng,
                           int lookahead) noexcept:
    """Of the `n` options `opts` of G's decision, the one of the best turn value."""
    cdef int i, best = opts[0]
    cdef double v, best_v = -1e300
    # lookahead=cards judges the turn as the heuristic does, then adds the learnt worths
    cdef bint worths = lookahead == LOOK_CARDS and G.prompt == P_MOVE
    for i in range(n):
        v = turn_value(G, opts[i], tmp, rng) + rng_below(rng, 1000) * 1e-4
        if worths:
            v += move_worth(&G.cur, G.decider, opts[i])
        if v > best_v:
            best_v = v
            best = opts[i]
    return best

# MAST (move-average sampling): the mean reward of every (player, action) seen in this search, over
# all iterations that took it; MAST playouts play the best-rated option, with some weighted-policy
# moves mixed in. Actions carry their meaning (entice this dragon into that cave, explore that
# cave), so the search learns in a few thousand iterations which of them pay.
cdef enum:
    MAST_BITS = 16
    MAST_SIZE = 1 << MAST_BITS
    MAST_PROBES = 32
    MAX_TRAIL = 4096

ctypedef struct Mast:
    int key[MAST_SIZE]          # (player << 26 | action) + 1; 0 = empty
    float sum[MAST_SIZE]
    float n[MAST_SIZE]
    double total               # all rewards recorded, for the prior of an unseen action
    double count
    int trail[MAX_TRAIL]        # this iteration's (player, action) keys
    int trail_n

cdef inline int mast_slot(Mast* m, int key, bint insert) noexcept nogil:
    cdef unsigned int h = (<unsigned int>key * 2654435761u) >> (32 - MAST_BITS)
    cdef int i
    for i in range(MAST_PROBES):
        if m.key[h] == key:
            return h
        if m.key[h] == 0:
            if insert:
                m.key[h] = key
                return h
            return -1
        h = (h + 1) & (MAST_SIZE - 1)
    return -1

cdef inline void mast_note(Mast* m, int player, int a) noexcept nogil:
    if m != NULL and m.trail_n < MAX_TRAIL:
        m.trail[m.trail_n] = ((player << 26) | a) + 1
        m.trail_n += 1

cdef void mast_learn(Mast* m, const double* reward) noexcept nogil:
    cdef int i, k
    for i in range(m.trail_n):
        k = mast_slot(m, m.trail[i], True)
        if k >= 0:
            m.sum[k] += reward[(m.trail[i] - 1) >> 26]
            m.n[k] += 1
            m.total += reward[(m.trail[i] - 1) >> 26]
            m.count += 1
    m.trail_n = 0

cdef int mast_pick_opts(Mast* m, double epsilon, int player, int n, const int* opts, uint64_t* rng) noexcept nogil:
    """The option of the best mean reward for `player` (unseen ones: the mean of all), ties at
    random; with chance `epsilon` the weighted policy's choice instead."""
    cdef int i, k, best = -1, ties = 0
    cdef double v, best_v = -1e300, prior = m.total / m.count if m.count else 0.0
    if n == 1 or rng_below(rng, 1000) < epsilon * 1000:
        return policy_pick(PICK_WEIGHTED, n, opts, rng)
    for i in range(n):
        k = mast_slot(m, ((player << 26) | opts[i]) + 1, False)
        v = m.sum[k] / m.n[k] if k >= 0 and m.n[k] > 0 else prior
        if v > best_v + 1e-12:
            best_v = v
            best = opts[i]
            ties = 1
        elif v > best_v - 1e-12:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = opts[i]
    return best

cdef inline int pick_mast(const GameData* G, Mast* m, double epsilon, uint64_t* rng) noexcept nogil:
    return mast_pick_opts(m, epsilon, G.decider, G.nopts, G.opts, rng)

ctypedef struct MastPick:       # the context of move-average picks made under autoplay
    Mast* m
    double epsilon

cdef int mast_autopick(void* ctx, int player, int prompt, int n, const int* opts, uint64_t* rng) noexcept nogil:
    cdef MastPick* c = <MastPick*>ctx
    cdef int a = mast_pick_opts(c.m, c.epsilon, player, n, opts, rng)
    mast_note(c.m, player, a)
    return a

cdef Autoplay playout_autoplay(GameData* G, const SearchParams* sp, uint64_t* rng, Mast* m, MastPick* mp,
                               bint at_moves) noexcept:
    """Autoplay the playout policy's decisions in G, pausing at moves for greedy playouts (or when
    `at_moves`); returns the settings it replaces."""
    cdef Autoplay outer
    cdef int pause = MOVES if at_moves or sp.playout == PLAYOUT_GREEDY or sp.playout == PLAYOUT_GREEDY_MAST else 0
    if sp.playout == PLAYOUT_MAST or sp.playout == PLAYOUT_GREEDY_MAST:
        # move averages pick (and note) every choice the playout does not stop for
        mp.m = m; mp.epsilon = sp.mast_epsilon
        outer = autoplay_set(True, PICK_CALLBACK, pause, False, rng)
        RUN.auto_pick = mast_autopick; RUN.auto_ctx = mp
    elif sp.playout == PLAYOUT_DISTILLED:
        outer = autoplay_set(True, PICK_CALLBACK, pause, False, rng)
        RUN.auto_pick = distilled_autopick; RUN.auto_ctx = G
    else:
        outer = autoplay_set(True, PICK_UNIFORM if sp.playout == PLAYOUT_RANDOM else PICK_WEIGHTED,
                             pause, False, rng)
    return outer

cdef int playout(GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m) noexcept:
    """Play on to the game's end with the playout policy; -1 on an engine error. Decisions that
    the weighted, random or move-average policy takes are autoplayed (no pause and replay each;
    the same choices); greedy playouts pause only at moves, where they look ahead."""
    cdef Autoplay outer
    cdef MastPick mp
    cdef int r
    if not AUTOPLAY:
        return playout_steps(G, sp, rng, tmp, m, False)
    outer = playout_autoplay(G, sp, rng, m, &mp, False)
    r = playout_steps(G, sp, rng, tmp, m, False)
    autoplay_restore(outer)
    return r

cdef int judged_playout(GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m,
                        int me, double* judged) noexcept:
    """playout(), and in `judged` every seat's final score (by seat) as the learnt judge sees it
    from `me` where the first turn on the way starts (a move decision; the judge learnt on such
    positions), or the true scores if the game ends first."""
    cdef Autoplay outer
    cdef MastPick mp
    cdef double v[MAXP]
    cdef int k, r = 0, n = G.cur.n_players
    if AUTOPLAY:
        outer = playout_autoplay(G, sp, rng, m, &mp, True)
    r = playout_steps(G, sp, rng, tmp, m, True)
    if AUTOPLAY:
        autoplay_restore(outer)
    if r < 0:
        return -1
    judge_scores(&G.cur, me, v)
    for k in range(n):
        judged[(me + k) % n] = v[k]
    return playout(G, sp, rng, tmp, m)

cdef int playout_pick(const GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m) noexcept:
    """The playout policy's choice at G's decision."""
    if sp.playout == PLAYOUT_MAST:
        return pick_mast(G, m, sp.mast_epsilon, rng)
    if sp.playout == PLAYOUT_GREEDY:
        return pick_greedy(G, tmp, rng, sp.lookahead)
    if sp.playout == PLAYOUT_GREEDY_MAST:
        # moves by lookahead, the choices inside them by what paid in this search so far
        if G.prompt == P_MOVE:
            return pick_greedy(G, tmp, rng, sp.lookahead)
        return pick_mast(G, m, sp.mast_epsilon, rng)
    if sp.playout == PLAYOUT_DISTILLED:
        return distilled_pick(G.prompt, G.snap.round, G.nopts, G.opts, rng)
    return policy_pick(PICK_UNIFORM if sp.playout == PLAYOUT_RANDOM else PICK_WEIGHTED, G.nopts, G.opts, rng)

cdef int playout_steps(GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m,
                       bint to_move) noexcept:
    """The playout policy's decisions to the game's end (or, `to_move`, to the next move decision)."""
    cdef int a
    while not G.over and not (to_move and G.prompt == P_MOVE):
        if G.error or G.nopts <= 0:
            return -1
        a = playout_pick(G, sp, rng, tmp, m)
        mast_note(m, G.decider, a)
        if apply_action(G, a) < 0:
            return -1
    return 0
