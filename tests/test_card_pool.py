"""Made-up kingdom cards (language/card_pool.py): the pool a general model learns effects
from, so that it reads a designer's card it never met (issue 54)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardlang.compiler.load import load_game
from cardlang.language.card_pool import TRASH_SITUATION, made_up_cards, pooled
from cardlang.language.effects import card_effects
from cardlang.runs.simulate import run_batch

ROOT = Path(__file__).resolve().parent.parent
DOMINION = ROOT / "games" / "dominion.rcy"


@pytest.fixture(scope="module")
def pool_game():  # type: ignore[no-untyped-def]
    return load_game(text=pooled(DOMINION.read_text(), 30, seed=0), name="pool.rcy")


def test_the_same_seed_makes_the_same_cards_and_another_seed_others() -> None:
    text = DOMINION.read_text()
    assert pooled(text, 12, seed=4) == pooled(text, 12, seed=4)
    assert made_up_cards(12, 4) != made_up_cards(12, 5)
    names = [c.name for c in made_up_cards(30, 0)]
    assert len(set(names)) == 30 and names[26] == "MADE-UP-BA"


def test_the_pooled_file_checks_and_lists_the_cards_as_kingdom_cards(pool_game) -> None:  # type: ignore[no-untyped-def]
    made = made_up_cards(30, 0)
    kinds = pool_game.kind_attributes
    for card in made:
        assert card.name in kinds
        attrs = kinds[card.name]
        assert (attrs["COST"], attrs["CARDS"], attrs["COINS"]) == (
            card.cost,
            card.cards,
            card.coins,
        )
        assert 2 <= card.cost <= 8
    assert TRASH_SITUATION in pool_game.situations
    # a kingdom of made-up cards alone is one the rules accept, and plays to its end
    kingdom = ",".join(c.name for c in made[:10])
    game = load_game(
        text=pooled(DOMINION.read_text(), 30, seed=0), name="pool.rcy", params={"KINGDOM": kingdom}
    )
    summary = run_batch(game, games=20, seed=1, agent_specs=["random", "random"])
    assert summary.failed == 0 and summary.completed == 20


def test_a_made_up_card_reads_as_the_base_card_that_does_the_same(pool_game) -> None:  # type: ignore[no-untyped-def]
    """What the pool teaches is what a base card's effects say: a made-up curser's Curse
    is Witch's, a made-up trasher's choice is Chapel's."""
    effects = card_effects(pool_game.checked)
    made = {c.name: c for c in made_up_cards(30, 0)}
    curse = "eff:PLAY:OTHERS:GAIN=CURSE?"
    assert curse in effects["WITCH"]
    cursers = [name for name, c in made.items() if c.curse]
    assert cursers and all(curse in effects[name] for name in cursers)
    assert all(curse not in effects[name] for name, c in made.items() if not c.curse)
    trash = set(effects["CHAPEL"])
    assert all(trash <= set(effects[name]) for name, c in made.items() if c.trash)
    for name, card in made.items():
        if card.cards:
            assert f"eff:PLAY:SELF:DRAW={card.cards}" in effects[name]


def test_a_file_of_another_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        pooled((ROOT / "games" / "kuhn_poker.rcy").read_text(), 5, seed=0)


def test_only_makes_the_made_up_cards_the_whole_kingdom_list(tmp_path: Path) -> None:
    """--only: a random kingdom never deals a base card (a model trained so has met none
    of the 26, and judges each as new); the file still checks and plays."""
    from cardlang.report.build import GameFile

    path = tmp_path / "only.rcy"
    path.write_text(pooled(DOMINION.read_text(), 12, seed=2, only=True))
    made = {c.name for c in made_up_cards(12, 2)}
    assert set(GameFile.read(str(path), None).kingdom_cards) == made
    game = load_game(path, params={"KINGDOM": "RANDOM"})
    summary = run_batch(game, games=10, seed=3, agent_specs=["random", "random"])
    assert summary.failed == 0 and summary.completed == 10
