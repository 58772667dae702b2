"""What every RL adapter shares: a game played one vocabulary action at a time.

Pipeline position: env (the adapters' own layer, above runs, agents and information).
The PettingZoo and Gymnasium adapters (and any other in this package) are thin shells
around ``Episode``; this module holds the choices they must agree on, each decided once.

The API (kept small and stable: other adapters build on it): ``load`` (a game),
``Episode`` (one game at a time: ``reset``, ``mover``, ``observation``, ``action_mask``,
``legal_actions``, ``option_index``, ``step``, ``apply_option``, ``play_others``,
``rewards``, ``truncated``, ``error``, ``end_info``, ``render``), ``rewards_of`` (the
reward formula), ``spaces`` (the gymnasium spaces), ``Seeds`` (the seeds of resets) and
``DEFAULT_MAX_DECISIONS``.

**Loading.**  ``load(GAME, params)`` takes a path or a compiled ``Game``; ``engine``
("native", "python", None for the default) and ``max_decisions`` make its master.

**Observation.**  A seat's observation is ``{"observation": float32 vector of
Encoder.width, "action_mask": int8 vector of Encoder.n_actions}``: the vector is
``Encoder.encode(view_of(st, seat, game, options))`` padded with zeros to the width, the
mask the encoder's mask padded with zeros.  Only the seat to move has a non-zero mask.
A seat that is not to move is encoded the same way (in the pending decision's situation,
which every seat sees) with an all-zero mask; once the game is over, only the blocks every
situation shares are filled (``Encoder.common_blocks``) and the mask is all zeros.  The
vector depends only on what the seat may know (see information/encode.py).

**Actions.**  ``Discrete(n_actions)``: action ``a`` is the ``a``-th key of the pending
situation's vocabulary (``Vocabulary.keys``); it plays the first option whose key it is
(``Vocabulary.first_options``, the mapping every vocabulary-scoring agent uses: options
sharing a key are equivalent for the mover).  A game with no decision at all still has
one action (spaces cannot be empty), never legal.

**Rewards.**  Zero at every step but the last.  When the game completes, seat ``i`` gets
``(n * credit_i - 1) / (n - 1)`` with ``credit_i`` the ``GameResult.credits`` (a win shared
by ``k`` seats gives each ``1/k``, a loss 0): a lone winner +1; in two-player games a
loss -1 and a tie 0; a tie of all seats 0; the rewards always sum to 0.  A one-seat game
gives its credit (1 when it completes).  A game that does not complete (cut off by
``max_decisions`` or by the engine's step limit, or failed by a rule error) gives 0 to
every seat and is a *truncation*, not a termination; a failed game's error text is in
``Episode.error`` (the adapters put it in ``info["error"]``), the end reason in
``info["end_reason"]``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cardlang.compiler.load import load_game
from cardlang.engine.gamemaster import GameResult, Limits
from cardlang.engine.owners import owner_words
from cardlang.errors import UsageError
from cardlang.information.encode import Encoder
from cardlang.information.views import PlayerView, view_of
from cardlang.information.vocabulary import Vocabulary

if TYPE_CHECKING:
    from cardlang.engine.game import Game

__all__ = [
    "DEFAULT_MAX_DECISIONS",
    "Episode",
    "GameSource",
    "Seeds",
    "load",
    "rewards_of",
    "spaces",
]

#: Decisions after which a game is cut off (a truncation): generous for every game file
#: of the project and the corpus, small enough that a looping policy cannot stall training.
DEFAULT_MAX_DECISIONS = 5_000

#: What the adapters accept as a game: a path to a ``.rcy`` file or a compiled ``Game``.
GameSource = str | Path | Any


def load(game: GameSource, params: Mapping[str, Any] | None = None) -> Game:
    """A compiled game from a path (with ``params`` overriding its declared constants,
    as ``--param NAME=VALUE`` does) or a ``Game`` as it is (``params`` then refused)."""
    if isinstance(game, str | Path):
        return load_game(game, params={k: str(v) for k, v in (params or {}).items()})
    if params:
        raise UsageError("params apply to a game file: load the Game with them instead")
    if not hasattr(game, "master"):
        raise UsageError(f"expected a game file's path or a Game, got {type(game).__name__}")
    return game


class Seeds:
    """The game seeds of an environment's resets: ``next(seed)`` is ``seed`` itself when
    one is given (``reset(seed=s)`` plays the engine's game ``s``, whatever came before),
    else a draw from a generator seeded by the last seed given (at first, from the
    operating system): a run of resets after one seeded reset is reproducible."""

    def __init__(self) -> None:
        self._rng = random.Random()

    def next(self, seed: int | None) -> int:
        if seed is None:
            return self._rng.getrandbits(63)
        if not 0 <= int(seed) < 2**64:
            raise UsageError(f"a seed is an integer from 0 to 2**64 - 1, not {seed}")
        self._rng.seed(int(seed))
        return int(seed)


def rewards_of(result: GameResult) -> tuple[float, ...]:
    """Each seat's final reward (see the module docstring): ``(n * credit - 1) / (n - 1)``
    for a completed game, zeros for one that was cut off or failed."""
    n = len(result.credits)
    if not result.completed:
        return (0.0,) * n
    if n == 1:
        return (float(result.credits[0]),)
    return tuple((n * c - 1.0) / (n - 1) for c in result.credits)


def spaces(episode: Episode) -> tuple[Any, Any]:
    """``(observation space, action space)`` of a game, as gymnasium spaces: a Dict of
    ``observation`` (Box, float32, unbounded: storages are raw values) and
    ``action_mask`` (Box of 0/1, int8), and ``Discrete(n_actions)``.  Make them once per
    environment: PettingZoo requires the same object at every call."""
    from gymnasium import spaces as S

    observation = S.Dict(
        {
            "observation": S.Box(-np.inf, np.inf, shape=(episode.width,), dtype=np.float32),
            "action_mask": S.Box(0, 1, shape=(episode.n_actions,), dtype=np.int8),
        }
    )
    return observation, S.Discrete(episode.n_actions)


class Episode:
    """One game at a time of a compiled game, played by vocabulary action indices.

    ``reset(seed)`` starts the game ``master.new_game(seed)`` (the same seed, the same
    game, on either engine); ``mover`` is the seat to move (None once over);
    ``observation(seat)``, ``action_mask(seat)`` and ``legal_actions()`` describe the
    pending decision; ``step(action)`` plays it; ``rewards()``, ``truncated`` and
    ``error`` tell how the game ended.
    """

    def __init__(
        self,
        game: Game,
        engine: str | None = None,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
    ) -> None:
        if max_decisions < 1:
            raise UsageError(f"max_decisions must be at least 1, not {max_decisions}")
        self.game = game
        self.master = game.master(Limits(max_decisions=max_decisions), engine=engine)
        self.encoder = Encoder.of(game)
        self.vocabulary = Vocabulary.of(game)
        self.nplayers: int = game.nplayers
        self.width: int = self.encoder.width
        self.n_actions: int = max(1, self.encoder.n_actions)  # spaces cannot be empty
        self.state: Any = None
        self.seed: int | None = None
        self._cache: dict[int, dict[str, np.ndarray]] = {}  # seat -> this decision's obs
        self._first: dict[int, int] | None = None  # action -> option index, this decision

    # ------------------------------------------------------------ the game
    def reset(self, seed: int, record: bool = False) -> None:
        """Start a new game with the engine seed ``seed`` (0 <= seed < 2**64).  ``record``
        keeps its event log: agents that track hidden cards need it (their
        ``Capabilities(knowledge=True)``), as the runner does for them."""
        self.seed = seed
        self.state = self.master.new_game(seed, record=record)
        self._forget()

    @property
    def over(self) -> bool:
        if self.state is None:
            raise UsageError("no game yet: call reset() first")
        return bool(self.state.is_over)

    @property
    def mover(self) -> int | None:
        """The seat whose decision is pending, None when the game is over."""
        return None if self.over else int(self.state.mover)

    def options(self) -> Sequence[Any]:
        """The options of the pending decision (the engine's), [] once over."""
        return self.master.legal_options(self.state)  # type: ignore[no-any-return]

    def step(self, action: int) -> None:
        """Play vocabulary action ``action`` for the mover.  Raises ``UsageError`` when it
        is not legal (``legal_actions``) or the game is over."""
        index = self.option_index(action)
        if index is None:
            raise UsageError(
                f"action {action} is not legal here (legal: {self.legal_actions()}); "
                "read the action mask"
            )
        self.apply_option(index)

    def apply_option(self, index: int) -> None:
        """Play the pending decision's option ``index`` (an agent's answer, not an action)."""
        self.master.apply(self.state, index)
        self._forget()

    def play_others(self, agents: Sequence[Any], labels: Sequence[str], seat: int) -> None:
        """Let ``agents`` (one per seat; ``seat``'s is never asked) play until ``seat`` is
        to move or the game is over, through the one play loop (``agents.loop.play_out``):
        an agent's exception or illegal answer is raised as ``AgentError``, and agents
        with a twin in the native engine play there."""
        from cardlang.agents.loop import play_out

        st = self.state
        while not st.is_over and st.mover != seat:
            play_out(self.master, st, agents, labels, cap=1)
        self._forget()

    def _forget(self) -> None:
        self._cache.clear()
        self._first = None

    # ------------------------------------------------------------ actions
    def option_index(self, action: int) -> int | None:
        """The option that vocabulary action ``action`` plays now, None if it plays none."""
        if self.over:
            return None
        return self._action_map().get(int(action))

    def legal_actions(self) -> list[int]:
        """The actions the mover may take now, ascending (the mask's non-zero entries)."""
        return [] if self.over else sorted(self._action_map())

    def _action_map(self) -> dict[int, int]:
        if self._first is None:
            st = self.state
            self._first = self.vocabulary.first_options(st, self.options(), st.mover)
        return self._first

    # ------------------------------------------------------------ observations
    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation", "action_mask"}`` of ``seat`` now (see the module docstring).
        Kept until the next move: call it as often as needed.  Fresh arrays each call."""
        found = self._cache.get(seat)
        if found is None:
            found = self._cache[seat] = self._encode(seat)
        return {k: v.copy() for k, v in found.items()}

    def action_mask(self, seat: int) -> np.ndarray:
        """The int8 action mask of ``seat``: non-zero only for the mover's legal actions
        (another seat's is zeros, made without encoding its view)."""
        if seat != self.mover:
            return np.zeros(self.n_actions, dtype=np.int8)
        return self.observation(seat)["action_mask"]

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now, with the pending decision's options (a snapshot)."""
        options = self.options() if not self.over else None
        return view_of(self.state, seat, self.game, options)

    def _encode(self, seat: int) -> dict[str, np.ndarray]:
        vector, keys = self.encoder.encode_padded(self.view(seat))
        mask = np.zeros(self.n_actions, dtype=np.int8)  # only the mover has a move
        if seat == self.mover and not self.over:
            mask[: keys.size] = keys
        return {"observation": vector, "action_mask": mask}

    # ------------------------------------------------------------ the end
    def result(self) -> GameResult:
        return self.master.result(self.state)  # type: ignore[no-any-return]

    def rewards(self) -> tuple[float, ...]:
        """Each seat's reward for the game: ``rewards_of`` its result, zeros until over."""
        return rewards_of(self.result()) if self.over else (0.0,) * self.nplayers

    @property
    def truncated(self) -> bool:
        """Over without a result: cut off by a limit, or failed by a rule error."""
        return self.over and not self.result().completed

    @property
    def error(self) -> str | None:
        """Why a failed game failed (its rule error as text), else None."""
        err = self.state.error if self.state is not None else None
        return None if err is None else str(err)

    def end_info(self) -> dict[str, Any]:
        """What an adapter's info says of a finished game: ``end_reason``, ``scores``,
        ``winners`` and, for a failed game, ``error``."""
        if not self.over:
            return {}
        result = self.result()
        info: dict[str, Any] = {
            "end_reason": result.end_reason,
            "scores": result.scores,
            "winners": result.winners,
        }
        if self.error is not None:
            info["error"] = self.error
        return info

    # ------------------------------------------------------------ for people
    def render(self, seat: int | None = None) -> str:
        """The table as ``seat`` sees it (default: the mover), or the result once over."""
        if self.over:
            from cardlang.runs.transcript import render_result

            return render_result(self.result())
        mover = self.state.mover
        seat = mover if seat is None else seat
        actions = None
        if seat == mover:
            actions = self.vocabulary.option_indices(self.state, self.options(), mover)
        return render_view(self.view(seat), mover, actions)


def render_view(view: PlayerView, mover: int, actions: Sequence[int | None] | None) -> str:
    """A view as text: the zones the seat sees (cards), the others (sizes), the storages,
    and, for the mover, each option's label after its action (``actions``: each option's
    vocabulary index; options sharing a key share an action, which plays the first)."""
    seat = view.seat
    lines = [f"--- turn {view.turns}, P{seat} of {view.nplayers}; P{mover} to move ---"]
    for (owner, _kind, name), cards in sorted(view.visible.items()):
        shown = ", ".join(_card_text(c) for c in cards) or "(empty)"
        lines.append(f"{owner_words(owner, seat)} {name}: {shown}")
    for (owner, _kind, name), size in sorted(view.hidden_sizes.items()):
        if size:
            lines.append(f"{owner_words(owner, seat)} {name}: {size} face down")
    for (owner, name), value in sorted({**view.ints, **view.strs}.items()):
        lines.append(f"{owner_words(owner, seat)} {name} = {value}")
    lines.append(view.situation_text or view.situation or "")
    if actions is not None:
        labels = view.option_labels
        lines += [f"  action {a}: {label}" for a, label in zip(actions, labels, strict=True)]
    return "\n".join(lines)


def _card_text(attrs: Mapping[str, Any]) -> str:
    return str(attrs.get("KIND") or " ".join(str(v) for v in attrs.values()))
