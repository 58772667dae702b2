"""PPO's actors: who plays a run's lockstep games, in this process, in local processes
or as Ray actors, with the same results wherever they run (torch).

Pipeline position: learning, between ppo_run.py (the run, the learner) and
ppo_actor.py (an actor is a ``PPOActor`` with its own lanes).  The learner never steps
a game: it sends its weights, gets back each actor's ``Experience`` (packed to cross
processes: ``Played``), and learns from them.

A run's ``--envs`` rows are split among ``--actors`` actors.  Each actor builds its own
lanes (the whole opponent pool, its share of the rows), its own random streams
(``actor_seed``) and its own past pool (snapshots of the weights it was sent, at the
same update counts as the learner's).  What the run learns depends on the number of
actors, never on where they run: ``serial`` plays them in turn in this process,
``process`` spreads them over local worker processes (one per core by default),
``ray`` over Ray actors on a cluster.  Each worker (a process, or a Ray actor) hosts
some of the actors (``ActorHost``) and answers the same few commands.

The learner and the actors work at once: while the learner learns update ``u``, the
actors play update ``u + 1`` with the weights from before it (one update behind, as in
IMPALA or asynchronous PPO; PPO's ratio is taken against the policy that played, so
the clip still bounds each step).  A serial run plays in the same order, which is what
makes its results the same as a process run's.  A round ends with every actor idle, so
its checkpoint holds each actor's state (``ActorHost.states``) and a resumed run goes on
exactly.

A worker that dies (killed, out of memory) ends the run with a message (``ActorError``);
its checkpoint is the last round's, and running the command again resumes there.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import resource
import signal
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

import numpy as np
import torch

from cardlang.agents.neural.model import NeuralModel, model_from_payload
from cardlang.env.vector import VectorEnv
from cardlang.errors import CardlangError, UsageError
from cardlang.learning.config import TrainConfig
from cardlang.learning.lanes import SEATED, Lane, parse_pool
from cardlang.learning.ppo import Experience, GameRecord, PPOConfig
from cardlang.learning.ppo_actor import PPOActor
from cardlang.learning.returns import RunReturns
from cardlang.learning.seam import spare_rows
from cardlang.learning.steps import pack_steps, unpack_steps
from cardlang.runs.backends import (
    GamePayload,
    available_cores,
    exit_with_parent,
    import_ray,
    pool_context,
)

__all__ = [
    "ActorError",
    "ActorGroup",
    "ActorSpec",
    "Played",
    "actor_seed",
    "build_lanes",
    "default_actors",
    "pool_lanes",
    "open_actors",
    "pool_least",
    "ppo_config",
    "split_rows",
]


class ActorError(CardlangError):
    """An actor failed or its worker died: the run stops at its last checkpoint.  The
    worker's traceback, where there is one, is kept for ``--debug``."""

    def __init__(self, message: str, trace: str = "") -> None:
        super().__init__(message)
        self.trace = trace


# ------------------------------------------------------------ the pool's rows


def split_rows(total: int, weights: list[float], least: list[int]) -> list[int]:
    """``total`` rows shared by ``weights`` (largest remainders), each share at least
    ``least`` (a lane's seats); a zero weight gets none."""
    scale = sum(weights)
    raw = [total * w / scale for w in weights]
    rows = [max(int(r), m) if w > 0 else 0 for r, w, m in zip(raw, weights, least, strict=True)]
    order = sorted(range(len(raw)), key=lambda k: raw[k] - int(raw[k]), reverse=True)
    for k in order:
        if sum(rows) >= total:
            break
        if weights[k] > 0:
            rows[k] += 1
    return rows


def pool_least(config: TrainConfig, nplayers: int) -> int:
    """The fewest rows one actor's share of the pool can be played in."""
    pool = parse_pool(config.opponents)
    return sum(1 if spec in SEATED else nplayers for spec, weight in pool if weight > 0)


def default_actors(backend: str, workers: int | None) -> int:
    """A new run's actors where ``--actors`` is not given: ``--workers`` if given, else
    in local processes one per core the learner leaves (at least one); serially one."""
    if workers is not None:
        return workers
    return max(1, available_cores() - 1) if backend == "process" else 1


def ppo_config(config: TrainConfig) -> PPOConfig:
    """The algorithm's settings: the run's of the same names (its batch size is PPO's
    minibatch; the schedules end at round ``anneal_rounds``'s last update)."""
    names = {f.name for f in fields(PPOConfig)}
    same = {k: v for k, v in config.to_dict().items() if k in names}
    anneal = config.anneal_rounds * config.updates
    return PPOConfig(
        **same,
        minibatch=config.batch_size,
        anneal_updates=anneal,
        card_bonus_cards=tuple(config.always),
        card_bonus_updates=int(config.card_bonus_rounds * config.updates),
        kingdom=tuple(config.kingdom_cards),
    )


def actor_seed(seed: int, actor: int) -> int:
    """Actor ``actor``'s seed from the run's (actor 0's is the run's own)."""
    return seed + actor * 0x9E3779B1


# ------------------------------------------------------------ one actor


@dataclass
class ActorSpec:
    """What builds actor ``index`` in any process: the games (``GamePayload``: the parsed
    tree, as the batch runner's workers get it; one per drawn parameter's alternative),
    the run's settings, the model (its payload, as a checkpoint holds it), and the actor's
    rows."""

    games: list[GamePayload]
    config: dict[str, Any]
    model: dict[str, Any]  # NeuralModel.payload(): sizes, game, names, weights, info
    index: int
    rows: int
    returns: RunReturns


@dataclass
class Played:
    """An actor's ``Experience`` of one update as it crosses to the learner: its steps
    packed (a few flat arrays pickle fast, thousands of objects do not), its games'
    results, and the CPU seconds the actor's process spent since its last answer (0 in
    the learner's own); a worker's first actor carries the worker's figures."""

    steps: dict[str, np.ndarray]
    results: list[GameRecord]
    cpu: float = 0.0
    rss_mb: float = 0.0  # the worker's peak resident memory (0 in the learner's process)

    @staticmethod
    def of(experience: Experience) -> Played:
        return Played(pack_steps(experience.steps), experience.results)

    def experience(self) -> Experience:
        return Experience(unpack_steps(self.steps), self.results)


class Actor:
    """One actor: a ``PPOActor`` over its own lanes, built from its spec."""

    def __init__(self, spec: ActorSpec) -> None:
        self.index = spec.index
        config = TrainConfig.from_dict(spec.config)
        games = [payload.master().game for payload in spec.games]
        self.model = model = model_from_payload(spec.model, f"actor {spec.index}", "cpu")
        lanes = build_lanes(games, config, model, spec.rows, spec.index)
        seed = actor_seed(config.seed, spec.index)
        self.actor = PPOActor(lanes, model, ppo_config(config), seed, returns=spec.returns)

    def names(self) -> list[str]:
        """The name table as the actor's envs left it (every actor's is the same)."""
        return list(self.model.table.names)

    def reset(self, seed: int) -> None:
        self.actor.reset(actor_seed(seed, self.index))

    def play(self, weights: dict[str, np.ndarray] | None, extra: dict[str, Any]) -> Played:
        """One update's games with ``weights`` (None: those it has) and what the
        learner's remedies share (``PPOLearner.shared``)."""
        self.actor.receive(weights, extra)
        return Played.of(self.actor.collect())

    def state(self) -> dict[str, Any]:
        return self.actor.state()

    def load_state(self, state: dict[str, Any]) -> None:
        self.actor.load_state(state)


def build_lanes(
    games: Sequence[Any], config: TrainConfig, model: NeuralModel, rows: int, actor: int = 0
) -> list[Lane]:
    """An actor's lanes: ``rows`` rows shared equally by ``games`` (the run's game, or
    one per combination of ``--param-draw``'s alternatives), each game's share played
    against the whole opponent pool (``pool_lanes``)."""
    least = pool_least(config, games[0].nplayers)
    shares = split_rows(rows, [1.0] * len(games), [least] * len(games))
    lanes: list[Lane] = []
    for v, (game, count) in enumerate(zip(games, shares, strict=True)):
        lanes += pool_lanes(game, config, model, count, actor, VARIANT_SALT * v)
    return lanes


#: Seeds apart between one game's lanes and the next's (a drawn parameter's).
VARIANT_SALT = 1_000_003


def pool_lanes(
    game: Any, config: TrainConfig, model: NeuralModel, rows: int, actor: int, salt: int = 0
) -> list[Lane]:
    """The opponent pool over ``rows`` rows of ``game``: ``self``, ``past`` and ``average``
    each one env of every seat, an agent one env per learner seat."""
    n = game.nplayers
    pool = parse_pool(config.opponents)
    least = [1 if spec in SEATED else n for spec, _ in pool]
    counts = split_rows(rows, [w for _, w in pool], least)
    lanes: list[Lane] = []
    for k, ((spec, _), count) in enumerate(zip(pool, counts, strict=True)):
        if not count:
            continue
        if spec in SEATED:
            spare = spare_rows(config, spec, count)
            env = _env(game, config, model, count, "all", "random", salt + k, actor, spare)
            lanes.append(Lane(env, spec, spare))
            continue
        per_seat = split_rows(count, [1.0] * n, [1] * n)
        for seat in range(n):
            games, env_salt = per_seat[seat], salt + k * n + seat
            spare = spare_rows(config, spec, games)
            env = _env(game, config, model, games, seat, spec, env_salt, actor, spare)
            lanes.append(Lane(env, spec, spare))
    return lanes


def _env(
    game: Any,
    config: TrainConfig,
    model: NeuralModel,
    rows: int,
    seats: str | int,
    opponents: str,
    salt: int,
    actor: int,
    spare: int = 0,
) -> VectorEnv:
    """The env of ``rows`` games, and ``spare`` rows after them (a remedy's: lanes.py)."""
    try:
        return VectorEnv(
            game,
            rows + spare,
            seats=seats,
            opponents=opponents,
            seed=actor_seed(config.seed * 7_919 + salt, actor),
            max_decisions=config.max_decisions,
            tokens=model.table,
        )
    except UsageError as err:
        raise UsageError(f"--opponents {opponents}: {err}") from None


# ------------------------------------------------------------ a worker's actors


class ActorHost:
    """Some of a run's actors, in one process: every command goes to each in turn."""

    def __init__(self, specs: Sequence[ActorSpec]) -> None:
        torch.set_num_threads(1)  # one process per core pays best on a CPU
        self.actors = [Actor(spec) for spec in specs]
        self.clock = 0.0  # a worker's first answer counts its start (imports, envs) too

    def names(self) -> list[list[str]]:
        return [actor.names() for actor in self.actors]

    def reset(self, seed: int) -> None:
        for actor in self.actors:
            actor.reset(seed)

    def play(self, weights: dict | None, extra: dict[str, Any], own_cpu: bool) -> list[Played]:
        played = [actor.play(weights, extra) for actor in self.actors]
        if own_cpu:  # a worker's CPU and memory are not the learner's: say what they are
            now = time.process_time()
            played[0].cpu, self.clock = now - self.clock, now
            played[0].rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return played

    def states(self) -> list[dict[str, Any]]:
        return [actor.state() for actor in self.actors]

    def load_states(self, states: Sequence[dict[str, Any]]) -> None:
        for actor, state in zip(self.actors, states, strict=True):
            actor.load_state(state)


class ActorGroup(Protocol):
    """A run's actors wherever they are: ``start`` sends an update's play (it returns at
    once), ``finish`` waits for every actor's ``Played``, in actor order."""

    def names(self) -> list[list[str]]: ...
    def reset(self, seed: int) -> None: ...
    def start(self, weights: dict[str, np.ndarray], extra: dict[str, Any]) -> None: ...
    def finish(self) -> list[Played]: ...
    def states(self) -> list[dict[str, Any]]: ...
    def load_states(self, states: Sequence[dict[str, Any]]) -> None: ...
    def close(self) -> None: ...


def open_actors(backend: str, workers: int | None, specs: list[ActorSpec]) -> ActorGroup:
    """The actors of ``specs`` on ``backend`` (``serial``, ``process`` or ``ray``),
    spread over ``workers`` workers (None: one per core, at most one per actor)."""
    if backend == "serial" or len(specs) == 0:
        return SerialActors(specs)
    if backend == "ray":
        return RayActors(specs, workers)
    count = min(len(specs), workers or default_actors("process", None))
    return ProcessActors(specs, count)


def _deal(specs: list[ActorSpec], workers: int) -> list[list[ActorSpec]]:
    """Actors dealt to workers in contiguous runs (worker order is actor order)."""
    cuts = np.linspace(0, len(specs), workers + 1).round().astype(int)
    return [specs[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True) if b > a]


class SerialActors:
    """Every actor in this process, played in turn when the learner asks for the play
    (``finish``): the same order of events as workers playing while it learns."""

    def __init__(self, specs: list[ActorSpec]) -> None:
        self.host = ActorHost(specs)
        self.pending: tuple[dict, dict[str, Any]] | None = None

    def names(self) -> list[list[str]]:
        return self.host.names()

    def reset(self, seed: int) -> None:
        self.host.reset(seed)

    def start(self, weights: dict[str, np.ndarray], extra: dict[str, Any]) -> None:
        self.pending = (weights, extra)

    def finish(self) -> list[Played]:
        assert self.pending is not None, "finish() follows start()"
        (weights, extra), self.pending = self.pending, None
        return self.host.play(weights, extra, own_cpu=False)

    def states(self) -> list[dict[str, Any]]:
        return self.host.states()

    def load_states(self, states: Sequence[dict[str, Any]]) -> None:
        self.host.load_states(states)

    def close(self) -> None:
        pass


# ------------------------------------------------------------ local processes


def _serve(connection: multiprocessing.connection.Connection, specs: list[ActorSpec]) -> None:
    """A worker process: build its actors, then answer commands until told to stop (or
    until the learner's process is gone).  An error is sent back, not raised."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle
    exit_with_parent()
    try:
        host = ActorHost(specs)
    except BaseException as err:  # noqa: BLE001 - the learner reports it
        connection.send(("error", _described(err)))
        return
    connection.send(("ok", None))
    while True:
        try:
            command, args = connection.recv()
        except EOFError:
            return
        if command == "stop":
            return
        try:
            answer = getattr(host, command)(*args)
        except BaseException as err:  # noqa: BLE001
            connection.send(("error", _described(err)))
            return
        connection.send(("ok", answer))


def _described(err: BaseException) -> tuple[str, str, str]:
    return (type(err).__name__, str(err), traceback.format_exc())


class ProcessActors:
    """The actors spread over ``workers`` local processes, each hosting a contiguous run
    of them; the commands go to every worker at once and answers come back in order."""

    def __init__(self, specs: list[ActorSpec], workers: int) -> None:
        context = pool_context()
        self.connections: list[multiprocessing.connection.Connection] = []
        self.processes: list[Any] = []
        shares = _deal(specs, workers)
        self.sizes = [len(share) for share in shares]
        for k, share in enumerate(shares):
            mine, theirs = context.Pipe()
            process = context.Process(  # type: ignore[attr-defined]
                target=_serve, args=(theirs, share), name=f"cardlang-actor-{k}", daemon=True
            )
            process.start()
            theirs.close()
            self.connections.append(mine)
            self.processes.append(process)
        try:
            self._answers()  # every worker built its actors
        except BaseException:
            self.close()
            raise

    def _send(self, command: str, *args: Any) -> None:
        for k, connection in enumerate(self.connections):
            try:
                connection.send((command, args))
            except OSError:  # a broken pipe: the worker is gone
                raise self._died(k) from None

    def _died(self, k: int) -> ActorError:
        self.processes[k].join(timeout=1)
        code = self.processes[k].exitcode
        return ActorError(
            f"actor worker {k} died (exit code {code}: killed, or out of memory?); "
            "run the same command again to resume from the last checkpoint"
        )

    def _answers(self) -> list[Any]:
        answers = []
        for k, connection in enumerate(self.connections):
            try:
                status, answer = connection.recv()
            except (EOFError, OSError):
                raise self._died(k) from None
            if status == "error":
                kind, message, trace = answer
                raise ActorError(f"actor worker {k} failed: {kind}: {message}", trace)
            answers.append(answer)
        return answers

    def _ask(self, command: str, *args: Any) -> list[Any]:
        self._send(command, *args)
        return self._answers()

    def names(self) -> list[list[str]]:
        return [names for answer in self._ask("names") for names in answer]

    def reset(self, seed: int) -> None:
        self._ask("reset", seed)

    def start(self, weights: dict[str, np.ndarray], extra: dict[str, Any]) -> None:
        self._send("play", weights, extra, True)

    def finish(self) -> list[Played]:
        return [played for answer in self._answers() for played in answer]

    def states(self) -> list[dict[str, Any]]:
        return [state for answer in self._ask("states") for state in answer]

    def load_states(self, states: Sequence[dict[str, Any]]) -> None:
        cuts = np.cumsum([0, *self.sizes]).tolist()
        for k, connection in enumerate(self.connections):
            try:
                connection.send(("load_states", (states[cuts[k] : cuts[k + 1]],)))
            except OSError:
                raise self._died(k) from None
        self._answers()

    def close(self) -> None:
        for connection in self.connections:
            try:
                connection.send(("stop", ()))
            except (BrokenPipeError, OSError):
                pass
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        for connection in self.connections:
            connection.close()
        self.connections, self.processes = [], []


# ------------------------------------------------------------ Ray


class RayActors:
    """The actors spread over Ray actors (``workers`` of them; default one per actor),
    on the cluster ``RAY_ADDRESS`` names or a local Ray that ``ray.init()`` starts."""

    def __init__(self, specs: list[ActorSpec], workers: int | None) -> None:
        ray = import_ray()
        if not ray.is_initialized():
            ray.init(address=os.environ.get("RAY_ADDRESS"), log_to_driver=False)
        self.ray = ray
        remote = ray.remote(num_cpus=1)(ActorHost)
        shares = _deal(specs, min(len(specs), workers or len(specs)))
        self.sizes = [len(share) for share in shares]
        self.hosts = [remote.remote(share) for share in shares]
        self.pending: list[Any] = []
        self._get([host.names.remote() for host in self.hosts])  # every host built

    def _get(self, refs: list[Any]) -> list[Any]:
        try:
            return list(self.ray.get(refs))
        except Exception as err:  # noqa: BLE001 - Ray wraps the actor's error
            raise ActorError(f"a Ray actor failed: {err}") from None

    def names(self) -> list[list[str]]:
        return [n for answer in self._get([h.names.remote() for h in self.hosts]) for n in answer]

    def reset(self, seed: int) -> None:
        self._get([host.reset.remote(seed) for host in self.hosts])

    def start(self, weights: dict[str, np.ndarray], extra: dict[str, Any]) -> None:
        shared, extra_ref = self.ray.put(weights), self.ray.put(extra)
        self.pending = [host.play.remote(shared, extra_ref, True) for host in self.hosts]

    def finish(self) -> list[Played]:
        answers, self.pending = self._get(self.pending), []
        return [played for answer in answers for played in answer]

    def states(self) -> list[dict[str, Any]]:
        return [s for answer in self._get([h.states.remote() for h in self.hosts]) for s in answer]

    def load_states(self, states: Sequence[dict[str, Any]]) -> None:
        cuts = np.cumsum([0, *self.sizes]).tolist()
        refs = [
            h.load_states.remote(states[a:b])
            for h, a, b in zip(self.hosts, cuts, cuts[1:], strict=False)
        ]
        self._get(refs)

    def close(self) -> None:
        for host in self.hosts:
            self.ray.kill(host)
        self.hosts = []
