"""Backends that play a batch's games: in this process, in local processes, or on Ray.

Pipeline position: between ``run_batch`` (simulate.py) and the runner.  ``run_batch``
plans a batch, counts its games into the summary, writes its records and calls
``on_game``; a backend only plays planned games (``planned.play_planned``) and hands
them back as ``Played`` values.  It imports planned.py, never simulate.py (which imports
it).

Why every backend gives the same results: a planned game carries its seed (derived from
the batch's root seed) and its seats' agent specs, and a worker builds the agents and
their seeds from those exactly as the serial loop does, so a game plays the same
wherever it runs.  Backends hand games back *in index order* (a chunk that finishes
early waits in its future), so the summary, the records (same rows, same ids, same
order) and the ``on_game`` calls are those of a serial run, whatever the number of
workers.  Only the main process writes the records (SQLite from one writer, each game
in one transaction, as in a serial run): workers send back each game's result and, for a
recorded batch, its decisions.

- ``serial``: one game after the other in this process (the default; nothing to ship).
- ``process``: a local pool of ``workers`` processes (default: every core this process
  may run on).  A compiled ``Game`` is made of closures and generated code, which do
  not pickle, so each worker gets what rebuilds it (``GamePayload``: the source and the
  parsed tree with the parameters applied) and compiles it once, in the pool's
  initializer.  Workers ignore Ctrl-C and SIGTERM (the main process asks them to stop,
  and they do between games) and exit when the main process dies, even by SIGKILL, so
  no worker outlives a killed run.
- ``ray``: one Ray task per chunk, on the cluster ``RAY_ADDRESS`` names or on a local
  one that ``ray.init()`` starts; ``workers`` (default: the cluster's CPUs) bounds the
  tasks at work.  Each Ray worker process compiles the game once and keeps it.

Games go to workers in chunks of ``chunk_size`` games (at most ``CHUNK_MAX``), so a
worker's overhead per task is small next to the games it plays; at most
``WINDOW_PER_WORKER`` chunks per worker are submitted and not yet consumed, which bounds
the memory of finished games waiting for an earlier one.  A run killed outright loses
the games of the chunks in flight; the records' resume plays them again.
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import multiprocessing.synchronize
import os
import signal
import threading
import traceback
import uuid
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from cardlang.engine.protocol import Engine
from cardlang.errors import CardlangError, SourceFile, UsageError

if TYPE_CHECKING:
    from cardlang.engine.game import Game
    from cardlang.engine.gamemaster import Limits
    from cardlang.language import ast
    from cardlang.runs.planned import Played
    from cardlang.runs.store import PlannedGame

__all__ = [
    "BACKENDS",
    "CHUNK_MAX",
    "Backend",
    "BackendError",
    "GamePayload",
    "available_cores",
    "check_backend",
    "chunk_size",
    "exit_with_parent",
    "import_ray",
    "pool_context",
    "open_backend",
]

BACKENDS = ("serial", "process", "ray")
RAY_INSTALL = "pip install 'cardlang[ray]'"
#: The most games in one chunk: a chunk is lost whole when a run is killed, and the
#: progress bar moves a chunk at a time.
CHUNK_MAX = 100
#: Chunks per worker (unless that makes chunks larger than CHUNK_MAX): enough for the
#: workers to finish together although games differ in length.
CHUNKS_PER_WORKER = 4
#: Chunks per worker submitted and not yet consumed.
WINDOW_PER_WORKER = 2


class BackendError(CardlangError):
    """A backend lost its workers (killed, out of memory): the batch cannot go on here."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def check_backend(backend: str, workers: int | None) -> None:
    """Refuse a backend that does not exist or cannot run here, with what to do instead
    (a UsageError: the command line reports it as bad usage, before any game)."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if backend == "serial" and workers not in (None, 1):
        raise UsageError(
            f"the serial backend plays in this process: it takes no --workers {workers} "
            "(use --backend process for local worker processes)"
        )
    if backend == "ray":
        import_ray()


def chunk_size(games: int, workers: int) -> int:
    """Games per task: about CHUNKS_PER_WORKER chunks per worker, at most CHUNK_MAX."""
    return max(1, min(CHUNK_MAX, math.ceil(games / (CHUNKS_PER_WORKER * workers))))


def open_backend(backend: str, workers: int | None) -> Backend:
    """The backend of that name, checked (see ``check_backend``)."""
    check_backend(backend, workers)
    if backend == "serial":
        return SerialBackend()
    if backend == "process":
        return ProcessBackend(workers or available_cores())
    return RayBackend(workers)


class Backend(Protocol):
    """Plays planned games and yields them in the order given.  ``run_batch`` closes the
    generator when it stops early (Ctrl-C, an error): the backend then stops its
    workers."""

    def play(
        self,
        master: Engine,
        todo: Iterable[PlannedGame],
        *,
        record: bool,
        games: int,
        cards: bool = False,
    ) -> Generator[Played, None, None]:
        """``games``: how many ``todo`` holds (for sizing chunks); ``record`` keeps each
        game's decisions, ``cards`` its card counts (``GameResult.cards``)."""
        ...


class SerialBackend:
    """One game after the other in this process: the fastest for one core."""

    def play(
        self,
        master: Engine,
        todo: Iterable[PlannedGame],
        *,
        record: bool,
        games: int,
        cards: bool = False,
    ) -> Generator[Played, None, None]:
        from cardlang.runs.planned import play_planned_games

        yield from play_planned_games(master, todo, record, cards)


# ---------------------------------------------------------------- what workers get


@dataclass(frozen=True)
class GamePayload:
    """What rebuilds a batch's game in another process: the source (its name and text,
    which rule errors quote) and the parsed tree with the --param values applied, so the
    worker compiles exactly the game the main process has, without parsing it again and
    whatever parameters the caller passed to ``run_batch``."""

    source: SourceFile
    tree: ast.Game
    limits: Limits
    key: str  # new for every batch: a Ray worker keeps the game of the key it last saw
    engine: str = "python"  # the engine the main process plays with
    agents_inside: bool = True  # and whether its agents may play inside it (Game's)

    @classmethod
    def of(cls, master: Engine) -> GamePayload:
        game = master.game
        key = uuid.uuid4().hex
        return cls(
            game.source, game.ast, master.limits, key, master.traits.name, game.agents_inside
        )

    def master(self) -> Engine[Game]:
        """Check and compile the tree (it checked clean in the main process)."""
        from cardlang.compiler.load import compile_game
        from cardlang.language.checker import check

        game = compile_game(check(self.tree, self.source), [])
        game.agents_inside = self.agents_inside
        return game.master(self.limits, engine=self.engine)


class Chunk(NamedTuple):
    """A worker's answer for one chunk: the games it played, in order, and the error
    that stopped it, if any (an agent's error, as the serial loop would raise it after
    the games before it), with the worker's traceback for --debug."""

    played: list[Played]
    error: BaseException | None = None
    traceback: str = ""


def play_chunk(
    master: Engine,
    chunk: Iterable[PlannedGame],
    record: bool,
    cards: bool = False,
    stopped: Callable[[], bool] = lambda: False,
) -> Chunk:
    """Play a chunk's games in order; an exception ends the chunk after the games played
    before it, which still count (as in a serial run).  ``stopped`` is asked before each
    game: a batch that is being stopped gets its worker back after the game in hand."""
    from cardlang.runs.planned import play_planned_games

    played: list[Played] = []
    try:
        games = play_planned_games(master, chunk, record, cards)
        while not stopped() and (done := next(games, None)) is not None:
            played.append(done)
    except Exception as err:
        return Chunk(played, err, traceback.format_exc())
    return Chunk(played)


class WorkerTraceback(Exception):
    """The traceback of an error raised in a worker (shown as its cause with --debug)."""

    def __str__(self) -> str:
        return f"\n\n{self.args[0]}"


F = TypeVar("F")


def _in_order(
    chunks: Iterator[list[PlannedGame]],
    submit: Callable[[list[PlannedGame]], F],
    wait: Callable[[F], Chunk],
    window: int,
    inflight: deque[F],
) -> Iterator[Played]:
    """Keep ``window`` chunks submitted, and yield their games in submission order.

    The next chunk is submitted before the finished one's games are handed on, so the
    workers play while the main process writes (none after a chunk stopped by an error:
    the batch ends there).  ``inflight`` is the caller's, so that it can cancel what is
    left when the consumer stops early.
    """
    inflight.extend(submit(chunk) for chunk in islice(chunks, window))
    while inflight:
        done = wait(inflight[0])
        inflight.popleft()
        if done.error is None and (following := next(chunks, None)) is not None:
            inflight.append(submit(following))
        yield from done.played
        if done.error is not None:
            raise done.error from WorkerTraceback(done.traceback)


def _chunks(todo: Iterable[PlannedGame], size: int) -> Iterator[list[PlannedGame]]:
    iterator = iter(todo)
    while chunk := list(islice(iterator, size)):
        yield chunk


# ---------------------------------------------------------------- local processes

_WORKER_MASTER: Engine | None = None
_WORKER_STOP: multiprocessing.synchronize.Event | None = None
#: How long a stopping batch waits for its workers to finish the game in hand before it
#: kills them.
STOP_GRACE_SECONDS = 5.0


def _start_worker(payload: GamePayload, stop: multiprocessing.synchronize.Event) -> None:
    """A pool worker's initializer: compile the game once; leave Ctrl-C and SIGTERM to
    the main process, which stops the pool by ``stop``; exit when the main process dies.

    Why a worker is not simply terminated: one killed while it sends its chunk back
    leaves half a message in the pool's result pipe, and the pool's reader waits for
    the rest for ever (the main process then hangs in its shutdown).  So the main
    process asks, and a worker stops between games, sends what it has, and is ended by
    the pool's shutdown as usual.  The same goes for a SIGTERM sent to the whole
    process group."""
    global _WORKER_MASTER, _WORKER_STOP
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    exit_with_parent()
    _WORKER_STOP = stop
    _WORKER_MASTER = payload.master()


def exit_with_parent() -> None:
    """Exit as soon as the main process is gone.  A pool worker waits for work on a
    queue that its siblings keep open, so without this a killed run (SIGKILL, where
    nothing can clean up) would leave its workers waiting for ever."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="cardlang-exit-with-parent", daemon=True).start()


def _play_pool_chunk(chunk: list[PlannedGame], record: bool, cards: bool) -> Chunk:
    assert _WORKER_MASTER is not None and _WORKER_STOP is not None, "set by the initializer"
    return play_chunk(_WORKER_MASTER, chunk, record, cards, _WORKER_STOP.is_set)


def pool_context() -> multiprocessing.context.BaseContext:
    """forkserver where there is one: workers start from a clean single-threaded server
    (the main process may run a progress bar's thread, which fork would copy in the
    middle of whatever it holds), and later pools fork from it quickly; spawn elsewhere."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # the server imports these once, so a worker starts in milliseconds, not 0.3 s; this
    # takes effect when the server starts (the first pool of this process)
    context.set_forkserver_preload(["__main__", *_WORKER_MODULES])
    return context


#: What a worker needs loaded: the play of planned games, the interpreter's compilers, the
#: agents.
_WORKER_MODULES = (
    "cardlang.runs.planned",
    "cardlang.runs.backends",
    "cardlang.compiler.load",
    "cardlang.agents",
)


class ProcessBackend:
    """A local pool of worker processes, each with its own compiled game."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def play(
        self,
        master: Engine,
        todo: Iterable[PlannedGame],
        *,
        record: bool,
        games: int,
        cards: bool = False,
    ) -> Generator[Played, None, None]:
        if games <= 0:
            return
        size = chunk_size(games, self.workers)
        workers = min(self.workers, math.ceil(games / size))
        context = pool_context()
        stop = context.Event()
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(GamePayload.of(master), stop),
        )
        inflight: deque[Future[Chunk]] = deque()
        try:
            yield from _in_order(
                _chunks(todo, size),
                lambda chunk: pool.submit(_play_pool_chunk, chunk, record, cards),
                _pool_result,
                WINDOW_PER_WORKER * workers,
                inflight,
            )
        finally:
            if inflight:
                _stop_workers(pool, stop, inflight)
            pool.shutdown(wait=True, cancel_futures=True)


def _pool_result(future: Future[Chunk]) -> Chunk:
    try:
        return future.result()
    except BrokenProcessPool as err:
        raise BackendError(
            f"a worker process died while playing (killed, or out of memory?): {err}; "
            "with --db, rerun the same command to play the games still missing"
        ) from None


def _stop_workers(
    pool: ProcessPoolExecutor,
    stop: multiprocessing.synchronize.Event,
    inflight: Iterable[Future[Chunk]],
) -> None:
    """The batch stopped early: cancel the chunks not started, ask the workers to stop
    after the game in hand (their chunks are lost, as a serial run loses its game in
    flight), and kill those still playing after ``STOP_GRACE_SECONDS`` (a game of slow
    agents: killed in its play, not while it sends a result)."""
    for future in inflight:
        future.cancel()
    stop.set()
    _, playing = concurrent.futures.wait(inflight, timeout=STOP_GRACE_SECONDS)
    if playing:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()


# ---------------------------------------------------------------- Ray


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(
            f"the ray backend needs Ray, which is not installed: {RAY_INSTALL}"
        ) from None
    return ray


_RAY_MASTERS: dict[str, Engine] = {}


def _ray_chunk(payload: GamePayload, chunk: list[PlannedGame], record: bool, cards: bool) -> Chunk:
    """A Ray task: play a chunk with the game compiled once per worker process."""
    master = _RAY_MASTERS.get(payload.key)
    if master is None:
        _RAY_MASTERS.clear()  # one game at a time: a worker serves one batch after another
        master = _RAY_MASTERS[payload.key] = payload.master()
    return play_chunk(master, chunk, record, cards)


class RayBackend:
    """Chunks of games as Ray tasks, on a Ray cluster or a local one."""

    def __init__(self, workers: int | None) -> None:
        self.workers = workers

    def play(
        self,
        master: Engine,
        todo: Iterable[PlannedGame],
        *,
        record: bool,
        games: int,
        cards: bool = False,
    ) -> Generator[Played, None, None]:
        if games <= 0:
            return
        ray = import_ray()
        if not ray.is_initialized():  # RAY_ADDRESS, if set, names the cluster to join
            ray.init(logging_level=logging.WARNING)
        workers = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        task = ray.remote(_ray_chunk)
        payload = ray.put(GamePayload.of(master))
        inflight: deque[Any] = deque()
        try:
            yield from _in_order(
                _chunks(todo, chunk_size(games, workers)),
                lambda chunk: task.remote(payload, chunk, record, cards),
                ray.get,
                WINDOW_PER_WORKER * workers,
                inflight,
            )
        finally:
            for ref in inflight:
                ray.cancel(ref, force=True)
