"""Building prepared game states for rule and card tests.

A state is the `core` dict of `Game.to_dict()`. `blank()` gives a game at the start of a turn with
empty mats and hands; `give()` and `put()` move named cards there from wherever they are, so every
card stays in exactly one place; `start()` makes the Game (it plays on to the first decision)."""
from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

from advisor._core import Game
from advisor.cards import load_database
from advisor.notation import action_text, parse_action

CAVES = ("crimson", "golden", "amethyst")
RES = ("meat", "gold", "crystal", "milk")
DB = load_database("base")


def dragon_no(name_or_number) -> int:
    if isinstance(name_or_number, int):
        return name_or_number
    return DB.lookup(name_or_number, "dragon").number


def blank(players: int = 2, seed: int = 0, active: int = 0, round_: int = 1) -> dict:
    """A turn of `active` in `round_` with every mat, hand and supply empty (4 guild markers each)."""
    core = Game.new(players, seed).to_dict()["segment_start"]
    for p in core["players"]:
        for c in range(3):
            for k in range(4):
                p["dragons"][c][k] = p["caves"][c][k] = p["eggs"][c][k] = 0
                p["tucked"][c][k] = p["grown"][c][k] = 0
                p["cached"][c][k] = [0, 0, 0, 0]
        core["deck_dragons"] += p["hand_dragons"]
        core["deck_caves"] += p["hand_caves"]
        p.update(hand_dragons=[], hand_caves=[], known_dragons=[], known_caves=[], seen_dragons=[],
                 coins=0, resources=[0, 0, 0, 0], nest_eggs=0, explores=[0, 0, 0], passed=0)
    core.update(phase="turn", active=active, start_player=active, round=round_ - 1, phase_count=0,
                phase_player=active)
    return core


def _take(core: dict, kind: str, card: int) -> None:
    """Remove a card from the deck, display or discard pile (wherever it is)."""
    for key in (f"deck_{kind}", f"discard_{kind}"):
        if card in core[key]:
            core[key].remove(card)
            return
    disp = core[f"display_{kind}"]
    if card in disp:
        disp[disp.index(card)] = core[f"deck_{kind}"].pop()
        return
    raise AssertionError(f"{kind[:-1]} {card} is not in a deck, display or discard pile")


def give(core: dict, p: int, dragons=(), caves=(), coins=None, res=None, nest_eggs=None) -> dict:
    P = core["players"][p]
    for d in dragons:
        d = dragon_no(d)
        _take(core, "dragons", d)
        P["hand_dragons"] = sorted(P["hand_dragons"] + [d])
    for k in caves:
        _take(core, "caves", k)
        P["hand_caves"] = sorted(P["hand_caves"] + [k])
    if coins is not None:
        P["coins"] = coins
    if res is not None:
        P["resources"] = list(res)
    if nest_eggs is not None:
        P["nest_eggs"] = nest_eggs
    return core


def put(core: dict, p: int, cave: str | int, col: int, dragon=None, cave_card=None, eggs=0,
        tucked=0, cached=(0, 0, 0, 0)) -> dict:
    """Put a dragon (and/or a cave card) on a space; col is 1-based as in the notation."""
    c = CAVES.index(cave) if isinstance(cave, str) else cave
    k = col - 1
    P = core["players"][p]
    if cave_card is not None:
        _take(core, "caves", cave_card)
        P["caves"][c][k] = cave_card
    if dragon is not None:
        d = dragon_no(dragon)
        _take(core, "dragons", d)
        P["dragons"][c][k] = d
        P["eggs"][c][k] = eggs
        P["tucked"][c][k] = tucked
        P["cached"][c][k] = list(cached)
    return core


def excavate_all(core: dict, p: int) -> dict:
    """Fill every cave-card space of a mat with some cave card from the deck."""
    P = core["players"][p]
    for c in range(3):
        for k in range(1, 4):
            if not P["caves"][c][k]:
                P["caves"][c][k] = core["deck_caves"].pop()
    return core


def start(core: dict) -> Game:
    return Game.from_dict({"core": copy.deepcopy(core)})


def texts(game: Game) -> list[str]:
    return [action_text(a, game.printing, game) for a in game.legal_actions()]


def heads(game: Game) -> list[str]:
    """The legal actions' names without their descriptions ("guild ability 2", not "guild ability
    2: gain 1 coin; ...")."""
    return [t.split(": ")[0] for t in texts(game)]


def do(game: Game, *moves: str) -> Game:
    """Apply actions given in notation."""
    for m in moves:
        game.apply(parse_action(game, m))
    return game


def player(game: Game, p: int) -> dict:
    return game.to_dict()["core"]["players"][p]


def _rewritten_results(src, dst, rewrite):
    """A copy of results file `src` at `dst` with each record passed through `rewrite`; returns `dst`."""
    recs = [json.loads(x) for x in Path(src).read_text().splitlines() if x.strip()]
    dst.write_text("".join(json.dumps(rewrite(r)) + "\n" for r in recs))
    return dst


def results_with_settings(src, dst, change):
    """A copy of results file `src` whose seats' settings went through `change` (a run of the same
    command before or after a default changed); returns `dst`."""
    return _rewritten_results(src, dst, lambda r: dict(
        r, seats=[dict(s, settings=change(s["settings"])) for s in r["seats"]]))


def results_before_play_version(src, dst):
    """A copy of results file `src` as written before records carried their play version (1)."""
    return _rewritten_results(src, dst, lambda r: {k: v for k, v in r.items() if k != "play"})


def results_of_play_version(src, dst, version):
    """A copy of results file `src` whose records say they were played by play version `version`
    (a string: an experimental build's, as bench/results/ holds: "5 with coins (0.8, 0.0), ...")."""
    return _rewritten_results(src, dst, lambda r: dict(r, play=version))


def end_game_pays(number: int) -> bool:
    """Whether a dragon's end-game ability pays or gains at the end (a choice then), which the
    heuristic's end_game_vp_now counts as nothing."""
    a = DB.dragon(number).ability("end_game")
    return a is not None and any(op in a.text for op in ("pay(", "gain(", "choice"))


def swap_hidden(g: Game) -> Game:
    """`g` with other hidden cards than it has, the decider's view the same: one unknown card of the
    other seat's hand swapped with the dragon deck's top card, and the rest of that deck reversed."""
    me = g.decider
    state = g.to_dict()
    core = state["segment_start"]
    other = 1 - me
    opp = core["players"][other]
    unknown = [d for d in opp["hand_dragons"] if d not in opp["known_dragons"]]
    assert unknown, "the test needs an unknown card in the opponent's hand"
    deck = list(core["deck_dragons"])
    top = deck[-1]
    new_opp = dict(opp, hand_dragons=sorted(top if d == unknown[0] else d for d in opp["hand_dragons"]))
    deck[-1] = unknown[0]
    deck[:-1] = deck[:-1][::-1]
    players = list(core["players"])
    players[other] = new_opp
    new_core = dict(core, deck_dragons=deck, players=players)
    return Game.from_dict(dict(state, segment_start=new_core, core=new_core))


def bench_module(name: str):
    """A script of bench/ imported as a module (its functions, for tests)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent.parent / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def greedy_midgame(players: int, seed: int, moves: int = 30):
    """A game `moves` decisions in, played by a greedy agent (solo: against Automa level 3)."""
    from advisor.search.agents import make_agent
    g = Game.new(players, seed, automa="3")
    greedy = make_agent("greedy", seed)
    for _ in range(moves):
        g.apply(greedy.choose(g))
    return g
