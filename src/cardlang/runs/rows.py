"""Checks of the rows read back from a records database: every value is untrusted.

Pipeline position: runs, under the store's parts (store_*.py), which check each row they read with a
``RowCheck`` before anything uses it.  A records file is the user's file: a hand edit,
another program or a damaged disk can leave any value in any column, and SQLite's
columns are typed loosely (a TEXT seed, a REAL count, a BLOB status all fit).  A value
of the wrong type, out of range or unknown is a usage error that names the file, the
table, the row and the column: never a traceback from deep in a replay, nor a game
silently skipped or counted as unplayed.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardlang.errors import I64_MAX, UsageError

#: The most characters of a bad value a message shows: the value may be huge or hostile.
SHOWN = 40


def shown(value: object) -> str:
    """A value as a message shows it: its repr, cut short, control characters escaped
    (repr escapes them), with its SQL type where that is the problem's point."""
    text = repr(value)
    if len(text) > SHOWN:
        text = text[: SHOWN - 3] + "..."
    kind = {str: "text", bytes: "a blob", float: "a real"}.get(type(value))
    return f"{text} ({kind})" if kind else text


@dataclass(frozen=True)
class RowCheck:
    """The checks of one row: ``table`` and ``row`` (its key, as a message says it)
    of the records database at ``path``.  Each check returns the value, of the type it
    names, or raises a UsageError naming the place and what was expected."""

    path: Path | str
    table: str
    row: object

    def fail(self, column: str, value: object, expected: str) -> UsageError:
        """The error of a value that is not what ``column`` holds."""
        return UsageError(
            f"{self.path}: table {self.table}, row {self.row}: column {column} holds "
            f"{shown(value)}, not {expected}; the records are damaged or were not "
            "written by cardlang"
        )

    def integer(self, column: str, value: object, low: int = 0, high: int = I64_MAX) -> int:
        """A whole number from ``low`` to ``high`` (a bool or a real is not one)."""
        if type(value) is not int or not low <= value <= high:
            raise self.fail(column, value, f"a whole number from {low:,} to {high:,}")
        return value

    def optional_integer(
        self, column: str, value: object, low: int = 0, high: int = I64_MAX
    ) -> int | None:
        return None if value is None else self.integer(column, value, low, high)

    def real(self, column: str, value: object, low: float = -math.inf) -> float:
        """A finite number, at least ``low`` (SQLite may hand back an int for a REAL)."""
        plain = isinstance(value, int | float) and not isinstance(value, bool)
        number = float(value) if plain else math.nan  # type: ignore[arg-type]  # NaN: refused
        if not math.isfinite(number) or number < low:
            expected = "a finite number" + (f" >= {low:g}" if low > -math.inf else "")
            raise self.fail(column, value, expected)
        return number

    def optional_real(self, column: str, value: object) -> float | None:
        return None if value is None else self.real(column, value)

    def text(self, column: str, value: object, known: Collection[str] | None = None) -> str:
        """Text, one of ``known`` where given."""
        if not isinstance(value, str):
            raise self.fail(column, value, "text")
        if known is not None and value not in known:
            raise self.fail(column, value, "one of " + ", ".join(sorted(known)))
        return value

    def optional_text(self, column: str, value: object) -> str | None:
        return None if value is None else self.text(column, value)

    def json(self, column: str, value: object, shape: JsonShape) -> Any:
        """JSON text whose value ``shape`` accepts (``shape.test``)."""
        text = self.text(column, value)
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError):  # nesting deeper than the parser's stack
            raise self.fail(column, value, f"JSON ({shape.name})") from None
        if not shape.test(decoded):
            raise self.fail(column, value, shape.name)
        return decoded

    def optional_json(self, column: str, value: object, shape: JsonShape) -> Any:
        return None if value is None else self.json(column, value, shape)


@dataclass(frozen=True)
class JsonShape:
    """What a JSON column must hold: ``name`` says it in a message, ``test`` checks it."""

    name: str
    test: Callable[[Any], bool]


def _is_int(value: object, low: int = -I64_MAX - 1, high: int = I64_MAX) -> bool:
    return type(value) is int and low <= value <= high


def _is_number(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def _list_of(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(test(v) for v in value)


#: The JSON columns of the records, by what they hold.
NAMES = JsonShape("a JSON list of text", _list_of(lambda v: isinstance(v, str)))
AGENTS = JsonShape(
    "a JSON list of agent specs, at least one",
    lambda v: NAMES.test(v) and len(v) >= 1,
)
SEATS = JsonShape("a JSON list of seat numbers", _list_of(lambda v: _is_int(v, 0)))
NUMBERS = JsonShape(
    "a JSON list of numbers or nulls", _list_of(lambda v: v is None or _is_number(v))
)
PARAMS = JsonShape(
    "a JSON object of names and values (text)",
    lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in (*v, *v.values())),
)
