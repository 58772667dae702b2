"""The agent contract: what an agent is, what it declares, and what it may answer.

Pipeline position: the bottom of ``cardlang.agents``; everything that plays agents (the
play loop in ``loop.py``, search rollouts, batches in ``cardlang.runs``) relies on this
and nothing else.  An agent is any object with

- ``name``: what tables and error messages call it;
- ``capabilities``: a ``Capabilities`` value on the class, declaring what it needs from
  the runner (a view; knowledge of hidden cards).  An agent without one gets the
  defaults: a view, no knowledge;
- ``choose(view, options)``: its move, given a view (all it knows; never a state) and
  the legal options: a ``PlayerView``, or in a tournament's sandbox a ``SandboxView``,
  both an ``AgentView`` (cardlang.information.views, the protocol they satisfy).

``choose`` answers in one of three ways (``loop.resolve_choice`` plays them all):

- the index of an option in ``options`` (an ``int``): the fast path, what scripted and
  search agents return;
- one of the ``options`` themselves;
- a selection-strength vector: one float per entry of the situation's action vocabulary
  (``Vocabulary.of(game).keys(situation)``, cardlang.information.vocabulary), as a
  neural network outputs it.  The runner tries the entries from the strongest down and
  plays the first that names a legal option; each entry tried before it is recorded as
  an illegal attempt.  A vector with no legal entry at all is an error of the agent.

An agent that estimates values (the search agents) sets its ``last_trace`` attribute to
a ``DecisionTrace`` in ``choose``: what it estimated, kept with the decision in the
records (the raw material of the heuristics).  The runner clears it before each question,
so a trace is never carried over from an earlier decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from cardlang.engine.protocol import Engine
from cardlang.errors import AgentError as AgentError  # defined there: GameResult holds one

if TYPE_CHECKING:
    import numpy as np

    from cardlang.engine.control import Option
    from cardlang.information.views import AgentView


@dataclass(frozen=True)
class Capabilities:
    """What an agent needs from the runner, declared on its class.

    ``view``: it reads its view (False: ``choose`` gets None and no view is
    built, the random agent's fast path).  ``knowledge``: it reads what it knows of hidden
    cards or determinizes (``view.determinize``), so the runner records the game's event
    log, which the knowledge tracker replays.
    """

    view: bool = True
    knowledge: bool = False


#: What an agent that declares nothing gets.
DEFAULT_CAPABILITIES = Capabilities()


@runtime_checkable
class Agent(Protocol):
    """The agent interface (see the module docstring)."""

    name: str
    capabilities: ClassVar[Capabilities]

    def choose(
        self, view: AgentView, options: list[Option]
    ) -> int | Option | Sequence[float] | np.ndarray:
        """The chosen option: its index, itself, or a strength per vocabulary entry."""
        ...


def capabilities_of(agent: Any) -> Capabilities:
    """An agent's declared capabilities (its ``capabilities``), else the defaults."""
    declared = getattr(agent, "capabilities", None)
    return declared if isinstance(declared, Capabilities) else DEFAULT_CAPABILITIES


def native_twin(agent: Any, master: Engine) -> Any:
    """The agent as the native engine runs it (``agent.native_agent(master)``: whole
    stretches of a game never come back to Python), or None: it has no such twin, or
    the engine takes no agents inside (the Python one; the native one for a game loaded
    with ``agents_inside=False``)."""
    make = getattr(agent, "native_agent", None)
    if make is None or not master.traits.agents_inside:
        return None
    return make(master)


def agent_label(agent: Any) -> str:
    """What error messages call an agent: its ``name``, else its class."""
    return str(getattr(agent, "name", None) or type(agent).__name__)


@dataclass(frozen=True)
class DecisionTrace:
    """What an agent estimated at one decision (the raw material of heuristics).

    ``option_values``: per option of the decision, in the order the agent was given them,
    the estimated value for the mover (its expected standing in [0, 1], see
    ``cardlang.agents.search.rewards.standings``), None where the agent formed no
    estimate.  ``standings``: per seat, its estimated standing in [0, 1], or empty where
    it estimated none.  ``policy``: per option, the probability the agent's search gave
    it (a neural agent's visit shares: the policy target of self-play training; options
    that are one move for the mover share it on the first of them), or None.  An agent
    that keeps traces sets its ``last_trace`` attribute to one of these in ``choose``; a
    recorded game (``play_game(..., trace=...)``, ``simulate --db``) keeps it with the
    decision.
    """

    option_values: tuple[float | None, ...]
    standings: tuple[float, ...]
    policy: tuple[float, ...] | None = None
    visits: tuple[int, ...] | None = None  # per option, a search's iterations through it
