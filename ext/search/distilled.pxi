# The distilled playouts (issue 65): the weighted policy's weight of each option times a learnt
# factor for that option at that kind of decision in that round. No lookahead, so they cost about
# what weighted playouts cost, and they play more like the net agent, whose choices the factors
# are fitted to (bench/fit_distilled.py; shipped as advisor/data/distilled.npz).

cdef enum:
    DIST_ANY_ROUND = 4      # a key's round for an option's factor in every round (no round's own)

DISTILLED_ANY_ROUND = DIST_ANY_ROUND

cdef inline uint64_t distilled_key(int prompt, int round, int a) noexcept nogil:
    """A factor's key (0: an empty slot): the decision's prompt and round, and the option."""
    return ((<uint64_t>(prompt * 5 + round) << 32) | <uint64_t><unsigned int>a) + 1

cdef inline uint64_t distilled_slot(uint64_t key, int shift) noexcept nogil:
    """Where a probe for `key` starts in a table of 2^(64 - shift) slots."""
    return (key * <uint64_t>0x9E3779B97F4A7C15) >> shift

cdef inline float distilled_factor(int prompt, int round, int a) noexcept nogil:
    """The learnt factor of option `a`: its round's, else every round's, else 1 (never seen). The
    installed table holds every round's factor under each round's key that has none of its own,
    so one probe finds it."""
    cdef uint64_t key = distilled_key(prompt, round, a)
    cdef uint64_t h = distilled_slot(key, DISTILLED_SHIFT)
    while DISTILLED[h].key != 0:
        if DISTILLED[h].key == key:
            return DISTILLED[h].factor
        h = (h + 1) & DISTILLED_MASK
    return 1

cdef int distilled_pick(int prompt, int round, int n, const int* opts, uint64_t* rng) noexcept nogil:
    """An option at random, weighted by the weighted policy's weight times its learnt factor."""
    cdef float w[MAX_OPTS]
    cdef float total = 0, r
    cdef int i
    if n == 1:
        return opts[0]
    for i in range(n):
        w[i] = policy_weight(opts[i]) * distilled_factor(prompt, round, opts[i])
        total += w[i]
    r = <float>((rng_next(rng) >> 40) * (1.0 / 16777216.0)) * total
    for i in range(n):
        r -= w[i]
        if r < 0:
            return opts[i]
    return opts[n - 1]

cdef int distilled_autopick(void* ctx, int player, int prompt, int n, const int* opts, uint64_t* rng) noexcept nogil:
    """distilled_pick under autoplay; ctx: the game played out (for its round)."""
    return distilled_pick(prompt, (<GameData*>ctx).snap.round, n, opts, rng)


def install_distilled(keys, factors):
    """Copy the distilled playouts' factors into the core: keys (uint64, from `distilled_keys`)
    and factors (positive); advisor.search.data reads them from a file."""
    global DISTILLED, DISTILLED_MASK, DISTILLED_SHIFT, DISTILLED_INSTALLS
    k = np.ascontiguousarray(keys, dtype=np.uint64)
    f = np.ascontiguousarray(factors, dtype=np.float32)
    if k.ndim != 1 or f.shape != k.shape:
        raise ValueError(f"keys and factors: expected two arrays of one length, got shapes {k.shape}, {f.shape}")
    if not (np.isfinite(f).all() and (f > 0).all()):
        raise ValueError("the factors are not all positive finite numbers")
    if (k == 0).any() or len(np.unique(k)) != len(k):
        raise ValueError("the keys are not all distinct and nonzero")
    # every round's factor copied to each round's key that has no factor of its own
    base = k - np.uint64(1)
    each = (base >> np.uint64(32)) % np.uint64(5) == DIST_ANY_ROUND
    any_base, any_f = base[each], f[each]
    for r in range(DIST_ANY_ROUND):
        copies = any_base - (np.uint64(DIST_ANY_ROUND - r) << np.uint64(32)) + np.uint64(1)
        new = ~np.isin(copies, k)
        k = np.concatenate([k, copies[new]])
        f = np.concatenate([f, any_f[new]])
    cdef int bits = 10
    while (1 << bits) < 4 * len(k):         # at most a quarter full: short probes
        bits += 1
    cdef uint64_t size = 1 << bits
    cdef DistilledSlot* table = <DistilledSlot*>calloc(size, sizeof(DistilledSlot))
    if table == NULL:
        raise MemoryError()
    cdef uint64_t[::1] kv = k
    cdef float[::1] fv = f
    cdef uint64_t h
    cdef long i
    for i in range(len(k)):
        h = distilled_slot(kv[i], 64 - bits)
        while table[h].key != 0:
            h = (h + 1) & (size - 1)
        table[h].key = kv[i]
        table[h].factor = fv[i]
    free(DISTILLED)
    DISTILLED = table
    DISTILLED_MASK = size - 1
    DISTILLED_SHIFT = 64 - bits
    DISTILLED_INSTALLS += 1

def distilled_keys(prompts, rounds, actions):
    """The factors' keys of (prompt, round, action) triples, arrays of one length; a round of
    DISTILLED_ANY_ROUND keys an option's factor for every round."""
    p = np.asarray(prompts, dtype=np.uint64)
    r = np.asarray(rounds, dtype=np.uint64)
    a = np.asarray(actions, dtype=np.int64).astype(np.uint32).astype(np.uint64)
    return (((p * 5 + r) << np.uint64(32)) | a) + np.uint64(1)

cdef int need_distilled() except -1:
    """Install the shipped factors on first use when none are (a fresh worker process)."""
    if DISTILLED == NULL and DISTILLED_INSTALLER is not None:
        DISTILLED_INSTALLER()
    if DISTILLED == NULL:
        raise RuntimeError("no distilled playouts are installed (advisor.search.data.use_distilled)")
    return 0

def distilled_installs():
    """How many factor sets this process installed so far: tells whether the one in use changed."""
    return DISTILLED_INSTALLS

def distilled_choice(int prompt, int round, opts, seed=0):
    """The distilled playouts' pick among `opts` at a decision of `prompt` in `round` (tests)."""
    cdef int o[MAX_OPTS]
    cdef int i, n = len(opts)
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    if not 1 <= n <= MAX_OPTS:
        raise ValueError(f"opts: 1..{MAX_OPTS} options, got {n}")
    need_distilled()
    for i in range(n):
        o[i] = opts[i]
    rng_next(&rng)
    return distilled_pick(prompt, round, n, o, &rng)

def policy_weights(actions):
    """The weighted policy's weight of each action (what the learnt factors multiply)."""
    return np.array([policy_weight(a) for a in actions], dtype=np.float64)
