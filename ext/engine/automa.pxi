# The Automa: the solo opponent (seat 1 of a 2-seat game). She decides nothing: each of her turns
# reveals the next card of her shuffled decision deck. Her card data and every assumption about
# her turns come from advisor/data/automa.toml (RULES R_AUTOMA_*, AUTOMA_CARDS, AUTOMA_LEVELS).

cdef enum:
    AUTOMA_SEAT = 1
    RAVEL_FIRST_LEVEL = 4          # automa_level 1-3: levels 1-3; 4-6: Ravel levels 1-3

cdef inline bint is_automa(const Core* g, int p) noexcept nogil:
    return g.automa_level != 0 and p == AUTOMA_SEAT

cdef inline bint is_ravel(const Core* g) noexcept nogil:
    return g.automa_level >= RAVEL_FIRST_LEVEL

cdef void automa_new_round_deck(Core* g) noexcept nogil:
    """Her 8 cards of the level, shuffled; the last `set_aside` of them are not played this round."""
    cdef int i
    for i in range(8):
        g.a_deck[i] = AUTOMA_LEVELS[g.automa_level - 1][i]
    shuffle_u8(g.a_deck, 8, &g.rng)
    g.a_next = 0
    g.a_playable = 8 - RULES[R_AUTOMA_SET_ASIDE]

cdef int human_cave_depths(const Core* g, int which) noexcept nogil:
    """Ravel: cave cards in the human's deepest (0), shallowest (1) cave, or the deepest + 1 (2)."""
    cdef int c, k, n, best = -1, worst = 99
    for c in range(NCAVES):
        n = 0
        for k in range(1, NCOLS):
            if g.p[0].cave[c][k]:
                n += 1
        if n > best:
            best = n
        if n < worst:
            worst = n
    if which == 0:
        return best
    if which == 1:
        return worst
    return best + 1

cdef void automa_brown(Core* g, int card) noexcept nogil:
    """On a brown space: the display dragon and/or cave in the printed slot, and/or a marker on the
    k-th guild ability that still has a free spot."""
    cdef int slot = AUTOMA_CARDS[card][AC_BROWN_DRAGON], k = AUTOMA_CARDS[card][AC_BROWN_ABILITY]
    cdef int a, j, free_seen = 0, d
    if slot and g.display_d[slot - 1]:
        d = g.display_d[slot - 1]
        g.display_d[slot - 1] = 0
        bit_set(g.public_d, d)
        g.a_dragons += 1
    slot = AUTOMA_CARDS[card][AC_BROWN_CAVE]
    if slot and g.display_c[slot - 1]:
        bit_set(g.public_c, g.display_c[slot - 1])
        g.display_c[slot - 1] = 0
        g.a_caves += 1
    if k == 0 or g.a_markers == 0:
        return
    for a in range(4):
        for j in range(GUILD_TILES[g.guild_tile][a][1]):
            if g.spot[a][j] == 0:
                free_seen += 1
                if free_seen == k:
                    g.spot[a][j] = AUTOMA_SEAT + 1
                    g.p[AUTOMA_SEAT].tile_markers[a] += 1
                    g.a_markers -= 1
                    return
                break
    if is_ravel(g):
        # Ravel: with no such ability free, her marker goes on the fixed-VP spot
        g.fixed_count += 1
        g.a_fixed_vp += RULES[R_FIXED_VP_1 + (g.fixed_count - 1 if g.fixed_count <= 3 else 2)]
        g.a_markers -= 1

cdef void automa_turn(Core* g) noexcept nogil:
    cdef Player* A = &g.p[AUTOMA_SEAT]
    cdef int card, steps, s, i, r = g.round
    if g.a_next >= g.a_playable:
        A.passed = 1
        return
    card = automa_card(g)
    if g.a_next >= g.a_playable and AUTOMA_CARDS[card][AC_PASSES]:
        A.passed = 1            # her last playable card shows the pass icon: she passes instead
        return
    if AUTOMA_CARDS[card][AC_REFRESH]:
        for i in range(DISPLAY):
            if g.display_d[i]:
                discard_d(g, g.display_d[i])
                g.display_d[i] = 0
            if g.display_c[i]:
                discard_c(g, g.display_c[i])
                g.display_c[i] = 0
        refill_display(g)
    s = g.obj_coins[r] + AUTOMA_CARDS[card][AC_OBJECTIVE]
    g.obj_coins[r] = s if s > 0 else 0
    steps = AUTOMA_CARDS[card][AC_GUILD_R1 + r]
    if steps < 0:
        steps = human_cave_depths(g, -1 - steps)
    for s in range(steps):
        A.guild_steps += 1
        if GUILD_TRACK[A.guild_steps % GUILD_SPACES] < 0:
            g.a_last_brown = A.guild_steps
            automa_brown(g, card)
    if g.a_next >= g.a_playable:
        A.passed = 1            # no playable card left this round

cdef int automa_objective_count(const Core* g) noexcept nogil:
    cdef int t = g.objective_tile[g.round], side = g.objective_side[g.round], n
    if not AUTOMA_OBJECTIVES[t][side][0]:
        return 0
    n = AUTOMA_OBJECTIVES[t][side][1 + g.round] + g.obj_coins[g.round]
    return n if n < RULES[R_AUTOMA_OBJECTIVE_CAP] else RULES[R_AUTOMA_OBJECTIVE_CAP]

cdef void automa_score(const Core* g, int* out) noexcept nogil:
    cdef int lvl = (g.automa_level - 1) % 3, r
    out[S_DRAGONS] = g.a_dragons * RULES[R_AUTOMA_DRAGON_VP_1 + lvl]
    out[S_CAVES] = g.a_caves * RULES[R_AUTOMA_CAVE_VP]
    out[S_GUILD] = g.p[AUTOMA_SEAT].guild_steps - g.a_last_brown + g.a_fixed_vp
    for r in range(4):
        out[S_OBJECTIVES] += g.p[AUTOMA_SEAT].obj_vp[r]
