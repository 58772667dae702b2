"""Forced openings (learning/openings.py, ``cardlang train --forced-openings``): a share
of the learner's games open with a kingdom card it did not choose, and that move is
not learnt from (issue 54: players that can use cards they would not buy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardlang.compiler.load import load_game

ROOT = Path(__file__).resolve().parent.parent
DOMINION = ROOT / "games" / "dominion.rcy"

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def dominion():  # type: ignore[no-untyped-def]
    return load_game(DOMINION, params={"KINGDOM": "RANDOM"})


def test_the_cards_a_game_deals_are_its_kingdom_cards(dominion) -> None:  # type: ignore[no-untyped-def]
    from cardlang.language.params import dealt_cards

    cards = dealt_cards(dominion.checked.game)
    assert len(cards) == 26 and "CHAPEL" in cards and "WITCH" in cards
    assert not {"COPPER", "PROVINCE", "CURSE", "FIRST-GAME", "NONE"} & set(cards)
    hearts = load_game(ROOT / "games" / "hearts.rcy")
    assert dealt_cards(hearts.checked.game) == ()


def _actor(game, chance: float, seed: int = 1):  # type: ignore[no-untyped-def]
    from cardlang.agents.neural.model import GameIdentity, NeuralModel
    from cardlang.agents.neural.network import NetConfig

    from cardlang.env.vector import VectorEnv
    from cardlang.language.params import dealt_cards
    from cardlang.learning.ppo import PPOConfig
    from cardlang.learning.ppo_actor import PPOActor

    model = NeuralModel(NetConfig(names=2048, width=8, body="deepsets"), GameIdentity.of(game))
    env = VectorEnv(game, 24, seats=0, opponents="bmu", tokens=model.table, seed=2)
    cards = dealt_cards(game.checked.game)
    config = PPOConfig(forced_openings=chance, kingdom=cards)
    return PPOActor(env, model, config, seed=seed), env, cards


def test_a_forced_opening_gains_a_kingdom_card_and_is_not_learnt_from(dominion) -> None:  # type: ignore[no-untyped-def]
    actor, env, cards = _actor(dominion, chance=1.0)
    openings = actor.openings
    assert openings is not None
    taken: list[str] = []
    overrule = openings.overrule

    def watched(env_, picked, learning):  # type: ignore[no-untyped-def]
        forced = overrule(env_, picked, learning)
        for i in np.flatnonzero(forced):
            situation = env_.vocabulary.situations[env_.situation[i]]
            taken.append(env_.vocabulary.keys(situation)[env_.action_key[i, picked[i]]])
        return forced

    openings.overrule = watched  # type: ignore[method-assign]
    lane = actor.lanes[0]
    decisions = 0
    for _ in range(60):
        decisions += int(lane.learns().sum())
        actor._step_lanes()
        if len(taken) >= env.n:
            break
    assert not actor._results  # the first games, still playing
    recorded = sum(len(game.steps) for game in lane.games)
    # every row's learner opened with a kingdom card, once, none of them learnt from
    assert len(taken) == env.n
    assert recorded == decisions - len(taken)
    for key in taken:
        assert any(f"SUPPLY:{card}" in key for card in cards), key
    assert len({key for key in taken}) > 3  # drawn, not one card for every game
    assert not openings._pending[id(env)][:, 0].any()


def test_no_opening_is_forced_by_chance_zero_and_the_draws_resume(dominion) -> None:  # type: ignore[no-untyped-def]
    actor, env, _ = _actor(dominion, chance=0.5)
    pending = actor.openings._pending[id(env)][:, 0]  # type: ignore[union-attr]
    assert 0 < pending.sum() < env.n  # about half
    state = actor.state()
    again, env2, _ = _actor(dominion, chance=0.5, seed=99)
    again.load_state(state)
    again.openings.draw(env2, range(env2.n))  # type: ignore[union-attr]
    actor.openings.draw(env, range(env.n))  # type: ignore[union-attr]
    assert (again.openings._pending[id(env2)] == actor.openings._pending[id(env)]).all()  # type: ignore[union-attr]
    off, _, _ = _actor(dominion, chance=0.0)
    assert off.openings is None


def test_train_forces_openings_and_keeps_the_cards_with_the_run(tmp_path: Path) -> None:
    from cardlang.agents.neural.model import read_checkpoint

    from cardlang.cli.main import main

    out = tmp_path / "run"
    command = [
        "train", str(DOMINION), "--param", "kingdom=random", "--out", str(out),
        "--rounds", "1", "--updates", "1", "--envs", "8", "--horizon", "8", "--width", "16",
        "--hidden", "16", "--evaluate-every", "0", "--opponents", "self@1",
        "--backend", "serial", "--forced-openings", "1", "--opponents", "self@1,barred@1",
    ]  # fmt: skip
    assert main(command) == 0
    config = read_checkpoint(out / "checkpoint.pt")["training"]["config"]
    assert config["forced_openings"] == 1.0 and len(config["kingdom_cards"]) == 26
    card = (out / "MODEL_CARD.md").read_text()
    assert "--forced-openings 1" in card and "barred@1" in card


def test_forced_openings_need_ppo_and_a_game_that_deals_cards() -> None:
    from helpers import run_main

    for game, extra, words in (
        ("games/hearts.rcy", [], "deals no cards"),
        ("games/dominion.rcy", ["--algorithm", "search"], "only --algorithm ppo"),
        ("games/dominion.rcy", ["--forced-openings", "1.5"], "--forced-openings"),
        ("games/hearts.rcy", ["--forced-openings", "0", "--opponents", "barred"], "barred"),
    ):
        result = run_main("train", game, "--out", "/tmp/x", "--forced-openings", "0.5", *extra)
        assert result.returncode == 2, (extra, result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr


# ---------------------------------------------------------------- barred lanes


def test_a_barred_lanes_other_seat_never_takes_its_barred_card(dominion) -> None:  # type: ignore[no-untyped-def]
    """``--opponents barred``: the learner against the current policy barred from a
    kingdom card drawn each game (learning/barring.py); the learner's seat alone is
    learnt from, and the barred seat never picks an option that binds its card."""
    from cardlang.agents.neural.model import GameIdentity, NeuralModel
    from cardlang.agents.neural.network import NetConfig

    from cardlang.env.vector import VectorEnv
    from cardlang.language.params import dealt_cards
    from cardlang.learning.lanes import BARRED, Lane
    from cardlang.learning.ppo import PPOConfig
    from cardlang.learning.ppo_actor import PPOActor

    model = NeuralModel(NetConfig(names=2048, width=8, body="deepsets"), GameIdentity.of(dominion))
    env = VectorEnv(dominion, 24, seats="all", tokens=model.table, seed=3)
    cards = dealt_cards(dominion.checked.game)
    config = PPOConfig(kingdom=cards)
    lane = Lane(env, BARRED)
    actor = PPOActor([lane], model, config, seed=4)
    assert actor.bars is not None and (lane.barred[: lane.main] >= 0).all()
    for i in range(env.n):  # drawn among the cards the row's game deals
        assert cards[lane.barred[i]] in env.open_card_kinds(i)
    assert len(set(lane.barred)) > 3
    binds = np.stack([env.vocabulary.keys_binding([c]) for c in cards])
    barred_moves = bound = 0
    for _ in range(150):
        seats, learner, card = env.seat.copy(), lane.learner.copy(), lane.barred.copy()
        situation, keys = env.situation.copy(), env.action_key.copy()
        counts = env.action_count.copy()
        learnt_before = sum(len(g.steps) for g in lane.games) + len(actor._finished)
        learning = int((seats == learner).sum())
        picked: list[np.ndarray] = []
        step = env.step

        def watched(actions, _picked=picked, step=step):  # type: ignore[no-untyped-def]
            _picked.append(np.asarray(actions).copy())
            return step(actions)

        env.step = watched  # type: ignore[method-assign]
        actor._step_lanes()
        env.step = step  # type: ignore[method-assign]
        learnt = sum(len(g.steps) for g in lane.games) + len(actor._finished) - learnt_before
        assert learnt == learning  # the barred seat's moves are not learnt from
        for i in np.flatnonzero(seats != learner):
            row_binds = binds[card[i], situation[i], np.clip(keys[i, : counts[i]], 0, None)]
            barred_moves += 1
            if row_binds.all():
                continue  # every option binds it: left to the policy
            taken = list(keys[i, : counts[i]]).index(picked[0][i])
            bound += int(row_binds[taken])
    assert barred_moves > 100 and bound == 0


def test_a_games_open_card_kinds_are_the_kingdom_it_deals_on_either_engine(dominion) -> None:  # type: ignore[no-untyped-def]
    """``VectorEnv.open_card_kinds``, what barred lanes draw from: at a random kingdom's
    start, its ten kingdom cards (the randomizers it leaves are hidden), the same on both
    engines, and other kingdoms in other games."""
    from cardlang.env.vector import VectorEnv
    from cardlang.language.params import dealt_cards

    cards = set(dealt_cards(dominion.checked.game))
    kingdoms = {}
    for engine in ("python", "native"):
        env = VectorEnv(
            "games/dominion.rcy", 4, params={"KINGDOM": "random"}, engine=engine, batch=False
        )
        env.reset(seed=11)
        kingdoms[engine] = [env.open_card_kinds(i) & cards for i in range(env.n)]
    assert kingdoms["python"] == kingdoms["native"]
    assert all(len(k) == 10 for k in kingdoms["native"])
    assert len({frozenset(k) for k in kingdoms["native"]}) > 1
