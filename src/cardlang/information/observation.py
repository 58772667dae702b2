"""Keys of what a seat observes: the states of its decision process, and its actions.

Pipeline position: information, beside views.py.  ``cardlang solve`` (cardlang.solve)
builds a seat's decision process whose states are these keys, and the policy it saves
plays as an agent (``policy:table=PATH``) that computes the same keys from the views it
is given, so both sides read a view through this one module.

Two kinds of key:

``info``
    everything the seat has observed since the game began: its view's public history
    (moves with the cards it saw, storage changes, shuffles, decisions with its own
    labels, reveals) and what it sees now.  With perfect recall this is the seat's
    information state: two positions with the same key are positions the seat cannot
    tell apart, ever.
``view``
    what the seat sees now, without the history: the cards of every location it sees
    (by type), the size of every other location, the storages, the situation and the
    options.  Positions that look alike now share a key though the seat may have seen
    them reached differently: an abstraction, smaller than ``info``.
``counts``
    as ``view``, but each location the seat sees counted by card type, not in order (a
    discard pile's order, a hand's order do not matter): coarser still.

``view`` and ``counts`` keys may leave out storages and locations by name
(``StateKeys.ignore``): bookkeeping a game keeps that the seat need not tell apart (the
last damage dealt, a Measure counter), for a coarser abstraction still.  ``info`` keys
stay whole: they are the exact ones.

A card is named by its type (``language.kinds.card_type``): copies of a kind are alike.
Keys are hex digests, stable across runs, engines and machines.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cardlang.engine.owners import GAME_OWNER, describe_owner
from cardlang.language.kinds import card_type

#: The kinds of state key ``cardlang solve`` offers.
KEY_KINDS = ("info", "view", "counts")


def _value(v: Any) -> Any:
    """A value of a view (a card's attributes, a location key, a number...) as plain,
    ordered data."""
    if isinstance(v, Mapping):
        return ("card", card_type(v))
    if isinstance(v, tuple | list):
        return tuple(_value(x) for x in v)
    return v


def seen_option_key(option: Any) -> str:
    """An option as its chooser sees it (an ``OptionView``): its branch and what it
    binds, cards by type.  Equal options (two copies of a card) share a key."""
    bound = tuple((name, _value(v)) for name, v in option.bindings)
    return f"{option.branch}:{bound!r}"


def option_index(view: Any, key: str | None) -> int | None:
    """The first of a view's options whose ``seen_option_key`` is ``key`` (None: none is)."""
    if key is not None:
        for i, o in enumerate(view.options):
            if seen_option_key(o) == key:
                return i
    return None


def _event(event: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(_value(x) for x in event)


def view_summary(
    view: Any, counted: bool = False, ignore: frozenset[str] = frozenset()
) -> tuple[Any, ...]:
    """What the seat sees now, as plain data (the ``view`` key's content; ``counted``:
    each location's cards as sorted types, the ``counts`` key's), without the storages
    and locations named in ``ignore``."""
    visible = tuple(
        sorted(
            (key, tuple(sorted(types) if counted else types))
            for key, types in (
                (key, [card_type(c) for c in cards])
                for key, cards in view.visible.items()
                if key[2] not in ignore
            )
        )
    )
    return (
        view.seat,
        view.situation,
        visible,
        tuple(sorted(kv for kv in view.hidden_sizes.items() if kv[0][2] not in ignore)),
        tuple(sorted(kv for kv in view.ints.items() if kv[0][1] not in ignore)),
        tuple(sorted(kv for kv in view.strs.items() if kv[0][1] not in ignore)),
        _options(view, counted),
    )


def _options(view: Any, counted: bool) -> tuple[str, ...]:
    """The options' keys: in the game's order, or (``counted``) as a sorted set, since
    a hand's order does not matter to a key that counts its cards."""
    keys = (seen_option_key(o) for o in view.options)
    return tuple(sorted(set(keys))) if counted else tuple(keys)


def observation_key(view: Any, kind: str, ignore: frozenset[str] = frozenset()) -> str:
    """The state key of a seat's view (see the module docstring)."""
    if kind == "view":
        content: tuple[Any, ...] = view_summary(view, ignore=ignore)
    elif kind == "counts":
        content = view_summary(view, counted=True, ignore=ignore)
    elif kind == "info":
        content = (view_summary(view), tuple(_event(e) for e in view.history))
    else:
        raise ValueError(f"unknown kind of key {kind!r} (one of {', '.join(KEY_KINDS)})")
    return hashlib.blake2b(repr(content).encode(), digest_size=16).hexdigest()


def state_text(view: Any, history: bool = True) -> str:
    """What a seat knows, in words, for people reading a solved policy: the cards it
    sees, the sizes of the locations it does not, the storages, and (``history``) what
    each decision since the deal changed that it saw.  "P1 sees P1 HAND JACK; POT 3; P0 CHIPS
    -2; P1 CHIPS -1; STATE BET | P0 decided: P0 CHIPS -2, POT 3, STATE BET".  A
    description, not a key: two states may read alike (the key tells them apart)."""
    seat = view.seat
    parts = [
        f"{_whose(owner)}{name} {', '.join(card_type(c) for c in cards) or 'empty'}"
        for (owner, _kind, name), cards in sorted(view.visible.items())
    ]
    parts += [
        f"{_whose(owner)}{name} {n} unseen"
        for (owner, _kind, name), n in sorted(view.hidden_sizes.items())
        if n
    ]
    parts += [
        f"{_whose(owner)}{name} {value}"
        for (owner, name), value in sorted({**view.ints, **view.strs}.items())
    ]
    text = f"P{seat} sees " + "; ".join(parts)
    if history:
        text += "".join(f" | {step}" for step in _decisions(view.history))
    return text


def _whose(owner: int) -> str:
    """The owner's prefix in ``state_text``: none for the game's, else "P0 ", "team0 "."""
    return "" if owner == GAME_OWNER else describe_owner(owner) + " "


def _decisions(history: Iterable[tuple[Any, ...]]) -> list[str]:
    """Each decision of the history, by whom (with its label, for the seat's own), and
    the storages it set that the seat saw, until the next decision."""
    steps: list[str] = []
    changes: dict[str, Any] = {}
    head: str | None = None
    for event in history:
        if event[0] == "decision":
            if head is not None:
                steps.append(_step(head, changes))
            _, mover, label, _turn, _situation = event
            head, changes = f"P{mover} " + (f"chose {label}" if label else "decided"), {}
        elif event[0] == "set" and head is not None:
            (owner, name), value = event[1], event[2]
            changes[f"{_whose(owner)}{name}"] = value
    if head is not None:
        steps.append(_step(head, changes))
    return steps


def _step(head: str, changes: Mapping[str, Any]) -> str:
    said = ", ".join(f"{name} {value}" for name, value in changes.items())
    return f"{head}: {said}" if said else head


@dataclass(frozen=True)
class StateKeys:
    """How a seat's positions become states: the kind of key and the storages and
    locations it leaves out.  Saved with what is keyed by it (a policy table, an opponent
    model) as ``"keys"`` and ``"ignore"``, so their readers key views the same way."""

    kind: str = "info"
    ignore: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.kind not in KEY_KINDS:
            raise ValueError(f"unknown kind of keys {self.kind!r} (one of {', '.join(KEY_KINDS)})")
        if self.ignore and self.kind == "info":
            raise ValueError("info keys are the exact ones: leaving names out needs view or counts")

    @classmethod
    def make(cls, kind: str, ignore: Iterable[str] = ()) -> StateKeys:
        return cls(kind, frozenset(ignore))

    @classmethod
    def from_fields(cls, doc: Mapping[str, Any]) -> StateKeys:
        """The keys a saved document names (raises ValueError when they are unknown)."""
        ignore = doc.get("ignore", [])
        if not isinstance(ignore, list) or not all(isinstance(n, str) for n in ignore):
            raise ValueError(f"ignore must be a list of names, not {ignore!r}")
        return cls.make(str(doc.get("keys")), ignore)

    def fields(self) -> dict[str, Any]:
        """What a saved document holds of them."""
        return {"keys": self.kind, "ignore": sorted(self.ignore)}

    @property
    def orderless(self) -> bool:
        """Whether the key ignores the order of cards and options (then so do actions)."""
        return self.kind == "counts"

    @property
    def reads_history(self) -> bool:
        return self.kind == "info"

    def of(self, view: Any) -> str:
        """The state key of ``view``."""
        return observation_key(view, self.kind, self.ignore)

    def __str__(self) -> str:
        text = f"{self.kind} keys"
        return text + (f" without {', '.join(sorted(self.ignore))}" if self.ignore else "")
