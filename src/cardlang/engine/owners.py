"""Owners and zone keys: the one encoding every engine and every layer above shares.

Pipeline position: engine, at the bottom (it imports nothing).  An owner is -1 for the
game, a seat's number for a player, ``-2 - t`` for team t; a zone key is ``(owner,
kind, name)`` with kind one of "vloc", "iloc", "hloc", "mem".
"""

from __future__ import annotations

__all__ = [
    "GAME_OWNER",
    "ZoneKey",
    "describe_owner",
    "owner_team",
    "owner_words",
    "team_owner",
]

GAME_OWNER = -1
ZoneKey = tuple[int, str, str]  # (owner, kind, name)


def team_owner(team: int) -> int:
    """The owner number of team ``team``: the one encoding of owners, -1 the game, a seat
    its number, ``-2 - t`` team t (so -2 is team 0)."""
    return -2 - team


def owner_team(owner: int) -> int:
    """The team a team owner number (``team_owner``) stands for."""
    return -2 - owner


def describe_owner(owner: int) -> str:
    """An owner in the compact form of keys and engine texts: "game", "P1", "team0"."""
    if owner == GAME_OWNER:
        return "game"
    if owner >= 0:
        return f"P{owner}"
    return f"team{owner_team(owner)}"


def owner_words(owner: int, seat: int | None = None) -> str:
    """An owner as people read it: "you" (``seat``'s own), "P1", "team 0", "game"."""
    if owner == seat:
        return "you"
    if owner == GAME_OWNER:
        return "game"
    return f"P{owner}" if owner >= 0 else f"team {owner_team(owner)}"
