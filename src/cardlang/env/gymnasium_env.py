"""A cardlang game as a Gymnasium environment: one seat learns, fixed agents play the rest.

Pipeline position: env.  ``gymnasium(FILE, ...)`` is what ``cardlang.env.gymnasium``
names (extra ``gymnasium``).  Observations, actions, rewards and truncation are
``core.Episode``'s (see core.py); this module adds the single-agent view of the game:

- **Spaces.**  ``observation_space`` is a ``Dict`` of ``observation`` (Box, float32) and
  ``action_mask`` (Box of 0/1, int8), the mask inside the observation so that masked
  policies need nothing else (it is also in ``info["action_mask"]``, every time);
  ``action_space`` is ``Discrete(n_actions)`` over the situation's vocabulary keys.
- **Opponents.**  ``opponents`` is a comma-separated list of agent specs, as
  ``--agents`` takes them: one for every other seat, or one per other seat in seat
  order.  Each game makes them afresh with ``make_agent(spec, seed)``, each seat's seed
  derived from the game's seed as a batch derives it (``runs.planned.agent_seeds``),
  and they play (through the one play loop) until the learner is to move or the game is
  over.  They are untrusted: what one does wrong is raised as ``AgentError``.
- **Illegal actions.**  ``illegal="penalty"`` (the default): the step gives
  ``illegal_penalty``, changes nothing, and says ``info["illegal"] = True``.
  ``illegal="legal"``: the legal action nearest by index is played instead (the lower
  one on a tie), with ``info["illegal"] = True`` and ``info["played"]`` the action
  played.  A legal step has ``info["illegal"] = False``.
- **Episodes.**  The reward is 0 until the end, then the learner's ``core.rewards_of``.
  ``terminated`` when the game completes, ``truncated`` when it is cut off or fails (a
  failed game's ``info["error"]``).  When the game ends before the learner ever moves
  (the opponents finish it, or it has no decision), ``reset`` returns that final
  observation with an all-zero mask and the next step, whatever its action, only ends
  the episode with the reward.
- **Seeding.**  ``reset(seed=s)`` plays the engine's game ``s`` (its opponents seeded
  from ``s``); ``reset()`` draws a game seed from ``np_random``, which the last seed
  given seeds (gymnasium's convention).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from cardlang.agents.base import capabilities_of
from cardlang.agents.specs import specs_per_seat
from cardlang.env.core import DEFAULT_MAX_DECISIONS, Episode, GameSource, load, spaces
from cardlang.errors import UsageError

__all__ = ["CardlangGym", "gymnasium"]

RENDER_MODES = ("ansi", "human")
ILLEGAL_MODES = ("penalty", "legal")


def gymnasium(
    game: GameSource,
    seat: int = 0,
    opponents: str = "random",
    params: Mapping[str, Any] | None = None,
    engine: str | None = None,
    illegal: str = "penalty",
    illegal_penalty: float = -1.0,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    render_mode: str | None = None,
) -> CardlangGym:
    """A Gymnasium environment of a game file (or ``Game``) for ``seat`` against
    ``opponents`` (agent specs; see the module docstring for the rest)."""
    return CardlangGym(
        load(game, params),
        seat=seat,
        opponents=opponents,
        engine=engine,
        illegal=illegal,
        illegal_penalty=illegal_penalty,
        max_decisions=max_decisions,
        render_mode=render_mode,
    )


class CardlangGym(gym.Env[dict[str, np.ndarray], np.int64]):
    """See the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        game: Any,
        *,
        seat: int = 0,
        opponents: str = "random",
        engine: str | None = None,
        illegal: str = "penalty",
        illegal_penalty: float = -1.0,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        render_mode: str | None = None,
    ) -> None:
        if illegal not in ILLEGAL_MODES:
            raise UsageError(f"illegal must be one of {ILLEGAL_MODES}, not {illegal!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise UsageError(f"render_mode must be one of {RENDER_MODES} or None")
        self.episode = Episode(game, engine, max_decisions)
        if not 0 <= seat < self.episode.nplayers:
            raise UsageError(f"seat {seat} is not a seat of this {game.nplayers}-player game")
        self.seat = seat
        self.specs = _seat_specs(opponents, seat, self.episode.nplayers)
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.observation_space, self.action_space = spaces(self.episode)
        self._agents: list[Any] = self._make_agents(0)  # a bad spec fails here, not at reset
        self._finished = False  # the episode returned terminated or truncated

    # ------------------------------------------------------------ the API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
        self._agents = self._make_agents(game_seed)
        record = any(capabilities_of(a).knowledge for a in self._agents)
        self.episode.reset(game_seed, record=record)
        self._finished = False
        self._play_others()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        ep = self.episode
        if ep.state is None or self._finished:
            raise UsageError("the episode is over (or not started): call reset()")
        if not ep.over:
            played = self._legal(int(action))
            if played is None:  # the penalty: nothing happens
                info = self._info(illegal=True)
                return self._observe(), self.illegal_penalty, False, False, info
            ep.step(played)
            self._play_others()
            extra = {"illegal": played != int(action), "played": played}
        else:  # over before the learner moved: this step only ends the episode
            extra = {"illegal": False}
        reward = ep.rewards()[self.seat] if ep.over else 0.0
        terminated, truncated = ep.over and not ep.truncated, ep.truncated
        self._finished = terminated or truncated
        return self._observe(), float(reward), terminated, truncated, self._info(**extra)

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode (use 'ansi' or 'human')")
            return None
        text = self.episode.render(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------ the rest
    def _legal(self, action: int) -> int | None:
        """The action to play for ``action``: itself when legal; else None (penalty) or
        the nearest legal action by index (the lower on a tie)."""
        legal = self.episode.legal_actions()
        if action in legal or self.illegal == "penalty":
            return action if action in legal else None
        return min(legal, key=lambda a: (abs(a - action), a))

    def _make_agents(self, game_seed: int) -> list[Any]:
        from cardlang.agents import make_agent
        from cardlang.runs.planned import agent_seeds

        seeds = agent_seeds(game_seed, self.episode.nplayers)
        return [
            _Learner() if spec is None else make_agent(spec, s)
            for spec, s in zip(self.specs, seeds, strict=True)
        ]

    def _play_others(self) -> None:
        labels = [spec or "learner" for spec in self.specs]
        self.episode.play_others(self._agents, labels, self.seat)

    def _observe(self) -> dict[str, np.ndarray]:
        return self.episode.observation(self.seat)

    def _info(self, **extra: Any) -> dict[str, Any]:
        ep = self.episode
        return {"action_mask": ep.action_mask(self.seat), **extra, **ep.end_info()}


class _Learner:
    """The learner's seat in the opponents' play loop: never asked (the loop stops
    before the learner's turn), and with no native twin, so the engine stops there too."""

    name = "learner"

    def choose(self, view: Any, options: Any) -> int:
        raise AssertionError("the learner's seat is played by step(), not by the loop")


def _seat_specs(opponents: str, seat: int, nplayers: int) -> list[str | None]:
    """Per seat, its agent spec (None for the learner): one spec for all other seats,
    or one per other seat, in seat order."""
    specs = specs_per_seat(
        opponents,
        nplayers - 1,
        "opponents names {found} agents for {count} other seats: name one for all, "
        "or one per other seat",
    )
    it = iter(specs)
    return [None if p == seat else next(it) for p in range(nplayers)]
