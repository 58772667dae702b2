"""People's seats in a browser: one game served on localhost (``cardlang serve``).

The game runs in a thread of its own (``WebGame``), with the one play loop of the
session (session.py).  A person's seat is a ``PersonSeat`` whose front end
(``WebFront``) publishes the seat's table and then blocks until the seat's page posts
a move.  Everything a page receives is built, in the game thread, from that seat's side
only: its table (table.py, from its ``PlayerView``: no other seat's hidden card is ever
in it) and the story of the moves as that seat may know them (teller.py).  No message
carries the game's seed or its random state, from which every hand follows: the server
tells the seed to its operator only (its terminal), and the pages number their games
instead.  Each seat has a secret token (``secrets.token_urlsafe``), carried by its link;
the server refuses a request with a wrong token (403), and a move out of turn or for a
past decision (409).

HTTP (Starlette; served by uvicorn):

- ``GET /seat/{seat}?token=T``: the page (static HTML and JS: no game data in it);
- ``GET /api/seat/{seat}/state?token=T``: the seat's state (``WebGame.snapshot``);
- ``WS /api/seat/{seat}/stream?token=T``: the state, then each message as it comes:
  ``table`` (the seat's table; with options and a ``decision`` number at its turn),
  ``story`` (one move as the seat is told it), ``over`` (the result), ``error``,
  ``again`` (another game at the table: ``game``, its number here);
- ``POST /api/seat/{seat}/move`` ``{"token", "decision", "option"}``: the seat's move;
- ``POST /api/seat/{seat}/advice`` ``{"token"}``: the advisor's estimates of the options.

Starlette and uvicorn are imported here only (the ``web`` extra): nothing else in
cardlang imports this module but ``cardlang serve``.  A client gets ``HEAD_TIMEOUT``
seconds to send a request head (``head_timed``): one that stalls is dropped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import queue
import secrets
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from cardlang.engine.protocol import Engine
from cardlang.errors import AgentError, RuleError
from cardlang.interactive.session import (
    PERSON,
    Abandoned,
    Advice,
    PersonSeat,
    Seating,
    Session,
)
from cardlang.interactive.table import Table, seat_view, table_of
from cardlang.interactive.teller import Teller, seat_name
from cardlang.runs.ending import Ending, ending_of

STATIC = Path(__file__).resolve().parent / "static"

#: ``tap(seat, message)``: told of every message a seat is sent, in the game thread, as
#: it is made (while the state is as the message shows it): for tests.
Tap = Callable[[int, dict[str, Any]], None]

_STOP = object()


class Channel:
    """What one person's seat has been sent, and the streams it is sent to now."""

    def __init__(self, seat: int, token: str) -> None:
        self.seat = seat
        self.token = token
        self.seq = 0
        self.table: dict[str, Any] | None = None  # the latest table message
        self.story: list[dict[str, Any]] = []
        self.over: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.streams: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]] = []


class WebFront:
    """The front end of one person's seat: ``decide`` publishes the table with its
    options and waits for the page's move (in the game thread)."""

    def __init__(self, web: WebGame, seat: int) -> None:
        self.web = web
        self.seat = seat
        self.answers: queue.Queue[Any] = queue.Queue()
        self.lock = threading.Lock()
        self.decision = 0  # the number of the decision asked now (or last)
        self.waiting: tuple[Table, Callable[[], Advice]] | None = None
        self.advising = False

    def decide(self, table: Table, advise: Callable[[], Advice]) -> int:
        self.web.moved(skip=self.seat)
        with self.lock:
            self.decision += 1
            self.waiting = (table, advise)
            decision = self.decision
        self.web.publish_table(self.seat, table, decision)
        answer = self.answers.get()
        if answer is _STOP:
            raise Abandoned("the server stopped")
        return int(answer)

    def submit(self, decision: Any, option: Any) -> tuple[int, str]:
        """A move from the page: (HTTP status, message)."""
        with self.lock:
            if self.web.status != "playing":
                return 409, f"the game is {self.web.status}"
            if self.waiting is None:
                return 409, f"not your turn: P{self.web.to_move} is to move"
            if decision is not None and decision != self.decision:
                return 409, f"decision {decision} is past: the decision now is {self.decision}"
            if self.advising:
                return 409, "the advisor is still thinking; wait for its estimates"
            options = self.waiting[0].options
            if type(option) is not int or not 0 <= option < len(options):
                return 400, f"option must be a number from 0 to {len(options) - 1}"
            self.waiting = None
        self.answers.put(option)
        return 200, options[option]

    def advice(self) -> tuple[int, Any]:
        """The advisor's estimates for the decision asked now (runs the advisor)."""
        with self.lock:
            if self.waiting is None:
                return 409, "not your turn"
            if self.advising:
                return 409, "the advisor is already thinking"
            self.advising = True
            table, advise = self.waiting
            decision = self.decision
        try:
            advice = advise()  # the game thread waits: the view holds still meanwhile
        finally:
            with self.lock:
                self.advising = False
        return 200, {"decision": decision, "options": list(table.options), **advice.to_json()}


class WebGame:
    """One game with people's seats on web pages and agents in the others.

    ``agents[p]`` is the agent of seat p, or None for a person's seat; ``specs[p]`` the
    spec it is recorded under (PERSON for a person).  ``start()`` runs it in a thread;
    when it ends it is written into ``db`` (unless None) and ``on_end`` is called.
    With ``deal_again`` (a fresh seed and fresh agents for the same seats), a person
    may ask for another game once this one is over (``again``): the same links, a new
    deal.
    """

    def __init__(
        self,
        master: Engine,
        seed: int,
        agents: Sequence[Any | None],
        specs: Sequence[str],
        *,
        advisor: str | None = None,  # None: the game's (session.default_advisor)
        db: Path | None = None,
        game_path: Path | None = None,
        game_text: str = "",
        params: dict[str, str] | None = None,
        tap: Tap | None = None,
        deal_again: Callable[[], tuple[int, Sequence[Any | None]]] | None = None,
        on_end: Callable[[WebGame], None] | None = None,
    ) -> None:
        self.game = master.game
        self.master, self.advisor, self.specs = master, advisor, list(specs)
        self.people = [p for p, a in enumerate(agents) if a is None]
        self.channels = {p: Channel(p, secrets.token_urlsafe(24)) for p in self.people}
        self.names = [PERSON if a is None else s for a, s in zip(agents, specs, strict=True)]
        self.db, self.game_path, self.game_text = db, game_path, game_text
        self.params = dict(params or {})
        self.tap = tap
        self.deal_again, self.on_end = deal_again, on_end
        self.lock = threading.Lock()  # guards the channels
        self.again_lock = threading.Lock()  # one new game at a time
        self.number = 0  # the game's number at this table (1, 2, ...): what pages see
        self._begin(seed, agents)

    def _begin(self, seed: int, agents: Sequence[Any | None]) -> None:
        """A game of ``seed`` with ``agents`` in the agents' seats (not started)."""
        self.seed = seed  # the operator's only: no page is told it
        self.number += 1
        self.session = Session(self.master, seed, advisor=self.advisor, narrate=self._narrate)
        self.fronts = {p: WebFront(self, p) for p in self.people}
        seated = [
            PersonSeat(self.fronts[p], self.session) if p in self.people else agents[p]
            for p in range(len(self.specs))
        ]
        self.seating = Seating(seated, list(self.specs))
        self.teller = Teller(self.game, self.people)
        self.status = "playing"  # "over", "failed", "stopped"
        self.result: Any = None
        self.game_id: int | None = None
        self.thread: threading.Thread | None = None
        self.done = threading.Event()
        self.to_move: int | None = None  # the seat to move, as the game thread last saw

    def again(self) -> tuple[int, str]:
        """Another game at the same table, once this one is over (a fresh deal, the
        same links): (HTTP status, what happened)."""
        if self.deal_again is None:
            return 404, "this server plays one game"
        with self.again_lock:
            if self.status not in ("over", "failed"):
                return 409, f"the game is {self.status}: another starts once it is over"
            self.done.wait()  # the game thread has written its record and stopped
            seed, agents = self.deal_again()
            with self.lock:  # each seat starts afresh: what the pages show is cleared
                for channel in self.channels.values():
                    channel.table, channel.story, channel.over, channel.error = None, [], None, None
            self._begin(seed, agents)
            for p in self.people:
                self.publish(p, {"type": "again", "game": self.number})
            self.start()
        return 200, f"a new game: game {self.number} at this table"

    # ------------------------------------------------------------ the game thread
    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="cardlang-game", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Leave the game unfinished (the server stops): nothing is recorded."""
        if self.status == "playing":
            self.status = "stopped"
        for front in self.fronts.values():
            front.answers.put(_STOP)

    def _run(self) -> None:
        try:
            self.moved()  # the table as dealt
            result = self.session.play(self.seating)
            self.moved()
            self.result = result
            ending = ending_of(self.session.master, self.session.st, self.game)
            if self.db is not None and self.game_path is not None:
                self.game_id = self.session.save(
                    self.db,
                    self.seating,
                    game_path=self.game_path,
                    game_text=self.game_text,
                    params=self.params,
                )
            self.status = "over"
            for p in self.people:
                over = self._result_of(result, p, ending)
                self.publish(p, {"type": "over", "result": over})
            if self.on_end is not None:
                self.on_end(self)
        except Abandoned:
            self.status = "stopped"
        except Exception as err:  # an agent's failure, a rule error: the pages are told
            self.status = "failed"
            print(f"cardlang serve: the game failed: {_error_text(err)}", file=sys.stderr)
            text = _error_text(err, seedless=True)
            for p in self.people:
                self.publish(p, {"type": "error", "message": text})
        finally:
            self.done.set()

    def _narrate(self, seat: int, who: str, option: Any, label: str) -> None:
        """The session's narrator: a move is about to be applied."""
        self.moved()
        self.teller.before(self.session.st, seat, who, option, label)

    def moved(self, skip: int | None = None) -> None:
        """The state changed (the last move is applied): tell each person's seat the
        move and show it its table (but seat ``skip``, which is about to be asked)."""
        st = self.session.st
        self.to_move = None if st.is_over else st.mover
        for p, line in self.teller.after(st).items():
            story = dataclasses.asdict(line)
            self.publish(p, {"type": "story", **story})
        for p in self.people:
            if p == skip:
                continue
            view = seat_view(st, p, self.game)
            self.publish_table(p, table_of(view, ()), None)

    def publish_table(self, seat: int, table: Table, decision: int | None) -> None:
        data = json.loads(json.dumps(dataclasses.asdict(table)))
        channel = self.channels[seat]
        last = channel.table
        if decision is None and last is not None and last["table"] == data:
            return  # nothing new for this seat
        self.publish(seat, {"type": "table", "table": data, "decision": decision})

    def publish(self, seat: int, message: dict[str, Any]) -> None:
        channel = self.channels[seat]
        with self.lock:
            channel.seq += 1
            # as JSON data (lists, not tuples): what is kept is what is sent
            message = json.loads(json.dumps({**message, "seq": channel.seq}))
            if self.tap is not None:
                self.tap(seat, message)
            kind = message["type"]
            if kind == "table":
                channel.table = message
            elif kind == "story":
                channel.story.append(message)
            elif kind == "over":
                channel.over = message
            elif kind == "error":
                channel.error = message
            for loop, stream in channel.streams:
                loop.call_soon_threadsafe(stream.put_nowait, message)

    def _result_of(self, result: Any, seat: int, ending: Ending) -> dict[str, Any]:
        winners = list(result.winners)
        if not result.completed:
            text = f"the game was cut off ({result.end_reason})"
        elif seat in winners:
            text = "you win" + (" (shared)" if len(winners) > 1 else "")
        else:
            text = "won by " + ", ".join(f"P{w}" for w in winners)
        return {
            "scores": list(result.scores),
            "winners": winners,
            "completed": bool(result.completed),
            "end_reason": result.end_reason,
            "reason": ending.reason if result.completed else "",  # the game's own words
            "parts": [[text, list(values)] for text, values in ending.parts],
            "text": text,
            "game_id": self.game_id,
            "again": self.deal_again is not None,  # the page offers another game
        }

    # ------------------------------------------------------------ the server side
    def seat_of(self, seat: int, token: str | None) -> Channel | None:
        """The seat's channel when ``token`` is its token, else None."""
        channel = self.channels.get(seat)
        if channel is None or token is None:
            return None
        # bytes: compare_digest refuses a str with non-ASCII characters (a 500 before)
        given = str(token).encode("utf-8", "surrogatepass")
        return channel if secrets.compare_digest(channel.token.encode(), given) else None

    def snapshot(self, seat: int) -> dict[str, Any]:
        with self.lock:
            return self._snapshot(self.channels[seat])

    def _snapshot(self, channel: Channel) -> dict[str, Any]:
        seat = channel.seat
        return {
            "type": "state",
            "seq": channel.seq,
            "seat": seat,
            "players": self.game.nplayers,
            "names": ["you" if p == seat else seat_name(p, n) for p, n in enumerate(self.names)],
            "specs": list(self.names),  # the whole spec of each seat's agent, on hover
            "status": self.status,
            "table": channel.table,
            "story": list(channel.story),
            "over": channel.over,
            "error": channel.error,
            "again": self.deal_again is not None,
            "game": self.number,
        }

    def subscribe(
        self, seat: int, loop: asyncio.AbstractEventLoop
    ) -> tuple[dict[str, Any], asyncio.Queue[Any]]:
        stream: asyncio.Queue[Any] = asyncio.Queue()
        with self.lock:
            channel = self.channels[seat]
            channel.streams.append((loop, stream))
            return self._snapshot(channel), stream

    def unsubscribe(self, seat: int, stream: asyncio.Queue[Any]) -> None:
        with self.lock:
            channel = self.channels[seat]
            channel.streams = [(lo, s) for lo, s in channel.streams if s is not stream]

    def links(self, base: str) -> dict[int, str]:
        """Each person's seat's link (with its token)."""
        return {p: f"{base}/seat/{p}?token={c.token}" for p, c in self.channels.items()}


def _error_text(err: Exception, *, seedless: bool = False) -> str:
    """What a failed game's error says; ``seedless``: without the seed that rule and
    agent errors name (to replay the game), for the pages, since the deal follows
    from it."""
    if isinstance(err, AgentError):
        return err.render(False, with_seed=not seedless)
    if isinstance(err, RuleError):
        return err.render(with_seed=not seedless)
    return str(err)


# ---------------------------------------------------------------- the application


#: The header a page sends its seat's token in (POST requests).
TOKEN_HEADER = "x-cardlang-token"
#: Seconds a client has to send a whole request head, and a seat's page the body of its
#: request: a connection that stalls is dropped, so stalled clients cannot hold fds.
HEAD_TIMEOUT = 5.0
#: The largest request body read: a move or an advice request is a few dozen bytes.
MAX_BODY = 64 * 1024


def create_app(web: WebGame) -> Starlette:
    """The Starlette application serving ``web``'s pages and API."""

    def refused(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    def seat_number(request: Request | WebSocket) -> int | None:
        try:
            return int(request.path_params["seat"])
        except (KeyError, ValueError):
            return None

    def check(request: Request | WebSocket, token: Any) -> tuple[int, Any] | JSONResponse:
        seat = seat_number(request)
        if seat is None or seat not in web.channels:
            return refused(404, "no person plays that seat")
        if web.seat_of(seat, token) is None:
            return refused(403, "wrong token for this seat: use the link the server printed")
        return seat, web.fronts[seat]

    async def index(request: Request) -> Response:
        return HTMLResponse(
            "<!doctype html><title>cardlang</title><p>A cardlang game is served here: "
            "open the link of your seat that the server printed.</p>"
        )

    async def page(request: Request) -> Response:
        if seat_number(request) not in web.channels:
            return refused(404, "no person plays that seat")
        return FileResponse(STATIC / "seat.html", headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> Response:
        checked = check(request, request.query_params.get("token"))
        if isinstance(checked, JSONResponse):
            return checked
        return JSONResponse(web.snapshot(checked[0]))

    def token_of(request: Request) -> str | None:
        """A POST's token: the ``X-Cardlang-Token`` header, else ``?token=``; never the
        body, which is read only once the token is known good."""
        return request.headers.get(TOKEN_HEADER) or request.query_params.get("token")

    async def body_of(request: Request) -> dict[str, Any] | JSONResponse:
        """The JSON object of an authenticated request's body: at most MAX_BODY bytes,
        any malformed or too deeply nested JSON a 400."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY:
            return refused(413, f"the body is larger than {MAX_BODY} bytes")
        chunks, size = [], 0
        try:
            async with asyncio.timeout(HEAD_TIMEOUT):  # a body that stalls holds an fd
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > MAX_BODY:
                        return refused(413, f"the body is larger than {MAX_BODY} bytes")
                    chunks.append(chunk)
        except TimeoutError:
            return refused(408, f"the body did not arrive within {HEAD_TIMEOUT:g} s")
        try:
            data = json.loads(b"".join(chunks) or b"{}")
        except (ValueError, RecursionError):
            return refused(400, "the body is not JSON (or nests too deeply)")
        if not isinstance(data, dict):
            return refused(400, "the body must be a JSON object")
        return data

    async def move(request: Request) -> Response:
        checked = check(request, token_of(request))
        if isinstance(checked, JSONResponse):
            return checked
        data = await body_of(request)
        if isinstance(data, JSONResponse):
            return data
        status, message = checked[1].submit(data.get("decision"), data.get("option"))
        if status != 200:
            return refused(status, message)
        return JSONResponse({"ok": True, "chosen": message})

    async def advice(request: Request) -> Response:
        checked = check(request, token_of(request))
        if isinstance(checked, JSONResponse):
            return checked
        data = await body_of(request)
        if isinstance(data, JSONResponse):
            return data
        status, answer = await run_in_threadpool(checked[1].advice)
        if status != 200:
            return refused(status, answer)
        return JSONResponse(answer)

    async def again(request: Request) -> Response:
        checked = check(request, token_of(request))
        if isinstance(checked, JSONResponse):
            return checked
        status, message = await run_in_threadpool(web.again)
        if status != 200:
            return refused(status, message)
        return JSONResponse({"ok": True, "message": message})

    async def stream(websocket: WebSocket) -> None:
        checked = check(websocket, websocket.query_params.get("token"))
        if isinstance(checked, JSONResponse):
            # accepted, then closed with the reason: a refusal during the handshake
            # reaches the page as a bare 1006, which it cannot tell from a lost server
            await websocket.accept()
            await websocket.close(code=4403 if checked.status_code == 403 else 4404)
            return
        seat = checked[0]
        await websocket.accept()
        snapshot, messages = web.subscribe(seat, asyncio.get_running_loop())
        closed = asyncio.ensure_future(_until_closed(websocket))
        try:
            await websocket.send_json(snapshot)
            while not closed.done():
                getter = asyncio.ensure_future(messages.get())
                done, _ = await asyncio.wait({getter, closed}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    break
                await websocket.send_json(getter.result())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            closed.cancel()
            web.unsubscribe(seat, messages)

    routes = [
        Route("/", index),
        Route("/seat/{seat}", page),
        Route("/api/seat/{seat}/state", state),
        Route("/api/seat/{seat}/move", move, methods=["POST"]),
        Route("/api/seat/{seat}/advice", advice, methods=["POST"]),
        Route("/api/seat/{seat}/again", again, methods=["POST"]),
        WebSocketRoute("/api/seat/{seat}/stream", stream),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


async def _until_closed(websocket: WebSocket) -> None:
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return


# ---------------------------------------------------------------- serving


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def head_timed(base: type[asyncio.Protocol], seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol ``base`` that drops a connection whose request head is not
    all in ``seconds`` after the server began to wait for it (the connection made, or
    the last response sent).

    uvicorn times out a connection only while it is idle after a response (its
    keep-alive timeout), and the first byte of a head cancels that: half a head, sent
    and never finished, held its connection and fd for good.  The limit runs from the
    start of the wait, so a client that trickles its head a byte at a time gains
    nothing.  Both of uvicorn's HTTP/1.1 protocols (h11, httptools) make their request
    ``cycle`` once a head is in; a WebSocket, once upgraded, is its own protocol and no
    longer this one's to time."""

    class HeadTimed(base):  # type: ignore[valid-type, misc]
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._watch_head()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch_head()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_watching()
            super().connection_lost(exc)

        def _awaits_head(self) -> bool:
            """No request is being served: what comes next is a head."""
            return self.cycle is None or self.cycle.response_complete

        def _watch_head(self) -> None:
            if not self._awaits_head():
                self._stop_watching()
            elif self._head_timer is None:
                loop = asyncio.get_running_loop()
                self._head_timer = loop.call_later(seconds, self._head_late)

        def _stop_watching(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed already, or a WebSocket now
            if self._awaits_head():
                transport.close()

    HeadTimed.__name__ = HeadTimed.__qualname__ = f"HeadTimed{base.__name__}"
    return HeadTimed


def server_for(
    app: Starlette, sock: socket.socket, *, quiet: bool = True, head_timeout: float = HEAD_TIMEOUT
) -> Any:
    """A uvicorn server of ``app`` (run it with ``server.run(sockets=[sock])``) that
    drops a client whose request head is not in after ``head_timeout`` seconds."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol  # httptools, else h11

    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning" if quiet else "info",
        lifespan="off",
        http=head_timed(AutoHTTPProtocol, head_timeout),
    )
    return uvicorn.Server(config)


class Served:
    """A server running in a thread (for tests): ``base`` is its address."""

    def __init__(
        self, web: WebGame, host: str = "127.0.0.1", head_timeout: float = HEAD_TIMEOUT
    ) -> None:
        self.web = web
        self.sock = bind(host, 0)
        self.base = f"http://{host}:{self.sock.getsockname()[1]}"
        self.server = server_for(create_app(web), self.sock, head_timeout=head_timeout)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> Served:
        self.thread.start()
        self.web.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.web.stop()
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
