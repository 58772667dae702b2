"""Agents in worker processes, under limits: what a tournament plays untrusted agents with.

Pipeline position: runs, beside the runner.  ``RemoteAgent`` is an agent of the one play
loop (``cardlang.agents.loop.play_out``, through ``runs.play.play_game``) that asks an
``AgentWorker``, a process of its own (multiprocessing, forkserver where there is one,
else spawn), for every move, under a per-decision time limit; the worker builds the real
agent from its spec and keeps it for one game at a time.

Two kinds of worker:

- **sandboxed** (an agent from a file, ``path/to/file.py:Class``: untrusted code).  The
  worker never holds the game: no ``Game``, ``Gamemaster``, ``Gamestate`` or
  ``PlayerView`` exists in its process.  At each decision it receives the seat's view as
  plain data (built here from the live ``PlayerView``'s public accessors: ``view_data``)
  and hands the agent a ``SandboxView`` made of it, with the options as
  ``SandboxOption`` values; the agent's answer goes back as JSON (never a pickle: the
  parent unpickles nothing a worker sends).  The plugin file is never imported in the
  main process.
- **mirrored** (a built-in agent or a bot file: cardlang's own code, trusted to read
  only its view).  The worker compiles the game itself (``GamePayload``) and keeps a
  mirror of the game: the same seed, and every move sent to it; it consults the agent
  with a real live view, so search agents determinize and simulate as ever.  It runs in
  its own process for the limits and for crash isolation, not for secrecy.

Limits (``SandboxLimits``): no answer within ``time_limit`` seconds and the worker is
killed (``timeout``); the worker's address space is capped ``memory_limit`` MB above what
it holds once started (``RLIMIT_AS``: an allocation past it raises MemoryError in the
agent, ``memory``); an exception of the agent, or a worker that dies, is a ``crash``;
an answer that is no legal option (``illegal``) is refused and asked again
``illegal_retries`` times.  Each ends the game as a forfeit (``AgentForfeit``), and a
worker that failed is started afresh for the next game.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardlang.agents.base import Capabilities

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from cardlang.engine.game import Game
    from cardlang.information.views import PlayerView
    from cardlang.runs.backends import GamePayload

__all__ = [
    "FORFEIT_REASONS",
    "AgentForfeit",
    "AgentWorker",
    "RemoteAgent",
    "SandboxLimits",
    "SandboxOption",
    "SandboxView",
    "harden_parent",
    "is_sandboxed",
    "view_data",
]

#: Why an agent forfeits a game.
FORFEIT_REASONS = ("crash", "timeout", "memory", "illegal")

#: The longest message a worker may send (an answer: an index, or a strength vector).
MAX_MESSAGE = 16 * 1024 * 1024


@dataclass(frozen=True)
class SandboxLimits:
    """What an agent's worker may spend.  ``time_limit``: seconds per decision (from the
    view's sending to the answer's arrival).  ``memory_limit``: MB the worker may map
    beyond what it holds once started (None: no limit).  ``illegal_retries``: illegal
    answers refused and asked again before the agent forfeits.  ``startup_limit``:
    seconds to start a worker, or to make the agent of a game (compiling the game
    included, for a mirrored worker)."""

    time_limit: float = 10.0
    memory_limit: int | None = 2048
    illegal_retries: int = 0
    startup_limit: float = 60.0


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


def harden_parent() -> None:
    """Best effort, Linux: make this process non-dumpable, so that another process of
    the same user (an agent's worker) cannot attach to it or read its memory through
    /proc, whatever the kernel's ptrace policy."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


# ---------------------------------------------------------------- the serialized view


def _plain(value: Any) -> Any:
    """``value`` as plain data: None, bool, int, float, str, and tuples and dicts of
    them; anything else (and any subclass of those) becomes its text or its plain base."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if isinstance(value, Mapping):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list | set | frozenset):
        return tuple(_plain(v) for v in value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def _value_text(value: Any) -> str:
    """A bound value as a label shows it: a card by its name, a hidden card as '?'."""
    from cardlang.language.kinds import card_name

    if isinstance(value, Mapping):
        return card_name(value)
    if value is None:
        return "?"
    if isinstance(value, tuple) and len(value) == 3:
        owner, kind, name = value
        return f"{'game' if owner < 0 else f'P{owner}'}.{name}"
    return str(value)


def view_data(
    view: PlayerView, vocabulary: Any, history_from: int, send_keys: bool
) -> dict[str, Any]:
    """The seat's view at a decision as plain data, from the view's public accessors
    only: the header, every visible location's cards (attribute dicts), the sizes of the
    hidden ones, the storages, the public history from event ``history_from`` on, the
    options as the mover sees them (label, vocabulary key, branch, bindings, cards,
    kinds, actions' text) and, with ``send_keys``, the situation's vocabulary."""
    situation = vocabulary.view_situation(view)
    keys = vocabulary.view_keys(view)
    options = []
    for i, (shown, key) in enumerate(zip(view.options, keys, strict=True)):
        bindings = tuple((var, _plain(value)) for var, value in shown.bindings)
        binds = ", ".join(f"'{var}={_value_text(value)}" for var, value in bindings)
        actions = tuple(shown.actions)
        text = "; ".join(actions)
        options.append(
            {
                "index": i,
                "label": f"{binds}: {text}" if binds else text,
                "key": key,
                "branch": shown.branch,
                "bindings": bindings,
                "cards": _plain(shown.cards),
                "kinds": _plain(shown.kinds),
                "actions": actions,
            }
        )
    data: dict[str, Any] = {
        "seat": view.seat,
        "nplayers": view.nplayers,
        "current_player": view.current_player,
        "decisions": view.decisions,
        "turns": view.turns,
        "situation": view.situation,
        "situation_text": view.situation_text,
        "vocabulary_situation": situation,
        "visible": _plain(dict(view.visible)),
        "hidden_sizes": _plain(dict(view.hidden_sizes)),
        "ints": _plain(dict(view.ints)),
        "strs": _plain(dict(view.strs)),
        "history": _plain(view.history_since(history_from)),
        "history_length": view.history_length,
        "options": tuple(options),
    }
    if send_keys and situation is not None:
        data["vocabulary"] = tuple(vocabulary.keys(situation))
    return data


class SandboxOption:
    """One option as a sandboxed agent receives it (plain data).  ``index``: its place
    in ``options``; ``label``: the bindings and the actions' source text; ``key``: its
    action-vocabulary key; ``branch``, ``bindings``, ``cards``, ``kinds``, ``actions``:
    as ``cardlang.information.views.OptionView``."""

    __slots__ = ("index", "label", "key", "branch", "bindings", "cards", "kinds", "actions")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.index: int = data["index"]
        self.label: str = data["label"]
        self.key: str = data["key"]
        self.branch: int = data["branch"]
        self.bindings: tuple[tuple[str, Any], ...] = data["bindings"]
        self.cards: tuple[Mapping[str, Any] | None, ...] = data["cards"]
        self.kinds: tuple[str | None, ...] = data["kinds"]
        self.actions: tuple[str, ...] = data["actions"]

    @property
    def card(self) -> Mapping[str, Any] | None:
        return next((c for c in self.cards if c is not None), None)

    @property
    def kind(self) -> str | None:
        return next((k for k in self.kinds if k is not None), None)

    def __repr__(self) -> str:
        return f"SandboxOption({self.index}, {self.label!r})"


class SandboxUnavailable(RuntimeError):
    """What a sandboxed view cannot do: it holds no game to simulate or determinize."""


class SandboxView:
    """The view a sandboxed agent receives: the same public attributes and accessors as
    ``PlayerView`` (seat, nplayers, current_player, decisions, turns, situation,
    situation_text, visible, hidden_sizes, ints, strs, history, options, option_kinds,
    cards(), size(), top(), tops(), locations(), storage(), known_cards()), all plain
    data, plus ``vocabulary`` (the situation's action keys, for strength vectors),
    ``rules_text`` (the game file, public) and ``refusal`` (why the previous answer was
    refused, on a retry).  No game: ``game`` is None and ``master()``/``determinize()``
    raise ``SandboxUnavailable``."""

    game = None

    def __init__(
        self,
        data: Mapping[str, Any],
        history: tuple[Any, ...],
        vocabulary: tuple[str, ...],
        rules: Mapping[str, Any],
    ) -> None:
        self.seat: int = data["seat"]
        self.nplayers: int = data["nplayers"]
        self.current_player: int = data["current_player"]
        self.decisions: int = data["decisions"]
        self.turns: int = data["turns"]
        self.situation: str | None = data["situation"]
        self.situation_text: str = data["situation_text"]
        self.visible: dict[tuple[int, str, str], tuple[dict[str, Any], ...]] = data["visible"]
        self.hidden_sizes: dict[tuple[int, str, str], int] = data["hidden_sizes"]
        self.ints: dict[tuple[int, str], int] = data["ints"]
        self.strs: dict[tuple[int, str], str] = data["strs"]
        self.history = history
        self.options = tuple(SandboxOption(o) for o in data["options"])
        self.vocabulary = vocabulary
        self.kinds: Mapping[str, Any] = rules.get("kinds", {})
        self.rules_text: str = rules.get("text", "")
        self.game_name: str = rules.get("name", "")
        self.refusal: str | None = None

    @property
    def raw_options(self) -> tuple[SandboxOption, ...]:
        return self.options

    @property
    def option_kinds(self) -> tuple[str | None, ...]:
        return tuple(o.kind for o in self.options)

    @property
    def history_length(self) -> int:
        return len(self.history)

    def history_since(self, start: int) -> tuple[Any, ...]:
        return self.history[start:]

    def cards(self, owner: int, kind: str, name: str) -> tuple[dict[str, Any], ...] | None:
        key = (owner, kind, name)
        if key in self.visible:
            return self.visible[key]
        return None if key in self.hidden_sizes else ()

    def known_cards(self, owner: int, kind: str, name: str) -> tuple[Any, ...]:
        seen = self.cards(owner, kind, name)
        return seen if seen is not None else (None,) * self.size(owner, kind, name)

    def size(self, owner: int, kind: str, name: str) -> int:
        key = (owner, kind, name)
        if key in self.visible:
            return len(self.visible[key])
        return self.hidden_sizes.get(key, 0)

    def top(self, owner: int, kind: str, name: str) -> dict[str, Any] | None:
        cards = self.visible.get((owner, kind, name))
        return cards[-1] if cards else None

    def tops(self) -> dict[tuple[int, str, str], dict[str, Any]]:
        return {k: v[-1] for k, v in self.visible.items() if v}

    def locations(self) -> list[tuple[int, str, str]]:
        return [*self.visible, *self.hidden_sizes]

    def storage(self, owner: int, name: str) -> int:
        return self.ints.get((owner, name), 0)

    def master(self) -> Any:
        raise SandboxUnavailable("a sandboxed agent's view holds no game: it cannot simulate")

    def determinize(self, rng: Any) -> Any:
        raise SandboxUnavailable("a sandboxed agent's view holds no game: it cannot determinize")

    def __repr__(self) -> str:
        shown = f"seat={self.seat}, situation={self.situation!r}, options={len(self.options)}"
        return f"SandboxView({shown})"


def _index_of(answer: Any, view: SandboxView) -> dict[str, Any]:
    """A sandboxed agent's answer as the reply the parent reads: ``{"index": i}`` (the
    parent checks its range), or ``{"illegal": why}``.  An option of the view counts as
    its index; a strength vector over ``view.vocabulary`` as its strongest entry that
    names an option (entries tried before it are ``"tried"``)."""
    if isinstance(answer, bool):
        return {"illegal": f"answered {answer!r}"}
    if isinstance(answer, SandboxOption):
        if 0 <= answer.index < len(view.options) and view.options[answer.index] is answer:
            return {"index": answer.index}
        return {"illegal": "answered an option of another decision"}
    if isinstance(answer, int):
        return {"index": int(answer)}
    try:
        import numpy as np

        if isinstance(answer, np.integer):
            return {"index": int(answer)}
        vector = np.asarray(answer, dtype=float)
    except (TypeError, ValueError, OverflowError):
        vector = None
    if (
        vector is None
        or vector.ndim != 1
        or vector.shape[0] != len(view.vocabulary)
        or not len(vector)
    ):
        shown = repr(answer)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return {
            "illegal": f"answered {shown}: expected an option index, an option or a "
            f"vector of {len(view.vocabulary)} strengths"
        }
    legal: dict[str, int] = {}
    for option in view.options:
        legal.setdefault(option.key, option.index)
    vector = np.where(np.isnan(vector), -np.inf, vector)
    tried: list[str] = []
    for j in np.argsort(-vector, kind="stable"):
        key = view.vocabulary[int(j)]
        if key in legal:
            return {"index": legal[key], "tried": tried}
        tried.append(key)
    return {"illegal": "no entry of its strength vector is a legal move"}


# ---------------------------------------------------------------- the worker process


def _memory_in_use() -> int:
    """The bytes this process has mapped (its address space: what RLIMIT_AS bounds)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _limit_memory(megabytes: int) -> None:
    import resource

    try:
        cap = _memory_in_use() + megabytes * 1024 * 1024
    except OSError:  # no /proc: a plain cap
        cap = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _send(conn: Connection, reply: Mapping[str, Any]) -> None:
    conn.send_bytes(json.dumps(reply, allow_nan=False, default=str).encode())


class _MirrorSession:
    """A built-in agent's game: the agent, and a mirror of the game fed every move."""

    def __init__(self, master: Any, spec: str, start: Mapping[str, Any]) -> None:
        from cardlang.agents import make_agent
        from cardlang.agents.base import capabilities_of

        self.master = master
        self.seat = start["seat"]
        self.agent = make_agent(spec, start["seed"])
        self.capabilities = capabilities_of(self.agent)
        self.st = master.new_game(start["game_seed"], record=True)
        self.spec = spec

    def decide(self, data: Mapping[str, Any] | None, refusal: str | None) -> dict[str, Any]:
        from cardlang.agents.base import AgentError
        from cardlang.agents.loop import ask, resolve_choice

        master, st = self.master, self.st
        for index in data["moves"] if data is not None else ():
            master.apply(st, index)
        if st.is_over or st.mover != self.seat:
            raise RuntimeError(f"the mirrored game is out of step (mover {st.mover})")
        options = master.legal_options(st)
        choice = ask(self.agent, self.capabilities.view, st, self.seat, master, options)
        if type(choice) is not int:
            try:
                choice, _ = resolve_choice(master.game, st, options, choice, self.spec)
            except AgentError as err:
                return {"illegal": str(err)}
        return {"index": choice}


class _SandboxSession:
    """An untrusted agent's game: the agent and what it was sent (the history so far,
    the vocabulary of each situation seen)."""

    def __init__(self, spec: str, start: Mapping[str, Any]) -> None:
        from cardlang.agents import make_agent
        from cardlang.agents.base import capabilities_of

        self.agent = make_agent(spec, start["seed"])
        self.wants_view = capabilities_of(self.agent).view
        self.rules = start.get("rules", {})
        self.history: list[Any] = []
        self.vocabularies: dict[str, tuple[str, ...]] = {}
        self.view: SandboxView | None = None

    def decide(self, data: dict[str, Any] | None, refusal: str | None) -> dict[str, Any]:
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
        return _index_of(answer, view)


def _worker_main(
    conn: Connection, spec: str, payload: GamePayload | None, memory_limit: int | None
) -> None:
    """An agent's worker: ready, then one game after another until told to stop.  An
    agent's failure is reported, never raised: the parent decides what it costs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from cardlang.runs.backends import _exit_with_parent

    _exit_with_parent()
    master = payload.master() if payload is not None else None
    if memory_limit is not None:
        _limit_memory(memory_limit)
    _send(conn, {"ok": True})
    session: _MirrorSession | _SandboxSession | None = None
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "stop":
            return
        reply: dict[str, Any]
        try:
            if kind == "game":
                session = None
                if master is not None:
                    session = _MirrorSession(master, spec, message[1])
                else:
                    session = _SandboxSession(spec, message[1])
                reply = {"ok": True}
            elif session is None:
                reply = {"error": "crash", "detail": "asked to decide before a game"}
            elif kind == "decide":
                reply = session.decide(message[1], None)
            else:  # "retry"
                reply = session.decide(None, message[1])
        except MemoryError:  # the frames holding the memory are gone once handled
            reply = {"error": "memory", "detail": "MemoryError"}
        except BaseException as err:  # noqa: B036 (an agent's SystemExit is its crash)
            lines = traceback.format_exception(type(err), err, err.__traceback__, limit=-4)
            reply = {"error": "crash", "detail": "".join(lines)[-2000:]}
        try:
            _send(conn, reply)
        except MemoryError:
            _send(conn, {"error": "memory", "detail": "MemoryError"})
        except (TypeError, ValueError):  # an answer JSON cannot carry
            _send(conn, {"illegal": "an answer that is not plain data"})


# ---------------------------------------------------------------- the main process's side


class AgentWorker:
    """The main process's handle on one agent's worker process (started when first
    needed, started again after a failure)."""

    def __init__(self, spec: str, payload: GamePayload, limits: SandboxLimits) -> None:
        self.spec = spec
        self.sandboxed = is_sandboxed(spec)
        self.payload = None if self.sandboxed else payload
        self.limits = limits
        self.process: Any = None
        self.conn: Any = None

    def ensure(self) -> None:
        """Start the worker if it is not running; an agent that cannot start forfeits."""
        if self.process is not None and self.process.is_alive():
            return
        self.kill()
        from cardlang.runs.backends import _pool_context

        context = _pool_context()
        ours, theirs = context.Pipe()
        process = context.Process(  # type: ignore[attr-defined]
            target=_worker_main,
            args=(theirs, self.spec, self.payload, self.limits.memory_limit),
            name=f"cardlang-agent-{self.spec}",
            daemon=True,
        )
        process.start()
        theirs.close()
        self.process, self.conn = process, ours
        reply = self._receive(self.limits.startup_limit)
        if not reply.get("ok"):
            self.kill()
            raise AgentForfeit("crash", "its worker did not start")

    def ask(self, message: tuple[Any, ...], seconds: float) -> dict[str, Any]:
        """Send ``message`` and wait at most ``seconds`` for the reply (a dict decoded
        from JSON).  A worker that fails (no reply in time, an error, death) is killed
        and the agent forfeits."""
        try:
            self.conn.send(message)
        except (OSError, ValueError):
            raise self._dead() from None
        return self._receive(seconds)

    def _receive(self, seconds: float) -> dict[str, Any]:
        conn = self.conn
        if not conn.poll(seconds):
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
            process.join(1.0)
            code = process.exitcode
        self.kill()
        if code is not None and code < 0:
            how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        return AgentForfeit("crash", f"its worker died ({how})")

    def kill(self) -> None:
        """Stop the worker at once (it holds nothing worth a goodbye)."""
        process, conn = self.process, self.conn
        self.process = self.conn = None
        if process is not None:
            try:
                process.kill()
                process.join(5.0)
            except (OSError, ValueError, AssertionError):
                pass
        if conn is not None:
            conn.close()

    def stop(self) -> None:
        if self.conn is not None:
            try:
                self.conn.send(("stop",))
            except (OSError, ValueError):
                pass
        self.kill()


class RemoteAgent:
    """An agent of the play loop whose moves come from an ``AgentWorker``: it sends the
    worker the moves since it last asked (mirrored) or the view as plain data
    (sandboxed), checks the answer, and appends its move to the game's shared ``moves``.
    A failure raises ``AgentForfeit`` with the seat and where the game stood."""

    capabilities = Capabilities(view=True)

    def __init__(self, worker: AgentWorker, seat: int, moves: list[int], game: Game) -> None:
        from cardlang.information.vocabulary import Vocabulary

        self.worker = worker
        self.name = worker.spec
        self.seat = seat
        self.moves = moves
        self.vocabulary = Vocabulary.of(game)
        self.sent_moves = 0
        self.sent_history = 0
        self.sent_keys: set[str | None] = set()

    def begin(self, agent_seed: int, game_seed: int, rules: Mapping[str, Any]) -> None:
        """Start the agent's game in its worker (starting the worker if needed)."""
        start: dict[str, Any] = {"seed": agent_seed, "seat": self.seat}
        if self.worker.sandboxed:
            start["rules"] = rules
        else:
            start["game_seed"] = game_seed
        try:
            self.worker.ensure()
            reply = self.worker.ask(("game", start), self.worker.limits.startup_limit)
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
            data = {"moves": self.moves[self.sent_moves :]}
            self.sent_moves = len(self.moves)
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
