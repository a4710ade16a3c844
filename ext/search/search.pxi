# Information-set MCTS (single-observer: one tree of the searching player's information sets), all in C.
#
# Each iteration deals a determinization from the searching player's view (determinize), walks the
# tree choosing among the children whose actions are legal in that world (UCB1 over availability
# counts), expands one action, plays the game out with the playout policy (playout.pxi), and backs
# the reward up, each node crediting the player who chose its action.

from cpython.exc cimport PyErr_CheckSignals

cdef enum:
    SIGNAL_EVERY = 64   # iterations between checks for a signal (Ctrl-C): a small share of the loop


class SearchInterrupted(KeyboardInterrupt):
    """An interrupt (Ctrl-C) stopped a search; `result` is what it found so far, as search()
    returns it, with "interrupted" True."""

    def __init__(self, result):
        super().__init__("search interrupted")
        self.result = result

cdef inline double now_s() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

cdef enum:
    MAX_ROOT = 2 * MAX_OPTS     # root children with outcome sums (a reused root may hold more)

ctypedef struct RootStat:       # one root child's outcomes in this search, for forecasts and reasons
    long node
    long n
    double score[MAXP]          # every seat's final score
    double part[N_SCORE]        # the searcher's final score by category

ctypedef struct RootStats:
    RootStat s[MAX_ROOT]
    int n

cdef inline void note_root(RootStats* rs, long node, int n_players, int me, const double* score,
                           const int* parts) noexcept nogil:
    cdef int i, k
    for i in range(rs.n):
        if rs.s[i].node == node:
            break
    else:
        if rs.n == MAX_ROOT:
            return
        i = rs.n
        rs.n += 1
        rs.s[i].node = node
    rs.s[i].n += 1
    for k in range(n_players):
        rs.s[i].score[k] += score[k]
    for k in range(N_SCORE):
        rs.s[i].part[k] += parts[me * N_SCORE + k]

ctypedef struct SearchResult:
    long iterations
    long nodes
    double seconds
    int errors
    long reused_visits          # the reused root's visits before this search (0: a fresh tree)

cdef double PARTIAL_EVERY_S = 0.5      # seconds between the statistics so far given to `partial`

cdef SearchResult run_search(const GameData* root, int me, const SearchParams* sp, Tree* t,
                             GameData* work, GameData* scratch, long* root_node, long reused, Mast* mast,
                             RootStats* roots, object progress, object partial, list stopped) noexcept:
    """The search, from the tree's root node (`root_node`, set here); `reused` >= 0 is a root kept
    from an earlier search (its statistics go on). `partial` (when not None) is given the
    statistics so far (root_result) about every PARTIAL_EVERY_S seconds, where `progress` is
    checked; it only reads the tree, so the search goes on exactly as without it.
    A signal handler's, `progress`'s or `partial`'s exception (Ctrl-C) ends the search: it goes in
    `stopped` and the statistics so far stay."""
    cdef SearchResult res
    cdef uint64_t rng = sp.seed
    cdef double t0 = now_s()
    cdef double last_partial = t0
    cdef double reward[MAXP]
    cdef double score[MAXP]
    cdef double margin[MAXP]
    cdef double wins[MAXP]
    cdef double judged[MAXP]
    cdef int parts[MAXP * N_SCORE]
    cdef long path[MAX_PATH]
    cdef long cur
    cdef int untried[MAX_OPTS]
    cdef int n_untried, n_children, depth, i, dec, a, chosen = -1, allowed, played
    cdef long node, ch, it = 0, remaining
    cdef double elapsed, r
    cdef bint expanded
    memset(&res, 0, sizeof(res))
    rng_next(&rng)
    root_node[0] = reused if reused >= 0 else new_node(t, -1, -1, -1)
    if reused >= 0:
        res.reused_visits = t.nodes[reused].visits
    while True:
        if sp.iterations > 0 and it >= sp.iterations:
            break
        if sp.seconds > 0 and (it & 15) == 0 and now_s() - t0 >= sp.seconds:
            break
        if (it & (SIGNAL_EVERY - 1)) == 0 and it > 0:
            try:
                PyErr_CheckSignals()
                if (it & 1023) == 0 and progress is not None:
                    progress(it, now_s() - t0)
                    use_printing(root.snap.printing)     # the callback may have played another printing
                if (it & 1023) == 0 and partial is not None and now_s() - last_partial >= PARTIAL_EVERY_S:
                    res.iterations, res.nodes, res.seconds = it, t.n, now_s() - t0
                    partial(root_result(root, me, t, root_node[0], roots, &res, False))
                    use_printing(root.snap.printing)
                    last_partial = now_s()
            except BaseException as e:
                use_printing(root.snap.printing)
                stopped.append(e)
                break
        if sp.iterations <= 0 and sp.seconds <= 0:
            break
        if sp.stop_early and (it & 63) == 0 and it > 0:
            elapsed = now_s() - t0
            remaining = sp.iterations - it if sp.iterations > 0 else 1L << 40
            if sp.seconds > 0 and elapsed > 0:
                remaining = min(remaining, <long>(it / elapsed * (sp.seconds - elapsed)) + 1)
            if decided(t, root_node[0], root, remaining):
                break
        it += 1
        if mast != NULL:
            mast.trail_n = 0
        copy_game(work, root)
        if not sp.clairvoyant and determinize(work, me, &rng) < 0:
            res.errors += 1
            continue
        cur = root_node[0]
        depth = 0
        expanded = False
        while not work.over and depth < MAX_PATH - 1:
            dec = work.decider
            node = cur
            ch = select_child(t, node, work, sp, &rng, untried, &n_untried, &chosen, &n_children)
            allowed = 1 << 30
            if sp.pw_c > 0:
                allowed = <int>(sp.pw_c * cpow(t.nodes[node].visits + 1.0, PW_ALPHA)) + 1
            if not expanded and n_untried > 0 and (ch < 0 or n_children < allowed):
                if sp.expand == EXPAND_PLAYOUT and n_untried > 1:
                    a = expansion_pick(work, sp, untried, n_untried, scratch, &rng, mast)
                else:
                    a = untried[rng_below(&rng, n_untried)]
                ch = new_node(t, node, tree_key_of(work, a), dec)
                if ch >= 0:
                    t.nodes[ch].avail = 1
                    expanded = True
            elif ch < 0:
                a = untried[rng_below(&rng, n_untried)]
            else:
                a = chosen
            mast_note(mast, dec, a)
            if apply_action(work, a) < 0:
                res.errors += 1
                break
            if ch < 0:
                break                       # tree full: on as a playout
            path[depth] = ch
            depth += 1
            cur = ch
            if expanded:
                break
        if work.error:
            res.errors += 1
            continue
        if sp.judge > 0:
            played = judged_playout(work, sp, &rng, scratch, mast, me, judged)
        else:
            played = playout(work, sp, &rng, scratch, mast)
        if played < 0:
            res.errors += 1
            continue
        final_rewards(&work.cur, sp, reward, score, margin, wins, parts)
        if sp.judge > 0:
            mix_judged(work.cur.n_players, sp, judged, reward)
        if depth > 0:
            note_root(roots, path[0], work.cur.n_players, me, score, parts)
        if mast != NULL:
            mast_learn(mast, reward)
        for i in range(depth):
            # every node keeps the searcher's outcomes too: a reused subtree's children report them
            node = path[i]
            t.nodes[node].visits += 1
            r = reward[t.nodes[node].player]
            t.nodes[node].reward += r
            t.nodes[node].win_sum += wins[me]
            t.nodes[node].score_sum += score[me]
            t.nodes[node].score_sq += score[me] * score[me]
            t.nodes[node].margin_sum += margin[me]
            t.nodes[node].margin_sq += margin[me] * margin[me]
        t.nodes[root_node[0]].visits += 1
    res.iterations = it
    res.nodes = t.n
    res.seconds = now_s() - t0
    return res


cdef int expansion_pick(const GameData* G, const SearchParams* sp, const int* untried, int n,
                        GameData* tmp, uint64_t* rng, Mast* m) noexcept:
    """expand=playout: the untried action the playout policy would prefer, so that a node's first
    visits play as a playout would rather than at random (greedy playouts: moves by lookahead;
    move averages: the choices inside them, or everything under mast; otherwise at random)."""
    if G.prompt == P_MOVE and (sp.playout == PLAYOUT_GREEDY or sp.playout == PLAYOUT_GREEDY_MAST):
        return best_by_lookahead(G, n, untried, tmp, rng, sp.lookahead)
    if m != NULL:
        return mast_pick_opts(m, 0.0, G.decider, n, untried, rng)
    return untried[rng_below(rng, n)]


cdef class SearchTree:
    """A search tree kept between one player's decisions: the next search starts from the subtree
    of the moves played since (single-observer only). It holds the true state it was grown from,
    so a search given the moves since checks they lead to the new position before reusing it."""
    cdef Tree t
    cdef GameData* state
    cdef long root
    cdef int me

    def __cinit__(self):
        self.t.nodes = NULL
        self.t.n = 0
        self.t.cap = 0
        self.state = NULL
        self.root = -1
        self.me = -1

    def __dealloc__(self):
        free(self.t.nodes)
        free(self.state)

    def clear(self):
        """Forget the tree (a new game)."""
        self.root = -1
        self.t.n = 0

    @property
    def nodes(self):
        return self.t.n

    cdef long follow(self, const GameData* now, int me, list since) except -2:
        """The reusable root for position `now` reached by `since` from the stored root, or -1."""
        cdef GameData* tmp
        cdef long node = self.root
        cdef int a, k
        if node < 0 or self.state == NULL or self.me != me:
            return -1
        tmp = <GameData*>malloc(sizeof(GameData))
        if tmp == NULL:
            return -1
        copy_game(tmp, self.state)
        try:
            for a in since:
                k = tree_key_of(tmp, a)
                if node < 0 or apply_action(tmp, a) < 0:
                    return -1
                node = find_child(&self.t, node, k)
            if node < 0 or tmp.over or tmp.nlog != now.nlog \
                    or memcmp(&tmp.snap, &now.snap, core_bytes(&now.snap)) != 0 \
                    or memcmp(tmp.log, now.log, now.nlog * sizeof(int)) != 0:
                return -1
        finally:
            free(tmp)
        return compact_subtree(&self.t, node)


cdef SearchParams search_params(dict params) except *:
    """The core's search settings from `params`: every name in SEARCH_PARAMS, no defaults here."""
    cdef SearchParams sp
    missing = [k for k in SEARCH_PARAMS if k not in params]
    if missing:
        raise ValueError("search parameters missing: " + ", ".join(missing))
    memset(&sp, 0, sizeof(sp))
    sp.c = params["c"]
    sp.iterations = params["iterations"]
    sp.seconds = params["seconds"]
    sp.playout = PLAYOUTS[params["playout"]]
    sp.mast_epsilon = params["mast_epsilon"]
    sp.lookahead = LOOKAHEADS[params["lookahead"]]
    sp.expand = EXPANSIONS[params["expand"]]
    sp.margin_weight = params["margin_weight"]
    sp.judge = params["judge"]
    sp.pw_c = params["pw_c"]
    sp.max_nodes = params["max_nodes"]
    sp.stop_early = bool(params["stop_early"])
    sp.seed = <uint64_t>(int(params["seed"]) & 0xFFFFFFFFFFFFFFFF)
    if sp.iterations <= 0 and sp.seconds <= 0:
        raise ValueError("a search needs iterations or seconds")
    if sp.max_nodes < 1:
        raise ValueError("max_nodes must be at least 1")
    return sp


cdef dict root_outcomes(const RootStats* rs, long node, int n_players):
    """A root child's outcomes in this search: how many, every seat's final score sum and the
    searcher's final score sum by category (none before this search, in a reused tree)."""
    cdef int i, k
    for i in range(rs.n):
        if rs.s[i].node == node:
            return {"outcomes": rs.s[i].n, "seat_score_sums": [rs.s[i].score[k] for k in range(n_players)],
                    "part_sums": {SCORE_CATEGORIES[k]: rs.s[i].part[k] for k in range(S_TOTAL)}}
    return {"outcomes": 0, "seat_score_sums": [0.0] * n_players, "part_sums": {SCORE_CATEGORIES[k]: 0.0 for k in range(S_TOTAL)}}


cdef list root_children(const GameData* g, int me, const Tree* t, long root_node, const RootStats* roots):
    """The root's children with their statistics, as search() reports them."""
    cdef long c, k
    cdef int a
    children = []
    c = t.nodes[root_node].child
    while c >= 0:
        a = key_action(g, t.nodes[c].action)
        if a < 0:                              # grown in a reused subtree's other worlds
            c = t.nodes[c].sibling
            continue
        cont = []
        k = most_visited(t, c)
        # the rest of the searcher's turn: her decisions up to her next move
        while k >= 0 and t.nodes[k].player == me and len(cont) < MAX_CONTINUATION \
                and not K_PASS <= A_KIND(t.nodes[k].action) <= K_EXPLORE:
            cont.append(t.nodes[k].action)
            k = most_visited(t, k)
        expected = []                          # then everyone's, while the search looked often enough
        while k >= 0 and len(expected) < MAX_EXPECTED and t.nodes[k].visits >= MIN_EXPECTED_VISITS:
            expected.append((t.nodes[k].player, t.nodes[k].action))
            k = most_visited(t, k)
        children.append({"action": a, "visits": t.nodes[c].visits,
                         "avail": t.nodes[c].avail, "reward": t.nodes[c].reward, "win_sum": t.nodes[c].win_sum,
                         "score_sum": t.nodes[c].score_sum, "score_sq": t.nodes[c].score_sq,
                         "margin_sum": t.nodes[c].margin_sum, "margin_sq": t.nodes[c].margin_sq,
                         "continuation": cont, "expected": expected, **root_outcomes(roots, c, g.cur.n_players)})
        c = t.nodes[c].sibling
    return children


cdef dict root_result(const GameData* g, int me, const Tree* t, long root_node, const RootStats* roots,
                      const SearchResult* res, bint interrupted):
    """What search() returns: the root's statistics and the search's counts (`res`)."""
    return {"player": me, "iterations": res.iterations, "nodes": res.nodes,
            "seconds": res.seconds, "errors": res.errors, "reused": res.reused_visits,
            "children": root_children(g, me, t, root_node, roots), "node_bytes": sizeof(Node),
            "interrupted": interrupted}


def search(Game game, dict params, progress=None, SearchTree tree=None, since=None, bint clairvoyant=False,
           partial=None):
    """Search from `game`'s current decision for its decider. `params` names every SEARCH_PARAMS
    entry. Returns the root statistics: {"player", "iterations", "nodes", "seconds", "errors",
    "reused", "node_bytes", "children": [{"action", "visits", "avail", "reward", "win_sum",
    "score_sum", "score_sq", "margin_sum", "margin_sq", "continuation", "expected", "outcomes",
    "seat_score_sums", "part_sums"}]}. "continuation" is the searcher's most visited decisions
    after the move, to the end of her turn; "expected" the (player, tree key) pairs that follow on
    that path; the last three count this call's iterations only (a reused tree's earlier ones are
    in the others). `progress(iterations, seconds)` is called every 1024 iterations when given;
    `partial(result)` about every half second with the statistics so far, as this returns them
    ("interrupted" False): it neither changes what the search does nor what it returns.

    An exception of `progress`, of `partial` or of a signal handler stops the search and is raised; a
    KeyboardInterrupt (Ctrl-C) as SearchInterrupted, whose `result` is the statistics so far with
    "interrupted" True (False in a search that ran its course).

    With `tree`, the search continues the subtree reached by the actions `since` (every decision
    taken, by anyone, after `tree`'s last search) when they lead from its stored root to this
    position, and keeps the tree for the next call; otherwise it starts afresh.

    `clairvoyant` (bench/headroom.py only, never advice) searches the true state itself: every
    deck's order, the others' hands, the Automa's cards and the chance to come; a bound on what
    the hidden information costs."""
    use_tables_of(game)
    cdef SearchParams sp = search_params(params)
    sp.clairvoyant = clairvoyant
    cdef Tree local
    cdef Tree* t = &local
    cdef GameData* work
    cdef GameData* scratch
    cdef Mast* mast = NULL
    cdef RootStats* roots = NULL
    cdef long root_node = -1
    cdef SearchResult res
    cdef int me = game.g.decider
    cdef long reused = -1
    if game.g.over:
        raise ValueError("the game is over")
    need_search_data()
    if sp.judge > 0:
        need_judge()
    if sp.playout == PLAYOUT_DISTILLED:
        need_distilled()
    local.nodes = NULL
    local.n = 0
    local.cap = 0
    if tree is not None:
        t = &tree.t
        if since is not None and tree.t.cap == sp.max_nodes:
            reused = tree.follow(game.g, me, list(since))
        if reused < 0:
            t.n = 0
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
    roots = <RootStats*>calloc(1, sizeof(RootStats))
    if sp.playout == PLAYOUT_MAST or sp.playout == PLAYOUT_GREEDY_MAST:
        mast = <Mast*>calloc(1, sizeof(Mast))
    if t.nodes == NULL or work == NULL or scratch == NULL or roots == NULL or \
            (mast == NULL and (sp.playout == PLAYOUT_MAST or sp.playout == PLAYOUT_GREEDY_MAST)):
        free(work); free(scratch); free(mast); free(roots)
        free(t.nodes)
        t.nodes = NULL
        t.cap = 0
        raise MemoryError()
    stopped = []
    try:
        res = run_search(game.g, me, &sp, t, work, scratch, &root_node, reused, mast, roots, progress,
                         partial, stopped)
        result = root_result(game.g, me, t, root_node, roots, &res, bool(stopped))
        if tree is not None:
            copy_game(tree.state, game.g)
            tree.root = root_node
            tree.me = me
        if stopped:
            if isinstance(stopped[0], KeyboardInterrupt):
                raise SearchInterrupted(result) from stopped[0]
            raise stopped[0]
        return result
    finally:
        if tree is None:
            free(t.nodes)
        free(mast)
        free(roots)
        free(work)
        free(scratch)
