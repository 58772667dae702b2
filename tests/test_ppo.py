"""PPO over lockstep games (learning/ppo.py): it measurably learns a tiny game whose best
move is known, and the same seed gives the same model on a CPU.

High card: each of two players holds two cards of six ranks and plays one; the higher
card played wins.  Against a random opponent the best move is to play one's higher
card; a policy that has learnt it wins far more often than one that plays at random.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cardlang.agents.neural.model import GameIdentity, NeuralModel  # noqa: E402
from cardlang.agents.neural.network import NetConfig  # noqa: E402
from test_neural import HIGH_CARD  # noqa: E402  (the same two-card game)

from cardlang import load_game  # noqa: E402
from cardlang.engine.native import native_available  # noqa: E402
from cardlang.env.vector import VectorEnv  # noqa: E402
from cardlang.learning.ppo import PPOConfig, PPOTrainer  # noqa: E402

pytestmark = pytest.mark.skipif(not native_available(), reason="the native engine is not built")


def _trainer(seed: int) -> PPOTrainer:
    torch.manual_seed(seed)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    config = NetConfig(seats=2, width=32, hidden=64, body="deepsets")
    model = NeuralModel(config, GameIdentity.of(game), device="cpu")
    env = VectorEnv(game, 64, seats=0, opponents="random", tokens=model.table, seed=seed)
    return PPOTrainer(env, model, PPOConfig(horizon=4, lr=3e-3), seed=seed)


def test_ppo_learns_to_play_the_higher_card() -> None:
    """Playing the higher card wins 2/3 of the games against a random opponent (exactly:
    the opponent's card is below one's higher card in 2/3 of the deals and draws);
    playing at random wins 1/2.  After 25 updates (6,400 decisions, seconds of CPU) the
    greedy policy wins at least 0.62 of 1,000 games (3 sd below 2/3, 8 above 1/2)."""
    torch.set_num_threads(1)
    trainer = _trainer(seed=0)
    for _ in range(25):
        trainer.collect()
        trainer.learn()
    assert trainer.greedy(1000, seat=0) >= 0.62


def test_the_same_seed_gives_the_same_model() -> None:
    torch.set_num_threads(1)
    weights = []
    for _ in range(2):
        trainer = _trainer(seed=3)
        for _ in range(3):
            trainer.collect()
            trainer.learn()
        weights.append({k: v.clone() for k, v in trainer.net.state_dict().items()})
    for key in weights[0]:
        assert torch.equal(weights[0][key], weights[1][key]), key
