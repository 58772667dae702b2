"""The play loop: ask the mover's agent, turn its answer into a legal option, apply it.

Pipeline position: agents, above the engine and the information layer.  This is the one
loop that plays agents, used for whole games (``cardlang.runs.runner.play_game``, which
adds the new game, the result and the records) and for search rollouts played by agents
(``search.common.AgentRollout``, which stops after a number of decisions).  Only the
engine protocol is used: ``legal_options``, ``apply``, and the state's ``status``,
``mover`` and ``decisions``.

An answer that is not a plain ``int`` leaves the fast path (``resolve_choice``): an option
object is found among the options; a strength vector is ranked (``rank_vector``), each
entry that names no legal option being an illegal attempt; anything else, or a vector
with no legal entry, is an ``AgentError``.  So is an index out of range and any exception
the agent raises: ``agent_failure`` is the one place that turns what an agent does wrong
into an ``AgentError`` naming the agent, its seat, the situation, the turn and the seed
(``sys.exit`` in an agent too; a ``KeyboardInterrupt`` is no failure: it passes).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from cardlang.agents.base import AgentError, capabilities_of, native_twin

from cardlang.engine.protocol import AgentsInsideEngine, Engine, EngineState, agents_inside
from cardlang.information import vocabulary
from cardlang.information.views import consult

if TYPE_CHECKING:
    from cardlang.engine.game import Game

#: ``observer(st, options, index, illegal, seconds, agent, label)``: told of every move
#: before it is applied (``index`` may still be out of range: the observer may refuse it).
Observer = Callable[[EngineState, Sequence[Any], int, tuple[str, ...], float, Any, str], None]


def play_out(
    master: Engine,
    st: EngineState,
    agents: Sequence[Any],
    labels: Sequence[str],
    *,
    cap: int | None = None,
    observer: Observer | None = None,
) -> None:
    """Play ``st`` on with one agent per seat until the game ends, or until ``cap`` more
    decisions were taken.  ``labels`` name the agents in error messages; ``observer``, if
    given, is told of every move (and each agent is then timed, and its ``last_trace``
    cleared before it is asked)."""
    wants_view = [capabilities_of(agent).view for agent in agents]
    legal_options, apply, game = master.legal_options, master.apply, master.game
    limit = st.decisions + cap if cap is not None else None
    clock = time.perf_counter
    native = _native_seats(master, agents) if observer is None else None
    while not st.is_over and (limit is None or st.decisions < limit):
        if native is not None and native.twins[st.mover] is not None:
            # the engine plays on until a Python agent's turn (or the end, or the cap)
            native.engine.play_native(st, native.twins, _NO_LIMIT if limit is None else limit)
            continue
        options = legal_options(st)
        mover = st.mover
        agent = agents[mover]
        if observer is not None:
            if getattr(agent, "last_trace", None) is not None:
                agent.last_trace = None
            start = clock()
        illegal: tuple[str, ...] = ()
        try:
            choice = ask(agent, wants_view[mover], st, mover, master, options)
            if type(choice) is not int:
                choice, illegal = resolve_choice(game, st, options, choice, labels[mover])
            if not 0 <= choice < len(options):
                raise AgentError(f"option {choice} is not legal: there are {len(options)} options")
        except (Exception, SystemExit) as err:  # whatever the agent did wrong is its failure
            raise agent_failure(err, st, labels[mover]) from err
        if observer is not None:
            try:
                observer(st, options, choice, illegal, clock() - start, agent, labels[mover])
            except AgentError as err:  # the recorder found the agent's trace malformed
                raise agent_failure(err, st, labels[mover]) from err
        apply(st, choice)


def agent_failure(err: BaseException, st: Any, label: str) -> AgentError:
    """What an agent did wrong at the pending decision of ``st``, as an ``AgentError``
    naming the agent, its seat, the situation, the turn and the game's seed: the one
    place that decides what an agent's failure is.  An ``AgentError`` raised for this
    decision (an illegal answer) gets that context; any other exception (the agent's
    own, or an ``AgentError`` from a game it simulated) is reported as raised by it,
    with its traceback kept as text for ``--debug``."""
    pending = getattr(st, "pending", None)
    situation = getattr(pending, "situation", None)
    if situation == "CHOICE":  # an unnamed choice: where it is written
        span = getattr(pending, "span", None)
        situation = f"CHOICE at line {span.line}" if span is not None else situation
    context = {
        "agent": label,
        "seat": st.mover,
        "seed": st.seed,
        "turn": st.turns,
        "situation": situation,
    }
    if isinstance(err, AgentError) and err.seat is None:
        for name, value in context.items():
            if getattr(err, name) is None:
                setattr(err, name, value)
        return err
    try:  # the agent's exception is its own code too: its text may fail
        text = str(err)
        details = "".join(traceback.format_exception(err))
    except Exception:
        text, details = "(its message cannot be shown)", ""
    reason = f"raised {type(err).__name__}" + (f": {_shorten(text, 300)}" if text else "")
    return AgentError(reason, details=details, **context)


def _shorten(text: str, most: int) -> str:
    text = " ".join(text.split())  # one line
    return text if len(text) <= most else text[: most - 3] + "..."


_NO_LIMIT = 2**62


class _NativeSeats(NamedTuple):
    engine: AgentsInsideEngine
    twins: list[Any]  # per seat, its agent's twin (None: a Python agent)


def _native_seats(master: Engine, agents: Sequence[Any]) -> _NativeSeats | None:
    """Per seat, its agent as the native engine runs it (None for a Python agent), when
    the game is played by the native engine and some agent has such a twin (an agent
    offers one with ``native_agent()``; it must choose exactly as the agent would)."""
    if not master.traits.agents_inside:
        return None
    seats = [native_twin(a, master) for a in agents]
    if all(s is None for s in seats):
        return None
    return _NativeSeats(agents_inside(master, "twins play in an engine that plays them"), seats)


def ask(
    agent: Any,
    wants_view: bool,
    st: EngineState,
    mover: int,
    master: Engine,
    options: Sequence[Any],
) -> Any:
    """The answer of ``mover``'s agent, given a live view of the state (or None if it
    wants no view)."""
    if not wants_view:
        return agent.choose(None, options)
    return consult(agent.choose, st, mover, master.game, options, master.limits)


def resolve_choice(
    game: Game, st: EngineState, options: Sequence[Any], choice: Any, agent: str
) -> tuple[int, tuple[str, ...]]:
    """The index of the option an agent's answer picks, and its illegal attempts.

    Called for every answer that is not a plain ``int``: a numpy integer, an option
    object, or a strength vector.  Anything else is the agent's error.
    """
    if isinstance(choice, bool):
        raise AgentError(f"returned {choice!r}: {_EXPECTED}", agent=agent)
    if isinstance(choice, int | np.integer):
        return int(choice), ()
    for i, option in enumerate(options):
        if option is choice:
            return i, ()
    if isinstance(choice, tuple) and choice in options:  # an equal copy of an option
        return options.index(choice), ()
    vector = _as_vector(choice)
    if vector is None:
        shown = repr(choice)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise AgentError(f"returned {shown}: {_EXPECTED}", agent=agent)
    return rank_vector(game, st, options, vector, agent)


_EXPECTED = (
    "expected an option index, one of the options, or a vector of selection strengths "
    "over the situation's action vocabulary"
)


def _as_vector(choice: Any) -> np.ndarray | None:
    """A one-dimensional float array, if ``choice`` is a sequence of numbers."""
    if not isinstance(choice, np.ndarray | list | tuple):
        return None
    try:
        vector = np.asarray(choice, dtype=float)
    except (TypeError, ValueError):
        return None
    return vector if vector.ndim == 1 else None


def rank_vector(
    game: Game, st: EngineState, options: Sequence[Any], vector: np.ndarray, agent: str
) -> tuple[int, tuple[str, ...]]:
    """Try the vocabulary entries in descending strength; play the first legal one.

    Entries of equal strength are tried in vocabulary order; NaN counts as the weakest.
    Several options may share one key (two copies of a card): the first one is played.
    """
    vocab = vocabulary.Vocabulary.of(game)
    situation = vocab.situation_of(st)
    keys = vocab.keys(situation)
    if vector.shape != (len(keys),):
        raise AgentError(
            f"returned {vector.size} strengths in situation {situation}, "
            f"whose vocabulary has {len(keys)} entries",
            agent=agent,
        )
    seat = st.mover
    legal: dict[str, int] = {}
    for i, option in enumerate(options):
        legal.setdefault(vocabulary.option_key(game, st, option, seat), i)
    illegal: list[str] = []
    for j in np.argsort(-vector, kind="stable"):
        key = keys[j]
        index = legal.get(key)
        if index is not None:
            return index, tuple(illegal)
        illegal.append(key)
    raise AgentError(
        f"no entry of its strength vector is a legal move in situation "
        f"{situation} (legal: {', '.join(sorted(legal)) or 'none'})",
        agent=agent,
    )
