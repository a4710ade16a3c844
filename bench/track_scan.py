"""How many real games `advisor track` follows to the end, typed as a player would: each game is
played with chance told (bench/table_scan.py's real games, random or greedy), and every question the
tracker asks its viewer is answered by a typed line (the notation of the real answer; several cards
in one line, comma-separated; '?' for a card tucked face down), read by advisor/track/entry.py. A
game is followed when the viewer's view equals the real one at every question and it ends as the
real one did.

    python bench/track_scan.py --seeds 0-140 --players 1-5 --policy greedy
"""
from __future__ import annotations

import sys
from collections.abc import Collection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from table_scan import main, point, real_game  # noqa: E402

from advisor._core import CHANCE, Game  # noqa: E402
from advisor.errors import AdvisorError  # noqa: E402
from advisor.table import Table, _face_down, _settle as settle, a_card, asks, shown_after  # noqa: E402
from advisor.track.entry import read_entry  # noqa: E402


def follow(players: int, seed: int, viewer: int, policy: str, typed: list[str] | None = None,
           until: int | None = None, unseen: Collection[int] = ()) -> str | None:
    """None if the tracker follows the game (to the real game's step `until`, if given); else what
    went wrong. `typed` gets the lines typed. At the real game's steps `unseen`, a card chosen face
    down is answered `?`, as by a player who enters what followed it where the table asks next."""
    real = real_game(players, seed, policy)
    table = Table(players, viewer, seed=seed)
    replay = Game.new(players, seed, chance="told")
    history = real.history
    i = 0
    lines = 0
    while i < len(history):
        if until is not None and i >= until:
            return None
        if not asks(replay, viewer) and not _asked_here(table, replay):
            replay.apply(history[i])
            i += 1
            continue
        if point(replay) == point(table.game) and replay.observation(viewer) != table.game.observation(viewer):
            return f"step {i}: the views differ"
        q = table.question()
        if q is None:
            return f"step {i}: the tracker thinks the game is over"
        texts: list[str] = []
        if q.count > 1:
            # the group's outcomes, as the real game brings them, typed in the order the prompt lists them
            filled: list[str | None] = [None] * q.count
            while None in filled and i < len(history):
                if asks(replay, viewer):
                    ev = replay.chance_event
                    at = (ev.event, ev.who) if ev is not None else None
                    js = [j for j, p in enumerate(q.points) if p == at and filled[j] is None]
                    if not js:
                        return f"step {i}: the question '{q.about}' asks other points than the game's"
                    filled[js[0]] = _typed(table.text(history[i], replay))
                replay.apply(history[i])
                i += 1
            texts = [t or "" for t in filled]
            line = ", ".join(texts)
        else:
            a = history[i]
            # a card face down: which is not seen, what follows it is (the option that shows it)
            if q.hidden and a_card(a):
                line = "?" if i in unseen else _outcome(table, q, replay, history, i, viewer)
            else:
                line = table.text(a, replay)
            replay.apply(a)
            i += 1
        lines += 1
        if typed is not None:
            typed.append(line)
        try:
            table.answer(read_entry(table, q, line))      # as the tracker does: who did it is not typed
        except AdvisorError as e:
            return f"step {i}: '{line}' at '{q.about}': {e}"
    if not table.game.is_terminal() or table.game.scores() != real.scores():
        return "the followed game did not end as the real one"
    return None


def _asked_here(table: Table, replay: Game) -> bool:
    """Whether the table asks, of another seat, a decision the real game gave them with one answer
    (a resource the card they tucked unseen gives), at the same point of the game as the viewer sees
    it: the player answers it with what they saw."""
    g = table.game
    return (not replay.is_terminal() and replay.decider not in (CHANCE, table.viewer) and asks(g, table.viewer)
            and (g.decider, g.decision, g.asked_by) == (replay.decider, replay.decision, replay.asked_by)
            and not _face_down(g, table.viewer) and g.observation(table.viewer) == replay.observation(table.viewer))


def _outcome(table: Table, q, replay: Game, history: list[int], i: int, viewer: int) -> str:
    """The number of the face-down question's option whose outcome the real game shows ('?' if
    none does)."""
    real = replay.clone()
    j = i
    while True:
        real.apply(history[j])
        j += 1
        if j >= len(history) or asks(real, viewer):
            break
    for n, (option, _) in enumerate(q.options, 1):
        trial = table.chosen(option, look=True) if a_card(option) else table.game.clone()
        if trial is None:
            continue
        if not a_card(option):
            trial.apply(option)
        settle(trial, viewer, table.seed)
        if shown_after(trial, viewer, q.seat) == shown_after(real, viewer, q.seat):
            return str(n)
    return "?"


def _typed(text: str) -> str:
    """What a player types for an answer: an objective tile by its number and side (`6a`)."""
    return text.split(":")[0].removeprefix("objective ") if text.startswith("objective ") else text


if __name__ == "__main__":
    main(follow, __doc__)
