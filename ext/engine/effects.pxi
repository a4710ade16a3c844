# The effect interpreter: runs the compiled programs of the effect language (docs/effect-language.md).
# Every ability runs in a Ctx holding who owns it, where "here" is, and the ability's registers.

cdef enum:
    MAX_DEPTH = 8           # nested abilities (activate, guild chains); guards recursion
    MAX_GAINED = 16

ctypedef struct Ctx:
    int owner
    int active              # whose turn it is
    int cave, col           # "here"; col = -1 when the ability is not on a space
    int depth
    int chain               # bit per mat space whose ability runs in this activation chain
    int gained_res[NRES]
    int gained_d[MAX_GAINED]
    int n_gained_d
    int revealed            # the revealed dragon card, 0 = none
    bint revealed_open      # still on the table (not taken, tucked or discarded)
    int picked
    int tucked              # the last card tucked
    int vp                  # end-game VP

cdef inline int R(int i, int col) noexcept nogil:
    return PROGRAM[i][col]

cdef inline int here_dragon(const Core* g, const Ctx* x) noexcept nogil:
    if x.col < 0 or x.cave < 0:
        return 0
    return g.p[x.owner].dragon[x.cave][x.col]

cdef int run_ability(Core* g, int owner, int active, int cave, int col, int entry, int depth,
                     int asked_by) noexcept:
    """Run one ability's program (of the card or rule `asked_by`, asks()); returns the end-game VP
    it scored."""
    return run_ability_in(g, owner, active, cave, col, entry, depth, 0, asked_by)

cdef int run_ability_in(Core* g, int owner, int active, int cave, int col, int entry, int depth,
                        int chain, int asked_by) noexcept:
    """run_ability inside an activation chain: `chain` holds the spaces whose abilities are running."""
    cdef Ctx x
    cdef int outer = RUN.asked_by       # (a pause longjmps past the restore: advance resets it)
    if entry < 0 or depth > MAX_DEPTH:
        return 0
    RUN.asked_by = asked_by | (owner << 24)
    memset(&x, 0, sizeof(Ctx))
    x.owner = owner
    x.active = active
    x.cave = cave
    x.col = col
    x.depth = depth
    x.chain = chain
    if cave >= 0 and col >= 0:
        x.chain |= 1 << (cave * 4 + col)
    run_block(g, &x, entry)
    if x.revealed_open:
        discard_d(g, x.revealed)
    RUN.asked_by = outer
    return x.vp

cdef int eval_count_for(Core* g, int p, int entry) noexcept:
    cdef Ctx x
    memset(&x, 0, sizeof(Ctx))
    x.owner = p
    x.cave = -1
    x.col = -1
    return eval_count(g, &x, entry)

cdef bint run_block(Core* g, Ctx* x, int i) noexcept:
    cdef bint any = False
    while i >= 0:
        if run_op(g, x, i):
            any = True
        i = R(i, COL_NEXT)
    return any

cdef bint run_op(Core* g, Ctx* x, int i) noexcept:
    cdef int op = R(i, COL_OP)
    if op == OP_GAIN:
        return op_gain(g, x, i)
    if op == OP_LAY:
        return op_lay(g, x, i)
    if op == OP_GUILD:
        guild_steps(g, x.owner, R(i, COL_POS), x.active, x.depth + 1)
        return True
    if op == OP_CACHE:
        return op_cache(g, x, i)
    if op == OP_TUCK:
        return op_tuck(g, x, i)
    if op == OP_PAY:
        return op_pay(g, x, i)
    if op == OP_EXCAVATE:
        return op_excavate(g, x, i)
    if op == OP_ENTICE:
        return op_entice(g, x, i)
    if op == OP_SWAP_DRAGONS:
        return op_swap(g, x)
    if op == OP_ACTIVATE:
        return op_activate(g, x, i)
    if op == OP_ACTIVATE_MAT:
        return op_activate_mat(g, x)
    if op == OP_REVEAL:
        return op_reveal(g, x, i)
    if op == OP_TAKE:
        if x.revealed_open:
            hand_add_d(g, x.owner, x.revealed, True)
            x.revealed_open = False
            return True
        return False
    if op == OP_DISCARD:
        return op_discard(g, x, i)
    if op == OP_PICK:
        return op_pick(g, x, i)
    if op == OP_CHOICE:
        return op_choice(g, x, i)
    if op == OP_DIFFERENT:
        return op_different(g, x, i)
    if op == OP_UPTO:
        return op_upto(g, x, i)
    if op == OP_REPEAT:
        return op_repeat(g, x, i)
    if op == OP_EACH_OPPONENT:
        return op_each_opponent(g, x, i)
    if op == OP_IF:
        if eval_cond(g, x, R(i, COL_POS)):
            return run_block(g, x, R(i, COL_CHILD))
        return False
    if op == OP_VP:
        x.vp += vp_amount(g, x, i)
        return True
    return False

# ---------------------------------------------------------------------------- places on the mat
cdef inline bint in_region(const Ctx* x, int where, int c, int k) noexcept nogil:
    if where == WHERE_MAT:
        return True
    if where == WHERE_HERE:
        return c == x.cave and k == x.col
    if where == WHERE_THIS_CAVE:
        return c == x.cave
    if where == WHERE_THIS_COLUMN:
        return k == x.col
    if where == WHERE_ADJACENT:
        return ((c == x.cave and (k == x.col - 1 or k == x.col + 1)) or
                (k == x.col and (c == x.cave - 1 or c == x.cave + 1)))
    return c == where - WHERE_CRIMSON

cdef int dragon_slots(const Core* g, const Ctx* x, int where, int* out) noexcept nogil:
    cdef int n = 0, c, k
    for c in range(NCAVES):
        for k in range(NCOLS):
            if g.p[x.owner].dragon[c][k] and in_region(x, where, c, k):
                out[n] = c * 4 + k
                n += 1
    return n

# ---------------------------------------------------------------------------- gaining
cdef int gain_dragon_card(Core* g, Ctx* x, int source) noexcept:
    """source: 0 display or deck, 1 display only, 2 deck only. Returns the card or 0."""
    cdef int opts[4]
    cdef int n = 0, i, d
    if source != 2:
        for i in range(DISPLAY):
            if g.display_d[i]:
                opts[n] = A(K_DRAGON_SRC, i); n += 1
    if source != 1 and (g.n_deck_d or g.n_disc_d):
        opts[n] = A(K_DRAGON_SRC, 3); n += 1
    if n == 0:
        return 0
    i = A_ARG(choose(x.owner, P_GAIN_DRAGON, n, opts))
    if i == 3:
        d = draw_d(g, CH_HAND_DRAGON, x.owner)
        hand_add_d(g, x.owner, d, False)
    else:
        d = g.display_d[i]
        g.display_d[i] = 0
        hand_add_d(g, x.owner, d, True)
    if x.n_gained_d < MAX_GAINED:
        x.gained_d[x.n_gained_d] = d
        x.n_gained_d += 1
    return d

cdef int gain_cave_card(Core* g, Ctx* x, int source) noexcept:
    cdef int opts[4]
    cdef int n = 0, i, k
    if source != 2:
        for i in range(DISPLAY):
            if g.display_c[i]:
                opts[n] = A(K_CAVE_SRC, i); n += 1
    if source != 1 and (g.n_deck_c or g.n_disc_c):
        opts[n] = A(K_CAVE_SRC, 3); n += 1
    if n == 0:
        return 0
    i = A_ARG(choose(x.owner, P_GAIN_CAVE, n, opts))
    if i == 3:
        k = draw_c(g, CH_HAND_CAVE, x.owner)
        hand_add_c(g, x.owner, k, False)
    else:
        k = g.display_c[i]
        g.display_c[i] = 0
        hand_add_c(g, x.owner, k, True)
    return k

cdef int choose_resource(Ctx* x, int mask) noexcept:
    """A resource among those in `mask` (bit per resource); -1 if none."""
    cdef int opts[NRES]
    cdef int n = 0, r
    for r in range(NRES):
        if (mask >> r) & 1:
            opts[n] = A(K_RES, r); n += 1
    if n == 0:
        return -1
    return A_ARG(choose(x.owner, P_RESOURCE, n, opts))

cdef inline void gain_res(Core* g, Ctx* x, int r) noexcept:
    g.p[x.owner].res[r] += 1
    x.gained_res[r] += 1

cdef bint op_gain(Core* g, Ctx* x, int i) noexcept:
    cdef int a, it, r, mask, source = R(i, COL_KW)
    cdef bint happened = False
    cdef Player* P = &g.p[x.owner]
    for a in range(NPOS):
        it = R(i, COL_POS + a)
        if it < 0:
            break
        if it < NRES:
            gain_res(g, x, it)
            happened = True
        elif it == ITEM_ANY:
            gain_res(g, x, choose_resource(x, 15))
            happened = True
        elif it == ITEM_PICKED:
            gain_res(g, x, x.picked)
            happened = True
        elif it == ITEM_COIN:
            P.coins += 1
            happened = True
        elif it == ITEM_DRAGON_CARD:
            if gain_dragon_card(g, x, source):
                happened = True
        elif it == ITEM_CAVE_CARD:
            if gain_cave_card(g, x, source):
                happened = True
        elif it == ITEM_TUCKED_COST and x.tucked:
            mask = 0
            for r in range(NRES):
                if DRAGONS[x.tucked][D_MEAT + r] > 0:
                    mask |= 1 << r
            r = choose_resource(x, mask)
            if r >= 0:
                gain_res(g, x, r)
                happened = True
    if happened and R(i, COL_CHILD) >= 0:
        run_block(g, x, R(i, COL_CHILD))
    return happened

# ---------------------------------------------------------------------------- eggs
cdef bint op_lay(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[16]
    cdef int slots[12]
    cdef int n = R(i, COL_POS), on = R(i, COL_KW), exc = R(i, COL_KW + 1)
    cdef int t, m, s, k, d, here
    cdef bint happened = False
    cdef Player* P = &g.p[x.owner]
    if on == LAY_TARGET_EACH_IN_CAVE or on == LAY_TARGET_EACH_IN_COLUMN:
        m = dragon_slots(g, x, WHERE_THIS_CAVE if on == LAY_TARGET_EACH_IN_CAVE else WHERE_THIS_COLUMN,
                         slots)
        for s in range(m):
            d = P.dragon[slots[s] >> 2][slots[s] & 3]
            if (exc >> d_personality(d)) & 1:
                continue
            if room_at(P, slots[s]) > 0:
                add_egg(P, slots[s], 1)
                happened = True
        return happened
    here = x.cave * 4 + x.col if here_dragon(g, x) else -1
    for t in range(n):
        k = 0
        if on == LAY_TARGET_AUTO and here >= 0 and room_at(P, here) > 0:
            opts[k] = A(K_PLACE, here); k += 1
        elif on == LAY_TARGET_AUTO or on == LAY_TARGET_ANY:
            k = lay_targets(P, opts)
        else:
            m = dragon_slots(g, x, WHERE_HERE if on == LAY_TARGET_HERE else
                             WHERE_THIS_CAVE if on == LAY_TARGET_THIS_CAVE else
                             WHERE_THIS_COLUMN if on == LAY_TARGET_THIS_COLUMN else WHERE_ADJACENT, slots)
            for s in range(m):
                if room_at(P, slots[s]) > 0:
                    opts[k] = A(K_PLACE, slots[s]); k += 1
        if k == 0:
            break
        add_egg(P, A_ARG(choose(x.owner, P_LAY, k, opts)), 1)
        happened = True
    return happened

# ---------------------------------------------------------------------------- cache and tuck
cdef void fed(Core* g, Ctx* x, int slot, int item) noexcept:
    """A resource (item 0-3) or a tucked card (item 4) was put on a dragon: hatchlings feed on it."""
    cdef Player* P = &g.p[x.owner]
    cdef int c = slot >> 2, k = slot & 3
    cdef int d = P.dragon[c][k], feeds, have
    if d == 0:
        return
    feeds = DRAGONS[d][D_FEEDS]            # 0 none, 1 meat, 2 milk, 3 dragon card
    if feeds == 0:
        return
    if feeds == 1 and item == ITEM_MEAT:
        have = P.cached[c][k][ITEM_MEAT]
    elif feeds == 2 and item == ITEM_MILK:
        have = P.cached[c][k][ITEM_MILK]
    elif feeds == 3 and item == 4:
        have = P.tucked[c][k]
    else:
        return
    run_ability(g, x.owner, x.active, c, k, DRAGONS[d][D_ENTRY_ON_FEED], x.depth + 1, asks(ASK_DRAGON, d, 4))
    if have >= 3 and not P.grown[c][k] and P.dragon[c][k] == d:
        P.grown[c][k] = 1
        run_ability(g, x.owner, x.active, c, k, DRAGONS[d][D_ENTRY_GROW_UP], x.depth + 1,
                    asks(ASK_DRAGON, d, 5))

cdef int cache_targets(const Core* g, const Ctx* x, int on, int* opts) noexcept nogil:
    cdef int slots[12]
    cdef int m = dragon_slots(g, x, WHERE_HERE if on == 0 else WHERE_MAT if on == 1 else WHERE_THIS_COLUMN,
                              slots), s
    for s in range(m):
        opts[s] = A(K_PLACE, slots[s])
    return m

cdef bint op_cache(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int need[NRES]
    cdef int a, it, r, n, slot, mask
    cdef int source = R(i, COL_KW), on = R(i, COL_KW + 1), required = R(i, COL_KW + 2)
    cdef bint happened = False
    cdef Player* P = &g.p[x.owner]
    for a in range(NPOS):
        it = R(i, COL_POS + a)
        if it < 0:
            break
        # which resources could go on a dragon now
        mask = 0
        if it == ITEM_GAINED:
            for r in range(NRES):
                if x.gained_res[r] > 0 and P.res[r] > 0:
                    mask |= 1 << r
        elif source == 1:                                   # from the general supply
            mask = 15 if it == ITEM_ANY else 1 << (x.picked if it == ITEM_PICKED else it)
        elif it == ITEM_ANY:
            # any resource you hold, or can make by the 2:1 exchange
            for r in range(NRES):
                if P.res[r] or total_res(P) >= 2:
                    mask |= 1 << r
        else:
            r = x.picked if it == ITEM_PICKED else it
            memset(need, 0, sizeof(need))
            need[r] = 1
            if can_pay_res(P, need, 0):
                mask = 1 << r
        if mask == 0:
            break
        n = cache_targets(g, x, on, opts)
        if n == 0:
            break
        if not required:
            opts[n] = A(K_NO, 0); n += 1
        slot = choose(x.owner, P_CACHE, n, opts)
        if A_KIND(slot) == K_NO:
            break
        slot = A_ARG(slot)
        if it == ITEM_GAINED:
            r = choose_resource(x, mask)
            x.gained_res[r] -= 1
            P.res[r] -= 1
        elif source == 1:
            r = choose_resource(x, mask)
        elif it == ITEM_ANY:
            r = choose_resource(x, mask)
            memset(need, 0, sizeof(need))
            need[r] = 1
            pay_res(g, x.owner, need, 0)
        else:
            r = x.picked if it == ITEM_PICKED else it
            memset(need, 0, sizeof(need))
            need[r] = 1
            pay_res(g, x.owner, need, 0)
        P.cached[slot >> 2][slot & 3][r] += 1
        happened = True
        fed(g, x, slot, r)
    if happened and R(i, COL_CHILD) >= 0:
        run_block(g, x, R(i, COL_CHILD))
    return happened

cdef void tuck_card(Core* g, Ctx* x, int slot, int d) noexcept:
    g.p[x.owner].tucked[slot >> 2][slot & 3] += 1
    x.tucked = d
    fed(g, x, slot, 4)

cdef bint op_tuck(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int ids[256]
    cdef int slots[12]
    cdef int n = R(i, COL_POS), source = R(i, COL_KW), under = R(i, COL_KW + 1)
    cdef int pers = R(i, COL_KW + 2), required = R(i, COL_KW + 3)
    cdef int t, m, k, j, s, d, a
    cdef bint happened = False
    cdef Player* P = &g.p[x.owner]
    if under == 3:                                           # each dragon of this cave
        m = dragon_slots(g, x, WHERE_THIS_CAVE, slots)
        for s in range(m):
            d = P.dragon[slots[s] >> 2][slots[s] & 3]
            if pers and not (pers >> d_personality(d)) & 1:
                continue
            d = draw_d(g, CH_TUCK, x.owner)
            if d == 0:
                break
            tuck_card(g, x, slots[s], d)
            happened = True
        if happened and R(i, COL_CHILD) >= 0:
            run_block(g, x, R(i, COL_CHILD))
        return happened
    for t in range(n):
        m = dragon_slots(g, x, WHERE_HERE if under == 0 else WHERE_MAT if under == 1 else WHERE_THIS_COLUMN,
                         slots)
        if m == 0:
            break
        # which card
        k = 0
        if source == 0:                                      # from hand
            j = bits_list(P.hand_d, DW, ids)
            for s in range(j):
                if k < MAX_OPTS - 1:
                    opts[k] = A(K_DRAGON, ids[s]); k += 1
        elif source == 1:                                    # blind from the deck
            if g.n_deck_d or g.n_disc_d:
                opts[k] = A(K_DRAGON_SRC, 3); k += 1
        elif source == 2:                                    # from the display
            for s in range(DISPLAY):
                if g.display_d[s]:
                    opts[k] = A(K_DRAGON_SRC, s); k += 1
        elif source == 3:                                    # cards gained by this ability
            for s in range(x.n_gained_d):
                d = x.gained_d[s]
                if bit_has(P.hand_d, d):
                    opts[k] = A(K_DRAGON, d); k += 1
        elif x.revealed_open:                                # the revealed card
            opts[k] = A(K_DRAGON, x.revealed); k += 1
        if k == 0:
            break
        if not required:
            opts[k] = A(K_NO, 0); k += 1
        a = choose(x.owner, P_TUCK, k, opts)
        if A_KIND(a) == K_NO:
            break
        for s in range(m):
            opts[s] = A(K_PLACE, slots[s])
        s = A_ARG(choose(x.owner, P_TUCK_TARGET, m, opts))
        if source == 0 or source == 3:
            d = A_ARG(a)
            # face down: the others cannot tell which card went, so no card of the hand is known
            # to be there any more
            memset(P.known_d, 0, sizeof(P.known_d))
            hand_remove_d(g, x.owner, d)
            bit_set(P.seen_d, d)
        elif source == 1:
            d = draw_d(g, CH_TUCK, x.owner)
        elif source == 2:
            d = g.display_d[A_ARG(a)]
            g.display_d[A_ARG(a)] = 0
            bit_set(g.public_d, d)
        else:
            d = x.revealed
            x.revealed_open = False
            bit_set(g.public_d, d)
        tuck_card(g, x, s, d)
        happened = True
    if happened and R(i, COL_CHILD) >= 0:
        run_block(g, x, R(i, COL_CHILD))
    return happened

# ---------------------------------------------------------------------------- paying
cdef bint op_pay(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[2]
    cdef int picks[8]
    cdef int need[NRES]
    cdef int a, it, n_any = 0, coins = 0, eggs = 0, dcards = 0, ccards = 0, region = R(i, COL_KW)
    cdef Player* P = &g.p[x.owner]
    memset(need, 0, sizeof(need))
    for a in range(NPOS):
        it = R(i, COL_POS + a)
        if it < 0:
            break
        if it < NRES:
            need[it] += 1
        elif it == ITEM_ANY:
            n_any += 1
        elif it == ITEM_COIN:
            coins += 1
        elif it == ITEM_EGG:
            eggs += 1
        elif it == ITEM_DRAGON_CARD:
            dcards += 1
        elif it == ITEM_CAVE_CARD:
            ccards += 1
    if (not can_pay_res(P, need, n_any) or P.coins < coins or P.n_hand_d < dcards
            or P.n_hand_c < ccards or eggs_in_region(P, region, x.cave, x.col) < eggs):
        return False
    opts[0] = A(K_YES, 0); opts[1] = A(K_NO, 0)
    if choose(x.owner, P_USE, 2, opts) == A(K_NO, 0):
        return False
    pay_res(g, x.owner, need, n_any)
    P.coins -= coins
    pay_eggs(g, x.owner, eggs, region, x.cave, x.col)
    n = pick_cards(g, x.owner, dcards, P_PAY_CARD, True, False, picks)
    for a in range(n):
        discard_from_hand(g, x.owner, picks[a])
    n = pick_cards(g, x.owner, ccards, P_PAY_CARD, False, True, picks)
    for a in range(n):
        discard_from_hand(g, x.owner, picks[a])
    run_block(g, x, R(i, COL_CHILD))
    return True

# ---------------------------------------------------------------------------- playing cards
cdef bint op_excavate(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int ids[128]
    cdef int rows[NCAVES]
    cdef int source = R(i, COL_KW), free = R(i, COL_KW + 1)
    cdef int n = 0, m, c, col, k, j, a
    cdef Player* P = &g.p[x.owner]
    for c in range(NCAVES):
        col = first_empty_cave_col(P, c)
        if col >= 0 and (free or total_eggs(P) >= excavate_eggs(col)):
            rows[n] = c; n += 1
    if n == 0:
        return False
    m = n
    k = 0
    if source == 0:
        j = bits_list(P.hand_c, CW, ids)
        for a in range(j):
            if k < MAX_OPTS - 1:
                opts[k] = A(K_CAVE, ids[a]); k += 1
    elif source == 1:
        for a in range(DISPLAY):
            if g.display_c[a]:
                opts[k] = A(K_CAVE_SRC, a); k += 1
    elif g.n_deck_c or g.n_disc_c:
        opts[k] = A(K_CAVE_SRC, 3); k += 1
    if k == 0:
        return False
    opts[k] = A(K_NO, 0); k += 1
    a = choose(x.owner, P_PLAY_CAVE, k, opts)
    if A_KIND(a) == K_NO:
        return False
    if source == 0:
        k = A_ARG(a)
        hand_remove_c(g, x.owner, k)
    elif source == 1:
        k = g.display_c[A_ARG(a)]
        g.display_c[A_ARG(a)] = 0
    else:
        k = draw_c(g, CH_PLAY_CAVE, x.owner)
    for j in range(m):
        opts[j] = A(K_ROW, rows[j])
    c = A_ARG(choose(x.owner, P_ROW, m, opts))
    col = first_empty_cave_col(P, c)
    if not free:
        pay_eggs(g, x.owner, excavate_eggs(col), 0, 0, 0)
    place_cave(g, x.owner, k, c, col, x.active, x.depth + 1)
    return True

cdef bint can_entice_effect(const Player* P, int d, int mode, int onto) noexcept nogil:
    cdef int rows[NCAVES]
    cdef int c, k
    if not can_entice_cost(P, d, 0, mode):
        return False
    if onto == 0:
        return entice_rows(P, d, rows) > 0
    for c in range(NCAVES):
        if d_lives_in(d, c):
            for k in range(NCOLS):
                if P.dragon[c][k]:
                    return True
    return False

cdef bint op_entice(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int ids[256]
    cdef int rows[NCAVES]
    # mode = the entice_cost domain index: printed 0, free 1, no_resources 2, discount_one 3
    cdef int source = R(i, COL_KW), mode = R(i, COL_KW + 1), onto = R(i, COL_KW + 2)
    cdef int k = 0, j, a, d, c, col, n, s
    cdef Player* P = &g.p[x.owner]
    if source == 0:
        j = bits_list(P.hand_d, DW, ids)
        for a in range(j):
            if can_entice_effect(P, ids[a], mode, onto) and k < MAX_OPTS - 1:
                opts[k] = A(K_DRAGON, ids[a]); k += 1
    elif source == 1:
        for a in range(DISPLAY):
            if g.display_d[a] and can_entice_effect(P, g.display_d[a], mode, onto):
                opts[k] = A(K_DRAGON_SRC, a); k += 1
    elif g.n_deck_d or g.n_disc_d:
        opts[k] = A(K_DRAGON_SRC, 3); k += 1        # the top card of the deck, unseen
    if k == 0:
        return False
    opts[k] = A(K_NO, 0); k += 1
    a = choose(x.owner, P_PLAY_DRAGON, k, opts)
    if A_KIND(a) == K_NO:
        return False
    if source == 0:
        d = A_ARG(a)
        hand_remove_d(g, x.owner, d)
    elif source == 1:
        d = g.display_d[A_ARG(a)]
        g.display_d[A_ARG(a)] = 0
    else:
        d = draw_d(g, CH_REVEAL, x.owner)
        if not can_entice_effect(P, d, mode, onto):
            discard_d(g, d)                          # it cannot be played: it is discarded
            return True
    if onto == 0:
        n = entice_rows(P, d, rows)
        for j in range(n):
            opts[j] = A(K_ROW, rows[j])
        c = A_ARG(choose(x.owner, P_ROW, n, opts))
        col = first_empty_dragon_col(P, c)
    else:
        n = 0
        for s in range(12):
            if P.dragon[s >> 2][s & 3] and d_lives_in(d, s >> 2):
                opts[n] = A(K_PLACE, s); n += 1
        s = A_ARG(choose(x.owner, P_ROW, n, opts))
        c = s >> 2
        col = s & 3
    pay_entice_cost(g, x.owner, d, 0, mode)
    if onto == 0:
        place_dragon(g, x.owner, d, c, col, x.active, x.depth + 1)
    else:
        cover_dragon(g, x.owner, d, c, col, x.active, x.depth + 1)
    return True

cdef bint op_swap(Core* g, Ctx* x) noexcept:
    cdef int opts[16]
    cdef int slots[12]
    cdef int m = dragon_slots(g, x, WHERE_MAT, slots), k = 0, s, a, b, r
    cdef Player* P = &g.p[x.owner]
    cdef uint8_t t
    if m < 2:
        return False
    for s in range(m - 1):
        opts[k] = A(K_PLACE, slots[s]); k += 1
    opts[k] = A(K_NO, 0); k += 1
    a = choose(x.owner, P_SWAP, k, opts)
    if A_KIND(a) == K_NO:
        return False
    a = A_ARG(a)
    k = 0
    for s in range(m):
        if slots[s] > a:
            opts[k] = A(K_PLACE, slots[s]); k += 1
    b = A_ARG(choose(x.owner, P_SWAP, k, opts))
    t = P.dragon[a >> 2][a & 3]; P.dragon[a >> 2][a & 3] = P.dragon[b >> 2][b & 3]; P.dragon[b >> 2][b & 3] = t
    t = P.eggs[a >> 2][a & 3]; P.eggs[a >> 2][a & 3] = P.eggs[b >> 2][b & 3]; P.eggs[b >> 2][b & 3] = t
    t = P.tucked[a >> 2][a & 3]; P.tucked[a >> 2][a & 3] = P.tucked[b >> 2][b & 3]; P.tucked[b >> 2][b & 3] = t
    t = P.grown[a >> 2][a & 3]; P.grown[a >> 2][a & 3] = P.grown[b >> 2][b & 3]; P.grown[b >> 2][b & 3] = t
    for r in range(NRES):
        t = P.cached[a >> 2][a & 3][r]
        P.cached[a >> 2][a & 3][r] = P.cached[b >> 2][b & 3][r]
        P.cached[b >> 2][b & 3][r] = t
    return True

cdef int activatable_entry(int d, int kinds) noexcept nogil:
    """The first ability of dragon d among timings in `kinds` (bit per timing).

    An ability that itself activates (dragons 76, 172) may be copied too: only a space already running
    in the activation chain is refused (op_activate), so copies never cycle."""
    cdef int t
    for t in range(3):
        if (kinds >> t) & 1 and DRAGONS[d][D_ENTRY_WHEN_PLAYED + t] >= 0:
            return DRAGONS[d][D_ENTRY_WHEN_PLAYED + t]
    return -1

cdef bint op_activate(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[16]
    cdef int kinds = 0, a, it, s, d, k = 0, e
    cdef Player* P = &g.p[x.owner]
    for a in range(NPOS):
        it = R(i, COL_POS + a)
        if it < 0:
            break
        kinds |= 1 << it
    for s in range(12):
        d = P.dragon[s >> 2][s & 3]
        if d and not (x.chain >> s) & 1 and activatable_entry(d, kinds) >= 0:
            opts[k] = A(K_PLACE, s); k += 1
    if k == 0:
        return False
    opts[k] = A(K_NO, 0); k += 1
    a = choose(x.owner, P_ACTIVATE, k, opts)
    if A_KIND(a) == K_NO:
        return False
    s = A_ARG(a)
    d = P.dragon[s >> 2][s & 3]
    # a dragon with abilities of several listed kinds: the player picks which one
    k = 0
    for it in range(3):
        if (kinds >> it) & 1:
            e = DRAGONS[d][D_ENTRY_WHEN_PLAYED + it]
            if e >= 0:
                opts[k] = A(K_OPTION, it); k += 1
    RUN.context = CONTEXT_DRAGON - d
    it = A_ARG(choose(x.owner, P_OPTION, k, opts))
    x.vp += run_ability_in(g, x.owner, x.active, s >> 2, s & 3, DRAGONS[d][D_ENTRY_WHEN_PLAYED + it],
                           x.depth + 1, x.chain, asks(ASK_DRAGON, d, it))
    return True

cdef bint op_activate_mat(Core* g, Ctx* x) noexcept:
    cdef int opts[16]
    cdef int k = 0, c, icon, a
    for c in range(NCAVES):
        for icon in range(NCOLS + 1):
            if MAT_BENEFITS[c][icon] >= 0:
                opts[k] = A(K_MAT_BENEFIT, c * 5 + icon); k += 1
    opts[k] = A(K_NO, 0); k += 1
    a = choose(x.owner, P_MAT_BENEFIT, k, opts)
    if A_KIND(a) == K_NO:
        return False
    a = A_ARG(a)
    run_ability(g, x.owner, x.active, a // 5, -1, MAT_BENEFITS[a // 5][a % 5], x.depth + 1,
                asks(ASK_MAT, a // 5, a % 5))
    return True

# ---------------------------------------------------------------------------- reveal and friends
cdef bint op_reveal(Core* g, Ctx* x, int i) noexcept:
    cdef int d = draw_d(g, CH_REVEAL, x.owner), mask = R(i, COL_KW)
    if d == 0:
        return False
    if x.revealed_open:
        discard_d(g, x.revealed)
    x.revealed = d
    x.revealed_open = True
    if (mask >> d_size(d)) & 1:
        run_block(g, x, R(i, COL_CHILD))
    else:
        run_block(g, x, R(i, COL_ALT))
    return True

cdef bint op_discard(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[MAX_GAINED]
    cdef int n = R(i, COL_POS), t, k, s, d
    cdef Player* P = &g.p[x.owner]
    if R(i, COL_KW) == 1:
        if x.revealed_open:
            discard_d(g, x.revealed)
            x.revealed_open = False
            return True
        return False
    for t in range(n):
        k = 0
        for s in range(x.n_gained_d):
            d = x.gained_d[s]
            if bit_has(P.hand_d, d):
                opts[k] = A(K_DRAGON, d); k += 1
        if k == 0:
            return t > 0
        discard_from_hand(g, x.owner, choose(x.owner, P_DISCARD, k, opts))
    return True

cdef bint op_pick(Core* g, Ctx* x, int i) noexcept:
    x.picked = choose_resource(x, 15)
    run_block(g, x, R(i, COL_CHILD))
    return True

cdef int block_len(int i) noexcept nogil:
    cdef int n = 0
    while i >= 0:
        n += 1
        i = R(i, COL_NEXT)
    return n

cdef int block_stmt(int i, int k) noexcept nogil:
    while k > 0:
        i = R(i, COL_NEXT)
        k -= 1
    return i

cdef bint op_choice(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[16]
    cdef int n = block_len(R(i, COL_CHILD)), k
    for k in range(n):
        opts[k] = A(K_OPTION, k)
    RUN.context = i
    k = A_ARG(choose(x.owner, P_OPTION, n, opts))
    return run_op(g, x, block_stmt(R(i, COL_CHILD), k))

cdef bint op_different(Core* g, Ctx* x, int i) noexcept:
    cdef int opts[16]
    cdef int n = block_len(R(i, COL_CHILD)), want = R(i, COL_POS), t, k, m, last = -1
    cdef bint happened = False
    for t in range(want):
        m = 0
        for k in range(last + 1, n - (want - 1 - t)):
            opts[m] = A(K_OPTION, k); m += 1
        RUN.context = i
        last = A_ARG(choose(x.owner, P_OPTION, m, opts))
        if run_op(g, x, block_stmt(R(i, COL_CHILD), last)):
            happened = True
    return happened

cdef bint op_upto(Core* g, Ctx* x, int i) noexcept:
    cdef int t
    cdef bint happened = False
    for t in range(R(i, COL_POS)):
        if not run_block(g, x, R(i, COL_CHILD)):
            break
        happened = True
    return happened

cdef bint op_repeat(Core* g, Ctx* x, int i) noexcept:
    cdef int t, n = eval_count(g, x, R(i, COL_POS))
    cdef bint happened = False
    for t in range(n):
        if run_block(g, x, R(i, COL_CHILD)):
            happened = True
    return happened

cdef bint op_each_opponent(Core* g, Ctx* x, int i) noexcept:
    """Every other player, in turn order after the owner, may do the block for themself."""
    cdef int j, q
    cdef Ctx y
    for j in range(1, g.n_players):
        q = (x.owner + j) % g.n_players
        if is_automa(g, q):
            continue                    # the Automa takes no benefits
        # their own context, sharing the ability's choices so far (e.g. the picked resource)
        memset(&y, 0, sizeof(Ctx))
        y.owner = q
        y.active = x.active
        y.cave = -1
        y.col = -1
        y.depth = x.depth + 1
        y.picked = x.picked
        y.tucked = x.tucked
        run_block(g, &y, R(i, COL_CHILD))
        if y.revealed_open:
            discard_d(g, y.revealed)
    return True

# ---------------------------------------------------------------------------- counts and conditions
cdef int vp_amount(Core* g, Ctx* x, int i) noexcept:
    cdef int each = R(i, COL_KW), per = R(i, COL_KW + 1), cap = R(i, COL_KW + 2), v
    if R(i, COL_POS + 1) < 0:
        return R(i, COL_POS)
    v = each * (eval_count(g, x, R(i, COL_POS + 1)) // (per if per > 0 else 1))
    if cap > 0 and v > cap:
        v = cap
    return v

cdef bint dragon_matches(int d, int i, const Ctx* x) noexcept nogil:
    cdef int size = R(i, COL_KW + 1), pers = R(i, COL_KW + 2), exc = R(i, COL_KW + 3)
    cdef int ab = R(i, COL_KW + 4), lo = R(i, COL_KW + 5), hi = R(i, COL_KW + 6), t, cost
    if size and not (size >> d_size(d)) & 1:
        return False
    if pers and not (pers >> d_personality(d)) & 1:
        return False
    if (exc >> d_personality(d)) & 1:
        return False
    if ab:
        for t in range(4):
            if (ab >> t) & 1 and DRAGONS[d][D_ENTRY_WHEN_PLAYED + t] >= 0:
                break
        else:
            return False
    cost = d_res_cost(d) + DRAGONS[d][D_COIN] + DRAGONS[d][D_EGG]
    return lo <= cost <= hi

cdef int eval_count(Core* g, Ctx* x, int i) noexcept:
    cdef int of = R(i, COL_POS), where = R(i, COL_KW), other = R(i, COL_KW + 7)
    cdef int among = R(i, COL_KW + 8), resmask = R(i, COL_KW + 9)
    cdef Player* P = &g.p[x.owner]
    cdef int n = 0, c, k, d, r, q, t, best, v
    cdef int per[4]
    if of == COUNT_OF_GUILD_MARKERS:
        return RULES[R_GUILD_MARKERS] - P.markers_left
    if of == COUNT_OF_OBJECTIVES_LOWEST:
        for r in range(g.n_scored):
            best = 255
            for q in range(g.n_players):
                if g.p[q].obj_vp[r] < best:
                    best = g.p[q].obj_vp[r]
            if P.obj_vp[r] == best:
                n += 1
        return n
    if of == COUNT_OF_PERSONALITY_SETS or of == COUNT_OF_SIZE_SETS:
        memset(per, 0, sizeof(per))
        for c in range(NCAVES):
            for k in range(NCOLS):
                d = P.dragon[c][k]
                if d:
                    per[d_personality(d) if of == COUNT_OF_PERSONALITY_SETS else d_size(d)] += 1
        best = per[0]
        for t in range(1, 4):
            if per[t] < best:
                best = per[t]
        return best
    if of == COUNT_OF_FULL_COLUMNS:
        for k in range(NCOLS):
            if P.dragon[0][k] and P.dragon[1][k] and P.dragon[2][k]:
                n += 1
        return n
    if of == COUNT_OF_MAX_CAVE_COST:
        best = 0
        for c in range(NCAVES):
            v = 0
            for k in range(NCOLS):
                if P.dragon[c][k]:
                    v += d_res_cost(P.dragon[c][k])
            if v > best:
                best = v
        return best
    if of == COUNT_OF_DISTINCT_SIZES:
        t = 0
        for c in range(NCAVES):
            for k in range(NCOLS):
                d = P.dragon[c][k]
                if d and in_region(x, where, c, k) and (among == 0 or (among >> d_size(d)) & 1):
                    t |= 1 << d_size(d)
        return __builtin_popcountll(t)
    for c in range(NCAVES):
        for k in range(NCOLS):
            if not in_region(x, where, c, k):
                continue
            if other and c == x.cave and k == x.col:
                continue
            d = P.dragon[c][k]
            if of == COUNT_OF_DRAGONS:
                if d and dragon_matches(d, i, x):
                    n += 1
            elif of == COUNT_OF_CAVE_CARDS:
                if P.cave[c][k]:
                    n += 1
            elif of == COUNT_OF_CARDS_IN_CAVE:
                n += (d != 0) + (P.cave[c][k] != 0)
            elif of == COUNT_OF_EGGS:
                n += P.eggs[c][k]
            elif of == COUNT_OF_CACHED:
                for r in range(NRES):
                    if resmask == 0 or (resmask >> r) & 1:
                        n += P.cached[c][k][r]
            elif of == COUNT_OF_TUCKED:
                n += P.tucked[c][k]
            elif of == COUNT_OF_CAPACITY:
                if d:
                    n += d_capacity(d)
    if of == COUNT_OF_EGGS and where == WHERE_MAT:
        n += P.nest_eggs
    return n

cdef bint eval_cond(Core* g, Ctx* x, int i) noexcept:
    cdef int op = R(i, COL_OP), c, k, n, q
    cdef Player* P = &g.p[x.owner]
    if op == OP_AT_LEAST:
        return eval_count(g, x, R(i, COL_POS)) >= R(i, COL_POS + 1)
    if op == OP_AT_MOST:
        return eval_count(g, x, R(i, COL_POS)) <= R(i, COL_POS + 1)
    if op == OP_NOT_FEWER_THAN_LEFT:
        c = R(i, COL_POS)
        q = (x.owner + 1) % g.n_players
        n = 0
        for k in range(NCOLS):
            n += (P.dragon[c][k] != 0) - (g.p[q].dragon[c][k] != 0)
        return n >= 0
    if x.col < 0 or x.cave < 0:
        return False
    if op == OP_COLUMN_FULL:
        return P.dragon[0][x.col] and P.dragon[1][x.col] and P.dragon[2][x.col]
    if op == OP_CAVE_FULL:
        for k in range(NCOLS):
            if not P.dragon[x.cave][k]:
                return False
        return True
    if op == OP_CAVE_EXCAVATED:
        for k in range(1, NCOLS):
            if not P.cave[x.cave][k]:
                return False
        return True
    if op == OP_LAST_IN_CAVE:
        for k in range(x.col + 1, NCOLS):
            if P.dragon[x.cave][k]:
                return False
        return True
    if op == OP_BETWEEN_DRAGONS:
        return (x.col > 0 and x.col < NCOLS - 1 and P.dragon[x.cave][x.col - 1] != 0
                and P.dragon[x.cave][x.col + 1] != 0)
    return False
