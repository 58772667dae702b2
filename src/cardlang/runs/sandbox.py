"""Agents in worker processes, under limits: what a tournament plays untrusted agents with.

Pipeline position: runs, beside the runner.  ``RemoteAgent`` is an agent of the one play
loop (``cardlang.agents.loop.play_out``, through ``runs.runner.play_game``) that asks an
``AgentWorker``, a process of its own (``python -m cardlang.runs.agent_worker``), for
every move, under a per-decision time limit; the worker loads the agent's class once and
makes the agent of each game from its spec.

Two kinds of worker:

- **jailed** (an agent from a file, ``path/to/file.py:Class``: untrusted code).  The
  worker runs in a jail (jail.py: its own PID, network, IPC and mount namespaces, an
  unprivileged user, no new processes, a read-only view of Python, cardlang and the
  agent's one file) and never holds the game: no ``Game``, ``Gamemaster``, ``Gamestate``
  or ``PlayerView`` exists in its process.  At each decision it receives the seat's view
  as plain data (``agent_view.view_data``, built here from the live ``PlayerView``'s
  public accessors) and hands the agent a ``SandboxView``; the answer comes back as JSON
  (the tournament unpickles nothing a worker sends).  The plugin file is never imported
  in the main process.  With ``SandboxLimits.jail`` off (``--no-jail``) the same worker
  runs as a plain process of the caller's user.
- **mirrored** (a built-in agent or a bot file: cardlang's own code, trusted to read
  only its view).  The worker compiles the game itself (``GamePayload``) but never holds
  the game, its seed or another seat's: at each decision it is sent one determinization
  of the seat's view (a world consistent with what the seat knows, dealt here from the
  seat's knowledge with a fresh RNG; engine/transfer.py carries it), the seat's knowledge
  and the public events since its last decision, and it consults the agent with a live
  view of that world, so search agents determinize and simulate as ever.  It runs in its
  own process for the limits and for crash isolation; it is made non-dumpable, and no
  jailed agent can see it (a jail has its own PID namespace).

Limits (``SandboxLimits``): no answer within ``time_limit`` seconds and the worker is
killed (``timeout``), and so for loading the agent's file and making its agent
(``init_time_limit``, by default the same); the worker's address space is capped
``memory_limit`` MB above what it holds once started (``RLIMIT_AS``: an allocation past
it raises MemoryError in the agent); an answer that is no legal option (``illegal``) is
refused and asked again ``illegal_retries`` times.  Each failure ends the game as a
forfeit (``AgentForfeit``), and a worker that failed is started afresh for the next game.
What a worker prints goes to its agent's log (``AgentLog``, capped), never to the
tournament's output.

The channel (channel.py): every write to a worker and every read from it is bounded by
the decision's time limit (the socket is non-blocking: a worker that never reads cannot
block the tournament) and in size (a reply of at most ``MAX_REPLY`` bytes, nested at most
``MAX_DEPTH`` deep, checked before it is parsed); each request carries a random id that
its one reply must echo.  The agent's code runs inside the worker and can write to the
channel itself, so the tournament trusts nothing it reads there: what breaks the
protocol (too long, too deep, not JSON, of no known form, another request's id, a
message sent unasked) is the agent's forfeit, ``protocol``.

A forfeit's kind is what the tournament measured, never what the worker says, since the
worker runs the agent's code and so says what the agent likes: ``timeout`` from its own
clock; ``protocol`` from what it read; ``illegal`` from the answer; a reported failure is
``memory`` only when the kernel's count of the agent's peak address space (``VmPeak`` in
/proc) came within ``MEMORY_MARGIN_MB`` (or a quarter of the limit) of the cap read from
/proc before any of the agent's code ran (an agent that raises MemoryError itself, or
asks for far more than its cap at once, is a ``crash``), else ``crash``, as is a worker
that dies (a dead process's peak can no longer be read).  What the agent says (its
exception's text, its log's end) is kept as its words (``AgentForfeit.said``), made safe
by ``agent_words`` (every control character written out as an escape, its length capped)
and quoted apart from the tournament's own words wherever it is printed or recorded.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import collections
import os
import pickle
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardlang.agents.base import Capabilities
from cardlang.errors import UsageError
from cardlang.runs import jail as jails
from cardlang.runs.agent_view import view_data
from cardlang.runs.channel import (
    MAX_REPLY,
    MAX_REQUEST,
    Channel,
    ChannelBroken,
    ChannelClosed,
    ChannelTimeout,
    deadline_in,
    decode_reply,
)

if TYPE_CHECKING:
    from cardlang.engine.game import Game
    from cardlang.information.views import PlayerView
    from cardlang.runs.backends import GamePayload

__all__ = [
    "FORFEIT_REASONS",
    "LOG_BYTES",
    "AgentForfeit",
    "agent_words",
    "forfeit_summary",
    "AgentLog",
    "AgentWorker",
    "RemoteAgent",
    "SandboxLimits",
    "harden_parent",
    "is_sandboxed",
    "plugin_file",
    "plugin_parts",
]

#: Why an agent forfeits a game: each is what the tournament measured, never what the
#: agent said.  ``crash``: its agent failed (it said so: an exception) or its worker
#: died; ``timeout``: a message not read, or no answer, within the limit; ``memory``: it
#: failed with its mapped memory at its limit (the kernel's count, read from /proc);
#: ``illegal``: an answer that is no legal move; ``protocol``: a message on its channel
#: that breaks the protocol (too long, too deep, not JSON, unasked for).
FORFEIT_REASONS = ("crash", "timeout", "memory", "illegal", "protocol")

#: What an agent's log keeps of its workers' output, at most.
LOG_BYTES = 1024 * 1024
#: The most an agent's words (an exception's text, its log's end) keep, in characters.
WORDS_CHARS = 2000
#: A failure counts as ``memory`` when the worker's peak address space came this close to
#: its cap (MB, or a quarter of ``--memory-limit`` if more): the allocation that failed
#: may have been that large.
MEMORY_MARGIN_MB = 64


@dataclass(frozen=True)
class SandboxLimits:
    """What an agent's worker may spend.  ``time_limit``: seconds per decision (from the
    view's sending to the answer's arrival).  ``init_time_limit``: seconds to load the
    agent's file and to make the agent of a game (None: ``time_limit``).
    ``memory_limit``: MB the worker may map beyond what it holds once started (None: no
    limit).  ``illegal_retries``: illegal answers refused and asked again before the
    agent forfeits.  ``startup_limit``: seconds for a worker's own start (Python, cardlang
    and, for a built-in agent, compiling the game: none of the agent's code runs then).
    ``jail``: run agents from files in a jail (jail.py); off, as plain processes."""

    time_limit: float = 10.0
    memory_limit: int | None = 2048
    illegal_retries: int = 0
    init_time_limit: float | None = None
    startup_limit: float = 60.0
    jail: bool = True

    @property
    def init_limit(self) -> float:
        return self.time_limit if self.init_time_limit is None else self.init_time_limit


class AgentForfeit(Exception):
    """An agent lost its game by failing: ``reason`` is one of ``FORFEIT_REASONS``, as
    the tournament measured it; ``detail`` the tournament's own words; ``said`` the
    agent's (an exception's text, already made safe by ``agent_words``: quoted, never
    taken for the reason).  ``seat``, ``decisions`` and ``turns`` are filled in where it
    happened."""

    def __init__(self, reason: str, detail: str, said: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.said = said
        self.seat = -1
        self.decisions = 0
        self.turns = 0

    def text(self) -> str:
        """The whole account, as recorded: the tournament's line, then the agent's words
        each line behind ``| `` (``forfeit_summary`` reads it back)."""
        if not self.said:
            return self.detail
        quoted = "\n".join(f"| {line}" for line in self.said.splitlines())
        return f"{self.detail}; its words:\n{quoted}"

    def summary(self) -> str:
        """One line: the tournament's words, and the last line of the agent's in quotes."""
        return forfeit_summary(self.text())


def forfeit_summary(text: str) -> str:
    """One line from a forfeit's recorded text (``AgentForfeit.text``, behind ``P1 (spec)
    forfeits (crash): `` in the records): the tournament's first line, and the last line
    of the agent's words quoted, ``its agent failed, saying "ValueError: ..."``.  Made
    safe to print whatever the records hold (those of older versions kept the agent's
    traceback as it came: its last line is quoted the same way)."""
    marker = text.find(" forfeits (")
    body = text[text.index("): ", marker) + 3 :] if marker >= 0 and "): " in text else text
    lines = [line for line in body.splitlines() if line.strip()]
    if not lines:
        return ""
    own, theirs = lines[0].removesuffix("; its words:"), _their_lines(lines[1:])
    if any(line.startswith("Traceback") for line in lines):  # an older record
        own, theirs = "its agent failed", [lines[-1]]
    said = agent_words(theirs[-1].strip(), 200, lines=False) if theirs else ""
    own = agent_words(own, 300, lines=False)
    return f'{own}, saying "{said}"' if said else own


def _their_lines(lines: list[str]) -> list[str]:
    return [line[2:] for line in lines if line.startswith("| ")]


#: Characters an agent's words never carry to a terminal: C0 and C1 controls (ESC
#: starts every ANSI sequence), DEL, and Unicode's invisible formatting (bidi overrides
#: and isolates, zero-width characters, line and paragraph separators).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def agent_words(text: str, limit: int = WORDS_CHARS, *, lines: bool = True) -> str:
    """An agent's own text made safe to print and store: every control character (but
    newlines and tabs when ``lines``) written out as an escape (``\\x1b``), so no escape
    sequence, carriage return or bidi override reaches a terminal, and its end kept, at
    most ``limit`` characters (a traceback ends with what it says).  The same text
    twice gives the same: records already made safe print as they are."""
    text = text[-limit:]
    if not lines:
        text = text.replace("\n", " | ").replace("\t", " ")
    safe = _UNSAFE.sub(_escaped, text)
    return safe if len(safe) <= limit else "..." + safe[3 - limit :]


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def is_sandboxed(spec: str) -> bool:
    """Whether an agent spec names untrusted code (a plugin file), which only ever sees
    serialized views; built-in agents and bot files are mirrored."""
    from cardlang.agents.specs import parse_spec

    return parse_spec(spec).is_plugin


def plugin_parts(spec: str) -> tuple[str, str]:
    """A plugin's spec (``path/to/file.py:Class:k=v``) as its file's path as given
    (``path/to/file.py``) and the rest (``Class:k=v``)."""
    cut = spec.index(".py:") + 3
    return spec[:cut], spec[cut + 1 :]


def plugin_file(spec: str) -> Path:
    """The file of a plugin's spec, as a real path."""
    return Path(os.path.realpath(plugin_parts(spec)[0]))


def _worker_spec(spec: str) -> str:
    """The spec as a worker loads it: a plugin's file by its real path (a jail shows the
    file there, and its working directory is not the caller's)."""
    if not is_sandboxed(spec):
        return spec
    return f"{plugin_file(spec)}:{plugin_parts(spec)[1]}"


def harden_parent() -> None:
    """Best effort, Linux: make this process non-dumpable, so that another process of
    the same user (an agent's worker) cannot attach to it or read its memory through
    /proc, whatever the kernel's ptrace policy."""
    jails.harden_process()


class AgentLog:
    """What an agent's workers print, all of them, to one file (or nowhere, with no
    path), the first ``cap`` bytes kept; the end of it stays in memory, to explain a
    worker that would not start."""

    def __init__(self, path: Path | None, cap: int = LOG_BYTES) -> None:
        self.path = path
        self.cap = cap
        self.written = 0
        self.dropped = 0
        self._tail: collections.deque[bytes] = collections.deque(maxlen=16)
        self._lock = threading.Lock()
        self._file: Any = None

    def write(self, data: bytes) -> None:
        with self._lock:
            self._tail.append(data[-1024:])
            room = max(0, self.cap - self.written)
            kept, self.dropped = data[:room], self.dropped + max(0, len(data) - room)
            if kept and self.path is not None:
                if self._file is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._file = open(self.path, "ab")  # noqa: SIM115 (kept open: many writes)
                self._file.write(kept)
                self._file.flush()
            self.written += len(kept)

    def tail(self, chars: int = 600) -> str:
        with self._lock:
            text = b"".join(self._tail).decode(errors="replace").strip()
        return text[-chars:]

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                if self.dropped:
                    self._file.write(f"\n[cardlang: {self.dropped} more bytes dropped]\n".encode())
                self._file.close()
                self._file = None


def _agent_process(process: subprocess.Popen[bytes], jailed: bool) -> int | None:
    """The process that runs an agent's code: the worker itself or, in a jail,
    bubblewrap's grandchild (bwrap, its init, the worker).  None where it cannot be
    told (no /proc children lists): the worker is then never stopped between turns."""
    pid = process.pid
    for _ in range(2 if jailed else 0):
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return None
        if len(children) != 1:
            return None
        pid = int(children[0])
    return pid


def _drain(stream: Any, log: AgentLog) -> None:
    """Copy a worker's output to its log until the worker and all it started are gone."""
    try:
        while True:
            data = os.read(stream.fileno(), 65536)
            if not data:
                return
            log.write(data)
    except (OSError, ValueError):
        return
    finally:
        stream.close()


def _address_space_cap(pid: int | None) -> int | None:
    """The address-space limit (``RLIMIT_AS``, bytes) the kernel holds for ``pid``, read
    from /proc; None where there is none or it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max address space"):
                soft = line[len("Max address space") :].split()[0]
                return int(soft) if soft.isdigit() else None
    except (OSError, ValueError):
        pass
    return None


def _peak_address_space(pid: int | None) -> int | None:
    """The most address space ``pid`` ever mapped (``VmPeak``, bytes), the kernel's own
    count, read from /proc; None where it cannot be read (the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


#: The shape of each reply a worker may send, beside its ``re``: the key that says what
#: it is, and the type of its value.
_REPLY_FORMS = {"ok": bool, "index": int, "illegal": str, "error": str}


def _well_formed(reply: Mapping[str, Any], ident: int) -> None:
    """``ChannelBroken`` unless ``reply`` answers request ``ident`` in one of the forms
    a worker sends (agent_worker.py)."""
    if type(reply.get("re")) is not int or reply["re"] != ident:
        raise ChannelBroken("a reply to no request it was sent")
    kinds = [key for key in reply if key in _REPLY_FORMS]
    if len(kinds) != 1:
        raise ChannelBroken("a reply of no known form")
    kind = kinds[0]
    extra = set(reply) - {"re", kind, *(("detail",) if kind == "error" else ())}
    if extra:
        raise ChannelBroken(f"a reply with {len(extra)} unknown keys")
    if type(reply[kind]) is not _REPLY_FORMS[kind] or type(reply.get("detail", "")) is not str:
        raise ChannelBroken(f"a reply whose {kind!r} is a {type(reply[kind]).__name__}")


# ---------------------------------------------------------------- the main process's side


class AgentWorker:
    """The main process's handle on one agent's worker process (started when first
    needed, started again after a failure).  ``log``: where the worker's output goes.

    Each exchange (``ask``) is one request and the one reply that answers it: the request
    carries a fresh random id, which the reply must echo.  Anything waiting on the
    channel before a request is sent was sent unasked; a reply with another id answers
    no request.  The agent's code runs in the worker and can write to the channel
    itself, so nothing read is trusted: each breach is a ``protocol`` forfeit, and so is
    a reply too long, too deep or of no known form (channel.py)."""

    def __init__(
        self, spec: str, payload: GamePayload, limits: SandboxLimits, log: AgentLog | None = None
    ) -> None:
        self.spec = spec
        self.sandboxed = is_sandboxed(spec)
        self.payload = None if self.sandboxed else payload
        self.limits = limits
        self.log = log or AgentLog(None)
        self.process: subprocess.Popen[bytes] | None = None
        self.channel: Channel | None = None
        self._drainer: threading.Thread | None = None
        self._agent_pid: int | None = None  # the process that runs the agent's code
        self._memory_cap: int | None = None  # its RLIMIT_AS, read before the agent ran
        self._frozen_pid: int | None = None  # the agent's process, stopped between turns
        self._frozen = False

    def ensure(self) -> None:
        """Start the worker if it is not running and load its agent's class; an agent
        that cannot start forfeits.  Every worker starts the same way, the one that
        checks a spec before a tournament as well."""
        if self.process is not None and self.process.poll() is None:
            return
        self.kill()
        self._start()
        try:
            reply = self.ask(("init", self.payload), self.limits.startup_limit)
        except AgentForfeit as failed:
            said = agent_words(self.log.tail()) or failed.said
            detail = f"its worker did not start ({failed.detail})"
            raise AgentForfeit(failed.reason, detail, said) from None
        if not reply.get("ok"):
            self.kill()
            raise AgentForfeit("crash", "its worker did not start")
        # none of the agent's code has run yet: what the kernel holds now is the cap
        jailed = self.sandboxed and self.limits.jail
        assert self.process is not None
        self._agent_pid = _agent_process(self.process, jailed)
        self._memory_cap = _address_space_cap(self._agent_pid)
        if self.sandboxed:
            self._frozen_pid = self._agent_pid
        reply = self.ask(("load", _worker_spec(self.spec)), self.limits.init_limit)
        if not reply.get("ok"):
            self.kill()
            raise AgentForfeit("crash", "its agent could not be loaded")

    def _start(self) -> None:
        ours, theirs = socket.socketpair()
        argv = [sys.executable, "-m", "cardlang.runs.agent_worker", "--fd", str(theirs.fileno())]
        memory = self.limits.memory_limit
        argv += ["--memory", "none" if memory is None else str(memory)]
        jailed = self.sandboxed and self.limits.jail
        if jailed:
            command = jails.find_jail().command([*argv, "--jailed"], [plugin_file(self.spec)])
        else:
            command = argv
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # its own process group: killed as one
                # bubblewrap's own process inside the jail keeps the environment it was
                # started with, where the agent could read it: give it nothing of ours
                env=jails.environment() if jailed else None,
            )
        except OSError as err:
            ours.close()
            raise AgentForfeit("crash", f"its worker could not be started: {err}") from None
        finally:
            theirs.close()
        self.process, self.channel = process, Channel(ours)
        self._drainer = threading.Thread(
            target=_drain, args=(process.stdout, self.log), name="cardlang-agent-log", daemon=True
        )
        self._drainer.start()

    def ask(self, message: tuple[Any, ...], seconds: float) -> dict[str, Any]:
        """Send ``message`` and wait for the reply that answers it (a dict decoded from
        JSON), ``seconds`` in all from the sending's start.  A worker that fails is
        killed and the agent forfeits, for what the tournament saw: no reading or no
        answer in time (``timeout``), a breach of the protocol (``protocol``), the
        agent's failure (``crash``, or ``memory`` at its cap) or a death (``crash``)."""
        ident = secrets.randbits(63)
        deadline = deadline_in(seconds)
        try:
            self._send(ident, message, deadline)
            assert self.channel is not None
            reply = decode_reply(self.channel.recv(deadline, MAX_REPLY))
            _well_formed(reply, ident)
        except ChannelTimeout as late:
            self.kill()
            why = f" ({late})" if str(late) else ""
            raise AgentForfeit("timeout", f"no answer within {seconds:g} s{why}") from None
        except ChannelBroken as broken:
            self.kill()
            raise AgentForfeit("protocol", f"its worker broke the protocol: {broken}") from None
        except ChannelClosed:
            raise self._dead() from None
        if "error" in reply:
            raise self._failed(reply)
        self._freeze()
        return reply

    def _send(self, ident: int, message: tuple[Any, ...], deadline: float | None) -> None:
        """Send one request, after checking that nothing was sent unasked: the agent is
        thawed only for its own turn."""
        if self.channel is None:
            raise ChannelClosed("the worker is gone")
        data = pickle.dumps((ident, *message), protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > MAX_REQUEST:  # the game's, not the agent's: no forfeit
            raise UsageError(
                f"a message of {len(data) >> 20} MB for an agent's worker (its game's view "
                f"or rules): more than the {MAX_REQUEST >> 20} MB a worker is sent"
            )
        if self.channel.pending():
            raise ChannelBroken("a message nobody asked for")
        self._thaw()
        try:
            self.channel.send(data, deadline)
        except ChannelTimeout:
            raise ChannelTimeout("it did not read what it was sent") from None

    def _failed(self, reply: Mapping[str, Any]) -> AgentForfeit:
        """The forfeit of a worker that reported its agent's failure.  The worker runs
        the agent's code, so what it reports (``error``, the text) is the agent's to
        choose: the kind is decided from what the kernel counted instead, the peak of
        the agent's address space against the cap it held before any of its code ran."""
        said = agent_words(str(reply.get("detail", "")))
        peak, cap = _peak_address_space(self._agent_pid), self._memory_cap
        self.kill()
        limit = self.limits.memory_limit
        if peak is not None and cap is not None and limit is not None:
            margin = max(MEMORY_MARGIN_MB, limit // 4) << 20
            if peak >= cap - margin:
                detail = (
                    f"its agent failed with its memory at the limit ({peak >> 20} MB "
                    f"mapped of {cap >> 20} MB)"
                )
                return AgentForfeit("memory", detail, said)
        return AgentForfeit("crash", "its agent failed", said)

    def _freeze(self) -> None:
        """Stop an untrusted agent's process until it is asked again: its code runs only
        on its own clock (a signal handler cannot spend the others' time between its
        turns)."""
        if self._frozen_pid is not None and not self._frozen:
            try:
                os.kill(self._frozen_pid, signal.SIGSTOP)
                self._frozen = True
            except OSError:
                self._frozen_pid = None

    def _thaw(self) -> None:
        if self._frozen_pid is not None and self._frozen:
            self._frozen = False
            try:
                os.kill(self._frozen_pid, signal.SIGCONT)
            except OSError:
                self._frozen_pid = None

    def _dead(self) -> AgentForfeit:
        process = self.process
        code = None
        if process is not None:
            try:
                code = process.wait(1.0)
            except subprocess.TimeoutExpired:
                code = None
        self.kill()
        if code is not None and code < 0:
            how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        return AgentForfeit("crash", f"its worker died ({how})")

    def kill(self) -> None:
        """Stop the worker at once, and every process it started (it holds nothing worth
        a goodbye): its process group, and for a jail bubblewrap, whose PID namespace
        dies with it."""
        process, channel, drainer = self.process, self.channel, self._drainer
        self.process = self.channel = self._drainer = None
        self._agent_pid = self._memory_cap = None
        self._frozen_pid, self._frozen = None, False
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (OSError, AttributeError):  # gone already, or no process groups here
                pass
            try:
                process.kill()
                process.wait(5.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if channel is not None:
            channel.close()
        if drainer is not None:
            drainer.join(5.0)

    def stop(self) -> None:
        """End the worker: told to stop if it listens at once, killed either way."""
        self._thaw()
        if self.channel is not None:
            try:
                self.channel.send(pickle.dumps((0, "stop")), deadline_in(0.5))
            except (ChannelTimeout, ChannelClosed):
                pass
        self.kill()


class RemoteAgent:
    """An agent of the play loop whose moves come from an ``AgentWorker``: it sends the
    worker a world dealt from the seat's knowledge (mirrored) or the view as plain data
    (sandboxed), checks the answer, and appends its move to the game's shared ``moves``.
    A failure raises ``AgentForfeit`` with the seat and where the game stood."""

    def __init__(self, worker: AgentWorker, seat: int, moves: list[int], game: Game) -> None:
        from cardlang.information.vocabulary import Vocabulary

        # a mirrored agent is sent a world dealt from its seat's knowledge: the game is
        # recorded for it
        self.capabilities = Capabilities(view=True, knowledge=not worker.sandboxed)
        self.worker = worker
        self.name = worker.spec
        self.seat = seat
        self.moves = moves
        self.vocabulary = Vocabulary.of(game)
        self.sent_history = 0
        self.sent_keys: set[str | None] = set()
        self.worlds: random.Random | None = None  # deals a mirrored agent's worlds

    def begin(self, agent_seed: int, rules: Mapping[str, Any]) -> None:
        """Start the agent's game in its worker (starting the worker if needed)."""
        start: dict[str, Any] = {"seed": agent_seed, "seat": self.seat, "spec": self.name}
        if self.worker.sandboxed:
            start["rules"] = rules
        else:  # the same every run, and from nothing the worker does not know already
            self.worlds = random.Random(f"worlds of the agent seeded {agent_seed}")
        self.sent_history = 0
        try:
            self.worker.ensure()
            reply = self.worker.ask(("game", start), self.worker.limits.init_limit)
        except AgentForfeit as failed:
            failed.seat = self.seat
            raise
        if not reply.get("ok"):
            self.worker.kill()
            refused = AgentForfeit("crash", "its agent could not start the game")
            refused.seat = self.seat
            raise refused

    def choose(self, view: PlayerView, options: Sequence[Any]) -> int:
        try:
            return self._choose(view, len(options))
        except AgentForfeit as forfeit:
            forfeit.seat, forfeit.decisions, forfeit.turns = self.seat, view.decisions, view.turns
            raise

    def _choose(self, view: PlayerView, count: int) -> int:
        worker, limits = self.worker, self.worker.limits
        if worker.sandboxed:
            situation = self.vocabulary.view_situation(view)
            data = view_data(
                view, self.vocabulary, self.sent_history, situation not in self.sent_keys
            )
            self.sent_keys.add(situation)
            self.sent_history = data["history_length"]
        else:
            data = self._world(view, count)
        reply = worker.ask(("decide", data), limits.time_limit)
        retries = 0
        while True:
            index, refusal = _checked(reply, count)
            if refusal is None:
                break
            if retries >= limits.illegal_retries:
                raise refusal
            retries += 1
            reply = worker.ask(("retry", refusal.said or refusal.detail), limits.time_limit)
        self.moves.append(index)
        return index

    def _world(self, view: PlayerView, count: int) -> dict[str, Any]:
        assert self.worlds is not None, "begin() comes first"
        data = world_message(view, self.worlds, self.sent_history, count)
        self.sent_history += len(data["history"])
        return data


def world_message(
    view: PlayerView, worlds: random.Random, seen_events: int, count: int
) -> dict[str, Any]:
    """What a mirrored agent's worker is sent for one decision of ``count`` options
    (agent_worker.py: ``MirrorSession``): a world dealt from ``view``'s knowledge with
    ``worlds``, that knowledge, and the public events after the first ``seen_events``."""
    from cardlang.engine.transfer import send_state
    from cardlang.information.knowledge import seat_knowledge
    from cardlang.information.views import portable_history

    world = view.determinize(worlds)
    return {
        "world": send_state(view.master(), world),
        "knowledge": seat_knowledge(world, view.seat),
        "history": portable_history(view.history_since(seen_events)),
        "count": count,
    }


def _checked(reply: Mapping[str, Any], count: int) -> tuple[int, AgentForfeit | None]:
    """The option index a worker's reply names, or the ``illegal`` forfeit that says
    why it is no legal move (the worker's refusal is the agent's words: it shows the
    agent's answer)."""
    if "illegal" in reply:
        said = agent_words(str(reply["illegal"]), 500, lines=False)
        return -1, AgentForfeit("illegal", "its answer is no legal move", said)
    index = reply.get("index")
    if type(index) is not int:  # never from a well-formed reply (_well_formed)
        return -1, AgentForfeit("illegal", "its answer is not an option index")
    if not 0 <= index < count:
        shown = index if abs(index) < 10**12 else "out of range"
        return -1, AgentForfeit(
            "illegal", f"option {shown} is not legal: there are {count} options"
        )
    return index, None
