"""A short, seeded run of the coverage-guided game-file fuzzer (fuzz/game_files.py):
Atheris mutates our game files, guided by the front end's coverage; every input must be
refused with a positioned diagnostic or load and play alike on both engines.  About 40
seconds; the long run's figures are in docs/internals.md ("Fuzzing")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # fuzzing: CI runs it (`pytest -m slow`)
@pytest.mark.early(22)
def test_a_short_fuzzing_run_finds_nothing(tmp_path: Path) -> None:
    pytest.importorskip("atheris", reason="atheris is not installed (the dev extra has it)")
    corpus = tmp_path / "corpus"
    done = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "game_files.py"), "--seed-corpus", str(corpus)]
        + ["-runs=300", "-seed=1", "-max_len=32768", str(corpus)],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # where libFuzzer writes a crashing input
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    assert "Done 300 runs" in done.stderr
    assert len(list(corpus.iterdir())) > 8  # it kept inputs that reached new code
