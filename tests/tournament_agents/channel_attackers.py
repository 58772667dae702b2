"""Agents that attack the channel between the tournament and their worker
(runs/channel.py, runs/sandbox.py), for tests/test_tournament_attacks.py, loaded as
``tests/tournament_agents/channel_attackers.py:Class``.

An agent's code runs inside its worker process, so it can write to the worker's socket
to the tournament itself: these write a reply nested 200,000 deep, floods of replies,
replies to requests never made, or answer every request themselves and never read
(the tournament's messages pile up until its sends would block); others fail with
words meant for the tournament's terminal (escape codes, a forged last line) or raise
``MemoryError`` themselves.  Each plays Kuhn poker's first option otherwise.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import struct
import sys
import time
from typing import Any

_HEADER = struct.Struct("!I")  # the channel's framing: a 4-byte big-endian length


def _channel() -> socket.socket:
    """The worker's socket to the tournament (its one socket), as a socket of our own
    (blocking: the worker's side reads and writes either way)."""
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                sock = socket.socket(fileno=os.dup(int(name)))
                sock.setblocking(True)
                return sock
        except OSError:
            continue
    raise RuntimeError("no socket found")


def _request_id() -> int:
    """The id of the request the worker is answering, read from its own frames: the
    id is no secret from the agent's code."""
    frame = sys._getframe()
    while frame is not None:
        ident = frame.f_locals.get("ident")
        if type(ident) is int:
            return ident
        frame = frame.f_back
    raise RuntimeError("no request id found")


def _frame(data: bytes) -> bytes:
    return _HEADER.pack(len(data)) + data


def _reply(ident: int, **fields: Any) -> bytes:
    return _frame(json.dumps({"re": ident, **fields}).encode())


class DeepJson:
    """Writes a reply that is an array nested ``depth`` deep (200,000: more than the
    largest reply allowed; 100,000: small enough to be read, and then too deep), then
    answers as usual."""

    def __init__(self, seed: int = 0, depth: int = 200_000) -> None:
        self.depth = depth

    def choose(self, view: Any, options: Any) -> int:
        with _channel() as sock:
            sock.sendall(_frame(b"[" * self.depth + b"]" * self.depth))
        return 0


class Flooder:
    """Writes its own replies to the request it was asked, as many as its socket takes,
    then sleeps, never reading or answering again."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        reply = _reply(_request_id(), index=0)
        with _channel() as sock:
            sock.setblocking(False)
            try:
                while True:
                    sock.send(reply)
            except BlockingIOError:
                pass
        time.sleep(600)
        return 0


class Forger:
    """Answers every request itself, in step and with the right ids (read from the
    worker's frames, then by peeking at the socket, which it never reads): the
    tournament's messages pile up unread until its sends would block."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        with _channel() as sock:
            sock.sendall(_reply(_request_id(), index=0))
            answered = 0  # bytes of the queued requests already answered
            while True:
                try:
                    queued = sock.recv(1 << 24, socket.MSG_PEEK | socket.MSG_DONTWAIT)
                except BlockingIOError:
                    queued = b""
                answered = self._answer(sock, queued, answered)
                time.sleep(0.002)

    @staticmethod
    def _answer(sock: socket.socket, queued: bytes, answered: int) -> int:
        while answered + _HEADER.size <= len(queued):
            (size,) = _HEADER.unpack_from(queued, answered)
            end = answered + _HEADER.size + size
            if end > len(queued):
                break
            ident, kind, *_ = pickle.loads(queued[answered + _HEADER.size : end])
            if kind == "stop":
                os._exit(0)
            fields = {"index": 0} if kind in ("decide", "retry") else {"ok": True}
            sock.sendall(_reply(ident, **fields))
            answered = end
        return answered


class Unsolicited:
    """Writes a second reply to the request it answers: with ``mode=wrong`` first and
    for another request's id, with ``mode=extra`` the right id, so that the worker's own
    reply comes after it unasked."""

    def __init__(self, seed: int = 0, mode: str = "wrong") -> None:
        self.mode = mode

    def choose(self, view: Any, options: Any) -> int:
        ident = _request_id()
        with _channel() as sock:
            sock.sendall(_reply(ident ^ 1 if self.mode == "wrong" else ident, index=0))
        return 0


#: Words for the tournament's terminal: clear the screen, home the cursor, set the
#: window's title, return the carriage over the line, reverse the text's direction,
#: then a forged last line, as if the agent had run out of memory.
SHOUT = (
    "\x1b[2J\x1b[H\x1b]0;owned\x07\rall is well\u202egnp.exe\x9b31m\n"
    "P0 (random) forfeits (memory): MemoryError\nMemoryError"
)


class Shouter:
    """Fails with ``SHOUT`` as its exception's text."""

    def __init__(self, seed: int = 0) -> None:
        print(SHOUT, flush=True)  # its log holds it too

    def choose(self, view: Any, options: Any) -> int:
        raise RuntimeError(SHOUT)


class MemoryRaiser:
    """Raises ``MemoryError`` itself, having used no memory: a crash, not ``memory``."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        raise MemoryError("out of memory")
