"""What the page shows, as plain data: the question the table answers next, its options grouped by
kind and in the player's words, and the table as the viewer sees it (`Game.observation`): the
display, objectives, guild tile, every seat's mat and the viewer's hand, with each card's name and
abilities. The browser only draws it."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from advisor import notation as N
from advisor._core import CHANCE, Game, named_card
from advisor.cards import describe_card, guild_ability_text, load_database, mat_benefit_text
from advisor.cards.database import Database
from advisor.cards.describe import count as count_text
from advisor.table import Question, Table
from advisor.wording import asker_words, by_a_card, decision_words, point_words

CAVES = ("crimson", "golden", "amethyst")
RESOURCES = ("meat", "gold", "crystal", "milk")

# the groups a decision's options are shown in, by the kind of action
GROUPS = {
    N.PASS: "pass", N.ENTICE: "entice a dragon", N.EXCAVATE: "excavate a cave", N.EXPLORE: "explore a cave",
    N.PAY: "pay", N.EGG: "eggs", N.RES: "resources", N.DRAGON_SRC: "dragon cards", N.CAVE_SRC: "cave cards",
    N.PLACE: "where", N.DRAGON: "dragon cards", N.CAVE: "cave cards", N.YES: "yes or no", N.NO: "yes or no",
    N.OPTION: "options", N.SPOT: "guild", N.SETUP_RES: "resources", N.ROW: "caves", N.MAT_BENEFIT: "mat benefits",
    N.WAIVE: "waive", N.EXCHANGE: "exchange", N.DRAW_DRAGON: "dragon cards", N.DRAW_CAVE: "cave cards",
    N.CHANCE: "outcomes",
}


def card_info(db: Database, kind: str, number: int) -> dict[str, Any]:
    """A card as the page shows it: name, and for a dragon its points, size, cost and caves."""
    if kind == "dragon":
        d = db.dragons[number - 1]
        cost = ", ".join(f"{n} {k}" for k, n in d.cost.items() if n) or "free"
        return {"kind": "dragon", "number": number, "name": d.name, "vp": d.vp, "size": d.size,
                "capacity": d.capacity, "personality": d.personality, "cost": cost, "caves": list(d.caves),
                "text": describe_card(d)}
    c = db.caves[number - 1]
    return {"kind": "cave", "number": number, "name": f"cave {number}", "text": describe_card(c)}


def objective_words(db: Database, tile: int, side: int) -> str:
    s = db.objectives[tile].a if side == 0 else db.objectives[tile].b
    return f"most {count_text(s.count)}"


def option_words(game: Game, action: int, text: str) -> str:
    """An option in what the player reads on the card: a cave card with its ability (tiles and
    dragons are named by the table's words already)."""
    db = load_database(game.printing)
    card = named_card(action)
    if card is not None and card[0] == "cave" and 1 <= card[1] <= len(db.caves):
        return f"{text}: {describe_card(db.caves[card[1] - 1])}"
    return text


def asker_view(game: Game, viewer: int, names: Sequence[str]) -> dict[str, Any] | None:
    """The card or rule that asks the decision now (advisor.table.asker_words) and what it does,
    for the page to show under the question; None where the rules ask."""
    words = asker_words(game, viewer, names)
    by = game.asked_by
    if words is None or by is None or len(by) == 1:
        return None
    db = load_database(game.printing)
    kind, x = by[0], by[1]
    text: str | None = None
    if kind in ("dragon", "cave"):
        text = card_info(db, str(kind), x)["text"]
    elif kind == "cost":
        text = f"costs {card_info(db, 'dragon', x)['cost']}"
    elif kind == "mat" and len(by) == 3:
        text = mat_benefit_text(game.printing, x, int(by[2]))
    elif kind == "guild tile":
        text = guild_ability_text(game.printing, game.observation(viewer)["guild_tile"], x)
    return {"words": words, "text": text}


def about_words(table: Table, q: Question, names: Sequence[str]) -> str:
    """What the question is for, another seat named by its name."""
    if q.seat is not None and q.seat != table.viewer:
        return q.about.replace(f"P{q.seat}:", f"{names[q.seat]}:", 1)
    return q.about


UNSEEN_GROUP = "cards you have not seen"
HIDDEN_GROUP = "face down"


def unseen_options(table: Table, q: Question) -> list[int]:
    """The entries beyond the options that the table may show: another seat's card the viewer
    cannot place (the stand-ins bind anew to it: `Table.could_be`). A dragon goes only into a cave
    it may live in."""
    if not q.unseen or q.hidden:
        return []
    db = load_database(table.game.printing)
    seen = {a for a, _ in q.options}
    return [a for a in table.could_be() if a not in seen and not (
        N.kind(a) == N.ENTICE and CAVES[N.arg(a) & 3] not in db.dragons[(N.arg(a) >> 2) - 1].caves)]


def question_view(table: Table, q: Question | None, names: Sequence[str]) -> dict[str, Any] | None:
    """The question with its options grouped by kind (groups in the order they first come), then
    the cards the viewer has not seen that the entry may name."""
    if q is None:
        return None
    g = table.game
    groups: dict[str, list[dict[str, Any]]] = {}
    about = about_words(table, q, names)
    options = list(q.options)
    if q.count > 1 and g.chance_event is not None:
        # the page enters the cards one at a time, in the order the table lays them out
        now = (g.chance_event.event, g.chance_event.who)
        about = f"{about} (now: {point_words(g, table.viewer, now, names)})"
        legal = set(g.legal_actions())
        kind_now = now[0].split()[-1]
        options = [(a, t) for a, t in options if a in legal or (named_card(a) or ("", 0))[0] == kind_now]
    for action, text in options:
        if q.hidden and named_card(action) is not None:     # by what followed it (advisor.table)
            groups.setdefault(HIDDEN_GROUP, []).append({"action": action, "text": text})
            continue
        groups.setdefault(GROUPS.get(N.kind(action), "other"), []).append(
            {"action": action, "text": option_words(g, action, text)})
    for action in unseen_options(table, q):
        groups.setdefault(UNSEEN_GROUP, []).append({"action": action, "text": option_words(g, action, table.text(action))})
    count = sum(len(v) for v in groups.values())
    shown = [{"kind": k, "options": v, "search_only": k == UNSEEN_GROUP and q.seat is not None}
             for k, v in groups.items()]
    return {"seat": q.seat, "name": None if q.seat is None else names[q.seat], "you": q.seat == table.viewer,
            "about": about, "forced": q.forced, "chance": g.decider == CHANCE,
            "asker": asker_view(g, table.viewer, names) if g.decider != CHANCE or by_a_card(g) else None,
            "groups": shown,
            "count": count, "history": len(g.history)}


def _space(db: Database, P: Mapping[str, Any], c: int, k: int) -> dict[str, Any]:
    d, cave = P["dragons"][c][k], P["caves"][c][k]
    out: dict[str, Any] = {"open": k == 0 or bool(cave)}
    if cave:
        out["cave"] = card_info(db, "cave", cave)
    if d:
        out.update(dragon=card_info(db, "dragon", d), eggs=P["eggs"][c][k], tucked=P["tucked"][c][k],
                   grown=bool(P["grown"][c][k]),
                   cached={r: n for r, n in zip(RESOURCES, P["cached"][c][k], strict=True) if n})
    return out


def _seat(db: Database, obs: Mapping[str, Any], p: int, viewer: int, names: Sequence[str],
          scores: Sequence[int]) -> dict[str, Any]:
    P = obs["players"][p]
    hand = [card_info(db, "dragon", d) for d in P["hand_dragons"]] + [card_info(db, "cave", c) for c in P["hand_caves"]]
    return {"seat": p, "name": names[p], "you": p == viewer, "passed": bool(P["passed"]), "score": scores[p],
            "coins": P["coins"], "resources": dict(zip(RESOURCES, P["resources"], strict=True)), "nest_eggs": P["nest_eggs"],
            "guild_steps": P["guild_steps"], "markers_left": P["markers_left"],
            "objective_vp": P["objective_vp"][:obs["n_scored"]],
            "hand_dragons": P["n_hand_dragons"], "hand_caves": P["n_hand_caves"],
            "hand": hand,           # the viewer's whole hand; another seat's cards known to all
            "mat": [{"cave": CAVES[c], "explores": P["explores"][c], "spaces": [_space(db, P, c, k) for k in range(4)]}
                    for c in range(3)]}


def _automa(db: Database, obs: Mapping[str, Any], names: Sequence[str], scores: Sequence[int]) -> dict[str, Any]:
    A, P = obs["automa"], obs["players"][1]
    corners = [db.automa_cards[k].corner for k in A["deck"][:A["next"]]]
    return {"seat": 1, "name": names[1], "automa": True, "level": A["level"], "passed": bool(P["passed"]),
            "score": scores[1], "dragons": A["dragons"], "caves": A["caves"], "guild_steps": P["guild_steps"],
            "markers": A["markers"], "cards": f"{A['next']}/{A['playable']}", "corners": corners,
            "objective_coins": A["objective_coins"][:obs["round"] + 1],
            "objective_vp": P["objective_vp"][:obs["n_scored"]]}


def play_question(game: Game, human: int, names: Sequence[str]) -> dict[str, Any] | None:
    """The human's decision in a game against the AI (None while another seat decides)."""
    if game.is_terminal() or game.decider != human:
        return None
    groups: dict[str, list[dict[str, Any]]] = {}
    legal = game.legal_actions()
    for action in legal:
        groups.setdefault(GROUPS.get(N.kind(action), "other"), []).append(
            {"action": action, "text": N.action_text(action, game.printing, game)})
    return {"seat": human, "name": names[human], "you": True, "about": f"you: {decision_words(game, human, names)}",
            "asker": asker_view(game, human, names),
            "forced": len(legal) == 1, "chance": False,
            "groups": [{"kind": k, "options": v, "search_only": False} for k, v in groups.items()],
            "count": len(legal), "history": len(game.history)}


def table_view(g: Game, viewer: int, names: Sequence[str]) -> dict[str, Any]:
    """The table from the viewer's seat: what `advisor play` draws, as data."""
    obs = g.observation(viewer)
    db = load_database(g.printing)
    scores = g.scores()
    tile = obs["guild_tile"]
    # the deal tells the guild tile, then the objectives one by one: none is shown before it is
    ev = g.chance_event
    dealt = {"guild tile": 0, "objective": ev.who + 1}.get(ev.event, 5) if ev is not None and obs["phase"] == "deal" else 5
    if dealt == 0:
        tile = -1
    objectives = []
    for r, (t, s) in enumerate(zip(obs["objective_tiles"], obs["objective_sides"], strict=True)):
        if t < 0 or t >= len(db.objectives) or r + 2 > dealt:
            continue
        objectives.append({"round": r + 1, "code": f"{t + 1}{'ab'[s]}", "text": objective_words(db, t, s),
                           "vp": list(db.objective_vp[r]), "now": r == obs["round"] and obs["phase"] != "over",
                           "scored": [list(P["objective_vp"])[r] if r < obs["n_scored"] else None
                                      for P in obs["players"]]})
    guild = None
    if 0 <= tile < len(db.guild_tiles):
        guild = {"name": db.guild_tiles[tile].name, "fixed_count": obs.get("fixed_count", 0), "abilities": [
            {"text": guild_ability_text(g.printing, tile, a) or "", "uses": ab.uses,
             "markers": [names[s - 1] for s in obs["guild_spots"][a] if s]}
            for a, ab in enumerate(db.guild_tiles[tile].abilities)]}
    seats = []
    for p in range(len(obs["players"])):
        if obs.get("automa") and p == 1:
            seats.append(_automa(db, obs, names, scores))
        else:
            seats.append(_seat(db, obs, p, viewer, names, scores))
    phase = obs["phase"]
    return {"round": min(obs["round"] + 1, 4), "phase": phase, "over": g.is_terminal(),
            "active": obs["active"], "start_player": obs["start_player"], "viewer": viewer,
            "display": {"dragons": [card_info(db, "dragon", d) if d else None for d in obs["display_dragons"]],
                        "caves": [card_info(db, "cave", c) if c else None for c in obs["display_caves"]]},
            "deck": {"dragons": obs["n_deck_dragons"], "caves": obs["n_deck_caves"]},
            "objectives": objectives, "guild": guild, "seats": seats, "scores": scores}
