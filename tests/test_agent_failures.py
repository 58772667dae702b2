"""Agents are untrusted: whatever one does wrong is its own failure, never ours.

An exception in ``choose`` or in a plugin's constructor, an answer that names no legal
option, a malformed trace: the play loop turns each into an ``AgentError`` naming the
agent's spec, its seat, the situation, the turn and the game's seed.  A batch
(``simulate``, ``heuristics``) fails that game and goes on, counting failures by agent,
on every backend alike; ``transcript`` reports it and exits with 1.  No Python traceback
without ``--debug``, and never "internal error".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GAMES
from helpers import run_cli

from cardlang import load_game
from cardlang.errors import AgentError
from cardlang.runs.runner import play_game
from cardlang.runs.simulate import run_batch

KUHN = str(GAMES / "kuhn_poker.rcy")

PLUGIN = """
import random


class Boom:
    '''Plays at random, and raises at about one decision in six.'''

    def __init__(self, seed=0):
        self.rng = random.Random(seed)

    def choose(self, view, options):
        if self.rng.random() < 0.15:
            raise ValueError("kaboom")
        return self.rng.randrange(len(options))


class Fragile:
    '''Its constructor raises for one seed in three.'''

    def __init__(self, seed=0):
        if seed % 3 == 1:
            raise RuntimeError("no luck with this seed")

    def choose(self, view, options):
        return 0


class Answers:
    '''Answers what it is told to.'''

    def __init__(self, answer: str = "huge"):
        self.answer = answer

    def choose(self, view, options):
        return {
            "huge": 10**30,
            "negative": -1,
            "float": 0.5,
            "text": "first",
            "none": None,
        }[self.answer]
"""


@pytest.fixture
def plugin(tmp_path: Path) -> str:
    path = tmp_path / "agents_under_test.py"
    path.write_text(PLUGIN)
    return str(path)


def _no_internal_error(text: str) -> None:
    assert "internal error" not in text and "please report" not in text
    assert "Traceback" not in text


def test_simulate_fails_the_game_names_the_agent_and_goes_on(plugin: str) -> None:
    spec = f"{plugin}:Boom"
    proc = run_cli("simulate", KUHN, "--agents", f"{spec},random", "--games", "30", "--json")
    assert proc.returncode == 1, proc.stderr  # a failed game is a failed run
    _no_internal_error(proc.stderr + proc.stdout)
    summary = json.loads(proc.stdout)
    assert summary["games"] == 30 and 0 < summary["failed"] < 30
    assert summary["failed_by_agent"] == {spec: summary["failed"]}
    (error,) = summary["errors"]
    assert error.startswith(f"agent {spec!r} (P0): raised ValueError: kaboom (situation ")
    assert ", turn " in error and ", seed " in error


def test_the_traceback_comes_with_debug_only_and_alike_from_workers(plugin: str) -> None:
    spec = f"{plugin}:Boom"
    args = ["simulate", KUHN, "--agents", f"{spec},random", "--games", "30", "--json"]
    serial = run_cli(*args, "--debug")
    workers = run_cli(*args, "--debug", "--backend", "process", "--workers", "2")
    for proc in (serial, workers):
        assert "Traceback" in proc.stderr and 'raise ValueError("kaboom")' in proc.stderr
        assert "internal error" not in proc.stderr
    plain, pooled = json.loads(serial.stdout), json.loads(workers.stdout)
    assert plain["errors"] == pooled["errors"]
    assert plain["failed_by_agent"] == pooled["failed_by_agent"]


def test_transcript_reports_the_agents_error(plugin: str) -> None:
    spec = f"{plugin}:Answers:answer=huge"
    proc = run_cli("transcript", KUHN, "--agents", f"random,{spec}", "--seed", "3")
    assert proc.returncode == 1
    _no_internal_error(proc.stderr)
    assert proc.stderr.startswith(f"cardlang: agent error: agent {spec!r} (P1): option ")
    assert "is not legal: there are 2 options" in proc.stderr and "seed 3)" in proc.stderr
    raised = run_cli("transcript", KUHN, "--agents", f"{plugin}:Boom", "--seed", "9", "--debug")
    if raised.returncode:  # Boom raised in this game: its traceback, with --debug
        assert "Traceback" in raised.stderr and "kaboom" in raised.stderr


@pytest.mark.parametrize(
    "answer, reason",
    [
        ("huge", "option 1000000000000000000000000000000 is not legal"),
        ("negative", "option -1 is not legal"),
        ("float", "returned 0.5: expected an option index"),
        ("text", "returned 'first'"),
        ("none", "returned None"),
    ],
)
def test_an_illegal_answer_fails_the_game_in_a_batch(plugin: str, answer: str, reason: str) -> None:
    spec = f"{plugin}:Answers:answer={answer}"
    summary = run_batch(load_game(KUHN), games=4, seed=1, agent_specs=["random", spec])
    assert summary.failed == 4 and summary.agent_failures == {spec: 4}
    (error,) = summary.errors
    assert error.startswith(f"agent {spec!r} (P1): {reason}")


def test_one_place_decides_an_agents_failure(plugin: str) -> None:
    """``play_game`` raises the same AgentError a batch records."""
    game = load_game(KUHN)

    class Raises:
        name = "raiser"

        def choose(self, view: Any, options: Any) -> int:
            raise KeyError("where")

    with pytest.raises(AgentError) as info:
        play_game(game.master(), [Raises(), Raises()], 5)
    err = info.value
    assert (err.agent, err.seat, err.seed, err.turn) == ("raiser", 0, 5, 1)
    assert err.reason == "raised KeyError: 'where'" and "KeyError" in err.details
    result, _ = play_game(game.master(), [Raises(), Raises()], 5, agent_errors="fail")
    assert result.end_reason == "failed" and str(result.error) == str(err)


def test_a_constructor_that_raises_fails_its_games_naming_the_agent(plugin: str) -> None:
    spec = f"{plugin}:Fragile"
    summary = run_batch(load_game(KUHN), games=12, seed=4, agent_specs=[spec, "random"])
    assert 0 < summary.failed < 12 and summary.agent_failures == {spec: summary.failed}
    (error,) = summary.errors
    assert error.startswith(f"agent {spec!r} (P0): cannot be created: RuntimeError")
    assert "seed " in error
    # on the command line, seed 0 is fine: the batch runs, the failures are counted
    args = ["--agents", f"{spec},random", "--games", "12", "--seed", "4", "--json"]
    proc = run_cli("simulate", KUHN, *args)
    _no_internal_error(proc.stderr)
    assert json.loads(proc.stdout)["failed_by_agent"] == {spec: summary.failed}


def test_heuristics_goes_on_and_says_which_games_failed(plugin: str, tmp_path: Path) -> None:
    spec = f"{plugin}:Boom"
    proc = run_cli(
        "heuristics",
        KUHN,
        "--ai",
        spec,
        "--games",
        "20",
        "--designs",
        "ai",
        "--db",
        str(tmp_path / "h.sqlite"),
        "--quiet",
        "--backend",
        "serial",
    )
    assert proc.returncode == 0, proc.stderr
    _no_internal_error(proc.stderr)
    assert "games failed and are left out" in proc.stderr
    assert f"agent {spec!r}" in proc.stderr and "raised ValueError: kaboom" in proc.stderr


def test_a_recorded_game_its_agent_failed_replays_to_the_failure(
    plugin: str, tmp_path: Path
) -> None:
    db = tmp_path / "runs.sqlite"
    spec = f"{plugin}:Boom"
    run_cli("simulate", KUHN, "--agents", f"{spec},random", "--games", "30", "--db", str(db))
    listing = run_cli("transcript", "--db", str(db)).stdout.splitlines()
    failed = [line.split()[0] for line in listing if " failed " in line]
    assert failed
    proc = run_cli("transcript", "--db", str(db), "--game", failed[0])
    assert proc.returncode == 0, proc.stderr
    assert "end: failed" in proc.stdout
    assert f"agent {spec!r} (P" in proc.stdout and "[recorded: the game ended here]" in proc.stdout
