"""The runner: what an agent may answer (index, option, strength vector) and how each is
played; illegal attempts; agents as plugins (path/to/file.py:ClassName)."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cardlang.agents import make_agent
from conftest import GAMES
from helpers import run_cli

import cardlang.information.vocabulary
from cardlang import load_game
from cardlang.cli.main import main
from cardlang.errors import UsageError
from cardlang.information.vocabulary import Vocabulary
from cardlang.runs.runner import AgentError, Decision, play_game
from cardlang.runs.simulate import agent_seeds

DOMINION = GAMES / "dominion.rcy"
CRAZY = GAMES / "crazy_eights.rcy"
KUHN = GAMES / "kuhn_poker.rcy"


class Strengths:
    """Returns a random strength per vocabulary entry, and remembers each vector."""

    name = "strengths"

    def __init__(self, game: Any, seed: int) -> None:
        self.vocab = Vocabulary.of(game)
        self.rng = np.random.default_rng(seed)
        self.vectors: list[np.ndarray] = []

    def situation(self, view: Any) -> str:
        """The vocabulary's situation of the decision (unnamed choices: the only one)."""
        if view.situation in self.vocab.situations:
            return str(view.situation)
        assert len(self.vocab.situations) == 1
        return self.vocab.situations[0]

    def choose(self, view: Any, options: list[Any]) -> np.ndarray:
        vector = self.rng.random(len(self.vocab.keys(self.situation(view))))
        self.vectors.append(vector)
        return vector


def _replayed_legal_keys(game: Any, seed: int, trace: list[Decision]) -> list[set[str]]:
    """Replay the game with the traced indices; at each decision, the legal options' keys."""
    master = game.master()
    vocab = Vocabulary.of(game)
    st = master.new_game(seed)
    legal = []
    for d in trace:
        options = master.legal_options(st)
        assert st.mover == d.seat and len(options) == d.options
        legal.append(set(vocab.option_keys(st, options, st.mover)))
        master.apply(st, d.option_index)
    assert st.is_over
    return legal


@pytest.mark.parametrize("path", [CRAZY, DOMINION], ids=lambda p: p.stem)
def test_strength_vectors_play_the_strongest_legal_move(path: Path) -> None:
    game = load_game(path)
    agents = [Strengths(game, s) for s in range(game.nplayers)]
    trace: list[Decision] = []
    result, _ = play_game(game.master(), agents, 11, trace=trace)
    assert result.end_reason == "completed"
    vectors = iter(v for v in _vectors_in_order(agents, trace))
    legal_keys = _replayed_legal_keys(game, 11, trace)
    vocab = Vocabulary.of(game)
    illegal_total = 0
    for d, legal, vector in zip(trace, legal_keys, vectors, strict=True):
        keys = vocab.keys(d.situation)
        chosen = keys.index(d.action_key)
        stronger = {keys[j] for j in np.flatnonzero(vector > vector[chosen])}
        assert d.action_key in legal
        assert set(d.illegal) == stronger, "every stronger entry was tried first"
        assert not stronger & legal, "a stronger legal entry was skipped"
        assert list(d.illegal) == sorted(d.illegal, key=lambda k: -vector[keys.index(k)])
        illegal_total += len(d.illegal)
    assert illegal_total > 0, "random strengths must hit illegal entries in these games"


def _vectors_in_order(agents: list[Strengths], trace: list[Decision]) -> list[np.ndarray]:
    """The vectors the agents returned, in the order of the decisions."""
    per_seat = [iter(a.vectors) for a in agents]
    return [next(per_seat[d.seat]) for d in trace]


def test_an_option_object_and_a_numpy_index_are_played_as_chosen() -> None:
    game = load_game(KUHN)

    class Last:
        def choose(self, view: Any, options: list[Any]) -> Any:
            return options[-1]

    class NumpyFirst:
        def choose(self, view: Any, options: list[Any]) -> Any:
            return np.int64(0)

    trace: list[Decision] = []
    play_game(game.master(), [Last(), NumpyFirst()], 5, trace=trace)
    for d in trace:
        assert d.option_index == (d.options - 1 if d.seat == 0 else 0)
        assert d.illegal == ()
    # the fast path (nothing recorded) plays the very same game
    _, st_fast = play_game(game.master(), [Last(), NumpyFirst()], 5)
    assert st_fast.decisions == len(trace)


@pytest.mark.parametrize(
    "answer, message",
    [
        ("first", "returned 'first'"),
        (None, "returned None"),
        (True, "returned True"),
        (7, "option 7 is not legal"),
        ([0.5, 0.5], "returned 2 strengths"),
        (np.zeros((2, 5)), "returned array"),
    ],
)
def test_a_bad_answer_is_an_error_naming_the_agent(answer: Any, message: str) -> None:
    game = load_game(KUHN)

    class Bad:
        name = "badbot"

        def choose(self, view: Any, options: list[Any]) -> Any:
            return answer

    for trace in (None, []):
        with pytest.raises(AgentError, match="badbot") as info:
            play_game(game.master(), [Bad(), Bad()], 1, trace=trace)
        assert message in str(info.value)


def test_a_vector_with_no_legal_entry_fails_naming_agent_and_situation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = load_game(KUHN)
    agents = [Strengths(game, 0), Strengths(game, 1)]
    # no vocabulary entry names a legal option any more
    monkeypatch.setattr(
        cardlang.information.vocabulary, "option_key", lambda *a: "NOT-IN-VOCABULARY"
    )
    with pytest.raises(AgentError) as info:
        play_game(game.master(), agents, 3, names=["net-a", "net-b"])
    text = str(info.value)
    assert "net-a" in text and Vocabulary.of(game).situations[0] in text
    assert "no entry of its strength vector is a legal move" in text


def test_fast_path_unchanged_for_index_agents() -> None:
    """Recording a game does not change it: same result with and without a trace."""
    game = load_game(DOMINION)
    seed = 21
    specs = ["bigmoney", "bmu"]

    def agents() -> list[Any]:
        return [make_agent(s, a) for s, a in zip(specs, agent_seeds(seed, 2), strict=True)]

    trace: list[Decision] = []
    traced, st1 = play_game(game.master(), agents(), seed, trace=trace)
    plain, st2 = play_game(game.master(), agents(), seed)
    assert traced == plain
    assert len(trace) == plain.decisions and all(d.illegal == () for d in trace)
    assert all(d.seconds >= 0 for d in trace)


# ---------------------------------------------------------------- plugins

PLUGIN = textwrap.dedent(
    """
    from __future__ import annotations

    from dataclasses import dataclass

    import numpy as np
    from cardlang.information.vocabulary import Vocabulary


    @dataclass
    class First:
        seed: int = 0
        name: str = "first"

        def choose(self, view, options):
            return 0


    class Strong:
        name = "strong"

        def __init__(self, seed=0):
            self.rng = np.random.default_rng(seed)
            self.vocab = None

        def choose(self, view, options):
            # kuhn poker has one (unnamed) situation
            size = 5
            return self.rng.random(size)


    class NoChoose:
        pass


    class NeedsArgs:
        def __init__(self, x, y):
            pass

        def choose(self, view, options):
            return 0
    """
)


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(PLUGIN)
    return path


def test_plugin_agents_play_and_record_illegal_attempts(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kuhn = Vocabulary.of(load_game(KUHN))
    assert [len(kuhn.keys(s)) for s in kuhn.situations] == [5], "Strong assumes this"
    db = tmp_path / "runs.sqlite"
    agents = f"{plugin}:Strong,{plugin}:First"
    code = main(["simulate", str(KUHN), "--games", "40", "--agents", agents, "--db", str(db)])
    assert code == 0
    capsys.readouterr()
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT d.seat, d.illegal, d.illegal_keys, d.action_key, d.situation FROM decisions d"
    ).fetchall()
    assert rows
    strong = [r for r in rows if r[0] == 0]
    first = [r for r in rows if r[0] == 1]
    assert sum(r[1] for r in strong) > 0, "random strengths over 5 keys try illegal ones"
    assert all(r[1] == 0 and r[2] is None for r in first)
    for _, count, keys, action, situation in strong:
        tried = json.loads(keys) if keys else []
        assert len(tried) == count and action not in tried
        assert all(k in kuhn.keys(situation) for k in tried)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("{p}:Missing", "has no class Missing"),
        ("{p}:first", "did you mean 'First'"),
        ("{p}:NoChoose", "has no choose(view, options) method"),
        ("{p}:NeedsArgs", "needs x=..."),
        ("{p}", "names a file but no class"),
        ("{p}:", "expected path/to/file.py:ClassName"),
        ("{d}/nope.py:First", "agent file not found"),
        ("{d}/broken.py:First", "cannot load agent file"),
    ],
)
def test_bad_plugin_specs_are_clear_usage_errors(
    plugin: Path, tmp_path: Path, spec: str, message: str
) -> None:
    (tmp_path / "broken.py").write_text("def oops(:\n    pass\n")
    spec = spec.format(p=plugin, d=tmp_path)
    with pytest.raises(UsageError) as info:
        make_agent(spec, 0)
    assert message in str(info.value)


def test_bad_plugin_on_the_command_line_exits_2_without_traceback(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import not_a_module_anywhere\n")
    proc = run_cli("simulate", str(KUHN), "--agents", f"{tmp_path}/broken.py:X", "--games", "2")
    assert proc.returncode == 2
    assert "cannot load agent file" in proc.stderr and "ModuleNotFoundError" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_plugin_file_is_loaded_once_and_dataclasses_work(plugin: Path) -> None:
    a, b = make_agent(f"{plugin}:First", 1), make_agent(f"{plugin}:First", 2)
    assert type(a) is type(b) and (a.seed, b.seed) == (1, 2)
