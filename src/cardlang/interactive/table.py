"""What a seat sees, as plain data for people: the table a front end draws.

Built from a ``PlayerView`` only (information/views.py), so it holds what the seat may
know and nothing else: its own cards by name, the open zones, the sizes of the zones it
cannot see into, the storages, the situation's text and the options' labels.  Owners are
named from the seat's side ("you", "P1", "game").  A zone is listed bottom card first,
as the game keeps it; a long zone of alike cards is one entry with a count.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardlang.engine.labels import card_title

#: A zone with more cards than this is shown as counts per kind.
LISTED_CARDS = 10
GAME_OWNER = -1


@dataclass(frozen=True)
class Zone:
    owner: str  # "you", "P1", "game", "team 0"
    name: str
    size: int
    cards: tuple[str, ...] | None  # None: hidden from the seat (only its size is known)


@dataclass(frozen=True)
class Table:
    seat: int
    players: int
    turn: int
    situation: str
    text: str  # the situation's text, for people
    yours: tuple[Zone, ...]  # the seat's own zones
    open: tuple[Zone, ...]  # everything else it sees into
    hidden: tuple[Zone, ...]  # what it sees only the size of
    storages: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]  # (owner, (name, value)...)
    options: tuple[str, ...]  # the options' labels, in the game's order


def card_label(attrs: Mapping[str, Any]) -> str:
    """A card's name for people, as the options' labels write it (engine/labels.py
    ``card_title``) without its article: "Province", "7 of Hearts", "New York to
    Montreal"."""
    return re.sub(r"^the ", "", card_title(attrs))


def owner_name(owner: int, seat: int) -> str:
    if owner == seat:
        return "you"
    if owner >= 0:
        return f"P{owner}"
    if owner == GAME_OWNER:
        return "game"
    return f"team {-2 - owner}"


def shown_cards(names: Sequence[str]) -> tuple[str, ...]:
    """A zone's cards in order, a run of equal ones counted ("Copper x4, Estate"); a long
    zone by its counts per kind ("Copper x46")."""
    if len(names) > LISTED_CARDS:
        counts = Counter(names)
        return tuple(f"{name} x{n}" if n > 1 else name for name, n in counts.items())
    runs: list[tuple[str, int]] = []
    for name in names:
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + 1)
        else:
            runs.append((name, 1))
    return tuple(f"{name} x{n}" if n > 1 else name for name, n in runs)


def seat_view(st: Any, seat: int, game: Any) -> Any:
    """A view of ``st`` for ``seat`` that reads the state now (and is dropped at once)."""
    from cardlang.information.views import PlayerView

    return PlayerView.live(st, seat, game, ())


def table_of(view: Any, labels: Sequence[str]) -> Table:
    """The table of ``view`` (a PlayerView), with its options' ``labels``."""
    seat = view.seat
    yours: list[Zone] = []
    opened: list[Zone] = []
    hidden: list[Zone] = []
    for (owner, _kind, name), cards in sorted(view.visible.items(), key=_zone_order):
        names = [card_label(c) for c in cards]
        zone = Zone(owner_name(owner, seat), name, len(names), shown_cards(names))
        (yours if owner == seat else opened).append(zone)
    for (owner, _kind, name), size in sorted(view.hidden_sizes.items(), key=_zone_order):
        if size:
            hidden.append(Zone(owner_name(owner, seat), name, size, None))
    return Table(
        seat=seat,
        players=view.nplayers,
        turn=view.turns,
        situation=view.situation or "",
        text=_situation_text(view),
        yours=tuple(yours),
        open=tuple(opened),
        hidden=tuple(hidden),
        storages=_storages(view),
        options=tuple(labels),
    )


def _situation_text(view: Any) -> str:
    """The decision's text: the game's ``(situation NAME "text")``, else its name in
    words, or for an unnamed choice ("CHOICE") "Choose one:"."""
    name = view.situation or ""
    text = view.situation_text or ""
    if text != name:  # the game wrote one
        return str(text)
    if name in ("", "CHOICE"):
        return "Choose one:" if name else ""
    return name.replace("-", " ").capitalize() + ":"


def _zone_order(item: tuple[Any, Any]) -> tuple[int, tuple[Any, ...]]:
    """Seats first, then the game and teams; names in natural order (SUPPLY#2 before
    SUPPLY#10)."""
    (owner, _kind, name), _ = item
    natural = tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
    return (owner if owner >= 0 else 1_000 - owner, natural)


def _storages(view: Any) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    by_owner: dict[int, list[tuple[str, Any]]] = {}
    for source in (view.ints, view.strs):
        for (owner, name), value in source.items():
            by_owner.setdefault(owner, []).append((name, value))
    ordered = sorted(by_owner.items(), key=lambda kv: (kv[0] != view.seat, kv[0] < 0, kv[0]))
    return tuple((owner_name(o, view.seat), tuple(sorted(vals))) for o, vals in ordered)
