"""PPO over lockstep games: the neural agent learning at the engine's speed (torch).

Pipeline position: learning, above env (``VectorEnv`` stepped inside the native engine,
with the engine writing each view's tokens) and agents/neural (the network).  This is
the supported way to train (``cardlang train --algorithm ppo``, each shipped model's
recipe in its MODEL_CARD.md); ``ppo_run.py`` is the command around it (the run folder,
checkpoints, evaluation, report).

PPO is two parts that meet at one hand-over.  The *actor* (ppo_actor.py) plays games in
lanes (lanes.py: one ``VectorEnv`` each, and who plays its seats) with the policy it
was last sent; every ``collect`` plays ``horizon`` steps in every row and hands back an
``Experience``: the learner's steps of the games that ended, with their returns and
advantages, and the games' results.  The *learner* (ppo_learner.py) holds the network's
optimizer and its schedules, and ``learn(experience)`` is one update: clipped-ratio PPO
with an entropy term and a value loss, in ``epochs`` passes of minibatches.  In a run
the actors play in other processes, one update ahead (actors.py); in a test both may
share one model in one process.

A game's steps wait in their row until it ends (a game is one episode: its outcome is
the only reward), so every step is learnt from with its true return.  ``reset`` starts
every row afresh (dropping the games in progress): the run does so at each checkpoint,
which is what makes a resumed run the same as one never stopped.

Values are standings, as the network's value head gives them (sigmoid, one output per
seat offset, the viewer's first): a seat's return is its *credit*, the share of the win
it got (``GameResult.credits``: 1 alone first, 1/k among k tied first, 0 otherwise; a
game cut off gives 0), and every seat offset's output learns its seat's credit.  A solo
game's return is the scaled inverse of its length (``SoloValue``; tanh).  Generalised
advantage estimates run along each learning seat's own decisions (``lam``; no discount:
the return is the game's end).

The magnet, the average policy and rollouts are experimental remedies
(learning/experimental/), reached only through the seam (learning/seam.py builds them,
learning/remedy.py names the points they are called at); their settings are the last of
``PPOConfig``'s, as of ``TrainConfig``'s (the run's settings, which a checkpoint keeps),
and no core code reads them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from cardlang.agents.neural.model import UNIFORM_COUNTS
from cardlang.env.vector import VectorEnv
from cardlang.learning.config import ALGORITHM_DEFAULTS, default_of
from cardlang.learning.steps import Step

if TYPE_CHECKING:
    from cardlang.agents.neural.model import NeuralModel

__all__ = [
    "ADVANTAGE_FLOOR",
    "Experience",
    "GameRecord",
    "PPOConfig",
    "load_weights",
    "play_greedy",
    "reads_engine_tokens",
    "token_inputs",
    "weights_of",
    "win_rate",
]

ADVANTAGE_FLOOR = 0.05  # the least spread advantages are divided by (returns span 1-2)

#: A game's result as the learner counts it: (lane kind, learner seat, result).
GameRecord = tuple[str, int | None, Any]

#: PPO's defaults where they depend on the algorithm (learning/config.py: the one home
#: of every default; a run's settings build this class, ppo_config in actors.py).
_PPO = ALGORITHM_DEFAULTS["ppo"]


@dataclass
class PPOConfig:
    horizon: int = default_of("horizon")  # steps per row and update
    epochs: int = default_of("epochs")
    minibatch: int = _PPO["batch_size"]  # steps per gradient step (a run's batch_size)
    lr: float = _PPO["lr"]
    clip: float = default_of("clip")
    entropy: float = default_of("entropy")
    # linear schedules (Stable-Baselines3's): the entropy weight and the learning rate
    # move from the values above at the first update to these at update ``anneal_updates``
    # and stay there (None: constant).  A regularised equilibrium's exploitability falls
    # with the entropy weight, but a small weight from the start collapses self-play to
    # pure moves (Leduc): start high, end low.
    entropy_final: float | None = default_of("entropy_final")
    lr_final: float | None = default_of("lr_final")
    anneal_updates: int = 0
    value_weight: float = _PPO["value_weight"]
    lam: float = default_of("lam")
    max_grad_norm: float = 0.5
    snapshot_every: int = default_of("snapshot_every")  # updates between snapshots (past pool)
    snapshots: int = default_of("snapshots")  # snapshots kept (the oldest forgotten first)
    # the chance that a game reads a card kind without its name (NameDropout): the
    # network must then know the card by its components and effects, as it must a card
    # it meets first at play
    name_dropout: float = default_of("name_dropout")
    # cards the acting policy is pushed towards (a designer's new card, --always): this
    # many logits added to every option that binds one (log k less each where k do),
    # falling linearly to none at update ``card_bonus_updates``.  A model that has
    # never met a card rarely tries it, and PPO learns only from what it tries; the
    # stored log-probabilities are the pushed policy's, so the ratio corrects what is
    # learnt
    card_bonus: float = default_of("card_bonus")
    card_bonus_cards: tuple[str, ...] = ()
    card_bonus_updates: int = 0
    # the chance that a learning seat's game begins with a kingdom card it did not
    # choose: its first gain of one of ``kingdom`` is drawn among those it may take
    # (learning/openings.py), so that it learns to play, and to value, decks it would
    # not build (0: off)
    forced_openings: float = default_of("forced_openings")
    # the kingdom cards forced openings and barred lanes draw from (a run's kingdom_cards)
    kingdom: tuple[str, ...] = ()

    # experimental remedies' settings (learning/experimental/; no shipped model is a
    # remedy's output): here as in TrainConfig (a checkpoint's), read only in the room.
    # The magnet (R-NaD, magnetic mirror descent): a weight on KL(policy || magnet), the
    # magnet a frozen copy of the policy taken every ``magnet_every`` updates (0: the
    # policy it started from, kept).  Self-play's last iterate circles a mixed
    # equilibrium (Leduc); pulled towards a magnet that itself moves slowly, it settles.
    magnet: float = default_of("magnet")
    magnet_every: int = default_of("magnet_every")
    # R-NaD's reward transformation: the magnet's pull enters the rewards, not the loss.
    # Each move's mover is paid -magnet * log(policy / magnet) of the move it made, and in
    # a two-player game its opponent the same with the sign turned (zero sum): the game
    # itself is regularised, so its fixed point, not only each update, is held near the
    # magnet.  The value head still learns the outcome; the rewards enter the advantages.
    magnet_reward: bool = default_of("magnet_reward")
    # the average policy (experimental/average.py): a reservoir of this many decisions (0: none)
    average: int = default_of("average")
    average_recent: bool = default_of(
        "average_recent"
    )  # a window of recent decisions, not all alike (experimental/average.py)
    average_linear: bool = default_of(
        "average_linear"
    )  # each decision weighs as its update's number (experimental/average.py)
    # every move of each learnt decision valued by this many rollouts from the position
    # (experimental/rollouts.py; 0: none, the sampled move's generalised advantage): the lanes' envs
    # need spare rows to fork into (Lane)
    rollouts: int = default_of("rollouts")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def scheduled(self, start: float, final: float | None, update: int) -> float:
        """A setting's value at ``update`` on its linear schedule from ``start``."""
        if final is None or self.anneal_updates <= 0:
            return start
        progress = min(1.0, update / self.anneal_updates)
        return start + (final - start) * progress


@dataclass
class Experience:
    """What an actor hands the learner for one update: the learner's steps of the games
    that ended (returns and advantages set) and every ended game's result."""

    steps: list[Step] = field(default_factory=list)
    results: list[GameRecord] = field(default_factory=list)

    @staticmethod
    def joined(parts: list[Experience]) -> Experience:
        """Several actors' experience of one update, in actor order."""
        return Experience(
            [step for part in parts for step in part.steps],
            [result for part in parts for result in part.results],
        )


def reads_engine_tokens(model: NeuralModel) -> None:
    """``model`` learns from (and plays on) the engine's tokens, which read hidden
    locations as uniform odds: so does it when it plays (NeuralModel.tokenizer)."""
    model.info["expected_counts"] = UNIFORM_COUNTS


def weights_of(net: nn.Module) -> dict[str, np.ndarray]:
    """A network's weights as numpy arrays (what pickles to another process cheaply):
    what the learner sends its actors (``load_weights`` takes them in)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}


def load_weights(net: nn.Module, weights: dict[str, np.ndarray]) -> None:
    """``weights_of``'s arrays into ``net``."""
    net.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()})


def play_greedy(net: nn.Module, env: VectorEnv, games: int, seed: int = 0) -> list[Any]:
    """The results of ``games`` games of ``env``, every caller move the policy's most
    likely.  Each row's *first* game after a reset counts (a row plays one game, then
    idles), so short games are not favoured; with more games than rows, the rows start
    again from ``seed + 1``, ``seed + 2``, ..."""
    results: list[Any] = []
    net.eval()
    for round_ in range(math.ceil(games / env.n)):
        env.reset(seed=seed + round_)
        wanted = min(env.n, games - len(results))
        first: dict[int, Any] = {}
        while len(first) < wanted:
            with torch.no_grad():
                logits, _ = net(**token_inputs(env))
            picked = logits.argmax(dim=-1).numpy()
            *_, info = env.step(env.action_key[np.arange(env.n), picked])
            for i, result in info["results"].items():
                if i < wanted:
                    first.setdefault(i, result)
        results.extend(first[i] for i in range(wanted))
    return results


def token_inputs(*envs: VectorEnv) -> dict[str, torch.Tensor]:
    """The network's inputs for every row of ``envs`` (made with tokens), one env's rows
    after another: their token and action arrays trimmed to the longest row, with their
    masks, in the engine's narrow types (the network widens what it indexes with: a
    dedup hashes half the bytes)."""
    t = max(max(int(env.token_count.max()) for env in envs), 1)
    a = max(max(int(env.action_count.max()) for env in envs), 1)

    def joined(name: str, width: int, dtype: type) -> torch.Tensor:
        arrays = [getattr(env, name)[:, :width] for env in envs]
        if len(arrays) == 1:
            return torch.from_numpy(arrays[0].astype(dtype))
        out = np.zeros((sum(env.n for env in envs), width, *arrays[0].shape[2:]), dtype=dtype)
        row = 0
        for array in arrays:  # an env's arrays may be narrower than the widest
            out[row : row + len(array), : array.shape[1]] = array
            row += len(array)
        return torch.from_numpy(out)

    counts = np.concatenate([env.token_count for env in envs])
    actions = np.concatenate([env.action_count for env in envs])
    return {
        "names": joined("token_names", t, np.int32),
        "kinds": joined("token_kinds", t, np.int8),
        "buckets": joined("token_buckets", t, np.int8),
        "continuous": joined("token_continuous", t, np.float32),
        "token_mask": torch.from_numpy(np.arange(t) < counts[:, None]),
        "action_names": joined("action_names", a, np.int32),
        "action_mask": torch.from_numpy(np.arange(a) < actions[:, None]),
    }


def win_rate(results: list[Any], seat: int) -> float:
    """The mean credit of ``seat`` over results (a win 1, a shared win its share)."""
    return float(np.mean([r.credits[seat] for r in results])) if results else math.nan
