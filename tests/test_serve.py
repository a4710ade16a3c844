"""`advisor serve`'s app through Starlette's test client: a game followed through its API, saved
after every entry and resumed by another server on the same directory; bad input answered with a
4xx and a message; the token; the body cap; "what now?" streamed and stopped."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="advisor serve's extra (starlette, uvicorn) is not installed")
from click.testing import CliRunner  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from advisor.cli import main  # noqa: E402
from advisor.cli.serve import loopback  # noqa: E402
from advisor.serve.app import BODY_LIMIT, make_app  # noqa: E402
from advisor._core import Game  # noqa: E402
from advisor.table import Table, asks  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from table_scan import real_game  # noqa: E402  (the scan's real games)


def client(folder: Path, token: str | None = None) -> TestClient:
    return TestClient(make_app(str(folder), token))


def new_game(c: TestClient, **over: Any) -> dict[str, Any]:
    r = c.post("/api/games", json={"players": 2, "names": ["Ann", "Bob"], "viewer": 0, "seed": 3, **over})
    assert r.status_code == 201, r.text
    return r.json()


def first(state: dict[str, Any]) -> int:
    return state["question"]["groups"][0]["options"][0]["action"]


def enter(c: TestClient, state: dict[str, Any], action: int | None = None) -> dict[str, Any]:
    q = state["question"]
    r = c.post(f"/api/games/{state['id']}/answer", json={"action": first(state) if action is None else action,
                                                         "at": q["history"]})
    assert r.status_code == 200, r.text
    return r.json()


def to_my_turn(c: TestClient, s: dict[str, Any]) -> dict[str, Any]:
    while not (s["question"]["you"] and s["table"]["phase"] == "turn" and s["question"]["count"] > 1):
        s = enter(c, s)
    return s


def test_a_game_is_followed_entry_by_entry_as_the_table_does(tmp_path: Path) -> None:
    c = client(tmp_path)
    s = new_game(c)
    table = Table(2, 0, seed=3)
    assert s["question"]["about"] == "the guild tile" and s["question"]["chance"]
    for _ in range(30):
        q = table.question()
        assert q is not None
        page = [o["action"] for g in s["question"]["groups"] if g["kind"] != "cards you have not seen"
                for o in g["options"]]
        # the table's options; of a question of several cards, those that fit the one entered now
        assert set(page) <= {a for a, _ in q.options}
        assert q.hidden or set(table.game.legal_actions()) <= set(page)
        table.answer(first(s))
        s = enter(c, s)
    assert s["table"]["scores"] == table.game.scores()
    assert s["entries"] == 30 and s["can_undo"]
    mine = s["table"]["seats"][0]
    assert mine["you"] and mine["name"] == "Ann" and len(mine["hand"]) == mine["hand_dragons"] + mine["hand_caves"]
    assert len(mine["mat"]) == 3 and all(len(row["spaces"]) == 4 for row in mine["mat"])
    assert s["table"]["guild"]["name"] and len(s["table"]["objectives"]) == 4


def test_questions_name_tiles_by_what_they_say_and_group_options_by_kind(tmp_path: Path) -> None:
    c = client(tmp_path)
    s = new_game(c)
    guild = [o["text"] for o in s["question"]["groups"][0]["options"]]
    assert guild == ["Plains Guild", "Guild of Seafarers", "Guild of Highlands", "Rainforest Guild"]
    s = enter(c, s)
    assert s["question"]["about"] == "the objective tiles of rounds 1-4, with their sides (now: round 1)"
    assert all(o["text"].startswith("objective ") and ": most " in o["text"]
               for o in s["question"]["groups"][0]["options"])
    s = to_my_turn(c, s)
    kinds = [g["kind"] for g in s["question"]["groups"]]
    assert "pass" in kinds and len(kinds) == len(set(kinds)) > 1


def test_every_entry_is_saved_and_another_server_resumes_it(tmp_path: Path) -> None:
    c = client(tmp_path)
    s = new_game(c)
    for _ in range(25):
        s = enter(c, s)
    saved = json.loads((tmp_path / f"{s['id']}.json").read_text())
    assert saved["saved_by"] == "advisor serve" and saved["names"] == ["Ann", "Bob"]
    assert len(saved["table"]["entered"]) == len(saved["log"]) == 25
    again = client(tmp_path)                   # a server restarted on the same directory
    assert again.get(f"/api/games/{s['id']}").json() == {**s, "search": None}
    listed = again.get("/api/games").json()["games"]
    assert [g["id"] for g in listed] == [s["id"]] and listed[0]["entries"] == 25
    assert listed[0]["round"] == s["table"]["round"] == 1 and listed[0]["about"] == s["question"]["about"]


def test_undo_takes_back_entries_and_is_refused_at_the_start(tmp_path: Path) -> None:
    c = client(tmp_path)
    s0 = new_game(c)
    s1 = enter(c, s0)
    s2 = enter(c, s1)
    assert [e["question"] for e in s2["log"]] == [s1["question"]["about"], "the guild tile"]
    chosen = s0["question"]["groups"][0]["options"][0]["text"]
    assert s2["log"][1]["answer"] == chosen and "Plains Guild" in chosen
    r = c.post(f"/api/games/{s0['id']}/undo", json={"at": s2["question"]["history"]})
    assert r.status_code == 200 and r.json()["question"] == s1["question"] and r.json()["log"] == s1["log"]
    r = c.post(f"/api/games/{s0['id']}/undo", json={})
    assert r.json()["question"] == s0["question"] and not r.json()["can_undo"]
    r = c.post(f"/api/games/{s0['id']}/undo", json={})
    assert r.status_code == 422 and "nothing to undo" in r.json()["error"]
    assert len(json.loads((tmp_path / f"{s0['id']}.json").read_text())["table"]["entered"]) == 0


@pytest.mark.parametrize("payload,status,words", [
    ({"action": 12345}, 422, "12345 is not one of the answers to 'the guild tile'"),
    ({"action": "guild"}, 400, "action: \"guild\" is not a number"),
    ({}, 400, "action: missing"),
    ({"action": -3}, 400, "out of range"),
    ({"action": 1, "at": 999}, 409, "moved on"),
])
def test_a_bad_entry_gets_a_4xx_with_its_reason_and_changes_nothing(tmp_path: Path, payload: dict[str, Any],
                                                                    status: int, words: str) -> None:
    c = client(tmp_path)
    s = new_game(c)
    r = c.post(f"/api/games/{s['id']}/answer", json=payload)
    assert r.status_code == status and words in r.json()["error"], r.text
    assert c.get(f"/api/games/{s['id']}").json() == s


@pytest.mark.parametrize("payload,words", [
    ({"players": 7}, "players: 7 is out of range"),
    ({"players": 3}, "names: 3 names"),
    ({"names": ["Ann", "Ann"]}, "same name"),
    ({"names": ["Ann", " "]}, "names: 2 names"),
    ({"viewer": 2}, "viewer: 2 is out of range"),
    ({"solo_level": "9"}, "solo_level: '9' is not one of"),
    ({"solo_level": "2"}, "solo game (1 player)"),
    ({"printing": "1999"}, "printing: one of base, 2025"),
])
def test_a_bad_new_game_is_refused_naming_the_field(tmp_path: Path, payload: dict[str, Any], words: str) -> None:
    c = client(tmp_path)
    r = c.post("/api/games", json={"players": 2, "names": ["Ann", "Bob"], **payload})
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert c.get("/api/games").json() == {"games": []}


def test_bodies_paths_and_ids_are_checked(tmp_path: Path) -> None:
    c = client(tmp_path)
    r = c.post("/api/games", content=b"{" * 10)
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = c.post("/api/games", content=b"[1, 2]")
    assert r.status_code == 400 and "JSON object" in r.json()["error"]
    r = c.post("/api/games", content=b" " * (BODY_LIMIT + 1))
    assert r.status_code == 413 and "over" in r.json()["error"]
    r = c.post("/api/games", content=iter([b" " * 10_000, b" " * 10_000]))       # no length given
    assert r.status_code == 413
    assert c.get("/api/games/..%2F..%2Fetc").status_code == 404
    r = c.get("/api/games/0123456789ab")
    assert r.status_code == 404 and "no game '0123456789ab'" in r.json()["error"]
    (tmp_path / "abcdefabcdef.json").write_text("{not json")
    r = c.get("/api/games/abcdefabcdef")
    assert r.status_code == 503 and "abcdefabcdef.json" in r.json()["error"]
    assert c.get("/api/games").status_code == 200          # an unreadable save is left out of the list


def test_a_token_is_needed_for_everything_when_one_is_set(tmp_path: Path) -> None:
    c = client(tmp_path, token="s3cret")
    for path in ("/", "/api/games", "/static/app.js", "/api/games/0123456789ab"):
        r = c.get(path)
        assert r.status_code == 403 and "token" in r.json()["error"], path
    assert c.get("/?token=wrong").status_code == 403
    page = c.get("/?token=s3cret")
    assert page.status_code == 200 and "advisor_token" in page.headers["set-cookie"]
    assert c.get("/api/games").status_code == 200             # the cookie the page set
    fresh = client(tmp_path, token="s3cret")
    assert fresh.get("/api/games", headers={"X-Token": "s3cret"}).status_code == 200
    assert fresh.get("/api/games", headers={"X-Token": "s3cre"}).status_code == 403


def test_the_page_and_its_assets_ship_with_the_package(tmp_path: Path) -> None:
    c = client(tmp_path)
    page = c.get("/").text
    assert 'src="static/app.js"' in page and 'href="static/app.css"' in page and "http" not in page.lower()
    for asset in ("app.js", "app.css"):
        r = c.get(f"/static/{asset}")
        text = r.text.replace("http://www.w3.org/2000/svg", "")        # a namespace, not an address
        assert r.status_code == 200 and "http://" not in text and "https://" not in text


def test_what_now_streams_the_ranking_and_one_search_runs_per_game(tmp_path: Path) -> None:
    c = client(tmp_path)
    with c:
        s = to_my_turn(c, new_game(c))
        gid = s["id"]
        r = c.post(f"/api/games/{gid}/suggest", json={"seconds": 1})
        assert r.status_code == 202 and not r.json()["done"]
        again = c.post(f"/api/games/{gid}/suggest", json={"seconds": 1})
        assert again.status_code == 409 and "running" in again.json()["error"]
        assert c.get(f"/api/games/{gid}").status_code == 200             # answered meanwhile
        text = c.get(f"/api/games/{gid}/suggest/events").text
        kinds = [line[7:] for line in text.splitlines() if line.startswith("event: ")]
        assert kinds[-1] == "ranking" and set(kinds[:-1]) <= {"progress"}
        done = json.loads(text.strip().splitlines()[-1].removeprefix("data: "))
        ranking = done["ranking"]
        assert done["done"] and done["final"] and done["at"] == s["question"]["history"]
        moves = ranking["moves"]
        assert moves and all(m["forecast"]["scores"] and len(m["forecast"]["scores"]) == 2 for m in moves)
        legal = {o["action"] for g in s["question"]["groups"] for o in g["options"]}
        assert {m["action"] for m in moves} <= legal
        after = enter(c, s, moves[0]["action"])                        # one tap plays it
        assert after["entries"] == s["entries"] + 1


def test_what_now_is_for_the_viewers_decisions_and_stops_on_request(tmp_path: Path) -> None:
    c = client(tmp_path)
    with c:
        s = new_game(c)
        r = c.post(f"/api/games/{s['id']}/suggest", json={})
        assert r.status_code == 409 and "the table's" in r.json()["error"]
        r = c.post(f"/api/games/{s['id']}/suggest/stop")
        assert r.status_code == 409 and "no search" in r.json()["error"]
        s = to_my_turn(c, s)
        assert c.post(f"/api/games/{s['id']}/suggest", json={"seconds": 1000}).status_code == 400
        assert c.post(f"/api/games/{s['id']}/suggest", json={"seconds": 60}).status_code == 202
        c.post(f"/api/games/{s['id']}/suggest/stop")
        text = c.get(f"/api/games/{s['id']}/suggest/events").text
        done = json.loads(text.strip().splitlines()[-1].removeprefix("data: "))
        assert done["done"] and (done["error"] or done["ranking"]["interrupted"]), done


def test_the_ranking_so_far_streams_while_the_search_runs_and_stop_keeps_it(tmp_path: Path) -> None:
    c = client(tmp_path)
    with c:
        s = to_my_turn(c, new_game(c))
        gid = s["id"]
        assert c.post(f"/api/games/{gid}/suggest", json={"seconds": 60}).status_code == 202
        search = c.get(f"/api/games/{gid}").json()["search"]
        while search["ranking"] is None and not search["done"]:
            time.sleep(0.1)
            search = c.get(f"/api/games/{gid}").json()["search"]
        # before the end: a ranking so far, marked as not final, of the decision's own moves
        assert not search["done"] and not search["final"] and search["progress"] < 1
        interim = search["ranking"]
        legal = {o["action"] for g in s["question"]["groups"] for o in g["options"]}
        assert interim["moves"] and {m["action"] for m in interim["moves"]} <= legal
        assert not interim["interrupted"] and interim["iterations"] > 0
        assert all(m["forecast"] and len(m["forecast"]["scores"]) == 2 for m in interim["moves"])
        c.post(f"/api/games/{gid}/suggest/stop")
        text = c.get(f"/api/games/{gid}/suggest/events").text
        done = json.loads(text.strip().splitlines()[-1].removeprefix("data: "))
        # Stop: the final ranking is the search's so far, at least as far as the interim one
        assert done["done"] and done["final"] and done["ranking"]["interrupted"]
        assert done["ranking"]["iterations"] >= interim["iterations"]


def test_a_solo_game_names_the_automa(tmp_path: Path) -> None:
    c = client(tmp_path)
    s = new_game(c, players=1, names=["Ann"], solo_level="R2")
    assert s["names"] == ["Ann", "Automa"]
    s = to_my_turn(c, s)
    automa = s["table"]["seats"][1]
    assert automa["automa"] and automa["level"] == "R2"


def test_the_server_listens_on_loopback_without_a_token_and_says_where() -> None:
    assert loopback("127.0.0.1") and loopback("localhost") and loopback("::1")
    assert not loopback("0.0.0.0") and not loopback("192.168.1.5")
    r = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert r.exit_code == 2 and "70000" in r.output


def follow_real_game(tmp_path: Path, players: int, seed: int, viewer: int, policy: str, limit: int | None) -> None:
    """A real game entered through the API from `viewer`'s seat, each entry tapped from what the
    page offers: the real card another seat plays or the deck brings is among the cards offered."""
    c = client(tmp_path)
    names = [f"N{i}" for i in range(players)]
    s = new_game(c, players=players, names=names, viewer=viewer, seed=seed,
                 solo_level="2" if players == 1 else None)
    real = real_game(players, seed, policy)
    replay = Game.new(players, seed, chance="told")
    entries = 0
    for a in real.history:
        if asks(replay, viewer):
            offered = {o["action"] for g in s["question"]["groups"] for o in g["options"]}
            hidden = [o["action"] for g in s["question"]["groups"] if g["kind"] == "face down" for o in g["options"]]
            s = enter(c, s, a if a in offered or not hidden else hidden[0])
            entries += 1
            if entries == limit:
                return
        replay.apply(a)
    assert s["question"] is None and s["table"]["scores"] == real.scores()


def test_a_real_game_is_entered_from_what_the_page_offers(tmp_path: Path) -> None:
    follow_real_game(tmp_path, 2, 1, 0, "random", None)


@pytest.mark.slow
@pytest.mark.parametrize("players,seed,viewer", [(2, 2, 1), (3, 3, 1), (4, 4, 3), (1, 6, 0)])
def test_whole_real_games_are_entered_from_what_the_page_offers(tmp_path: Path, players: int, seed: int,
                                                                 viewer: int) -> None:
    follow_real_game(tmp_path, players, seed, viewer, "random", None)


def test_a_game_is_deleted_from_the_list_and_the_directory(tmp_path: Path) -> None:
    c = client(tmp_path)
    s = new_game(c)
    r = c.delete(f"/api/games/{s['id']}")
    assert r.status_code == 200 and not (tmp_path / f"{s['id']}.json").exists()
    assert c.get("/api/games").json() == {"games": []}
    assert c.delete(f"/api/games/{s['id']}").status_code == 404


def test_another_seats_hidden_tuck_is_asked_by_what_followed_and_names_no_card(tmp_path: Path) -> None:
    """The stand-in a hidden tuck binds is never shown: not as an option, not in the log; the
    options are what followed it (advisor.table)."""
    c = client(tmp_path)
    s = new_game(c, players=2, names=["N0", "N1"], viewer=0, seed=1)
    real = real_game(2, 1, "greedy")
    replay = Game.new(2, 1, chance="told")
    for a in real.history:
        if asks(replay, 0):
            hidden = [g for g in s["question"]["groups"] if g["kind"] == "face down"]
            if hidden:
                texts = [o["text"] for o in hidden[0]["options"]]
                assert texts and all(t.startswith("a card, then ") for t in texts)
                assert len(set(texts)) == len(texts)
                s = enter(c, s, hidden[0]["options"][0]["action"])
                assert s["log"][0]["answer"] == texts[0]
                return
            s = enter(c, s, a)
        replay.apply(a)
    pytest.fail("no hidden tuck in the game")


def wait_for_you(c: TestClient, s: dict[str, Any]) -> dict[str, Any]:
    """The state once the AI seats have decided (they move by themselves on the server)."""
    for _ in range(600):
        if not s["thinking"]:
            return s
        import time
        time.sleep(0.05)
        s = c.get(f"/api/games/{s['id']}").json()
    pytest.fail("the AI seats did not decide")


def test_a_game_against_the_ai_moves_by_itself_undoes_and_resumes(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        r = c.post("/api/games", json={"mode": "play", "players": 3, "names": ["Ann", "Bob", "Cy"], "viewer": 1,
                                       "seed": 5, "opponent": "greedy"})
        assert r.status_code == 201, r.text
        s = wait_for_you(c, r.json())
        for _ in range(25):
            q = s["question"]
            assert q["you"] and q["about"].startswith("you: ") and s["decider"] == 1
            s = wait_for_you(c, enter(c, s))
        assert s["entries"] > 25 and any(e["question"] in ("Ann", "Cy") for e in s["log"])
        r = c.post(f"/api/games/{s['id']}/answer", json={"action": 1})
        assert r.status_code == 422 and "is not one of the answers" in r.json()["error"]
        before = s["entries"]
        u = c.post(f"/api/games/{s['id']}/undo", json={}).json()
        assert u["entries"] < before and u["question"]["you"]
        saved = json.loads((tmp_path / f"{s['id']}.json").read_text())
        assert saved["mode"] == "play" and len(saved["play"]["record"]) == u["entries"]
    again = client(tmp_path).get(f"/api/games/{s['id']}").json()
    assert again["question"] == u["question"] and again["table"] == u["table"]


def test_a_game_against_the_ai_is_refused_a_strength_it_does_not_offer(tmp_path: Path) -> None:
    r = client(tmp_path).post("/api/games", json={"mode": "play", "players": 2, "opponent": "godlike"})
    assert r.status_code == 400 and "opponent: 'godlike' is not one of greedy" in r.json()["error"]
    r = client(tmp_path).post("/api/games", json={"mode": "watch"})
    assert r.status_code == 400 and "mode:" in r.json()["error"]


def test_an_entry_that_cannot_be_saved_is_not_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk: the entry is refused (503, saying it was not saved) and the game stays as saved."""
    from advisor.files import FileError
    from advisor.serve import store

    c = client(tmp_path)
    s = enter(c, new_game(c))

    def full(path: str, data: bytes, what: str = "file") -> None:
        raise FileError(f"cannot write {path}: No space left on device")
    monkeypatch.setattr(store, "replace_file", full)
    r = c.post(f"/api/games/{s['id']}/answer", json={"action": first(s), "at": s["question"]["history"]})
    assert r.status_code == 503 and "not saved" in r.json()["error"] and "No space left" in r.json()["error"]
    assert c.get(f"/api/games/{s['id']}").json() == s


def play_to_the_end(c: TestClient, **over: Any) -> dict[str, Any]:
    r = c.post("/api/games", json={"mode": "play", "players": 2, "names": ["Ann", "Bob"], "viewer": 0, "seed": 3,
                                   "opponent": "greedy", **over})
    s = wait_for_you(c, r.json())
    while s["question"] is not None:
        s = wait_for_you(c, enter(c, s))
    return s


def test_a_review_is_of_a_finished_game(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        followed = new_game(c)
        r = c.post(f"/api/games/{followed['id']}/review", json={})
        assert r.status_code == 409 and "not over" in r.json()["error"]
        r = c.post("/api/games", json={"mode": "play", "players": 2, "opponent": "greedy", "seed": 1})
        r = c.post(f"/api/games/{r.json()['id']}/review", json={})
        assert r.status_code == 409 and "not over" in r.json()["error"]


def test_a_followed_game_is_reviewed_from_the_viewers_seat(tmp_path: Path) -> None:
    """A game followed from the table to its end (the viewer is the second seat) is reviewed as a
    game played here: the viewer's decisions, each searched from the viewer's seat on the table's
    game (whose unseen cards are stand-ins); stop keeps the verdicts so far and their summary."""
    with client(tmp_path) as c:
        table = Table(2, 1, seed=3, names=("Ann", "Bob"))       # followed to its end (quicker than by the API)
        while (q := table.question()) is not None:
            table.answer(q.options[0][0])
        s = c.get(f"/api/games/{c.app.state.server.store.new(['Ann', 'Bob'], table).id}").json()
        assert s["table"]["over"] and s["mode"] == "follow"
        r = c.post(f"/api/games/{s['id']}/review", json={"seconds": 0.1})
        assert r.status_code == 202
        search = r.json()
        mine = [i for i in range(len(table.game.history)) if viewer_chose(table, i)]
        while len(search.get("verdicts", [])) < 3 and not search["done"]:
            time.sleep(0.1)
            search = c.get(f"/api/games/{s['id']}").json()["search"]
        assert search["total"] == len(mine) > 20
        c.post(f"/api/games/{s['id']}/suggest/stop")
        text = c.get(f"/api/games/{s['id']}/suggest/events").text
        done = json.loads(text.strip().splitlines()[-1].removeprefix("data: "))
        verdicts = done["verdicts"]
        assert done["done"] and verdicts and done["summary"]["decisions"] == len(verdicts)
        assert [v["index"] for v in verdicts] == mine[:len(verdicts)]
        assert all(v["seat"] == 1 and isinstance(v["mistake"], bool) and v["played"] for v in verdicts)


def test_a_followed_games_review_reads_nothing_of_its_stand_ins() -> None:
    """The cards the viewer never saw are stand-ins in the table's game; bound otherwise
    (`Game.rebind`), the review of the viewer's decisions after them is the same."""
    from advisor.review.judge import review_decision
    from advisor.search.analysis import Limit
    table = Table(2, 1, seed=3)
    while (q := table.question()) is not None:
        table.answer(q.options[0][0])
    other = table.game.rebind(12345)
    changed = [i for i, (a, b) in enumerate(zip(table.game.history, other.history, strict=True)) if a != b]
    assert changed and len(other.history) == len(table.game.history)
    mine = [i for i in range(changed[-1] + 1, len(other.history)) if viewer_chose(table, i)][:3]
    assert len(mine) == 3
    for i in mine:
        g, h = table.game.clone(), other.clone()
        g.rewind(i)
        h.rewind(i)
        action = table.game.history[i]
        assert review_decision(i, g, action, Limit(iterations=300)) == review_decision(i, h, action, Limit(iterations=300))


def viewer_chose(table: Table, i: int) -> bool:
    """Whether step `i` of the table's game was a decision of the viewer's with a choice."""
    g = table.game.clone()
    g.rewind(i)
    return g.decider == table.viewer and len(g.legal_actions()) > 1


@pytest.mark.slow
def test_a_finished_game_is_reviewed_decision_by_decision(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        s = play_to_the_end(c)
        assert s["table"]["over"] and s["question"] is None
        r = c.post(f"/api/games/{s['id']}/review", json={"seconds": 0.1})
        assert r.status_code == 202
        text = c.get(f"/api/games/{s['id']}/suggest/events").text
        done = json.loads(text.strip().splitlines()[-1].removeprefix("data: "))
        verdicts = done["verdicts"]
        assert done["done"] and done["total"] == len(verdicts) == done["summary"]["decisions"] > 20
        assert all(v["seat"] == 0 and isinstance(v["mistake"], bool) for v in verdicts)
        assert sum(v["mistake"] for v in verdicts) == done["summary"]["mistakes"]
        assert all(v["lost"] - v["lost_ci"] > 0 for v in verdicts if v["mistake"])


def test_a_sub_decision_names_the_card_that_asks_it(tmp_path: Path) -> None:
    """Each sub-decision with its options and the card that asks (advisor.table.decision_words),
    the seats by the names the page was given."""
    import re
    c = client(tmp_path)
    s = new_game(c, players=2, names=["Ann", "Bob"], viewer=0, seed=1)
    real = real_game(2, 1, "greedy")
    replay = Game.new(2, 1, chance="told")
    abouts = []
    texts = 0
    for a in real.history[:400]:
        if asks(replay, 0):
            q = s["question"]
            abouts.append(q["about"])
            if q["asker"] is not None:      # and what the card or rule that asks does, to show
                assert f" for {q['asker']['words']}" in q["about"], q
                texts += bool(q["asker"]["text"])
            else:
                assert q["chance"] or " for " not in q["about"], q
            offered = {o["action"] for g in s["question"]["groups"] for o in g["options"]}
            hidden = [o["action"] for g in s["question"]["groups"] if g["kind"] == "face down" for o in g["options"]]
            s = enter(c, s, a if a in offered or not hidden else hidden[0])
        replay.apply(a)
    asked = [a for a in abouts if re.match(r"(you|Bob): [a-z ]+ for ", a)]
    assert any(re.search(r" for [A-Z][\w' -]+, (when played|if activated|once per round)", a) for a in asked), abouts
    assert any(re.search(r" for (Crimson Cavern|Golden Grotto|Amethyst Abyss)'s ", a) for a in asked), abouts
    assert not any(a.startswith("P1") for a in abouts)
    assert texts > 5
