"""Every command, every class of bad value (issue 31, item 6).

The walk reads the command line's own parser, so a new command or option is walked
without being listed here.  Each run gives one option one value of a class: missing (the
option last, with no value), empty, non-numeric, negative, zero, huge, NaN, inf, a
missing path, a directory, a FIFO, /dev/zero, an empty file, a binary file, an output
that cannot be written.  Positional files get the path classes.  Whatever the value,
the command must end within its time with exit 0 (the value was fine), 1 (a positioned
error) or 2 (a usage message), and print no traceback and no "internal error".  Found by
it: a FIFO named as a game file (or a log, or records) hung every command, waiting for a
writer, and so did a FIFO as a file to write; a binary file given to import-log, and a
file to write in a folder that cannot be made, were internal errors.

The commands run in this process (``main``), from a scratch folder, with arguments that
keep an accepted run short (one game, one training round): every option of every
command meets every class, about 2,600 runs.  The README's test command takes a sample
of them: the options in turn, so that each (command, class) pair meets at least one option
(about 300 runs); the rest of the walk is marked slow, and CI runs it (``pytest -m slow``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import run_main

from cardlang.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
GAME = str(ROOT / "games" / "kuhn_poker.rcy")
#: how long one run may take (an accepted training round is the longest, a few seconds)
SECONDS = 90

#: value classes: name -> the value, with {dir} {fifo} {empty} {binary} from the scratch
#: folder
VALUES = {
    "empty": "",
    "non-numeric": "abc",
    "negative": "-5",
    "zero": "0",
    "huge": "1" + "0" * 30,
    "nan": "nan",
    "inf": "inf",
    "missing-path": "{missing}",  # a fresh one each run: a command may make it
    "directory": "{dir}",
    "fifo": "{fifo}",
    "dev-zero": "/dev/zero",
    "empty-file": "{empty}",
    "binary-file": "{binary}",
    "unwritable": "/proc/cardlang-walk/out.json",
}
PATH_CLASSES = [
    "missing-path",
    "directory",
    "fifo",
    "dev-zero",
    "empty-file",
    "binary-file",
    "unwritable",
]
MISSING = "missing"  # the option with no value
BINARY = bytes(range(256)) * 64

#: per command: what makes an accepted run short ({game}, {out}, {port} filled in)
BASE = {
    "check": ["{game}"],
    "simulate": ["{game}", "--games", "1", "--backend", "serial"],
    "transcript": ["{game}"],
    "describe": ["{game}"],
    "heuristics": ["{game}", "--games", "2", "--backend", "serial"],
    "train": ["{game}", "--out", "{out}", "--rounds", "1", "--envs", "2", "--horizon", "8"],
    "solve": ["{game}", "--opponent", "uniform"],
    "fit-opponent": ["{empty}"],
    "import-log": ["{empty}", "--game", "{game}"],
    "play": ["{game}", "--no-record"],
    "tournament": ["{game}", "--games", "1", "--agents", "random,random"],
    "serve": ["{game}", "--port", "{port}"],  # a port in use: serve stops before serving
    # a Dominion card (Kuhn poker has none) and a budget of about a second
    "card-report": [str(ROOT / "games" / "dominion.rcy"), "SMITHY", "--minutes", "0.02"],
}


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _valued_options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if a.option_strings and a.nargs != 0 and not isinstance(a, argparse._HelpAction)
    ]


def _cases(everything: bool) -> Iterator[tuple[str, str, str]]:
    """(command, option or "" for the positional file, value class)."""
    commands = _commands()
    assert set(commands) == set(BASE), "a command without BASE arguments: add them"
    classes = [*VALUES, MISSING]
    for command, parser in sorted(commands.items()):
        options = [a.option_strings[-1] for a in _valued_options(parser)]
        for k, value_class in enumerate(classes):
            if everything:
                chosen = options
            else:  # options in turn: the k-th class meets options k, k + n, ...
                chosen = options[k % len(options) :: len(classes)] or [options[k % len(options)]]
            for option in chosen:
                yield command, option, value_class
        for value_class in PATH_CLASSES:
            yield command, "", value_class


SAMPLE = set(_cases(everything=False))
WALK = list(_cases(everything=True))
#: the whole walk, the runs beyond the sample marked slow
CASES = [case if case in SAMPLE else pytest.param(*case, marks=pytest.mark.slow) for case in WALK]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    folder = tmp_path_factory.mktemp("walk")
    (folder / "dir").mkdir()
    os.mkfifo(folder / "fifo")
    (folder / "empty").write_bytes(b"")
    (folder / "binary").write_bytes(BINARY)
    blocker = socket.socket()  # serve's port, taken on every interface
    blocker.bind(("", 0))
    blocker.listen()
    yield {
        "dir": str(folder / "dir"),
        "fifo": str(folder / "fifo"),
        "empty": str(folder / "empty"),
        "binary": str(folder / "binary"),
        "out": str(folder / "run"),
        "port": str(blocker.getsockname()[1]),
        "game": GAME,
        "home": str(folder),
    }
    blocker.close()


def _argv(command: str, option: str, value_class: str, names: dict[str, str]) -> list[str]:
    names = {**names, "missing": f"{names['home']}/missing-{next(_FRESH)}/x.rcy"}
    base = [a.format(**names) for a in BASE[command]]
    if not option:  # the positional file itself
        return [command, VALUES[value_class].format(**names), *base[1:]]
    if value_class == MISSING:
        return [command, *base, option]
    return [command, *base, option, VALUES[value_class].format(**names)]


_FRESH = itertools.count()


class _TooLong(BaseException):  # not an Exception: main reports those
    pass


def _run(argv: list[str], home: str) -> tuple[int, str]:
    """main(argv) in ``home``, with nothing on stdin: (exit code, what it printed)."""

    def too_long(*_: object) -> None:
        raise _TooLong

    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(SECONDS)
    try:
        done = run_main(*argv, cwd=home)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(("command", "option", "value_class"), CASES)
def test_a_bad_value_is_a_message_never_an_internal_error(
    command: str, option: str, value_class: str, scratch: dict[str, str]
) -> None:
    # as they were: a command given one as its output may have written it
    Path(scratch["empty"]).write_bytes(b"")
    Path(scratch["binary"]).write_bytes(BINARY)
    argv = _argv(command, option, value_class, scratch)
    if command == "serve" and option == "--port" and value_class == "zero":
        pytest.skip("port 0 is any free port: serve would serve")
    try:
        rc, printed = _run(argv, scratch["home"])
    except _TooLong:
        pytest.fail(f"cardlang {' '.join(argv)} ran past {SECONDS} s")
    # play: nothing on stdin is a person who leaves at once (130, as for Ctrl-C)
    codes = (0, 1, 2, 130) if command == "play" else (0, 1, 2)
    assert rc in codes, f"exit {rc}: cardlang {' '.join(argv)}\n{printed[-2000:]}"
    assert "Traceback" not in printed and "internal error" not in printed, (
        f"cardlang {' '.join(argv)}\n{printed[-3000:]}"
    )


def test_the_walk_covers_every_command_class_and_option() -> None:
    commands = _commands()
    every_pair = {(c, v) for c in commands for v in [*VALUES, MISSING]}
    assert {(c, v) for c, _, v in WALK} == every_pair
    assert {(c, v) for c, _, v in SAMPLE} == every_pair  # the sample too
    options = {(c, o) for c, o, _ in WALK if o}
    every = {(c, a.option_strings[-1]) for c, p in commands.items() for a in _valued_options(p)}
    assert options == every
    assert len(WALK) == len(set(WALK)) and SAMPLE <= set(WALK)
