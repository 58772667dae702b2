"""PlayerView: what one player may know of a game in progress, and nothing more.

Pipeline position: between the Gamestate and the agents.  Agents receive a view, never
the state.  A view is a read-only snapshot: the cards of every location the player may
see (vloc: everyone; iloc: its owning player; mem: everyone, it holds references to
cards already shown), only the size of the others (hloc, other players' and the game's
iloc), every storage (storages are public in RECYCLE), the player cycle and the
counters.  It holds no reference to the state, so nothing reachable from it leads to
hidden cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from cardlang.state import Gamestate, current_player

if TYPE_CHECKING:
    from collections.abc import Mapping

ZoneKey = tuple[int, str, str]


def can_see(viewer: int, key: ZoneKey) -> bool:
    """Whether ``viewer`` (a seat, or -1 for an onlooker who sees public zones) sees the cards."""
    owner, kind, _ = key
    if kind in ("vloc", "mem"):
        return True
    if kind == "iloc":
        return owner >= 0 and owner == viewer
    return False


@dataclass(frozen=True)
class PlayerView:
    seat: int
    nplayers: int
    current_player: int
    decisions: int
    turns: int
    visible: Mapping[ZoneKey, tuple[Mapping[str, str], ...]]  # zone -> cards, bottom first
    hidden_sizes: Mapping[ZoneKey, int]  # zone -> number of cards
    ints: Mapping[tuple[int, str], int]
    strs: Mapping[tuple[int, str], str]

    def cards(self, owner: int, kind: str, name: str) -> tuple[Mapping[str, str], ...] | None:
        """The cards of a location the player sees (None if it is hidden from them)."""
        key = (owner, kind, name)
        if key in self.visible:
            return self.visible[key]
        return None if key in self.hidden_sizes else ()

    def size(self, owner: int, kind: str, name: str) -> int:
        key = (owner, kind, name)
        if key in self.visible:
            return len(self.visible[key])
        return self.hidden_sizes.get(key, 0)


def view_of(st: Gamestate, seat: int) -> PlayerView:
    visible: dict[ZoneKey, tuple[Mapping[str, str], ...]] = {}
    hidden: dict[ZoneKey, int] = {}
    for key, cards in st.zones.items():
        if can_see(seat, key):
            visible[key] = tuple(MappingProxyType(st.cards[c]) for c in cards)
        else:
            hidden[key] = len(cards)
    current = current_player(st) if st.stack else 0
    return PlayerView(
        seat=seat,
        nplayers=st.nplayers,
        current_player=current,
        decisions=st.decisions,
        turns=st.turns,
        visible=MappingProxyType(visible),
        hidden_sizes=MappingProxyType(hidden),
        ints=MappingProxyType(dict(st.ints)),
        strs=MappingProxyType(dict(st.strs)),
    )
