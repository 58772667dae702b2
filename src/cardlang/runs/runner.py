"""The runner: one game played by one agent per seat, optionally recorded move by move.

Pipeline position: runs, above the agents.  ``play_game`` makes the new game, plays it
with the one play loop (``cardlang.agents.loop.play_out``: ask the mover's agent, resolve
its answer, apply it) and returns the result.  An agent's answer may be an option index,
an option, or a selection-strength vector over the situation's action vocabulary (the
contract: ``cardlang.agents.base``).

Without a trace nothing but the loop runs (the Dominion speed benchmark measures it);
with a trace (a list) every move also becomes a ``Decision`` for the SQLite records
(cardlang.runs.store), which needs the vocabulary's situation and action keys, and keeps
what a search agent estimated at each of its decisions (its ``last_trace``, a
``DecisionTrace``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from cardlang.agents.base import AgentError, DecisionTrace, agent_label, capabilities_of
from cardlang.agents.loop import play_out
from cardlang.engine.gamemaster import GameResult, result_of
from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import FAILED
from cardlang.information.vocabulary import Vocabulary, option_key

__all__ = [
    "AgentError",
    "Decision",
    "DecisionTrace",
    "agent_label",
    "failed_by_agent",
    "play_game",
]


class Decision(NamedTuple):
    """One move as the records keep it (see store_file.py, table ``decisions``)."""

    seat: int
    situation: str
    action_key: str
    option_index: int
    options: int  # how many legal options there were
    illegal: tuple[str, ...]  # vocabulary keys tried before a legal one, in order
    seconds: float  # the agent's time to decide, view included
    trace: DecisionTrace | None = None  # what a search agent estimated (its last_trace)


def play_game(
    master: Engine,
    agents: Sequence[Any],
    seed: int,
    *,
    record: bool = False,
    trace: list[Decision] | None = None,
    names: Sequence[str] | None = None,
    agent_errors: str = "raise",
    tally: bool = False,
) -> tuple[GameResult, EngineState]:
    """Play one game from ``seed``, one agent per seat.

    ``record`` keeps the event log for a transcript (it is kept anyway when an agent
    declares ``Capabilities(knowledge=True)``); ``trace`` (a list) receives one
    ``Decision`` per move; ``names`` name the agents in error messages (default: their
    ``name`` attribute or class).  An agent's failure (``AgentError``: an exception, an
    illegal answer) is raised, or with ``agent_errors="fail"`` ends the game as failed,
    the error in its result, as a rule error does (what a batch wants).  ``tally``
    counts each seat's picks and cards per card type into the result (``cards``).
    """
    labels = list(names) if names is not None else [agent_label(a) for a in agents]
    # an agent that determinizes or reads what it knows of hidden cards needs the event
    # log the knowledge tracker replays (cardlang.information.knowledge)
    record = record or any(capabilities_of(a).knowledge for a in agents)
    st = master.new_game(seed, record=record, tally=tally)
    observer = None if trace is None else _Recorder(master, trace).observe
    try:
        play_out(master, st, agents, labels, observer=observer)
    except AgentError as err:
        if agent_errors != "fail":
            raise
        return failed_by_agent(master, st, err), st
    return master.result(st), st


def failed_by_agent(master: Engine, st: EngineState, err: AgentError) -> GameResult:
    """The result of a game an agent failed: failed, with no scores, ``err`` its error
    (the state is left as it was, at the decision the agent failed)."""
    return result_of(
        master.game,
        seed=st.seed,
        status=FAILED,
        end_reason=FAILED,
        keys=None,
        decisions=st.decisions,
        turns=st.turns,
        team_of=tuple(st.team_of),
        error=err,
    )


class _Recorder:
    """Turns each move of a recorded game into a ``Decision``: its situation and action
    key (computed only here, so a batch that records nothing pays nothing for them) and
    the mover agent's own estimates, checked against the decision."""

    def __init__(self, master: Engine, decisions: list[Decision]) -> None:
        self.game = master.game
        self.vocab = Vocabulary.of(self.game)
        self.decisions = decisions

    def observe(
        self,
        st: EngineState,
        options: Sequence[Any],
        index: int,
        illegal: tuple[str, ...],
        seconds: float,
        agent: Any,
        label: str,
    ) -> None:
        estimate = _checked_trace(agent, len(options), st.nplayers, label)
        mover = st.mover
        key = option_key(self.game, st, options[index], mover)
        situation = self.vocab.situation_of(st)
        self.decisions.append(
            Decision(mover, situation, key, index, len(options), illegal, seconds, estimate)
        )


def _checked_trace(agent: Any, options: int, seats: int, label: str) -> DecisionTrace | None:
    """The agent's ``last_trace`` after a decision, if it left one, checked against the
    decision: the records pair its values with options and seats by position, so a
    trace of the wrong shape would be misread later rather than fail now."""
    found = getattr(agent, "last_trace", None)
    if found is None:
        return None
    if not isinstance(found, DecisionTrace):
        raise AgentError(
            f"last_trace is a {type(found).__name__}, expected a "
            "cardlang.agents.base.DecisionTrace",
            agent=label,
        )
    policy = found.policy
    if (
        len(found.option_values) != options
        or len(found.standings) not in (0, seats)
        or (policy is not None and len(policy) != options)
    ):
        raise AgentError(
            f"its trace has {len(found.option_values)} option values and "
            f"{len(found.standings)} standings"
            + ("" if policy is None else f" and {len(policy)} policy entries")
            + f" for a decision with {options} options and {seats} seats",
            agent=label,
        )
    return found


def recorder(master: Engine, trace: list[Decision]) -> Any:
    """A play-loop observer (``agents.loop.play_out``) that appends one ``Decision`` per
    move to ``trace``, as ``play_game(trace=...)`` does: for loops that watch the game
    themselves (a person at the table, cardlang.interactive)."""
    return _Recorder(master, trace).observe
