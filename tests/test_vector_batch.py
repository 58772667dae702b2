"""A VectorEnv stepped inside the native engine (env/batch.py, native/src/batch.h) is the
VectorEnv stepped in Python, array for array.

The Python path is itself held to the reference pieces (``Encoder.encode`` of a view,
the vocabulary's keys, games played one by one) by tests/test_vector_env.py; here both
paths run side by side from the same seed with the same actions, on every game file that
has a decision, with every seat the caller's and with one learning seat against in-engine
opponents (the random agent, the Dominion bots, a TOML bot file), and every array, result
and state must agree at every step, across many auto-resets.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import GAMES, ROOT, needs_native_default, own_games

from cardlang.env.vector import VectorEnv, random_actions
from cardlang.errors import UsageError

pytestmark = needs_native_default()

STEPPED = [p for p in own_games() if p.stem != "war"]
DOMINION, KUHN = GAMES / "dominion.rcy", GAMES / "kuhn_poker.rcy"
SMITHY_FILE = ROOT / "agents" / "scripted" / "bots" / "smithy.toml"

ARRAYS = ("obs", "mask", "seat", "situation", "rewards", "terminated", "truncated")


def _lockstep(path: Path, steps: int, n: int = 3, **kwargs: object) -> int:
    """Step the two paths side by side; how many games finished."""
    inside = VectorEnv(path, n, batch=True, seed=5, **kwargs)  # type: ignore[arg-type]
    python = VectorEnv(path, n, batch=False, seed=5, **kwargs)  # type: ignore[arg-type]
    assert inside.in_engine and not python.in_engine
    inside.reset()
    python.reset()
    _assert_same(inside, python, {}, {})
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(steps):
        actions = random_actions(python.mask, rng)
        *_, got = inside.step(actions)
        *_, expected = python.step(actions)
        _assert_same(inside, python, got, expected)
        finished += len(expected["results"])
    return finished


def _assert_same(inside: VectorEnv, python: VectorEnv, got: dict, expected: dict) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(inside, name), getattr(python, name), err_msg=name)
    finals = python.has_final
    np.testing.assert_array_equal(inside.has_final, finals)
    np.testing.assert_array_equal(inside.final_obs[finals], python.final_obs[finals])
    assert got.get("results", {}) == expected.get("results", {})
    for a, b in zip(inside.states(), python.states(), strict=True):
        assert (a.decisions, a.turns, a.seed, a.mover) == (b.decisions, b.turns, b.seed, b.mover)


@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_every_seat_the_callers_steps_as_in_python(path: Path) -> None:
    assert _lockstep(path, 60, max_decisions=40) > 0


@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_one_seat_against_random_steps_as_in_python(path: Path) -> None:
    assert _lockstep(path, 60, seats=0, max_decisions=40) > 0


@pytest.mark.parametrize(
    ("seat", "opponent"),
    [(1, "bmu"), (0, "smithy"), (0, str(SMITHY_FILE)), (1, "double-witch")],
    ids=["bmu", "smithy", "toml-file", "double-witch"],
)
def test_dominion_against_the_bots_steps_as_in_python(seat: int, opponent: str) -> None:
    assert _lockstep(DOMINION, 120, seats=seat, opponents=opponent, max_decisions=120) > 0


def test_score_rewards_and_completed_games() -> None:
    """Kuhn completes every game: outcome and score rewards, both seat modes."""
    assert _lockstep(KUHN, 80, n=4, reward="score") > 20
    assert _lockstep(KUHN, 80, n=4, seats=1, reward="score") > 20
    assert _lockstep(GAMES / "hearts.rcy", 60, n=2, reward="score", max_decisions=30) > 0


def test_it_is_the_default_where_it_can_be() -> None:
    assert VectorEnv(DOMINION, 2, seats=0, opponents="bmu").in_engine
    assert not VectorEnv(DOMINION, 2, engine="python").in_engine
    # a search opponent has no twin in the engine (and reads the event log)
    assert not VectorEnv(KUHN, 2, seats=0, opponents="ismcts:iterations=5").in_engine
    with pytest.raises(UsageError, match="cannot step inside the engine: .*event log"):
        VectorEnv(KUHN, 2, seats=0, opponents="ismcts:iterations=5", batch=True)
    with pytest.raises(UsageError, match="python engine, which steps no batches"):
        VectorEnv(KUHN, 2, engine="python", batch=True)


def test_it_is_turned_off_by_the_argument_and_never_by_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CARDLANG_VECTOR_BATCH", "0")  # read by nothing (it once was)
    assert VectorEnv(KUHN, 2).in_engine
    assert not VectorEnv(KUHN, 2, batch=False).in_engine


def test_an_illegal_action_changes_no_row() -> None:
    env = VectorEnv(DOMINION, 3, seats=0, opponents="bmu", seed=2)
    _, mask, *_ = env.reset()
    before = [s.decisions for s in env.states()]
    arrays = [getattr(env, name).copy() for name in ARRAYS]
    actions = random_actions(mask, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~mask[2])[0])
    with pytest.raises(UsageError, match="action .* of game 2 is not legal"):
        env.step(actions)
    assert [s.decisions for s in env.states()] == before
    for name, kept in zip(ARRAYS, arrays, strict=True):
        np.testing.assert_array_equal(getattr(env, name), kept, err_msg=name)
    with pytest.raises(UsageError, match="not legal"):
        env.step(actions.astype(np.float64) + 0.5)
    with pytest.raises(UsageError, match="one action per game"):
        env.step(actions[:2])


FAILS = """
(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
 (stage player
  (end (== (game sto DONE) 1))
  (choice
   (((== 1 1) (set (game sto X) (// 1 (game sto ZERO))))
    ((== 1 1) (set (game sto DONE) 1)))))
 (scoring max ((current player) sto X)))
"""


@pytest.mark.parametrize("batch", [True, False])
def test_a_failed_game_raises_its_rule_error(batch: bool) -> None:
    from cardlang import load_game
    from cardlang.errors import RuleError

    env = VectorEnv(load_game(text=FAILS, name="fails.rcy"), 2, batch=batch)
    _, mask, *_ = env.reset()
    with pytest.raises(RuleError, match="fails.rcy:.*zero"):
        env.step(np.flatnonzero(mask[0])[:1].repeat(2))
