"""cardlang serve end to end in headless Chromium (Debian's ``chromium``, driven by
Playwright for Python through its executable path; ``playwright install`` is not used).

A person plays a whole game of Hearts (against ``random``) and one of Dominion (against
``bigmoney``) by clicking the first option's button until the end.  Every network
response and every WebSocket frame the page receives is kept, and each message in them
is checked against the cards the seat could not see when the server made it (the tap of
test_serve.py).  Skipped, with the reason, where chromium or Playwright is missing.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "the browser tests need Debian's chromium (apt-get install -y chromium)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need Playwright (pip install playwright)"
)
pytest.importorskip("uvicorn", reason="cardlang serve needs the web extra (uvicorn)")
pytest.importorskip("starlette", reason="cardlang serve needs the web extra (starlette)")

from test_serve import DOMINION, HEARTS, Watch, assert_no_leak, web_game  # noqa: E402

from cardlang.interactive.web import Served  # noqa: E402


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            launched.close()


def play_in_the_page(browser: Any, path: Path, agents: str, seed: int) -> dict[str, Any]:
    """A person at seat 0 clicks the first option until the game is over; what the page
    received, checked."""
    watch = Watch()
    web = web_game(path, [0], agents, seed, tap=watch)
    frames: list[str] = []
    responses: list[Any] = []
    with Served(web) as served:
        page = browser.new_page()
        page.on("response", lambda response: responses.append(response))
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
        page.goto(web.links(served.base)[0])
        # every move a click: the page makes an only move itself after 400 ms, which a
        # loaded machine's click can come after (15 clicks of Hearts' 16 moves, once)
        page.locator("#auto-single").uncheck()
        clicks = 0
        faces: list[str] = []
        while True:
            page.wait_for_selector(
                "button.option:not([disabled]), body[data-over='1']", timeout=30_000
            )
            if page.locator("body[data-over='1']").count():
                break
            if not clicks:  # the cards' faces as first dealt (the table's card_faces)
                faces = page.locator(".card-name.face").all_inner_texts()
            page.locator("button.option").first.click()
            clicks += 1
        result_text = page.locator("#result-text").inner_text()
        # each move's line (its first text), and what it set off (its nested list)
        story = page.locator("#story > li").evaluate_all(
            "items => items.map(item => item.firstChild.textContent)"
        )
        then = page.locator("#story ul.then > li").all_inner_texts()
        bodies = [(r.url, r.status, r.text()) for r in responses]
        page.close()
    assert web.status == "over" and web.result.completed
    # every message of every frame, and every JSON answer, is one the seat was sent,
    # and held no card it could not see when it was made
    checked = 0
    for frame in frames:
        checked += watch.check(0, json.loads(frame))
    for url, status, text in bodies:
        if "/api/" in url and status == 200:
            checked += watch.check(0, json.loads(text))
        else:  # the page and its assets: no game data at all
            assert '"seq":' not in text and web.channels[0].token not in text
            assert_no_leak(text, set().union(*watch.forbidden.values()))
    assert not watch.leaks
    assert checked >= clicks
    return {
        "clicks": clicks,
        "result": result_text,
        "story": story,
        "then": then,
        "web": web,
        "faces": faces,
    }


def test_a_person_plays_hearts_in_the_browser(browser: Any) -> None:
    played = play_in_the_page(browser, HEARTS, "random", 7)
    assert played["clicks"] == 16  # 3 cards passed, 13 tricks
    # the hand of 13 by rank and suit symbol, as the table sent them
    assert len(played["faces"]) >= 13
    assert all(
        re.fullmatch(r"(A|K|Q|J|[0-9]+)[\u2660\u2663\u2665\u2666]", f) for f in played["faces"]
    )
    assert "you win" in played["result"] or "won by" in played["result"]
    story = played["story"]
    assert len(story) == 4 * 3 + 52
    assert sum(line.startswith("You: ") for line in story) == 16
    # the passes of the two seats that do not pass to P0 stay hidden (P3 passes to P0)
    assert sum(line.endswith(" · Random: Pass a card") for line in story) >= 6
    # each trick taken is told: three cards taken and the winner's own put away
    assert sum(" wins the trick" in line for line in played["then"]) == 13


def test_a_person_plays_dominion_in_the_browser(browser: Any) -> None:
    played = play_in_the_page(browser, DOMINION, "bigmoney", 1)
    assert played["clicks"] >= 20
    assert "won by P1" in played["result"]  # buying a Copper each turn loses to Big Money
    assert any(line.startswith("P1 \u00b7 Big Money: ") for line in played["story"])
    assert played["faces"] == []  # no standard cards


def test_a_wrong_link_and_a_stopped_server_say_so(browser: Any, tmp_path: Path) -> None:
    """A link with a wrong token says it is wrong (not "reconnecting..." forever); a page
    whose server went away says the server does not answer after a few tries."""
    web = web_game(HEARTS, [0], "random", 1)
    with Served(web) as served:
        page = browser.new_page()
        page.goto(f"{served.base}/seat/0?token=not-the-token")
        page.wait_for_function(
            "document.getElementById('status').textContent.includes('link is wrong')",
            timeout=20_000,
        )
        page.screenshot(path=str(tmp_path / "wrong-link.png"))
        good = browser.new_page()
        good.goto(web.links(served.base)[0])
        good.wait_for_selector("button.option:not([disabled])", timeout=30_000)
    # the server has stopped: the page tries a few times, then says so
    good.wait_for_function(
        "document.getElementById('status').textContent.includes('does not answer')",
        timeout=30_000,
    )
    good.screenshot(path=str(tmp_path / "server-gone.png"))
    page.close()
    good.close()
