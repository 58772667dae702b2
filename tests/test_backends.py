"""Backends of `simulate`: serial, local processes and Ray give the same summary, the same
records (rows, ids, order) and the same on_game calls; a process batch resumes, survives
Ctrl-C and SIGKILL without leaving workers behind; bad choices are usage errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import GAMES, ROOT
from helpers import MISSING_CARD_KINGDOM, dominion_missing_a_card

from cardlang import load_game
from cardlang.cli.main import main
from cardlang.engine.gamemaster import GameResult
from cardlang.errors import UsageError
from cardlang.runs.backends import CHUNK_MAX, check_backend, chunk_size, open_backend
from cardlang.runs.runner import AgentError
from cardlang.runs.simulate import BatchInterrupted, run_batch
from cardlang.runs.statistics import BatchSummary
from cardlang.runs.store import RunStore

DOMINION = str(GAMES / "dominion.rcy")
HEARTS = str(GAMES / "hearts.rcy")
KUHN = str(GAMES / "kuhn_poker.rcy")

#: Summary fields that depend on the clock or on where the games came from.
VOLATILE = {"seconds", "games_per_second", "records"}
#: Record columns that depend on the clock.
TIMING = {"created", "started", "ended", "seconds"}
TABLES = {
    "batches": "id",
    "games": "id",
    "decisions": "game_id, idx",
    "results": "game_id, seat",
}

#: (game file, params, agents, games): a small game whose search agent leaves traces,
#: Dominion's bots, and a kingdom whose every game fails with a rule error.
CASES = {
    "kuhn-ismcts": (KUHN, {}, ["ismcts:iterations=8", "random"], 24),
    "dominion-bots": (DOMINION, {}, ["bmu", "double-witch"], 16),
    "dominion-failing": (
        str(dominion_missing_a_card(Path(tempfile.mkdtemp(prefix="cardlang-backends-")))),
        {"KINGDOM": MISSING_CARD_KINGDOM},
        ["bigmoney"] * 2,
        5,
    ),
}


def stable(summary: BatchSummary) -> dict[str, Any]:
    return {k: v for k, v in summary.to_json().items() if k not in VOLATILE}


def dump(db: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of the records, in key order, without the clock's columns."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return {
            table: [
                {k: row[k] for k in row.keys() if k not in TIMING}
                for row in conn.execute(f"SELECT * FROM {table} ORDER BY {order}")
            ]
            for table, order in TABLES.items()
        }
    finally:
        conn.close()


def record(
    db: Path, case: str, backend: str = "serial", workers: int | None = 1, stop: int = 0
) -> tuple[BatchSummary, list[tuple[int, str, tuple[float, ...]]]]:
    """Play a case into ``db``; the summary and what on_game saw, in order.  ``stop``:
    press Ctrl-C (as on_game can) after that many games."""
    path, params, agents, games = CASES[case]
    seen: list[tuple[int, str, tuple[float, ...]]] = []

    def on_game(result: GameResult) -> None:
        seen.append((result.seed, result.end_reason, result.credits))
        if len(seen) == stop:
            raise KeyboardInterrupt

    with RunStore.open(db) as store:
        try:
            summary = run_batch(
                load_game(path, params=params),
                games=games,
                seed=11,
                agent_specs=agents,
                store=store,
                params=params,
                on_game=on_game,
                backend=backend,
                workers=workers,
            )
        except BatchInterrupted as stop:  # the Ctrl-C of ``stop``: the games played so far
            summary = stop.summary
    return summary, seen


@pytest.fixture(scope="module")
def serial_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each case played serially once: what every other backend must reproduce."""
    out = {}
    for case in CASES:
        db = tmp_path_factory.mktemp(case) / "serial.sqlite"
        summary, seen = record(db, case)
        out[case] = (stable(summary), seen, dump(db))
    return out


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("case", list(CASES))
def test_process_backend_matches_serial(
    tmp_path: Path, serial_runs: dict[str, Any], case: str, workers: int
) -> None:
    summary, seen, rows = serial_runs[case]
    db = tmp_path / "process.sqlite"
    got, got_seen = record(db, case, "process", workers)
    assert stable(got) == summary
    assert got_seen == seen, "on_game sees the games in index order"
    assert dump(db) == rows
    assert rows["games"] and all(g["status"] == "done" for g in rows["games"])
    if case == "kuhn-ismcts":
        assert any(d["option_values"] for d in rows["decisions"]), "traces travel back"
    if case == "dominion-failing":
        assert summary["failed"] == 5 and "VILLAG" in summary["errors"][0]


def test_unrecorded_batches_match_and_chunks_stay_in_order() -> None:
    """Without records (nothing but results travel back), and with more games than one
    chunk holds, so that chunks finishing out of order must be put back in order."""
    game = load_game(HEARTS)
    games = 2 * CHUNK_MAX + 7
    runs = []
    for backend, workers in [("serial", 1), ("process", 2)]:
        seeds: list[int] = []
        summary = run_batch(
            game,
            games=games,
            seed=5,
            agent_specs=["random"] * 4,
            on_game=lambda r, seeds=seeds: seeds.append(r.seed),  # type: ignore[misc]
            backend=backend,
            workers=workers,
        )
        runs.append((stable(summary), seeds))
    assert runs[0] == runs[1]
    assert runs[0][0]["games"] == games


def test_the_game_is_rebuilt_with_its_parameters_even_if_not_passed() -> None:
    """Workers compile the tree the main process has, parameters applied: a caller that
    loaded the game with parameters but does not pass them still gets its game."""
    game = load_game(DOMINION, params={"PLAYERS": "3", "KINGDOM": "size-distortion"})
    runs = [
        stable(run_batch(game, games=6, seed=2, agent_specs=["bmu"] * 3, backend=b, workers=w))
        for b, w in [("serial", 1), ("process", 2)]
    ]
    assert runs[0] == runs[1] and len(runs[0]["wins"]) == 3


AGENT_ERROR = """
from cardlang.agents import make_agent


class Fussy:
    '''Plays like bigmoney, but returns nonsense in games whose seed it dislikes.'''

    def __init__(self, seed=0):
        self.bad = seed % 4 == 0
        self.inner = make_agent("bigmoney", seed)

    def choose(self, view, options):
        return "nonsense" if self.bad else self.inner.choose(view, options)
"""


def test_an_agent_error_fails_its_game_alike_on_every_backend(tmp_path: Path) -> None:
    """An agent's error in a worker fails that game with the same text as in the serial
    loop; the batch goes on, and the records are the same."""
    plugin = tmp_path / "fussy.py"
    plugin.write_text(AGENT_ERROR)
    game = load_game(DOMINION)
    spec = f"{plugin}:Fussy"
    outcomes = []
    for backend, workers in [("serial", 1), ("process", 2)]:
        db = tmp_path / f"{backend}.sqlite"
        seen: list[tuple[str, str]] = []
        with RunStore.open(db) as store:
            summary = run_batch(
                game,
                games=30,
                seed=5,
                agent_specs=[spec, "bigmoney"],
                store=store,
                on_game=lambda r, seen=seen: seen.append(  # type: ignore[misc]
                    (r.end_reason, str(r.error) if isinstance(r.error, AgentError) else "")
                ),
                backend=backend,
                workers=workers,
            )
        outcomes.append((seen, dump(db), summary.agent_failures, summary.errors))
    assert outcomes[0] == outcomes[1]
    seen, rows, failures, errors = outcomes[0]
    assert len(seen) == 30, "the batch goes on"
    failed = [text for reason, text in seen if reason == "failed"]
    assert 0 < len(failed) < 30 and failures == {spec: len(failed)}
    for text in failed:
        assert text.startswith(f"agent {spec!r} (P0): returned 'nonsense'")
        assert "situation" in text and "turn" in text and "seed" in text
    assert sum(g["end_reason"] == "failed" for g in rows["games"]) == len(failed)
    assert len(errors) == 1 and f"[{len(failed)} games]" in errors[0]


# ---------------------------------------------------------------- resuming and stopping


@pytest.mark.parametrize("first", ["serial", "process"])
def test_a_process_run_resumes_a_partial_batch(
    tmp_path: Path, serial_runs: dict[str, Any], first: str
) -> None:
    """Interrupted (here, or with its workers busy), then resumed by the process
    backend: the records are those of one uninterrupted serial run."""
    summary, _, rows = serial_runs["dominion-bots"]
    db = tmp_path / "runs.sqlite"
    workers = 2 if first == "process" else 1
    partial, _ = record(db, "dominion-bots", first, workers, stop=5)
    assert partial.games == 5 < partial.planned
    resumed, seen = record(db, "dominion-bots", "process", 3)
    assert resumed.stored == 5 and len(seen) == resumed.games - 5
    assert stable(resumed) == summary
    assert dump(db) == rows


def _descendants(pid: int) -> list[int]:
    """The processes started by ``pid``, and by them, ... (Linux /proc)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(c) for c in children] + [d for c in children for d in _descendants(int(c))]


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


def _wait_gone(pids: list[int], seconds: float = 20) -> list[int]:
    deadline = time.monotonic() + seconds
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _alive(pids)


def _ended(pids: list[int]) -> list[int]:
    """Those of ``pids`` still alive after a while, which are then killed (so that a
    failing test leaves nothing behind)."""
    alive = _wait_gone(pids)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return alive


def _done(db: Path) -> int:
    try:
        conn = sqlite3.connect(db)
        try:
            return int(conn.execute("SELECT count(*) FROM games WHERE status='done'").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


SLOW_AGENT = '''
import os
import time

from cardlang.agents import make_agent


class SlowRandom:
    """random, slowed down where CARDLANG_TEST_SLOW is set (so that a run can be
    stopped in the middle): the same moves either way."""

    name = "slow-random"

    def __init__(self, seed=0):
        self.inner = make_agent("random", seed)
        self.pause = float(os.environ.get("CARDLANG_TEST_SLOW", "0"))

    def choose(self, view, options):
        if self.pause:
            time.sleep(self.pause)
        return self.inner.choose(view, options)
'''


def _start(tmp_path: Path, games: int) -> tuple[list[str], subprocess.Popen[str], Path]:
    """`cardlang simulate` of Kuhn poker with slow agents on two worker processes, in a
    session of its own (so that its whole group can get a terminal's Ctrl-C), once it
    has recorded a few chunks."""
    plugin = tmp_path / "slow.py"
    plugin.write_text(SLOW_AGENT)
    db = tmp_path / "runs.sqlite"
    argv = ["simulate", KUHN, "--games", str(games), "--agents", f"{plugin}:SlowRandom"]
    argv += ["--seed", "4", "--db", str(db), "--backend", "process", "--workers", "2"]
    argv += ["--json", "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardlang", *argv],
        cwd=ROOT,
        env={**os.environ, "CARDLANG_TEST_SLOW": "0.001"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while _done(db) < 200 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return argv, proc, db


@contextmanager
def _stopped(proc: subprocess.Popen[str]) -> Iterator[None]:
    """Never leave the test's subprocess running, whatever fails.  Its pipes are closed
    rather than read to their end: a worker that outlived it would keep them open."""
    try:
        yield
    finally:
        if proc.poll() is None:
            proc.kill()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait(timeout=60)


needs_proc = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")


@needs_proc
def test_ctrl_c_summarises_the_games_played_and_stops_the_workers(tmp_path: Path) -> None:
    _, proc, db = _start(tmp_path, 4000)
    with _stopped(proc):
        workers = _descendants(proc.pid)
        assert proc.poll() is None, "the run must still be going"
        assert len(workers) >= 2, "worker processes (and the fork server) are running"
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C on a terminal does
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    summary = json.loads(out)
    assert summary["interrupted"] and 200 <= summary["games"] < 4000
    assert summary["games"] == _done(db), "every game summarised is recorded, and no more"
    assert "interrupted after" in err and "Traceback" not in err
    assert _ended(workers) == [], "no worker outlives the run"


@needs_proc
def test_a_killed_process_run_leaves_no_workers_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL on the main process (nothing can clean up): its workers exit by
    themselves, only chunks in flight are lost, and the same command with another
    number of workers finishes the batch as one serial run would have played it."""
    games = 1500
    argv, proc, db = _start(tmp_path, games)
    with _stopped(proc):
        workers = _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    done_at_kill = _done(db)
    assert 200 <= done_at_kill < games, "the kill must land in the middle of the batch"
    assert len(workers) >= 2 and _ended(workers) == [], "workers exit with their parent"

    argv[argv.index("--workers") + 1] = "3"
    assert main(argv) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["records"]["from_db"] == done_at_kill
    serial_db = tmp_path / "serial.sqlite"
    serial_argv = argv[: argv.index("--db")] + ["--db", str(serial_db), "--json", "--quiet"]
    assert main(serial_argv) == 0
    serial = json.loads(capsys.readouterr().out)
    assert _stable_json(resumed) == _stable_json(serial)
    assert dump(db) == dump(serial_db)


def _stable_json(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in VOLATILE}


# ---------------------------------------------------------------- choosing a backend


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`cardlang simulate KUHN ARGS` in this process: exit code, stdout, stderr."""
    try:
        code = main(["simulate", KUHN, "--games", "6", "--quiet", *args])
    except SystemExit as exit:  # argparse's usage errors
        code = int(exit.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--backend", "threads"], "invalid choice: 'threads'"),
        (["--workers", "0"], "expected a number >= 1, got 0"),
        (["--workers", "two"], "expected a whole number, got 'two'"),
        (["--backend", "process", "--workers", "-1"], "expected a number >= 1"),
        (["--backend", "serial", "--workers", "3"], "the serial backend plays in this process"),
    ],
)
def test_bad_backend_choices_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    db = tmp_path / "runs.sqlite"
    code, out, err = _simulate(capsys, "--db", str(db), *args)
    assert code == 2 and message in err and out == ""
    assert not db.exists(), "refused before anything is recorded"


def test_ray_missing_is_a_usage_error_that_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    db = tmp_path / "runs.sqlite"
    code, out, err = _simulate(capsys, "--backend", "ray", "--db", str(db))
    assert code == 2 and out == ""
    assert "pip install 'cardlang[ray]'" in err and "Traceback" not in err
    assert not db.exists()
    with pytest.raises(UsageError, match=r"cardlang\[ray\]"):
        run_batch(load_game(KUHN), games=1, seed=0, agent_specs=["random"] * 2, backend="ray")


def test_backend_and_workers_choices(capsys: pytest.CaptureFixture[str]) -> None:
    """--workers K > 1 alone means the process backend; its summary is the serial one."""
    from cardlang.cli.main import build_parser
    from cardlang.cli.options import backend_choice

    def choice(*args: str) -> tuple[str, int | None]:
        return backend_choice(build_parser().parse_args(["simulate", KUHN, *args]))

    assert choice() == ("serial", None)
    assert choice("--workers", "1") == ("serial", 1)
    assert choice("--workers", "3") == ("process", 3)
    assert choice("--backend", "process") == ("process", None)
    serial = _simulate(capsys, "--json", "--agents", "ismcts:iterations=4,random")
    process = _simulate(
        capsys, "--json", "--agents", "ismcts:iterations=4,random", "--workers", "2"
    )
    assert serial[0] == process[0] == 0
    assert _stable_json(json.loads(serial[1])) == _stable_json(json.loads(process[1]))
    with pytest.raises(UsageError, match="unknown backend 'gpu'"):
        check_backend("gpu", 1)
    with pytest.raises(UsageError, match="at least 1"):
        open_backend("process", 0)


def test_chunks_are_a_few_per_worker_and_never_huge() -> None:
    assert chunk_size(1, 8) == 1
    assert chunk_size(40, 2) == 5  # 8 chunks: 4 a worker
    assert chunk_size(10**6, 2) == CHUNK_MAX
    assert all(1 <= chunk_size(g, w) <= CHUNK_MAX for g in (1, 7, 999) for w in (1, 3, 64))


# ---------------------------------------------------------------- Ray


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("case", ["kuhn-ismcts", "dominion-failing"])
def test_ray_backend_matches_serial(
    tmp_path: Path, serial_runs: dict[str, Any], ray_local: Any, case: str
) -> None:
    summary, seen, rows = serial_runs[case]
    db = tmp_path / "ray.sqlite"
    got, got_seen = record(db, case, "ray", 2)
    assert stable(got) == summary and got_seen == seen
    assert dump(db) == rows
