"""cardlang import-log: games played elsewhere, replayed into the records.

A log written from our own records (moves as option indices, and as labels) must import
into records from which fit-opponent learns exactly the model the original records give;
a bad move is reported with its line of the log; a SQLite log reads like a CSV one; and
importing the same log twice adds nothing.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import GAMES
from helpers import record_games, run_cli

from cardlang import load_game

KUHN = GAMES / "kuhn_poker.rcy"


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("imp") / "kuhn.db"
    return record_games(db, KUHN, agents="random", games=60, seed=5)


def _moves(db: Path) -> list[tuple[int, int, int, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT g.id, g.seed, d.seat, d.option_index FROM decisions d "
            "JOIN games g ON g.id = d.game_id ORDER BY g.id, d.idx"
        ).fetchall()


def _write_csv(path: Path, rows: list[tuple[object, ...]], header: tuple[str, ...]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def _labels(rows: list[tuple[int, int, int, int]]) -> list[tuple[object, ...]]:
    """The same moves, each as the option's label (what a transcript prints)."""
    game = load_game(KUHN)
    master = game.master(engine="python")
    out: list[tuple[object, ...]] = []
    states: dict[int, object] = {}
    for gid, seed, seat, index in rows:
        st = states.setdefault(gid, master.new_game(seed))
        options = master.legal_options(st)
        out.append((f"g{gid}", seed, seat, game.describe_option(st, options[index]), "alice"))
        master.apply(st, index)
    return out


def _model(db: Path, tmp: Path, name: str) -> dict[str, dict[str, int]]:
    out = tmp / f"{name}.json"
    done = run_cli("fit-opponent", str(db), "--game", str(KUHN), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["states"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("as_labels", [False, True], ids=["indices", "labels"])
def test_an_imported_log_gives_the_model_of_the_original_records(
    records: Path, tmp_path: Path, as_labels: bool
) -> None:
    rows = _moves(records)
    if as_labels:
        log = _write_csv(
            tmp_path / "log.csv", _labels(rows), ("game", "seed", "seat", "move", "player")
        )
    else:
        log = _write_csv(tmp_path / "log.csv", rows, ("game", "seed", "seat", "move"))
    db = tmp_path / "imported.db"
    done = run_cli("import-log", str(log), "--game", str(KUHN), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 60
    assert _model(db, tmp_path, "imported") == _model(records, tmp_path, "original")
    again = run_cli("import-log", str(log), "--game", str(KUHN), "--db", str(db), "--json")
    assert json.loads(again.stdout)["new"] is False
    shown = run_cli("transcript", "--db", str(db), "--game", "1")
    assert shown.returncode == 0 and "P0" in shown.stdout


def test_without_db_the_users_records_file_is_written_and_read(
    records: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32, item 10: import-log writes, and fit-opponent reads, CARDLANG_HOME's
    records when no DB is named."""
    monkeypatch.setenv("CARDLANG_HOME", str(tmp_path / "home"))
    log = _write_csv(tmp_path / "log.csv", _moves(records), ("game", "seed", "seat", "move"))
    done = run_cli("import-log", str(log), "--game", str(KUHN))
    db = tmp_path / "home" / "runs.sqlite"
    assert done.returncode == 0 and f"into {db}" in done.stdout, done.stderr
    out = tmp_path / "model.json"
    fitted = run_cli("fit-opponent", "--game", str(KUHN), "--out", str(out))
    assert fitted.returncode == 0, fitted.stderr
    assert json.loads(out.read_text())["states"] == _model(records, tmp_path, "original")


def test_a_sqlite_log_reads_like_a_csv_one(records: Path, tmp_path: Path) -> None:
    log = tmp_path / "log.sqlite"
    with sqlite3.connect(log) as conn:
        conn.execute("CREATE TABLE moves (game, seed, seat, move)")
        conn.executemany("INSERT INTO moves VALUES (?, ?, ?, ?)", _moves(records))
    db = tmp_path / "imported.db"
    done = run_cli("import-log", str(log), "--game", str(KUHN), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert _model(db, tmp_path, "sq") == _model(records, tmp_path, "orig")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("a", 0, 1, "0")], "log.csv:2: game a: seat 1 moves, but it is seat 0's turn"),
        ([("a", 0, 0, "raise")], "log.csv:2: game a: 'raise' is not a legal move"),
        ([("a", 0, 0, "0")], "log.csv:2: game a goes on after its last move"),
        ([("a", 0, 0, "0"), ("a", 1, 1, "0")], "log.csv:3: game a has seed 0 above, 1 here"),
        ([("a", "x", 0, "0")], "log.csv:2: seed 'x' is not a whole number"),
    ],
)
def test_a_move_that_does_not_replay_is_reported_with_its_line(
    tmp_path: Path, rows: list[tuple[object, ...]], message: str
) -> None:
    log = _write_csv(tmp_path / "log.csv", rows, ("game", "seed", "seat", "move"))
    done = run_cli("import-log", str(log), "--game", str(KUHN), "--db", str(tmp_path / "x.db"))
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr


def test_an_interrupted_import_is_completed_by_the_same_command(
    records: Path, tmp_path: Path
) -> None:
    log = _write_csv(tmp_path / "log.csv", _moves(records), ("game", "seed", "seat", "move"))
    db = tmp_path / "imported.db"
    args = ("import-log", str(log), "--game", str(KUHN), "--db", str(db), "--json")
    assert json.loads(run_cli(*args).stdout)["added"] == 60
    with sqlite3.connect(db) as conn:  # as if killed before its last two games were saved
        last = [r[0] for r in conn.execute("SELECT id FROM games ORDER BY idx DESC LIMIT 2")]
        for table in ("decisions", "results"):
            conn.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(g,) for g in last])
        conn.executemany("UPDATE games SET status = 'planned' WHERE id = ?", [(g,) for g in last])
    again = json.loads(run_cli(*args).stdout)
    assert again["added"] == 2 and again["new"] is True
    assert _model(db, tmp_path, "resumed") == _model(records, tmp_path, "original")
