"""Referees for our own games: replay recorded games and check every move against the
rules written in each file's header, independently of the interpreter's own logic.

They read the event log (moves, storages, decisions) of games played by random agents:
if the game file or the interpreter let an illegal card be played, the referee says so.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from conftest import GAMES
from helpers import play_random

from cardlang import load_game

HEARTS_ORDER = [
    "TWO",
    "THREE",
    "FOUR",
    "FIVE",
    "SIX",
    "SEVEN",
    "EIGHT",
    "NINE",
    "TEN",
    "JACK",
    "QUEEN",
    "KING",
    "ACE",
]
AGRAM_ORDER = ["THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ACE"]


def replay(path: str, seed: int):  # type: ignore[no-untyped-def]
    master = load_game(GAMES / path).master()
    result, st = play_random(master, seed, record=True)
    assert result.completed, result.error
    return result, st, [e for e in st.log if e[0] == "move"]


def trick_play(st, moves, hand_name: str, order: list[str]):  # type: ignore[no-untyped-def]
    """Check follow-suit, seat order and trick winners; return the tricks and hands."""
    hands: dict[int, set[int]] = defaultdict(set)
    tricks: list[list[tuple[int, int]]] = []
    trick: list[tuple[int, int]] = []
    leader = None
    for _, card, src, dst, _ in moves:
        if dst[1:] == ("iloc", hand_name):
            hands[dst[0]].add(card)
        if src[1:] == ("iloc", hand_name):
            hands[src[0]].discard(card)
        if src[1:] != ("iloc", hand_name) or dst[1:] != ("vloc", "PLAYED"):
            continue
        seat = src[0]
        suit = st.cards[card]["SUIT"]
        if trick:
            led = st.cards[trick[0][1]]["SUIT"]
            assert seat == (trick[-1][0] + 1) % st.nplayers, "play goes round in seat order"
            if suit != led:
                held = [c for c in hands[seat] if st.cards[c]["SUIT"] == led]
                assert not held, f"P{seat} revoked: played {suit} holding {led}"
        else:
            assert leader is None or seat == leader, "the winner of a trick leads the next"
        hands[seat].discard(card)
        trick.append((seat, card))
        if len(trick) == st.nplayers:
            led = st.cards[trick[0][1]]["SUIT"]
            leader = max(
                (order.index(st.cards[c]["RANK"]), s)
                for s, c in trick
                if st.cards[c]["SUIT"] == led
            )[1]
            tricks.append(trick)
            trick = []
    return tricks, leader


@pytest.mark.parametrize("seed", range(40))
def test_hearts_is_played_by_its_rules(seed: int) -> None:
    result, st, moves = replay("hearts.rcy", seed)
    # passing: three cards from each hand to the next seat
    passed = [
        (src[0], dst[0])
        for _, _, src, dst, _ in moves
        if src[1:] == ("iloc", "PASSING") and dst[1:] == ("iloc", "HAND")
    ]
    assert len(passed) == 12 and all(b == (a + 1) % 4 for a, b in passed)
    tricks, _ = trick_play(st, moves, "HAND", HEARTS_ORDER)
    assert len(tricks) == 13
    first = tricks[0][0][1]
    assert (st.cards[first]["RANK"], st.cards[first]["SUIT"]) == ("TWO", "CLUBS")
    # scores: a point per heart, 13 for the queen of spades, shooting the moon
    points = [0] * 4
    for trick in tricks:
        led = st.cards[trick[0][1]]["SUIT"]
        winner = max(
            (HEARTS_ORDER.index(st.cards[c]["RANK"]), s)
            for s, c in trick
            if st.cards[c]["SUIT"] == led
        )[1]
        for _, c in trick:
            attrs = st.cards[c]
            points[winner] += (attrs["SUIT"] == "HEARTS") + 13 * (
                (attrs["RANK"], attrs["SUIT"]) == ("QUEEN", "SPADES")
            )
    if 26 in points:
        points = [0 if p == 26 else 26 for p in points]
    assert list(result.scores) == points


@pytest.mark.parametrize("seed", range(40))
def test_agram_is_played_by_its_rules(seed: int) -> None:
    result, st, moves = replay("agram.rcy", seed)
    assert len(st.cards) == 35
    tricks, last_winner = trick_play(st, moves, "HAND", AGRAM_ORDER)
    assert len(tricks) == 6
    assert result.winners == (last_winner,), "only the last trick counts"


@pytest.mark.parametrize("seed", range(40))
def test_crazy_eights_plays_only_legal_cards(seed: int) -> None:
    result, st, _ = replay("crazy_eights.rcy", seed)
    pile = (-1, "vloc", "PILE")
    in_force = None  # the suit to follow: the top card's, or the one an eight named
    top = None
    checked = 0
    for event in st.log:
        if event[0] == "set" and event[1] == (-1, "INFORCE"):
            in_force = event[2]
        if event[0] != "move" or event[3] != pile:
            continue
        _, card, src, _, _ = event
        if src[1:] == ("iloc", "HAND") and top is not None:
            attrs = st.cards[card]
            assert (
                attrs["RANK"] == "EIGHT"
                or attrs["SUIT"] == in_force
                or attrs["RANK"] == st.cards[top]["RANK"]
            ), "an illegal card was played"
            checked += 1
        top = card
    assert checked > 0
    hands = [len(st.zones.get((p, "iloc", "HAND"), ())) for p in range(4)]
    assert 0 in hands and result.winners == (hands.index(0),)


@pytest.mark.parametrize("seed", range(20))
def test_war_ends_with_every_card_in_one_pile(seed: int) -> None:
    result, st, _ = replay("war.rcy", seed)
    piles = [len(z) for k, z in st.zones.items() if k[0] >= 0]
    assert sum(len(z) for k, z in st.zones.items() if k[1] != "mem") == 52
    if len(result.winners) == 1:
        assert result.scores[result.winners[0]] == max(result.scores) and 0 in piles
