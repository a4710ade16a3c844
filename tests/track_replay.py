"""Replaying an engine game through the tracker: `table_game` plays a seeded game with the engine's
own chance and records what a viewer at the table would enter (each move in the notation, each card
they see come up, '?' for a card an opponent chose unseen); `replay` feeds those entries to a
TrackedGame that starts from the viewer's view only (everything hidden from them dealt again)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from advisor._core import Game, greedy_action
from advisor.notation import ENTICE, EXCAVATE, action_text, kind
from advisor.track.chance import KINDS, visible
from advisor.track.game import AUTOMA, HIDDEN, Draw, TrackedGame, TrackError, card_of, reveals, seen_in


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


def start(players: int, seed: int) -> Game:
    """A seeded game after setup (greedy choices), at the first turn."""
    g = Game.new(players, seed)
    n = 0
    while g.phase == "setup":
        g.apply(greedy_action(g, n))
        n += 1
    return g


def table_game(players: int, seed: int, viewer: int = 0) -> tuple[Game, Game, list[Step]]:
    """The game at its first turn, the game at its end and the steps between (greedy play)."""
    g = start(players, seed)
    first = g.clone()
    steps = []
    chosen = []             # per step: the card an opponent chose that the viewer had not seen
    n = 0
    while not g.is_terminal():
        a = greedy_action(g, seed * 1000 + n)
        n += 1
        who, decision = g.decider, g.decision
        before = g.to_dict()["core"]
        text = action_text(a, g.printing, g)
        g.apply(a)
        c = card_of(a)
        chosen.append(c if who != viewer and c and kind(a) not in (ENTICE, EXCAVATE)
                      and c[1] not in visible(before, viewer, c[0], g.printing) else None)
        shown: dict[Any, list[int]] = {}
        for r in reveals(before, g, viewer):
            shown.setdefault((r.kind, r.place[:-1]), []).append(r.index)
        steps.append(Step(who, decision, text, before, {k: seen_in(g, viewer, k) for k in KINDS}, shown,
                          g.observation(viewer)))
    # a card chosen unseen that the viewer never sees later (tucked face down) is entered as '?'
    later: dict[str, set[int]] = {k: set() for k in KINDS}
    for step, c in zip(reversed(steps), reversed(chosen)):
        for k in KINDS:
            later[k] |= step.seen[k]
        if c is not None and c[1] not in later[c[0]]:
            step.text = HIDDEN
    return first, g, steps


def table_answer(step: Step, d: Draw) -> int | None:
    """The card the viewer names for a question of the tracker (None: they did not see it)."""
    if d.kind == AUTOMA:
        return int(step.before["automa"]["deck"][d.index])
    if d.place[0] in ("hand", "out"):
        return step.shown[(d.kind, d.place[:-1])].pop(0)
    card = int(step.before[f"deck_{d.kind}"][d.index])
    return card if card in step.seen[d.kind] else None


def comparable(obs: dict[str, Any]) -> dict[str, Any]:
    """An observation with the viewer's legal moves as a set (their order follows hidden cards)."""
    return {**obs, "legal_actions": sorted(obs["legal_actions"])}


def entries(tg: TrackedGame, steps: list[Step]) -> Iterator[tuple[Step | None, str]]:
    """The lines the viewer types, step by step, played on `tg` as they go: a move, then an answer
    per question ('?' for a card not seen). Yields (step, line); the step once its last line is
    played (None before). Where the engine's stand-in cards give an opponent other decisions than
    the table's, the viewer enters what they saw: 'no' to an option the opponent did not have, each
    further card of a discard the engine made for them at the table, and a card the tracker asks
    about before the table's opponent chose it."""
    skip: set[int] = set()
    for i, step in enumerate(steps):
        if i in skip:
            continue
        g = tg.game
        if (g.decider, g.decision) != (step.who, step.decision) and g.decider != tg.viewer:
            if any(action_text(a, g.printing, g) == "no" for a in g.legal_actions()):
                tg.commit(tg.prepare("no"))
                yield None, "no"
        prep = tg.prepare(step.text)
        lines = [step.text]
        while (d := tg.question(prep)) is not None:
            if d.place[0] == "hand" and not step.shown.get((d.kind, d.place[:-1])):
                j = next(j for j in range(i + 1, len(steps)) if j not in skip
                         and (steps[j].who, steps[j].decision) == (step.who, step.decision))
                skip.add(j)
                card: int | None = tg._named_cards(steps[j].text)[0][1]
            else:
                if d.place[0] == "hand":        # cards named this turn are known: not asked for
                    known = tg._named(prep)
                    step.shown[(d.kind, d.place[:-1])].sort(key=lambda c: (d.kind, c) in known)
                card = table_answer(step, d)
            lines.append("?" if card is None else tg.card_name(d.kind, card))
            tg.answer(prep, d, card)
        tg.commit(prep)
        following = steps[i + 1] if i + 1 < len(steps) else None
        while (tg.game.decider, tg.game.decision) == (step.who, step.decision) != (
                (following.who, following.decision) if following else None) and step.who != tg.viewer:
            # the table's opponent discarded the rest at once (the engine left them no choice)
            now = tg.game.to_dict()
            named = {card_of(a) for a in now["log"]}
            left = [(k, c) for k in KINDS for c in step.observation[f"discard_{k}"]
                    if c not in now["core"][f"discard_{k}"] and (k, c) not in named]
            for k, c in left:
                try:
                    extra = tg.prepare(tg.card_name(k, c))
                except TrackError:
                    continue
                for line in lines:
                    yield None, line
                lines = [tg.card_name(k, c)]
                while (d := tg.question(extra)) is not None:
                    card = table_answer(step, d)
                    lines.append("?" if card is None else tg.card_name(d.kind, card))
                    tg.answer(extra, d, card)
                tg.commit(extra)
                break
            else:
                break
        for n, line in enumerate(lines):
            yield (step if n == len(lines) - 1 else None), line


def replay(players: int, seed: int, viewer: int = 0, check: Callable[[Step, TrackedGame], None] | None = None,
           begin: Callable[[Game], Game] | None = None) -> tuple[TrackedGame, Game, list[str]]:
    """Replay a seeded game through a TrackedGame started from the viewer's view at the first turn
    (`begin(first)`: the game it starts from; default the first turn with every card the viewer
    cannot see dealt again); `check` runs after every step. Returns the tracker, the original at its
    end and the lines typed."""
    first, end, steps = table_game(players, seed, viewer)
    tg = TrackedGame(begin(first) if begin else first.determinize(viewer, seed + 1), viewer)
    lines = []
    for step, line in entries(tg, steps):
        lines.append(line)
        if step is not None and check is not None:
            check(step, tg)
    return tg, end, lines
