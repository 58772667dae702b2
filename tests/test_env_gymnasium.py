"""The Gymnasium adapter (cardlang.env.gymnasium): gymnasium's env checker on every game
file and a corpus sample, and what the adapter promises: illegal actions handled as
documented, opponents seeded from the reset seed, rewards from the result, the mask in
the observation and the info, opponents' failures raised as AgentError."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from conftest import CORPUS_FAILS_CHECK, corpus_games, corpus_params, own_games
from gymnasium.utils.env_checker import check_env

import cardlang.env
from cardlang import load_game
from cardlang.env.core import rewards_of
from cardlang.errors import AgentError, UsageError

GAMES = Path(__file__).resolve().parent.parent / "games"
SAMPLE_SIZE = 8


def corpus_sample() -> list[Path]:
    """The corpus sample of test_env_pettingzoo.py (kept here too: that module needs
    pettingzoo, this one only gymnasium)."""
    usable = [p for p in corpus_games() if p.stem not in CORPUS_FAILS_CHECK]
    step = max(1, len(usable) // SAMPLE_SIZE)
    return usable[::step][:SAMPLE_SIZE]


def checked(path: Path, **kwargs: object) -> None:
    """gymnasium's check_env (its warnings are advice: unbounded observations)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = cardlang.env.gymnasium(path, render_mode="ansi", **kwargs)
        check_env(env, skip_render_check=True)
        check_env(cardlang.env.gymnasium(path, illegal="legal", **kwargs), skip_render_check=True)


@pytest.mark.parametrize("path", own_games(), ids=lambda p: p.stem)
@pytest.mark.parametrize("engine", [None, "python"])
def test_check_env_on_every_game(path: Path, engine: str | None) -> None:
    checked(path, engine=engine)


@pytest.mark.parametrize(
    "path", corpus_params(corpus_sample()), ids=lambda p: p.stem if p else "absent"
)
def test_check_env_on_a_corpus_sample(path: Path) -> None:
    checked(path, seat=1)


def play(env: object, seed: int, pick: str = "first") -> tuple[list, float, dict]:
    """An episode with the first (or last) legal action each time: the observations,
    the total reward and the last info."""
    obs, info = env.reset(seed=seed)  # type: ignore[attr-defined]
    seen, total, done = [obs["observation"].tolist()], 0.0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        action = (legal[0] if pick == "first" else legal[-1]) if legal.size else 0
        obs, reward, terminated, truncated, info = env.step(action)  # type: ignore[attr-defined]
        seen.append(obs["observation"].tolist())
        total += reward
        done = terminated or truncated
    return seen, total, info


@pytest.mark.parametrize("seat", [0, 1, 3])
def test_an_episode_ends_with_the_seat_reward_of_the_result(seat: int) -> None:
    env = cardlang.env.gymnasium(GAMES / "hearts.rcy", seat=seat, opponents="random")
    for seed in range(3):
        _, total, info = play(env, seed)
        result = env.episode.result()
        assert result.completed and info["end_reason"] == "completed"
        assert total == pytest.approx(rewards_of(result)[seat])
        assert info["winners"] == result.winners


def test_the_same_seed_plays_the_same_game_with_the_same_opponents() -> None:
    def run(engine: str, seed: int) -> list:
        env = cardlang.env.gymnasium(GAMES / "crazy_eights.rcy", seat=2, engine=engine)
        return play(env, seed)[0]

    assert run("native", 4) == run("python", 4) == run("native", 4)
    assert run("native", 4) != run("native", 5)


def test_the_mask_is_in_the_observation_and_the_info() -> None:
    env = cardlang.env.gymnasium(GAMES / "leduc_poker.rcy", seat=1)
    obs, info = env.reset(seed=0)
    while True:
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        assert obs["action_mask"].dtype == np.int8
        assert sorted(np.flatnonzero(obs["action_mask"])) == env.episode.legal_actions()
        if env.episode.over:
            break
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, _, _, info = env.step(int(legal[-1]))


def test_an_illegal_action_costs_the_penalty_and_changes_nothing() -> None:
    env = cardlang.env.gymnasium(GAMES / "kuhn_poker.rcy", illegal_penalty=-0.5)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    again, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal"]) == (-0.5, False, False, True)
    assert np.array_equal(again["observation"], obs["observation"])
    assert env.episode.state.decisions == 0
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    assert env.step(legal)[4]["illegal"] is False


def test_an_illegal_action_can_play_the_nearest_legal_one() -> None:
    env = cardlang.env.gymnasium(GAMES / "kuhn_poker.rcy", illegal="legal")
    obs, _ = env.reset(seed=0)
    legal = list(np.flatnonzero(obs["action_mask"]))
    assert legal == [0, 2]  # check, bet
    _, _, _, _, info = env.step(1)  # equally near both: the lower
    assert info["illegal"] is True and info["played"] == 0
    obs, _ = env.reset(seed=0)
    _, _, _, _, info = env.step(4)
    assert info["played"] == 2 and env.episode.state.decisions >= 1


def test_opponents_take_one_spec_or_one_per_other_seat(tmp_path: Path) -> None:
    hearts = GAMES / "hearts.rcy"
    env = cardlang.env.gymnasium(hearts, seat=1, opponents="random, ismcts:iterations=5 ,random")
    assert env.specs == ["random", None, "ismcts:iterations=5", "random"]
    with pytest.raises(UsageError, match="other seats"):
        cardlang.env.gymnasium(hearts, opponents="random,random")
    with pytest.raises(UsageError, match="unknown agent"):  # at once, not at reset
        cardlang.env.gymnasium(hearts, opponents="nobody")
    with pytest.raises(UsageError):
        cardlang.env.gymnasium(hearts, seat=4)
    with pytest.raises(UsageError):
        cardlang.env.gymnasium(hearts, illegal="ignore")
    play(env, 0)


BROKEN_AGENT = """
class Broken:
    def choose(self, view, options):
        raise RuntimeError("the opponent's own bug")
"""


def test_an_opponent_that_fails_raises_agent_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(BROKEN_AGENT)
    env = cardlang.env.gymnasium(GAMES / "kuhn_poker.rcy", seat=1, opponents=f"{path}:Broken")
    with pytest.raises(AgentError, match="the opponent's own bug") as caught:
        env.reset(seed=0)
    assert caught.value.seat == 0


def test_a_game_over_before_the_learner_moves_ends_at_the_first_step() -> None:
    env = cardlang.env.gymnasium(GAMES / "war.rcy")
    obs, info = env.reset(seed=1)
    assert not info["action_mask"].any() and env.action_space.n == 1
    _, reward, terminated, truncated, info = env.step(0)
    assert terminated and not truncated
    assert reward == rewards_of(env.episode.result())[0]
    with pytest.raises(UsageError, match="reset"):  # no second ending
        env.step(0)


def test_the_decision_limit_truncates() -> None:
    env = cardlang.env.gymnasium(GAMES / "dominion.rcy", max_decisions=10)
    _, total, info = play(env, 0)
    assert info["end_reason"] == "cutoff:decisions" and total == 0.0


def test_render_and_seeding() -> None:
    env = cardlang.env.gymnasium(load_game(GAMES / "kuhn_poker.rcy"), render_mode="ansi")
    env.reset(seed=9)
    assert "P0 to move" in env.render()
    first = [env.reset()[0]["observation"].tolist() for _ in range(5)]
    env.reset(seed=9)
    assert [env.reset()[0]["observation"].tolist() for _ in range(5)] == first
    assert cardlang.env.gymnasium(GAMES / "kuhn_poker.rcy").render() is None
