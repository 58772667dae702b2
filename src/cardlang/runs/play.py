"""The runner: asks each seat's agent for a move and turns its answer into a legal option.

Pipeline position: between the agents and the Gamemaster.  An agent's ``choose(view,
options)`` may return

- an ``int``: the index of an option (the fast path: nothing else is looked at);
- one of the options themselves;
- a *selection-strength vector*: one float per entry of the situation's action vocabulary
  (``cardlang.information.vocabulary``), as a neural agent produces it.  The runner tries the
  entries
  in descending strength, counts every entry that names no legal option of this decision
  as an illegal attempt, and plays the first legal one.  A vector with no legal entry is
  the agent's error, reported with its name and the situation: the runner never picks a
  move the agent did not ask for.

``play_game`` without a trace keeps the loop of plain index-returning agents as short as
it was (the Dominion speed benchmark measures it); with a trace (a list) it also records
one ``Decision`` per move for the SQLite records (records.py), which needs the
vocabulary's situation and action keys, and keeps what a search agent estimated at each
of its decisions (its ``last_trace``, a ``DecisionTrace``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cardlang.engine.gamemaster import Gamemaster, GameResult
from cardlang.engine.state import RUNNING, Gamestate
from cardlang.errors import UsageError
from cardlang.information.views import PlayerView

if TYPE_CHECKING:
    from cardlang.engine.game import Game


class AgentError(UsageError):
    """An agent answered something the runner cannot play; the message names the agent."""


@dataclass(frozen=True)
class DecisionTrace:
    """What a search agent estimated at one decision (the raw material of heuristics).

    ``option_values``: per option of the decision, in the order the agent was given them,
    the estimated value for the mover (its expected standing in [0, 1], see
    ``Gamemaster.standings``), None where the agent formed no estimate.  ``standings``:
    per seat, its estimated standing in [0, 1], or empty where it estimated none.  An
    agent that keeps traces sets its ``last_trace`` attribute to one of these in
    ``choose``; a recorded game (``play_game(..., trace=...)``, ``simulate --db``) keeps
    it with the decision.
    """

    option_values: tuple[float | None, ...]
    standings: tuple[float, ...]


class Decision(NamedTuple):
    """One move as the records keep it (see records.py, table ``decisions``)."""

    seat: int
    situation: str
    action_key: str
    option_index: int
    options: int  # how many legal options there were
    illegal: tuple[str, ...]  # vocabulary keys tried before a legal one, in order
    seconds: float  # the agent's time to decide, view included
    trace: DecisionTrace | None = None  # what a search agent estimated (its last_trace)


def play_game(
    master: Gamemaster,
    agents: Sequence[Any],
    seed: int,
    *,
    record: bool = False,
    trace: list[Decision] | None = None,
    names: Sequence[str] | None = None,
) -> tuple[GameResult, Gamestate]:
    """Play one game from ``seed``, one agent per seat.

    ``record`` keeps the event log for a transcript (it is kept anyway when an agent says
    ``needs_knowledge = True``); ``trace`` (a list) receives one
    ``Decision`` per move; ``names`` name the agents in error messages (default: their
    ``name`` attribute or class).
    """
    labels = list(names) if names is not None else [agent_label(a) for a in agents]
    # an agent that determinizes or reads what it knows of hidden cards needs the event
    # log the knowledge tracker replays (knowledge.py)
    record = record or any(getattr(a, "needs_knowledge", False) for a in agents)
    st = master.new_game(seed, record=record)
    try:
        if trace is None:
            _play_fast(master, agents, st, labels)
        else:
            _play_traced(master, agents, st, trace, labels)
    except AgentError:
        raise
    except UsageError as err:  # an illegal index or option, from the agent of the mover
        who = f"agent {labels[st.mover]!r} (P{st.mover})" if st.mover >= 0 else "an agent"
        raise AgentError(f"{who}: {err}") from err
    return master.result(st), st


def _play_fast(
    master: Gamemaster, agents: Sequence[Any], st: Gamestate, labels: Sequence[str]
) -> None:
    """The loop of a game nobody records: one call to the agent and one apply per move."""
    needs_view = [getattr(agent, "needs_view", True) for agent in agents]
    legal_options, apply, game = master.legal_options, master.apply, master.game
    while st.status == RUNNING:
        options = legal_options(st)
        mover = st.mover
        choice = ask(agents[mover], needs_view[mover], st, game, options)
        if type(choice) is not int:
            choice = resolve_choice(game, st, options, choice, labels[mover])[0]
        apply(st, choice)


def _play_traced(
    master: Gamemaster,
    agents: Sequence[Any],
    st: Gamestate,
    trace: list[Decision],
    labels: Sequence[str],
) -> None:
    """The same loop, timing each agent and keeping each move's situation, action key
    and the agent's own estimates (``last_trace``, reset before each question so that a
    trace is never left over from an earlier decision)."""
    from cardlang.information.vocabulary import Vocabulary, option_key

    game = master.game
    vocab = Vocabulary.of(game)
    needs_view = [getattr(agent, "needs_view", True) for agent in agents]
    legal_options, apply, clock = master.legal_options, master.apply, time.perf_counter
    while st.status == RUNNING:
        options = legal_options(st)
        mover = st.mover
        agent = agents[mover]
        if getattr(agent, "last_trace", None) is not None:
            agent.last_trace = None
        start = clock()
        choice = ask(agent, needs_view[mover], st, game, options)
        seconds = clock() - start
        illegal: tuple[str, ...] = ()
        if type(choice) is int:
            index = choice
        else:
            index, illegal = resolve_choice(game, st, options, choice, labels[mover])
        if not 0 <= index < len(options):
            raise UsageError(f"option {index} is not legal: there are {len(options)} options")
        estimate = _checked_trace(agent, len(options), st.nplayers, labels[mover])
        key = option_key(game, st, options[index], mover)
        situation = vocab.situation_of(st)
        trace.append(
            Decision(mover, situation, key, index, len(options), illegal, seconds, estimate)
        )
        apply(st, index)


def _checked_trace(agent: Any, options: int, seats: int, label: str) -> DecisionTrace | None:
    """The agent's ``last_trace`` after a decision, if it left one, checked against the
    decision: the records pair its values with options and seats by position, so a
    trace of the wrong shape would be misread later rather than fail now."""
    found = getattr(agent, "last_trace", None)
    if found is None:
        return None
    if not isinstance(found, DecisionTrace):
        raise AgentError(
            f"agent {label!r}: last_trace is a {type(found).__name__}, expected a "
            "cardlang.runs.play.DecisionTrace"
        )
    if len(found.option_values) != options or len(found.standings) not in (0, seats):
        raise AgentError(
            f"agent {label!r}: its trace has {len(found.option_values)} option values and "
            f"{len(found.standings)} standings for a decision with {options} options "
            f"and {seats} seats"
        )
    return found


def ask(agent: Any, wants_view: bool, st: Gamestate, game: Game, options: Sequence[Any]) -> Any:
    """The mover's agent's answer.  Its view is live: read while the agent decides and
    closed before the move is applied (a snapshot only if the agent keeps it)."""
    if not wants_view:
        return agent.choose(None, options)
    view = PlayerView.live(st, st.mover, game, options)
    choice = agent.choose(view, options)
    view.close()
    return choice


def agent_label(agent: Any) -> str:
    """What error messages call an agent: its ``name``, else its class."""
    return str(getattr(agent, "name", None) or type(agent).__name__)


def resolve_choice(
    game: Game, st: Gamestate, options: Sequence[Any], choice: Any, agent: str
) -> tuple[int, tuple[str, ...]]:
    """The index of the option an agent's answer picks, and its illegal attempts.

    Called for every answer that is not a plain ``int``: a numpy integer, an option
    object, or a strength vector.  Anything else is the agent's error.
    """
    if isinstance(choice, bool):
        raise AgentError(f"agent {agent!r} returned {choice!r}: {_EXPECTED}")
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
        raise AgentError(f"agent {agent!r} returned {shown}: {_EXPECTED}")
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
    game: Game, st: Gamestate, options: Sequence[Any], vector: np.ndarray, agent: str
) -> tuple[int, tuple[str, ...]]:
    """Try the vocabulary entries in descending strength; play the first legal one.

    Entries of equal strength are tried in vocabulary order; NaN counts as the weakest.
    Several options may share one key (two copies of a card): the first one is played.
    """
    from cardlang.information.vocabulary import Vocabulary, option_key

    vocab = Vocabulary.of(game)
    situation = vocab.situation_of(st)
    keys = vocab.keys(situation)
    if vector.shape != (len(keys),):
        raise AgentError(
            f"agent {agent!r} returned {vector.size} strengths in situation {situation}, "
            f"whose vocabulary has {len(keys)} entries"
        )
    seat = st.mover
    legal: dict[str, int] = {}
    for i, option in enumerate(options):
        legal.setdefault(option_key(game, st, option, seat), i)
    illegal: list[str] = []
    for j in np.argsort(-vector, kind="stable"):
        key = keys[j]
        index = legal.get(key)
        if index is not None:
            return index, tuple(illegal)
        illegal.append(key)
    raise AgentError(
        f"agent {agent!r}: no entry of its strength vector is a legal move in situation "
        f"{situation} (legal: {', '.join(sorted(legal)) or 'none'})"
    )
