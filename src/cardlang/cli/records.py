"""Where a user's records go by default: one file per user, whatever folder a command runs in.

Pipeline position: the command line (cli/), below the commands that record by default
(``simulate --keep``, ``play``, ``serve``, ``heuristics``, ``import-log``) and those that
read records back without ``--db FILE`` (``transcript``, ``fit-opponent``).  The
environment is read here and nowhere below the command line: runs/store.py opens the
path it is given and knows no default.

The rule (``records_place``): ``$CARDLANG_HOME/runs.sqlite``; else
``$XDG_DATA_HOME/cardlang/runs.sqlite``; else ``~/.local/share/cardlang/runs.sqlite``.
Records kept under the working folder scattered one user's games over every folder a
command ran in; one place keeps them together, and CARDLANG_HOME moves it.  ``--db FILE``
still names any other file.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from cardlang.errors import UsageError

__all__ = [
    "HOME_VARIABLE",
    "RECORDS_RULE",
    "default_records",
    "records_place",
    "records_to_read",
    "records_to_write",
]

#: The environment variable that moves the records (and anything else cardlang keeps).
HOME_VARIABLE = "CARDLANG_HOME"
RECORDS_NAME = "runs.sqlite"
#: The rule in words, for help texts and messages.
RECORDS_RULE = "$CARDLANG_HOME/runs.sqlite, else ~/.local/share/cardlang/runs.sqlite"


def records_place(env: Mapping[str, str], home: Path | None) -> Path:
    """The default records file under the environment ``env`` and the home folder
    ``home`` (None: unknown).  Pure, so that the rule is tested without touching the
    process's environment.  An empty or relative XDG_DATA_HOME is ignored, as the XDG
    base directory specification asks."""
    own = env.get(HOME_VARIABLE) or ""
    if own:
        return Path(own).expanduser() / RECORDS_NAME
    data = env.get("XDG_DATA_HOME") or ""
    if data and Path(data).is_absolute():
        return Path(data) / "cardlang" / RECORDS_NAME
    if home is None:
        raise UsageError(
            f"no home folder to keep the records in: set {HOME_VARIABLE}, or give --db FILE"
        )
    return home / ".local" / "share" / "cardlang" / RECORDS_NAME


def default_records() -> Path:
    """This user's default records file, from this process's environment (it may not
    exist yet)."""
    try:
        home: Path | None = Path.home()
    except RuntimeError:  # no HOME and no password entry: only CARDLANG_HOME can help
        home = None
    return records_place(os.environ, home)


def records_to_write(given: str | Path | None) -> Path:
    """``--db FILE`` as given; else the default records, their folder made: a user never
    made it, so the first record does (a named file's folder is the user's business)."""
    if given is not None:
        return Path(given)
    path = default_records()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(
            f"cannot make the records folder {path.parent}: {err.strerror or err} "
            f"(set {HOME_VARIABLE} to another folder, or give --db FILE)"
        ) from None
    return path


def records_to_read(given: str | Path | None) -> Path:
    """``--db FILE`` as given; else the default records, which must exist: reading them
    must not make an empty file, and a user without records is told where they would be."""
    if given is not None:
        return Path(given)
    path = default_records()
    if not path.is_file():
        raise UsageError(
            f"no records yet in {path} (the default place: {RECORDS_RULE}); "
            "record games first (simulate --keep, play), or give --db FILE"
        )
    return path
