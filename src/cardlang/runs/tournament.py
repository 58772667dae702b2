"""Tournaments: every pairing of agents, played in sandboxes, rated with intervals.

Pipeline position: runs, above the runner, the records and the sandbox.  A tournament
of agents A, B, C ... on a P-player game plays every P-subset of the agents (every
pairing, for two players), ``games`` games each, seats rotated from game to game, each
game with its own seed from the root seed (``simulate.game_seeds``: the same seed gives
the same games).  The games are planned, resumed and written with the records of
``cardlang simulate`` (``RunStore.plan``/``pending``/``save``; a tournament without
``--db`` keeps them in an in-memory database): a killed tournament run again with the
same command plays only the games still missing.  Its batch is told apart from any
``simulate`` batch by a first entry of its agents, ``tournament_mark`` (which also holds
the sandbox's limits, since they decide forfeits).

Every agent plays through ``sandbox.RemoteAgent``, in a worker process of its own under
the sandbox's limits.  An agent that crashes, runs out of time or memory or insists on
illegal moves forfeits: the game ends with end reason ``forfeit``, every other seat
shares the win, and the records keep the reason (``error_kind``
``forfeit:REASON:SEAT``, ``error`` the detail).  A game that fails by a rule error or is
cut off by a limit has no result and counts for no one.

Ratings: Bradley-Terry on pairwise results (a P-player game gives each pair of seats a
result: the better rank scores 1, equal ranks 0.5 each), fitted by Newton's method with
a Gaussian prior on each agent's log-strength (mean 0, sd ``PRIOR_SD``): it keeps an
agent that won or lost everything finite and makes the fit unique.  Ratings are on the
Elo scale (400 log10 odds), centred on 0; the 95% interval is the rating plus or minus
1.96 standard deviations of the posterior's normal approximation (inverse Hessian at the
mode), for the rating relative to the mean.  A P-player game counts as P(P-1)/2 pairwise
results, so for P > 2 the intervals are somewhat narrow.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardlang.agents.base import AgentError
from cardlang.engine.game import Game
from cardlang.engine.gamemaster import Gamemaster, GameResult, Limits
from cardlang.errors import RuleError, UsageError
from cardlang.runs.planned import agent_seeds
from cardlang.runs.play import Decision, play_game
from cardlang.runs.sandbox import (
    FORFEIT_REASONS,
    AgentForfeit,
    AgentWorker,
    RemoteAgent,
    SandboxLimits,
    is_sandboxed,
)
from cardlang.runs.simulate import batch_spec
from cardlang.runs.store import PlannedGame, RunStore, now

__all__ = [
    "FORFEIT",
    "PRIOR_SD",
    "TournamentResult",
    "bradley_terry",
    "run_tournament",
    "seatings",
    "tournament_mark",
]

#: The end reason of a game an agent forfeited.
FORFEIT = "forfeit"
#: The prior's standard deviation of an agent's log-strength (natural log odds; about
#: 350 Elo points): a mild pull towards the mean.
PRIOR_SD = 2.0
ELO = 400 / math.log(10)
Z95 = 1.959963984540054


class ForfeitError(RuleError):
    """How a forfeit reaches the records (``GameResult.error``): its kind names the
    reason and the seat, its text the detail."""

    def __init__(self, forfeit: AgentForfeit, spec: str) -> None:
        super().__init__(forfeit.detail)
        self.reason = forfeit.reason
        self.seat = forfeit.seat
        self.spec = spec

    def kind(self) -> str:
        return f"{FORFEIT}:{self.reason}:{self.seat}"

    def render(self) -> str:
        return f"P{self.seat} ({self.spec}) forfeits ({self.reason}): {self.message}"


def tournament_mark(sandbox: SandboxLimits) -> str:
    """The first entry of a tournament batch's agents in the records: it tells the
    batch from a ``simulate`` batch and holds the limits that decide forfeits."""
    memory = "none" if sandbox.memory_limit is None else str(sandbox.memory_limit)
    return (
        f"[tournament time-limit={sandbox.time_limit:g} memory-limit={memory} "
        f"illegal-retries={sandbox.illegal_retries}]"
    )


def seatings(agents: Sequence[str], players: int, games: int) -> list[tuple[str, ...]]:
    """Every game's seats: each ``players``-subset of the agents in order, ``games``
    games each, game j of a subset rotated by j places."""
    out = []
    for group in itertools.combinations(agents, players):
        for j in range(games):
            shift = j % players
            out.append(tuple(group[shift:]) + tuple(group[:shift]))
    return out


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class GameRecord:
    """A finished game as the ratings read it."""

    idx: int
    agents: tuple[str, ...]
    end_reason: str
    ranks: tuple[int | None, ...]
    forfeit: tuple[int, str] | None  # (seat, reason)

    @property
    def has_result(self) -> bool:
        return self.end_reason in ("completed", FORFEIT)


def _stored_games(store: RunStore, batch_id: int) -> list[GameRecord]:
    rows = store.conn.execute(
        "SELECT g.id, g.idx, g.agents, g.end_reason, g.error_kind, r.rank "
        "FROM games g JOIN results r ON r.game_id = g.id "
        "WHERE g.batch_id = ? AND g.status = 'done' ORDER BY g.idx, r.seat",
        (batch_id,),
    )
    out = []
    for _, group in itertools.groupby(rows, key=lambda r: r[0]):
        seats = list(group)
        _, idx, agents, end_reason, kind, _ = seats[0]
        forfeit = None
        if end_reason == FORFEIT and kind and kind.startswith(FORFEIT + ":"):
            _, reason, seat = kind.split(":")
            forfeit = (int(seat), reason)
        out.append(
            GameRecord(
                idx, tuple(json.loads(agents)), end_reason, tuple(r[5] for r in seats), forfeit
            )
        )
    return out


def bradley_terry(
    players: int, wins: np.ndarray, games: np.ndarray, prior_sd: float = PRIOR_SD
) -> tuple[np.ndarray, np.ndarray]:
    """Log-strengths (centred) and their standard deviations.  ``wins[i, j]``: points
    i scored against j (a draw is half a point each); ``games[i, j]``: their games.
    Maximises the Bradley-Terry likelihood times a N(0, prior_sd) prior per player
    (Newton's method); the deviations come from the inverse Hessian at the mode, for
    each strength minus the mean strength."""
    theta = np.zeros(players)
    precision = 1.0 / prior_sd**2
    hessian = -np.eye(players) * precision
    for _ in range(100):
        diff = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        grad = (wins - games * p).sum(axis=1) - precision * theta
        w = games * p * (1 - p)
        hessian = w.copy()
        np.fill_diagonal(hessian, -w.sum(axis=1) + np.diag(w) - precision)
        step = np.linalg.solve(hessian, grad)
        theta = theta - step
        if np.max(np.abs(step)) < 1e-10:
            break
    cov = np.linalg.inv(-hessian)
    centre = np.eye(players) - 1.0 / players
    centred = centre @ cov @ centre.T
    return theta - theta.mean(), np.sqrt(np.clip(np.diag(centred), 0.0, None))


@dataclass
class TournamentResult:
    """What a tournament found: the games, their pairwise results, the ratings."""

    game: str
    agents: list[str]
    players: int
    games_per_pairing: int
    seed: int
    sandbox: SandboxLimits
    planned: int
    records: list[GameRecord] = field(default_factory=list)
    db: str | None = None
    batch_id: int | None = None
    from_db: int = 0
    interrupted: bool = False

    def counts(self) -> dict[str, int]:
        reasons = [g.end_reason for g in self.records]
        return {
            "planned": self.planned,
            "played": len(self.records),
            "completed": reasons.count("completed"),
            "forfeits": reasons.count(FORFEIT),
            "failed": reasons.count("failed"),
            "cutoff": sum(r.startswith("cutoff") for r in reasons),
        }

    def pairwise(self) -> tuple[np.ndarray, np.ndarray]:
        """Points and games of each agent against each other (rows against columns)."""
        index = {a: i for i, a in enumerate(self.agents)}
        n = len(self.agents)
        points, games = np.zeros((n, n)), np.zeros((n, n))
        for g in self.records:
            if not g.has_result:
                continue
            for s, t in itertools.combinations(range(len(g.agents)), 2):
                a, b = index[g.agents[s]], index[g.agents[t]]
                rs, rt = g.ranks[s] or 0, g.ranks[t] or 0
                score = 1.0 if rs < rt else 0.5 if rs == rt else 0.0
                points[a, b] += score
                points[b, a] += 1.0 - score
                games[a, b] += 1
                games[b, a] += 1
        return points, games

    def ratings(self) -> dict[str, dict[str, Any]]:
        points, games = self.pairwise()
        theta, sd = bradley_terry(len(self.agents), points, games)
        played = {a: 0 for a in self.agents}
        for g in self.records:
            if g.has_result:
                for a in g.agents:
                    played[a] += 1
        out: dict[str, dict[str, Any]] = {}
        for i, a in enumerate(self.agents):
            total = games[i].sum()
            out[a] = {
                "rating": round(float(ELO * theta[i]), 1),
                "ci_low": round(float(ELO * (theta[i] - Z95 * sd[i])), 1),
                "ci_high": round(float(ELO * (theta[i] + Z95 * sd[i])), 1),
                "games": played[a],
                "score": round(float(points[i].sum() / total), 4) if total else None,
            }
        return dict(sorted(out.items(), key=lambda kv: -float(kv[1]["rating"])))

    def forfeits(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {a: {} for a in self.agents}
        for g in self.records:
            if g.forfeit is not None:
                seat, reason = g.forfeit
                table = out[g.agents[seat]]
                table[reason] = table.get(reason, 0) + 1
        return {a: dict(sorted(t.items())) for a, t in out.items()}

    def cross_table(self) -> dict[str, dict[str, dict[str, float]]]:
        """Row agent's points and games against the column agent."""
        points, games = self.pairwise()
        out: dict[str, dict[str, dict[str, float]]] = {}
        for i, a in enumerate(self.agents):
            out[a] = {
                b: {"score": float(points[i, j]), "games": int(games[i, j])}
                for j, b in enumerate(self.agents)
                if i != j and games[i, j]
            }
        return out

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "agents": list(self.agents),
            "players": self.players,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "pairings": [list(g) for g in itertools.combinations(self.agents, self.players)],
            "limits": {
                "time_limit": self.sandbox.time_limit,
                "memory_limit_mb": self.sandbox.memory_limit,
                "illegal_retries": self.sandbox.illegal_retries,
            },
            "games": self.counts(),
            "ratings": self.ratings(),
            "rating_method": (
                f"Bradley-Terry on pairwise results (a draw counts half), Gaussian prior sd "
                f"{PRIOR_SD:g} on log-strength; Elo scale centred on 0; 95% interval from the "
                "inverse Hessian"
            ),
            "forfeits": self.forfeits(),
            "cross_table": self.cross_table(),
        }
        if self.interrupted:
            data["interrupted"] = True
        return data


# ---------------------------------------------------------------- playing


class _Table:
    """One player of games at a time (one thread): a worker per agent, kept from game to
    game and started again after a failure."""

    def __init__(self, payload: Any, sandbox: SandboxLimits) -> None:
        self.payload = payload
        self.sandbox = sandbox
        self.workers: dict[str, AgentWorker] = {}

    def worker(self, spec: str) -> AgentWorker:
        found = self.workers.get(spec)
        if found is None:
            found = self.workers[spec] = AgentWorker(spec, self.payload, self.sandbox)
        return found

    def play(
        self, master: Gamemaster, planned: PlannedGame, rules: Mapping[str, Any]
    ) -> tuple[GameResult, list[Decision], str, str]:
        moves: list[int] = []
        agents = [
            RemoteAgent(self.worker(spec), seat, moves, master.game)
            for seat, spec in enumerate(planned.agents)
        ]
        trace: list[Decision] = []
        started = now()
        try:
            seeds = agent_seeds(planned.seed, len(agents))
            for agent, seed in zip(agents, seeds, strict=True):
                agent.begin(seed, planned.seed, rules)
            result, _ = play_game(
                master, agents, planned.seed, record=True, trace=trace, names=planned.agents
            )
        except AgentForfeit as forfeit:
            result = _forfeit_result(planned, forfeit)
        except AgentError as err:  # the play loop reports what an agent raised as its error
            if not isinstance(err.__cause__, AgentForfeit):
                raise
            result = _forfeit_result(planned, err.__cause__)
        return result, trace, started, now()

    def close(self) -> None:
        for worker in self.workers.values():
            worker.stop()


def _forfeit_result(planned: PlannedGame, forfeit: AgentForfeit) -> GameResult:
    n = len(planned.agents)
    others = tuple(s for s in range(n) if s != forfeit.seat)
    return GameResult(
        seed=planned.seed,
        end_reason=FORFEIT,
        scores=(0,) * n,
        ranks=tuple(n if s == forfeit.seat else 1 for s in range(n)),
        credits=tuple(0.0 if s == forfeit.seat else 1 / len(others) for s in range(n)),
        winners=others,
        decisions=forfeit.decisions,
        turns=forfeit.turns,
        error=ForfeitError(forfeit, planned.agents[forfeit.seat]),
    )


def check_agents(agents: Sequence[str], players: int, payload: Any, sandbox: SandboxLimits) -> None:
    """Usage errors before any game: too few agents, the same agent twice, a bad spec.
    A built-in is made here; a plugin only in a worker (its code never runs in this
    process), once, to find a bad path, class or parameter."""
    from cardlang.agents import make_agent

    if players < 2:
        raise UsageError("a tournament needs a game of two players or more")
    if len(agents) < players:
        raise UsageError(
            f"--agents names {len(agents)} agents; a tournament of this {players}-player "
            f"game needs at least {players}"
        )
    twice = sorted({a for a in agents if agents.count(a) > 1})
    if twice:
        raise UsageError(f"--agents names {', '.join(twice)} more than once")
    for spec in agents:
        if not is_sandboxed(spec):
            make_agent(spec, 0)
            continue
        probe = AgentWorker(spec, payload, sandbox)
        try:
            probe.ensure()
            reply = probe.ask(("game", {"seed": 0, "seat": 0, "rules": {}}), sandbox.startup_limit)
        except AgentForfeit as failed:
            raise UsageError(f"cannot create agent {spec}: {failed.detail.strip()}") from None
        finally:
            probe.stop()
        if not reply.get("ok"):
            raise UsageError(f"cannot create agent {spec}")


def run_tournament(
    game: Game,
    *,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    sandbox: SandboxLimits | None = None,
    limits: Limits | None = None,
    store: RunStore | None = None,
    params: Mapping[str, str] | None = None,
    workers: int = 1,
    on_game: Callable[[GameResult], None] | None = None,
    on_resume: Callable[[int], None] | None = None,
) -> TournamentResult:
    """Play (or finish) a tournament and rate its agents; see the module docstring.

    ``store``: the records (the same call resumes the tournament there); None keeps
    them in memory.  ``workers``: games played at once (each with its own agents'
    workers).  Ctrl-C stops the agents' workers; the result of the games finished is
    returned with ``interrupted`` set."""
    from cardlang.runs.backends import GamePayload
    from cardlang.runs.simulate import game_seeds

    sandbox = sandbox or SandboxLimits()
    master = game.master(limits)
    payload = GamePayload.of(master)
    agents = list(agents)
    players = game.nplayers
    check_agents(agents, players, payload, sandbox)
    plan = seatings(agents, players, games)
    own = store is None
    if store is None:
        store = RunStore.open(Path(":memory:"))
    try:
        # a tournament's batch: its agents after a mark that holds the sandbox's limits
        marked = (tournament_mark(sandbox), *agents)
        spec = batch_spec(game, len(plan), seed, marked, True, params, master.limits)
        batch_id, _ = store.plan(spec, lambda: zip(game_seeds(seed, len(plan)), plan, strict=True))
        result = TournamentResult(
            game.source.name,
            agents,
            players,
            games,
            seed,
            sandbox,
            len(plan),
            db=None if own else str(store.path),
            batch_id=batch_id,
        )
        result.from_db = store.count(batch_id, "done")
        if on_resume is not None and result.from_db:
            on_resume(result.from_db)
        rules = {
            "name": game.source.name,
            "text": game.source.text,
            "kinds": _plain_kinds(game),
        }
        todo = list(store.pending(batch_id))
        try:
            _play_all(master, payload, sandbox, todo, rules, store, max(1, workers), on_game)
        except KeyboardInterrupt:
            result.interrupted = True
        result.records = _stored_games(store, batch_id)
        return result
    finally:
        if own:
            store.close()


def _plain_kinds(game: Game) -> dict[str, Any]:
    from cardlang.runs.sandbox import _plain

    return _plain(dict(game.kind_attributes))  # type: ignore[no-any-return]


def _play_all(
    master: Gamemaster,
    payload: Any,
    sandbox: SandboxLimits,
    todo: list[PlannedGame],
    rules: Mapping[str, Any],
    store: RunStore,
    workers: int,
    on_game: Callable[[GameResult], None] | None,
) -> None:
    """Play the games; only this thread writes the records."""
    if workers == 1 or len(todo) <= 1:
        table = _Table(payload, sandbox)
        try:
            for planned in todo:
                result, trace, started, ended = table.play(master, planned, rules)
                store.save(planned, result, trace, started, ended)
                if on_game is not None:
                    on_game(result)
        finally:
            table.close()
        return
    local = threading.local()
    tables: list[_Table] = []
    lock = threading.Lock()
    stopping = threading.Event()

    def play(planned: PlannedGame) -> tuple[PlannedGame, tuple[Any, ...]]:
        if stopping.is_set():
            raise KeyboardInterrupt
        table = getattr(local, "table", None)
        if table is None:
            table = local.table = _Table(payload, sandbox)
            with lock:
                tables.append(table)
        # each thread plays with its own Gamemaster (its own limits object, same game)
        own = getattr(local, "master", None)
        if own is None:
            own = local.master = master.game.master(master.limits, engine=_engine(master))
        return planned, table.play(own, planned, rules)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardlang-table")
    pending: set[Future[Any]] = set()
    queue: Iterator[PlannedGame] = iter(todo)
    try:
        for planned in itertools.islice(queue, 2 * workers):
            pending.add(pool.submit(play, planned))
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                planned, (result, trace, started, ended) = future.result()
                store.save(planned, result, trace, started, ended)
                if on_game is not None:
                    on_game(result)
                following = next(queue, None)
                if following is not None:
                    pending.add(pool.submit(play, following))
    finally:
        stopping.set()
        for future in pending:
            future.cancel()
        with lock:
            for table in tables:
                for worker in table.workers.values():
                    worker.kill()  # a game waiting on an agent ends at once
        pool.shutdown(wait=True)
        for table in tables:
            table.close()


def _engine(master: Gamemaster) -> str:
    from cardlang.engine.native import NativeMaster

    return "native" if isinstance(master, NativeMaster) else "python"


__all__ += ["FORFEIT_REASONS", "ForfeitError", "GameRecord", "SandboxLimits", "check_agents"]
