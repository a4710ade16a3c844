# Information-set MCTS (single-observer by default, multiple-observer as an option), all in C.
#
# Each iteration deals a determinization from the searching player's view (determinize), walks the
# tree choosing among the children whose actions are legal in that world (UCB1 over availability
# counts), expands one action, plays a rollout (random or a fast heuristic policy, optionally cut
# after N decisions and scored by a heuristic), and backs the reward up, each node crediting the
# player who chose its action.

from libc.math cimport sqrt, log, exp, pow as cpow
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef enum:
    MAX_PATH = 4096
    GREEDY_SAMPLES = 4

ctypedef struct Node:
    int parent
    int child               # first child
    int sibling
    int action
    int player              # who chose `action`
    int visits
    int avail               # times the action was legal when its parent was visited
    int tree                # which observer's tree (multiple-observer search)
    double reward           # sum of rewards, from `player`'s view
    double reward_sq        # sum of their squares (c_spread's exploration by the rewards' spread)
    double win_sum          # root children: the searching player's wins, final score and margin
    double score_sum
    double score_sq
    double margin_sum
    double margin_sq

ctypedef struct SearchParams:
    double c                # UCB1 exploration constant
    double c_spread         # > 0: exploration c_spread x the sd of the rewards at the node instead of c
    long iterations         # budget (0 = none)
    double seconds          # budget (0 = none)
    int rollout             # 0 random, 1 heuristic policy
    int rollout_depth       # decisions before a cut-off evaluation (0 = to the end)
    int cut_round           # 1: cut a rollout where the next round starts (evaluated there)
    double margin_weight    # reward = (1 - w) * win + w * normalised margin
    double margin_scale     # VP margin that counts as a full win/loss in the margin term
    double pw_c             # progressive widening: at most pw_c * visits^pw_alpha children (0 = off)
    double pw_alpha
    int final_by            # 0 most visits, 1 best mean
    int determinizations    # 0 = a fresh one per iteration, else a fixed pool of this many
    long max_nodes
    int observers           # 1 single-observer, 2 multiple-observer
    int stop_early          # stop once the most-visited root move cannot be overtaken
    double mast_epsilon     # MAST rollouts: share of decisions taken by the weighted policy
    double mast_keep        # share of the move averages' weight carried to the next decision's search
    bint mast_lookahead     # greedy_mast: the lookahead plays the rest of the turn by the averages too
    int evaluation          # cut-offs: 0 heuristic value, 1 learnt evaluation
    int lookahead           # greedy moves in rollouts: 0 the heuristic value, 2 the learnt move policy, 3 two_ply
    int expand              # which untried action a node grows first: 0 at random, 1 the rollout policy's
    int tree_mask           # below the root, the prompts that get tree nodes; the others the rollout policy takes
    uint64_t seed

cdef inline double now_s() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

# ---------------------------------------------------------------------------- evaluation
# The value of what a player holds during play, beyond the VP already on the board: each feature is
# worth (base + per_round * rounds still to play, this one included). Tuned on the greedy player's
# solo score (bench/tune_heuristic.py); set_heuristic_weights() changes them for experiments.
HEURISTIC_FEATURES = ("coins", "hand_dragons", "hand_caves", "resources", "guild_markers",
                      "open_spaces", "if_activated", "end_game", "once_per_round", "objective_now",
                      "end_game_now", "hand_vp", "affordable_vp")
cdef enum:
    N_HFEAT = 13
cdef double HW_BASE[N_HFEAT]
cdef double HW_ROUND[N_HFEAT]
HW_BASE[:] = [0.3, 0.5, 0.2, 0.4, 0.3, 0.3, 1.2, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
HW_ROUND[:] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.2, 0.0, 0.0]

def heuristic_weights():
    """{feature: (base, per_round)} of the heuristic value."""
    return {f: (HW_BASE[i], HW_ROUND[i]) for i, f in enumerate(HEURISTIC_FEATURES)}

def set_heuristic_weights(dict weights):
    """Change some features' (base, per_round) weights, for this process (experiments, tuning)."""
    for f, (b, r) in weights.items():
        i = HEURISTIC_FEATURES.index(f)
        HW_BASE[i] = b
        HW_ROUND[i] = r

cdef int block_vp_now(Core* g, Ctx* x, int i) noexcept:
    """The VP an end-game program would score if the game ended now, reading the state only: its
    vp() and if() steps; a step that pays or gains (a choice at the end) counts nothing."""
    cdef int vp = 0, op
    while i >= 0:
        op = R(i, COL_OP)
        if op == OP_VP:
            vp += vp_amount(g, x, i)
        elif op == OP_IF and eval_cond(g, x, R(i, COL_POS)):
            vp += block_vp_now(g, x, R(i, COL_CHILD))
        i = R(i, COL_NEXT)
    return vp

cdef int end_game_now(const Core* g, int p) noexcept:
    """What `p`'s end-game abilities (dragons and guild tile markers) would score if the game ended now."""
    cdef Ctx x
    cdef int s, d, a, vp = 0
    cdef const Player* P = &g.p[p]
    memset(&x, 0, sizeof(Ctx))
    x.owner = p
    x.active = p
    for s in range(12):
        d = P.dragon[s >> 2][s & 3]
        if d and DRAGONS[d][D_ENTRY_END_GAME] >= 0:
            x.cave = s >> 2
            x.col = s & 3
            vp += block_vp_now(<Core*>g, &x, DRAGONS[d][D_ENTRY_END_GAME])
    x.cave = -1
    x.col = -1
    for a in range(4):
        if GUILD_TILES[g.guild_tile][a][2] and P.tile_markers[a]:
            vp += P.tile_markers[a] * block_vp_now(<Core*>g, &x, GUILD_TILES[g.guild_tile][a][0])
    return vp

def end_game_vp_now(Game game, int player):
    """What `player`'s end-game abilities would score if the game ended now (the heuristic's view)."""
    use_tables_of(game)
    return end_game_now(&game.g.cur, player)

cdef void hand_dragon_vp(const Player* P, double* held, double* affordable) noexcept:
    """The printed VP of the dragons in hand, and of those whose eggs and resources are in hand and
    that have a free slot (coins left out: a new round brings more)."""
    cdef int ids[256]
    cdef int need[4]
    cdef int n, i, c, d, eggs = total_eggs(P)
    n = bits_list(P.hand_d, DW, ids)
    for i in range(n):
        d = ids[i]
        held[0] += DRAGONS[d][D_VP]
        if eggs < DRAGONS[d][D_EGG]:
            continue
        for c in range(NCAVES):
            if d_lives_in(d, c) and first_empty_dragon_col(P, c) >= 0:
                dragon_need(d, need)
                if can_pay_res(P, need, 0):
                    affordable[0] += DRAGONS[d][D_VP]
                break

cdef double heuristic_value(const Core* g, int p) noexcept:
    """The score `p` would have if the game ended now, plus what can still be used."""
    cdef int sc[N_SCORE]
    cdef double f[N_HFEAT]
    cdef int counts[MAXP]
    cdef int vp[MAXP]
    cdef double v, rounds
    cdef const Player* P = &g.p[p]
    cdef int c, k, d, i
    score_player(g, p, sc)
    if g.phase == PH_OVER:
        return sc[S_TOTAL]
    if is_automa(g, p):
        return sc[S_TOTAL]
    # during play, coins and cards are worth what they can still buy rather than their final VP
    memset(f, 0, sizeof(f))
    f[0] = P.coins
    f[1] = P.n_hand_d
    f[2] = P.n_hand_c
    f[3] = total_res(P)
    f[4] = RULES[R_GUILD_MARKERS] - P.markers_left
    for c in range(NCAVES):
        for k in range(NCOLS):
            d = P.dragon[c][k]
            if d == 0:
                if k == 0 or P.cave[c][k]:
                    f[5] += 1
                continue
            f[6] += DRAGONS[d][D_ENTRY_IF_ACTIVATED] >= 0
            f[7] += DRAGONS[d][D_ENTRY_END_GAME] >= 0
            f[8] += DRAGONS[d][D_ENTRY_ONCE_PER_ROUND] >= 0
    if g.n_scored <= g.round and g.round < 4 and (HW_BASE[9] != 0 or HW_ROUND[9] != 0):
        # the VP this round's objective would give if it were scored now
        objective_standing(<Core*>g, counts, vp)
        f[9] = vp[p]
    if HW_BASE[10] != 0 or HW_ROUND[10] != 0:
        f[10] = end_game_now(g, p)
    if HW_BASE[11] != 0 or HW_ROUND[11] != 0 or HW_BASE[12] != 0 or HW_ROUND[12] != 0:
        hand_dragon_vp(P, &f[11], &f[12])
    rounds = 4 - g.round          # rounds still to play, this one included (round is 0..3)
    v = sc[S_TOTAL] - sc[S_COINS] - sc[S_ITEMS]
    for i in range(N_HFEAT):
        v += f[i] * (HW_BASE[i] + HW_ROUND[i] * rounds)
    return v

# A learnt evaluation (bench/learn_value.py): the VP still to come, regressed per round on features
# of the position from games the search played itself; her VP still to come the same way. The
# search uses it at rollout cut-offs with evaluation=learned; greedy_action(evaluation="learned")
# in its lookahead (greedy rollouts keep the heuristic, which plays better there).
VALUE_FEATURES = ("bias", "coins", "hand_dragons", "hand_caves", "resources", "guild_markers",
                  "open_spaces", "if_activated", "end_game", "once_per_round", "objective_now",
                  "affordable", "hand_vp", "affordable_vp", "unexcavated", "mat_dragons", "egg_room")
AUTOMA_VALUE_FEATURES = ("bias", "cards_left", "dragons", "caves")
cdef enum:
    N_VFEAT = 17
    N_AFEAT = 4
include "value_weights.pxi"

cdef void value_features(const Core* g, int p, double* f) noexcept:
    """The learnt evaluation's features of seat `p` (the Automa: her AUTOMA_VALUE_FEATURES)."""
    cdef int counts[MAXP]
    cdef int vp[MAXP]
    cdef int ids[256]
    cdef const Player* P = &g.p[p]
    cdef int c, k, d, i, n, ok
    memset(f, 0, N_VFEAT * sizeof(double))
    f[0] = 1
    if is_automa(g, p):
        f[1] = max(0, <int>g.a_playable - <int>g.a_next)
        f[2] = g.a_dragons
        f[3] = g.a_caves
        return
    f[1] = P.coins
    f[2] = P.n_hand_d
    f[3] = P.n_hand_c
    f[4] = total_res(P)
    f[5] = RULES[R_GUILD_MARKERS] - P.markers_left
    for c in range(NCAVES):
        for k in range(NCOLS):
            d = P.dragon[c][k]
            if k > 0 and not P.cave[c][k]:
                f[14] += 1
            if d == 0:
                if k == 0 or P.cave[c][k]:
                    f[6] += 1
                continue
            f[7] += DRAGONS[d][D_ENTRY_IF_ACTIVATED] >= 0
            f[8] += DRAGONS[d][D_ENTRY_END_GAME] >= 0
            f[9] += DRAGONS[d][D_ENTRY_ONCE_PER_ROUND] >= 0
            f[15] += 1
            f[16] += d_capacity(d) - P.eggs[c][k]
    if g.n_scored <= g.round and g.round < 4:
        objective_standing(<Core*>g, counts, vp)
        f[10] = vp[p]
    n = bits_list(P.hand_d, DW, ids)
    for i in range(n):
        d = ids[i]
        f[12] += DRAGONS[d][D_VP]
        ok = 0
        for c in range(NCAVES):
            if can_entice_action(P, d, c):
                ok = 1
                break
        f[11] += ok
        f[13] += ok * DRAGONS[d][D_VP]

cdef double learnt_value(const Core* g, int p) noexcept:
    """Score now (the human's without coins and leftovers) plus the regressed VP still to come."""
    cdef int sc[N_SCORE]
    cdef double f[N_VFEAT]
    cdef double v
    cdef int i, r = min(<int>g.round, 3)
    score_player(g, p, sc)
    if g.phase == PH_OVER:
        return sc[S_TOTAL]
    value_features(g, p, f)
    if is_automa(g, p):
        v = sc[S_TOTAL]
        for i in range(N_AFEAT):
            v += f[i] * AW[r][i]
        return v
    v = sc[S_TOTAL] - sc[S_COINS] - sc[S_ITEMS]
    for i in range(N_VFEAT):
        v += f[i] * VW[r][i]
    return v + card_value(g, p, r)

cdef double card_value(const Core* g, int p, int r) noexcept:
    """The learnt worth of the very dragons `p` holds and has on the mat, in round `r`."""
    cdef int ids[256]
    cdef const Player* P = &g.p[p]
    cdef int c, k, d, i, n
    cdef double v = 0
    n = bits_list(P.hand_d, DW, ids)
    for i in range(n):
        v += VWH[r][ids[i]]
    for c in range(NCAVES):
        for k in range(NCOLS):
            d = P.dragon[c][k]
            if d:
                v += VWM[r][d]
    return v

# A learnt move policy (bench/learn_policy.py): the greedy lookahead's value of where a move's turn
# ends, fitted per round so that its soft-max over the moves matches the search's own visits at
# its move decisions (expert iteration). Its features: the score without coins and leftovers, the
# learnt evaluation's features but its bias, and whether the move is a pass.
POLICY_FEATURES = ("score",) + VALUE_FEATURES[1:] + ("pass",)
cdef enum:
    N_PFEAT = N_VFEAT + 1
include "policy_weights.pxi"

cdef void policy_features(const Core* g, int p, bint is_pass, double* f) noexcept:
    cdef int sc[N_SCORE]
    score_player(g, p, sc)
    value_features(g, p, f)
    f[0] = sc[S_TOTAL] - sc[S_COINS] - sc[S_ITEMS]
    f[N_PFEAT - 1] = is_pass

cdef double policy_value(const Core* g, int p, bint is_pass) noexcept:
    cdef double f[N_PFEAT]
    cdef double v = 0
    cdef int i, r = min(<int>g.round, 3)
    if g.phase == PH_OVER or is_automa(g, p):
        return heuristic_value(g, p)
    policy_features(g, p, is_pass, f)
    for i in range(N_PFEAT):
        v += f[i] * PW[r][i]
    return v

def policy_weights():
    """The learnt move policy's weights per round (POLICY_FEATURES)."""
    return [[PW[r][i] for i in range(N_PFEAT)] for r in range(4)]

# lookahead=cards: the heuristic's turn value plus a learnt worth (in VP) of the move's own card by
# round: the dragon enticed, the cave card excavated, the cave explored or the pass, fitted as a
# conditional logit to the search's own move choices with the heuristic value as a feature
# (bench/learn_card_policy.py), so it says what the heuristic misses about each card; fitted on
# solo games, it applies to whoever decides a move
cdef enum:
    CK_CAVE = N_DRAGON_CARDS + 1
    CK_EXPLORE = CK_CAVE + N_CAVE_CARDS + 1
    CK_PASS = CK_EXPLORE + NCAVES
    N_CKEYS = CK_PASS + 1

cdef inline int card_key(int a) noexcept nogil:
    """The card a move names (its key in CPW), 0 for anything else."""
    cdef int k = A_KIND(a)
    if k == K_ENTICE:
        return A_ARG(a) >> 2
    if k == K_EXCAVATE:
        return CK_CAVE + (A_ARG(a) >> 2)
    if k == K_EXPLORE:
        return CK_EXPLORE + (A_ARG(a) & 3)
    if k == K_PASS:
        return CK_PASS
    return 0

# and by what the move's cave holds before it, per kind of move (entice, excavate, explore): the
# dragons in hand that may live there, its open spaces, its dragons, its excavated spaces, and its
# explores this round (CAVE_MOVE_FEATURES; weights in VP per count, fitted with the worths)
CAVE_MOVE_FEATURES = tuple(f"{kind}:{f}" for kind in ("entice", "excavate", "explore")
                           for f in ("fit", "room", "dragons", "depth", "explores"))
cdef enum:
    N_CFEAT = 5
    N_MFEAT = 3 * N_CFEAT
include "card_policy_weights.pxi"

cdef double cave_move_worth(const Core* g, int p, int a, const double* w) noexcept:
    """The learnt worth of move `a`'s cave as it stands (w: a round's N_MFEAT weights)."""
    cdef int k = A_KIND(a), c = A_ARG(a) & 3, i, j, n, base
    cdef int hand[N_DRAGON_CARDS + 1]
    cdef double f[N_CFEAT]
    cdef const Player* P = &g.p[p]
    if k == K_ENTICE:
        base = 0
    elif k == K_EXCAVATE:
        base = N_CFEAT
    elif k == K_EXPLORE:
        base = 2 * N_CFEAT
    else:
        return 0.0
    if c >= NCAVES:
        return 0.0
    memset(f, 0, sizeof(f))
    n = bits_list(P.hand_d, DW, hand)
    for i in range(n):
        f[0] += d_lives_in(hand[i], c)
    for j in range(NCOLS):
        if P.dragon[c][j]:
            f[2] += 1
        elif j == 0 or P.cave[c][j]:
            f[1] += 1
        if j > 0 and P.cave[c][j]:
            f[3] += 1
    f[4] = P.explores[c]
    return (w[base] * f[0] + w[base + 1] * f[1] + w[base + 2] * f[2] + w[base + 3] * f[3]
            + w[base + 4] * f[4])

cdef inline double move_worth(const Core* g, int p, int a) noexcept:
    """lookahead=cards: the learnt worth of move `a`'s card and of its cave, this round."""
    cdef int r = min(<int>g.round, 3)
    return CPW[r][card_key(a)] + cave_move_worth(g, p, a, MW[r])

def cave_move_features(Game game, int action):
    """The counts cave_move_worth weighs for `action` at the decider's decision: N_MFEAT numbers,
    the move's kind's five set (bench/learn_card_policy.py, tests)."""
    use_tables_of(game)
    cdef double w[N_MFEAT]
    cdef int i
    out = []
    for i in range(N_MFEAT):
        memset(w, 0, sizeof(w))
        w[i] = 1.0
        out.append(cave_move_worth(&game.g.cur, game.g.decider, action, w))
    return out

def cave_move_weights():
    """The learnt worth per count of each CAVE_MOVE_FEATURES, per round."""
    return [[MW[r][i] for i in range(N_MFEAT)] for r in range(4)]

def set_cave_move_weights(weights):
    """Replace the learnt cave worths, for this process (fitting, experiments)."""
    cdef int r, i
    for r in range(4):
        for i in range(N_MFEAT):
            MW[r][i] = weights[r][i]

def card_policy_key(int action):
    """The key of a move's card in the learnt card worths (0: not a move)."""
    return card_key(action)

def card_policy_weights():
    """The learnt worth in VP of each move's card per round (4 rows of N_CKEYS)."""
    return [[CPW[r][i] for i in range(N_CKEYS)] for r in range(4)]

def set_card_policy_weights(weights):
    """Replace the learnt card worths, for this process (fitting, experiments)."""
    cdef int r, i
    for r in range(4):
        for i in range(N_CKEYS):
            CPW[r][i] = weights[r][i]

def set_policy_weights(weights):
    """Replace the learnt move policy's weights, for this process (fitting, experiments)."""
    cdef int r, i
    for r in range(4):
        for i in range(N_PFEAT):
            PW[r][i] = weights[r][i]

EVALUATIONS = {"heuristic": 0, "learned": 1}      # the cut-offs' choices of evaluate()'s modes

cdef inline double evaluate(const Core* g, int p, int mode) noexcept:
    """mode 0: the hand-tuned heuristic value; 1: the learnt evaluation; 2: the learnt move policy."""
    if mode == 1:
        return learnt_value(g, p)
    if mode == 2:
        return policy_value(g, p, False)
    return heuristic_value(g, p)

def value_features_of(Game game, int player):
    """The learnt evaluation's features of `player` at the current position (a list of floats)."""
    use_tables_of(game)
    cdef double f[N_VFEAT]
    value_features(&game.g.cur, player, f)
    return [f[i] for i in range(N_AFEAT if is_automa(&game.g.cur, player) else N_VFEAT)]

def learnt_values(Game game):
    """The learnt evaluation of the position for every seat."""
    use_tables_of(game)
    return [learnt_value(&game.g.cur, p) for p in range(game.g.cur.n_players)]

def card_value_weights():
    """(per round, a dragon's learnt worth in hand; the same on the mat), indexed by card number."""
    return ([[VWH[r][d] for d in range(N_DRAGON_ROWS)] for r in range(4)],
            [[VWM[r][d] for d in range(N_DRAGON_ROWS)] for r in range(4)])

def set_card_value_weights(hand, mat):
    """Replace the learnt per-card worths (4 rounds x card numbers 0..183), for this process."""
    cdef int r, d
    for r in range(4):
        for d in range(N_DRAGON_ROWS):
            VWH[r][d] = hand[r][d]
            VWM[r][d] = mat[r][d]

def value_weights():
    """(human weights per round, Automa weights per round) of the learnt evaluation."""
    return ([[VW[r][i] for i in range(N_VFEAT)] for r in range(4)],
            [[AW[r][i] for i in range(N_AFEAT)] for r in range(4)])

def set_value_weights(human, automa):
    """Replace the learnt evaluation's weights, for this process (fitting, experiments)."""
    cdef int r, i
    for r in range(4):
        for i in range(N_VFEAT):
            VW[r][i] = human[r][i]
        for i in range(N_AFEAT):
            AW[r][i] = automa[r][i]

cdef void final_rewards(const Core* g, const SearchParams* sp, bint finished, double* reward,
                        double* score, double* margin, double* wins) noexcept:
    """Rewards (about 0..1, a margin beyond margin_scale goes past) for every seat, the seats' (estimated) scores and margins."""
    cdef int p, q, n = g.n_players, mask = 0, winners = 0
    cdef double best_other, m, win
    cdef double v[MAXP]
    cdef int sc[N_SCORE]
    for p in range(n):
        if finished:
            score_player(g, p, sc)
            v[p] = sc[S_TOTAL]
        else:
            v[p] = evaluate(g, p, sp.evaluation)
    if finished:
        mask = winners_mask(g)
        for p in range(n):
            winners += (mask >> p) & 1
    for p in range(n):
        best_other = -1e9
        for q in range(n):
            if q != p and v[q] > best_other:
                best_other = v[q]
        m = v[p] - best_other
        score[p] = v[p]
        margin[p] = m
        if finished:
            win = (1.0 / winners) if (mask >> p) & 1 else 0.0
        else:
            win = 1.0 / (1.0 + exp(-m / 8.0))
        wins[p] = win
        # not clipped: far behind (weak rollouts early in a game) the margin still ranks the moves
        m = 0.5 + m / (2.0 * sp.margin_scale)
        reward[p] = (1.0 - sp.margin_weight) * win + sp.margin_weight * m

# ---------------------------------------------------------------------------- rollout policies
cdef inline int pick_policy(const GameData* G, int policy, uint64_t* rng) noexcept nogil:
    return policy_pick(policy, G.nopts, G.opts, rng)

ctypedef struct Autoplay:
    bint on, one_segment, skip
    int policy, pause
    uint64_t* rng
    AutoPick pick
    void* ctx

cdef bint AUTOPLAY = True       # off only to test that autoplay changes nothing but speed

def set_autoplay(bint on):
    """Autoplay rollout decisions (the default) or pause for each; the play is the same."""
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

cdef int play_turn_out(const GameData* G, int a, GameData* tmp, uint64_t* rng, int mode) noexcept:
    """tmp: `G` after action `a` and the rest of the decider's turn played by the weighted policy
    (or by the move averages: LOOK_MAST, greedy_mast with mast_lookahead); mode 1 (the learnt
    evaluation) plays on to the decider's next move decision instead. -1 on an engine error."""
    cdef int me = G.decider, r, b
    cdef Autoplay outer
    cdef bint turn_end = mode != 1
    cdef MastPick* look = LOOK_MAST if turn_end else NULL
    copy_game_to_replay(tmp, G)
    # at the turn's end: the policy plays the rest of the turn inside one replay (autoplay to the
    # segment's end: the same choices from the same random numbers as one pause per decision),
    # then stops at the next decision without listing the moves
    outer = autoplay_set(AUTOPLAY and turn_end, 1 if look == NULL else 2, 0, True, rng)
    if look != NULL:
        RUN.auto_pick = mast_autopick; RUN.auto_ctx = look
    r = apply_action(tmp, a)
    autoplay_restore(outer)
    if r < 0:
        return -1
    while not tmp.over and (tmp.nlog > 0 or (mode == 1 and (tmp.decider != me or tmp.prompt != P_MOVE))):
        if tmp.error or tmp.nopts <= 0:
            return -1
        b = pick_policy(tmp, 1, rng) if look == NULL else pick_mast(tmp, look.m, look.epsilon, rng)
        if apply_action(tmp, b) < 0:
            return -1
    return 0

cdef double turn_value(const GameData* G, int a, GameData* tmp, uint64_t* rng, int mode) noexcept:
    """The decider's value after action `a` and the rest of their turn (play_turn_out). The
    heuristic and the learnt move policy (mode 2) judge a pass where the turn ends (before the
    others and the round end); the learnt evaluation, fitted at a player's decisions, judges every
    move at the decider's next move decision (the others' turns and the round end played on),
    where a pass has given up the rest of the round."""
    cdef int me = G.decider
    if mode != 1 and A_KIND(a) == K_PASS:
        return heuristic_value(&G.cur, me) - 0.5 if mode == 0 else policy_value(&G.cur, me, True)
    if play_turn_out(G, a, tmp, rng, mode) < 0:
        return -1e9
    return evaluate(&tmp.cur, me, mode)

# greedy_key rollouts: the decisions where lookahead pays for its cost in the greedy player's
# solo score (150 deals against level 3: moves only 52.1 VP, + gain dragon 54.2, + setup discard
# 54.0, + use ability 54.5, + guild spot 55.1, + tuck card 53.6, + play dragon 53.2, + option 52.8;
# all of these 58.4; every decision 60.9 at far more lookaheads: payments, eggs, resources add little).
cdef int KEY_PROMPTS = ((1 << P_MOVE) | (1 << P_GAIN_DRAGON) | (1 << P_SETUP_DISCARD) | (1 << P_USE)
                        | (1 << P_GUILD_SPOT) | (1 << P_TUCK) | (1 << P_PLAY_DRAGON) | (1 << P_OPTION))

# tree=key: below the root only moves and the choices that shape a game get nodes (which card is
# gained or played, where a cave goes, abilities, options, guild spots, tucks, the setup); payments,
# eggs, resources, caches and the like are the rollout policy's (move averages under greedy_mast),
# so the tree reaches more of the searcher's moves for the same iterations; tree=moves: moves only
TREE_MASKS = {"all": -1,
              "key": ((1 << P_MOVE) | (1 << P_GAIN_DRAGON) | (1 << P_GAIN_CAVE) | (1 << P_PLAY_DRAGON)
                      | (1 << P_PLAY_CAVE) | (1 << P_USE) | (1 << P_OPTION) | (1 << P_GUILD_SPOT)
                      | (1 << P_TUCK) | (1 << P_SETUP_DISCARD) | (1 << P_SETUP_RESOURCES) | (1 << P_ROW)),
              "moves": 1 << P_MOVE}

cdef int pick_greedy(const GameData* G, GameData* tmp, uint64_t* rng, int prompts, int mode) noexcept:
    """The decisions whose prompt is in the `prompts` mask by one-decision lookahead on the heuristic
    value (mode 0, which plays better here than the learnt evaluation) or the learnt move policy
    (mode 2) with a little noise, the others by
    the weighted policy: much stronger play than the weighted policy at a few times its cost."""
    if not ((prompts >> G.prompt) & 1) or G.nopts == 1 or rng_below(rng, 100) < 10:
        return pick_policy(G, 1, rng)
    return best_by_lookahead(G, G.nopts, G.opts, tmp, rng, mode)

cdef int best_by_lookahead(const GameData* G, int n, const int* opts, GameData* tmp, uint64_t* rng,
                           int mode) noexcept:
    """Of the `n` options `opts` of G's decision, the one of the best turn value (lookahead)."""
    cdef int i, best = opts[0]
    cdef double v, best_v = -1e300
    # lookahead=cards judges the turn as the heuristic does, then adds the learnt worths
    cdef bint worths = mode == LOOK_CARDS and G.prompt == P_MOVE
    if mode == LOOK_TWO_PLY:
        return best_by_two_ply(G, n, opts, tmp, rng)
    for i in range(n):
        v = turn_value(G, opts[i], tmp, rng, 0 if mode == LOOK_CARDS else mode) + rng_below(rng, 1000) * 1e-4
        if worths:
            v += move_worth(&G.cur, G.decider, opts[i])
        if v > best_v:
            best_v = v
            best = opts[i]
    return best

# lookahead=two_ply: the three best moves by the heuristic one turn ahead are judged again by the
# best of the decider's next moves in the same round (a move that sets up the next one, such as an
# explore for the resources of a dragon in hand, is seen as what it makes possible)
cdef enum:
    LOOK_TWO_PLY = 3
    LOOK_CARDS = 4
    TWO_PLY_TOP = 3
cdef GameData PLY_NEXT          # after a first move, on to the decider's next move decision
cdef GameData PLY_TURN          # after a second move's turn

cdef double second_ply(const GameData* G, int a, double first, uint64_t* rng) noexcept:
    """The best heuristic value after `a` and one more move of the decider's in this round; `first`
    (the value after `a`'s turn alone) if the round or the game ends before that move."""
    cdef int me = G.decider, i
    cdef double v, best = -1e300
    if play_turn_out(G, a, &PLY_NEXT, rng, 1) < 0:
        return -1e9
    if PLY_NEXT.over or PLY_NEXT.cur.round != G.cur.round or PLY_NEXT.nopts <= 0:
        return first
    for i in range(PLY_NEXT.nopts):
        if A_KIND(PLY_NEXT.opts[i]) == K_PASS:
            continue
        v = turn_value(&PLY_NEXT, PLY_NEXT.opts[i], &PLY_TURN, rng, 0)
        if v > best:
            best = v
    return best if best > -1e299 else first

cdef int best_by_two_ply(const GameData* G, int n, const int* opts, GameData* tmp, uint64_t* rng) noexcept:
    """lookahead=two_ply's choice of `opts`: a pass if it is the best one turn ahead, else the best
    by second_ply of the TWO_PLY_TOP best moves one turn ahead."""
    cdef double v1[MAX_OPTS]
    cdef int top[TWO_PLY_TOP]
    cdef int i, j, k, nt = 0, best = 0
    cdef double v, best_v = -1e300
    for i in range(n):
        v1[i] = turn_value(G, opts[i], tmp, rng, 0) + rng_below(rng, 1000) * 1e-4
        if v1[i] > v1[best]:
            best = i
    if A_KIND(opts[best]) == K_PASS:
        return opts[best]
    # the TWO_PLY_TOP best moves that are not passes, by their one-turn value
    for i in range(n):
        if A_KIND(opts[i]) == K_PASS:
            continue
        k = nt if nt < TWO_PLY_TOP else TWO_PLY_TOP - 1
        if nt == TWO_PLY_TOP and v1[i] <= v1[top[k]]:
            continue
        while k > 0 and v1[top[k - 1]] < v1[i]:
            top[k] = top[k - 1]
            k -= 1
        top[k] = i
        if nt < TWO_PLY_TOP:
            nt += 1
    for j in range(nt):
        v = second_ply(G, opts[top[j]], v1[top[j]], rng)
        if v > best_v:
            best_v = v
            best = top[j]
    return opts[best]

# MAST (move-average sampling): the mean reward of every (player, action) seen in this search, over
# all iterations that took it; MAST rollouts play the best-rated option, with some weighted-policy
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

cdef void mast_fade(Mast* m, double keep) noexcept nogil:
    """Scale every average's weight by `keep` (its mean stays): a kept table still informs the next
    search, whose own iterations soon outweigh it."""
    cdef int i
    for i in range(MAST_SIZE):
        m.sum[i] *= keep
        m.n[i] *= keep
    m.total *= keep
    m.count *= keep
    m.trail_n = 0

cdef int mast_pick_opts(Mast* m, double epsilon, int player, int n, const int* opts, uint64_t* rng) noexcept nogil:
    """The option of the best mean reward for `player` (unseen ones: the mean of all), ties at
    random; with chance `epsilon` the weighted policy's choice instead."""
    cdef int i, k, best = -1, ties = 0
    cdef double v, best_v = -1e300, prior = m.total / m.count if m.count else 0.0
    if n == 1 or rng_below(rng, 1000) < epsilon * 1000:
        return policy_pick(1, n, opts, rng)
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
    bint note                   # a playout's pick (noted for learning), not a lookahead's

# greedy_mast with mast_lookahead: the averages a greedy lookahead plays the rest of the turn by
# (set for the length of one rollout; the core runs one search at a time)
cdef MastPick* LOOK_MAST = NULL

cdef int mast_autopick(void* ctx, int player, int n, const int* opts, uint64_t* rng) noexcept nogil:
    cdef MastPick* c = <MastPick*>ctx
    cdef int a = mast_pick_opts(c.m, c.epsilon, player, n, opts, rng)
    if c.note:
        mast_note(c.m, player, a)
    return a

LOOKAHEADS = {"heuristic": 0, "policy": 2, "two_ply": 3, "cards": LOOK_CARDS}      # what greedy rollouts' move lookahead values

ROLLOUTS = {"random": 0, "heuristic": 1, "greedy": 2, "mast": 3, "greedy_all": 4, "greedy_key": 5,
            "greedy_mast": 6}

cdef int rollout(GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m) noexcept:
    """Play on with the rollout policy; returns -1 on an engine error. Decisions that the weighted,
    random or move-average policy takes are autoplayed (no pause and replay each; the same
    choices); greedy rollouts pause only where they look ahead. Cut-off rollouts count every
    decision: no autoplay."""
    cdef Autoplay outer
    cdef MastPick mp, look
    cdef int r
    global LOOK_MAST
    if sp.rollout == 6 and sp.mast_lookahead:
        look.m = m; look.epsilon = sp.mast_epsilon; look.note = False
        LOOK_MAST = &look
    if not AUTOPLAY or sp.rollout_depth > 0 or sp.rollout == 4:
        r = rollout_steps(G, sp, rng, tmp, m)
    else:
        if sp.rollout == 3 or sp.rollout == 6:
            # move averages pick (and note) every choice the rollout does not stop for
            mp.m = m; mp.epsilon = sp.mast_epsilon; mp.note = True
            outer = autoplay_set(True, 2, (1 << P_MOVE) if sp.rollout == 6 or sp.cut_round else 0, False, rng)
            RUN.auto_pick = mast_autopick; RUN.auto_ctx = &mp
        else:
            # a round cut needs a pause where the next round starts: its first move (the human's in
            # solo) pauses under greedy autoplay; the weighted policy pauses at moves too when cutting
            outer = autoplay_set(True, 0 if sp.rollout == 0 else 1,
                                 ((1 << P_MOVE) if sp.rollout == 2 or sp.cut_round else 0)
                                 | (KEY_PROMPTS if sp.rollout == 5 else 0),
                                 False, rng)
        r = rollout_steps(G, sp, rng, tmp, m)
        autoplay_restore(outer)
    LOOK_MAST = NULL
    return r

cdef int rollout_pick(const GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m) noexcept:
    """The rollout policy's choice at G's decision."""
    if sp.rollout == 3:
        return pick_mast(G, m, sp.mast_epsilon, rng)
    if sp.rollout == 2:
        return pick_greedy(G, tmp, rng, 1 << P_MOVE, sp.lookahead)
    if sp.rollout == 4:
        return pick_greedy(G, tmp, rng, -1, sp.lookahead)
    if sp.rollout == 5:
        return pick_greedy(G, tmp, rng, KEY_PROMPTS, sp.lookahead)
    if sp.rollout == 6:
        # moves by lookahead, the choices inside them by what paid in this search so far
        if G.prompt == P_MOVE:
            return pick_greedy(G, tmp, rng, 1 << P_MOVE, sp.lookahead)
        return pick_mast(G, m, sp.mast_epsilon, rng)
    return pick_policy(G, sp.rollout, rng)

cdef int rollout_steps(GameData* G, const SearchParams* sp, uint64_t* rng, GameData* tmp, Mast* m) noexcept:
    cdef int n = 0, a, start_round = G.cur.round
    while not G.over:
        if sp.rollout_depth > 0 and n >= sp.rollout_depth:
            return 0
        if sp.cut_round and G.cur.round > start_round:
            return 0
        if G.error or G.nopts <= 0:
            return -1
        a = rollout_pick(G, sp, rng, tmp, m)
        mast_note(m, G.decider, a)
        if apply_action(G, a) < 0:
            return -1
        n += 1
    return 0

# ---------------------------------------------------------------------------- the tree
ctypedef struct Tree:
    Node* nodes
    long n
    long cap

cdef long new_node(Tree* t, int parent, int action, int player, int tree) noexcept nogil:
    cdef long i
    if t.n >= t.cap:
        return -1
    i = t.n
    t.n += 1
    memset(&t.nodes[i], 0, sizeof(Node))
    t.nodes[i].parent = parent
    t.nodes[i].child = -1
    t.nodes[i].sibling = -1
    t.nodes[i].action = action
    t.nodes[i].player = player
    t.nodes[i].tree = tree
    if parent >= 0:
        t.nodes[i].sibling = t.nodes[parent].child
        t.nodes[parent].child = i
    return i

cdef long find_child(const Tree* t, long node, int action) noexcept nogil:
    cdef long c = t.nodes[node].child
    while c >= 0:
        if t.nodes[c].action == action:
            return c
        c = t.nodes[c].sibling
    return -1

cdef inline int tree_key_of(const GameData* G, int a) noexcept nogil:
    """The tree's name for action `a`: a display take names the card shown there, not the slot, so
    one node never mixes different cards across determinizations (the slot's card is public)."""
    cdef int k = A_KIND(a), s = A_ARG(a)
    if s < DISPLAY and (k == K_DRAGON_SRC or k == K_CAVE_SRC):
        return A(k, DISPLAY + 1 + (G.cur.display_d[s] if k == K_DRAGON_SRC else G.cur.display_c[s]))
    return a

cdef int key_action(const GameData* G, int key) noexcept nogil:
    """The legal action of `G` that the tree key names, or -1."""
    cdef int i
    for i in range(G.nopts):
        if tree_key_of(G, G.opts[i]) == key:
            return G.opts[i]
    return -1

cdef long select_child(Tree* t, long node, const GameData* G, const SearchParams* sp,
                       uint64_t* rng, int* untried, int* n_untried, int* chosen) noexcept nogil:
    """Count availability of the legal children, list the untried legal actions and return the
    legal child with the best UCB1 value (-1 if none); `chosen` gets its action in this world."""
    cdef long c, best = -1
    cdef int i
    cdef double v, best_v = -1e300, c_eff = sp.c, sum_r = 0.0, sum_sq = 0.0, visits = 0.0, var
    cdef long found[MAX_OPTS]
    cdef Node* ch
    n_untried[0] = 0
    for i in range(G.nopts):
        c = find_child(t, node, tree_key_of(G, G.opts[i]))
        found[i] = c
        if c < 0:
            untried[n_untried[0]] = G.opts[i]
            n_untried[0] += 1
            continue
        ch = &t.nodes[c]
        ch.avail += 1
        sum_r += ch.reward
        sum_sq += ch.reward_sq
        visits += ch.visits
    if sp.c_spread > 0 and visits >= 2:
        # the spread of the outcomes through this decision: wide early in a game, narrow late,
        # where a fixed c would explore moves whose outcomes the playouts already tell apart
        var = sum_sq / visits - (sum_r / visits) * (sum_r / visits)
        c_eff = sp.c_spread * sqrt(var if var > 1e-6 else 1e-6)
    for i in range(G.nopts):
        c = found[i]
        if c < 0:
            continue
        ch = &t.nodes[c]
        if ch.visits == 0:
            v = 1e100 + rng_below(rng, 1000)
        else:
            v = ch.reward / ch.visits + c_eff * sqrt(log(<double>ch.avail) / ch.visits)
        if v > best_v:
            best_v = v
            best = c
            chosen[0] = G.opts[i]
    return best

cdef bint decided(const Tree* t, long root, const GameData* G, long remaining) noexcept nogil:
    """True when the most-visited legal child leads the runner-up by more than `remaining` visits,
    so the final choice by visits can no longer change (untried moves count as 0 visits)."""
    cdef long c = t.nodes[root].child
    cdef int first = 0, second = 0, v
    while c >= 0:
        if key_action(G, t.nodes[c].action) < 0:
            c = t.nodes[c].sibling
            continue
        v = t.nodes[c].visits
        if v > first:
            second = first
            first = v
        elif v > second:
            second = v
        c = t.nodes[c].sibling
    return first - second > remaining

cdef int children_count(const Tree* t, long node) noexcept nogil:
    cdef int n = 0
    cdef long c = t.nodes[node].child
    while c >= 0:
        n += 1
        c = t.nodes[c].sibling
    return n

ctypedef struct SearchResult:
    long iterations
    long nodes
    double seconds
    int errors

cdef SearchResult run_search(const GameData* root, int me, const SearchParams* sp, Tree* t,
                             GameData* work, GameData* scratch, GameData* pool, int* roots,
                             long reused, Mast* mast, object progress) noexcept:
    """The search. roots[o] is the root node of observer o's tree (o = 0 single-observer);
    `reused` >= 0 is a single-observer root kept from an earlier search (its statistics go on)."""
    cdef SearchResult res
    cdef uint64_t rng = sp.seed
    cdef double t0 = now_s()
    cdef double reward[MAXP]
    cdef double score[MAXP]
    cdef double margin[MAXP]
    cdef double wins[MAXP]
    cdef long path[MAX_PATH]
    cdef long cur[MAXP]
    cdef int untried[MAX_OPTS]
    cdef int n_untried, depth, i, o, dec, a, key = -1, chosen = -1, n_obs, allowed
    cdef long node, ch, it = 0, remaining
    cdef double elapsed, r
    cdef bint expanded, at_root
    memset(&res, 0, sizeof(res))
    rng_next(&rng)
    n_obs = root.cur.n_players if sp.observers == 2 else 1
    if reused >= 0 and n_obs == 1:
        roots[0] = reused
    else:
        for o in range(n_obs):
            roots[o] = new_node(t, -1, -1, -1, o)
    if sp.determinizations > 0:
        for i in range(sp.determinizations):
            copy_game(&pool[i], root)
            determinize(&pool[i], me, &rng)
    while True:
        if sp.iterations > 0 and it >= sp.iterations:
            break
        if sp.seconds > 0 and (it & 15) == 0 and now_s() - t0 >= sp.seconds:
            break
        if progress is not None and (it & 1023) == 0 and it > 0:
            progress(it, now_s() - t0)
            use_printing(root.snap.printing)     # the callback may have played another printing
        if sp.iterations <= 0 and sp.seconds <= 0:
            break
        if sp.stop_early and sp.final_by == 0 and (it & 63) == 0 and it > 0:
            elapsed = now_s() - t0
            remaining = sp.iterations - it if sp.iterations > 0 else 1L << 40
            if sp.seconds > 0 and elapsed > 0:
                remaining = min(remaining, <long>(it / elapsed * (sp.seconds - elapsed)) + 1)
            if decided(t, roots[me if n_obs > 1 else 0], root, remaining):
                break
        it += 1
        if mast != NULL:
            mast.trail_n = 0
        if sp.determinizations > 0:
            copy_game(work, &pool[rng_below(&rng, sp.determinizations)])
        else:
            copy_game(work, root)
            if determinize(work, me, &rng) < 0:
                res.errors += 1
                continue
        for o in range(n_obs):
            cur[o] = roots[o]
        depth = 0
        expanded = False
        at_root = True
        while not work.over and depth < MAX_PATH - 1:
            dec = work.decider
            if not at_root and not ((sp.tree_mask >> work.prompt) & 1):
                # tree=key / moves: a decision below the root with no node is the rollout policy's
                a = rollout_pick(work, sp, &rng, scratch, mast)
                mast_note(mast, dec, a)
                if apply_action(work, a) < 0:
                    res.errors += 1
                    break
                continue
            at_root = False
            o = dec if n_obs > 1 else 0
            node = cur[o]
            ch = select_child(t, node, work, sp, &rng, untried, &n_untried, &chosen)
            allowed = 1 << 30
            if sp.pw_c > 0:
                allowed = <int>(sp.pw_c * cpow(t.nodes[node].visits + 1.0, sp.pw_alpha)) + 1
            if not expanded and n_untried > 0 and (ch < 0 or children_count(t, node) < allowed):
                if sp.expand and n_untried > 1:
                    a = expansion_pick(work, sp, untried, n_untried, scratch, &rng, mast)
                else:
                    a = untried[rng_below(&rng, n_untried)]
                ch = new_node(t, node, tree_key_of(work, a), dec, o)
                if ch >= 0:
                    t.nodes[ch].avail = 1
                    expanded = True
            elif ch < 0:
                a = untried[rng_below(&rng, n_untried)]
            else:
                a = chosen
            if n_obs > 1:
                key = tree_key_of(work, a)     # before the move changes the display
            mast_note(mast, dec, a)
            if apply_action(work, a) < 0:
                res.errors += 1
                break
            if ch < 0:
                break                       # tree full: continue as a rollout
            path[depth] = ch
            depth += 1
            if n_obs > 1:
                # every observer's tree follows the move; others see only its kind when hidden
                for i in range(n_obs):
                    if i != o:
                        node = find_child(t, cur[i], key)
                        if node < 0:
                            node = new_node(t, cur[i], key, dec, i)
                        cur[i] = node if node >= 0 else cur[i]
                cur[o] = ch
            else:
                cur[0] = ch
            if expanded:
                break
        if work.error:
            res.errors += 1
            continue
        if rollout(work, sp, &rng, scratch, mast) < 0:
            res.errors += 1
            continue
        final_rewards(&work.cur, sp, work.over, reward, score, margin, wins)
        if mast != NULL:
            mast_learn(mast, reward)
        for i in range(depth):
            # every node keeps the searcher's outcomes too: a reused subtree's children report them
            node = path[i]
            t.nodes[node].visits += 1
            r = reward[t.nodes[node].player]
            t.nodes[node].reward += r
            t.nodes[node].reward_sq += r * r
            t.nodes[node].win_sum += wins[me]
            t.nodes[node].score_sum += score[me]
            t.nodes[node].score_sq += score[me] * score[me]
            t.nodes[node].margin_sum += margin[me]
            t.nodes[node].margin_sq += margin[me] * margin[me]
        for o in range(n_obs):
            t.nodes[roots[o]].visits += 1
    res.iterations = it
    res.nodes = t.n
    res.seconds = now_s() - t0
    return res


cdef int expansion_pick(const GameData* G, const SearchParams* sp, const int* untried, int n,
                        GameData* tmp, uint64_t* rng, Mast* m) noexcept:
    """expand=policy: the untried action the rollout policy would prefer, so that a node's first
    visits play as a playout would rather than at random (greedy_mast: moves by lookahead, the
    choices inside them by the move averages; mast: all by the averages; other greedy rollouts:
    moves by lookahead, the rest at random; random and weighted rollouts: at random)."""
    if G.prompt == P_MOVE and sp.rollout != 0 and sp.rollout != 1 and sp.rollout != 3:
        return best_by_lookahead(G, n, untried, tmp, rng, sp.lookahead)
    if m != NULL:
        return mast_pick_opts(m, 0.0, G.decider, n, untried, rng)
    return untried[rng_below(rng, n)]


cdef long compact_subtree(Tree* t, long keep) noexcept:
    """Keep only the subtree under node `keep`, moved to the front of the pool (breadth first,
    children in their order); returns its new index (0), or -1 when out of memory."""
    cdef long n = 0, i, c, prev, j
    cdef Node* out = <Node*>malloc(t.cap * sizeof(Node))
    cdef long* old_of = <long*>malloc(t.cap * sizeof(long))
    if out == NULL or old_of == NULL:
        free(out)
        free(old_of)
        return -1
    out[0] = t.nodes[keep]
    out[0].parent = -1
    out[0].sibling = -1
    old_of[0] = keep
    n = 1
    i = 0
    while i < n:
        c = t.nodes[old_of[i]].child
        out[i].child = -1
        prev = -1
        while c >= 0:
            j = n
            n += 1
            out[j] = t.nodes[c]
            out[j].parent = i
            out[j].sibling = -1
            old_of[j] = c
            if prev < 0:
                out[i].child = j
            else:
                out[prev].sibling = j
            prev = j
            c = t.nodes[c].sibling
        i += 1
    free(t.nodes)
    free(old_of)
    t.nodes = out
    t.n = n
    return 0


cdef class SearchTree:
    """A search tree kept between one player's decisions: the next search starts from the subtree
    of the moves played since (single-observer only). It holds the true state it was grown from,
    so a search given the moves since checks they lead to the new position before reusing it."""
    cdef Tree t
    cdef GameData* state
    cdef long root
    cdef int me
    cdef int mask               # the tree_mask it was grown with
    cdef Mast* mast             # move averages kept with the tree (mast_keep > 0)

    def __cinit__(self):
        self.mast = NULL
        self.t.nodes = NULL
        self.t.n = 0
        self.t.cap = 0
        self.state = NULL
        self.root = -1
        self.me = -1
        self.mask = 0

    def __dealloc__(self):
        free(self.t.nodes)
        free(self.state)
        free(self.mast)

    def clear(self):
        """Forget the tree (a new game)."""
        self.root = -1
        self.t.n = 0
        if self.mast != NULL:
            memset(self.mast, 0, sizeof(Mast))

    @property
    def nodes(self):
        return self.t.n

    cdef long follow(self, const GameData* now, int me, list since, int mask) except -2:
        """The reusable root for position `now` reached by `since` from the stored root, or -1.
        Below the stored root, decisions whose prompt is not in `mask` have no node (tree=key)."""
        cdef GameData* tmp
        cdef long node = self.root
        cdef int a, k
        cdef bint first = True, step
        if node < 0 or self.state == NULL or self.me != me or self.mask != mask:
            return -1
        if not ((mask >> now.prompt) & 1):
            return -1                   # no node names this decision: its choices start afresh
        tmp = <GameData*>malloc(sizeof(GameData))
        if tmp == NULL:
            return -1
        copy_game(tmp, self.state)
        try:
            for a in since:
                k = tree_key_of(tmp, a)
                step = first or ((mask >> tmp.prompt) & 1)
                first = False
                if node < 0 or apply_action(tmp, a) < 0:
                    return -1
                if step:
                    node = find_child(&self.t, node, k)
            if node < 0 or tmp.over or tmp.nlog != now.nlog \
                    or memcmp(&tmp.snap, &now.snap, core_bytes(&now.snap)) != 0 \
                    or memcmp(tmp.log, now.log, now.nlog * sizeof(int)) != 0:
                return -1
        finally:
            free(tmp)
        return compact_subtree(&self.t, node)


def search(Game game, dict params, progress=None, SearchTree tree=None, since=None):
    """Search from `game`'s current decision for its decider. Returns the root statistics:
    {"player", "iterations", "nodes", "seconds", "errors", "reused", "children": [{"action",
    "visits", "avail", "reward", "score_sum", "score_sq", "margin_sum", "margin_sq",
    "continuation"}]}. `progress(iterations, seconds)` is called every 1024 iterations when given.

    With `tree`, the search continues the subtree reached by the actions `since` (every decision
    taken, by anyone, after `tree`'s last search) when they lead from its stored root to this
    position, and keeps the tree for the next call; otherwise it starts afresh."""
    use_tables_of(game)
    cdef SearchParams sp
    cdef Tree local
    cdef Tree* t = &local
    cdef GameData* work
    cdef GameData* scratch
    cdef GameData* pool = NULL
    cdef Mast* mast = NULL
    cdef int roots[MAXP]
    cdef SearchResult res
    cdef int me = game.g.decider, o, a
    cdef long c, k, reused = -1, reused_visits = 0
    cdef bint uses_mast
    if game.g.over:
        raise ValueError("the game is over")
    local.nodes = NULL
    local.n = 0
    local.cap = 0
    memset(&sp, 0, sizeof(sp))
    sp.c = params.get("c", 0.7)
    sp.c_spread = params.get("c_spread", 0.0)
    sp.iterations = params.get("iterations", 0)
    sp.seconds = params.get("seconds", 0.0)
    sp.rollout = ROLLOUTS[params.get("rollout", "random")]
    sp.mast_epsilon = params.get("mast_epsilon", 0.3)
    sp.mast_keep = params.get("mast_keep", 0.0)
    sp.mast_lookahead = params.get("mast_lookahead", 0)
    sp.rollout_depth = params.get("rollout_depth", 0)
    sp.cut_round = {"end": 0, "round": 1}[params.get("cut", "end")]
    sp.evaluation = EVALUATIONS[params.get("evaluation", "heuristic")]
    sp.lookahead = LOOKAHEADS[params.get("lookahead", "heuristic")]
    sp.expand = {"random": 0, "policy": 1}[params.get("expand", "random")]
    sp.tree_mask = TREE_MASKS[params.get("tree", "all")]
    sp.margin_weight = params.get("margin_weight", 0.8)
    sp.margin_scale = params.get("margin_scale", 40.0)
    sp.pw_c = params.get("pw_c", 0.0)
    sp.pw_alpha = params.get("pw_alpha", 0.5)
    sp.final_by = {"visits": 0, "mean": 1}[params.get("final", "visits")]
    sp.determinizations = params.get("determinizations", 0)
    sp.max_nodes = params.get("max_nodes", 2000000)
    sp.observers = {"single": 1, "multiple": 2}[params.get("observers", "single")]
    sp.stop_early = bool(params.get("stop_early", False))
    sp.seed = <uint64_t>(int(params.get("seed", 0)) & 0xFFFFFFFFFFFFFFFF)
    if sp.iterations <= 0 and sp.seconds <= 0:
        raise ValueError("a search needs iterations or seconds")
    if tree is not None:
        t = &tree.t
        if sp.observers == 1 and since is not None and tree.t.cap == sp.max_nodes:
            reused = tree.follow(game.g, me, list(since), sp.tree_mask)
        if reused < 0:
            t.n = 0
        else:
            reused_visits = t.nodes[reused].visits
        if tree.state == NULL:
            tree.state = <GameData*>malloc(sizeof(GameData))
            if tree.state == NULL:
                raise MemoryError()
    if t.nodes == NULL or t.cap != sp.max_nodes:
        free(t.nodes)
        t.cap = sp.max_nodes
        t.n = 0
        t.nodes = <Node*>malloc(t.cap * sizeof(Node))
    work = <GameData*>malloc(sizeof(GameData))
    scratch = <GameData*>malloc(sizeof(GameData))
    uses_mast = sp.rollout == 3 or sp.rollout == 6
    if uses_mast and tree is not None and sp.mast_keep > 0:
        # the averages go on with the tree they were learnt beside; a fresh tree, fresh averages
        if tree.mast == NULL:
            tree.mast = <Mast*>calloc(1, sizeof(Mast))
        elif reused < 0:
            memset(tree.mast, 0, sizeof(Mast))
        else:
            mast_fade(tree.mast, sp.mast_keep)
        mast = tree.mast
        if mast == NULL:
            free(work); free(scratch)
            raise MemoryError()
    elif uses_mast:
        mast = <Mast*>calloc(1, sizeof(Mast))
        if mast == NULL:
            free(work); free(scratch)
            raise MemoryError()
    if sp.determinizations > 0:
        pool = <GameData*>malloc(sp.determinizations * sizeof(GameData))
    if t.nodes == NULL or work == NULL or scratch == NULL or (sp.determinizations > 0 and pool == NULL):
        free(work); free(scratch); free(pool)
        if tree is None or mast != tree.mast:
            free(mast)
        free(t.nodes)
        t.nodes = NULL
        t.cap = 0
        raise MemoryError()
    try:
        res = run_search(game.g, me, &sp, t, work, scratch, pool, roots, reused, mast, progress)
        o = me if sp.observers == 2 else 0
        children = []
        c = t.nodes[roots[o]].child
        while c >= 0:
            a = key_action(game.g, t.nodes[c].action)
            if a < 0:                              # grown in a reused subtree's other worlds
                c = t.nodes[c].sibling
                continue
            cont = []
            k = _best_child(t, c, sp.final_by)
            while k >= 0 and t.nodes[k].player == me and len(cont) < 30:
                cont.append(t.nodes[k].action)
                k = _best_child(t, k, sp.final_by)
            children.append({"action": a, "visits": t.nodes[c].visits,
                             "avail": t.nodes[c].avail, "reward": t.nodes[c].reward, "win_sum": t.nodes[c].win_sum,
                             "score_sum": t.nodes[c].score_sum, "score_sq": t.nodes[c].score_sq,
                             "margin_sum": t.nodes[c].margin_sum, "margin_sq": t.nodes[c].margin_sq,
                             "continuation": cont})
            c = t.nodes[c].sibling
        if tree is not None:
            copy_game(tree.state, game.g)
            tree.root = roots[0] if sp.observers == 1 else -1
            tree.me = me
            tree.mask = sp.tree_mask
        return {"player": me, "iterations": res.iterations, "nodes": res.nodes,
                "seconds": res.seconds, "errors": res.errors, "reused": reused_visits,
                "children": children, "node_bytes": sizeof(Node)}
    finally:
        if tree is None:
            free(t.nodes)
        if tree is None or mast != tree.mast:
            free(mast)
        free(work)
        free(scratch)
        free(pool)


cdef long _best_child(const Tree* t, long node, int final_by) noexcept nogil:
    cdef long c = t.nodes[node].child, best = -1
    cdef double v, best_v = -1
    while c >= 0:
        if t.nodes[c].visits > 0:
            v = t.nodes[c].visits if final_by == 0 else t.nodes[c].reward / t.nodes[c].visits
            if v > best_v:
                best_v = v
                best = c
        c = t.nodes[c].sibling
    return best


def heuristic_values(Game game):
    """The heuristic value of the position for every seat (score now + potential)."""
    use_tables_of(game)
    return [heuristic_value(&game.g.cur, p) for p in range(game.g.cur.n_players)]


def tree_key(Game game, int action):
    """The search tree's name for `action` at `game`'s decision: the action itself, except that a
    display take names the card shown in its slot (payload 4 + card)."""
    use_tables_of(game)
    return tree_key_of(game.g, action)


def greedy_action(Game game, seed=0, evaluation="heuristic"):
    """One-decision lookahead: the legal action after which the decider's value (at the end of
    their turn, averaged over a few policy completions) is highest; `evaluation` is "heuristic",
    "learned" (at their next move decision) or "policy" (the learnt move policy)."""
    use_tables_of(game)
    cdef GameData* tmp = <GameData*>malloc(sizeof(GameData))
    cdef int i, k, best = -1
    cdef double v, best_v = -1e300
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef int mode = {**EVALUATIONS, "policy": 2}[evaluation]
    rng_next(&rng)
    if game.g.over:
        free(tmp)
        raise ValueError("the game is over")
    try:
        for i in range(game.g.nopts):
            v = 0
            for k in range(GREEDY_SAMPLES):
                v += turn_value(game.g, game.g.opts[i], tmp, &rng, mode)
            v = v / GREEDY_SAMPLES + rng_below(&rng, 1000) * 1e-6
            if v > best_v:
                best_v = v
                best = game.g.opts[i]
        if best_v < -1e8:
            raise EngineError(_error_text(tmp.error))
        return best
    finally:
        free(tmp)


def move_features(Game game, seed=0):
    """[(action, features)] for every legal action at the decider's decision: the learnt move
    policy's features (POLICY_FEATURES) where the decider's turn ends after it, the rest of the
    turn played once by the weighted policy, as a greedy lookahead does (bench/learn_policy.py)."""
    use_tables_of(game)
    cdef GameData* tmp = <GameData*>malloc(sizeof(GameData))
    cdef double f[N_PFEAT]
    cdef int i, k, a, me = game.g.decider
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    rng_next(&rng)
    if tmp == NULL:
        raise MemoryError()
    try:
        if game.g.over:
            raise ValueError("the game is over")
        out = []
        for i in range(game.g.nopts):
            a = game.g.opts[i]
            if A_KIND(a) == K_PASS:
                policy_features(&game.g.cur, me, True, f)
            else:
                if play_turn_out(game.g, a, tmp, &rng, 2) < 0:
                    raise EngineError(_error_text(tmp.error))
                policy_features(&tmp.cur, me, False, f)
            out.append((a, [f[k] for k in range(N_PFEAT)]))
        return out
    finally:
        free(tmp)


def move_values(Game game, seed=0):
    """[(action, value)] for every legal action at the decider's decision: the heuristic's value
    where the decider's turn ends after it (the rest of the turn played once by the weighted policy),
    as greedy playouts' move lookahead judges it (bench/learn_card_policy.py)."""
    use_tables_of(game)
    cdef GameData* tmp = <GameData*>malloc(sizeof(GameData))
    cdef int i
    cdef double v
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    rng_next(&rng)
    if tmp == NULL:
        raise MemoryError()
    try:
        if game.g.over:
            raise ValueError("the game is over")
        out = []
        for i in range(game.g.nopts):
            v = turn_value(game.g, game.g.opts[i], tmp, &rng, 0)
            if v <= -1e9:
                raise EngineError(_error_text(tmp.error))
            out.append((game.g.opts[i], v))
        return out
    finally:
        free(tmp)


def playout_scores(Game game, policy="greedy", seed=0, lookahead="heuristic"):
    """Every seat's final score after playing the game out from here with a rollout policy, as the
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
    if policy not in ROLLOUTS or "mast" in policy:
        raise ValueError(f"no playout policy {policy!r}: choose one of "
                         + ", ".join(r for r in ROLLOUTS if "mast" not in r))
    memset(&sp, 0, sizeof(sp))
    sp.rollout = ROLLOUTS[policy]
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
        if rollout(G, &sp, &rng, tmp, NULL) < 0:
            raise EngineError(_error_text(G.error))
        out = []
        for p in range(G.cur.n_players):
            score_player(&G.cur, p, sc)
            out.append(sc[S_TOTAL])
        return out
    finally:
        free(G)
        free(tmp)
