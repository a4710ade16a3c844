# Hidden cards as a viewer knows them: a game with chance told keeps, in its history, what the table
# showed and, marked STAND_IN, what it did not (an opponent's blind draw, a card tucked face down, a
# card chosen unseen), bound at random. `rebind` binds the stand-ins anew so that everything the
# table showed replays: the tracker's answer when an entry is not legal on the current binding.
#
# A stand-in never takes a card that a later outcome shows before anyone names it (that card is
# still in the deck). The cards
# a seat names later must reach its hand by then: a blind draw into a hand takes the one named
# soonest when no later draw is left for it (earliest deadline first, taken only where the slack is
# gone, so a card named right after a draw is left for that draw); otherwise a card nobody names.
# Where a replay still fails at a card a seat names, the next try binds that card to the latest
# blind draw into the seat's hand that offered it and did not keep it (a draw the seat then had to
# discard or tuck), and so on back: the failure says where the binding must change. A card a seat
# chose unseen is bound to one that lets that seat's next entries replay (what the table saw follow
# it: the resource a tucked card's cost gave).

import bisect as _bisect
import random as _random


def named_card(int a):
    """The card an action names, as ("dragon" | "cave", number), or None."""
    cdef int k = A_KIND(a), v = A_ARG(a)
    if k == K_DRAW_DRAGON or k == K_DRAGON:
        return ("dragon", v)
    if k == K_ENTICE:
        return ("dragon", v >> 2)
    if k == K_DRAW_CAVE or k == K_CAVE:
        return ("cave", v)
    if k == K_EXCAVATE:
        return ("cave", v >> 2)
    return None


cdef inline bint into_hand(int event) noexcept nogil:
    return event == CH_HAND_DRAGON or event == CH_HAND_CAVE or event == CH_DEAL_DRAGON or event == CH_DEAL_CAVE


cdef class _Plan:
    """What the history says of each entry, for binding its stand-ins: who decided it, the chance
    point it answers, the cards outcomes after it show, where each seat next names a card, and for
    the blind draws into each seat's hand, dragons and caves apart."""
    cdef list entries, deciders, points, shown_after, named_after, draws
    cdef int n_history

    def __init__(self, Game game, list entries, int seat):
        cdef Game probe = Game.__new__(Game)
        cdef int i, s, n = len(game._history)
        self.entries, self.n_history = entries, n
        memcpy(probe.g, <const char*>game._first, sizeof(GameData))
        use_tables_of(game)
        self.deciders, self.points = [], []
        for i in range(n):
            self.deciders.append(probe.g.decider)
            self.points.append(probe.g.context if probe.g.decider == CHANCE_SEAT else -1)
            if apply_action(probe.g, entries[i] & ~STAND_IN) < 0:
                raise EngineError("the history does not replay")
        self.deciders += [game.g.decider if seat < 0 else seat] * (len(entries) - n)
        self.points += [-1] * (len(entries) - n)
        self.shown_after, self.named_after = [None] * len(entries), [None] * len(entries)
        shown, named = set(), [{} for _ in range(MAXP)]
        for i in range(len(entries) - 1, -1, -1):
            self.shown_after[i], self.named_after[i] = frozenset(shown), [dict(x) for x in named]
            card = named_card(entries[i] & ~STAND_IN)
            if card is None or (entries[i] & STAND_IN and i < self.n_history):     # a stand-in is no fact of the table
                continue
            if self.deciders[i] == CHANCE_SEAT:
                shown.add(card)
            elif 0 <= self.deciders[i] < MAXP:
                named[self.deciders[i]][card] = i
                shown.discard(card)     # shown again only after it left play and came back
        self.draws = [[] for _ in range(2 * MAXP)]         # by 2 * seat + (1 for caves)
        for i in range(n):
            if self.deciders[i] == CHANCE_SEAT and entries[i] & STAND_IN and into_hand(self.points[i] >> 4):
                self.draws[2 * (self.points[i] & 15) + (A_KIND(entries[i] & ~STAND_IN) == K_DRAW_CAVE)].append(i)

    cdef int bind(self, Game g, int i, rng, bint guided, dict forced):
        """A binding for stand-in `i` at g's decision or chance point (guided: by the plan's
        preferences, else any card no later outcome shows); never a card `forced` keeps for a
        later draw."""
        cdef int event = g.g.context >> 4, who = g.g.context & 15
        opts = [g.g.opts[j] for j in range(g.g.nopts)]
        if g.g.decider != CHANCE_SEAT:      # a choice the table did not see: a card of the same kind
            kind = A_KIND(self.entries[i] & ~STAND_IN)
            opts = [a for a in opts if A_KIND(a) == kind] or opts
        kept = {c for j, c in forced.items() if j > i}
        free = [a for a in opts if named_card(a) not in self.shown_after[i] and named_card(a) not in kept] or opts
        if not guided:
            return rng.choice(free)
        named = self.named_after[i]
        if g.g.decider == CHANCE_SEAT and into_hand(event):
            due = sorted((named[who][named_card(a)], a) for a in free if named_card(a) in named[who]
                         and not (A_KIND(a) == K_DRAW_DRAGON and bit_has(g.g.cur.p[who].hand_d, A_ARG(a)))
                         and not (A_KIND(a) == K_DRAW_CAVE and bit_has(g.g.cur.p[who].hand_c, A_ARG(a))))
            draws = self.draws[2 * who + (event == CH_HAND_CAVE or event == CH_DEAL_CAVE)]
            start = _bisect.bisect_left(draws, i)
            for k, (deadline, a) in enumerate(due):
                if _bisect.bisect_left(draws, deadline) - start <= k + 1:     # no slack left
                    return due[0][1]
        later = set().union(*named)
        neutral = [a for a in free if named_card(a) not in later]
        return rng.choice(neutral or free)


cdef void decline(Game g, int seat) except *:
    """Before an entry of `seat`'s: another seat's optional decisions that only this binding gives
    it (the table showed none) are declined, as stand-ins."""
    cdef int j, n
    for n in range(4):
        if g.g.over or g.g.decider == seat or g.g.decider == CHANCE_SEAT:
            return
        for j in range(g.g.nopts):
            if A_KIND(g.g.opts[j]) == K_NO:
                break
        else:
            return
        if apply_action(g.g, A(K_NO, 0)) < 0:
            return
        g._history.append(A(K_NO, 0) | STAND_IN)


cdef Game rebind(Game game, seed, int tries, list then, int seat):
    """Game.rebind: the first half of the tries guided by the plan, the rest any free card; each
    try after a failure at a named card keeps that card for an earlier draw (see above)."""
    cdef _Plan plan = _Plan(game, list(game._history) + then, seat)
    cdef Game g
    cdef int i, a, k, furthest = 0
    cdef dict forced = {}           # stand-in -> the card it is bound to
    cdef set tried = set()          # (stand-in, card) kept once already
    cdef dict offered               # this try's blind draws into a hand: stand-in -> (seat, cards offered, card bound)
    rng = _random.Random(int(seed))
    for k in range(tries):
        g = Game.__new__(Game)
        memcpy(g.g, <const char*>game._first, sizeof(GameData))
        g._first = game._first
        offered = {}
        for i, entry in enumerate(plan.entries):
            if i < plan.n_history and entry & STAND_IN:
                if g.g.decider != plan.deciders[i] and plan.deciders[i] != CHANCE_SEAT:
                    continue            # a choice unseen that this binding does not give that seat
                a = _kept(g, forced.get(i))
                if a < 0:
                    forced.pop(i, None)
                    a = plan.bind(g, i, rng, k < tries // 2, forced)
                    if g.g.decider != CHANCE_SEAT:
                        a = _fitting(plan, g, i, a, forced)
                if g.g.decider == CHANCE_SEAT and into_hand(g.g.context >> 4):
                    offered[i] = (g.g.context & 15, {named_card(g.g.opts[j]) for j in range(g.g.nopts)},
                                  named_card(a))
                if apply_action(g.g, a) < 0:
                    break
                g._history.append(a | STAND_IN)
            else:
                decline(g, plan.deciders[i])
                if i >= plan.n_history:
                    entry = _as_legal(g, entry)
                if apply_action(g.g, entry & ~STAND_IN) < 0:
                    furthest = max(furthest, i)
                    _keep_for(plan, i, named_card(entry & ~STAND_IN), plan.deciders[i], offered, forced, tried)
                    break
                g._history.append(entry)
        else:
            return g
    raise IllegalActionError(f"no binding of the {len(game.stand_ins)} unseen entries in {tries} tries "
                             f"replays the game past entry {furthest} (action {plan.entries[furthest] & ~STAND_IN}, "
                             f"seat {plan.deciders[furthest]})")


cdef int _as_legal(Game g, int entry) except? -2:
    """A new entry as g's point takes it: the card it names picked as this point picks cards (a
    card entered as drawn, asked for by a card's "play a dragon"), where that is one option."""
    cdef int j, k, a = entry & ~STAND_IN
    card = named_card(a)
    if card is None or A_KIND(a) not in (K_DRAGON, K_DRAW_DRAGON, K_CAVE, K_DRAW_CAVE):
        return entry
    same = []
    for j in range(g.g.nopts):
        if g.g.opts[j] == a:
            return entry
        k = A_KIND(g.g.opts[j])
        if k in (K_DRAGON, K_DRAW_DRAGON, K_CAVE, K_DRAW_CAVE) and named_card(g.g.opts[j]) == card:
            same.append(g.g.opts[j])
    return (same[0] | (entry & STAND_IN)) if len(same) == 1 else entry


cdef int _kept(Game g, card) except? -2:
    """The option at g's point that binds `card` (a card kept for this draw), or -1."""
    cdef int j
    if card is None:
        return -1
    for j in range(g.g.nopts):
        if named_card(g.g.opts[j]) == card:
            return g.g.opts[j]
    return -1


cdef void _keep_for(_Plan plan, int i, card, int who, dict offered, dict forced, set tried) except *:
    """Entry `i` (seat `who` naming `card`) did not replay: keep that card for the latest blind
    draw into the seat's hand that offered it but bound another, not tried with it yet."""
    if card is None or not 0 <= who < MAXP:
        return
    for j in sorted(offered, reverse=True):
        seat, cards, bound = offered[j]
        if j < i and seat == who and card in cards and bound != card and (j, card) not in tried:
            tried.add((j, card))
            for other in [x for x, c in forced.items() if c == card]:
                del forced[other]
            forced[j] = card
            return


cdef GameData LOOK      # a copy for a look ahead past a card chosen unseen


cdef int _fitting(_Plan plan, Game g, int i, int a, dict forced) except? -2:
    """For stand-in `i`, a card chosen unseen: `a` if what the table showed after it (that seat's
    entries up to the next stand-in) replays, else the card the history has there, else another
    option of its kind that does, of those `bind` leaves free; `a` if none does."""
    cdef int j, m, c
    cdef bint ok
    kind = A_KIND(a)
    mine = plan.entries[i] & ~STAND_IN
    candidates = [a, mine] + [g.g.opts[j] for j in range(g.g.nopts) if A_KIND(g.g.opts[j]) == kind]
    # not a card kept for a later draw, or named later (what bind keeps clear)
    kept = {card for at, card in forced.items() if at > i}
    later = set().union(*plan.named_after[i])
    candidates = [a] + [x for x in candidates[1:] if named_card(x) not in kept and named_card(x) not in later]
    seen = set()
    for c in candidates:
        if c in seen:
            continue
        seen.add(c)
        copy_game(&LOOK, g.g)
        if apply_action(&LOOK, c) < 0:
            continue
        ok = True
        m = i + 1
        while m < len(plan.entries) and plan.deciders[m] == plan.deciders[i] and \
                not (m < plan.n_history and plan.entries[m] & STAND_IN):
            if LOOK.decider != plan.deciders[m] or apply_action(&LOOK, plan.entries[m] & ~STAND_IN) < 0:
                ok = False
                break
            m += 1
        if ok:
            return c
    return a


cdef int _naming(int entry, int n) noexcept:
    """`entry` with card `n` in place of the card it names (its kind, cave and STAND_IN mark kept)."""
    cdef int a = entry & ~STAND_IN, k = A_KIND(a)
    if k == K_ENTICE or k == K_EXCAVATE:
        return (entry & STAND_IN) | A(k, (n << 2) | (A_ARG(a) & 3))
    return (entry & STAND_IN) | A(k, n)


cdef Game swapped(Game game, tuple a, tuple b):
    """Game.swapped."""
    cdef Game g = Game.__new__(Game)
    cdef list history = []
    if a[0] != b[0] or a[0] not in ("dragon", "cave"):
        raise IllegalActionError(f"cards to swap are of one kind (dragon or cave): {a}, {b}")
    for entry in game._history:
        card = named_card(entry & ~STAND_IN) if entry & STAND_IN else None
        history.append(_naming(entry, b[1]) if card == a else _naming(entry, a[1]) if card == b else entry)
    g._first = game._first
    try:
        g._replay(history)
    except EngineError as e:
        raise IllegalActionError(f"with {a} and {b} swapped, {e}") from None
    return g


cdef Game holding(Game game, int action, tuple instead):
    """Game.holding."""
    cdef Game t = game.clone()
    cdef GameData* G = t.g
    cdef int who = G.decider, j, n, old, a
    cdef bint found = False
    card = named_card(action)
    if who < 0 or who >= MAXP or card is None or card[0] != instead[0]:
        raise IllegalActionError(f"holding: a card of the kind of {instead} for the seat deciding")
    n, old = card[1], instead[1]
    if card[0] == "dragon" and bit_has(G.snap.p[who].hand_d, old) and not bit_has(G.snap.p[who].hand_d, n):
        bit_clear(G.snap.p[who].hand_d, old)
        bit_set(G.snap.p[who].hand_d, n)
        found = True
    elif card[0] == "cave" and bit_has(G.snap.p[who].hand_c, old) and not bit_has(G.snap.p[who].hand_c, n):
        bit_clear(G.snap.p[who].hand_c, old)
        bit_set(G.snap.p[who].hand_c, n)
        found = True
    else:       # drawn in this segment: the draw brings the other card
        for j in range(G.nlog):
            a = G.log[j] & ~LOG_FORCED
            if A_KIND(a) in (K_DRAW_DRAGON, K_DRAW_CAVE) and named_card(a) == instead:
                G.log[j] = (G.log[j] & LOG_FORCED) | _naming(a, n)
                found = True
                break
    for j in range(G.nopts):
        if named_card(G.opts[j]) == instead and A_KIND(G.opts[j]) == A_KIND(action):
            G.opts[j] = action
    if not found or apply_action(G, action) < 0:
        raise IllegalActionError(f"holding {card} in place of {instead}: not a choice the seat could make")
    t._first = None
    t._history = []
    return t
