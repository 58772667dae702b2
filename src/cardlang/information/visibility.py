"""Who sees a location: the one home of the rule, for views, knowledge, keys and search.

A location key is ``(owner, kind, name)``.  ``vloc`` (visible) and ``mem`` locations are
open to every seat; an ``iloc`` (invisible to the others) is seen by its owner when the
owner is a seat; an ``hloc`` (hidden) by no one, its owner included.  Hot loops inline
the test (``kind in OPEN_KINDS or (kind == OWNER_KIND and owner == seat >= 0)``) and say
so; everything else calls ``can_see``.
"""

from __future__ import annotations

from collections.abc import Callable

ZoneKey = tuple[int, str, str]

#: Location kinds every seat sees.
OPEN_KINDS = ("vloc", "mem")
#: The location kind only its owner sees.
OWNER_KIND = "iloc"


def can_see(viewer: int, key: ZoneKey) -> bool:
    """Whether seat ``viewer`` sees the contents of location ``key``."""
    owner, kind, _ = key
    return kind in OPEN_KINDS or (kind == OWNER_KIND and owner == viewer >= 0)


def seer(viewer: int) -> Callable[[ZoneKey], bool]:
    """``can_see`` for one seat, as a function of the key (what readable labels and
    stories take to know which locations a reader sees)."""

    def sees(key: ZoneKey) -> bool:
        return can_see(viewer, key)

    return sees
