"""Files a user names, read as the untrusted input they are.

Pipeline position: below everything but cardlang.errors; the loader (game files), the
records (``--db``), the log importer and the checkpoint loader use it.

A path on the command line may name anything: a directory, a device (/dev/zero never
ends), a named pipe (FIFO) that no program writes to (opening it waits for ever), a
file too large to be what it claims.  ``read_bounded`` reads at most a bound and never
waits on a pipe without a writer; ``regular_file`` is for files that a library opens
itself (SQLite, torch), which must be plain files.
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

from cardlang.errors import UsageError, closest


def read_bounded(path: str | Path, limit: int, what: str) -> bytes:
    """At most ``limit`` + 1 bytes of ``path`` (the caller refuses more), as UsageErrors
    that name the file: missing, a directory, unreadable.  A pipe is read until its
    writers close it; one that no program writes to reads as empty, at once."""
    try:
        # O_NONBLOCK: opening a FIFO would otherwise wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise UsageError(f"no such {what}: {path}{_nearby(path)}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a {what}") from None
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise UsageError(f"{path} is a directory, not a {what}")
        # reads wait for data again (a pipe with no writer left reads as its end)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if not data and stat.S_ISFIFO(mode):
        raise UsageError(f"{path} is a pipe that nothing was written to, not a {what}")
    return data


def _nearby(path: str | Path) -> str:
    """ "; did you mean 'games/dominion.rcy'?" for a file of the same folder whose name is
    close to the missing one's (a typo), else nothing."""
    missing = Path(path)
    try:
        names = [p.name for p in missing.parent.iterdir() if p.is_file()][:10_000]
    except OSError:  # no such folder either, or one we may not list
        return ""
    match = closest(missing.name, names)
    return "" if match is None else f"; did you mean '{missing.parent / match}'?"


def regular_file(path: str | Path, what: str) -> Path:
    """``path``, if it is a plain file (or nothing yet); a UsageError for a directory, a
    pipe, a socket or a device, which a library opening it could wait on for ever."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        return p
    except OSError as err:
        raise UsageError(f"cannot use {path}: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"{path} is a directory, not a {what}")
    if not stat.S_ISREG(mode):
        kind = "a pipe" if stat.S_ISFIFO(mode) else "a device or socket"
        raise UsageError(f"{path} is {kind}, not a {what}")
    return p
