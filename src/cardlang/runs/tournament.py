"""Tournaments: every pairing of agents, played in sandboxes, rated with intervals.

Pipeline position: runs, above the runner, the records and the sandbox.  A tournament
of agents A, B, C ... on a P-player game plays every P-subset of the agents (every
pairing, for two players), ``games`` games each, seats rotated from game to game.

Seeds: a tournament has a secret (128 random bits, kept in the records with its batch,
or given as ``--secret``).  Game i's seed is HMAC-SHA256(secret, root seed, i) and the
agent of seat s gets HMAC-SHA256(secret, game seed, s) (``tournament_game_seed``,
``tournament_agent_seed``): no agent can invert its seed to the game's, nor deal the
game again by trying root seeds, and the same root seed and secret give the same games.

The games are planned, resumed and written with the records of ``cardlang simulate``
(``RunStore.plan``/``pending``/``save``; a tournament without ``--db`` keeps them in an
in-memory database): a killed tournament run again with the same command plays only the
games still missing. Its batch is told apart from any ``simulate`` batch by a first
entry of its agents, ``tournament_mark`` (which also holds the sandbox's limits, since
they decide forfeits).

Every agent plays through ``sandbox.RemoteAgent``, in a worker process of its own under
the sandbox's limits (an agent from a file in a jail: jail.py); what it prints is kept
in its log (``DB.logs/``), never in the tournament's output. An agent that crashes, runs
out of time or memory or insists on illegal moves forfeits: the game ends with end
reason ``forfeit``, every other seat shares the win, and the records keep the reason
(``error_kind`` ``forfeit:REASON:SEAT``, ``error`` the detail). A game that fails by a
rule error or is cut off by a limit has no result and counts for no one.

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

import hashlib
import hmac
import itertools
import math
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardlang.agents.base import AgentError
from cardlang.engine.game import Game
from cardlang.engine.gamemaster import GameResult, Limits
from cardlang.engine.protocol import Engine
from cardlang.errors import I64_MAX, RuleError, UsageError
from cardlang.runs.jail import JailUnavailable, find_jail
from cardlang.runs.rows import AGENTS, RowCheck
from cardlang.runs.runner import Decision, play_game
from cardlang.runs.sandbox import (
    FORFEIT_REASONS,
    AgentForfeit,
    AgentLog,
    AgentWorker,
    RemoteAgent,
    SandboxLimits,
    agent_words,
    forfeit_summary,
    is_sandboxed,
    plugin_parts,
)
from cardlang.runs.simulate import batch_spec
from cardlang.runs.statistics import mean_interval
from cardlang.runs.store import END_REASONS, PlannedGame, RunStore, StoredGame, now

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
        super().__init__(forfeit.text())
        self.reason = forfeit.reason
        self.seat = forfeit.seat
        self.spec = spec

    def kind(self) -> str:
        return f"{FORFEIT}:{self.reason}:{self.seat}"

    def render(self, *, with_seed: bool = True) -> str:  # a forfeit names no seed
        return f"P{self.seat} ({self.spec}) forfeits ({self.reason}): {self.message}"


def tournament_mark(sandbox: SandboxLimits) -> str:
    """The first entry of a tournament batch's agents in the records: it tells the
    batch from a ``simulate`` batch and holds the limits that decide forfeits."""
    memory = "none" if sandbox.memory_limit is None else str(sandbox.memory_limit)
    return (
        f"[tournament time-limit={sandbox.time_limit:g} memory-limit={memory} "
        f"illegal-retries={sandbox.illegal_retries}]"
    )


def new_secret() -> str:
    """A fresh tournament secret: 128 random bits, as hex."""
    return secrets.token_hex(16)


def _keyed(secret: str, label: bytes, *numbers: int) -> int:
    """A 63-bit number derived from ``numbers`` under the secret (HMAC-SHA256): without
    the secret, neither predictable nor invertible."""
    message = label + b"".join(n.to_bytes(16, "little", signed=True) for n in numbers)
    digest = hmac.new(bytes.fromhex(secret), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def tournament_game_seed(secret: str, root_seed: int, index: int) -> int:
    """The seed of a tournament's game ``index``, from the root seed and the secret: an
    agent that guesses the root seed (small seeds, the default 0) still cannot deal the
    game again."""
    return _keyed(secret, b"game", root_seed, index)


def tournament_agent_seed(secret: str, game_seed: int, seat: int) -> int:
    """The seed given to the agent of ``seat`` in a game: derived under the secret, so it
    tells nothing of the game's seed or of another seat's seed."""
    return _keyed(secret, b"agent", game_seed, seat)


def check_secret(text: str) -> str:
    """A secret given by the user: hex digits, at least 128 bits."""
    cleaned = text.strip().lower()
    try:
        raw = bytes.fromhex(cleaned)
    except ValueError:
        raise UsageError(f"--secret must be hexadecimal, got {text!r}") from None
    if len(raw) < 16:
        raise UsageError(
            f"--secret must have at least 32 hex digits (128 bits), got {len(cleaned)}"
        )
    return cleaned


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
class RatedGame:
    """A finished game as the ratings read it."""

    idx: int
    agents: tuple[str, ...]
    end_reason: str
    ranks: tuple[int | None, ...]
    forfeit: tuple[int, str] | None  # (seat, reason)
    error: str | None = None  # the forfeit's (or rule error's) text, as recorded
    scores: tuple[int | None, ...] = ()  # per seat, as the game scored it (None: none)

    @property
    def has_result(self) -> bool:
        return self.end_reason in ("completed", FORFEIT)


def _stored_games(store: RunStore, batch_id: int) -> list[RatedGame]:
    """The batch's finished games as the ratings read them, every value checked: the
    records are the user's file, and a resumed tournament rates what they say."""
    rows = store.conn.execute(
        "SELECT g.id, g.idx, g.agents, g.end_reason, g.error_kind, g.error, r.rank, r.score "
        "FROM games g JOIN results r ON r.game_id = g.id "
        "WHERE g.batch_id = ? AND g.status = 'done' ORDER BY g.idx, r.seat",
        (batch_id,),
    )
    return [
        _rated_game(store, list(seats)) for _, seats in itertools.groupby(rows, key=lambda r: r[0])
    ]


def _rated_game(store: RunStore, seats: list[Any]) -> RatedGame:
    """One game's rows (one per seat, joined with its results) as a ``RatedGame``."""
    game = RowCheck(store.path, "games", seats[0][0])
    results = RowCheck(store.path, "results", f"of game {seats[0][0]}")
    _, idx, agents, end_reason, kind, error, _, _ = seats[0]
    end_reason = game.text("end_reason", end_reason, END_REASONS)
    forfeit = None
    if end_reason == FORFEIT:
        forfeit = _forfeit_of(game, game.optional_text("error_kind", kind), len(seats))
    return RatedGame(
        game.integer("idx", idx),
        tuple(game.json("agents", agents, AGENTS)),
        end_reason,
        tuple(results.optional_integer("rank", r[6], 1, len(seats)) for r in seats),
        forfeit,
        game.optional_text("error", error),
        tuple(results.optional_integer("score", r[7], -I64_MAX - 1) for r in seats),
    )


def _forfeit_of(game: RowCheck, kind: str | None, seats: int) -> tuple[int, str]:
    """(seat, reason) from a forfeit's ``error_kind``, ``forfeit:REASON:SEAT``."""
    parts = (kind or "").split(":")
    expected = f"forfeit:REASON:SEAT with a reason of {', '.join(FORFEIT_REASONS)}"
    if len(parts) != 3 or parts[0] != FORFEIT or parts[1] not in FORFEIT_REASONS:
        raise game.fail("error_kind", kind, expected)
    if not parts[2].isdigit() or not parts[2].isascii() or int(parts[2]) >= seats:
        raise game.fail("error_kind", kind, f"{expected} and a seat below {seats}")
    return int(parts[2]), parts[1]


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
    records: list[RatedGame] = field(default_factory=list)
    db: str | None = None
    batch_id: int | None = None
    from_db: int = 0
    interrupted: bool = False
    secret: str = ""
    logs: dict[str, str] = field(default_factory=dict)  # agent -> its log, if it wrote one
    score_sign: int = 1  # -1 where the game's scoring is min: a payoff is then -score

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

    def payoffs(self) -> dict[str, dict[str, float]]:
        """Each agent's mean payoff per game (its seat's score, negated where less is
        better: chips in poker, -points in Hearts) over the completed games, with a 95%
        interval; best first.  A forfeit's scores are none: its games do not count."""
        sums = {a: [0.0, 0.0, 0.0] for a in self.agents}  # n, total, squares
        for g in self.records:
            if g.end_reason != "completed":
                continue
            for agent, score in zip(g.agents, g.scores, strict=False):
                if score is not None:
                    payoff = self.score_sign * float(score)
                    row = sums[agent]
                    row[0], row[1], row[2] = row[0] + 1, row[1] + payoff, row[2] + payoff * payoff
        out = {a: mean_interval(*sums[a]) for a in self.agents}
        return dict(sorted(out.items(), key=lambda kv: -kv[1]["mean"]))

    def forfeits(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {a: {} for a in self.agents}
        for g in self.records:
            if g.forfeit is not None:
                seat, reason = g.forfeit
                table = out[g.agents[seat]]
                table[reason] = table.get(reason, 0) + 1
        return {a: dict(sorted(t.items())) for a, t in out.items()}

    def forfeit_details(self) -> dict[str, dict[str, str]]:
        """Per agent and reason, the whole recorded text of its first forfeit of that
        kind (a crash's traceback among the agent's words, for --debug), safe to print
        (``agent_words``: whatever the records hold)."""
        out: dict[str, dict[str, str]] = {a: {} for a in self.agents}
        for g in self.records:
            if g.forfeit is not None:
                seat, reason = g.forfeit
                out[g.agents[seat]].setdefault(reason, agent_words(g.error or "", 20000))
        return out

    def forfeit_messages(self) -> dict[str, dict[str, str]]:
        """Per agent and reason, one line of its first forfeit of that kind: what the
        tournament saw, and the last line of the agent's words quoted (``its agent
        failed, saying "AttributeError: ..."``)."""
        return {
            a: {reason: forfeit_message(text) for reason, text in sorted(kinds.items())}
            for a, kinds in self.forfeit_details().items()
        }

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
            "payoffs": self.payoffs(),
            "rating_method": (
                f"Bradley-Terry on pairwise results (a draw counts half), Gaussian prior sd "
                f"{PRIOR_SD:g} on log-strength; Elo scale centred on 0; 95% interval from the "
                "inverse Hessian"
            ),
            "forfeits": self.forfeits(),
            "forfeit_messages": self.forfeit_messages(),
            "cross_table": self.cross_table(),
            "secret": self.secret,
            "agent_logs": dict(self.logs),
        }
        if self.interrupted:
            data["interrupted"] = True
        return data


def forfeit_message(text: str) -> str:
    """One line from a forfeit's recorded text (``P1 (spec) forfeits (crash): ...``):
    ``sandbox.forfeit_summary``."""
    return forfeit_summary(text)


# ---------------------------------------------------------------- playing


class _Table:
    """One player of games at a time (one thread): a worker per agent, kept from game to
    game and started again after a failure."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.workers: dict[str, AgentWorker] = {}

    def worker(self, spec: str) -> AgentWorker:
        found = self.workers.get(spec)
        if found is None:
            plan = self.plan
            found = AgentWorker(spec, plan.payload, plan.sandbox, plan.logs.get(spec))
            self.workers[spec] = found
        return found

    def play(
        self, master: Engine, planned: PlannedGame
    ) -> tuple[GameResult, list[Decision], str, str]:
        moves: list[int] = []
        agents = [
            RemoteAgent(self.worker(spec), seat, moves, master.game)
            for seat, spec in enumerate(planned.agents)
        ]
        trace: list[Decision] = []
        started = now()
        try:
            for seat, agent in enumerate(agents):
                agent_seed = tournament_agent_seed(self.plan.secret, planned.seed, seat)
                agent.begin(agent_seed, self.plan.rules)
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


class RecordedForfeit(RuleError):
    """A forfeit read back from the records: it renders as it was recorded."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self._kind = kind

    def kind(self) -> str:
        return self._kind

    def render(self, *, with_seed: bool = True) -> str:  # as recorded: no seed in it
        return agent_words(self.message, 20000)  # the records may hold anything


def recorded_forfeit(stored: StoredGame, nplayers: int, decisions: int, turns: int) -> GameResult:
    """The result of a recorded game that an agent forfeited (``transcript --db``): who
    forfeited, why, and the others sharing the win, at the decision where it stopped."""
    _, reason, seat_text = (stored.error_kind or "forfeit:crash:-1").split(":")
    seat = int(seat_text)
    error = RecordedForfeit(
        stored.error_kind or FORFEIT, stored.error or f"P{seat} forfeits ({reason})"
    )
    return _forfeit_outcome(stored.seed, nplayers, seat, decisions, turns, error)


def _forfeit_result(planned: PlannedGame, forfeit: AgentForfeit) -> GameResult:
    error = ForfeitError(forfeit, planned.agents[forfeit.seat])
    n = len(planned.agents)
    return _forfeit_outcome(planned.seed, n, forfeit.seat, forfeit.decisions, forfeit.turns, error)


def _forfeit_outcome(
    seed: int, nplayers: int, seat: int, decisions: int, turns: int, error: RuleError
) -> GameResult:
    """A forfeited game's result: the forfeiting seat last, every other seat sharing the win."""
    others = tuple(s for s in range(nplayers) if s != seat)
    return GameResult(
        seed=seed,
        end_reason=FORFEIT,
        scores=(0,) * nplayers,
        ranks=tuple(nplayers if s == seat else 1 for s in range(nplayers)),
        credits=tuple(0.0 if s == seat else 1 / len(others) for s in range(nplayers)),
        winners=others,
        decisions=decisions,
        turns=turns,
        error=error,
    )


def check_agents(
    agents: Sequence[str],
    players: int,
    payload: Any,
    sandbox: SandboxLimits,
    logs: Mapping[str, AgentLog] | None = None,
) -> None:
    """Usage errors before any game: too few agents, the same agent twice, a bad spec, an
    agent from a file where no jail can be made (unless the limits say no jail).  A
    built-in is made here; a plugin's worker is started and its class loaded, exactly as
    for a game (its code never runs in this process, and nothing tells this start from a
    game's: no agent is made)."""
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
    plugins = [spec for spec in agents if is_sandboxed(spec)]
    if plugins and sandbox.jail:
        try:
            find_jail()
        except JailUnavailable as unavailable:
            raise UsageError(
                f"cannot jail the agents from files ({', '.join(plugins)}): {unavailable}. "
                "--no-jail runs them as plain processes of your user, which can read "
                "whatever you can"
            ) from None
    for spec in agents:
        if not is_sandboxed(spec):
            make_agent(spec, 0)
            continue
        probe = AgentWorker(spec, payload, sandbox, (logs or {}).get(spec))
        try:
            probe.ensure()
        except AgentForfeit as failed:
            why = failed.summary()
            raise UsageError(f"cannot create agent {spec}: {why}") from None
        finally:
            probe.stop()


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
    secret: str | None = None,
    log_dir: Path | None = None,
) -> TournamentResult:
    """Play (or finish) a tournament and rate its agents; see the module docstring.

    ``store``: the records (the same call resumes the tournament there); None keeps
    them in memory.  ``workers``: games played at once (each with its own agents'
    workers).  ``secret``: the key of the games' and agents' seeds (hex; None: the
    recorded one when resuming, else a fresh one); with the same seed and secret, the
    same games.  ``log_dir``: where each agent's output is kept (a file per agent; None:
    next to the records, ``DB.logs``, or nowhere for records in memory).  Ctrl-C stops
    the agents' workers; the result of the games finished is returned with
    ``interrupted`` set."""
    from cardlang.runs.backends import GamePayload

    sandbox = sandbox or SandboxLimits()
    master = game.master(limits)
    payload = GamePayload.of(master)
    agents = list(agents)
    players = game.nplayers
    plan = seatings(agents, players, games)
    own = store is None
    if store is None:
        store = RunStore.open(Path(":memory:"))
    if log_dir is None and not own and str(store.path) != ":memory:":
        log_dir = Path(str(store.path) + ".logs")
    logs = {
        spec: AgentLog(None if log_dir is None else log_dir / _log_name(spec)) for spec in agents
    }
    try:
        check_agents(agents, players, payload, sandbox, logs)
        # a tournament's batch: its agents after a mark that holds the sandbox's limits
        marked = (tournament_mark(sandbox), *agents)
        spec = batch_spec(game, len(plan), seed, marked, True, params, master.limits)
        given = None if secret is None else check_secret(secret)
        fresh = given or new_secret()

        def planner() -> Iterator[tuple[int, tuple[str, ...]]]:
            for index, seats in enumerate(plan):
                yield tournament_game_seed(fresh, seed, index), seats

        batch_id, _ = store.plan(spec, planner, secret=fresh)
        kept = store.batch_secret(batch_id)
        if kept is None:
            raise UsageError(
                f"batch {batch_id} of {store.path} was recorded without a tournament secret "
                "(by an older cardlang): record this tournament in another file"
            )
        if given is not None and given != kept:
            raise UsageError(
                f"this tournament is recorded in {store.path} with another --secret: give "
                "its own, or none to resume it"
            )
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
            secret=kept,
            score_sign=-1 if game.scoring_mode == "min" else 1,
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
        shared = _Plan(master, payload, sandbox, rules, logs, kept)
        try:
            _play_all(shared, todo, store, max(1, workers), on_game)
        except KeyboardInterrupt:
            result.interrupted = True
        result.records = _stored_games(store, batch_id)
        result.logs = {
            spec: str(log.path) for spec, log in logs.items() if log.path and log.written
        }
        return result
    finally:
        for log in logs.values():
            log.close()
        if own:
            store.close()


def _log_name(spec: str) -> str:
    """A file name for an agent's log: its spec, made safe, and a short hash (two specs
    never share a log)."""
    head = spec
    if is_sandboxed(spec):  # a plugin: its file's name and its class, not its path
        path, rest = plugin_parts(spec)
        head = f"{Path(path).name}.{rest}"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in head)
    return f"{safe[:60]}-{hashlib.sha1(spec.encode()).hexdigest()[:8]}.log"


@dataclass(frozen=True)
class _Plan:
    """What every table of a tournament shares: the game, the limits, the rules sent to
    jailed agents, the agents' logs and the secret."""

    master: Engine
    payload: Any
    sandbox: SandboxLimits
    rules: Mapping[str, Any]
    logs: Mapping[str, AgentLog]
    secret: str

    def table(self) -> _Table:
        return _Table(self)


def _plain_kinds(game: Game) -> dict[str, Any]:
    from cardlang.runs.agent_view import plain

    return plain(dict(game.kind_attributes))  # type: ignore[no-any-return]


def _play_all(
    plan: _Plan,
    todo: list[PlannedGame],
    store: RunStore,
    workers: int,
    on_game: Callable[[GameResult], None] | None,
) -> None:
    """Play the games; only this thread writes the records."""
    master = plan.master
    if workers == 1 or len(todo) <= 1:
        table = plan.table()
        try:
            for planned in todo:
                result, trace, started, ended = table.play(master, planned)
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
            table = local.table = plan.table()
            with lock:
                tables.append(table)
        # each thread plays with its own Gamemaster (its own limits object, same game)
        own = getattr(local, "master", None)
        if own is None:
            own = local.master = master.game.master(master.limits, engine=_engine(master))
        return planned, table.play(own, planned)

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


def _engine(master: Engine) -> str:
    return master.traits.name


__all__ += ["FORFEIT_REASONS", "ForfeitError", "RatedGame", "SandboxLimits", "check_agents"]
