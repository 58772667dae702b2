"""A cardlang game as a PettingZoo AEC environment: every seat an agent, turn by turn.

Pipeline position: env.  ``pettingzoo(FILE, ...)`` is what ``cardlang.env.pettingzoo``
names (extra ``pettingzoo``).  Everything about observations, actions, rewards and
truncation is ``core.Episode``'s (see core.py); this module adds the AEC bookkeeping:

- agents ``player_0`` .. ``player_{n-1}`` (seat i is ``player_i``); ``agent_selection`` is
  the seat to move, and after the game ends every agent is dead (terminated when the
  game completed, truncated when it was cut off or failed) and is stepped with None;
- ``observe(agent)`` and ``infos[agent]["action_mask"]`` (the same int8 mask as the
  observation's, zeros for a seat not to move); a finished game's infos add
  ``end_reason``, ``scores``, ``winners`` and, for a failed game, ``error``;
- rewards only at the end (``core.rewards_of``), in ``rewards`` and accumulated in
  ``_cumulative_rewards`` as the AEC API does;
- ``reset(seed=s)`` plays the engine's game ``s``; ``reset()`` draws the next seed from a
  generator seeded by the last seed given (``core.Seeds``);
- an illegal action raises ``UsageError`` (read the mask); the state is unchanged.

A game that ends before its first decision (a game with no choice, such as War, or a
setup that fails) starts with every agent already dead.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import logger
from pettingzoo import AECEnv

from cardlang.env.core import (
    DEFAULT_MAX_DECISIONS,
    Episode,
    GameSource,
    Seeds,
    load,
    spaces,
)
from cardlang.errors import UsageError

__all__ = ["CardlangAEC", "pettingzoo"]

RENDER_MODES = ("ansi", "human")


def pettingzoo(
    game: GameSource,
    params: Mapping[str, Any] | None = None,
    engine: str | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    render_mode: str | None = None,
) -> CardlangAEC:
    """A PettingZoo AEC environment of a game file (or ``Game``).  ``params`` override
    its declared constants; ``engine`` is "native", "python" or None (the default);
    ``max_decisions`` cuts a game off (a truncation); ``render_mode`` is "ansi" (render
    returns the text) or "human" (render prints it)."""
    return CardlangAEC(load(game, params), engine, max_decisions, render_mode)


class CardlangAEC(AECEnv):  # type: ignore[misc]  # pettingzoo has no type information
    """See the module docstring."""

    def __init__(
        self,
        game: Any,
        engine: str | None = None,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise UsageError(f"render_mode must be one of {RENDER_MODES} or None")
        self.episode = Episode(game, engine, max_decisions)
        self.render_mode = render_mode
        name = Path(game.source.name).stem
        self.metadata = {"render_modes": list(RENDER_MODES), "name": f"cardlang_{name}"}
        self.possible_agents = [f"player_{i}" for i in range(self.episode.nplayers)]
        made = {a: spaces(self.episode) for a in self.possible_agents}  # one object each
        self.observation_spaces = {a: s[0] for a, s in made.items()}
        self.action_spaces = {a: s[1] for a, s in made.items()}
        self._seeds = Seeds()
        self.agents: list[str] = []

    # ------------------------------------------------------------ the API
    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.episode.reset(self._seeds.next(seed))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[0]
        self._after_move(None)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.episode.observation(self._seat(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise UsageError(f"{agent} is to move: step it with an action, not None")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        seat = self._seat(agent)
        self.episode.step(int(action))
        self._after_move(seat)
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode (use 'ansi' or 'human')")
            return None
        seat = self._seat(self.agent_selection) if self.agents else None
        text = self.episode.render(seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window, no process)."""

    # ------------------------------------------------------------ bookkeeping
    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _after_move(self, moved: int | None) -> None:
        """Point at the next mover, or, once over, end every agent (see the docstring)."""
        ep = self.episode
        mover = ep.mover
        if mover is not None:
            self.agent_selection = self.possible_agents[mover]
            for seat, agent in enumerate(self.possible_agents):
                self.infos[agent] = {"action_mask": ep.action_mask(seat)}
            return
        truncated = ep.truncated
        end = ep.end_info()
        for agent, reward in zip(self.possible_agents, ep.rewards(), strict=True):
            self.rewards[agent] = reward
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
            self.infos[agent] = {"action_mask": ep.action_mask(self._seat(agent)), **end}
        # the dead are stepped from the seat after the last mover, round the table
        first = 0 if moved is None else (moved + 1) % ep.nplayers
        self.agent_selection = self.possible_agents[first]
        if moved is None:  # over before any move: the rewards are the episode's only ones
            self._accumulate_rewards()
