"""games/dominion.rcy: the base game's setup, every kingdom card, the rulings of
../shared/specs/dominion.md, the end of the game and the winner, random-play fuzzing and
the scripted bots.

Card tests build a position with a small harness (``Table`` and ``scenario`` below): a new
game is driven to the Buy phase of the player just before the one under test, the cards of
the wanted kinds are moved into the hands, decks and discard piles wanted (from the supply
piles, or from a box that holds the players' starting cards), and the turn is ended, so
the player under test starts a real turn with the wanted hand.  Every card stays in
exactly one zone and the per-kind owned counts stay right; each test then drives the
decisions by situation, option kind and branch, and checks zones and storages.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import make_agent
from cardlang.agents.base import Capabilities
from conftest import GAMES
from helpers import assert_conserved, without_kingdom_check

from cardlang import load_game
from cardlang.engine.game import Game
from cardlang.errors import UsageError
from cardlang.information.views import view_of
from cardlang.runs.simulate import play_game, run_batch

DOMINION = GAMES / "dominion.rcy"

ALL_KINGDOM = (
    "ARTISAN",
    "BANDIT",
    "BUREAUCRAT",
    "CELLAR",
    "CHAPEL",
    "COUNCIL-ROOM",
    "FESTIVAL",
    "GARDENS",
    "HARBINGER",
    "LABORATORY",
    "LIBRARY",
    "MARKET",
    "MERCHANT",
    "MILITIA",
    "MINE",
    "MOAT",
    "MONEYLENDER",
    "POACHER",
    "REMODEL",
    "SENTRY",
    "SMITHY",
    "THRONE-ROOM",
    "VASSAL",
    "VILLAGE",
    "WITCH",
    "WORKSHOP",
)
ACTION_CARDS = tuple(k for k in ALL_KINGDOM if k != "GARDENS")
FIRST_GAME = (
    "CELLAR",
    "MARKET",
    "MERCHANT",
    "MILITIA",
    "MINE",
    "MOAT",
    "REMODEL",
    "SMITHY",
    "VILLAGE",
    "WORKSHOP",
)
SIZE_DISTORTION = (
    "ARTISAN",
    "BANDIT",
    "BUREAUCRAT",
    "CHAPEL",
    "FESTIVAL",
    "GARDENS",
    "SENTRY",
    "THRONE-ROOM",
    "WITCH",
    "WORKSHOP",
)
BASIC = ("COPPER", "SILVER", "GOLD", "ESTATE", "DUCHY", "PROVINCE", "CURSE")
#: a legal ten-card kingdom for the bot games
BOT_KINGDOM = "SMITHY,WITCH,VILLAGE,MARKET,MILITIA,MOAT,CELLAR,LABORATORY,FESTIVAL,GARDENS"


@functools.cache
def dominion(
    players: int = 2, kingdom: str | None = ",".join(ALL_KINGDOM), goal: int | None = None
) -> Game:
    """The game, loaded once per parameter set.  By default every kingdom card has a pile
    (26 kingdom piles: a test position can use any card)."""
    params = {"PLAYERS": str(players)}
    if kingdom is not None:
        params["KINGDOM"] = kingdom
    if goal is not None:
        params["GOAL"] = str(goal)
    if kingdom is None or len(kingdom.split(",")) <= 10:
        return load_game(DOMINION, params=params)
    text = without_kingdom_check(Path(DOMINION).read_text())
    return load_game(text=text, name=DOMINION, params=params)


# ---------------------------------------------------------------- zones


def deck(p: int) -> tuple[int, str, str]:
    return (p, "hloc", "DECK")


def hand(p: int) -> tuple[int, str, str]:
    return (p, "iloc", "HAND")


def discard(p: int) -> tuple[int, str, str]:
    return (p, "vloc", "DISCARD")


def play(p: int) -> tuple[int, str, str]:
    return (p, "vloc", "PLAY")


def supply(i: int) -> tuple[int, str, str]:
    return (-1, "vloc", "SUPPLY" if i == 0 else f"SUPPLY#{i}")


TRASH = (-1, "vloc", "TRASH")
#: where the harness keeps cards it takes out of play (the players' starting cards, or
#: supply cards removed to empty a pile); no rule of the game reads it
BOX = (-1, "vloc", "TEST-BOX")
OWNED_ZONES = ("DECK", "HAND", "DISCARD", "PLAY")
#: zones a card visits only while a card is being resolved
TRANSIENT_ZONES = ("CELLARED", "REVEALED", "LOOKED", "KEPT", "SET-ASIDE")


def owner_of(key: tuple[int, str, str]) -> int | None:
    """The player whose owned cards a zone holds (None: the game's, or transient)."""
    return key[0] if key[0] >= 0 and key[2] in OWNED_ZONES else None


# ---------------------------------------------------------------- the harness


class Table:
    """A game in progress with helpers to read it, rearrange it and decide."""

    def __init__(self, game: Game, seed: int = 1) -> None:
        self.game = game
        # it rearranges the state's lists in place: a Python engine's state
        self.master = game.master(engine="python")
        self.st = self.master.new_game(seed)
        self.check()
        # supply pile of each kind (every pile is full at the start)
        self.piles: dict[str, tuple[int, str, str]] = {}
        for key, cards in self.st.zones.items():
            if key[0] == -1 and key[2].startswith("SUPPLY") and cards:
                self.piles[self.st.cards[cards[-1]]["KIND"]] = key

    # ------------------------------------------------------------ reading
    def kinds(self, key: tuple[int, str, str]) -> list[str]:
        """The kinds of a zone's cards, bottom first."""
        return [self.st.cards[c]["KIND"] for c in self.st.zones.get(key, [])]

    def bag(self, key: tuple[int, str, str]) -> Counter[str]:
        return Counter(self.kinds(key))

    def count(self, p: int, name: str) -> int:
        """An integer storage of player ``p`` (ACTIONS, COINS, or the count of a kind)."""
        return self.st.ints.get((p, name), 0)

    def owned(self, p: int) -> Counter[str]:
        c: Counter[str] = Counter()
        for key in (deck(p), hand(p), discard(p), play(p)):
            c.update(self.kinds(key))
        return c

    def left(self, kind: str) -> int:
        return len(self.st.zones.get(self.piles[kind], []))

    @property
    def situation(self) -> str | None:
        return self.st.pending.situation if self.st.pending is not None else None

    @property
    def mover(self) -> int:
        return self.st.mover

    def views(self) -> tuple[Any, ...]:
        options = self.master.legal_options(self.st)
        return view_of(self.st, self.st.mover, self.game, options).options

    def options(self) -> list[tuple[int, str | None]]:
        """(branch, kind) of each option of the pending decision."""
        return [(o.branch, o.kind) for o in self.views()]

    def option_kinds(self, branch: int = 0) -> set[str | None]:
        return {k for b, k in self.options() if b == branch}

    # ------------------------------------------------------------ deciding
    def choose(
        self,
        kind: str | None = None,
        branch: int | None = None,
        *,
        situation: str | None = None,
        mover: int | None = None,
    ) -> None:
        """Play the first option with that kind and branch (None: any); it must exist."""
        assert self.st.status == "running", self.describe_failure()
        if situation is not None:
            assert self.situation == situation, (self.situation, situation)
        if mover is not None:
            assert self.mover == mover, (self.mover, mover, self.situation)
        for i, o in enumerate(self.views()):
            if (kind is None or o.kind == kind) and (branch is None or o.branch == branch):
                self.master.apply(self.st, i)
                assert self.st.status != "failed", self.describe_failure()
                return
        raise AssertionError(
            f"no option kind={kind} branch={branch} in {self.situation}: {self.options()}"
        )

    def end_phase(self, situation: str | None = None) -> None:
        """Take the option that binds no card (end the phase, stop, don't)."""
        for i, o in enumerate(self.views()):
            if o.kind is None:
                if situation is not None:
                    assert self.situation == situation, (self.situation, situation)
                self.master.apply(self.st, i)
                assert self.st.status != "failed", self.describe_failure()
                return
        raise AssertionError(f"no option without a card in {self.situation}: {self.options()}")

    def describe_failure(self) -> str:
        err = self.st.error
        return err.render() if err is not None else f"status {self.st.status}"

    # ------------------------------------------------------------ checking
    def check(self) -> None:
        """No rule error; every card in one zone; the per-kind owned counts are right
        (whenever no card is half-way through a card's effect)."""
        st = self.st
        assert st.status != "failed", self.describe_failure()
        assert_conserved(st)
        if any(
            st.zones.get((p, k, z))
            for p in range(st.nplayers)
            for k in ("vloc", "iloc")
            for z in TRANSIENT_ZONES
        ):
            return
        kinds = {a["KIND"] for a in st.cards}
        for p in range(st.nplayers):
            owned = self.owned(p)
            for kind in kinds:
                assert self.count(p, kind) == owned[kind], (
                    p,
                    kind,
                    self.count(p, kind),
                    owned[kind],
                )

    # ------------------------------------------------------------ rearranging
    def move(self, c: int, to: tuple[int, str, str]) -> None:
        """Move card ``c`` to the top of ``to``, keeping card_zone and the owned counts."""
        st = self.st
        src = st.card_zone[c]
        st.zones[src].remove(c)
        st.zones.setdefault(to, []).append(c)
        st.card_zone[c] = to
        was, now = owner_of(src), owner_of(to)
        if was != now:
            kind = st.cards[c]["KIND"]
            if was is not None:
                st.ints[was, kind] = st.ints.get((was, kind), 0) - 1
            if now is not None:
                st.ints[now, kind] = st.ints.get((now, kind), 0) + 1
        st.options = None

    def take(self, kind: str) -> int:
        """A card of ``kind``: from the box first, else from its supply pile."""
        st = self.st
        for c in reversed(st.zones.get(BOX, [])):
            if st.cards[c]["KIND"] == kind:
                return c
        pile = st.zones.get(self.piles[kind], [])
        assert pile, f"no {kind} left to take"
        return pile[-1]

    def put(self, kinds: Iterable[str], to: tuple[int, str, str]) -> None:
        for kind in kinds:
            self.move(self.take(kind), to)

    def clear(self, key: tuple[int, str, str]) -> None:
        for c in list(self.st.zones.get(key, [])):
            self.move(c, BOX)

    def arrange(
        self,
        p: int,
        *,
        hand: Sequence[str] | None = None,
        deck: Sequence[str] | None = None,
        discard: Sequence[str] | None = None,
        play: Sequence[str] | None = None,
    ) -> None:
        """Give player ``p`` exactly these cards (bottom first) in each zone named; a zone
        left as None keeps its cards."""
        wanted = {
            (p, "iloc", "HAND"): hand,
            (p, "hloc", "DECK"): deck,
            (p, "vloc", "DISCARD"): discard,
            (p, "vloc", "PLAY"): play,
        }
        for key, kinds in wanted.items():
            if kinds is not None:
                self.clear(key)
        for key, kinds in wanted.items():
            if kinds is not None:
                self.put(kinds, key)

    def empty_pile(self, kind: str, leave: int = 0) -> None:
        """Take cards out of ``kind``'s supply pile until ``leave`` remain."""
        pile = self.st.zones[self.piles[kind]]
        while len(pile) > leave:
            self.move(pile[-1], BOX)

    def set(self, p: int, name: str, value: int) -> None:
        self.st.ints[p, name] = value
        self.st.options = None


Hands = dict[int, Sequence[str]]


def scenario(
    game: Game,
    mover: int = 1,
    *,
    seed: int = 1,
    hands: Hands | None = None,
    decks: Hands | None = None,
    discards: Hands | None = None,
) -> Table:
    """A game at the start of ``mover``'s first turn with the wanted cards.

    Every player named in ``hands``/``decks``/``discards`` gets exactly those cards in
    that zone (bottom first: a deck's last card is its top); zones not named keep the
    cards the game dealt.  The mover's turn has just begun (1 Action, 1 Buy, $0): if its
    hand holds an Action the decision is ACTION-PHASE, else its Treasures are played and
    the decision is BUY-PHASE.
    """
    hands, decks, discards = hands or {}, decks or {}, discards or {}
    t = Table(game, seed)
    n = game.nplayers
    assert n >= 2, "the harness needs a player before the mover"
    before = (mover - 1) % n
    # the first turns have only Coppers and Estates: end them until the player before
    # the mover is buying
    while not (t.mover == before and t.situation == "BUY-PHASE"):
        t.choose(branch=1, situation="BUY-PHASE")
    t.arrange(mover, hand=hands.get(mover, ()), deck=decks.get(mover), discard=discards.get(mover))
    t.choose(branch=1, situation="BUY-PHASE")  # its Clean-up; the mover's turn starts
    assert t.st.stack and t.count(mover, "ACTIONS") == 1 and t.count(mover, "BUYS") == 1
    for p in range(n):
        if p != mover:
            t.arrange(p, hand=hands.get(p), deck=decks.get(p), discard=discards.get(p))
    t.st.options = None
    t.check()
    return t


def two(**kwargs: Any) -> Table:
    """A 2-player position: player 1 moves, player 0 is the other."""
    return scenario(dominion(2), 1, **kwargs)


def three(**kwargs: Any) -> Table:
    """A 3-player position: player 1 moves; in turn order the others are 2, then 0."""
    return scenario(dominion(3), 1, **kwargs)


def test_harness_builds_the_position() -> None:
    t = two(
        hands={1: ["VILLAGE", "COPPER", "ESTATE"], 0: ["MOAT", "GOLD"]},
        decks={1: ["SILVER", "GOLD"], 0: []},
        discards={1: ["CURSE"], 0: ["DUCHY"]},
    )
    assert t.situation == "ACTION-PHASE" and t.mover == 1
    assert t.kinds(hand(1)) == ["VILLAGE", "COPPER", "ESTATE"]
    assert t.kinds(deck(1)) == ["SILVER", "GOLD"]
    assert t.kinds(discard(1)) == ["CURSE"]
    assert t.kinds(hand(0)) == ["MOAT", "GOLD"] and t.kinds(deck(0)) == []
    assert t.count(1, "VILLAGE") == 1 and t.count(1, "CURSE") == 1 and t.count(0, "MOAT") == 1
    assert t.count(1, "TURNS") == 1 and t.count(1, "COINS") == 0
    t.check()


def kinds_costing(
    game: Game, most: int, *, treasure: bool = False, kingdom: Iterable[str] = ALL_KINGDOM
) -> set[str]:
    """The kinds with a supply pile costing at most ``most`` (only Treasures if asked)."""
    attrs = game.kind_attributes
    return {
        k
        for k in (*BASIC, *kingdom)
        if attrs[k]["COST"] <= most and (not treasure or "TREASURE" in attrs[k]["TYPES"])
    }


# ---------------------------------------------------------------- the kingdom cards


def test_cellar_discards_the_chosen_cards_together_then_draws_that_many() -> None:
    t = two(
        hands={1: ["CELLAR", "VILLAGE", "ESTATE", "DUCHY", "COPPER"]},
        decks={1: ["GOLD", "PROVINCE", "SILVER"]},
        discards={1: []},
    )
    t.choose("CELLAR", situation="ACTION-PHASE")
    assert t.count(1, "ACTIONS") == 1
    assert t.option_kinds(0) == {"VILLAGE", "ESTATE", "DUCHY", "COPPER"}
    t.choose("ESTATE", situation="CELLAR-DISCARD")
    t.choose("DUCHY", situation="CELLAR-DISCARD")
    assert t.kinds(deck(1)) == ["GOLD", "PROVINCE", "SILVER"]  # nothing drawn yet
    t.choose(branch=1, situation="CELLAR-DISCARD")  # stop
    assert t.bag(discard(1)) == Counter(ESTATE=1, DUCHY=1)
    assert t.kinds(hand(1)) == ["VILLAGE", "COPPER", "SILVER", "PROVINCE"]
    assert t.kinds(deck(1)) == ["GOLD"]
    assert t.situation == "ACTION-PHASE" and t.count(1, "ACTIONS") == 1
    t.check()


def test_cellar_discarded_cards_are_shuffled_in_when_the_deck_runs_out() -> None:
    t = two(
        hands={1: ["CELLAR", "ESTATE", "ESTATE", "ESTATE", "VILLAGE"]},
        decks={1: ["SILVER"]},
        discards={1: []},
    )
    t.choose("CELLAR")
    for _ in range(3):
        t.choose("ESTATE", situation="CELLAR-DISCARD")
    t.choose(branch=1, situation="CELLAR-DISCARD")
    # Silver, then the discard pile (the three Estates) becomes the deck: two drawn
    assert t.kinds(hand(1)) == ["VILLAGE", "SILVER", "ESTATE", "ESTATE"]
    assert t.kinds(deck(1)) == ["ESTATE"] and t.kinds(discard(1)) == []
    t.check()


def test_cellar_discarding_the_whole_hand_stops_by_itself() -> None:
    t = two(
        hands={1: ["CELLAR", "ESTATE", "COPPER"]}, decks={1: ["GOLD", "DUCHY"]}, discards={1: []}
    )
    t.choose("CELLAR")
    t.choose("ESTATE", situation="CELLAR-DISCARD")
    t.choose("COPPER", situation="CELLAR-DISCARD")
    # the hand is empty: no further question; two cards drawn, then the Buy phase
    assert t.situation == "BUY-PHASE"
    assert t.kinds(hand(1)) == ["DUCHY"] and t.kinds(play(1)) == ["CELLAR", "GOLD"]
    assert t.count(1, "COINS") == 3
    t.check()


def test_chapel_trashes_up_to_four_cards_and_never_itself() -> None:
    t = two(
        hands={1: ["CHAPEL", "ESTATE", "ESTATE", "CURSE", "COPPER", "COPPER"]},
        decks={1: []},
        discards={1: []},
    )
    t.choose("CHAPEL")
    assert t.option_kinds(0) == {"ESTATE", "CURSE", "COPPER"}  # the Chapel is in play
    for kind in ("ESTATE", "CURSE", "ESTATE", "COPPER"):
        t.choose(kind, situation="CHAPEL-TRASH")
    assert t.situation == "BUY-PHASE"  # four trashed: no fifth question
    assert t.bag(TRASH) == Counter(ESTATE=2, CURSE=1, COPPER=1)
    assert t.kinds(play(1)) == ["CHAPEL", "COPPER"] and t.count(1, "COINS") == 1
    assert (t.count(1, "ESTATE"), t.count(1, "CURSE"), t.count(1, "COPPER")) == (0, 0, 1)
    t.check()


def test_chapel_can_trash_another_chapel_and_stop_early() -> None:
    t = two(hands={1: ["CHAPEL", "CHAPEL", "ESTATE"]}, decks={1: []}, discards={1: []})
    t.choose("CHAPEL")
    assert t.option_kinds(0) == {"CHAPEL", "ESTATE"}
    t.choose("CHAPEL", situation="CHAPEL-TRASH")
    t.choose(branch=1, situation="CHAPEL-TRASH")
    assert t.kinds(TRASH) == ["CHAPEL"] and t.kinds(play(1)) == ["CHAPEL"]
    assert t.kinds(hand(1)) == ["ESTATE"] and t.count(1, "CHAPEL") == 1
    t.check()


def test_moat_played_draws_two() -> None:
    t = two(hands={1: ["MOAT"]}, decks={1: ["ESTATE", "DUCHY", "PROVINCE"]}, discards={1: []})
    t.choose("MOAT")
    assert t.situation == "BUY-PHASE"
    assert t.kinds(hand(1)) == ["PROVINCE", "DUCHY"] and t.kinds(deck(1)) == ["ESTATE"]
    t.check()


def test_harbinger_puts_a_card_from_the_discard_pile_onto_the_deck() -> None:
    t = two(
        hands={1: ["HARBINGER", "ESTATE"]},
        decks={1: ["COPPER", "DUCHY"]},
        discards={1: ["GOLD", "ESTATE"]},
    )
    t.choose("HARBINGER")
    assert t.kinds(hand(1)) == ["ESTATE", "DUCHY"] and t.count(1, "ACTIONS") == 1
    assert t.situation == "HARBINGER-TOPDECK" and t.option_kinds(0) == {"GOLD", "ESTATE"}
    t.choose("GOLD", situation="HARBINGER-TOPDECK")
    assert t.kinds(deck(1)) == ["COPPER", "GOLD"] and t.kinds(discard(1)) == ["ESTATE"]
    t.check()


def test_harbinger_may_leave_the_discard_pile_and_asks_nothing_when_it_is_empty() -> None:
    t = two(
        hands={1: ["HARBINGER", "HARBINGER"]},
        decks={1: ["COPPER", "DUCHY"]},
        discards={1: ["GOLD"]},
    )
    t.choose("HARBINGER")
    t.choose(branch=1, situation="HARBINGER-TOPDECK")
    assert t.kinds(discard(1)) == ["GOLD"] and t.kinds(deck(1)) == ["COPPER"]
    t = two(hands={1: ["HARBINGER"]}, decks={1: ["COPPER", "DUCHY"]}, discards={1: []})
    t.choose("HARBINGER")
    assert t.situation == "BUY-PHASE" and t.kinds(hand(1)) == ["DUCHY"]
    t.check()


def test_merchant_first_silver_gets_one_coin_per_merchant_played() -> None:
    t = two(
        hands={1: ["MERCHANT", "MERCHANT", "SILVER", "SILVER", "ESTATE"]},
        decks={1: ["COPPER", "ESTATE", "ESTATE"]},
        discards={1: []},
    )
    t.choose("MERCHANT")
    assert t.count(1, "ACTIONS") == 1 and t.kinds(hand(1))[-1] == "ESTATE"
    t.choose("MERCHANT")
    assert t.situation == "BUY-PHASE"
    # the first Silver: 2 + 1 + 1; the second Silver: 2
    assert t.count(1, "COINS") == 6
    t.check()


def test_merchant_without_silver_gives_nothing() -> None:
    t = two(hands={1: ["MERCHANT", "COPPER", "GOLD"]}, decks={1: ["ESTATE"]}, discards={1: []})
    t.choose("MERCHANT")
    assert t.situation == "BUY-PHASE" and t.count(1, "COINS") == 4


def test_throne_room_merchant_then_silver_gives_four() -> None:
    t = two(
        hands={1: ["THRONE-ROOM", "MERCHANT", "SILVER", "ESTATE"]},
        decks={1: ["ESTATE", "ESTATE", "ESTATE"]},
        discards={1: []},
    )
    t.choose("THRONE-ROOM")
    t.choose("MERCHANT", situation="THRONE-ROOM-PLAY")
    assert t.situation == "BUY-PHASE"
    assert t.count(1, "ACTIONS") == 2  # +1 Action twice
    assert t.bag(hand(1)) == Counter(ESTATE=3)  # +1 Card twice
    assert t.count(1, "COINS") == 4  # $2 + $1 + $1
    t.check()


def test_vassal_plays_the_discarded_action_without_using_an_action() -> None:
    t = two(
        hands={1: ["VASSAL", "ESTATE"]},
        decks={1: ["DUCHY", "ESTATE", "VILLAGE"]},
        discards={1: []},
    )
    t.choose("VASSAL")
    assert t.count(1, "ACTIONS") == 0 and t.count(1, "COINS") == 2
    assert t.kinds(discard(1)) == ["VILLAGE"]
    t.choose(branch=0, situation="VASSAL-PLAY")
    # Village: +1 Card, +2 Actions, on top of the 0 Actions left (none spent on it)
    assert t.count(1, "ACTIONS") == 2
    assert t.kinds(play(1)) == ["VASSAL", "VILLAGE"] and t.kinds(discard(1)) == []
    assert t.kinds(hand(1)) == ["ESTATE", "ESTATE"] and t.kinds(deck(1)) == ["DUCHY"]
    t.check()


def test_vassal_may_leave_the_action_and_discards_other_cards_silently() -> None:
    t = two(hands={1: ["VASSAL"]}, decks={1: ["SMITHY"]}, discards={1: []})
    t.choose("VASSAL")
    t.choose(branch=1, situation="VASSAL-PLAY")
    assert t.kinds(discard(1)) == ["SMITHY"] and t.situation == "BUY-PHASE"
    t = two(hands={1: ["VASSAL"]}, decks={1: ["GOLD"]}, discards={1: []})
    t.choose("VASSAL")
    # a Treasure is discarded, not played: no question, $2 only
    assert t.situation == "BUY-PHASE" and t.kinds(discard(1)) == ["GOLD"]
    assert t.count(1, "COINS") == 2


def test_vassal_shuffles_the_discard_pile_when_the_deck_is_empty() -> None:
    t = two(hands={1: ["VASSAL"]}, decks={1: []}, discards={1: ["SMITHY"]})
    t.choose("VASSAL")
    assert t.situation == "VASSAL-PLAY" and t.kinds(discard(1)) == ["SMITHY"]
    t.check()


def test_village_draws_one_and_gives_two_actions() -> None:
    t = two(hands={1: ["VILLAGE", "SMITHY"]}, decks={1: ["ESTATE", "DUCHY"]}, discards={1: []})
    t.choose("VILLAGE")
    assert t.situation == "ACTION-PHASE" and t.count(1, "ACTIONS") == 2
    assert t.kinds(hand(1)) == ["SMITHY", "DUCHY"]
    t.check()


def test_workshop_gains_a_card_costing_up_to_four_to_the_discard_pile() -> None:
    game = dominion(2)
    t = two(hands={1: ["WORKSHOP"]}, decks={1: []}, discards={1: []})
    t.choose("WORKSHOP")
    assert t.situation == "WORKSHOP-GAIN"
    assert t.option_kinds(0) == kinds_costing(game, 4)
    t.choose("GARDENS")
    assert t.kinds(discard(1)) == ["GARDENS"] and t.count(1, "GARDENS") == 1
    assert t.left("GARDENS") == 7
    t.check()


def test_bureaucrat_gains_silver_onto_the_deck_and_victim_topdecks_a_victory_card() -> None:
    t = two(
        hands={1: ["BUREAUCRAT"], 0: ["COPPER", "ESTATE", "DUCHY", "COPPER", "COPPER"]},
        decks={1: ["COPPER"], 0: ["GOLD"]},
        discards={1: [], 0: []},
    )
    t.choose("BUREAUCRAT")
    assert t.kinds(deck(1)) == ["COPPER", "SILVER"] and t.count(1, "SILVER") == 1
    assert t.mover == 0 and t.situation == "BUREAUCRAT-TOPDECK"
    assert t.options() == [(0, "ESTATE"), (0, "DUCHY")]
    t.choose("DUCHY")
    assert t.kinds(deck(0)) == ["GOLD", "DUCHY"]
    assert t.bag(hand(0)) == Counter(COPPER=3, ESTATE=1)
    assert t.mover == 1 and t.situation == "BUY-PHASE"
    t.check()


def test_bureaucrat_victim_without_victory_cards_is_not_asked() -> None:
    t = two(hands={1: ["BUREAUCRAT"], 0: ["COPPER", "SILVER"]}, decks={1: ["COPPER"], 0: []})
    t.choose("BUREAUCRAT")
    assert t.mover == 1 and t.situation == "BUY-PHASE"
    assert t.kinds(hand(0)) == ["COPPER", "SILVER"] and t.kinds(deck(0)) == []


def test_bureaucrat_with_an_empty_deck_the_silver_becomes_the_deck() -> None:
    t = two(
        hands={1: ["BUREAUCRAT"], 0: ["COPPER"]},
        decks={1: []},
        discards={1: ["COPPER", "ESTATE"]},
    )
    t.choose("BUREAUCRAT")
    assert t.kinds(deck(1)) == ["SILVER"]
    assert t.kinds(discard(1)) == ["COPPER", "ESTATE"]  # not shuffled in
    t.check()


def test_militia_gives_two_coins_and_the_victim_discards_down_to_three() -> None:
    t = two(
        hands={1: ["MILITIA"], 0: ["COPPER", "COPPER", "ESTATE", "COPPER", "DUCHY"]},
        discards={0: []},
    )
    t.choose("MILITIA")
    assert t.count(1, "COINS") == 2
    assert t.mover == 0 and t.situation == "MILITIA-DISCARD"
    t.choose("ESTATE", mover=0)
    t.choose("DUCHY", mover=0, situation="MILITIA-DISCARD")
    assert t.bag(hand(0)) == Counter(COPPER=3) and t.bag(discard(0)) == Counter(ESTATE=1, DUCHY=1)
    assert t.mover == 1 and t.situation == "BUY-PHASE" and t.count(1, "COINS") == 2
    t.check()


def test_militia_victim_with_three_cards_is_not_asked() -> None:
    t = two(hands={1: ["MILITIA"], 0: ["COPPER", "ESTATE", "GOLD"]}, discards={0: []})
    t.choose("MILITIA")
    assert t.mover == 1 and t.situation == "BUY-PHASE" and len(t.kinds(hand(0))) == 3


def test_moneylender_trashes_a_copper_for_three_coins() -> None:
    t = two(
        hands={1: ["MONEYLENDER", "COPPER", "COPPER", "ESTATE"]}, decks={1: []}, discards={1: []}
    )
    t.choose("MONEYLENDER")
    assert t.situation == "MONEYLENDER-TRASH"
    t.choose(branch=0)
    assert t.kinds(TRASH) == ["COPPER"] and t.count(1, "COPPER") == 1
    assert t.situation == "BUY-PHASE" and t.count(1, "COINS") == 4  # 3 + the other Copper
    t.check()


def test_moneylender_may_decline_and_without_copper_asks_nothing() -> None:
    t = two(hands={1: ["MONEYLENDER", "COPPER", "COPPER"]}, decks={1: []}, discards={1: []})
    t.choose("MONEYLENDER")
    t.choose(branch=1, situation="MONEYLENDER-TRASH")
    assert t.kinds(TRASH) == [] and t.count(1, "COINS") == 2
    t = two(hands={1: ["MONEYLENDER", "SILVER"]}, decks={1: []}, discards={1: []})
    t.choose("MONEYLENDER")
    assert t.situation == "BUY-PHASE" and t.count(1, "COINS") == 2


@pytest.mark.parametrize("empty", [0, 1, 2])
def test_poacher_discards_one_card_per_empty_supply_pile(empty: int) -> None:
    t = two(
        hands={1: ["POACHER", "VILLAGE", "ESTATE", "DUCHY", "COPPER"]},
        decks={1: ["PROVINCE"]},
        discards={1: []},
    )
    for kind in ("CURSE", "CHAPEL")[:empty]:  # a basic pile counts as well
        t.empty_pile(kind)
    t.choose("POACHER")
    discarded = ["ESTATE", "DUCHY"][:empty]
    for kind in discarded:
        t.choose(kind, situation="POACHER-DISCARD", mover=1)
    assert t.situation == "ACTION-PHASE"  # no further discard
    assert t.count(1, "ACTIONS") == 1 and t.count(1, "COINS") == 1
    assert t.kinds(discard(1)) == discarded
    expected = Counter(VILLAGE=1, ESTATE=1, DUCHY=1, COPPER=1, PROVINCE=1)
    expected.subtract(discarded)
    assert t.bag(hand(1)) == +expected
    t.check()


def test_poacher_with_more_empty_piles_than_cards_discards_the_whole_hand() -> None:
    t = two(hands={1: ["POACHER"]}, decks={1: ["ESTATE"]}, discards={1: []})
    for kind in ("CURSE", "CHAPEL", "MOAT"):
        t.empty_pile(kind)
    t.choose("POACHER")
    t.choose("ESTATE", situation="POACHER-DISCARD")
    assert t.situation == "BUY-PHASE" and t.kinds(discard(1)) == ["ESTATE"]
    assert t.count(1, "COINS") == 1


def test_remodel_trashes_a_card_and_gains_one_costing_up_to_two_more() -> None:
    game = dominion(2)
    t = two(hands={1: ["REMODEL", "ESTATE", "GOLD"]}, decks={1: []}, discards={1: []})
    t.choose("REMODEL")
    assert t.situation == "REMODEL-TRASH" and t.options() == [(0, "ESTATE"), (0, "GOLD")]
    t.choose("ESTATE")
    assert t.situation == "REMODEL-GAIN" and t.option_kinds(0) == kinds_costing(game, 4)
    t.choose("SMITHY")
    assert t.kinds(TRASH) == ["ESTATE"] and t.kinds(discard(1)) == ["SMITHY"]
    assert t.count(1, "ESTATE") == 0 and t.count(1, "SMITHY") == 1
    t.check()


def test_remodel_gold_into_province() -> None:
    t = two(hands={1: ["REMODEL", "GOLD"]}, decks={1: []}, discards={1: []})
    t.choose("REMODEL")
    t.choose("GOLD", situation="REMODEL-TRASH")
    assert "PROVINCE" in t.option_kinds(0)
    t.choose("PROVINCE", situation="REMODEL-GAIN")
    assert t.kinds(discard(1)) == ["PROVINCE"] and t.left("PROVINCE") == 7
    assert t.count(1, "PROVINCE") == 1 and t.count(1, "GOLD") == 0
    t.check()


def test_smithy_draws_three() -> None:
    t = two(
        hands={1: ["SMITHY"]},
        decks={1: ["COPPER", "ESTATE", "DUCHY", "PROVINCE"]},
        discards={1: []},
    )
    t.choose("SMITHY")
    assert t.situation == "BUY-PHASE" and t.count(1, "ACTIONS") == 0
    assert t.kinds(hand(1)) == ["PROVINCE", "DUCHY", "ESTATE"] and t.kinds(deck(1)) == ["COPPER"]
    t.check()


def test_throne_room_plays_smithy_twice() -> None:
    t = two(
        hands={1: ["THRONE-ROOM", "SMITHY"]},
        decks={1: ["COPPER"] + ["ESTATE"] * 6},
        discards={1: []},
    )
    t.choose("THRONE-ROOM")
    assert t.options() == [(0, "SMITHY"), (1, None)]
    t.choose("SMITHY", situation="THRONE-ROOM-PLAY")
    assert t.bag(hand(1)) == Counter(ESTATE=6) and t.kinds(deck(1)) == ["COPPER"]
    assert t.kinds(play(1)) == ["THRONE-ROOM", "SMITHY"]
    t.check()


def test_throne_room_on_throne_room_plays_two_actions_twice_each() -> None:
    t = two(
        hands={1: ["THRONE-ROOM", "THRONE-ROOM", "VILLAGE", "VILLAGE"]},
        decks={1: ["ESTATE"] * 5},
        discards={1: []},
    )
    t.choose("THRONE-ROOM")
    t.choose("THRONE-ROOM", situation="THRONE-ROOM-PLAY")
    t.choose("VILLAGE", situation="THRONE-ROOM-PLAY")
    t.choose("VILLAGE", situation="THRONE-ROOM-PLAY")
    assert t.count(1, "ACTIONS") == 8
    assert t.bag(hand(1)) == Counter(ESTATE=4) and t.kinds(deck(1)) == ["ESTATE"]
    assert t.bag(play(1)) == Counter({"THRONE-ROOM": 2, "VILLAGE": 2})
    t.check()


def test_throne_room_may_play_nothing_and_asks_nothing_without_actions() -> None:
    t = two(hands={1: ["THRONE-ROOM", "VILLAGE"]}, decks={1: ["ESTATE"]}, discards={1: []})
    t.choose("THRONE-ROOM")
    t.choose(branch=1, situation="THRONE-ROOM-PLAY")
    assert t.situation == "BUY-PHASE" and t.kinds(hand(1)) == ["VILLAGE"]
    t = two(hands={1: ["THRONE-ROOM", "ESTATE"]}, decks={1: []}, discards={1: []})
    t.choose("THRONE-ROOM")
    assert t.situation == "BUY-PHASE"


def test_bandit_victims_choose_the_treasure_to_trash_in_turn_order() -> None:
    t = three(
        hands={1: ["BANDIT"], 2: ["ESTATE"] * 5, 0: ["ESTATE"] * 5},
        decks={1: [], 2: ["COPPER", "GOLD", "SILVER"], 0: ["ESTATE", "SILVER", "COPPER"]},
        discards={1: [], 2: [], 0: []},
    )
    t.choose("BANDIT")
    assert t.kinds(discard(1)) == ["GOLD"] and t.count(1, "GOLD") == 1
    # player 2 is next after the attacker, then player 0
    assert t.mover == 2 and t.situation == "BANDIT-TRASH"
    assert t.option_kinds(0) == {"SILVER", "GOLD"}
    t.choose("SILVER")  # the victim's choice: not the dearer one
    assert t.kinds(TRASH) == ["SILVER"] and t.kinds(discard(2)) == ["GOLD"]
    assert t.kinds(deck(2)) == ["COPPER"] and t.count(2, "SILVER") == 0
    assert t.mover == 0 and t.situation == "BANDIT-TRASH"
    assert t.options() == [(0, "SILVER")]  # Copper is never trashed
    t.choose("SILVER")
    assert t.kinds(TRASH) == ["SILVER", "SILVER"] and t.kinds(discard(0)) == ["COPPER"]
    assert t.kinds(deck(0)) == ["ESTATE"]
    assert t.mover == 1 and t.situation == "BUY-PHASE"
    t.check()


def test_bandit_victim_without_a_treasure_to_trash_discards_both() -> None:
    t = two(
        hands={1: ["BANDIT"], 0: ["ESTATE"]},
        decks={1: [], 0: ["GOLD", "ESTATE", "COPPER"]},
        discards={0: []},
    )
    t.choose("BANDIT")
    assert t.mover == 1 and t.situation == "BUY-PHASE"
    assert t.bag(discard(0)) == Counter(ESTATE=1, COPPER=1) and t.kinds(deck(0)) == ["GOLD"]
    assert t.kinds(TRASH) == []
    t.check()


def test_bandit_with_no_gold_left_still_attacks() -> None:
    t = two(
        hands={1: ["BANDIT"], 0: ["ESTATE"]},
        decks={0: ["SILVER", "ESTATE"]},
        discards={0: [], 1: []},
    )
    t.empty_pile("GOLD")
    t.choose("BANDIT")
    t.choose("SILVER", situation="BANDIT-TRASH", mover=0)
    assert t.kinds(discard(1)) == [] and t.kinds(TRASH) == ["SILVER"]
    t.check()


def test_council_room_draws_four_gives_a_buy_and_the_others_draw_one() -> None:
    t = three(
        hands={1: ["COUNCIL-ROOM"], 2: ["COPPER"], 0: ["COPPER", "COPPER"]},
        decks={1: ["COPPER"] + ["ESTATE"] * 4, 2: ["GOLD", "DUCHY"], 0: ["PROVINCE"]},
        discards={1: [], 2: [], 0: []},
    )
    t.choose("COUNCIL-ROOM")
    assert t.bag(hand(1)) == Counter(ESTATE=4) and t.kinds(deck(1)) == ["COPPER"]
    assert t.count(1, "BUYS") == 2
    assert t.kinds(hand(2)) == ["COPPER", "DUCHY"] and t.kinds(deck(2)) == ["GOLD"]
    assert t.kinds(hand(0)) == ["COPPER", "COPPER", "PROVINCE"] and t.kinds(deck(0)) == []
    t.check()


def test_council_room_others_with_nothing_to_draw() -> None:
    t = two(hands={1: ["COUNCIL-ROOM"], 0: []}, decks={0: []}, discards={0: []})
    t.choose("COUNCIL-ROOM")
    assert t.kinds(hand(0)) == [] and t.situation == "BUY-PHASE"
    t.check()


def test_festival_gives_actions_buy_and_coins() -> None:
    t = two(hands={1: ["FESTIVAL", "VILLAGE"]}, decks={1: []}, discards={1: []})
    t.choose("FESTIVAL")
    assert (t.count(1, "ACTIONS"), t.count(1, "BUYS"), t.count(1, "COINS")) == (2, 2, 2)
    assert t.situation == "ACTION-PHASE" and t.kinds(hand(1)) == ["VILLAGE"]


def test_laboratory_draws_two_and_gives_an_action() -> None:
    t = two(
        hands={1: ["LABORATORY", "VILLAGE"]},
        decks={1: ["COPPER", "ESTATE", "DUCHY"]},
        discards={1: []},
    )
    t.choose("LABORATORY")
    assert t.situation == "ACTION-PHASE" and t.count(1, "ACTIONS") == 1
    assert t.kinds(hand(1)) == ["VILLAGE", "DUCHY", "ESTATE"]


def test_library_draws_to_seven_and_discards_the_actions_set_aside() -> None:
    t = two(
        hands={1: ["LIBRARY", "COPPER", "COPPER"]},
        decks={1: ["GOLD", "GOLD", "COPPER", "ESTATE", "VILLAGE", "SILVER", "SMITHY"]},
        discards={1: []},
    )
    t.choose("LIBRARY")
    assert t.situation == "LIBRARY-SKIP"  # the Smithy
    t.choose(branch=0)  # set it aside
    assert t.situation == "LIBRARY-SKIP"  # the Village
    t.choose(branch=1)  # keep it
    assert t.situation == "BUY-PHASE"  # no Action left to play the Village
    # drawn: Silver, Village, Estate, Copper, Gold (7 in hand); one Gold left
    assert t.kinds(deck(1)) == ["GOLD"]
    assert t.kinds(discard(1)) == ["SMITHY"]
    assert t.bag(hand(1)) == Counter(VILLAGE=1, ESTATE=1)
    assert t.count(1, "COINS") == 1 + 1 + 2 + 1 + 3
    t.check()


def test_library_set_aside_cards_are_not_shuffled_into_the_deck() -> None:
    t = two(
        hands={1: ["LIBRARY", "ESTATE", "ESTATE"]},
        decks={1: ["SMITHY"]},
        discards={1: ["DUCHY", "DUCHY"]},
    )
    t.choose("LIBRARY")
    t.choose(branch=0, situation="LIBRARY-SKIP")
    # the deck is empty: the discard pile (two Duchies), not the Smithy, is shuffled in;
    # then nothing is left to draw and the Smithy is discarded
    assert t.situation == "BUY-PHASE"
    assert t.bag(hand(1)) == Counter(ESTATE=2, DUCHY=2)
    assert t.kinds(discard(1)) == ["SMITHY"] and t.kinds(deck(1)) == []
    t.check()


def test_market_gives_card_action_buy_and_coin() -> None:
    t = two(hands={1: ["MARKET", "VILLAGE"]}, decks={1: ["DUCHY"]}, discards={1: []})
    t.choose("MARKET")
    assert (t.count(1, "ACTIONS"), t.count(1, "BUYS"), t.count(1, "COINS")) == (1, 2, 1)
    assert t.kinds(hand(1)) == ["VILLAGE", "DUCHY"] and t.situation == "ACTION-PHASE"


def test_mine_gains_a_treasure_to_hand_costing_up_to_three_more() -> None:
    game = dominion(2)
    t = two(hands={1: ["MINE", "COPPER", "ESTATE"]}, decks={1: []}, discards={1: []})
    t.choose("MINE")
    assert t.situation == "MINE-TRASH" and t.options() == [(0, "COPPER"), (1, None)]
    t.choose("COPPER")
    assert t.situation == "MINE-GAIN"
    assert t.option_kinds(0) == kinds_costing(game, 3, treasure=True) == {"COPPER", "SILVER"}
    t.choose("SILVER")
    # the Silver went to the hand: it is played in this Buy phase
    assert t.situation == "BUY-PHASE" and t.count(1, "COINS") == 2
    assert t.kinds(play(1)) == ["MINE", "SILVER"] and t.kinds(discard(1)) == []
    assert t.kinds(TRASH) == ["COPPER"] and t.count(1, "SILVER") == 1 and t.count(1, "COPPER") == 0
    t.check()


def test_mine_silver_into_gold_and_may_decline() -> None:
    t = two(hands={1: ["MINE", "SILVER", "VILLAGE"]}, decks={1: []}, discards={1: []})
    t.choose("MINE")
    t.choose("SILVER", situation="MINE-TRASH")
    assert t.option_kinds(0) == {"COPPER", "SILVER", "GOLD"}
    t.choose("GOLD", situation="MINE-GAIN")
    # to the hand (no Action left: the Buy phase plays it at once)
    assert t.kinds(hand(1)) == ["VILLAGE"] and t.kinds(play(1)) == ["MINE", "GOLD"]
    assert t.count(1, "COINS") == 3
    t = two(hands={1: ["MINE", "SILVER"]}, decks={1: []}, discards={1: []})
    t.choose("MINE")
    t.choose(branch=1, situation="MINE-TRASH")
    assert t.situation == "BUY-PHASE" and t.kinds(TRASH) == [] and t.count(1, "COINS") == 2


def test_sentry_trashes_and_discards_the_cards_it_looks_at() -> None:
    t = two(
        hands={1: ["SENTRY"]},
        decks={1: ["GOLD", "COPPER", "ESTATE", "VILLAGE"]},
        discards={1: []},
    )
    t.choose("SENTRY")
    assert t.kinds(hand(1)) == ["VILLAGE"] and t.count(1, "ACTIONS") == 1
    assert t.situation == "SENTRY-SORT"
    assert {k for _, k in t.options()} == {"ESTATE", "COPPER"}
    assert {b for b, _ in t.options()} == {0, 1, 2}
    t.choose("ESTATE", branch=0)  # trash
    t.choose("COPPER", branch=1, situation="SENTRY-SORT")  # discard
    assert t.kinds(TRASH) == ["ESTATE"] and t.kinds(discard(1)) == ["COPPER"]
    assert t.kinds(deck(1)) == ["GOLD"] and t.count(1, "ESTATE") == 0
    assert t.situation == "ACTION-PHASE"  # the Village
    t.check()


def test_sentry_puts_the_kept_cards_back_in_the_chosen_order() -> None:
    t = two(
        hands={1: ["SENTRY"]},
        decks={1: ["COPPER", "GOLD", "SILVER", "ESTATE"]},
        discards={1: []},
    )
    t.choose("SENTRY")
    t.choose("SILVER", branch=2, situation="SENTRY-SORT")
    t.choose("GOLD", branch=2, situation="SENTRY-SORT")
    assert t.situation == "SENTRY-ORDER" and t.option_kinds(0) == {"SILVER", "GOLD"}
    t.choose("GOLD")  # put back first: the Silver ends on top
    assert t.kinds(deck(1)) == ["COPPER", "GOLD", "SILVER"]
    t.check()


def test_sentry_shuffles_to_look_when_the_deck_runs_out() -> None:
    t = two(hands={1: ["SENTRY"]}, decks={1: ["ESTATE"]}, discards={1: ["CURSE"]})
    t.choose("SENTRY")
    assert t.kinds(hand(1)) == ["ESTATE"]
    assert t.options() == [(0, "CURSE"), (1, "CURSE"), (2, "CURSE")]
    t.choose("CURSE", branch=0)
    assert t.kinds(TRASH) == ["CURSE"] and t.count(1, "CURSE") == 0
    t.check()


def test_witch_draws_two_and_each_other_player_gains_a_curse() -> None:
    t = two(hands={1: ["WITCH"]}, decks={1: ["COPPER", "ESTATE", "DUCHY"]}, discards={1: [], 0: []})
    t.choose("WITCH")
    assert t.kinds(hand(1)) == ["DUCHY", "ESTATE"]
    assert t.kinds(discard(0)) == ["CURSE"] and t.count(0, "CURSE") == 1
    assert t.left("CURSE") == 9 and t.count(1, "CURSE") == 0
    t.check()


def test_witch_curses_go_in_turn_order_while_they_last() -> None:
    t = three(hands={1: ["WITCH"]}, discards={1: [], 2: [], 0: []})
    t.empty_pile("CURSE", leave=1)
    t.choose("WITCH")
    assert t.kinds(discard(2)) == ["CURSE"] and t.kinds(discard(0)) == []
    t = three(hands={1: ["WITCH"]}, discards={1: [], 2: [], 0: []})
    t.empty_pile("CURSE")
    t.choose("WITCH")
    assert t.kinds(discard(2)) == [] and t.kinds(discard(0)) == []
    assert t.situation == "BUY-PHASE"
    t.check()


def test_artisan_may_put_back_the_card_it_just_gained() -> None:
    game = dominion(2)
    t = two(hands={1: ["ARTISAN", "COPPER"]}, decks={1: ["ESTATE"]}, discards={1: []})
    t.choose("ARTISAN")
    assert t.situation == "ARTISAN-GAIN" and t.option_kinds(0) == kinds_costing(game, 5)
    t.choose("LABORATORY")
    assert t.kinds(hand(1)) == ["COPPER", "LABORATORY"]  # gained to the hand
    assert t.situation == "ARTISAN-TOPDECK"
    assert t.options() == [(0, "COPPER"), (0, "LABORATORY")]
    t.choose("LABORATORY")
    assert t.kinds(deck(1)) == ["ESTATE", "LABORATORY"] and t.count(1, "LABORATORY") == 1
    assert t.situation == "BUY-PHASE" and t.count(1, "COINS") == 1
    t.check()


def test_gardens_is_a_victory_card_that_cannot_be_played() -> None:
    t = two(hands={1: ["GARDENS", "VILLAGE"]}, decks={1: []}, discards={1: []})
    assert t.options() == [(0, "VILLAGE"), (1, None)]


# ---------------------------------------------------------------- Moat against each Attack

VICTIM_ANSWERS = {
    "MILITIA-DISCARD": "ESTATE",
    "BANDIT-TRASH": "GOLD",
    "BUREAUCRAT-TOPDECK": "ESTATE",
}


@pytest.mark.parametrize("holder", [2, 0])
@pytest.mark.parametrize("reveal", [True, False])
@pytest.mark.parametrize("attack", ["WITCH", "MILITIA", "BANDIT", "BUREAUCRAT"])
def test_moat_blocks_an_attack_for_its_holder_only(attack: str, reveal: bool, holder: int) -> None:
    """Player 1 attacks; of the others (2, then 0 in turn order) one holds a Moat."""
    other = 2 - holder
    victim_hand = ["COPPER", "COPPER", "ESTATE", "ESTATE", "COPPER"]
    t = three(
        hands={1: [attack], holder: ["MOAT", *victim_hand[1:]], other: victim_hand},
        decks={1: [], 2: ["ESTATE", "SILVER", "GOLD"], 0: ["ESTATE", "SILVER", "GOLD"]},
        discards={1: [], 2: [], 0: []},
    )
    before = {z: t.kinds(z(holder)) for z in (hand, deck, discard)}
    t.choose(attack)
    assert t.mover == holder and t.situation == "MOAT-REVEAL"
    assert t.options() == [(0, None), (1, None)]
    t.choose(branch=0 if reveal else 1)
    movers = []
    while t.mover != 1:
        movers.append(t.mover)
        t.choose(VICTIM_ANSWERS[t.situation])
    assert t.situation == "BUY-PHASE"
    after = {z: t.kinds(z(holder)) for z in (hand, deck, discard)}
    assert (after == before) == reveal
    asked = {"WITCH": 0, "MILITIA": 2, "BANDIT": 1, "BUREAUCRAT": 1}[attack]
    hit = [p for p in (2, 0) if p == other or not reveal]
    assert movers == [p for p in hit for _ in range(asked)]
    # the player without a Moat was hit
    if attack == "WITCH":
        assert t.kinds(discard(other)) == ["CURSE"]
    elif attack == "MILITIA":
        assert t.bag(hand(other)) == Counter(COPPER=3)
    elif attack == "BANDIT":
        assert "GOLD" in t.kinds(TRASH) and t.kinds(deck(other)) == ["ESTATE"]
    else:
        assert t.kinds(deck(other))[-1] == "ESTATE" and len(t.kinds(hand(other))) == 4
    t.check()


def test_moat_is_not_offered_against_a_card_that_is_no_attack() -> None:
    t = two(hands={1: ["COUNCIL-ROOM", "MOAT"], 0: ["MOAT"]}, decks={1: [], 0: ["COPPER"]})
    t.choose("COUNCIL-ROOM")
    assert t.mover == 1 and t.situation == "BUY-PHASE"
    assert t.kinds(hand(0)) == ["MOAT", "COPPER"]


# ---------------------------------------------------------------- nothing to work with


@pytest.mark.parametrize("card", ACTION_CARDS)
def test_every_card_played_with_empty_hand_deck_and_discard(card: str) -> None:
    """Everyone's hand, deck and discard pile are empty but for the card played."""
    t = two(hands={1: [card], 0: []}, decks={1: [], 0: []}, discards={1: [], 0: []})
    t.choose(card, situation="ACTION-PHASE")
    assert t.st.status != "failed", t.describe_failure()
    # whatever it asks, answer it; the game goes on to the next player's turn
    rng = random.Random(card)
    while t.st.status == "running" and t.count(0, "TURNS") < 2:
        t.master.apply(t.st, rng.randrange(len(t.master.legal_options(t.st))))
    assert t.st.status != "failed", t.describe_failure()
    t.check()


def test_empty_hand_deck_and_discard_plays_a_whole_turn() -> None:
    t = two(hands={1: []}, decks={1: []}, discards={1: []})
    assert t.situation == "BUY-PHASE" and t.count(1, "COINS") == 0
    t.choose("COPPER")
    assert t.mover == 0 and t.kinds(hand(1)) == ["COPPER"]
    t.check()


# ---------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_supply_piles_by_player_count(players: int) -> None:
    game = dominion(players, kingdom="SIZE-DISTORTION")
    st = game.master().new_game(3)
    victory = 8 if players <= 2 else 12
    expected = {
        "COPPER": 60 - 7 * players,
        "SILVER": 40,
        "GOLD": 30,
        "ESTATE": victory,
        "DUCHY": victory,
        "PROVINCE": victory,
        "CURSE": 10 * (players - 1),
    }
    for kind in SIZE_DISTORTION:
        expected[kind] = victory if kind == "GARDENS" else 10
    piles = [k for k in st.zones if k[0] == -1 and k[2].startswith("SUPPLY")]
    assert len(piles) == 17 if players > 1 else 16  # no Curse pile alone
    for i, kind in enumerate(BASIC + SIZE_DISTORTION):
        cards = st.zones.get(supply(i), [])
        assert len(cards) == expected[kind], (kind, len(cards))
        assert {st.cards[c]["KIND"] for c in cards} <= {kind}
    assert supply(17) not in st.zones


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_starting_decks_are_seven_coppers_and_three_estates_five_in_hand(players: int) -> None:
    t = Table(dominion(players, kingdom=None), seed=9)
    for p in range(players):
        assert t.owned(p) == Counter(COPPER=7, ESTATE=3)
        assert (t.count(p, "COPPER"), t.count(p, "ESTATE")) == (7, 3)
        assert len(t.kinds(deck(p))) == 5 and t.kinds(discard(p)) == []
    # player 0 is buying: its Coppers are in play, its Estates in hand
    assert t.mover == 0 and t.situation == "BUY-PHASE"
    assert set(t.kinds(hand(0))) <= {"ESTATE"} and set(t.kinds(play(0))) <= {"COPPER"}
    assert len(t.kinds(hand(0))) + len(t.kinds(play(0))) == 5
    assert t.count(0, "COINS") == len(t.kinds(play(0)))
    assert (t.count(0, "ACTIONS"), t.count(0, "BUYS"), t.count(0, "TURNS")) == (1, 1, 1)
    for p in range(1, players):
        assert len(t.kinds(hand(p))) == 5
    # the decks are shuffled: the opening hands differ from seed to seed
    coppers = {
        Counter(Table(dominion(2, kingdom=None), seed=s).kinds(hand(1)))["COPPER"]
        for s in range(12)
    }
    assert len(coppers) > 1


def kingdom_of(game: Game, seed: int) -> list[str]:
    st = game.master().new_game(seed)
    return [st.cards[st.zones[supply(i)][-1]]["KIND"] for i in range(7, 17)]


def test_default_kingdom_is_first_game() -> None:
    assert kingdom_of(dominion(2, kingdom=None), 1) == list(FIRST_GAME)
    assert kingdom_of(dominion(2, kingdom="FIRST-GAME"), 2) == list(FIRST_GAME)


def test_size_distortion_kingdom() -> None:
    assert kingdom_of(dominion(3, kingdom="SIZE-DISTORTION"), 1) == list(SIZE_DISTORTION)


def test_random_kingdom_ten_distinct_cards_by_seed() -> None:
    game = dominion(2, kingdom="RANDOM")
    kingdoms = [tuple(kingdom_of(game, seed)) for seed in range(30)]
    for k in kingdoms:
        assert len(set(k)) == 10 and set(k) <= set(ALL_KINGDOM)
    assert len(set(kingdoms)) >= 20  # different across seeds
    assert kingdom_of(game, 7) == kingdom_of(game, 7)  # the same for the same seed
    assert set().union(*map(set, kingdoms)) == set(ALL_KINGDOM)
    st = game.master().new_game(3)
    assert supply(17) not in st.zones


HELD_OUT = ("WITCH", "LABORATORY", "FESTIVAL", "COUNCIL-ROOM", "MONEYLENDER", "LIBRARY")


@pytest.mark.parametrize("engine", ["python", "native"])
def test_random_kingdom_never_holds_an_excluded_card(engine: str) -> None:
    """--param exclude=...: the cards a model of unseen cards must never meet in training;
    not even in the randomizer deck, which the engine's tokens show as hidden odds."""
    params = {"KINGDOM": "RANDOM", "EXCLUDE": ",".join(HELD_OUT)}
    game = load_game(DOMINION, params=params)
    kingdoms = []
    for seed in range(40):
        st = game.master(engine=engine).new_game(seed)
        kinds = {st.cards[c]["KIND"] for cards in st.zones.values() for c in cards}
        assert not kinds & set(HELD_OUT)
        kingdoms.append(tuple(st.cards[st.zones[supply(i)][-1]]["KIND"] for i in range(7, 17)))
    assert set().union(*map(set, kingdoms)) == set(ALL_KINGDOM) - set(HELD_OUT)


def test_excluding_a_misspelt_card_is_a_usage_error_with_a_suggestion() -> None:
    with pytest.raises(UsageError, match="LABRATORY: did you mean 'LABORATORY'"):
        load_game(DOMINION, params={"KINGDOM": "RANDOM", "EXCLUDE": "witch,labratory"})


def test_explicit_kingdom_list_in_its_order() -> None:
    wanted = [
        "WITCH",
        "VILLAGE",
        "SMITHY",
        "GARDENS",
        "CHAPEL",
        "MOAT",
        "LIBRARY",
        "MINE",
        "BANDIT",
        "POACHER",
    ]
    game = dominion(2, kingdom=",".join(w.lower() for w in wanted))
    assert kingdom_of(game, 1) == wanted
    st = game.master().new_game(1)
    assert len(st.zones[supply(10)]) == 8  # Gardens with 2 players


# ---------------------------------------------------------------- the end and the winner


def test_province_pile_empty_ends_the_game_at_the_end_of_that_turn() -> None:
    t = Table(dominion(2), seed=4)
    assert t.mover == 0 and t.situation == "BUY-PHASE"
    t.empty_pile("PROVINCE", leave=1)
    t.set(0, "COINS", 16)
    t.set(0, "BUYS", 2)
    t.choose("PROVINCE")
    # the pile is empty, but the turn goes on
    assert t.st.status == "running" and t.mover == 0 and t.situation == "BUY-PHASE"
    assert "PROVINCE" not in t.option_kinds(0)
    t.choose("GOLD")
    assert t.st.status == "completed" and t.st.turns == 1 and t.count(1, "TURNS") == 0
    r = t.master.result(t.st)
    assert r.scores == (9, 3) and r.winners == (0,) and r.ranks == (1, 2)
    assert r.credits == (1.0, 0.0)
    t.check()


def test_three_empty_supply_piles_end_the_game_curses_counting() -> None:
    t = Table(dominion(2), seed=5)
    t.empty_pile("CURSE")
    t.empty_pile("VILLAGE")
    t.empty_pile("ESTATE", leave=1)
    t.end_phase("BUY-PHASE")
    # two empty piles: the game goes on
    assert t.st.status == "running" and t.mover == 1
    assert t.situation == "BUY-PHASE"
    t.set(1, "COINS", 2)
    t.choose("ESTATE")
    assert t.st.status == "completed" and t.st.turns == 2
    r = t.master.result(t.st)
    assert r.scores == (3, 4) and r.winners == (1,)
    t.check()


@pytest.mark.parametrize("goal", [1, 2])
def test_solo_game_ends_after_the_turn_in_which_goal_provinces_are_owned(goal: int) -> None:
    t = Table(dominion(1, kingdom=None, goal=goal), seed=2)
    for turn in range(1, goal + 1):
        assert t.st.status == "running"
        assert t.situation == "BUY-PHASE" and t.count(0, "TURNS") == turn
        t.set(0, "COINS", 8)
        t.choose("PROVINCE")
    assert t.st.status == "completed" and t.st.turns == goal
    r = t.master.result(t.st)
    assert r.scores == (3 + 6 * goal,) and r.winners == (0,) and r.credits == (1.0,)
    t.check()


def test_solo_game_ends_at_the_end_of_the_turn_not_at_the_purchase() -> None:
    t = Table(dominion(1, kingdom=None, goal=2), seed=3)
    t.set(0, "COINS", 19)
    t.set(0, "BUYS", 3)
    t.choose("PROVINCE")
    t.choose("PROVINCE")
    assert t.st.status == "running" and t.situation == "BUY-PHASE"
    t.choose("SILVER")
    assert t.st.status == "completed" and t.st.turns == 1
    assert t.master.result(t.st).scores == (15,)


def test_most_vp_wins() -> None:
    t = Table(dominion(2), seed=6)
    t.put(["DUCHY"], discard(1))
    t.empty_pile("PROVINCE", leave=1)
    t.set(0, "COINS", 8)
    t.choose("PROVINCE")
    r = t.master.result(t.st)
    assert r.scores == (9, 6) and r.winners == (0,) and r.ranks == (1, 2)


def test_tied_vp_fewer_turns_wins() -> None:
    t = Table(dominion(2), seed=6)
    t.put(["PROVINCE"], discard(1))
    t.empty_pile("PROVINCE", leave=1)
    t.set(0, "COINS", 8)
    t.choose("PROVINCE")
    r = t.master.result(t.st)
    # player 0 took a turn, player 1 none
    assert r.scores == (9, 9) and r.tiebreak_scores == ((1,), (0,))
    assert r.winners == (1,) and r.ranks == (2, 1) and r.credits == (0.0, 1.0)


def test_tied_vp_and_turns_share_the_win() -> None:
    t = Table(dominion(2), seed=6)
    t.put(["PROVINCE"], discard(0))
    t.end_phase("BUY-PHASE")
    assert t.mover == 1 and t.situation == "BUY-PHASE"
    t.empty_pile("PROVINCE", leave=1)
    t.set(1, "COINS", 8)
    t.choose("PROVINCE")
    r = t.master.result(t.st)
    assert r.scores == (9, 9) and r.tiebreak_scores == ((1,), (1,))
    assert r.winners == (0, 1) and r.ranks == (1, 1) and r.credits == (0.5, 0.5)
    assert r.is_tie


def test_gardens_worth_one_vp_per_ten_cards_owned() -> None:
    t = Table(dominion(2), seed=7)
    t.put(["GARDENS", "GARDENS"] + ["COPPER"] * 17, discard(0))  # 29 cards
    t.put(["GARDENS"] + ["COPPER"] * 8, discard(1))  # 19 cards: round down
    t.empty_pile("PROVINCE", leave=1)
    t.set(0, "COINS", 8)
    t.choose("PROVINCE")  # the 30th card
    r = t.master.result(t.st)
    # player 0: 3 Estates + a Province + 2 Gardens x 3; player 1: 3 Estates + 1 Gardens x 1
    assert r.scores == (3 + 6 + 2 * 3, 3 + 1)
    t.check()


# ---------------------------------------------------------------- random play


@pytest.mark.parametrize(("players", "games", "seed"), [(2, 700, 21), (3, 700, 22), (4, 600, 23)])
def test_random_games_on_random_kingdoms_never_fail(players: int, games: int, seed: int) -> None:
    """2,000 games of random agents over random kingdoms (each game its own kingdom)."""
    summary = run_batch(
        dominion(players, kingdom="RANDOM"),
        games=games,
        seed=seed,
        agent_specs=["random"] * players,
    )
    assert summary.failed == 0, summary.errors
    assert set(summary.cutoff_reasons) <= {"cutoff:decisions"}
    assert summary.completed + summary.cutoff == games
    assert summary.completed >= 0.95 * games


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_card_and_owned_count_right(players: int) -> None:
    """Random play with every kingdom card on the table; the state is checked at the end
    of each game and every 25 decisions."""
    game = dominion(players)
    for seed in range(8):
        t = Table(game, seed=100 * players + seed)
        rng = random.Random(seed)
        while not t.st.is_over:
            options = t.master.legal_options(t.st)
            t.master.apply(t.st, rng.randrange(len(options)))
            if t.st.decisions % 25 == 0:
                t.check()
        t.check()
        assert t.st.status == "completed" or t.st.end_reason == "cutoff:decisions"


# ---------------------------------------------------------------- the bots

BOTS = ["bigmoney", "bmu", "smithy", "double-witch"]


@pytest.mark.parametrize("first", [*BOTS, "random"])
def test_bots_complete_games_against_each_other_and_random(first: str) -> None:
    game = dominion(2, kingdom=BOT_KINGDOM)
    for second in BOTS:
        summary = run_batch(
            game, games=3, seed=len(first) + len(second), agent_specs=[first, second]
        )
        assert summary.failed == 0, summary.errors
        assert summary.completed == 3, summary.cutoff_reasons


@pytest.mark.parametrize("players", [3, 4])
def test_bots_complete_multiplayer_games(players: int) -> None:
    game = dominion(players, kingdom=BOT_KINGDOM)
    specs = (BOTS + ["random"])[:players]
    summary = run_batch(game, games=3, seed=players, agent_specs=specs)
    assert summary.failed == 0, summary.errors
    assert summary.completed == 3


class Recorder:
    """Wraps an agent and records (situation, kind) of each option it picks."""

    capabilities = Capabilities(view=True)

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.picks: list[tuple[str | None, str | None]] = []

    def choose(self, view: Any, options: Any) -> int:
        i = self.inner.choose(view, options)
        self.picks.append((view.situation, view.options[i].kind))
        return int(i)


def test_double_witch_gives_curses() -> None:
    master = dominion(2, kingdom=BOT_KINGDOM).master()
    for seed in range(4):
        agents = [make_agent("double-witch", seed), make_agent("bigmoney", seed + 50)]
        result, st = play_game(master, agents, seed)
        assert result.completed
        assert 1 <= st.ints.get((0, "WITCH"), 0) <= 2
        assert st.ints.get((1, "CURSE"), 0) >= 2  # the Big Money player got Curses
        assert st.ints.get((0, "CURSE"), 0) == 0  # and gave none to itself
        assert st.ints.get((0, "COPPER"), 0) == 7  # bots never buy Copper


def test_smithy_bot_buys_and_plays_smithy() -> None:
    master = dominion(2, kingdom=BOT_KINGDOM).master()
    for seed in range(3):
        bot = Recorder(make_agent("smithy", seed))
        result, st = play_game(master, [bot, make_agent("bigmoney", seed + 1)], seed)
        assert result.completed
        assert ("BUY-PHASE", "SMITHY") in bot.picks
        assert ("ACTION-PHASE", "SMITHY") in bot.picks
        assert st.ints.get((0, "SMITHY"), 0) >= 1
        # it never ends its Action phase while holding a Smithy
        assert all(p != ("ACTION-PHASE", None) for p in bot.picks)


def test_big_money_solo_takes_about_seventeen_turns_to_four_provinces() -> None:
    """The reference figure of ../shared/specs/dominion.md: mean 16.8 turns (sd 1.9)."""
    summary = run_batch(dominion(1, kingdom=None), games=300, seed=17, agent_specs=["bigmoney"])
    assert summary.completed == 300
    assert 16.3 <= summary.mean_turns <= 17.3


def test_big_money_mirror_favours_the_second_seat_through_the_turn_tie_break() -> None:
    """The reference split of ../shared/specs/dominion.md: first seat ~25%, second
    ~42.5%, ties ~32% (equal VP after equal turns happen when the second seat ends it)."""
    summary = run_batch(dominion(2, kingdom=None), games=400, seed=8, agent_specs=["bigmoney"] * 2)
    assert summary.completed == 400
    ties = summary.ties
    first, second = (w - ties / 2 for w in summary.wins)
    assert 0.22 <= ties / 400 <= 0.42
    assert 0.17 <= first / 400 <= 0.33 and 0.34 <= second / 400 <= 0.51
    assert second > first


def test_bot_written_as_toml_plays(tmp_path: Path) -> None:
    path = tmp_path / "gold-rush.toml"
    path.write_text(
        'name = "gold-rush"\n'
        'play = ["SMITHY"]\n'
        "buy = [\n"
        '  { card = "PROVINCE", if = "money > 15 and count(GOLD) >= 2" },\n'
        '  { card = "GOLD" },\n'
        '  { card = "SMITHY", if = "count(SMITHY) < 1 and left(SMITHY) > 0" },\n'
        '  { card = "SILVER" },\n'
        "]\n"
    )
    master = dominion(2, kingdom=BOT_KINGDOM).master()
    for seed in range(3):
        bot = Recorder(make_agent(str(path), seed))
        assert bot.inner.name == "gold-rush"
        result, st = play_game(master, [make_agent("bigmoney", seed), bot], seed)
        assert result.completed and result.error is None
        bought = Counter(k for s, k in bot.picks if s == "BUY-PHASE" and k is not None)
        assert bought["GOLD"] >= 2 and bought["SMITHY"] == 1
        assert set(bought) <= {"PROVINCE", "GOLD", "SMITHY", "SILVER"}


@pytest.mark.parametrize(
    "condition",
    [
        "monney > 3",
        "money >",
        "__import__('os')",
        "count(gold) > 1",
        "money.real > 1",
        "left(1) > 0",
    ],
)
def test_bot_with_a_bad_condition_is_a_usage_error(tmp_path: Path, condition: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f'buy = [{{ card = "GOLD", if = "{condition}" }}]\n')
    with pytest.raises(UsageError):
        make_agent(str(path), 0)


@pytest.mark.parametrize("kingdom", ["FIRST-GAME", "SIZE-DISTORTION"])
def test_bots_against_random_players_in_the_recommended_kingdoms(kingdom: str) -> None:
    """Random players buy and play every card, so the bots face every attack."""
    game = dominion(3, kingdom=kingdom)
    for specs in (["bigmoney", "random", "double-witch"], ["random", "smithy", "bmu"]):
        summary = run_batch(game, games=4, seed=5, agent_specs=specs)
        assert summary.failed == 0, summary.errors
        assert set(summary.cutoff_reasons) <= {"cutoff:decisions"}


def test_bots_that_buy_every_kingdom_card_answer_every_decision(tmp_path: Path) -> None:
    """TOML bots that buy one of each kingdom card (in three orders) meet nearly every
    situation of the game and always pick a legal option."""
    paths = []
    for order in range(3):
        kinds = list(ALL_KINGDOM)
        random.Random(order).shuffle(kinds)
        rules = "".join(f'  {{ card = "{k}", if = "count({k}) < 1" }},\n' for k in kinds)
        paths.append(tmp_path / f"collector{order}.toml")
        paths[-1].write_text(
            f'buy = [\n  {{ card = "PROVINCE", if = "money > 15" }},\n{rules}'
            '  { card = "GOLD" },\n  { card = "SILVER" },\n]\n'
        )
    game = dominion(2)
    master = game.master()
    seen: set[str | None] = set()
    for seed in range(12):
        bots = [
            Recorder(make_agent(str(paths[seed % 3]), seed)),
            Recorder(make_agent(str(paths[(seed + 1) % 3]), seed + 9)),
        ]
        result, _ = play_game(master, bots, seed)
        assert result.completed, result.error
        for bot in bots:
            seen.update(s for s, _ in bot.picks)
    # all but perhaps THRONE-ROOM-PLAY (the bots play a Throne Room last)
    assert set(game.situations) - seen <= {"THRONE-ROOM-PLAY"}
