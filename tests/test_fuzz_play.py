"""Robustness in play: hostile game files and hostile agents give a clear failure, never
an internal error or a dead process.

test_fuzz_parser.py holds that a mangled game file loads or is refused with positioned
diagnostics; here the mangled files that load are also *played*, on both engines, and
agents answer anything at all.  The only acceptable outcomes of a game are a result
(completed, cut off, or failed by a rule error or an agent's error, each with its
message); the only acceptable exception of loading is ``GameFileError``.  Huge numbers
in a file (a deck of 40^8 cards, a repeat of a billion creations) must be refused by the
checker or fail the game: the test's own process would not survive them otherwise.

The default run draws a few dozen cases (a few seconds); the ``slow`` variants draw many
more (``pytest -m slow tests/test_fuzz_play.py``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import GAMES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_parser import (
    SOURCES,
    _tokens,
    form_mutants,
    same_kind_mutants,
    token_mutants,
)

from cardlang import Game, GameFileError, load_game
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from cardlang.errors import AgentError, RuleError
from cardlang.runs.runner import play_game

ENGINES = ["python", "native"] if native_available() else ["python"]
#: Small bounds: a mutant may loop, and each example must stay quick.
LIMITS = Limits(max_decisions=40, max_steps=5_000)
ENDS = {"completed", "failed", "cutoff:decisions", "cutoff:steps"}

QUICK = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LONG = settings(QUICK, max_examples=400)

HUGE = ["0", "100001", "99999", "1000000", "2000000000", "9223372036854775807", "40"]


@st.composite
def huge_number_mutants(draw: st.DrawFn) -> str:
    """Numbers replaced by huge ones (and small ones): counts of cards, repeats, ranges."""
    text = draw(st.sampled_from(SOURCES))
    numbers = [t for t in _tokens(text) if text[t[0] : t[1]].isdigit()]
    for _ in range(draw(st.integers(1, 3))):
        if not numbers:
            break
        a, b = numbers[draw(st.integers(0, len(numbers) - 1))]
        new = draw(st.sampled_from(HUGE))
        text = text[:a] + new.rjust(b - a) + text[b:]  # same length: other spans hold
    return text


mutants = st.one_of(huge_number_mutants(), same_kind_mutants(), form_mutants(), token_mutants())


class RandomAgent:
    """Legal random answers, from its own seed."""

    name = "random-answers"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Any, options: list[Any]) -> int:
        return self.rng.randrange(len(options))


def assert_plays_cleanly(game: Game, agents: list[Any], seed: int) -> None:
    """Every engine plays the game to a result or a clean failure."""
    for engine in ENGINES:
        try:
            master = game.master(LIMITS, engine=engine)
        except (AgentError, RuleError):  # pragma: no cover - a game the engine refuses
            continue
        result, _ = play_game(master, agents, seed, agent_errors="fail")
        assert result.end_reason in ENDS
        if result.end_reason == "failed":
            assert isinstance(result.error, RuleError | AgentError)
            assert str(result.error)


def check_mutant(text: str, seed: int) -> None:
    try:
        game = load_game(text=text, name="fuzz.rcy")
    except GameFileError as err:
        assert err.errors and "fuzz.rcy:" in err.render()
        return
    agents = [RandomAgent(seed + seat) for seat in range(game.nplayers)]
    assert_plays_cleanly(game, agents, seed)


@QUICK
@given(mutants, st.integers(0, 2**32))
def test_mutated_games_load_and_play_cleanly(text: str, seed: int) -> None:
    check_mutant(text, seed)


@pytest.mark.slow
@LONG
@given(mutants, st.integers(0, 2**32))
def test_mutated_games_load_and_play_cleanly_long(text: str, seed: int) -> None:
    check_mutant(text, seed)


# ---------------------------------------------------------------- hostile agents


class Unprintable(Exception):
    """An exception whose message itself raises."""

    def __str__(self) -> str:
        raise RuntimeError("no message for you")


#: What a hostile agent may do at a decision: a legal index, a wrong one, a wrong type,
#: or raise (even ``sys.exit``, even an exception that cannot be printed).
answers = st.one_of(
    st.just("legal"),
    st.integers(-(2**70), 2**70),
    st.sampled_from([-1, 10**9, 2**63, True, None, 0.5, float("nan"), "0", b"1", (), [0.5]]),
    st.lists(st.floats(allow_nan=True), max_size=5),
    st.sampled_from(
        [ValueError, KeyError, ZeroDivisionError, RecursionError, SystemExit, Unprintable]
    ),
)

#: Small games with decisions from the first turn, one per kind of flow.
AGENT_GAMES = [load_game(GAMES / name) for name in ("kuhn_poker.rcy", "hearts.rcy")]


class Hostile:
    """Answers from a script: a legal move, anything else, or an exception."""

    name = "hostile"

    def __init__(self, script: list[Any], seed: int) -> None:
        self.script = list(script)
        self.rng = random.Random(seed)

    def choose(self, view: Any, options: list[Any]) -> Any:
        answer = self.script.pop(0) if self.script else "legal"
        if answer == "legal":
            return self.rng.randrange(len(options))
        if isinstance(answer, type) and issubclass(answer, BaseException):
            raise answer("hostile")
        return answer


def check_agents(which: int, script: list[Any], seed: int) -> None:
    game = AGENT_GAMES[which]
    agents = [Hostile(script, seed)] + [RandomAgent(seed + s) for s in range(1, game.nplayers)]
    for engine in ENGINES:
        agents[0].script = list(script)
        result, _ = play_game(game.master(LIMITS, engine=engine), agents, seed, agent_errors="fail")
        assert result.end_reason in ENDS
        if result.end_reason == "failed":
            err = result.error
            assert isinstance(err, AgentError), err
            assert (err.agent, err.seat, err.seed) == ("hostile", 0, seed)
            assert "hostile" in str(err) and "turn" in str(err)


@QUICK
@given(st.integers(0, len(AGENT_GAMES) - 1), st.lists(answers, max_size=6), st.integers(0, 99))
def test_hostile_answers_fail_the_game_naming_the_agent(
    which: int, script: list[Any], seed: int
) -> None:
    check_agents(which, script, seed)


@pytest.mark.slow
@LONG
@given(st.integers(0, len(AGENT_GAMES) - 1), st.lists(answers, max_size=12), st.integers(0, 99))
def test_hostile_answers_fail_the_game_naming_the_agent_long(
    which: int, script: list[Any], seed: int
) -> None:
    check_agents(which, script, seed)
