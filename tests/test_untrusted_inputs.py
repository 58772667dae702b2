"""Untrusted inputs of issue 53, section 5: records read back, checkpoints, agents that
cannot play, and bad command-line arguments.

- Every row read from a records database is checked: a value of the wrong type, out of
  range or unknown is a usage error naming the file, table, row and column (exit 2),
  never an internal error nor a batch wrongly reported as interrupted (exit 130).
- A checkpoint's settings are checked in type and range, and the size of the network
  they make counted without allocating it, before anything is built; its weights must
  have the shapes and types of that network; it is read with ``weights_only=True``.
- A neural agent whose model cannot load, or learnt another game, is a usage error
  before the first game of ``simulate``, ``transcript`` and ``tournament``.
- Absurd numbers and names in options are argparse errors with the usage (exit 2).

The hostile files are written here afresh; the games play on the Python engine, which
every machine has.
"""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import GAMES
from helpers import run_main

from cardlang.cli.main import build_parser
from cardlang.errors import UsageError
from cardlang.runs.store import RunStore, read_decisions

KUHN = str(GAMES / "kuhn_poker.rcy")
PY = ("--engine", "python")


def _usage_error(result: Any, *needles: str) -> None:
    """A usage error (exit 2) whose message holds every needle, and no traceback nor
    internal error."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


# ---------------------------------------------------------------- records


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A records file of 4 Kuhn poker games (copied by each test that damages it)."""
    db = tmp_path_factory.mktemp("records") / "runs.sqlite"
    result = run_main("simulate", KUHN, "--games", "4", "--db", str(db), "--quiet", *PY)
    assert result.returncode == 0, result.stderr
    return db


def _damaged(recorded: Path, tmp_path: Path, *statements: str) -> Path:
    """A copy of the records with ``statements`` run on it."""
    db = tmp_path / "damaged.sqlite"
    with sqlite3.connect(recorded) as source, sqlite3.connect(db) as copy:
        source.backup(copy)
    with sqlite3.connect(db) as conn:
        for statement in statements:
            conn.execute(statement)
    return db


def test_a_seed_stored_as_text_is_a_usage_error_naming_the_row(
    recorded: Path, tmp_path: Path
) -> None:
    db = _damaged(recorded, tmp_path, "UPDATE games SET seed = 'abc' WHERE id = 2")
    replay = run_main("transcript", "--db", str(db), "--game", "2", *PY)
    _usage_error(replay, str(db), "table games, row 2", "column seed", "'abc'")
    listing = run_main("transcript", "--db", str(db), *PY)
    _usage_error(listing, "table games, row 2", "column seed")


def test_an_unknown_game_status_is_a_usage_error_not_an_interruption(
    recorded: Path, tmp_path: Path
) -> None:
    db = _damaged(recorded, tmp_path, "UPDATE games SET status = 'paused' WHERE id = 3")
    result = run_main("simulate", KUHN, "--games", "4", "--db", str(db), "--quiet", *PY)
    _usage_error(result, "table games, row 3", "column status", "'paused'")
    assert "interrupted" not in result.stderr


@pytest.mark.parametrize(
    ("statement", "needles"),
    [
        ("DELETE FROM results WHERE game_id = 2", ("row 2", "no row of it")),
        ("DELETE FROM games WHERE id = 4", ("table batches", "column games says 4")),
        ("UPDATE games SET status = x'646f6e65' WHERE id = 1", ("row 1", "(a blob)")),
        ("UPDATE games SET end_reason = 'won' WHERE id = 1", ("column end_reason", "'won'")),
        ("UPDATE games SET agents = '[' WHERE id = 1", ("column agents", "JSON")),
        ("UPDATE games SET agents = '[]' WHERE id = 1", ("column agents", "at least one")),
        ("UPDATE games SET turns = -5 WHERE id = 2", ("column turns", "-5")),
        ("UPDATE games SET team_of = '[0, \"x\"]' WHERE id = 2", ("column team_of",)),
        ("UPDATE results SET credit = 'lots' WHERE game_id = 2", ("table results", "credit")),
        ("UPDATE results SET rank = 0 WHERE game_id = 2", ("table results", "column rank")),
        ("UPDATE results SET seat = 7 WHERE game_id = 2 AND seat = 1", ("column seat",)),
    ],
)
def test_a_damaged_batch_is_refused_before_it_resumes(
    recorded: Path, tmp_path: Path, statement: str, needles: tuple[str, ...]
) -> None:
    db = _damaged(recorded, tmp_path, statement)
    result = run_main("simulate", KUHN, "--games", "4", "--db", str(db), "--quiet", *PY)
    _usage_error(result, str(db), *needles)


@pytest.fixture(scope="module")
def tournament_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament's records: 2 Kuhn poker games a pairing, one of them a forfeit."""
    db = tmp_path_factory.mktemp("tournament") / "runs.sqlite"
    result = run_main(
        "tournament", KUHN, "--agents", "random,mcts:iterations=5", "--games", "2", "--db", str(db),
        "--quiet", *PY,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as conn:  # as a forfeit would be recorded
        conn.execute(
            "UPDATE games SET end_reason = 'forfeit', error_kind = 'forfeit:crash:1' WHERE id = 1"
        )
    return db


@pytest.mark.parametrize(
    ("statement", "needles"),
    [
        ("UPDATE games SET error_kind = 'forfeit:lost:1' WHERE id = 1", ("column error_kind",)),
        ("UPDATE games SET error_kind = 'forfeit:crash:9' WHERE id = 1", ("a seat below 2",)),
        ("UPDATE games SET error_kind = 'forfeit:crash' WHERE id = 1", ("forfeit:REASON:SEAT",)),
        ("UPDATE games SET agents = '{\"a\": 1}' WHERE id = 2", ("column agents",)),
        ("UPDATE results SET score = 'x' WHERE game_id = 2", ("table results", "column score")),
    ],
)
def test_a_damaged_tournament_is_refused_when_it_resumes(
    tournament_records: Path, tmp_path: Path, statement: str, needles: tuple[str, ...]
) -> None:
    db = _damaged(tournament_records, tmp_path, statement)
    agents = ("--agents", "random,mcts:iterations=5", "--games", "2", "--quiet", *PY)
    _usage_error(run_main("tournament", KUHN, *agents, "--db", str(db)), str(db), *needles)


def test_an_undamaged_tournament_resumes(tournament_records: Path, tmp_path: Path) -> None:
    db = _damaged(tournament_records, tmp_path)
    agents = ("--agents", "random,mcts:iterations=5", "--games", "2", "--quiet", *PY)
    result = run_main("tournament", KUHN, *agents, "--db", str(db))
    assert result.returncode == 0, result.stderr


def test_nesting_deeper_than_the_parser_is_a_usage_error(recorded: Path, tmp_path: Path) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    db = _damaged(recorded, tmp_path, f"UPDATE games SET agents = '{deep}' WHERE id = 1")
    _usage_error(run_main("transcript", "--db", str(db), *PY), "column agents", "JSON")


#: The columns of a decision that a replay reads (``RunStore.choices``).
REPLAYED = ("option_index", "column options", "column seat", "column idx")


@pytest.mark.parametrize(
    ("statement", "needle"),
    [
        ("UPDATE decisions SET option_index = 99 WHERE game_id = 1 AND idx = 0", "option_index"),
        ("UPDATE decisions SET options = 0 WHERE game_id = 1 AND idx = 0", "column options"),
        ("UPDATE decisions SET seat = 'P0' WHERE game_id = 1 AND idx = 0", "column seat"),
        ("UPDATE decisions SET seconds = -1 WHERE game_id = 1 AND idx = 0", "column seconds"),
        ("UPDATE decisions SET situation = x'00ff' WHERE game_id = 1 AND idx = 0", "a blob"),
        ("UPDATE decisions SET illegal = 3 WHERE game_id = 1 AND idx = 0", "column illegal"),
        ("UPDATE decisions SET policy = '[1, \"x\"]' WHERE game_id = 1 AND idx = 0", "policy"),
        ("DELETE FROM decisions WHERE game_id = 1 AND idx = 0", "column idx"),
    ],
)
def test_a_damaged_decision_is_a_usage_error_naming_it(
    recorded: Path, tmp_path: Path, statement: str, needle: str
) -> None:
    db = _damaged(recorded, tmp_path, statement)
    with pytest.raises(UsageError, match="table decisions") as caught:
        read_decisions(db, 1)
    assert needle in str(caught.value) and str(db) in str(caught.value)
    replay = run_main("transcript", "--db", str(db), "--game", "1", *PY)
    assert "Traceback" not in replay.stderr and "internal error" not in replay.stderr
    if needle in REPLAYED:  # what a replay reads of a decision
        _usage_error(replay, "table decisions", needle)


@pytest.mark.parametrize(
    ("statement", "needle"),
    [
        ("UPDATE meta SET value = 'four' WHERE key = 'schema_version'", "schema_version"),
        ("UPDATE batches SET params = '{\"a\": 1}'", "column params"),
        ("UPDATE batches SET max_steps = 0", "column max_steps"),
        ("UPDATE batches SET max_work = 'x'", "column max_work"),
    ],
)
def test_damaged_meta_and_batches_are_usage_errors(
    recorded: Path, tmp_path: Path, statement: str, needle: str
) -> None:
    db = _damaged(recorded, tmp_path, statement)
    _usage_error(run_main("transcript", "--db", str(db), "--game", "1", *PY), needle)


def test_a_recorded_secret_that_is_not_hex_is_refused(recorded: Path, tmp_path: Path) -> None:
    db = _damaged(recorded, tmp_path, "INSERT INTO meta VALUES ('batch-secret:1', 'zz')")
    with RunStore.open(db, create=False) as store, pytest.raises(UsageError, match="secret"):
        store.batch_secret(1)


def test_undamaged_records_still_read_back(recorded: Path) -> None:
    assert run_main("transcript", "--db", str(recorded), *PY).returncode == 0
    assert run_main("transcript", "--db", str(recorded), "--game", "3", *PY).returncode == 0
    assert len(read_decisions(recorded, 1)) >= 2


# ---------------------------------------------------------------- checkpoints

torch = pytest.importorskip("torch")

from cardlang.agents.neural.model import (  # noqa: E402
    GameIdentity,
    NeuralModel,
    load_model,
    weights_checksum,
)
from cardlang.agents.neural.network import (  # noqa: E402
    MAX_PARAMETERS,
    NetConfig,
    checked_device,
)


def _kuhn() -> Any:
    from cardlang import load_game

    return load_game(KUHN, engine="python")


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small untrained model of Kuhn poker, saved as training saves one."""
    path = tmp_path_factory.mktemp("model") / "model.pt"
    config = NetConfig(seats=2, width=16, heads=2, hidden=16, feedforward=16, body="deepsets")
    NeuralModel(config, GameIdentity.of(_kuhn()), device="cpu").save(path)
    return path


def _hostile(model_file: Path, tmp_path: Path, damage: Callable[[dict], Any]) -> Path:
    """The model with ``damage`` done to its data, its checksum made to fit again."""
    data = torch.load(model_file, weights_only=True)
    damage(data)
    if isinstance(data.get("state_dict"), dict):
        try:
            data["weights_sha256"] = weights_checksum(data["state_dict"])
        except Exception:  # a non-tensor weight: the load refuses it before the checksum
            pass
    path = tmp_path / "hostile.pt"
    torch.save(data, path)
    return path


def _set(part: str, key: str, value: Any) -> Callable[[dict], Any]:
    return lambda data: data[part].__setitem__(key, value)


@pytest.mark.parametrize(
    ("damage", "needle"),
    [
        (_set("config", "phi_layers", 1_000_000), "phi_layers must be from 0 to 64"),
        (_set("config", "names", 10**10), "names must be from"),
        (_set("config", "width", -16), "width must be from"),
        (_set("config", "width", "16"), "width must be a whole number"),
        (_set("config", "width", 16.0), "width must be a whole number"),
        (_set("config", "seats", 0), "seats must be from"),
        (_set("config", "heads", True), "heads must be a whole number"),
        (_set("config", "solo", "no"), "solo must be true or false"),
        (_set("config", "body", "resnet"), "body must be one of"),
        (
            lambda d: d["config"].update(names=4_000_000, width=64),
            f"more than the {MAX_PARAMETERS:,} allowed",
        ),
        (_set("game", "nplayers", "2"), "nplayers"),
        (_set("game", "params", {"a": 1}), "params"),
        (lambda d: d.__setitem__("info", ["x"]), "'info' is not a dict"),
        (lambda d: d.__setitem__("info", {"solo_value": "x"}), "solo_value"),
        (lambda d: d.__setitem__("info", {"solo_value": {"best": 0}}), "solo_value"),
        (lambda d: d.__setitem__("names", ["?"] * 9000), "9,000 names"),
        (lambda d: d["state_dict"].pop("pool.0.weight"), "pool.0.weight is missing"),
        (lambda d: d["state_dict"].__setitem__("evil", torch.zeros(1)), "'evil' is not one"),
        (
            lambda d: d["state_dict"].__setitem__("pool.0.weight", torch.zeros(16, 48).double()),
            "pool.0.weight is torch.float64",
        ),
        (
            lambda d: d["state_dict"].__setitem__("names.weight", torch.zeros(10**5, 16)),
            "names.weight is torch.float32 (100000, 16)",
        ),
    ],
)
def test_a_hostile_checkpoint_is_refused_before_anything_is_built(
    model_file: Path, tmp_path: Path, damage: Callable[[dict], Any], needle: str
) -> None:
    path = _hostile(model_file, tmp_path, damage)
    with pytest.raises(UsageError) as caught:
        load_model(path, _kuhn())
    assert needle in str(caught.value) and str(path) in str(caught.value)


def test_a_checkpoint_that_would_run_code_is_refused_and_runs_none(
    model_file: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self) -> tuple[Any, ...]:
            return (Path.touch, (marker,))

    path = tmp_path / "code.pt"
    data = torch.load(model_file, weights_only=True)
    data["info"] = {"x": Payload()}
    torch.save(data, path)
    with pytest.raises(UsageError, match="not a readable cardlang model"):
        load_model(path)
    assert not marker.exists()


def test_a_model_valuing_other_seats_is_refused_for_the_game(tmp_path: Path) -> None:
    game = _kuhn()
    path = tmp_path / "three.pt"
    config = NetConfig(seats=3, width=16, heads=2, hidden=16, feedforward=16, body="deepsets")
    NeuralModel(config, GameIdentity.of(game), device="cpu").save(path)
    with pytest.raises(UsageError, match="values 3 seat"):
        load_model(path, game)


def test_the_undamaged_model_loads(model_file: Path) -> None:
    assert load_model(model_file, _kuhn()).config.width == 16


def test_a_device_must_be_one_torch_can_use_here() -> None:
    assert checked_device("cpu").type == "cpu"
    for name in ("bogus", "meta", "cuda:x", "cuda:4096"):
        with pytest.raises(UsageError, match="device"):
            checked_device(name)


# ---------------------------------------------------------------- agents checked first


def test_a_bad_model_is_a_usage_error_before_the_first_game(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a model")
    for command in ("simulate", "transcript"):
        result = run_main(command, KUHN, "--agents", f"random,neural:model={bad}", *PY)
        _usage_error(result, str(bad), "not a readable cardlang model")
        assert "games" not in result.stdout  # no summary: no game was played


def test_a_model_of_a_changed_game_is_a_usage_error_before_the_first_game(
    tmp_path: Path,
) -> None:
    """A model whose game file has changed since (its recorded fingerprint differs)."""
    path = tmp_path / "old.pt"
    config = NetConfig(seats=2, width=16, heads=2, hidden=16, feedforward=16, body="deepsets")
    NeuralModel(config, GameIdentity("kuhn_poker", "0" * 64, {}, 2), device="cpu").save(path)
    for command in ("simulate", "tournament"):
        result = run_main(command, KUHN, "--agents", f"random,neural:model={path}", *PY)
        _usage_error(result, "trained on the game file", "other_game=1")


def test_a_tournament_refuses_a_bad_model_before_it_starts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"\x80\x02junk")
    result = run_main("tournament", KUHN, "--agents", f"random,neural:model={bad}", "--quiet", *PY)
    _usage_error(result, str(bad))


def test_an_agent_device_torch_cannot_use_is_a_usage_error(model_file: Path) -> None:
    spec = f"random,neural:model={model_file}:device=bogus"
    _usage_error(run_main("simulate", KUHN, "--agents", spec, *PY), "neural: device 'bogus'")


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    "args",
    [
        ("train", KUHN, "--out", "OUT", "--device", "bogus"),
        ("train", KUHN, "--out", "OUT", "--device", "cuda:4096"),
        ("tournament", KUHN, "--agents", "random,x", "--memory-limit", "0"),
        ("tournament", KUHN, "--agents", "random,x", "--memory-limit", "-5"),
        ("tournament", KUHN, "--agents", "random,x", "--memory-limit", str(2**40)),
        ("tournament", KUHN, "--agents", "random,x", "--illegal-retries", "1000000000"),
        ("tournament", KUHN, "--agents", "random,x", "--secret", "ab" * 50_000),
        ("tournament", KUHN, "--agents", "random,x", "--time-limit", "1e300"),
        ("tournament", KUHN, "--agents", "random,x", "--init-time-limit", "0"),
        ("tournament", KUHN, "--agents", "random,x", "--workers", "100000"),
        ("tournament", KUHN, "--agents", "random,x", "--games", "1000000000"),
        ("train", KUHN, "--out", "OUT", "--envs", "10000000"),
        ("train", KUHN, "--out", "OUT", "--buffer", str(10**12)),
        ("train", KUHN, "--out", "OUT", "--actors", "100000"),
        ("simulate", KUHN, "--workers", "1000000"),
        ("heuristics", KUHN, "--workers", "1000000"),
    ],
)
def test_absurd_arguments_are_refused_with_the_usage(args: tuple[str, ...]) -> None:
    result = run_main(*args)
    assert result.returncode == 2, result.stderr
    assert "usage:" in result.stderr and "error: argument --" in result.stderr


def test_a_recorded_batch_too_large_to_plan_is_refused_before_the_records_are_made(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.sqlite"
    result = run_main("simulate", KUHN, "--games", str(10**12), "--db", str(db), *PY)
    _usage_error(result, "at most 10,000,000 games")
    assert not db.exists()


def _parsed(*args: str) -> argparse.Namespace:
    return build_parser().parse_args(["tournament", KUHN, "--agents", "a,b", *args])


def test_sensible_tournament_arguments_still_parse() -> None:
    assert _parsed().memory_limit == 2048 and _parsed().illegal_retries == 0
    assert _parsed("--memory-limit", "none").memory_limit == 0  # no limit, said so
    assert _parsed("--memory-limit", "64", "--illegal-retries", "100").illegal_retries == 100
    assert _parsed("--secret", "ab" * 16).secret == "ab" * 16


def test_a_tournament_too_large_to_plan_is_a_usage_error() -> None:
    agents = ",".join(f"random:seed={i}" for i in range(200))
    result = run_main("tournament", KUHN, "--agents", agents, "--games", "1000", *PY)
    _usage_error(result, "19,900,000 games")


def test_network_options_too_large_are_refused(tmp_path: Path) -> None:
    out = str(tmp_path / "run")
    result = run_main("train", KUHN, "--out", out, "--width", "100000", *PY)
    _usage_error(result, "--width", "width must be from 1 to 4,096")
    result = run_main("train", KUHN, "--out", out, "--width", "4096", "--hidden", "65536", *PY)
    _usage_error(result, "weights, more than")
    assert not Path(out).exists()


def test_an_imported_seed_past_64_bits_is_refused_at_its_line(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text(f"game,seed,seat,move\ng1,{2**63},0,0\n")
    db = tmp_path / "imported.sqlite"
    result = run_main("import-log", str(log), "--game", KUHN, "--db", str(db), *PY)
    assert result.returncode == 1 and "internal error" not in result.stderr
    assert f"{log}:2: seed {2**63} is more than" in result.stderr
