# The Python-facing game: new game, clone, legal actions, apply, scores, dicts, determinize.

from libc.stdlib cimport malloc, calloc, free

ctypedef struct GameData:
    Core snap               # the state at the start of the current segment
    Core cur                # the state where play stopped (at a decision or the end)
    int over
    int error
    int decider
    int prompt
    int nopts
    int nlog
    int context             # an "option" decision: the choice op's row, or CONTEXT_DRAGON - dragon
                            # (a chance point: its event << 4 | who)
    int asked_by            # the card or rule asking the decision (rules.pxi asks()), 0 = none
    int told_log            # the current segment was logged with chance told (Run.told)
    int opts[MAX_OPTS]
    int log[MAX_LOG]        # decisions taken in the current segment

PROMPTS = ("move", "payment", "egg source", "resource", "gain dragon", "gain cave", "lay egg",
           "cache", "tuck card", "tuck under", "use ability", "option", "guild spot", "order",
           "setup discard", "setup resources", "discard", "pay card", "cave", "play dragon",
           "play cave", "swap", "activate", "exchange", "waive", "mat benefit", "cache resource", "chance")
PHASES = ("setup", "turn", "round end", "objective", "round start", "end game", "over", "deal")
ASK_KINDS = (None, "dragon", "cave", "mat", "guild track", "guild tile", "exchange", "cost")    # Game.asked_by
ASK_TIMINGS = ("when_played", "if_activated", "once_per_round", "end_game", "on_feed", "grow_up")
SCORE_CATEGORIES = ("guild", "dragons", "end_game", "eggs", "cached", "tucked", "objectives",
                    "coins", "items", "caves", "total")
from advisor import variants as _variants
AUTOMA_LEVEL_NAMES = _variants.AUTOMA_LEVELS       # automa_level 1..6
assert _variants.MAX_PLAYERS == MAXP
LEFT_NEIGHBOUR_DRAGONS = (47, 103, 114, 168, 170)


from advisor.errors import GameStateError, IllegalActionError

CHANCE_MODES = ("sampled", "told")
CHANCE = CHANCE_SEAT        # Game.decider at a chance point
CHANCE_EVENTS = ("hand dragon", "hand cave", "display dragon", "display cave", "deal dragon",
                 "deal cave", "tuck", "reveal", "play cave", "guild tile", "objective",
                 "first player", "automa card")
assert len(CHANCE_EVENTS) == N_CHANCE_EVENTS
STAND_IN = 1 << 30          # a history entry: a chance outcome bound at random, the table's unseen


class ChanceEvent(tuple):
    """A chance point of a game with chance told: `event` (one of CHANCE_EVENTS), `who` (the seat
    it happens to, the display slot, or the round of an objective, 0-based), `observers` (the seats
    that see the outcome) and `outcomes` (the action ids that can come)."""
    __slots__ = ()

    def __new__(cls, event, who, observers, outcomes):
        return tuple.__new__(cls, (event, who, observers, outcomes))

    event = property(lambda self: self[0])
    who = property(lambda self: self[1])
    observers = property(lambda self: self[2])
    outcomes = property(lambda self: self[3])

    def __repr__(self):
        return (f"ChanceEvent(event={self[0]!r}, who={self[1]}, observers={self[2]}, "
                f"outcomes=<{len(self[3])}>)")


def chance_observers(int event, int who, int players):
    """The seats that see a chance outcome: a card into a hand, its owner; a card tucked blind,
    nobody; everything else is face up."""
    if event in (CH_HAND_DRAGON, CH_HAND_CAVE, CH_DEAL_DRAGON, CH_DEAL_CAVE):
        return (who,)
    if event == CH_TUCK:
        return ()
    return tuple(range(players))


class EngineError(RuntimeError):
    """The engine reached a state it cannot continue from (a bug, never a user error)."""


class StateReplayError(GameStateError, EngineError):
    """Game.from_dict: the state's logged decisions do not replay from its segment start, or the
    rules cannot play on from it. A GameStateError (a bad state dict) that is an EngineError too,
    as the engine raised before (callers trying candidate states catch that)."""


def _error_text(code):
    if code >= 100:
        return f"the rules offered no option for a '{PROMPTS[code - 100]}' decision"
    return "replay of the current segment diverged"


cdef int advance(GameData* G) noexcept:
    """Replay the current segment with the logged decisions and play on to the next decision."""
    cdef int r
    cdef bint same = False          # cur is already the segment start (a segment just ended)
    while True:
        if not same:
            copy_core(&G.cur, &G.snap)
        same = False
        RUN.log = G.log
        RUN.nlog = G.nlog
        RUN.pos = 0
        RUN.bad = 0
        RUN.asked_by = ASK_NONE     # (a pause longjmped past the restores of the abilities it was in)
        RUN.ask_forced = G.snap.chance_told
        RUN.told = G.snap.chance_told or G.told_log
        r = setjmp(RUN.jb)
        if r == 0:
            if not step_segment(&G.cur):
                copy_core(&G.snap, &G.cur)
                G.nlog = 0
                G.over = 1
                G.nopts = 0
                G.decider = -1
                return 0
            copy_core(&G.snap, &G.cur)
            G.nlog = 0
            G.told_log = G.snap.chance_told
            same = True
            if RUN.auto_one_segment and RUN.autoplay:
                RUN.autoplay = False
                RUN.skip_move_list = True
        elif r == 1:
            G.nlog = RUN.nlog           # with the decisions autoplay took on the way
            if RUN.pos != G.nlog:
                G.error = 1
                return -1
            G.decider = RUN.decider
            G.prompt = RUN.prompt
            G.context = RUN.context
            G.asked_by = RUN.asked_by
            G.nopts = RUN.nopts
            memcpy(G.opts, RUN.opts, RUN.nopts * sizeof(int))
            return 0
        else:
            G.error = RUN.bad
            return -1

cdef int apply_action(GameData* G, int a) noexcept:
    """Take an action; -1 if it is not legal now."""
    cdef int i
    if G.over or G.error or G.nlog >= MAX_LOG:
        return -1
    for i in range(G.nopts):
        if G.opts[i] == a:
            G.log[G.nlog] = a | LOG_FORCED if G.nopts == 1 else a
            G.told_log |= G.snap.chance_told
            G.nlog += 1
            return advance(G)
    return -1

cdef inline void copy_game_to_replay(GameData* dst, const GameData* src) noexcept nogil:
    """copy_game without the current state, for a copy that is replayed at once (apply_action
    rebuilds `cur` from the segment start)."""
    copy_core(&dst.snap, &src.snap)
    memcpy(&dst.over, &src.over, (<const char*>&src.opts[0] - <const char*>&src.over) + src.nopts * sizeof(int))
    memcpy(dst.log, src.log, src.nlog * sizeof(int))

cdef inline void copy_game(GameData* dst, const GameData* src) noexcept nogil:
    copy_game_to_replay(dst, src)
    copy_core(&dst.cur, &src.cur)

cdef void init_game(GameData* G, int players, uint64_t seed, int printing, int automa_level,
                    bint told=False) noexcept:
    """A new game: dealt from `seed` (chance sampled), or, with `told`, at its deal's first chance
    point (chance told: the caller gives every outcome)."""
    cdef Core* g = &G.snap
    cdef int i, j, t
    memset(G, 0, sizeof(GameData))
    use_printing(printing)
    if players == 1:            # solo: the Automa is seat 1
        players = 2
        g.automa_level = automa_level
    g.n_players = players
    g.printing = printing
    g.rng = seed
    rng_next(&g.rng)
    for i in range(N_DRAGON_CARDS):
        g.deck_d[i] = i + 1
    g.n_deck_d = N_DRAGON_CARDS
    if g.automa_level:        # left-neighbour dragons leave the solo game (assumption)
        j = 0
        for i in range(N_DRAGON_CARDS):
            t = g.deck_d[i]
            if not left_out_of_solo(t):
                g.deck_d[j] = t
                j += 1
        memset(&g.deck_d[j], 0, N_DRAGON_CARDS - j)
        g.n_deck_d = j
    for i in range(N_CAVE_CARDS):
        g.deck_c[i] = i + 1
    g.n_deck_c = N_CAVE_CARDS
    if told:
        g.chance_told = 1
        g.phase = PH_DEAL
        return
    RUN.nlog = 0                # no replay runs: the deal's chance points sample
    RUN.pos = 0
    RUN.told = False
    deal(g)

cdef int random_playout(GameData* G, uint64_t* rng) noexcept:
    """Uniformly random decisions to the end of the game; returns the number taken, -1 on error."""
    cdef int n = 0
    while not G.over:
        if G.error or G.nopts <= 0 or apply_action(G, G.opts[rng_below(rng, G.nopts)]) < 0:
            return -1
        n += 1
    return n


cdef inline void use_tables_of(Game game) noexcept:
    """Point the card tables at `game`'s printing: every def that runs the rules, scores or
    reads the tables on a game calls it first (another game may have used the other printing)."""
    use_printing(game.g.snap.printing)


cdef class Game:
    """One game of Wyrmspan. Decisions are small integer action ids (see advisor.notation)."""
    cdef GameData* g
    cdef list _history      # every action since the first state (chance outcomes too; STAND_IN marks)
    cdef bytes _first       # the first state (a GameData's bytes), where undo replays from

    def __cinit__(self):
        self.g = <GameData*>malloc(sizeof(GameData))
        if self.g == NULL:
            raise MemoryError()
        memset(self.g, 0, sizeof(GameData))
        self._history = []
        self._first = None

    cdef _begin(self):
        """Make the current state the first of the game's history."""
        self._first = (<char*>self.g)[:sizeof(GameData)]
        self._history = []

    def __dealloc__(self):
        free(self.g)

    @staticmethod
    def new(int players=2, seed=0, printing="base", automa="2", chance="sampled"):
        """A new game, dealt from `seed`, at its first decision (setup). With 1 player the Automa
        plays seat 1 at level `automa` (one of advisor.variants.AUTOMA_LEVELS). With
        chance="told" nothing is dealt: the game stops at each chance point, the deal's first,
        for its outcome (`chance_event`; `apply` an outcome, or `sample` one the table hides)."""
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance must be one of {', '.join(CHANCE_MODES)}, got {chance!r}")
        if not 1 <= players <= MAXP:
            raise ValueError(f"players must be 1..{MAXP}, got {players}")
        level = str(automa).upper()
        if level not in AUTOMA_LEVEL_NAMES:
            raise ValueError(f"Automa level must be one of {', '.join(AUTOMA_LEVEL_NAMES)}, got {automa!r}")
        cdef int index = printing_index(printing)
        need_tables(index)
        cdef Game game = Game()
        init_game(game.g, players, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF), index,
                  AUTOMA_LEVEL_NAMES.index(level) + 1, chance == "told")
        game._advance()
        game._begin()
        return game

    @property
    def printing(self):
        """The card printing this game plays with ("base" or "2025")."""
        return PRINTINGS[self.g.snap.printing]

    @property
    def automa_level(self):
        """The Automa's level ("1".."3", "R1".."R3") in a solo game, else None."""
        return AUTOMA_LEVEL_NAMES[self.g.cur.automa_level - 1] if self.g.cur.automa_level else None

    cdef _advance(self):
        use_tables_of(self)
        if advance(self.g) < 0:
            raise EngineError(_error_text(self.g.error))

    def clone(self):
        cdef Game other = Game.__new__(Game)
        copy_game(other.g, self.g)
        other._history = list(self._history)
        other._first = self._first
        return other

    def legal_actions(self):
        return [self.g.opts[i] for i in range(self.g.nopts)]

    def apply(self, int action, bint stand_in=False):
        """Take a decision, or give a chance point its outcome. `stand_in`: the table did not show
        it (a card drawn or chosen unseen) and this one stands in, so `rebind` may bind it anew."""
        if self.g.over:
            raise IllegalActionError(f"action {action}: the game is over")
        use_tables_of(self)
        if apply_action(self.g, action) < 0:
            if self.g.error:
                raise EngineError(_error_text(self.g.error))
            raise IllegalActionError(f"action {action} is not legal now")
        self._history.append(action | STAND_IN if stand_in else action)

    def sample(self, seed):
        """At a chance point, an outcome the table does not show: one of those that can come, at
        random from `seed`, kept as a stand-in. Returns it."""
        cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        if self.g.over or self.g.decider != CHANCE_SEAT:
            raise IllegalActionError("not at a chance point")
        rng_next(&rng)
        a = self.g.opts[rng_below(&rng, self.g.nopts)]
        self.apply(a, stand_in=True)
        return a

    @property
    def chance_event(self):
        """The chance point the game stops at (a ChanceEvent), or None at a player's decision."""
        if self.g.over or self.g.decider != CHANCE_SEAT:
            return None
        event, who = self.g.context >> 4, self.g.context & 15
        return ChanceEvent(CHANCE_EVENTS[event], who, chance_observers(event, who, self.g.cur.n_players),
                           self.legal_actions())

    @property
    def chance(self):
        """"told" if the caller gives chance outcomes, else "sampled"."""
        return CHANCE_MODES[self.g.cur.chance_told]

    @property
    def history(self):
        """Every action since the first state, chance outcomes included."""
        return [a & ~STAND_IN for a in self._history]

    @property
    def stand_ins(self):
        """Indexes in `history` of the entries the table did not show (`sample`, apply(stand_in=True))."""
        return [i for i, a in enumerate(self._history) if a & STAND_IN]

    def undo(self):
        """Take back the last action (a decision or a chance outcome); returns it."""
        cdef int n = len(self._history) - 1      # (the core is compiled without wraparound)
        if not self._history:
            raise IllegalActionError("nothing to undo: the game is at its first state")
        last = self._history[n] & ~STAND_IN
        self._replay(self._history[:n])
        return last

    def rewind(self, int n):
        """Back to where the first `n` actions of the history had been taken."""
        if not 0 <= n <= len(self._history):
            raise IllegalActionError(f"cannot rewind to {n}: the history has {len(self._history)} actions")
        self._replay(self._history[:n])

    def rebind(self, seed, int tries=64, then=(), int seat=-1):
        """A copy whose stand-ins are bound anew so that the history, and then the actions `then`
        (taken by `seat`, if known, else by the decider now), replay: every outcome the table
        showed and every decision it saw stay as they are (hidden.pxi says how a stand-in is
        bound). Tries up to `tries` bindings from `seed`; IllegalActionError if none replays. The
        copy has `then` applied."""
        if self._first is None:
            raise EngineError("a game without its first state")
        return rebind(self, seed, tries, [int(t) for t in then], seat)

    def swapped(self, a, b):
        """A copy in which two cards the table did not show trade places: every stand-in that
        binds the one binds the other (a blind draw brings the other, a hand chose the other unseen).
        The repair of one binding's cards by another's: IllegalActionError if that history does not
        replay (a card shown before it was out of sight, say)."""
        if self._first is None:
            raise EngineError("a game without its first state")
        return swapped(self, tuple(a), tuple(b))

    def as_legal(self, int action):
        """`action` as this point takes it: where it names a card picked (from a hand or as drawn)
        and one option here picks that card under another kind (a card entered as drawn that a
        "play a dragon" asks for), that option; else `action` itself, legal or not."""
        return _as_legal(self, action)

    def holding(self, int action, instead):
        """A look at what follows the seat deciding taking `action`, had it held the card that
        names in place of `instead` since this segment began (a choice the table did not see, of a
        card another binding gives the seat). The copy's cards are no longer one deal, so it has no
        history or first state: it is for reading what follows, not for play (`swapped` binds)."""
        return holding(self, action, tuple(instead))

    cdef _replay(self, list history):
        """The first state, then `history` applied again; EngineError at an entry that is not legal."""
        cdef int a
        memcpy(self.g, <const char*>self._first, sizeof(GameData))
        use_tables_of(self)
        for i, entry in enumerate(history):
            a = entry & ~STAND_IN
            if apply_action(self.g, a) < 0:
                raise EngineError(f"the history does not replay at entry {i} (action {a})")
        self._history = list(history)

    @property
    def decider(self):
        """The seat deciding now (any player, e.g. one accepting a shared benefit); CHANCE at a
        chance point; -1 when over."""
        return -1 if self.g.over else self.g.decider

    @property
    def decision(self):
        """What the current decision is about (see PROMPTS)."""
        return None if self.g.over else PROMPTS[self.g.prompt]

    @property
    def asked_by(self):
        """The card or rule whose ability asks the current decision (the innermost where one ability
        runs another): ("dragon", d, timing) with timing one of ASK_TIMINGS, ("cave", card), ("mat",
        cave, benefit) (benefit 0: the cave's own, k + 1: column k's), ("guild track", space),
        ("guild tile", ability), ("exchange",) for a fourth column's exchange, ("cost", d) for paying
        for dragon d being enticed; None where the rules themselves ask (a move, a round's egg, ...)
        and when the game is over."""
        cdef int a = self.g.asked_by
        cdef int kind = (a >> 16) & 255, x = (a >> 8) & 255, y = a & 255
        if self.g.over or kind == ASK_NONE:
            return None
        if kind == ASK_DRAGON:
            return ("dragon", x, ASK_TIMINGS[y])
        if kind == ASK_MAT:
            return ("mat", x, y)
        if kind == ASK_EXCHANGE:
            return ("exchange",)
        return (ASK_KINDS[kind], x)

    @property
    def asking_seat(self):
        """Whose card or rule asks the current decision (Game.asked_by): the seat of the ability's
        owner, which is another seat's where an ability lets each opponent decide; None with
        asked_by None."""
        if self.g.over or (self.g.asked_by >> 16) & 255 == ASK_NONE:
            return None
        return self.g.asked_by >> 24

    @property
    def option_of(self):
        """What an "option" decision chooses among: ("choice", row) for one statement of the
        effect program's choice at that row (its options: the statements of its block, in order),
        ("ability", dragon) for which of a dragon's abilities to use (its options: when played, if
        activated, once per round); None at other decisions."""
        if self.g.over or self.g.prompt != P_OPTION:
            return None
        if self.g.context <= CONTEXT_DRAGON:
            return ("ability", CONTEXT_DRAGON - self.g.context)
        return ("choice", self.g.context)

    @property
    def phase(self):
        return PHASES[self.g.cur.phase]

    @property
    def round(self):
        """The round, 1-4 as players count (the state dicts of to_dict and observation keep the
        core's 0-3)."""
        return self.g.cur.round + 1

    @property
    def active(self):
        return self.g.cur.active

    @property
    def players(self):
        return self.g.cur.n_players

    @property
    def decisions_in_segment(self):
        return self.g.nlog

    def is_terminal(self):
        return bool(self.g.over)

    def score_breakdown(self):
        """Per player: VP by category (guild, dragons, end_game, eggs, cached, tucked, objectives,
        coins, items, total). During play it is the score if the game ended now (no end-game abilities)."""
        cdef int sc[MAXP][N_SCORE]
        cdef int p
        use_tables_of(self)
        for p in range(self.g.cur.n_players):      # all in C, before any Python object is made
            score_player(&self.g.cur, p, sc[p])
        return [{SCORE_CATEGORIES[k]: sc[p][k] for k in range(N_SCORE)} for p in range(self.g.cur.n_players)]

    def scores(self):
        return [b["total"] for b in self.score_breakdown()]

    def winners(self):
        use_tables_of(self)
        m = winners_mask(&self.g.cur)
        return [p for p in range(self.g.cur.n_players) if (m >> p) & 1]

    def play_random(self, seed=0):
        """Play to the end with uniformly random decisions (and chance outcomes, where chance is
        told); returns decisions taken."""
        cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        cdef int a, n = 0
        rng_next(&rng)
        use_tables_of(self)
        while not self.g.over:
            if self.g.error or self.g.nopts <= 0:
                raise EngineError(_error_text(self.g.error))
            a = self.g.opts[rng_below(&rng, self.g.nopts)]
            if apply_action(self.g, a) < 0:
                raise EngineError(_error_text(self.g.error))
            self._history.append(a)
            n += 1
        return n

    # ------------------------------------------------------------------ state as plain data
    def to_dict(self):
        """The full state (hidden information included) at the current segment start and play
        position, as plain Python data. `Game.from_dict` rebuilds it."""
        return {"core": _core_to_dict(&self.g.cur), "printing": self.printing,
                "segment_start": _core_to_dict(&self.g.snap),
                "log": [self.g.log[i] for i in range(self.g.nlog)]}

    @staticmethod
    def from_dict(d):
        """A game from `to_dict` data (or a `core` dict alone: a game at a segment boundary). Every
        field is checked first: GameStateError (a ValueError) names one the core cannot take."""
        if not isinstance(d, dict):
            raise GameStateError(f"state: expected a table, got {_kind(d)}")
        key = "segment_start" if "segment_start" in d else "core"
        if key not in d:
            raise GameStateError("state: no core (a game's state) in it")
        cdef Game game = Game()
        _core_from_dict(&game.g.snap, d[key], key)
        # the printing named beside the state wins over the state's own field (position files
        # build states with printing 0)
        if "printing" in d:
            printing = d["printing"]
            if not isinstance(printing, str) or printing not in PRINTINGS:
                raise GameStateError(f"printing: expected one of {', '.join(PRINTINGS)}, got "
                                     + (repr(printing[:40]) if isinstance(printing, str) else _kind(printing)))
            game.g.snap.printing = PRINTINGS.index(printing)
        need_tables(game.g.snap.printing)
        cdef _Reader rd = _Reader()
        log = rd.items(d.get("log", []), "log", 0, MAX_LOG)
        for i, a in enumerate(log):
            game.g.log[i] = rd.number(a, f"log[{i}]", 0, 2**31 - 1)
            if game.g.log[i] & LOG_FORCED or A_KIND(game.g.log[i] & ~LOG_FORCED) in (K_DRAW_DRAGON, K_DRAW_CAVE,
                                                                                   K_CHANCE):
                game.g.told_log = 1     # logged by a game with chance told
        game.g.nlog = len(log)
        use_tables_of(game)
        if advance(game.g) < 0:
            if game.g.error == 1:
                raise StateReplayError(f"log: the decisions logged are not the game's from its {key} "
                                       f"({_error_text(1)})")
            raise StateReplayError(f"{key}: the rules cannot play on from this state ({_error_text(game.g.error)})")
        game._begin()
        return game

    def determinize(self, int player, seed, bint fresh=True):
        """A copy where everything `player` cannot see is resampled from `seed`: the other players'
        hands (except cards known to be there), the deck orders and the face-down cards; the RNG is
        reseeded so no future chance event is the real one. A card another seat picked unseen in
        this turn among cards the deal replaced becomes one of those dealt; `fresh=False` keeps the
        hands where it cannot (for a game whose hidden cards are stand-ins, as `advisor track`'s)."""
        cdef Game other = self.clone()
        cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        rng_next(&rng)
        use_tables_of(other)
        if self.g.decider == CHANCE_SEAT:
            raise IllegalActionError("a chance point: give or sample its outcome before determinizing")
        if determinize(other.g, player, &rng, fresh) < 0:
            raise EngineError(_error_text(other.g.error))
        other._begin()
        return other

    def unplaced(self, int player):
        """The dragon and cave cards `player` cannot place now: in a deck or in another's hand,
        where they cannot see them (the engine's one model of hidden cards: the search deals these
        anew, the tracker binds them). Returns (dragons, caves) as sets of card numbers."""
        cdef Core* c = &self.g.cur
        cdef int ids[256]
        cdef int i, q, m
        if not 0 <= player < c.n_players:
            raise ValueError(f"player {player}: the game has {c.n_players} seats")
        dragons, caves = set(), set()
        for i in range(c.n_deck_d):
            if not seen_dragon(c, player, c.deck_d[i]):
                dragons.add(c.deck_d[i])
        for i in range(c.n_deck_c):
            if not seen_cave(c, player, c.deck_c[i]):
                caves.add(c.deck_c[i])
        for q in range(c.n_players):
            if q == player:
                continue
            m = bits_list(c.p[q].hand_d, DW, ids)
            for i in range(m):
                if not seen_dragon(c, player, ids[i]):
                    dragons.add(ids[i])
            m = bits_list(c.p[q].hand_c, CW, ids)
            for i in range(m):
                if not seen_cave(c, player, ids[i]):
                    caves.add(ids[i])
        return dragons, caves

    def placed(self, int player):
        """The dragon and cave cards `player` can see where they are now (their hand, the table,
        the discards, cards known in a hand, face down cards they saw go): (dragons, caves)."""
        cdef Core* c = &self.g.cur
        cdef int d
        if not 0 <= player < c.n_players:
            raise ValueError(f"player {player}: the game has {c.n_players} seats")
        return ({d for d in range(1, N_DRAGON_CARDS + 1) if seen_dragon(c, player, d)},
                {d for d in range(1, N_CAVE_CARDS + 1) if seen_cave(c, player, d)})

    def observation(self, int player):
        """What `player` sees: the public state, their own hand, and of other hands only the size
        and the cards known to be there. A core state dict like to_dict's: "round" is 0-3."""
        d = _core_to_dict(&self.g.cur)
        for q, P in enumerate(d["players"]):
            if q != player:
                P["hand_dragons"] = sorted(P["known_dragons"])
                P["hand_caves"] = sorted(P["known_caves"])
            P.pop("seen_dragons")
        d["n_deck_dragons"] = len(d.pop("deck_dragons"))
        d["n_deck_caves"] = len(d.pop("deck_caves"))
        d.pop("public_dragons")
        d.pop("rng")
        d.pop("told", None)         # chance told from outside: not for the viewer to read
        if d["automa"]:
            d["automa"]["deck"] = d["automa"]["deck"][:d["automa"]["next"]]     # revealed cards only
        d["decider"] = self.decider
        d["decision"] = self.decision
        d["legal_actions"] = self.legal_actions() if self.decider == player else []
        return d


cdef GameData DET_ORIGINAL     # the state before a determinization, for rejection sampling

cdef bint same_decision(const GameData* a, const GameData* b, int player) noexcept nogil:
    """Whether `player` sees the same decision in both: same decider and prompt, and the same
    options when it is `player`'s own decision."""
    if a.over != b.over or a.error or b.error:
        return False
    if a.over:
        return True
    if a.decider != b.decider or a.prompt != b.prompt:
        return False
    if a.decider == player and (a.nopts != b.nopts or memcmp(a.opts, b.opts, a.nopts * sizeof(int)) != 0):
        return False
    return same_table(&a.cur, &b.cur)

cdef bint same_table(const Core* a, const Core* b) noexcept nogil:
    """Whether the face-up cards are the same: display, discard piles and every mat (a card another
    seat picked unseen, which a deal replaced, may have gone to one of them since)."""
    cdef int q
    if a.n_disc_d != b.n_disc_d or a.n_disc_c != b.n_disc_c \
            or memcmp(a.disc_d, b.disc_d, a.n_disc_d) != 0 or memcmp(a.disc_c, b.disc_c, a.n_disc_c) != 0 \
            or memcmp(a.display_d, b.display_d, DISPLAY) != 0 or memcmp(a.display_c, b.display_c, DISPLAY) != 0:
        return False
    for q in range(a.n_players):
        if memcmp(a.p[q].dragon, b.p[q].dragon, sizeof(a.p[q].dragon)) != 0 \
                or memcmp(a.p[q].cave, b.p[q].cave, sizeof(a.p[q].cave)) != 0:
            return False
    return True

cdef int determinize(GameData* G, int player, uint64_t* rng, bint fresh=True) noexcept:
    """Resample what `player` cannot see. A sample is kept only if it leads to the decision the
    player actually faces (rejection sampling: the visible play so far must replay); after
    DET_TRIES failures the other players' hands are kept and only the decks are resampled."""
    cdef int k, r
    G.snap.chance_told = 0          # a determinization samples every chance event to come
    G.cur.chance_told = 0
    copy_game(&DET_ORIGINAL, G)
    DET_COUNTS[0] += 1
    for k in range(DET_TRIES + 1):
        if k > 0:
            copy_game(G, &DET_ORIGINAL)
        r = determinize_once(G, player, rng, k == DET_TRIES, fresh)
        if r >= 0 and same_decision(G, &DET_ORIGINAL, player):
            DET_COUNTS[1] += k == DET_TRIES
            return 0
    DET_COUNTS[2] += 1
    copy_game(G, &DET_ORIGINAL)
    resample_automa(&G.snap, rng)
    G.snap.rng = rng_next(rng)
    return advance(G)

cdef void resample_automa(Core* s, uint64_t* rng) noexcept nogil:
    """The order of the Automa's unrevealed cards (and which is set aside) is unseen: put them in a
    canonical order, then shuffle, so the result depends only on which cards they are."""
    cdef int i, j, n
    cdef uint8_t t
    if not s.automa_level or s.a_next >= 8:
        return
    n = 8 - s.a_next
    for i in range(s.a_next + 1, 8):            # insertion sort of the few unrevealed cards
        t = s.a_deck[i]
        j = i - 1
        while j >= s.a_next and s.a_deck[j] > t:
            s.a_deck[j + 1] = s.a_deck[j]
            j -= 1
        s.a_deck[j + 1] = t
    shuffle_u8(&s.a_deck[s.a_next], n, rng)

cdef inline bint left_out_of_solo(int d) noexcept nogil:
    return d == 47 or d == 103 or d == 114 or d == 168 or d == 170

cdef bint offered(const GameData* G, int player, int kind, int card) noexcept nogil:
    """Whether `player`'s decision now names the card: one drawn this segment and shown to her
    alone (a drawn card she may tuck), which she has seen though it is in nobody's hand yet."""
    cdef int j
    if G.decider != player:
        return False
    for j in range(G.nopts):
        if A_KIND(G.opts[j]) == kind and A_ARG(G.opts[j]) == card:
            return True
    return False

cdef bint seen_dragon(const Core* c, int player, int d) noexcept nogil:
    """Whether `player` can see where dragon card d is now (own hand, a known card, the table)."""
    cdef int q, i
    if bit_has(c.p[player].hand_d, d) or bit_has(c.p[player].seen_d, d) or bit_has(c.public_d, d):
        return True
    for q in range(c.n_players):
        if bit_has(c.p[q].known_d, d):
            return True
        for i in range(NCAVES * NCOLS):
            if c.p[q].dragon[i >> 2][i & 3] == d:
                return True
    for i in range(DISPLAY):
        if c.display_d[i] == d:
            return True
    for i in range(c.n_disc_d):
        if c.disc_d[i] == d:
            return True
    return False

cdef bint seen_cave(const Core* c, int player, int k) noexcept nogil:
    cdef int q, i
    if bit_has(c.p[player].hand_c, k) or bit_has(c.public_c, k):
        return True
    for q in range(c.n_players):
        if bit_has(c.p[q].known_c, k):
            return True
        for i in range(NCAVES * NCOLS):
            if c.p[q].cave[i >> 2][i & 3] == k:
                return True
    for i in range(DISPLAY):
        if c.display_c[i] == k:
            return True
    for i in range(c.n_disc_c):
        if c.disc_c[i] == k:
            return True
    return False

cdef int determinize_once(GameData* G, int player, uint64_t* rng, bint keep_hands, bint fresh) noexcept:
    """Resample the hidden cards of the segment start, keeping what the current segment already
    revealed to `player` so the logged decisions replay to the same visible play."""
    cdef Core* s = &G.snap
    cdef Core* c = &G.cur
    cdef uint8_t pool_d[N_DRAGON_CARDS]
    cdef uint8_t pool_c[N_CAVE_CARDS]
    cdef uint64_t visible_d[DW]
    cdef uint64_t visible_c[CW]
    cdef uint64_t keep_d[MAXP][DW]
    cdef uint64_t keep_c[MAXP][CW]
    cdef int ids[256]
    cdef uint64_t named_d[DW]
    cdef uint64_t named_c[CW]
    cdef uint8_t fixed_d[N_DRAGON_CARDS]
    cdef uint8_t fixed_c[N_CAVE_CARDS]
    cdef int n_pool_d = 0, n_pool_c = 0, q, i, w, m, pin_d, pin_c, need, t, a, r
    resample_automa(s, rng)
    if s.reshuffles != c.reshuffles:
        s.rng = rng_next(rng)
        return advance(G)          # a reshuffle inside the segment: keep the decks (rare)
    pin_d = s.n_deck_d - c.n_deck_d     # deck cards drawn in this segment stay where they are
    pin_c = s.n_deck_c - c.n_deck_c
    memset(visible_d, 0, sizeof(visible_d))
    memset(visible_c, 0, sizeof(visible_c))
    for w in range(DW):
        visible_d[w] = s.p[player].hand_d[w] | s.p[player].seen_d[w] | s.public_d[w]
    for w in range(CW):
        visible_c[w] = s.p[player].hand_c[w] | s.public_c[w]

    # deck cards drawn in this segment stay in place when `player` has seen them since; the ones
    # drawn unseen by someone else are dealt afresh like the rest of the deck
    memset(fixed_d, 0, sizeof(fixed_d))
    memset(fixed_c, 0, sizeof(fixed_c))
    for i in range(s.n_deck_d - pin_d, s.n_deck_d):
        if seen_dragon(c, player, s.deck_d[i]) or offered(G, player, K_DRAGON, s.deck_d[i]):
            fixed_d[i] = 1
            bit_set(visible_d, s.deck_d[i])
    for i in range(s.n_deck_c - pin_c, s.n_deck_c):
        if seen_cave(c, player, s.deck_c[i]) or offered(G, player, K_CAVE, s.deck_c[i]):
            fixed_c[i] = 1
            bit_set(visible_c, s.deck_c[i])
    # cards named by the decisions already taken in this segment stay in their holders' hands
    memset(named_d, 0, sizeof(named_d))
    memset(named_c, 0, sizeof(named_c))
    for i in range(G.nlog):
        a = G.log[i] & ~LOG_FORCED
        if A_KIND(a) == K_DRAGON or A_KIND(a) == K_ENTICE:
            bit_set(named_d, A_ARG(a) if A_KIND(a) == K_DRAGON else A_ARG(a) >> 2)
        elif A_KIND(a) == K_CAVE or A_KIND(a) == K_EXCAVATE:
            bit_set(named_c, A_ARG(a) if A_KIND(a) == K_CAVE else A_ARG(a) >> 2)
    for q in range(s.n_players):
        for i in range(NCAVES * NCOLS):
            if s.p[q].dragon[i >> 2][i & 3]:
                bit_set(visible_d, s.p[q].dragon[i >> 2][i & 3])
            if s.p[q].cave[i >> 2][i & 3]:
                bit_set(visible_c, s.p[q].cave[i >> 2][i & 3])
        for w in range(DW):
            # cards known to be in q's hand, and cards that left it during this segment
            keep_d[q][w] = s.p[q].hand_d[w] & (s.p[q].known_d[w] | ~c.p[q].hand_d[w] | named_d[w])
            if q == player or keep_hands:
                keep_d[q][w] = s.p[q].hand_d[w]
            visible_d[w] |= keep_d[q][w]
        for w in range(CW):
            keep_c[q][w] = s.p[q].hand_c[w] & (s.p[q].known_c[w] | ~c.p[q].hand_c[w] | named_c[w])
            if q == player or keep_hands:
                keep_c[q][w] = s.p[q].hand_c[w]
            visible_c[w] |= keep_c[q][w]
    for i in range(DISPLAY):
        if s.display_d[i]:
            bit_set(visible_d, s.display_d[i])
        if s.display_c[i]:
            bit_set(visible_c, s.display_c[i])
    for i in range(s.n_disc_d):
        bit_set(visible_d, s.disc_d[i])
    for i in range(s.n_disc_c):
        bit_set(visible_c, s.disc_c[i])
    for i in range(1, N_DRAGON_CARDS + 1):
        if not bit_has(visible_d, i) and not (s.automa_level and left_out_of_solo(i)):
            pool_d[n_pool_d] = i; n_pool_d += 1
    for i in range(1, N_CAVE_CARDS + 1):
        if not bit_has(visible_c, i):
            pool_c[n_pool_c] = i; n_pool_c += 1
    shuffle_u8(pool_d, n_pool_d, rng)
    shuffle_u8(pool_c, n_pool_c, rng)
    # deal the pool: other players' unknown hand cards, then the unpinned deck; the rest are the
    # face-down cards tucked out of play
    t = 0
    for q in range(s.n_players):
        if q == player:
            continue
        memcpy(s.p[q].hand_d, keep_d[q], sizeof(keep_d[q]))
        m = 0
        for w in range(DW):
            m += __builtin_popcountll(keep_d[q][w])
        need = s.p[q].n_hand_d - m
        if need < 0 or t + need > n_pool_d:
            return -1
        for i in range(need):
            bit_set(s.p[q].hand_d, pool_d[t]); t += 1
    for i in range(s.n_deck_d):
        if not fixed_d[i]:
            if t >= n_pool_d:
                return -1
            s.deck_d[i] = pool_d[t]; t += 1
    t = 0
    for q in range(s.n_players):
        if q == player:
            continue
        memcpy(s.p[q].hand_c, keep_c[q], sizeof(keep_c[q]))
        m = 0
        for w in range(CW):
            m += __builtin_popcountll(keep_c[q][w])
        need = s.p[q].n_hand_c - m
        if need < 0 or t + need > n_pool_c:
            return -1
        for i in range(need):
            bit_set(s.p[q].hand_c, pool_c[t]); t += 1
    for i in range(s.n_deck_c):
        if not fixed_c[i]:
            if t >= n_pool_c:
                return -1
            s.deck_c[i] = pool_c[t]; t += 1
    s.rng = rng_next(rng)
    RUN.dealt, RUN.dealt_for = fresh, player
    r = advance(G)
    RUN.dealt = False
    return r


# ---------------------------------------------------------------------------- measurements
def clone_ns(Game game, int n=100000):
    """Mean nanoseconds of one clone of `game` (the memcpy the search uses), over n clones in C."""
    import time
    use_tables_of(game)
    cdef GameData* tmp = <GameData*>malloc(sizeof(GameData))
    cdef int i
    t0 = time.perf_counter()
    for i in range(n):
        copy_game(tmp, game.g)
    t1 = time.perf_counter()
    free(tmp)
    return (t1 - t0) / n * 1e9


def random_games(int players, int n, seed=0, printing="base", int automa_level=2):
    """Play n games with uniformly random decisions entirely in C; returns the decisions taken."""
    if not 1 <= players <= MAXP:
        raise ValueError(f"players must be 1..{MAXP}, got {players}")
    if not 1 <= automa_level <= len(AUTOMA_LEVEL_NAMES):
        raise ValueError(f"automa_level must be 1..{len(AUTOMA_LEVEL_NAMES)}, got {automa_level}")
    cdef int index = printing_index(printing)
    need_tables(index)
    cdef GameData* G = <GameData*>malloc(sizeof(GameData))
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef long total = 0
    cdef int i, k
    rng_next(&rng)
    try:
        for i in range(n):
            init_game(G, players, rng_next(&rng), index, automa_level)
            if advance(G) < 0:
                raise EngineError(_error_text(G.error))
            k = random_playout(G, &rng)
            if k < 0:
                raise EngineError(_error_text(G.error))
            total += k
    finally:
        free(G)
    return total


def state_bytes():
    """Bytes of one game (segment start + current state + decision log and options)."""
    return sizeof(GameData), sizeof(Core)
