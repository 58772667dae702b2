"""Game parameters: a game's declared constants, overridden from the command line.

``(declare 4 'NUMP)`` makes NUMP a parameter with default 4: ``--param nump=3`` (names
are case-insensitive) plays the game with 3.  An integer, a string or a string list
(``--param suits=HEARTS,SPADES``) can be overridden; the new value must have the type of
the default.  Overriding happens on the AST, before checking, so everything that depends
on a constant (the number of players above all) sees the new value.

Pipeline position: between the parser and the checker: compiler/load.py applies the
values (``apply_params``) to the parsed AST before checking; the checker asks here which
values a declaration allows.  Imports ``cardlang.errors`` and the AST.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cardlang.errors import I64_MAX, UsageError, did_you_mean
from cardlang.language import ast

_NAME = re.compile(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)*")


def parse_param_args(args: list[str] | None) -> dict[str, str]:
    """``["nump=3", "suits=A,B"]`` -> ``{"NUMP": "3", "SUITS": "A,B"}``."""
    params: dict[str, str] = {}
    for arg in args or []:
        name, sep, value = arg.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--param needs NAME=VALUE, got {arg!r}")
        params[name.strip().upper()] = value.strip()
    return params


#: The most games one set of ``--param-draw`` alternatives may make (their product).
MAX_VARIANTS = 64


def parse_param_draws(args: list[str] | None) -> dict[str, list[str]]:
    """``["kingdom=first-game|size-distortion"]`` -> ``{"KINGDOM": ["first-game",
    "size-distortion"]}``: each named parameter's alternatives, in order."""
    draws: dict[str, list[str]] = {}
    for arg in args or []:
        name, sep, values = arg.partition("=")
        alternatives = [v.strip() for v in values.split("|")]
        if not sep or not name.strip() or not all(alternatives):
            raise UsageError(f"--param-draw needs NAME=VALUE|VALUE..., got {arg!r}")
        if len(set(alternatives)) != len(alternatives):
            raise UsageError(f"--param-draw {arg!r} names a value twice")
        draws[name.strip().upper()] = alternatives
    return draws


def drawn_params(draws: Mapping[str, list[str]]) -> dict[str, str]:
    """Drawn parameters as one text each, their alternatives joined as written:
    ``{"KINGDOM": "first-game|size-distortion"}`` (what a model records)."""
    return {name: "|".join(values) for name, values in draws.items()}


def param_variants(
    params: Mapping[str, str], draws: Mapping[str, list[str]]
) -> list[dict[str, str]]:
    """Every combination of the drawn parameters' alternatives over ``params`` (the
    first alternatives first; without draws, ``params`` alone)."""
    both = sorted(set(params) & set(draws))
    if both:
        raise UsageError(f"parameter {both[0]} is both set (--param) and drawn (--param-draw)")
    variants = [dict(params)]
    for name, alternatives in draws.items():
        variants = [v | {name: value} for v in variants for value in alternatives]
    if len(variants) > MAX_VARIANTS:
        raise UsageError(
            f"--param-draw makes {len(variants)} games, more than {MAX_VARIANTS}: draw fewer"
        )
    return variants


def apply_params(game: ast.Game, params: Mapping[str, str]) -> ast.Game:
    """The game with the named declared constants replaced by the given values."""
    if not params:
        return game
    declared = {d.var: d for d in game.declares}
    for name in params:
        if name not in declared:
            hint = did_you_mean(name, declared)
            known = ", ".join(sorted(declared)) or "none"
            raise UsageError(
                f"this game declares no parameter {name}"
                + (f" ({hint})" if hint else f" (its parameters: {known})")
            )
    declares = tuple(
        dataclasses.replace(d, value=_literal(d, params[d.var])) if d.var in params else d
        for d in game.declares
    )
    for d in declares:
        allowed = allowed_values(d)
        if d.var in params and allowed is not None and not is_allowed(d.value, allowed):
            raise UsageError(
                f"parameter {d.var}: {params[d.var]!r} is not allowed"
                + _suggestion(d.value, allowed)
                + f": the game allows {describe_allowed(allowed)}"
            )
    bound = {d.var: d for d in declares}
    for rule in (r for r in game.parameter_values if r.var in params):
        choices = name_choices(rule, bound)  # not literal: the checker says so, at its place
        why = (
            ""
            if isinstance(choices, str)
            else misfit(rule, choices, names_of(bound[rule.var].value))
        )
        if why:
            raise UsageError(f"parameter {rule.var}: {why}")
    return dataclasses.replace(game, declares=declares)


@dataclass(frozen=True)
class NameChoice:
    """One ``(choose COUNT NAMES)``: how many distinct names, and of which."""

    counts: range
    names: tuple[str, ...]


def name_choices(
    rule: ast.ParameterValues, declared: Mapping[str, ast.Declare]
) -> list[NameChoice] | str:
    """The choices of ``(parameter-values ...)`` read from their literals (a list may be
    a declared one); why not, as a message, where one is not literal."""
    choices = []
    for choose in rule.choices:
        count, names = choose.count, choose.names
        if isinstance(names, ast.Variable) and names.name in declared:
            names = declared[names.name].value
        counts = literal_range(count) if isinstance(count, ast.Range) else None
        if isinstance(count, ast.IntLiteral):
            counts = range(count.value, count.value + 1)
        if counts is None:
            return "a (choose ...) counts with a number or a literal range (range 1 .. 16)"
        if not isinstance(names, ast.StrList):
            return "a (choose ...) chooses from a literal list of names or a declared one"
        choices.append(NameChoice(counts, names.values))
    return choices


def names_of(value: ast.Node) -> tuple[str, ...]:
    """A name or a list of names as the names it holds (nothing for anything else)."""
    if isinstance(value, ast.NameLiteral):
        return (value.value,)
    return value.values if isinstance(value, ast.StrList) else ()


def misfit(rule: ast.ParameterValues, choices: list[NameChoice], values: tuple[str, ...]) -> str:
    """Why ``values`` fit none of the choices ("" where one fits): a name no choice
    holds (with a did-you-mean), a name given twice, or how many there are."""
    if any(_fits(c, values) for c in choices):
        return ""
    known = [name for c in choices for name in c.names]
    for name in values:
        if name not in known:
            hint = did_you_mean(name, known)
            return f"{name} is not allowed" + (f" ({hint})" if hint else "") + f": {rule.text}"
    twice = [name for i, name in enumerate(values) if name in values[:i]]
    if twice:
        return f"{twice[0]} is named twice: {rule.text}"
    return f"{len(values)} names ({', '.join(values)}) do not fit: {rule.text}"


def _fits(choice: NameChoice, values: tuple[str, ...]) -> bool:
    distinct = len(set(values)) == len(values)
    return distinct and len(values) in choice.counts and all(v in choice.names for v in values)


def allowed_values(d: ast.Declare) -> range | tuple[str, ...] | None:
    """What ``(declare VALUE 'VAR ALLOWED)`` allows: a range of integers or names; None
    when nothing is declared (or the declaration is not a literal one)."""
    a = d.allowed
    if isinstance(a, ast.Range):
        return literal_range(a)
    if isinstance(a, ast.StrList):
        return a.values
    return None


def literal_range(r: ast.Range) -> range | None:
    """``(range A .. B)`` of two integer literals as a range; None for anything else."""
    if isinstance(r.low, ast.IntLiteral) and isinstance(r.high, ast.IntLiteral):
        return range(r.low.value, r.high.value + 1)
    return None


def describe_allowed(allowed: range | tuple[str, ...]) -> str:
    if isinstance(allowed, range):
        return f"{allowed.start} to {allowed.stop - 1}"
    return "one of " + ", ".join(allowed)


def is_allowed(value: ast.Node, allowed: range | tuple[str, ...]) -> bool:
    if isinstance(value, ast.IntLiteral):
        return value.value in allowed
    if isinstance(value, ast.NameLiteral):
        return value.value in allowed
    if isinstance(value, ast.StrList):
        return all(v in allowed for v in value.values)
    return True  # not a literal: nothing to check before the game runs


def _suggestion(value: ast.Node, allowed: range | tuple[str, ...]) -> str:
    """ " (did you mean X?)" for the first name not allowed, where one is close."""
    names = value.values if isinstance(value, ast.StrList) else ()
    if isinstance(value, ast.NameLiteral):
        names = (value.value,)
    for name in names:
        if name not in allowed and isinstance(allowed, tuple):
            hint = did_you_mean(name, allowed)
            return f" ({name}: {hint})" if hint else f" ({name})"
    return ""


def _literal(declare: ast.Declare, text: str) -> ast.Node:
    default, span = declare.value, declare.value.span
    if isinstance(default, ast.IntLiteral):
        if not text.isdigit() or len(text) > 19 or int(text) > I64_MAX:
            raise UsageError(
                f"parameter {declare.var} is a whole number up to {I64_MAX} (default "
                f"{default.value}); got {text[:40]!r}"
            )
        return ast.IntLiteral(int(text), span=span)
    if isinstance(default, ast.NameLiteral):
        return ast.NameLiteral(_name(declare, text), span=span)
    if isinstance(default, ast.StrList):
        values = tuple(_name(declare, v.strip()) for v in text.split(","))
        return ast.StrList(values, span=span)
    raise UsageError(
        f"parameter {declare.var} is not a number, a name or a list of names, "
        "so it cannot be set from the command line"
    )


def _name(declare: ast.Declare, text: str) -> str:
    value = text.upper()
    if not _NAME.fullmatch(value):
        raise UsageError(
            f"parameter {declare.var}: {text!r} is not a name (letters, digits and hyphens)"
        )
    return value


def always_draws(
    game: ast.Game, cards: Sequence[str], params: Mapping[str, str], count: int, seed: int
) -> dict[str, list[str]]:
    """``--always CARD``: ``count`` alternatives of the parameter that deals a game's
    cards (Dominion's KINGDOM), each holding ``cards`` and names drawn with ``seed`` from
    the rest of those the parameter may name, as many as it names in all; names listed
    in a list parameter set in ``params`` (EXCLUDE) are left out.  The parameter is the
    one whose ``(parameter-values ...)`` chooses several of a list that holds the cards."""
    wanted = tuple(c.upper() for c in cards)
    declared = {d.var: d for d in game.declares}
    known: set[str] = set()
    for rule in game.parameter_values:
        for choice in _literal_choices(rule, declared):
            known.update(choice.names)
            size = choice.counts.stop - 1  # a set of a fixed size deals cards (KINGDOM's
            fixed = len(choice.counts) == 1  # ten; EXCLUDE's 1 to 16 leaves them out)
            if fixed and size > len(wanted) and all(c in choice.names for c in wanted):
                left_out = {n for v in params.values() for n in v.upper().split(",")}
                pool = sorted(set(choice.names) - set(wanted) - left_out)
                return {rule.var: _draw_sets(rule.var, wanted, pool, size, count, seed)}
    missing = [c for c in wanted if c not in known]
    if not missing:
        raise UsageError(f"--always {','.join(wanted)}: no parameter deals these cards together")
    hint = did_you_mean(missing[0], sorted(known))
    raise UsageError(
        f"--always: no parameter of this game deals {missing[0]}" + (f" ({hint})" if hint else "")
    )


def dealt_cards(game: ast.Game) -> tuple[str, ...]:
    """The names a parameter that deals a game's cards may deal (Dominion's KINGDOM:
    'ALL-KINGDOM-CARDS), as ``always_draws`` finds that parameter: a choice of a fixed
    number of several names; none where no parameter deals cards."""
    declared = {d.var: d for d in game.declares}
    names: dict[str, None] = {}
    for rule in game.parameter_values:
        for choice in _literal_choices(rule, declared):
            if len(choice.counts) == 1 and choice.counts.start > 1:
                names.update(dict.fromkeys(choice.names))
    return tuple(names)


def _draw_sets(
    var: str, wanted: tuple[str, ...], pool: list[str], size: int, count: int, seed: int
) -> list[str]:
    """``count`` sets of ``size`` names: ``wanted`` and the rest drawn from ``pool``."""
    if len(pool) < size - len(wanted):
        raise UsageError(
            f"--always: {var} names {size}, and only {len(pool)} are left to draw beside "
            + ", ".join(wanted)
        )
    rng = random.Random(seed)
    return [",".join(wanted + tuple(rng.sample(pool, size - len(wanted)))) for _ in range(count)]


def _literal_choices(
    rule: ast.ParameterValues, declared: Mapping[str, ast.Declare]
) -> list[NameChoice]:
    choices = name_choices(rule, declared)
    return [] if isinstance(choices, str) else choices
