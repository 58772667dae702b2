"""The engines a game can be played with: the registry.

Pipeline position: engine, above gamemaster.py (the Python engine) and native.py (the C++
one), and above protocol.py (what every engine's master offers).  Each engine is named
here once: its traits (traits.py: what it offers beyond the protocol), whether it can run
on this machine, and the master that plays a game with it.

Which engine plays: ``Game.master(engine=...)``, else the game's ``engine`` (set by
``load_game(engine=...)``), else ``default_engine()``: the native engine where it is
built.  The command line settles it once (cli/options.py ``use_engine``: ``--engine``,
else ``CARDLANG_ENGINE``, read there and nowhere below) and passes it down as it passes
the limits: the games it loads carry it, a batch's worker processes receive it with their
master (runs/backends.py), a training run keeps it in its settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from cardlang.engine.gamemaster import Gamemaster, Limits, Rules
from cardlang.engine.native import NativeMaster, native_available, require_extension
from cardlang.engine.traits import NATIVE, PYTHON, EngineTraits, agents_kept_in_python
from cardlang.errors import UsageError, did_you_mean

if TYPE_CHECKING:
    from cardlang.engine.protocol import Engine

__all__ = [
    "ENGINE_NAMES",
    "NATIVE",
    "PYTHON",
    "EngineTraits",
    "agents_kept_in_python",
    "check_engine",
    "default_engine",
    "engine_named",
    "open_master",
]

#: the game a master plays: an engine.game.Game (a Rules to the Python engine)
GameT = TypeVar("GameT", bound=Rules)


#: Every engine by its name, in the order --engine lists them.
ENGINE_NAMES = (PYTHON.name, NATIVE.name)
_BY_NAME = {e.name: e for e in (PYTHON, NATIVE)}


def engine_named(name: str, named_by: str = "") -> EngineTraits:
    """The engine called ``name``; a usage error with a did-you-mean for another name
    (``named_by``: where the name came from, e.g. an environment variable)."""
    found = _BY_NAME.get(name)
    if found is None:
        hint = did_you_mean(name, ENGINE_NAMES)
        raise UsageError(
            (f"{named_by}={name!r} names no engine" if named_by else f"no engine named {name!r}")
            + (f" ({hint})" if hint else "")
            + f": choose from {', '.join(ENGINE_NAMES)}"
        )
    return found


def default_engine() -> str:
    """The engine a game plays with when no one names one: the native engine where it is
    built (the same results, faster), else the Python engine.  The command line's
    ``--engine`` (or ``CARDLANG_ENGINE``, read there) names one for everything below it."""
    return NATIVE.name if native_available() else PYTHON.name


def check_engine(name: str) -> str:
    """``name``, an engine that is registered and can run here (the native one: built)."""
    engine_named(name)
    if name == NATIVE.name:
        require_extension()
    return name


def open_master(
    game: GameT, limits: Limits | None = None, engine: str | None = None
) -> Engine[GameT]:
    """The master that plays ``game`` (an engine.game.Game) with the engine named
    ``engine``, else the default, under ``limits`` (else the defaults)."""
    if check_engine(engine or default_engine()) == NATIVE.name:
        return NativeMaster(game, limits)
    return Gamemaster(game, limits)
