"""The run-time library of generated code: the helpers compiled expressions and
statements call, and the globals they run with.

Pipeline position: engine.  The compiler (``cardlang.compiler``) emits Python source that
names these helpers (``_top(z)``, ``_best(st, cards, pm, True)`` ...); the code runs with
``RUNTIME`` as its globals, so these names and an allow-list of builtins are all it can
reach.  Each helper is what one form needs when it cannot be inline code: it may raise a
``RuleError`` at a span, or draw from the game's RNG.
"""

from __future__ import annotations

import builtins
import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from cardlang.engine import collections as ops
from cardlang.engine.frames import F_CUR, F_TEAM
from cardlang.engine.points import EMPTY_POINTS, PointMap
from cardlang.engine.state import (
    Gamestate,
    current_player,
    current_team,
    next_in_cycle,
    next_player,
    previous_in_cycle,
    previous_player,
    rand_below,
)
from cardlang.errors import I64_MAX, I64_MIN, RuleError, overflow
from cardlang.language import ast
from cardlang.language.ast_facts import MAX_CARDS

Fn = Callable[[Gamestate], Any]
EMPTY: tuple[int, ...] = ()


# ---------------------------------------------------------------- helpers
# Called from generated code for the forms that need statements or may raise.


def _top(z: Sequence[Any]) -> Any:
    return z[-1] if z else None


def _bottom(z: Sequence[Any]) -> Any:
    return z[0] if z else None


def _nth(z: Sequence[Any], i: int, span: ast.Span) -> Any:
    if i < 0:
        raise RuleError(f"position {i} is negative", span)
    return z[i] if i < len(z) else None


def _top_n(st: Gamestate, z: Sequence[Any], n: int, span: ast.Span) -> Sequence[Any]:
    _charge(st, min(n, len(z)), span, "(top ...)")  # the cards copied
    return z[-n:] if n > 0 and z else EMPTY


def _bottom_n(st: Gamestate, z: Sequence[Any], n: int, span: ast.Span) -> Sequence[Any]:
    _charge(st, min(n, len(z)), span, "(bottom ...)")
    return z[:n] if n > 0 and z else EMPTY


def _best(st: Gamestate, cards: Sequence[int], pm: PointMap, want_max: bool, span: ast.Span) -> Any:
    _charge(st, len(cards), span, "(max ...)" if want_max else "(min ...)")
    if not cards:
        return None
    table = st.cards
    scores = [pm.score(table[c]) for c in cards]
    target = max(scores) if want_max else min(scores)
    tied = [c for c, s in zip(cards, scores, strict=True) if s == target]
    # CardStock breaks ties non-uniformly; we draw uniformly from the game's RNG.
    return tied[0] if len(tied) == 1 else tied[rand_below(st, len(tied))]


def _sum(st: Gamestate, cards: Sequence[int], pm: PointMap, span: ast.Span) -> int:
    _charge(st, len(cards), span, "(sum ...)")
    table = st.cards
    return _checked_sum(sum(pm.score(table[c]) for c in cards), "(sum ...)", span)


def _score(st: Gamestate, card: Any, pm: PointMap) -> int:
    return 0 if card is None else pm.score(st.cards[card])


def _scorer(st: Gamestate, pm: PointMap) -> Callable[[int], int]:
    table = st.cards
    return lambda c: pm.score(table[c])


def _nth_player(st: Gamestate, i: int, span: ast.Span) -> int:
    if not 0 <= i < st.nplayers:
        raise RuleError(f"there is no player {i} (players are 0..{st.nplayers - 1})", span)
    return i


def _nth_team(st: Gamestate, i: int, span: ast.Span) -> int:
    if not 0 <= i < len(st.teams):
        raise RuleError(f"there is no team {i}", span)
    return i


def _team_members(st: Gamestate, i: int, span: ast.Span) -> tuple[int, ...]:
    """The players of team ``i``: a team bound before ``create teams`` regrouped the
    players may no longer exist (the native engine says the same, vm_eval.cpp)."""
    if not 0 <= i < len(st.teams):
        raise RuleError(f"there is no team {i} now (create teams regrouped the players)", span)
    return st.teams[i]


def _relative_team(st: Gamestate, step: int) -> int:
    frame = st.stack[st.stage_idx]
    if frame[F_TEAM]:  # a team stage cycles over teams
        return next_in_cycle(st) if step > 0 else previous_in_cycle(st)
    return (st.team_of[frame[F_CUR]] + step) % len(st.teams)


def _owner_of(st: Gamestate, card: Any, span: ast.Span) -> int:
    if card is None:
        raise RuleError("(owner ...) of a card in an empty location", span)
    owner: int = st.card_zone[card][0]
    if owner < 0:
        raise RuleError("(owner ...) of a card that no player holds", span)
    return owner


def _other_players(st: Gamestate) -> list[int]:
    me = current_player(st)
    return [p for p in range(st.nplayers) if p != me]


def _other_teams(st: Gamestate) -> list[int]:
    mine = current_team(st)
    return [t for t in range(len(st.teams)) if t != mine]


def _gather(parts: Sequence[tuple[bool, Sequence[Any]]]) -> list[Sequence[int]]:
    out: list[Sequence[int]] = []
    for nested, value in parts:
        if nested:
            out.extend(value)
        else:
            out.append(value)
    return out


def _flatten(groups: Sequence[Sequence[int]]) -> list[int]:
    return [c for group in groups for c in group]


def _subsets(st: Gamestate, cards: Sequence[int], span: ast.Span) -> list[tuple[int, ...]]:
    n = len(cards)
    if n > ops.MAX_SUBSET_CARDS:
        raise RuleError(
            f"(subsets ...) of {n} cards would make {2**n} collections; "
            f"the limit is {ops.MAX_SUBSET_CARDS} cards ({2**ops.MAX_SUBSET_CARDS} subsets)",
            span,
        )
    # 2^n collections holding n 2^(n-1) cards
    _charge(st, 2**n + (n << (n - 1) if n else 0), span, "(subsets ...)")
    return ops.subsets(cards)


# ---------------------------------------------------------------- the work budget
# (engine/work.py): what the generated code charges, in the order the native engine does


def _charge(st: Gamestate, amount: int, span: ast.Span, what: str) -> None:
    budget = st.budget
    if budget is not None and amount > 0:
        budget.charge(amount, span, what)


def _charger(st: Gamestate, span: ast.Span, what: str) -> Callable[[int], None] | None:
    """For ops that count their work as they go: charge(amount), or None (no budget)."""
    budget = st.budget
    if budget is None:
        return None
    return lambda amount: budget.charge(amount, span, what) if amount > 0 else None


def charge_passes(st: Gamestate, items: Sequence[Any], span: ast.Span, what: str) -> Sequence[Any]:
    """``items``, after one unit of work per element is charged: an aggregate's, a
    filter's or a choice's (any ...) loop (not one over all players or teams)."""
    _charge(st, len(items), span, what)
    return items


_passes = charge_passes  # the generated code's name
charge_work = _charge  # the statements' name (compiler/control_flow.py, moves.py)


def _reads(st: Gamestate, items: Sequence[Any], span: ast.Span, what: str) -> Sequence[Any]:
    """``items``, after one unit per element is charged: what an operation that reads a
    whole collection (sort, a set operation, sum ...) costs, charged before it reads it."""
    _charge(st, len(items), span, what)
    return items


def _joined(st: Gamestate, groups: Sequence[Sequence[Any]], span: ast.Span, what: str) -> Any:
    """``groups``, after one unit per card in them is charged (union, intersect,
    disjunction: charged once every part is evaluated, before they are combined)."""
    _charge(st, sum(map(len, groups)), span, what)
    return groups


def _group(st: Gamestate, group: Sequence[Any], span: ast.Span) -> Sequence[Any]:
    """One group of (all COLL 'V CARDS), after one unit per card in it is charged (the
    native engine copies each group: this bounds its memory)."""
    _charge(st, len(group), span, "(all ...)")
    return group


def reference_room(st: Gamestate, span: ast.Span) -> None:
    """(remember ...): one unit, and refused when the game already holds MAX_CARDS cards
    and references together: a reference costs memory as a card does, and a game may
    have many mem locations (per player, per team, indexed), so no bound per location
    bounds the game.  The caller counts the reference in ``st.refs`` once it is placed."""
    if len(st.cards) + st.refs >= MAX_CARDS:
        raise RuleError(
            f"the game holds {len(st.cards)} cards and {st.refs} references: no more may be "
            f"remembered (a game holds at most {MAX_CARDS} cards and references together)",
            span,
        )
    _charge(st, 1, span, "(remember ...)")


def _tuples(st: Gamestate, cards: Sequence[int], score: ops.Score, n: int, span: ast.Span) -> Any:
    return ops.tuples(cards, score, n, _charger(st, span, "(tuples ...)"))


def _runs(
    st: Gamestate, cards: Sequence[int], score: ops.Score, n: int, mode: str, span: ast.Span
) -> Any:
    return ops.runs(cards, score, n, mode, _charger(st, span, "(runs ...)"))


def _longest_trail(st: Gamestate, edges: Sequence[ops.Route], span: ast.Span) -> int:
    budget = st.budget
    try:
        best, taken = ops.search_trails(edges, None if budget is None else budget.room())
    except ops.TooMuchWork:
        assert budget is not None
        raise budget.passed(span, "(longest-path ...)") from None
    _charge(st, taken, span, "(longest-path ...)")
    if not I64_MIN <= best <= I64_MAX:
        raise overflow("(longest-path ...)", span)
    return best


def _random(st: Gamestate, lo: int, hi: int, span: ast.Span) -> int:
    if hi < lo:
        raise RuleError(f"(random {lo} .. {hi}) is an empty range", span)
    return lo + rand_below(st, hi - lo + 1)


def _divide(op: str, x: int, y: int, span: ast.Span) -> int:
    """Integer division and remainder as CardStock's C# does them: truncating toward zero.
    (// MIN -1) is the one quotient outside the 64-bit range; (% MIN -1) is 0."""
    if y == 0:
        raise RuleError(f"({op} {x} 0): division by zero", span)
    quotient = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
    if op == "//":
        return _in_range(quotient, op, x, y, span)
    return x - quotient * y


def _in_range(value: int, op: str, x: int, y: int, span: ast.Span) -> int:
    if I64_MIN <= value <= I64_MAX:
        return value
    raise overflow(f"({op} {x} {y})", span)


def _add(x: int, y: int, span: ast.Span) -> int:
    return _in_range(x + y, "+", x, y, span)


def _sub(x: int, y: int, span: ast.Span) -> int:
    return _in_range(x - y, "-", x, y, span)


def _mul(x: int, y: int, span: ast.Span) -> int:
    return _in_range(x * y, "*", x, y, span)


def _add_all(values: tuple[int, ...], span: ast.Span) -> int:
    """(+ A B C ...): the exact sum, checked once (a partial sum may leave the range)."""
    return _checked_sum(sum(values), _written("+", values), span)


def _mul_all(values: tuple[int, ...], span: ast.Span) -> int:
    """(* A B C ...): the exact product, checked once."""
    product = 1
    for v in values:
        product *= v
        if abs(product) > 2**63 and 0 not in values:  # it only grows: stop early
            break
    return _checked_sum(product, _written("*", values), span)


def _written(op: str, values: tuple[int, ...]) -> str:
    return f"({op} {' '.join(map(str, values))})"


def checked_increment(old: int, sign: int, amount: int, span: ast.Span) -> int:
    """(inc ...) and (dec ...): the new value, checked (the exact sum: -MIN is not
    formed on its own)."""
    value = old + sign * amount
    if I64_MIN <= value <= I64_MAX:
        return value
    raise overflow(f"({'inc' if sign > 0 else 'dec'} {old} {amount})", span)


def _checked_sum(value: int, what: str, span: ast.Span) -> int:
    if I64_MIN <= value <= I64_MAX:
        return value
    raise overflow(what, span)


def _contains(st: Gamestate, value: Any, items: Sequence[Any], span: ast.Span) -> bool:
    _charge(st, len(items), span, "(contains ...)")
    return value in items


def _sort(st: Gamestate, cards: Sequence[int], pm: PointMap, span: ast.Span) -> list[int]:
    _charge(st, len(cards), span, "(sort ...)")
    return ops.sort_by_score(cards, _scorer(st, pm))


def _run_at_end(
    st: Gamestate, cards: Sequence[int], pm: PointMap, n: int, end: str, span: ast.Span
) -> list[int]:
    """(run top|bottom N ...): it sorts every prefix of at least N cards, so it is
    charged the cards of all of them (native: O_RUNEND)."""
    shortest, longest = max(n, 1), len(cards)
    if longest >= shortest:
        _charge(st, (longest * (longest + 1) - (shortest - 1) * shortest) // 2, span, "(run ...)")
    return ops.run_at_end(cards, _scorer(st, pm), n, end)


def _partition(st: Gamestate, cards: list[int], key: str, span: ast.Span) -> list[list[int]]:
    _charge(st, len(cards), span, "(partition ...)")
    return ops.partition(cards, st.cards, key)


def _same_card(a: Any, b: Any) -> bool:
    return a is not None and a == b


def _power(base: int, exp: int, span: ast.Span) -> int:
    if exp < 0 or exp > 64:
        raise RuleError(f"exponent {exp} is outside 0..64", span)
    return _in_range(base**exp, "^", base, exp, span)


def _score_extreme(
    st: Gamestate, cards: Sequence[int], pm: PointMap, want_max: bool, span: ast.Span
) -> int:
    """Highest (lowest) score in a collection; -1 (2147483647) when it is empty, as in
    CardStock."""
    _charge(st, len(cards), span, "(scoremax ...)" if want_max else "(scoremin ...)")
    if not cards:
        return -1 if want_max else 2147483647
    table = st.cards
    scores = [pm.score(table[c]) for c in cards]
    return max(scores) if want_max else min(scores)


def _indexed(st: Gamestate, owner: int, kind: str, name: str) -> tuple[Any, ...]:
    """The locations NAME 0, NAME 1, ... of an owner that exist, by index."""
    key = (owner, kind, name)
    zones = st.zones
    cached = st.indexed.get(key)
    if cached is not None:
        seen, found = cached
        if seen == len(zones):
            return found
        # Zones are never removed and a dict keeps insertion order: only the zones made
        # since the last look can be new members.
        new = _indexed_members(islice(zones, seen, None), owner, kind, name)
        if new:
            found = _in_index_order({**dict(_with_index(found, name)), **new})
    else:
        found = _in_index_order(_indexed_members(zones, owner, kind, name))
    st.indexed[key] = (len(zones), found)
    return found


def _indexed_members(
    keys: Iterable[tuple[int, str, str]], owner: int, kind: str, name: str
) -> dict[int, tuple[int, str, str]]:
    """Among ``keys``, the locations NAME (index 0) and NAME#i of owner and kind, by index."""
    prefix = name + "#"
    found = {}
    for key in keys:
        if key[0] == owner and key[1] == kind:
            zname = key[2]
            if zname == name:
                found[0] = key
            elif zname.startswith(prefix) and zname[len(prefix) :].isdigit():
                found[int(zname[len(prefix) :])] = key
    return found


def _with_index(found: tuple[tuple[int, str, str], ...], name: str) -> Iterator[tuple[int, Any]]:
    for key in found:
        zname = key[2]
        yield (0 if zname == name else int(zname[len(name) + 1 :])), key


def _in_index_order(found: dict[int, tuple[int, str, str]]) -> tuple[Any, ...]:
    return tuple(found[i] for i in sorted(found))


#: Bounds that keep one action from running for ever (a game's flow is bounded by the
#: Gamemaster's limits; these bound what happens inside a single action).
MAX_RANGE = 1_000_000
MAX_REPEAT = 1_000_000
#: The most loop passes and sequence parts one option of a choice may run, counted
#: together along the option (native/src/program.h: max_option_passes).  Listing an
#: option runs its rest inside each pass of its loops (repeat, all) and each part of its
#: sequences (a do of more than actions), so each stays on the stack until the option is
#: complete: this bounds how deep a listing goes on either engine (natively a long loop
#: overflowed the C++ stack; the Python engine's gave out at 200 to 400 passes, so the
#: engines disagreed).  Our games and the CardStock corpus go at most 11 deep.
MAX_OPTION_PASSES = 100


class _OptionPasses(threading.local):
    """The loop passes and sequence parts open on the path of the option being listed
    (per thread: each thread lists its own games)."""

    open = 0


_OPTION_PASSES = _OptionPasses()


@contextlib.contextmanager
def option_passes(times: int, span: ast.Span, what: str) -> Iterator[None]:
    """A loop of ``times`` passes, or a sequence of ``times`` parts, in a choice's
    option, for as long as its listing runs (the passes and the rest of the option after
    them): a rule error where the option would pass MAX_OPTION_PASSES in all (native:
    VM::open_passes)."""
    total = _OPTION_PASSES.open + times
    if total > MAX_OPTION_PASSES:
        raise RuleError(
            f"{what} would make this option run {total} loop passes and sequence parts: an "
            f"option of a choice runs at most {MAX_OPTION_PASSES}",
            span,
        )
    _OPTION_PASSES.open = total
    try:
        yield
    finally:
        _OPTION_PASSES.open -= times


def _range(low: int, high: int, span: ast.Span) -> range:
    if high - low + 1 > MAX_RANGE:
        raise RuleError(f"(range {low} .. {high}) has more than {MAX_RANGE} numbers", span)
    return range(low, high + 1)


def card_room(st: Gamestate, made: int, span: ast.Span) -> None:
    """Refuse a creation that would make the game hold more than MAX_CARDS cards and
    references together (the bound on a game's size, which the checker applies to the
    cards it can count)."""
    if len(st.cards) + st.refs + made > MAX_CARDS:
        raise RuleError(
            f"this creates {made} cards and the game holds {_held(st)}: more than a game "
            f"may hold ({MAX_CARDS} cards{', references included' if st.refs else ''})",
            span,
        )


def _held(st: Gamestate) -> str:
    """What the game holds, in card_room's message: its references named when it has any
    (the message of a game without them is the one it always was)."""
    if not st.refs:
        return str(len(st.cards))
    return f"{len(st.cards)} cards and {st.refs} references"


def repeat_count(count: int, span: ast.Span) -> int:
    """A repeat count checked against MAX_REPEAT (negative counts repeat zero times)."""
    if count > MAX_REPEAT:
        raise RuleError(f"(repeat {count} ...) repeats more than {MAX_REPEAT} times", span)
    return max(count, 0)


def _att(st: Gamestate, card: Any, key: str) -> str:
    return "" if card is None else st.cards[card].get(key, "")


def _attr(st: Gamestate, card: Any, key: str, default: Any, span: ast.Span) -> Any:
    if card is None:
        raise RuleError(f"(attr {key} ...) of a card in an empty location", span)
    return st.cards[card].get(key, default)


def _total(st: Gamestate, cards: Sequence[int], key: str, span: ast.Span) -> int:
    _charge(st, len(cards), span, "(total ...)")
    attrs = st.cards
    return _checked_sum(sum(attrs[c].get(key, 0) for c in cards), f"(total {key} ...)", span)


def _top_attr(z: Sequence[int], cards: Any, key: str, default: Any, span: ast.Span) -> Any:
    """(attr KEY (top LOCATION)) in one call."""
    if not z:
        raise RuleError(f"(attr {key} ...) of a card in an empty location", span)
    return cards[z[-1]].get(key, default)


def _others(st: Gamestate, player: int) -> list[int]:
    n = st.nplayers
    return [(player + k) % n for k in range(1, n)]


def _tri(n: int, span: ast.Span) -> int:
    value = n * (n + 1) // 2
    if I64_MIN <= value <= I64_MAX:
        return value
    raise overflow(f"(tri {n})", span)


#: The largest n whose Fibonacci number fits in 64 bits (F(92) < 2^63 <= F(93)).
MAX_FIB = 92


def _fib(n: int, span: ast.Span) -> int:
    """(fib n); beyond F(92) the result would not fit, so it is refused before any work
    (a (fib (^ 10 18)) ran for ever before)."""
    if n > MAX_FIB:
        raise overflow(f"(fib {n})", span)
    return ops.fibonacci(n)


def _location_name(base: str, index: int) -> str:
    return f"{base}#{index}" if index else base


RUNTIME: dict[str, Any] = {
    name: value for name, value in globals().items() if name.startswith("_") and callable(value)
}
# Generated code may use these builtins and nothing else (defence in depth: no name from
# a game file ever reaches the generated text except through repr).
RUNTIME["__builtins__"] = {
    name: getattr(builtins, name)
    for name in (
        "len",
        "range",
        "tuple",
        "list",
        "any",
        "all",
        "sum",
        "max",
        "min",
        "abs",
        "sorted",
        "zip",
        "True",
        "False",
        "None",
    )
}
RUNTIME.update(
    repeat_count=repeat_count,
    checked_increment=checked_increment,
    current_player=current_player,
    current_team=current_team,
    next_player=next_player,
    previous_player=previous_player,
    ops=ops,
    EMPTY=EMPTY,
    EMPTY_POINTS=EMPTY_POINTS,
)
