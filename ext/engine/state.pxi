# The game state: one flat C struct (fixed arrays and bitsets, no pointers), copied by memcpy.

from libc.string cimport memcpy, memset, memcmp
from libc.stdint cimport uint64_t, uint8_t, uint16_t, int16_t, int32_t

cdef enum:
    MAXP = 5
    NCAVES = 3              # caves (rows) of a mat
    NCOLS = 4               # spaces (columns) of a cave
    NRES = 4                # meat gold crystal milk
    N_DRAGON_CARDS = 183
    N_CAVE_CARDS = 75
    DISPLAY = 3
    MAT_NEST = 12           # "slot" id of the printed nests; dragon slots are cave * 4 + column
    DW = 3                  # 64-bit words of a dragon-card bitset (ids 1..183)
    CW = 2                  # words of a cave-card bitset (ids 1..75)
    GUILD_SPACES = 12
    MAX_SPOTS = 4           # markers per guild tile ability

cdef enum:  # phases: each is one segment of play between two decision-free boundaries
    PH_SETUP = 0            # phase_player keeps cards and takes resources
    PH_TURN = 1             # `active` takes a turn
    PH_ROUND_END = 2        # phase_player resolves once-per-round abilities
    PH_OBJECTIVE = 3        # the round's objective is scored, then the next round starts
    PH_ROUND_START = 4      # phase_player lays the round's egg
    PH_END_GAME = 5         # phase_player resolves end-game abilities
    PH_OVER = 6
    PH_DEAL = 7             # a game with chance told: the deal, asked outcome by outcome (chance.pxi)

ctypedef struct Player:
    uint8_t dragon[NCAVES][NCOLS]        # dragon card id, 0 = empty
    uint8_t cave[NCAVES][NCOLS]          # cave card id in columns 1..3 (column 0 is pre-excavated)
    uint8_t eggs[NCAVES][NCOLS]
    uint8_t cached[NCAVES][NCOLS][NRES]
    uint8_t tucked[NCAVES][NCOLS]
    uint8_t grown[NCAVES][NCOLS]         # hatchling grew up (its once-only bonus is spent)
    uint8_t nest_eggs                    # eggs on the printed mat nests
    uint8_t coins
    uint8_t res[NRES]
    uint8_t explores[NCAVES]             # explores of each cave this round
    int16_t guild_steps                  # total steps moved on the guild track
    uint8_t markers_left
    uint8_t passed
    uint8_t obj_vp[4]                    # objective VP per round
    uint8_t obj_count[4]                 # the counted quantity per scored round
    uint8_t fixed_vp                     # VP of markers on the fixed-VP guild spot
    uint8_t tile_markers[4]              # markers on each guild tile ability
    uint8_t n_hand_d, n_hand_c
    uint64_t hand_d[DW]
    uint64_t hand_c[CW]
    uint64_t known_d[DW]                 # cards in this hand every player has seen arrive
    uint64_t known_c[CW]
    uint64_t seen_d[DW]                  # face-down cards this player saw go out of play
    int16_t end_vp                       # VP from end-game abilities (set at game end)
    int16_t tile_vp                      # VP from end-game guild tile abilities (set at game end)

ctypedef struct Core:
    uint8_t n_players
    uint8_t round                        # 0..3
    uint8_t phase
    uint8_t phase_player                 # seat index whose segment runs in setup/round-end phases
    uint8_t phase_count                  # how many seats of the phase are done
    uint8_t active                       # whose turn it is
    uint8_t start_player
    uint8_t printing
    uint8_t guild_tile                   # 0..3
    uint8_t objective_tile[4]            # per round: tile 0..9
    uint8_t objective_side[4]            # 0 = a, 1 = b
    uint8_t spot[4][MAX_SPOTS]           # guild tile spots: seat + 1, 0 = free
    uint8_t fixed_count                  # markers on the fixed-VP spot
    uint8_t display_d[DISPLAY]
    uint8_t display_c[DISPLAY]
    uint8_t deck_d[N_DRAGON_CARDS]       # draw from the end
    uint8_t deck_c[N_CAVE_CARDS]
    uint8_t disc_d[N_DRAGON_CARDS]       # face-up discard piles
    uint8_t disc_c[N_CAVE_CARDS]
    uint8_t n_deck_d, n_deck_c, n_disc_d, n_disc_c
    uint8_t reshuffles
    uint8_t n_scored                     # objectives scored so far
    uint16_t turns                       # turns taken in the game
    uint64_t public_d[DW]                # face-down cards every player has seen
    uint64_t public_c[CW]                # cave cards out of play that every player has seen
    uint64_t rng
    # solo: the Automa in seat 1 (ext/automa.pxi)
    uint8_t automa_level                 # 0 = none; 1-3 levels 1-3; 4-6 Ravel levels 1-3
    uint8_t a_deck[8]                    # her decision cards this round (AUTOMA_CARDS rows)
    uint8_t a_next                       # cards revealed this round
    uint8_t a_playable                   # cards she may play this round
    uint8_t a_dragons, a_caves           # cards she took from the display
    uint8_t a_markers                    # guild markers ready
    uint8_t a_fixed_vp                   # Ravel: VP of her markers on the fixed-VP spot
    int16_t a_last_brown                 # her guild steps when she last reached a brown space
    uint8_t obj_coins[4]                 # coins on each round's objective
    uint8_t chance_told                  # chance is told by the caller (chance.pxi), not sampled
    # last, so that a copy stops after the seats in play (copy_core)
    Player p[MAXP]

cdef inline size_t core_bytes(const Core* c) noexcept nogil:
    """The bytes of `c` in use: everything up to its last seat in play."""
    return <size_t>(<const char*>&c.p[c.n_players] - <const char*>c)

cdef inline void copy_core(Core* dst, const Core* src) noexcept nogil:
    """Copy a state without the unused seats (most games have two: a third of a state's bytes)."""
    memcpy(dst, src, core_bytes(src))

# ---------------------------------------------------------------------------- bitsets
cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil

cdef inline bint bit_has(const uint64_t* b, int i) noexcept nogil:
    return (b[i >> 6] >> (i & 63)) & 1

cdef inline void bit_set(uint64_t* b, int i) noexcept nogil:
    b[i >> 6] |= (<uint64_t>1) << (i & 63)

cdef inline void bit_clear(uint64_t* b, int i) noexcept nogil:
    b[i >> 6] &= ~((<uint64_t>1) << (i & 63))

cdef inline int bits_list(const uint64_t* b, int words, int* out) noexcept nogil:
    """The members of a bitset, ascending."""
    cdef int w, n = 0
    cdef uint64_t x
    for w in range(words):
        x = b[w]
        while x:
            out[n] = w * 64 + __builtin_ctzll(x)
            n += 1
            x &= x - 1
    return n

# ---------------------------------------------------------------------------- RNG (splitmix64)
cdef inline uint64_t rng_next(uint64_t* s) noexcept nogil:
    s[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

cdef inline int rng_below(uint64_t* s, int n) noexcept nogil:
    return <int>((rng_next(s) >> 33) % <uint64_t>n)

cdef void shuffle_u8(uint8_t* a, int n, uint64_t* s) noexcept nogil:
    cdef int i, j
    cdef uint8_t t
    for i in range(n - 1, 0, -1):
        j = rng_below(s, i + 1)
        t = a[i]; a[i] = a[j]; a[j] = t

# ---------------------------------------------------------------------------- card facts
cdef inline int d_size(int d) noexcept nogil:
    return DRAGONS[d][D_SIZE]

cdef inline int d_capacity(int d) noexcept nogil:
    return DRAGONS[d][D_CAPACITY]

cdef inline int d_personality(int d) noexcept nogil:
    return DRAGONS[d][D_PERSONALITY]

cdef inline int d_res_cost(int d) noexcept nogil:
    return DRAGONS[d][D_MEAT] + DRAGONS[d][D_GOLD] + DRAGONS[d][D_CRYSTAL] + DRAGONS[d][D_MILK]

cdef inline bint d_lives_in(int d, int cave) noexcept nogil:
    return (DRAGONS[d][D_CAVE_MASK] >> cave) & 1

# ---------------------------------------------------------------------------- mat queries
cdef inline int total_eggs(const Player* P) noexcept nogil:
    cdef int c, k, n = P.nest_eggs
    for c in range(NCAVES):
        for k in range(NCOLS):
            n += P.eggs[c][k]
    return n

cdef inline int total_res(const Player* P) noexcept nogil:
    return P.res[0] + P.res[1] + P.res[2] + P.res[3]

cdef inline int n_dragons(const Player* P) noexcept nogil:
    cdef int c, k, n = 0
    for c in range(NCAVES):
        for k in range(NCOLS):
            if P.dragon[c][k]:
                n += 1
    return n

cdef inline int room_at(const Player* P, int slot) noexcept nogil:
    """Free egg places at a slot (a dragon or the printed nests)."""
    if slot == MAT_NEST:
        return RULES[R_MAT_NESTS] - P.nest_eggs
    cdef int d = P.dragon[slot >> 2][slot & 3]
    if d == 0:
        return 0
    return d_capacity(d) - P.eggs[slot >> 2][slot & 3]

cdef inline int eggs_at(const Player* P, int slot) noexcept nogil:
    if slot == MAT_NEST:
        return P.nest_eggs
    return P.eggs[slot >> 2][slot & 3]

cdef inline void add_egg(Player* P, int slot, int n) noexcept nogil:
    if slot == MAT_NEST:
        P.nest_eggs += n
    else:
        P.eggs[slot >> 2][slot & 3] += n

cdef inline int first_empty_dragon_col(const Player* P, int cave) noexcept nogil:
    """Leftmost space of a cave without a dragon, if it is excavated; else -1."""
    cdef int k
    for k in range(NCOLS):
        if P.dragon[cave][k] == 0:
            if k == 0 or P.cave[cave][k]:
                return k
            return -1
    return -1

cdef inline int first_empty_cave_col(const Player* P, int cave) noexcept nogil:
    cdef int k
    for k in range(1, NCOLS):
        if P.cave[cave][k] == 0:
            return k
    return -1

cdef inline int cards_in_hand(const Player* P) noexcept nogil:
    return P.n_hand_d + P.n_hand_c

# ---------------------------------------------------------------------------- decks and hands
cdef void hand_add_d(Core* g, int p, int d, bint public) noexcept nogil:
    bit_set(g.p[p].hand_d, d)
    g.p[p].n_hand_d += 1
    if public:
        bit_set(g.p[p].known_d, d)

cdef void hand_add_c(Core* g, int p, int k, bint public) noexcept nogil:
    bit_set(g.p[p].hand_c, k)
    g.p[p].n_hand_c += 1
    if public:
        bit_set(g.p[p].known_c, k)

cdef void hand_remove_d(Core* g, int p, int d) noexcept nogil:
    bit_clear(g.p[p].hand_d, d)
    bit_clear(g.p[p].known_d, d)
    g.p[p].n_hand_d -= 1

cdef void hand_remove_c(Core* g, int p, int k) noexcept nogil:
    bit_clear(g.p[p].hand_c, k)
    bit_clear(g.p[p].known_c, k)
    g.p[p].n_hand_c -= 1

cdef inline void discard_d(Core* g, int d) noexcept nogil:
    g.disc_d[g.n_disc_d] = d
    g.n_disc_d += 1

cdef inline void discard_c(Core* g, int k) noexcept nogil:
    g.disc_c[g.n_disc_c] = k
    g.n_disc_c += 1

