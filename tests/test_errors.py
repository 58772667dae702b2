"""The quality of error messages: every file in tests/errors/ holds one mistake.

Each file starts with its expectations, as comments:

    ;; expect: LINE:COL: error: MESSAGE-SUBSTRING
    ;; hint: HINT-SUBSTRING        (optional; belongs to the expect line above it)
    ;; errors: N                   (optional; the exact number of errors reported)

A file may hold several ``expect`` lines when it has several mistakes: all must be
reported at once.  Loading the file must raise ``GameFileError`` with an error at each
expected place whose message (and hint) contains the substrings, and the rendered
report must show ``file:line:col``, the source line and a caret under the column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import run_cli

from cardlang import GameFileError, load_game
from cardlang.errors import LINE_WINDOW, Diagnostic

HERE = Path(__file__).parent
ERRORS = HERE / "errors"
CASES = sorted(ERRORS.glob("*.rcy"))

_EXPECT = re.compile(r";; expect: (\d+):(\d+): (error|warning): (.+)$")


@dataclass
class Expected:
    line: int
    column: int
    severity: str
    message: str
    hints: list[str] = field(default_factory=list)


def read_expectations(path: Path) -> tuple[list[Expected], int | None]:
    expected: list[Expected] = []
    count: int | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.startswith(";;"):
            break
        line = raw.rstrip()
        if m := _EXPECT.match(line):
            expected.append(Expected(int(m[1]), int(m[2]), m[3], m[4]))
        elif line.startswith(";; hint: "):
            assert expected, f"{path.name}: a ';; hint:' line must follow an ';; expect:' line"
            expected[-1].hints.append(line.removeprefix(";; hint: "))
        elif line.startswith(";; errors: "):
            count = int(line.removeprefix(";; errors: "))
    return expected, count


def load_error(path: Path) -> GameFileError:
    with pytest.raises(GameFileError) as info:
        load_game(path)
    return info.value


def test_there_are_error_cases() -> None:
    assert len(CASES) >= 20
    for path in CASES:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert _EXPECT.match(first), f"{path.name} must start with ';; expect: LINE:COL: ...'"


def _matches(d: Diagnostic, want: Expected) -> bool:
    return (
        (d.span.line, d.span.column) == (want.line, want.column)
        and d.severity == want.severity
        and want.message in d.message
        and all(h in (d.hint or "") for h in want.hints)
    )


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_error_message(path: Path) -> None:
    expected, count = read_expectations(path)
    assert expected, f"{path.name} has no ';; expect:' line"
    err = load_error(path)
    got = "\n".join(
        f"  {d.span.line}:{d.span.column}: {d.severity}: {d.message}"
        + (f"\n    hint: {d.hint}" if d.hint else "")
        for d in err.diagnostics
    )
    for want in expected:
        assert any(_matches(d, want) for d in err.diagnostics), (
            f"{path.name}: no {want.severity} at {want.line}:{want.column} containing "
            f"{want.message!r}"
            + (f" with hint {want.hints!r}" if want.hints else "")
            + f"; got:\n{got}"
        )
    if count is not None:
        assert len(err.errors) == count, f"{path.name}: expected {count} errors, got:\n{got}"
    else:
        # one mistake, one message: no cascade of follow-up errors
        assert len(err.errors) == 1, f"{path.name}: expected one error, got:\n{got}"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_render_shows_position_source_and_caret(path: Path) -> None:
    expected, _ = read_expectations(path)
    err = load_error(path)
    rendered = err.render()
    source_lines = path.read_text(encoding="utf-8").splitlines()
    lines = rendered.splitlines()
    for want in expected:
        head = f"{path}:{want.line}:{want.column}: {want.severity}: "
        index = next((i for i, s in enumerate(lines) if s.startswith(head)), None)
        assert index is not None, f"no line starting with {head!r} in:\n{rendered}"
        assert want.message in lines[index]
        # the source line, with its number in the gutter, then the caret under the column
        source = source_lines[want.line - 1] if want.line <= len(source_lines) else ""
        gutter = f"{want.line:>5} | "
        shown, caret = lines[index + 1], lines[index + 2]
        assert caret.strip().startswith("^"), rendered
        assert shown.startswith(gutter), rendered
        text = source.expandtabs(1)
        if len(text) <= LINE_WINDOW:
            assert shown == gutter + text, rendered
            assert caret.index("^") == len(gutter) + want.column - 1, rendered
        else:  # a long line: a window of it, the caret under the same character
            window = shown[len(gutter) :]
            first = text.index(window.strip(".")) if window.startswith("...") else 0
            assert window.strip(".") in text and len(window) <= LINE_WINDOW + 6, rendered
            at = caret.index("^") - len(gutter) - (3 if window.startswith("...") else 0)
            assert first + at == want.column - 1, rendered
        for hint in want.hints:
            assert f"hint: {hint}" in rendered
    n = len(err.errors)
    assert lines[-1] == f"{n} error{'s' if n != 1 else ''} in {path}"


def test_diagnostics_are_in_source_order() -> None:
    err = load_error(ERRORS / "several_errors.rcy")
    positions = [(d.span.line, d.span.column) for d in err.diagnostics]
    assert positions == sorted(positions)
    assert str(err) == err.render()


def test_load_game_from_text_names_the_file() -> None:
    text = (ERRORS / "unknown_keyword.rcy").read_text(encoding="utf-8")
    with pytest.raises(GameFileError) as info:
        load_game(text=text, name="typo.rcy")
    assert "typo.rcy:16:17: error: unknown keyword 'mvoe'" in info.value.render()


# ---------------------------------------------------------------- the command line


def test_cli_check_bad_file_exits_1_with_message_and_no_traceback() -> None:
    path = ERRORS / "unknown_keyword.rcy"
    proc = run_cli("check", str(path))
    assert proc.returncode == 1, proc.stderr
    assert f"{path}:16:17: error: unknown keyword 'mvoe'" in proc.stderr
    assert "hint: did you mean 'move'?" in proc.stderr
    assert "^" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_cli_check_reports_every_error_of_a_file() -> None:
    path = ERRORS / "several_errors.rcy"
    proc = run_cli("check", str(path))
    assert proc.returncode == 1
    assert f"4 errors in {path}" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_cli_check_syntax_error_has_no_traceback() -> None:
    proc = run_cli("check", str(ERRORS / "unclosed_paren.rcy"))
    assert proc.returncode == 1
    assert "unclosed '(' of (do ...)" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_cli_check_good_file_exits_0() -> None:
    proc = run_cli("check", "games/kuhn_poker.rcy")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "error" not in proc.stderr


# ---------------------------------------------------------------- warnings
# Legal but suspicious files: they load (CardStock runs them), with a positioned warning.

WARNING_CASES = sorted((HERE / "warnings").glob("*.rcy"))


@pytest.mark.parametrize("path", WARNING_CASES, ids=[p.stem for p in WARNING_CASES])
def test_warning_message(path: Path) -> None:
    expected, _ = read_expectations(path)
    assert expected, f"{path.name} has no ';; expect:' line"
    game = load_game(path)
    for want in expected:
        assert any(_matches(d, want) for d in game.warnings), (
            f"{path.name}: no {want.severity} at {want.line}:{want.column} containing "
            f"{want.message!r}; got: {[(d.span.line, d.span.column, d.message) for d in game.warnings]}"
        )


def test_thousands_of_errors_on_one_long_line_print_a_bounded_report(tmp_path: Path) -> None:
    """Each message shows a window of its line, at most PER_LINE per line and IN_ALL in
    all: the report's size does not grow with the line or the number of errors."""
    from cardlang.errors import IN_ALL, PER_LINE

    base = (Path(__file__).resolve().parent.parent / "games" / "kuhn_poker.rcy").read_text()
    at = base.index("(setup") + len("(setup")
    sizes = []
    for count in (200, 2000):
        bad = " ".join(f"(set (game sto S{k}) 'NOPE{k})" for k in range(count))
        path = tmp_path / f"many{count}.rcy"
        path.write_text(base[:at] + "\n  " + bad + "\n" + base[at:])
        err = load_error(path)
        assert len(err.errors) > count  # every error is still counted
        rendered = err.render()
        assert f"... and {len(err.diagnostics) - PER_LINE} more" in rendered
        assert max(len(line) for line in rendered.splitlines()) < LINE_WINDOW + 200
        sizes.append(len(rendered))
    assert abs(sizes[0] - sizes[1]) < 100 and IN_ALL >= PER_LINE


def test_a_file_too_large_or_not_text_is_a_usage_error(tmp_path: Path) -> None:
    from cardlang.compiler.load import MAX_SOURCE_BYTES, read_source
    from cardlang.errors import UsageError

    big = tmp_path / "big.rcy"
    with big.open("wb") as f:
        f.truncate(MAX_SOURCE_BYTES + 10)
    with pytest.raises(UsageError, match="larger than 4 MiB"):
        read_source(big)
    binary = tmp_path / "binary.rcy"
    binary.write_bytes(b"(game \xff\xfe\x00")
    with pytest.raises(UsageError, match="not UTF-8 text"):
        read_source(binary)
    with pytest.raises(UsageError, match="is a directory, not a game file"):
        read_source(tmp_path)
