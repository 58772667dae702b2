"""SIGTERM stops a command as Ctrl-C does.

``kill``, a batch system's time limit or a container's stop send SIGTERM, whose default
ends the process on the spot: a batch's records lost their summary, a report left its
adaptation's temporary folder behind, a batch's workers were orphaned.  Every command
already has a way out for Ctrl-C (a KeyboardInterrupt: a batch's summary of the games
played, a report's clean-up), so SIGTERM is turned into one.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["terminated_as_interrupted"]


@contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """While inside, SIGTERM raises KeyboardInterrupt in this process.  A process forked
    from it (a batch's worker, a training's actor) inherits the handler but not the
    command's way out: there SIGTERM ends it as it would have (its parent stops it so)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may take a signal
        return
    owner = os.getpid()

    def interrupt(signum: int, frame: object) -> None:
        if os.getpid() != owner:  # a forked child: die as SIGTERM's default would
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
