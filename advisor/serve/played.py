"""A game played against the AI in the browser: `advisor play`'s session (advisor/play/session.py:
the setup, the record, undo back to the start of the human's move), its AI seats moved by
themselves on the server.

An AI seat's decision is taken in a worker process (an ISMCTS agent holds the interpreter while it
searches), seeded as `advisor play` seeds it, so a game replays the same; the game is saved after
each decision. Undo while an AI seat thinks drops its answer (the record has moved on)."""
from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from advisor._core import Game
from advisor.play.session import Session, mix_seed
from advisor.play.setup import make_setup
from advisor.serve.kept import Kept
from advisor.wording import decision_words

# the strengths offered on the page: agent specs (advisor/search/agents.py)
STRENGTHS = {"greedy": "greedy", "ismcts 1 s": "ismcts:time=1", "ismcts 3 s": "ismcts:time=3"}


def ai_choice(state: Any, spec: str, seed: int) -> int:
    """In the worker: the decision the agent `spec` takes at `state`."""
    from advisor.search.agents import make_agent
    game = Game.from_dict(state)
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    agent = make_agent(spec, seed)
    try:
        return agent.choose(game)
    finally:
        agent.close()


@dataclass
class Played(Kept):
    """A game against the AI: `session` is advisor play's."""
    session: Session
    thinking: bool = False
    version: int = 0            # moved on by each entry and undo of the human's
    failed: int = -1            # the version at which an AI seat's decision failed
    error: str | None = None

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def viewer(self) -> int:
        return self.session.human

    def from_start(self) -> tuple[Game, list[int]]:
        """The game as it began and every decision since (a review replays them)."""
        return self.session.setup.new_game(), list(self.session.record)

    def ai_to_move(self) -> bool:
        g = self.game
        return not g.is_terminal() and g.decider in self.session.setup.ai_seats

    def log(self) -> list[dict[str, str]]:
        """The last decisions as the human may see them (a card tucked unseen unnamed), latest first."""
        n = len(self.session.record)
        first = max(0, n - 8)
        texts = self.session.public_texts(range(first, n))
        return [{"question": self.names[who], "answer": text}
                for who, text in zip(self.session.deciders[first:], texts, strict=True)][::-1]

    def summary(self) -> dict[str, Any]:
        g = self.game
        st = self.session.setup
        about = ("game over" if g.is_terminal() else
                 f"{self.names[g.decider]}: {decision_words(g, self.viewer, self.names)}")
        return {"id": self.id, "mode": "play", "names": self.names, "viewer": self.viewer, "players": st.players,
                "round": min(g.round, 4), "over": g.is_terminal(), "about": about,
                "entries": len(self.session.record), "updated": self.updated}

    def to_dict(self) -> dict[str, Any]:
        st = self.session.setup
        return {"mode": "play", "names": self.names, "created": self.created, "updated": self.updated,
                "summary": self.summary(),
                "play": {"players": st.players, "seat": st.seat, "opponents": list(st.opponents),
                         "solo_level": st.solo_level, "seed": st.seed, "printing": st.printing,
                         "record": list(self.session.record)}}

    @classmethod
    def from_dict(cls, game_id: str, d: dict[str, Any]) -> Played:
        p = d["play"]
        setup = make_setup(p["players"], p["seat"], tuple(p["opponents"]), p.get("solo_level"), p["seed"],
                           p.get("printing", "base"))
        session = Session.replay(setup, [int(a) for a in p["record"]], where=f"{game_id}: record")
        return cls(game_id, [str(n) for n in d["names"]], session, created=float(d.get("created", 0)),
                   updated=float(d.get("updated", 0)))


class Opponents:
    """The AI seats' decisions, taken in one worker process for the whole server."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None

    async def move(self, p: Played, save: Any) -> None:
        """Let the AI seats of `p` decide until the human is to (or the game ends); `save(p)` after
        each decision. A decision that comes back after an undo is dropped."""
        if p.thinking or p.failed == p.version:
            return
        p.thinking = True
        try:
            while p.ai_to_move():
                g = p.game
                at, seat, version = len(g.history), g.decider, p.version
                spec = p.session.setup.spec(seat)
                if self.pool is None:
                    import multiprocessing
                    self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
                action = await asyncio.get_running_loop().run_in_executor(
                    self.pool, ai_choice, g.to_dict(), spec, mix_seed(p.session.setup.seed, seat, at))
                if p.version != version or len(p.game.history) != at:   # undone meanwhile: think again
                    continue
                p.session.apply(action)
                save(p)
        except Exception as e:                   # the worker failed: said on the page, tried again after an entry
            p.failed, p.error = p.version, f"the AI seat could not decide ({type(e).__name__}: {e})"
        finally:
            p.thinking = False

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
