"""`advisor serve`'s page in a real browser (Playwright driving the system Chromium, Debian's
`chromium`, installed by .ci/run) on a phone-sized viewport (390 x 844): a 2-player game set up
from the form and followed from the table by tapping the buttons, undo, a reload that resumes, a
streamed suggestion and its stop, a game against the AI. Skipped, with the reason, where Playwright or Chromium is absent.
The slow test saves the screenshots docs/serve.md shows (with ADVISOR_SCREENSHOTS=1)."""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="advisor serve's extra (starlette, uvicorn) is not installed")
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
import uvicorn  # noqa: E402

from advisor.serve.app import make_app  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (apt-get install -y chromium)")
DOCS = Path(__file__).resolve().parent.parent / "docs"
PHONE = {"width": 390, "height": 844}


TOKEN = "phone-token"


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A real server on a free port of this machine, in a thread (with a token if the test is
    marked `token`, as on a network)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    token = TOKEN if request.node.get_closest_marker("token") else None
    srv = uvicorn.Server(uvicorn.Config(make_app(str(tmp_path), token), log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for the module's tests (each gets a fresh context: no cookies shared)."""
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(server: str, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    pg.goto(server + "/")
    pg.server = server
    yield pg
    context.close()


def start_game(page: Any, names: tuple[str, ...] = ("Ann", "Bob"), viewer: int = 0) -> None:
    page.select_option("#players", str(len(names)))
    for i, name in enumerate(names):
        page.fill(f"input[name=name{i}]", name)
    page.check(f"input[name=viewer][value='{viewer}']")
    page.click("#start-button")
    page.wait_for_selector("#about")


def about(page: Any) -> str:
    return page.inner_text("#about")


def tap_first(page: Any) -> str:
    """Tap the question's first answer; return the question it answered."""
    before = page.inner_text("#about")
    history = page.evaluate("current.question.history")
    page.locator("#question .options button").first.click()
    page.wait_for_function(f"current && (!current.question || current.question.history !== {history})")
    return before


def fits(page: Any) -> bool:
    """Nothing wider than the phone: no sideways scrolling."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_a_game_is_followed_by_taps_undone_and_resumed_after_a_reload(page: Any) -> None:
    start_game(page)
    assert about(page) == "the guild tile" and fits(page)
    asked = [tap_first(page) for _ in range(6)]
    assert asked[0] == "the guild tile"
    assert asked[1:5] == ["the objective tiles of rounds 1-4, with their sides (now: round 1)",
                          "the objective tiles of rounds 2, 3, 4 (now: round 2)",
                          "the objective tiles of rounds 3, 4 (now: round 3)", "the objective tile of round 4"]
    assert asked[5] == "round 1 display, left to right: 3 dragon cards and 3 cave cards (now: dragon slot 1)"
    # a long card list comes with a search box
    assert page.is_visible("#filter")
    page.fill("#filter", "zzzz no such card")
    assert page.locator("#question .options button:visible").count() == 0
    page.fill("#filter", "")
    shown = about(page)
    tap_first(page)
    page.click("#undo")
    page.wait_for_function(f"document.getElementById('about').innerText === {shown!r}")
    page.reload()
    page.wait_for_selector("#about")
    assert about(page) == shown and page.evaluate("current.entries") == 6
    page.click("#home")
    page.wait_for_selector("#games li button.resume")
    assert "Ann, Bob" in page.inner_text("#games")
    assert fits(page)


@pytest.mark.token
@pytest.mark.slow     # the README's command keeps one browser test; .ci/run runs these
def test_the_address_with_its_token_opens_the_page_and_the_search_streams(page: Any) -> None:
    """As on a phone: without the token the page is refused; the printed address works, and so does
    everything after it, the search's event stream included."""
    assert "403" in page.title() or "forbidden" in page.content()
    page.goto(page.server + f"/?token={TOKEN}")
    start_game(page)
    while not page.evaluate("current.question.you && current.table.phase === 'turn' && current.question.count > 1"):
        tap_first(page)
    page.select_option("#think", "2")
    page.click("#what-now")
    page.wait_for_selector("#ranking li button.play", timeout=30_000)
    page.reload()                      # the cookie the page set is enough afterwards
    page.goto(page.server + "/")
    page.wait_for_selector("#games li button.resume")


@pytest.mark.slow     # the README's command keeps one browser test; .ci/run runs these
def test_a_solo_game_is_followed_with_the_automa_on_the_table(page: Any) -> None:
    page.select_option("#players", "1")
    assert page.is_visible("#solo-row")
    page.select_option("#solo-level", "R2")
    page.fill("input[name=name0]", "Ann")
    page.click("#start-button")
    page.wait_for_selector("#about")
    for _ in range(6):
        tap_first(page)
    assert "Automa (Automa R2)" in page.inner_text("#table")
    assert fits(page)


def test_a_bad_entry_shows_its_message_and_the_game_is_unchanged(page: Any) -> None:
    start_game(page)
    page.evaluate("answer(99999)")
    page.wait_for_selector("#error:not([hidden])")
    assert "is not one of the answers" in page.inner_text("#error")
    assert about(page) == "the guild tile"


@pytest.mark.slow     # the README's command keeps one browser test; .ci/run runs these
def test_a_game_against_the_ai_is_played_by_taps_and_undone(page: Any) -> None:
    page.check("input[name=mode][value=play]")
    page.select_option("#opponent", "greedy")
    start_game(page, ("Ann", "Bob"), viewer=0)
    for _ in range(8):
        page.wait_for_function("current && !current.thinking && current.question")
        assert about(page).startswith("you: ")
        tap_first(page)
    page.wait_for_function("current && !current.thinking && current.question")
    assert "Bob" in page.inner_text("#log")            # the AI's decisions, listed as made
    entries = page.evaluate("current.entries")
    page.click("#undo")
    page.wait_for_function(f"current.entries < {entries}")
    page.reload()
    page.wait_for_function("current && current.question")
    assert page.evaluate("current.mode") == "play" and fits(page)


@pytest.mark.slow
def test_a_round_is_followed_with_a_suggestion_streamed_stopped_and_played(page: Any, tmp_path: Path) -> None:
    start_game(page)
    # ADVISOR_SCREENSHOTS=1 saves the screens into docs/images (docs/serve.md shows them)
    shots = DOCS / "images" if os.environ.get("ADVISOR_SCREENSHOTS") else tmp_path
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / "serve-question.png"))
    # follow until the viewer's first real turn
    while not page.evaluate("current.question.you && current.table.phase === 'turn' && current.question.count > 1"):
        tap_first(page)
    page.select_option("#think", "60")
    page.click("#what-now")
    page.wait_for_function("parseFloat(document.getElementById('progress-bar').style.width) > 0")
    assert page.is_visible("#stop")
    page.click("#stop")
    page.wait_for_selector("#ranking:not(.interim) li .move")       # the final ranking, not one so far
    assert "stopped" in page.inner_text("#search-line")
    # a reload while a search runs follows the same search
    page.click("#what-now")
    page.wait_for_function("parseFloat(document.getElementById('progress-bar').style.width) > 0")
    page.reload()
    page.wait_for_function("current && current.search && !current.search.done")
    page.wait_for_function("parseFloat(document.getElementById('progress-bar').style.width) > 0")
    page.click("#stop")
    page.wait_for_function("current.search && document.getElementById('stop').hidden")
    page.select_option("#think", "2")
    page.click("#what-now")
    page.wait_for_selector("#ranking li button.play")
    page.wait_for_function("current.search === null || !document.getElementById('stop').offsetParent")
    page.wait_for_selector("#ranking li .numbers")
    assert "win" in page.inner_text("#ranking") and "forecast Ann" in page.inner_text("#ranking")
    page.screenshot(path=str(shots / "serve-what-now.png"), full_page=False)
    entries = page.evaluate("current.entries")
    page.locator("#ranking li button.play").first.click()
    page.wait_for_function(f"current.entries === {entries + 1}")
    # on to the next round: every question answered by its first button
    start_round = page.evaluate("current.table.round")
    while page.evaluate("current.table.round") == start_round:
        tap_first(page)
    assert page.evaluate("current.table.round") == start_round + 1
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.screenshot(path=str(shots / "serve-table.png"), full_page=True)
    assert fits(page)


def answer_by_api(page: Any, until: str) -> None:
    """Answer the page's questions by their first option through the API (quicker than taps) until
    `until` (a condition on the state `s`, or the game's end), then reload the page."""
    page.evaluate("""async () => {
        while (true) {
            const s = await api("GET", `/api/games/${current.id}`);
            if (s.thinking) { await new Promise(r => setTimeout(r, 50)); continue; }
            if (!s.question || (%s)) break;
            const a = s.question.groups[0].options[0].action;
            await api("POST", `/api/games/${current.id}/answer`, { action: a, at: s.question.history });
        }
    }""" % until)
    page.reload()
    page.wait_for_function("current !== null")


def test_the_ranking_so_far_shows_while_the_search_runs_and_stop_keeps_it(page: Any) -> None:
    start_game(page)
    answer_by_api(page, "s.question.you && s.table.phase === 'turn' && s.question.count > 1")
    page.select_option("#think", "60")
    page.click("#what-now")
    # while it runs: the ranking so far, with the bar and Stop, and no move to play yet
    page.wait_for_selector("#ranking.interim li .move")
    assert page.is_visible("#stop") and "the ranking so far" in page.inner_text("#search-line")
    assert page.evaluate("!current.search || !current.search.done")
    assert page.locator("#ranking li button.play").count() == 0
    first = page.evaluate("document.querySelector('#search-line').innerText")
    page.wait_for_function(f"document.querySelector('#search-line').innerText !== {first!r}")    # it updates
    page.click("#stop")
    # Stop keeps the ranking so far, now final: its moves can be played
    page.wait_for_selector("#ranking:not(.interim) li button.play")
    assert "stopped: the ranking so far" in page.inner_text("#search-line")
    assert not page.is_visible("#stop") and page.locator("#ranking li .move").count() > 0
    assert fits(page)


@pytest.mark.slow
def test_a_followed_game_is_reviewed_on_a_graph(page: Any) -> None:
    start_game(page, ("Ann", "Bob"), viewer=1)
    answer_by_api(page, "false")
    page.wait_for_selector("#review-start")
    page.select_option("#review-seconds", "0.5")
    page.click("#review-start")
    page.wait_for_function("document.querySelectorAll('#graph svg polyline').length"
                           " && current.search && (current.search.verdicts || []).length >= 3", timeout=60_000)
    page.wait_for_function("document.getElementById('review-line').innerText.includes('of')")
    page.click("#review-stop")
    page.wait_for_function("document.getElementById('review-line').innerText.includes('mistakes')", timeout=30_000)
    assert "decisions" in page.inner_text("#review-line") and fits(page)


@pytest.mark.slow
def test_a_finished_game_against_the_ai_is_reviewed_on_a_graph(page: Any, tmp_path: Path) -> None:
    page.check("input[name=mode][value=play]")
    page.select_option("#opponent", "greedy")
    start_game(page, ("Ann", "Bob"), viewer=0)
    answer_by_api(page, "false")
    page.wait_for_selector("#review-start")
    page.select_option("#review-seconds", "0.5")
    page.click("#review-start")
    page.wait_for_selector("#graph svg polyline")
    page.wait_for_function("document.getElementById('review-line').innerText.includes('mistakes')", timeout=240_000)
    dots = page.locator("#graph circle.mistake")
    assert dots.count() > 0
    dots.last.click()                                   # drawn last: on top of any it overlaps
    assert "points lost" in page.inner_text("#verdict") and "a mistake" in page.inner_text("#verdict")
    shots = DOCS / "images" if os.environ.get("ADVISOR_SCREENSHOTS") else tmp_path
    page.locator("#review").screenshot(path=str(shots / "serve-review.png"))
    assert fits(page)
