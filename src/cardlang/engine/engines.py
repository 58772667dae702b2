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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardlang.engine.gamemaster import Gamemaster, Limits
from cardlang.engine.traits import NATIVE, PYTHON, EngineTraits
from cardlang.errors import UsageError, did_you_mean

if TYPE_CHECKING:
    from cardlang.engine.protocol import Engine, GameT

__all__ = [
    "ENGINE_NAMES",
    "check_engine",
    "default_engine",
    "engine_named",
    "open_master",
]


@dataclass(frozen=True)
class _Registered:
    """One engine: what it offers, whether it can run here, and its master."""

    traits: EngineTraits
    #: raises the usage error that says why it cannot run here (and how to make it run)
    require: Callable[[], None]
    #: the master that plays a game (an engine.game.Game) under limits
    master: Callable[[Any, Limits | None], Any]

    def runs_here(self) -> bool:
        try:
            self.require()
        except UsageError:
            return False
        return True


def _anywhere() -> None:
    """The Python engine runs wherever cardlang does."""


def _native_built() -> None:
    # the extension is loaded when the native engine is first asked for, not at import
    from cardlang.engine.native import require_extension

    require_extension()


def _native_master(game: Any, limits: Limits | None) -> Any:
    from cardlang.engine.native import NativeMaster

    return NativeMaster(game, limits)


#: Every engine by its name, in the order --engine lists them.
_ENGINES = {
    PYTHON.name: _Registered(PYTHON, _anywhere, Gamemaster),
    NATIVE.name: _Registered(NATIVE, _native_built, _native_master),
}
ENGINE_NAMES = tuple(_ENGINES)
#: The default: the first of these that runs here (the native engine gives the same
#: results, faster).
_PREFERRED = (NATIVE.name, PYTHON.name)


def engine_named(name: str, named_by: str = "") -> EngineTraits:
    """The engine called ``name``; a usage error with a did-you-mean for another name
    (``named_by``: where the name came from, e.g. an environment variable)."""
    found = _ENGINES.get(name)
    if found is None:
        hint = did_you_mean(name, ENGINE_NAMES)
        raise UsageError(
            (f"{named_by}={name!r} names no engine" if named_by else f"no engine named {name!r}")
            + (f" ({hint})" if hint else "")
            + f": choose from {', '.join(ENGINE_NAMES)}"
        )
    return found.traits


def default_engine() -> str:
    """The engine a game plays with when no one names one: the native engine where it is
    built, else the Python engine.  The command line's ``--engine`` (or
    ``CARDLANG_ENGINE``, read there) names one for everything below it."""
    return next(name for name in _PREFERRED if _ENGINES[name].runs_here())


def check_engine(name: str) -> str:
    """``name``, an engine that is registered and can run here (the native one: built)."""
    engine_named(name)
    _ENGINES[name].require()
    return name


def open_master(
    game: GameT, limits: Limits | None = None, engine: str | None = None
) -> Engine[GameT]:
    """The master that plays ``game`` (an engine.game.Game) with the engine named
    ``engine``, else the default, under ``limits`` (else the defaults)."""
    name = check_engine(engine or default_engine())
    return _ENGINES[name].master(game, limits)  # type: ignore[no-any-return]
