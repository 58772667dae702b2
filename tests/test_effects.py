"""Effect features: what a card kind's hooks do, read once per game (language/effects.py),
carried by the tokens of both tokenizers, and what a model does with names it never
learnt (issue 54, part 1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import with_kingdom_cards

from cardlang.compiler.load import load_game
from cardlang.information.tokens import NameTable, Tokenizer
from cardlang.language.effects import card_effects

ROOT = Path(__file__).resolve().parent.parent
DOMINION = ROOT / "games" / "dominion.rcy"

#: Witch's body under two other names, and a curser that gives the choice (the issue's)
TWINS = """
(card-kind HAG (COST 5) (TYPES (ACTION, ATTACK))
  (on PLAY
      (call DRAW 'ME 2)
      (call ATTACK 'ME)
      (all (others 'ME) 'V
           ((and (== ('V sto UNAFFECTED) 0) (> (size 'CURSE-PILE) 0))
            (call GAIN 'V (top 'CURSE-PILE) ('V vloc DISCARD))))))
(card-kind CRONE (COST 3) (TYPES (ACTION, ATTACK))
  (on PLAY
      (call DRAW 'ME 2)
      (call ATTACK 'ME)
      (all (others 'ME) 'V
           ((and (== ('V sto UNAFFECTED) 0) (> (size 'CURSE-PILE) 0))
            (call GAIN 'V (top 'CURSE-PILE) ('V vloc DISCARD))))))
"""


def _dominion_with(extra: str, *names: str):  # type: ignore[no-untyped-def]
    text = DOMINION.read_text()
    anchor = "(card-kind CELLAR"
    text = with_kingdom_cards(text.replace(anchor, extra + "\n " + anchor, 1), *names)
    return load_game(text=text, name="dominion-new.rcy")


@pytest.fixture(scope="module")
def dominion():  # type: ignore[no-untyped-def]
    return load_game(DOMINION)


def test_the_base_cards_read_as_what_they_do(dominion) -> None:  # type: ignore[no-untyped-def]
    effects = card_effects(dominion.checked)
    assert set(effects["SMITHY"]) == {"eff:PLAY:SELF:DRAW=3"}
    assert set(effects["LABORATORY"]) == {"eff:PLAY:SELF:DRAW=2", "eff:PLAY:SELF:ACTIONS+1"}
    assert "eff:PLAY:OTHERS:DRAW=1" in effects["COUNCIL-ROOM"]  # what it gives the others
    assert "eff:PLAY:OTHERS:MOVE:HAND>DISCARD~" in effects["MILITIA"]  # the victim chooses
    assert "eff:PLAY:SELF:TRASH=CHOSEN~" in effects["CHAPEL"]
    assert "eff:PLAY:SELF:DRAW=1*" in effects["LIBRARY"]  # drawn in a loop
    assert "eff:PLAY:SELF:LOOK-TOP=2" in effects["SENTRY"]  # (repeat 2 ...) counts
    assert "eff:REACT:SELF:CHOOSE?" in effects["MOAT"]  # hooks other than PLAY
    assert effects["COPPER"] == () and effects["GARDENS"] == ()  # no hooks, no effects
    # every bookkeeping storage is the rules' own business, never an effect
    assert not any("PICKING" in e or "LEFT" in e for es in effects.values() for e in es)


def test_two_kinds_with_the_same_body_have_the_same_effects() -> None:
    game = _dominion_with(TWINS, "HAG", "CRONE")
    effects = card_effects(game.checked)
    assert effects["HAG"] == effects["CRONE"] == effects["WITCH"]


def test_witch_without_its_name_reads_as_an_attack_that_curses_the_others(dominion) -> None:  # type: ignore[no-untyped-def]
    table = NameTable()
    tokenizer = Tokenizer(dominion, table)
    names = {table.names[i] for i in tokenizer.components("WITCH")}
    names.discard("comp:KIND=WITCH")
    assert {"comp:TYPES=ATTACK", "eff:PLAY:OTHERS:GAIN=CURSE?", "eff:PLAY:SELF:DRAW=2"} <= names
    # a card's attributes come first: a token cut at MAX_NAMES keeps them
    listed = [table.names[i] for i in tokenizer.components("SENTRY")]
    first_effect = next(k for k, n in enumerate(listed) if n.startswith("eff:"))
    assert all(n.startswith("comp:") for n in listed[:first_effect])


def test_a_buy_of_a_card_never_met_reads_as_what_the_card_does() -> None:
    """Where the table says so (new models), a pile's option carries its card's
    components: HAG, bought under a name the model never learnt, reads as an Attack
    that does what Witch does; without it, as an unknown pile."""
    game = _dominion_with(TWINS, "HAG", "CRONE")
    learnt = NameTable(pile_cards=True)
    reading = Tokenizer(game, learnt)
    witch = reading.action_names("BUY-PHASE", "0:PILE=SUPPLY:WITCH")
    learnt.frozen, learnt.known = True, frozenset(range(1, len(learnt)))
    hag = reading.action_names("BUY-PHASE", "0:PILE=SUPPLY:HAG")
    names = [learnt.names[i] for i in hag]
    assert names[0] == "act:BUY-PHASE/0" and hag[1] == 0 and hag[2] == 0  # pile, KIND unknown
    effects = [learnt.names[i] for i in witch if learnt.names[i].startswith("eff:")]
    assert effects and names[-len(effects) :] == effects  # what Witch does, all of it
    assert {"comp:TYPES=ATTACK", "comp:COST=5", "eff:PLAY:OTHERS:GAIN=CURSE?"} <= set(names)
    by_name = Tokenizer(game, NameTable())
    assert len(by_name.action_names("BUY-PHASE", "0:PILE=SUPPLY:HAG")) == 2


def test_a_frozen_table_reads_names_never_learnt_as_unknown() -> None:
    table = NameTable(["comp:KIND=SMITHY", "comp:KIND=WITCH"])
    table.frozen = True
    assert table.id("comp:KIND=WITCH") == 2
    table.known = frozenset({1})  # only Smithy's name was learnt
    assert table.id("comp:KIND=SMITHY") == 1
    assert table.id("comp:KIND=WITCH") == 0
    assert table.id("comp:KIND=BAZAAR") == 0  # met first at play


torch = pytest.importorskip("torch")


def test_name_dropout_drops_a_kind_everywhere_in_a_game_and_keeps_the_rest() -> None:
    from cardlang.learning.lanes import NameDropout

    names = ["comp:KIND=SMITHY", "comp:COST=4", "sto:P+0:SMITHY", "comp:KIND=WITCH"]
    names += ["val:BUY-PHASE/PILE=SUPPLY:WITCH", "val:MINE-GAIN/PILE=SUPPLY:GOLD"]
    table = NameTable(names, capacity=16)
    dropout = NameDropout(table, 0.5, seed=3)
    # a pile's option value goes with the kind on top (a buy's action names the pile)
    assert [sorted(ids.tolist()) for ids in dropout.kinds] == [[1, 3], [4, 5]]

    class Env:
        n = 64
        token_count = np.full(64, 2)
        action_count = np.full(64, 1)
        token_names = np.tile(np.array([[[1, 2, 3], [4, 2, 0]]], dtype=np.int32), (64, 1, 1))
        action_names = np.tile(np.array([[[4, 1, 0]]], dtype=np.int32), (64, 1, 1))

    class FakeLane:
        env = Env()
        names_kept = None

    lane = FakeLane()
    dropout.draw(lane, range(64))  # type: ignore[arg-type]
    dropout.apply(lane)  # type: ignore[arg-type]
    tokens, actions = Env.token_names, Env.action_names
    assert (tokens[:, :, 1] == 2).all() and (tokens[:, 0, 1] == 2).all()  # COST kept
    smithy_gone = tokens[:, 0, 0] == 0
    assert (tokens[smithy_gone, 0, 2] == 0).all()  # its storage goes with its name
    assert (actions[smithy_gone, 0, 1] == 0).all()  # and in the actions too
    witch_gone = tokens[:, 1, 0] == 0
    assert (actions[witch_gone, 0, 0] == 0).all()
    # each kind about half the games, independently
    assert 16 < smithy_gone.sum() < 48 and 16 < witch_gone.sum() < 48
    assert 0 < (smithy_gone & witch_gone).sum() < smithy_gone.sum()


def test_a_model_forgets_the_noise_of_names_it_never_learnt(dominion, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from cardlang.agents.neural.model import TRAINED_NAMES, NeuralModel, load_model
    from cardlang.agents.neural.network import NetConfig

    model = NeuralModel(NetConfig(names=64, width=8, body="deepsets"), _identity(dominion))
    tokenizer = model.tokenizer(dominion)
    smithy, witch = tokenizer.components("SMITHY"), tokenizer.components("WITCH")
    model.learnt(np.array(smithy))  # training fed it Smithy's names only
    assert "comp:KIND=SMITHY" in model.info[TRAINED_NAMES]
    assert "comp:KIND=WITCH" not in model.info[TRAINED_NAMES]
    model.save(tmp_path / "m")
    played = load_model(tmp_path / "m")
    played.freeze()
    read = played.tokenizer(dominion).components("WITCH")
    assert played.table.names.index("comp:KIND=WITCH") not in read  # the unknown name
    assert played.table.names.index("comp:COST=5") not in read  # never learnt either
    assert played.tokenizer(dominion).components("SMITHY") == smithy
    # a run that goes on from it starts those names from zero, not from noise
    again = load_model(tmp_path / "m")
    assert again.forget_untrained() == len(again.table) - len(set(smithy)) - 1
    weights = again.net.names.weight
    assert weights[witch[0]].abs().sum() == 0 and weights[smithy[0]].abs().sum() > 0


def _identity(game):  # type: ignore[no-untyped-def]
    from cardlang.agents.neural.model import GameIdentity

    return GameIdentity.of(game)


# ---------------------------------------------------------------- --always CARD


def test_always_draws_kingdoms_that_hold_the_card(dominion) -> None:  # type: ignore[no-untyped-def]
    from cardlang.language.params import always_draws

    params = {"EXCLUDE": "witch,library"}
    drawn = always_draws(dominion.checked.game, ["smithy"], params, 16, seed=5)
    kingdoms = [k.split(",") for k in drawn["KINGDOM"]]
    assert len(kingdoms) == 16 and len({tuple(k) for k in kingdoms}) > 8
    for kingdom in kingdoms:
        assert len(kingdom) == len(set(kingdom)) == 10 and kingdom[0] == "SMITHY"
        assert "WITCH" not in kingdom and "LIBRARY" not in kingdom
    assert always_draws(dominion.checked.game, ["SMITHY"], params, 16, seed=5) == drawn
    for kingdom in drawn["KINGDOM"]:  # each a kingdom the game accepts
        load_game(DOMINION, params={"KINGDOM": kingdom})


def test_always_names_a_card_no_parameter_deals(dominion) -> None:  # type: ignore[no-untyped-def]
    from cardlang.errors import UsageError
    from cardlang.language.params import always_draws

    with pytest.raises(UsageError, match="did you mean 'SMITHY'"):
        always_draws(dominion.checked.game, ["SMITY"], {}, 4, seed=0)
    many = "cellar,chapel,moat,harbinger,merchant,vassal,village,workshop,bureaucrat,gardens"
    excluded = {"EXCLUDE": many + ",militia,moneylender,poacher,remodel,smithy,throne-room,mine"}
    with pytest.raises(UsageError, match="left to draw"):
        always_draws(dominion.checked.game, ["WITCH"], excluded, 4, seed=0)


def test_the_card_bonus_pushes_the_new_card_and_fades(dominion) -> None:  # type: ignore[no-untyped-def]
    from cardlang.agents.neural.model import GameIdentity, NeuralModel
    from cardlang.agents.neural.network import NetConfig

    from cardlang.env.vector import VectorEnv
    from cardlang.learning.ppo import PPOConfig
    from cardlang.learning.ppo_actor import PPOActor

    game = load_game(DOMINION, params={"KINGDOM": "RANDOM"})
    model = NeuralModel(NetConfig(names=2048, width=8, body="deepsets"), GameIdentity.of(game))
    env = VectorEnv(game, 16, seats=0, opponents="bmu", tokens=model.table, seed=2)
    config = PPOConfig(card_bonus=2.0, card_bonus_cards=("SILVER",), card_bonus_updates=4)
    actor = PPOActor(env, model, config, seed=1)
    for _ in range(40):  # to the first buy phases
        acting = [np.ones(env.n, dtype=np.bool_)]
        bonus = actor._card_bonus(acting, env.action_names.shape[1])
        assert bonus is not None
        keys = actor.card_keys[0]
        buying = [
            i for i in range(env.n) if env.vocabulary.situations[env.situation[i]] == "BUY-PHASE"
        ]
        for i in buying:
            silver = [
                j
                for j in range(int(env.action_count[i]))
                if "SUPPLY:SILVER" in env.vocabulary.keys("BUY-PHASE")[env.action_key[i, j]]
            ]
            assert all(bonus[i, j] == 2.0 for j in silver)
            assert bonus[i].sum() == 2.0 * len(silver)
        if buying:
            break
        actor._step_lanes()
    assert buying and keys.any()
    actor.updates = 2  # half way: half the push
    assert actor._card_bonus(acting, env.action_names.shape[1]).max() == pytest.approx(1.0)
    actor.updates = 4  # gone
    assert actor._card_bonus(acting, env.action_names.shape[1]) is None
