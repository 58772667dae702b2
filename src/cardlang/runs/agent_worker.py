"""An agent's worker process: ``python -m cardlang.runs.agent_worker --fd N [--jailed]``.

Pipeline position: runs, under the sandbox.  sandbox.py's ``AgentWorker`` starts this
module as a process of its own (in a jail for an agent from a file: jail.py) and talks
to it over the socket at file descriptor N (channel.py: framed messages, bounded in
size); the process's stdout and stderr are the agent's log, never the channel.  Messages
from the tournament are pickles (the worker trusts the tournament); replies are JSON
(the tournament unpickles nothing a worker sends, and trusts nothing it reads: the
agent's code runs in this process and can write to the socket itself).

The conversation: each request is ``(id, kind, *args)``, and its reply a JSON object
that echoes the id as ``"re"``.  The worker says ``{"ok": true}`` once it is ready (its
own imports done, limits set) on being sent ``"init", payload`` (a built-in agent's
worker compiles the game from ``payload``, a ``GamePayload``; an agent from a file's
gets None); then ``"load", spec`` loads the agent's class and checks its parameters (a
plugin's module runs here, under the limits); ``"game", start`` makes the agent of one
game (its constructor runs here); ``"decide", data`` and ``"retry", why`` ask for a
move; ``"stop"`` ends the worker.  Every request but ``stop`` is answered:
``{"ok": true}``, a move (``{"index": i}``), ``{"illegal": why}``, or
``{"error": "failed", "detail": text}`` for a failure of the agent (its exception's
traceback; the tournament decides what the failure was: sandbox.py).

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import json
import pickle
import signal
import socket
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from cardlang.engine.protocol import Engine
from cardlang.errors import UsageError
from cardlang.runs import jail
from cardlang.runs.channel import MAX_REPLY, MAX_REQUEST, Channel, ChannelClosed

if TYPE_CHECKING:
    from cardlang.runs.agent_view import SandboxView

__all__ = ["MirrorSession", "main"]


#: The most of an agent's text (a traceback, a refusal) a reply carries, in characters.
DETAIL_CHARS = 2000


def _send(channel: Channel, ident: int, reply: Mapping[str, Any]) -> None:
    """Reply to request ``ident``; an answer JSON cannot carry, or one too long for the
    channel, is sent as the illegal answer it is."""
    try:
        data = json.dumps({**reply, "re": ident}, allow_nan=False, default=str).encode()
    except (TypeError, ValueError, RecursionError):
        data = json.dumps({"illegal": "an answer that is not plain data", "re": ident}).encode()
    if len(data) > MAX_REPLY:
        data = json.dumps({"illegal": "an answer too long to send", "re": ident}).encode()
    channel.send(data, None)


def _receive(channel: Channel) -> tuple[Any, ...]:
    """The tournament's next request, ``(id, kind, *args)``."""
    request: tuple[Any, ...] = pickle.loads(channel.recv(None, MAX_REQUEST))
    return request


class MirrorSession:
    """A built-in agent's game: the agent, and what its seat may know.  It never holds
    the game: at each decision it receives one determinization of the seat's view (a
    whole world consistent with what the seat knows, engine/transfer.py), the seat's
    knowledge and the public events since its last decision, and consults the agent with
    a live view of that world, so search agents determinize and simulate as ever."""

    def __init__(
        self, master: Engine, make: Callable[[int], Any], start: Mapping[str, Any]
    ) -> None:
        from cardlang.agents.base import capabilities_of

        self.game, self.limits = master.game, master.limits
        self.seat = start["seat"]
        self.spec = start["spec"]
        self.agent = make(start["seed"])
        self.wants_view = capabilities_of(self.agent).view
        self.history: tuple[tuple[Any, ...], ...] = ()
        self.world: tuple[Any, Any, Any] | None = None  # this decision's master, state, options

    def decide(self, data: Mapping[str, Any] | None, refusal: str | None) -> dict[str, Any]:
        from cardlang.agents.base import AgentError
        from cardlang.agents.loop import resolve_choice
        from cardlang.information.views import consult

        if data is not None:
            self.world = self._receive(data)
        assert self.world is not None, "a retry follows a decision"
        master, st, options = self.world
        if not self.wants_view:
            choice = self.agent.choose(None, options)
        else:
            choice = consult(
                self.agent.choose, st, self.seat, self.game, options, self.limits, self.history
            )
        if type(choice) is not int:
            try:
                choice, _ = resolve_choice(self.game, st, options, choice, self.spec)
            except AgentError as err:
                return {"illegal": str(err)}
        return {"index": choice}

    def _receive(self, data: Mapping[str, Any]) -> tuple[Any, Any, Any]:
        from cardlang.engine.transfer import receive_state
        from cardlang.information.knowledge import attach_knowledge
        from cardlang.information.views import restored_history

        self.history += restored_history(data["history"])
        master, st = receive_state(self.game, self.limits, data["world"])
        attach_knowledge(st, data["knowledge"])
        if st.is_over or st.mover != self.seat:
            raise RuntimeError(f"the world sent is not this seat's decision (mover {st.mover})")
        options = master.legal_options(st)
        if len(options) != data["count"]:
            raise RuntimeError("the world sent lists other options than the game")
        return master, st, options


class _SandboxSession:
    """An untrusted agent's game: the agent and what it was sent (the history so far,
    the vocabulary of each situation seen)."""

    def __init__(self, make: Callable[[int], Any], start: Mapping[str, Any]) -> None:
        from cardlang.agents.base import capabilities_of

        self.agent = make(start["seed"])
        self.wants_view = capabilities_of(self.agent).view
        self.rules = start.get("rules", {})
        self.history: list[Any] = []
        self.vocabularies: dict[str, tuple[str, ...]] = {}
        self.view: SandboxView | None = None

    def decide(self, data: dict[str, Any] | None, refusal: str | None) -> dict[str, Any]:
        from cardlang.runs.agent_view import SandboxView, index_of

        if data is not None:
            self.history.extend(data["history"])
            situation = data["vocabulary_situation"]
            if "vocabulary" in data:
                self.vocabularies[situation] = data["vocabulary"]
            vocabulary = self.vocabularies.get(situation, ())
            self.view = SandboxView(data, tuple(self.history), vocabulary, self.rules)
        view = self.view
        assert view is not None, "a retry follows a decision"
        view.refusal = refusal
        answer = self.agent.choose(view if self.wants_view else None, view.options)
        reply = index_of(answer, view)
        reply.pop("tried", None)  # the tournament reads the move alone
        return reply


class _Worker:
    """What one worker holds: the agent's maker once loaded, the game's master for a
    built-in agent, and the game being played."""

    def __init__(self, master: Engine | None) -> None:
        self.make: Callable[[int], Any] | None = None
        self.master = master
        self.session: MirrorSession | _SandboxSession | None = None

    def handle(self, message: tuple[Any, ...]) -> dict[str, Any]:
        kind = message[0]
        if kind == "load":
            from cardlang.agents.registry import agent_maker

            self.make = agent_maker(message[1])
            return {"ok": True}
        if self.make is None:
            return {"error": "failed", "detail": "asked to play before its agent was loaded"}
        if kind == "game":
            self.session = None
            start = message[1]
            if self.master is not None:
                self.session = MirrorSession(self.master, self.make, start)
            else:
                self.session = _SandboxSession(self.make, start)
            return {"ok": True}
        if self.session is None:
            return {"error": "failed", "detail": "asked to decide before a game"}
        if kind == "decide":
            return self.session.decide(message[1], None)
        return self.session.decide(None, message[1])  # "retry"


def _serve(channel: Channel, master: Engine | None) -> None:
    """Answer requests until told to stop or the tournament is gone.  An agent's failure
    is reported, never raised: the tournament decides what it costs."""
    worker = _Worker(master)
    while True:
        try:
            ident, *message = _receive(channel)
        except ChannelClosed:
            return
        if message[0] == "stop":
            return
        reply: dict[str, Any]
        try:
            reply = worker.handle(tuple(message))
        except MemoryError:  # the frames holding the memory are gone once handled
            reply = {"error": "failed", "detail": "MemoryError"}
        except UsageError as err:  # a bad file, class or parameter: its message says it
            reply = {"error": "failed", "detail": str(err)[-DETAIL_CHARS:]}
        except BaseException as err:  # noqa: B036 (an agent's SystemExit is its crash)
            reply = {"error": "failed", "detail": _describe(err)}
        try:
            _send(channel, ident, reply)
        except MemoryError:
            _send(channel, ident, {"error": "failed", "detail": "MemoryError"})
        except ChannelClosed:
            return


def _describe(err: BaseException) -> str:
    """An agent's exception as its traceback's last frames, ending with the message line
    (what a summary shows of it)."""
    try:  # the agent's exception is its own code: its text may fail too
        lines = traceback.format_exception(type(err), err, err.__traceback__, limit=-4)
    except Exception:  # noqa: BLE001
        lines = [f"{type(err).__name__} (its text could not be read)"]
    return "".join(lines)[-DETAIL_CHARS:]


def main(argv: list[str]) -> int:
    if argv == ["--probe"]:  # jail.find_jail: does the jail start this module?
        jail.drop_privileges()
        import os

        print(f"jailed as {os.getuid()}")
        return 0
    fd = int(argv[argv.index("--fd") + 1])
    jailed = "--jailed" in argv
    memory = argv[argv.index("--memory") + 1] if "--memory" in argv else "none"
    if jailed:
        jail.drop_privileges()  # before anything else runs
    else:
        jail.die_with_parent()
    jail.harden_process()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the tournament's to handle
    # what every agent's worker needs, imported before the limits (and the same in every
    # worker, so nothing here tells a start-up check from a game)
    import cardlang.agents.registry  # noqa: F401
    import cardlang.runs.agent_view  # noqa: F401

    channel = Channel(socket.socket(fileno=fd))
    # the game, for a built-in agent's worker (a mirror): cardlang's own work, done
    # before the agent's limits
    ident, _, payload = _receive(channel)
    master = payload.master() if payload is not None else None
    megabytes = None if memory == "none" else int(memory)
    # a built-in agent may start threads (torch's); an agent from a file may not
    jail.limit_resources(megabytes, refuse_processes=payload is None)
    _send(channel, ident, {"ok": True})
    _serve(channel, master)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
