"""The base of every AST class: ``Node``, whose one field is the ``span`` (a
``cardlang.errors.Span``) that lets any later stage point at the source.

The span takes no part in equality or the repr, and is keyword-only so that each
subclass lists its own fields positionally, in the order of its grammar rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardlang.errors import Span


@dataclass(frozen=True, slots=True)
class Node:
    span: Span = field(compare=False, repr=False, kw_only=True)
