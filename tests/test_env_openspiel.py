"""cardlang games registered with OpenSpiel (cardlang.env.openspiel): the game type, exact
chance, information states, every game file played at random, CFR and ISMCTS."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

from cardlang.env import openspiel as cos  # noqa: E402
from cardlang.errors import UsageError  # noqa: E402

GAMES = Path(__file__).resolve().parent.parent / "games"
ChanceMode = pyspiel.GameType.ChanceMode


@pytest.fixture(scope="module")
def kuhn():
    return cos.register(GAMES / "kuhn_poker.rcy", name="test_cardlang_kuhn")


@pytest.fixture(scope="module")
def leduc():
    return cos.register(GAMES / "leduc_poker.rcy", name="test_cardlang_leduc")


def dealt(game, *outcomes):
    """The state after the given chance outcomes (card-type actions), checking each."""
    state = game.new_initial_state()
    for action in outcomes:
        assert state.is_chance_node()
        assert action in [a for a, _ in state.chance_outcomes()]
        state.apply_action(action)
    return state


def card(game, name):
    """The chance action of a card type (a Kuhn RANK or a Leduc RANK SUIT)."""
    state = game.new_initial_state()
    names = {
        state.action_to_string(pyspiel.PlayerId.CHANCE, a): a for a, _ in state.chance_outcomes()
    }
    return names[f"deal {name}"]


# ---------------------------------------------------------------- the game type


def test_kuhn_registers_with_openspiel_flags(kuhn):
    kind = kuhn.get_type()
    assert kind.short_name == "test_cardlang_kuhn"
    assert "exact chance" in kind.long_name
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_information_state_string and kind.provides_observation_string
    assert kind.provides_observation_tensor and kind.provides_information_state_tensor
    assert kuhn.num_players() == 2
    assert kuhn.max_chance_outcomes() == 3  # the three ranks
    assert kuhn.max_game_length() == 5_000  # the decision limit
    assert (
        pyspiel.load_game("test_cardlang_kuhn").num_distinct_actions()
        == kuhn.num_distinct_actions()
    )


def test_hearts_is_sampled_and_exact_is_refused():
    hearts = cos.register(GAMES / "hearts.rcy", name="test_cardlang_hearts_type", seed=1)
    assert hearts.get_type().chance_mode == ChanceMode.SAMPLED_STOCHASTIC
    assert "sampled chance" in hearts.get_type().long_name
    assert not hearts.new_initial_state().is_chance_node()  # dealt from a seed
    with pytest.raises(cos.ExactChanceError, match="deals"):
        cos.register(GAMES / "hearts.rcy", name="test_cardlang_hearts_exact", chance="exact")


def test_register_refuses_what_it_cannot_do():
    with pytest.raises(UsageError, match="chance"):
        cos.register(GAMES / "kuhn_poker.rcy", name="x", chance="lazy")
    with pytest.raises(UsageError, match="python"):
        cos.register(GAMES / "kuhn_poker.rcy", name="x", chance="exact", engine="native")


# ---------------------------------------------------------------- chance


def test_kuhn_deals_like_openspiel(kuhn):
    state = kuhn.new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.CHANCE
    first = state.chance_outcomes()
    assert [p for _, p in first] == pytest.approx([1 / 3] * 3)
    state.apply_action(first[0][0])
    assert [p for _, p in state.chance_outcomes()] == pytest.approx([1 / 2] * 2)
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0


def walk(state, seen):
    """Every chance node below ``state``: its outcomes' probabilities sum to 1."""
    if state.is_terminal():
        seen["terminal"] += 1
        return
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert all(0 < p <= 1 for _, p in outcomes)
        seen["chance"] += 1
    for action in state.legal_actions():
        walk(state.child(action), seen)


def test_chance_outcomes_sum_to_one_over_kuhns_tree(kuhn):
    seen = {"chance": 0, "terminal": 0}
    walk(kuhn.new_initial_state(), seen)
    assert seen == {"chance": 4, "terminal": 30}  # OpenSpiel's Kuhn: 6 deals x 5 endings


def test_leducs_public_card_is_a_chance_node(leduc):
    jack, queen = card(leduc, "JACK SPADES"), card(leduc, "QUEEN HEARTS")
    state = dealt(leduc, jack, queen)
    for _ in range(2):  # check, check: the first round is over
        state.apply_action(1)
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 4 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert jack not in [a for a, _ in outcomes] and queen not in [a for a, _ in outcomes]
    state.apply_action(outcomes[0][0])
    assert state.current_player() == 0
    public = state.observation_string(0)
    other = dealt(leduc, jack, queen)
    for action in (1, 1, outcomes[1][0]):
        other.apply_action(action)
    assert other.observation_string(0) != public  # the public card is seen


def test_exact_states_serialize_and_come_back(leduc):
    state = dealt(leduc, card(leduc, "KING HEARTS"), card(leduc, "JACK SPADES"))
    state.apply_action(2)
    text = pyspiel.serialize_game_and_state(leduc, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state) and again.history() == state.history()


# ---------------------------------------------------------------- information states


def test_information_state_tells_own_card_not_the_opponents(kuhn):
    jack, queen, king = (card(kuhn, r) for r in ("JACK", "QUEEN", "KING"))
    jq, jk, qk = dealt(kuhn, jack, queen), dealt(kuhn, jack, king), dealt(kuhn, queen, king)
    # seat 0 holds the jack in both: the opponent's hidden card does not show
    assert jq.information_state_string(0) == jk.information_state_string(0)
    assert jq.observation_string(0) == jk.observation_string(0)
    assert jq.observation_tensor(0) == jk.observation_tensor(0)
    # its own card does
    assert jk.information_state_string(0) != qk.information_state_string(0)
    assert jk.observation_tensor(0) != qk.observation_tensor(0)
    # seat 1: king in both, then queen against king
    assert jk.information_state_string(1) == qk.information_state_string(1)
    assert jq.information_state_string(1) != jk.information_state_string(1)
    assert len(jq.observation_tensor(0)) == kuhn.observation_tensor_size()


def test_information_state_holds_the_public_actions(kuhn):
    jack, queen = card(kuhn, "JACK"), card(kuhn, "QUEEN")
    checked, bet = dealt(kuhn, jack, queen), dealt(kuhn, jack, queen)
    checked.apply_action(checked.legal_actions()[0])
    bet.apply_action(bet.legal_actions()[1])
    assert "Check" in dealt(kuhn, jack, queen).action_to_string(0, checked.history()[-1])
    assert checked.information_state_string(1) != bet.information_state_string(1)
    # seat 0 sees its own move in its information state too
    assert checked.information_state_string(0) != bet.information_state_string(0)


@pytest.mark.parametrize("which", ["kuhn", "leduc"])
def test_the_information_state_tensor_tells_what_the_string_tells(which, request):
    """Over every decision of the whole game tree, two positions share a seat's
    information-state tensor exactly when they share its information-state string (the
    stacked views hold the whole history of games this short)."""
    game = request.getfixturevalue(which)
    assert game.get_type().provides_information_state_tensor
    size = game.information_state_tensor_size()
    by_string: dict[tuple[int, str], tuple[float, ...]] = {}
    by_tensor: dict[tuple[int, tuple[float, ...]], str] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        p = state.current_player()
        text, tensor = state.information_state_string(p), tuple(state.information_state_tensor(p))
        assert len(tensor) == size
        assert by_string.setdefault((p, text), tensor) == tensor
        assert by_tensor.setdefault((p, tensor), text) == text
        stack.extend(state.child(a) for a in state.legal_actions())
    # Kuhn: 6 information sets per seat; Leduc: OpenSpiel's 936 in all
    assert len(by_string) == {"kuhn": 12, "leduc": 936}[which]


# ---------------------------------------------------------------- every game, at random


GAME_FILES = sorted(p.name for p in GAMES.glob("*.rcy"))
#: games whose random games take seconds: the native engine plays them (sampled chance)
SLOW_GAMES = {"dominion.rcy": "native"}


@pytest.mark.parametrize(
    "name",
    # Dominion's random game runs to thousands of steps, each checked: 20 s, the slow tier's
    [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_GAMES else n for n in GAME_FILES],
)
def test_a_random_playthrough_of_every_game(name):
    game = cos.register(
        GAMES / name, name=f"test_cardlang_sim_{name[:-4]}", seed=7, engine=SLOW_GAMES.get(name)
    )
    exact = game.get_type().chance_mode == ChanceMode.EXPLICIT_STOCHASTIC
    assert exact == (name in ("kuhn_poker.rcy", "leduc_poker.rcy"))
    # a sampled game's deal comes from the game's generator, which OpenSpiel's
    # serialization (GetRNGState) cannot reach: serialized only when exact
    pyspiel.random_sim_test(game, num_sims=1, serialize=exact, verbose=False)


# ---------------------------------------------------------------- OpenSpiel's algorithms


def cfr(game, iterations):
    """The solver after ``iterations`` (keep it: its average policy points into it)."""
    solver = pyspiel.CFRSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return solver


def test_cfr_solves_our_kuhn_as_openspiels(kuhn):
    ours_solver, theirs_game = cfr(kuhn, 300), pyspiel.load_game("kuhn_poker")
    theirs_solver = cfr(theirs_game, 300)
    ours, theirs = ours_solver.average_policy(), theirs_solver.average_policy()
    exploitability = pyspiel.exploitability(kuhn, ours)
    assert exploitability < 0.005  # measured: 0.00303 after 300 iterations
    assert exploitability == pytest.approx(pyspiel.exploitability(theirs_game, theirs), abs=1e-9)
    value = pyspiel.expected_returns(kuhn.new_initial_state(), ours, -1, True)[0]
    assert value == pytest.approx(-1 / 18, abs=0.002)


@pytest.mark.slow
def test_cfr_on_our_leduc_follows_openspiels(leduc):
    ours_solver, theirs_game = cfr(leduc, 20), pyspiel.load_game("leduc_poker")
    theirs_solver = cfr(theirs_game, 20)
    ours, theirs = ours_solver.average_policy(), theirs_solver.average_policy()
    measured = pyspiel.exploitability(leduc, ours)
    assert measured == pytest.approx(pyspiel.exploitability(theirs_game, theirs), abs=1e-9)
    assert measured < 0.5  # 0.45315 after 20 iterations


def test_ismcts_plays_hearts_to_the_end():
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    hearts = cos.register(GAMES / "hearts.rcy", name="test_cardlang_hearts_ismcts", seed=3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bots = [
        ismcts.ISMCTSBot(
            hearts, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(p)
        )
        for p in range(4)
    ]
    state = hearts.new_initial_state()
    moves = 0
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
        moves += 1
    assert moves == 64  # 4 x 3 cards passed, 52 played
    assert sum(state.returns()) in (-26.0, -78.0)  # 26 points, or a moon shot


def test_resampling_keeps_what_the_seat_knows():
    hearts = cos.register(GAMES / "hearts.rcy", name="test_cardlang_hearts_resample", seed=5)
    state = hearts.new_initial_state()
    rng = random.Random(0)
    for _ in range(14):
        state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(seat, sampler) for _ in range(5)]
    for world in worlds:
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.legal_actions() == state.legal_actions()
    others = {str(w) for w in worlds}
    assert len(others) > 1 and str(state) not in others  # the hidden hands differ


def test_win_returns_are_bounded_and_zero_sum_for_two_seats():
    game = cos.register(GAMES / "kuhn_poker.rcy", name="test_cardlang_kuhn_win", returns="win")
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    state = dealt(game, card(game, "KING"), card(game, "JACK"))
    state.apply_action(state.legal_actions()[1])  # bet
    state.apply_action(state.legal_actions()[0])  # fold
    assert state.returns() == [1.0, -1.0]


def test_a_game_that_always_scores_zero_still_has_a_utility_range():
    """OpenSpiel requires min < max utility; random play that scores nothing for anyone
    must not make the range (0, 0)."""
    from cardlang import load_game

    text = """(game
 (setup (create players 2) (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (stage player (end (== (game sto DONE) 2))
   (choice ((inc (game sto DONE)) (do ((inc (game sto DONE)) (pass))))))
 (scoring max (game sto NOTHING)))"""
    game = cos.register(load_game(text=text, name="zero.rcy"), name="test_cardlang_zero")
    assert game.min_utility() < 0 < game.max_utility()
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
