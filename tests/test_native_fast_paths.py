"""The native engine's fast paths play exactly as the general evaluator.

The VM evaluates the commonest shapes without its general machinery (native/src: Hot in
program.h, VM::ev_hot, move_many, list_guarded, the type tests of filters, scalar
calls).  Each game below is built to go through one of them, with the edge cases the
general path handles (a repeated move that runs out of cards, a source that is a mem
location, a source that is also the destination, a guard that fails, a procedure that
dispatches on its card's kind, a filter over cards of kinds made during play), and must
give the Python engine's event log, options, result and rule error for many seeds.
"""

from __future__ import annotations

import pytest

from cardlang.engine.native import native_available
from tests.helpers import load_text
from tests.test_native import assert_same, play

pytestmark = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

KINDS = """
 (card-kind GEM (COST 3) (TYPES (TREASURE)) (VALUE 2))
 (card-kind ROCK (COST 1) (TYPES (JUNK)) (VALUE 0))
 (card-kind CROWN (COST 5) (TYPES (TREASURE, JUNK)) (VALUE 4)
  (on TAKE (inc ('P sto CROWNS)) (move 'C (top ('P vloc KEPT)))))
 (card-kind IDOL (COST 7) (TYPES (RELIC)) (VALUE 9))
 (define TAKE ((card 'C) (player 'P))
   (inc ('P sto TAKEN) (attr VALUE 'C))
   (move 'C (top ('P vloc KEPT))))
"""

SETUP = """
 (setup
  (create players 2)
  (create cards (game hloc BAG) GEM 6)
  (create cards (game hloc BAG) ROCK 6)
  (create cards (game hloc BAG) CROWN 3)
  (shuffle (game hloc BAG)))
"""

SCORING = "(scoring max (+ ((current player) sto TAKEN) (size ((current player) vloc KEPT))))"


def kinds_game(flow: str) -> str:
    return f"(game {KINDS} {SETUP} {flow} {SCORING})"


# Each flow walks one fast path; the stage ends when the bag is empty.
FLOWS = {
    # repeated moves to the top and from the bottom, counted and "all"
    "moves": """
 (stage player (end (== (size (game hloc BAG)) 0))
  (do ((repeat (if (> (size (game hloc BAG)) 1) 2 (size (game hloc BAG)))
               (move (top (game hloc BAG)) (top ((current player) iloc HAND))))
       (choice ((any ((current player) iloc HAND) 'C (call TAKE 'C (current player)))
                (turn pass)))
       (repeat all (move (bottom ((current player) iloc HAND)) (bottom (game vloc DISCARD))))
       ((> (size (game vloc DISCARD)) 4)
        (repeat all (move (top (game vloc DISCARD)) (top (game vloc DISCARD))))))))
""",
    # a mem location as the source: each card leaves the zone it really lies in
    "mem source": """
 (stage player (end (== (size (game hloc BAG)) 0))
  (do ((remember (top (game hloc BAG)) (top (game mem SEEN)))
       (repeat all (move (top (game mem SEEN)) (bottom (game vloc SHELF))))
       (choice ((any (game vloc SHELF) 'C
                     ((contains (attr TYPES 'C) TREASURE) (inc ((current player) sto TAKEN))))
                (turn pass))))))
""",
    # guarded options over a location's cards: some guards fail, options call procedures
    # whose body depends on the card's kind
    "guarded options": """
 (stage player (end (== (size (game hloc BAG)) 0))
  (do ((repeat (if (> (size (game hloc BAG)) 2) 3 (size (game hloc BAG)))
               (move (top (game hloc BAG)) (top (game vloc MARKET))))
       (choice ((any (game vloc MARKET) 'C
                     ((and (>= (attr VALUE 'C) ((current player) sto LIMIT))
                           (< (attr COST 'C) 6))
                      (do ((inc ((current player) sto LIMIT))
                           (call TAKE 'C (current player))))))
                (turn pass)))
       (repeat all (move (top (game vloc MARKET)) (top (game vloc DISCARD)))))))
""",
    # filters, counts and any/all whose condition reads only the card's kind, over cards
    # of a kind first made in the middle of the game
    "type tests": """
 (stage player (end (== (size (game hloc BAG)) 0))
  (do ((move (top (game hloc BAG)) (top ((current player) iloc HAND)))
       ((== (size (game hloc BAG)) 7) (create cards (game vloc ALTAR) IDOL 2))
       ((> (size (game vloc ALTAR)) 0)
        (move (top (game vloc ALTAR)) (top ((current player) iloc HAND))))
       (set ((current player) sto TAKEN)
            (size (filter ((current player) iloc HAND) 'C
                          (or (contains (attr TYPES 'C) JUNK) (> (attr VALUE 'C) 8)))))
       ((any ((current player) iloc HAND) 'C (not (contains (attr TYPES 'C) TREASURE)))
        (inc ((current player) sto LIMIT)))
       ((all ((current player) iloc HAND) 'C (>= (attr COST 'C) 3))
        (inc ((current player) sto LIMIT) 2))
       (choice ((any (filter ((current player) iloc HAND) 'C (contains (attr TYPES 'C) TREASURE))
                     'C (move 'C (top (game vloc DISCARD))))
                (turn pass))))))
""",
}


@pytest.mark.parametrize("name", list(FLOWS))
def test_fast_paths_play_as_the_general_path(name: str) -> None:
    game = load_text(kinds_game(FLOWS[name]))
    for seed in range(30):
        assert_same(game, seed)


# Rule errors raised inside a fast path: the same message, span, turn and seed.
FAILING = {
    # a repeated move asks for more cards than there are
    "move runs out": """
 (do ((repeat 20 (move (top (game hloc BAG)) (top ((0 player) iloc HAND))))))
""",
    # a guard reads the attribute of the top card of an empty location
    "guard of an empty pile": """
 (stage player (end (== (size (game hloc BAG)) 0))
  (do ((choice ((any (indexed game vloc PILE) 'P
                     ((< (attr COST (top 'P)) 9) (move (top 'P) (top (game vloc AWAY)))))
                (turn pass))))))
""",
    # a procedure that dispatches on its card's kind, given no card
    "call with no card": """
 (do ((call TAKE (top (game vloc NOWHERE)) (0 player))))
""",
}


@pytest.mark.parametrize("name", list(FAILING))
def test_rule_errors_inside_fast_paths_are_the_same(name: str) -> None:
    text = kinds_game(FAILING[name])
    if name == "guard of an empty pile":  # two piles, one of them empty
        text = text.replace(
            "(shuffle (game hloc BAG))",
            "(shuffle (game hloc BAG)) (create cards (game vloc PILE 0) GEM 1) "
            "(create cards (game vloc PILE 1) ROCK 1) "
            "(move (top (game vloc PILE 1)) (top (game vloc AWAY)))",
        )
    game = load_text(text)
    for seed in range(3):
        python = play(game, "python", seed)
        native = play(game, "native", seed)
        assert python[2][0] == "failed", python[2]
        assert python == native
