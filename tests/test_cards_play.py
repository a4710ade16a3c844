"""Every card played through the engine.

Part 1 plays each of the 183 dragons and 75 caves in a rich prepared state: every ability the card
has is triggered the way the game triggers it (entice, excavate, explore, round end, game end,
feeding a hatchling), the decision tree is explored by cloning, and the effects the card's program
promises (derived from the program itself) must show up in some branch; optional abilities must
also be declinable with nothing changed but the cost of the action.

Part 2 checks exact numbers for specific cards, covering every op and keyword of the effect
language (docs/effect-language.md).
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses

import pytest

from advisor import _core
from advisor import notation as N
from advisor.cards import _compiled, install_core_tables
from advisor.cards import language as L
from advisor.cards.compiler import compile_database, install
from advisor.cards.database import Ability
from helpers import CAVES, DB, RES, _take, blank, do, end_game_pays, give, player, put, start, texts

SIZES = L.SIZES
PERS = L.PERSONALITIES
LEAF_BUDGET = 400          # leaves explored per trigger (budget split over the options)
MAX_DEPTH = 120            # decisions in one ability: more means a loop in the engine


def kind(a: int) -> int:
    return a >> N.KIND_SHIFT


def arg(a: int) -> int:
    return a & ((1 << N.KIND_SHIFT) - 1)


def dragon(n: int):
    return DB.dragon(n)


# ============================================================================ measures
def measure_player(P: dict) -> dict:
    m = {r: P["resources"][i] for i, r in enumerate(RES)}
    m["res"] = sum(P["resources"])
    # resources kept: in the supply or cached (caching from the supply keeps a resource)
    for i, r in enumerate(RES):
        m["k_" + r] = m[r] + sum(x[i] for row in P["cached"] for x in row)
    m["k_res"] = sum(m["k_" + r] for r in RES)
    m["coins"] = P["coins"]
    m["eggs"] = P["nest_eggs"] + sum(map(sum, P["eggs"]))
    m["guild"] = P["guild_steps"]
    m["cached"] = sum(sum(x) for row in P["cached"] for x in row)
    m["tucked"] = sum(map(sum, P["tucked"]))
    m["hand_d"] = len(P["hand_dragons"])
    m["dcards"] = m["hand_d"] + m["tucked"]      # dragon cards gained, kept or tucked
    m["hand_c"] = len(P["hand_caves"])
    m["mat_d"] = sum(1 for row in P["dragons"] for d in row if d)
    m["mat_c"] = sum(1 for row in P["caves"] for k in row if k)
    m["end_vp"] = P["end_vp"]
    m["markers"] = 4 - P["markers_left"]
    m["layout"] = tuple(tuple(row) for row in P["dragons"])
    return m


def measure_core(core: dict) -> tuple[dict, dict]:
    m0, m1 = measure_player(core["players"][0]), measure_player(core["players"][1])
    # whole-game invariants, kept with player 0: cards are never created or lost, no dragon holds
    # more eggs than its capacity, no count wrapped below zero
    players = core["players"]
    m0["all_d"] = (len(core["deck_dragons"]) + len(core["discard_dragons"])
                   + sum(1 for d in core["display_dragons"] if d)
                   + sum(len(P["hand_dragons"]) + sum(map(sum, P["tucked"]))
                         + sum(1 for row in P["dragons"] for d in row if d) for P in players))
    m0["all_c"] = (len(core["deck_caves"]) + len(core["discard_caves"])
                   + sum(1 for k in core["display_caves"] if k)
                   + sum(len(P["hand_caves"]) + sum(1 for row in P["caves"] for k in row if k)
                         for P in players))
    m0["overfull"] = sum(
        1 for P in players for c in range(3) for k in range(4)
        if P["eggs"][c][k] > (dragon(P["dragons"][c][k]).capacity if P["dragons"][c][k] else 0))
    m0["overfull"] += sum(1 for P in players if P["nest_eggs"] > 2)
    m0["wrapped"] = sum(1 for P in players for v in
                        [P["coins"], P["nest_eggs"], *P["resources"], *sum(P["eggs"], [])]
                        if v > 100)
    return m0, m1


def measure(game) -> tuple[dict, dict]:
    return measure_core(game.to_dict()["core"])


def delta_ok(key: str, need: int, leaf, base) -> bool:
    """Whether `key` went up by at least `need` (end_vp, layout, any: changed) from base to leaf."""
    who = 0
    if key.startswith("opp:"):
        who, key = 1, key[4:]
    a, b = leaf[who], base[who]
    if key == "any":
        return leaf != base
    if key in ("end_vp", "layout"):
        return a[key] != b[key]
    return a[key] - b[key] >= need


def holds(alt: dict, leaf, base) -> bool:
    return all(delta_ok(k, n, leaf, base) for k, n in alt.items())


def show(alts) -> str:
    return " or ".join("+".join(f"{k}>={n}" for k, n in sorted(a.items())) for a in alts)


# ============================================================================ expectations
# A requirement is a tuple of alternatives; an alternative maps measure keys to the least
# increase one branch must show (all of them in the same branch).
def expect_block(block: L.Block | None, who: str = "") -> list:
    """Requirements promised by a program: for each op, what it must visibly do in some branch."""
    out = []
    if block is None:
        return out
    for n in block.stmts:
        out += expect_stmt(n, who)
    return out


def _one(key: str, n: int = 1) -> tuple:
    return ({key: n},)


def _merge(reqs) -> dict:
    """The alternatives of a reveal outcome: everything it promises, in one branch."""
    alt: dict = {}
    for alts in reqs:
        for k, n in alts[0].items():
            alt[k] = alt.get(k, 0) + n
    return alt


def _discards_gained(n: L.Node) -> int:
    return sum(s.args[0] if s.args else 1 for s in (n.block.stmts if n.block else ())
               if s.op == "discard" and s.kwargs.get("from", "gained") == "gained")


ITEM_KEY = {"coin": "coins", "dragon_card": "dcards", "cave_card": "hand_c"}


def expect_stmt(n: L.Node, who: str) -> list:
    op = n.op
    if op == "gain":
        alt: dict = {}
        for it in n.args:
            key = ITEM_KEY.get(it, "k_" + it if it in RES else "k_res")
            alt[who + key] = alt.get(who + key, 0) + 1
        if _discards_gained(n):               # "gain 3, discard 1 of them"
            alt[who + "dcards"] -= _discards_gained(n)
        return [(alt,)] + expect_block(n.block, who)
    if op == "lay":
        each = n.kwargs.get("on") in ("each_in_cave", "each_in_column")
        return [_one(who + "eggs", 1 if each else (n.args[0] if n.args else 1))]
    if op == "guild":
        return [_one(who + "guild", n.args[0] if n.args else 1)]
    if op == "cache":
        return [_one(who + "cached", len(n.args))] + expect_block(n.block, who)
    if op == "tuck":
        each = n.kwargs.get("under") == "each_in_cave"
        return [_one(who + "tucked", 1 if each else (n.args[0] if n.args else 1))] + \
            expect_block(n.block, who)
    if op == "entice":
        return [_one(who + ("tucked" if n.kwargs.get("onto") == "dragon" else "mat_d"))]
    simple = {"excavate": "mat_c", "swap_dragons": "layout", "activate": "any",
              "activate_mat": "any", "take": "hand_d", "vp": "end_vp"}
    if op in simple:
        return [_one(who + simple[op])]
    if op == "reveal":
        hit = _merge(expect_block(n.kwargs.get("hit"), who))
        miss = _merge(expect_block(n.kwargs.get("miss"), who))
        return [(hit, miss)]
    if op in ("pay", "pick", "upto", "repeat", "if"):
        return expect_block(n.block, who)           # upto / repeat: at least once
    if op in ("choice", "different"):
        return expect_block(n.block, who)           # every option, each in some branch
    if op == "each_opponent":
        return expect_block(n.block, "opp:")
    if op == "discard":
        return []
    raise AssertionError(f"no expectation for op {op}")


OPTIONAL_OPS = {"pay", "cache", "tuck", "entice", "excavate", "swap_dragons", "activate",
                "activate_mat"}


def optional(block: L.Block) -> bool:
    """Whether the owner (and every opponent) can decline the whole ability."""
    def stmt(n):
        if n.op == "tuck" and n.kwargs.get("under") == "each_in_cave":
            return False                 # one card under each dragon: no choice, like lay on each
        if n.op in OPTIONAL_OPS:
            return True
        if n.op in ("upto", "if", "repeat", "each_opponent", "choice", "different"):
            return optional(n.block)
        return False
    return all(stmt(n) for n in block.stmts)


def program(text: str) -> L.Block:
    return L.parse(text)


# ============================================================================ exploring
def finished(g) -> bool:
    """The ability (and the action that triggered it) is over: a new segment started, the game
    ended, or the end-of-turn hand limit is being applied (its discards are no card effect)."""
    if g.is_terminal() or g.decisions_in_segment == 0:
        return True
    if g.decision == "discard" and any(kind(a) in (N.RES, N.CAVE) for a in g.legal_actions()):
        return True
    return False


def in_first_segment(g, phase: str) -> bool:
    """At the start of a phase segment of player 0 (its first decision has an empty log)."""
    if g.is_terminal():
        return False
    seg = g.to_dict()["segment_start"]
    return seg["phase"] == phase and seg["phase_player"] == 0


def explore(g, budget: int, leaves: list, depth: int = 0, open_root: bool = False) -> None:
    """Depth first over the decisions, cloning before each alternative. The budget (number of
    leaves) is split over the options so that every option near the root gets explored.
    open_root: the root is the first decision of the segment under test (not a finished one)."""
    if not open_root and finished(g):
        leaves.append(measure(g))
        return
    assert depth < MAX_DEPTH, "ability did not finish"
    opts = g.legal_actions()
    assert opts, "a decision without options"
    n = len(opts)
    if budget >= n:
        shares = [budget // n + (1 if i < budget % n else 0) for i in range(n)]
    else:
        shares = [1] * budget + [0] * (n - budget)
    for a, s in zip(opts, shares, strict=True):
        if s:
            h = g.clone()
            h.apply(a)
            explore(h, s, leaves, depth + 1)


def follow(g, prefer_no: bool, open_root: bool = False):
    """One path to the end: 'no' whenever offered (declining everything), else the first option."""
    g = g.clone()
    steps = 0
    while (open_root and steps == 0) or not finished(g):
        opts = g.legal_actions()
        no = [a for a in opts if kind(a) == N.NO]
        g.apply(no[0] if (prefer_no and no) else opts[0])
        steps += 1
        assert steps < MAX_DEPTH
    return g


# ============================================================================ prepared states
class Setup:
    """A prepared state under construction; every card stays in one place (helpers.put/give)."""

    def __init__(self, reserve_d=(), reserve_c=(), seed=0):
        self.core = blank(seed=seed)
        self.used_d = set(reserve_d)
        self.used_c = set(reserve_c)

    # -- cards
    def pick(self, size=None, pers=None, has=None, lacks=(), cap=0, prefer=(), hatch=False,
             caves=None, cost_max=99):
        """A free dragon matching the filters (the `prefer` list first)."""
        cands = [dragon(x) for x in prefer] + list(DB.dragons)
        for d in cands:
            if d.number in self.used_d:
                continue
            tms = {a.timing for a in d.abilities}
            if size and d.size not in (size if isinstance(size, tuple) else (size,)):
                continue
            if pers and d.personality not in (pers if isinstance(pers, tuple) else (pers,)):
                continue
            if has and has not in tms:
                continue
            if tms & set(lacks):
                continue
            if d.capacity < cap or (d.is_hatchling and not hatch and size != "hatchling"):
                continue
            if caves and not set(caves) & set(d.caves):
                continue
            if d.total_cost > cost_max:
                continue
            self.used_d.add(d.number)
            return d.number
        raise AssertionError("no dragon matches")

    def cave_card(self):
        for k in reversed(self.core["deck_caves"]):
            if k not in self.used_c:
                self.used_c.add(k)
                return k
        raise AssertionError("no cave card left")

    def hand_caves(self, p, n):
        give(self.core, p, caves=[self.cave_card() for _ in range(n)])

    def place(self, p, cave, col, d, eggs=0, cached=(0, 0, 0, 0), tucked=0, cave_card=True):
        if col > 1 and cave_card and not self.core["players"][p]["caves"][cave][col - 1]:
            put(self.core, p, cave, col, cave_card=self.cave_card())
        if d:
            self.used_d.add(d)
            put(self.core, p, cave, col, dragon=d, eggs=eggs, tucked=tucked, cached=cached)

    def excavate(self, p, cave, upto_col):
        for col in range(2, upto_col + 1):
            if not self.core["players"][p]["caves"][cave][col - 1]:
                put(self.core, p, cave, col, cave_card=self.cave_card())

    def set_display(self, dragons):
        core = self.core
        for i, d in enumerate(dragons):
            old = core["display_dragons"][i]
            if old == d:
                continue
            _take(core, "dragons", d)          # may refill slot i from the deck: put it back
            old = core["display_dragons"][i]
            core["deck_dragons"].insert(0, old)
            core["display_dragons"][i] = d
            self.used_d.add(d)

    def discard(self, d):
        _take(self.core, "dragons", d)
        self.core["discard_dragons"].append(d)
        self.used_d.add(d)

    def opponent(self, pauser=None):
        """Player 1: one dragon with an egg, a card of each kind, resources and coins (so their turn
        is a real decision and each_opponent parts can be used)."""
        d = pauser or self.pick(cap=2, lacks=("end_game", "once_per_round"))
        self.place(1, 0, 1, d, eggs=1)
        give(self.core, 1, dragons=[self.pick(lacks=("end_game",))], coins=5, res=[1, 1, 1, 1],
             nest_eggs=1)
        self.hand_caves(1, 1)
        return d


def hatch_feed(d, n=2):
    """(cached, tucked) with n of a hatchling's food already on it."""
    cached = [0, 0, 0, 0]
    tucked = 0
    if d.feeds == "meat":
        cached[0] = n
    elif d.feeds == "milk":
        cached[3] = n
    elif d.feeds == "dragon_card":
        tucked = n
    return tuple(cached), tucked


SIMPLE_WP = (48, 62, 88, 38, 118, 60)             # when played: gain coins / milk
SIMPLE_IA = (56, 182, 128, 166, 169, 155, 92, 123, 177)   # if activated: gain a resource
SIMPLE_OPR = (139, 153, 175, 95, 138)


# ---------------------------------------------------------------------------- when played
def state_entice(T: int):
    s = Setup(reserve_d=[T])
    p = 0
    s.place(p, 0, 1, s.pick(prefer=SIMPLE_WP, has="when_played", cap=2), eggs=1)
    s.place(p, 0, 2, s.pick(prefer=SIMPLE_OPR, has="once_per_round", cap=2), eggs=1)
    s.excavate(p, 0, 3)
    s.place(p, 1, 1, s.pick(prefer=SIMPLE_IA, has="if_activated", cap=2), eggs=1)
    s.excavate(p, 1, 2)
    s.place(p, 2, 1, s.pick(cap=2, lacks=("end_game",)), eggs=1)
    s.place(p, 2, 2, s.pick(cap=2, lacks=("end_game",)), eggs=1)
    s.excavate(p, 2, 3)
    d = dragon(T)
    need = [d.cost[r] for r in RES]
    extra = s.pick(prefer=(122, 98, 46, 51, 106), cost_max=1)
    give(s.core, p, dragons=[T, extra], coins=3 + 1 + d.cost["coin"],
         res=[x + 1 for x in need], nest_eggs=2)
    s.hand_caves(p, 3)
    s.set_display([s.pick(prefer=(102, 94, 119), cost_max=4) for _ in range(3)])
    s.opponent()
    return s


def play_entice(T: int):
    """The game after the entice action and its payment, and the measures a declined ability
    would leave (the action's cost and the dragon on the mat)."""
    s = state_entice(T)
    g = start(s.core)
    acts = [a for a in g.legal_actions() if kind(a) == N.ENTICE and arg(a) >> 2 == T]
    assert acts, f"cannot entice dragon {T}: {texts(g)}"
    a = acts[0]
    cave = arg(a) & 3
    g.apply(a)
    d = dragon(T)
    need = [d.cost[r] for r in RES]
    packed = sum(n << (4 * i) for i, n in enumerate(need))
    while not finished(g) and g.decision in ("payment", "egg source"):
        opts = g.legal_actions()
        exact = [x for x in opts if kind(x) == N.PAY and arg(x) == packed]
        g.apply(exact[0] if exact else opts[0])
    # what a declined ability leaves: the cost paid and the dragon on the mat
    core = copy.deepcopy(s.core)
    P = core["players"][0]
    P["coins"] -= 1 + d.cost["coin"]
    P["nest_eggs"] -= d.cost["egg"]             # (only the total number of eggs is measured)
    P["resources"] = [x - n for x, n in zip(P["resources"], need, strict=True)]
    P["hand_dragons"].remove(T)
    P["dragons"][cave][P["dragons"][cave].index(0)] = T
    base = measure_core(core)
    return g, base


# ---------------------------------------------------------------------------- if activated
def state_explore(T: int, occupant: int, other: int):
    """T (or a stand-in) alone at column 1 of its first cave; the other caves hold dragons with
    eggs (for adjacent / this-column effects)."""
    d = dragon(T)
    s = Setup(reserve_d=[T, occupant, other])
    s.discard(other)
    c = CAVES.index(d.caves[0])
    cached, tucked = hatch_feed(d)
    eggs = max(1, d.capacity - 2) if d.capacity >= 2 else 0     # an egg to pay, room for 2
    s.place(0, c, 1, occupant, eggs=eggs, cached=cached, tucked=tucked)
    s.excavate(0, c, 2)
    for o in range(3):
        if o == c:
            continue
        s.place(0, o, 1, s.pick(cap=3, lacks=("if_activated",)), eggs=2)
        s.place(0, o, 2, s.pick(cap=2, lacks=("if_activated",)), eggs=1)
        s.excavate(0, o, 3)
    hand = [s.pick(prefer=(60, 85, 99, 181), lacks=()) for _ in range(2)]
    give(s.core, 0, dragons=hand, coins=5, res=[1, 1, 1, 1], nest_eggs=1)
    s.hand_caves(0, 2)
    s.core["players"][0]["guild_steps"] = 9        # the mat's guild icon lands on "gain a coin"
    s.opponent()
    return s, c


def stand_in(T: int, timing: str) -> int:
    """A dragon without an ability of `timing` (nor a hatchling) that can hold T's eggs."""
    for d in sorted(DB.dragons, key=lambda d: (timing in {a.timing for a in d.abilities},
                                                 d.is_hatchling, d.capacity, d.number)):
        busy = (T, 70, 153) if timing == "once_per_round" else (T,)   # 70/153: p1's dragon
        if d.number not in busy and d.capacity >= dragon(T).capacity:
            assert timing not in {a.timing for a in d.abilities} and not d.is_hatchling
            return d.number
    raise AssertionError


def play_explore(T: int, occupant: int | None = None):
    stand = stand_in(T, "if_activated")
    s, c = state_explore(T, occupant or T, stand if occupant is None else T)
    g = start(s.core)
    g.apply(N.make(N.EXPLORE, c))
    icon0 = {0: "resource", 1: "gain dragon", 2: "gain cave"}[c]
    if not finished(g) and g.decision == icon0 and g.decisions_in_segment == 1:
        g.apply(g.legal_actions()[0])              # the mat's first benefit, the same every time
    return g, s.core


# ---------------------------------------------------------------------------- once per round
def state_round_end(T: int, occupant: int, other: int):
    d = dragon(T)
    s = Setup(reserve_d=[T, occupant, other, 70, 153])
    s.discard(other)
    c = CAVES.index(d.caves[0])
    # T's cave: T and one more of its personality, then two others
    personalities = [d.personality] + [x for x in PERS if x != d.personality]
    for cave in range(3):
        for col in range(1, 5):
            if cave == c and col == 2:
                s.place(0, cave, col, occupant)
                continue
            pers = personalities[{1: 0, 3: 1, 4: 2}[col]] if cave == c else None
            s.place(0, cave, col, s.pick(pers=pers, cap=2, lacks=("once_per_round",)),
                    eggs=1 if cave == c else 0)
    hand = [s.pick(prefer=(60, 85, 99, 181)) for _ in range(3)]
    give(s.core, 0, dragons=hand, coins=5, res=[1, 1, 1, 1], nest_eggs=1)
    s.hand_caves(0, 2)
    P = s.core["players"][0]
    P["guild_steps"] = 1
    P["markers_left"] = 2
    pauser = 70 if T != 70 else 153
    s.used_d.discard(pauser)
    s.opponent(pauser=pauser)
    s.core.update(phase="round end", phase_player=0, phase_count=0, start_player=0, active=0)
    return s


def play_round_end(T: int, occupant: int | None = None):
    stand = stand_in(T, "once_per_round")
    s = state_round_end(T, occupant or T, stand if occupant is None else T)
    return start(s.core), s.core


# ---------------------------------------------------------------------------- end game
def state_end_game(T: int, cave: int, col: int, variant: int):
    d = dragon(T)
    s = Setup(reserve_d=[T])
    cached, tucked = hatch_feed(d)
    timings = ("when_played", "if_activated", "once_per_round")
    for c in range(3):
        for k in range(1, 5):
            if (c, k) == (cave, col):
                s.place(0, c, k, T, cached=cached, tucked=tucked)
                continue
            size = SIZES[(k - 1 + c) % 4]
            if variant == 0:
                pers = PERS[(k - 1 + 2 * c) % 4]
            else:
                pers = ("shy", "helpful", "playful")[(k - 1 + c) % 3]
            try:
                x = s.pick(size=size, pers=pers, has=timings[(k + c) % 3], lacks=("end_game",),
                           hatch=True)
            except AssertionError:
                x = s.pick(size=size, pers=pers, lacks=("end_game",), hatch=True)
            s.place(0, c, k, x, eggs=min(1, dragon(x).capacity))
    give(s.core, 0, dragons=[s.pick(lacks=("end_game",)) for _ in range(2)], coins=3,
         res=[1, 1, 1, 1], nest_eggs=1)
    s.hand_caves(0, 2)
    P = s.core["players"][0]
    P["markers_left"] = 2
    P["objective_vp"] = [0, 0, 0, 0]
    s.opponent()
    s.core["players"][1]["objective_vp"] = [4, 5, 6, 7]
    s.core.update(phase="end game", round=3, phase_player=0, phase_count=0, start_player=0,
                  active=0, n_scored=4)
    return s


def end_game_cases():
    return [pytest.param(d.number, id=f"dragon-{d.number:03d}-{d.name.replace(' ', '_')}")
            for d in DB.dragons if d.ability("end_game") is not None]


@pytest.mark.parametrize("number", end_game_cases())
def test_end_game_vp_now_is_what_the_end_scores(number):
    """The greedy heuristic's reading of the end-game abilities (end_game_vp_now) on a mat is the
    VP the end of the game then gives them, wherever the dragon sits; abilities that pay or gain
    at the end (a choice) count nothing in it."""
    chooses = end_game_pays(number)
    for variant in (0, 1):
        for c in (CAVES.index(x) for x in dragon(number).caves):
            for col in range(1, 5):
                s = state_end_game(number, c, col, variant)
                s.core.update(phase="turn")
                before = start(s.core)
                now = _core.end_game_vp_now(before, 0)
                s.core.update(phase="end game")
                g = start(s.core)
                while not g.is_terminal():
                    g.apply(g.legal_actions()[-1])
                P = player(g, 0)
                if chooses:
                    assert now == 0
                else:
                    assert now == P["end_vp"] + P["tile_vp"], (CAVES[c], col, variant)
                    assert now == _core.end_game_vp_now(g, 0)


# ---------------------------------------------------------------------------- caves
def state_excavate(K: int):
    s = Setup(reserve_c=[K])
    p = 0
    s.place(p, 0, 1, s.pick(prefer=SIMPLE_OPR, has="once_per_round", cap=2), eggs=1)
    s.place(p, 0, 2, s.pick(prefer=SIMPLE_WP, has="when_played", cap=2), eggs=1)
    s.excavate(p, 0, 3)
    s.place(p, 1, 1, s.pick(prefer=SIMPLE_IA, has="if_activated", cap=2), eggs=1)
    s.place(p, 2, 1, s.pick(cap=2, lacks=("end_game",)), eggs=1)
    s.place(p, 2, 2, s.pick(cap=2, lacks=("end_game",)), eggs=1)
    s.excavate(p, 2, 3)
    hand = [s.pick(prefer=(38, 60, 85, 48), cost_max=4), s.pick(size="hatchling", hatch=True)]
    give(s.core, p, dragons=hand, caves=[K], coins=4, res=[1, 1, 1, 1], nest_eggs=2)
    s.hand_caves(p, 2)
    s.opponent()
    return s


def play_excavate(K: int):
    s = state_excavate(K)
    g = start(s.core)
    g.apply(N.make(N.EXCAVATE, K * 4 + 1))           # golden, column 2: no egg cost
    core = copy.deepcopy(s.core)
    P = core["players"][0]
    P["coins"] -= 1
    P["hand_caves"].remove(K)
    P["caves"][1][1] = K
    return g, measure_core(core)


# ============================================================================ the generic test
def check(label: str, game, base, reqs: list, can_decline: bool, problems: list,
          budget: int = LEAF_BUDGET, open_root: bool = False):
    leaves: list = []
    explore(game, budget, leaves, open_root=open_root)
    assert leaves
    check_invariants(label, leaves, base, problems)
    for alts in reqs:
        if not any(holds(alt, leaf, base) for leaf in leaves for alt in alts):
            problems.append(f"{label}: no branch shows {show(alts)}")
    if can_decline:
        declined = measure(follow(game, prefer_no=True, open_root=open_root))
        if declined != base:
            diff = {k: (base[w][k], declined[w][k]) for w in (0, 1) for k in declined[w]
                    if declined[w][k] != base[w].get(k)}
            problems.append(f"{label}: declining still changed {diff}")
    return leaves


def check_invariants(label, leaves, base, problems):
    for leaf in leaves:
        m = leaf[0]
        if (m["all_d"], m["all_c"]) != (base[0]["all_d"], base[0]["all_c"]):
            problems.append(f"{label}: cards created or lost: dragons {base[0]['all_d']} -> "
                            f"{m['all_d']}, caves {base[0]['all_c']} -> {m['all_c']}")
            break
        if m["overfull"] or m["wrapped"]:
            problems.append(f"{label}: eggs over capacity or a negative count")
            break


def dragon_cases():
    return [pytest.param("dragon", d.number, id=f"dragon-{d.number:03d}-{d.name.replace(' ', '_')}")
            for d in DB.dragons]


def cave_cases():
    return [pytest.param("cave", c.number, id=f"cave-{c.number:02d}") for c in DB.caves]


@pytest.mark.parametrize("what,number", dragon_cases() + cave_cases())
def test_every_card_plays(what, number):
    problems: list[str] = []
    if what == "cave":
        a = DB.cave(number).abilities[0]
        block = program(a.text)
        g, base = play_excavate(number)
        check(f"cave {number}", g, base, expect_block(block), optional(block), problems)
    else:
        d = dragon(number)
        parts = {a.timing: program(a.text) for a in d.abilities}
        if "when_played" in parts:
            g, base = play_entice(number)
            check("when played", g, base, expect_block(parts["when_played"]),
                  optional(parts["when_played"]), problems)
        if "if_activated" in parts:
            g0, _ = play_explore(number, occupant=stand_in(number, "if_activated"))
            base = measure(follow(g0, prefer_no=False))
            g, core = play_explore(number)
            base[0]["layout"] = measure_core(core)[0]["layout"]
            reqs = expect_block(parts["if_activated"])
            for t in ("on_feed", "grow_up"):
                if t in parts:
                    reqs += expect_block(parts[t])
            check("if activated", g, base, reqs,
                  optional(parts["if_activated"]), problems)
        if "once_per_round" in parts:
            g0, _ = play_round_end(number, occupant=stand_in(number, "once_per_round"))
            base = measure(follow(g0, prefer_no=False))
            g, core = play_round_end(number)
            base[0]["layout"] = measure_core(core)[0]["layout"]
            check("once per round", g, base, expect_block(parts["once_per_round"]),
                  optional(parts["once_per_round"]), problems,
                  open_root=in_first_segment(g, "round end"))
        if "end_game" in parts:
            reqs = expect_block(parts["end_game"])
            leaves = []
            for variant in (0, 1):
                for c in (CAVES.index(x) for x in d.caves):
                    for col in range(1, 5):
                        s = state_end_game(number, c, col, variant)
                        b = measure_core(s.core)
                        g = start(s.core)
                        sub: list = []
                        explore(g, 24, sub, open_root=in_first_segment(g, "end game"))
                        # compare each leaf with its own start (end_vp starts at 0 everywhere)
                        leaves += [(leaf, b) for leaf in sub]
                        check_invariants("end game", sub, b, problems)
                        if optional(parts["end_game"]):
                            dec = measure(follow(g, prefer_no=True))
                            if dec != b:
                                problems.append(f"end game at {CAVES[c]} {col}: declining changed")
            for alts in reqs:
                if not any(holds(alt, leaf, b) for leaf, b in leaves for alt in alts):
                    problems.append(f"end game: no branch shows {show(alts)}")
    assert not problems, "\n".join(problems)


# ============================================================================ part 2: exact tests
def name(n: int) -> str:
    return dragon(n).name


def turn_core(players: int = 2) -> dict:
    """A turn of player 0; the others have coins, so the next turn is a real decision."""
    core = blank(players)
    for p in range(1, players):
        give(core, p, coins=3)
    return core


def on_top(core: dict, *dragons: int) -> None:
    """Put dragons on top of the dragon deck (the last one given is drawn first)."""
    for d in dragons:
        _take(core, "dragons", d)
        core["deck_dragons"].append(d)


def cave_on_top(core: dict, k: int) -> None:
    _take(core, "caves", k)
    core["deck_caves"].append(k)


def round_end(core: dict) -> dict:
    """Player 0's once-per-round abilities run; player 1 then has one with a decision (dragon
    70, paying a resource), so play stops right after player 0's."""
    put(core, 1, "crimson", 1, dragon=70)
    give(core, 1, res=[1, 0, 0, 0])
    core.update(phase="round end", phase_player=0, phase_count=0, start_player=0, active=0)
    return core


def end_game(core: dict) -> dict:
    core.update(phase="end game", round=3, phase_player=0, phase_count=0, start_player=0,
                active=0)
    return core


def end_vp(core: dict) -> int:
    g = start(end_game(core))
    assert g.is_terminal()
    return player(g, 0)["end_vp"]


def p0_done(g) -> bool:
    """Player 0's turn is over (player 1 is choosing a move)."""
    return g.decider == 1 and g.decision == "move"


def eggs_at(g, p, cave, col) -> int:
    return player(g, p)["eggs"][CAVES.index(cave)][col - 1]


@contextlib.contextmanager
def custom_programs(caves: dict | None = None):
    """Run with some cave cards' programs replaced (for op keywords no printed card uses)."""
    install_core_tables("base")
    db = DB
    cv = list(db.caves)
    for k, text in (caves or {}).items():
        cv[k - 1] = dataclasses.replace(cv[k - 1], abilities=(
            Ability("when_played", text, L.validate(text, "when_played")),))
    t = compile_database(dataclasses.replace(db, caves=tuple(cv)))
    install(t)
    try:
        yield
    finally:
        b = _compiled("base")
        install(b)


# ---------------------------------------------------------------------------- gain sources
def test_gain_from_any_offers_display_and_deck():
    """50 (if activated): gain(dragon_card): a face-up card or the top of the deck."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=50)
    give(core, 0, coins=2)
    core["players"][0]["guild_steps"] = 9          # the mat's guild icon: a coin, no decision
    on_top(core, 100, 101)
    disp = core["display_dragons"][:]
    g = start(core)
    do(g, "explore golden", "dragon from deck")     # the mat's own first benefit
    assert texts(g) == [f"dragon from display {i + 1} ({name(d)})" for i, d in enumerate(disp)] + [
        "dragon from deck"]
    do(g, "dragon from display 2")
    assert p0_done(g)
    P = player(g, 0)
    assert sorted(P["hand_dragons"]) == sorted([101, disp[1]])
    assert g.to_dict()["core"]["display_dragons"] == [disp[0], 100, disp[2]]   # refilled
    assert P["coins"] == 2 - 1 + 1 and P["guild_steps"] == 10


def test_gain_from_deck_draws_without_a_choice():
    """160 (once per round): gain(dragon_card, from=deck) { tuck(1, from=gained, under=here) }."""
    core = round_end(turn_core())
    put(core, 0, "golden", 1, dragon=160)
    on_top(core, 33)
    g = start(core)
    assert g.decider == 0 and g.decision == "tuck card"
    assert texts(g) == [name(33), "no"]             # the deck's top card, drawn with no choice
    h = do(g.clone(), "no")
    assert h.decider == 1 and player(h, 0)["hand_dragons"] == [33]
    h = do(g.clone(), name(33))
    P = player(h, 0)
    assert P["hand_dragons"] == [] and P["tucked"][1][0] == 1


def test_gain_from_display_takes_face_up_cards_only():
    with custom_programs(caves={12: "gain(dragon_card, from=display)"}):
        core = turn_core()
        give(core, 0, caves=[12], coins=1)
        disp = core["display_dragons"][:]
        g = start(core)
        do(g, "excavate cave 12 into golden")
        assert texts(g) == [f"dragon from display {i + 1} ({name(d)})" for i, d in enumerate(disp)]
        do(g, "dragon from display 3")
        assert p0_done(g) and player(g, 0)["hand_dragons"] == [disp[2]]


# ---------------------------------------------------------------------------- lay targets
def test_lay_here_is_forced_on_this_dragon():
    """43 (if activated): lay(1, on=here)."""
    core = turn_core()
    put(core, 0, "amethyst", 1, dragon=43, eggs=2)
    put(core, 0, "crimson", 1, dragon=39)
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore amethyst", "cave from deck")
    assert p0_done(g)                               # no decision: the egg goes on 43
    assert eggs_at(g, 0, "amethyst", 1) == 3 and eggs_at(g, 0, "crimson", 1) == 0
    assert player(g, 0)["nest_eggs"] == 0


def test_lay_this_cave_this_column_adjacent_offer_exactly_those_spaces():
    # 158 (if activated): lay(1, on=this_cave)
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=39)                      # room 2, no if-activated ability
    put(core, 0, "crimson", 2, dragon=158, cave_card=1)
    put(core, 0, "golden", 1, dragon=41)
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "meat")
    assert texts(g) == ["crimson 1", "crimson 2"]
    do(g, "crimson 1")
    assert eggs_at(g, 0, "crimson", 1) == 1
    # 82 (if activated): lay(1, on=this_column); amethyst 1 is full, crimson 2 is not in the column
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=82)
    put(core, 0, "crimson", 2, dragon=39, cave_card=1)
    put(core, 0, "golden", 1, dragon=41)
    put(core, 0, "amethyst", 1, dragon=42, eggs=3)
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "meat")
    assert texts(g) == ["crimson 1", "golden 1"]
    # 173 (if activated): lay(1, on=adjacent): orthogonal neighbours only, not itself
    core = turn_core()
    put(core, 0, "golden", 1, dragon=173)
    put(core, 0, "golden", 2, dragon=39, cave_card=1)
    put(core, 0, "crimson", 1, dragon=41)
    put(core, 0, "amethyst", 1, dragon=42)
    put(core, 0, "crimson", 2, dragon=44, cave_card=2)         # diagonal: not adjacent
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    assert texts(g) == ["crimson 1", "golden 2", "amethyst 1"]


def test_lay_each_in_cave_except_and_each_in_column():
    # 138 (once per round): lay(1, on=each_in_cave, except=[aggressive])
    core = round_end(turn_core())
    put(core, 0, "amethyst", 1, dragon=62)                     # aggressive, room 3
    put(core, 0, "amethyst", 2, dragon=138, cave_card=1)       # helpful, room 4
    put(core, 0, "amethyst", 3, dragon=75, cave_card=2)        # shy, room 2
    put(core, 0, "amethyst", 4, dragon=78, cave_card=3, eggs=3)  # playful, full
    put(core, 0, "golden", 1, dragon=40)                       # another cave
    g = start(core)
    assert g.decider == 1
    P = player(g, 0)
    assert P["eggs"][2] == [0, 1, 1, 3] and P["eggs"][1] == [0, 0, 0, 0]
    # 95 (once per round): lay(1, on=each_in_column)
    core = round_end(turn_core())
    put(core, 0, "crimson", 2, dragon=39, cave_card=1)
    put(core, 0, "golden", 2, dragon=41, cave_card=2)
    put(core, 0, "amethyst", 2, dragon=95, cave_card=3)
    put(core, 0, "golden", 1, dragon=42)
    g = start(core)
    P = player(g, 0)
    assert [P["eggs"][c][1] for c in range(3)] == [1, 1, 1] and P["eggs"][1][0] == 0


def test_lay_auto_from_a_cave_goes_anywhere_and_from_a_dragon_on_it_first():
    # cave 55: lay(3) -> each egg on any dragon with room or the mat nests
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=39)
    put(core, 0, "golden", 1, dragon=41, eggs=2)               # full
    give(core, 0, caves=[55], coins=1)
    g = start(core)
    do(g, "excavate cave 55 into amethyst")
    assert texts(g) == ["crimson 1", "mat nest"]
    do(g, "mat nest", "mat nest")                   # the nests are full: the 3rd egg has one place
    assert p0_done(g) and player(g, 0)["nest_eggs"] == 2 and eggs_at(g, 0, "crimson", 1) == 1
    # 45 (if activated): pay(coin) { lay(3) }: on 45 while it has room, then anywhere
    core = turn_core()
    put(core, 0, "amethyst", 1, dragon=45, eggs=4)
    put(core, 0, "crimson", 1, dragon=39)
    give(core, 0, coins=2)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore amethyst", "cave from deck", "yes")
    assert eggs_at(g, 0, "amethyst", 1) == 5        # the first egg went on 45 with no choice
    assert texts(g) == ["crimson 1", "mat nest"]
    do(g, "crimson 1", "mat nest")
    assert p0_done(g)
    P = player(g, 0)
    assert P["coins"] == 2 - 1 - 1 + 1 and P["nest_eggs"] == 1 and P["eggs"][0][0] == 1


# ---------------------------------------------------------------------------- cache
def test_cache_from_supply_uses_own_resources():
    """53 (if activated): cache(any, from=supply, on=here)."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=53)
    give(core, 0, coins=1, res=[0, 2, 0, 0])
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "milk")
    assert texts(g) == ["crimson 1", "no"]
    do(g, "crimson 1", "gold")
    while not p0_done(g):                           # (a payment choice, if offered)
        do(g, "pay 1 gold")
    P = player(g, 0)
    assert P["resources"] == [0, 1, 0, 1] and P["cached"][0][0] == [0, 1, 0, 0]
    # with a single resource, only that one can be cached
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=53)
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "milk", "crimson 1")
    assert p0_done(g)
    P = player(g, 0)
    assert P["resources"] == [0, 0, 0, 0] and P["cached"][0][0] == [0, 0, 0, 1]


def test_cache_from_general_supply_is_free():
    """Cave 3: cache(any, any, from=general, on=any)."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=39)
    put(core, 0, "amethyst", 1, dragon=42)
    give(core, 0, caves=[3], coins=1)
    g = start(core)
    do(g, "excavate cave 3 into golden")
    assert texts(g) == ["crimson 1", "amethyst 1", "no"]
    do(g, "amethyst 1")
    assert texts(g) == list(RES)                    # any resource, none owned
    do(g, "crystal", "crimson 1", "milk")
    P = player(g, 0)
    assert P["resources"] == [0, 0, 0, 0]
    assert P["cached"][2][0] == [0, 0, 1, 0] and P["cached"][0][0] == [0, 0, 0, 1]


def test_gain_then_cache_gained():
    """77 (if activated): gain(meat) { cache(gained, on=here) }."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=77)
    give(core, 0, coins=1, res=[0, 0, 0, 0])
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "milk")
    assert texts(g) == ["crimson 1", "no"]
    h = do(g.clone(), "crimson 1")
    assert player(h, 0)["resources"] == [0, 0, 0, 1]          # the gained meat was cached
    assert player(h, 0)["cached"][0][0] == [1, 0, 0, 0]
    h = do(g.clone(), "no")
    assert player(h, 0)["resources"] == [1, 0, 0, 1] and player(h, 0)["cached"][0][0] == [0] * 4


def test_gain_any_then_cache_gained_required():
    """115 (when played): gain(any, any) { cache(gained, on=any, required=yes) }: keep 1 and
    cache 1 onto any dragon."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=39)
    give(core, 0, dragons=[115], coins=1, res=[1, 0, 1, 0])
    g = start(core)
    do(g, "entice Custodial Koiwyrm into amethyst", "gold", "milk")
    assert texts(g) == ["crimson 1", "amethyst 1"]  # required: no "no"
    do(g, "crimson 1")
    assert texts(g) == ["gold", "milk"]             # one of the gained resources
    do(g, "milk")
    assert p0_done(g)
    P = player(g, 0)
    assert P["resources"] == [0, 1, 0, 0]
    assert P["cached"][0][0] == [0, 0, 0, 1] and P["cached"][2][0] == [0, 0, 0, 0]


# ---------------------------------------------------------------------------- tuck sources
def test_tuck_from_hand():
    """84 (if activated): tuck(from=hand, under=here)."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=84)
    give(core, 0, dragons=[60, 99], coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    assert texts(g)[:2] == [name(60), name(99)] and texts(g)[-1] == "no"
    do(g, name(99))
    P = player(g, 0)
    assert P["tucked"][1][0] == 1 and 99 not in P["hand_dragons"] and 60 in P["hand_dragons"]


def test_tuck_from_deck_under_any_dragon():
    """141 (once per round): tuck(from=deck, under=any)."""
    core = round_end(turn_core())
    put(core, 0, "golden", 1, dragon=141)
    put(core, 0, "crimson", 1, dragon=39)
    n = len(core["deck_dragons"])
    g = start(core)
    assert texts(g) == ["dragon from deck", "no"]
    do(g, "dragon from deck")
    assert texts(g) == ["crimson 1", "golden 1"]
    do(g, "crimson 1")
    d = g.to_dict()["core"]
    assert d["players"][0]["tucked"][0][0] == 1 and d["players"][0]["hand_dragons"] == []
    assert len(d["deck_dragons"]) == n - 1


def test_tuck_from_display():
    with custom_programs(caves={13: "tuck(from=display, under=any)"}):
        core = turn_core()
        put(core, 0, "crimson", 1, dragon=39)
        give(core, 0, caves=[13], coins=1)
        disp = core["display_dragons"][:]
        g = start(core)
        do(g, "excavate cave 13 into golden")
        assert texts(g) == [f"dragon from display {i + 1} ({name(d)})" for i, d in enumerate(disp)
                            ] + ["no"]
        do(g, "dragon from display 1")
        assert p0_done(g) and player(g, 0)["tucked"][0][0] == 1
        assert disp[0] not in g.to_dict()["core"]["display_dragons"]


def test_tuck_gained_and_tucked_cost():
    # 148 (if activated): gain(dragon_card, from=deck) { tuck(1, from=gained, under=here) }
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=148)
    give(core, 0, dragons=[60], coins=1)
    core["players"][0]["guild_steps"] = 9
    on_top(core, 99)
    g = start(core)
    do(g, "explore crimson", "meat")
    assert texts(g) == [name(99), "no"]             # only the card just gained, not 60
    do(g, name(99))
    assert player(g, 0)["tucked"][0][0] == 1 and player(g, 0)["hand_dragons"] == [60]
    # 152 (if activated): tuck(from=hand, under=here) { gain(tucked_cost) }: 99 costs meat+crystal
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=152)
    give(core, 0, dragons=[99], coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "milk", name(99))
    assert texts(g) == ["meat", "crystal"]
    do(g, "crystal")
    assert player(g, 0)["resources"] == [0, 0, 1, 1]


@pytest.mark.parametrize("top,hit", [(9, True), (50, False)])
def test_reveal_hit_tucks_miss_takes(top, hit):
    """58 (if activated): reveal(size=hatchling, hit={tuck revealed here}, miss={take})."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=58)
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    on_top(core, top)
    g = start(core)
    do(g, "explore golden", "dragon from display 1")
    if hit:
        assert texts(g) == [name(top), "no"]
        h = do(g.clone(), name(top))
        assert player(h, 0)["tucked"][1][0] == 1 and top not in player(h, 0)["hand_dragons"]
        h = do(g.clone(), "no")                     # not tucked: discarded face up
        assert top in h.to_dict()["core"]["discard_dragons"]
    else:
        assert p0_done(g)
        assert top in player(g, 0)["hand_dragons"] and player(g, 0)["tucked"][1][0] == 0


@pytest.mark.parametrize("top,hit", [(36, True), (50, False)])
def test_reveal_miss_discards_and_gains(top, hit):
    """68 (if activated): reveal(size=large, hit={tuck}, miss={discard(revealed); gain(meat)})."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=68)
    give(core, 0, coins=1)
    core["players"][0]["guild_steps"] = 9
    on_top(core, top)
    g = start(core)
    do(g, "explore crimson", "milk")
    if hit:
        do(g, name(top))
        assert player(g, 0)["tucked"][0][0] == 1 and player(g, 0)["resources"] == [0, 0, 0, 1]
    else:
        assert p0_done(g)
        assert top in g.to_dict()["core"]["discard_dragons"]
        assert player(g, 0)["resources"] == [1, 0, 0, 1] and player(g, 0)["hand_dragons"] == []


# ---------------------------------------------------------------------------- pay with eggs
def test_pay_egg_from_this_cave_then_two_different_benefits():
    """67 (if activated): pay(egg, from=this_cave) { different(2) { gain(dragon_card); guild(1);
    gain(cave_card); gain(any) } }."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=67, eggs=1)
    put(core, 0, "crimson", 1, dragon=42, eggs=2)              # another cave: not payable
    give(core, 0, coins=1, nest_eggs=2)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    assert texts(g) == ["yes", "no"]
    do(g, "yes")                                    # the only egg of this cave: no source choice
    assert eggs_at(g, 0, "golden", 1) == 0
    assert texts(g) == ["gain 1 dragon card", "advance 1 step on the Dragon Guild", "gain 1 cave card"]   # ascending: 4 cannot come first
    do(g, "option 2")
    assert texts(g) == ["gain 1 cave card", "gain 1 resource of your choice"]
    do(g, "option 4", "gold")
    assert p0_done(g)
    P = player(g, 0)
    # guild: 9 -> 10 (this card) -> 11 (the mat's icon: milk); gold from option 4
    assert P["guild_steps"] == 11 and P["resources"] == [0, 1, 0, 1]
    assert P["eggs"][0][0] == 2 and P["nest_eggs"] == 2
    # no egg in this cave: the ability is not offered at all
    core = turn_core()
    put(core, 0, "golden", 1, dragon=67)
    give(core, 0, coins=1, nest_eggs=2)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore golden", "dragon from deck")
    assert p0_done(g)


def test_pay_eggs_from_adjacent_dragons():
    """61 (if activated): pay(egg, egg, from=adjacent) { guild(2) }."""
    def state(adjacent_eggs):
        core = turn_core()
        put(core, 0, "crimson", 1, dragon=39, eggs=adjacent_eggs)
        put(core, 0, "crimson", 2, dragon=61, cave_card=1, eggs=2)   # its own eggs do not count
        put(core, 0, "golden", 2, dragon=41, cave_card=2, eggs=1)
        put(core, 0, "amethyst", 1, dragon=42, eggs=3)                # diagonal
        give(core, 0, coins=1, nest_eggs=2)
        core["players"][0]["guild_steps"] = 1
        return core
    g = start(state(1))
    do(g, "explore crimson", "meat")
    # crimson 1 (39: end game only), then the guild icon (1 -> 2: meat), then 61
    assert texts(g) == ["yes", "no"]
    do(g, "yes")                                    # exactly 2 adjacent eggs: no choice
    # guild 2 -> 3 (dragon card) -> 4 (cave card), then the mat's second icon (any resource)
    do(g, "dragon from deck", "cave from deck", "gold")
    assert p0_done(g)
    P = player(g, 0)
    assert P["eggs"][0] == [0, 2, 0, 0] and P["eggs"][1][1] == 0 and P["eggs"][2][0] == 3
    assert P["nest_eggs"] == 2 and P["guild_steps"] == 4
    g = start(state(0))
    do(g, "explore crimson", "meat")
    assert g.decision != "use ability"              # one adjacent egg: cannot pay


# ---------------------------------------------------------------------------- excavate
def test_excavate_free_from_hand_ignores_egg_costs():
    """113 (when played): excavate(from=hand, free=yes); column 4 normally costs 2 eggs."""
    core = turn_core()
    put(core, 0, "amethyst", 2, cave_card=1)
    put(core, 0, "amethyst", 3, cave_card=2)
    give(core, 0, dragons=[113], caves=[40], coins=2, res=[0, 0, 2, 0], nest_eggs=0)
    g = start(core)
    do(g, "entice Shaly Rockbreaker into amethyst")
    assert texts(g) == ["cave 40", "no"]
    do(g, "cave 40")
    assert texts(g) == ["crimson", "golden", "amethyst"]
    do(g, "amethyst")
    assert p0_done(g)
    P = player(g, 0)
    assert P["caves"][2] == [0, 1, 2, 40] and P["hand_caves"] == [] and P["coins"] == 0


def test_excavate_from_display_and_deck():
    # 64 (when played): excavate(from=display, free=yes)
    core = turn_core()
    give(core, 0, dragons=[64], caves=[40], coins=2, res=[0, 3, 0, 0])
    disp = core["display_caves"][:]
    g = start(core)
    do(g, "entice Scaly Rock Dragon into golden")
    assert texts(g) == [f"cave from display {i + 1} (cave {k})"
                        for i, k in enumerate(disp)] + ["no"]
    do(g, "cave from display 2", "crimson")
    assert player(g, 0)["caves"][0][1] == disp[1] and player(g, 0)["hand_caves"] == [40]
    # cave 58: pay(any, any) { excavate(from=deck, free=yes) }
    core = turn_core()
    give(core, 0, caves=[58], coins=1, res=[1, 1, 0, 0])
    cave_on_top(core, 44)
    g = start(core)
    do(g, "excavate cave 58 into golden", "yes")
    assert texts(g) == ["cave from deck", "no"]
    do(g, "cave from deck", "golden")
    P = player(g, 0)
    # cave 44 (gain(meat, meat)) runs its own when-played effect
    assert P["caves"][1] == [0, 58, 44, 0] and P["resources"] == [2, 0, 0, 0]


def test_column_4_exchange_after_the_cave():
    """A cave card in column 4: the exchange of 3 items for a coin, before or after the card."""
    core = turn_core()
    put(core, 0, "golden", 2, cave_card=1)
    put(core, 0, "golden", 3, cave_card=2)
    give(core, 0, caves=[12], coins=1, res=[2, 1, 1, 0], nest_eggs=2)
    g = start(core)
    do(g, "excavate cave 12 into golden")
    assert g.decision == "order" and texts(g) == ["cave card first, then the exchange", "the exchange first, then the cave card"]
    do(g, "option 1", "yes")                       # card first (gain a coin), then exchange
    assert g.decision == "exchange"                 # 3 of the 4 resources, one at a time
    while g.decision == "exchange":
        do(g, texts(g)[-1])
    assert p0_done(g)
    P = player(g, 0)
    assert P["coins"] == 1 - 1 + 1 + 1 and sum(P["resources"]) == 1 and P["nest_eggs"] == 0


# ---------------------------------------------------------------------------- entice
def test_entice_free_from_hand_and_display():
    # 146 (when played): pay(any) { entice(from=hand, cost=free) }: 99 costs 2 meat 2 crystal
    core = turn_core()
    give(core, 0, dragons=[146, 99], coins=1, res=[2, 0, 0, 1])
    g = start(core)
    do(g, "entice Crafty Moray into crimson", "yes")
    assert texts(g) == [name(99), "no"]
    do(g, name(99))                                 # only amethyst is free; its when-played runs
    do(g, "meat", "meat")                           # 99: gain(coin, any, any)
    assert p0_done(g)
    P = player(g, 0)
    assert P["dragons"][2][0] == 99 and P["dragons"][0][0] == 146
    assert P["resources"] == [2, 0, 0, 0] and P["coins"] == 1 - 1 + 1
    # 89 (when played): pay(any) { entice(from=display, cost=free) }
    core = turn_core()
    on_top(core, 183)                              # the card refilling the display
    give(core, 0, dragons=[89], coins=2, res=[1, 0, 2, 0])
    disp = core["display_dragons"][:]
    g = start(core)
    do(g, "entice Erudite Lung Dragon into crimson", "yes")
    assert texts(g)[-1] == "no" and all(t.startswith("dragon from display") for t in texts(g)[:-1])
    slot = int(texts(g)[0].split()[3]) - 1          # the first display dragon with a free cave
    do(g, texts(g)[0])
    while not p0_done(g):
        do(g, texts(g)[0])
    P = player(g, 0)
    mat = [d for row in P["dragons"] for d in row if d]
    assert sorted(mat) == sorted([89, disp[slot]]) and P["coins"] == 0
    assert g.to_dict()["core"]["display_dragons"] == [183 if i == slot else d
                                                      for i, d in enumerate(disp)]


def test_entice_discount_one_waives_a_resource_or_the_egg():
    """Cave 52: entice(from=hand, cost=discount_one)."""
    core = turn_core()
    give(core, 0, dragons=[60], caves=[52], coins=2, res=[1, 0, 0, 0])   # 60: meat + gold
    g = start(core)
    do(g, "excavate cave 52 into golden")
    assert texts(g) == [name(60), "no"]
    do(g, name(60))                                 # only gold can be waived: no decision
    assert p0_done(g)
    P = player(g, 0)
    assert P["dragons"][0][0] == 60 and P["coins"] == 1
    assert P["resources"] == [0, 0, 0, 2]           # meat paid; 60's own gain(milk, milk)
    # a hatchling (milk + egg): either may be waived
    core = turn_core()
    give(core, 0, dragons=[1], caves=[52], coins=2, res=[0, 0, 0, 1], nest_eggs=1)
    g = start(core)
    do(g, "excavate cave 52 into crimson", name(1))
    assert texts(g) == ["waive milk", "waive egg"]
    h = do(g.clone(), "waive egg")
    assert player(h, 0)["nest_eggs"] == 1 and player(h, 0)["resources"] == [0, 0, 0, 0]
    h = do(g.clone(), "waive milk")
    assert player(h, 0)["nest_eggs"] == 0 and player(h, 0)["resources"] == [0, 0, 0, 1]


def test_entice_discount_one_plays_a_dragon_without_resource_cost():
    core = turn_core()
    give(core, 0, dragons=[98], caves=[52], coins=2, nest_eggs=1)   # 98 costs nothing
    g = start(core)
    assert f"entice {name(98)} into crimson" in texts(g)       # playable with the action
    do(g, "excavate cave 52 into golden")
    assert texts(g) == [name(98), "no"]             # but not with the discount


def _guild_tile_state(tile: int, ability: int):
    """Player 0 one guild step before a brown space; excavating cave 9 (gain(cave_card);
    guild(1)) reaches it and places a marker on `ability` of guild tile `tile` (1-4)."""
    core = turn_core()
    core["guild_tile"] = tile - 1
    core["players"][0]["guild_steps"] = 5
    give(core, 0, caves=[9], coins=1)
    return core


def test_entice_no_resources_from_a_guild_tile():
    """Rainforest Guild ability 2: choice { entice(from=hand, cost=no_resources); ... }."""
    core = _guild_tile_state(4, 2)
    give(core, 0, dragons=[99, 46], coins=3, res=[0, 0, 0, 0], nest_eggs=1)   # 99: 2 meat 2 crystal
    g = start(core)
    do(g, "excavate cave 9 into golden", "cave from deck")
    assert g.decision == "guild spot"
    do(g, "guild ability 2", "option 1")
    assert texts(g) == [name(46), name(99), "no"]
    do(g, name(99), "crimson", "gold", "gold")     # 99's own when-played: gain(coin, any, any)
    assert p0_done(g)
    P = player(g, 0)
    assert P["dragons"][0][0] == 99 and P["resources"] == [0, 2, 0, 0] and P["coins"] == 3
    assert P["markers_left"] == 3


def test_entice_onto_a_dragon_covers_it():
    """Guild of Highlands ability 2: pay(cave_card) { entice(from=hand, cost=free,
    onto=dragon) }: the covered dragon becomes a tucked card (assumption), eggs beyond the new
    capacity are lost."""
    core = _guild_tile_state(3, 2)
    put(core, 0, "crimson", 1, dragon=45, eggs=4, tucked=1)    # capacity 5
    give(core, 0, dragons=[60], caves=[40], coins=3)           # 60: crimson, capacity 2
    g = start(core)
    do(g, "excavate cave 9 into golden", "cave from deck", "guild ability 2", "yes")
    assert g.decision == "pay card"
    do(g, texts(g)[0])
    assert texts(g) == [name(60), "no"]
    do(g, name(60))                                 # the only crimson dragon to cover: no choice
    assert p0_done(g)
    P = player(g, 0)
    assert P["dragons"][0][0] == 60 and P["tucked"][0][0] == 2 and P["eggs"][0][0] == 2
    assert 45 not in P["hand_dragons"] and 45 not in g.to_dict()["core"]["discard_dragons"]


# ---------------------------------------------------------------------------- swap, activate
def test_swap_dragons_moves_eggs_cached_and_tucked_with_them():
    """157 (when played): swap_dragons, ignoring cave preferences."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=39, eggs=1, tucked=2, cached=(1, 0, 0, 0))
    put(core, 0, "amethyst", 1, dragon=92, eggs=2)
    give(core, 0, dragons=[157], coins=1, res=[1, 1, 0, 0])
    g = start(core)
    do(g, "entice Wily Lindworm into crimson")
    assert texts(g) == ["crimson 1", "golden 1", "no"]
    do(g, "golden 1")                               # then the only later slot: amethyst 1
    assert p0_done(g)
    P = player(g, 0)
    assert P["dragons"][1][0] == 92 and P["dragons"][2][0] == 39
    assert P["eggs"][1][0] == 2 and P["eggs"][2][0] == 1
    assert P["tucked"][2][0] == 2 and P["cached"][2][0] == [1, 0, 0, 0]
    assert P["tucked"][1][0] == 0 and P["cached"][1][0] == [0, 0, 0, 0]


def test_activate_if_activated_or_once_per_round_of_another_dragon():
    """172 (when played): activate(if_activated, once_per_round)."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=56)                       # if activated: gain(gold)
    put(core, 0, "golden", 2, cave_card=1)
    put(core, 0, "amethyst", 1, dragon=139)                    # once per round: lay(1, on=here)
    put(core, 0, "crimson", 1, dragon=48)                      # when played only: not offered
    give(core, 0, dragons=[172], coins=1, res=[1, 1, 1, 0])
    g = start(core)
    do(g, "entice Augural Fae into golden")
    assert texts(g) == ["golden 1", "amethyst 1", "no"]
    h = do(g.clone(), "golden 1")
    assert p0_done(h) and player(h, 0)["resources"] == [0, 1, 0, 0]
    h = do(g.clone(), "amethyst 1")
    assert p0_done(h) and eggs_at(h, 0, "amethyst", 1) == 1


def test_caves_1_and_2_activate_once_per_round_and_when_played():
    # cave 1: activate(once_per_round)
    core = turn_core()
    put(core, 0, "amethyst", 1, dragon=139)
    put(core, 0, "crimson", 1, dragon=48)
    give(core, 0, caves=[1], coins=1)
    g = start(core)
    do(g, "excavate cave 1 into golden")
    assert texts(g) == ["amethyst 1", "no"]
    do(g, "amethyst 1")
    assert p0_done(g) and eggs_at(g, 0, "amethyst", 1) == 1
    # cave 2: activate(when_played) of any dragon on the mat
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=48)                      # gain(coin)
    put(core, 0, "amethyst", 1, dragon=38)                     # gain(coin, coin)
    give(core, 0, caves=[2], coins=1)
    g = start(core)
    do(g, "excavate cave 2 into golden")
    assert texts(g) == ["crimson 1", "amethyst 1", "no"]
    do(g, "amethyst 1")
    assert p0_done(g) and player(g, 0)["coins"] == 1 - 1 + 2


def copier_core() -> dict:
    """Player 0 holds cave 2; on the mat: 48 (when played: a coin), 76 and 172 (which copy), 56 (if
    activated: gold) and 38 (when played: two coins)."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=48)
    put(core, 0, "crimson", 2, dragon=76, cave_card=3)
    put(core, 0, "golden", 1, dragon=172)
    put(core, 0, "golden", 2, dragon=56, cave_card=4)
    put(core, 0, "amethyst", 1, dragon=38)
    give(core, 0, caves=[2], coins=1, res=[1, 0, 0, 0])
    return core


def test_cave_2_copies_keen_cricketcatcher_which_copies_another_dragon():
    """Cave 2 copies 76's when-played ability, itself an activate: pay 1 resource, then copy another
    when-played ability. 76 is in the chain already, so it is not offered again (no cycle)."""
    g = start(copier_core())
    do(g, "excavate cave 2 into amethyst")
    assert texts(g) == ["crimson 1", "crimson 2", "golden 1", "amethyst 1", "no"]   # 56: none
    do(g, "crimson 2")
    assert g.decision == "use ability"                         # pay 1 resource (the only one: meat)
    do(g, "yes")
    assert texts(g) == ["crimson 1", "golden 1", "amethyst 1", "no"]
    do(g, "amethyst 1")
    assert p0_done(g)
    P = player(g, 0)
    assert P["coins"] == 1 - 1 + 2 and P["resources"] == [0, 0, 0, 0]


def test_cave_2_copies_augural_fae_which_activates_an_if_activated_ability():
    """Cave 2 copies 172's when-played ability: activate one if-activated or once-per-round ability."""
    g = start(copier_core())
    do(g, "excavate cave 2 into amethyst")
    do(g, "golden 1")
    assert texts(g) == ["golden 2", "no"]                      # 56 is the only one with such an ability
    do(g, "golden 2")
    assert p0_done(g) and player(g, 0)["resources"] == [1, 1, 0, 0]


def test_keen_cricketcatcher_copies_augural_fae_and_never_itself():
    """76 (when played) copies 172, which activates 56's if-activated gold; 76 never copies itself."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=172)
    put(core, 0, "golden", 2, dragon=56, cave_card=4)
    give(core, 0, dragons=[76], coins=1, res=[2, 0, 2, 0])
    g = start(core)
    do(g, "entice Keen Cricketcatcher into crimson")           # pays meat + 2 crystal
    assert g.decision == "use ability"                         # pay the last meat
    do(g, "yes")
    assert texts(g) == ["golden 1", "no"]                      # 76 itself (crimson 1) is not offered
    do(g, "golden 1")
    assert texts(g) == ["golden 2", "no"]
    do(g, "golden 2")
    assert p0_done(g) and player(g, 0)["resources"] == [0, 1, 0, 0]


def test_activate_mat_benefit():
    """73 (if activated): pay(cave_card) { activate_mat }: any of the 15 printed benefits."""
    core = turn_core()
    put(core, 0, "amethyst", 1, dragon=73)
    give(core, 0, caves=[40], coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore amethyst", "cave from deck", "yes")
    assert g.decision == "pay card"
    do(g, "cave 40")
    assert len(texts(g)) == 16 and texts(g)[-1] == "no"
    do(g, "crimson benefit 0", "gold")
    assert p0_done(g)
    P = player(g, 0)
    assert P["resources"] == [0, 1, 0, 0] and 40 not in P["hand_caves"]


# ---------------------------------------------------------------------------- discard, pick
def test_draw_three_discard_one_tuck_one():
    """109 (once per round): pay(any) { gain(3 dragon cards from the deck) { discard(1, gained);
    tuck(1, from=gained, under=here, required=yes) } }."""
    core = round_end(turn_core())
    put(core, 0, "crimson", 1, dragon=109)
    give(core, 0, dragons=[60], res=[0, 0, 1, 0])
    on_top(core, 36, 37, 38)                        # drawn 38, 37, 36
    g = start(core)
    do(g, "yes")
    assert texts(g) == [name(38), name(37), name(36)]          # not 60: not gained
    do(g, name(37))
    assert texts(g) == [name(38), name(36)]                    # required: no "no"
    do(g, name(38))
    assert g.decider == 1
    P = player(g, 0)
    assert sorted(P["hand_dragons"]) == [36, 60] and P["tucked"][0][0] == 1
    assert P["resources"] == [0, 0, 0, 0]
    assert 37 in g.to_dict()["core"]["discard_dragons"]


def test_pick_a_resource_and_gain_it_twice():
    """156 (when played): pick(any) { gain(picked, picked); ... }."""
    core = turn_core()
    give(core, 0, dragons=[156], coins=1, res=[2, 0, 0, 0])
    g = start(core)
    do(g, "entice Brindled Frogmouth into crimson")
    assert texts(g) == list(RES)
    do(g, "crystal")
    assert p0_done(g) and player(g, 0)["resources"] == [0, 0, 2, 0]


def test_pick_each_opponent_gains_the_picked_resource():
    core = turn_core()
    give(core, 0, dragons=[156], coins=1, res=[2, 0, 0, 0])
    g = start(core)
    do(g, "entice Brindled Frogmouth into crimson", "crystal")
    assert player(g, 1)["resources"] == [0, 0, 1, 0]


# ---------------------------------------------------------------------------- choice, upto
def test_choice_of_two_payments():
    """94 (if activated): choice { pay(dragon_card) { guild(1) }; pay(cave_card) { guild(1) } }."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=94)
    give(core, 0, dragons=[60], caves=[40], coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "meat")
    assert g.decision == "option" and texts(g) == ["pay 1 dragon card to advance 1 step on the Dragon Guild",
                                                    "pay 1 cave card to advance 1 step on the Dragon Guild"]
    do(g, "option 2", "yes")
    assert p0_done(g)
    P = player(g, 0)
    assert P["hand_caves"] == [] and P["hand_dragons"] == [60]
    assert P["guild_steps"] == 11 and P["coins"] == 1 - 1 + 1   # 10: coin (this card), 11: milk


def test_upto_three_times_and_each_opponent():
    """Cave 69: upto(3) { pay(any) { guild(1) } }; each_opponent { pay(any) { guild(1) } }."""
    core = turn_core()
    give(core, 0, caves=[69], coins=1, res=[4, 0, 0, 0])
    give(core, 1, res=[0, 1, 0, 0])
    core["players"][0]["guild_steps"] = 1          # spaces 2, 3, 4: meat, dragon card, cave card
    g = start(core)
    do(g, "excavate cave 69 into golden")
    h = do(g.clone(), "yes", "no")                  # once, then stop
    assert h.decider == 1 and h.decision == "use ability"
    do(h, "no")
    assert p0_done(h) and player(h, 0)["guild_steps"] == 2 and player(h, 1)["guild_steps"] == 0
    h = do(g.clone(), "yes", "yes", "dragon from deck", "yes", "cave from deck")
    assert h.decider == 1 and h.decision == "use ability"     # no 4th time
    do(h, "yes")
    assert p0_done(h)
    assert player(h, 0)["guild_steps"] == 4 and player(h, 1)["guild_steps"] == 1
    assert player(h, 1)["resources"] == [0, 0, 0, 0] and player(h, 1)["hand_dragons"] == []


def test_each_opponent_decides_in_turn_order_from_the_active_player():
    """Cave 75: ...; each_opponent { pay(egg) { guild(1) } }, three players."""
    for active in (0, 1):
        core = turn_core(3)
        core.update(active=active, start_player=active, phase_player=active)
        for p in range(3):
            give(core, p, coins=3, nest_eggs=1)
        give(core, active, caves=[75])
        g = start(core)
        do(g, "excavate cave 75 into golden", "no")
        order = []
        while g.decision == "use ability":
            order.append(g.decider)
            do(g, "yes")
        assert order == [(active + 1) % 3, (active + 2) % 3]
        for p in range(3):
            assert player(g, p)["guild_steps"] == (0 if p == active else 1)


def test_repeat_count_then_cache_gained():
    """111 (once per round): repeat(count(aggressive dragons in this cave)) { gain(any) };
    cache(gained, gained, on=here)."""
    core = round_end(turn_core())
    put(core, 0, "crimson", 1, dragon=111)
    put(core, 0, "crimson", 2, dragon=128, cave_card=1)        # aggressive
    put(core, 0, "crimson", 3, dragon=48, cave_card=2)         # playful
    put(core, 0, "golden", 1, dragon=182)                      # aggressive, other cave
    g = start(core)
    do(g, "gold", "milk")
    assert texts(g) == ["crimson 1", "no"]
    do(g, "crimson 1", "milk")
    assert texts(g) == ["crimson 1", "no"]
    do(g, "no")
    P = player(g, 0)
    assert P["resources"] == [0, 1, 0, 0] and P["cached"][0][0] == [0, 0, 0, 1]


def test_repeat_guild_markers_tucks_from_deck():
    """117 (once per round): repeat(count(guild_markers)) { tuck(from=deck, under=here) }."""
    core = round_end(turn_core())
    put(core, 0, "golden", 1, dragon=117)
    core["players"][0]["markers_left"] = 2          # 2 markers placed
    g = start(core)
    do(g, "dragon from deck", "dragon from deck")
    assert g.decider == 1 and player(g, 0)["tucked"][1][0] == 2


def test_repeat_draws_per_shy_dragon_then_tucks_up_to_two():
    """69 (once per round): repeat(count(shy in this cave)) { gain(dragon_card, from=deck) };
    tuck(2, from=gained, under=here)."""
    core = round_end(turn_core())
    put(core, 0, "golden", 1, dragon=69)
    put(core, 0, "golden", 2, dragon=56, cave_card=1)          # shy
    put(core, 0, "golden", 3, dragon=47, cave_card=2)          # shy
    put(core, 0, "golden", 4, dragon=50, cave_card=3)          # helpful
    on_top(core, 36, 37, 38)
    g = start(core)
    assert texts(g) == [name(38), name(37), name(36), "no"]   # the 3 cards drawn
    do(g, name(37), name(36))
    assert g.decider == 1
    P = player(g, 0)
    assert P["hand_dragons"] == [38] and P["tucked"][1][0] == 2


# ---------------------------------------------------------------------------- hatchlings
def test_hatchling_feeds_every_time_and_grows_up_once():
    """9: if activated cache(milk, from=supply, on=here); on feed gain(dragon_card); at the 3rd
    milk (once) gain(crystal, crystal). Cave 3 caching milk from the general supply feeds too."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=9, cached=(0, 0, 0, 1))
    give(core, 0, caves=[3, 4], coins=3, res=[0, 0, 0, 1])
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore golden", "dragon from deck", "golden 1")     # cache the milk: feeds
    assert g.decision == "gain dragon"
    do(g, "dragon from deck")
    P = player(g, 0)
    assert P["cached"][1][0] == [0, 0, 0, 2] and P["resources"] == [0, 0, 0, 0]
    assert len(P["hand_dragons"]) == 2 and P["grown"][1][0] == 0
    do(g, "pass")                                               # player 1 passes, back to 0
    assert g.decider == 0
    do(g, "excavate cave 3 into crimson", "golden 1", "milk", "dragon from deck")
    P = player(g, 0)
    assert P["cached"][1][0] == [0, 0, 0, 3] and P["grown"][1][0] == 1
    assert P["resources"] == [0, 0, 2, 0] and len(P["hand_dragons"]) == 3
    do(g, "no")                                                 # the 2nd cache of cave 3
    do(g, "excavate cave 4 into amethyst", "golden 1", "milk", "dragon from deck", "no")
    P = player(g, 0)
    assert P["cached"][1][0] == [0, 0, 0, 4] and len(P["hand_dragons"]) == 4
    assert P["resources"] == [0, 0, 2, 0]                       # no second grow-up bonus


def test_hatchling_fed_by_tucking():
    """2 (crimson): tuck from hand here; on feed lay(1) (anywhere: it has no nest);
    at the 3rd card gain(coin)."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=2, tucked=2)
    put(core, 0, "golden", 1, dragon=39)
    give(core, 0, dragons=[60], coins=1)
    core["players"][0]["guild_steps"] = 9
    g = start(core)
    do(g, "explore crimson", "meat", name(60))
    assert texts(g) == ["golden 1", "mat nest"]
    do(g, "golden 1")
    assert p0_done(g)
    P = player(g, 0)
    assert P["tucked"][0][0] == 3 and P["grown"][0][0] == 1 and P["eggs"][1][0] == 1
    assert P["coins"] == 1 - 1 + 1 + 1             # explore, grow-up coin, guild space 10


# ---------------------------------------------------------------------------- caves 9, 50
def test_cave_9_gains_a_cave_card_and_a_guild_step():
    core = turn_core()
    give(core, 0, caves=[9], coins=1)
    core["players"][0]["guild_steps"] = 9
    cave_on_top(core, 44)
    g = start(core)
    do(g, "excavate cave 9 into golden")
    assert g.decision == "gain cave"
    do(g, "cave from deck")
    assert p0_done(g)
    P = player(g, 0)
    assert P["hand_caves"] == [44] and P["guild_steps"] == 10 and P["coins"] == 1


def test_cave_50_two_different_benefits_then_each_opponent_one():
    core = turn_core()
    give(core, 0, caves=[50], coins=1)
    g = start(core)
    do(g, "excavate cave 50 into golden")
    assert texts(g) == ["gain 1 dragon card", "advance 1 step on the Dragon Guild", "gain 1 cave card"]
    do(g, "option 3", "cave from deck")
    assert texts(g) == ["gain 1 resource of your choice"] or g.decision == "resource"
    if g.decision == "option":
        do(g, "option 4")
    do(g, "milk")
    assert g.decider == 1 and texts(g) == ["gain 1 dragon card", "advance 1 step on the Dragon Guild", "gain 1 cave card",
                                                  "gain 1 resource of your choice"]
    do(g, "option 4", "gold")
    assert p0_done(g)
    assert player(g, 0)["resources"] == [0, 0, 0, 1] and len(player(g, 0)["hand_caves"]) == 1
    assert player(g, 1)["resources"] == [0, 1, 0, 0]


# ---------------------------------------------------------------------------- conditions
def _full_row(core, cave, dragons, eggs=0):
    for col, d in enumerate(dragons, start=1):
        if d:
            if col > 1 and not core["players"][0]["caves"][CAVES.index(cave)][col - 1]:
                put(core, 0, cave, col, cave_card=core["deck_caves"][-1])
            put(core, 0, cave, col, dragon=d, eggs=eggs)


@pytest.mark.parametrize("cond,card,true_rows,false_rows,vp", [
    # at_least(count(dragons, in=golden), 4) -> 5
    ("at_least", 93, {"golden": [93, 40, 44, 47]}, {"golden": [93, 40, 44]}, 5),
    # at_most(count(aggressive in this cave), 0) -> 4
    ("at_most", 54, {"crimson": [54, 40, 44]}, {"crimson": [54, 40, 46]}, 4),
    # column_full -> 3
    ("column_full", 46, {"crimson": [46], "golden": [40], "amethyst": [43]},
     {"crimson": [46], "golden": [40], "amethyst": [0, 43]}, 3),
    # cave_full -> 3
    ("cave_full", 98, {"golden": [98, 40, 44, 47]}, {"golden": [98, 40, 44]}, 3),
    # last_in_cave -> 3
    ("last_in_cave", 81, {"crimson": [40, 81]}, {"crimson": [81, 40]}, 3),
    # between_dragons -> 2
    ("between_dragons", 39, {"crimson": [40, 39, 44]}, {"crimson": [39, 40, 44]}, 2),
])
def test_if_conditions(cond, card, true_rows, false_rows, vp):
    for rows, want in ((true_rows, vp), (false_rows, 0)):
        core = turn_core()
        for cave, ds in rows.items():
            _full_row(core, cave, ds)
        assert end_vp(core) == want, (cond, rows)


def test_if_cave_excavated():
    """74 (end game): if(cave_excavated) { vp(3) }: all 3 cave-card spaces of its cave."""
    for spaces, want in ((3, 3), (2, 0)):
        core = turn_core()
        put(core, 0, "crimson", 1, dragon=74)
        for col in range(2, 2 + spaces):
            put(core, 0, "crimson", col, cave_card=core["deck_caves"][-1])
        assert end_vp(core) == want


def test_if_not_fewer_than_left():
    """47 (if activated): if(not_fewer_than_left(golden)) { gain(dragon_card) }: the left
    neighbour of player 0 is player 1."""
    for theirs, gains in ((1, True), (2, False)):
        core = turn_core()
        put(core, 0, "golden", 1, dragon=47)
        put(core, 1, "golden", 1, dragon=40)
        if theirs == 2:
            put(core, 1, "golden", 2, dragon=44, cave_card=1)
        give(core, 0, coins=1)
        core["players"][0]["guild_steps"] = 9
        g = start(core)
        do(g, "explore golden", "dragon from deck")
        assert (g.decision == "gain dragon") == gains
        if gains:
            do(g, "dragon from deck")
        assert p0_done(g) and len(player(g, 0)["hand_dragons"]) == (2 if gains else 1)


# ---------------------------------------------------------------------------- vp amounts
def test_vp_each():
    """42: vp(count(dragons, in=this_cave, other=yes), each=3)."""
    core = turn_core()
    _full_row(core, "golden", [40, 42, 44, 47])
    _full_row(core, "crimson", [48])
    assert end_vp(core) == 9


def test_vp_per():
    """179: vp(count(eggs), per=2): 1 VP per 2 eggs (mat nests too), rounded down."""
    core = turn_core()
    _full_row(core, "crimson", [179, 45], eggs=2)   # 2 + 2 eggs
    give(core, 0, nest_eggs=1)
    assert end_vp(core) == 2
    core = turn_core()
    _full_row(core, "crimson", [179, 45], eggs=3)   # 3 + 3 + 1 nest = 7
    give(core, 0, nest_eggs=1)
    assert end_vp(core) == 3


def test_vp_each_with_max():
    """52: vp(count(dragons, ability=once_per_round), each=2, max=8)."""
    core = turn_core()
    _full_row(core, "amethyst", [52, 63, 95, 138])
    assert end_vp(core) == 6
    _full_row(core, "crimson", [139, 107, 104])
    assert end_vp(core) == 8


def test_vp_negative_each():
    """106: vp(count(other aggressive dragons in this cave), each=-2)."""
    core = turn_core()
    _full_row(core, "crimson", [106, 128, 166, 48])
    assert end_vp(core) == -4


def test_vp_hatchling_cached_milk_here():
    """17: vp(count(cached, in=here, resource=milk))."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=17, cached=(1, 0, 0, 3))
    put(core, 0, "golden", 2, dragon=40, cave_card=1, cached=(0, 0, 0, 2))
    assert end_vp(core) == 3


def test_end_game_choice_of_payments():
    """86: choice { pay(dragon_card) { vp(1) }; pay(dragon_card, dragon_card) { vp(3) } }."""
    core = turn_core()
    put(core, 0, "golden", 1, dragon=86)
    give(core, 0, dragons=[60, 99, 48])
    g = start(end_game(core))
    assert texts(g) == ["pay 1 dragon card to score 1 VP", "pay 2 dragon cards to score 3 VP"]
    do(g, "option 2", "yes", name(48), name(99))
    assert g.is_terminal()
    P = player(g, 0)
    assert P["end_vp"] == 3 and P["hand_dragons"] == [60]


# ---------------------------------------------------------------------------- counts
def test_count_objectives_lowest_includes_ties():
    """41: vp(count(objectives_lowest), each=2)."""
    core = turn_core()
    put(core, 0, "crimson", 1, dragon=41)
    core["players"][0]["objective_vp"] = [0, 2, 5, 3]
    core["players"][1]["objective_vp"] = [4, 2, 1, 3]
    core["n_scored"] = 4
    assert end_vp(core) == 2 * 3


def test_count_sets_and_sizes():
    # 49: vp(count(personality_sets), each=4): one full set of the four personalities
    core = turn_core()
    _full_row(core, "golden", [49, 40, 47, 56])     # helpful, helpful, shy, shy
    _full_row(core, "crimson", [48, 128])           # playful, aggressive
    assert end_vp(core) == 4
    # 131: vp(count(size_sets), each=4): hatchling, small, medium, large
    core = turn_core()
    _full_row(core, "golden", [131, 1, 40, 56])     # large, hatchling, small, medium
    assert end_vp(core) == 4
    core = turn_core()
    _full_row(core, "golden", [131, 40, 56, 88])    # no hatchling
    assert end_vp(core) == 0
    # 91: if(at_least(count(distinct_sizes, in=this_cave, among=[hatchling, small, large]), 3))
    core = turn_core()
    _full_row(core, "golden", [91, 1, 40, 88])
    assert end_vp(core) == 8
    core = turn_core()
    _full_row(core, "golden", [91, 1, 40, 56])      # medium, not large
    assert end_vp(core) == 0


def test_count_abilities_guild_markers_and_neighbours():
    # 97: vp(count(dragons, ability=if_activated)): every hatchling has an if-activated part
    core = turn_core()
    _full_row(core, "golden", [97, 1, 56, 88])      # 1 and 56 count, 88 (when played) not
    assert end_vp(core) == 2
    # 101: vp(count(dragons, ability=end_game), each=2, max=8): hatchling 17 has an end-game part
    core = turn_core()
    _full_row(core, "golden", [101, 17, 46, 56])    # 101, 17, 46 (column not full: 0 VP)
    assert end_vp(core) == 6
    # 44: vp(count(guild_markers), each=2)
    core = turn_core()
    put(core, 0, "golden", 1, dragon=44)
    core["players"][0]["markers_left"] = 1
    assert end_vp(core) == 6
    # 51: vp(count(dragons, in=adjacent, personality=shy)); 112: each=2 for any adjacent
    core = turn_core()
    _full_row(core, "golden", [56, 51, 47])         # both neighbours shy
    _full_row(core, "crimson", [0, 177])            # above: shy
    _full_row(core, "amethyst", [0, 62])            # below: aggressive
    assert end_vp(core) == 3
    # 150: if(at_least(count(helpful in this column, other=yes), 1)) { vp(4) }
    core = turn_core()
    _full_row(core, "golden", [150])
    _full_row(core, "amethyst", [118])              # helpful, same column
    assert end_vp(core) == 4
    core = turn_core()
    _full_row(core, "golden", [150, 118])           # same cave, other column
    assert end_vp(core) == 0


def test_vp_adjacent_each():
    """112: vp(count(dragons, in=adjacent), each=2)."""
    core = turn_core()
    _full_row(core, "golden", [40, 112, 47])
    _full_row(core, "crimson", [0, 48, 128])        # crimson 2 is adjacent, crimson 3 is not
    assert end_vp(core) == 6


def test_each_opponent_includes_passed_players():
    """Cave 27: guild(2); each_opponent { guild(1) }: a player who passed still benefits."""
    core = turn_core(3)
    core["players"][1]["passed"] = 1
    give(core, 0, caves=[27], coins=1)
    core["players"][0]["guild_steps"] = 7           # 8 gold, 9 dragon card
    g = start(core)
    do(g, "excavate cave 27 into golden", "dragon from deck")
    assert g.decider == 2 and g.decision == "move"  # player 1 has passed
    assert [player(g, p)["guild_steps"] for p in range(3)] == [9, 1, 1]


def test_entice_from_deck():
    """The language allows entice(from=hand|display|deck); no printed card uses the deck."""
    with custom_programs(caves={12: "entice(from=deck, cost=free)"}):
        core = turn_core()
        give(core, 0, caves=[12], coins=1)
        on_top(core, 48)                            # gain(coin) when played
        g = start(core)
        do(g, "excavate cave 12 into golden")
        assert not p0_done(g)                       # the top card is offered (or played)
