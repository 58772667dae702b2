"""``cardlang card-report``: a designer's report on new Dominion cards (issue 54, part 3).

The command runs on a copy of games/dominion.rcy with four new kingdom cards: a clearly
strong one (SUPERLAB: $2, +4 Cards +1 Action), a clearly weak one (DUD: $5, does
nothing), one no bot can afford (CROWN: $30) and one with a decision of its own that no
bot has a rule for (PICKER).  Every run has a small budget
(--minutes) and a seed, so the tests are short and the same each time.  Then bad input
(an unknown card, a file that fails check, a card that is no kingdom card, a file that is
no Dominion), the HTML page, and the shipped peers (current for games/dominion.rcy).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GAMES, needs_native_default
from helpers import run_main, with_kingdom_cards

from cardlang.report.budget import Budget
from cardlang.report.money import StageSizes
from cardlang.report.peers import Peer, Peers, place, shipped_peers
from cardlang.report.plans import MoneyPlan, plans_for

NEW_CARDS = """
 (card-kind SUPERLAB (COST 2) (TYPES (ACTION))
   (CARDS 4) (ACTIONS 1) (BUYS 0) (COINS 0) (TRASH 0) (VP 0)
   (on PLAY (call DRAW 'ME 4) (inc ('ME sto ACTIONS))))
 (card-kind DUD (COST 5) (TYPES (ACTION))
   (CARDS 0) (ACTIONS 0) (BUYS 0) (COINS 0) (TRASH 0) (VP 0)
   (on PLAY (inc ('ME sto COINS) 0)))
 (card-kind CROWN (COST 30) (TYPES (ACTION))
   (CARDS 0) (ACTIONS 0) (BUYS 0) (COINS 5) (TRASH 0) (VP 0)
   (on PLAY (inc ('ME sto COINS) 5)))
 (situation PICKER-CHOICE "Picker: +$2, or +2 Cards")
 (card-kind PICKER (COST 4) (TYPES (ACTION))
   (CARDS 0) (ACTIONS 0) (BUYS 0) (COINS 0) (TRASH 0) (VP 0)
   (on PLAY (choice PICKER-CHOICE by 'ME
                    ((label "+$2" (inc ('ME sto COINS) 2))
                     (label "+2 Cards" (call DRAW 'ME 2))))))
"""
PROCEDURES = " ;; ------------------------------------------------------------ procedures"
#: A budget that keeps a run to a second or two, and the seed every run uses.
SMALL = ("--minutes", "0.05", "--seed", "3", "--quiet", "--model", "none")

native = needs_native_default()


def dominion_with(
    folder: Path, cards: str = NEW_CARDS, name: str = "my-dominion.rcy", listed: str = ""
) -> Path:
    """games/dominion.rcy with ``cards`` put before its procedures and listed as kingdom
    cards, as README.md's "Your first new card" says (``listed``: one more name)."""
    text = (GAMES / "dominion.rcy").read_text(encoding="utf-8")
    assert PROCEDURES in text
    text = text.replace(PROCEDURES, cards + "\n" + PROCEDURES, 1)
    text = with_kingdom_cards(text, "SUPERLAB", "DUD", "CROWN", "PICKER", *filter(None, [listed]))
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def game_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dominion_with(tmp_path_factory.mktemp("cards"))


@pytest.fixture(scope="module")
def strong_and_weak(game_file: Path) -> dict:  # type: ignore[type-arg]
    done = run_main("card-report", str(game_file), "superlab", "DUD", "--json", *SMALL)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@native
def test_a_clearly_strong_card_ranks_above_a_clearly_weak_one(strong_and_weak: dict) -> None:  # type: ignore[type-arg]
    strong, weak = (c["card_plus_money"] for c in strong_and_weak["cards"])
    assert strong["share"]["low"] > weak["share"]["high"]
    assert strong["share"]["value"] > 0.7 and weak["share"]["value"] < 0.5
    assert strong["placement"]["rank"] == 1  # the strongest of the $2 cards
    assert strong["placement"]["words"].startswith("stronger than every $2 card")
    assert weak["placement"]["rank"] > 1


@native
def test_the_json_gives_every_figure_with_its_interval(strong_and_weak: dict) -> None:  # type: ignore[type-arg]
    report = strong_and_weak
    assert report["seed"] == 3 and report["minutes"] == 0.05
    assert report["games"] > 0 and report["cpu_seconds"] > 0
    assert report["peers"]["rules_fingerprint"]
    card = report["cards"][0]
    assert (card["card"], card["cost"], card["types"]) == ("SUPERLAB", 2, ["ACTION"])
    money = card["card_plus_money"]
    figures = [money["share"], money["copies_at_end"], money["bought"]]
    figures += [d["share"] for d in money["head_to_head"]]
    figures += [p["share"] for p in money["plans_tried"]]
    figures += [c["share"] for c in money["share_by_copies"]]
    for figure in figures:
        assert set(figure) == {"value", "low", "high", "games"}
        assert figure["low"] <= figure["value"] <= figure["high"] and figure["games"] > 0
    assert money["opponent"] == "bmu" and money["never_bought"] is False
    assert 'play = ["SUPERLAB"]' in money["bot"]["toml"]
    assert {d["peer"] for d in money["head_to_head"]} == {"CELLAR", "CHAPEL", "MOAT"}
    # the neural sections say plainly that they were not measured: no numbers
    assert card["win_rate_added"] == {"measured": False, "note": card["win_rate_added"]["note"]}
    assert "not measured" in card["win_rate_added"]["note"]


@native
def test_the_same_seed_gives_the_same_report(game_file: Path, strong_and_weak: dict) -> None:  # type: ignore[type-arg]
    again = run_main("card-report", str(game_file), "SUPERLAB", "dud", "--json", *SMALL)
    cards = json.loads(again.stdout)["cards"]
    for card in [*cards, *strong_and_weak["cards"]]:
        card.pop("cpu_seconds")
    assert cards == strong_and_weak["cards"]


@native
def test_a_card_no_agent_buys_is_said_so_plainly(game_file: Path) -> None:
    done = run_main("card-report", str(game_file), "CROWN", "--json", *SMALL)
    assert done.returncode == 0, done.stderr
    money = json.loads(done.stdout)["cards"][0]["card_plus_money"]
    assert money["never_bought"] is True and money["placement"] is None
    assert any("no agent ever bought Crown" in note for note in money["notes"])


@native
def test_a_decision_the_bot_has_no_rule_for_is_said(game_file: Path) -> None:
    done = run_main("card-report", str(game_file), "PICKER", "--json", *SMALL)
    assert done.returncode == 0, done.stderr
    notes = json.loads(done.stdout)["cards"][0]["card_plus_money"]["notes"]
    assert any("has no rule for PICKER-CHOICE" in note for note in notes), notes


@native
def test_the_terminal_report_and_the_html_page(game_file: Path, tmp_path: Path) -> None:
    done = run_main("card-report", str(game_file), "SUPERLAB", "--html", str(tmp_path), *SMALL)
    assert done.returncode == 0, done.stderr
    assert "Superlab ($2, Action)" in done.stdout
    assert "win share against bmu" in done.stdout
    assert "win rate added (neural): not measured" in done.stdout
    page = (tmp_path / "card-report.html").read_text(encoding="utf-8")
    assert page.count("<svg") >= 3  # among its cost, among every card, by copies, ...
    assert "Among the $2 cards" in page and "not measured" in page
    assert 'play = ["SUPERLAB"]' in page


def test_an_unknown_card_gets_a_did_you_mean(game_file: Path) -> None:
    done = run_main("card-report", str(game_file), "SUPERLB", *SMALL)
    assert done.returncode == 2
    assert "has no card-kind 'SUPERLB': did you mean 'SUPERLAB'?" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_card_that_is_no_kingdom_card_is_refused(game_file: Path) -> None:
    done = run_main("card-report", str(game_file), "copper", *SMALL)
    assert done.returncode == 2
    assert "COPPER is not in" in done.stderr and "'ALL-KINGDOM-CARDS" in done.stderr


def test_a_file_that_fails_check_stops_with_its_diagnostics(tmp_path: Path) -> None:
    broken = NEW_CARDS.replace("(call DRAW 'ME 4)", "(call DRWA 'ME 4)")
    path = dominion_with(tmp_path, broken, "broken.rcy")
    done = run_main("card-report", str(path), "SUPERLAB", *SMALL)
    assert done.returncode == 1
    assert "broken.rcy:" in done.stderr and "did you mean 'DRAW'?" in done.stderr
    assert done.stdout == ""


def test_a_game_that_is_no_dominion_is_refused() -> None:
    done = run_main("card-report", str(GAMES / "kuhn_poker.rcy"), "KING", *SMALL)
    assert done.returncode == 2 and "is not a Dominion game" in done.stderr


@pytest.mark.parametrize("value", ["0", "-1", "nan", "abc", "1e9"])
def test_minutes_out_of_range_are_a_usage_error(game_file: Path, value: str) -> None:
    done = run_main("card-report", str(game_file), "SUPERLAB", "--minutes", value)
    assert done.returncode == 2 and "--minutes" in done.stderr


# ---------------------------------------------------------------- the parts


def test_a_plan_is_a_bot_file_that_buys_and_plays_the_card() -> None:
    plan = MoneyPlan("COUNCIL-ROOM", "/11", "over-gold", 15, 4)
    bot = plan.bot()
    assert bot.play_order == ["COUNCIL-ROOM"]
    rules = [(r.card, r.text) for r in bot.buy_rules]
    assert rules[3] == (
        "COUNCIL-ROOM",
        "count(COUNCIL-ROOM) < treasures / 11 and left(PROVINCE) > 4",
    )
    assert rules[4] == ("GOLD", None) and rules[0] == ("PROVINCE", "money > 15")
    assert plan.words() == (
        "one per 11 Treasures, over Gold, Province when deck money > 15, "
        "none once 4 Provinces are left"
    )


def test_the_grid_has_only_slots_that_change_what_is_bought() -> None:
    assert {p.slot for p in plans_for("X", 2)} == {"over-gold", "over-silver", "under-silver"}
    assert {p.slot for p in plans_for("X", 4)} == {"over-gold", "over-silver"}
    assert {p.slot for p in plans_for("X", 6)} == {"over-gold"}
    assert {p.slot for p in plans_for("X", 9)} == {"over-province", "over-gold"}


def test_more_minutes_buy_more_games_and_narrower_intervals() -> None:
    work = 3300.0
    small, large = (Budget(m, 1).games("card_plus_money", work) for m in (1.0, 10.0))
    assert large == pytest.approx(10 * small, rel=0.01)
    assert Budget(10.0, 2).games("card_plus_money", work) == pytest.approx(large / 2, rel=0.01)
    sizes = StageSizes.for_games(large, 72, 8)
    assert sizes.games(72, 8) <= large  # the stages spend no more than the budget
    tiny = StageSizes.for_games(10, 72, 8)  # the floors: still a meaningful match
    assert tiny.final >= 100 and tiny.screen >= 8


def _peer(card: str, cost: int, share: float, half: float = 0.01) -> Peer:
    return Peer(card, cost, share, share - half, share + half, 1000, MoneyPlan(card))


PEERS = Peers(
    (
        _peer("SMITHY", 4, 0.75),
        _peer("MILITIA", 4, 0.70),
        _peer("GARDENS", 4, 0.25),
        _peer("WITCH", 5, 0.93),
        _peer("LABORATORY", 5, 0.80),
    )
)


def test_a_card_stronger_than_its_cost_reads_so() -> None:
    placement = place("NEW", 4, 0.925, 0.915, 0.935, PEERS)
    assert placement.rank == 1 and placement.of == 4
    assert placement.words() == "stronger than every $4 card; about like Witch at $5"


def test_a_card_among_its_cost_reads_its_rank_and_its_equals() -> None:
    placement = place("NEW", 4, 0.71, 0.69, 0.73, PEERS)
    assert placement.rank == 2
    assert [p.card for p in placement.stronger_than] == ["GARDENS"]
    assert [p.card for p in placement.weaker_than] == ["SMITHY"]
    assert placement.words() == "2nd of 4 at $4, about like Militia; about like Militia at $4"
    between = place("NEW", 4, 0.5, 0.49, 0.51, PEERS)
    assert between.words() == (
        "3rd of 4 at $4, between Militia (0.70) and Gardens (0.25); nearest: Militia at $4 (0.70)"
    )
    lonely = place("NEW", 7, 0.3, 0.29, 0.31, PEERS)
    assert lonely.words() == "no official card costs $7; nearest: Gardens at $4 (0.25)"


def test_the_shipped_peers_are_every_kingdom_card_of_the_current_rules() -> None:
    from cardlang.language.fingerprint import rules_fingerprint

    peers = shipped_peers()
    text = (GAMES / "dominion.rcy").read_text(encoding="utf-8")
    assert peers.about["rules_fingerprint"] == rules_fingerprint(text), (
        "games/dominion.rcy's rules changed since the peers were measured: run "
        "`nice python3 benchmarks/card_peers.py` (about 15 CPU-minutes) to measure them again"
    )
    assert len(peers.cards) == 26
    for peer in peers.cards:
        assert peer.low <= peer.share <= peer.high and peer.games > 10_000
        assert peer.plan.card == peer.card


def test_a_listed_card_without_its_card_kind_is_named(tmp_path: Path) -> None:
    path = dominion_with(tmp_path, listed="VILLAG")
    done = run_main("card-report", str(path), "VILLAG", *SMALL)
    assert done.returncode == 2
    assert "has no card-kind 'VILLAG' (its 'ALL-KINGDOM-CARDS names it)" in done.stderr
    assert "did you mean 'VILLAGE'?" in done.stderr


@native
def test_a_card_whose_play_breaks_the_rules_stops_with_the_rule_error(tmp_path: Path) -> None:
    # every play trashes the top card of the Curse pile, which runs out
    broken = NEW_CARDS.replace(
        "(on PLAY (inc ('ME sto COINS) 0))",
        "(on PLAY (move (top 'CURSE-PILE) (top (game vloc TRASH))))",
    )
    path = dominion_with(tmp_path, broken)
    done = run_main("card-report", str(path), "DUD", *SMALL)
    assert done.returncode == 1, done.stderr
    assert "the card cannot be judged" in done.stderr and "rule error" in done.stderr
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------- the neural section


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained small network of games/dominion.rcy that has learnt every name the
    First Game kingdom shows (so that the new cards' names are the ones it never met)."""
    pytest.importorskip("torch")
    import numpy as np
    from cardlang.agents.neural.model import GameIdentity, NeuralModel
    from cardlang.agents.neural.network import NetConfig

    from cardlang.compiler.load import load_game

    game = load_game(GAMES / "dominion.rcy")
    model = NeuralModel(
        NetConfig(names=1024, width=8, hidden=16, body="deepsets"), GameIdentity.of(game)
    )
    tokenizer = model.tokenizer(game)
    for card in game.kind_attributes:
        tokenizer.components(card)
    model.learnt(np.arange(1, len(model.table)))
    folder = tmp_path_factory.mktemp("model")
    model.save(folder)
    return folder


@native
def test_the_neural_section_as_met(game_file: Path, tiny_model: Path, tmp_path: Path) -> None:
    small = ("--minutes", "0.05", "--seed", "3", "--quiet", "--model", str(tiny_model))
    done = run_main("card-report", str(game_file), "SUPERLAB", "--json", *small)
    assert done.returncode == 0, done.stderr
    neural = json.loads(done.stdout)["cards"][0]["win_rate_added"]
    assert neural["measured"] and neural["adapted"] is None  # no time left to adapt
    met = neural["as_met"]
    added = met["win_rate_added"]
    # a budget this small buys one sweep of the smallest size: 4 games a kingdom
    assert added["low"] <= added["value"] <= added["high"] and added["games"] == 32
    assert 0 <= met["buy_rate"]["value"] <= 1
    assert any("no time to adapt" in note for note in neural["notes"])
    assert any("wide interval" in note for note in neural["notes"])
    page_run = run_main("card-report", str(game_file), "SUPERLAB", "--html", str(tmp_path), *small)
    assert page_run.returncode == 0, page_run.stderr
    assert "as met" in page_run.stdout
    assert "win rate added" in (tmp_path / "card-report.html").read_text(encoding="utf-8")


@native
def test_the_evaluations_stop_on_the_work_counted_not_on_the_clock(tiny_model: Path) -> None:
    """More seconds, more games, in whole sweeps over the kingdoms; what was played costs,
    at the nominal speeds, no more than the budget and one sweep (a report keeps to its
    --minutes on a card whose games run long)."""
    from cardlang.learning import card_worth
    from cardlang.report import neural

    def played(seconds: float) -> tuple[int, float]:
        costs: list[card_worth.MirrorCost] = []
        real = card_worth.barred_mirror

        def counting(*args: object, **kwargs: object) -> object:
            costs.append(kwargs["cost"])  # type: ignore[arg-type]
            return real(*args, **kwargs)  # type: ignore[arg-type]

        card_worth.barred_mirror = counting  # type: ignore[assignment]
        try:
            plan = neural.NeuralPlan(tiny_model, 0, seconds, 0.0, 0.0, 0.0)
            result = neural.neural_section(str(GAMES / "dominion.rcy"), "SMITHY", plan, 5)
        finally:
            card_worth.barred_mirror = real  # type: ignore[assignment]
        return result.met.added.games, neural._nominal_seconds(costs[0])

    small_games, _ = played(0.5)
    large_games, large_cost = played(3.0)
    assert small_games % (2 * neural.EVAL_KINGDOMS) == 0 and large_games > small_games
    sweep = neural._sweep_games(3.0 * neural.SWEEP_SHARE, neural.EVAL_KINGDOMS)
    assert large_games % (sweep * neural.EVAL_KINGDOMS) == 0
    assert large_cost <= 3.0 * (1 + neural.SWEEP_SHARE) + 1e-9 or large_games == sweep * 8


def test_an_evaluation_on_a_slow_machine_stops_at_its_cpu_cap_and_says_so(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine slower than the nominal speeds (or one shared with other work) would
    pass the budget on the work counted: the evaluation stops after the sweep whose CPU
    says the next would pass the cap, the JSON and a note say so."""
    from cardlang.report import neural

    clock = iter(range(0, 100, 2))  # two CPU-seconds a call: a very slow machine
    monkeypatch.setattr(neural, "process_cpu_seconds", lambda: float(next(clock)))
    sweeps = iter(range(20))  # no other stop, and a failure, not a hang, without the cap
    monkeypatch.setattr(neural, "_nominal_seconds", lambda _: 0.0 * next(sweeps))
    plan = neural.NeuralPlan(tiny_model, 0, 0.5, 0.0, 0.0, 0.0)
    result = neural.neural_section(str(GAMES / "dominion.rcy"), "SMITHY", plan, 5)
    sweep = neural._sweep_games(0.5 * neural.SWEEP_SHARE, neural.EVAL_KINGDOMS)
    assert result.met.capped and result.met.added.games == sweep * neural.EVAL_KINGDOMS
    assert result.met.to_json()["stopped_at_cpu_cap"] is True
    assert any("stopped at their CPU cap" in note for note in result.notes)


def test_the_headline_is_played_again_on_games_that_did_not_choose_it(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The better of as met and adapted, read on the games that chose it, is biased up
    (the larger of two chances): the headline is the chosen model on fresh games, whose
    seeds neither evaluation played, and a report shows it as a column of its own."""
    import shutil
    from dataclasses import replace

    from cardlang.learning import card_worth
    from cardlang.report import neural

    seeds: list[list[int]] = []
    real = card_worth.barred_mirror

    def counting(*args: Any, **kwargs: Any) -> Any:
        seeds[-1].append(args[4])
        return real(*args, **kwargs)

    def adapt(path: str, card: str, plan: Any, seed: int, out: Path, *_: Any, **__: Any) -> None:
        shutil.copytree(tiny_model, out)  # an adaptation of no update: the same model

    def play(*args: Any) -> Any:
        seeds.append([])
        return real_play(*args)

    real_play = neural._play
    monkeypatch.setattr(card_worth, "barred_mirror", counting)
    monkeypatch.setattr(neural, "_adapt", adapt)
    monkeypatch.setattr(neural, "_play", play)
    plan = neural.NeuralPlan(tiny_model, 4, 0.2, 0.2, 0.4, 60.0)
    result = neural.neural_section(str(GAMES / "dominion.rcy"), "SMITHY", plan, 5)
    met, adapted, fresh = (set(s) for s in seeds)
    assert result.fresh is not None and result.headline is result.fresh
    assert not fresh & (met | adapted)
    assert result.fresh.added.games >= result.met.added.games
    assert [name for name, _ in result.columns()][:2] == ["as met", "adapted"]
    assert result.columns()[2][0] == "headline" and result.chosen_name in ("as met", "adapted")
    assert result.to_json()["headline_figures"] == result.fresh.to_json()
    # without an adaptation the model as met chooses nothing: its games are the headline's
    seeds.clear()
    alone = neural.neural_section(
        str(GAMES / "dominion.rcy"), "SMITHY", replace(plan, updates=0), 5
    )
    assert alone.fresh is None and alone.headline is alone.met and len(seeds) == 1


@native
@pytest.mark.slow
def test_the_neural_section_adapts_the_model(
    game_file: Path, tiny_model: Path, tmp_path: Path
) -> None:
    keep = tmp_path / "kept"
    done = run_main(
        "card-report",
        str(game_file),
        "SUPERLAB",
        "DUD",
        "--json",
        "--minutes",
        "1.2",
        "--seed",
        "3",
        "--quiet",
        "--model",
        str(tiny_model),
        "--keep",
        str(keep),
    )
    assert done.returncode == 0, done.stderr
    cards = json.loads(done.stdout)["cards"]
    assert len(cards) == 2
    for card in cards:  # each card's run counts its own CPU, not the report's so far
        assert card["win_rate_added"]["adaptation"]["updates"] >= 4, card["card"]
    neural = cards[0]["win_rate_added"]
    assert neural["adapted"] is not None
    assert (keep / "adapted-superlab" / "model.pt").is_file()
    # the adapted model plays the designer's file as its own game (no other_game=1)
    played = run_main(
        "simulate",
        str(game_file),
        "--agents",
        f"neural:model={keep / 'adapted-superlab'},bmu",
        "--games",
        "2",
        "--param",
        "kingdom=" + ",".join(neural["kingdoms"][0].split(",")),
    )
    assert played.returncode == 0, played.stderr


@pytest.mark.parametrize("barred", [False, True])
def test_a_barred_adaptation_bars_only_the_card(
    monkeypatch: pytest.MonkeyPatch, barred: bool
) -> None:
    """``NeuralPlan.barred``: the adaptation's barred lanes are all barred from the card
    (its kingdom cards are the card alone, which the adaptation always deals); without
    it, none (the run's settings as ``_adapt`` hands them to the PPO run)."""
    from dataclasses import replace

    from cardlang.learning import ppo_run
    from cardlang.report import neural

    configs = []

    class Opened:
        def run(self) -> None:
            pass

    def opened(config, *_: object) -> Opened:  # type: ignore[no-untyped-def]
        configs.append(config)
        return Opened()

    monkeypatch.setattr(ppo_run.PPORun, "open", opened)
    plan = replace(neural.NeuralPlan(Path("model"), 8, 0.0, 0.0, 0.0, 60.0), barred=barred)
    neural._adapt("dominion.rcy", "SMITHY", plan, 3, Path("out"), lambda _: None)
    (config,) = configs
    assert config.always == ["SMITHY"] and config.rounds == 2
    assert ("barred@2" in config.opponents) == barred
    assert config.kingdom_cards == (["SMITHY"] if barred else [])


def test_a_terminated_report_stops_as_an_interrupted_one() -> None:
    """SIGTERM inside a command (the report's: cli/main.py) is Ctrl-C: the way out runs
    (the adaptation's temporary folder is removed), and the handler before it is back
    afterwards."""
    import os
    import signal

    from cardlang.cli.signals import terminated_as_interrupted

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), terminated_as_interrupted():
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_adaptation_pushes_only_a_card_the_model_does_not_buy() -> None:
    """The card bonus makes a model try a card it leaves alone as it meets it; a model
    that buys it already is not pushed (pushed, it learnt to buy too many), nor one
    whose plan says no push."""
    from dataclasses import replace
    from types import SimpleNamespace

    from cardlang.report.neural import CARD_BONUS, NeuralPlan, adapt_bonus

    def met(bought: float) -> Any:
        return SimpleNamespace(bought=SimpleNamespace(value=bought))

    plan = NeuralPlan.of(60.0, Path("model"))
    assert adapt_bonus(met(0.0), plan) == CARD_BONUS
    assert adapt_bonus(met(0.3), plan) == CARD_BONUS
    assert adapt_bonus(met(0.99), plan) == 0.0
    assert adapt_bonus(met(0.0), replace(plan, bonus=False)) == 0.0


def _neural_play(added: float, copies: float = 1.0, bought: float = 0.5) -> Any:
    """A ``Play`` whose win rate added is ``added``, bought in ``bought`` of its games."""
    from cardlang.report.neural import Play
    from cardlang.report.sections import Figure

    share = Figure(added, added - 0.01, added + 0.01, 1000)
    return Play(
        share,
        Figure(bought, bought, bought, 1000),
        None,
        None,
        Figure(copies, copies, copies, 1000),
        share,
        share,
        None,
        {},
        [],
    )


def test_the_headline_is_the_play_that_makes_the_most_of_the_card() -> None:
    """An adaptation that lowered what the card adds (it learnt to buy too many) does not
    stand for the card: the headline is the model as met, and a note says why."""
    from cardlang.report.neural import NeuralResult, _notes
    from cardlang.report.sections import Figure

    play = _neural_play
    met, worse, better = play(0.05, 1.0), play(-0.3, 6.0), play(0.2, 2.0)
    result = NeuralResult("m", met, worse, 24, 1.0, [])
    assert result.headline is met and result.to_json()["headline"] == "as_met"
    assert any("made less of LAB" in note for note in _notes("LAB", result))
    result = NeuralResult("m", met, better, 24, 1.0, [])
    assert result.headline is better and result.to_json()["headline"] == "adapted"
    assert not any("made less" in note for note in _notes("LAB", result))
    # a play that never bought the card is worth nothing, whatever chance measured
    from dataclasses import replace

    lucky = replace(play(0.02, 0.0), bought=Figure(0.0, 0.0, 0.004, 1000))
    assert lucky.worth == 0.0
    slight = play(0.01, 1.0)
    assert NeuralResult("m", lucky, slight, 24, 1.0, []).headline is slight


def test_a_card_both_plays_lose_by_buying_is_declined_and_adds_nothing() -> None:
    """A player may always leave a card alone, so what it adds to the best play is never
    below 0: where both plays lose by buying it (a model misusing it), the headline is
    0, declined, with a note; the JSON says so, and the rank benchmark reads it."""
    from cardlang.report.neural import NeuralResult, _notes

    lab = NeuralResult("m", _neural_play(-0.29, 5.0), _neural_play(-0.26, 4.0), 24, 1.0, [])
    assert lab.declined and lab.worth == 0.0 and lab.chosen_name == "declined"
    assert [name for name, _ in lab.columns()] == ["as met", "adapted"]
    (note,) = [n for n in _notes("LAB", lab) if "lose by buying LAB" in n]
    assert "bound from below" in note
    as_json = lab.to_json()
    assert as_json["headline"] == "declined" and as_json["headline_figures"] is None
    assert as_json["worth"] == 0.0
    # one play that gains is the headline, however much the other loses
    gains = NeuralResult("m", _neural_play(-0.29), _neural_play(0.02), 24, 1.0, [])
    assert not gains.declined and gains.worth == pytest.approx(0.02)
    # the model as met alone chooses nothing: its own games report, losses included
    alone = NeuralResult("m", _neural_play(-0.1), None, 0, 0.0, [])
    assert not alone.declined and alone.worth == pytest.approx(-0.1)
    # never bought is worth 0, not a loss: nothing to decline
    idle = NeuralResult(
        "m", _neural_play(-0.01, 0.0, 0.0), _neural_play(-0.02, 0.0, 0.0), 4, 1.0, []
    )
    assert not idle.declined and idle.worth == 0.0


def test_a_declined_card_plays_no_fresh_games_and_its_report_says_why(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Declined on the games that choose: the fresh games would measure the misuse
    again, so none are played; the terminal and the page give the headline as 0."""
    import io
    import shutil

    from rich.console import Console

    from cardlang.report import neural, page, text

    plays = iter([_neural_play(-0.3, 5.0), _neural_play(-0.2, 4.0)])

    def adapt(path: str, card: str, plan: Any, seed: int, out: Path, *_: Any, **__: Any) -> None:
        shutil.copytree(tiny_model, out)

    monkeypatch.setattr(neural, "_adapt", adapt)
    monkeypatch.setattr(neural, "_play", lambda *_: next(plays))
    plan = neural.NeuralPlan(tiny_model, 4, 0.2, 0.2, 0.4, 60.0)
    result = neural.neural_section(str(GAMES / "dominion.rcy"), "SMITHY", plan, 5)
    assert result.declined and result.fresh is None and result.headline is result.adapted
    out = io.StringIO()
    text._print_neural(Console(file=out, width=80), result)
    assert "headline: 0.000, declined" in out.getvalue()
    card = type("Card", (), {"win_rate_added": result, "card": "SMITHY"})()
    assert "headline: 0.000, declined" in page._neural(card)


def test_the_rank_benchmark_joins_two_runs_sides_and_ranks_complete_cards() -> None:
    """benchmarks/card_rank.py: two runs measure the sides of a card apart (the known
    side while the fold model trains); the summary ranks only cards with both sides, by
    their headline (the better of as met and adapted)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "card_rank.py"
    spec = importlib.util.spec_from_file_location("card_rank", path)
    assert spec is not None and spec.loader is not None
    rank = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rank)

    def side(met: float, adapted: float | None, bought: float = 0.5) -> dict:  # type: ignore[type-arg]
        play = lambda v: {"win_rate_added": {"value": v}, "buy_rate": {"value": bought}}  # noqa: E731
        return {"as_met": play(met), "adapted": None if adapted is None else play(adapted)}

    known = {"A": {"known": side(0.3, 0.1)}, "B": {"known": side(0.0, 0.05)}}
    new = {"A": {"new": side(0.2, None)}, "B": {"new": side(-0.4, -0.1)}, "C": {"new": side(0, 0)}}
    done = {"cards": rank._merged(known, new)}
    rank._summary(done)
    assert done["cards"]["A"] == {"known": side(0.3, 0.1), "new": side(0.2, None)}
    assert done["summary"]["cards"] == 2  # C has no known side yet
    assert done["summary"]["top_five_as_new"] == ["A", "B"]
    assert "fifth_place_tied" not in done["summary"]
    # five places where the fifth is a tie at 0: the summary names the tie
    worth = dict(zip("ABCDEFG", [0.3, 0.2, 0.1, 0.05, 0.0, 0.0, 0.0], strict=True))
    tie = {"cards": {c: {"new": {"worth": v}, "known": {"worth": v}} for c, v in worth.items()}}
    rank._summary(tie)
    assert tie["summary"]["fifth_place_tied"] == {"strength": 0.0, "cards": ["E", "F", "G"]}
    assert tie["summary"]["spearman_interval"] == [1.0, 1.0]  # no games' figures: no luck

    # the bootstrap's interval holds the figure's spread: wide figures, a wide interval
    def spread(worth: float, width: float) -> dict:  # type: ignore[type-arg]
        added = {"low": worth - width, "high": worth + width}
        return {"worth": worth, "headline_figures": {"win_rate_added": added}}

    def interval(width: float) -> tuple[float, float]:
        cards = [{"new": spread(v, width), "known": spread(v, width)} for v in (0.3, 0.2, 0.1)]
        return rank.spearman_interval(cards, draws=400)

    assert interval(0.001) == (pytest.approx(1.0), pytest.approx(1.0))
    assert interval(0.3)[0] < 0.5 and interval(0.3)[1] == pytest.approx(1.0)
    assert rank._strength(done["cards"]["A"], "known") == 0.3
    # never bought: the figure is chance, and counts as nothing
    assert rank._strength({"new": side(-0.012, 0.008, bought=0.0)}, "new") == 0.0
    # a run with fresh games reads the headline's figures, not the better of the two
    fresh = {**side(0.3, 0.1), "headline_figures": side(0.12, None)["as_met"]}
    assert rank._strength({"known": fresh}, "known") == 0.12
    # a run from 2026-12-04 reads the report's worth: 0 where both plays lose by buying
    declined = {**side(-0.3, -0.2), "headline_figures": None, "worth": 0.0}
    assert rank._strength({"new": declined}, "new") == 0.0
    assert rank.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert rank.spearman([1, 1, 2], [5, 5, 9]) == pytest.approx(1.0)  # ties share a rank
    assert rank.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


@native
def test_a_mirror_with_owned_copies_gives_the_free_seat_the_card_and_never_the_barred(
    tiny_model: Path,
) -> None:
    """``barred_mirror(owned=K)``: the free seat takes the card at its first K chances
    (an untrained model would rarely choose it), the barred seat never gets it."""
    from cardlang.agents.neural.model import load_model

    from cardlang.compiler.load import load_game
    from cardlang.learning.card_worth import barred_mirror
    from cardlang.runs.cards import SeatCard, seat_cards

    game = load_game(GAMES / "dominion.rcy", params={"KINGDOM": "FIRST-GAME"})
    model = load_model(tiny_model, game)
    for owned in (0, 2):
        games = barred_mirror(model, game, "MARKET", 16, seed=5, owned=owned)
        assert len(games) == 16
        free = [c.buys for g in games for c in g.free_cards("MARKET")]
        barred = [
            seat_cards(g.result.cards, g.barred).get("MARKET", SeatCard()).buys for g in games
        ]
        assert barred == [0] * 16
        if owned:
            # every game lasts past two turns with $5 (the untrained model buys what it
            # likes besides, Markets included)
            assert min(free) >= owned, free
