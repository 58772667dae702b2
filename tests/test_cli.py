"""The command line as a user meets it: exit codes, JSON keys, messages, no tracebacks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import GAMES
from helpers import run_cli

from cardlang.cli.main import main

HEARTS = str(GAMES / "hearts.rcy")
KUHN = str(GAMES / "kuhn_poker.rcy")


def test_simulate_reports_each_agents_mean_score_and_keeps_it_on_resuming(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32: simulate gave win shares only.  Now each agent's mean score (a poker
    game's chips) with a 95% interval, the same when the batch is read back."""
    import sqlite3

    db = tmp_path / "runs.sqlite"
    args = ["simulate", KUHN, "--agents", "random,ismcts:iterations=20", "--games", "40"]
    args += ["--seed", "2", "--json", "--quiet", "--db", str(db)]
    assert main(args) == 0
    played = json.loads(capsys.readouterr().out)
    with sqlite3.connect(db) as conn:
        chips = [s for (s,) in conn.execute("SELECT score FROM results WHERE agent = 'random'")]
    random = played["score_by_agent"]["random"]
    assert random["seats"] == len(chips) == 40
    assert random["mean"] == pytest.approx(sum(chips) / 40)
    assert random["ci_low"] < random["mean"] < random["ci_high"]
    assert played["score_by_seat"][0]["seats"] == 40
    assert main(args) == 0  # read back from the records
    again = json.loads(capsys.readouterr().out)
    assert again["records"]["from_db"] == 40
    assert again["score_by_agent"] == played["score_by_agent"]
    assert main([a for a in args if a != "--json"]) == 0  # the tables show it
    assert "mean score" in capsys.readouterr().out


def test_the_mean_interval_is_the_normal_one() -> None:
    from cardlang.runs.statistics import mean_interval

    values = [1.0, 2.0, 3.0, 4.0]
    row = mean_interval(len(values), sum(values), sum(v * v for v in values))
    half = 1.959963984540054 * (1.6666666666666667 / 4) ** 0.5
    assert row == {
        "mean": 2.5,
        "ci_low": round(2.5 - half, 6),
        "ci_high": round(2.5 + half, 6),
        "seats": 4,
    }
    assert mean_interval(1, 5.0, 25.0)["ci_low"] == 5.0
    assert mean_interval(0, 0.0, 0.0)["seats"] == 0


def test_check_clean_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", KUHN]) == 0
    assert "ok" in capsys.readouterr().out


def test_simulate_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", KUHN, "--games", "30", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "games",
        "completed",
        "failed",
        "cutoff",
        "wins",
        "ties",
        "mean_decisions",
        "seconds",
        "games_per_second",
        "errors",
        "mean_turns",
    ):
        assert key in data
    assert data["games"] == 30 and data["completed"] == 30
    assert len(data["wins"]) == 2 and sum(data["wins"]) == pytest.approx(30)


def test_simulate_is_deterministic_for_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for _ in range(2):
        main(["simulate", HEARTS, "--games", "20", "--seed", "5", "--json"])
        data = json.loads(capsys.readouterr().out)
        outputs.append((data["wins"], data["mean_decisions"], data["ties"]))
    assert outputs[0] == outputs[1]


def test_simulate_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", KUHN, "--games", "10", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "completed" in out and "games / second" in out and "P1" in out


def test_transcript_shows_decisions_and_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["transcript", KUHN, "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "chooses" in out and "end: completed" in out


def test_bad_arguments_exit_2_with_usage() -> None:
    proc = run_cli("simulate", KUHN, "--games", "many")
    assert proc.returncode == 2
    assert "usage:" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_agent_is_a_usage_error_with_a_suggestion() -> None:
    proc = run_cli("simulate", KUHN, "--agents", "randon")
    assert proc.returncode == 2
    assert "did you mean 'random'" in proc.stderr and "Traceback" not in proc.stderr


def test_missing_file_is_a_clear_error() -> None:
    proc = run_cli("simulate", "no/such/game.rcy")
    assert proc.returncode == 2 and "no such game file" in proc.stderr
    assert "did you mean" not in proc.stderr


def test_a_mistyped_game_file_gets_a_suggestion() -> None:
    proc = run_cli("simulate", "games/dominon.rcy")
    assert proc.returncode == 2
    assert "did you mean 'games/dominion.rcy'?" in proc.stderr


def test_bad_game_file_exits_1_without_traceback(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.rcy"
    bad.write_text("(game (setup (create players 2)) (do ((mvoe 1))) (scoring max 0))")
    proc = run_cli("simulate", str(bad))
    assert proc.returncode == 1
    assert "bad.rcy:1:" in proc.stderr and "did you mean 'move'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_user_agent_plugin(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    plugin = tmp_path / "first.py"
    plugin.write_text(
        "class FirstOption:\n"
        "    name = 'first'\n"
        "    def choose(self, view, options):\n"
        "        assert view.seat in (0, 1)\n"
        "        return 0\n"
    )
    spec = f"{plugin}:FirstOption"
    assert main(["simulate", KUHN, "--games", "5", "--agents", f"{spec},random", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["completed"] == 5


def test_params_override_declared_constants(capsys: pytest.CaptureFixture[str]) -> None:
    agram = str(GAMES / "agram.rcy")
    assert main(["simulate", agram, "--param", "nump=3", "--games", "5", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["wins"]) == 3


def test_bad_params_are_usage_errors() -> None:
    agram = str(GAMES / "agram.rcy")
    proc = run_cli("simulate", agram, "--param", "numq=3")
    assert proc.returncode == 2 and "did you mean 'NUMP'" in proc.stderr
    proc = run_cli("simulate", agram, "--param", "nump=three")
    assert proc.returncode == 2 and "whole number" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("kingdom", "expected"),
    [
        ("village,smithy", "2 names (VILLAGE, SMITHY) do not fit: a kingdom is FIRST-GAME"),
        ("first-game,witch", "2 names (FIRST-GAME, WITCH) do not fit"),
        (",".join(["smithy"] * 2 + ["village"] * 8), "SMITHY is named twice"),
        ("wich", "WICH is not allowed (did you mean 'WITCH'?)"),
        ("province,village", "PROVINCE is not allowed"),
    ],
)
def test_a_dominion_kingdom_is_checked_before_play(kingdom: str, expected: str) -> None:
    """A preset or ten distinct kingdom cards (``(parameter-values ...)``): anything else
    is a usage error before a game is set up."""
    proc = run_cli(
        "simulate", "games/dominion.rcy", "--games", "1", "--param", f"kingdom={kingdom}"
    )
    assert proc.returncode == 2, proc.stderr
    assert f"parameter KINGDOM: {expected}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ten_kingdom_cards_play() -> None:
    cards = "village,smithy,witch,market,moat,cellar,mine,militia,remodel,workshop"
    proc = run_cli("simulate", "games/dominion.rcy", "--games", "1", "--param", f"kingdom={cards}")
    assert proc.returncode == 0, proc.stderr


def test_the_readme_main_job_runs_as_written() -> None:
    """README's first command: `cardlang simulate games/dominion.rcy` (the defaults)."""
    readme = (GAMES.parent / "README.md").read_text(encoding="utf-8")
    assert "cardlang simulate games/dominion.rcy #" in readme
    proc = run_cli("simulate", "games/dominion.rcy", "--games", "20", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["completed"] == 20 and summary["failed"] == 0
    assert set(summary) >= {"wins", "wins_by_agent", "ties", "mean_turns", "turns"}


@pytest.mark.parametrize(
    ("stop", "backend"),
    [
        ("SIGINT", "serial"),
        ("SIGTERM", "serial"),
        ("SIGTERM", "process"),
        ("SIGTERM to the group", "process"),
    ],
)
def test_an_interrupted_simulation_still_reports_the_games_it_finished(
    tmp_path: Path, stop: str, backend: str
) -> None:
    """Ctrl-C, SIGTERM to the command alone (``kill``: its workers are its to stop) or to
    its whole process group (a container's stop), once games are finishing (a game
    committed to the records: a row that is there or not, never half there), not after
    a fixed sleep that a loaded machine's imports can outlast.  A pool's workers are
    asked to stop, not killed: one killed while it sent its games back once left the
    command waiting for ever for the rest of the message."""
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    db = tmp_path / "war.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardlang", "simulate", "games/war.rcy", "--games", "100000"]
        + ["--quiet", "--json", "--backend", backend, "--db", str(db)]
        + (["--workers", "2"] if backend == "process" else []),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=GAMES.parent,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with sqlite3.connect(db, timeout=1) as conn:
                done = conn.execute("SELECT count(*) FROM games WHERE status = 'done'").fetchone()
            if done[0] > 0:
                break
        except sqlite3.Error:  # not made yet, or being written: ask again
            pass
        time.sleep(0.1)
    if stop.endswith("to the group"):
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(getattr(signal, stop))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    summary = json.loads(out)
    assert summary["interrupted"] and 0 < summary["games"] < summary["planned"]
    assert summary["completed"] + summary["failed"] + summary["cutoff"] == summary["games"]
    assert "interrupted after" in err


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["simulate", "{game}", "--games", str(10**26)], 2, "expected at most"),
        (["simulate", "{game}", "--max-decisions", str(10**23)], 2, "expected at most"),
        (["simulate", "{game}", "--seed", str(2**64)], 2, "expected at most"),
        (["tournament", "{game}", "--agents", "random,ismcts", "--time-limit", "inf"], 2, "finite"),
        (["simulate", "{game}", "--agents", "ismcts:c=nan,random"], 2, "finite number"),
        (["serve", "{game}", "--port", "70000"], 2, "port from 0 to 65535"),
        (["simulate", "{game}", "--games", "1", "--db", "/dev/full"], 2, "not a records database"),
        (["check", "/dev/zero"], 1, "larger than 4 MiB"),
        (["solve", "{game}", "--opponent", "uniform", "--out", "/"], 2, "is a directory"),
        (["solve", "{game}", "--opponent", "uniform", "--plot", "/no/such/x.png"], 2, "folder"),
        (["tournament", "{game}", "--agents", "random,ismcts", "--plot", "/"], 2, "directory"),
        (["heuristics", "{game}", "--plot", "{game}"], 2, "is a file, not a folder"),
        (["train", "{game}", "--out", "{game}"], 2, "is a file, not a folder"),
    ],
)
def test_hostile_arguments_are_messages_not_internal_errors(
    args: list[str], code: int, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(GAMES / "kuhn_poker.rcy")
    try:  # argparse's usage errors exit; the commands' own errors return their code
        rc = main([a.replace("{game}", game) for a in args])
    except SystemExit as stop:
        rc = stop.code
    err = capsys.readouterr().err
    assert rc == code, err
    assert said in err and "internal error" not in err and "Traceback" not in err


def test_running_out_of_memory_is_a_message_not_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A MemoryError that reaches the top (a view, a search, a network too large for the
    machine) is the machine's limit, not a bug of ours: said so, without a traceback."""
    import importlib

    cli = importlib.import_module("cardlang.cli.main")  # the module, not its main()

    def exhausted(args: object) -> int:
        raise MemoryError

    monkeypatch.setitem(cli.COMMANDS, "check", exhausted)
    rc = main(["check", str(GAMES / "kuhn_poker.rcy")])
    err = capsys.readouterr().err
    assert rc == 1 and "out of memory" in err
    assert "internal error" not in err and "Traceback" not in err
    with pytest.raises(MemoryError):  # --debug shows it as it is
        main(["check", str(GAMES / "kuhn_poker.rcy"), "--debug"])


def test_the_tables_fit_80_columns_and_keep_agents_apart(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two bots of one file name in two folders stay apart; each figure (an interval, a
    mean score) is on one line; a shortened name's whole spec is listed under the table."""
    from cardlang.cli.names import agent_labels

    bots = Path(__file__).resolve().parent.parent / "agents" / "scripted" / "bots"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bot.toml").write_text((bots / "smithy.toml").read_text())
    specs = [str(tmp_path / "a" / "bot.toml"), str(tmp_path / "b" / "bot.toml")]
    assert agent_labels(specs) == {s: s for s in specs}  # "bot.toml" twice: kept whole
    labels = agent_labels(["x/hag.toml", "bigmoney", "neural:model=models/m:other_game=1"])
    assert list(labels.values()) == ["hag.toml", "bigmoney", "neural:model=m:other_game=1"]
    monkeypatch.setenv("COLUMNS", "80")
    smithy = str(bots / "smithy.toml")
    proc = run_cli("simulate", "games/dominion.rcy", "--agents", f"{smithy},bmu", "--games", "10")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and max(len(line) for line in lines) <= 80, proc.stdout
    assert re.search(r"\d+\.\d-\d+\.\d%", proc.stdout)  # an interval on one line
    assert re.search(r"\d+\.\d\d ± \d+\.\d\d", proc.stdout)
    assert f"smithy.toml: {smithy}" in proc.stdout
