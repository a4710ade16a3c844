# Position values for the search: the hand-tuned heuristic, the learnt card worths that greedy
# lookahead adds (lookahead=cards), and the rewards of a finished playout. The numbers are data
# (advisor/data/heuristic.toml, card-worths.toml), installed by advisor.search.data.

# ---------------------------------------------------------------------------- the heuristic
# The value of what a player holds during play, beyond the VP already on the board: each feature is
# worth (base + per_round * rounds still to play, this one included). Tuned on the greedy player's
# solo score (bench/tune_heuristic.py writes advisor/data/heuristic.toml).
HEURISTIC_FEATURES = ("coins", "hand_dragons", "hand_caves", "resources", "guild_markers",
                      "open_spaces", "if_activated", "end_game", "once_per_round", "objective_now",
                      "end_game_now", "hand_vp", "affordable_vp")
cdef enum:
    N_HFEAT = 13

def heuristic_weights():
    """{feature: (base, per_round)} of the heuristic value."""
    need_search_data()
    return {f: (HW_BASE[i], HW_ROUND[i]) for i, f in enumerate(HEURISTIC_FEATURES)}

def set_heuristic_weights(dict weights):
    """Change some features' (base, per_round) weights, for this process (tuning, tests)."""
    need_search_data()
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

# ---------------------------------------------------------------------------- card worths
# lookahead=cards: the heuristic's turn value plus a learnt worth (in VP) of the move's own card by
# round: the dragon enticed, the cave card excavated, the cave explored or the pass, fitted as a
# conditional logit to the search's own move choices with the heuristic value as a feature
# (bench/fit_card_worths.py), so it says what the heuristic misses about each card; fitted on
# solo games, it applies to whoever decides a move
cdef enum:
    CK_CAVE = N_DRAGON_CARDS + 1
    CK_EXPLORE = CK_CAVE + N_CAVE_CARDS + 1
    CK_PASS = CK_EXPLORE + NCAVES
    N_CKEYS = CK_PASS + 1

cdef inline int card_key(int a) noexcept nogil:
    """The card a move names (its key in CARD_WORTHS), 0 for anything else."""
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
    return CARD_WORTHS[r][card_key(a)] + cave_move_worth(g, p, a, CAVE_WORTHS[r])

def cave_move_features(Game game, int action):
    """The counts cave_move_worth weighs for `action` at the decider's decision: N_MFEAT numbers,
    the move's kind's five set (bench/fit_card_worths.py, tests)."""
    use_tables_of(game)
    cdef double w[N_MFEAT]
    cdef int i
    out = []
    for i in range(N_MFEAT):
        memset(w, 0, sizeof(w))
        w[i] = 1.0
        out.append(cave_move_worth(&game.g.cur, game.g.decider, action, w))
    return out

def card_worth_key(int action):
    """The key of a move's card in the learnt card worths (0: not a move)."""
    return card_key(action)

def card_worths():
    """(card worths: 4 rounds x N_CKEYS, cave worths: 4 rounds x CAVE_MOVE_FEATURES), in VP."""
    need_search_data()
    return ([[CARD_WORTHS[r][i] for i in range(N_CKEYS)] for r in range(4)],
            [[CAVE_WORTHS[r][i] for i in range(N_MFEAT)] for r in range(4)])

def _rows(rows, int width, str name):
    a = np.asarray(rows, dtype=np.float64)
    if a.shape != (4, width) or not np.isfinite(a).all():
        raise ValueError(f"{name}: expected 4 rounds of {width} finite numbers, got shape {a.shape}")
    return a

def set_card_worths(cards=None, caves=None):
    """Replace the learnt card worths and/or cave worths, for this process (fitting, tests)."""
    cdef int r, i
    need_search_data()
    if cards is not None:
        c = _rows(cards, N_CKEYS, "card worths")
        for r in range(4):
            for i in range(N_CKEYS):
                CARD_WORTHS[r][i] = c[r, i]
    if caves is not None:
        v = _rows(caves, N_MFEAT, "cave worths")
        for r in range(4):
            for i in range(N_MFEAT):
                CAVE_WORTHS[r][i] = v[r, i]

# ---------------------------------------------------------------------------- the search's data

def install_search_data(dict heuristic, cards, caves):
    """Copy the search's learnt numbers into the core (advisor.search.data reads them from
    advisor/data/): heuristic {feature: (base, per_round)} for every feature, the card worths
    (4 x N_CKEYS) and the cave worths (4 x CAVE_MOVE_FEATURES)."""
    global SEARCH_DATA
    if set(heuristic) != set(HEURISTIC_FEATURES):
        raise ValueError("heuristic weights: expected the features " + ", ".join(HEURISTIC_FEATURES))
    SEARCH_DATA = True
    set_heuristic_weights(heuristic)
    set_card_worths(cards, caves)

cdef int need_search_data() except -1:
    """Install the search's data on first use (by the package's installer, as the card tables)."""
    if not SEARCH_DATA and SEARCH_DATA_INSTALLER is not None:
        SEARCH_DATA_INSTALLER()
    if not SEARCH_DATA:
        raise RuntimeError("the search's learnt numbers are not installed (import advisor installs them)")
    return 0

# ---------------------------------------------------------------------------- rewards
cdef inline double reward_of(double win, double margin, double margin_weight) noexcept nogil:
    """The search's reward for a share of the win and a final margin over the best other seat."""
    # not clipped: far behind (weak playouts early in a game) the margin still ranks the moves
    return (1.0 - margin_weight) * win + margin_weight * (0.5 + margin / (2.0 * MARGIN_SCALE))


cdef inline double lead(const double* v, int n, int p) noexcept nogil:
    """Seat p's margin over the best of the other seats' scores `v`."""
    cdef int q
    cdef double best_other = -1e9
    for q in range(n):
        if q != p and v[q] > best_other:
            best_other = v[q]
    return v[p] - best_other


cdef void mix_judged(int n, const SearchParams* sp, const double* judged, double* reward) noexcept:
    """Every seat's reward (by seat) moved to a share `sp.judge` of the judge's: the reward of the
    final scores it foresees (`judged`), a foreseen margin's win share by a logistic curve."""
    cdef int p
    cdef double m, win
    for p in range(n):
        m = lead(judged, n, p)
        win = 1.0 / (1.0 + exp(-m / JUDGED_WIN_SCALE))
        reward[p] = (1.0 - sp.judge) * reward[p] + sp.judge * reward_of(win, m, sp.margin_weight)


cdef void final_rewards(const Core* g, const SearchParams* sp, double* reward, double* score,
                        double* margin, double* wins, int* parts) noexcept:
    """Every seat's reward for a finished game (about 0..1; a margin beyond MARGIN_SCALE goes
    past), final score and margin over the best other seat, and share of the win; `parts` (when
    not NULL) gets seat p's score by category at p * N_SCORE."""
    cdef int p, n = g.n_players, mask = winners_mask(g), winners = 0
    cdef double m
    cdef double v[MAXP]
    cdef int sc[N_SCORE]
    for p in range(n):
        score_player(g, p, sc)
        v[p] = sc[S_TOTAL]
        if parts != NULL:
            memcpy(parts + p * N_SCORE, sc, N_SCORE * sizeof(int))
        winners += (mask >> p) & 1
    for p in range(n):
        m = lead(v, n, p)
        score[p] = v[p]
        margin[p] = m
        wins[p] = (1.0 / winners) if (mask >> p) & 1 else 0.0
        reward[p] = reward_of(wins[p], m, sp.margin_weight)
