"""The tokens of information/tokens.py written by the engine (native/src/batch.cpp:
``write_tokens``), for every row of a VectorEnv stepped inside the engine.

The reference is the Python ``Tokenizer`` on a view of each row's state (the same
``NameTable``): names, kinds, count buckets and continuous features of every token, in
order, and the action tokens (their vocabulary keys and names), exactly, on every game
file with a decision, both seat modes, at every step across auto-resets; a row that
needs more token rows than the arrays hold grows them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import GAMES, needs_native_default, own_games

from cardlang.env.vector import VectorEnv, random_actions
from cardlang.errors import UsageError
from cardlang.information.tokens import NameTable, Tokenizer
from cardlang.information.views import PlayerView

pytestmark = needs_native_default()

STEPPED = [p for p in own_games() if p.stem != "war"]


def _assert_tokens_match(env: VectorEnv, tokenizer: Tokenizer) -> None:
    for i, st in enumerate(env.states()):
        options = env.master.legal_options(st)
        view = PlayerView.live(st, st.mover, env.game, options, env.master.limits)
        expected = tokenizer.tokenize(view)
        count = int(env.token_count[i])
        assert count == len(expected.kinds)
        np.testing.assert_array_equal(env.token_names[i, :count], expected.names)
        np.testing.assert_array_equal(env.token_kinds[i, :count], expected.kinds)
        np.testing.assert_array_equal(env.token_buckets[i, :count], expected.buckets)
        np.testing.assert_array_equal(env.token_continuous[i, :count], expected.continuous)
        assert not env.token_names[i, count:].any() and not env.token_kinds[i, count:].any()
        keys = [env.vocabulary.index(expected.situation, key) for key in expected.keys]
        actions = int(env.action_count[i])
        assert env.action_key[i, :actions].tolist() == keys
        assert (env.action_key[i, actions:] == -1).all()
        np.testing.assert_array_equal(env.action_names[i, :actions], expected.action_names)
        assert set(keys) == set(np.flatnonzero(env.mask[i]))


@pytest.mark.parametrize("seats", ["all", 0])
@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_the_engine_writes_the_tokenizers_tokens(path: Path, seats: str | int) -> None:
    table = NameTable()
    env = VectorEnv(path, 3, seats=seats, seed=3, tokens=table, max_decisions=60)
    tokenizer = Tokenizer(env.game, table)
    _, mask, *_ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        _assert_tokens_match(env, tokenizer)
        _, mask, *_ = env.step(random_actions(mask, rng))
    _assert_tokens_match(env, tokenizer)


def test_the_arrays_grow_when_a_view_needs_more_tokens() -> None:
    table = NameTable()
    env = VectorEnv(GAMES / "hearts.rcy", 2, seed=1, tokens=table)
    env._allocate_tokens(8)  # as if the first guess were far too small
    env._batch.bind_tokens()  # type: ignore[union-attr]
    env.reset()
    assert env.token_names.shape[1] >= int(env.token_count.max()) > 8
    assert env.token_names.shape[1] % 64 == 0
    _assert_tokens_match(env, Tokenizer(env.game, table))


def test_dominion_against_a_bot_and_a_frozen_table() -> None:
    """A model's table, frozen: names it lacks are the unknown name, on both sides."""
    warm = NameTable()
    VectorEnv(GAMES / "dominion.rcy", 1, tokens=warm).reset()
    frozen = NameTable(warm.names[1:], frozen=True)
    env = VectorEnv(GAMES / "dominion.rcy", 4, seats=1, opponents="bmu", tokens=frozen)
    tokenizer = Tokenizer(env.game, frozen)
    _, mask, *_ = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(60):
        _, mask, *_ = env.step(random_actions(mask, rng))
        _assert_tokens_match(env, tokenizer)


def test_the_engine_writes_a_piles_card_where_the_table_reads_piles_so() -> None:
    """``NameTable.pile_cards``: a buy's action carries the card's components, in the
    engine's tokens as in the tokenizer's (the engine's are planned from it)."""
    table = NameTable(pile_cards=True)
    env = VectorEnv(GAMES / "dominion.rcy", 4, seats="all", seed=5, tokens=table)
    tokenizer = Tokenizer(env.game, table)
    _, mask, *_ = env.reset()
    rng = np.random.default_rng(5)
    piles = {i for i, n in enumerate(table.names) if n.startswith("val:BUY-PHASE/PILE=")}
    buys = 0
    for _ in range(80):
        _assert_tokens_match(env, tokenizer)
        for row in env.action_names.reshape(-1, env.action_names.shape[-1]):
            if row[1] in piles:
                assert table.names[row[2]].startswith("comp:KIND=")  # the card follows
                buys += 1
        _, mask, *_ = env.step(random_actions(mask, rng))
    assert buys > 0


def test_tokens_need_the_engine() -> None:
    with pytest.raises(UsageError, match="batch=False"):
        VectorEnv(GAMES / "kuhn_poker.rcy", 2, tokens=NameTable(), batch=False)
    with pytest.raises(UsageError, match="cannot step inside the engine"):
        VectorEnv(GAMES / "kuhn_poker.rcy", 2, tokens=NameTable(), engine="python")


def test_uniform_tokens_of_a_recorded_game_are_the_engines() -> None:
    """A model trained on the engine's tokens reads hidden locations as the uniform odds
    at play too, though the games it plays are recorded: ``Tokenizer(uniform=True)`` of
    a recorded game is the tokenizer of the same position unrecorded (which the engine
    writes), where the knowledge pools would say more."""
    import random

    from cardlang import load_game

    game = load_game(GAMES / "dominion.rcy")
    master = game.master()
    recorded, plain = master.new_game(4, record=True), master.new_game(4)
    table = NameTable()
    uniform, pools, reference = (
        Tokenizer(game, table, uniform=True),
        Tokenizer(game, table),
        Tokenizer(game, table),
    )
    rng = random.Random(4)
    differed = 0
    for _ in range(80):
        options = master.legal_options(recorded)
        view = PlayerView.live(recorded, recorded.mover, game, options, master.limits)
        bare = PlayerView.live(plain, plain.mover, game, master.legal_options(plain), master.limits)
        got, expected = uniform.tokenize(view), reference.tokenize(bare)
        np.testing.assert_array_equal(got.names, expected.names)
        np.testing.assert_array_equal(got.continuous, expected.continuous)
        differed += not np.array_equal(pools.tokenize(view).continuous, expected.continuous)
        choice = rng.randrange(len(options))
        master.apply(recorded, choice)
        master.apply(plain, choice)
    assert differed > 0  # the pools do know more: the flag matters


def test_a_model_trained_by_ppo_tokenizes_uniformly_at_play(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from cardlang.agents.neural.model import GameIdentity, NeuralModel, load_model
    from cardlang.agents.neural.network import NetConfig

    from cardlang import load_game
    from cardlang.learning.ppo import PPOConfig
    from cardlang.learning.ppo_actor import PPOActor

    torch.manual_seed(0)
    game = load_game(GAMES / "kuhn_poker.rcy")
    model = NeuralModel(
        NetConfig(seats=2, width=16, hidden=16, body="deepsets"), GameIdentity.of(game)
    )
    assert not model.tokenizer(game).uniform
    env = VectorEnv(game, 4, tokens=model.table)
    PPOActor(env, model, PPOConfig(horizon=2))
    model.save(tmp_path / "m")
    assert load_model(tmp_path / "m", game).tokenizer(game).uniform
