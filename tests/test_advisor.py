"""The advisor a person asks with ``?`` (issue 32, item 4): the strongest agent cardlang
has for the game by default, saying which it is and how sure it is, and on Dominion
advice a player would take: Province at $8, never a Curse or a Copper over a Silver at
$3-$5 early, Militia played when it is in hand with an Action to spare.

Positions come from games played by the bots (seeded), each checked on the default
advisor (ISMCTS, 3,000 iterations, Big Money Ultimate rollouts).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from cardlang.agents import make_agent
from conftest import GAMES

from cardlang import load_game
from cardlang.information.views import view_of
from cardlang.interactive.session import ADVISOR, DOMINION_ADVISOR, advice, default_advisor


def _position(
    wanted: Callable[[Any], bool],
    spec: str = "bigmoney",
    seeds: range = range(40),
    stray: float = 0.0,
) -> tuple[Any, list[Any]]:
    """The first decision ``wanted`` holds for in games of seeds ``seeds`` between two
    bots ``spec`` that make a random move with chance ``stray``."""
    game = load_game(GAMES / "dominion.rcy")
    master = game.master()
    for seed in seeds:
        bot = make_agent(spec, seed=seed)
        rng = random.Random(seed)
        st = master.new_game(seed, record=True)
        while not st.is_over:
            options = master.legal_options(st)
            view = view_of(st, st.mover, game, options)
            if wanted(view):
                return view, list(options)
            pick = (
                bot.choose(view, list(options))
                if rng.random() < 0.8
                else rng.randrange(len(options))
            )
            master.apply(st, pick)
    raise AssertionError("no such position in the games played")


def _advice(view: Any, options: list[Any]) -> dict[str, float]:
    got = advice(DOMINION_ADVISOR, view, options, seed=1)
    assert got.visits is not None and sum(got.visits) >= 3000  # it says how sure it is
    assert all(m is None or 0 < m < 0.2 for m in (got.margin(i) for i in range(len(options))))
    return {
        label: v for label, v in zip(view.option_labels, got.values, strict=True) if v is not None
    }


def _coins(view: Any) -> int:
    return view.storage(view.seat, "COINS")


def test_the_default_advisor_is_the_games_strongest() -> None:
    assert default_advisor(load_game(GAMES / "dominion.rcy")) == DOMINION_ADVISOR
    assert default_advisor(load_game(GAMES / "hearts.rcy")) == ADVISOR


def test_province_at_eight() -> None:
    """Mid-game (a tenth turn or later; early, a Gold at $8 is a matter of taste, and in
    a game already won every buy is worth about as much)."""

    def eight(v: Any) -> bool:
        return v.situation == "BUY-PHASE" and _coins(v) == 8 and v.storage(v.seat, "TURNS") >= 9

    view, options = _position(eight, seeds=range(16, 40))
    values = _advice(view, options)
    assert max(values, key=values.__getitem__) == "Buy Province ($8)", values


def test_silver_over_curse_and_copper_early() -> None:
    def early(v: Any) -> bool:
        turns = v.storage(v.seat, "TURNS")
        return v.situation == "BUY-PHASE" and 3 <= _coins(v) <= 5 and turns <= 4

    view, options = _position(early)
    values = _advice(view, options)
    silver = values["Buy Silver ($3)"]
    assert silver > values["Buy Curse ($0)"] and silver > values["Buy Copper ($0)"], values


@pytest.mark.parametrize("seed_block", [range(0, 60)])
def test_militia_is_played(seed_block: range) -> None:
    def militia(v: Any) -> bool:
        return v.situation == "ACTION-PHASE" and "Play Militia" in v.option_labels

    view, options = _position(militia, spec="smithy", seeds=seed_block, stray=0.3)
    values = _advice(view, options)
    end = next(label for label in values if "end" in label.lower() or "no " in label.lower())
    assert values["Play Militia"] > values[end], values


def test_smithy_is_played_with_one_action_and_nothing_else_to_play() -> None:
    """The position of the issue's close call: Smithy the only Action in hand, one Action
    left. Playing it draws three cards for nothing: the advisor says so, and its best is
    Smithy, clear of the noise of ending the phase."""
    from cardlang.interactive.session import Advice

    def smithy(v: Any) -> bool:
        plays = [label for label in v.option_labels if label.startswith("Play ")]
        return v.situation == "ACTION-PHASE" and plays == ["Play Smithy"]

    view, options = _position(smithy, spec="smithy", seeds=range(0, 40))
    got = advice(DOMINION_ADVISOR, view, options, seed=1)
    values = dict(zip(view.option_labels, got.values, strict=True))
    end = next(label for label in values if label != "Play Smithy")
    assert values["Play Smithy"] > values[end], values
    verdicts = dict(zip(view.option_labels, Advice.verdicts(got), strict=True))
    assert verdicts["Play Smithy"] == "best", verdicts
