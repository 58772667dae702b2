"""Checkpoints and models as untrusted files (issue 31, item 7): a checksum over the
weights, non-finite weights refused, every corrupt or foreign file a message naming it
and what is wrong, leftovers of an interrupted write removed at the next start, and a
diverged loss stopping the run before anything is saved.

The runs are test_ppo_run's: high card, a round in a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import needs_native_default

torch = pytest.importorskip("torch")

from cardlang.agents.neural.model import load_model, weights_checksum  # noqa: E402
from test_neural import HIGH_CARD  # noqa: E402
from test_ppo_run import _config  # noqa: E402

from cardlang.errors import TrainingDiverged, UsageError, check_loss  # noqa: E402
from cardlang.learning.ppo_run import PPORun  # noqa: E402

pytestmark = needs_native_default()
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished one-round run: (its game file, its folder)."""
    torch.set_num_threads(1)
    tmp = tmp_path_factory.mktemp("run")
    game = tmp / "high_card.rcy"
    game.write_text(HIGH_CARD)
    PPORun.open(_config(game, 1), tmp / "run", print).run()
    return game, tmp / "run"


def _load(path: Path) -> dict:
    return torch.load(path, weights_only=True)


def _rewrite(data: dict, path: Path, *, checksum: bool = True) -> Path:
    """``data`` saved at ``path``; with ``checksum`` its weights' checksum made to fit
    (a well-formed file whose weights are wrong in some other way)."""
    if checksum:
        data["weights_sha256"] = weights_checksum(data["state_dict"])
    torch.save(data, path)
    return path


def _copy_run(out: Path, folder: Path) -> Path:
    """A copy of a finished run's folder (its checkpoint, model and metrics)."""
    folder.mkdir()
    for name in ("checkpoint.pt", "model.pt", "metrics.jsonl"):
        (folder / name).write_bytes((out / name).read_bytes())
    return folder


def _refused(path: Path, game: Path, match: str) -> None:
    from cardlang import load_game

    with pytest.raises(UsageError, match=match) as caught:
        load_model(path, load_game(game))
    assert str(path) in str(caught.value)  # the message names the file


def test_a_saved_model_carries_the_checksum_of_its_weights(run: tuple[Path, Path]) -> None:
    data = _load(run[1] / "model.pt")
    assert data["weights_sha256"] == weights_checksum(data["state_dict"])


def test_bytes_flipped_in_the_weights_fail_the_checksum(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    game, out = run
    data = _load(out / "model.pt")
    name = max(data["state_dict"], key=lambda k: data["state_dict"][k].numel())
    raw = (out / "model.pt").read_bytes()
    stored = data["state_dict"][name].contiguous().numpy().tobytes()
    at = raw.find(stored)  # torch stores tensors uncompressed: the bytes are in the file
    assert at >= 0
    flipped = bytearray(raw)
    flipped[at + len(stored) // 2] ^= 0x10
    path = tmp_path / "flipped.pt"
    path.write_bytes(bytes(flipped))
    _refused(path, game, "do not match their checksum")


def test_nan_weights_are_refused(run: tuple[Path, Path], tmp_path: Path) -> None:
    game, out = run
    data = _load(out / "model.pt")
    name = next(k for k, v in data["state_dict"].items() if v.is_floating_point())
    data["state_dict"][name] = torch.full_like(data["state_dict"][name], float("nan"))
    _refused(_rewrite(data, tmp_path / "nan.pt"), game, "NaN or infinite values")


def test_weights_of_another_shape_are_refused(run: tuple[Path, Path], tmp_path: Path) -> None:
    game, out = run
    data = _load(out / "model.pt")
    name = next(k for k, v in data["state_dict"].items() if v.dim() == 2)
    data["state_dict"][name] = torch.zeros(3, 5)
    _refused(_rewrite(data, tmp_path / "shape.pt"), game, "do not fit its network settings")


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        (lambda d: d.pop("state_dict"), "'state_dict' is missing"),
        (lambda d: d.__setitem__("names", "x"), "'names' is missing or not a list"),
        (lambda d: d["config"].__setitem__("depth", 3), "config settings are not this version"),
        (lambda d: d["state_dict"].__setitem__("w", [1.0]), "not named tensors"),
    ],
)
def test_a_malformed_model_is_a_message_naming_what_is_wrong(
    run: tuple[Path, Path], tmp_path: Path, damage, match: str
) -> None:
    game, out = run
    data = _load(out / "model.pt")
    damage(data)
    _refused(_rewrite(data, tmp_path / "bad.pt", checksum=False), game, match)


def test_a_model_file_as_a_runs_checkpoint_is_a_message(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    game, out = run
    folder = tmp_path / "resume"
    folder.mkdir()
    (folder / "checkpoint.pt").write_bytes((out / "model.pt").read_bytes())
    with pytest.raises(UsageError, match="holds a model but no training state"):
        PPORun.open(_config(game, 2), folder, print)


def test_a_damaged_training_state_is_a_message(run: tuple[Path, Path], tmp_path: Path) -> None:
    game, out = run
    folder = tmp_path / "resume"
    folder.mkdir()
    data = _load(out / "checkpoint.pt")
    del data["training"]["trainer"]
    _rewrite(data, folder / "checkpoint.pt", checksum=False)
    with pytest.raises(UsageError, match="training state is damaged.*KeyError"):
        PPORun.open(_config(game, 2), folder, print)


def test_a_directory_as_checkpoint_is_a_message(run: tuple[Path, Path], tmp_path: Path) -> None:
    game, _ = run
    (tmp_path / "resume" / "checkpoint.pt").mkdir(parents=True)
    with pytest.raises(UsageError, match="is not a file"):
        PPORun.open(_config(game, 1), tmp_path / "resume", print)


def test_leftovers_of_an_interrupted_write_go_at_the_next_start(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    game, out = run
    folder = _copy_run(out, tmp_path / "resume")
    leftovers = [folder / ".checkpoint.pt.abc123.tmp", folder / "metrics.jsonl.tmp"]
    for p in leftovers:
        p.write_bytes(b"half a file")
    keep = folder / "notes.tmp"  # not a file of ours: left alone
    keep.write_text("mine")
    lines: list[str] = []
    PPORun.open(_config(game, 1), folder, lines.append)
    assert not any(p.exists() for p in leftovers) and keep.exists()
    assert any("removed 2 unfinished write(s)" in line for line in lines)


def test_a_diverged_loss_stops_the_run_and_keeps_the_last_checkpoint(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    game, out = run
    folder = _copy_run(out, tmp_path / "diverge")
    before = (folder / "checkpoint.pt").read_bytes()
    resumed = PPORun.open(_config(game, 2), folder, print)
    with torch.no_grad():  # what a blown-up step leaves: the loss is NaN from here on
        for p in resumed.model.net.parameters():
            p.fill_(float("nan"))
    with pytest.raises(TrainingDiverged, match="training diverged"):
        resumed.run()
    assert (folder / "checkpoint.pt").read_bytes() == before


def test_check_loss_passes_finite_values_only() -> None:
    check_loss(torch.tensor(0.5), "a step")
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(TrainingDiverged):
            check_loss(bad, "a step")


def test_the_command_line_names_the_corrupt_file_without_a_traceback(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    game, out = run
    data = _load(out / "model.pt")
    name = next(k for k, v in data["state_dict"].items() if v.is_floating_point())
    data["state_dict"][name] = data["state_dict"][name] + 1.0  # the old checksum kept
    bad = _rewrite(data, tmp_path / "tampered.pt", checksum=False)
    command = [sys.executable, "-m", "cardlang", "simulate", str(game), "--games", "1"]
    command += ["--agents", f"neural:model={bad},random"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    said = " ".join((done.stdout + done.stderr).split())  # the table wraps long lines
    assert "do not match their checksum" in said and bad.name in said
    assert "Traceback" not in said


def test_a_run_folder_of_another_game_is_a_message_not_a_silent_resume(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    game, out = run
    other = tmp_path / "other.rcy"
    other.write_text(HIGH_CARD.replace("(scoring max", "(scoring min"))
    with pytest.raises(UsageError, match=r"holds a run of .*high_card\.rcy.*not of .*other\.rcy"):
        PPORun.open(_config(other, 2), out, print)
