"""(simultaneous ...) in the native engine, held to the Python engine.

The secret picks of a block are kept in the native state (``State::picks``) rather than
in its SECRET frame, and revealed when the block's body is done: the event logs, the
options and the results must be the Python engine's, byte for byte, on games whose picks
bind the variables around them, set storages, bind collections, refer to cards nobody
sees, or fail when revealed.  The rest holds the operations a determinization uses
(``hide_picks``, ``blank_picks``, ``pick_option_count``, ``set_pick``) and the picks'
part in clones and fingerprints.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlang import load_game
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from tests.helpers import load_text
from tests.test_native import ROOT, _comparable, assert_same, play

pytestmark = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

# Rounds of signs shown at once: a pick binds the loop's 'P, the let's 'N and its own 'C,
# and its option reads them when it runs, after the loop has moved on.
ROUNDS = """(game
 (setup
  (create players 3)
  (create deck (game iloc STOCK) (deck (SIGN (ROCK, PAPER, SCISSORS)) (COPY (A, B, C, D)))))
 (do ((shuffle (game iloc STOCK))
      (set (game points BEATS) (((SIGN : ROCK) 1) ((SIGN : PAPER) 2) ((SIGN : SCISSORS) 3)))
      (all player 'P (repeat 4 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (>= (game sto ROUNDS) 2))
  (simultaneous
   (all player 'P
    (let (size ('P iloc HAND)) 'N
     (choice by 'P
      ((any ('P iloc HAND) 'C
            (do ((move 'C (top ('P vloc SHOWN)))
                 (inc ('P sto LEFT) 'N)
                 (inc (game sto ORDER) 1)
                 (set ('P sto AT) (game sto ORDER)))))
       ((> 'N 3) (inc ('P sto PASSES) 1)))))))
  (do ((inc (game sto ROUNDS) 1)
       (all player 'P (inc ('P sto SCORE) (sum ('P vloc SHOWN) using (game points BEATS)))))))
 (scoring max ((current player) sto SCORE)))
"""

# A sealed-bid auction: every bid sets storages, which the rules read once all have bid.
BIDS = """(game
 (setup
  (create players 3)
  (create deck (game vloc STOCK) (deck (RANK (ONE, TWO, THREE)))))
 (do ((all player 'P (set ('P sto COINS) 4))
      (set (game points VALUE) (((RANK : ONE) 1) ((RANK : TWO) 2) ((RANK : THREE) 3)))))
 (stage player (end (== (size (game vloc STOCK)) 0))
  (simultaneous
   (all player 'P
    (choice by 'P
     ((any (range 0 .. ('P sto COINS)) 'B
           (do ((set ('P sto BID) 'B)
                (inc (game sto BIDS) 'B))))))))
  (do ((set (game sto HIGH) (- 0 1))
       (all player 'P
            ((> ('P sto BID) (game sto HIGH))
             (do ((set (game sto HIGH) ('P sto BID))
                  (set (game sto WINNER) (pid 'P))))))
       (let ((game sto WINNER) player) 'W
            (do ((dec ('W sto COINS) (game sto HIGH))
                 (move (top (game vloc STOCK)) (top ('W vloc WON)))))))))
 (scoring max (+ ((current player) sto COINS)
                 (sum ((current player) vloc WON) using (game points VALUE)))))
"""

# Each shows a subset of its hand: a pick that binds a collection of cards.
SUBSETS = """(game
 (setup
  (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (simultaneous
  (all player 'P
   (choice by 'P
    ((any (subsets ('P iloc HAND)) 'S
          ((<= (size 'S) 2)
           (all 'S 'X (move 'X (top ('P vloc SHOWN))))))))))
 (scoring max (size ((current player) vloc SHOWN))))
"""

# Picks of cards nobody sees: the top card of a hidden deck (a card register of the
# pick) or any of the deck's cards (a card binding of the pick's option).
HIDDEN = """(game
 (setup
  (create players 2)
  (create deck (game iloc DECK) (deck (RANK (A, B, C, D, E, F)))))
 (do ((shuffle (game iloc DECK))
      (set (game points RANKS) (((RANK : A) 1) ((RANK : B) 2) ((RANK : C) 3)
                                ((RANK : D) 4) ((RANK : E) 5) ((RANK : F) 6)))))
 (stage player (end (>= (game sto ROUNDS) 2))
  (simultaneous
   (repeat 1
    (all player 'P
     (let (top (game iloc DECK)) 'T
      (choice by 'P
       ((move 'T (top ('P vloc TAKEN)))
        (any (game iloc DECK) 'C (move 'C (top ('P vloc TAKEN))))))))))
  (inc (game sto ROUNDS) 1))
 (scoring max (sum ((current player) vloc TAKEN) using (game points RANKS))))
"""

# A bid that may fail when it is revealed (a division by zero that depends on the
# bidder's 'P, as the pick bound it).
FAILS = """(game
 (setup (create players 2) (create deck (game vloc STOCK) (deck (RANK (A)))))
 (stage player (end (>= (game sto ROUNDS) 3))
  (simultaneous
   (all player 'P
    (choice by 'P
     ((any (range 1 .. 4) 'B
           (do ((set ('P sto BID) 'B)
                (inc (game sto SUM) (// 12 (- 'B (+ (pid 'P) 1)))))))))))
  (inc (game sto ROUNDS) 1))
 (scoring max ((current player) sto BID)))
"""

GAMES = {"rounds": ROUNDS, "bids": BIDS, "subsets": SUBSETS, "hidden": HIDDEN, "fails": FAILS}


def _game(name: str) -> Any:
    return load_text(GAMES[name])


def _to_mid_block(master: Any, seed: int, picks: int) -> Any:
    """A recorded game after ``picks`` random decisions (picks of its first block)."""
    state = master.new_game(seed, record=True)
    rng = random.Random(seed)
    for _ in range(picks):
        master.apply(state, rng.randrange(len(master.legal_options(state))))
    return state


# ---------------------------------------------------------------- both engines alike


@pytest.mark.parametrize("name", list(GAMES))
def test_simultaneous_games_play_alike_under_both_engines(name: str) -> None:
    game = _game(name)
    for seed in range(40):
        assert_same(game, seed)


def test_a_pick_that_fails_when_revealed_fails_alike() -> None:
    game = _game("fails")
    ends = [play(game, "native", seed)[2] for seed in range(40)]
    failed = [e for e in ends if e[0] == "failed"]
    assert 0 < len(failed) < len(ends)
    assert all("division" in e[-1][0] or "zero" in e[-1][0] for e in failed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_simultaneous_games_and_moves(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(list(GAMES)), label="game")
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    game = _game(name)
    moves: list[int] = []

    def choose(n: int) -> int:
        moves.append(data.draw(st.integers(0, n - 1)))
        return moves[-1]

    python = play(game, "python", seed, choose=choose)
    replay = iter(moves)
    assert python == play(game, "native", seed, choose=lambda n: next(replay))


@pytest.mark.parametrize(
    "limits",
    [Limits(max_decisions=1), Limits(max_decisions=4), Limits(max_steps=3)],
    ids=["one-decision", "mid-block", "steps"],
)
def test_cutoffs_with_picks_pending_are_the_same(limits: Limits) -> None:
    for name in ("rounds", "bids"):
        assert_same(_game(name), 5, limits=limits)


@pytest.mark.parametrize("name", ["rounds", "bids", "fails"])
def test_a_batch_inside_the_engine_plays_simultaneous_games_as_python(name: str) -> None:
    """Unrecorded games played whole inside the engine (no reveal event is logged, the
    setup's first statements run once) end as the Python engine's."""
    from cardlang.runs.planned import play_planned, play_planned_games
    from cardlang.runs.simulate import game_seeds, seat_agents
    from cardlang.runs.store import PlannedGame

    game = _game(name)
    native, python = game.master(engine="native"), game.master(engine="python")
    specs = ["random"] * len(native.new_game(0).team_of)
    planned = [
        PlannedGame(-1, i, seed, seat_agents(specs, i, False))
        for i, seed in enumerate(game_seeds(7, 30))
    ]
    batched = [_comparable(p.result) for p in play_planned_games(native, planned, False)]
    alone = [_comparable(play_planned(python, p, False).result) for p in planned]
    assert batched == alone


# ---------------------------------------------------------------- states


def test_clones_keep_their_own_pending_picks() -> None:
    game = _game("rounds")
    master = game.master(engine="native")
    program = master.program
    state = _to_mid_block(master, 2, 2)  # two of three picks made
    picks = program.picks(state.raw)
    assert [p[0] for p in picks] == [0, 1] and not any(p[2] for p in picks)
    snapshot = (picks, state.fingerprint(), repr(state.log))
    copy = state.clone()
    assert program.picks(copy.raw) == picks
    while not copy.is_over:
        master.apply(copy, len(master.legal_options(copy)) - 1)
    assert program.picks(copy.raw) == []
    assert (program.picks(state.raw), state.fingerprint(), repr(state.log)) == snapshot
    # the original goes on as a fresh game with the same moves does
    fresh = _to_mid_block(master, 2, 2)
    while not state.is_over:
        master.apply(state, 0)
        master.apply(fresh, 0)
    assert repr(state.log) == repr(fresh.log)


def test_the_fingerprint_tells_the_picks_apart() -> None:
    master = _game("bids").master(engine="native")
    state = _to_mid_block(master, 0, 0)
    a, b, c = state.clone(), state.clone(), state.clone()
    master.apply(a, 1)
    master.apply(b, 2)
    master.apply(c, 1)
    assert a.fingerprint() != b.fingerprint()
    assert a.fingerprint() == c.fingerprint()
    assert a.raw.memory_bytes > state.raw.memory_bytes


def test_hidden_picks_are_blank_and_listed_as_when_they_were_made() -> None:
    game = _game("rounds")
    master = game.master(engine="native")
    program = master.program
    state = master.new_game(4, record=True)
    listed = []  # per pick: its options' steps when it was made
    rng = random.Random(4)
    for _ in range(2):
        handle = program.options_of(state.raw)
        listed.append([tuple(handle.steps(i)) for i in range(len(handle))])
        master.apply(state, rng.randrange(len(handle)))
    raw = state.raw.clone()
    program.hide_picks(raw, 1)  # seat 1 forgets seat 0's pick, keeps its own
    assert program.blank_picks(raw) == [0]
    hidden, kept = program.picks(raw)
    assert hidden[2] and hidden[3] == () and hidden[4] == program.picks(state.raw)[0][4]
    assert kept == program.picks(state.raw)[1]
    before = (program.frames(raw), program.regs(raw), raw.rng, program.picks(raw))
    for k in range(2):  # nothing moved since the picks: the same options
        assert program.pick_option_count(raw, k) == len(listed[k])
    assert before == (program.frames(raw), program.regs(raw), raw.rng, program.picks(raw))
    with pytest.raises(IndexError):
        program.set_pick(raw, 0, len(listed[0]))
    with pytest.raises(IndexError):
        program.pick_option_count(raw, 2)
    true_steps = program.picks(state.raw)[0][3]
    index = listed[0].index(true_steps)
    program.set_pick(raw, 0, index)
    assert program.blank_picks(raw) == []
    assert program.picks(raw) == program.picks(state.raw)
    # the picks put back, the reveal is the true one's
    world = master.state(raw, state.seed)
    for s in (state, world):
        master.apply(s, 0)
    assert world.zones == state.zones and dict(world.ints) == dict(state.ints)


def test_pick_option_counts_are_the_python_engines() -> None:
    from cardlang.engine.picks import hide_picks, pick_option_count

    for name in ("rounds", "subsets", "hidden", "bids"):
        game = _game(name)
        native, python = game.master(engine="native"), game.master(engine="python")
        for seed in range(5):
            a, b = _to_mid_block(python, seed, 1), _to_mid_block(native, seed, 1)
            hide_picks(a, 1)
            native.program.hide_picks(b.raw, 1)
            assert native.program.blank_picks(b.raw) == [0]
            assert pick_option_count(a, 0) == native.program.pick_option_count(b.raw, 0)


@pytest.mark.parametrize("name", ["hidden", "rounds", "subsets"])
def test_determinizations_with_picks_are_the_same_under_both_engines(name: str) -> None:
    """A seat's world, its own picks mapped to the cards dealt and the others' drawn
    again, is the same under both engines, and plays on alike."""
    from cardlang.information.knowledge import determinize

    game = _game(name)
    masters = [game.master(engine="python"), game.master(engine="native")]
    for seed in range(6):
        states = [_to_mid_block(m, seed, 1) for m in masters]
        for seat in range(len(states[0].team_of)):
            ends = []
            for master, state in zip(masters, states, strict=True):
                world = determinize(state, seat, game, random.Random(seed * 7 + seat))
                rng = random.Random(seed)
                while not world.is_over:
                    master.apply(world, rng.randrange(len(master.legal_options(world))))
                zones = sorted((k, tuple(v)) for k, v in world.zones.items() if v)
                ends.append((zones, sorted(world.ints.items()), master.result(world).scores))
            assert ends[0] == ends[1]


# ---------------------------------------------------------------- search


def test_the_program_says_whether_it_holds_a_block() -> None:
    assert all(_game(n).master(engine="native").program.has_simultaneous for n in GAMES)
    kuhn = load_game(ROOT / "games" / "kuhn_poker.rcy")
    assert not kuhn.master(engine="native").program.has_simultaneous


def test_a_search_of_a_simultaneous_game_stays_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine's own search deals no secret pick: the agent searches in Python, with
    native states, and chooses as on the Python engine."""
    from cardlang.agents import make_agent
    from cardlang.agents.search.in_engine import EngineSearch

    from cardlang.runs.runner import play_game

    answers: list[Any] = []  # what each decision's search was told: None, in Python
    rollouts = EngineSearch.rollouts

    def told(*args: Any) -> Any:
        answers.append(rollouts(*args))
        return answers[-1]

    monkeypatch.setattr(EngineSearch, "rollouts", staticmethod(told))

    def played(game: Any, engine: str) -> tuple[str, Any]:
        agents = [make_agent("ismcts:iterations=12", 31 + i) for i in range(2)]
        result, st = play_game(game.master(engine=engine), agents, 3, record=True)
        return repr(st.log), result.scores

    kuhn = load_game(ROOT / "games" / "kuhn_poker.rcy")
    played(kuhn, "native")
    assert answers and all(a == [] for a in answers)  # searched inside the engine
    answers.clear()
    game = _game("hidden")
    native = played(game, "native")
    assert answers and all(a is None for a in answers)
    assert native == played(game, "python")
