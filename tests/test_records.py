"""SQLite records: what `simulate --db` writes, resuming a batch (also after SIGKILL),
replaying a stored game with `transcript --db`, and clear errors for bad input."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, GAMES, ROOT, needs_corpus
from helpers import MISSING_CARD_KINGDOM, dominion_missing_a_card, run_cli

from cardlang import load_game
from cardlang.cli.main import main
from cardlang.cli.records import records_place
from cardlang.errors import UsageError
from cardlang.runs.simulate import run_batch
from cardlang.runs.store import SCHEMA_VERSION, RunStore

DOMINION = str(GAMES / "dominion.rcy")
HEARTS = str(GAMES / "hearts.rcy")
KUHN = str(GAMES / "kuhn_poker.rcy")
BOTS = "bigmoney,bmu"

#: Summary fields that depend on the clock or on where the games came from.
VOLATILE = {"seconds", "games_per_second", "records"}


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    """`cardlang simulate ARGS --json --quiet` in this process: exit code and summary."""
    code = main(["simulate", *args, "--json", "--quiet"])
    return code, json.loads(capsys.readouterr().out)


def stable(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in VOLATILE}


def query(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def scores_by_index(db: Path, batch: int = 1) -> dict[int, tuple[Any, ...]]:
    """Per game of a batch: its end reason and each seat's score, rank and credit."""
    rows = query(
        db,
        "SELECT g.idx, g.end_reason, r.score, r.rank, r.credit FROM games g JOIN results r "
        "ON r.game_id = g.id WHERE g.batch_id = ? ORDER BY g.idx, r.seat",
        batch,
    )
    out: dict[int, tuple[Any, ...]] = {}
    for idx, end, score, rank, credit in rows:
        out[idx] = out.get(idx, (end,)) + ((score, rank, credit),)
    return out


# ---------------------------------------------------------------- writing


def test_records_match_what_simulate_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    args = [DOMINION, "--agents", BOTS, "--games", "12", "--seed", "4"]
    code, recorded = simulate(capsys, *args, "--db", str(db))
    assert code == 0
    _, plain = simulate(capsys, *args)
    assert stable(recorded) == stable(plain), "recording changes no game"
    assert recorded["records"] == {"db": str(db), "batch": 1, "from_db": 0, "played": 12}

    games = query(db, "SELECT id, status, end_reason, decisions, turns, agents FROM games")
    assert len(games) == 12 and all(g[1] == "done" for g in games)
    per_game = dict(query(db, "SELECT game_id, count(*) FROM decisions GROUP BY game_id"))
    assert all(per_game[g[0]] == g[3] for g in games), "one row per decision"
    total = query(db, "SELECT count(*) FROM decisions")[0][0]
    assert total == round(recorded["mean_decisions"] * 12)
    assert query(db, "SELECT count(*) FROM results")[0][0] == 24
    assert sum(g[4] for g in games) == round(recorded["mean_turns"] * 12)
    credits = query(db, "SELECT seat, sum(credit) FROM results GROUP BY seat ORDER BY seat")
    assert [c for _, c in credits] == pytest.approx(recorded["wins"])
    assert {g[5] for g in games} == {'["bigmoney", "bmu"]'}

    # every decision is complete and plausible
    bad = query(
        db,
        "SELECT count(*) FROM decisions WHERE option_index < 0 OR option_index >= options "
        "OR situation = '' OR action_key = '' OR seconds < 0 OR illegal != 0",
    )
    assert bad == [(0,)]
    situations = {s for (s,) in query(db, "SELECT DISTINCT situation FROM decisions")}
    assert "BUY-PHASE" in situations

    batch = query(
        db, "SELECT game_path, game_sha256, params, root_seed, games, agents FROM batches"
    )
    assert batch == [
        (
            DOMINION,
            hashlib.sha256(Path(DOMINION).read_text().encode()).hexdigest(),
            "{}",
            4,
            12,
            '["bigmoney", "bmu"]',
        )
    ]
    assert dict(query(db, "SELECT key, value FROM meta"))["schema_version"] == str(SCHEMA_VERSION)
    assert query(db, "PRAGMA journal_mode") == [("wal",)]


def test_params_and_rotated_seats_are_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    code, _ = simulate(
        capsys,
        *[DOMINION, "--agents", "bigmoney,smithy", "--games", "4", "--rotate-seats"],
        *["--param", "kingdom=first-game", "--db", str(db)],
    )
    assert code == 0
    assert query(db, "SELECT params, rotate_seats FROM batches") == [
        ('{"KINGDOM": "first-game"}', 1)
    ]
    seats = query(db, "SELECT agent FROM results ORDER BY game_id, seat")
    assert [a for (a,) in seats] == ["bigmoney", "smithy", "smithy", "bigmoney"] * 2


# ---------------------------------------------------------------- resuming


def test_rerun_resumes_without_duplicates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    args = [HEARTS, "--games", "10", "--seed", "2", "--db", str(db)]
    _, first = simulate(capsys, *args)
    before = scores_by_index(db)
    decisions = query(db, "SELECT count(*) FROM decisions")

    _, again = simulate(capsys, *args)  # all finished: nothing is played
    assert again["records"]["played"] == 0 and again["records"]["from_db"] == 10
    assert stable(again) == stable(first)
    assert query(db, "SELECT count(*) FROM games") == [(10,)]
    assert query(db, "SELECT count(*) FROM decisions") == decisions

    # forget three finished games, as if the run had been killed before them
    conn = sqlite3.connect(db)
    with conn:
        lost = "(SELECT id FROM games WHERE idx IN (3, 7, 9))"
        conn.execute(f"DELETE FROM decisions WHERE game_id IN {lost}")
        conn.execute(f"DELETE FROM results WHERE game_id IN {lost}")
        conn.execute(f"UPDATE games SET status = 'planned' WHERE id IN {lost}")
    conn.close()
    _, resumed = simulate(capsys, *args)
    assert resumed["records"] == {"db": str(db), "batch": 1, "from_db": 7, "played": 3}
    assert stable(resumed) == stable(first), "the summary covers the whole batch"
    assert scores_by_index(db) == before
    assert query(db, "SELECT count(*) FROM decisions") == decisions
    assert query(db, "SELECT count(*), count(DISTINCT idx) FROM games") == [(10, 10)]


def test_a_different_command_is_a_different_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    simulate(capsys, KUHN, "--games", "5", "--db", str(db))
    simulate(capsys, KUHN, "--games", "5", "--seed", "1", "--db", str(db))
    simulate(capsys, KUHN, "--games", "5", "--max-decisions", "50", "--db", str(db))
    simulate(capsys, KUHN, "--games", "5", "--db", str(db))  # the first again
    assert query(db, "SELECT count(*) FROM batches") == [(3,)]
    assert query(db, "SELECT batch_id, count(*) FROM games GROUP BY batch_id") == [
        (1, 5),
        (2, 5),
        (3, 5),
    ]


def test_more_games_extend_the_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32: a larger --games played the same seeds again into a second batch (the
    README's sum(credit) counted them twice).  Now it extends the batch with the games
    it lacks; a smaller one counts the whole batch and says so."""
    db = tmp_path / "runs.sqlite"
    _, first = simulate(capsys, KUHN, "--games", "4", "--db", str(db))
    seeds = query(db, "SELECT seed FROM games ORDER BY idx")
    _, more = simulate(capsys, KUHN, "--games", "7", "--db", str(db))
    assert more["records"] == {"db": str(db), "batch": 1, "from_db": 4, "played": 3}
    assert query(db, "SELECT count(*), count(DISTINCT seed), max(idx) FROM games") == [(7, 7, 6)]
    assert query(db, "SELECT seed FROM games ORDER BY idx")[:4] == seeds
    proc = subprocess.run(
        [sys.executable, "-m", "cardlang", "simulate", KUHN, "--games", "3", "--db", str(db)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0 and "holds 7 games, more than --games 3" in proc.stderr
    assert query(db, "SELECT count(*) FROM batches") == [(1,)]


def test_the_records_place_follows_cardlang_home_then_xdg_then_the_home_folder() -> None:
    """Issue 32, item 10: one documented place per user, whatever the working folder."""
    home = Path("/home/ann")
    assert records_place({}, home) == home / ".local/share/cardlang/runs.sqlite"
    xdg = {"XDG_DATA_HOME": "/data/ann"}
    assert records_place(xdg, home) == Path("/data/ann/cardlang/runs.sqlite")
    own = {**xdg, "CARDLANG_HOME": "/srv/cards"}
    assert records_place(own, home) == Path("/srv/cards/runs.sqlite")
    assert (
        records_place({"CARDLANG_HOME": "~/cards"}, home)
        == Path("~/cards/runs.sqlite").expanduser()
    )
    # empty values are unset, and a relative XDG_DATA_HOME is ignored (the XDG rule)
    empty = {"CARDLANG_HOME": "", "XDG_DATA_HOME": "data"}
    assert records_place(empty, home) == home / ".local/share/cardlang/runs.sqlite"
    assert records_place({"CARDLANG_HOME": "/srv/cards"}, None) == Path("/srv/cards/runs.sqlite")
    with pytest.raises(UsageError, match="CARDLANG_HOME"):
        records_place({}, None)


def test_keep_records_in_the_users_records_file_not_the_working_folder(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "CARDLANG_HOME": str(home), "COLUMNS": "400"}  # a table's path whole

    def cardlang(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cardlang", *args],
            cwd=work, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    proc = cardlang("simulate", KUHN, "--games", "3", "--keep", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    db = home / "runs.sqlite"  # the folder made by the first record
    assert query(db, "SELECT count(*) FROM games WHERE status = 'done'") == [(3,)]
    assert json.loads(proc.stdout)["records"]["db"] == str(db)
    shown = cardlang("simulate", KUHN, "--games", "2", "--seed", "1", "--keep", "--quiet")
    assert shown.returncode == 0, shown.stderr
    assert "recorded in" in shown.stdout and str(db) in shown.stdout.replace("\n", "")
    listed = cardlang("transcript", "--db")  # --db without FILE: the same records
    assert listed.returncode == 0 and f"{db}: 5 games" in listed.stdout, listed.stderr
    replayed = cardlang("transcript", "--game", "1")
    assert replayed.returncode == 0 and "kuhn" in replayed.stdout.lower(), replayed.stderr
    assert list(work.iterdir()) == []  # nothing in the working folder


def test_reading_the_default_records_before_any_says_where_they_would_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CARDLANG_HOME", str(tmp_path / "nothing-yet"))
    assert main(["transcript", "--game", "1"]) == 2
    err = capsys.readouterr().err
    assert f"no records yet in {tmp_path / 'nothing-yet' / 'runs.sqlite'}" in err
    assert not (tmp_path / "nothing-yet").exists()  # reading makes nothing
    assert main(["fit-opponent", "--game", KUHN, "--out", str(tmp_path / "m.json")]) == 2
    assert "no records yet in" in capsys.readouterr().err


def test_a_game_is_written_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure while writing a game leaves no trace of it: still planned, no rows."""
    game = load_game(KUHN)
    store = RunStore.open(tmp_path / "runs.sqlite")
    calls = 0
    original = RunStore.save

    def failing_save(self: RunStore, *args: Any) -> bool:
        nonlocal calls
        calls += 1
        if calls == 3:
            conn = self.conn

            class Broken:
                def __getattr__(self, name: str) -> Any:
                    return getattr(conn, name)

                def executemany(self, sql: str, rows: Any) -> Any:
                    if "results" in sql:
                        raise OSError("disk on fire")
                    return conn.executemany(sql, rows)

            self.conn = Broken()  # type: ignore[assignment]
            try:
                return original(self, *args)
            finally:
                self.conn = conn
        return original(self, *args)

    monkeypatch.setattr(RunStore, "save", failing_save)
    with pytest.raises(OSError):
        run_batch(game, games=5, seed=0, agent_specs=["random"] * 2, store=store)
    store.close()
    db = tmp_path / "runs.sqlite"
    assert query(db, "SELECT idx, status FROM games ORDER BY idx") == [
        (0, "done"),
        (1, "done"),
        (2, "planned"),
        (3, "planned"),
        (4, "planned"),
    ]
    assert query(db, "SELECT count(DISTINCT game_id) FROM decisions") == [(2,)]
    assert query(db, "SELECT count(DISTINCT game_id) FROM results") == [(2,)]


SLOW_AGENT = """
import time
from cardlang.agents import make_agent


class SlowBigMoney:
    name = "slow-bigmoney"

    def __init__(self, seed=0):
        self.inner = make_agent("bigmoney", seed)

    def choose(self, view, options):
        time.sleep(0.0005)
        return self.inner.choose(view, options)
"""


def _done(db: Path) -> int:
    try:
        return int(query(db, "SELECT count(*) FROM games WHERE status = 'done'")[0][0])
    except sqlite3.Error:  # not created yet, or being created
        return 0


def test_a_killed_run_resumes_to_the_uninterrupted_results(tmp_path: Path) -> None:
    """SIGKILL in the middle of a batch loses at most the game in flight; the rerun
    completes the batch with every game exactly once and the same results as a run
    that was never interrupted."""
    agent = tmp_path / "slow.py"
    agent.write_text(SLOW_AGENT)
    db = tmp_path / "runs.sqlite"
    games = 120
    argv = [sys.executable, "-m", "cardlang", "simulate", DOMINION, "--games", str(games)]
    argv += ["--agents", f"{agent}:SlowBigMoney", "--seed", "9", "--db", str(db), "--quiet"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while _done(db) < 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    done_at_kill = _done(db)
    assert 5 <= done_at_kill < games, "the kill must land in the middle of the batch"
    assert query(db, "SELECT count(*) FROM games") == [(games,)], "planned up front"
    # nothing of an unfinished game is left behind
    assert query(
        db,
        "SELECT count(*) FROM decisions d JOIN games g ON g.id = d.game_id "
        "WHERE g.status != 'done'",
    ) == [(0,)]

    rerun = subprocess.run(argv + ["--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)
    assert summary["games"] == games and summary["records"]["from_db"] == done_at_kill
    assert query(db, "SELECT count(*), count(DISTINCT idx) FROM games") == [(games, games)]
    assert query(db, "SELECT count(*) FROM games WHERE status != 'done'") == [(0,)]
    assert query(db, "SELECT count(*) FROM results") == [(2 * games,)]

    # the same batch played in one go, here, by the agent the slow one wraps
    expected: dict[int, tuple[Any, ...]] = {}
    seeds: list[int] = []

    def keep(result: Any) -> None:
        seats = tuple(zip(result.scores, result.ranks, result.credits, strict=True))
        expected[len(seeds)] = (result.end_reason, *seats)
        seeds.append(result.seed)

    run_batch(load_game(DOMINION), games=games, seed=9, agent_specs=["bigmoney"] * 2, on_game=keep)
    assert scores_by_index(db) == expected
    assert [s for (s,) in query(db, "SELECT seed FROM games ORDER BY idx")] == seeds


def _has_table(db: Path, name: str) -> bool:
    """Whether the database ``db`` holds the table ``name`` (made in a transaction, so
    it is there whole or not at all); read-only, so asking never makes the file."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,))
            return found.fetchone() is not None
    except sqlite3.Error:
        return False


def test_a_kill_while_planning_leaves_no_half_batch(tmp_path: Path) -> None:
    """Planning is one transaction: after a kill the batch is absent or complete."""
    db = tmp_path / "runs.sqlite"
    argv = [sys.executable, "-m", "cardlang", "simulate", KUHN, "--games", "200000"]
    argv += ["--db", str(db), "--quiet"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        # until the records' tables are there (the file alone may be empty yet), then a
        # moment into the planning
        while not _has_table(db, "batches") and proc.poll() is None:
            assert time.monotonic() < deadline, "the records were never made"
            time.sleep(0.01)
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    batches = query(db, "SELECT count(*) FROM batches")[0][0]
    planned = query(db, "SELECT count(*) FROM games")[0][0]
    assert (batches, planned) in ((0, 0), (1, 200000))


def test_failed_and_cut_off_games_are_recorded_and_summarised_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    kingdom = f"kingdom={MISSING_CARD_KINGDOM}"
    failing = [str(dominion_missing_a_card(tmp_path)), "--games", "2", "--param", kingdom]
    failing += ["--db", str(db)]
    code, first = simulate(capsys, *failing)
    assert code == 1 and first["failed"] == 2
    code, again = simulate(capsys, *failing)
    assert code == 1 and stable(again) == stable(first)
    assert "no card kind named VILLAG" in again["errors"][0]
    rows = query(db, "SELECT end_reason, error_kind, error FROM games WHERE batch_id = 1")
    assert all(r[0] == "failed" and r[1] and "VILLAG" in r[2] for r in rows)
    assert query(db, "SELECT DISTINCT score, rank, credit FROM results") == [(None, None, 0.0)]
    code, out, _ = _transcript(capsys, "--db", str(db), "--game", "1")
    assert code == 0 and "end: failed" in out and "VILLAG" in out

    cut = [HEARTS, "--games", "3", "--max-decisions", "20", "--db", str(db)]
    _, cut_first = simulate(capsys, *cut)
    _, cut_again = simulate(capsys, *cut)
    assert cut_first["cutoff"] == 3 and stable(cut_again) == stable(cut_first)
    code, out, _ = _transcript(capsys, "--db", str(db), "--game", "3")
    assert code == 0 and "end: cutoff:decisions after 20 decisions" in out


# ---------------------------------------------------------------- replaying


def _transcript(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["transcript", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "path, agents",
    [(DOMINION, "bmu,double-witch"), (HEARTS, "random"), (KUHN, "random")],
    ids=["dominion", "hearts", "kuhn"],
)
def test_transcript_db_replays_a_stored_game_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, agents: str
) -> None:
    db = tmp_path / "runs.sqlite"
    simulate(capsys, path, "--agents", agents, "--games", "4", "--seed", "3", "--db", str(db))
    for game_id, seed, seat_agents in query(db, "SELECT id, seed, agents FROM games"):
        code, replayed, _ = _transcript(capsys, "--db", str(db), "--game", str(game_id))
        assert code == 0
        specs = ",".join(json.loads(seat_agents))
        code, played, _ = _transcript(capsys, path, "--seed", str(seed), "--agents", specs)
        assert code == 0
        assert replayed == played
        assert f", seed {seed}\n" in replayed and "end: " in replayed


def test_transcript_db_lists_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "runs.sqlite"
    simulate(capsys, KUHN, "--games", "3", "--db", str(db))
    code, out, _ = _transcript(capsys, "--db", str(db))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{db}: 3 games"
    assert len(lines) == 5 and lines[2].split()[0] == "1" and "random,random" in lines[2]


def test_transcript_db_refuses_a_changed_game_file_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "kuhn.rcy"
    game.write_text(Path(KUHN).read_text())
    db = tmp_path / "runs.sqlite"
    simulate(capsys, str(game), "--games", "2", "--db", str(db))
    game.write_text(Path(KUHN).read_text() + "\n;; edited\n")
    code, out, err = _transcript(capsys, "--db", str(db), "--game", "1")
    assert code == 2 and out == ""
    assert "has changed since game 1 was recorded" in err and "--force" in err
    code, out, err = _transcript(capsys, "--db", str(db), "--game", "1", "--force")
    assert code == 0 and "warning" in err and "end: completed" in out
    # the file moved: name it
    moved = tmp_path / "moved.rcy"
    game.rename(moved)
    moved.write_text(Path(KUHN).read_text())
    code, _, err = _transcript(capsys, "--db", str(db), "--game", "1")
    assert code == 2 and "is gone" in err
    code, out, _ = _transcript(capsys, str(moved), "--db", str(db), "--game", "1")
    assert code == 0 and out.startswith(f"{moved}, seed ")


# ---------------------------------------------------------------- bad input


def test_bad_records_input_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDLANG_HOME", str(tmp_path / "home"))  # no records of one's own
    text = tmp_path / "notes.txt"
    text.write_text("hello, not a database\n" * 100)
    foreign = tmp_path / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    db = tmp_path / "runs.sqlite"
    simulate(capsys, KUHN, "--games", "2", "--db", str(db))
    # an interrupted batch: planned games not played yet
    store = RunStore.open(db)
    store.conn.execute("UPDATE games SET status = 'planned' WHERE id = 2")
    store.close()
    cases = [
        (["simulate", KUHN, "--db", str(tmp_path / "no" / "runs.sqlite")], "does not exist"),
        (["simulate", KUHN, "--db", str(tmp_path)], "is a directory"),
        (["simulate", KUHN, "--db", str(text)], "not a cardlang records database"),
        (["simulate", KUHN, "--db", str(foreign)], "not cardlang's records"),
        (["simulate", KUHN, "--db", str(db), "--keep"], "not allowed with"),
        (["transcript", "--db", str(tmp_path / "none.sqlite")], "no such records database"),
        (["transcript", "--db", str(text), "--game", "1"], "not a cardlang records database"),
        (["transcript", "--db", str(db), "--game", "99"], "no game 99"),
        (["transcript", "--db", str(db), "--game", "2"], "has not been played yet"),
        (["transcript", "--db", str(db), "--game", "1", "--seed", "3"], "leave out --seed"),
        (["transcript", KUHN, "--game", "1"], "no records yet in"),
        (["transcript", KUHN, "--force"], "it needs --game ID"),
        (["transcript"], "needs a game FILE"),
    ]
    for argv, message in cases:
        assert _exit_code(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err, (argv, err)
        assert "Traceback" not in err
    assert not (tmp_path / "none.sqlite").exists(), "reading never creates a database"
    assert query(foreign, "SELECT name FROM sqlite_master") == [("t",)], "left untouched"


def _exit_code(argv: list[str]) -> int:
    """main's exit code, also when argparse exits on a usage error."""
    try:
        return main(argv)
    except SystemExit as exit:
        return int(exit.code or 0)


def test_bad_records_input_never_shows_a_traceback(tmp_path: Path) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database")
    proc = run_cli("transcript", "--db", str(text), "--game", "1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "not a cardlang records database" in proc.stderr


@needs_corpus
def test_corpus_game_records_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(CORPUS / "Agram2.rcy")
    db = tmp_path / "runs.sqlite"
    code, summary = simulate(capsys, path, "--games", "5", "--db", str(db))
    assert code == 0 and summary["completed"] == 5
    assert query(db, "SELECT count(*) FROM decisions")[0][0] == round(summary["mean_decisions"] * 5)
    seed = query(db, "SELECT seed FROM games WHERE id = 5")[0][0]
    _, replayed, _ = _transcript(capsys, "--db", str(db), "--game", "5")
    _, played, _ = _transcript(capsys, path, "--seed", str(seed))
    assert replayed == played
