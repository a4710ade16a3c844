"""Replaying an engine game through the tracker: `table_game` plays a seeded game with the engine's
own chance and records what a viewer at the table would enter (each move in the notation, each card
they see come up, '?' for a card an opponent chose unseen); `replay` feeds those entries to a
TrackedGame that starts from the viewer's view only (everything hidden from them dealt again)."""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from advisor._core import Game, greedy_action
from advisor.notation import ENTICE, EXCAVATE, action_text, kind
from advisor.track.chance import KINDS, TOTAL, counted, drawn, visible, with_told
from advisor.track.game import (AUTOMA, HIDDEN, OUTCOME, Draw, TrackedGame, TrackError, card_of, gain,
                                reveals, seen_in)
from advisor.track.session import TrackSession


@dataclass
class Step:
    """One decision of the original game as the viewer enters it."""
    who: int
    decision: str | None
    text: str
    before: dict[str, Any] = field(repr=False)       # the full state before it
    seen: dict[str, set[int]] = field(repr=False)    # the cards the viewer sees after it, by kind
    shown: dict[Any, list[int]] = field(repr=False)  # cards that came out of hiding, by (kind, place)
    observation: dict[str, Any] = field(repr=False)  # the viewer's observation after it
    drawn: dict[str, list[int]] = field(repr=False)  # the cards it drew from each deck, in order
    gave: str = ""          # what it gave the seat as the viewer sees it (track.game.gain)
    card: bool = False      # it named a card (a discard's card, not a resource's)


def start(players: int, seed: int) -> Game:
    """A seeded game after setup (greedy choices), at the first turn."""
    g = Game.new(players, seed)
    n = 0
    while g.phase == "setup":
        g.apply(greedy_action(g, n))
        n += 1
    return g


def table_game(players: int, seed: int, viewer: int = 0, policy: str = "greedy") -> tuple[Game, Game, list[Step]]:
    """The game at its first turn, the game at its end and the steps between (greedy play, or
    `policy="random"`: any legal action, which reaches decisions greedy play avoids)."""
    g = start(players, seed)
    first = g.clone()
    steps = []
    chosen = []             # per step: the card an opponent chose that the viewer had not seen
    n = 0
    rng = random.Random(seed)
    while not g.is_terminal():
        a = greedy_action(g, seed * 1000 + n) if policy == "greedy" else rng.choice(g.legal_actions())
        n += 1
        who, decision = g.decider, g.decision
        before = g.to_dict()["core"]
        seen = g.observation(viewer)
        text = action_text(a, g.printing, g)
        cards = drawn_cards(g, a)
        g.apply(a)
        c = card_of(a)
        chosen.append(c if who != viewer and c and kind(a) not in (ENTICE, EXCAVATE)
                      and c[1] not in visible(before, viewer, c[0], g.printing) else None)
        shown: dict[Any, list[int]] = {}
        for r in reveals(before, g, viewer):
            shown.setdefault((r.kind, r.place[:-1]), []).append(r.index)
        steps.append(Step(who, decision, text, before, {k: seen_in(g, viewer, k) for k in KINDS}, shown,
                          g.observation(viewer), cards, gain(seen, g, who, viewer), c is not None))
    # a card chosen unseen that the viewer never sees later (tucked face down) is entered as '?'
    later: dict[str, set[int]] = {k: set() for k in KINDS}
    for step, c in zip(reversed(steps), reversed(chosen)):
        for k in KINDS:
            later[k] |= step.seen[k]
        if c is not None and c[1] not in later[c[0]]:
            step.text = HIDDEN
    return first, g, steps


def drawn_cards(g: Game, action: int) -> dict[str, list[int]]:
    """The cards `action` draws from each deck in `g`, in order. After a deck runs out and the
    discards are shuffled in, the card drawn is the one whose telling changes nothing."""
    state = counted(g.to_dict())
    start = state["segment_start"]

    def run(s: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        h = Game.from_dict({**state, "segment_start": s})
        before = h.to_dict()["core"]
        h.apply(action)
        return before, h.to_dict()["core"]

    before, after = run(start)
    plain = {k: v for k, v in after.items() if k != "told"}
    out: dict[str, list[int]] = {}
    for kind_ in KINDS:
        deck = start[f"deck_{kind_}"]
        out[kind_] = []
        for k in range(drawn(start, before, kind_), drawn(start, after, kind_)):
            if k < len(deck):
                out[kind_].append(deck[len(deck) - 1 - k])
                continue
            for c in range(1, TOTAL[kind_] + 1):
                _, now = run(with_told(start, kind_, k, c))
                if not now["told"]["missed"] and {x: v for x, v in now.items() if x != "told"} == plain:
                    out[kind_].append(c)
                    break
    return out


def table_answer(step: Step, d: Draw, pool: dict[str, list[int]] | None = None,
                 seen: dict[str, set[int]] | None = None) -> int | None:
    """The card the viewer names for a question of the tracker (None: they did not see it); for
    what an opponent's hidden choice gave, the number of the outcome the table saw."""
    if d.kind == OUTCOME:
        return 1 + d.place[2:].index(step.gave)
    if d.kind == AUTOMA:
        return int(step.before["automa"]["deck"][d.index])
    if d.place[0] in ("hand", "out"):
        return step.shown[(d.kind, d.place[:-1])].pop(0)
    drawn = (pool or step.drawn)[d.kind]
    if d.nth >= len(drawn):
        raise TrackError(f"the tracker draws more {d.kind} in this move than the table did")
    card = drawn[d.nth]
    return card if card in (seen or step.seen)[d.kind] else None


def _at(who: int, decision: str | None, core: dict[str, Any]) -> tuple[Any, ...]:
    """Where a game stands: whose decision of what kind, in which round and turn."""
    return who, decision, core["round"], core["turns"]


def _at_step(step: Step | None) -> tuple[Any, ...] | None:
    return _at(step.who, step.decision, step.before) if step else None


def _ahead(g: Game, following: Step | None) -> bool:
    """The table's next step is further on than the tracked game: at another decision, or at a
    discard of resources where the tracked game still discards cards (the table's engine took the
    rest of the cards for them: one was left that could follow the last)."""
    if _at(g.decider, g.decision, g.to_dict()["core"]) != _at_step(following):
        return True
    return (g.decision == "discard" and following is not None and not following.card
            and any(card_of(a) for a in g.legal_actions()))


def _enters(ts: TrackSession, text: str) -> bool:
    """Whether the session takes `text` as its next entry (tried on a copy)."""
    try:
        ts.begin_entry(text)
    except TrackError:
        return False
    return True


def entries(ts: TrackSession, steps: list[Step]) -> Iterator[tuple[Step | None, str]]:
    """The lines the viewer types, step by step, played on the session as they go: a move, then an
    answer per question ('?' for a card not seen). Yields (step, line); the step once its last line
    is played (None before; of the table's steps an entry took in, the last). Where the engine's stand-in cards give an opponent other decisions than
    the table's, the viewer enters what they saw: 'no' to an option the opponent did not have, each
    further card of a discard the engine made for them at the table, and a card the tracker asks
    about before the table's opponent chose it."""
    skip: set[int] = set()
    merged: list[Step] = []     # table steps an entry took in with the step it was made for
    used: dict[int, dict[str, int]] = {}    # each step's draws taken by its earlier entries

    def play(text: str, step: Step, i: int) -> list[str]:
        entry = ts.begin_entry(text)
        tg, prep = entry.tracked, entry.prepared
        lines = [text]
        taken = used.setdefault(i, dict.fromkeys(KINDS, 0))
        # the table's draws this entry stands for (a step played as several entries: its draws go on),
        # then those of the seat's next steps: the stand-ins may have skipped a decision of theirs
        # that came before the move's last draws (a free dragon play before the round's end)
        pool = {k: list(step.drawn[k][taken[k]:]) for k in KINDS}
        seen = {k: set(step.seen[k]) for k in KINDS}
        for j in range(i + 1, len(steps)):
            if steps[j].who != step.who or step.who == ts.viewer:
                break
            for k in KINDS:
                pool[k] += steps[j].drawn[k]
                seen[k] |= steps[j].seen[k]
        while (d := tg.question(prep)) is not None:
            if d.place[0] == "hand" and not step.shown.get((d.kind, d.place[:-1])):
                # the engine made the table's next choice of a card for them (the rest of a
                # discard): the card of that decision, whose draws come with it
                later = [j for j in range(i + 1, len(steps)) if j not in skip
                         and (steps[j].who, steps[j].decision) == (step.who, step.decision)]
                if not later:
                    raise TrackError(f"P{step.who} showed no further {d.kind} at the table")
                j = later[0]
                skip.add(j)
                merged.append(steps[j])
                card: int | None = next(c for k, c in tg._named_cards(steps[j].text) if k == d.kind)
                for k in KINDS:
                    pool[k] += steps[j].drawn[k]
            else:
                if d.place[0] == "hand":        # cards named this turn are known: not asked for
                    known = tg._named(prep)
                    step.shown[(d.kind, d.place[:-1])].sort(key=lambda c: (d.kind, c) in known)
                card = table_answer(step, d, pool, seen)
            lines.append("?" if card is None else str(card) if d.kind == OUTCOME else tg.card_name(d.kind, card))
            tg.answer(prep, d, card)
        _, before, after = tg._run(prep)
        start = counted(prep.state)["segment_start"]
        for k in KINDS:
            taken[k] += drawn(start, after, k) - drawn(start, before, k)
        ts.finish_entry(entry, lines)
        return lines

    for i, step in enumerate(steps):
        if i in skip:
            continue
        g = ts.tracked.game
        lines = play(step.text, step, i)
        # the table's opponent declined a choice the stand-ins did not give them: nothing to enter
        for j in range(i + 1, len(steps)):
            if j in skip:
                continue
            if not (steps[j].who == step.who != ts.viewer and steps[j].text == "no" and not _enters(ts, "no")):
                break
            skip.add(j)
            merged.append(steps[j])
        # the table's next step that no entry took in (a card of a discard the engine made at once)
        following = next((steps[j] for j in range(i + 1, len(steps)) if j not in skip), None)
        while (g := ts.tracked.game).decider == step.who != ts.viewer and not g.is_terminal() and _ahead(g, following):
            # the table's opponent had no choice here (the engine played it for them): they said
            # no to an option, or passed
            if following is not None and following.who == step.who and _enters(ts, following.text):
                break       # the tracker's stand-ins skipped a choice the table's opponent made
            said = sorted({action_text(a, g.printing, g) for a in g.legal_actions()} & {"no", "pass"})
            if said:
                for line in lines:
                    yield None, line
                lines = play(said[0], step, i)
                continue
            if (g.decider, g.decision) != (step.who, step.decision):
                break
            # the table's opponent discarded the rest at once (the engine left them no choice)
            now = ts.tracked.game.to_dict()
            named = {card_of(a) for a in now["log"]}
            # the cards that left their hand at the table (the discards may have been shuffled into
            # the deck since): not the display's
            held = step.before["players"][step.who]
            kept = following.before["players"][step.who] if following is not None else None
            left = [(k, c) for k in KINDS for c in held[f"hand_{k}"]
                    if (c not in kept[f"hand_{k}"] if kept else c in step.observation[f"discard_{k}"])
                    and c not in now["core"][f"discard_{k}"] and (k, c) not in named]
            for k, c in left:
                text = ts.tracked.card_name(k, c)
                try:
                    more = play(text, step, i)
                except TrackError:
                    continue
                for line in lines:
                    yield None, line
                lines = more
                break
            else:
                break
        # other opponents the engine passed for at the table (they had nothing else to do), where
        # the stand-ins give them a move; once the table's round is over its flags are cleared
        while (g := ts.tracked.game).decider != ts.viewer and not g.is_terminal() and (
                (step.observation["players"][g.decider]["passed"] or step.observation["phase"] == "over"
                 or step.observation["round"] > g.observation(ts.viewer)["round"])
                and not g.observation(ts.viewer)["players"][g.decider]["passed"]
                and any(action_text(a, g.printing, g) == "pass" for a in g.legal_actions())):
            for line in lines:
                yield None, line
            lines = play("pass", step, i)
        done = merged[-1] if merged else step       # the view after it is the view after the last taken in
        merged.clear()
        for n, line in enumerate(lines):
            yield (done if n == len(lines) - 1 else None), line


def replay(players: int, seed: int, viewer: int = 0, check: Callable[[Step, TrackedGame], None] | None = None,
           begin: Callable[[Game], Game] | None = None, policy: str = "greedy") -> tuple[TrackedGame, Game, list[str]]:
    """Replay a seeded game through a tracking session started from the viewer's view at the first
    turn (`begin(first)`: the game it starts from; default the first turn with every card the viewer
    cannot see dealt again); `check` runs after every step. Returns the tracked game at the end, the
    original at its end and the lines typed."""
    first, end, steps = table_game(players, seed, viewer, policy)
    start_game = begin(first) if begin else first.determinize(viewer, seed + 1)
    ts = TrackSession.begin(start_game, viewer, [f"P{q}" for q in range(players)])
    lines = []
    after = []          # each step with the index of the tracked game after it in the history
    for step, line in entries(ts, steps):
        lines.append(line)
        if step is not None:
            after.append((step, len(ts.history) - 1))
    if check is not None:   # at the end: a later entry may have played earlier ones on another deal
        for step, n in after:
            check(step, ts.history[n])
    return ts.tracked, end, lines
