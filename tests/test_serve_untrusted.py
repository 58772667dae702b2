"""cardlang serve against untrusted pages and clients (issue 53).

- No message a seat receives tells it the deal: whole served games (Hearts with three
  people, Kuhn poker with two over three deals) are played through the HTTP and
  WebSocket API, and every message each seat receives (the state endpoint, each stream
  message, each answer to a move, an advice or a "play again") is walked whole.  It fails
  on a key that names chance (seed, rng, random), on any number or text equal to the
  game's seed or to a state of its random generator, and on the name of any card the
  seat's own ``PlayerView`` (the engine's word on what it may know) has not shown it in
  this game.
- A failed game's error reaches the pages without the seed it names; the operator's
  terminal has it whole.  A served game's seed is drawn from the whole 63-bit range.
- A client that sends half a request head and stalls is dropped after the head timeout,
  and the server still answers meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="cardlang serve needs the web extra (starlette)")
pytest.importorskip("uvicorn", reason="cardlang serve needs the web extra (uvicorn)")
try:
    from starlette.testclient import TestClient
except RuntimeError:  # neither httpx2 nor httpx
    pytest.skip("Starlette's TestClient needs httpx2 (or httpx)", allow_module_level=True)

from cardlang.agents import make_agent  # noqa: E402
from test_serve import HEARTS, KUHN, card_names, http_json, wait_for, web_game  # noqa: E402

from cardlang import load_game  # noqa: E402
from cardlang.cli.serve import unguessable_seed  # noqa: E402
from cardlang.information.views import PlayerView  # noqa: E402
from cardlang.interactive.session import PERSON  # noqa: E402
from cardlang.interactive.web import HEAD_TIMEOUT, Served, WebGame, create_app  # noqa: E402

#: A key that names chance: nothing a seat receives may carry one.
CHANCE_KEY = re.compile(r"seed|rng|random|entropy|(^|_)state$", re.IGNORECASE)
#: Seeds far above any count a page shows (turns, scores, sizes), so that a number equal
#: to one is the seed and nothing else.
SEEDS = {
    "hearts": [7_301_958_466_135_022_117],
    "kuhn": [5_550_123_456_789_012_345, 6_123_456_789_000_111_222, 4_000_000_007_777_777_777],
}


class Oracle:
    """The tap of a WebGame.  For each message a seat is sent, as it is made: the card
    names it may not know then (every card's names less those its ``PlayerView`` has
    shown it in this game so far); and every secret the game has held (its seeds, each
    state of its random generator)."""

    def __init__(self) -> None:
        self.web: WebGame | None = None
        self.forbidden: dict[tuple[int, int], set[str]] = {}
        self.latest: dict[int, int] = {}  # per seat, the seq of its last message
        self.secrets: set[int] = set()
        self.seen: dict[tuple[Any, int], set[str]] = {}  # (session, seat): names shown

    def __call__(self, seat: int, message: dict[str, Any]) -> None:
        assert self.web is not None
        session = self.web.session
        st = session.st
        self.secrets.update({session.seed, st.seed, st.rng})
        seen = self.seen.setdefault((session, seat), set())
        view = PlayerView.live(st, seat, self.web.game, ())
        try:
            for cards in view.visible.values():
                seen.update(n.lower() for c in cards for n in card_names(c))
        finally:
            view.close()
        every = {
            n.lower() for ids in st.zones.values() for c in ids for n in card_names(st.cards[c])
        }
        self.forbidden[(seat, message["seq"])] = every - seen
        self.latest[seat] = message["seq"]


def chance_in(node: Any, secrets: set[int], path: str = "$") -> list[str]:
    """Every place in a JSON tree from which the deal follows: a key that names chance,
    a number equal to a secret, a text holding one (in decimal or hex)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if CHANCE_KEY.search(str(key)):
                found.append(f"{path}.{key}: a key that names chance ({value!r})")
            found += chance_in(value, secrets, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += chance_in(value, secrets, f"{path}[{i}]")
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        if node in secrets:
            found.append(f"{path}: {node} is the seed or a random state")
    elif isinstance(node, str):
        text = node.lower()
        found += [
            f"{path}: {node!r} holds the secret {s}"
            for s in secrets
            if str(s) in text or f"{s:x}" in text
        ]
    return found


def hidden_in(node: Any, seat: int, oracle: Oracle, seq: int) -> list[str]:
    """The names in ``node`` of cards hidden from ``seat`` when it was made: each part
    that carries a ``seq`` against the names hidden at that seq, the rest against
    ``seq`` (the seat's last message when it was received)."""
    if isinstance(node, dict) and isinstance(node.get("seq"), int):
        seq = node["seq"]
    forbidden = oracle.forbidden.get((seat, seq), set())
    found: list[str] = []
    if isinstance(node, dict):
        for value in node.values():
            found += hidden_in(value, seat, oracle, seq)
    elif isinstance(node, list):
        for value in node:
            found += hidden_in(value, seat, oracle, seq)
    elif isinstance(node, str):
        text = node.lower()
        found += [
            f"{node!r} names {name!r}, hidden from P{seat}"
            for name in sorted(forbidden)
            if re.search(rf"\b{re.escape(name)}\b", text)
        ]
    return found


class Pages:
    """The people's pages of a served game: each seat's stream read to its end, and
    every answer a seat's requests get.  ``received[p]``: (the seat's last seq when it
    came, the message) for each message seat p received."""

    def __init__(self, client: TestClient, web: WebGame, oracle: Oracle, games: int) -> None:
        self.client, self.web, self.oracle, self.games = client, web, oracle, games
        self.received: dict[int, list[tuple[int, Any]]] = {p: [] for p in web.people}
        self.readers: list[threading.Thread] = []

    def keep(self, seat: int, message: Any) -> Any:
        self.received[seat].append((self.oracle.latest.get(seat, 0), message))
        return message

    def listen(self, stack: contextlib.ExitStack) -> None:
        """Open each seat's stream and read it in a thread until its last game ends."""
        for p, channel in self.web.channels.items():
            ws = stack.enter_context(
                self.client.websocket_connect(f"/api/seat/{p}/stream?token={channel.token}")
            )
            reader = threading.Thread(target=self._read, args=(p, ws), daemon=True)
            reader.start()
            self.readers.append(reader)

    def _read(self, seat: int, ws: Any) -> None:
        ends = 0
        while ends < self.games:
            message = self.keep(seat, ws.receive_json())
            ends += message["type"] in ("over", "error")

    def state(self, seat: int) -> dict[str, Any]:
        token = self.web.channels[seat].token
        r = self.client.get(f"/api/seat/{seat}/state", params={"token": token})
        assert r.status_code == 200, r.text
        return self.keep(seat, r.json())

    def post(self, seat: int, what: str, body: dict[str, Any]) -> Any:
        headers = {"X-Cardlang-Token": self.web.channels[seat].token}
        r = self.client.post(f"/api/seat/{seat}/{what}", headers=headers, json=body)
        assert r.status_code == 200, r.text
        return self.keep(seat, r.json())

    def asked(self) -> tuple[int, dict[str, Any]] | None:
        for p in self.web.people:
            state = self.state(p)
            if state["table"] is not None and state["table"]["decision"] is not None:
                return p, state
        return None

    def play(self, advice_every: int = 5) -> int:
        """Play the people's seats to the end of this game (the first option each time,
        asking the advisor now and then); the number of moves."""
        moves = 0
        while asked := wait_for(lambda: self.asked() or self.web.done.is_set()):
            if asked is True:
                return moves
            seat, state = asked
            decision = state["table"]["decision"]
            if moves % advice_every == 0:
                self.post(seat, "advice", {})
            self.post(seat, "move", {"decision": decision, "option": 0})
            moves += 1
            wait_for(lambda s=seat, d=decision: self.state(s)["table"]["decision"] != d)
        return moves


def play_served(web: WebGame, oracle: Oracle, games: int) -> Pages:
    """Play ``games`` deals of ``web`` through its API (a "play again" between them)."""
    with TestClient(create_app(web)) as client, contextlib.ExitStack() as stack:
        pages = Pages(client, web, oracle, games)
        pages.listen(stack)
        web.start()
        for game in range(games):
            assert pages.play() > 0
            assert web.done.wait(20) and web.status == "over", web.status
            for p in web.people:
                pages.state(p)
            if game < games - 1:
                pages.post(web.people[game % len(web.people)], "again", {})
        for reader in pages.readers:
            reader.join(30)
            assert not reader.is_alive(), "a seat's stream did not reach the end of its game"
    return pages


@pytest.mark.parametrize(
    ("name", "path", "people"),
    [("hearts", HEARTS, [0, 1, 3]), ("kuhn", KUHN, [0, 1])],
    ids=["hearts", "kuhn"],
)
def test_no_message_a_seat_receives_tells_it_the_deal(
    name: str, path: Path, people: list[int]
) -> None:
    seeds = SEEDS[name]
    later = iter(seeds[1:])
    oracle = Oracle()

    def deal_again() -> tuple[int, list[Any]]:
        seed = next(later)
        seats = range(web.game.nplayers)
        return seed, [None if p in people else make_agent("random", seed=p) for p in seats]

    web = web_game(path, people, "random", seeds[0], tap=oracle, deal_again=deal_again)
    oracle.web = web
    pages = play_served(web, oracle, games=len(seeds))
    assert set(seeds) <= oracle.secrets and all(s > 2**40 for s in oracle.secrets)
    problems: list[str] = []
    for seat, received in pages.received.items():
        assert sum(m.get("type") == "over" for _, m in received) >= len(seeds)
        for seq, message in received:
            problems += chance_in(message, oracle.secrets)
            problems += hidden_in(message, seat, oracle, seq)
    distinct = sorted(set(problems))
    assert not distinct, f"{len(problems)} leaks, among them:\n" + "\n".join(distinct[:12])
    # the checks can fail: an opponent's card and the seed are found wherever they are
    unseen = sorted(oracle.forbidden[(people[0], 1)])
    assert unseen and hidden_in({"seq": 1, "a": [f"P1: {unseen[0]}"]}, people[0], oracle, 1)
    assert chance_in({"game": {"n": seeds[0]}}, oracle.secrets)
    assert chance_in([f"deal {seeds[0]:x}"], oracle.secrets) and chance_in({"rngState": 1}, set())


class Failing:
    """An agent that raises at its first decision: the game fails."""

    def choose(self, view: Any, options: Any) -> int:
        raise ValueError("this agent gives up")


def test_a_failed_games_error_reaches_the_pages_without_the_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed = 8_765_432_109_876_543_210
    sent: list[tuple[int, dict[str, Any]]] = []
    game = load_game(KUHN)
    web = WebGame(
        game.master(), seed, [None, Failing()], [PERSON, "failing"],
        advisor="random", tap=lambda seat, message: sent.append((seat, message)),
    )  # fmt: skip
    with TestClient(create_app(web)) as client:
        web.start()
        while not web.done.wait(0.05):  # the person moves until the agent is asked
            if web.fronts[0].waiting is not None:
                web.fronts[0].submit(None, 0)
        state = client.get("/api/seat/0/state", params={"token": web.channels[0].token})
    assert web.status == "failed"
    error = state.json()["error"]
    assert error is not None and "this agent gives up" in error["message"]
    assert all(not chance_in(m, {seed}) for _, m in sent) and not chance_in(error, {seed})
    assert f"seed {seed}" in capsys.readouterr().err  # the operator can replay it


def test_a_served_games_seed_is_drawn_from_the_whole_range() -> None:
    """A seed below 10**9 is found by dealing each until one gives the seat's hand."""
    drawn = [unguessable_seed(None) for _ in range(64)]
    assert max(drawn) > 2**62 and len(set(drawn)) == 64
    assert all(0 <= s < 2**63 for s in drawn) and unguessable_seed(7) == 7


def half_heads(address: tuple[str, int], count: int) -> list[socket.socket]:
    """``count`` connections that each send half a request head, then stall."""
    stalled = []
    for i in range(count):
        sock = socket.create_connection(address, timeout=5)
        sock.sendall(b"GET /api/seat/0/state?token=x HTTP/1.1\r\nHost: x\r\nX-Slow: %d" % i)
        stalled.append(sock)
    return stalled


def is_dropped(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (EOF, or a reset)."""
    sock.settimeout(0.01)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def open_fds() -> int:
    return len(list(Path("/proc/self/fd").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="counts fds in /proc")
def test_a_stalled_request_head_is_dropped_and_the_server_still_answers() -> None:
    """50 clients send half a head and stall, one trickles its head a byte at a time:
    each is dropped once HEAD_TIMEOUT has passed (not before), the fds they held are
    given back, and the server answers whole requests all along.  A page's WebSocket,
    whose head came whole, stays open; a page whose move's body stalls is answered 408."""
    from websockets.sync.client import connect

    web = web_game(KUHN, [0], "random", 3)
    with Served(web) as served, contextlib.ExitStack() as stack:
        address = served.sock.getsockname()[:2]
        token = web.channels[0].token
        state = f"{served.base}/api/seat/0/state?token={token}"
        assert http_json(state)["type"] == "state"  # the server is up
        stream = served.base.replace("http", "ws", 1) + f"/api/seat/0/stream?token={token}"
        page = stack.enter_context(connect(stream, open_timeout=5))
        assert json.loads(page.recv(timeout=5))["type"] == "state"
        before = open_fds()
        started = time.monotonic()
        stalled = half_heads(address, 50)
        half_body = socket.create_connection(address, timeout=HEAD_TIMEOUT + 3)
        half_body.sendall(
            b"POST /api/seat/0/move HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n"
            b'X-Cardlang-Token: %s\r\n\r\n{"option"' % token.encode()
        )
        trickler = socket.create_connection(address, timeout=5)
        trickler.sendall(b"GET / HTTP/1.1\r\n")
        assert http_json(state)["type"] == "state"  # answered meanwhile
        during = open_fds()
        while time.monotonic() - started < HEAD_TIMEOUT - 1:
            with contextlib.suppress(OSError):
                trickler.sendall(b"X")
            time.sleep(0.25)
        assert not any(is_dropped(s) for s in [*stalled, trickler]), "dropped too soon"
        wait_for(lambda: all(is_dropped(s) for s in [*stalled, trickler]), timeout=4)
        waited = time.monotonic() - started
        assert half_body.recv(1024).startswith(b"HTTP/1.1 408 ")
        half_body.close()
        for sock in [*stalled, trickler]:
            sock.close()
        after = wait_for(lambda: (n := open_fds()) <= before and n, timeout=5)
        assert http_json(state)["type"] == "state"
        assert page.ping().wait(5), "the page's WebSocket was dropped with the stalled heads"
    print(f"fds: {before} before, {during} with 51 stalled heads and a body, {after} after; "
          f"all dropped {waited:.1f} s after they began (timeout {HEAD_TIMEOUT:g} s)")  # fmt: skip
    assert waited <= HEAD_TIMEOUT + 3
