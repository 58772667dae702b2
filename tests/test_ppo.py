"""PPO over lockstep games (learning/ppo.py): it measurably learns a tiny game whose best
move is known, the same seed gives the same model on a CPU, and the actor hands the
learner each update's experience and keeps nothing of it.

High card: each of two players holds two cards of six ranks and plays one; the higher
card played wins.  Against a random opponent the best move is to play one's higher
card; a policy that has learnt it wins far more often than one that plays at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from conftest import needs_native_default

torch = pytest.importorskip("torch")

from cardlang.agents.neural.model import GameIdentity, NeuralModel  # noqa: E402
from cardlang.agents.neural.network import NetConfig  # noqa: E402
from test_neural import HIGH_CARD  # noqa: E402  (the same two-card game)

from cardlang import load_game  # noqa: E402
from cardlang.env.vector import VectorEnv  # noqa: E402
from cardlang.learning.lanes import Lane  # noqa: E402
from cardlang.learning.ppo import Experience, PPOConfig  # noqa: E402
from cardlang.learning.ppo_actor import PPOActor  # noqa: E402
from cardlang.learning.ppo_learner import PPOLearner  # noqa: E402

pytestmark = needs_native_default()


class SelfPlay:
    """A PPO actor and learner on one model in one process: each update is played, then
    learnt from (a run does the same across processes, its actors one update ahead)."""

    def __init__(
        self, lanes: VectorEnv | Sequence[Lane], model: NeuralModel, config: PPOConfig, seed: int
    ) -> None:
        self.actor = PPOActor(lanes, model, config, seed)
        kinds = {lane.kind for lane in self.actor.lanes}
        self.learner = PPOLearner(model, config, seed, kinds=kinds)
        self.model, self.net, self.config = model, model.net, config

    def update(self) -> Experience:
        """One update played and learnt from; the experience handed over."""
        self.actor.receive(None, self.learner.shared())
        experience = self.actor.collect()
        self.learner.learn(experience)
        return experience


def high_card_model(seed: int) -> NeuralModel:
    torch.manual_seed(seed)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    config = NetConfig(seats=2, width=32, hidden=64, body="deepsets")
    return NeuralModel(config, GameIdentity.of(game), device="cpu")


def against_random(seed: int, **settings: Any) -> SelfPlay:
    """Seat 0 of high card the learner's, the random agent the other (inside the engine)."""
    model = high_card_model(seed)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    env = VectorEnv(game, 64, seats=0, opponents="random", tokens=model.table, seed=seed)
    return SelfPlay(env, model, PPOConfig(horizon=4, lr=3e-3, **settings), seed)


def test_ppo_learns_to_play_the_higher_card() -> None:
    """Playing the higher card wins 2/3 of the games against a random opponent (exactly:
    the opponent's card is below one's higher card in 2/3 of the deals and draws);
    playing at random wins 1/2.  After 25 updates (6,400 decisions, seconds of CPU) the
    greedy policy wins at least 0.62 of 1,000 games (3 sd below 2/3, 8 above 1/2)."""
    torch.set_num_threads(1)
    pair = against_random(seed=0)
    for _ in range(25):
        pair.update()
    assert pair.actor.greedy(1000, seat=0) >= 0.62


def test_the_same_seed_gives_the_same_model() -> None:
    torch.set_num_threads(1)
    weights = []
    for _ in range(2):
        pair = against_random(seed=3)
        for _ in range(3):
            pair.update()
        weights.append({k: v.clone() for k, v in pair.net.state_dict().items()})
    for key in weights[0]:
        assert torch.equal(weights[0][key], weights[1][key]), key


def test_the_schedules_move_the_entropy_weight_and_the_rate_linearly() -> None:
    """--entropy-final and --lr-final: each update learns with the values its count gives,
    from the starting ones at update 0 to the final ones at ``anneal_updates`` and on."""
    torch.set_num_threads(1)
    pair = against_random(seed=0, entropy=0.1, entropy_final=0.0, lr_final=1e-3, anneal_updates=4)
    learner = pair.learner
    seen = []
    for _ in range(6):
        pair.update()  # learn() counts the update it makes
        seen.append((learner.entropy_weight, learner.optimizer.param_groups[0]["lr"]))
    weights = [round(w, 6) for w, _ in seen]
    rates = [round(r, 6) for _, r in seen]
    assert weights == [0.075, 0.05, 0.025, 0.0, 0.0, 0.0]
    assert rates == [0.0025, 0.002, 0.0015, 0.001, 0.001, 0.001]
    assert PPOConfig(entropy=0.3).scheduled(0.3, None, 10) == 0.3  # none: constant


def test_the_actor_hands_over_each_updates_experience_and_keeps_none() -> None:
    """``collect`` returns the update's learnt steps (returns and advantages set, each a
    decision of the learner's seat) and the results of the games that ended, and keeps
    neither: the next update's experience is new games only.  The learner counts an
    update even when no game ended (its schedules follow the count)."""
    torch.set_num_threads(1)
    pair = against_random(seed=1)
    first = pair.actor.collect()
    assert first.steps and first.results
    assert all(step.returns is not None and step.seat == 0 for step in first.steps)
    assert all(kind == "agent" and seat == 0 for kind, seat, _ in first.results)
    second = pair.actor.collect()
    assert not {id(s) for s in second.steps} & {id(s) for s in first.steps}
    assert len(second.results) == len(second.steps)  # high card: one decision a seat
    assert pair.learner.learn(Experience()) == {} and pair.learner.updates == 1
    figures = pair.learner.learn(second)
    assert figures["steps"] == len(second.steps) and pair.learner.updates == 2
    assert {"policy", "value", "entropy", "kl"} <= figures.keys()


def test_plain_ppo_calls_no_remedy() -> None:
    """The supported path: without the experimental settings neither side holds a
    remedy, and an average lane, which needs one, is refused."""
    from cardlang.learning.lanes import AVERAGE

    pair = against_random(seed=2)
    assert pair.actor.remedies == [] and pair.learner.remedies == []
    model = high_card_model(2)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    env = VectorEnv(game, 8, seats="all", tokens=model.table, seed=2)
    with pytest.raises(ValueError, match="average lane needs a remedy"):
        PPOActor([Lane(env, AVERAGE)], model, PPOConfig(horizon=4), seed=2)
