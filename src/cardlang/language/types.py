"""The types the checker infers for expressions, and how they relate.

A type is a short string.  Collections know their element type; a few types are
sub-types of others (a location is a card collection; an integer storage reads as an
integer).  Nothing here runs a game.

Pipeline position: beside the checker, which infers them (checker.py); every stage after
it reads them (statics.py, the compilers, the engine and the encoders).  Imports nothing.
"""

from __future__ import annotations

INT = "integer"
BOOL = "boolean"
STR = "string"
CARD = "card"
LOC = "location"  # a real location: cards live there
MEMLOC = "mem location"  # holds references to cards that live elsewhere
CARDS = "card collection"
CARDSS = "collection of card collections"
LOCS = "collection of locations"
PLAYER = "player"
TEAM = "team"
PLAYERS = "collection of players"
TEAMS = "collection of teams"
STRS = "list of strings"
INTS = "range of integers"
GAME = "the game"
INTSTO = "integer storage"
STRSTO = "string storage"
POINTS = "point map"
DECK = "deck description"
AWARDS = "point awards"
ANY = "?"  # after an error: accept anything, so that one mistake gives one message

ELEMENT: dict[str, str] = {
    LOC: CARD,
    MEMLOC: CARD,
    CARDS: CARD,
    CARDSS: CARDS,
    LOCS: LOC,
    PLAYERS: PLAYER,
    TEAMS: TEAM,
    TEAM: PLAYER,
    STRS: STR,
    INTS: INT,
}

_SUPER: dict[str, tuple[str, ...]] = {
    LOC: (CARDS,),
    MEMLOC: (CARDS,),
    INTSTO: (INT,),
    STRSTO: (STR,),
    TEAM: (PLAYERS,),
}

CARD_COLLECTIONS = (LOC, MEMLOC, CARDS)
OWNERS = (GAME, PLAYER, TEAM)
EQUALITY_TYPES = (INT, STR, CARD, PLAYER, TEAM)


def is_a(actual: str, wanted: str) -> bool:
    """True when a value of type ``actual`` may stand where ``wanted`` is expected."""
    return actual == wanted or actual == ANY or wanted == ANY or wanted in _SUPER.get(actual, ())


def read_type(t: str) -> str:
    """The type of the value read from ``t`` (a storage reads as its content)."""
    return {INTSTO: INT, STRSTO: STR}.get(t, t)


def filtered_type(t: str) -> str:
    """The type of ``(filter t ...)``: a location filtered is a computed card collection."""
    return CARDS if t in CARD_COLLECTIONS else (PLAYERS if t == TEAM else t)


def article(t: str) -> str:
    return ("an " if t[0] in "aeiou" else "a ") + t
