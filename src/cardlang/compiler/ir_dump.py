"""The IR as text, for people debugging the native engine (``cardlang describe --ir``).

Pipeline position: compiler, beside ir.py, whose tables it reads (nothing else).  As
clox's debug.c prints a chunk, this prints what the VM is given: each part of the
program (the declared values and setup, the body, the scoring, the table score, the end
forms, every procedure) as a tree of nodes, one line each::

    #0412 STAGE           boolean     p0=0                     66:2
      #0398 OR            boolean                              66:14  end
        #0391 COMPARE     boolean     p0=== p1=0               66:18

A node shows its number, its op, the type the checker gave it, its parameters (the
nonzero ones, a string or a list written out where the op names one), its flags, and
the line and column of its source.  A node reached twice (a declared expression used in
several places) is printed in full once, then as ``#N (above)``.
"""

from __future__ import annotations

from collections.abc import Iterator

from cardlang.compiler.ir import (
    ARITH_OPS,
    COMPARE_OPS,
    FIXED,
    HAS_DECISION,
    IR,
    LOCATION_KINDS,
    OPS,
    PURE,
    TYPES,
)
from cardlang.language import types as T

__all__ = ["dump_ir"]

#: Ops whose p0 is a string index (a name), written as the string.
_P0_STRING = {"STR", "ATTR", "TOTAL", "CHOICE"}
#: Ops whose p0 is an index into ``lists`` (of strings), written out.
_P0_STRINGS = {"STRLIST"}
#: Ops whose p0 is a location kind.
_P0_KIND = {"LOCATION", "INDEXED"}
#: Ops whose p0 is shown even when 0 (it names something: "==", "+", vloc, string 0).
_P0_ALWAYS = _P0_STRING | _P0_KIND | {"ARITH", "COMPARE"}
_FLAG_NAMES = ((HAS_DECISION, "decision"), (PURE, "pure"), (FIXED, "fixed"))
_KIDS_AT = 8  # (op, type, span, flags, p0, p1, p2, p3, *kids)
#: Each type by its short name in language/types.py (INT, CARDS, ...), lower case.
_TYPE_NAMES = [
    next((k.lower() for k, v in vars(T).items() if k.isupper() and v == t), t) for t in TYPES
]


def dump_ir(ir: IR, source_name: str = "") -> str:
    """The whole IR as text (see the module docstring)."""
    return "\n".join(_lines(ir, source_name))


def _lines(ir: IR, source_name: str) -> Iterator[str]:
    yield (
        f"IR version {ir.version} of {source_name or 'a game'}: {ir.nplayers} players, "
        f"{len(ir.nodes)} nodes, {len(ir.strings)} strings, {len(ir.lists)} lists, "
        f"{len(ir.kinds)} card kinds, {len(ir.procedures)} procedures, "
        f"{ir.n_registers} registers"
    )
    seen: set[int] = set()
    yield "\nsetup (declared values first):"
    for node in ir.setup:
        yield from _tree(ir, node, 1, seen)
    yield "\nbody:"
    yield from _tree(ir, ir.program, 1, seen)
    yield "\nscoring:"
    for mode, node in ir.scoring:
        yield f"  {'max' if mode else 'min'}"
        yield from _tree(ir, node, 2, seen)
    if ir.table_score >= 0:
        yield "\ntable score:"
        yield from _tree(ir, ir.table_score, 1, seen)
    if ir.ending:
        yield "\nend reasons, then score parts:"
        for node in ir.ending:
            yield from _tree(ir, node, 1, seen)
    for procedure in ir.procedures:
        slots = ", ".join(str(s) for s in procedure.param_slots)
        traits = ["recursive"] * procedure.recursive + ["decision"] * procedure.has_decision
        yield (
            f"\nprocedure {ir.strings[procedure.name]} (parameters in slots {slots or '-'}; "
            f"registers {procedure.low}-{procedure.high})" + "".join(f" {t}" for t in traits)
        )
        yield from _tree(ir, procedure.default, 1, seen)
        for kind, body in procedure.hooks:
            yield f"  on {ir.strings[kind]}:"
            yield from _tree(ir, body, 2, seen)


def _tree(ir: IR, node: int, depth: int, seen: set[int]) -> Iterator[str]:
    """``node`` and its children, depth first, one line each (iteratively: a deep
    program must not exhaust Python's stack)."""
    stack = [(node, depth)]
    while stack:
        at, level = stack.pop()
        indent = "  " * level
        if at < 0:
            yield f"{indent}-"
            continue
        if at in seen:
            yield f"{indent}#{at:04d} (above)"
            continue
        seen.add(at)
        yield indent + _node_line(ir, at, len(indent))
        kids = ir.nodes[at][_KIDS_AT:]
        stack.extend((kid, level + 1) for kid in reversed(kids))


def _node_line(ir: IR, at: int, indent: int) -> str:
    op, type_, span, flags, *params = ir.nodes[at][:_KIDS_AT]
    name = OPS[op]
    head = f"#{at:04d} {name}".ljust(max(1, 26 - indent))
    shown = _params(ir, name, params)
    flagged = [word for bit, word in _FLAG_NAMES if flags & bit]
    where = ir.spans[span] if 0 <= span < len(ir.spans) else None
    place = f"{where.line}:{where.column}" if where is not None and where.line else ""
    return f"{head} {_TYPE_NAMES[type_]:<8} {' '.join(shown + flagged):<30} {place}".rstrip()


def _params(ir: IR, op: str, params: list[int]) -> list[str]:
    """The nonzero parameters, a name written as its string where the op has one."""
    shown = []
    for k, value in enumerate(params):
        if not value and not (k == 0 and op in _P0_ALWAYS):
            continue
        text = str(value)
        if k == 0 and op in _P0_STRING and 0 <= value < len(ir.strings):
            text = repr(ir.strings[value])
        elif k == 0 and op in _P0_STRINGS and 0 <= value < len(ir.lists):
            text = "(" + ", ".join(ir.strings[s] for s in ir.lists[value]) + ")"
        elif k == 0 and op in _P0_KIND and 0 <= value < len(LOCATION_KINDS):
            text = LOCATION_KINDS[value]
        elif k == 0 and op == "ARITH" and 0 <= value < len(ARITH_OPS):
            text = ARITH_OPS[value]
        elif k == 0 and op == "COMPARE" and 0 <= value < len(COMPARE_OPS):
            text = COMPARE_OPS[value]
        shown.append(f"p{k}={text}")
    return shown
