# State dicts: a game's state as plain Python data (`Game.to_dict`) and back (`Game.from_dict`).
# A dict may come from a file someone edited, so every field the core reads is checked (type,
# range, list length, card ids, each card in one place, seats, counts) before the state is used:
# no input reaches memory out of bounds, and a bad field raises GameStateError naming it.

from operator import index as _index

cdef object _REQUIRED = object()


cdef list _bits(const uint64_t* b, int words):
    cdef int ids[256]
    cdef int n = bits_list(b, words, ids)
    return [ids[i] for i in range(n)]


cdef dict _core_to_dict(const Core* g):
    cdef const Player* P
    players = []
    for p in range(g.n_players):
        P = &g.p[p]
        players.append({
            "dragons": [[P.dragon[c][k] for k in range(NCOLS)] for c in range(NCAVES)],
            "caves": [[P.cave[c][k] for k in range(NCOLS)] for c in range(NCAVES)],
            "eggs": [[P.eggs[c][k] for k in range(NCOLS)] for c in range(NCAVES)],
            "cached": [[[P.cached[c][k][r] for r in range(NRES)] for k in range(NCOLS)] for c in range(NCAVES)],
            "tucked": [[P.tucked[c][k] for k in range(NCOLS)] for c in range(NCAVES)],
            "grown": [[P.grown[c][k] for k in range(NCOLS)] for c in range(NCAVES)],
            "nest_eggs": P.nest_eggs, "coins": P.coins, "resources": [P.res[r] for r in range(NRES)],
            "explores": [P.explores[c] for c in range(NCAVES)], "guild_steps": P.guild_steps,
            "markers_left": P.markers_left, "passed": P.passed,
            "objective_vp": [P.obj_vp[r] for r in range(4)],
            "objective_count": [P.obj_count[r] for r in range(4)],
            "fixed_vp": P.fixed_vp, "tile_markers": [P.tile_markers[a] for a in range(4)],
            "hand_dragons": _bits(P.hand_d, DW), "hand_caves": _bits(P.hand_c, CW),
            "n_hand_dragons": P.n_hand_d, "n_hand_caves": P.n_hand_c,
            "known_dragons": _bits(P.known_d, DW), "known_caves": _bits(P.known_c, CW),
            "seen_dragons": _bits(P.seen_d, DW), "end_vp": P.end_vp, "tile_vp": P.tile_vp,
        })
    out = {
        "players": players, "round": g.round, "phase": PHASES[g.phase], "phase_player": g.phase_player,
        "phase_count": g.phase_count, "active": g.active, "start_player": g.start_player,
        "printing": g.printing, "guild_tile": g.guild_tile,
        "objective_tiles": [g.objective_tile[r] for r in range(4)],
        "objective_sides": [g.objective_side[r] for r in range(4)],
        "guild_spots": [[g.spot[a][j] for j in range(MAX_SPOTS)] for a in range(4)],
        "fixed_count": g.fixed_count,
        "display_dragons": [g.display_d[i] for i in range(DISPLAY)],
        "display_caves": [g.display_c[i] for i in range(DISPLAY)],
        "deck_dragons": [g.deck_d[i] for i in range(g.n_deck_d)],
        "deck_caves": [g.deck_c[i] for i in range(g.n_deck_c)],
        "discard_dragons": [g.disc_d[i] for i in range(g.n_disc_d)],
        "discard_caves": [g.disc_c[i] for i in range(g.n_disc_c)],
        "reshuffles": g.reshuffles, "n_scored": g.n_scored, "turns": g.turns,
        "public_dragons": _bits(g.public_d, DW), "public_caves": _bits(g.public_c, CW), "rng": g.rng,
        "automa": None if not g.automa_level else {
            "level": AUTOMA_LEVEL_NAMES[g.automa_level - 1], "deck": [g.a_deck[i] for i in range(8)],
            "next": g.a_next, "playable": g.a_playable, "dragons": g.a_dragons, "caves": g.a_caves,
            "markers": g.a_markers, "fixed_vp": g.a_fixed_vp, "last_brown": g.a_last_brown,
            "objective_coins": [g.obj_coins[r] for r in range(4)]},
    }
    if g.chance_told:   # only where it is told: other states keep their dicts
        out["chance"] = "told"
    return out


# ---------------------------------------------------------------------------- reading one back
cdef str _kind(v):
    """A value's kind in words, for an error (never its repr: it may be huge or deeply nested)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, str):
        return "text"
    if isinstance(v, float):
        return "a fraction"
    if isinstance(v, (list, tuple)):
        return f"a list of {len(v)}"
    if isinstance(v, dict):
        return "a table"
    return f"a {type(v).__name__}"


cdef str _number_text(n):
    """A whole number for an error, a long one by its size."""
    return str(n) if n.bit_length() <= 64 else f"a number of {n.bit_length()} bits"


cdef class _Reader:
    """Reads a state dict field by field, each checked, naming the field's path in an error."""
    cdef dict where_dragon, where_cave      # card -> the field it lies in

    def __cinit__(self):
        self.where_dragon = {}
        self.where_cave = {}

    cdef object field(self, table, str path, str key, default=_REQUIRED):
        if not isinstance(table, dict):
            raise GameStateError(f"{path or 'state'}: expected a table, got {_kind(table)}")
        if key not in table:
            if default is _REQUIRED:
                raise GameStateError(f"{_join(path, key)}: missing")
            return default
        return table[key]

    cdef object number(self, v, str path, lo, hi):
        """A whole number lo..hi (true/false count as 1/0)."""
        if isinstance(v, (float, str, bytes)):
            raise GameStateError(f"{path}: expected a whole number, got {_kind(v)}")
        try:
            n = _index(v)
        except TypeError:
            raise GameStateError(f"{path}: expected a whole number, got {_kind(v)}") from None
        if not lo <= n <= hi:
            raise GameStateError(f"{path}: {_number_text(n)} is out of range {lo}..{hi}")
        return n

    cdef list items(self, v, str path, int least, int most):
        if not isinstance(v, (list, tuple)):
            raise GameStateError(f"{path}: expected a list, got {_kind(v)}")
        if not least <= len(v) <= most:
            size = f"{least}" if least == most else f"{least} to {most}"
            raise GameStateError(f"{path}: expected {size} entries, got {len(v)}")
        return list(v)

    cdef list numbers(self, v, str path, int length, lo, hi):
        """Exactly `length` whole numbers lo..hi."""
        return [self.number(x, f"{path}[{i}]", lo, hi) for i, x in enumerate(self.items(v, path, length, length))]

    cdef list grid(self, v, str path, lo, hi):
        """A cave-by-column grid of numbers (NCAVES lists of NCOLS)."""
        return [self.numbers(row, f"{path}[{c}]", NCOLS, lo, hi)
                for c, row in enumerate(self.items(v, path, NCAVES, NCAVES))]

    cdef list cards(self, v, str path, int most, bint dragons, bint placed, bint empty=False):
        """Card ids of a kind (0 allowed where `empty`); a card `placed` here may lie nowhere else."""
        out = []
        where = self.where_dragon if dragons else self.where_cave
        kind = "dragon" if dragons else "cave"
        for i, x in enumerate(self.items(v, path, 0, most)):
            n = self.number(x, f"{path}[{i}]", 0 if empty else 1, N_DRAGON_CARDS if dragons else N_CAVE_CARDS)
            if placed and n:
                if n in where:
                    raise GameStateError(f"{path}[{i}]: {kind} card {n} is in {where[n]} too "
                                         "(a card lies in one place)")
                where[n] = path
            out.append(n)
        return out

    cdef list card_set(self, v, str path, bint dragons):
        """A set of card ids (a hand, or the cards known or seen): each at most once."""
        out = self.cards(v, path, N_DRAGON_CARDS if dragons else N_CAVE_CARDS, dragons, False)
        if len(set(out)) != len(out):
            raise GameStateError(f"{path}: a card is listed twice")
        return out


cdef str _join(str path, str key):
    return f"{path}.{key}" if path else key


cdef void _set_bits(uint64_t* b, int words, list cards) noexcept:
    """Cards already checked to be ids below words * 64."""
    cdef int w
    for w in range(words):
        b[w] = 0
    for c in cards:
        bit_set(b, <int>c)


cdef void _core_from_dict(Core* g, d, str path) except *:
    """Fill `g` from a state dict, every field checked first (GameStateError names a bad one)."""
    cdef _Reader rd = _Reader()
    cdef Core s
    cdef Player* Q
    cdef int p, c, k, r, i
    memset(&s, 0, sizeof(Core))
    players = rd.items(rd.field(d, path, "players"), _join(path, "players"), 1, MAXP)
    s.n_players = len(players)
    n = s.n_players
    for p in range(n):
        P = players[p]
        at = f"{_join(path, 'players')}[{p}]"
        Q = &s.p[p]
        dragons = rd.grid(rd.field(P, at, "dragons"), at + ".dragons", 0, N_DRAGON_CARDS)
        caves = rd.grid(rd.field(P, at, "caves"), at + ".caves", 0, N_CAVE_CARDS)
        eggs = rd.grid(rd.field(P, at, "eggs"), at + ".eggs", 0, 255)
        tucked = rd.grid(rd.field(P, at, "tucked"), at + ".tucked", 0, 255)
        grown = rd.grid(rd.field(P, at, "grown"), at + ".grown", 0, 1)
        cached = [[rd.numbers(x, f"{at}.cached[{c}][{k}]", NRES, 0, 255)
                   for k, x in enumerate(rd.items(row, f"{at}.cached[{c}]", NCOLS, NCOLS))]
                  for c, row in enumerate(rd.items(rd.field(P, at, "cached"), at + ".cached", NCAVES, NCAVES))]
        for c in range(NCAVES):
            rd.cards(dragons[c], f"{at}.dragons[{c}]", NCOLS, True, True, True)
            rd.cards(caves[c], f"{at}.caves[{c}]", NCOLS, False, True, True)
            for k in range(NCOLS):
                Q.dragon[c][k] = dragons[c][k]
                Q.cave[c][k] = caves[c][k]
                Q.eggs[c][k] = eggs[c][k]
                Q.tucked[c][k] = tucked[c][k]
                Q.grown[c][k] = grown[c][k]
                for r in range(NRES):
                    Q.cached[c][k][r] = cached[c][k][r]
        Q.nest_eggs = rd.number(rd.field(P, at, "nest_eggs"), at + ".nest_eggs", 0, 255)
        Q.coins = rd.number(rd.field(P, at, "coins"), at + ".coins", 0, 255)
        for r, x in enumerate(rd.numbers(rd.field(P, at, "resources"), at + ".resources", NRES, 0, 255)):
            Q.res[r] = x
        for c, x in enumerate(rd.numbers(rd.field(P, at, "explores"), at + ".explores", NCAVES, 0, 255)):
            Q.explores[c] = x
        # the guild track's space is the steps modulo its length: never negative
        Q.guild_steps = rd.number(rd.field(P, at, "guild_steps"), at + ".guild_steps", 0, 32767)
        Q.markers_left = rd.number(rd.field(P, at, "markers_left"), at + ".markers_left", 0, 255)
        Q.passed = rd.number(rd.field(P, at, "passed"), at + ".passed", 0, 1)
        for name, arr in (("objective_vp", 0), ("objective_count", 1), ("tile_markers", 2)):
            for r, x in enumerate(rd.numbers(rd.field(P, at, name), f"{at}.{name}", 4, 0, 255)):
                if arr == 0:
                    Q.obj_vp[r] = x
                elif arr == 1:
                    Q.obj_count[r] = x
                else:
                    Q.tile_markers[r] = x
        Q.fixed_vp = rd.number(rd.field(P, at, "fixed_vp"), at + ".fixed_vp", 0, 255)
        hand_d = rd.cards(rd.field(P, at, "hand_dragons"), at + ".hand_dragons", N_DRAGON_CARDS, True, True)
        hand_c = rd.cards(rd.field(P, at, "hand_caves"), at + ".hand_caves", N_CAVE_CARDS, False, True)
        _set_bits(Q.hand_d, DW, hand_d)
        _set_bits(Q.hand_c, CW, hand_c)
        Q.n_hand_d = len(hand_d)
        Q.n_hand_c = len(hand_c)
        for name, dragon_kind, hand in (("known_dragons", True, hand_d), ("known_caves", False, hand_c)):
            known = rd.card_set(rd.field(P, at, name, []), f"{at}.{name}", dragon_kind)
            for i, x in enumerate(known):
                if x not in hand:
                    raise GameStateError(f"{at}.{name}[{i}]: card {x} is not in the hand")
            if dragon_kind:
                _set_bits(Q.known_d, DW, known)
            else:
                _set_bits(Q.known_c, CW, known)
        _set_bits(Q.seen_d, DW, rd.card_set(rd.field(P, at, "seen_dragons", []), at + ".seen_dragons", True))
        Q.end_vp = rd.number(rd.field(P, at, "end_vp", 0), at + ".end_vp", -32768, 32767)
        Q.tile_vp = rd.number(rd.field(P, at, "tile_vp", 0), at + ".tile_vp", -32768, 32767)
    s.round = rd.number(rd.field(d, path, "round"), _join(path, "round"), 0, 3)
    phase = rd.field(d, path, "phase")
    if not isinstance(phase, str) or phase not in PHASES:
        raise GameStateError(f"{_join(path, 'phase')}: expected one of {', '.join(PHASES)}, got "
                             + (repr(phase[:40]) if isinstance(phase, str) else _kind(phase)))
    s.phase = PHASES.index(phase)
    s.phase_player = rd.number(rd.field(d, path, "phase_player", 0), _join(path, "phase_player"), 0, n - 1)
    s.phase_count = rd.number(rd.field(d, path, "phase_count", 0), _join(path, "phase_count"), 0, n)
    s.active = rd.number(rd.field(d, path, "active"), _join(path, "active"), 0, n - 1)
    s.start_player = rd.number(rd.field(d, path, "start_player"), _join(path, "start_player"), 0, n - 1)
    s.printing = rd.number(rd.field(d, path, "printing", 0), _join(path, "printing"), 0, N_PRINTINGS - 1)
    s.guild_tile = rd.number(rd.field(d, path, "guild_tile"), _join(path, "guild_tile"), 0, 3)
    tiles = rd.numbers(rd.field(d, path, "objective_tiles"), _join(path, "objective_tiles"), 4, 0, 9)
    sides = rd.numbers(rd.field(d, path, "objective_sides"), _join(path, "objective_sides"), 4, 0, 1)
    for r in range(4):
        s.objective_tile[r] = tiles[r]
        s.objective_side[r] = sides[r]
    spots = rd.items(rd.field(d, path, "guild_spots"), _join(path, "guild_spots"), 4, 4)
    for r in range(4):
        # a spot holds its seat + 1 (0: free)
        for i, x in enumerate(rd.numbers(spots[r], f"{_join(path, 'guild_spots')}[{r}]", MAX_SPOTS, 0, n)):
            s.spot[r][i] = x
    s.fixed_count = rd.number(rd.field(d, path, "fixed_count", 0), _join(path, "fixed_count"), 0, 255)
    for i, x in enumerate(rd.cards(rd.items(rd.field(d, path, "display_dragons"), _join(path, "display_dragons"),
                                            DISPLAY, DISPLAY), _join(path, "display_dragons"), DISPLAY, True, True, True)):
        s.display_d[i] = x
    for i, x in enumerate(rd.cards(rd.items(rd.field(d, path, "display_caves"), _join(path, "display_caves"),
                                            DISPLAY, DISPLAY), _join(path, "display_caves"), DISPLAY, False, True, True)):
        s.display_c[i] = x
    # each card lies in one place, so no pile can outgrow its array
    for i, x in enumerate(rd.cards(rd.field(d, path, "deck_dragons", []), _join(path, "deck_dragons"),
                                   N_DRAGON_CARDS, True, True)):
        s.deck_d[i] = x
        s.n_deck_d = i + 1
    for i, x in enumerate(rd.cards(rd.field(d, path, "deck_caves", []), _join(path, "deck_caves"),
                                   N_CAVE_CARDS, False, True)):
        s.deck_c[i] = x
        s.n_deck_c = i + 1
    for i, x in enumerate(rd.cards(rd.field(d, path, "discard_dragons", []), _join(path, "discard_dragons"),
                                   N_DRAGON_CARDS, True, True)):
        s.disc_d[i] = x
        s.n_disc_d = i + 1
    for i, x in enumerate(rd.cards(rd.field(d, path, "discard_caves", []), _join(path, "discard_caves"),
                                   N_CAVE_CARDS, False, True)):
        s.disc_c[i] = x
        s.n_disc_c = i + 1
    s.reshuffles = rd.number(rd.field(d, path, "reshuffles", 0), _join(path, "reshuffles"), 0, 255)
    s.n_scored = rd.number(rd.field(d, path, "n_scored", 0), _join(path, "n_scored"), 0, 4)
    s.turns = rd.number(rd.field(d, path, "turns", 0), _join(path, "turns"), 0, 65535)
    _set_bits(s.public_d, DW, rd.card_set(rd.field(d, path, "public_dragons", []), _join(path, "public_dragons"), True))
    _set_bits(s.public_c, CW, rd.card_set(rd.field(d, path, "public_caves", []), _join(path, "public_caves"), False))
    s.rng = rd.number(rd.field(d, path, "rng", 0), _join(path, "rng"), 0, 0xFFFFFFFFFFFFFFFF)
    chance = rd.field(d, path, "chance", "sampled")
    if not isinstance(chance, str) or chance not in CHANCE_MODES:
        raise GameStateError(f"{_join(path, 'chance')}: expected one of {', '.join(CHANCE_MODES)}, got "
                             + (repr(chance[:40]) if isinstance(chance, str) else _kind(chance)))
    s.chance_told = chance == "told"
    a = rd.field(d, path, "automa", None)
    if a:
        at = _join(path, "automa")
        if n != 2:
            raise GameStateError(f"{at}: a solo game has 2 seats (the human and the Automa), not {n}")
        level = rd.field(a, at, "level")
        if not isinstance(level, str) or level not in AUTOMA_LEVEL_NAMES:
            raise GameStateError(f"{at}.level: expected one of {', '.join(AUTOMA_LEVEL_NAMES)}, got "
                                 + (repr(level[:40]) if isinstance(level, str) else _kind(level)))
        s.automa_level = AUTOMA_LEVEL_NAMES.index(level) + 1
        for i, x in enumerate(rd.numbers(rd.field(a, at, "deck"), at + ".deck", 8, 0, 15)):
            s.a_deck[i] = x                         # rows of the Automa's 16 decision cards
        s.a_next = rd.number(rd.field(a, at, "next"), at + ".next", 0, 8)
        s.a_playable = rd.number(rd.field(a, at, "playable"), at + ".playable", 0, 8)
        s.a_dragons = rd.number(rd.field(a, at, "dragons"), at + ".dragons", 0, 255)
        s.a_caves = rd.number(rd.field(a, at, "caves"), at + ".caves", 0, 255)
        s.a_markers = rd.number(rd.field(a, at, "markers"), at + ".markers", 0, 255)
        s.a_fixed_vp = rd.number(rd.field(a, at, "fixed_vp", 0), at + ".fixed_vp", 0, 255)
        s.a_last_brown = rd.number(rd.field(a, at, "last_brown", 0), at + ".last_brown", -32768, 32767)
        for r, x in enumerate(rd.numbers(rd.field(a, at, "objective_coins"), at + ".objective_coins", 4, 0, 255)):
            s.obj_coins[r] = x
    memcpy(g, &s, sizeof(Core))
