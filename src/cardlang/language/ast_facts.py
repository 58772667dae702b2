"""Facts read off the AST alone, before or without types: the cards a deck description
makes (and how many, ``deck_size``; ``MAX_CARDS``, the most a game may hold, and
``static_cards``, what a statement surely creates), the statements inside a statement,
whether a statement can reach a decision, the value of an integer known before the
game, how a (create teams ...) numbers players.

Pipeline position: language layer, beside the AST; the checker uses these rules and the
compiler and the information layer share them (through ``cardlang.language.checker``,
which re-exports them), so that one question has one answer.  Imports only other
language modules.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cardlang.language import ast
from cardlang.language.checked_game import Procedure


def deck_cards(deck: ast.Deck) -> list[dict[str, str]]:
    """The cards a deck description makes: the product of its top-level dimensions."""
    cards: list[dict[str, str]] = [{}]
    for attr in deck.attributes:
        cards = [dict(c, **v) for c in cards for v in _dimension(attr)]
    return cards


#: The most cards one game may hold.  The checker refuses a creation whose size it
#: knows to be larger (a deck's cross product, a ``(create cards ...)`` count, a
#: ``(repeat N ...)`` of creations, the setup's total); both engines end a game that
#: would grow past it at run time with a rule error (cards made in play, counts
#: computed as the game goes).  A bound on memory: a card is about 100 bytes in the
#: engines, so a game stays within some megabytes however its file is written.
MAX_CARDS = 100_000


def deck_size(deck: ast.Deck) -> int:
    """How many cards ``deck_cards(deck)`` makes, counted without making them (a deck
    description may describe 40^8 cards: the checker refuses it before expanding it)."""
    size = 1
    for attr in deck.attributes:
        size *= _dimension_size(attr)
    return size


def count_text(n: int) -> str:
    """A count for a message: its digits, or its order of magnitude when they are many."""
    digits = str(n)
    return digits if len(digits) <= 20 else f"about 10^{len(digits) - 1}"


def _dimension_size(attr: ast.Attribute) -> int:
    total = 0
    for child in attr.children:
        if not child.children:
            total += len(child.names)
            continue
        subs = 1
        for sub in child.children:
            subs *= _dimension_size(sub)
        total += subs
    return total


def static_cards(node: ast.Node, lookup: object) -> int:
    """The cards a statement surely creates each time it runs, as far as the text tells
    (a deck, a ``(create cards ...)`` of a known count, a ``(repeat N ...)`` of those, a
    block of them); 0 where it cannot tell (a computed count, a guarded creation)."""
    if isinstance(node, ast.CreateDeck):
        return deck_size(node.deck) if isinstance(node.deck, ast.Deck) else 0
    if isinstance(node, ast.CreateCards):
        return max(static_int(node.count, lookup) or 0, 0)
    if isinstance(node, ast.Repeat):
        times = static_int(node.count, lookup)
        return max(times, 0) * static_cards(node.body, lookup) if times is not None else 0
    if isinstance(node, ast.Do):
        return sum(static_cards(item, lookup) for item in node.body)
    return 0


def _dimension(attr: ast.Attribute) -> list[dict[str, str]]:
    key = attr.names[0]
    values: list[dict[str, str]] = []
    for child in attr.children:
        if not child.children:
            values.extend({key: name} for name in child.names)
            continue
        subs: list[dict[str, str]] = [{}]
        for sub in child.children:
            subs = [dict(s, **v) for s in subs for v in _dimension(sub)]
        values.extend(dict({key: child.names[0]}, **s) for s in subs)
    return values


def children(node: ast.Node) -> Iterator[ast.Node]:
    """The AST nodes among ``node``'s fields (in tuples too), in field order."""
    for name in node.__dataclass_fields__:  # type: ignore[attr-defined]
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, ast.Node))


def descendants(node: ast.Node) -> Iterator[ast.Node]:
    """``node`` and every AST node under it."""
    yield node
    for child in children(node):
        yield from descendants(child)


def statement_children(node: ast.Node) -> list[ast.Node]:
    """The statements directly inside a statement (not its expressions)."""
    return [c for c in children(node) if type(c) in ast.STATEMENT_CLASSES]


def reaches_decision(node: ast.Node, procedures: Mapping[str, Procedure]) -> bool:
    """Whether running a statement can stop at a decision: it holds a choice or a stage,
    or calls a procedure known (in ``procedures``) to reach one."""
    if isinstance(node, ast.Choice | ast.Stage | ast.Simultaneous):
        return True
    if isinstance(node, ast.Call):
        proc = procedures.get(node.name)
        return proc is not None and proc.has_decision
    return any(reaches_decision(c, procedures) for c in statement_children(node))


def choices_in(node: ast.Node) -> Iterator[ast.Choice]:
    """Every choice written inside a statement, nested ones included."""
    if isinstance(node, ast.Choice):
        yield node
    for c in statement_children(node):
        yield from choices_in(c)


def simultaneous_in(node: ast.Node) -> Iterator[ast.Simultaneous]:
    """Every (simultaneous ...) block written inside a statement, nested ones included."""
    if isinstance(node, ast.Simultaneous):
        yield node
    for c in statement_children(node):
        yield from simultaneous_in(c)


def one_based_teams(n: ast.CreateTeams, nplayers: int | None) -> bool:
    """Teams listed as 1..N (newest CardStock) rather than 0..N-1 (RECYCLE 0.5.10)."""
    listed = {p for team in n.teams for p in team}
    return nplayers is not None and 0 not in listed and nplayers in listed


def static_int(node: ast.Node, lookup: object) -> int | None:
    """The value of an integer known before the game starts (a literal or a constant)."""
    if isinstance(node, ast.IntLiteral):
        return node.value
    if isinstance(node, ast.Variable) and callable(lookup):
        binding = lookup(node.name)
        if binding is not None and binding.declare is not None:
            return static_int(binding.declare.value, lookup)
    return None
