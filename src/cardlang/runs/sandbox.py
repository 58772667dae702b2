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
it raises MemoryError in the agent, ``memory``); an exception of the agent, or a worker
that dies, is a ``crash``; an answer that is no legal option (``illegal``) is refused and
asked again ``illegal_retries`` times.  Each ends the game as a forfeit
(``AgentForfeit``), and a worker that failed is started afresh for the next game.  What
a worker prints goes to its agent's log (``AgentLog``, capped), never to the
tournament's output.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import collections
import json
import os
import random
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
from cardlang.runs import jail as jails
from cardlang.runs.agent_view import view_data

if TYPE_CHECKING:
    from cardlang.engine.game import Game
    from cardlang.information.views import PlayerView
    from cardlang.runs.backends import GamePayload

__all__ = [
    "FORFEIT_REASONS",
    "LOG_BYTES",
    "AgentForfeit",
    "AgentLog",
    "AgentWorker",
    "RemoteAgent",
    "SandboxLimits",
    "harden_parent",
    "is_sandboxed",
    "plugin_file",
    "plugin_parts",
]

#: Why an agent forfeits a game.
FORFEIT_REASONS = ("crash", "timeout", "memory", "illegal")

#: The longest message a worker may send (an answer: an index, or a strength vector).
MAX_MESSAGE = 16 * 1024 * 1024
#: What an agent's log keeps of its workers' output, at most.
LOG_BYTES = 1024 * 1024


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
    """An agent lost its game by failing: ``reason`` is one of ``FORFEIT_REASONS``.
    ``seat``, ``decisions`` and ``turns`` are filled in where it happened."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.seat = -1
        self.decisions = 0
        self.turns = 0


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


# ---------------------------------------------------------------- the main process's side


class AgentWorker:
    """The main process's handle on one agent's worker process (started when first
    needed, started again after a failure).  ``log``: where the worker's output goes."""

    def __init__(
        self, spec: str, payload: GamePayload, limits: SandboxLimits, log: AgentLog | None = None
    ) -> None:
        self.spec = spec
        self.sandboxed = is_sandboxed(spec)
        self.payload = None if self.sandboxed else payload
        self.limits = limits
        self.log = log or AgentLog(None)
        self.process: subprocess.Popen[bytes] | None = None
        self.conn: Any = None
        self._drainer: threading.Thread | None = None
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
            reply = self._receive(self.limits.startup_limit)
        except AgentForfeit as failed:
            said = self.log.tail()
            detail = f"its worker did not start ({failed.detail})" + (f": {said}" if said else "")
            raise AgentForfeit(failed.reason, detail) from None
        if not reply.get("ok"):
            self.kill()
            raise AgentForfeit("crash", "its worker did not start")
        if self.sandboxed and self.process is not None:
            self._frozen_pid = _agent_process(self.process, self.limits.jail)
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
        from multiprocessing.connection import Connection

        self.process, self.conn = process, Connection(ours.detach())
        self._drainer = threading.Thread(
            target=_drain, args=(process.stdout, self.log), name="cardlang-agent-log", daemon=True
        )
        self._drainer.start()
        try:
            self.conn.send(("init", self.payload))
        except (OSError, ValueError):
            raise self._dead() from None

    def ask(self, message: tuple[Any, ...], seconds: float) -> dict[str, Any]:
        """Send ``message`` and wait at most ``seconds`` for the reply (a dict decoded
        from JSON).  A worker that fails (no reply in time, an error, death) is killed
        and the agent forfeits."""
        self._thaw()
        try:
            self.conn.send(message)
        except (OSError, ValueError, AttributeError):
            raise self._dead() from None
        reply = self._receive(seconds)
        self._freeze()
        return reply

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

    def _receive(self, seconds: float) -> dict[str, Any]:
        conn = self.conn
        try:
            ready = conn.poll(seconds)
        except (OSError, ValueError, AttributeError):
            raise self._dead() from None
        if not ready:
            self.kill()
            raise AgentForfeit("timeout", f"no answer within {seconds:g} s")
        # a worker that sent part of a message would block us: it is killed at the limit
        watchdog = threading.Timer(seconds + 1.0, self.kill)
        watchdog.start()
        try:
            raw = conn.recv_bytes(MAX_MESSAGE)
        except (EOFError, OSError):
            raise self._dead() from None
        finally:
            watchdog.cancel()
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self.kill()
            raise AgentForfeit("crash", "its worker broke the protocol")
        error = reply.get("error")
        if error is not None:
            self.kill()  # a fresh worker for the next game
            reason = error if error in ("crash", "memory") else "crash"
            raise AgentForfeit(reason, str(reply.get("detail", ""))[-2000:])
        return reply

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
        process, conn, drainer = self.process, self.conn, self._drainer
        self.process = self.conn = self._drainer = None
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
        if conn is not None:
            conn.close()
        if drainer is not None:
            drainer.join(5.0)

    def stop(self) -> None:
        self._thaw()
        if self.conn is not None:
            try:
                self.conn.send(("stop",))
            except (OSError, ValueError):
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
            index, problem = _checked(reply, count)
            if problem is None:
                break
            if retries >= limits.illegal_retries:
                raise AgentForfeit("illegal", problem)
            retries += 1
            reply = worker.ask(("retry", problem), limits.time_limit)
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


def _checked(reply: Mapping[str, Any], count: int) -> tuple[int, str | None]:
    """The option index a worker's reply names, or why it is no legal move."""
    if "illegal" in reply:
        return -1, str(reply["illegal"])[:500]
    index = reply.get("index")
    if type(index) is not int:
        return -1, f"answered {str(index)[:60]}, not an option index"
    if not 0 <= index < count:
        return -1, f"option {index} is not legal: there are {count} options"
    return index, None
