"""Kuhn poker's known value: -1/18 for the first player under equilibrium play.

A check of the rules as written in games/kuhn_poker.rcy and of the Gamemaster: every deal
is enumerated and every branch of the game tree is walked exactly (fractions, no
sampling), with both seats playing a textbook equilibrium strategy (Kuhn 1950; the
family of first-player strategies indexed by alpha in [0, 1/3] all give -1/18).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import GAMES

from cardlang import load_game

ONE_THIRD = Fraction(1, 3)


def aggressive_probability(seat: int, card: str, history: str, alpha: Fraction) -> Fraction:
    """Probability of the aggressive action (bet or call) at this information set."""
    if seat == 0 and history == "":
        return {"JACK": alpha, "QUEEN": Fraction(0), "KING": 3 * alpha}[card]
    if seat == 0 and history == "cb":
        return {"JACK": Fraction(0), "QUEEN": alpha + ONE_THIRD, "KING": Fraction(1)}[card]
    if seat == 1 and history == "c":
        return {"JACK": ONE_THIRD, "QUEEN": Fraction(0), "KING": Fraction(1)}[card]
    assert seat == 1 and history == "b", history
    return {"JACK": Fraction(0), "QUEEN": ONE_THIRD, "KING": Fraction(1)}[card]


def hand(st, seat: int) -> str:  # type: ignore[no-untyped-def]
    (card,) = st.zones[(seat, "iloc", "HAND")]
    return st.cards[card]["RANK"]


def expected_value(master, st, history: str, cards, alpha: Fraction) -> Fraction:  # type: ignore[no-untyped-def]
    if st.is_over:
        return Fraction(master.result(st).scores[0])
    options = master.legal_options(st)
    assert len(options) == 2, "every Kuhn decision has two options"
    seat = st.mover
    p = aggressive_probability(seat, cards[seat], history, alpha)
    # option 0 is the passive action (check / fold), option 1 the aggressive (bet / call)
    opening = history in ("", "c")
    total = Fraction(0)
    for index, (prob, move) in enumerate(
        ((1 - p, "c" if opening else "f"), (p, "b" if opening else "k"))
    ):
        if prob:
            child = st.clone()
            master.apply(child, index)
            total += prob * expected_value(master, child, history + move, cards, alpha)
    return total


def all_deals(master):  # type: ignore[no-untyped-def]
    """One starting state for each of the six deals (seeds found by search)."""
    deals = {}
    for seed in range(10_000):
        st = master.new_game(seed)
        deals.setdefault((hand(st, 0), hand(st, 1)), st)
        if len(deals) == 6:
            return deals
    raise AssertionError("not every deal occurs")


@pytest.mark.parametrize("alpha", [Fraction(0), Fraction(1, 6), ONE_THIRD])
def test_first_player_value_is_minus_one_eighteenth(alpha: Fraction) -> None:
    master = load_game(GAMES / "kuhn_poker.rcy").master()
    deals = all_deals(master)
    value = sum(expected_value(master, st, "", cards, alpha) for cards, st in deals.items()) / 6
    assert value == Fraction(-1, 18)
