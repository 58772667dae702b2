"""A seat's decision process learnt from games its own policy plays: samples spent where
the policy goes.

The tree walk (process.py) follows every branch, and the rollouts (sampling.py) try every
action of every state alike; in a game like Punish, whose states the seat reaches by the
hundred thousand, either spends its time on states a good player never sees.  Here the
process is estimated from whole games, in rounds, as model-based reinforcement learning
does it:

1. play a round of games, each from a fresh deal (seeds ``seed``, ``seed + 1``...): the
   seat takes the greedy action of the last round's solution, or with probability
   ``epsilon`` (and always in a state not yet solved) a uniformly random one; the others'
   moves are drawn from the opponent model, chance is the game's own;
2. count every transition the seat's decisions make (state, action -> next state or end,
   with its reward): ``tries[s][a]`` is how often the action was taken, so each
   probability is a count over it (an action never taken has no estimate: its Q stays 0);
3. solve the counted process by value iteration, and go on with its greedy policy.

So the states the policy keeps reaching gather the samples, and the estimates sharpen
where they matter.  What it finds is an estimate, and its value is measured by playing the
greedy policy (``play_greedy``), never taken from the counted process alone.

A round's counts are kept in a checkpoint (``--checkpoint``): a killed solve resumes
from its last finished round.  With an opponent model that gives probabilities (uniform,
``model:PATH``, a policy table) it then plays exactly the games it would have; an agent
that keeps its own state (a search agent's random stream) is not in the checkpoint.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cardlang.information.observation import option_index
from cardlang.information.views import view_of
from cardlang.solve.iteration import ValueIteration, value_iteration
from cardlang.solve.process import DecisionProcess, Problem, after, reward_function
from cardlang.solve.worlds import SolveError

CHECKPOINT_FORMAT = "cardlang-solve-checkpoint"

#: Evaluation games are dealt from seeds this far past the learning games', so the policy
#: is measured on deals it never learnt from.
EVALUATION_SEEDS = 1_000_000_000


@dataclass(frozen=True)
class Settings:
    """What an exploring solve does (a checkpoint resumes only the same settings)."""

    games: int
    rounds: int
    epsilon: float
    seed: int
    discount: float
    tolerance: float
    max_sweeps: int
    max_states: int


@dataclass(frozen=True)
class Round:
    number: int
    games: int  # played so far, this round's included
    states: int
    mean_reward: float  # of this round's games, exploration included
    sweeps: int
    start_value: float  # of the counted process, after this round


@dataclass
class Exploration:
    """Where an exploring solve stands: the counted process and the rounds done."""

    process: DecisionProcess
    rounds: list[Round] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    solution: ValueIteration | None = None


def normalized(p: DecisionProcess) -> DecisionProcess:
    """The process with its start as probabilities (the games played arrive as counts)."""
    total = p.start_ends + sum(p.start.values())
    if total == 0:
        return p
    return replace(
        p,
        start={s: w / total for s, w in p.start.items()},
        start_reward=p.start_reward / total,
        start_ends=p.start_ends / total,
    )


class _Player:
    """Plays games of the problem: the seat by a policy, the others by the model."""

    def __init__(self, problem: Problem, rng: random.Random) -> None:
        self.problem = problem
        self.master = problem.master
        self.rng = rng
        self.reward = reward_function(problem.reward, problem.seat, problem.master)
        self.record = problem.keys.reads_history or problem.opponents.needs_history

    def deal(self, seed: int) -> Any:
        return self.master.new_game(seed, record=self.record)

    def other(self, st: Any, options: Any) -> int:
        probs = self.problem.opponents.probabilities(st, st.mover, options)
        return self.rng.choices(range(len(options)), weights=probs)[0]


def _play_round(
    player: _Player, x: Exploration, settings: Settings, first_game: int, games: int
) -> float:
    """Play ``games`` games, counting the seat's transitions; their mean reward."""
    problem, master, p = player.problem, player.master, x.process
    greedy = x.solution.greedy if x.solution is not None else []
    seat, rng, total = problem.seat, x.rng, 0.0
    for g in range(first_game, first_game + games):
        st = player.deal(settings.seed + g)
        src: tuple[int, int] | None = None
        while not st.is_over:
            options = master.legal_options(st)
            p.nodes += 1
            if st.mover != seat:
                st = after(master, st, player.other(st, options))
                continue
            s, moves = p.state_of(problem, st, options)
            if p.n_states > settings.max_states:
                raise SolveError(
                    f"more than --max-states {settings.max_states:,} states: use coarser keys "
                    "(--keys counts, --ignore NAME) or raise it"
                )
            p.weight[s] += 1.0
            p.arrive(src, s, 1.0)
            explore = s >= len(greedy) or rng.random() < settings.epsilon
            a = rng.randrange(len(moves)) if explore else greedy[s]
            p.tries[s][a] += 1.0
            src = (s, a)
            st = after(master, st, moves[a])
        r = player.reward(st)
        p.end(src, 1.0, r)
        total += r
    return total / games


def explore(
    problem: Problem,
    settings: Settings,
    *,
    checkpoint: Path | None = None,
    identity: dict[str, Any] | None = None,
    on_round: Callable[[Round], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Exploration:
    """Rounds of play and solution (see the module docstring), resumed from
    ``checkpoint`` when it holds a run of the same ``identity`` (the game, the seat, the
    model, the settings: what makes its counts mean the same)."""
    identity = {**(identity or {}), "settings": vars(settings)}
    x = None
    if checkpoint is not None and checkpoint.exists():
        x = load_checkpoint(checkpoint, problem, identity)
    if x is None:
        x = Exploration(
            DecisionProcess(problem.seat, problem.keys), rng=random.Random(settings.seed)
        )
    player = _Player(problem, x.rng)
    per_round = [
        settings.games // settings.rounds + (r < settings.games % settings.rounds)
        for r in range(settings.rounds)
    ]
    if x.rounds and x.solution is None:
        x.solution = _solve(x.process, settings)
    for r in range(len(x.rounds), settings.rounds):
        played = sum(per_round[:r])
        mean = _play_round(player, x, settings, played, per_round[r])
        x.solution = _solve(x.process, settings)
        done = Round(
            r + 1,
            played + per_round[r],
            x.process.n_states,
            mean,
            len(x.solution.sweeps),
            x.solution.start_value,
        )
        x.rounds.append(done)
        if checkpoint is not None:
            save_checkpoint(checkpoint, x, identity)
        if on_round is not None:
            on_round(done)
    return x


def _solve(p: DecisionProcess, settings: Settings) -> ValueIteration:
    return value_iteration(
        normalized(p),
        discount=settings.discount,
        tolerance=settings.tolerance,
        max_sweeps=settings.max_sweeps,
    )


def play_greedy(
    problem: Problem, policy: dict[str, str], games: int, seed: int
) -> tuple[list[float], int]:
    """The seat's reward in ``games`` games, dealt from seeds past the learning games',
    with ``policy`` against the model; a state the policy lacks is played at random, and
    counted (the second result)."""
    player = _Player(problem, random.Random(seed))
    master, game, seat = problem.master, problem.game, problem.seat
    rewards, misses = [], 0
    for j in range(games):
        st = player.deal(seed + EVALUATION_SEEDS + j)
        while not st.is_over:
            options = master.legal_options(st)
            if st.mover == seat:
                view = view_of(st, seat, game, options)
                i = option_index(view, policy.get(problem.keys.of(view)))
                if i is None:
                    misses += 1
                    i = player.rng.randrange(len(options))
            else:
                i = player.other(st, options)
            st = after(master, st, i)
        rewards.append(player.reward(st))
    return rewards, misses


# ---------------------------------------------------------------- checkpoints

_PROCESS_LISTS = ("keys", "actions", "labels", "weight", "reward", "ends", "tries")


def save_checkpoint(path: Path, x: Exploration, identity: dict[str, Any]) -> None:
    """Write the exploration (its counts, rounds and random stream) atomically: a kill
    while writing leaves the last checkpoint whole."""
    p = x.process
    doc = {
        "format": CHECKPOINT_FORMAT,
        "version": 1,
        "identity": identity,
        "rounds": [vars(r) for r in x.rounds],
        "rng": _rng_state(x.rng),
        "process": {
            **{name: getattr(p, name) for name in _PROCESS_LISTS},
            "next": [[list(d.items()) for d in row] for row in p.next],
            "start": list(p.start.items()),
            "start_reward": p.start_reward,
            "start_ends": p.start_ends,
            "nodes": p.nodes,
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt") as f:
        json.dump(doc, f)
    os.replace(tmp, path)


def load_checkpoint(path: Path, problem: Problem, identity: dict[str, Any]) -> Exploration:
    """The exploration a checkpoint holds; a SolveError when it is not one, or when it
    was made by another solve (other game, seat, model or settings)."""
    try:
        with gzip.open(path, "rt") as f:
            doc = json.load(f)
    except (OSError, ValueError, EOFError) as e:
        raise SolveError(
            f"checkpoint {path} cannot be read ({e}); delete it to start over"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != CHECKPOINT_FORMAT:
        raise SolveError(f"{path} is not a cardlang solve checkpoint")
    if doc.get("identity") != json.loads(json.dumps(identity)):
        raise SolveError(
            f"checkpoint {path} was made by another solve (its game, seat, opponent, keys "
            "or settings differ); delete it or name another --checkpoint"
        )
    saved = doc["process"]
    p = DecisionProcess(problem.seat, problem.keys)
    for name in _PROCESS_LISTS:
        setattr(p, name, saved[name])
    p.index = {key: s for s, key in enumerate(p.keys)}
    p.next = [[{int(t): w for t, w in d} for d in row] for row in saved["next"]]
    p.start = {int(s): w for s, w in saved["start"]}
    p.start_reward, p.start_ends, p.nodes = (
        saved["start_reward"],
        saved["start_ends"],
        saved["nodes"],
    )
    rng = random.Random()
    rng.setstate(_rng_from(doc["rng"]))
    return Exploration(p, [Round(**r) for r in doc["rounds"]], rng)


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from(saved: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)


def identity_of(problem: Problem, game_text: str, opponent: str) -> dict[str, Any]:
    """What must match for a checkpoint's counts to be this solve's."""
    return {
        "game_sha256": hashlib.sha256(game_text.encode()).hexdigest(),
        "seat": problem.seat,
        "opponent": opponent,
        "keys": problem.keys.fields(),
        "reward": problem.reward,
    }
