"""The work budget: how much an expression may do between two decisions.

Pipeline position: engine, beside runtime.py (whose helpers charge it) and gamemaster.py
(which opens one per call of ``new_game`` or ``apply``).  The native engine keeps the
same account (native/src/vm.h: VM::charge); both must charge the same amounts at the
same places, in the same order, so that a game over budget fails at the same spot on
both.  docs/language.md ("Work") says what costs what.

The step limit (``Limits.max_steps``) counts statements; this counts the work inside one
of them: the elements an aggregate, a filter or a choice's ``any`` loops over, the
groups ``tuples``, ``runs`` and ``subsets`` would build (charged before they are built,
so the budget bounds memory too), the routes ``longest-path`` takes.  Going past it is a
rule error at the expression that did.

Only the engine's own running is charged: an expression evaluated for a view, a label
or a score between decisions finds no budget open (``Gamestate.budget`` is None) and
costs nothing, so looking at a game never changes it.
"""

from __future__ import annotations

from cardlang.errors import RuleError, Span

#: Units of work allowed from one decision to the next (``Limits.max_work``, --max-work);
#: native/src/program.h: DEFAULT_MAX_WORK.  No game of ours or of the CardStock corpus
#: comes near it (docs/language.md, "Work", gives the figures).
DEFAULT_MAX_WORK = 10_000_000


class WorkBudget:
    """The work left in one call of ``new_game`` or ``apply``.  Clones of the state made
    while it runs (a choice's listing materializes some) share it."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def charge(self, amount: int, span: Span, what: str) -> None:
        if amount > self.left:
            raise over_budget(self.limit, span, what)
        self.left -= amount


def over_budget(limit: int, span: Span, what: str) -> RuleError:
    """The rule error of an expression that passes the budget (native: VM::over_budget)."""
    return RuleError(
        f"{what} passes the work budget of {limit} units since the last decision (--max-work)",
        span,
    )
