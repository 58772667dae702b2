"""What the rules of a game say before any game is played: the names an expression can
be, and whether a filter can hold a card.

Pipeline position: reads the checked AST (checker.py), like the compilers, but for the
tools around play: the action vocabulary (vocabulary.py) and the encoders (encode.py)
need finite, static lists (the values an ``any`` can bind, the locations and storages a
game can have) that the compilers never compute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import CheckedGame
from cardlang.language.kinds import KIND_ATTRIBUTE

Attributes = Mapping[str, Any]


def all_nodes(node: Any) -> Iterator[ast.Node]:
    """Every node under ``node`` (expressions included), depth first."""
    if isinstance(node, ast.Node):
        yield node
        for name in node.__dataclass_fields__:  # type: ignore[attr-defined]
            yield from all_nodes(getattr(node, name))
    elif isinstance(node, tuple):
        for item in node:
            yield from all_nodes(item)


class StaticNames:
    """The names an expression can be, known before the game (for keys and layouts)."""

    def __init__(self, checked: CheckedGame) -> None:
        self.checked = checked
        # a loop or let variable's register -> what it runs over (or is bound to)
        self.binders: dict[int, ast.Node] = {}
        for node in all_nodes(checked.game):
            if isinstance(node, ast.ForEach | ast.Aggregate | ast.Let):
                slot = checked.slots.get(id(node))
                if slot is not None:
                    source = node.value if isinstance(node, ast.Let) else node.collection
                    self.binders.setdefault(slot, source)

    def strings(self, node: ast.Node, depth: int = 0) -> tuple[str, ...] | None:
        """A literal name or list of names, through declared constants, loop variables
        and filters; the card kinds for ``(attr KIND CARD)``; a deck attribute's values
        for ``(cardatt KEY CARD)``.  None when the names are computed some other way."""
        node = base_collection(node)
        checked = self.checked
        if isinstance(node, ast.Variable) and depth < 20:
            declare = checked.declares.get(id(node))
            if declare is not None:
                return self.strings(declare.value, depth + 1)
            binder = self.binders.get(checked.slots.get(id(node), -1))
            return None if binder is None else self.strings(binder, depth + 1)
        if isinstance(node, ast.StrList):
            return tuple(dict.fromkeys(node.values))
        if isinstance(node, ast.NameLiteral):
            return (node.value,)
        if isinstance(node, ast.Attr) and node.name == KIND_ATTRIBUTE:
            return tuple(checked.kinds)
        if isinstance(node, ast.CardAtt) and isinstance(node.key, ast.NameLiteral):
            values = checked.deck_attributes.get(node.key.value)
            return None if values is None else tuple(sorted(values))
        return None


def base_collection(node: ast.Node) -> ast.Node:
    """The collection a chain of filters starts from."""
    while isinstance(node, ast.Filter):
        node = node.collection
    return node


def may_hold(coll: ast.Node, attrs: Attributes) -> bool:
    """False when a filter of the collection surely rejects a card with ``attrs``."""
    while isinstance(coll, ast.Filter):
        if _static(coll.condition, coll.var, attrs) is False:
            return False
        coll = coll.collection
    return True


def _static(node: ast.Node, var: str, attrs: Attributes) -> Any:
    """The value of a filter's condition for a card with ``attrs`` bound to ``var``,
    where it reads nothing else; None when it cannot be known before the game."""
    if isinstance(node, ast.IntLiteral | ast.NameLiteral):
        return node.value
    if isinstance(node, ast.StrList):
        return node.values
    if isinstance(node, ast.Attr | ast.CardAtt) and _is_var(node.card, var):
        name = node.name if isinstance(node, ast.Attr) else _static(node.key, var, attrs)
        default = None if isinstance(node, ast.Attr) else ""
        return attrs.get(name, default) if isinstance(name, str) else None
    if isinstance(node, ast.Not):
        value = _static(node.operand, var, attrs)
        return None if value is None else not value
    if isinstance(node, ast.BoolOp):
        return _static_bool(node, var, attrs)
    if isinstance(node, ast.Compare | ast.Contains):
        return _static_compare(node, var, attrs)
    return None


def _static_bool(node: ast.BoolOp, var: str, attrs: Attributes) -> bool | None:
    values = [_static(o, var, attrs) for o in node.operands]
    decisive = node.op == "or"  # the value that settles the operation
    if any(v is decisive for v in values):
        return decisive
    return None if any(v is None for v in values) else not decisive


def _static_compare(node: ast.Compare | ast.Contains, var: str, attrs: Attributes) -> Any:
    if isinstance(node, ast.Contains):
        items, value = _static(node.items, var, attrs), _static(node.value, var, attrs)
        if items is None or value is None:
            return None
        return value in items
    left, right = _static(node.left, var, attrs), _static(node.right, var, attrs)
    if left is None or right is None or type(left) is not type(right):
        return None
    ops: dict[str, Callable[[Any, Any], bool]] = {
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        ">": lambda a, b: a > b,
        "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b,
    }
    op = ops.get(node.op)
    return None if op is None else op(left, right)


def _is_var(node: ast.Node, var: str) -> bool:
    return isinstance(node, ast.Variable) and node.name == var


def kind_attribute_tables(checked: CheckedGame) -> dict[str, dict[str, Any]]:
    """Per card kind, the attributes every card of it shares (one dict, never mutated):
    KIND, then every declared attribute, with the default of its type when not set."""
    defaults = {T.INT: 0, T.STR: "", T.STRS: ()}
    tables = {}
    for name, kind in checked.kinds.items():
        attrs: dict[str, Any] = {KIND_ATTRIBUTE: name}
        attrs.update(
            {a: defaults[t] for a, t in checked.kind_attribute_types.items() if a != KIND_ATTRIBUTE}
        )
        attrs.update({a.name: a.value for a in kind.attributes})
        tables[name] = attrs
    return tables


def state_names(checked: CheckedGame) -> set[str]:
    """The names of the storages and locations a game can have, where they are written
    as names (a name computed at run time is not among them)."""
    names = StaticNames(checked)
    found: set[str] = set()
    for node in all_nodes(checked.game):
        if isinstance(node, ast.Storage | ast.Location | ast.IndexedLocations):
            found.update(names.strings(node.name) or ())
    return found
