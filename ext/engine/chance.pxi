# Chance: every chance event of the game goes through one of the points below (a card from a deck,
# the Automa's turned card, and the deal: guild tile, objectives, display, hands, first player).
#
# A game samples chance (the decks are shuffled at the deal, a card comes off the top) unless it
# was made with chance told (`Core.chance_told`): then each chance point is a decision of the chance
# seat (CHANCE_SEAT, prompt P_CHANCE) whose options are the outcomes that can come, and the caller
# gives the one the table shows. The outcome is logged like any decision, so a segment replays
# with it. A logged outcome is taken in either mode, so a sampled copy of a told game (a
# determinization) replays the segment it stopped in; where the deal moved a logged card that the
# determinizing seat never saw, the deck's top card takes its place (Run.dealt).

cdef enum:
    CHANCE_SEAT = -2        # the decider at a chance point

cdef enum:  # what a chance point is (GameData.context at a P_CHANCE pause: event << 4 | who)
    CH_HAND_DRAGON = 0      # a dragon card from the deck into seat `who`'s hand
    CH_HAND_CAVE = 1
    CH_DISPLAY_DRAGON = 2   # display slot `who` is refilled
    CH_DISPLAY_CAVE = 3
    CH_DEAL_DRAGON = 4      # the deal: a card into seat `who`'s starting hand
    CH_DEAL_CAVE = 5
    CH_TUCK = 6             # a card from the deck tucked face down under a dragon of seat `who`
    CH_REVEAL = 7           # a dragon card from the deck turned face up by seat `who`
    CH_PLAY_CAVE = 8        # a cave card from the deck played by seat `who`
    CH_GUILD_TILE = 9
    CH_OBJECTIVE = 10       # round `who`'s objective tile and side (tile * 2 + side)
    CH_FIRST_PLAYER = 11
    CH_AUTOMA_CARD = 12     # the Automa's next decision card
    N_CHANCE_EVENTS = 13

cdef inline bint chance_logged(int kind) noexcept nogil:
    """Whether the decision logged next (in a replay) is a chance outcome of `kind`."""
    return RUN.pos < RUN.nlog and A_KIND(RUN.log[RUN.pos] & ~LOG_FORCED) == kind

cdef inline bint chance_asked(const Core* g, int kind) noexcept nogil:
    return RUN.told and (g.chance_told or chance_logged(kind))

cdef int chance_outcome(int event, int who, int n, int* opts) noexcept nogil:
    """The outcome of a chance point among `opts`: logged, forced, or a pause for the caller."""
    RUN.context = (event << 4) | who
    return choose(CHANCE_SEAT, P_CHANCE, n, opts)

cdef int chance_card(uint8_t* deck, int n, int kind, int event, int who) noexcept nogil:
    """Index in `deck` (n cards) of the card a told or logged draw takes. The options are the deck's
    cards in ascending number, whatever their order in the deck."""
    cdef uint64_t inside[4]
    cdef int opts[256]
    cdef int i, k = 0, card, w
    memset(inside, 0, sizeof(inside))
    for i in range(n):
        bit_set(inside, deck[i])
    if RUN.dealt and chance_logged(kind) and not bit_has(inside, A_ARG(RUN.log[RUN.pos] & ~LOG_FORCED)):
        RUN.log[RUN.pos] = A(kind, deck[n - 1])     # a card the new deal moved: the top stands in
    for w in range(4):
        while inside[w]:
            i = __builtin_ctzll(inside[w])
            inside[w] &= inside[w] - 1
            opts[k] = A(kind, w * 64 + i)
            k += 1
    card = A_ARG(chance_outcome(event, who, k, opts))
    for i in range(n):
        if deck[i] == card:
            return i
    return n - 1

cdef inline void to_top(uint8_t* deck, int n, int i) noexcept nogil:
    cdef uint8_t t = deck[i]
    deck[i] = deck[n - 1]
    deck[n - 1] = t

cdef int draw_from(Core* g, uint8_t* deck, uint8_t* n_deck, uint8_t* disc, uint8_t* n_disc, int kind,
                   int event, int who) noexcept nogil:
    """A card from `deck` (its discards are shuffled in when it runs out); 0 if none. Slots past a
    pile's count stay 0, as Game.from_dict makes them: equal states have equal bytes (a kept
    tree's reuse compares them)."""
    cdef int card
    if n_deck[0] == 0:
        if n_disc[0] == 0:
            return 0
        memcpy(deck, disc, n_disc[0])
        memset(disc, 0, n_disc[0])
        n_deck[0] = n_disc[0]
        n_disc[0] = 0
        g.reshuffles += 1
        shuffle_u8(deck, n_deck[0], &g.rng)
    if chance_asked(g, kind):
        to_top(deck, n_deck[0], chance_card(deck, n_deck[0], kind, event, who))
    n_deck[0] -= 1
    card = deck[n_deck[0]]
    deck[n_deck[0]] = 0
    return card

cdef inline int draw_d(Core* g, int event, int who) noexcept nogil:
    """A dragon card from the deck (draw_from)."""
    return draw_from(g, g.deck_d, &g.n_deck_d, g.disc_d, &g.n_disc_d, K_DRAW_DRAGON, event, who)

cdef inline int draw_c(Core* g, int event, int who) noexcept nogil:
    """A cave card from the deck (draw_from)."""
    return draw_from(g, g.deck_c, &g.n_deck_c, g.disc_c, &g.n_disc_c, K_DRAW_CAVE, event, who)

cdef void refill_display(Core* g) noexcept nogil:
    cdef int i
    for i in range(DISPLAY):
        if g.display_d[i] == 0:
            g.display_d[i] = draw_d(g, CH_DISPLAY_DRAGON, i)
        if g.display_c[i] == 0:
            g.display_c[i] = draw_c(g, CH_DISPLAY_CAVE, i)

cdef int chance_number(Core* g, int event, int who, int sampled, int n, int* opts) noexcept nogil:
    """A chance outcome that is a number (a tile, a seat, an Automa card): `sampled` unless told."""
    if not chance_asked(g, K_CHANCE):
        return sampled
    return A_ARG(chance_outcome(event, who, n, opts))

cdef int automa_card(Core* g) noexcept nogil:
    """The Automa's next decision card: told, or the next of her shuffled deck."""
    cdef int opts[8]
    cdef int i, j, k = 0, card
    if not chance_asked(g, K_CHANCE):
        g.a_next += 1
        return g.a_deck[g.a_next - 1]
    for i in range(g.a_next, 8):
        for j in range(g.a_next, i):
            if g.a_deck[j] == g.a_deck[i]:
                break
        else:
            opts[k] = A(K_CHANCE, g.a_deck[i])
            k += 1
    card = chance_number(g, CH_AUTOMA_CARD, 0, g.a_deck[g.a_next], k, opts)
    for i in range(g.a_next, 8):
        if g.a_deck[i] == card:
            g.a_deck[i] = g.a_deck[g.a_next]
            g.a_deck[g.a_next] = card
            break
    g.a_next += 1
    return card

cdef void deal(Core* g) noexcept nogil:
    """The deal, from a state with its seats and ordered decks: decks, guild tile, objectives,
    display, the Automa's deck, starting hands and the first player. Sampled, it draws from the
    RNG in the same order as ever; told, each outcome is asked."""
    cdef int opts[20]
    cdef int i, p, t, side, tile, n, players = g.n_players
    cdef uint8_t tiles[10]
    cdef int used = 0
    shuffle_u8(g.deck_d, g.n_deck_d, &g.rng)
    shuffle_u8(g.deck_c, g.n_deck_c, &g.rng)
    for i in range(4):
        opts[i] = A(K_CHANCE, i)
    g.guild_tile = chance_number(g, CH_GUILD_TILE, 0, rng_below(&g.rng, 4), 4, opts)
    for i in range(10):
        tiles[i] = i
    shuffle_u8(tiles, 10, &g.rng)
    for i in range(4):
        tile = tiles[i]
        side = rng_below(&g.rng, 2)
        if g.automa_level and not AUTOMA_OBJECTIVES[tile][side][0]:
            side ^= 1        # a side the Automa cannot score is redrawn
        n = 0
        for t in range(10):
            if not (used >> t) & 1:
                for p in range(2):
                    if not g.automa_level or AUTOMA_OBJECTIVES[t][p][0]:
                        opts[n] = A(K_CHANCE, t * 2 + p)
                        n += 1
        t = chance_number(g, CH_OBJECTIVE, i, tile * 2 + side, n, opts)
        g.objective_tile[i] = t >> 1
        g.objective_side[i] = t & 1
        used |= 1 << (t >> 1)
    refill_display(g)
    if g.automa_level:
        automa_new_round_deck(g)
        g.a_markers = RULES[R_AUTOMA_MARKERS_START]
    for p in range(players):
        if is_automa(g, p):
            g.p[p].markers_left = 0
            continue
        g.p[p].coins = RULES[R_START_COINS]
        g.p[p].nest_eggs = RULES[R_START_EGGS]
        g.p[p].markers_left = RULES[R_GUILD_MARKERS]
        for i in range(RULES[R_DEAL_DRAGONS]):
            hand_add_d(g, p, draw_d(g, CH_DEAL_DRAGON, p), False)
        for i in range(RULES[R_DEAL_CAVES]):
            hand_add_c(g, p, draw_c(g, CH_DEAL_CAVE, p), False)
    if g.automa_level:
        g.start_player = 0
    else:
        for p in range(players):
            opts[p] = A(K_CHANCE, p)
        g.start_player = chance_number(g, CH_FIRST_PLAYER, 0, rng_below(&g.rng, players), players, opts)
    g.phase = PH_SETUP
    g.phase_player = g.start_player
    g.phase_count = 0
