"""Property-based and forward-model tests of the rules engine (advisor._core.Game).

1. Invariants after every decision of thousands of random games (Python-driven and `play_random`):
   card conservation, sane counts, mat structure, hand limits, legal actions, score sums.
2. Forward model (as in the TAG framework's tester): clones never alias, the same actions give the
   same states, `from_dict(to_dict())` gives the same state, legal actions and future.
3. Determinism across processes with different PYTHONHASHSEED values.
4. `determinize(player, seed)`: keeps what the player sees, resamples what they do not, is a function
   of (visible state, seed) only (no leak), replays mid-segment.
5. `observation(player)` hides the other hands' unknown cards and the decks (not their sizes).

Regression tests of fixed engine bugs each have a companion test that checks their scenario really
reaches the situation, so they cannot pass by missing it.
"""
from __future__ import annotations

import copy
import itertools
import json
import os
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from advisor import notation
from advisor._core import PHASES, PROMPTS, Game
from advisor.errors import IllegalActionError
from tests.helpers import DB, blank, do, give, put, start, texts

DATA = Path(__file__).resolve().parent.parent / "advisor" / "data"
MAT = tomllib.loads((DATA / "mat.toml").read_text())
GUILD = tomllib.loads((DATA / "guild.toml").read_text())

N_DRAGONS, N_CAVES = 183, 75
CAVE_NAMES = tuple(MAT["caves"])
CAPACITY = {d.number: d.capacity for d in DB.dragons}
LIVES_IN = {d.number: {CAVE_NAMES.index(c) for c in d.caves} for d in DB.dragons}
MAT_NESTS = MAT["mat_nests"]
MAX_EXPLORES = MAT["explore"]["max_per_cave"]
LIMITS = MAT["limits"]      # end of a turn (not a pass): at most 9 cards, 9 coins, 9 resources
MARKERS = GUILD["track"]["markers"]
SANE = 200                  # no uint8 count of a real game comes near this (underflow shows as ~255)
MAX_DECISIONS = 3000        # random games take < 400 decisions
# swap_dragons ignores cave preferences; the Highlands guild ability covers a dragon (maybe a swapper)
SWAP_DRAGONS = {d.number for d in DB.dragons if any("swap_dragons" in a.text for a in d.abilities)}
SWAP_CAVES = {c.number for c in DB.caves if any("swap_dragons" in a.text for a in c.abilities)}
HIGHLANDS = next(i for i, t in enumerate(GUILD["tile"]) if t["name"] == "Guild of Highlands")
COVER_ABILITY = next(i for i, a in enumerate(GUILD["tile"][HIGHLANDS]["abilities"])
                     if "onto=dragon" in a.get("effect", ""))

PLAYERS = st.integers(min_value=2, max_value=5)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow],
            phases=[Phase.explicit, Phase.generate, Phase.shrink])


# ---------------------------------------------------------------------------------- invariants
def card_places(core: dict) -> tuple[dict, dict, int]:
    """Where every visible card is: id -> list of places; and the total of tucked (face-down) cards."""
    dragons: dict[int, list[str]] = {}
    caves: dict[int, list[str]] = {}
    tucked = 0
    for p, P in enumerate(core["players"]):
        for d in P["hand_dragons"]:
            dragons.setdefault(d, []).append(f"hand {p}")
        for k in P["hand_caves"]:
            caves.setdefault(k, []).append(f"hand {p}")
        for c in range(3):
            for col in range(4):
                if P["dragons"][c][col]:
                    dragons.setdefault(P["dragons"][c][col], []).append(f"mat {p} {c},{col}")
                if P["caves"][c][col]:
                    caves.setdefault(P["caves"][c][col], []).append(f"mat {p} {c},{col}")
                tucked += P["tucked"][c][col]
    for kind, places in (("dragons", dragons), ("caves", caves)):
        for pile in ("deck", "discard"):
            for card in core[f"{pile}_{kind}"]:
                places.setdefault(card, []).append(pile)
        for i, card in enumerate(core[f"display_{kind}"]):
            if card:
                places.setdefault(card, []).append(f"display {i}")
    return dragons, caves, tucked


def check_cards(core: dict, mid_segment: bool) -> tuple[int, int]:
    """Each card in exactly one place. At a segment boundary the totals are exact (dragons: visible +
    tucked = 183, caves: 75). In the middle of a segment one dragon and one cave card may be in
    flight (taken from a hand or the display and not yet placed, or a revealed card). Returns the
    numbers in flight."""
    dragons, caves, tucked = card_places(core)
    twice = {d: w for d, w in dragons.items() if len(w) > 1}
    assert not twice, f"dragon cards in two places: {twice}"
    twice = {k: w for k, w in caves.items() if len(w) > 1}
    assert not twice, f"cave cards in two places: {twice}"
    assert all(1 <= d <= N_DRAGONS for d in dragons), sorted(dragons)
    assert all(1 <= k <= N_CAVES for k in caves), sorted(caves)
    flight_d = N_DRAGONS - len(dragons) - tucked
    flight_c = N_CAVES - len(caves)
    if mid_segment:
        assert 0 <= flight_d <= 1 and 0 <= flight_c <= 1, (flight_d, flight_c)
    else:
        assert flight_d == 0, f"{len(dragons)} visible + {tucked} tucked dragon cards != {N_DRAGONS}"
        assert flight_c == 0, f"{len(caves)} cave cards != {N_CAVES}"
    return flight_d, flight_c


def check_counts(core: dict) -> None:
    n = len(core["players"])
    assert 0 <= core["round"] <= 3 and core["phase"] in PHASES
    for key in ("active", "phase_player", "start_player"):
        assert 0 <= core[key] < n, (key, core[key])
    assert 0 <= core["phase_count"] <= n
    assert 0 <= core["n_scored"] <= 4 and core["fixed_count"] <= n * MARKERS
    for a, spots in enumerate(core["guild_spots"]):
        assert all(0 <= s <= n for s in spots), spots
    fixed = 0
    for p, P in enumerate(core["players"]):
        scalars = [P["coins"], P["nest_eggs"], P["fixed_vp"], *P["resources"], *P["objective_vp"],
                   *P["objective_count"], *P["tile_markers"]]
        assert all(0 <= v <= SANE for v in scalars), (p, scalars)
        assert P["nest_eggs"] <= MAT_NESTS, (p, P["nest_eggs"])
        assert all(0 <= e <= MAX_EXPLORES for e in P["explores"]), P["explores"]
        assert 0 <= P["markers_left"] <= MARKERS and 0 <= P["guild_steps"] <= SANE
        assert P["passed"] in (0, 1)
        for a in range(4):   # the tile markers of a player are the spots holding their seat
            assert sum(s == p + 1 for s in core["guild_spots"][a]) == P["tile_markers"][a]
        on_fixed = MARKERS - P["markers_left"] - sum(P["tile_markers"])
        assert on_fixed >= 0, (p, P["markers_left"], P["tile_markers"])
        fixed += on_fixed
        if "n_hand_dragons" in P:        # the counters of the core agree with the hand bitsets
            assert (P["n_hand_dragons"], P["n_hand_caves"]) == (len(P["hand_dragons"]), len(P["hand_caves"]))
        assert set(P["known_dragons"]) <= set(P["hand_dragons"]), p
        assert set(P["known_caves"]) <= set(P["hand_caves"]), p
        assert len(P["hand_dragons"]) + len(P["hand_caves"]) <= SANE
    assert fixed == core["fixed_count"]


def check_mat(core: dict, moved: set[int]) -> None:
    """Mat structure. `moved`: dragons seen to change space (swap_dragons ignores cave preferences)."""
    for p, P in enumerate(core["players"]):
        for c in range(3):
            caves, dragons = P["caves"][c], P["dragons"][c]
            assert caves[0] == 0, f"player {p}: a cave card in column 1 of cave {c}"
            for col in range(2, 4):
                assert not caves[col] or caves[col - 1], f"player {p} cave {c}: cave cards {caves}"
            for col in range(4):
                d = dragons[col]
                where = f"player {p} cave {c} column {col + 1}"
                for v in (P["eggs"][c][col], P["tucked"][c][col], *P["cached"][c][col]):
                    assert 0 <= v <= SANE, (where, v)
                if not d:
                    assert not (P["eggs"][c][col] or P["tucked"][c][col] or any(P["cached"][c][col])
                                or P["grown"][c][col]), f"{where}: items on an empty space"
                    continue
                assert col == 0 or dragons[col - 1], f"{where}: dragons {dragons} have a gap"
                assert col == 0 or caves[col], f"{where}: dragon on an unexcavated space"
                assert P["eggs"][c][col] <= CAPACITY[d], f"{where}: {P['eggs'][c][col]} eggs > capacity"
                assert c in LIVES_IN[d] or d in moved, f"{where}: dragon {d} may not live there"


def check_scores(game: Game) -> None:
    for b in game.score_breakdown():
        assert b["total"] == sum(v for k, v in b.items() if k != "total"), b
        # end-game abilities may score negative VP (e.g. Yellow-Bellied Lung Dragon, each=-1)
        assert all(v >= 0 for k, v in b.items() if k not in ("end_game", "total")), b


def check_decision_point(game: Game) -> None:
    legal = game.legal_actions()
    assert legal, "no legal action before the end"
    assert len(set(legal)) == len(legal), "duplicate legal actions"
    assert 0 <= game.decider < game.players
    assert game.decision in PROMPTS


def check_state(game: Game, moved: set[int] = frozenset(), d: dict | None = None) -> tuple[int, int]:
    d = game.to_dict() if d is None else d
    flight = check_cards(d["core"], mid_segment=bool(d["log"]))
    check_cards(d["segment_start"], mid_segment=False)
    for core in (d["core"], d["segment_start"]):
        check_counts(core)
        check_mat(core, moved)
    seg = d["segment_start"]
    if seg["deck_dragons"] or seg["discard_dragons"]:
        assert all(seg["display_dragons"]), "display not refilled at a segment start"
    if seg["deck_caves"] or seg["discard_caves"]:
        assert all(seg["display_caves"]), "display not refilled at a segment start"
    check_scores(game)
    return flight


def mat_positions(core: dict) -> dict[int, tuple[int, int, int]]:
    return {P["dragons"][c][k]: (p, c, k) for p, P in enumerate(core["players"])
            for c in range(3) for k in range(4) if P["dragons"][c][k]}


class Tracker:
    """Follows a game decision by decision: which dragons moved (swaps) and the end of each turn."""

    def __init__(self, game: Game):
        d = game.to_dict()
        self.pos = mat_positions(d["core"])
        self.seg = d["segment_start"]
        self.moved: set[int] = set()
        self.limit_checks = 0
        self.in_flight = 0

    def after(self, game: Game) -> dict:
        d = game.to_dict()
        pos = mat_positions(d["core"])
        self.moved |= {x for x, w in pos.items() if x in self.pos and self.pos[x] != w}
        self.pos = pos
        flight = check_state(game, self.moved, d)
        self.in_flight += any(flight)
        seg, prev = d["segment_start"], self.seg
        # A turn that was not a pass is always followed by another turn of the same round (a round
        # ends only when everyone has passed); only forced passes of others come in between.
        if (prev["phase"] == "turn" and seg["turns"] != prev["turns"] and seg["phase"] == "turn"
                and seg["round"] == prev["round"]):
            p = prev["active"]
            P = seg["players"][p]
            if not P["passed"]:
                self.limit_checks += 1
                cards = len(P["hand_dragons"]) + len(P["hand_caves"])
                assert (cards <= LIMITS["cards"] and P["coins"] <= LIMITS["coins"]
                        and sum(P["resources"]) <= LIMITS["resources"]), (
                    f"player {p} ends a turn with {cards} cards, {P['coins']} coins, "
                    f"resources {P['resources']}")
        self.seg = seg
        return d


def play_checked(players: int, seed: int, choices: int, stop: int | None = None):
    """A game with uniformly random decisions (random.Random(choices)), checked after every one.
    Stops after `stop` decisions if given. Returns the game, the tracker and the decisions taken."""
    rnd = random.Random(choices)
    game = Game.new(players, seed)
    tracker = Tracker(game)
    check_state(game)
    n = 0
    while not game.is_terminal() and (stop is None or n < stop):
        check_decision_point(game)
        game.apply(rnd.choice(game.legal_actions()))
        n += 1
        assert n <= MAX_DECISIONS, "the game does not end"
        tracker.after(game)
    return game, tracker, n


def may_have_swapped(core: dict) -> set[int]:
    """Without a decision-by-decision history: the dragons of every player who could have swapped
    (a swap card on the mat, or a marker on the Highlands cover ability, which may cover one)."""
    out = set()
    for P in core["players"]:
        cards = {x for row in P["dragons"] for x in row} | {x for row in P["caves"] for x in row}
        if (cards & (SWAP_DRAGONS | SWAP_CAVES)
                or (core["guild_tile"] == HIGHLANDS and P["tile_markers"][COVER_ABILITY])):
            out |= cards
    return out


def check_over(game: Game, moved: set[int] | None = None) -> None:
    assert game.is_terminal() and game.legal_actions() == [] and game.decider == -1
    assert game.decision is None and game.phase == "over"
    core = game.to_dict()["core"]
    check_state(game, may_have_swapped(core) if moved is None else moved)
    assert game.winners()
    with pytest.raises(IllegalActionError):
        game.apply(0)


# ---------------------------------------------------------------------------------- 1. random games
@pytest.mark.slow
@settings(max_examples=250, **FAST)
@given(players=PLAYERS, seed=SEEDS, choices=SEEDS)
def test_python_driven_random_games_keep_invariants(players, seed, choices):
    game, tracker, n = play_checked(players, seed, choices)
    check_over(game, tracker.moved)


@settings(max_examples=100, **FAST)
@given(players=PLAYERS, seed=SEEDS)
def test_play_random_games_end_with_invariants(players, seed):
    """40 games per example inside the core; the end states are checked."""
    for i in range(40):
        game = Game.new(players, seed + i)
        n = game.play_random(seed * 7 + i)
        assert 0 < n <= MAX_DECISIONS
        check_over(game)


@settings(max_examples=100, **FAST)
@given(players=PLAYERS, seed=SEEDS, prefix=st.integers(min_value=0, max_value=400))
def test_play_random_from_the_middle_of_a_game(players, seed, prefix):
    """Python-driven decisions up to any point (often mid-segment), then play_random to the end."""
    game, _, n = play_checked(players, seed, seed ^ 0x5EED, stop=prefix)
    if not game.is_terminal():
        m = game.play_random(seed)
        assert 0 < m and n + m <= MAX_DECISIONS
    check_over(game)


def test_checkers_are_not_vacuous():
    """The trackers see hand-limit checks, cards in flight and (in some game) swapped dragons."""
    limit = moved = flight = 0
    for seed in range(200):
        _, tracker, _ = play_checked(2 + seed % 4, seed, seed)
        limit += tracker.limit_checks
        moved += len(tracker.moved)
        flight += tracker.in_flight
        if seed >= 20 and moved:
            break
    assert limit > 100 and moved > 0 and flight > 0


# ---------------------------------------------------------------------------------- 2. forward model
@settings(max_examples=30, **FAST)
@given(players=PLAYERS, seed=SEEDS)
def test_clone_never_aliases(players, seed):
    rnd = random.Random(seed)
    game = Game.new(players, seed)
    while not game.is_terminal():
        before = game.to_dict()
        clone = game.clone()
        assert clone.to_dict() == before and clone.legal_actions() == game.legal_actions()
        assert (clone.decider, clone.decision, clone.printing) == (game.decider, game.decision, game.printing)
        legal = game.legal_actions()
        clone.apply(rnd.choice(legal))
        assert game.to_dict() == before and game.legal_actions() == legal, "clone aliases the original"
        clone_state = clone.to_dict()
        game.apply(rnd.choice(legal))
        assert clone.to_dict() == clone_state, "the original aliases the clone"


@settings(max_examples=30, **FAST)
@given(players=PLAYERS, seed=SEEDS, at=st.integers(min_value=0, max_value=300))
def test_same_actions_on_two_clones_give_the_same_states(players, seed, at):
    game, _, _ = play_checked(players, seed, seed, stop=at)
    a, b = game.clone(), game.clone()
    rnd = random.Random(seed + 1)
    while not a.is_terminal():
        act = rnd.choice(a.legal_actions())
        assert b.legal_actions() == a.legal_actions()
        a.apply(act)
        b.apply(act)
        assert a.to_dict() == b.to_dict()
    assert b.is_terminal() and a.scores() == b.scores() and a.winners() == b.winners()
    # play_random is a function of the state and its seed
    c, e = game.clone(), game.clone()
    if not game.is_terminal():
        assert c.play_random(seed) == e.play_random(seed)
    assert c.to_dict() == e.to_dict()


@settings(max_examples=20, **FAST)
@given(players=PLAYERS, seed=SEEDS)
def test_from_dict_of_to_dict_reproduces_state_and_future(players, seed):
    rnd = random.Random(seed)
    game = Game.new(players, seed)
    k = 0
    while True:
        d = game.to_dict()
        again = Game.from_dict(json.loads(json.dumps(d)))       # plain data, through JSON
        assert again.to_dict() == d
        assert again.legal_actions() == game.legal_actions()
        assert (again.decider, again.decision, again.phase, again.round, again.active,
                again.decisions_in_segment, again.is_terminal()) == (
            game.decider, game.decision, game.phase, game.round, game.active,
            game.decisions_in_segment, game.is_terminal())
        assert again.score_breakdown() == game.score_breakdown()
        if not d["log"] and d["core"] == d["segment_start"]:
            assert Game.from_dict({"core": d["core"]}).to_dict() == d    # a boundary from core alone
        if game.is_terminal():
            break
        if k % 5 == 0:                       # the same future under the same decisions
            x, y = game.clone(), again.clone()
            assert x.play_random(k) == y.play_random(k)
            assert x.to_dict() == y.to_dict() and x.scores() == y.scores()
        a = rnd.choice(game.legal_actions())
        game.apply(a)
        again.apply(a)
        assert again.to_dict() == game.to_dict()
        k += 1


RESOURCE_COSTS = sorted({d.number for d in DB.dragons if d.cost["egg"] == 0 and d.cost["coin"] == 0
                         and sum(d.cost[r] for r in ("meat", "gold", "crystal", "milk")) >= 1
                         and all(a.timing != "when_played" for a in d.abilities)})     # nothing gained after paying


def exact_payments(have: list[int], need: list[int]) -> list[tuple[int, ...]]:
    """Every way to pay `need` from `have` wasting nothing, 2 of any kind standing for 1 missing
    (the rules' exchange), in ascending order: what a payment decision must offer."""
    out = []
    for s in itertools.product(*(range(h + 1) for h in have)):
        excess = sum(max(x - n, 0) for x, n in zip(s, need, strict=True))
        missing = sum(max(n - x, 0) for x, n in zip(s, need, strict=True))
        if excess == 2 * missing:
            out.append(s)
    return out


@settings(max_examples=150, **FAST)
@given(dragon=st.sampled_from(RESOURCE_COSTS), have=st.lists(st.integers(0, 7), min_size=4, max_size=4))
def test_a_payment_offers_exactly_the_payments_that_waste_nothing(dragon, have):
    d = DB.dragons[dragon - 1]
    need = [d.cost[r] for r in ("meat", "gold", "crystal", "milk")]
    ways = exact_payments(have, need)
    core = blank()
    give(core, 0, dragons=[dragon], coins=3, res=have)
    g = start(core)
    move = f"entice {d.name} into {d.caves[0]}"
    assert (move in texts(g)) == bool(ways)
    if not ways:
        return
    do(g, move)
    if len(ways) == 1:                      # one way: paid without asking
        assert g.decision != "payment"
        paid = ways[0]
    else:
        assert g.decision == "payment"
        offered = [tuple((notation.arg(a) >> (4 * i)) & 15 for i in range(4)) for a in g.legal_actions()]
        assert all(notation.kind(a) == notation.PAY for a in g.legal_actions())
        assert offered == ways
        paid = ways[-1]
        g.apply(g.legal_actions()[-1])
    # (when the limit on resources asks for a discard, it asks before taking any)
    assert g.to_dict()["core"]["players"][0]["resources"] == [h - x for h, x in zip(have, paid, strict=True)]


def test_illegal_actions_leave_the_state_unchanged():
    rnd = random.Random(3)
    game = Game.new(3, 3)
    for _ in range(150):
        legal = set(game.legal_actions())
        before = game.to_dict()
        for bad in (0, -1, max(legal) + 1, (21 << 20)):
            if bad not in legal:
                with pytest.raises((ValueError, OverflowError)):
                    game.apply(bad)
                assert game.to_dict() == before
        game.apply(rnd.choice(sorted(legal)))


@settings(max_examples=20, **FAST)
@given(players=st.sampled_from([1, 2, 3]), seed=SEEDS)
def test_a_replay_checks_the_logged_move(players, seed):
    """A replay takes a turn's logged move without listing every move again, but still checks it:
    a move the player could not make (a dragon not in hand, a cave card not in hand, an explore
    they cannot pay, a wrong kind) makes the replay diverge instead of being played."""
    from advisor import notation as N
    from advisor._core import EngineError
    rnd = random.Random(seed)
    game = Game.new(players, seed)
    checked = 0
    while not game.is_terminal() and checked < 6:
        d = game.to_dict()
        move = d["log"][0] if d["log"] else None
        if move is not None and N.kind(move) in N.TOP_LEVEL and N.kind(move) != N.PASS:
            assert Game.from_dict(d).to_dict() == d
            P = d["segment_start"]["players"][d["segment_start"]["active"]]
            absent_d = next(x for x in range(1, 184) if x not in P["hand_dragons"])
            absent_c = next(x for x in range(1, 76) if x not in P["hand_caves"])
            bad = [N.make(N.ENTICE, absent_d * 4), N.make(N.EXCAVATE, absent_c * 4), N.make(N.ENTICE, 3),
                   N.make(N.PASS, 1), N.make(N.SPOT, 0), N.make(N.EXPLORE, 3)]
            if P["coins"] == 0:
                bad.append(N.make(N.EXPLORE, 0))
            for a in bad:
                with pytest.raises(EngineError, match="diverged"):
                    Game.from_dict(dict(d, log=[a] + d["log"][1:]))
            checked += 1
        game.apply(rnd.choice(game.legal_actions()))
    assert checked > 0


# ---------------------------------------------------------------------------------- 3. processes
_DETERMINISM_SCRIPT = r"""
import hashlib, json, random, sys
from advisor._core import Game
out = []
for players in (2, 3, 4, 5):
    for seed in range(4):
        g = Game.new(players, seed)
        r = random.Random(seed)
        n = 0
        while not g.is_terminal():
            if n % 25 == 0 and not g.to_dict()["log"]:
                for p in range(players):
                    h = g.determinize(p, seed + n)
                    out.append(hashlib.sha256(json.dumps(h.to_dict(), sort_keys=True).encode()).hexdigest())
            g.apply(r.choice(g.legal_actions()))
            n += 1
        out.append([g.to_dict(), g.scores(), g.score_breakdown(), g.winners()])
        f = Game.new(players, seed + 100)
        f.play_random(seed)
        out.append([f.to_dict(), f.scores(), f.winners()])
print(hashlib.sha256(json.dumps(out, sort_keys=True).encode()).hexdigest(), len(out))
"""


def test_same_games_in_processes_with_different_hash_seeds():
    procs = []
    for hash_seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        procs.append(subprocess.Popen([sys.executable, "-c", _DETERMINISM_SCRIPT], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outs.append(out.strip())
    assert outs[0] == outs[1]
    assert int(outs[0].split()[1]) > 32          # 32 finished games + determinized states


# ---------------------------------------------------------------------------------- 4. determinize
def visible_view(core: dict, player: int) -> dict:
    """What `player` can see of a core dict: all but the decks' order, the RNG and the other players'
    unknown hand cards and seen face-down cards (hand sizes and known hand cards are visible)."""
    view = {k: v for k, v in core.items() if k not in ("deck_dragons", "deck_caves", "rng", "players")}
    view["deck_sizes"] = (len(core["deck_dragons"]), len(core["deck_caves"]))
    view["players"] = []
    for q, P in enumerate(core["players"]):
        P = dict(P)
        if q != player:
            P["hand_sizes"] = (len(P.pop("hand_dragons")), len(P.pop("hand_caves")))
            P.pop("seen_dragons")
        view["players"].append(P)
    return view


def hidden_part(core: dict, player: int) -> tuple:
    return (tuple(core["deck_dragons"]), tuple(core["deck_caves"]),
            tuple((tuple(P["hand_dragons"]), tuple(P["hand_caves"]))
                  for q, P in enumerate(core["players"]) if q != player))


def decision_point(game: Game, d: dict | None = None) -> tuple:
    """Where play stands: the decision, the decisions of the segment so far and the segment."""
    d = game.to_dict() if d is None else d
    seg = d["segment_start"]
    return (game.decider, game.decision, tuple(d["log"]),
            *(seg[k] for k in ("round", "phase", "phase_player", "phase_count", "active", "turns")))


def check_determinized(game: Game, d: dict, player: int, seed: int) -> Game:
    """determinize(player, seed) keeps what `player` sees (when the decision stays the same) and
    is deterministic; its state keeps every invariant. Returns the determinized game."""
    h = game.determinize(player, seed)
    hd = h.to_dict()
    assert hd == game.determinize(player, seed).to_dict(), "determinize is not a function of its seed"
    assert game.to_dict() == d, "determinize changed the original"
    check_state(h, frozenset(range(1, N_DRAGONS + 1)), hd)
    same_decision = decision_point(h, hd) == decision_point(game, d)
    if player == game.decider:
        assert same_decision, "the decider's own decision changed"
        assert h.legal_actions() == game.legal_actions()
    if same_decision:
        assert visible_view(hd["core"], player) == visible_view(d["core"], player)
        assert h.observation(player) == game.observation(player)
        assert hd["log"] == d["log"]
    return h


@settings(max_examples=50, **FAST)
@given(players=PLAYERS, seed=SEEDS)
def test_determinize_at_segment_boundaries(players, seed):
    rnd = random.Random(seed)
    game = Game.new(players, seed)
    n = checked = 0
    while not game.is_terminal():
        d = game.to_dict()
        if not d["log"] and n % 4 == 0:
            for player in range(players):
                s = rnd.randrange(2**32)
                h = check_determinized(game, d, player, s)
                if decision_point(h) == decision_point(game, d):
                    checked += 1
                    other = game.determinize(player, s + 1).to_dict()["core"]
                    real, mine = hidden_part(d["core"], player), hidden_part(h.to_dict()["core"], player)
                    if len(d["core"]["deck_dragons"]) >= 10:
                        assert mine != hidden_part(other, player), "two seeds gave the same deal"
                        assert mine != real, "the hidden cards were not resampled"
                h.play_random(s)
                check_over(h)
        game.apply(rnd.choice(game.legal_actions()))
        n += 1
    assert checked > 0


def test_determinize_resamples_opponents_unknown_hand_cards():
    """Over several games the opponents' unknown hand cards of determinized games differ from the
    real ones and between seeds; their known cards stay."""
    differ = 0
    for seed in range(6):
        game, _, _ = play_checked(3, seed, seed, stop=40)
        while game.to_dict()["log"]:
            game.apply(game.legal_actions()[0])
        core = game.to_dict()["core"]
        for player in range(3):
            hands = set()
            for s in range(5):
                h = game.determinize(player, s).to_dict()["core"]
                assert h["players"][player]["hand_dragons"] == core["players"][player]["hand_dragons"]
                for q in range(3):
                    assert set(core["players"][q]["known_dragons"]) <= set(h["players"][q]["hand_dragons"])
                    assert set(core["players"][q]["known_caves"]) <= set(h["players"][q]["hand_caves"])
                hands.add(tuple(tuple(P["hand_dragons"] + P["hand_caves"])
                                for q, P in enumerate(h["players"]) if q != player))
            differ += len(hands) > 1
    assert differ >= 6


def _swap_hidden(core: dict, player: int, rnd: random.Random) -> str | None:
    """Rearrange cards `player` cannot see: an opponent's unknown hand card with a deck card (dragon
    or cave), two opponents' unknown cards, or the deck order. Returns what was done, None if nothing."""
    P = core["players"]
    opponents = [q for q in range(len(P)) if q != player]
    kinds = ["dragons", "caves"]
    rnd.shuffle(kinds)
    for how in rnd.sample(["deck", "hands", "order"], 3):
        for kind in kinds:
            unknown = {q: sorted(set(P[q][f"hand_{kind}"]) - set(P[q][f"known_{kind}"])) for q in opponents}
            holders = [q for q in opponents if unknown[q]]
            deck = core[f"deck_{kind}"]
            if how == "deck" and holders and deck:
                q = rnd.choice(holders)
                x, i = rnd.choice(unknown[q]), rnd.randrange(len(deck))
                hand = P[q][f"hand_{kind}"]
                hand[hand.index(x)], deck[i] = deck[i], x
                hand.sort()
                return f"{kind}: hand {q} card {x} <-> deck card {deck[i]}"
            if how == "hands" and len(holders) >= 2:
                q, r = rnd.sample(holders, 2)
                x, y = rnd.choice(unknown[q]), rnd.choice(unknown[r])
                hq, hr = P[q][f"hand_{kind}"], P[r][f"hand_{kind}"]
                hq[hq.index(x)], hr[hr.index(y)] = y, x
                hq.sort()
                hr.sort()
                return f"{kind}: hand {q} card {x} <-> hand {r} card {y}"
            if how == "order" and len(deck) >= 2:
                old = list(deck)
                while deck == old:
                    rnd.shuffle(deck)
                return f"{kind}: deck order"
    return None


@settings(max_examples=60, **FAST)
@given(players=PLAYERS, seed=SEEDS, at=st.integers(min_value=0, max_value=350))
def test_determinize_does_not_leak_hidden_cards(players, seed, at):
    """Two states that differ only in how cards hidden from `player` are arranged give the same
    determinized game for the same seed (and the same observation)."""
    game, _, _ = play_checked(players, seed, seed, stop=at)
    rnd = random.Random(seed)
    while not game.is_terminal() and game.to_dict()["log"]:
        game.apply(rnd.choice(game.legal_actions()))
    assume(not game.is_terminal())
    d = game.to_dict()
    for player in range(players):
        seg = copy.deepcopy(d["segment_start"])
        what = _swap_hidden(seg, player, rnd)
        if what is None:
            continue
        other = Game.from_dict({"core": seg, "segment_start": seg, "log": [], "printing": d["printing"]})
        od = other.to_dict()
        if od["segment_start"] != seg or (other.decider, other.decision) != (game.decider, game.decision):
            continue      # the rearranged hand changed a forced choice: no longer the same visible state
        assert other.observation(player) == game.observation(player), what
        for s in (seed, seed + 1):
            assert other.determinize(player, s).to_dict() == game.determinize(player, s).to_dict(), what


def _segment_deciders(game: Game, rnd: random.Random, stop: int):
    """Play random decisions; yield (game, d, deciders of the logged decisions of the segment)."""
    who: list[int] = []
    for _ in range(stop):
        if game.is_terminal():
            return
        decider = game.decider
        game.apply(rnd.choice(game.legal_actions()))
        d = game.to_dict()
        who = who + [decider] if d["log"] else []
        assert len(who) == len(d["log"])
        yield d, who


@settings(max_examples=40, **FAST)
@given(players=PLAYERS, seed=SEEDS)
def test_determinize_mid_segment_replays_for_the_player_who_decided(players, seed):
    """In the middle of a segment whose logged decisions were all taken by `player`, determinize
    replays the log to the same visible decision (and the game plays on)."""
    rnd = random.Random(seed)
    game = Game.new(players, seed)
    checked = 0
    for i, (d, who) in enumerate(_segment_deciders(game, rnd, MAX_DECISIONS)):
        if not who or len(set(who)) != 1 or game.is_terminal() or i % 2:
            continue
        player = who[0]
        s = rnd.randrange(2**32)
        h = check_determinized(game, d, player, s)
        assert decision_point(h) == decision_point(game, d)
        checked += 1
        if checked % 4 == 0:
            h.play_random(s)
            check_over(h)
    assert checked > 0


# ---------------------------------------------------------------------------------- 5. observation
@settings(max_examples=25, **FAST)
@given(players=PLAYERS, seed=SEEDS)
def test_observation_hides_unknown_hand_cards_and_decks(players, seed):
    rnd = random.Random(seed)
    game = Game.new(players, seed)
    while not game.is_terminal():
        core = game.to_dict()["core"]
        for player in range(players):
            o = game.observation(player)
            text = json.dumps(o)
            for key in ("deck_dragons", "deck_caves", "rng", "public_dragons", "seen_dragons"):
                assert f'"{key}"' not in text, key
            for q, (P, real) in enumerate(zip(o["players"], core["players"], strict=True)):
                if q == player:
                    assert P["hand_dragons"] == real["hand_dragons"] and P["hand_caves"] == real["hand_caves"]
                else:
                    assert P["hand_dragons"] == sorted(real["known_dragons"])
                    assert P["hand_caves"] == sorted(real["known_caves"])
                assert (P["n_hand_dragons"], P["n_hand_caves"]) == (len(real["hand_dragons"]),
                                                                    len(real["hand_caves"]))
                for key in ("dragons", "caves", "eggs", "tucked", "cached", "coins", "resources"):
                    assert P[key] == real[key]
            for key in ("display_dragons", "display_caves", "discard_dragons", "discard_caves"):
                assert o[key] == core[key]
            assert (o["n_deck_dragons"], o["n_deck_caves"]) == (len(core["deck_dragons"]),
                                                                len(core["deck_caves"]))
            assert o["legal_actions"] == (game.legal_actions() if player == game.decider else [])
            assert (o["decider"], o["decision"]) == (game.decider, game.decision)
        game.apply(rnd.choice(game.legal_actions()))


def _hand_size_scenario(cards: int) -> Game:
    """Player 0 to move; player 1 holds `cards` dragon cards that player 0 has not seen."""
    core = blank(2, seed=6, active=0)
    give(core, 0, coins=2)
    give(core, 1, dragons=core["deck_dragons"][:cards])
    return start(core)


def test_observation_tells_hand_sizes():
    """Player 0 sees whether player 1 holds one card or two (and how many are left in the deck)."""
    for game, n in ((_hand_size_scenario(1), 1), (_hand_size_scenario(2), 2)):
        assert game.decider == 0 and game.decision == "move"
        P = game.to_dict()["core"]["players"][1]
        assert len(P["hand_dragons"]) == n and P["known_dragons"] == []
    one, two = _hand_size_scenario(1).observation(0), _hand_size_scenario(2).observation(0)
    assert one != two
    assert (one["players"][1]["n_hand_dragons"], two["players"][1]["n_hand_dragons"]) == (1, 2)
    assert one["n_deck_dragons"] == two["n_deck_dragons"] + 1


# ---------------------------------------------------------------------------------- fixed engine bugs
def test_scenario_mid_segment_of_another_player():
    """Companion of the test below: the first setup decision leaves the segment mid-way."""
    for seed in range(5):
        game = Game.new(2, seed)
        decider = game.decider
        game.apply(game.legal_actions()[0])
        assert game.decision == "setup discard" and game.decider == decider
        assert game.to_dict()["log"] and not game.to_dict()["core"]["players"][decider]["known_dragons"]
        game.determinize(decider, 0)            # the deciding player: replays


def test_determinize_mid_segment_replays_for_other_players():
    for seed in range(5):
        game = Game.new(2, seed)
        decider = game.decider
        game.apply(game.legal_actions()[0])      # setup: discard the first card (still in hand)
        d = game.to_dict()
        for s in range(5):
            h = game.determinize(1 - decider, s)
            assert decision_point(h) == decision_point(game, d)
            assert visible_view(h.to_dict()["core"], 1 - decider) == visible_view(d["core"], 1 - decider)


def _forced_choice_scenario() -> tuple[Game, int]:
    """Player 1 to move holding one hidden dragon they can just afford; nothing else to do but pass."""
    dragon = next(d.number for d in DB.dragons if not d.is_hatchling and d.cost["meat"] == 1
                  and d.total_cost == 1 and "crimson" in d.caves)
    core = blank(2, seed=4, active=1)
    give(core, 1, dragons=[dragon], coins=1, res=(1, 0, 0, 0))
    core["players"][1]["explores"] = [MAX_EXPLORES] * 3
    return start(core), dragon


def test_scenario_forced_choice():
    game, dragon = _forced_choice_scenario()
    assert game.decider == 1 and game.decision == "move"
    assert texts(game)[-1] == "pass" and all(t.startswith("entice") for t in texts(game)[:-1])
    assert game.to_dict()["core"]["players"][1]["known_dragons"] == []
    assert game.determinize(1, 0).legal_actions() == game.legal_actions()


def test_determinize_keeps_the_visible_decision_of_another_player():
    game, _ = _forced_choice_scenario()
    d = game.to_dict()
    for s in range(10):
        h = game.determinize(0, s)
        assert decision_point(h) == decision_point(game, d)
        assert visible_view(h.to_dict()["core"], 0) == visible_view(d["core"], 0)


def _reshuffle_scenario() -> tuple[Game, int]:
    """Player 0 explores crimson with Hostile Northern Fire Dragon (68): reveal the last deck card (a
    large dragon) and decline to tuck it, so it is discarded (marked public). Player 1 then gains a
    dragon from the empty deck: the discard pile, with that card, is reshuffled into the deck."""
    core = blank(2, seed=1, active=0)
    put(core, 0, "crimson", 1, dragon=68)
    give(core, 0, coins=5)
    give(core, 1, coins=5)
    large = next(d.number for d in DB.dragons if d.size == "large" and d.number in core["deck_dragons"])
    core["deck_dragons"].remove(large)
    core["discard_dragons"] += core["deck_dragons"]
    core["deck_dragons"] = [large]
    game = start(core)
    do(game, "explore crimson")
    while game.decider == 0 and game.decision != "move":
        do(game, "no" if "no" in texts(game) else texts(game)[0])
    do(game, "explore golden", "dragon from deck")
    while game.decider == 1 and game.decision != "move":
        do(game, "no" if "no" in texts(game) else texts(game)[0])
    return game, large


def test_scenario_reshuffled_public_card():
    game, large = _reshuffle_scenario()
    core = game.to_dict()["core"]
    assert core["reshuffles"] == 1 and large not in core["public_dragons"]   # discarded, not face down
    assert large in core["deck_dragons"] or large in core["players"][1]["hand_dragons"]
    check_state(game)


def test_determinize_after_reshuffle_keeps_every_card_once():
    game, _ = _reshuffle_scenario()
    for player in range(2):
        for s in range(3):
            check_state(game.determinize(player, s))


def _cover_scenario() -> tuple[Game, int, int]:
    """Guild of Highlands: player 0 reaches the brown space and covers their dragon with one from
    hand (the covered card becomes a face-down tucked card that everyone saw)."""
    plain = [d.number for d in DB.dragons if "crimson" in d.caves and not d.is_hatchling
             and all(a.timing not in ("when_played", "if_activated") for a in d.abilities)]
    covered, cover = plain[0], plain[1]
    core = blank(2, seed=3, active=0)
    core["guild_tile"] = HIGHLANDS
    put(core, 0, "crimson", 1, dragon=covered)
    give(core, 0, dragons=[cover], caves=[core["deck_caves"][-1]], coins=5)
    core["players"][0]["guild_steps"] = GUILD["track"]["brown"][1] - 1     # one step before brown
    game = start(core)
    do(game, "explore crimson")
    while game.decider == 0 and game.decision != "move":
        t = texts(game)
        if game.decision == "play dragon":
            do(game, next(x for x in t if x != "no"))
        else:
            do(game, {"guild spot": f"guild ability {COVER_ABILITY + 1}", "use ability": "yes"}.get(
                game.decision, t[0]))
    return game, covered, cover


def test_scenario_covered_dragon():
    game, covered, cover = _cover_scenario()
    P = game.to_dict()["core"]["players"][0]
    assert P["dragons"][0][0] == cover and P["tucked"][0][0] == 1
    check_state(game)


def test_determinize_never_deals_a_covered_dragon():
    game, covered, _ = _cover_scenario()
    for player in range(2):
        for s in range(5):
            core = game.determinize(player, s).to_dict()["core"]
            assert covered not in core["deck_dragons"]
            assert all(covered not in P["hand_dragons"] for P in core["players"])
