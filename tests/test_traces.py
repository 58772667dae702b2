"""Decision traces and agent strength.

A search agent leaves what it estimated in ``last_trace``; a recorded game keeps it with
each decision (records schema 2) and ``read_decisions`` gives it back.  ``simulate``
reports each agent's win share with a 95% Wilson interval when the seats' agents differ.
"""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import GAMES

from cardlang import load_game
from cardlang.cli.main import main
from cardlang.errors import UsageError
from cardlang.runs.runner import AgentError, Decision, DecisionTrace, play_game
from cardlang.runs.statistics import wilson_interval
from cardlang.runs.store import SCHEMA_VERSION, RunStore, read_decisions

KUHN = str(GAMES / "kuhn_poker.rcy")
HEARTS = str(GAMES / "hearts.rcy")

#: The test's search agent: it leaves a trace at every second decision only (so a trace
#: left over from the decision before must not be recorded), with values that follow
#: from the decision itself, so that what is read back can be checked exactly.
TRACER = textwrap.dedent(
    """
    from cardlang.runs.runner import DecisionTrace


    def values_for(options):
        # None for the second option: "no estimate"; NaN for the third: none either
        return tuple(
            None if i == 1 else float("nan") if i == 2 else (i + 1) / (options + 1)
            for i in range(options)
        )


    def standings_for(seat, seats):
        return tuple(0.9 if s == seat else 0.1 for s in range(seats))


    class Tracer:
        name = "tracer"

        def __init__(self, seed=0):
            self.asked = 0

        def choose(self, view, options):
            self.asked += 1
            if self.asked % 2 == 1:
                self.last_trace = DecisionTrace(
                    values_for(len(options)), standings_for(view.seat, view.nplayers)
                )
            return len(options) - 1
    """
)


@pytest.fixture
def tracer(tmp_path: Path) -> str:
    path = tmp_path / "tracer.py"
    path.write_text(TRACER)
    return f"{path}:Tracer"


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", *args, "--json", "--quiet"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def _expected_values(options: int) -> list[float | None]:
    return [None if i in (1, 2) else (i + 1) / (options + 1) for i in range(options)]


# ---------------------------------------------------------------- traces


def test_traces_are_recorded_and_read_back(
    tracer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    agents = f"random,{tracer},random,random"
    _simulate(capsys, HEARTS, "--agents", agents, "--games", "2", "--db", str(db))
    traced = untraced = 0
    for game_id in (1, 2):
        decisions = read_decisions(db, game_id)
        assert [d["idx"] for d in decisions] == list(range(len(decisions)))
        others = [d for d in decisions if d["seat"] != 1]
        assert all(d["option_values"] is None and d["value"] is None for d in others)
        for n, d in enumerate(d for d in decisions if d["seat"] == 1):
            if n % 2 == 1:  # the tracer left no trace: none is recorded, not the last one
                assert (d["value"], d["option_values"], d["standings"]) == (None, None, None)
                untraced += 1
                continue
            assert d["option_values"] == _expected_values(d["options"])
            assert d["value"] == d["option_values"][d["option_index"]]
            assert d["standings"] == [0.1, 0.9, 0.1, 0.1]
            traced += 1
    assert traced >= 10 and untraced >= 10


def test_traces_through_the_python_interface(tracer: str) -> None:
    """``play_game(..., trace=...)`` gives the same traces, as ``Decision.trace``."""
    from cardlang.agents import make_agent

    game = load_game(KUHN)
    trace: list[Decision] = []
    play_game(game.master(), [make_agent(tracer, 1), make_agent("random", 2)], 5, trace=trace)
    first = trace[0]
    assert first.seat == 0 and first.trace is not None
    assert first.trace.standings == (0.9, 0.1)
    values = first.trace.option_values
    assert values[0] == pytest.approx(1 / 3) and values[1] is None


def test_the_fast_loop_keeps_no_trace_and_the_traced_loop_does() -> None:
    game = load_game(KUHN)

    class Agent:
        name = "inline"

        def __init__(self) -> None:
            self.last_trace: DecisionTrace | None = None

        def choose(self, view: Any, options: list[Any]) -> int:
            self.last_trace = DecisionTrace((0.25,) * len(options), (0.5, 0.5))
            return 0

    trace: list[Decision] = []
    play_game(game.master(), [Agent(), Agent()], 3, trace=trace)
    assert trace and all(d.trace is not None for d in trace)
    assert trace[0].trace == DecisionTrace((0.25,) * trace[0].options, (0.5, 0.5))
    untraced = Decision(0, "S", "k", 0, 1, (), 0.0)
    assert untraced.trace is None, "a decision without a trace says so"


@pytest.mark.parametrize(
    "trace, message",
    [
        (DecisionTrace((0.5,), (0.5, 0.5)), "1 option values and 2 standings"),
        (DecisionTrace((0.5, 0.5), (0.5,)), "2 option values and 1 standings"),
        (
            {"values": [0.5, 0.5]},
            "last_trace is a dict, expected a cardlang.agents.base.DecisionTrace",
        ),
    ],
)
def test_a_trace_that_does_not_fit_the_decision_is_the_agents_error(
    trace: Any, message: str
) -> None:
    class Bad:
        name = "bad"

        def choose(self, view: Any, options: list[Any]) -> int:
            assert len(options) == 2, "Kuhn poker: two options at every decision"
            self.last_trace = trace
            return 0

    with pytest.raises(AgentError, match="agent 'bad'") as info:
        play_game(load_game(KUHN).master(), [Bad(), Bad()], 1, trace=[])
    assert message in str(info.value)


# ---------------------------------------------------------------- schema


def _make_version_1(db: Path) -> None:
    """Turn a records file into what schema version 1 wrote (no trace columns, no work
    budgets, no counts per card type)."""
    conn = sqlite3.connect(db)
    try:
        for column in ("value", "option_values", "standings", "policy"):
            conn.execute(f"ALTER TABLE decisions DROP COLUMN {column}")
        conn.execute("ALTER TABLE games DROP COLUMN cards_counted")
        conn.execute("DROP TABLE card_picks")
        conn.execute("DROP TABLE card_owned")
        conn.execute("ALTER TABLE batches DROP COLUMN max_work")
        conn.execute("ALTER TABLE batches DROP COLUMN max_game_work")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        conn.commit()
    finally:
        conn.close()


def test_a_version_1_file_is_upgraded_in_place(
    tracer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    args = [KUHN, "--agents", f"{tracer},random", "--db", str(db)]
    _simulate(capsys, *args, "--games", "3")
    _make_version_1(db)
    before = read_decisions_v1(db)
    summary = _simulate(capsys, *args, "--games", "3")  # resumes the batch: all recorded
    assert summary["records"]["from_db"] == 3
    with RunStore.open(db, create=False) as store:
        assert store._meta()["schema_version"] == str(SCHEMA_VERSION) == "6"
        old = store.decisions(1)
    assert [(d["seat"], d["option_index"]) for d in old] == before
    assert all(d["value"] is None and d["option_values"] is None for d in old)
    assert all(d["policy"] is None for d in old)
    _simulate(capsys, *args, "--games", "4")  # a new batch in the upgraded file
    assert any(d["option_values"] is not None for d in read_decisions(db, 4))


def read_decisions_v1(db: Path) -> list[tuple[int, int]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT seat, option_index FROM decisions WHERE game_id = 1")
        return [(int(s), int(i)) for s, i in rows]
    finally:
        conn.close()


def test_a_newer_file_is_refused_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    _simulate(capsys, KUHN, "--games", "1", "--db", str(db))
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(UsageError, match="schema version 99; this cardlang reads versions 1 to"):
        RunStore.open(db)
    with pytest.raises(UsageError, match="no game 5"):
        _set_version(db, SCHEMA_VERSION)
        read_decisions(db, 5)


def _set_version(db: Path, version: int) -> None:
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    conn.commit()
    conn.close()


# ---------------------------------------------------------------- strength


def test_strength_with_intervals_when_agents_differ(capsys: pytest.CaptureFixture[str]) -> None:
    summary = _simulate(
        capsys, KUHN, "--agents", "ismcts:iterations=40,random", "--games", "60", "--rotate-seats"
    )
    strength = summary["strength"]
    assert list(strength) == ["ismcts:iterations=40", "random"]
    for spec, row in strength.items():
        assert row["games"] == row["seats"] == summary["completed"] == 60
        assert row["credits"] == pytest.approx(summary["wins_by_agent"][spec])
        assert row["share"] == pytest.approx(row["credits"] / row["seats"])
        assert 0 <= row["ci_low"] < row["share"] < row["ci_high"] <= 1
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            wilson_interval(row["credits"], row["seats"]), abs=1e-6
        )
    assert strength["ismcts:iterations=40"]["share"] + strength["random"]["share"] == 1
    assert strength["ismcts:iterations=40"]["ci_low"] > 0.5, "search beats random at Kuhn"


def test_no_strength_when_every_seat_has_the_same_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _simulate(capsys, KUHN, "--games", "4")["strength"] == {}


def test_strength_counts_seats_and_shared_wins(capsys: pytest.CaptureFixture[str]) -> None:
    """One agent in three seats of four: its share is per seat, so 'even' is 1/4."""
    agents = "ismcts:iterations=2,random,random,random"
    summary = _simulate(capsys, HEARTS, "--agents", agents, "--games", "6")
    rand = summary["strength"]["random"]
    assert rand["games"] == summary["completed"] and rand["seats"] == 3 * rand["games"]
    total = sum(row["credits"] for row in summary["strength"].values())
    assert total == pytest.approx(summary["completed"]), "a game's credits add up to 1"


@pytest.mark.parametrize(
    "successes, trials, low, high",
    [
        (0, 10, 0.0, 0.277533),
        (5, 10, 0.236593, 0.763407),
        (10, 10, 0.722467, 1.0),
        (81, 263, 0.255289, 0.366210),  # Newcombe (1998), Stat Med 17: 0.2553-0.3662
        (2.5, 5, 0.170424, 0.829576),  # shared wins: fractional credits
    ],
)
def test_wilson_interval(successes: float, trials: int, low: float, high: float) -> None:
    """Values checked by solving |p - p^| = z sqrt(p (1 - p) / n) for p."""
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-6)


def test_wilson_interval_without_trials_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
