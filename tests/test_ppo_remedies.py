"""PPO's experimental remedies (learning/experimental/: the magnet, the average policy,
rollouts), each called by the actor and the learner through the seam of remedy.py.

The game is high card (test_neural's): two players, two cards each, the higher card
played wins; in self-play every seat is the learner's.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import pytest
from conftest import needs_native_default

torch = pytest.importorskip("torch")

from test_neural import HIGH_CARD  # noqa: E402  (the same two-card game)
from test_ppo import SelfPlay, against_random, high_card_model  # noqa: E402

from cardlang import load_game  # noqa: E402
from cardlang.env.vector import VectorEnv  # noqa: E402
from cardlang.learning.experimental.average import AveragePolicy, AverageRemedy  # noqa: E402
from cardlang.learning.experimental.magnet import Magnet  # noqa: E402
from cardlang.learning.experimental.rollouts import spare_rows  # noqa: E402
from cardlang.learning.lanes import AVERAGE, SELF, Lane, LaneGame  # noqa: E402
from cardlang.learning.ppo import PPOConfig  # noqa: E402
from cardlang.learning.ppo_actor import PPOActor  # noqa: E402
from cardlang.learning.remedy import Remedy  # noqa: E402
from cardlang.learning.steps import Step, collate_steps, pack_steps, unpack_steps  # noqa: E402

pytestmark = needs_native_default()


def _remedy(remedies: list[Remedy], kind: type) -> Any:
    (found,) = [r for r in remedies if isinstance(r, kind)]
    return found


def _divergence_from(pair: SelfPlay, reference: torch.nn.Module) -> float:
    """Mean KL(the policy || reference) over the decisions of the next update."""
    steps = pair.actor.collect().steps
    x = collate_steps(steps)
    probe = Magnet(pair.config, reference)  # its magnet: a frozen copy of the reference
    with torch.no_grad():
        logp = torch.log_softmax(pair.net(**x)[0], dim=-1)
        return probe.divergence(x, logp.exp(), logp).item()


def test_the_magnet_holds_the_policy_near_it() -> None:
    """With a heavy magnet that is never refreshed (the starting policy), 25 updates move
    the policy far less from where it started than the same updates without one."""
    torch.set_num_threads(1)
    moved = {}
    for weight in (0.0, 5.0):
        pair = against_random(seed=0, magnet=weight)
        start = copy.deepcopy(pair.net).eval()
        for _ in range(25):
            pair.update()
        moved[weight] = _divergence_from(pair, start)
    assert moved[0.0] > 0.05, moved
    assert moved[5.0] < moved[0.0] / 3, moved


def test_a_refreshed_magnet_is_the_policy_and_survives_a_checkpoint() -> None:
    """Every second update the magnet becomes the policy as it then is: after three, the
    policy learnt in the first; a checkpoint's state carries it to a resumed learner."""
    torch.set_num_threads(1)
    pair = against_random(seed=1, magnet=0.5, magnet_every=2)
    policies = []
    for _ in range(3):
        pair.update()
        policies.append({k: v.clone() for k, v in pair.net.state_dict().items()})
    magnet = _remedy(pair.learner.remedies, Magnet).magnet.state_dict()
    assert all(torch.equal(magnet[k], policies[0][k]) for k in magnet)
    assert not all(torch.equal(magnet[k], policies[2][k]) for k in magnet)
    assert all(torch.equal(magnet[k], v) for k, v in pair.actor.state()["magnet"].items())
    resumed = against_random(seed=1, magnet=0.5, magnet_every=2)
    resumed.learner.load_state(pair.learner.state())
    again = _remedy(resumed.learner.remedies, Magnet).magnet.state_dict()
    for key, value in magnet.items():
        assert torch.equal(value, again[key]), key


def _offered_steps(pair: SelfPlay, count: int) -> list:
    """``count`` decisions of the actor's game with their move probabilities."""
    steps: list = []
    while len(steps) < count:
        steps.extend(pair.actor.collect().steps)
    return steps[:count]


def _self_play(seed: int, **settings: Any) -> SelfPlay:
    """Every seat of high card the learner's (a self lane), with ``settings``."""
    model = high_card_model(seed)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    env = VectorEnv(game, 64, seats="all", tokens=model.table, seed=seed)
    return SelfPlay(env, model, PPOConfig(horizon=4, lr=3e-3, **settings), seed)


def _step(seat: int, logp: float, magnet_logp: float, value: float = 0.5) -> Step:
    empty = np.zeros((0, 16), dtype=np.int32)
    return Step(
        tokens=(empty, np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros((0, 3), np.float32)),
        actions=empty,
        chosen=0,
        logp=logp,
        value=value,
        seat=seat,
        magnet_logp=magnet_logp,
    )


def test_the_reward_transformation_pays_the_mover_and_charges_the_opponent() -> None:
    """R-NaD's rewards (--magnet-reward): a move's mover is paid -eta log(pi / magnet)
    of it and, in a two-player game, the other seat the opposite, at that seat's latest
    decision; with lambda 1 each advantage is the seat's outcome plus the rewards from
    its decision on, less the value."""
    eta = 0.5
    pair = _self_play(0, magnet=eta, magnet_reward=True, lam=1.0)
    magnet = _remedy(pair.actor.remedies, Magnet)
    ratios = [0.2, -0.4, 0.8, 0.1, -1.0]  # log pi - log magnet of each move
    seats = [0, 1, 0, 1, 1]
    steps = [
        _step(s, r - 1.0, -1.0, value=0.1 * k)
        for k, (s, r) in enumerate(zip(seats, ratios, strict=True))
    ]
    p = [-eta * r for r in ratios]
    expected = {0: p[0] - p[1], 1: p[1] - p[2], 2: p[2] - p[3] - p[4], 3: p[3], 4: p[4]}
    got = magnet.rewards(steps, players=2)
    assert got.keys() == expected.keys()
    assert all(got[k] == pytest.approx(v) for k, v in expected.items())
    three = magnet.rewards(steps, players=3)  # not zero-sum: the mover's own only
    assert all(three[k] == pytest.approx(p[k]) for k in range(5))

    result = dataclasses.make_dataclass("Result", ["credits"])([1.0, 0.0])
    game = LaneGame(steps=steps)
    pair.actor._finish(game, result)
    outcome = {0: 1.0, 1: 0.0}
    for k, step in enumerate(steps):
        later = sum(expected[j] for j in range(k, 5) if seats[j] == seats[k])
        assert step.advantage == pytest.approx(outcome[seats[k]] + later - step.value)
    pair.config.magnet_reward = False  # the pull in the loss instead: no rewards
    assert magnet.rewards(steps, players=2) == {}


def test_the_movers_magnet_odds_are_recorded_while_acting() -> None:
    """Each learnt decision carries the magnet's log-probability of its move: the
    policy's own right after the magnet is refreshed, and apart once the policy learns."""
    torch.set_num_threads(1)
    pair = _self_play(2, magnet=0.5, magnet_reward=True)
    steps = pair.actor.collect().steps
    assert steps
    assert np.allclose([s.magnet_logp for s in steps], [s.logp for s in steps], atol=1e-5)
    for _ in range(6):
        pair.update()
    gaps = [abs(s.magnet_logp - s.logp) for s in pair.actor.collect().steps]
    assert max(gaps) > 0.01, max(gaps)


@pytest.mark.parametrize("recent", [False, True])
def test_the_reservoir_keeps_every_decision_alike_or_the_recent_ones(recent: bool) -> None:
    """Of 4,000 decisions offered to a reservoir of 1,000: Vitter's algorithm R keeps as
    many of the first half as of the second (500 each; binomial sd about 14); the recent
    window keeps mostly the second half (the first about 140: e^-2 of its slots last)."""
    pair = against_random(seed=0, average=1)  # the steps keep their probabilities
    average = AveragePolicy(pair.net, 1_000, 1e-3, 64, seed=0, recent=recent)
    steps = _offered_steps(pair, 4_000)
    assert all(s.probs is not None and len(s.probs) == len(s.actions) for s in steps)
    # as an actor sends them: views into one update's packed arrays, each tagged with
    # its place in the offer
    steps = [
        dataclasses.replace(s, chosen=i) for i, s in enumerate(unpack_steps(pack_steps(steps)))
    ]
    average.add(steps)
    assert len(average.reservoir) == 1_000 and average.seen == 4_000
    first = sum(s.chosen < 2_000 for s in average.reservoir)
    assert (80 <= first <= 220) if recent else (430 <= first <= 570), first
    # what it keeps owns its memory: a view would keep the whole update's arrays alive
    for s in average.reservoir:
        assert all(a.base is None for a in (*s.tokens, s.actions, s.probs))


@pytest.mark.parametrize("linear", [False, True])
def test_the_average_network_learns_the_mean_of_the_policies(linear: bool) -> None:
    """The same two-move decisions offered twice, played in update 1 by a policy that
    always plays the move with the smaller action token and in update 3 by one that
    always plays the other: the average network learns half and half, or, weighted
    linearly (update 1 counts once, update 3 three times), a quarter and three quarters
    (on the mean over decisions: uniform weighting would give a half).
    (The moves are told apart by their tokens, which the network reads, not by their
    place in the list of options, which it does not.)"""
    pair = against_random(seed=0, average=1)
    average = AveragePolicy(pair.net, 10_000, 3e-3, 64, seed=0, linear=linear)
    steps = [s for s in _offered_steps(pair, 400) if len(s.actions) == 2]
    smaller = [int(tuple(s.actions[1]) < tuple(s.actions[0])) for s in steps]
    for update, plays_smaller in ((1, True), (3, False)):
        offered = []
        for s, k in zip(steps, smaller, strict=True):
            probs = np.zeros(2)
            probs[k if plays_smaller else 1 - k] = 1.0
            offered.append(dataclasses.replace(s, probs=probs))
        average.add(offered, update)
    average.learn(300)
    with torch.no_grad():
        logits, _ = average.net(**collate_steps(steps))
    probs = torch.softmax(logits, dim=-1)[torch.arange(len(steps)), torch.tensor(smaller)]
    target = 0.25 if linear else 0.5
    # the weighted loss's minibatch noise moves single decisions further: over seeds 0-3
    # the linear mean lay in 0.24-0.30 and one decision up to 0.18 off (uniform: 0.03)
    assert abs(float(probs.mean()) - target) < 0.06
    assert float((probs - target).abs().max()) < (0.2 if linear else 0.1)


def test_the_average_policy_survives_a_checkpoint(tmp_path) -> None:
    """Its state is tensors only (read back with weights_only=True) and restores the
    reservoir, the network and the random states exactly."""
    torch.set_num_threads(1)
    pair = against_random(seed=2, average=300, average_linear=True)
    average = _remedy(pair.learner.remedies, AverageRemedy).policy
    for _ in range(3):
        pair.update()
    torch.save(pair.learner.state(), tmp_path / "state.pt")
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    resumed = AveragePolicy(pair.net, 300, pair.config.lr, pair.config.minibatch, 2, linear=True)
    resumed.load_state(state["average"])
    kept = average.reservoir
    assert resumed.seen == average.seen and len(resumed.reservoir) == len(kept)
    assert resumed.played == average.played and set(resumed.played) == {1, 2, 3}
    for a, b in zip(kept, resumed.reservoir, strict=True):
        for x, y in zip(a.tokens, b.tokens, strict=True):
            assert np.array_equal(x, y)
        assert np.array_equal(a.actions, b.actions) and np.array_equal(a.probs, b.probs)
    later = _offered_steps(pair, 50)
    average.add(later)
    resumed.add(later)
    assert average.learn(2) == resumed.learn(2)


class _Watched(torch.nn.Module):
    """A network that records how many decisions it was asked to play (not to learn)."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net, self.rows = net, 0

    def forward(self, **x: torch.Tensor):  # type: ignore[no-untyped-def]
        if not self.training:
            self.rows += len(x["action_mask"])
        return self.net(**x)


def test_an_average_lane_answers_the_average_policy() -> None:
    """``average`` lanes (fictitious self-play): in each game one seat is the current
    policy, learnt from and offered to the reservoir, and the other moves by the average
    network; every decision is one or the other, never both."""
    torch.set_num_threads(1)
    model = high_card_model(4)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    env = VectorEnv(game, 32, seats="all", opponents="random", tokens=model.table, seed=4)
    pair = SelfPlay([Lane(env, AVERAGE)], model, PPOConfig(horizon=4, lr=3e-3, average=1_000), 4)
    playing = _remedy(pair.actor.remedies, AverageRemedy)
    learning = _remedy(pair.learner.remedies, AverageRemedy).policy
    watched = _Watched(playing.policy.net).eval()
    pair.actor._opponents[AVERAGE] = watched  # what plays the average lane's other seats
    seats, results = [], []
    for _ in range(6):
        experience = pair.update()
        seats.extend(step.seat for step in experience.steps)
        results.extend(experience.results)
        assert learning.seen >= len(seats)
    learners = [seat for kind, seat, _ in results if kind == AVERAGE]
    assert set(learners) == {0, 1}  # the learner's seat is drawn per game
    # High card: one decision per seat and game, so the learner made one per game and
    # the average policy the other (decisions of games still running count too)
    assert len(seats) == len(results)
    assert watched.rows >= len(results)
    assert watched.rows + len(seats) <= 2 * (len(results) + env.n)


def test_the_learner_shares_the_average_only_with_actors_that_play_it() -> None:
    """The actors get the average network's weights before each update only where the
    pool has an average lane; an actor's average then plays as the learner's."""
    plain = against_random(seed=5, average=100)
    assert plain.learner.shared() == {}
    model = high_card_model(5)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    env = VectorEnv(game, 16, seats="all", tokens=model.table, seed=5)
    pair = SelfPlay([Lane(env, AVERAGE)], model, PPOConfig(horizon=4, average=100), 5)
    pair.update()
    learnt = _remedy(pair.learner.remedies, AverageRemedy).policy.net.state_dict()
    shared = pair.learner.shared()["average"]
    pair.actor.receive(None, {"average": shared})
    played = _remedy(pair.actor.remedies, AverageRemedy).policy.net.state_dict()
    assert all(torch.equal(played[k], learnt[k]) for k in learnt)


def _rollouts(seed: int, seats: Any = "all", rollouts: int = 1, **settings: Any) -> SelfPlay:
    """High card with every move of each learnt decision valued by ``rollouts``
    rollouts, forked into spare rows of the lane's env."""
    model = high_card_model(seed)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    kind = SELF if seats == "all" else "random"
    rows, spare = 64, spare_rows(kind, 64, rollouts)
    env = VectorEnv(game, rows + spare, seats=seats, tokens=model.table, seed=seed)
    ppo = PPOConfig(horizon=4, lr=3e-3, rollouts=rollouts, **settings)
    return SelfPlay([Lane(env, kind, spare)], model, ppo, seed)


def test_rollouts_fork_neither_past_nor_average_lanes() -> None:
    """Their other seats are no current policy to roll out: no spare rows for them, and
    a lane of theirs given some is refused."""
    assert spare_rows("past", 64, 1) == spare_rows(AVERAGE, 64, 1) == 0
    assert spare_rows("bmu", 64, 1) == spare_rows(SELF, 64, 1) > 0
    model = high_card_model(6)
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    env = VectorEnv(game, 16, seats="all", tokens=model.table, seed=6)
    with pytest.raises(ValueError, match="rollouts fork self and agent lanes"):
        PPOActor([Lane(env, "past", 8)], model, PPOConfig(horizon=4, rollouts=1), seed=6)


def _ranks(pair: SelfPlay, step: Step) -> list[int]:
    """Each move's card rank (1-6), read from its action tokens' component names."""
    names = pair.model.table.names
    ranks = []
    for row in step.actions:
        found = [names[i] for i in row if i and names[i].startswith("comp:RANK=")]
        ranks.append(RANKS.index(found[0].split("=")[1]) + 1)
    return ranks


RANKS = ["ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX"]


@pytest.mark.parametrize("rollouts", [1, 3])
def test_rollouts_value_every_move_on_the_cards_as_they_lie(rollouts: int) -> None:
    """High card in self-play: the second player's moves end the game, so their values
    from rollouts are exact (a win 1, a loss 0): the played move's from the game itself,
    the other's from its fork, on the same cards.  So every move's value is 0 or 1 and
    the higher card's is never below the lower's; the first player's higher card is
    worth more on average."""
    torch.set_num_threads(1)
    pair = _rollouts(5, rollouts=rollouts)
    steps = pair.actor.collect().steps
    assert steps and all(s.move_advantages is not None for s in steps)
    first_gaps = []
    for step in steps:
        assert step.move_advantages is not None and step.returns is not None
        assert step.probs is not None
        high, low = np.argsort(_ranks(pair, step))[::-1]
        advantages = step.move_advantages
        assert float(step.probs @ advantages) == pytest.approx(0.0, abs=1e-6)
        if step.seat == 1:
            values = advantages + (step.returns[0] - advantages[step.chosen])
            assert np.allclose(values, np.round(values), atol=1e-6)
            assert set(np.round(values).tolist()) <= {0.0, 1.0}
            assert advantages[high] >= advantages[low] - 1e-6
        else:
            first_gaps.append(advantages[high] - advantages[low])
    assert np.mean(first_gaps) > 0.15, np.mean(first_gaps)


def test_ppo_with_rollouts_learns_the_higher_card_and_is_reproducible() -> None:
    """One seat against the random agent inside the engine (forked with the games):
    after 10 updates the greedy policy wins at least 0.62 of 1,000 games (the best play
    2/3, random play 1/2), and the same seed gives the same weights."""
    torch.set_num_threads(1)
    weights = []
    for _ in range(2):
        pair = _rollouts(0, seats=0)
        for _ in range(10):
            pair.update()
        weights.append({k: v.clone() for k, v in pair.net.state_dict().items()})
    assert pair.actor.greedy(1000, seat=0) >= 0.62
    for key in weights[0]:
        assert torch.equal(weights[0][key], weights[1][key]), key


def test_every_moves_advantages_survive_packing() -> None:
    """An actor sends its steps packed: the moves' advantages come back, and a step
    learnt without them (too few spare rows free) comes back without."""
    pair = _rollouts(1)
    steps = pair.actor.collect().steps[:3]
    steps[1] = dataclasses.replace(steps[1], move_advantages=None)
    back = unpack_steps(pack_steps(steps))
    assert back[1].move_advantages is None
    for mine, theirs in zip(steps[::2], back[::2], strict=True):
        np.testing.assert_array_equal(mine.move_advantages, theirs.move_advantages)


def test_the_supported_code_reaches_the_room_only_through_the_seam(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """pyproject.toml's experimental-room contract: learning/seam.py may import the room,
    and an import of it anywhere else (here the learner's) breaks the contract."""
    pytest.importorskip("importlinter", reason="import-linter is in the dev extra")
    from test_architecture import lint_with_an_import

    done = lint_with_an_import(
        tmp_path, "learning/ppo_learner.py", "cardlang.learning.experimental.magnet"
    )
    assert done.returncode != 0
    assert "cardlang.learning.ppo_learner -> cardlang.learning.experimental.magnet" in done.stdout
