"""``cardlang heuristics``: the experiments, the JSON a program reads, reuse of recorded
games, comparisons of variants, plots, and bad input.  (The measures themselves, on
hand-made records: test_measures.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import GAMES
from helpers import run_cli

KUHN = str(GAMES / "kuhn_poker.rcy")
AGRAM = str(GAMES / "agram.rcy")
FAST_AI = "ismcts:iterations=5"
ISSUE_KEYS = (  # the interface the issue names
    "fairness",
    "spread",
    "drama",
    "security",
    "decisiveness",
    "coolness",
    "order",
    "convergence",
    "balance",
    "first_seat_advantage",
    "lead_changes",
    "branching_factor",
)


def heuristics(*args: str):  # type: ignore[no-untyped-def]
    return run_cli("heuristics", *args, "--quiet")


def test_json_has_every_measure_with_its_interval_and_a_rerun_reuses_the_games(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "runs.sqlite")
    args = (KUHN, "--games", "12", "--ai", FAST_AI, "--db", db, "--json", "--seed", "4")
    first = heuristics(*args)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    for key in ISSUE_KEYS:
        assert set(out[key]) == {"value", "ci_low", "ci_high", "n"}, key
    assert out["experiment"]["games"] == {"random": 12, "ai_vs_random": 12, "ai": 12}
    assert out["experiment"]["played_now"] == 36
    assert len(out["seat_win_rates"]["random"]) == 2
    fair = out["fairness"]
    assert fair["ci_low"] <= fair["value"] <= fair["ci_high"] and fair["n"] == 12
    again = heuristics(*args)
    assert again.returncode == 0 and "36 games reused" in again.stderr
    reread = json.loads(again.stdout)
    assert reread["experiment"]["played_now"] == 0
    del out["experiment"], reread["experiment"]
    assert reread == out  # measured again from the same records: the same numbers


def test_two_parameter_settings_are_compared_side_by_side(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    common = ("--games", "10", "--designs", "random", "--db", db)
    proc = heuristics(AGRAM, "--param", "nump=2", "--param-b", "nump=4", *common, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"a", "b", "difference"}
    assert len(out["a"]["seat_win_rates"]["random"]) == 2
    assert len(out["b"]["seat_win_rates"]["random"]) == 4
    assert set(out["difference"]) == {"fairness"}  # the one measure of this design
    fairness = out["difference"]["fairness"]
    a, b = out["a"]["fairness"]["value"], out["b"]["fairness"]["value"]
    assert abs(fairness["value"] - (b - a)) < 1e-5
    assert isinstance(fairness["significant"], bool)
    table = heuristics(AGRAM, "--param", "nump=2", "--param-b", "nump=4", *common)
    assert table.returncode == 0 and "B - A" in table.stdout and "significant" in table.stdout


def test_plots_and_a_self_contained_page(tmp_path: Path) -> None:
    db, plots = str(tmp_path / "runs.sqlite"), tmp_path / "plots"
    proc = heuristics(KUHN, "--games", "8", "--ai", FAST_AI, "--db", db, "--plot", str(plots))
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in plots.iterdir()}
    assert {"win_rates.png", "lead_history.png", "branching.png", "game_length.png"} <= names
    page = (plots / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 4 and "Fairness" in page
    assert "Fairness" in proc.stdout  # the table is printed too


def test_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    for args, message in (
        ((KUHN, "--designs", "random,best"), "unknown design best"),
        ((KUHN, "--ai", "ismcts:iteration=5"), "iterations"),
        ((KUHN, AGRAM, "--param-b", "nump=3"), "not both"),
        ((KUHN, "--games", "0"), "expected a number >= 1"),
    ):
        proc = heuristics(*args, "--db", db)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_the_numbers_do_not_depend_on_the_backend(tmp_path: Path) -> None:
    outs = []
    for name, backend in (
        ("serial", ("--backend", "serial")),
        ("process", ("--backend", "process", "--workers", "2")),
    ):
        db = str(tmp_path / f"{name}.sqlite")
        proc = heuristics(KUHN, "--games", "16", "--ai", FAST_AI, "--db", db, "--json", *backend)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        del out["experiment"]
        outs.append(out)
    assert outs[0] == outs[1]


def test_an_interrupted_run_keeps_its_games_and_the_same_command_goes_on(tmp_path: Path) -> None:
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    db = tmp_path / "runs.sqlite"
    args = [sys.executable, "-m", "cardlang", "heuristics", str(GAMES / "hearts.rcy")]
    args += ["--games", "5000", "--designs", "random", "--db", str(db), "--quiet"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # until games are recorded
        time.sleep(0.1)
        try:  # a file that exists may not hold its tables yet: ask the database, not the folder
            with sqlite3.connect(db, timeout=1) as conn:
                done = conn.execute("SELECT count(*) FROM games WHERE status = 'done'")
                if done.fetchone()[0] > 0:
                    break
        except sqlite3.Error:  # not made yet, or being written: ask again
            pass
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "the same command goes on from there" in err and "Traceback" not in err
    with sqlite3.connect(db) as conn:
        kept = conn.execute("SELECT count(*) FROM games WHERE status = 'done'").fetchone()[0]
    assert 0 < kept < 5000


def test_limits_apply_to_the_games_played(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    proc = heuristics(
        KUHN, "--games", "10", "--designs", "random", "--max-decisions", "1", "--db", db, "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # every game is cut off after its first decision: no completed game to measure
    assert out["experiment"]["games"] == {"random": 10} and out["fairness"]["n"] == 0


def test_a_measure_without_a_value_says_why(tmp_path: Path) -> None:
    """With a bot as the AI no game holds the AI's estimates: every measure of the course
    of play is '-', and the table and the page say so, once for all of them."""
    db, plots = str(tmp_path / "runs.sqlite"), tmp_path / "plots"
    proc = heuristics(
        "games/dominion.rcy", "--games", "4", "--ai", "bmu", "--db", db, "--plot", str(plots)
    )
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "'-' for" in said and "Lead changes" in said and "Drama (CardStock)" in said
    assert "they need the AI's estimates of its chances" in said
    page = (plots / "report.html").read_text(encoding="utf-8")
    assert "they need the AI&#x27;s estimates" in page and "name='viewport'" in page
