"""The channel between a tournament and its agents' workers (runs/channel.py) and what
the tournament makes of what an agent says (runs/sandbox.py): bounded reads and writes,
replies checked before they are parsed, and an agent's words made safe to print.  No
jail is needed: the hostile agents themselves are in tests/test_tournament_attacks.py."""

from __future__ import annotations

import socket
import struct
import threading
import time
from pathlib import Path

import pytest

from cardlang.runs.channel import (
    MAX_REPLY,
    Channel,
    ChannelBroken,
    ChannelClosed,
    ChannelTimeout,
    deadline_in,
    decode_reply,
)
from cardlang.runs.sandbox import (
    FORFEIT_REASONS,
    AgentForfeit,
    AgentWorker,
    SandboxLimits,
    agent_words,
    forfeit_summary,
)

ROOT = Path(__file__).resolve().parent.parent
BOT = f"{ROOT / 'tests' / 'tournament_agents' / 'hostile.py'}:KuhnBot"


def _pair() -> tuple[Channel, socket.socket]:
    ours, theirs = socket.socketpair()
    return Channel(ours), theirs


def test_a_send_to_a_reader_that_never_reads_times_out() -> None:
    """The socket's buffer fills and the send gives up at its deadline, not never."""
    channel, theirs = _pair()
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        channel.send(b"x" * (8 << 20), deadline_in(0.3))
    assert 0.25 < time.monotonic() - started < 2
    theirs.close()


def test_a_message_larger_than_the_buffer_goes_in_pieces() -> None:
    channel, theirs = _pair()
    message = bytes(range(256)) * (16 << 12)  # 16 MB, far more than a socket holds
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(Channel(theirs).recv(None, 32 << 20)))
    reader.start()
    channel.send(message, deadline_in(20))
    reader.join(20)
    assert got == [message]


def test_reads_are_bounded_in_time_and_size() -> None:
    channel, theirs = _pair()
    theirs.sendall(struct.pack("!I", 100) + b"half")  # half a message, then nothing
    with pytest.raises(ChannelTimeout):
        channel.recv(deadline_in(0.2), MAX_REPLY)
    channel, theirs = _pair()
    theirs.sendall(struct.pack("!I", MAX_REPLY + 1))  # refused from its header alone
    with pytest.raises(ChannelBroken, match="more than"):
        channel.recv(deadline_in(1), MAX_REPLY)
    channel, theirs = _pair()
    assert not channel.pending()
    theirs.sendall(struct.pack("!I", 2) + b"{}")
    assert channel.pending()  # sent unasked
    theirs.close()
    channel.recv(deadline_in(1), MAX_REPLY)
    with pytest.raises(ChannelClosed):
        channel.pending()


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 200_000 + b"]" * 200_000,
        b'{"a": ' * 100_000 + b"1" + b"}" * 100_000,
        b"[" * 200_000,
        b'{"re": 1, "index": [[[[[0]]]]]}',
    ],
)
def test_deep_replies_are_refused_before_they_are_parsed(raw: bytes) -> None:
    with pytest.raises(ChannelBroken, match="deep"):
        decode_reply(raw)


def test_brackets_in_strings_do_not_count_and_garbage_is_refused() -> None:
    text = '[[[[[[[[[[ \\" ]]]] {{{{'
    assert decode_reply(b'{"re": 1, "error": "failed", "detail": "%s"}' % text.encode()) == {
        "re": 1,
        "error": "failed",
        "detail": text.replace("\\", ""),
    }
    for raw in (b"\xff" * 64, b"[1, 2]", b"nul", b'"text"'):
        with pytest.raises(ChannelBroken):
            decode_reply(raw)


def test_an_agents_words_reach_no_terminal_raw() -> None:
    said = "\x1b[2J\x1b]0;owned\x07\rok\u202egnp.exe\x9b31m\u2028\x00end\nnext"
    safe = agent_words(said)
    assert safe == ("\\x1b[2J\\x1b]0;owned\\x07\\x0dok\\u202egnp.exe\\x9b31m\\u2028\\x00end\nnext")
    assert agent_words(safe) == safe  # records already made safe print as they are
    assert "\n" not in agent_words(said, lines=False)
    assert len(agent_words("x" * 10_000, 100)) == 100
    assert agent_words("x" * 10_000 + "END", 100).endswith("END")  # a traceback's end


def test_a_forged_last_line_is_quoted_not_taken_for_the_reason() -> None:
    forfeit = AgentForfeit("crash", "its agent failed", agent_words("boom\nMemoryError"))
    recorded = f"P1 (x.py:A) forfeits (crash): {forfeit.text()}"
    assert forfeit_summary(recorded) == 'its agent failed, saying "MemoryError"'
    # a record of an older version: its traceback was kept raw
    old = "P1 (x.py:A) forfeits (crash): Traceback (most recent call last):\n  x\n\x1b[2JBoom"
    assert forfeit_summary(old) == 'its agent failed, saying "\\x1b[2JBoom"'
    assert "protocol" in FORFEIT_REASONS


def test_a_rules_message_larger_than_the_socket_buffer_reaches_the_worker() -> None:
    """A worker (unjailed here) is sent 8 MB of rules within the time limit, and plays."""
    worker = AgentWorker(BOT, None, SandboxLimits(time_limit=10, jail=False))  # type: ignore[arg-type]
    try:
        worker.ensure()
        rules = {"name": "big", "text": ";" * (8 << 20), "kinds": {}}
        start = {"seed": 1, "seat": 0, "spec": BOT, "rules": rules}
        assert worker.ask(("game", start), 10.0)["ok"] is True
    finally:
        worker.stop()
