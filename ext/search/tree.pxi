# The search tree: a pool of nodes, children as linked lists. A node's action is its tree key, so
# one node never mixes different cards across determinizations.

ctypedef struct Node:
    int parent
    int child               # first child
    int sibling
    int action              # the tree key of the action that leads here
    int player              # who chose `action`
    int visits
    int avail               # times the action was legal when its parent was visited
    double reward           # sum of rewards, from `player`'s view
    double win_sum          # the searching player's wins, final scores and margins (root children report them)
    double score_sum
    double score_sq
    double margin_sum
    double margin_sq

ctypedef struct Tree:
    Node* nodes
    long n
    long cap

cdef long new_node(Tree* t, int parent, int action, int player) noexcept nogil:
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

cdef enum:
    KEY_SLOTS = 512         # select_child's table of legal tree keys: a power of two, >= 2 * MAX_OPTS
    KEY_SHIFT = 23          # 32 - log2(KEY_SLOTS)

cdef long select_child(Tree* t, long node, const GameData* G, const SearchParams* sp,
                       uint64_t* rng, int* untried, int* n_untried, int* chosen, int* n_children) noexcept nogil:
    """Count availability of the legal children, list the untried legal actions and return the
    legal child with the best UCB1 value (-1 if none); `chosen` gets its action in this world and
    `n_children` the node's count of children. One walk over the children, each looked up in a
    table of the legal actions' keys: walking the list once per legal action cost a sixth of a
    2-player search in cache misses."""
    cdef long c, best = -1
    cdef int i, n = 0
    cdef unsigned int h
    cdef double v, best_v = -1e300
    cdef int keys[MAX_OPTS]
    cdef short at[MAX_OPTS]             # each legal action's slot
    cdef short slot[KEY_SLOTS]          # 1 + the first legal action of the slot's key, 0: empty
    cdef long child[KEY_SLOTS]          # the slot's child, the first in the list (read where slot != 0)
    cdef Node* ch
    memset(slot, 0, sizeof(slot))
    for i in range(G.nopts):
        keys[i] = tree_key_of(G, G.opts[i])
        h = (<unsigned int>keys[i] * 0x9E3779B1u) >> KEY_SHIFT
        while slot[h] != 0 and keys[slot[h] - 1] != keys[i]:
            h = (h + 1) & (KEY_SLOTS - 1)
        if slot[h] == 0:
            slot[h] = i + 1
            child[h] = -1
        at[i] = h
    c = t.nodes[node].child
    while c >= 0:
        n += 1
        h = (<unsigned int>t.nodes[c].action * 0x9E3779B1u) >> KEY_SHIFT
        while slot[h] != 0 and keys[slot[h] - 1] != t.nodes[c].action:
            h = (h + 1) & (KEY_SLOTS - 1)
        if slot[h] != 0 and child[h] < 0:
            child[h] = c
        c = t.nodes[c].sibling
    n_children[0] = n
    n_untried[0] = 0
    for i in range(G.nopts):
        c = child[at[i]]
        if c < 0:
            untried[n_untried[0]] = G.opts[i]
            n_untried[0] += 1
            continue
        t.nodes[c].avail += 1
    for i in range(G.nopts):
        c = child[at[i]]
        if c < 0:
            continue
        ch = &t.nodes[c]
        if ch.visits == 0:
            v = 1e100 + rng_below(rng, 1000)
        else:
            v = ch.reward / ch.visits + sp.c * sqrt(log(<double>ch.avail) / ch.visits)
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


cdef long most_visited(const Tree* t, long node) noexcept nogil:
    """The child of `node` with the most visits (the first of equals), -1 if none was visited."""
    cdef long c = t.nodes[node].child, best = -1
    cdef int best_v = 0
    while c >= 0:
        if t.nodes[c].visits > best_v:
            best_v = t.nodes[c].visits
            best = c
        c = t.nodes[c].sibling
    return best
