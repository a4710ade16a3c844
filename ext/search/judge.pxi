# The learnt judge (issue 65): a small network's value of a position for every seat, seen from one
# seat (sparse features of what that seat can see), the one-turn lookahead with it as the judge (the
# `net` agent), and whole games played in C for its TD(lambda) training (bench/train_judge.py).
# The weights are data (advisor/data/judge.npz or a training checkpoint), installed by
# advisor.search.data.

from libc.math cimport tanh

# ---------------------------------------------------------------------------- features
# Card identities by where they lie (one input per card and place), then counts scaled to about
# 0..1: the seat's own mat, hand and standing, and a summary of each other seat in turn order.
cdef enum:
    JD = N_DRAGON_CARDS + 1             # a block of dragon ids (1..183; 0 unused)
    JC = N_CAVE_CARDS + 1
    JF_HAND_D = 0
    JF_MAT_D = JF_HAND_D + JD           # a block per cave of the seat's mat
    JF_OTHERS_D = JF_MAT_D + NCAVES * JD    # on any other seat's mat
    JF_DISPLAY_D = JF_OTHERS_D + JD
    JF_HAND_C = JF_DISPLAY_D + JD
    JF_MAT_C = JF_HAND_C + JC           # a block per cave
    JF_DISPLAY_C = JF_MAT_C + NCAVES * JC
    JF_OBJECTIVE = JF_DISPLAY_C + JC    # per round: tile * 2 + side
    JF_GUILD_TILE = JF_OBJECTIVE + 4 * 20
    JF_ROUND = JF_GUILD_TILE + 4
    JF_SEATS = JF_ROUND + 4             # seats in play (index seats - 1)
    JF_AUTOMA = JF_SEATS + MAXP         # the Automa's level (0: none)
    JF_MINE = JF_AUTOMA + 7
    N_JMINE = 57
    JF_OTHERS = JF_MINE + N_JMINE       # a block per other seat, in turn order after the viewer
    N_JOTHER = 20
    N_JFEAT = JF_OTHERS + (MAXP - 1) * N_JOTHER
    JMAX_ACTIVE = 1024
    JMAX_HIDDEN = 256

JUDGE_FEATURES = N_JFEAT
JUDGE_OUTPUTS = MAXP            # every seat's final score / 100, in turn order from the viewer

cdef enum:
    JUDGE_HEURISTIC = 0         # the greedy agent's judge (heuristic_value)
    JUDGE_NET = 1

ctypedef struct JFeat:
    int n
    int idx[JMAX_ACTIVE]
    double val[JMAX_ACTIVE]

cdef inline void jf_add(JFeat* f, int i, double v) noexcept nogil:
    if v != 0 and f.n < JMAX_ACTIVE:
        f.idx[f.n] = i
        f.val[f.n] = v
        f.n += 1

cdef inline void jf_cards(JFeat* f, int base, const uint64_t* bits, int words) noexcept nogil:
    cdef int w
    cdef uint64_t x
    for w in range(words):
        x = bits[w]
        while x:
            jf_add(f, base + w * 64 + __builtin_ctzll(x), 1.0)
            x &= x - 1

cdef void judge_features(const Core* g, int me, JFeat* f) noexcept:
    """What `me` sees, as sparse features. Other seats' hands are read only as their sizes."""
    cdef const Player* P = &g.p[me]
    cdef const Player* Q
    cdef int sc[N_SCORE]
    cdef int counts[MAXP]
    cdef int obj_vp[MAXP]
    cdef int c, k, d, q, r, i, base, n = g.n_players
    cdef double held = 0, affordable = 0, cached, tucked
    cdef bint standing = g.n_scored <= g.round and g.round < 4 and g.phase != PH_OVER
    f.n = 0
    # cards by place
    jf_cards(f, JF_HAND_D, P.hand_d, DW)
    jf_cards(f, JF_HAND_C, P.hand_c, CW)
    for c in range(NCAVES):
        for k in range(NCOLS):
            if P.dragon[c][k]:
                jf_add(f, JF_MAT_D + c * JD + P.dragon[c][k], 1.0)
            if P.cave[c][k]:
                jf_add(f, JF_MAT_C + c * JC + P.cave[c][k], 1.0)
    for q in range(n):
        if q != me and not is_automa(g, q):
            for c in range(NCAVES):
                for k in range(NCOLS):
                    if g.p[q].dragon[c][k]:
                        jf_add(f, JF_OTHERS_D + g.p[q].dragon[c][k], 1.0)
    for i in range(DISPLAY):
        if g.display_d[i]:
            jf_add(f, JF_DISPLAY_D + g.display_d[i], 1.0)
        if g.display_c[i]:
            jf_add(f, JF_DISPLAY_C + g.display_c[i], 1.0)
    # the game
    for r in range(4):
        if g.objective_tile[r] * 2 + g.objective_side[r] < 20:
            jf_add(f, JF_OBJECTIVE + r * 20 + g.objective_tile[r] * 2 + g.objective_side[r], 1.0)
    jf_add(f, JF_GUILD_TILE + (g.guild_tile & 3), 1.0)
    jf_add(f, JF_ROUND + min(<int>g.round, 3), 1.0)
    jf_add(f, JF_SEATS + n - 1, 1.0)
    jf_add(f, JF_AUTOMA + min(<int>g.automa_level, 6), 1.0)
    if standing:
        objective_standing(<Core*>g, counts, obj_vp)
    # the seat itself
    base = JF_MINE
    score_player(g, me, sc)
    jf_add(f, base, sc[S_TOTAL] / 100.0)
    for i in range(S_CAVES):
        jf_add(f, base + 1 + i, sc[i] / 20.0)
    jf_add(f, base + 10, P.coins / 5.0)
    for i in range(NRES):
        jf_add(f, base + 11 + i, P.res[i] / 3.0)
    jf_add(f, base + 15, P.nest_eggs / 3.0)
    for c in range(NCAVES):
        cached = 0
        tucked = 0
        for k in range(NCOLS):
            tucked += P.tucked[c][k]
            for i in range(NRES):
                cached += P.cached[c][k][i]
        d = 0
        for k in range(NCOLS):
            d += P.eggs[c][k]
        jf_add(f, base + 16 + c, d / 5.0)
        jf_add(f, base + 19 + c, cached / 5.0)
        jf_add(f, base + 22 + c, tucked / 5.0)
        d = 0
        r = 0
        q = 0
        for k in range(NCOLS):
            if P.dragon[c][k]:
                d += 1
            elif k == 0 or P.cave[c][k]:
                q += 1
            if k > 0 and P.cave[c][k]:
                r += 1
        jf_add(f, base + 25 + c, d / 4.0)
        jf_add(f, base + 28 + c, r / 3.0)
        jf_add(f, base + 31 + c, q / 2.0)
        jf_add(f, base + 34 + c, P.explores[c] / 3.0)
    jf_add(f, base + 37, P.guild_steps / 12.0)
    jf_add(f, base + 38, P.markers_left / 4.0)
    for i in range(4):
        jf_add(f, base + 39 + i, P.tile_markers[i] / 2.0)
    jf_add(f, base + 43, P.fixed_vp / 5.0)
    jf_add(f, base + 44, P.n_hand_d / 5.0)
    jf_add(f, base + 45, P.n_hand_c / 5.0)
    jf_add(f, base + 46, P.passed != 0)
    if standing:
        jf_add(f, base + 47, obj_vp[me] / 5.0)
        jf_add(f, base + 48, counts[me] / 5.0)
    jf_add(f, base + 49, end_game_now(g, me) / 10.0)
    hand_dragon_vp(P, &held, &affordable)
    jf_add(f, base + 50, held / 20.0)
    jf_add(f, base + 51, affordable / 20.0)
    jf_add(f, base + 52, g.turns / 60.0)
    jf_add(f, base + 53, g.start_player == me)
    jf_add(f, base + 54, g.active == me)
    jf_add(f, base + 55, g.n_deck_d / 100.0)
    jf_add(f, base + 56, g.obj_coins[min(<int>g.round, 3)] / 3.0)
    # the others, in turn order
    for i in range(1, n):
        q = (me + i) % n
        Q = &g.p[q]
        base = JF_OTHERS + (i - 1) * N_JOTHER
        score_player(g, q, sc)
        jf_add(f, base, 1.0)
        jf_add(f, base + 2, sc[S_TOTAL] / 100.0)
        jf_add(f, base + 9, Q.guild_steps / 12.0)
        if standing:
            jf_add(f, base + 11, obj_vp[q] / 5.0)
            jf_add(f, base + 12, counts[q] / 5.0)
        if is_automa(g, q):
            jf_add(f, base + 1, 1.0)
            jf_add(f, base + 16, g.a_dragons / 10.0)
            jf_add(f, base + 17, g.a_caves / 10.0)
            jf_add(f, base + 18, g.a_markers / 4.0)
            jf_add(f, base + 19, g.a_next / 8.0)
            continue
        jf_add(f, base + 3, total_eggs(Q) / 10.0)
        jf_add(f, base + 4, n_dragons(Q) / 12.0)
        jf_add(f, base + 5, Q.coins / 5.0)
        jf_add(f, base + 6, total_res(Q) / 8.0)
        jf_add(f, base + 7, Q.n_hand_d / 5.0)
        jf_add(f, base + 8, Q.n_hand_c / 5.0)
        jf_add(f, base + 10, Q.markers_left / 4.0)
        jf_add(f, base + 13, end_game_now(g, q) / 10.0)
        jf_add(f, base + 14, Q.passed != 0)
        jf_add(f, base + 15, (sc[S_CACHED] + sc[S_TUCKED]) / 10.0)

# ---------------------------------------------------------------------------- the network
# inputs -> JUDGE_HIDDEN tanh units -> JUDGE_OUTPUTS linear outputs (final scores / 100). The core
# keeps the weights as floats (half the memory a position's rows touch: an evaluation's cost is
# their loads), each row padded with zeros to JUDGE_STRIDE units, a multiple of JLANES, so that a
# row is added JLANES units at a time: plain C loops of a fixed count over arrays that do not
# overlap, which the compiler turns into vector instructions at -O2.
cdef extern from *:
    """
    enum { JLANES = 8 };
    static inline void judge_row_add(float* __restrict h, const float* __restrict w, float v, int stride) {
        /* by pointers: with -fwrapv (Python's flags) indices j + k keep gcc from vectorising */
        for (const float* end = w + stride; w < end; w += JLANES, h += JLANES)
            for (int k = 0; k < JLANES; k++)
                h[k] += w[k] * v;
    }
    """
    enum: JLANES
    void judge_row_add(float* h, const float* w, float v, int stride) noexcept nogil

cdef inline void judge_sums(const JFeat* f, float* h) noexcept nogil:
    """The hidden units' input sums (before tanh) of the active inputs `f`."""
    cdef int i
    memcpy(h, JUDGE_B1, JUDGE_STRIDE * sizeof(float))
    for i in range(f.n):
        judge_row_add(h, JUDGE_W1 + <long>f.idx[i] * JUDGE_STRIDE, <float>f.val[i], JUDGE_STRIDE)

cdef inline void judge_head(float* h, double* out, int n) noexcept nogil:
    """The first `n` outputs from the hidden units' sums `h` (tanh taken in place)."""
    cdef int j, k
    cdef const float* w
    cdef double o
    for j in range(JUDGE_HIDDEN):
        h[j] = <float>tanh(h[j])
    for k in range(n):
        o = JUDGE_B2[k]
        w = JUDGE_W2 + k * JUDGE_STRIDE
        for j in range(JUDGE_HIDDEN):
            o += w[j] * h[j]
        out[k] = o

cdef void judge_scores(const Core* g, int me, double* out) noexcept:
    """Every seat's final score as the net sees it from `me` (turn order from `me`, in VP); the
    true scores once the game is over."""
    cdef JFeat f
    cdef float h[JMAX_HIDDEN]
    cdef int sc[N_SCORE]
    cdef int k
    if g.phase == PH_OVER:
        for k in range(MAXP):
            out[k] = 0
        for k in range(g.n_players):
            score_player(g, (me + k) % g.n_players, sc)
            out[k] = sc[S_TOTAL]
        return
    judge_features(g, me, &f)
    judge_sums(&f, h)
    judge_head(h, out, MAXP)
    for k in range(MAXP):
        out[k] *= 100.0

cdef inline double utility_of(const Core* g, const double* v) noexcept:
    """What a seat plays for, from every seat's final score in turn order from it: its own score in
    solo, its margin over the best other seat with others at the table."""
    if g.automa_level:
        return v[0]
    return lead(v, g.n_players, 0)

cdef double judge_utility(const Core* g, int me) noexcept:
    """What the net agent maximises (utility_of) as the net judges it."""
    cdef double v[MAXP]
    judge_scores(g, me, v)
    return utility_of(g, v)

# ---------------------------------------------------------------------------- one-turn lookahead
cdef double judged_turn_value(const GameData* G, int a, GameData* tmp, uint64_t* rng, int judge) noexcept:
    """The decider's value where their turn ends after action `a` (play_turn_out), by a judge."""
    if judge == JUDGE_HEURISTIC:
        return turn_value(G, a, tmp, rng)
    if play_turn_out(G, a, tmp, rng) < 0:
        return -1e9
    return judge_utility(&tmp.cur, G.decider)

cdef int lookahead_pick(const GameData* G, GameData* tmp, uint64_t* rng, int samples, int judge) noexcept:
    """The option of the best judged turn value, each averaged over `samples` weighted-policy
    completions of the turn on G itself (the greedy agent's choice with the heuristic, whose
    completions draw the real deck's cards); -1 on an engine error."""
    cdef int i, k, best = -1
    cdef double v, best_v = -1e300
    for i in range(G.nopts):
        v = 0
        for k in range(samples):
            v += judged_turn_value(G, G.opts[i], tmp, rng, judge)
        v = v / samples + rng_below(rng, 1000) * 1e-6
        if v > best_v:
            best_v = v
            best = G.opts[i]
    return best if best_v >= -1e8 else -1

cdef int net_pick(const GameData* G, GameData* det, GameData* tmp, uint64_t* rng, int samples) noexcept:
    """The net agent's choice: every option judged by the net where the turn ends, averaged over
    `samples` worlds of what the decider cannot see (a determinization each: the completions never
    draw the real hidden cards); -1 on an engine error."""
    cdef double v[MAX_OPTS]
    cdef int i, k, best = -1, me = G.decider
    cdef double best_v = -1e300
    memset(v, 0, G.nopts * sizeof(double))
    for k in range(samples):
        copy_game(det, G)
        if determinize(det, me, rng, True) < 0 or det.nopts != G.nopts:
            return -1
        for i in range(G.nopts):
            v[i] += judged_turn_value(det, G.opts[i], tmp, rng, JUDGE_NET)
    for i in range(G.nopts):
        v[i] = v[i] / samples + rng_below(rng, 1000) * 1e-6
        if v[i] > best_v:
            best_v = v[i]
            best = G.opts[i]
    return best if best_v >= -1e8 else -1

# ---------------------------------------------------------------------------- Python side
def install_judge(w1, b1, w2, b2):
    """Copy a network's weights into the core: w1 (JUDGE_FEATURES x hidden), b1 (hidden),
    w2 (JUDGE_OUTPUTS x hidden), b2 (JUDGE_OUTPUTS); advisor.search.data reads them from a file."""
    global JUDGE_W1, JUDGE_B1, JUDGE_W2, JUDGE_B2, JUDGE_HIDDEN, JUDGE_STRIDE, JUDGE_INSTALLS
    a1 = np.ascontiguousarray(w1, dtype=np.float64)
    c1 = np.ascontiguousarray(b1, dtype=np.float64)
    a2 = np.ascontiguousarray(w2, dtype=np.float64)
    c2 = np.ascontiguousarray(b2, dtype=np.float64)
    if a1.ndim != 2 or a1.shape[0] != N_JFEAT or not 1 <= a1.shape[1] <= JMAX_HIDDEN:
        raise ValueError(f"w1: expected {N_JFEAT} x hidden (1..{JMAX_HIDDEN}), got shape {a1.shape}")
    cdef int H = a1.shape[1]
    cdef int S = (H + JLANES - 1) // JLANES * JLANES
    if c1.shape != (H,) or a2.shape != (MAXP, H) or c2.shape != (MAXP,):
        raise ValueError(f"b1, w2, b2: expected shapes ({H},), ({MAXP}, {H}), ({MAXP},); got "
                         f"{c1.shape}, {a2.shape}, {c2.shape}")
    if not all(np.isfinite(x).all() for x in (a1, c1, a2, c2)):
        raise ValueError("the weights are not all finite numbers")
    cdef float* n1 = <float*>calloc(N_JFEAT * S, sizeof(float))
    cdef float* n2 = <float*>calloc(MAXP * S, sizeof(float))
    if n1 == NULL or n2 == NULL:
        free(n1)
        free(n2)
        raise MemoryError()
    cdef double[:, ::1] v1 = a1
    cdef double[:, ::1] v2 = a2
    cdef long i, j
    for i in range(N_JFEAT):
        for j in range(H):
            n1[i * S + j] = <float>v1[i, j]
    for i in range(MAXP):
        for j in range(H):
            n2[i * S + j] = <float>v2[i, j]
    free(JUDGE_W1)
    free(JUDGE_W2)
    JUDGE_W1 = n1
    JUDGE_W2 = n2
    memset(JUDGE_B1, 0, sizeof(JUDGE_B1))
    for i in range(H):
        JUDGE_B1[i] = <float>c1[i]
    for i in range(MAXP):
        JUDGE_B2[i] = <float>c2[i]
    JUDGE_HIDDEN = H
    JUDGE_STRIDE = S
    JUDGE_INSTALLS += 1

cdef int need_judge() except -1:
    """Install the shipped judge on first use when none is (a net agent in a fresh worker process)."""
    if JUDGE_HIDDEN == 0 and JUDGE_INSTALLER is not None:
        JUDGE_INSTALLER()
    if JUDGE_HIDDEN == 0:
        raise RuntimeError("no learnt judge is installed (advisor.search.data.use_judge)")
    return 0

def judge_installed():
    """Whether a network is installed (install_judge)."""
    return JUDGE_HIDDEN > 0

def judge_installs():
    """How many networks this process installed so far: tells whether the one in use changed."""
    return JUDGE_INSTALLS

def position_features(Game game, int player):
    """(indices, values) of the judge's active inputs for `player` at the current state."""
    use_tables_of(game)
    cdef JFeat f
    if not 0 <= player < game.g.cur.n_players:
        raise ValueError(f"player must be 0..{game.g.cur.n_players - 1}, got {player}")
    judge_features(&game.g.cur, player, &f)
    return [f.idx[i] for i in range(f.n)], [f.val[i] for i in range(f.n)]

def judge_values(Game game, int player):
    """Every seat's final score as the installed net judges it from `player` (turn order from
    `player`; JUDGE_OUTPUTS numbers, the ones past the seats in play unused), in VP."""
    use_tables_of(game)
    need_judge()
    cdef double v[MAXP]
    if not 0 <= player < game.g.cur.n_players:
        raise ValueError(f"player must be 0..{game.g.cur.n_players - 1}, got {player}")
    judge_scores(&game.g.cur, player, v)
    return [v[k] for k in range(MAXP)]

def judged_action(Game game, seed=0, int samples=4):
    """The net agent's move: the greedy agent's lookahead with the installed net as the judge, on
    `samples` determinizations of what the decider cannot see."""
    use_tables_of(game)
    need_judge()
    if game.g.over:
        raise ValueError("the game is over")
    return _lookahead_action(game, seed, samples, JUDGE_NET)

cdef int _lookahead_action(Game game, seed, int samples, int judge) except? -2:
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef int best
    rng_next(&rng)
    cdef GameData* tmp = <GameData*>malloc(2 * sizeof(GameData))
    if tmp == NULL:
        raise MemoryError()
    try:
        if judge == JUDGE_NET:
            best = net_pick(game.g, tmp + 1, tmp, &rng, samples)
        else:
            best = lookahead_pick(game.g, tmp, &rng, samples, judge)
        if best < 0:
            raise EngineError(_error_text(tmp.error))
        return best
    finally:
        free(tmp)

JUDGES = {"heuristic": JUDGE_HEURISTIC, "net": JUDGE_NET}

def judged_game(int players, seed, judges, automa="3", int samples=1, double epsilon=0.0,
                bint record=False, printing="base", bint choices=False):
    """One whole game in C, seat i's moves by the lookahead with judges[i] ("net": the net agent's,
    on `samples` determinizations; "heuristic": the greedy agent's, `samples` completions of each turn; with chance `epsilon` a decision is the weighted policy's
    instead, to explore). Returns the final scores, the winners' seats and, with `record`, the positions where each
    net-judged seat's segments of play ended, as that seat sees them: (seats, offsets, indices,
    values) with position i's inputs at offsets[i]..offsets[i + 1]; with `choices`, every choice
    among options a net-judged seat made (not exploring), the teacher of the distilled playouts:
    (prompts, rounds, offsets, options, chosen) with choice i's options at offsets[i]..offsets[i + 1]
    and chosen[i] the index of the one taken among them."""
    cdef int judge[MAXP]
    cdef int p, a, d, decided = 0, n_rec = 0, n_act = 0, cap_rec = 256, cap_act = 32768
    cdef bint taught
    cdef uint64_t rng
    cdef JFeat f
    cdef Game game = Game.new(players, seed, printing, automa)
    cdef GameData* G = game.g
    cdef int n = G.cur.n_players
    if len(judges) != (1 if G.cur.automa_level else n):
        raise ValueError(f"judges: one per seat played ({players}), got {len(judges)}")
    for p in range(n):
        judge[p] = JUDGES[judges[p]] if p < len(judges) else -1
        if judge[p] == JUDGE_NET:
            need_judge()
    need_search_data()
    use_tables_of(game)
    rng = <uint64_t>((int(seed) * 0x9E3779B97F4A7C15 + 12345) & 0xFFFFFFFFFFFFFFFF)
    rng_next(&rng)
    seats = np.zeros(cap_rec, np.int8)
    offsets = np.zeros(cap_rec + 1, np.int32)
    idx = np.zeros(cap_act, np.int32)
    val = np.zeros(cap_act, np.float32)
    ch_prompt, ch_round, ch_sizes, ch_opts, ch_chosen = [], [], [], [], []
    cdef GameData* tmp = <GameData*>malloc(2 * sizeof(GameData))     # a turn played out; a world
    if tmp == NULL:
        raise MemoryError()
    try:
        while not G.over:
            if G.error or G.nopts <= 0:
                raise EngineError(_error_text(G.error))
            d = G.decider
            taught = False
            if G.nopts == 1:
                a = G.opts[0]
            elif epsilon > 0 and rng_below(&rng, 1000000) < epsilon * 1000000:
                a = pick_weighted(G, &rng)
            elif judge[d] == JUDGE_NET:
                a = net_pick(G, tmp + 1, tmp, &rng, samples)
                if a < 0:
                    raise EngineError(_error_text(tmp.error))
                taught = choices
            else:
                a = lookahead_pick(G, tmp, &rng, samples, judge[d])
                if a < 0:
                    raise EngineError(_error_text(tmp.error))
            if taught:
                opts = [G.opts[i] for i in range(G.nopts)]
                ch_prompt.append(G.prompt)
                ch_round.append(G.snap.round)
                ch_sizes.append(G.nopts)
                ch_chosen.append(opts.index(a))
                ch_opts += opts
            if apply_action(G, a) < 0:
                raise EngineError(_error_text(G.error))
            decided |= 1 << d
            if G.nlog != 0 or G.over:
                continue
            # a segment ended: each net-judged seat that decided in it sees where it ended
            for p in range(n):
                if not (record and (decided >> p) & 1 and judge[p] == JUDGE_NET):
                    continue
                judge_features(&G.cur, p, &f)
                if n_rec == cap_rec:
                    cap_rec *= 2
                    seats = np.resize(seats, cap_rec)
                    offsets = np.resize(offsets, cap_rec + 1)
                while n_act + f.n > cap_act:
                    cap_act *= 2
                    idx = np.resize(idx, cap_act)
                    val = np.resize(val, cap_act)
                seats[n_rec] = p
                idx[n_act:n_act + f.n] = [f.idx[a] for a in range(f.n)]
                val[n_act:n_act + f.n] = [f.val[a] for a in range(f.n)]
                n_act += f.n
                n_rec += 1
                offsets[n_rec] = n_act
            decided = 0
    finally:
        free(tmp)
    out = {"scores": game.scores(), "winners": game.winners()}
    if record:
        out["positions"] = (seats[:n_rec].copy(), offsets[:n_rec + 1].copy(), idx[:n_act].copy(),
                            val[:n_act].copy())
    if choices:
        out["choices"] = (np.array(ch_prompt, np.int8), np.array(ch_round, np.int8),
                          np.concatenate([[0], np.cumsum(ch_sizes)]).astype(np.int32),
                          np.array(ch_opts, np.int32), np.array(ch_chosen, np.int16))
    return out
