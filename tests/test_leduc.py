"""games/leduc_poker.rcy against an independent implementation of Leduc hold'em.

Every deal of ranks (the two private cards and the public one) is found by seed, and
every betting sequence is walked on both engines: at each decision the options must be
the reference's legal actions in its order (fold, check or call, raise), and at the end
the scores must be the reference's net chips.  Where OpenSpiel is installed, its
`leduc_poker` is walked alongside as a second reference.  A few hands are also worked
by hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import GAMES

from cardlang import load_game
from cardlang.engine.native import native_available

FOLD, CALL, RAISE = 0, 1, 2
RANKS = ("JACK", "QUEEN", "KING")
ENGINES = ["python", *(["native"] if native_available() else [])]


class Reference:
    """Leduc hold'em written from the rules alone (antes 1, raises of 2 then 4, at most
    two raises a round, seat 0 first in each round; a pair with the public card wins,
    else the higher card; equal cards split)."""

    def __init__(self, private: tuple[int, int], public: int) -> None:
        self.private, self.public = private, public
        self.put = [1, 1]  # chips each has put in
        self.round, self.raises, self.acted, self.player = 0, 0, 0, 0
        self.folded: int | None = None
        self.over = False

    def legal(self) -> list[int]:
        facing = self.put[1 - self.player] > self.put[self.player]
        return [*([FOLD] if facing else []), CALL, *([RAISE] if self.raises < 2 else [])]

    def apply(self, action: int) -> None:
        assert action in self.legal()
        me, them = self.player, 1 - self.player
        if action == FOLD:
            self.folded, self.over = me, True
            return
        self.put[me] = self.put[them] + (0 if action == CALL else (2, 4)[self.round])
        self.raises += action == RAISE
        self.acted += 1
        if action == CALL and self.acted >= 2:  # the round is closed
            if self.round == 1:
                self.over = True
                return
            self.round, self.raises, self.acted = 1, 0, 0
            self.player = 0
            return
        self.player = them

    def returns(self) -> tuple[int, int]:
        pot = sum(self.put)
        if self.folded is not None:
            winner = 1 - self.folded
        else:
            strength = [10 * (r == self.public) + r for r in self.private]
            winner = 0 if strength[0] > strength[1] else 1 if strength[1] > strength[0] else -1
        if winner < 0:
            return (pot // 2 - self.put[0], pot // 2 - self.put[1])
        won = [0, 0]
        won[winner] = pot
        return (won[0] - self.put[0], won[1] - self.put[1])


def deals(master: Any) -> dict[tuple[int, int, int], Any]:
    """A starting state for each deal of ranks (private 0, private 1, public), by seed."""
    found: dict[tuple[int, int, int], Any] = {}
    for seed in range(2000):
        st = master.new_game(seed)
        ranks = [
            RANKS.index(st.cards[st.zones[(seat, "iloc", "HAND")][-1]]["RANK"]) for seat in (0, 1)
        ]
        public = RANKS.index(st.cards[st.zones[(-1, "iloc", "STOCK")][-1]]["RANK"])
        found.setdefault((ranks[0], ranks[1], public), st)
        if len(found) == 24:  # 27 triples, less the three that need a rank thrice
            break
    assert len(found) == 24
    return found


def walk(master: Any, st: Any, ref: Reference, spiel: Any, counts: list[int]) -> None:
    if ref.over:
        assert st.is_over
        assert tuple(master.result(st).scores) == ref.returns()
        if spiel is not None:
            assert spiel.is_terminal() and tuple(spiel.returns()) == ref.returns()
        counts[0] += 1
        return
    assert not st.is_over and st.mover == ref.player
    legal = ref.legal()
    assert len(master.legal_options(st)) == len(legal)
    if spiel is not None:
        assert spiel.current_player() == ref.player and spiel.legal_actions() == legal
    for index, action in enumerate(legal):
        child, child_ref = st.clone(), _copy(ref)
        master.apply(child, index)
        child_ref.apply(action)
        child_spiel = None
        if spiel is not None:
            child_spiel = spiel.clone()
            child_spiel.apply_action(action)
            if child_spiel.is_chance_node():  # the public card
                child_spiel.apply_action(_card(child_ref.public, taken=_taken(child_ref)))
        walk(master, child, child_ref, child_spiel, counts)


def _copy(ref: Reference) -> Reference:
    other = Reference(ref.private, ref.public)
    other.__dict__.update(
        {k: (list(v) if isinstance(v, list) else v) for k, v in vars(ref).items()}
    )
    return other


def _taken(ref: Reference) -> list[int]:
    first = _card(ref.private[0], [])
    return [first, _card(ref.private[1], [first])]


def _card(rank: int, taken: list[int]) -> int:
    """An OpenSpiel card of that rank not yet dealt (its cards 2r and 2r+1 are rank r)."""
    return 2 * rank if 2 * rank not in taken else 2 * rank + 1


@pytest.mark.parametrize("engine", ENGINES)
def test_every_deal_and_betting_sequence_scores_as_the_rules_say(engine: str) -> None:
    try:
        import pyspiel  # the second reference, where installed
    except ImportError:
        pyspiel = None
    master = load_game(GAMES / "leduc_poker.rcy").master(engine=engine)
    counts = [0]
    for (r0, r1, public), st in deals(master).items():
        spiel = None
        if pyspiel is not None:
            spiel = pyspiel.load_game("leduc_poker").new_initial_state()
            first = _card(r0, [])
            spiel.apply_action(first)
            spiel.apply_action(_card(r1, [first]))
        walk(master, st, Reference((r0, r1), public), spiel, counts)
    # a round closes five ways (cc, rc, crc, rrc, crrc) and ends in a fold four (rf, crf,
    # rrf, crrf): per deal, 5 * (5 + 4) + 4 ends of a hand
    assert counts[0] == 24 * (5 * (5 + 4) + 4)


# Hands worked by hand: (private 0, private 1, public), the options taken, seat 0's net.
WORKED = [
    ((2, 0, 1), [RAISE, CALL, CALL, CALL], 3),  # K beats J: antes 1 + raise 2 each
    ((0, 2, 0), [CALL, CALL, CALL, CALL], 1),  # J pairs the public J: beats the K
    ((1, 2, 0), [RAISE, FOLD], 1),  # seat 1 folds: seat 0 takes the antes
    ((1, 1, 2), [CALL, CALL, RAISE, CALL], 0),  # equal queens split 2 + 8
    ((0, 1, 2), [RAISE, RAISE, CALL, RAISE, RAISE, CALL], -13),  # 1 + 2 + 2 + 4 + 4 lost
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("deal", "actions", "net"), WORKED)
def test_hands_worked_by_hand(
    engine: str, deal: tuple[int, int, int], actions: list[int], net: int
) -> None:
    master = load_game(GAMES / "leduc_poker.rcy").master(engine=engine)
    st = deals(master)[deal].clone()
    ref = Reference(deal[:2], deal[2])  # type: ignore[arg-type]
    for action in actions:
        master.apply(st, ref.legal().index(action))
        ref.apply(action)
    assert st.is_over
    assert tuple(master.result(st).scores) == (net, -net)
