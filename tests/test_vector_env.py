"""VectorEnv (cardlang.env.vector): n games in lockstep into preallocated arrays.

Held to the reference pieces it replaces on the hot path: its observations to
``Encoder.encode`` of a view, its masks to the vocabulary keys of the legal options, its
games to the same games played one by one through the Gamemaster, its rewards to the
``GameResult``; and to itself: the same seed gives the same arrays, on both engines.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cardlang.agents import make_agent
from conftest import GAMES, needs_native_default, own_games

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.env.core import rewards_of
from cardlang.env.vector import HOLD, VectorEnv, game_seed, random_actions
from cardlang.errors import UsageError
from cardlang.information.encode import Encoder
from cardlang.information.views import PlayerView
from cardlang.information.vocabulary import Vocabulary
from cardlang.runs.planned import agent_seeds
from cardlang.runs.simulate import game_seeds

ENGINES = ["python", *(["native"] if native_available() else [])]
KUHN, LEDUC, HEARTS = GAMES / "kuhn_poker.rcy", GAMES / "leduc_poker.rcy", GAMES / "hearts.rcy"
#: every game file with a decision to take (war.rcy plays itself)
STEPPED = [p for p in own_games() if p.stem != "war"]


def _reference(env: VectorEnv, i: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Row ``i`` encoded the reference way: a view of its state, ``Encoder.encode``."""
    st = env.states()[i]
    options = env.master.legal_options(st)
    view = PlayerView.live(st, st.mover, env.game, options, env.master.limits)
    return Encoder.of(env.game).encode(view)


def _assert_rows_match_reference(env: VectorEnv, obs: np.ndarray, mask: np.ndarray) -> None:
    vocabulary = Vocabulary.of(env.game)
    for i, st in enumerate(env.states()):
        situation, vector, keys = _reference(env, i)
        assert env.situation[i] == situation
        assert env.seat[i] == st.mover
        np.testing.assert_array_equal(obs[i, : len(vector)], vector)
        assert not obs[i, len(vector) :].any()
        np.testing.assert_array_equal(mask[i, : len(keys)], keys)
        assert not mask[i, len(keys) :].any()
        legal = vocabulary.option_indices(st, env.master.legal_options(st), st.mover)
        assert set(np.flatnonzero(mask[i])) == {k for k in legal if k is not None}


@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_every_game_file_steps_as_the_encoder_and_vocabulary_say(path: Path) -> None:
    """Each game file, a few steps on each engine: observations and masks equal the
    reference encoding of a view and the keys of the legal options."""
    for engine in ENGINES:
        env = VectorEnv(path, 2, engine=engine, seed=3, max_decisions=200)
        obs, mask, _, _ = env.reset()
        rng = np.random.default_rng(0)
        for _ in range(12):
            _assert_rows_match_reference(env, obs, mask)
            obs, mask, *_ = env.step(random_actions(mask, rng))


def test_a_game_without_decisions_is_refused() -> None:
    with pytest.raises(UsageError, match="no decision"):
        VectorEnv(GAMES / "war.rcy", 2)


@pytest.mark.parametrize("seats", ["all", 1])
def test_shapes_dtypes_and_the_same_arrays_every_call(seats: Any) -> None:
    env = VectorEnv(HEARTS, 3, seats=seats)
    obs, mask, seat, info = env.reset()
    enc = Encoder.of(env.game)
    assert obs.shape == (3, enc.width) and obs.dtype == np.float32
    assert mask.shape == (3, enc.n_actions) and mask.dtype == np.bool_
    assert seat.shape == (3,) and info["situation"].shape == (3,)
    rng = np.random.default_rng(1)
    out = env.step(random_actions(mask, rng))
    obs2, mask2, rewards, terminated, truncated, info2 = out
    assert rewards.dtype == np.float32
    assert rewards.shape == ((3, 4) if seats == "all" else (3,))
    assert terminated.shape == truncated.shape == (3,) and terminated.dtype == np.bool_
    assert info2["final_obs"].shape == (3, enc.width)
    for _ in range(5):
        again = env.step(random_actions(mask, rng))
        assert all(a is b for a, b in zip(again[:5], out[:5], strict=True))
        assert again[5]["final_obs"] is info2["final_obs"] and again[5]["seat"] is seat
    assert obs2 is obs and mask2 is mask
    assert env.reset()[0] is obs


def test_an_illegal_action_is_refused_with_the_legal_keys() -> None:
    env = VectorEnv(KUHN, 2)
    with pytest.raises(UsageError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    _, mask, _, _ = env.reset()
    illegal = int(np.flatnonzero(~mask[0])[0])
    with pytest.raises(UsageError, match="not legal"):
        env.step(np.array([illegal, random_actions(mask, np.random.default_rng())[1]]))


def test_game_seeds_are_the_batch_seeds() -> None:
    assert [game_seed(11, j) for j in range(6)] == list(game_seeds(11, 6))


def _trajectory(env: VectorEnv, seed: int, steps: int) -> list[tuple[np.ndarray, ...]]:
    obs, mask, seat, _ = env.reset(seed=seed)
    out = [(obs.copy(), mask.copy(), seat.copy())]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, mask, rewards, terminated, truncated, info = env.step(random_actions(mask, rng))
        out.append(
            (obs.copy(), mask.copy(), rewards.copy(), terminated.copy(), info["seat"].copy())
        )
    return out


def _same(a: list[tuple[np.ndarray, ...]], b: list[tuple[np.ndarray, ...]]) -> bool:
    return all(
        np.array_equal(x, y)
        for ra, rb in zip(a, b, strict=True)
        for x, y in zip(ra, rb, strict=True)
    )


@pytest.mark.parametrize("seats", ["all", 0])
def test_the_same_seed_gives_the_same_trajectory_on_either_engine(seats: Any) -> None:
    runs = {
        engine: [
            _trajectory(VectorEnv(LEDUC, 4, seats=seats, engine=engine), s, 30) for s in (5, 5, 6)
        ]
        for engine in ENGINES
    }
    for engine, (first, second, other) in runs.items():
        assert _same(first, second), engine
        assert not _same(first, other), engine
    if len(ENGINES) == 2:  # the engines play a seed alike
        assert _same(runs["python"][0], runs["native"][0])


def _first_option(st: Any, master: Any, game: Any, key: int) -> int:
    options = master.legal_options(st)
    indices = Vocabulary.of(game).option_indices(st, options, st.mover)
    return indices.index(key)


@pytest.mark.parametrize("engine", ENGINES)
def test_all_seats_agrees_with_the_games_played_one_by_one(engine: str) -> None:
    """Every row mirrored by a game of its own through the Gamemaster (game i + k*n of
    the batch's seeds): the same decisions, the reset at the same step, rewards the
    GameResult's outcome (``rewards_of``), the final observation the finished game's."""
    n, steps = 3, 40
    env = VectorEnv(KUHN, n, engine=engine, seed=9)
    master = env.game.master(engine=engine)
    seeds = list(game_seeds(9, 200))
    obs, mask, _, _ = env.reset()
    mirrors = [master.new_game(seeds[i]) for i in range(n)]
    episodes = [0] * n
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(steps):
        actions = random_actions(mask, rng)
        for i, st in enumerate(mirrors):
            master.apply(st, _first_option(st, master, env.game, int(actions[i])))
        obs, mask, rewards, terminated, truncated, info = env.step(actions)
        for i, st in enumerate(mirrors):
            if not st.is_over:
                assert not terminated[i] and not rewards[i].any()
                assert env.states()[i].decisions == st.decisions
                continue
            result = master.result(st)
            ended += 1
            assert terminated[i] and not truncated[i] and info["_final_obs"][i]
            assert info["results"][i] == result
            expected = np.array(rewards_of(result), dtype=np.float32)
            np.testing.assert_array_equal(rewards[i], expected)
            assert expected.any()  # Kuhn has no tie: one seat +1, the other -1
            episodes[i] += 1
            mirrors[i] = master.new_game(seeds[i + episodes[i] * n])
        assert set(info["results"]) == set(np.flatnonzero(terminated | truncated))
        _assert_rows_match_reference(env, obs, mask)
    assert ended >= n  # every row was reset at least once


def test_score_rewards_are_signed_so_that_more_is_better() -> None:
    """Hearts: the lowest score wins, so the score reward is its negation; Leduc's is
    the chips won."""
    for path, sign in ((HEARTS, -1.0), (LEDUC, 1.0)):
        env = VectorEnv(path, 2, seed=1, reward="score")
        _, mask, _, _ = env.reset()
        rng = np.random.default_rng(0)
        found = 0
        while found < 2:
            _, mask, rewards, terminated, _, info = env.step(random_actions(mask, rng))
            for i, result in info["results"].items():
                assert terminated[i]
                expected = [sign * s for s in result.scores]
                np.testing.assert_array_equal(rewards[i], np.array(expected, dtype=np.float32))
                found += 1


@pytest.mark.parametrize("engine", ENGINES)
def test_one_seat_against_random_opponents_is_the_batch_game(engine: str) -> None:
    """Seat 1 learns; seats 0, 2, 3 are random agents seeded as a batch seeds them.  Each
    row's game is the same game played through the Gamemaster with those agents and the
    learner's choices; its reward is the learner's outcome; the final observation is the
    finished position seen by the learner."""
    n, learner = 2, 1
    env = VectorEnv(HEARTS, n, seats=learner, opponents="random", engine=engine, seed=4)
    master = env.game.master(engine="python")
    obs, mask, seat, _ = env.reset()
    assert (seat == learner).all()
    rng = np.random.default_rng(3)
    mirrors = [_Mirror(master, game_seed(4, i), learner) for i in range(n)]
    for m in mirrors:
        m.play_opponents()
    finished = 0
    while finished < 1:
        actions = random_actions(mask, rng)
        for i, m in enumerate(mirrors):
            m.apply(_first_option(m.st, master, env.game, int(actions[i])))
        obs, mask, rewards, terminated, _, info = env.step(actions)
        assert (env.seat == learner).all()
        for i, m in enumerate(mirrors):
            if i in info["results"]:
                assert m.st.is_over and terminated[i]
                result = master.result(m.st)
                assert rewards[i] == np.float32(rewards_of(result)[learner])
                assert info["results"][i].scores == result.scores
                final = info["final_obs"][i]
                common = Encoder.of(env.game).common_blocks[-1].stop
                assert final[:common].any() and not final[common:].any()
                finished += 1
            else:
                assert not m.st.is_over and rewards[i] == 0.0
                assert env.states()[i].decisions == m.st.decisions
    _assert_rows_match_reference(env, obs, mask)


class _Mirror:
    """One game of a one-seat VectorEnv, played through the Python Gamemaster."""

    def __init__(self, master: Any, seed: int, learner: int) -> None:
        self.master, self.learner = master, learner
        self.st = master.new_game(seed)
        seeds = agent_seeds(seed, master.game.nplayers)
        self.agents = [make_agent("random", s) for s in seeds]

    def play_opponents(self) -> None:
        st = self.st
        while not st.is_over and st.mover != self.learner:
            options = self.master.legal_options(st)
            self.master.apply(st, self.agents[st.mover].choose(None, options))

    def apply(self, option: int) -> None:
        self.master.apply(self.st, option)
        self.play_opponents()


def test_one_seat_opponents_may_differ_by_seat_and_have_no_twin() -> None:
    """A spec per other seat; an agent without a native twin (a fixed-seed ISMCTS with a
    few iterations) is asked in Python between the engine's stretches."""
    specs = ["random", "ismcts:iterations=5"]
    env = VectorEnv(KUHN, 2, seats=0, opponents=specs[:1], seed=2)
    _, mask, seat, _ = env.reset()
    assert (seat == 0).all()
    env3 = VectorEnv(
        GAMES / "crazy_eights.rcy",
        2,
        seats=2,
        opponents=["random", "ismcts:iterations=5", "random"],
    )
    _, mask, seat, _ = env3.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, mask, *_ = env3.step(random_actions(mask, rng))
        assert (env3.seat == 2).all()
    with pytest.raises(UsageError, match="every other seat"):
        VectorEnv(KUHN, 2, seats=0, opponents=specs)


def test_truncation_by_max_decisions_is_reported_as_truncated() -> None:
    env = VectorEnv(HEARTS, 2, max_decisions=10, seed=1)
    _, mask, _, _ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        _, mask, rewards, terminated, truncated, info = env.step(random_actions(mask, rng))
    assert truncated.all() and not terminated.any() and not rewards.any()
    assert all(r.end_reason.startswith("cutoff") for r in info["results"].values())
    assert all(st.decisions == 0 for st in env.states())


def test_random_actions_draw_only_legal_keys() -> None:
    mask = np.zeros((50, 7), dtype=np.bool_)
    rng = random.Random(0)
    for row in mask:
        row[rng.sample(range(7), rng.randint(1, 7))] = True
    actions = random_actions(mask, np.random.default_rng(0))
    assert mask[np.arange(50), actions].all()


def test_a_compiled_game_and_params() -> None:
    game = load_game(LEDUC)
    assert VectorEnv(game, 1).nplayers == 2
    with pytest.raises(UsageError, match="params"):
        VectorEnv(game, 1, params={"X": "1"})
    with pytest.raises(UsageError, match="seats"):
        VectorEnv(game, 1, seats=2)


def _play_twins(env: VectorEnv, src: int, dst: int, rng: np.random.Generator) -> Any:
    """Step every row, ``dst`` the same action as ``src``, until ``src``'s game ends;
    the two rows' arrays equal all along.  Both rows' results."""
    while True:
        np.testing.assert_array_equal(env.obs[dst], env.obs[src])
        np.testing.assert_array_equal(env.mask[dst], env.mask[src])
        assert env.seat[dst] == env.seat[src]
        actions = random_actions(env.mask, rng)
        actions[dst] = actions[src]
        *_, info = env.step(actions)
        results = info["results"]
        assert (src in results) == (dst in results)
        if src in results:
            return results[src], results[dst]


@pytest.mark.parametrize("path", [LEDUC, HEARTS, GAMES / "crazy_eights.rcy"], ids=lambda p: p.stem)
def test_a_forked_row_plays_on_as_its_source_would(path: Path) -> None:
    """``fork`` copies a game as it stands, its random streams included: the same moves
    in both rows then give the same positions and the same result (the cards still to
    come are the ones the source would have met), and the engines fork alike (the twins
    table of docs/internals.md: a clone in Python, ``VectorBatch::fork`` natively)."""
    logs = []
    for engine in ENGINES:
        env = VectorEnv(path, 4, engine=engine, seed=7)
        env.reset()
        rng = np.random.default_rng(1)
        for _ in range(3):  # into a game, past its first moves
            env.step(random_actions(env.mask, rng))
        env.fork(0, 3)
        first, second = _play_twins(env, 0, 3, rng)
        assert first.scores == second.scores and first.credits == second.credits
        logs.append((first.scores, first.credits))
    assert all(log == logs[0] for log in logs)


@needs_native_default()
def test_a_fork_copies_the_in_engine_opponents_as_they_stand() -> None:
    """Dominion against the BMU bot: the forked row's bot is a copy of the source's (the
    piles it has seen, its random stream), so the same learner moves meet the same
    replies to the game's end."""
    env = VectorEnv(GAMES / "dominion.rcy", 3, seats=0, opponents="bmu", seed=2)
    env.reset()
    rng = np.random.default_rng(4)
    for _ in range(6):
        env.step(random_actions(env.mask, rng))
    env.fork(1, 2)
    first, second = _play_twins(env, 1, 2, rng)
    assert first.scores == second.scores


def test_fork_refuses_rows_that_are_not_there() -> None:
    env = VectorEnv(KUHN, 2, seed=0)
    with pytest.raises(UsageError, match="reset"):
        env.fork(0, 1)
    env.reset()
    with pytest.raises(UsageError, match="no row 2"):
        env.fork(0, 2)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_held_row_does_not_move(engine: str) -> None:
    """``HOLD`` leaves a row's game and arrays as they were while the others play; the
    held row then goes on as if the step had not happened (the same result as a row
    never held, on either engine)."""
    env = VectorEnv(LEDUC, 3, engine=engine, seed=3)
    env.reset()
    env.fork(0, 1)
    before = env.obs[1].copy(), env.mask[1].copy(), int(env.seat[1])
    decisions = env.states()[1].decisions
    rng = np.random.default_rng(2)
    actions = random_actions(env.mask, rng)
    actions[1] = HOLD
    env.step(actions)
    np.testing.assert_array_equal(env.obs[1], before[0])
    np.testing.assert_array_equal(env.mask[1], before[1])
    assert env.seat[1] == before[2] and env.states()[1].decisions == decisions
    assert not env.terminated[1] and not env.truncated[1]
    env.fork(1, 2)  # row 1 as row 0 was: play rows 1 and 2 on together
    first, second = _play_twins(env, 1, 2, rng)
    assert first.scores == second.scores
