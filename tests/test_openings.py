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
    config = PPOConfig(forced_openings=chance, opening_cards=cards)
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
        "--backend", "serial", "--forced-openings", "1",
    ]  # fmt: skip
    assert main(command) == 0
    config = read_checkpoint(out / "checkpoint.pt")["training"]["config"]
    assert config["forced_openings"] == 1.0 and len(config["forced_cards"]) == 26
    assert "--forced-openings 1" in (out / "MODEL_CARD.md").read_text()


def test_forced_openings_need_ppo_and_a_game_that_deals_cards() -> None:
    from helpers import run_main

    for game, extra, words in (
        ("games/hearts.rcy", [], "deals no cards"),
        ("games/dominion.rcy", ["--algorithm", "search"], "only --algorithm ppo"),
        ("games/dominion.rcy", ["--forced-openings", "1.5"], "--forced-openings"),
    ):
        result = run_main("train", game, "--out", "/tmp/x", "--forced-openings", "0.5", *extra)
        assert result.returncode == 2, (extra, result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr
