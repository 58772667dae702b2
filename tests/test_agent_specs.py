"""Agent specs with parameters: `--agents ismcts:iterations=500:c=0.7,random`.

Parsing (built-ins, bot files, plugins whose ``file.py:Class`` colon is not a parameter),
conversion to the constructor's declared types, clear usage errors, and the spec as
given being the agent's name in summaries and records.
"""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import BUILTIN_AGENTS, agent_parameters, make_agent, parse_spec
from conftest import GAMES
from helpers import run_cli

from cardlang.cli.main import main
from cardlang.errors import UsageError

KUHN = str(GAMES / "kuhn_poker.rcy")


class Tunable:
    """A registered agent with one parameter of each kind the command line converts."""

    name = "tunable"

    def __init__(
        self,
        iterations: int = 100,
        c: float = 0.7,
        greedy: bool = False,
        rollout: str = "random",
        limit: int | None = None,
        seed: int = 0,
    ) -> None:
        self.iterations, self.c, self.greedy = iterations, c, greedy
        self.rollout, self.limit, self.seed = rollout, limit, seed
        if iterations < 1:
            raise ValueError(f"iterations must be positive, got {iterations}")

    def choose(self, view: Any, options: list[Any]) -> int:
        return 0


@pytest.fixture
def tunable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BUILTIN_AGENTS, "tunable", Tunable)


PLUGIN = textwrap.dedent(
    """
    class Deep:
        # no `from __future__ import annotations`: the annotations are real types
        def __init__(self, depth: int = 1, wide: bool = True, label="deep", seed=0):
            self.depth, self.wide, self.label, self.seed = depth, wide, label, seed
            self.name = f"deep{depth}"

        def choose(self, view, options):
            return len(options) - 1 if self.wide else 0


    class Plain:
        name = "plain"

        def choose(self, view, options):
            return 0
    """
)


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "my.agents.py"  # a dot in the name: only ".py:" ends the path
    path.write_text(PLUGIN)
    return path


# ---------------------------------------------------------------- parsing


def test_parsing_separates_what_to_build_from_its_parameters() -> None:
    spec = parse_spec("ismcts:iterations=500:c=0.7")
    assert (spec.head, spec.params) == ("ismcts", (("iterations", "500"), ("c", "0.7")))
    assert parse_spec("random").params == () and not parse_spec("random").is_plugin
    spec = parse_spec("dir/my.py:MyAgent:depth=3")
    assert (spec.head, spec.params, spec.is_plugin) == (
        "dir/my.py:MyAgent",
        (("depth", "3"),),
        True,
    )
    spec = parse_spec("pimc:rollout=bmu:by=score")
    assert spec.params == (("rollout", "bmu"), ("by", "score"))
    assert parse_spec("bots/x.toml").head == "bots/x.toml"
    assert parse_spec("a.py:A:note=x=y").params == (("note", "x=y"),), "only the first '=' splits"


def test_values_are_converted_to_the_declared_types(tunable: None) -> None:
    agent = make_agent("tunable:iterations=500:c=0.25:greedy=yes:rollout=bmu", 7)
    assert (agent.iterations, agent.c, agent.greedy, agent.rollout) == (500, 0.25, True, "bmu")
    assert type(agent.iterations) is int and type(agent.c) is float
    assert agent.seed == 7, "the runner's seed still reaches the agent"
    assert make_agent("tunable:c=2", 0).c == 2.0, "an integer is a number"
    assert make_agent("tunable:limit=40", 0).limit == 40
    assert make_agent("tunable:limit=none", 0).limit is None, "an optional takes none"
    defaults = make_agent("tunable", 0)
    assert (defaults.iterations, defaults.c, defaults.greedy) == (100, 0.7, False)


@pytest.mark.parametrize(
    "text, expected",
    [("true", True), ("1", True), ("Yes", True), ("on", True)]
    + [("false", False), ("0", False), ("NO", False), ("off", False)],
)
def test_booleans(tunable: None, text: str, expected: bool) -> None:
    assert make_agent(f"tunable:greedy={text}", 0).greedy is expected


def test_plugin_with_parameters(plugin: Path) -> None:
    agent = make_agent(f"{plugin}:Deep:depth=3:wide=false:label=x", 5)
    assert (agent.depth, agent.wide, agent.label, agent.seed) == (3, False, "x", 5)
    assert make_agent(f"{plugin}:Deep", 1).depth == 1
    assert make_agent(f"{plugin}:Plain", 1).name == "plain", "no seed taken, none given"
    assert agent_parameters(f"{plugin}:Deep") == [
        "depth (int, default 1)",
        "wide (bool, default True)",
        "label (str, default 'deep')",
    ]


def test_search_agents_take_their_parameters() -> None:
    """The registered search agents declare typed parameters the command line can set."""
    for name in ("ismcts", "pimc", "mcts"):
        if name not in BUILTIN_AGENTS:
            pytest.skip(f"{name} is not registered")
    assert "iterations (int, default" in " ".join(agent_parameters("ismcts"))
    assert "determinizations (int, default" in " ".join(agent_parameters("pimc"))
    assert make_agent("ismcts:iterations=7:c=0.5", 1) is not None
    assert make_agent("pimc:rollout=bmu", 1) is not None


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "spec, messages",
    [
        (
            "tunable:iteration=5",
            ["unknown parameter 'iteration'", "did you mean 'iterations'?"]
            + ["tunable takes: iterations (int, default 100), c (float, default 0.7)"],
        ),
        ("tunable:zzz=1", ["unknown parameter 'zzz'; tunable takes: iterations"]),
        ("tunable:iterations=many", ["parameter iterations='many'", "expected an integer"]),
        ("tunable:iterations=2.5", ["parameter iterations='2.5'", "(int)"]),
        ("tunable:c=fast", ["parameter c='fast'", "expected a finite number (float)"]),
        ("tunable:c=nan", ["parameter c='nan'", "expected a finite number (float)"]),
        ("tunable:c=-inf", ["parameter c='-inf'", "expected a finite number (float)"]),
        ("tunable:iterations=99999999999999999999", ["iterations='99999999999999999999'"]),
        ("tunable:greedy=maybe", ["parameter greedy='maybe'", "true or false"]),
        ("tunable:limit=", ["parameter limit=''", "expected an integer"]),
        ("tunable:iterations", ["expected key=value after each ':'", "got 'iterations'"]),
        ("tunable:", ["expected key=value after each ':', got ''"]),
        ("tunable:c=1:c=2", ["parameter 'c' is given twice"]),
        ("tunable:seed=3", ["'seed' is not a parameter", "derived from --seed"]),
        ("tunable:iterations=0", ["cannot create agent tunable:iterations=0", "positive"]),
        ("random:depth=2", ["unknown parameter 'depth': random takes no parameters"]),
        ("bmu:x=1", ["bmu takes no parameters"]),
        ("ranodm:x=1", ["unknown agent 'ranodm'", "did you mean 'random'?"]),
    ],
)
def test_bad_parameters_are_usage_errors(tunable: None, spec: str, messages: list[str]) -> None:
    with pytest.raises(UsageError) as info:
        make_agent(spec, 0)
    for message in messages:
        assert message in str(info.value), (spec, str(info.value))


def test_bad_plugin_parameters_are_usage_errors(plugin: Path) -> None:
    with pytest.raises(UsageError, match=r"unknown parameter 'dept' \(did you mean 'depth'\?\)"):
        make_agent(f"{plugin}:Deep:dept=2", 0)
    with pytest.raises(UsageError, match="Plain takes no parameters"):
        make_agent(f"{plugin}:Plain:depth=2", 0)
    with pytest.raises(UsageError, match="expected path/to/file.py:ClassName"):
        make_agent(f"{plugin}::depth=2", 0)


def test_an_object_parameter_cannot_be_set_from_the_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class WithEvaluator:
        def __init__(self, evaluator: Tunable | None = None, seed: int = 0) -> None:
            self.evaluator = evaluator

        def choose(self, view: Any, options: list[Any]) -> int:
            return 0

    monkeypatch.setitem(BUILTIN_AGENTS, "witheval", WithEvaluator)
    assert agent_parameters("witheval") == [], "not listed as settable"
    with pytest.raises(UsageError, match="'evaluator' takes Tunable | None, which only Python"):
        make_agent("witheval:evaluator=x", 0)


def test_a_bad_parameter_on_the_command_line_exits_2_before_any_game() -> None:
    proc = run_cli("simulate", KUHN, "--agents", "random:depth=2,random", "--games", "2")
    assert proc.returncode == 2, proc.stderr
    assert "unknown parameter 'depth'" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == "", "nothing was played"


def test_an_agent_without_a_parameter_it_needs_is_a_usage_error() -> None:
    """Issue 32: `--agents neural` (no model=) was an internal error, a TypeError."""
    with pytest.raises(UsageError, match=r"agent 'neural' needs model=\.\.\.: neural:model=VALUE"):
        make_agent("neural", 0)
    proc = run_cli("simulate", KUHN, "--agents", "neural,random", "--games", "1")
    assert proc.returncode == 2 and "needs model=" in proc.stderr, proc.stderr


# ---------------------------------------------------------------- display names


def test_specs_name_the_agents_as_given(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = f"{plugin}:Deep:depth=2:wide=true"
    agents = f"{deep},{plugin}:Deep:wide=false"
    db = tmp_path / "runs.sqlite"
    argv = ["simulate", KUHN, "--agents", agents, "--games", "6", "--json", "--quiet"]
    assert main([*argv, "--db", str(db)]) == 0
    summary = json.loads(capsys.readouterr().out)
    specs = [deep, f"{plugin}:Deep:wide=false"]
    assert summary["agents"] == specs
    assert list(summary["strength"]) == specs
    assert set(summary["wins_by_agent"]) == set(specs)
    conn = sqlite3.connect(db)
    try:
        seats = conn.execute("SELECT DISTINCT agents FROM games").fetchall()
        recorded = {a for (a,) in conn.execute("SELECT DISTINCT agent FROM results")}
    finally:
        conn.close()
    assert seats == [(json.dumps(specs),)] and recorded == set(specs)


def test_the_table_shows_the_specs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", KUHN, "--agents", "ismcts:iterations=5,random", "--games", "4", "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ismcts:iterations=5" in out and "strength per agent" in out
