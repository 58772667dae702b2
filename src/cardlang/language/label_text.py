"""The text written for a choice's options: ``(label "TEXT" CONDACT)`` and its placeholders.

Pipeline position: language layer.  The checker reports a bad placeholder with this
module (``check_label``); the engine's labels for people (cardlang.engine.labels) fill
one in with it (``branch_template``), so both read a text the same way.  A label is
only for people: the compilers never see it, and nothing that plays a game reads it.

A text is literal but for its placeholders, each between braces:

- ``{VAR}`` (or ``{'VAR}``): the value the option binds to 'VAR, a variable an ``any``
  or a ``let`` of the condact binds; a card by its name, a location by its top card's;
- ``{VAR.ATTRIBUTE}``: an attribute of the card 'VAR (or of the location's top card);
- ``{ATTRIBUTE}``: an attribute of the option's first bound card (or location's top card)
  when no variable of the condact has that name;
- ``{{`` and ``}}``: a brace.

Imports only ``cardlang.errors`` and other language modules.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

from cardlang.errors import Diagnostic, Span, did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.ast_facts import statement_children

#: What a placeholder may hold: a name, an optional quote, an optional ``.ATTRIBUTE``.
_NAME = r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*"
_PLACEHOLDER = re.compile(rf"('?)({_NAME})(?:\.({_NAME}))?")
#: Variable types whose value has attributes (a card, a location's top card).
CARD_LIKE = (T.CARD, T.LOC, T.MEMLOC)


@dataclass(frozen=True)
class Placeholder:
    """``{VAR}``, ``{VAR.ATTRIBUTE}`` or ``{ATTRIBUTE}`` once resolved: ``var`` None means
    the option's first bound card.  ``start``/``end``: where it is in the text, braces
    included."""

    var: str | None
    attribute: str | None
    start: int
    end: int


Part = str | Placeholder


@dataclass(frozen=True)
class _Raw:
    name: str
    attribute: str | None
    quoted: bool
    start: int
    end: int


def _split(text: str) -> tuple[list[str | _Raw], list[tuple[int, int, str, str | None]]]:
    """The literal pieces and placeholders of a text, and what is wrong with it
    (start, end, message, hint)."""
    parts: list[str | _Raw] = []
    problems: list[tuple[int, int, str, str | None]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "{}" and text[i + 1 : i + 2] == c:  # {{ or }}: a brace
            literal.append(c)
            i += 2
            continue
        if c == "}":
            problems.append((i, i + 1, "a '}' with no '{' in a label", "write }} for a brace"))
            i += 1
            continue
        if c != "{":
            literal.append(c)
            i += 1
            continue
        close = text.find("}", i + 1)
        if close < 0:
            problems.append(
                (i, len(text), "a '{' with no '}' in a label", "close the placeholder, or write {{")
            )
            break
        inside = text[i + 1 : close]
        m = _PLACEHOLDER.fullmatch(inside)
        if m is None:
            problems.append(
                (
                    i,
                    close + 1,
                    f"{{{inside}}} is not a placeholder",
                    "write {VAR}, {VAR.ATTRIBUTE} or {ATTRIBUTE} (upper-case names), "
                    "or {{ for a brace",
                )
            )
        else:
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(_Raw(m[2], m[3], bool(m[1]), i, close + 1))
        i = close + 1
    if literal:
        parts.append("".join(literal))
    return parts, problems


def branch_variables(condact: ast.Node, checked: object) -> dict[str, str]:
    """The variables an option of ``condact`` binds (its ``any`` forks and ``let``s, not
    those of the procedures it calls), with their types, in binding order."""
    slots: Mapping[int, int] = checked.slots  # type: ignore[attr-defined]
    types: Mapping[int, str] = checked.slot_types  # type: ignore[attr-defined]
    out: dict[str, str] = {}
    for node in _binders(condact):
        slot = slots.get(id(node))
        out.setdefault(node.var, types.get(slot, T.ANY) if slot is not None else T.ANY)
    return out


def _binders(node: ast.Node) -> Iterator[ast.ForEach | ast.Let]:
    if isinstance(node, ast.Let) or (isinstance(node, ast.ForEach) and node.quantifier == "any"):
        yield node
    if isinstance(node, ast.Choice):
        return
    for child in statement_children(node):
        yield from _binders(child)


def _resolve(
    parts: list[str | _Raw],
    variables: Mapping[str, str],
    attributes: Collection[str] | None,
) -> tuple[list[Part], list[tuple[int, int, str, str | None]]]:
    """Placeholders bound to a variable or an attribute, and what cannot be.
    ``attributes``: every card's attribute names (None: not known, anything goes)."""
    out: list[Part] = []
    problems: list[tuple[int, int, str, str | None]] = []
    cards = [v for v, t in variables.items() if t in CARD_LIKE or t == T.ANY]

    def known(attr: str) -> bool:
        return attributes is None or attr in attributes

    def bound(names: Collection[str]) -> str | None:
        if not names:
            return "this option binds no variable"
        return "this option binds " + ", ".join(f"'{n}" for n in names)

    for p in parts:
        if isinstance(p, str):
            out.append(p)
            continue
        where = (p.start, p.end)
        if p.attribute is not None or p.quoted:
            if p.name not in variables:
                problems.append(
                    (
                        *where,
                        f"label placeholder {{{p.name}}}: no variable '{p.name} is bound by "
                        "this option",
                        did_you_mean(p.name, variables) or bound(variables),
                    )
                )
                continue
            if p.attribute is not None and p.name not in cards:
                what = T.article(variables[p.name])
                problems.append(
                    (*where, f"label placeholder: '{p.name} is {what}, it has no attributes", None)
                )
                continue
            if p.attribute is not None and not known(p.attribute):
                problems.append(
                    (
                        *where,
                        f"label placeholder: no card has an attribute '{p.attribute}'",
                        did_you_mean(p.attribute, attributes or ()),
                    )
                )
                continue
            out.append(Placeholder(p.name, p.attribute, p.start, p.end))
        elif p.name in variables:
            out.append(Placeholder(p.name, None, p.start, p.end))
        elif attributes is not None and p.name in attributes:
            if not cards:
                problems.append(
                    (
                        *where,
                        f"label placeholder {{{p.name}}}: this option binds no card to read "
                        f"{p.name} of",
                        bound(variables),
                    )
                )
                continue
            out.append(Placeholder(None, p.name, p.start, p.end))
        elif attributes is None:
            out.append(Placeholder(None, p.name, p.start, p.end))
        else:
            problems.append(
                (
                    *where,
                    f"label placeholder {{{p.name}}} is neither a variable this option binds "
                    "nor a card attribute",
                    did_you_mean(p.name, [*variables, *attributes]) or bound(variables),
                )
            )
    return out, problems


def branch_template(
    label: ast.LabelText, condact: ast.Node, checked: object, attributes: Collection[str] | None
) -> tuple[Part, ...]:
    """The text of a condact's label as literal pieces and placeholders (a checked game's:
    a placeholder that cannot be resolved is left out)."""
    raw, _ = _split(label.text)
    parts, _ = _resolve(raw, branch_variables(condact, checked), attributes)
    return tuple(parts)


def _span_in(label: ast.LabelText, start: int, end: int) -> Span:
    """Where characters ``start:end`` of a label's text are (the text is one line, after
    its opening quote)."""
    return span_in_string(label.span, start, end)


def span_in_string(s: Span, start: int, end: int) -> Span:
    """Where characters ``start:end`` of a string literal at ``s`` are (one line, after
    its opening quote)."""
    if s.line == 0:
        return s
    return Span(
        s.line, s.column + 1 + start, s.line, s.column + 1 + end, s.start_pos + 1 + start,
        s.start_pos + 1 + end,
    )  # fmt: skip


def attribute_placeholders(
    text: str, attributes: Collection[str]
) -> list[tuple[int, int, str, str | None]]:
    """What is wrong with a text whose placeholders are the attributes ``attributes``
    only (a card kind's ``(text ...)``): (start, end, message, hint) each."""
    raw, problems = _split(text)
    for part in raw:
        if isinstance(part, str):
            continue
        if part.quoted or part.attribute is not None:
            problems.append(
                (part.start, part.end, "a card's text names only its own attributes",
                 "write {ATTRIBUTE}")
            )  # fmt: skip
        elif part.name not in attributes:
            hint = did_you_mean(part.name, attributes) or (
                f"its attributes are {', '.join(sorted(attributes))}"
            )
            problems.append((part.start, part.end, f"the card has no attribute {part.name}", hint))
    return sorted(problems)


def fill_attributes(text: str, attributes: Mapping[str, object]) -> str:
    """A card kind's text with its ``{ATTRIBUTE}`` placeholders filled in (a checked
    text: an unknown name is left as written)."""
    raw, _ = _split(text)
    return "".join(
        part if isinstance(part, str) else str(attributes.get(part.name, part.name)) for part in raw
    )


def check_label(
    label: ast.LabelText, condact: ast.Node, checked: object, attributes: Collection[str] | None
) -> list[Diagnostic]:
    """The errors of a condact's label: a malformed placeholder, a name that is no bound
    variable nor attribute, an attribute of what has none; each at its placeholder."""
    raw, problems = _split(label.text)
    _, unresolved = _resolve(raw, branch_variables(condact, checked), attributes)
    out = []
    for start, end, message, hint in sorted([*problems, *unresolved]):
        out.append(Diagnostic("error", message, _span_in(label, start, end), hint))
    if not label.text.strip():
        out.append(Diagnostic("error", "an empty label", label.span, "write what the option does"))
    return out


def labels_text(labels: Iterable[str]) -> str:
    """Labels as a phrase: "Check, Bet 1 or Fold" ("" for none; each once, in order)."""
    distinct = list(dict.fromkeys(label for label in labels if label))
    if len(distinct) < 2:
        return distinct[0] if distinct else ""
    return ", ".join(distinct[:-1]) + " or " + distinct[-1]
