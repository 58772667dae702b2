"""The channel between a tournament and an agent's worker: framed messages over a
socket, every read and every write bounded in time and in size.

Pipeline position: runs, under the sandbox.  sandbox.py's ``AgentWorker`` (the
tournament's side) and agent_worker.py (the worker's side) both speak through a
``Channel``.  A message is a 4-byte big-endian length and that many bytes.

The worker runs the agent's code, which can write to the socket itself, so the
tournament trusts nothing it reads here: a reply longer than ``MAX_REPLY`` is refused
from its length alone, before any of it is read; a reply nested deeper than
``MAX_DEPTH`` is refused by a scan of its brackets before it is parsed (``json.loads``
recurses once per level, so a 200,000-deep array would raise ``RecursionError`` in the
tournament's process); and a read or a write that does not finish by its deadline
raises ``ChannelTimeout`` however little the other side takes or gives (the socket is
non-blocking: a worker that never reads cannot block the tournament in ``send``).
A message larger than the socket's buffer goes in as many pieces as the reader takes,
until the deadline.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import json
import re
import select
import socket
import struct
import time
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_REPLY",
    "MAX_REQUEST",
    "Channel",
    "ChannelBroken",
    "ChannelClosed",
    "ChannelTimeout",
    "decode_reply",
    "deadline_in",
]

#: The longest message the tournament sends a worker (a game's rules and text, a view,
#: a world): generous, for the largest game a file may hold.
MAX_REQUEST = 256 * 1024 * 1024
#: The longest reply a worker may send: a move, a refusal, or a failure with its text
#: (the worker cuts that text to a few KB).
MAX_REPLY = 256 * 1024
#: The deepest nesting of arrays and objects a reply may have: every reply is one flat
#: object.
MAX_DEPTH = 4

_HEADER = struct.Struct("!I")
_PIECE = 1 << 20  # read at most this much at a time
# a JSON string, matched without backtracking (possessive): what the bracket scan skips
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]++")
_INNERMOST = re.compile(rb"\[\]|\{\}")


class ChannelTimeout(Exception):
    """A read or write did not finish by its deadline."""


class ChannelClosed(Exception):
    """The other side is gone (end of file, a broken pipe)."""


class ChannelBroken(Exception):
    """What was read breaks the protocol: too long, too deep, not JSON, unasked for."""


def deadline_in(seconds: float | None) -> float | None:
    """The monotonic time ``seconds`` from now (None: no deadline)."""
    return None if seconds is None else time.monotonic() + seconds


class Channel:
    """One side of a socket of framed messages.  ``deadline``: a ``time.monotonic()``
    by which a call must finish, or None to wait as long as it takes (the worker's
    side: it trusts the tournament, and the tournament kills it at its limits)."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self._poll = select.poll()
        self._poll.register(sock.fileno(), select.POLLIN | select.POLLOUT)

    def send(self, data: bytes, deadline: float | None) -> None:
        """Write one message, in as many pieces as the reader takes."""
        for part in (_HEADER.pack(len(data)), data):
            view = memoryview(part)
            while view:
                try:
                    view = view[self.sock.send(view) :]
                except BlockingIOError:
                    self._wait(select.POLLOUT, deadline)
                except OSError as err:  # a broken pipe, a reset: the reader is gone
                    raise ChannelClosed(str(err)) from None

    def recv(self, deadline: float | None, cap: int) -> bytes:
        """Read one message of at most ``cap`` bytes; a longer one is refused from its
        header, before any of it is read."""
        (size,) = _HEADER.unpack(self._read(_HEADER.size, deadline))
        if size > cap:
            raise ChannelBroken(f"a message of {size} bytes, more than the {cap} allowed")
        return self._read(size, deadline)

    def pending(self) -> bool:
        """Whether something is waiting to be read now (a message nobody asked for);
        ``ChannelClosed`` if the other side is gone."""
        try:
            peeked = self.sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return False
        except OSError as err:
            raise ChannelClosed(str(err)) from None
        if not peeked:
            raise ChannelClosed("end of file")
        return True

    def close(self) -> None:
        self.sock.close()

    def _read(self, size: int, deadline: float | None) -> bytes:
        got = bytearray()
        while len(got) < size:
            try:
                piece = self.sock.recv(min(size - len(got), _PIECE))
            except BlockingIOError:
                self._wait(select.POLLIN, deadline)
                continue
            except OSError as err:
                raise ChannelClosed(str(err)) from None
            if not piece:
                raise ChannelClosed("end of file")
            got += piece
        return bytes(got)

    def _wait(self, event: int, deadline: float | None) -> None:
        """Until the socket is ready for ``event`` (or has hung up: the next call says
        so), else ``ChannelTimeout`` at the deadline."""
        while True:
            if deadline is None:
                wait_ms = None
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ChannelTimeout("the deadline passed")
                wait_ms = max(1, int(left * 1000))
            self._poll.modify(self.sock.fileno(), event)
            for _, happened in self._poll.poll(wait_ms):
                if happened & (event | select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    return


def decode_reply(raw: bytes) -> dict[str, Any]:
    """A worker's reply as a JSON object, or ``ChannelBroken`` saying what is wrong
    with it.  Its nesting is bounded before it is parsed."""
    if _too_deep(raw, MAX_DEPTH):
        raise ChannelBroken(f"a reply nested more than {MAX_DEPTH} deep, or unbalanced")
    try:
        reply = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: never, after the scan
        raise ChannelBroken("a reply that is not JSON") from None
    if not isinstance(reply, dict):
        raise ChannelBroken("a reply that is not a JSON object")
    return reply


def _too_deep(raw: bytes, depth: int) -> bool:
    """Whether ``raw``'s arrays and objects (outside its strings) nest deeper than
    ``depth``: ``depth`` passes that each remove the innermost empty pairs leave
    nothing of a shallow text.  Linear per pass, all in the regex engine; unbalanced
    brackets count as too deep (that text is no JSON anyway)."""
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", raw))
    for _ in range(depth):
        if not brackets:
            return False
        brackets = _INNERMOST.sub(b"", brackets)
    return bool(brackets)
