"""The work budgets: how much a game may do between two decisions, and in all.

Pipeline position: engine, beside runtime.py (whose helpers charge it) and gamemaster.py
(which opens one per call of ``new_game`` or ``apply``).  The native engine keeps the
same account (native/src/vm.h: VM::charge); both must charge the same amounts at the
same places, in the same order, so that a game over budget fails at the same spot on
both.  docs/language.md ("Work") says what costs what.

The step limit (``Limits.max_steps``) counts statements; this counts the work inside one
of them: the elements an aggregate, a filter, a loop statement or a choice's ``any``
loops over, the passes of a ``while`` or a ``repeat``, the cards every operation that
reads a whole collection reads (sort, the set operations, partition, sum ...), the
groups ``tuples``, ``runs`` and ``subsets`` would build (charged before they are built,
so the budget bounds memory too), the routes ``longest-path`` takes.  Going past it is a
rule error at the expression that did.  The game keeps an account too (``Gamestate.work``,
``Limits.max_game_work``): every unit charged and every step the flow takes, so that a
game of many decisions is bounded as well.

Only the engine's own running is charged: an expression evaluated for a view, a label
or a score between decisions finds no budget open (``Gamestate.budget`` is None) and
costs nothing, so looking at a game never changes it.
"""

from __future__ import annotations

from typing import Any

from cardlang.errors import RuleError, Span

#: Units of work allowed from one decision to the next (``Limits.max_work``, --max-work);
#: native/src/program.h: DEFAULT_MAX_WORK.  No game of ours or of the CardStock corpus
#: comes near it (docs/language.md, "Work", gives the figures).
DEFAULT_MAX_WORK = 10_000_000
#: Units of work allowed in a whole game, its steps included (``Limits.max_game_work``,
#: --max-game-work; native/src/program.h: DEFAULT_MAX_GAME_WORK): a budget per decision
#: alone lets a game of 5,000 decisions do 5,000 times as much.
DEFAULT_MAX_GAME_WORK = 10_000_000
#: A game whose memory ran out (what the budgets allow did not fit in the machine) fails
#: with this rule error, not the program (native: out_of_memory in vm_exec.cpp).
OUT_OF_MEMORY = (
    "the game ran out of memory: a smaller --max-work or --max-game-work stops it sooner"
)


class WorkBudget:
    """The work left in one call of ``new_game`` or ``apply``, and the game's account
    (``Gamestate.work``, kept in the state ``game`` the call plays).  Clones of the state
    made while it runs (a choice's listing materializes some) share it, and charge that
    state's account."""

    __slots__ = ("left", "limit", "game", "game_limit")

    def __init__(self, limit: int, game_limit: int, game: Any) -> None:
        self.limit = limit
        self.left = limit
        self.game = game
        self.game_limit = game_limit

    def charge(self, amount: int, span: Span, what: str) -> None:
        if amount > self.left:
            raise over_budget(self.limit, span, what)
        game = self.game
        if game.work + amount > self.game_limit:
            raise over_game_budget(self.game_limit, span, what)
        self.left -= amount
        game.work += amount

    def room(self) -> int:
        """The most that may still be charged now (a search that counts as it goes)."""
        return max(0, min(self.left, self.game_limit - self.game.work))

    def passed(self, span: Span, what: str) -> RuleError:
        """The error of work past ``room()``: the decision's budget's, if it is the
        smaller, else the game's (native: VM::over_room)."""
        if self.left <= self.game_limit - self.game.work:
            return over_budget(self.limit, span, what)
        return over_game_budget(self.game_limit, span, what)


def over_budget(limit: int, span: Span, what: str) -> RuleError:
    """The rule error of an expression that passes the budget (native: VM::over_budget)."""
    return RuleError(
        f"{what} passes the work budget of {limit} units since the last decision (--max-work)",
        span,
    )


def over_game_budget(limit: int, span: Span, what: str) -> RuleError:
    """The rule error of a game whose work in all passes its budget, at the expression
    (or, for its steps, the decision) that did (native: VM::over_game_budget)."""
    return RuleError(
        f"{what} passes the game's work budget of {limit} units (--max-game-work)", span
    )


def check_game_work(st: Any, limit: int) -> None:
    """At a decision: the game's work, its steps included, within ``limit`` (its steps
    are counted as they run, and checked here: a step is no expression to blame;
    native: VM::check_game_work)."""
    if st.work > limit:
        raise RuleError(
            f"the game's work passes its budget of {limit} units before this decision "
            "(--max-game-work)",
            st.pending.span,
        )
