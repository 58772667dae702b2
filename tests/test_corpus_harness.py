"""The test harness does not hide a missing corpus: with ``CARDLANG_CORPUS`` pointing to a
folder that does not exist, the corpus tests are skipped with a reason that names the
folder, and the terminal summary ends with a line saying how many were skipped."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import CORPUS_PRESENT, ROOT

SUMMARY = re.compile(r"corpus tests skipped: (.+) not found \((\d+) tests?\)")


def run_pytest(corpus: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CARDLANG_CORPUS"}
    if corpus is not None:
        env["CARDLANG_CORPUS"] = str(corpus)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# the corpus tests of test_conformance: one skipped placeholder per test over game files
# when the corpus is absent, the known-broken files, the count; none of the 200-game runs
SELECT = "absent or still_fail or corpus_count"


def test_a_missing_corpus_is_reported_in_the_summary(tmp_path: Path) -> None:
    nowhere = tmp_path / "no-corpus-here"
    proc = run_pytest(nowhere, "tests/test_conformance.py", "-k", SELECT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    found = SUMMARY.search(out)
    assert found, f"no 'corpus tests skipped' line in:\n{out}"
    assert found.group(1) == str(nowhere)
    skipped = re.search(r"(\d+) skipped", out)
    assert skipped, out
    assert int(found.group(2)) == int(skipped.group(1)) > 0, out
    assert not re.search(r"\d+ (passed|failed|error)", out), out
    # every skip says where the corpus was looked for (-rs lists the reasons)
    reasons = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert reasons, out
    assert all(f"CardStock corpus not found at {nowhere}" in line for line in reasons), reasons


def test_no_corpus_line_when_the_corpus_is_there() -> None:
    if not CORPUS_PRESENT:
        # the other direction is all this machine can show
        proc = run_pytest(None, "tests/test_conformance.py", "-k", "still_fail")
        assert SUMMARY.search(proc.stdout), proc.stdout
        return
    proc = run_pytest(None, "tests/test_conformance.py", "-k", "still_fail")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\d+ passed", proc.stdout), proc.stdout
    assert not re.search(r"\d+ skipped", proc.stdout), proc.stdout
    assert not SUMMARY.search(proc.stdout), proc.stdout
