# The rules: decisions, payments, placing cards, turns, rounds and scoring.
#
# Play is split into segments between boundaries where nothing is pending (a turn, one player's
# round-end abilities, ...). A segment is plain recursive C code that calls choose() whenever a player
# decides something. Decisions already taken in the segment are replayed from a log; at the first new
# one, choose() records the options and longjmps back to the driver (game.pxi). Applying an action
# appends it to the log and replays the segment from its start state, so the state never has to hold
# a continuation: it stays a flat struct.

from libc.setjmp cimport jmp_buf, setjmp, longjmp

cdef enum:
    MAX_OPTS = 192          # a chance point may offer every dragon card (183)
    MAX_LOG = 512
    DET_TRIES = 24          # samples tried before a determinization keeps the hands
    KIND_SHIFT = 20
    PAYLOAD_MASK = (1 << 20) - 1
    LOG_FORCED = 1 << 28    # a logged decision that had one option (a game with chance told pauses there)

cdef enum:  # action kinds (action id = kind << 20 | payload)
    K_PASS = 1
    K_ENTICE = 2            # dragon * 4 + cave
    K_EXCAVATE = 3          # cave card * 4 + cave
    K_EXPLORE = 4           # cave
    K_PAY = 5               # resources spent, 4 bits each
    K_EGG = 6               # slot an egg is paid from
    K_RES = 7               # a resource
    K_DRAGON_SRC = 8        # display slot 0-2, or 3 = top of the deck
    K_CAVE_SRC = 9
    K_PLACE = 10            # slot of your mat (cave * 4 + column, 12 = the printed nests)
    K_DRAGON = 11           # a dragon card (by number)
    K_CAVE = 12             # a cave card (by number)
    K_YES = 13
    K_NO = 14
    K_OPTION = 15           # the i-th option of a choice
    K_SPOT = 16             # guild tile ability * 4 + spot, 16 = the fixed-VP spot
    K_SETUP_RES = 17        # starting resources, 4 bits each
    K_ROW = 18              # a cave of your mat
    K_MAT_BENEFIT = 19      # cave * 5 + icon
    K_WAIVE = 20            # discount: resource 0-3, 4 = egg
    K_EXCHANGE = 21         # 2:1 exchange: give a and b, take t (a * 16 + b * 4 + t)
    K_DRAW_DRAGON = 22      # chance: the dragon card a draw takes (chance.pxi)
    K_DRAW_CAVE = 23        # chance: the cave card a draw takes
    K_CHANCE = 24           # chance: a number (a tile, a seat, an Automa card)

cdef enum:  # what a decision is about (shown to players)
    P_MOVE = 0
    P_PAY = 1
    P_EGG_SOURCE = 2
    P_RESOURCE = 3
    P_GAIN_DRAGON = 4
    P_GAIN_CAVE = 5
    P_LAY = 6
    P_CACHE = 7
    P_TUCK = 8
    P_TUCK_TARGET = 9
    P_USE = 10
    P_OPTION = 11
    P_GUILD_SPOT = 12
    P_ORDER = 13
    P_SETUP_DISCARD = 14
    P_SETUP_RESOURCES = 15
    P_DISCARD = 16
    P_PAY_CARD = 17
    P_ROW = 18
    P_PLAY_DRAGON = 19
    P_PLAY_CAVE = 20
    P_SWAP = 21
    P_ACTIVATE = 22
    P_EXCHANGE = 23
    P_WAIVE = 24
    P_MAT_BENEFIT = 25
    P_CACHE_RESOURCE = 26
    P_CHANCE = 27           # a chance point of a game with chance told (chance.pxi)

cdef inline int A(int kind, int payload) noexcept nogil:
    return (kind << KIND_SHIFT) | payload

cdef inline int A_KIND(int a) noexcept nogil:
    return a >> KIND_SHIFT

cdef inline int A_ARG(int a) noexcept nogil:
    return a & PAYLOAD_MASK

cdef enum:                  # who takes autoplayed decisions (Run.auto_policy), and policy_pick's policies
    PICK_UNIFORM = 0        # uniformly at random
    PICK_WEIGHTED = 1       # at random, weighted by policy_weight
    PICK_CALLBACK = 2       # Run.auto_pick (a search's move averages, the distilled playouts)

# A search's own playout picker for autoplay (PICK_CALLBACK), with its context
ctypedef int (*AutoPick)(void* ctx, int player, int prompt, int n, const int* opts, uint64_t* rng) noexcept nogil

cdef enum:
    CONTEXT_DRAGON = -2     # an "option" decision's context: CONTEXT_DRAGON - d, which ability of dragon d

cdef enum:  # the card or rule that asks a decision (Run.asked_by, GameData.asked_by): asks(kind, a, b)
            # with the seat whose it is (the ability's owner) in bits 24-27
    ASK_NONE = 0            # the rules themselves (a move, a round's egg, the hand limit, ...)
    ASK_DRAGON = 1          # a: dragon, b: which ability (D_ENTRY_* - D_ENTRY_WHEN_PLAYED)
    ASK_CAVE = 2            # a: cave card
    ASK_MAT = 3             # a: cave (row of the mat), b: benefit (0: the cave's own, k + 1: column k)
    ASK_GUILD_TRACK = 4     # a: space of the guild track
    ASK_GUILD_TILE = 5      # a: ability of the guild tile
    ASK_EXCHANGE = 6        # the exchange of a cave's fourth column
    ASK_COST = 7            # a: the dragon being enticed, whose cost is paid

cdef inline int asks(int kind, int a, int b) noexcept nogil:
    return (kind << 16) | (a << 8) | b

ctypedef struct Run:
    int* log
    int nlog
    int pos
    int decider
    int prompt
    int nopts
    int opts[MAX_OPTS]
    int bad                 # a logged action was not among the options (replay mismatch)
    int context             # what an "option" decision chooses among (set before choose(); GameData)
    int asked_by            # the card or rule whose ability runs (asks(); the innermost one)
    bint ask_forced         # pause at decisions with one option too (a game with chance told)
    bint dealt              # replaying a determinization: another seat's logged card pick that the
    int dealt_for           # new deal left out becomes a card it dealt (dealt_for cannot see it)
    bint told               # a game with chance told, or a segment logged by one: chance points
                            # and forced decisions may be asked or logged (else the fast paths)
    jmp_buf jb
    # autoplay (playouts): a playout policy takes the decisions outside `auto_pause` where they
    # arise and logs them, so play goes on without a pause and a replay for each of them
    bint autoplay
    bint auto_one_segment   # autoplay ends with the segment it started in
    int auto_policy         # PICK_UNIFORM, PICK_WEIGHTED or PICK_CALLBACK
    AutoPick auto_pick
    void* auto_ctx
    int auto_pause          # prompts (bit per prompt) that still pause
    uint64_t* auto_rng
    bint skip_move_list     # after a one-segment autoplay: pause at the next move without listing
                            # the moves (a lookahead only evaluates the state there)


cdef int policy_weight(int a) noexcept nogil:
    """A fast heuristic prior over actions: build first, pass last, accept benefits."""
    cdef int k = A_KIND(a)
    if k == K_PASS:
        return 1
    if k == K_ENTICE:
        return 40
    if k == K_EXCAVATE:
        return 12
    if k == K_EXPLORE:
        return 16
    if k == K_NO:
        return 3
    if k == K_YES:
        return 20
    return 10

cdef int policy_pick(int policy, int n, const int* opts, uint64_t* rng) noexcept nogil:
    """A playout policy's choice among `opts`: PICK_UNIFORM or PICK_WEIGHTED (by policy_weight)."""
    cdef int i, total = 0, r
    cdef int upto[MAX_OPTS]         # running totals of the weights: each is worked out once
    if policy == PICK_UNIFORM or n == 1:
        return opts[rng_below(rng, n)]
    for i in range(n):
        total += policy_weight(opts[i])
        upto[i] = total
    r = rng_below(rng, total)
    for i in range(n):
        if r < upto[i]:
            return opts[i]
    return opts[n - 1]

cdef inline int ask_as(int p, int asked_by) noexcept nogil:
    """Let seat p's card or rule `asked_by` (asks()) ask the decisions from here (outside an
    ability's program); returns the one it replaces, to put back."""
    cdef int outer = RUN.asked_by
    RUN.asked_by = asked_by | (p << 24)
    return outer

cdef int choose(int player, int prompt, int n, int* opts) noexcept nogil:
    """The action `player` takes among `opts`: a forced one, the next logged one, or a pause."""
    cdef int a, i
    if n == 1:
        if not RUN.told:
            return opts[0]
        if RUN.pos < RUN.nlog and RUN.log[RUN.pos] & LOG_FORCED:
            RUN.pos += 1        # one a told game paused at: in a determinization it may be another card
            return opts[0]
        if not RUN.ask_forced:
            return opts[0]
    if n <= 0:                  # a rule offered nothing to choose from: an engine bug
        RUN.bad = 100 + prompt
        longjmp(RUN.jb, 2)
    if RUN.pos < RUN.nlog:
        a = RUN.log[RUN.pos] & ~LOG_FORCED
        RUN.pos += 1
        for i in range(n):
            if opts[i] == a:
                return a
        if RUN.dealt and player != RUN.dealt_for and (A_KIND(a) == K_DRAGON or A_KIND(a) == K_CAVE):
            # a card another seat picked among ones the new deal changed (hidden from dealt_for):
            # the first card of that kind on offer stands in for it, in the log too
            for i in range(n):
                if A_KIND(opts[i]) == A_KIND(a):
                    RUN.log[RUN.pos - 1] = opts[i]
                    return opts[i]
        RUN.bad = 1
        longjmp(RUN.jb, 2)
    if RUN.autoplay and not ((RUN.auto_pause >> prompt) & 1) and RUN.nlog < MAX_LOG:
        if RUN.auto_policy == PICK_CALLBACK:
            a = RUN.auto_pick(RUN.auto_ctx, player, prompt, n, opts, RUN.auto_rng)
        else:
            a = policy_pick(RUN.auto_policy, n, opts, RUN.auto_rng)
        RUN.log[RUN.nlog] = a
        RUN.nlog += 1
        RUN.pos += 1
        return a
    RUN.decider = player
    RUN.prompt = prompt
    RUN.nopts = n
    memcpy(RUN.opts, opts, n * sizeof(int))
    longjmp(RUN.jb, 1)

# ---------------------------------------------------------------------------- resource payments
cdef inline int pack4(int a, int b, int c, int d) noexcept nogil:
    return a | (b << 4) | (c << 8) | (d << 12)

cdef bint can_pay_res(const Player* P, const int* need, int n_any) noexcept nogil:
    """Whether the resources can pay `need` plus n_any of any kind (2 of any -> 1 of choice)."""
    cdef int i, direct, missing = 0, surplus = 0
    for i in range(NRES):
        direct = P.res[i] if P.res[i] < need[i] else need[i]
        missing += need[i] - direct
        surplus += P.res[i] - direct
    return surplus >= n_any + 2 * missing

cdef int pay_res_options(const Player* P, const int* need, int n_any, int* out) noexcept nogil:
    """Distinct resource multisets that pay exactly (no resource wasted), packed 4 bits each, in
    ascending order of (s0, s1, s2, s3)."""
    cdef int total = n_any, i, n = 0
    cdef int hi[4]
    cdef int s0, s1, s2, s3, excess, missing, left
    cdef int s[3]
    for i in range(NRES):
        total += need[i]
    for i in range(NRES):
        hi[i] = P.res[i]
        if hi[i] > need[i] + 2 * total:
            hi[i] = need[i] + 2 * total
        if hi[i] > 15:
            hi[i] = 15
    for s0 in range(hi[0] + 1):
        for s1 in range(hi[1] + 1):
            for s2 in range(hi[2] + 1):
                s[0] = s0; s[1] = s1; s[2] = s2
                excess = 0
                missing = 0
                for i in range(3):
                    if s[i] > need[i]:
                        excess += s[i] - need[i]
                    else:
                        missing += need[i] - s[i]
                # the last resource pays exactly when excess == n_any + 2 * missing with its own
                # share counted: below its need it adds 2 a unit short, above it 1 a unit over
                left = excess - n_any - 2 * missing
                if left <= 0:
                    s3 = need[3] - left                 # at or over its need
                elif left % 2 == 0:
                    s3 = need[3] - left // 2            # short of it (s3 < 0: no way)
                else:
                    continue
                if 0 <= s3 <= hi[3] and n < MAX_OPTS:
                    out[n] = A(K_PAY, pack4(s0, s1, s2, s3))
                    n += 1
    return n

cdef void pay_res(Core* g, int p, const int* need, int n_any) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int i, a
    cdef int total = n_any
    for i in range(NRES):
        total += need[i]
    if total == 0:
        return
    a = A_ARG(choose(p, P_PAY, pay_res_options(&g.p[p], need, n_any, opts), opts))
    for i in range(NRES):
        g.p[p].res[i] -= (a >> (4 * i)) & 15

# ---------------------------------------------------------------------------- egg payments
cdef int egg_slots(const Player* P, int region, int cave, int col, int* out) noexcept nogil:
    """Slots holding eggs that may pay: 0 anywhere, 1 this cave, 2 adjacent to (cave, col)."""
    cdef int n = 0, c, k, s
    for c in range(NCAVES):
        for k in range(NCOLS):
            if P.eggs[c][k] == 0:
                continue
            if region == 1 and c != cave:
                continue
            if region == 2 and not ((c == cave and (k == col - 1 or k == col + 1)) or
                                    (k == col and (c == cave - 1 or c == cave + 1))):
                continue
            out[n] = c * 4 + k
            n += 1
    if region == 0 and P.nest_eggs:
        out[n] = MAT_NEST
        n += 1
    return n

cdef int eggs_in_region(const Player* P, int region, int cave, int col) noexcept nogil:
    cdef int slots[13]
    cdef int n = egg_slots(P, region, cave, col, slots), i, t = 0
    for i in range(n):
        t += eggs_at(P, slots[i])
    return t

cdef void pay_eggs(Core* g, int p, int n, int region, int cave, int col) noexcept:
    """Pay n eggs one at a time; sources are offered in non-decreasing slot order (no duplicates)."""
    cdef int slots[13]
    cdef int opts[13]
    cdef int i, m, k, s, last = -1
    cdef Player* P = &g.p[p]
    cdef int after
    for i in range(n):
        m = egg_slots(P, region, cave, col, slots)
        k = 0
        after = 0                   # eggs at this slot or later: enough must remain for the rest
        for s in range(m - 1, -1, -1):
            after += eggs_at(P, slots[s])
            if slots[s] >= last and after >= n - i:
                opts[k] = A(K_EGG, slots[s])
                k += 1
        last = A_ARG(choose(p, P_EGG_SOURCE, k, opts))
        add_egg(P, last, -1)

# ---------------------------------------------------------------------------- picking cards
cdef inline bint picked(const int* out, int i, int a) noexcept nogil:
    cdef int j
    for j in range(i):
        if out[j] == a:
            return True
    return False

cdef int pick_cards(Core* g, int p, int n, int prompt, bint dragons, bint caves, int* out) noexcept:
    """Choose n distinct cards of the hand; returns ids as actions (K_DRAGON / K_CAVE). Sampled,
    in ascending order, so each set is offered once; told (a real table), in the table's order."""
    cdef int ids[256]
    cdef int opts[MAX_OPTS]
    cdef int i, j, m, k, last = -1
    cdef bint any_order = RUN.told
    cdef Player* P = &g.p[p]
    for i in range(n):
        k = 0
        if dragons:
            m = bits_list(P.hand_d, DW, ids)
            for j in range(m):
                if any_order:
                    if not picked(out, i, A(K_DRAGON, ids[j])) and k < MAX_OPTS:
                        opts[k] = A(K_DRAGON, ids[j]); k += 1
                elif (A(K_DRAGON, ids[j]) > last and (m - j) + (P.n_hand_c if caves else 0) >= n - i
                        and k < MAX_OPTS):
                    opts[k] = A(K_DRAGON, ids[j]); k += 1
        if caves:
            m = bits_list(P.hand_c, CW, ids)
            for j in range(m):
                if any_order:
                    if not picked(out, i, A(K_CAVE, ids[j])) and k < MAX_OPTS:
                        opts[k] = A(K_CAVE, ids[j]); k += 1
                elif A(K_CAVE, ids[j]) > last and m - j >= n - i and k < MAX_OPTS:
                    opts[k] = A(K_CAVE, ids[j]); k += 1
        if k == 0:
            return i
        last = choose(p, prompt, k, opts)
        out[i] = last
    return n

cdef void discard_from_hand(Core* g, int p, int a) noexcept:
    if A_KIND(a) == K_DRAGON:
        hand_remove_d(g, p, A_ARG(a))
        discard_d(g, A_ARG(a))
    else:
        hand_remove_c(g, p, A_ARG(a))
        discard_c(g, A_ARG(a))

# ---------------------------------------------------------------------------- costs of a dragon
cdef inline void dragon_need(int d, int* need) noexcept nogil:
    need[0] = DRAGONS[d][D_MEAT]
    need[1] = DRAGONS[d][D_GOLD]
    need[2] = DRAGONS[d][D_CRYSTAL]
    need[3] = DRAGONS[d][D_MILK]

cdef inline bint can_pay_printed(const Player* P, int d, int coins, int eggs) noexcept nogil:
    """Whether the printed cost of dragon d plus `coins` can be paid, `eggs` being total_eggs(P)."""
    cdef int need[4]
    if P.coins < coins + DRAGONS[d][D_COIN] or eggs < DRAGONS[d][D_EGG]:
        return False
    dragon_need(d, need)
    return can_pay_res(P, need, 0)

cdef bint can_entice_cost(const Player* P, int d, int coins, int mode) noexcept nogil:
    """mode: 0 printed, 1 free, 2 no resources, 3 one egg or resource less."""
    cdef int need[4]
    cdef int eggs = DRAGONS[d][D_EGG], i
    if mode == 1:
        return True
    if mode == 0:
        return can_pay_printed(P, d, coins, total_eggs(P))
    coins += DRAGONS[d][D_COIN]
    if P.coins < coins:
        return False
    dragon_need(d, need)
    if mode == 2:
        return total_eggs(P) >= eggs
    if mode == 3:
        if eggs == 0 and d_res_cost(d) == 0:
            return True         # nothing to waive: the rest of the cost is paid as printed
        if eggs > 0 and total_eggs(P) >= eggs - 1 and can_pay_res(P, need, 0):
            return True
        for i in range(NRES):
            if need[i] > 0:
                need[i] -= 1
                if total_eggs(P) >= eggs and can_pay_res(P, need, 0):
                    return True
                need[i] += 1
    return False

cdef void pay_entice_cost(Core* g, int p, int d, int coins, int mode) noexcept:
    cdef int need[4]
    cdef int opts[5]
    cdef int eggs = DRAGONS[d][D_EGG], i, n = 0, w, outer
    cdef Player* P = &g.p[p]
    if mode == 1:
        return
    outer = ask_as(p, asks(ASK_COST, d, 0))
    P.coins -= coins + DRAGONS[d][D_COIN]
    dragon_need(d, need)
    if mode == 2:
        for i in range(NRES):
            need[i] = 0
    elif mode == 3:
        for i in range(NRES):
            if need[i] > 0:
                need[i] -= 1
                if total_eggs(P) >= eggs and can_pay_res(P, need, 0):
                    opts[n] = A(K_WAIVE, i); n += 1
                need[i] += 1
        if eggs > 0 and total_eggs(P) >= eggs - 1 and can_pay_res(P, need, 0):
            opts[n] = A(K_WAIVE, 4); n += 1
        w = A_ARG(choose(p, P_WAIVE, n, opts)) if n > 0 else -1
        if w == -1:
            pass
        elif w == 4:
            eggs -= 1
        else:
            need[w] -= 1
    pay_res(g, p, need, 0)
    pay_eggs(g, p, eggs, 0, 0, 0)
    RUN.asked_by = outer

# ---------------------------------------------------------------------------- placing cards
cdef int entice_rows(const Player* P, int d, int* rows) noexcept nogil:
    cdef int c, n = 0
    for c in range(NCAVES):
        if d_lives_in(d, c) and first_empty_dragon_col(P, c) >= 0:
            rows[n] = c
            n += 1
    return n

cdef void place_dragon(Core* g, int p, int d, int cave, int col, int active, int depth) noexcept:
    """Put a dragon on a space (taken from wherever the caller took it) and resolve its when-played."""
    cdef Player* P = &g.p[p]
    P.dragon[cave][col] = d
    P.grown[cave][col] = 0
    if DRAGONS[d][D_ENTRY_WHEN_PLAYED] >= 0:
        run_ability(g, p, active, cave, col, DRAGONS[d][D_ENTRY_WHEN_PLAYED], depth, asks(ASK_DRAGON, d, 0))

cdef void cover_dragon(Core* g, int p, int d, int cave, int col, int active, int depth) noexcept:
    """Play a dragon on top of one of yours: the covered card becomes a tucked card (assumption)."""
    cdef Player* P = &g.p[p]
    bit_set(g.public_d, P.dragon[cave][col])     # every player saw the covered card
    P.tucked[cave][col] += 1
    if P.eggs[cave][col] > d_capacity(d):
        P.eggs[cave][col] = d_capacity(d)
    place_dragon(g, p, d, cave, col, active, depth)

cdef inline int res_after(const Player* P, int r) noexcept nogil:
    """Resources of the kinds after r (canonical order)."""
    cdef int t, n = 0
    for t in range(r + 1, NRES):
        n += P.res[t]
    return n

cdef bint can_exchange(const Player* P) noexcept nogil:
    return total_res(P) + cards_in_hand(P) >= RULES[R_EXCHANGE_ITEMS]

cdef void column_4_exchange(Core* g, int p, int active, int depth) noexcept:
    """Optionally give any 3 items (resources, dragon cards, cave cards) for the printed gain.
    Sampled, in canonical order, so each set is offered once; told (a real table), in the table's
    order (which items a seat may give first must not follow cards the table cannot see)."""
    cdef int opts[MAX_OPTS]
    cdef int ids[256]
    cdef int i, j, m, k, last = -1, a, outer
    cdef bint any_order = RUN.told
    cdef Player* P = &g.p[p]
    if not can_exchange(P):
        return
    outer = ask_as(p, asks(ASK_EXCHANGE, 0, 0))
    opts[0] = A(K_YES, 0); opts[1] = A(K_NO, 0)
    if choose(p, P_EXCHANGE, 2, opts) == A(K_NO, 0):
        RUN.asked_by = outer
        return
    cdef int left, need
    for i in range(RULES[R_EXCHANGE_ITEMS]):
        # items in canonical order (resources, dragon cards, cave cards); a candidate is offered
        # only if enough items follow it for the rest of the exchange
        need = RULES[R_EXCHANGE_ITEMS] - i
        k = 0
        left = cards_in_hand(P)
        for j in range(NRES):
            if P.res[j] and (any_order or (A(K_RES, j) >= last and left + P.res[j] + res_after(P, j) >= need)):
                opts[k] = A(K_RES, j); k += 1
        m = bits_list(P.hand_d, DW, ids)
        for j in range(m):
            if (any_order or (A(K_DRAGON, ids[j]) > last and P.n_hand_c + m - j >= need)) and k < MAX_OPTS:
                opts[k] = A(K_DRAGON, ids[j]); k += 1
        m = bits_list(P.hand_c, CW, ids)
        for j in range(m):
            if (any_order or (A(K_CAVE, ids[j]) > last and m - j >= need)) and k < MAX_OPTS:
                opts[k] = A(K_CAVE, ids[j]); k += 1
        last = choose(p, P_EXCHANGE, k, opts)
        if A_KIND(last) == K_RES:
            P.res[A_ARG(last)] -= 1
        else:
            discard_from_hand(g, p, last)
    run_ability(g, p, active, -1, -1, RULES[R_EXCHANGE_ENTRY], depth, asks(ASK_EXCHANGE, 0, 0))
    RUN.asked_by = outer

cdef void place_cave(Core* g, int p, int k, int cave, int col, int active, int depth) noexcept:
    """Put a cave card into a space; its when-played and (column 4) the exchange, in either order."""
    cdef int opts[2]
    cdef bint exchange_first = False
    cdef int outer
    g.p[p].cave[cave][col] = k
    if col == NCOLS - 1 and can_exchange(&g.p[p]):
        opts[0] = A(K_OPTION, 0); opts[1] = A(K_OPTION, 1)   # 0: card first, 1: exchange first
        outer = ask_as(p, asks(ASK_CAVE, k, 0))
        exchange_first = choose(p, P_ORDER, 2, opts) == A(K_OPTION, 1)
        RUN.asked_by = outer
    if exchange_first:
        column_4_exchange(g, p, active, depth)
    if CAVES[k] >= 0:
        run_ability(g, p, active, cave, col, CAVES[k], depth, asks(ASK_CAVE, k, 0))
    if col == NCOLS - 1 and not exchange_first:
        column_4_exchange(g, p, active, depth)

# ---------------------------------------------------------------------------- the guild
cdef void guild_steps(Core* g, int p, int n, int active, int depth) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int step, pos, a, j, k, m, outer
    cdef Player* P = &g.p[p]
    for step in range(n):
        P.guild_steps += 1
        pos = P.guild_steps % GUILD_SPACES
        if GUILD_TRACK[pos] >= 0:
            run_ability(g, p, active, -1, -1, GUILD_TRACK[pos], depth, asks(ASK_GUILD_TRACK, pos, 0))
            continue
        if P.markers_left == 0:
            continue
        m = 0
        for a in range(4):
            for j in range(GUILD_TILES[g.guild_tile][a][1]):
                if g.spot[a][j] == 0:
                    opts[m] = A(K_SPOT, a * 4 + j); m += 1
                    break          # the spots of one ability are alike: offer the first free one
        opts[m] = A(K_SPOT, 16); m += 1
        outer = ask_as(p, asks(ASK_GUILD_TRACK, pos, 0))
        k = A_ARG(choose(p, P_GUILD_SPOT, m, opts))
        RUN.asked_by = outer
        P.markers_left -= 1
        if k == 16:
            g.fixed_count += 1
            P.fixed_vp += RULES[R_FIXED_VP_1 + (g.fixed_count - 1 if g.fixed_count <= 3 else 2)]
            continue
        a = k >> 2
        g.spot[a][k & 3] = p + 1
        P.tile_markers[a] += 1
        if not GUILD_TILES[g.guild_tile][a][2]:
            run_ability(g, p, active, -1, -1, GUILD_TILES[g.guild_tile][a][0], depth,
                        asks(ASK_GUILD_TILE, a, 0))

# ---------------------------------------------------------------------------- end of a turn
cdef void hand_limits(Core* g, int p) noexcept:
    cdef int picks[32]
    cdef int opts[64]
    cdef int i, n, k, r, last = -1
    cdef Player* P = &g.p[p]
    n = cards_in_hand(P) - RULES[R_LIMIT_CARDS]
    if n > 0:
        n = pick_cards(g, p, n if n < 32 else 32, P_DISCARD, True, True, picks)
        for i in range(n):
            discard_from_hand(g, p, picks[i])
    if P.coins > RULES[R_LIMIT_COINS]:
        P.coins = RULES[R_LIMIT_COINS]
    cdef int a, b, t
    while total_res(P) > RULES[R_LIMIT_RESOURCES]:
        # discard one resource, or exchange two for one of another kind (any time, by the rules)
        k = 0
        for r in range(NRES):
            if P.res[r] and r >= last and P.res[r] + res_after(P, r) >= total_res(P) - RULES[R_LIMIT_RESOURCES]:
                opts[k] = A(K_RES, r); k += 1
        for a in range(NRES):
            for b in range(a, NRES):
                if P.res[a] < 1 + (a == b) or P.res[b] < 1:
                    continue
                for t in range(NRES):
                    if t != a and t != b:
                        opts[k] = A(K_EXCHANGE, a * 16 + b * 4 + t); k += 1
        a = choose(p, P_DISCARD, k, opts)
        if A_KIND(a) == K_RES:
            last = A_ARG(a)
            P.res[last] -= 1
        else:
            a = A_ARG(a)
            P.res[a >> 4] -= 1
            P.res[(a >> 2) & 3] -= 1
            P.res[a & 3] += 1

# ---------------------------------------------------------------------------- actions
cdef bint can_entice_action(const Player* P, int d, int cave) noexcept nogil:
    return (d_lives_in(d, cave) and first_empty_dragon_col(P, cave) >= 0
            and can_entice_cost(P, d, RULES[R_ENTICE_COINS], 0))

cdef inline int open_caves(const Player* P) noexcept nogil:
    """A bit per cave with a space for a dragon."""
    cdef int c, m = 0
    for c in range(NCAVES):
        if first_empty_dragon_col(P, c) >= 0:
            m |= 1 << c
    return m

cdef inline int entice_caves(const Player* P, int d, int open_, int eggs) noexcept nogil:
    """can_entice_action for every cave at once (a bit per cave), `open_` being open_caves(P) and
    `eggs` total_eggs(P): listing moves asks it for every dragon in hand, so what does not depend
    on the dragon is worked out once a listing, and its cost once, not per cave."""
    cdef int m = DRAGONS[d][D_CAVE_MASK] & open_
    if m and not can_pay_printed(P, d, RULES[R_ENTICE_COINS], eggs):
        return 0
    return m

cdef inline int excavate_eggs(int col) noexcept nogil:
    return RULES[R_EXCAVATE_EGGS_1 + col]

cdef inline bint can_excavate_into(const Player* P, int c, int eggs) noexcept nogil:
    """`eggs` is total_eggs(P), which a listing of moves counts once."""
    cdef int col = first_empty_cave_col(P, c)
    return P.coins >= RULES[R_EXCAVATE_COINS] and col >= 0 and eggs >= excavate_eggs(col)

cdef inline bint can_explore(const Player* P, int c, int eggs) noexcept nogil:
    """`eggs` is total_eggs(P)."""
    cdef int e = P.explores[c]
    return (e < RULES[R_EXPLORE_MAX] and P.coins >= RULES[R_EXPLORE_COINS_1 + e]
            and eggs >= RULES[R_EXPLORE_EGGS_1 + e])

cdef bint top_level_legal(const Player* P, int a) noexcept nogil:
    """Whether top-level move `a` is legal: what a replay checks of a logged move instead of
    listing every move again (the listing is most of a replayed turn's cost)."""
    cdef int k = A_KIND(a), arg = A_ARG(a), c = A_ARG(a) & 3
    if k == K_PASS:
        return arg == 0
    if k == K_EXPLORE:
        return 0 <= arg < NCAVES and can_explore(P, arg, total_eggs(P))
    if c >= NCAVES:
        return False
    if k == K_ENTICE:
        return 1 <= (arg >> 2) <= N_DRAGON_CARDS and bit_has(P.hand_d, arg >> 2) and can_entice_action(P, arg >> 2, c)
    if k == K_EXCAVATE:
        return 1 <= (arg >> 2) <= N_CAVE_CARDS and bit_has(P.hand_c, arg >> 2) and can_excavate_into(P, c, total_eggs(P))
    return False

cdef bint has_a_move(const Player* P) noexcept nogil:
    """Whether top_level_moves offers more than passing (the move is not forced)."""
    cdef int ids[256]
    cdef int m, i, c, op, eggs = total_eggs(P)
    for c in range(NCAVES):
        if can_explore(P, c, eggs):
            return True
    m = bits_list(P.hand_c, CW, ids)
    if m > 0:
        for c in range(NCAVES):
            if can_excavate_into(P, c, eggs):
                return True
    m = bits_list(P.hand_d, DW, ids)
    op = open_caves(P)
    for i in range(m):
        if entice_caves(P, ids[i], op, eggs):
            return True
    return False

cdef int top_level_moves(const Core* g, int p, int* out) noexcept nogil:
    cdef int ids[256]
    cdef int n = 0, m, i, c, op, caves, eggs
    cdef const Player* P = &g.p[p]
    m = bits_list(P.hand_d, DW, ids)
    op = open_caves(P)
    eggs = total_eggs(P)
    for i in range(m):
        caves = entice_caves(P, ids[i], op, eggs)
        for c in range(NCAVES):
            if (caves >> c) & 1 and n < MAX_OPTS - 8:
                out[n] = A(K_ENTICE, ids[i] * 4 + c); n += 1
    m = bits_list(P.hand_c, CW, ids)
    for c in range(NCAVES):
        if not can_excavate_into(P, c, eggs):
            continue
        for i in range(m):
            if n < MAX_OPTS - 8:
                out[n] = A(K_EXCAVATE, ids[i] * 4 + c); n += 1
    for c in range(NCAVES):
        if can_explore(P, c, eggs):
            out[n] = A(K_EXPLORE, c); n += 1
    out[n] = A(K_PASS, 0)
    return n + 1

cdef void explore(Core* g, int p, int cave) noexcept:
    cdef Player* P = &g.p[p]
    cdef int e = P.explores[cave], k, d
    P.explores[cave] += 1
    P.coins -= RULES[R_EXPLORE_COINS_1 + e]
    pay_eggs(g, p, RULES[R_EXPLORE_EGGS_1 + e], 0, 0, 0)
    run_ability(g, p, p, cave, -1, MAT_BENEFITS[cave][0], 0, asks(ASK_MAT, cave, 0))
    for k in range(NCOLS):
        d = P.dragon[cave][k]
        if d == 0:
            break
        if DRAGONS[d][D_ENTRY_IF_ACTIVATED] >= 0:
            run_ability(g, p, p, cave, k, DRAGONS[d][D_ENTRY_IF_ACTIVATED], 0, asks(ASK_DRAGON, d, 1))
        run_ability(g, p, p, cave, -1, MAT_BENEFITS[cave][k + 1], 0, asks(ASK_MAT, cave, k + 1))

cdef void play_turn(Core* g) noexcept:
    cdef int opts[MAX_OPTS]
    cdef int p = g.active, a, arg, d, c, col, n
    cdef Player* P = &g.p[p]
    if is_automa(g, p):
        automa_turn(g)
        g.turns += 1
        return
    if RUN.pos < RUN.nlog:
        # a replay: a turn's first logged decision is its move (a forced pass logs nothing, unless
        # a told game paused at it)
        a = RUN.log[RUN.pos] & ~LOG_FORCED
        RUN.pos += 1
        if not top_level_legal(P, a):
            RUN.bad = 1
            longjmp(RUN.jb, 2)
    elif RUN.skip_move_list and has_a_move(P):
        RUN.decider = p
        RUN.prompt = P_MOVE
        RUN.nopts = 0
        longjmp(RUN.jb, 1)
    else:
        a = choose(p, P_MOVE, top_level_moves(g, p, opts), opts)
    arg = A_ARG(a)
    if A_KIND(a) == K_PASS:
        P.passed = 1
    elif A_KIND(a) == K_ENTICE:
        d = arg >> 2
        c = arg & 3
        col = first_empty_dragon_col(P, c)
        pay_entice_cost(g, p, d, RULES[R_ENTICE_COINS], 0)
        hand_remove_d(g, p, d)
        place_dragon(g, p, d, c, col, p, 0)
    elif A_KIND(a) == K_EXCAVATE:
        d = arg >> 2
        c = arg & 3
        col = first_empty_cave_col(P, c)
        P.coins -= RULES[R_EXCAVATE_COINS]
        pay_eggs(g, p, excavate_eggs(col), 0, 0, 0)
        hand_remove_c(g, p, d)
        place_cave(g, p, d, c, col, p, 0)
    else:
        explore(g, p, arg)
    if A_KIND(a) != K_PASS:         # passing is not an action: no end-of-turn discard
        hand_limits(g, p)
    g.turns += 1

cdef int next_seat(const Core* g, int p) noexcept nogil:
    return (p + 1) % g.n_players

# ---------------------------------------------------------------------------- setup and rounds
cdef void setup_player(Core* g, int p) noexcept:
    cdef int picks[N_DRAGON_CARDS + N_CAVE_CARDS]     # a hand of any size (an edited state)
    cdef int opts[MAX_OPTS]
    cdef int i, n, a, b, c, d
    cdef Player* P = &g.p[p]
    n = cards_in_hand(P) - RULES[R_KEEP]
    if n > 0:
        n = pick_cards(g, p, n, P_SETUP_DISCARD, True, True, picks)
        for i in range(n):
            discard_from_hand(g, p, picks[i])
    n = 0
    for a in range(RULES[R_START_RESOURCES] + 1):
        for b in range(RULES[R_START_RESOURCES] + 1 - a):
            for c in range(RULES[R_START_RESOURCES] + 1 - a - b):
                d = RULES[R_START_RESOURCES] - a - b - c
                opts[n] = A(K_SETUP_RES, pack4(a, b, c, d)); n += 1
    a = A_ARG(choose(p, P_SETUP_RESOURCES, n, opts))
    for i in range(NRES):
        P.res[i] += (a >> (4 * i)) & 15

cdef int lay_targets(const Player* P, int* out) noexcept nogil:
    cdef int n = 0, s
    for s in range(13):
        if room_at(P, s) > 0:
            out[n] = A(K_PLACE, s); n += 1
    return n

cdef void round_start_eggs(Core* g, int p) noexcept:
    cdef int opts[16]
    cdef int i, n
    for i in range(RULES[R_ROUND_EGGS]):
        n = lay_targets(&g.p[p], opts)
        if n == 0:
            return
        add_egg(&g.p[p], A_ARG(choose(p, P_LAY, n, opts)), 1)

cdef void once_per_round(Core* g, int p) noexcept:
    """The player resolves each once-per-round ability of their dragons, in the order they choose."""
    cdef int opts[12]
    cdef uint8_t done[12]
    cdef int n, s, d, pick
    memset(done, 0, 12)
    while True:
        n = 0
        for s in range(12):
            d = g.p[p].dragon[s >> 2][s & 3]
            if d and not done[s] and DRAGONS[d][D_ENTRY_ONCE_PER_ROUND] >= 0:
                opts[n] = A(K_PLACE, s); n += 1
        if n == 0:
            return
        pick = A_ARG(choose(p, P_ORDER, n, opts))
        done[pick] = 1
        d = g.p[p].dragon[pick >> 2][pick & 3]
        run_ability(g, p, p, pick >> 2, pick & 3, DRAGONS[d][D_ENTRY_ONCE_PER_ROUND], 0,
                    asks(ASK_DRAGON, d, 2))

cdef inline bint better_key_seen(const int* keys, const int* counts, int q) noexcept nogil:
    """Whether a seat before q already has q's result (so a shared result counts once)."""
    cdef int k
    for k in range(q):
        if counts[k] > 0 and keys[k] == keys[q]:
            return True
    return False

cdef void objective_standing(Core* g, int* counts, int* vp) noexcept:
    """Each seat's count for this round's objective and the VP its rank would score now."""
    cdef int keys[MAXP]
    cdef int p, q, rank, r = g.round, tile = g.objective_tile[r], side = g.objective_side[r]
    cdef int entry = OBJECTIVES[tile][side]
    cdef bint guild_ties = (RULES[R_TIEBREAK_GUILD_A + side] >> tile) & 1
    for p in range(g.n_players):
        counts[p] = automa_objective_count(g) if is_automa(g, p) else eval_count_for(g, p, entry)
        keys[p] = counts[p] * 1000 + (g.p[p].guild_steps if guild_ties else 0)
    for p in range(g.n_players):
        # friendly ties: the rank is the number of distinct results better than this one
        rank = 0
        for q in range(g.n_players):
            if counts[q] > 0 and keys[q] > keys[p] and not better_key_seen(keys, counts, q):
                rank += 1
        vp[p] = RULES[R_OBJECTIVE_VP_1_1 + 3 * r + rank] if counts[p] > 0 and rank < 3 else 0

cdef void score_objective(Core* g) noexcept:
    cdef int counts[MAXP]
    cdef int vp[MAXP]
    cdef int p, r = g.round
    objective_standing(g, counts, vp)
    for p in range(g.n_players):
        g.p[p].obj_count[r] = counts[p] if counts[p] < 255 else 255
        g.p[p].obj_vp[r] = vp[p]
    g.n_scored = g.round + 1

cdef void new_round(Core* g) noexcept:
    cdef int i, p, c
    g.round += 1
    for i in range(DISPLAY):
        if g.display_d[i]:
            discard_d(g, g.display_d[i])
            g.display_d[i] = 0
        if g.display_c[i]:
            discard_c(g, g.display_c[i])
            g.display_c[i] = 0
    refill_display(g)
    for p in range(g.n_players):
        if is_ravel(g) and p == 0 and g.p[p].coins > RULES[R_RAVEL_COINS_KEPT]:
            g.p[p].coins = RULES[R_RAVEL_COINS_KEPT]
        if not is_automa(g, p):
            g.p[p].coins += RULES[R_ROUND_COINS]
        g.p[p].passed = 0
        for c in range(NCAVES):
            g.p[p].explores[c] = 0
    if g.automa_level:
        automa_new_round_deck(g)
        g.a_markers += RULES[R_AUTOMA_MARKERS_ROUND]
        g.start_player = 0          # the human starts every round
    else:
        g.start_player = next_seat(g, g.start_player)

cdef void end_game_abilities(Core* g, int p) noexcept:
    cdef int s, d, a, m, vp = 0
    cdef Player* P = &g.p[p]
    for s in range(12):
        d = P.dragon[s >> 2][s & 3]
        if d and DRAGONS[d][D_ENTRY_END_GAME] >= 0:
            vp += run_ability(g, p, p, s >> 2, s & 3, DRAGONS[d][D_ENTRY_END_GAME], 0, asks(ASK_DRAGON, d, 3))
    P.end_vp = vp
    vp = 0
    for a in range(4):
        if GUILD_TILES[g.guild_tile][a][2]:
            for m in range(P.tile_markers[a]):
                vp += run_ability(g, p, p, -1, -1, GUILD_TILES[g.guild_tile][a][0], 0, asks(ASK_GUILD_TILE, a, 0))
    P.tile_vp = vp

cdef bint step_segment(Core* g) noexcept:
    """Play one segment from a boundary to the next. Returns False when the game is over."""
    cdef int p, q
    if g.phase == PH_DEAL:
        deal(g)
    elif g.phase == PH_SETUP:
        if not is_automa(g, g.phase_player):
            setup_player(g, g.phase_player)
        g.phase_count += 1
        g.phase_player = next_seat(g, g.phase_player)
        if g.phase_count == g.n_players:
            g.phase = PH_TURN
            g.active = g.start_player
    elif g.phase == PH_TURN:
        play_turn(g)
        refill_display(g)
        p = g.active
        for q in range(g.n_players):
            p = next_seat(g, p)
            if not g.p[p].passed:
                g.active = p
                return True
        g.phase = PH_ROUND_END
        g.phase_player = g.start_player
        g.phase_count = 0
    elif g.phase == PH_ROUND_END:
        if not is_automa(g, g.phase_player):
            once_per_round(g, g.phase_player)
        refill_display(g)
        g.phase_count += 1
        g.phase_player = next_seat(g, g.phase_player)
        if g.phase_count == g.n_players:
            g.phase = PH_OBJECTIVE
    elif g.phase == PH_OBJECTIVE:
        score_objective(g)
        g.phase_count = 0
        if g.round == 3:
            g.phase = PH_END_GAME
            g.phase_player = g.start_player
        else:
            new_round(g)
            g.phase = PH_ROUND_START
            g.phase_player = g.start_player
    elif g.phase == PH_ROUND_START:
        if not is_automa(g, g.phase_player):
            round_start_eggs(g, g.phase_player)
        g.phase_count += 1
        g.phase_player = next_seat(g, g.phase_player)
        if g.phase_count == g.n_players:
            g.phase = PH_TURN
            g.active = g.start_player
    elif g.phase == PH_END_GAME:
        if not is_automa(g, g.phase_player):
            end_game_abilities(g, g.phase_player)
        g.phase_count += 1
        g.phase_player = next_seat(g, g.phase_player)
        if g.phase_count == g.n_players:
            g.phase = PH_OVER
    return g.phase != PH_OVER

# ---------------------------------------------------------------------------- scoring
cdef enum:
    S_GUILD = 0
    S_DRAGONS = 1
    S_END_GAME = 2
    S_EGGS = 3
    S_CACHED = 4
    S_TUCKED = 5
    S_OBJECTIVES = 6
    S_COINS = 7
    S_ITEMS = 8
    S_CAVES = 9             # the Automa's cave cards
    S_TOTAL = 10
    N_SCORE = 11

cdef void score_player(const Core* g, int p, int* out) noexcept nogil:
    cdef const Player* P = &g.p[p]
    cdef int c, k, r, d
    memset(out, 0, N_SCORE * sizeof(int))
    if is_automa(g, p):
        automa_score(g, out)
        for k in range(S_TOTAL):
            out[S_TOTAL] += out[k]
        return
    out[S_GUILD] = P.fixed_vp + P.tile_vp
    out[S_END_GAME] = P.end_vp
    out[S_EGGS] = total_eggs(P)
    for c in range(NCAVES):
        for k in range(NCOLS):
            d = P.dragon[c][k]
            if d:
                out[S_DRAGONS] += DRAGONS[d][D_VP]
            out[S_TUCKED] += P.tucked[c][k]
            for r in range(NRES):
                out[S_CACHED] += P.cached[c][k][r]
    for r in range(4):
        out[S_OBJECTIVES] += P.obj_vp[r]
    out[S_COINS] = P.coins
    out[S_ITEMS] = (cards_in_hand(P) + total_res(P)) // 4
    for k in range(S_TOTAL):
        out[S_TOTAL] += out[k]

cdef int winners_mask(const Core* g) noexcept nogil:
    """Bit p set for each winner: most VP, then most dragons on the mat, then most eggs."""
    cdef int sc[N_SCORE]
    cdef long key, best = -1
    cdef long keys[MAXP]
    cdef int p, mask = 0
    if g.automa_level:          # solo: ties go to the human
        score_player(g, 0, sc)
        best = sc[S_TOTAL]
        score_player(g, AUTOMA_SEAT, sc)
        return 1 if best >= sc[S_TOTAL] else 2
    for p in range(g.n_players):
        score_player(g, p, sc)
        keys[p] = (<long>sc[S_TOTAL] * 1000 + n_dragons(&g.p[p])) * 1000 + total_eggs(&g.p[p])
        if keys[p] > best:
            best = keys[p]
    for p in range(g.n_players):
        if keys[p] == best:
            mask |= 1 << p
    return mask
