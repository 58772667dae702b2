"""games/punish.rcy against an independent implementation of Punish's rules.

Random games are played on both engines alongside ``Reference``, which knows nothing of
the game file: at every Breath it says who picks and which options each picker has (in
the file's order), resolves the revealed picks (feints, damage, exhaustion, the winner)
and, at a Measure's end, heals.  Only the shuffles are taken from the engine: at each
new Measure the reference reads the dealt hands and face-down DECK.  A few Breaths are
also worked by hand.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import GAMES

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.information.views import view_of

ENGINES = ["python", *(["native"] if native_available() else [])]
ATTACK = {"RUSH": 1, "STRIKE": 2, "PUNISH": 3}
PRIORITY = {None: -1, "GUARD": 0, "RUSH": 1, "DODGE": 2, "STRIKE": 3, "PUNISH": 4}
HAND, DECK = "HAND", (-1, "iloc", "DECK")


def damage(mine: str | None, theirs: str | None) -> int:
    """What a player who played ``mine`` (None: rested) takes from ``theirs``."""
    if mine is not None and mine == theirs:
        return 0
    attack = ATTACK.get(theirs or "", 0)
    if mine == "DODGE":
        return 1 if theirs == "RUSH" else 0
    if mine == "GUARD":
        return max(0, attack - 1)
    return attack


class Reference:
    """Punish from the rules alone (the game file's header, and specs/punish.md)."""

    def __init__(self, max_measures: int = 30) -> None:
        self.hp = [3, 3]
        self.exhausted = [False, False]
        self.feinted = [False, False]
        self.breath = 0
        self.measures = 0
        self.max_measures = max_measures
        self.winner: int | None = None
        self.drawn = False
        self.hands: list[list[int]] = [[], []]
        self.deck: list[int] = []  # the face-down cards, top last

    @property
    def over(self) -> bool:
        return self.winner is not None or self.drawn

    def deal(self, st: Any) -> None:
        """A new Measure: the hands and DECK as the engine shuffled and dealt them."""
        self.hands = [list(st.zones[(p, "iloc", HAND)]) for p in (0, 1)]
        self.deck = list(st.zones.get(DECK, []))
        self.exhausted = [False, False]
        self.feinted = [False, False]
        self.breath = 0

    def pickers(self) -> list[int]:
        return [p for p in (0, 1) if not self.exhausted[p]]

    def options(self, p: int) -> list[tuple[int, bool]]:
        """(card, feint?) in the file's order: play each card (bottom of the hand first,
        as (any ...) goes through a location), then feint with each."""
        hand = self.hands[p]
        feints = not self.feinted[p] and bool(self.deck)
        return [(c, False) for c in hand] + ([(c, True) for c in hand] if feints else [])

    def breathe(self, picks: dict[int, tuple[int, bool]], move_of: Any) -> None:
        played: list[str | None] = [None, None]
        for p in (0, 1):  # revealed and run in seat order
            if p not in picks:
                continue
            card, feint = picks[p]
            self.hands[p].remove(card)
            if feint:
                card = self.deck.pop()
                self.feinted[p] = True
            played[p] = move_of(card)
        hurt = [damage(played[p], played[1 - p]) for p in (0, 1)]
        self.hp = [self.hp[p] - hurt[p] for p in (0, 1)]
        down = [self.hp[p] <= 0 for p in (0, 1)]
        if all(down):
            self.winner = min((0, 1), key=lambda p: PRIORITY[played[p]])
        elif any(down):
            self.winner = down.index(False)
        self.exhausted = [m == "PUNISH" for m in played]
        self.breath += 1
        if self.breath == 4 and not self.over:
            self.hp = [min(3, h + 1) for h in self.hp]
            self.measures += 1
            self.drawn = self.measures >= self.max_measures

    def scores(self) -> tuple[int, int]:
        return (int(self.winner == 0), int(self.winner == 1))


def _option(st: Any, game: Any, master: Any, index: int) -> tuple[str, bool]:
    """The engine's option ``index`` as (the kind of card picked, feint?)."""
    view = view_of(st, st.mover, game, master.legal_options(st))
    o = view.options[index]
    return o.cards[0]["KIND"], o.branch == 1


def play(master: Any, game: Any, st: Any, ref: Reference, choose: Any) -> None:
    """Play ``st`` to its end beside ``ref``, checking every Breath."""
    move_of = lambda c: st.cards[c]["KIND"]  # noqa: E731
    ref.deal(st)
    while not ref.over:
        picks: dict[int, tuple[int, bool]] = {}
        for p in ref.pickers():
            assert not st.is_over and st.mover == p
            want = ref.options(p)
            got = [_option(st, game, master, i) for i in range(len(master.legal_options(st)))]
            assert got == [(move_of(card), feint) for card, feint in want]
            i = choose(p, want)
            picks[p] = want[i]
            master.apply(st, i)
        ref.breathe(picks, move_of)
        if ref.over:
            break
        if ref.breath < 4 and not ref.pickers():  # both rest: the engine goes on alone
            continue
        assert not st.is_over
        assert [st.ints[(p, "HP")] for p in (0, 1)] == ref.hp
        if ref.breath == 4:  # a new Measure was dealt
            ref.deal(st)
        else:
            assert [list(st.zones[(p, "iloc", HAND)]) for p in (0, 1)] == ref.hands
    assert st.is_over and st.end_reason == "completed"
    assert tuple(master.result(st).scores) == ref.scores()
    assert st.ints.get((-1, "DRAWN"), 0) == int(ref.drawn)


def _random_choices(seed: int) -> Any:
    rng = random.Random(seed)
    return lambda p, options: rng.randrange(len(options))


@pytest.mark.parametrize("engine", ENGINES)
def test_random_games_follow_the_rules(engine: str) -> None:
    game = load_game(GAMES / "punish.rcy")
    master = game.master(engine=engine)
    feints = double_downs = rests = 0
    for seed in range(150):
        ref = Reference()
        st = master.new_game(seed)
        play(master, game, st, ref, _random_choices(seed))
        feints += sum(ref.feinted)
        rests += sum(ref.exhausted)
        double_downs += min(ref.hp) <= 0 and max(ref.hp) <= 0
    assert feints and rests and double_downs  # the rare rules were all exercised


@pytest.mark.parametrize("engine", ENGINES)
def test_a_short_bound_ends_in_a_draw(engine: str) -> None:
    game = load_game(GAMES / "punish.rcy", params={"MAX-MEASURES": "1"})
    master = game.master(engine=engine)
    drawn = 0
    for seed in range(40):
        ref = Reference(max_measures=1)
        play(master, game, master.new_game(seed), ref, lambda p, options: 0)
        drawn += ref.drawn
    assert drawn


def _deal_with(master: Any, want: tuple[list[str], list[str]]) -> Any:
    """A first state whose hands hold the wanted moves."""
    for seed in range(5000):
        st = master.new_game(seed)
        hands = [[st.cards[c]["KIND"] for c in st.zones[(p, "iloc", HAND)]] for p in (0, 1)]
        if all(all(hands[p].count(m) >= want[p].count(m) for m in want[p]) for p in (0, 1)):
            return st
    raise AssertionError(f"no deal with {want}")


def _pick(master: Any, game: Any, st: Any, move: str, feint: bool = False) -> None:
    view = view_of(st, st.mover, game, master.legal_options(st))
    index = next(
        i for i, o in enumerate(view.options) if o.cards[0]["KIND"] == move and o.branch == feint
    )
    master.apply(st, index)


# Breaths worked by hand: (seat 0's moves, seat 1's moves), HP after each Breath.
WORKED = [
    ((["STRIKE"], ["GUARD"]), [(3, 2)]),  # the guard takes 2 - 1
    ((["DODGE"], ["RUSH"]), [(2, 3)]),  # a dodge takes a rush's 1
    ((["DODGE"], ["STRIKE"]), [(3, 3)]),  # ... and nothing else
    ((["RUSH", "GUARD"], ["RUSH", "STRIKE"]), [(3, 3), (2, 3)]),  # equal cards: nothing
    # both fall: 3-1-3 = -1 and 3-1-2 = 0; STRIKE (3) is below PUNISH (4): seat 0 wins
    ((["RUSH", "DODGE", "STRIKE"], ["DODGE", "RUSH", "PUNISH"]), [(3, 2), (2, 2), None]),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("moves", "hp"), WORKED)
def test_breaths_worked_by_hand(
    engine: str, moves: tuple[list[str], list[str]], hp: list[tuple[int, int] | None]
) -> None:
    game = load_game(GAMES / "punish.rcy")
    master = game.master(engine=engine)
    st = _deal_with(master, moves)
    for m0, m1, after in zip(*moves, hp, strict=True):
        _pick(master, game, st, m0)
        _pick(master, game, st, m1)
        if after is None:
            assert st.is_over and master.result(st).winners == (0,)
        else:
            assert (st.ints[(0, "HP")], st.ints[(1, "HP")]) == after


@pytest.mark.parametrize("engine", ENGINES)
def test_punish_exhausts_and_feints_take_the_deck_in_seat_order(engine: str) -> None:
    game = load_game(GAMES / "punish.rcy")
    master = game.master(engine=engine)
    st = _deal_with(master, (["PUNISH", "GUARD"], ["DODGE", "GUARD"]))
    _pick(master, game, st, "PUNISH")
    _pick(master, game, st, "DODGE")  # a dodge takes nothing from PUNISH
    assert (st.ints[(0, "HP")], st.ints[(1, "HP")]) == (3, 3)
    assert st.mover == 1  # seat 0 rests: only seat 1 picks this Breath
    _pick(master, game, st, "GUARD")
    assert st.mover == 0 and st.ints[(0, "EXHAUSTED")] == 0
    deck = list(st.zones[DECK])
    for _ in range(2):  # both feint, with whatever card comes first
        view = view_of(st, st.mover, game, master.legal_options(st))
        master.apply(st, next(i for i, o in enumerate(view.options) if o.branch == 1))
    discard = st.zones[(-1, "vloc", "DISCARD")]
    assert deck[-1] in discard and deck[-2] in discard  # both played, then discarded
    assert not st.zones.get(DECK)  # seat 0 took the top card, seat 1 the next
    assert st.ints[(0, "FEINTED")] == 1 and st.ints[(1, "FEINTED")] == 1
    # no second feint this Measure: seat 0's options only play
    view = view_of(st, st.mover, game, master.legal_options(st))
    assert {o.branch for o in view.options} == {0}
