"""cardlang serve: people's seats on web pages (Starlette's TestClient, no browser).

Whole games are played through the HTTP API; a wrong token, a move out of turn, a past
decision and a bad option are refused; every message a seat receives (the state
endpoint and the event stream) is checked, as it is made, against the game state at
that moment: no card of a zone the seat cannot see is ever in it.  The command prints
one link per person's seat and records the game.  The browser tests are in
test_serve_browser.py.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

pytest.importorskip("starlette", reason="cardlang serve needs the web extra (starlette)")
try:
    from starlette.testclient import TestClient
except RuntimeError:  # neither httpx2 nor httpx
    pytest.skip("Starlette's TestClient needs httpx2 (or httpx)", allow_module_level=True)

from cardlang.agents import make_agent  # noqa: E402
from conftest import GAMES, ROOT  # noqa: E402

from cardlang import load_game  # noqa: E402
from cardlang.information.visibility import can_see  # noqa: E402
from cardlang.interactive.session import PERSON  # noqa: E402
from cardlang.interactive.table import card_label  # noqa: E402
from cardlang.interactive.web import WebGame, create_app  # noqa: E402
from cardlang.language.kinds import card_name  # noqa: E402
from cardlang.runs.replay import replay_game  # noqa: E402
from cardlang.runs.store import RunStore  # noqa: E402

KUHN = GAMES / "kuhn_poker.rcy"
HEARTS = GAMES / "hearts.rcy"
DOMINION = GAMES / "dominion.rcy"


def card_names(attrs: Any) -> tuple[str, ...]:
    """A card's names as a table (card_label), the engine's labels (card_name) and the
    readable labels (card_title: "the 7 of Hearts", where it exists) write it."""
    names = [card_label(attrs), card_name(attrs)]
    try:
        from cardlang.engine.labels import card_title
    except ImportError:
        pass
    else:
        names.append(re.sub(r"^the ", "", card_title(attrs)))
    return tuple(names)


def unseen_names(st: Any, seat: int, saw: set[int] | None = None) -> set[str]:
    """The names (as tables and as engine labels write them, lower case) of the cards in
    zones ``seat`` cannot see and never saw (``saw``: the ids of the cards it has seen
    so far, updated here: the cards it passed are no secret to it), less the names of
    cards it sees (Dominion's cards share names: a Copper in another hand is no secret
    while Coppers lie in the supply)."""
    saw = set() if saw is None else saw
    for key, cards in st.zones.items():
        if can_see(seat, key):
            saw.update(cards)
    hidden: set[str] = set()
    seen: set[str] = set()
    for cards in st.zones.values():
        for c in cards:
            into = seen if c in saw else hidden
            into.update(name.lower() for name in card_names(st.cards[c]))
    return hidden - seen


class Watch:
    """The tap of a WebGame: for each message a seat is sent, the names it must not
    hold, taken from the game state as the message is made."""

    def __init__(self) -> None:
        self.web: WebGame | None = None
        self.forbidden: dict[tuple[int, int], set[str]] = {}
        self.sent: dict[tuple[int, int], dict[str, Any]] = {}
        self.leaks: list[str] = []  # found in the game thread, reported by check
        self.saw: dict[int, set[int]] = {}  # per seat, the cards it has seen so far

    def __call__(self, seat: int, message: dict[str, Any]) -> None:
        assert self.web is not None
        key = (seat, message["seq"])
        saw = self.saw.setdefault(seat, set())
        self.forbidden[key] = unseen_names(self.web.session.st, seat, saw)
        self.sent[key] = message
        try:
            assert_no_leak(message, self.forbidden[key])
        except AssertionError as err:
            self.leaks.append(str(err))

    def check(self, seat: int, received: Any) -> int:
        """Check every message in ``received`` (a snapshot, a stream message): each part
        that carries a ``seq`` against the names hidden when it was made.  How many
        parts were checked."""
        assert not self.leaks, self.leaks[0]
        checked = 0
        if isinstance(received, dict):
            if received.get("type") in ("table", "story", "over", "error"):
                key = (seat, received["seq"])
                assert received == self.sent[key], "a seat received what it was not sent"
                assert_no_leak(received, self.forbidden[key])
                checked += 1
            for value in received.values():
                checked += self.check(seat, value)
        elif isinstance(received, list):
            for value in received:
                checked += self.check(seat, value)
        return checked


def assert_no_leak(message: Any, forbidden: set[str]) -> None:
    text = json.dumps(message).lower()
    leaked = sorted(name for name in forbidden if re.search(rf"\b{re.escape(name)}\b", text))
    assert not leaked, f"a seat was sent cards it cannot see: {leaked}\n{text[:2000]}"
    table = message.get("table") if isinstance(message, dict) else None
    if isinstance(table, dict) and "hidden" in table:  # a zone it cannot see: its size only
        assert all(zone["cards"] is None for zone in table["hidden"])
        assert all(zone["cards"] is not None for zone in table["yours"] + table["open"])


def web_game(
    path: Path, people: list[int], agents: str, seed: int, tap: Any = None, **kw: Any
) -> WebGame:
    game = load_game(path)
    specs = [PERSON if p in people else agents for p in range(game.nplayers)]
    seated = [None if p in people else make_agent(s, seed=p) for p, s in enumerate(specs)]
    web = WebGame(game.master(), seed, seated, specs, advisor="ismcts:iterations=10", tap=tap, **kw)
    if isinstance(tap, Watch):
        tap.web = web
    return web


@pytest.fixture(autouse=True)
def stopped() -> Any:
    """Every WebGame made in a test is stopped at its end (a failed test leaves no
    game thread waiting for a move)."""
    made: list[WebGame] = []
    start = WebGame.start

    def starting(self: WebGame) -> None:
        made.append(self)
        start(self)

    WebGame.start = starting  # type: ignore[method-assign]
    try:
        yield
    finally:
        WebGame.start = start  # type: ignore[method-assign]
        for web in made:
            web.stop()
            if web.thread is not None:
                web.thread.join(10)


def http_json(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def wait_for(condition: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.005)
    raise AssertionError("timed out")


def states(client: TestClient, web: WebGame) -> dict[int, dict[str, Any]]:
    out = {}
    for p, channel in web.channels.items():
        r = client.get(f"/api/seat/{p}/state", params={"token": channel.token})
        assert r.status_code == 200, r.text
        out[p] = r.json()
    return out


def to_move(client: TestClient, web: WebGame) -> tuple[int, dict[str, Any]] | None:
    """The person's seat asked now and its state, or None when no one is asked."""
    for p, state in states(client, web).items():
        if state["table"] is not None and state["table"]["decision"] is not None:
            return p, state
    return None


def play_through_api(
    client: TestClient, web: WebGame, watch: Watch | None = None, pick: Any = None
) -> int:
    """Play the people's seats to the end by the API; the number of moves made."""
    moves = 0
    while True:
        asked = wait_for(lambda: to_move(client, web) or web.done.is_set())
        if asked is True:
            return moves
        seat, state = asked
        if watch is not None:
            assert watch.check(seat, state) >= 1
        table = state["table"]
        options = table["table"]["options"]
        assert options
        choice = pick(options) if pick is not None else 0
        r = client.post(
            f"/api/seat/{seat}/move",
            headers={"X-Cardlang-Token": web.channels[seat].token},
            json={"decision": table["decision"], "option": choice},
        )
        assert r.status_code == 200, r.text
        moves += 1
        # the page's decision is gone once the move is taken
        asked_now = table["decision"]
        wait_for(lambda s=seat, d=asked_now: states(client, web)[s]["table"]["decision"] != d)


def test_two_people_play_kuhn_poker_to_the_end_and_it_is_recorded(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    watch = Watch()
    web = web_game(
        KUHN, [0, 1], "random", 3, tap=watch,
        db=db, game_path=KUHN, game_text=KUHN.read_text(),
    )  # fmt: skip
    with TestClient(create_app(web)) as client:
        web.start()
        moves = play_through_api(client, web, watch)
        assert web.done.wait(10) and web.status == "over", web.status
        final = states(client, web)
    assert moves >= 2
    for p, state in final.items():
        watch.check(p, state)
        over = state["over"]["result"]
        assert over["completed"] and over["game_id"] == web.game_id
        assert over["scores"] == list(web.result.scores)
        assert ("you win" in over["text"]) == (p in web.result.winners)
        # the end in the game's words: Kuhn's (end-reason ...) forms, no score parts
        assert over["reason"].startswith(("A player folded", "Showdown")), over["reason"]
        assert over["parts"] == []
        assert state["names"][p] == "you" and "person" in state["names"][1 - p]
        mine = [line["text"] for line in state["story"] if line["mover"] == p]
        assert mine and all(t.startswith("You: ") for t in mine)
    game = load_game(KUHN)
    with RunStore.open(db, create=False) as store:
        stored, choices = store.game(web.game_id), store.choices(web.game_id)
    assert stored.seed == 3 and len(choices) == moves
    replayed, _ = replay_game(game, stored, choices)
    assert replayed.scores == web.result.scores


def test_play_again_deals_a_new_game_at_the_same_table(tmp_path: Path) -> None:
    """Once a game is over, a person's "play again" starts another with a fresh deal
    and fresh agents, behind the same links; each game is recorded; asking while a game
    is on is refused, and so is a wrong token; a server of one game says so."""
    db = tmp_path / "runs.sqlite"
    seeds = iter([11, 12])
    web = web_game(
        KUHN, [0], "random", 3, db=db, game_path=KUHN, game_text=KUHN.read_text(),
        deal_again=lambda: (s := next(seeds), [None, make_agent("random", seed=s)]),
    )  # fmt: skip
    token = web.channels[0].token
    with TestClient(create_app(web)) as client:
        again = "/api/seat/0/again"
        web.start()
        assert client.post(again, headers={"X-Cardlang-Token": "x" * 32}).status_code == 403
        wait_for(lambda: to_move(client, web) or web.done.is_set())
        if not web.done.is_set():
            r = client.post(again, headers={"X-Cardlang-Token": token})
            assert r.status_code == 409 and "is playing" in r.json()["error"]
        play_through_api(client, web)
        assert web.done.wait(10) and web.status == "over"
        first = web.game_id
        assert states(client, web)[0]["over"]["result"]["again"] is True
        r = client.post(again, headers={"X-Cardlang-Token": token})
        assert r.status_code == 200 and "game 2 at this table" in r.json()["message"], r.text
        assert "11" not in r.text  # the new seed is the operator's only
        state = states(client, web)[0]
        assert state["game"] == 2 and "seed" not in state and web.seed == 11
        assert state["over"] is None and state["status"] == "playing"
        play_through_api(client, web)
        assert web.done.wait(10) and web.status == "over" and web.game_id != first
    with RunStore.open(db, create=False) as store:
        assert [store.game(g).seed for g in (first, web.game_id)] == [3, 11]
    single = web_game(KUHN, [0], "random", 3)
    with TestClient(create_app(single)) as client:
        single.start()
        play_through_api(client, single)
        r = client.post(again, headers={"X-Cardlang-Token": single.channels[0].token})
        assert r.status_code == 404 and "one game" in r.json()["error"]


def test_wrong_tokens_moves_out_of_turn_and_bad_options_are_refused() -> None:
    web = web_game(KUHN, [0, 1], "random", 0)
    with TestClient(create_app(web)) as client:
        web.start()
        seat, state = wait_for(lambda: to_move(client, web))
        other = 1 - seat
        token, other_token = web.channels[seat].token, web.channels[other].token
        decision = state["table"]["decision"]
        url = f"/api/seat/{seat}/move"

        def post(u: str, token: str | None = None, **body: Any) -> Any:
            headers = {} if token is None else {"X-Cardlang-Token": token}
            return client.post(u, headers=headers, json=body)

        for bad in (other_token, "", "x" * 32, None):
            r = post(url, token=bad, decision=decision, option=0)
            assert r.status_code == 403 and "wrong token" in r.json()["error"]
        assert (
            client.get(f"/api/seat/{seat}/state", params={"token": other_token}).status_code == 403
        )
        assert client.get(f"/api/seat/{seat}/state").status_code == 403
        assert client.get("/api/seat/7/state", params={"token": token}).status_code == 404
        r = post(f"/api/seat/{other}/move", token=other_token, decision=None, option=0)
        assert r.status_code == 409 and "not your turn" in r.json()["error"]
        r = post(url, token=token, decision=decision - 1, option=0)
        assert r.status_code == 409 and "is past" in r.json()["error"]
        n = len(state["table"]["table"]["options"])
        for option in (n, -1, "0", 1.5, None):
            r = post(url, token=token, decision=decision, option=option)
            assert r.status_code == 400 and "option must be" in r.json()["error"]
        r = client.post(url, content=b"not json")
        assert r.status_code == 403
        # the stream refuses a wrong token with a code the page can read (4403)
        with pytest.raises(WebSocketDisconnect) as closed:
            with client.websocket_connect(f"/api/seat/{seat}/stream?token={other_token}") as ws:
                ws.receive_json()
        assert closed.value.code == 4403
        # hostile requests: a 4xx each, never a 500, the token checked before the body
        bad = client.post(url, params={"token": "jeton-\u00e9\u2603"}, json={"option": 0})
        assert bad.status_code == 403
        huge = b"[" * 300_000
        assert client.post(url, content=huge).status_code == 403  # no token: body unread
        good = {"X-Cardlang-Token": token}
        assert client.post(url, headers=good, content=huge).status_code == 413
        deep = b"[" * 30_000 + b"]" * 30_000  # under the cap, far past any parser's depth
        r = client.post(url, headers=good, content=deep)
        assert r.status_code == 400 and "nests too deeply" in r.json()["error"]
        assert client.post(url, headers=good, content=b"[1, 2]").status_code == 400
        # the advisor answers for the decision asked now, and only to its seat
        r = post(f"/api/seat/{seat}/advice", token=token)
        assert r.status_code == 200 and len(r.json()["values"]) == n
        assert len(r.json()["verdicts"]) == n and r.json()["words"][0].startswith("wins about")
        assert post(f"/api/seat/{other}/advice", token=other_token).status_code == 409
        r = post(url, token=token, decision=decision, option=0)
        assert r.status_code == 200
        r = post(url, token=token, decision=decision, option=0)  # the same move again
        assert r.status_code == 409
        # the page and the index hold no game data
        page = client.get(f"/seat/{seat}")
        assert page.status_code == 200 and "seat.js" in page.text and token not in page.text
        assert client.get("/static/seat.js").status_code == 200
        assert client.get("/seat/9").status_code == 404
        play_through_api(client, web)
        r = post(url, token=token, decision=None, option=0)
        assert r.status_code == 409 and "over" in r.json()["error"]


@pytest.mark.parametrize("people", [[0, 2], [1]])
def test_no_message_holds_a_card_the_seat_cannot_see(people: list[int]) -> None:
    """Hearts with people at some seats: the tap checks every message as it is made
    (the state at that moment); every state fetched and every message of the stream is
    one the seat was sent."""
    watch = Watch()
    web = web_game(HEARTS, people, "random", 5, tap=watch)
    received: list[Any] = []
    with TestClient(create_app(web)) as client:
        seat = people[0]
        with client.websocket_connect(
            f"/api/seat/{seat}/stream?token={web.channels[seat].token}"
        ) as ws:

            def read() -> None:
                while True:
                    message = ws.receive_json()
                    received.append(message)
                    if message["type"] in ("over", "error"):
                        return

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            web.start()
            moves = play_through_api(client, web, watch)
            reader.join(20)
        assert web.status == "over" and moves == 16 * len(people)  # 3 passes, 13 tricks
    assert received[0]["type"] == "state" and received[-1]["type"] == "over"
    assert sum(watch.check(seat, m) for m in received) >= 13 + 16
    stories = [m for m in received if m["type"] == "story"]
    told = " ".join(m["text"] for m in stories)
    assert " · Random: Pass a card" in told  # the others' passes, their cards unnamed
    assert sum(m["text"].startswith("You: ") for m in stories) == 16
    # each of the 52 cards played to a trick is told to the seat
    assert len(stories) == 4 * 3 + 52
    assert sum(not m["hidden"] for m in stories) >= 52


def test_the_command_prints_a_link_per_person_and_records_the_game(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    db = tmp_path / "runs.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardlang", "serve", str(KUHN), "--people", "0,1",
         "--port", "0", "--db", str(db), "--seed", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        header = proc.stdout.readline()
        links = [proc.stdout.readline().split(": ", 1)[1].strip() for _ in range(2)]
        assert "serving on http://127.0.0.1:" in header
        tokens = [re.search(r"/seat/(\d)\?token=(\S+)$", link) for link in links]
        assert all(tokens) and tokens[0][2] != tokens[1][2]  # type: ignore[index]
        base = header.split("serving on ")[1].split()[0]
        state: dict[str, Any] = {}
        for _ in range(400):
            asked = None
            for m in tokens:
                seat, token = m[1], m[2]  # type: ignore[index]
                state = http_json(f"{base}/api/seat/{seat}/state?token={token}")
                if state["over"] is not None:
                    break
                if state["table"] and state["table"]["decision"] is not None:
                    asked = (seat, token, state["table"]["decision"])
            if state["over"] is not None:
                break
            if asked:
                seat, token, decision = asked
                body = {"decision": decision, "option": 0}
                http_json(f"{base}/api/seat/{seat}/move?token={token}", body)
            time.sleep(0.02)
        assert state["over"]["result"]["game_id"] == 1
        assert "seed" not in state and "seed" not in state["over"]["result"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            http_json(f"{base}/api/seat/0/state?token=x{tokens[0][2]}")  # type: ignore[index]
        assert refused.value.code == 403
        assert "recorded as game 1" in proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, (out, err)
    with RunStore.open(db, create=False) as store:
        assert store.game(1).seed == 2


def test_the_command_refuses_bad_seats() -> None:
    from helpers import run_cli

    for extra, message in [
        (["--people", "0,5"], "seats 0 to 1"),
        (["--people", "a"], "seat numbers"),
        (["--people", "0,0"], "seat 0 is named twice"),
        (["--seats", "3"], "has 2 seats"),
        (["--people", "0", "--agents", "random,random"], "the other seats are 1"),
        (["--seats", "1", "--people", "0"], "not allowed with"),
    ]:
        bad = run_cli("serve", str(KUHN), *extra, stdin="")
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    "people",
    ["0,0", "1,0,1", "", " ", ",", "0,", ",1", "0,,1", "-1", "+1", "1.0", "1_0", "0x1",
     "\u0661", "1e0", "0;1", pytest.param("9" * 5000, id="5000-digits")],
)  # fmt: skip
def test_a_malformed_people_list_is_a_usage_error_with_the_usage(
    people: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each seat named once, in ASCII digits: anything else is argparse's usage error
    (the usage, then the error; exit 2), before a game is loaded."""
    from cardlang.cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(["serve", str(KUHN), f"--people={people}", "--port", "0"])
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    assert err.startswith("usage: cardlang serve") and "argument --people:" in err, err
    assert ("named twice" in err) == (people in ("0,0", "1,0,1")), err
    assert "Traceback" not in err and len(err) < 2000


def test_the_people_list_is_read_each_seat_once_in_order() -> None:
    from cardlang.cli.serve import seat_list

    assert seat_list("2,0") == [0, 2] and seat_list(" 1 , 3 ") == [1, 3]
