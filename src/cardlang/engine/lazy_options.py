"""Options an engine hands out without making them all: ``LazyOptions``.

Pipeline position: engine, beside the engine protocol (protocol.py), importing nothing
of cardlang: the native engine's options implement it (engine/native.py) and views
keep and consult them as they are (information/views.py).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, TypeGuard


class LazyOptions(Sequence[Any]):
    """A decision's options as an engine may hand them out instead of a tuple: a
    sequence whose items are made when first read, so that an agent that answers by
    index, or a view that needs little, converts nothing.  It stays what it was after
    the state moves on.  Views keep it as it is (``PlayerView``), and ask it first for
    what they can (``option_kinds``); the native engine's options are one.
    """

    @abstractmethod
    def index_of(self, option: Any) -> int:
        """The index of one of these very option objects (by identity), -1 for any
        other object."""

    @abstractmethod
    def option_kinds(self, seat: int) -> tuple[str | None, ...] | None:
        """``PlayerView.option_kinds`` as ``seat`` sees them, if the engine knows them
        cheaply while the state has not moved on; None for "read the options"."""

    @abstractmethod
    def move_keys(self, st: Any, card_slots: frozenset[int]) -> list[Any] | None:
        """Search's move key of every option (``agents/search/common.MoveKeys``) in the
        state ``st`` these options were listed in, if the engine makes them cheaply;
        None for "make them from the options"."""

    def engine_list(self) -> Any:
        """The engine's own object for these options, for work done inside the engine
        (a search); None where there is none."""
        return None


_LAZY_TYPES: dict[type, bool] = {}


def is_lazy(options: object) -> TypeGuard[LazyOptions]:
    """``isinstance(options, LazyOptions)``, remembered per type: views ask it at every
    decision, and an ABC's isinstance costs more than the rest of making a view."""
    kind = type(options)
    found = _LAZY_TYPES.get(kind)
    if found is None:
        found = _LAZY_TYPES[kind] = issubclass(kind, LazyOptions)
    return found
