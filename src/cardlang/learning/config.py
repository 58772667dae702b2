"""The settings of a training run (``cardlang train``), saved in its checkpoint.

``TrainConfig`` is the one home of the settings' defaults: the command line's options
take theirs from it (cli/train.py ``default_of``), and PPO's own settings
(ppo.py ``PPOConfig``, which a run builds from this one) default to the same values.
Four settings depend on the algorithm (``ALGORITHM_DEFAULTS``): the command line leaves
them unset until it knows which runs; a ``TrainConfig`` made without them has the search
loop's (what checkpoints older than ``algorithm`` were)."""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

#: The settings whose default depends on the algorithm: PPO learns from many short
#: updates (a smaller rate, minibatches of 256, the cheaper Deep Sets body), the search
#: loop from few large steps.
ALGORITHM_DEFAULTS: dict[str, dict[str, Any]] = {
    "ppo": {"batch_size": 256, "lr": 3e-4, "value_weight": 0.5, "body": "deepsets"},
    "search": {"batch_size": 128, "lr": 1e-3, "value_weight": 1.0, "body": "transformer"},
}
_SEARCH = ALGORITHM_DEFAULTS["search"]


@dataclass
class TrainConfig:
    """Every setting of a training run (saved in its checkpoint)."""

    game: str
    params: dict[str, str] = field(default_factory=dict)
    # parameters whose alternatives share the training games (ppo; --param-draw)
    param_draws: dict[str, list[str]] = field(default_factory=dict)
    # cards every training game deals (--always): the games are ``always_games`` drawn
    # alternatives of the parameter that deals cards, each holding them (params.py)
    always: list[str] = field(default_factory=list)
    always_games: int = 16
    # the acting policy pushed towards those cards: logits added to their options,
    # falling to none by round ``card_bonus_rounds`` (0: the run's --rounds) (ppo_actor.py)
    card_bonus: float = 0.0
    card_bonus_rounds: float = 0.0
    # "ppo" (ppo_run.py) or "search" (experimental/search.py); old checkpoints: search
    algorithm: str = "search"
    seed: int = 0
    rounds: int = 20
    time_limit: float = 0.0  # seconds; 0: none (stops after the round that passes it)
    cpu_limit: float = 0.0  # CPU seconds, all sessions; 0: none (no round would pass it)
    games: int = 16  # self-play games per round
    iterations: int = 16  # search per self-play decision (0: the raw policy)
    determinizations: int = 2
    temperature: float = 1.0
    noise: float = 0.25
    alpha: float = 0.3
    policy: str = "visits"  # the search's move distribution played and learnt (POLICIES)
    considered: int = 8  # a Gumbel root's moves (policy "gumbel")
    steps: int = 50  # gradient steps per round
    batch_size: int = _SEARCH["batch_size"]
    buffer: int = 50_000  # samples
    lr: float = _SEARCH["lr"]
    value_weight: float = _SEARCH["value_weight"]
    width: int = 64
    body: str = _SEARCH["body"]  # the network's body (agents/neural/network.py: BODIES)
    phi_layers: int = 1
    heads: int = 4
    layers: int = 2
    feedforward: int = 128
    hidden: int = 128
    evaluate_every: int = 5
    eval_games: int = 100
    eval_agents: list[str] = field(default_factory=lambda: ["random"])
    eval_iterations: int = 0
    backend: str = "process"
    workers: int | None = None
    # PPO's actors (actors.py): the rows split among them, each its own games and random
    # streams; what a run learns depends on their number, not on where they play (None:
    # a new run takes --workers, else one per core the learner leaves)
    actors: int | None = None
    warm_start: str | None = None
    warm_steps: int = 500  # of imitation, with warm_start (none without it)
    init: str | None = None  # a trained model of the same game file to start from
    solo_best: int = 1
    solo_cap: int = 100
    max_decisions: int = 2_000
    device: str = "auto"
    engine: str | None = None  # the engine the games play on (None: native where built)
    # --algorithm ppo (ppo_run.py); lr, batch_size (its minibatch) and value_weight above
    envs: int = 128  # lockstep games in all lanes
    updates: int = 10  # PPO updates per round
    checkpoint_every: int = 1  # rounds between checkpoints (the last round's always)
    horizon: int = 64  # steps per row and update
    epochs: int = 2
    clip: float = 0.2
    entropy: float = 0.01
    entropy_final: float | None = None  # linear schedules (PPOConfig)...
    lr_final: float | None = None
    anneal_rounds: int = 0  # ...ending at this round (0: the run's --rounds when it began)
    lam: float = 0.95
    opponents: str = "self@1"  # the pool: SPEC@WEIGHT, comma separated
    snapshot_every: int = 10  # updates between snapshots joining the past pool
    snapshots: int = 8
    # the experimental remedies (learning/experimental/: magnet, average, rollouts)
    magnet: float = 0.0  # weight of KL(policy || magnet) (PPOConfig)
    magnet_every: int = 0  # updates between magnet refreshes (0: the starting policy)
    magnet_reward: bool = False  # the magnet's pull in the rewards (R-NaD; PPOConfig)
    average: int = 0  # the average policy's reservoir, in decisions (0: none)
    average_recent: bool = False  # its reservoir a window of recent decisions
    average_linear: bool = False  # its decisions weighted by their update's number
    rollouts: int = 0  # rollouts per move of every learnt decision (0: none)
    name_dropout: float = 0.0  # chance a game reads a card kind without its name (lanes.py)
    # chance a learning seat's first kingdom-card gain is a random one (openings.py)
    forced_openings: float = 0.0
    # the cards forced openings and barred lanes draw from: those the game's dealing
    # parameter may deal (Dominion's 'ALL-KINGDOM-CARDS; ppo_run.py fills it)
    kingdom_cards: list[str] = field(default_factory=list)
    reward: str = "outcome"  # "outcome" (credits), "score" or "margin" (by score_scale)
    score_scale: float = 10.0  # --reward score: the score valued 1 (and -score_scale 0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def default_of(name: str) -> Any:
    """``TrainConfig``'s default of the setting ``name`` (a fresh copy of a list's)."""
    for f in fields(TrainConfig):
        if f.name == name:
            if f.default_factory is not MISSING:
                return f.default_factory()
            if f.default is MISSING:
                raise KeyError(f"{name} has no default")
            return f.default
    raise KeyError(name)
