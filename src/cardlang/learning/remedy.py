"""The seam between PPO and its experimental remedies: the points where they plug in.

Pipeline position: learning, under ppo_actor.py and ppo_learner.py (which call these
points) and learning/experimental/ (whose remedies implement them); no torch of its own.

A *remedy* is an addition to PPO of which no shipped model is the output: the magnet
(R-NaD), the average policy (NFSP), every move valued by rollouts (models/leduc's recipe
passes ``--average``, but the policy it ships is the current one, not the average).  An
actor and a learner each hold a list of remedies (``seam.remedies_for`` builds them from
a run's settings, ``seam.check_settings`` checks those settings) and call every one at
the named points below; a remedy overrides the points it needs, and the others do
nothing.  A remedy's ``key`` names its part of the actor's and the learner's checkpoint
state (``remedy_states``, ``load_remedy_states``).

Their settings and step fields stay in ``PPOConfig`` and ``Step`` (and ``TrainConfig``),
for the checkpoint's and the packed steps' formats; no core code branches on them.  What
the core still names: the ``average`` lane kind, one of lanes.py's seated kinds (so that
``--opponents`` parses and seats it; who plays its other seats is a remedy's,
``opponents``), and steps.py packs and unpacks the step fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
    import torch
    from torch import nn

    from cardlang.agents.neural.model import NeuralModel
    from cardlang.learning.lanes import Lane, LaneGame, Moves
    from cardlang.learning.steps import Step

__all__ = ["Remedy", "load_remedy_states", "remedy_states"]


def remedy_states(remedies: Iterable[Remedy]) -> dict[str, Any]:
    """The remedies' parts of a checkpoint state, by key (those with nothing to keep
    left out)."""
    kept = ((remedy.key, remedy.state()) for remedy in remedies)
    return {key: part for key, part in kept if part is not None}


def load_remedy_states(remedies: Iterable[Remedy], state: dict[str, Any]) -> None:
    """Each remedy's part of a checkpoint ``state`` (``remedy_states``'), where it has one."""
    for remedy in remedies:
        if state.get(remedy.key) is not None:
            remedy.load_state(state[remedy.key])


class Remedy:
    """An experimental remedy's points of call (the defaults do nothing)."""

    key: ClassVar[str]  # its part of a checkpoint's state
    keeps_probs: ClassVar[bool] = False  # the steps keep the policy's whole distribution

    # ------------------------------------------------------------ both sides
    def end_update(self, updates: int) -> None:
        """An update's games were played (actor) or are about to be learnt (learner):
        ``updates`` is the count so far."""

    def state(self) -> Any:
        """Its part of the checkpoint state (None: nothing to keep)."""
        return None

    def load_state(self, state: Any) -> None:
        """Its part of a checkpoint state, as ``state`` gave it."""

    # ------------------------------------------------------------ the actor's
    def opponents(self, kind: str) -> nn.Module | None:
        """The network that plays the other seats of lanes of ``kind`` (None: not one
        of its lanes)."""
        return None

    def receive(self, weights: dict[str, np.ndarray]) -> None:
        """What the learner's ``shared`` sent, before an update's play."""

    def attach(self, lanes: Sequence[Lane]) -> None:
        """The actor's lanes, once, before any play."""

    def restart(self, lane: Lane) -> None:
        """``lane``'s rows started afresh."""

    def acting(self, lane: Lane, acting: np.ndarray) -> None:
        """Mark the spare rows of ``lane`` it plays in this step (in place)."""

    def moved(
        self, x: dict[str, torch.Tensor], logp: torch.Tensor, chosen: torch.Tensor, moves: Moves
    ) -> None:
        """Add its marks of the moves just drawn (``moves.marks``, by name; no gradient;
        every acting row)."""

    def before_step(
        self, lane: Lane, learners: list[int], moves: Moves, actions: np.ndarray
    ) -> None:
        """The learner's decisions of ``lane`` are recorded and ``actions`` drawn for
        every row (in place: a remedy may set its spare rows')."""

    def holds(self, game: LaneGame) -> bool:
        """``game`` just ended (its ``result`` set): True where its plays for it are still
        under way, and it finishes the game itself (``after_step``)."""
        return False

    def after_step(
        self, lane: Lane, results: dict[int, Any], returns: Callable[[Any, int], np.ndarray]
    ) -> list[LaneGame]:
        """The step's ended games and plays (``results``, by row; ``returns``: what a
        result is worth to a seat): the games it held open whose every play is now back
        and that have ended."""
        return []

    def rewards(self, steps: list[Step], players: int) -> dict[int, float]:
        """Rewards earned along a finished game's learnt decisions, by index."""
        return {}

    def finish_step(self, game: LaneGame, k: int, step: Step, earned: float) -> None:
        """The game's step ``k`` has its return and advantage (``earned``: its seat's
        return from the decision on, rewards included)."""

    # ------------------------------------------------------------ the learner's
    def shared(self) -> dict[str, np.ndarray] | None:
        """What the actors need of it for the next update's play (None: nothing)."""
        return None

    def advantage_scale(self, steps: list[Step]) -> tuple[float, float] | None:
        """The advantages' centre and spread, where it changes how they are taken."""
        return None

    def surrogate(
        self,
        batch: list[Step],
        logp_all: torch.Tensor,
        surrogate: torch.Tensor,
        std: float,
        clip: float,
    ) -> torch.Tensor:
        """The clipped surrogate per decision of ``batch``, as it would have it."""
        return surrogate

    def loss(
        self, x: dict[str, torch.Tensor], probs: torch.Tensor, logp_all: torch.Tensor
    ) -> tuple[torch.Tensor, float] | None:
        """A term added to a minibatch's loss, and the figure it reports (None: none)."""
        return None

    def learnt(self, steps: list[Step], updates: int, minibatch: int) -> dict[str, float]:
        """After an update's passes over ``steps``: its figures for the update."""
        return {}

    def round_text(self, row: dict[str, Any]) -> str:
        """What it adds to a round's line, from its figures in the round's ``row``."""
        return ""

    def save(self, out: Path, model: NeuralModel) -> None:
        """Write what it adds to a run's folder ``out`` (a checkpoint is being saved)."""
