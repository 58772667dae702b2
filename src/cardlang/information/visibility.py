"""Who sees a location: the one home of the rule, for views, knowledge, keys and search.

A location key is ``(owner, kind, name)``.  ``vloc`` (visible) and ``mem`` locations are
open to every seat; an ``iloc`` (invisible to the others) is seen by its owner when the
owner is a seat; an ``hloc`` (hidden) by no one, its owner included.  Hot loops inline
the test (``kind in OPEN_KINDS or (kind == OWNER_KIND and owner == seat >= 0)``) and say
so; everything else calls ``can_see``.

Here too: an owner as seen from a seat (``relative_owner``: "game", "P+k" for k seats
after it, "Tt" for team t), the one form the observation layouts, the tokens and the
action keys name owners by, and its inverse (``owner_of_relative``).
"""

from __future__ import annotations

from collections.abc import Callable

from cardlang.engine.owners import GAME_OWNER, ZoneKey, owner_team, team_owner

#: Location kinds every seat sees.
OPEN_KINDS = ("vloc", "mem")
#: The location kind only its owner sees.
OWNER_KIND = "iloc"


def relative_owner(owner: int, seat: int, nplayers: int) -> str:
    """An owner as a layout names it from ``seat``'s side (the same for every seat, so a
    network reads its own cards at one place): "game", "P+k" (k seats after it), "Tt"."""
    if owner == GAME_OWNER:
        return "game"
    if owner >= 0:
        return f"P+{(owner - seat) % nplayers}"
    return f"T{owner_team(owner)}"


def owner_of_relative(label: str, seat: int, nplayers: int) -> int:
    """The owner number of a ``relative_owner`` label, read from ``seat``'s side."""
    if label == "game":
        return GAME_OWNER
    if label.startswith("P+"):
        return (seat + int(label[2:])) % nplayers
    return team_owner(int(label[1:]))


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
