"""Bots that say what they cannot do (issue 32, item 7): a designer measuring a new card
with the scripted Dominion bots is told which decisions the bots have no rule for, and
there the bots do what never harms their owner (decline where they may, else give up
their least valuable card), the same inside the native engine as in Python.

The new card is the issue's "Tinker": you may trash a card from your hand, then +2
Cards.  Before, the bots answered its decision with its first option, trashing
Provinces and Golds, and the card's measured strength was wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import make_agent
from cardlang.agents.registry import agent_warnings
from cardlang.agents.scripted.dominion import DominionBot
from conftest import GAMES
from helpers import run_cli, with_kingdom_cards

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.interactive.table import seat_view
from cardlang.runs.runner import play_game

ENGINES = ["python", "native"] if native_available() else ["python"]

TINKER = """ (card-kind TINKER (COST 3) (TYPES (ACTION))
  (CARDS 2) (ACTIONS 0) (BUYS 0) (COINS 0) (TRASH 1) (VP 0)
  (on PLAY
      ((> (size ('ME iloc HAND)) 0)
       (choice TINKER-TRASH
               ((label "Trash {C}" (any ('ME iloc HAND) 'C (call TRASH 'ME 'C)))
                (label "Trash nothing" (pass)))))
      (call DRAW 'ME 2)))

"""
TINKER_BOT = """name = "tinkerer"
buy = [
    { card = "PROVINCE", if = "money > 15" },
    { card = "GOLD" },
    { card = "TINKER", if = "count(TINKER) < 2" },
    { card = "SILVER" },
]
"""
KINGDOM = "TINKER,CELLAR,MARKET,MERCHANT,MILITIA,MOAT,SMITHY,VILLAGE,WORKSHOP,FESTIVAL"


@pytest.fixture(scope="module")
def tinker_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = (GAMES / "dominion.rcy").read_text()
    text = text.replace(" (card-kind CELLAR ", TINKER + " (card-kind CELLAR ", 1)
    text = with_kingdom_cards(text, "TINKER")
    text = text.replace(
        " (situation CHAPEL-TRASH",
        ' (situation TINKER-TRASH "Tinker: trash a card from your hand, or not")\n'
        " (situation CHAPEL-TRASH",
        1,
    )
    path = tmp_path_factory.mktemp("tinker") / "tinker.rcy"
    path.write_text(text)
    return path


def _rule_lines(said: list[str]) -> list[str]:
    """The warnings about decisions (not about the cards a bot never buys)."""
    return [line for line in said if "never buys" not in line]


def test_the_bots_name_the_decisions_they_have_no_rule_for(tinker_file: Path) -> None:
    game = load_game(tinker_file, params={"KINGDOM": KINGDOM})
    said = _rule_lines(agent_warnings(["bmu", "bmu", "bigmoney"], game))
    assert len(said) == 2 and all("no rule for TINKER-TRASH" in line for line in said)
    assert _rule_lines(agent_warnings(["bmu"], load_game(GAMES / "dominion.rcy"))) == []
    other = agent_warnings(["bigmoney", "random"], load_game(GAMES / "hearts.rcy"))
    assert other and "plays Dominion" in other[0] and "hearts" in other[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_decision_without_a_rule_never_harms_the_bot(tinker_file: Path, engine: str) -> None:
    """The bot buys Tinkers and plays them: at the Tinker's question it declines, so
    nothing is ever trashed (no other card of the kingdom trashes)."""
    game = load_game(tinker_file, params={"KINGDOM": KINGDOM})
    played = 0
    for seed in range(4):
        bots = [DominionBot.from_toml(TINKER_BOT, "tinkerer.toml", seed=s) for s in (1, 2)]
        result, st = play_game(game.master(engine=engine), bots, seed, record=True)
        assert result.end_reason == "completed"
        played += sum("TINKER-TRASH" in repr(event) for event in st.log)
        trashed = seat_view(st, 0, game).size(-1, "vloc", "TRASH")
        assert trashed == 0, f"seed {seed}: the bot trashed {trashed} cards"
    assert played > 0  # the question was asked


def test_the_engines_agree_on_the_bots_default(tinker_file: Path) -> None:
    if len(ENGINES) < 2:
        pytest.skip("the native engine is not built")
    game = load_game(tinker_file, params={"KINGDOM": KINGDOM})
    logs = []
    for engine in ENGINES:
        bots: list[Any] = [DominionBot.from_toml(TINKER_BOT, "t.toml", seed=s) for s in (1, 2)]
        _, st = play_game(game.master(engine=engine), bots, 3, record=True)
        logs.append(repr(st.log))
    assert logs[0] == logs[1]


def test_simulate_warns_before_it_plays() -> None:
    done = run_cli("simulate", "games/hearts.rcy", "--agents", "bigmoney,random,random,random",
                   "--games", "2", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("warning: bot bigmoney plays Dominion")


def test_make_agent_is_unchanged_for_a_bot() -> None:
    assert make_agent("bmu", 0).name == "bmu"


TINKER_RULED = (
    TINKER_BOT
    + """
[situations]
TINKER-TRASH = ["ESTATE", { card = "COPPER", if = "money > 9" }]
"""
)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bot_file_gives_a_situation_its_own_rule(tinker_file: Path, engine: str) -> None:
    """``[situations]`` in a bot file: the Tinker trashes Estates, and Coppers once the
    bot's money exceeds 9, else declines (never a Silver, Gold or Province); the bot is
    then no longer warned about, and plays in Python on either engine."""
    game = load_game(tinker_file, params={"KINGDOM": KINGDOM})
    bot = DominionBot.from_toml(TINKER_RULED, "t.toml")
    assert bot.situations["TINKER-TRASH"][0].card == "ESTATE"  # type: ignore[index]
    assert _rule_lines(bot.warnings_for(game)) == []
    assert bot.native_agent(game.master(engine=engine)) is None
    trashed: list[str] = []
    for seed in range(4):
        bots = [DominionBot.from_toml(TINKER_RULED, "t.toml", seed=s) for s in (1, 2)]
        _, st = play_game(game.master(engine=engine), bots, seed, record=True)
        trash = seat_view(st, 0, game).visible.get((-1, "vloc", "TRASH"), ())
        trashed += [card["KIND"] for card in trash]
    assert trashed and set(trashed) <= {"ESTATE", "COPPER"}
    assert "ESTATE" in trashed


TINKER_BY_LABEL = (
    TINKER_BOT
    + """
[situations]
TINKER-TRASH = [{ label = "trash estate" }, { label = "Trash nothing" }]
"""
)


def test_a_situation_rule_picks_an_option_by_its_label(tinker_file: Path) -> None:
    """``{ label = "WORDS" }`` answers with the option whose readable label holds the
    words (a choice between effects binds no card): Estates trashed, else nothing."""
    from cardlang.errors import UsageError

    game = load_game(tinker_file, params={"KINGDOM": KINGDOM})
    bot = DominionBot.from_toml(TINKER_BY_LABEL, "t.toml")
    assert [r.label for r in bot.situations["TINKER-TRASH"]] == ["trash estate", "trash nothing"]  # type: ignore[union-attr]
    assert "" not in bot.named_cards()
    trashed: list[str] = []
    for seed in range(4):
        bots = [DominionBot.from_toml(TINKER_BY_LABEL, "t.toml", seed=s) for s in (1, 2)]
        _, st = play_game(game.master(), bots, seed, record=True)
        trash = seat_view(st, 0, game).visible.get((-1, "vloc", "TRASH"), ())
        trashed += [card["KIND"] for card in trash]
    assert trashed and set(trashed) == {"ESTATE"}
    with pytest.raises(UsageError, match="an empty label names every option"):
        DominionBot.from_toml('[situations]\nX = [{ label = " " }]\n', "bad.toml")
    with pytest.raises(UsageError, match=r"must be \{ card"):
        DominionBot.from_toml('buy = [{ label = "gold" }]\n', "bad.toml")  # buys name cards


def test_a_bot_file_is_told_what_it_names_in_vain(tmp_path: Path) -> None:
    """A situation rule's answer must be a built-in one (with a did-you-mean), rules for
    situations the game never asks and cards its Supply lacks are warned about; a
    kingdom drawn per game is not held against the bot."""
    from cardlang.errors import UsageError

    with pytest.raises(UsageError, match=r"'acept' is neither.*did you mean 'accept'"):
        DominionBot.from_toml('[situations]\nMOAT-REVEAL = "acept"\n', "bad.toml")
    text = 'name = "w"\nbuy = [{ card = "WITCH" }]\n[situations]\nNOT-ASKED = "accept"\n'
    bot = DominionBot.from_toml(text, "w.toml")
    said = bot.warnings_for(load_game(GAMES / "dominion.rcy"))
    assert any("NOT-ASKED, which dominion never asks" in line for line in said), said
    assert any("names WITCH, which this game's Supply lacks" in line for line in said), said
    drawn = load_game(GAMES / "dominion.rcy", params={"KINGDOM": "RANDOM"})
    assert not any("Supply lacks" in line for line in bot.warnings_for(drawn))
    witch = make_agent("double-witch", 0).warnings_for(load_game(GAMES / "dominion.rcy"))
    assert any("names WITCH" in line for line in witch), witch


FIRST_GAME = "CELLAR, MARKET, MERCHANT, MILITIA, MINE, MOAT, REMODEL, SMITHY, VILLAGE, WORKSHOP"


def _never_buys(said: list[str]) -> list[str]:
    return [line for line in said if "never buys" in line]


def test_the_bots_say_which_kingdom_cards_they_never_buy(tinker_file: Path) -> None:
    """Issue 54, item 4: each bot names the kingdom cards no buy rule of its names (their
    worth goes unmeasured), never a basic card it leaves alone (bigmoney buys no Duchy:
    no news), and a bot that buys the designer's card does not name it."""
    game = load_game(GAMES / "dominion.rcy")  # the First Game kingdom
    said = _never_buys(agent_warnings(["bmu", "smithy", "bigmoney"], game))
    assert said == [
        f"bot bmu never buys {FIRST_GAME} (no buy rule names them): what those cards are "
        "worth is not measured by this bot",
        f"bot smithy never buys {FIRST_GAME.replace(' SMITHY,', '')} (no buy rule names "
        "them): what those cards are worth is not measured by this bot",
        f"bot bigmoney never buys {FIRST_GAME} (no buy rule names them): what those cards "
        "are worth is not measured by this bot",
    ]
    for basic in ("COPPER", "CURSE", "ESTATE", "DUCHY", "PROVINCE", "GOLD"):
        assert all(basic not in line for line in said)
    tinker = load_game(tinker_file, params={"KINGDOM": KINGDOM})
    bot = DominionBot.from_toml(TINKER_BOT, "tinkerer.toml")
    (line,) = _never_buys(bot.warnings_for(tinker))
    assert "TINKER" not in line and "CELLAR, FESTIVAL, MARKET" in line


def test_on_a_drawn_kingdom_the_bots_name_the_cards_it_is_drawn_from() -> None:
    """kingdom=RANDOM: every card of the randomizer deck a game may meet, those left out
    by exclude= not; the Supply of one deal is not held against the bot."""
    drawn = load_game(GAMES / "dominion.rcy", params={"KINGDOM": "RANDOM", "EXCLUDE": "CHAPEL"})
    (line,) = _never_buys(make_agent("double-witch", 0).warnings_for(drawn))
    assert line.startswith("bot double-witch never buys ARTISAN, BANDIT, BUREAUCRAT, CELLAR, ")
    assert "each game draws its kingdom from a deck that holds them" in line
    assert "WITCH," not in line.replace("DOUBLE-WITCH", "") and "CHAPEL" not in line
    assert line.count(", ") == 26 - 2 - 1  # the 26 kingdom cards, less Chapel and Witch


def test_simulate_says_what_the_bots_never_buy_before_it_plays() -> None:
    done = run_cli("simulate", "games/dominion.rcy", "--agents", "bmu,smithy",
                   "--games", "2", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"warning: bot bmu never buys {FIRST_GAME} (no buy rule")
    assert lines[1].startswith("warning: bot smithy never buys CELLAR, MARKET, MERCHANT, MILITIA")
    assert "SMITHY" not in lines[1].partition("(")[0].replace("bot smithy", "")
    assert "games" in done.stdout  # the summary follows


REMODELER = """name = "remodeler"
buy = [
    { card = "PROVINCE", if = "money > 15" },
    { card = "GOLD" },
    { card = "REMODEL", if = "count(REMODEL) < 2" },
    { card = "SILVER" },
]
"""


@pytest.mark.parametrize("engine", ["python", "native"])
def test_remodel_trashes_junk_and_never_gains_an_estate_for_a_copper(
    tmp_path: Path, engine: str
) -> None:
    """Remodel's bot rule: a Curse, an Estate or a Copper goes first, and what it gains,
    where no buy rule applies, is the dearest card that scores nothing.  It once trashed
    the cheapest card and gained the dearest: a Copper into an Estate, every play, and a
    card-plus-money Remodel bot scored 0.04 against bmu."""
    if engine == "native" and not native_available():
        pytest.skip("the native engine is not built")
    bot = tmp_path / "remodeler.toml"
    bot.write_text(REMODELER)
    done = run_cli("simulate", "games/dominion.rcy", "--agents", f"{bot},bmu", "--games", "30",
                   "--seed", "4", "--engine", engine, "--json", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    picks = json.loads(done.stdout)["cards"]["by_agent"][str(bot)]["picks"]
    trashed, gained = picks["REMODEL-TRASH"], picks["REMODEL-GAIN"]
    assert trashed.get("ESTATE", 0) + trashed.get("COPPER", 0) >= 0.8 * sum(trashed.values())
    assert "ESTATE" not in gained and "CURSE" not in gained, gained


def test_the_chapel_benchmarks_twins_differ_only_by_a_chapel_opening_and_its_trashing() -> None:
    """benchmarks/chapel_bots.py: each partner's bot and its Chapel twin load as bots; the
    twin adds the Chapel buy and the trash rule and nothing else, and trashes Coppers
    only by the ``down`` rule (the comparison is of Chapel, not of two strategies)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "chapel_bots.py"
    spec = importlib.util.spec_from_file_location("chapel_bots", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for partner in bench.PARTNERS:
        plain = DominionBot.from_toml(bench.bot(partner, None), partner)
        assert "CHAPEL" not in plain.bought_cards() and not plain.situations
        for trash in bench.TRASH:
            twin = DominionBot.from_toml(bench.bot(partner, trash), f"{partner}-{trash}")
            assert twin.bought_cards() == plain.bought_cards() | {"CHAPEL"}
            assert [r.card for r in twin.buy_rules if r.card != "CHAPEL"] == [
                r.card for r in plain.buy_rules
            ]
            assert twin.play_order == [*plain.play_order, "CHAPEL"]
            rule = twin.situations["CHAPEL-TRASH"]
            trashes = {r.card for r in rule} if isinstance(rule, tuple) else set()
            assert ("COPPER" in trashes) == (trash == "down")
