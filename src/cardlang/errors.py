"""User-facing errors: positioned diagnostics for game files, rule errors at run time.

Pipeline position: the bottom of the package; every layer imports it and it imports no
other cardlang module.  It holds source positions (``Span``, ``SourceFile``), message
rendering with a caret, and the did-you-mean helpers.

Every stage of the pipeline reports problems in a game file as ``Diagnostic`` values
(collected, never raised one by one); ``GameFileError`` carries all of them out of
``load_game``.  ``RuleError`` is what the interpreter raises when a game breaks its own
rules while playing (a choice with no option, a move from an empty location); the
Gamemaster catches it and ends that game as failed.  ``AgentError`` is an agent's
failure (an exception, an illegal answer), which fails its game the same way in a
batch.  Anything else that escapes is a bug of ours: the CLI reports it as an internal
error (a traceback with ``--debug``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based line and column of its first and last character."""

    line: int
    column: int
    end_line: int
    end_column: int
    start_pos: int = 0
    end_pos: int = 0

    @staticmethod
    def unknown() -> Span:
        return Span(0, 0, 0, 0)


@dataclass(frozen=True)
class SourceFile:
    """The text of a game file and the name to show for it."""

    name: str
    text: str

    def snippet(self, span: Span, width: int = 70) -> str:
        """The source text of a span on one line, shortened to ``width`` characters."""
        text = " ".join(self.text[span.start_pos : span.end_pos].split())
        return text if len(text) <= width else text[: width - 3] + "..."

    def line(self, number: int) -> str:
        lines = self._lines
        return lines[number - 1] if 1 <= number <= len(lines) else ""

    @cached_property
    def _lines(self) -> list[str]:
        # split once: a file with thousands of diagnostics asks for a line each time
        return self.text.splitlines()


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place: ``file:line:col: error: message`` plus an optional hint."""

    severity: str  # "error" or "warning"
    message: str
    span: Span
    hint: str | None = None
    notes: tuple[tuple[str, Span], ...] = field(default=())

    def render(self, source: SourceFile | None) -> str:
        """The message as a compiler prints it: position, source line, caret, hint."""
        name = source.name if source else "<game>"
        head = f"{name}:{self.span.line}:{self.span.column}: {self.severity}: {self.message}"
        parts = [head]
        if source is not None and self.span.line > 0:
            parts.extend(_caret_lines(source, self.span))
        for text, span in self.notes:
            parts.append(f"{name}:{span.line}:{span.column}: note: {text}")
            if source is not None and span.line > 0:
                parts.extend(_caret_lines(source, span))
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)


#: The most of a source line shown under a message, and how much of it comes before the
#: caret: a long line (a generated or minified file) is shown as a window around the
#: spot, so each message costs the same whatever the line's length.
LINE_WINDOW = 160
WINDOW_BEFORE = 60


def _caret_lines(source: SourceFile, span: Span) -> list[str]:
    text = source.line(span.line).expandtabs(1)
    start = max(span.column - 1, 0)
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    else:
        width = max(len(text.rstrip()) - start, 1)
    width = max(1, min(width, max(len(text) - start, 1)))
    if len(text) > LINE_WINDOW:
        first = min(max(start - WINDOW_BEFORE, 0), max(len(text) - LINE_WINDOW, 0))
        last = first + LINE_WINDOW
        head = "..." if first > 0 else ""
        tail = "..." if last < len(text) else ""
        text = head + text[first:last] + tail
        start = start - first + len(head)
        width = max(1, min(width, LINE_WINDOW - (start - len(head))))
    gutter = f"{span.line:>5} | "
    return [gutter + text, " " * len(gutter) + " " * start + "^" + "~" * (width - 1)]


class CardlangError(Exception):
    """Base of every error cardlang reports to a user (no traceback unless --debug)."""


class GameFileError(CardlangError):
    """A game file has errors; ``diagnostics`` holds all of them, in source order."""

    def __init__(self, source: SourceFile, diagnostics: Iterable[Diagnostic]) -> None:
        self.source = source
        self.diagnostics = sorted(
            diagnostics, key=lambda d: (d.span.line, d.span.column, d.message)
        )
        super().__init__(self.render())

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def render(self) -> str:
        shown = _shown(self.diagnostics)
        body = "\n".join(d.render(self.source) for d in shown)
        n = len(self.errors)
        hidden = len(self.diagnostics) - len(shown)
        if hidden:
            body += (
                f"\n... and {hidden} more (at most {PER_LINE} per line and {IN_ALL} in all "
                "are shown)"
            )
        return f"{body}\n{n} error{'s' if n != 1 else ''} in {self.source.name}"


#: Diagnostics shown per source line and in all: the first ones name the problem, and a
#: file with thousands of errors (a binary, a generated file) prints a bounded report.
PER_LINE = 3
IN_ALL = 50


def _shown(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    per_line: dict[int, int] = {}
    shown: list[Diagnostic] = []
    for d in diagnostics:
        if len(shown) == IN_ALL:
            break
        count = per_line.get(d.span.line, 0)
        if count < PER_LINE:
            per_line[d.span.line] = count + 1
            shown.append(d)
    return shown


class RuleError(CardlangError):
    """The game broke its own rules while playing; the game ends as failed.

    ``turn`` and ``seed`` are filled in by the Gamemaster, which knows them.
    """

    def __init__(self, message: str, span: Span | None = None) -> None:
        self.message = message
        self.span = span or Span.unknown()
        self.turn: int | None = None
        self.seed: int | None = None
        self.source: SourceFile | None = None
        super().__init__(message)

    def kind(self) -> str:
        """A short key that groups errors of the same kind at the same place."""
        return f"{self.span.line}:{self.span.column}: {self.message.split(':')[0]}"

    def render(self, *, with_seed: bool = True) -> str:
        """The error with its place, turn and (``with_seed``) the seed that replays it:
        a page a player sees is shown none, since the deal follows from it."""
        name = self.source.name if self.source else "<game>"
        where = f"{name}:{self.span.line}:{self.span.column}"
        context = []
        if self.turn is not None:
            context.append(f"turn {self.turn}")
        if self.seed is not None and with_seed:
            context.append(f"seed {self.seed}")
        head = f"{where}: rule error: {self.message}"
        if context:
            head += f" ({', '.join(context)})"
        lines = [head]
        if self.source is not None and self.span.line > 0:
            lines.extend(_caret_lines(self.source, self.span))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


#: The language's integers: checked 64-bit.  A result outside this range is a rule error
#: (``overflow``), the same on both engines (docs/language.md, "Integers").
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def overflow(what: str, span: Span) -> RuleError:
    """The rule error of an integer result outside the 64-bit range (native/src/vm_eval.cpp
    words it the same)."""
    return RuleError(f"integer overflow: {what} is outside the 64-bit range", span)


class TrainingDiverged(CardlangError):
    """A training step's loss was NaN or infinite: the step is not taken, nothing more
    is saved, and the run folder keeps the checkpoint of the last whole round."""


def check_loss(loss: Any, where: str) -> None:
    """Raise TrainingDiverged unless ``loss`` (a scalar tensor or number) is finite."""
    value = float(loss.detach() if hasattr(loss, "detach") else loss)
    if value != value or value in (float("inf"), float("-inf")):
        raise TrainingDiverged(
            f"the loss of {where} is {value}: training diverged. The run folder keeps the "
            "model and checkpoint of its last whole round; go on from its model.pt with "
            "--init in a new run folder and a lower --lr"
        )


class UsageError(CardlangError):
    """A bad command-line argument or API call."""


class AgentError(UsageError):
    """An agent failed: it raised an exception, answered something that names no legal
    option, left a trace that does not fit, or could not be made.  Agents are untrusted
    code: the play loop (``cardlang.agents.loop.play_out``) is the one place that turns
    whatever an agent does wrong into this error, with where it happened; a batch ends
    that game as failed (its result's ``error``) and goes on, a single game reports it.

    ``reason`` says what went wrong; ``agent`` (its spec or name), ``seat``, ``seed``,
    ``turn`` and ``situation`` (the decision's name) say where, each None where unknown;
    ``details`` is the agent's traceback as text (so that it crosses a process boundary
    unchanged), shown with ``--debug`` only.
    """

    def __init__(
        self,
        reason: str,
        *,
        agent: str | None = None,
        seat: int | None = None,
        seed: int | None = None,
        turn: int | None = None,
        situation: str | None = None,
        details: str = "",
    ) -> None:
        self.reason = reason
        self.agent = agent
        self.seat = seat
        self.seed = seed
        self.turn = turn
        self.situation = situation
        self.details = details
        super().__init__(reason)

    def kind(self) -> str:
        """A short key that groups failures alike (``agent P1: raised ValueError``)."""
        where = f"agent P{self.seat}" if self.seat is not None else "agent"
        return f"{where}: {self.reason.split(':')[0]}"

    def render(self, debug: bool = False, *, with_seed: bool = True) -> str:
        """One line naming the agent, its seat, what it did and where (the situation,
        turn and, ``with_seed``, the seed that replay it); with ``debug``, the agent's
        traceback below."""
        who = f"agent {self.agent!r}" if self.agent else "an agent"
        if self.seat is not None:
            who += f" (P{self.seat})"
        context = [
            f"{name} {value}"
            for name, value in (
                ("situation", self.situation),
                ("turn", self.turn),
                ("seed", self.seed if with_seed else None),
            )
            if value is not None
        ]
        text = self.reason if self.agent is None and self.seat is None else f"{who}: {self.reason}"
        text += f" ({', '.join(context)})" if context else ""
        if debug and self.details:
            text += "\n" + self.details.rstrip()
        return text

    def __str__(self) -> str:
        return self.render()


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``name`` (a likely typo of it), or None."""
    pool = sorted(set(candidates) - {name})
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in pool}
        close = [lowered[name.lower()]] if name.lower() in lowered else []
    return close[0] if close else None


def did_you_mean(name: str, candidates: Iterable[str], prefix: str = "") -> str | None:
    """'did you mean X?' for the closest candidate, or None if nothing is close."""
    match = closest(name, candidates)
    return f"did you mean '{prefix}{match}'?" if match else None
