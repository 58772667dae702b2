"""The PettingZoo AEC adapter (cardlang.env.pettingzoo) and what it shares with the other
adapters (cardlang.env.core): PettingZoo's own API and seed tests on every game file and
the corpus, and checks that a wrong implementation would fail (the mask is the legal
options' keys, an action plays the option its key names, the observation is the
encoder's, rewards follow the result, seeds fix the game on both engines, hidden cards
do not leak)."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from conftest import CORPUS_FAILS_CHECK, corpus_games, corpus_params, own_games
from pettingzoo.test import api_test, seed_test

import cardlang.env
from cardlang import load_game
from cardlang.engine.gamemaster import GameResult
from cardlang.env.core import Episode, rewards_of
from cardlang.errors import UsageError
from cardlang.information.encode import Encoder
from cardlang.information.views import view_of
from cardlang.information.vocabulary import Vocabulary, option_key

GAMES = Path(__file__).resolve().parent.parent / "games"
#: Own games with at least one decision (War has none: see its own test).
DECIDING = [p for p in own_games() if p.stem != "war"]
#: A deterministic sample of the corpus for the default run (the whole of it is slow).
SAMPLE_SIZE = 8


def corpus_sample() -> list[Path]:
    usable = [p for p in corpus_games() if p.stem not in CORPUS_FAILS_CHECK]
    step = max(1, len(usable) // SAMPLE_SIZE)
    return usable[::step][:SAMPLE_SIZE]


def api_and_seed_tests(path: Path, engine: str | None = None, cycles: int = 100) -> None:
    """PettingZoo's api_test and seed_test (their warnings are advice, not failures:
    unbounded observations, an all-zero mask of a seat not to move)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(cardlang.env.pettingzoo(path, engine=engine, render_mode="ansi"), cycles)
        seed_test(lambda: cardlang.env.pettingzoo(path, engine=engine), cycles)


@pytest.mark.parametrize("path", DECIDING, ids=lambda p: p.stem)
@pytest.mark.parametrize("engine", [None, "python"])
def test_pettingzoo_api_and_seeds_on_every_game(path: Path, engine: str | None) -> None:
    api_and_seed_tests(path, engine)


@pytest.mark.parametrize(
    "path", corpus_params(corpus_sample()), ids=lambda p: p.stem if p else "absent"
)
def test_pettingzoo_api_and_seeds_on_a_corpus_sample(path: Path) -> None:
    api_and_seed_tests(path)


def corpus_rest() -> list[Path]:
    """The corpus files the sample leaves out (those that do not check included)."""
    sample = set(corpus_sample())
    return [p for p in corpus_games() if p not in sample]


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", corpus_params(corpus_rest()), ids=lambda p: p.stem if p else "absent"
)
def test_pettingzoo_api_and_seeds_on_the_rest_of_the_corpus(path: Path) -> None:
    if path.stem in CORPUS_FAILS_CHECK:
        pytest.skip("the corpus file does not check")
    api_and_seed_tests(path)


# ---------------------------------------------------------------- what the env means


def random_episode(path: Path, seed: int, engine: str | None = None) -> list[tuple]:
    """A game played through the env with actions drawn from the mask: every step's
    (agent, observation, reward, termination, truncation)."""
    env = cardlang.env.pettingzoo(path, engine=engine)
    env.reset(seed=seed)
    rng = random.Random(seed)
    trajectory = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trajectory.append((agent, obs["observation"].tolist(), reward, terminated, truncated))
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    return trajectory


@pytest.mark.parametrize("name", ["kuhn_poker", "hearts", "dominion"])
def test_the_same_seed_plays_the_same_game_on_both_engines(name: str) -> None:
    path = GAMES / f"{name}.rcy"
    native = random_episode(path, 7, "native")
    assert native == random_episode(path, 7, "python")
    assert native == random_episode(path, 7, "native")
    assert native != random_episode(path, 8, "native")


@pytest.mark.parametrize("name", ["crazy_eights", "hearts", "leduc_poker", "agram"])
@pytest.mark.parametrize("engine", ["native", "python"])
def test_mask_observation_and_moves_match_the_encoder_and_the_vocabulary(
    name: str, engine: str
) -> None:
    """Beside the env, a plain master plays the same game: at each decision the mask is
    the set of the legal options' keys, the observation is exactly the encoder's (padded),
    and the action plays the first option with its key (found here by option_key, not
    by the env's mapping); the final rewards are rewards_of(the twin's result)."""
    game = load_game(GAMES / f"{name}.rcy")
    env = cardlang.env.pettingzoo(game, engine=engine)
    master, encoder, vocab = game.master(engine=engine), Encoder.of(game), Vocabulary.of(game)
    env.reset(seed=3)
    st = master.new_game(3)
    rng = random.Random(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        assert seat == st.mover
        options = master.legal_options(st)
        keys = vocab.keys(vocab.situation_of(st))
        option_keys = [option_key(game, st, o, seat) for o in options]
        assert sorted(np.flatnonzero(obs["action_mask"])) == sorted(
            {keys.index(k) for k in option_keys}
        )
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        _, vector, mask = encoder.encode(view_of(st, seat, game, options))
        assert obs["observation"].shape == (encoder.width,)
        assert np.array_equal(obs["observation"][: vector.size], vector)
        assert not obs["observation"][vector.size :].any()
        assert np.array_equal(obs["action_mask"][: mask.size].astype(bool), mask)
        for other in range(game.nplayers):  # a seat not to move: its view, no mask
            if other != seat:
                theirs = env.observe(env.possible_agents[other])
                _, vector, _ = encoder.encode(view_of(st, other, game, options))
                assert np.array_equal(theirs["observation"][: vector.size], vector)
                assert not theirs["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        master.apply(st, option_keys.index(keys[action]))
    result = master.result(st)
    assert result.completed
    final = env.observe(env.possible_agents[0])  # once over: the shared blocks, no mask
    assert final["observation"].any() and not final["action_mask"].any()
    assert list(totals.values()) == pytest.approx(list(rewards_of(result)))
    assert sum(totals.values()) == pytest.approx(0.0)


def test_a_seat_observation_ignores_the_other_seats_hidden_cards() -> None:
    """Kuhn poker: games where seat 0 holds the same card but seat 1 does not give seat
    0 the same observation (and the same mask); different own cards differ."""
    game = load_game(GAMES / "kuhn_poker.rcy")
    episode = Episode(game)
    seen: dict[str, set[str]] = {}
    observations: dict[str, set[bytes]] = {}
    for seed in range(40):
        episode.reset(seed)
        st = episode.state
        mine = episode.view(0).cards(0, "iloc", "HAND")[0]["RANK"]
        theirs = view_of(st, 1, game).cards(1, "iloc", "HAND")[0]["RANK"]
        seen.setdefault(mine, set()).add(theirs)
        obs = episode.observation(0)
        observations.setdefault(mine, set()).add(obs["observation"].tobytes())
    assert all(len(others) == 2 for others in seen.values())  # the other card varied
    assert all(len(found) == 1 for found in observations.values())
    assert len({next(iter(found)) for found in observations.values()}) == 3


def test_rewards_follow_the_result() -> None:
    def result(credits: tuple[float, ...], end: str = "completed") -> GameResult:
        n = len(credits)
        zeros = (0,) * n
        return GameResult(0, end, zeros, zeros, credits, (), 1, 1)

    assert rewards_of(result((1.0, 0.0))) == (1.0, -1.0)
    assert rewards_of(result((0.5, 0.5))) == (0.0, 0.0)
    assert rewards_of(result((0.0, 0.0, 1.0, 0.0))) == pytest.approx((-1 / 3, -1 / 3, 1, -1 / 3))
    assert rewards_of(result((0.5, 0.5, 0.0))) == pytest.approx((0.25, 0.25, -0.5))
    assert rewards_of(result((0.25,) * 4)) == (0.0,) * 4
    assert rewards_of(result((1.0,))) == (1.0,)
    assert rewards_of(result((0.0, 0.0), "cutoff:decisions")) == (0.0, 0.0)


def test_the_decision_limit_truncates() -> None:
    env = cardlang.env.pettingzoo(GAMES / "hearts.rcy", max_decisions=5)
    env.reset(seed=1)
    for _ in range(5):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(info["end_reason"] == "cutoff:decisions" for info in env.infos.values())
    assert set(env.rewards.values()) == {0.0}
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


FAILING = """(game
 (setup (create players 2))
 (stage player (end (== (game sto DONE) 1))
   (choice (((== 1 1) (set (game sto DONE) 1))
            ((== 1 1) (set (game sto A) (// 5 (game sto Z)))))))
 (scoring max (game sto A)))"""


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_rule_error_truncates_with_the_error(engine: str) -> None:
    env = cardlang.env.pettingzoo(load_game(text=FAILING), engine=engine)
    env.reset(seed=0)
    env.step(1)  # the option that divides by zero
    assert all(env.truncations.values())
    info = env.infos["player_0"]
    assert info["end_reason"] == "failed" and "division by zero" in info["error"]
    assert not info["action_mask"].any()


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    env = cardlang.env.pettingzoo(GAMES / "kuhn_poker.rcy")
    env.reset(seed=0)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(UsageError, match="not legal"):
        env.step(illegal)
    with pytest.raises(UsageError, match="not None"):
        env.step(None)
    again, *_ = env.last()
    assert np.array_equal(again["observation"], obs["observation"])
    assert env.agent_selection == "player_0"


def test_resets_without_a_seed_follow_the_last_seed() -> None:
    def games(env: object, first: int | None) -> list:
        env.reset(seed=first)  # type: ignore[attr-defined]
        out = []
        for _ in range(4):
            env.reset()  # type: ignore[attr-defined]
            out.append(env.episode.seed)  # type: ignore[attr-defined]
        return out

    one, two = (cardlang.env.pettingzoo(GAMES / "kuhn_poker.rcy") for _ in range(2))
    assert games(one, 5) == games(two, 5)
    assert games(one, 5) != games(one, 6)
    assert len(set(games(one, 5))) == 4


def test_spaces_are_cached_per_agent() -> None:
    env = cardlang.env.pettingzoo(GAMES / "leduc_poker.rcy")
    a, b = env.possible_agents
    assert env.action_space(a) is env.action_space(a)
    assert env.observation_space(a) is env.observation_space(a)
    assert env.action_space(a) is not env.action_space(b)
    encoder = Encoder.of(env.episode.game)
    assert env.action_space(a).n == encoder.n_actions
    assert env.observation_space(a)["observation"].shape == (encoder.width,)


def test_render_shows_the_seat_table_then_the_result(capsys: pytest.CaptureFixture) -> None:
    env = cardlang.env.pettingzoo(GAMES / "kuhn_poker.rcy", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "P0 to move" in text and "you HAND" in text and "P1 HAND: 1 face down" in text
    while not (env.terminations[env.agent_selection]):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.render().startswith("end: completed")
    human = cardlang.env.pettingzoo(GAMES / "kuhn_poker.rcy", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None and "P0 to move" in capsys.readouterr().out
    with pytest.raises(UsageError):
        cardlang.env.pettingzoo(GAMES / "kuhn_poker.rcy", render_mode="rgb_array")


def test_a_game_without_decisions_ends_at_reset() -> None:
    """War has no choice: every agent is dead at once (api_test's "no termination after
    reset" cannot hold), with its reward, and is stepped out with None."""
    env = cardlang.env.pettingzoo(GAMES / "war.rcy")
    env.reset(seed=2)
    assert all(env.terminations.values())
    result = env.episode.result()
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == list(rewards_of(result))
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_params_and_a_game_object() -> None:
    env = cardlang.env.pettingzoo(GAMES / "dominion.rcy", params={"PLAYERS": 3})
    assert len(env.possible_agents) == 3
    game = load_game(GAMES / "kuhn_poker.rcy")
    assert cardlang.env.pettingzoo(game).episode.game is game
    with pytest.raises(UsageError):
        cardlang.env.pettingzoo(game, params={"PLAYERS": 3})


@pytest.mark.parametrize("name", ["hearts", "crazy_eights"])
def test_a_redeal_of_the_hidden_cards_leaves_the_observation_unchanged(name: str) -> None:
    """Mid-game, the mover's view determinized (the cards it cannot see dealt again)
    encodes to the mover's observation, while the other seats' hands did change."""
    game = load_game(GAMES / f"{name}.rcy")
    episode = Episode(game, engine="python")
    episode.reset(11, record=True)
    rng = random.Random(11)
    for _ in range(9):
        episode.step(rng.choice(episode.legal_actions()))
    seat = episode.mover
    observed = episode.observation(seat)
    world = episode.view(seat).determinize(random.Random(5))
    other = (seat + 1) % game.nplayers
    assert world.zones[(other, "iloc", "HAND")] != episode.state.zones[(other, "iloc", "HAND")]
    options = episode.master.legal_options(world)
    _, vector, mask = Encoder.of(game).encode(view_of(world, seat, game, options))
    assert np.array_equal(observed["observation"][: vector.size], vector)
    assert np.array_equal(observed["action_mask"][: mask.size].astype(bool), mask)
