"""The web app of `advisor serve` (docs/serve.md): one page and a JSON API to follow a real game at
the table from a phone, with the search's ranking streamed as it runs.

`make_app(games_dir, token)` builds the Starlette app. Every request needs the token when one is
set (the server listens beyond this machine): as `?token=` once (the page then keeps it in a
cookie), or the `X-Token` header; without it, 403. A request body is capped at BODY_LIMIT bytes;
bad input gets a 4xx with a one-line message, never a traceback. Every entry is saved before it is
answered; the table's operations are quick and run on the event loop (one at a time, so no two
entries race), the search in its own process (`searches.py`)."""
from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any, cast

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from advisor import notation as N
from advisor.errors import AdvisorError
from advisor.play.session import Session
from advisor.play.setup import make_setup
from advisor.serve.played import STRENGTHS, Opponents, Played
from advisor.serve.searches import MAX_SECONDS, Searches
from advisor.serve.store import Followed, Store, StoreError, UnknownGame
from advisor.serve.view import play_question, question_view, table_view
from advisor.table import Table, TableError
from advisor.variants import AUTOMA_LEVELS, MAX_PLAYERS, MIN_PLAYERS, PRINTINGS

BODY_LIMIT = 16 * 1024          # a request is a few fields: an entry, a new game's names
NAME_LIMIT = 24
COOKIE = "advisor_token"
STATIC = resources.files("advisor.serve") / "static"


class BadRequest(HTTPException):
    def __init__(self, message: str, status: int = 400):
        super().__init__(status, message)


# ---------------------------------------------------------------------------- guards
class Guard:
    """ASGI middleware: the token (403 without it) and the body cap (413 over it, by its declared
    length; the body read is capped again in `body`)."""

    def __init__(self, app: ASGIApp, token: str | None):
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if self.token is not None and not self._allowed(request):
            await _problem(403, "forbidden: open the address printed by `advisor serve`, with its token")(
                scope, receive, send)
            return
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > BODY_LIMIT):
            await _problem(413, f"the request body is over {BODY_LIMIT} bytes")(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, request: Request) -> bool:
        assert self.token is not None
        given = (request.query_params.get("token") or request.headers.get("x-token")
                 or request.cookies.get(COOKIE) or "")
        return secrets.compare_digest(given.encode(), self.token.encode())


def _problem(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read up to BODY_LIMIT bytes."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > BODY_LIMIT:
            raise BadRequest(f"the request body is over {BODY_LIMIT} bytes", 413)
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def field(data: dict[str, Any], name: str, kind: type, default: Any = ..., lo: float | None = None,
          hi: float | None = None) -> Any:
    """One field of a request body, of its type and range, or a 400 naming it."""
    if name not in data or data[name] is None:
        if default is ...:
            raise BadRequest(f"{name}: missing")
        return default
    value = data[name]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise BadRequest(f"{name}: {json.dumps(value)[:40]} is not {'a number' if kind in (int, float) else 'a ' + kind.__name__}")
    number = cast(float, value)
    if lo is not None and number < lo or hi is not None and number > hi:
        limits = f"at least {lo:g}" if hi is None else f"at most {hi:g}" if lo is None else f"{lo:g} to {hi:g}"
        raise BadRequest(f"{name}: {value} is out of range ({limits})")
    return value


# ---------------------------------------------------------------------------- the app
class Server:
    """The app's state: the games and their searches."""

    def __init__(self, games_dir: str):
        self.store = Store(games_dir)
        self.searches = Searches()
        self.opponents = Opponents()
        self.tasks: set[asyncio.Task[None]] = set()

    def state(self, f: Followed | Played) -> dict[str, Any]:
        s = self.searches.by_game.get(f.id)
        out: dict[str, Any] = {"id": f.id, "names": f.names, "viewer": f.viewer, "decider": f.game.decider,
                               "table": table_view(f.game, f.viewer, f.names), "search": None if s is None else s.state()}
        if isinstance(f, Played):
            self._let_ai_move(f)
            return {**out, "mode": "play", "players": f.session.setup.players,
                    "question": play_question(f.game, f.viewer, f.names),
                    "thinking": f.ai_to_move() and f.failed != f.version, "ai_error": f.error if f.failed == f.version else None,
                    "can_undo": f.session.can_undo(), "entries": len(f.session.record), "log": f.log()}
        t = f.table
        return {**out, "mode": "follow", "players": t.players, "question": question_view(t, t.question(), f.names),
                "thinking": False, "can_undo": bool(t.entered), "entries": len(t.entered), "log": f.log[-8:][::-1]}

    def _let_ai_move(self, p: Played) -> None:
        """The AI seats decide on their own, in the background (once per game at a time)."""
        if p.ai_to_move() and not p.thinking:
            task = asyncio.get_running_loop().create_task(self.opponents.move(p, self.store.save))
            self.tasks.add(task)            # kept until done: a task nobody holds may be collected
            task.add_done_callback(self.tasks.discard)

    def game(self, request: Request) -> Followed | Played:
        return self.store.get(request.path_params["id"])

    # ------------------------------------------------------------------ routes
    async def index(self, request: Request) -> Response:
        response = FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-store"})
        token = request.query_params.get("token")
        if token:
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=30 * 86400)
        return response

    async def games(self, request: Request) -> Response:
        return JSONResponse({"games": self.store.listing()})

    async def new_game(self, request: Request) -> Response:
        data = await body(request)
        mode = field(data, "mode", str, "follow")
        if mode not in ("follow", "play"):
            raise BadRequest(f"mode: '{mode[:10]}' is not follow or play")
        solo = field(data, "solo_level", str, None)
        if solo is not None and solo not in AUTOMA_LEVELS:
            raise BadRequest(f"solo_level: '{solo[:10]}' is not one of {', '.join(AUTOMA_LEVELS)}")
        players = field(data, "players", int, 1 if solo else 2, MIN_PLAYERS, MAX_PLAYERS)
        if (players == 1) != (solo is not None):
            raise BadRequest("solo_level: a solo game (1 player) is against the Automa at a level; "
                             "a game of 2 or more players has none")
        names = field(data, "names", list, [f"P{i}" for i in range(players)])
        if len(names) != players or not all(isinstance(n, str) and n.strip() for n in names):
            raise BadRequest(f"names: {players} names, one per player")
        names = [n.strip()[:NAME_LIMIT] for n in names]
        if len(set(names)) != len(names):
            raise BadRequest("names: two players have the same name")
        viewer = field(data, "viewer", int, 0, 0, players - 1)
        printing = field(data, "printing", str, "base")
        if printing not in PRINTINGS:
            raise BadRequest(f"printing: one of {', '.join(PRINTINGS)}")
        seed = field(data, "seed", int, secrets.randbelow(1 << 31), 0, (1 << 62))
        if solo:
            names = names + ["Automa"]
        if mode == "play":
            strength = field(data, "opponent", str, "greedy")
            if strength not in STRENGTHS:
                raise BadRequest(f"opponent: '{strength[:20]}' is not one of {', '.join(STRENGTHS)}")
            setup = make_setup(players, viewer, () if solo else (STRENGTHS[strength],), solo, seed, printing)
            p = self.store.add(Played(self.store.new_id(), names, Session(setup)))
            return JSONResponse(self.state(p), status_code=201)
        f = self.store.new(names, Table(players, viewer, solo or "2", printing, seed, tuple(names)))
        return JSONResponse(self.state(f), status_code=201)

    async def show(self, request: Request) -> Response:
        return JSONResponse(self.state(self.game(request)))

    async def delete(self, request: Request) -> Response:
        game_id = request.path_params["id"]
        s = self.searches.running(game_id)
        if s is not None:
            s.stop()
        self.store.delete(game_id)
        return JSONResponse({"deleted": game_id})

    def _moved_on(self, f: Followed | Played, data: dict[str, Any]) -> None:
        """An entry made on a page that showed an older point of the game (a double tap, a second
        phone) is refused: 409."""
        at = field(data, "at", int, None, 0)
        if at is not None and at != len(f.game.history):
            raise BadRequest("the game has moved on since this page showed it: look again", 409)

    async def answer(self, request: Request) -> Response:
        f = self.game(request)
        data = await body(request)
        self._moved_on(f, data)
        if isinstance(f, Played):
            return self._play(f, data)
        q = f.table.question()
        if q is None:
            raise BadRequest("the game is over")
        action = field(data, "action", int, lo=0, hi=(1 << 31))
        g = f.table.game
        action = N.display_take(g, action)         # a ranking's take named by its card
        if action not in g.legal_actions() and q.seat == f.table.viewer:
            raise TableError(f"{action} is not one of the answers to '{q.about}'")
        shown = question_view(f.table, q, f.names)
        assert shown is not None
        words = next((o["text"] for grp in shown["groups"] for o in grp["options"] if o["action"] == action),
                     f.table.text(action))
        try:
            f.table.answer(action)      # who did it is the table's to find (a decision declined before it)
        except (ValueError, IndexError):         # an id of no action of the game
            raise TableError(f"{action} is not one of the answers to '{q.about}'") from None
        f.entered(shown["about"], words)
        try:
            self.store.save(f)
        except StoreError:
            f.table.undo()               # not saved, not made: the page shows the game as saved
            f.undone()
            raise
        return JSONResponse(self.state(f))

    def _play(self, p: Played, data: dict[str, Any]) -> Response:
        """The human's decision in a game against the AI; the AI seats then move by themselves."""
        g = p.game
        if g.is_terminal():
            raise BadRequest("the game is over")
        if g.decider != p.viewer:
            raise BadRequest(f"it is {p.names[g.decider]}'s decision, not yours", 409)
        action = field(data, "action", int, lo=0, hi=(1 << 31))
        action = N.display_take(g, action)
        if action not in g.legal_actions():
            raise BadRequest(f"{action} is not one of the answers to '{g.decision}'", 422)
        p.session.apply(action)
        p.version += 1
        self.store.save(p)
        return JSONResponse(self.state(p))

    async def undo(self, request: Request) -> Response:
        f = self.game(request)
        data = await body(request)
        if isinstance(f, Played):
            f.session.undo()
            f.version += 1
            self.store.save(f)
            return JSONResponse(self.state(f))
        self._moved_on(f, data)
        f.table.undo()
        f.undone()
        self.store.save(f)
        return JSONResponse(self.state(f))

    async def suggest(self, request: Request) -> Response:
        f = self.game(request)
        data = await body(request)
        seconds = field(data, "seconds", float, 5.0, 0.5, MAX_SECONDS)
        g, viewer = f.game, f.viewer
        if self.searches.running(f.id):
            raise BadRequest("a search of this game is running: stop it first", 409)
        if g.is_terminal():
            raise BadRequest("the game is over", 409)
        if g.decider != viewer:
            raise BadRequest("'what now?' ranks your own decisions: this one is "
                             + ("the table's (a card or tile to enter)" if g.decider < 0 else f"{f.names[g.decider]}'s"),
                             409)
        if len(g.legal_actions()) < 2:
            raise BadRequest("this decision has one answer only: nothing to rank", 409)
        s = self.searches.start(f.id, g, f.names, seconds, seed=len(g.history))
        return JSONResponse(s.state(), status_code=202)

    async def review(self, request: Request) -> Response:
        """Review a finished game, played against the AI or followed from the table: the viewer's
        decisions searched again from the viewer's seat (advisor review's judge), streamed by the
        search's events."""
        f = self.game(request)
        data = await body(request)
        seconds = field(data, "seconds", float, 1.0, 0.1, 30.0)
        if not f.game.is_terminal():
            raise BadRequest("the game is not over: a review is of a finished game", 409)
        if self.searches.running(f.id):
            raise BadRequest("a search of this game is running: stop it first", 409)
        start, actions = f.from_start()
        s = self.searches.review(f.id, start, actions, f.names, f.viewer, seconds)
        return JSONResponse(s.state(), status_code=202)

    async def stop(self, request: Request) -> Response:
        f = self.game(request)
        s = self.searches.running(f.id)
        if s is None:
            raise BadRequest("no search of this game is running", 409)
        s.stop()
        return JSONResponse(s.state())

    async def events(self, request: Request) -> Response:
        """Server-sent events of the game's search: its state each time it changes, until done."""
        f = self.game(request)
        s = self.searches.by_game.get(f.id)
        if s is None:
            raise BadRequest("no search of this game has run", 404)

        async def stream() -> AsyncIterator[str]:
            sent, beat = None, time.monotonic()
            while True:
                state = s.state()       # done is read once: the search may end while this is sent
                text = json.dumps(state)
                if text != sent:
                    yield f"event: {'ranking' if state['done'] else 'progress'}\ndata: {text}\n\n"
                    sent, beat = text, time.monotonic()
                    if state["done"]:
                        return
                elif time.monotonic() - beat > 15:
                    yield ": still searching\n\n"
                    beat = time.monotonic()
                await asyncio.sleep(0.1)     # (a page gone away: StreamingResponse ends the stream)
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _handled(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """The game's own errors as 4xx with their one-line message."""
    async def route(request: Request) -> Response:
        try:
            return await fn(request)
        except UnknownGame as e:
            return _problem(404, str(e))
        except StoreError as e:
            return _problem(503, f"not saved: {e}")
        except TableError as e:
            return _problem(422, str(e))
        except AdvisorError as e:
            return _problem(400, str(e))
    return route


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _problem(exc.status_code, str(exc.detail))


async def _server_error(request: Request, exc: Exception) -> Response:
    return _problem(500, f"the server failed on this request ({type(exc).__name__}); the game is as last saved")


def make_app(games_dir: str, token: str | None = None) -> Starlette:
    """The app serving the games of `games_dir`; `token`: required of every request (None: none)."""
    s = Server(games_dir)
    h = _handled
    routes = [
        Route("/", s.index),
        Route("/api/games", h(s.games), methods=["GET"]),
        Route("/api/games", h(s.new_game), methods=["POST"]),
        Route("/api/games/{id}", h(s.show), methods=["GET"]),
        Route("/api/games/{id}", h(s.delete), methods=["DELETE"]),
        Route("/api/games/{id}/answer", h(s.answer), methods=["POST"]),
        Route("/api/games/{id}/undo", h(s.undo), methods=["POST"]),
        Route("/api/games/{id}/suggest", h(s.suggest), methods=["POST"]),
        Route("/api/games/{id}/suggest/stop", h(s.stop), methods=["POST"]),
        Route("/api/games/{id}/review", h(s.review), methods=["POST"]),
        Route("/api/games/{id}/suggest/events", h(s.events), methods=["GET"]),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        s.searches.stop_all()           # a search running at shutdown ends with the server
        s.opponents.close()
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error, Exception: _server_error},
                    lifespan=lifespan)
    app.state.server = s
    app.add_middleware(Guard, token=token)
    return app
