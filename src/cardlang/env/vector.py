"""``VectorEnv``: n games of one ruleset stepped in lockstep, into preallocated arrays.

Pipeline position: cardlang.env, above runs (``agent_seeds``), agents (the opponents),
information (the encoder's layout and the vocabulary) and the engines.  Nothing in
cardlang imports it.

One call of ``step(actions)`` plays one decision in each of ``n`` games and writes what
every learner needs into arrays made once, in the constructor, and returned again by
every call (**copy them if you keep them**: the next call overwrites them):

- ``obs``: float32 ``[n, width]``, each game's observation as ``Encoder.encode`` gives it
  (``information/encode.py``: the layout of the decision's situation, padded with zeros
  to ``Encoder.width``), for the seat that decides next;
- ``mask``: bool ``[n, n_actions]``: the vocabulary keys (``information/vocabulary.py``)
  of that decision's legal options, padded with False;
- ``seat``: int64 ``[n]``: the seat that decides next (``env.seat``, ``info["seat"]``);
  ``info["situation"]``: the situation id of each row (which layout and vocabulary);
- ``rewards``: float32, ``[n]`` with one learning seat, ``[n, nplayers]`` with all;
- ``terminated`` / ``truncated``: bool ``[n]``: the game ended (``completed``), or was
  cut off by ``max_decisions`` (or the step limit).

Actions are vocabulary indices of each row's situation: ``actions[i]`` must be a key the
row's mask holds, and plays the first legal option with that key (options that share a
key are the same move for the mover: see vocabulary.py), the single-game adapters'
convention (``env/core.py``: ``Vocabulary.first_options``).  ``random_actions(mask, rng)``
draws uniformly among the legal keys of every row.  ``HOLD`` (-1) leaves a row as it is:
its game does not move and its arrays keep what they held (a row kept idle, as PPO keeps
the spare rows its rollouts fork into).

Seats.  ``seats="all"``: every decision of every seat is returned, and the caller plays
them all (self-play).  ``seats=k``: the caller plays seat ``k`` alone; the other seats
are played inside ``step`` (and ``reset``) by ``opponents``, agent specs as
``cardlang simulate --agents`` takes them (one for every other seat, or one per other
seat in seat order), so every row is a decision of seat ``k``.  Opponents with a twin
inside the native engine (the random agent, the Dominion bots) play there: one call per
row and step whatever the number of their moves.

Rewards are zero until a game ends.  At the step that ends game ``i``, its row holds
each seat's outcome from the ``GameResult``: ``reward="outcome"`` (the default) the
single-game adapters' reward (``env.core.rewards_of``: ``(n * credit - 1) / (n - 1)``,
a lone winner +1, in two-player games a loss -1, summing to 0; 0 for every seat of a
game cut off), ``reward="score"`` its final score, negated in a game whose lowest score
wins (Hearts), so that more is always better.  With one learning seat the row is
that seat's alone; with all seats, ``rewards[i]`` holds every seat's at once, on the one
step that ends the game, whoever moved last: a self-play learner credits each seat's last
decision with its own column.

Auto-reset: Gymnasium's ``SAME_STEP`` mode.  A game that ends in ``step`` is replaced at
once by the next game of its row, and the row's ``obs``, ``mask``, ``seat`` are that
new game's first decision; ``rewards``, ``terminated``, ``truncated`` are the finished
game's.  ``info["final_obs"]`` (float32 ``[n, width]``, preallocated too) holds, in the
rows ``info["_final_obs"]`` marks, the finished game's last observation for the row's
seat (the learning seat; with all seats the seat that moved last): the situation-free
part of the layout (``Encoder.common_blocks``: current seat, storages, locations) of the
final position, zeros after it; there is no decision, so no mask.  ``info["results"]``
maps each row that finished a game in this step to its ``GameResult``; with ``cards=True``
its ``cards`` holds the game's counts per card type (engine/tally.py: every seat's picks
per situation with the turn of the first, and the cards it owned at the end), counted
inside the engine on either path (``runs.cards.seat_cards`` reads a seat's buys, plays,
first buy and copies owned from them).

Seeds.  Game ``j`` of a run seeded ``S`` has the seed of game ``j`` of
``cardlang simulate --seed S`` (``runs.simulate.game_seeds``: numpy's SeedSequence child
``j``), and row ``i`` plays games ``i, i + n, i + 2n, ...`` in turn: the first games of
``reset(seed=S)`` are the first ``n`` games of that batch.  Opponents are seeded from
their game's seed as a batch seeds them (``runs.planned.agent_seeds``).  The same seed
and the same actions give the same arrays, on either engine (the engines play a seed
alike: ``tests/test_vector_env.py`` holds them to it).

Observations read no event log: a hidden location's ``expected`` counts are the uniform
odds over every card the seat does not see, as ``Encoder`` gives them for an unrecorded
game, whoever the opponents are.  (Games are recorded only where an opponent reads what
it knows of hidden cards, a search agent: it needs the log; the observation stays the
same, so a policy sees the same inputs against any opponent.)

Inside the engine.  On the native engine, where every opponent has a twin inside the
engine and no game is recorded, ``step`` is one call of the engine's lockstep batch
(env/batch.py, native/src/batch.h): it applies every row's option, plays the opponents,
restarts ended games and writes every array, with no Python per row or move; the arrays
are the Python path's, value for value (tests/test_vector_batch.py).  ``batch=False``
steps in Python, the reference; ``batch=True`` asks for the engine and says why where it
cannot.  Where the time goes: ``docs/rl.md`` ("Vectorized
batches").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cardlang.agents import make_agent
from cardlang.agents.base import agent_label, capabilities_of, native_twin
from cardlang.agents.loop import agent_failure, ask, resolve_choice
from cardlang.agents.specs import specs_per_seat
from cardlang.engine.gamemaster import GameResult, Limits
from cardlang.engine.native import native_game_seeds
from cardlang.engine.protocol import AgentsInsideEngine, agents_inside
from cardlang.engine.state import COMPLETED, FAILED
from cardlang.env.batch import BatchUnavailable, NativeBatch, plan_for, token_plan
from cardlang.env.core import DEFAULT_MAX_DECISIONS, GameSource, load, rewards_of
from cardlang.errors import UsageError
from cardlang.information.encode import Encoder, board_reader
from cardlang.information.tokens import CONTINUOUS, MAX_NAMES, NameTable
from cardlang.information.visibility import can_see
from cardlang.information.vocabulary import StepKeys, Vocabulary
from cardlang.runs.planned import agent_seeds

__all__ = ["HOLD", "VectorEnv", "game_seed", "random_actions"]

REWARDS = ("outcome", "score")
#: The most decisions a native opponent stretch may take (the game's limits end it first).
_NO_LIMIT = 2**62
#: Games in a row that may end before the caller's first decision (a seat that never
#: decides would otherwise make ``reset`` loop for ever).
MAX_SKIPPED_GAMES = 100
#: The action that leaves a row as it is for a step (native/src/batch.h: VectorBatch::HOLD).
HOLD = -1
#: Token rows per game at first (env/batch.py grows them as views need).
_FIRST_TOKEN_ROWS = 128


def game_seed(root: int, index: int) -> int:
    """The seed of game ``index`` of a batch seeded ``root`` (``runs.simulate.game_seeds``,
    for one index without the ones before it)."""
    found = native_game_seeds(root, index, 1)
    if found is not None:
        return found[0]
    child = np.random.SeedSequence(root, spawn_key=(index,))
    return int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each row of ``mask``, a legal key drawn uniformly (one numpy pass for all rows;
    a row with no legal key gets 0)."""
    draws = rng.random(mask.shape)
    draws[~mask] = -1.0
    return draws.argmax(axis=1)


# ---------------------------------------------------------------- one row


class _Row:
    """One row of the batch: its game in progress and the opponents of that game."""

    __slots__ = ("st", "episode", "agents", "twins", "keys")

    def __init__(self) -> None:
        self.st: Any = None
        self.episode = 0  # games this row has started
        self.agents: list[Any] = []  # per seat: its opponent agent (None: a learner)
        self.twins: list[Any] | None = None  # per seat: its native twin, if any has one
        self.keys: dict[int, int] = {}  # vocabulary index -> the first option with that key


class VectorEnv:
    """n games of one ruleset in lockstep (see the module docstring)."""

    def __init__(
        self,
        game: GameSource,
        n: int,
        *,
        seats: str | int = "all",
        opponents: str | Sequence[str] = "random",
        params: Mapping[str, Any] | None = None,
        engine: str | None = None,
        seed: int = 0,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        reward: str = "outcome",
        batch: bool | None = None,
        tokens: NameTable | None = None,
        cards: bool = False,
    ) -> None:
        game = load(game, params)
        if n < 1:
            raise UsageError(f"a VectorEnv needs at least one game (n={n})")
        if reward not in REWARDS:
            raise UsageError(f"no reward named {reward!r} (choose from {', '.join(REWARDS)})")
        if not Vocabulary.of(game).situations:
            raise UsageError(f"{game.name} has no decision to take: there is nothing to step")
        self.game = game
        self.n = n
        self.nplayers = game.nplayers
        self.learner = self._learner(seats)
        self.opponents = self._opponent_specs(opponents)
        self.master = game.master(Limits(max_decisions=max_decisions), engine=engine)
        # where the opponents' twins play, when the engine plays agents inside (else None)
        self._inside: AgentsInsideEngine | None = (
            agents_inside(self.master, "") if self.master.traits.agents_inside else None
        )
        self.engine: str = self.master.traits.name
        self.reward = reward
        self.cards = cards  # each result with its card counts
        self._sign = -1.0 if game.scoring_mode == "min" else 1.0
        self.encoder = Encoder.of(game)
        self.vocabulary = Vocabulary.of(game)
        self.width, self.n_actions = self.encoder.width, self.encoder.n_actions
        self.writer = self.encoder.state_writer()  # the encoder writes every observation
        self._boards = board_reader(self.writer, self.master)
        # an opponent that reads what it knows of hidden cards needs the event log
        self._record = any(
            capabilities_of(make_agent(spec, 0)).knowledge for spec in set(self.opponents) if spec
        )
        self._keys = StepKeys(self.vocabulary, self.master, self.writer.type_names)
        self._allocate()
        self._rows = [_Row() for _ in range(n)]
        self._root = seed
        self._started = False  # reset() was called (the engine's batch keeps the rows)
        self._tokens = tokens
        if tokens is not None:
            if batch is False:
                raise UsageError("tokens are written by the engine's batch: not with batch=False")
            self._allocate_tokens(_FIRST_TOKEN_ROWS)
        self._batch = self._native_batch(True if tokens is not None else batch)

    def _native_batch(self, wanted: bool | None) -> NativeBatch | None:
        """The engine's lockstep batch of these games (env/batch.py), where it can step
        them: ``batch`` None where it can, True or a UsageError saying why not, False
        never (the Python path, the reference)."""
        if wanted is False:
            return None
        why = self._batch_refusal(wanted)
        plan: dict[str, Any] | None = None
        twins: list[Any] = []
        if why is None:
            twins = [
                None if spec is None else native_twin(make_agent(spec, 0), self.master)
                for spec in self.opponents
            ]
            lacking = [s for s, t in zip(self.opponents, twins, strict=True) if s and t is None]
            why = f"{lacking[0]} has no twin inside the engine" if lacking else None
        if why is None:
            try:
                plan = plan_for(self)
            except BatchUnavailable as err:
                why = str(err)
        if plan is not None and self._tokens is not None:
            plan["tokens"] = token_plan(self, self._tokens, self.token_names.shape[1])
        if why is not None or plan is None:
            if wanted:
                raise UsageError(f"this VectorEnv cannot step inside the engine: {why}")
            return None
        return NativeBatch(self, plan, twins)

    def _batch_refusal(self, wanted: bool | None) -> str | None:
        if not self.master.traits.batch_stepping:
            return f"it plays on the {self.engine} engine, which steps no batches"
        if self._record:
            return "an opponent reads the event log (the engine's batch keeps none)"
        return None

    # ------------------------------------------------------------ construction
    def _learner(self, seats: str | int) -> int | None:
        if seats == "all":
            return None
        if isinstance(seats, int) and not isinstance(seats, bool) and 0 <= seats < self.nplayers:
            return seats
        raise UsageError(f"seats must be 'all' or a seat 0..{self.nplayers - 1}, not {seats!r}")

    def _opponent_specs(self, opponents: str | Sequence[str]) -> list[str | None]:
        """Per seat, the spec of the agent that plays it (None: the caller plays it)."""
        learner = self.learner
        if learner is None:
            return [None] * self.nplayers
        others = [s for s in range(self.nplayers) if s != learner]
        specs = specs_per_seat(
            opponents,
            len(others),
            "opponents: one spec for every other seat, or {count} in seat order (got {found})",
        )
        out: list[str | None] = [None] * self.nplayers
        for seat, spec in zip(others, specs, strict=True):
            out[seat] = spec
        return out

    def _allocate(self) -> None:
        n, players = self.n, self.nplayers
        self.situation, self.obs, self.mask = self.encoder.buffers(n)
        self.seat = np.zeros(n, dtype=np.int64)
        shape = (n,) if self.learner is not None else (n, players)
        self.rewards = np.zeros(shape, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.final_obs = np.zeros((n, self.width), dtype=np.float32)
        self.has_final = np.zeros(n, dtype=np.bool_)

    def _allocate_tokens(self, rows: int) -> None:
        """The token arrays (``tokens.py``'s tokens of each row's view, ``rows`` token
        rows per game; grown by the batch when a view needs more)."""
        n, a = self.n, self.n_actions
        self.token_names = np.zeros((n, rows, MAX_NAMES), dtype=np.int32)
        self.token_kinds = np.zeros((n, rows), dtype=np.int8)
        self.token_buckets = np.zeros((n, rows), dtype=np.int8)
        self.token_continuous = np.zeros((n, rows, CONTINUOUS), dtype=np.float32)
        self.token_count = np.zeros(n, dtype=np.int32)
        self.action_names = np.zeros((n, a, MAX_NAMES), dtype=np.int32)
        self.action_key = np.full((n, a), -1, dtype=np.int64)
        self.action_count = np.zeros(n, dtype=np.int32)

    # ------------------------------------------------------------ the API
    def reset(
        self, seed: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Start a game in every row (from ``seed``'s batch, else the constructor's
        seed's, from its first game again): ``(obs, mask, seat, info)``."""
        if seed is not None:
            self._root = seed
        if self._batch is not None:
            self._batch.reset(self._root)
            self._started = True
            return self.obs, self.mask, self.seat, {"seat": self.seat, "situation": self.situation}
        for i, row in enumerate(self._rows):
            row.episode = 0
            self._start(i, row)
        return self.obs, self.mask, self.seat, {"seat": self.seat, "situation": self.situation}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play ``actions[i]`` (a vocabulary index of row ``i``'s mask) in every row:
        ``(obs, mask, rewards, terminated, truncated, info)``, the arrays the same every
        call (see the module docstring for what each holds and for auto-reset)."""
        self._check_started("step")
        chosen = np.asarray(actions)
        if chosen.shape != (self.n,):
            raise UsageError(
                f"step takes one action per game: shape ({self.n},), not {chosen.shape}"
            )
        if self._batch is not None:  # it checks every action before it writes anything
            return self._stepped(self._batch.step(self._action_indices(chosen)))
        self.rewards[...] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.has_final[:] = False
        results: dict[int, GameResult] = {}
        apply = self.master.apply
        for i, (row, action) in enumerate(zip(self._rows, chosen.tolist(), strict=True)):
            if action == HOLD:
                continue
            st = row.st
            option = row.keys.get(action)
            if option is None:
                raise UsageError(self._illegal(i, action))
            apply(st, option)
            if self.learner is not None:
                self._play_opponents(row)
            if st.is_over:
                results[i] = self._finish(i, row)
                self._start(i, row)
            else:
                self._observe(i, row)
        return self._stepped(results)

    def _stepped(
        self, results: dict[int, GameResult]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        info = {
            "seat": self.seat,
            "situation": self.situation,
            "final_obs": self.final_obs,
            "_final_obs": self.has_final,
            "results": results,
        }
        return self.obs, self.mask, self.rewards, self.terminated, self.truncated, info

    def _action_indices(self, chosen: np.ndarray) -> np.ndarray:
        """The actions as the engine takes them (int64); one that is no whole number is
        refused as the Python path refuses it."""
        indices = np.ascontiguousarray(chosen, dtype=np.int64)
        if chosen.dtype.kind not in "iu":
            for i in np.flatnonzero(indices != chosen):
                raise UsageError(self._illegal(int(i), chosen[i]))
        return indices

    def close(self) -> None:
        """Drop the games in progress."""
        for row in self._rows:
            row.st, row.agents, row.twins = None, [], None
        self._batch, self._started = None, False

    def _check_started(self, call: str) -> None:
        if self._rows[0].st is None and not self._started:
            raise UsageError(f"call reset() before {call}()")

    def fork(self, src: int, dst: int) -> None:
        """Row ``dst``'s game becomes a copy of row ``src``'s as it stands (its state, its
        random streams, its in-engine opponents), ``dst``'s arrays written: from there the
        two play on apart, the cards still to come the same in both.  A rollout from a
        position: every move of a decision tried on the same deal (PPO's ``rollouts``).
        ``dst``'s own game is dropped, uncounted."""
        for i in (src, dst):
            if not 0 <= i < self.n:
                raise UsageError(f"fork: no row {i} (rows 0-{self.n - 1})")
        self._check_started("fork")
        if self._batch is not None:
            self._batch.fork(src, dst)
            return
        if src == dst:
            return
        if self.learner is not None:  # a Python agent's inner state cannot be copied safely
            raise UsageError("fork: rows with opponents fork only inside the native engine")
        row = self._rows[dst]
        row.st = self._rows[src].st.clone()
        self._observe(dst, row)

    @property
    def in_engine(self) -> bool:
        """Whether the games are stepped inside the native engine (env/batch.py)."""
        return self._batch is not None

    def states(self) -> list[Any]:
        """Each row's game in progress (the engine's state: read it, never apply to it;
        stepped inside the engine, a copy)."""
        if self._batch is not None:
            return self._batch.states()
        return [row.st for row in self._rows]

    def state(self, i: int) -> Any:
        """Row ``i``'s game in progress, as ``states`` gives it (without copying the
        other rows' games out of the engine)."""
        if self._batch is not None:
            return self._batch.state(i)
        return self._rows[i].st

    def open_card_kinds(self, i: int) -> set[str]:
        """The kinds of the cards lying in places every seat sees in row ``i``'s game:
        at a Dominion game's start its supply and its chosen randomizers, the kingdom
        it deals (the randomizers it leaves are hidden)."""
        board = self._boards.read(self.state(i))
        names = self.writer.type_names
        return {
            names[board.types[card]]
            for key, ids in board.zones.items()
            if can_see(-1, key)  # a viewer of no seat: what every seat sees
            for card in ids
            if board.types[card] < len(names)
        }

    # ------------------------------------------------------------ the rows
    def _start(self, i: int, row: _Row) -> None:
        """Row ``i``'s next game, played on to its first decision for the caller."""
        for _ in range(MAX_SKIPPED_GAMES):
            seed = game_seed(self._root, row.episode * self.n + i)
            row.episode += 1
            if self.learner is None:
                row.st = self.master.new_game(seed, tally=self.cards)
            else:
                row.st = self.master.new_game(seed, record=self._record, tally=self.cards)
                self._seat_opponents(row, seed)
                self._play_opponents(row)
            if not row.st.is_over:
                self._observe(i, row)
                return
            self._check(row.st)  # over before the learner's first move: the next game
        raise self._no_decision()

    def _no_decision(self) -> UsageError:
        return UsageError(
            f"{MAX_SKIPPED_GAMES} games of {self.game.name} in a row ended before seat "
            f"{self.learner} had a decision to take"
        )

    def _seat_opponents(self, row: _Row, seed: int) -> None:
        """Fresh opponents for a game, seeded as a batch seeds them."""
        seeds = agent_seeds(seed, self.nplayers)
        row.agents = [
            None if spec is None else make_agent(spec, s)
            for spec, s in zip(self.opponents, seeds, strict=True)
        ]
        row.twins = None
        if self._inside is not None:
            twins = [None if a is None else native_twin(a, self.master) for a in row.agents]
            if any(t is not None for t in twins):
                row.twins = twins

    def _play_opponents(self, row: _Row) -> None:
        """Play the opponents' moves until the learner's turn or the end."""
        st, learner, master = row.st, self.learner, self.master
        while not st.is_over and st.mover != learner:
            mover = st.mover
            if row.twins is not None and row.twins[mover] is not None:
                assert self._inside is not None  # twins are made only where it is set
                self._inside.play_native(st, row.twins, _NO_LIMIT)  # on to a seat without a twin
                continue
            agent = row.agents[mover]
            label = agent_label(agent)
            options = master.legal_options(st)
            try:
                choice = ask(agent, capabilities_of(agent).view, st, mover, master, options)
                if type(choice) is not int:
                    choice, _ = resolve_choice(self.game, st, options, choice, label)
                if not 0 <= choice < len(options):
                    raise UsageError(f"option {choice} is not legal: there are {len(options)}")
            except (Exception, SystemExit) as err:  # the agent's failure, named
                raise agent_failure(err, st, label) from err
            master.apply(st, choice)

    def _observe(self, i: int, row: _Row) -> None:
        """Row ``i``'s observation and mask of its pending decision, and the option each
        legal key plays."""
        st = row.st
        mover = st.mover
        vocabulary = self.vocabulary
        situation = vocabulary.situation_id(vocabulary.situation_of(st))
        self.situation[i] = situation
        self.seat[i] = mover
        obs = self.obs[i]
        obs[:] = 0.0
        board = self._boards.read(st)
        self.writer.write(board, mover, situation, obs)
        mask = self.mask[i]
        mask[:] = False
        keys: dict[int, int] = {}
        for option, index in enumerate(self._keys.indices(st, mover, board.types)):
            if index is not None and index not in keys:
                keys[index] = option
                mask[index] = True
        row.keys = keys

    def _finish(self, i: int, row: _Row) -> GameResult:
        """Row ``i``'s game is over: its flags, rewards and final observation."""
        st = row.st
        self._check(st)
        result: GameResult = self.master.result(st)
        self.terminated[i] = result.end_reason == COMPLETED
        self.truncated[i] = not self.terminated[i]
        if self.reward == "outcome":
            values, sign = rewards_of(result), 1.0
        else:
            values, sign = result.scores, self._sign
        if self.learner is None:
            self.rewards[i, : len(values)] = [sign * v for v in values] if values else 0.0
            seat = int(self.seat[i])  # the seat that moved last
        else:
            self.rewards[i] = sign * values[self.learner] if values else 0.0
            seat = self.learner
        final = self.final_obs[i]
        final[:] = 0.0
        self.writer.write(self._boards.read(st), seat, -1, final)
        self.has_final[i] = True
        return result

    def _check(self, st: Any) -> None:
        """A game that failed is the game file's error: raise it."""
        if st.status == FAILED:
            error = self.master.result(st).error
            raise error if error is not None else UsageError("a game failed")

    def _illegal(self, i: int, action: Any) -> str:
        situation = self.vocabulary.situations[int(self.situation[i])]
        keys = self.vocabulary.keys(situation)
        legal = ", ".join(f"{k} ({keys[k]})" for k in np.flatnonzero(self.mask[i]))
        return f"action {action} of game {i} is not legal in situation {situation} (legal: {legal})"
