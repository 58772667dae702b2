"""Text to AST: Lark's LALR parser over grammar/cardlang.lark, then a strict transformer.

Pipeline position: first stage.  ``parse(source)`` returns a ``Game`` node and a list of
warnings, or raises ``GameFileError`` with positioned diagnostics.  Syntax errors are
explained in terms of the form being written (its expected shape) and name the unclosed
``(`` rather than the end of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedInput, v_args
from lark.exceptions import UnexpectedEOF, UnexpectedToken, VisitError

from cardlang.errors import Diagnostic, GameFileError, SourceFile, did_you_mean
from cardlang.language import ast
from cardlang.language.forms import FORM_SIGNATURES, KEYWORDS

Span = ast.Span


@cache
def grammar_text() -> str:
    """The grammar shipped in the package (grammar/cardlang.lark in the checkout)."""
    return resources.files("cardlang.grammar").joinpath("cardlang.lark").read_text("utf-8")


@cache
def lark_parser() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=True,
        cache=True,  # the parse tables, in the temp directory: start-up in ms, not 1 s
    )


def _span(meta: Any) -> Span:
    if getattr(meta, "empty", True) and not hasattr(meta, "line"):
        return Span.unknown()
    return Span(
        meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos
    )


def _amount(node: Any, meta: Any) -> ast.Node:
    """The amount of inc/dec, 1 when omitted."""
    return node if node is not None else ast.IntLiteral(1, span=_span(meta))


def _token_span(tok: Token) -> Span:
    return Span(
        tok.line or 0,
        tok.column or 0,
        tok.end_line or tok.line or 0,
        tok.end_column or (tok.column or 0) + len(tok),
        tok.start_pos or 0,
        tok.end_pos or 0,
    )


@v_args(meta=True)
class _ToAst(Transformer):  # type: ignore[type-arg]
    """Lark tree -> AST.  One method per grammar rule; unknown rules are a bug."""

    def __default__(self, data: Any, children: Any, meta: Any) -> Any:
        raise NotImplementedError(f"no AST builder for grammar rule {data!r}")

    def start(self, meta: Any, children: list[Any]) -> ast.Game:
        return children[0]  # type: ignore[no-any-return]

    # setup
    def game(self, meta: Any, ch: list[Any]) -> ast.Game:
        setup_at = next(i for i, c in enumerate(ch) if isinstance(c, ast.Setup))
        definitions = ch[:setup_at]

        def of(cls: type) -> tuple[Any, ...]:
            return tuple(c for c in definitions if isinstance(c, cls))

        return ast.Game(
            of(ast.Declare),
            ch[setup_at],
            tuple(ch[setup_at + 1 : -1]),
            ch[-1],
            procedures=of(ast.Define),
            kinds=of(ast.CardKind),
            situations=of(ast.Situation),
            span=_span(meta),
        )

    def define(self, meta: Any, ch: list[Any]) -> ast.Define:
        params = tuple(c for c in ch[1:] if isinstance(c, ast.Param))
        body = tuple(c for c in ch[1:] if not isinstance(c, ast.Param))
        return ast.Define(str(ch[0]), params, body, span=_span(meta))

    def param(self, meta: Any, ch: list[Any]) -> ast.Param:
        return ast.Param(str(ch[0]), str(ch[1])[1:], span=_span(meta))

    def card_kind(self, meta: Any, ch: list[Any]) -> ast.CardKind:
        attributes = tuple(c for c in ch[1:] if isinstance(c, ast.KindAttribute))
        hooks = tuple(c for c in ch[1:] if isinstance(c, ast.KindHook))
        return ast.CardKind(str(ch[0]), attributes, hooks, span=_span(meta))

    def kind_attribute(self, meta: Any, ch: list[Any]) -> ast.KindAttribute:
        value = ch[1]
        if isinstance(value, ast.StrList):
            parsed: int | str | tuple[str, ...] = value.values
        elif value.type in ("INT", "NEGATIVE_INT"):
            parsed = int(value)
        else:
            parsed = str(value)
        return ast.KindAttribute(str(ch[0]), parsed, span=_span(meta))

    def kind_hook(self, meta: Any, ch: list[Any]) -> ast.KindHook:
        return ast.KindHook(str(ch[0]), tuple(ch[1:]), span=_span(meta))

    def situation(self, meta: Any, ch: list[Any]) -> ast.Situation:
        return ast.Situation(str(ch[0]), str(ch[1])[1:-1], span=_span(meta))

    def call(self, meta: Any, ch: list[Any]) -> ast.Call:
        return ast.Call(str(ch[0]), tuple(ch[1:]), span=_span(meta))

    def create_cards(self, meta: Any, ch: list[Any]) -> ast.CreateCards:
        return ast.CreateCards(ch[0], ch[1], ch[2], span=_span(meta))

    def pass_(self, meta: Any, ch: list[Any]) -> ast.Pass:
        return ast.Pass(span=_span(meta))

    def total(self, meta: Any, ch: list[Any]) -> ast.Total:
        return ast.Total(str(ch[0]), ch[1], span=_span(meta))

    def attr(self, meta: Any, ch: list[Any]) -> ast.Attr:
        return ast.Attr(str(ch[0]), ch[1], span=_span(meta))

    def contains(self, meta: Any, ch: list[Any]) -> ast.Contains:
        return ast.Contains(ch[0], ch[1], span=_span(meta))

    def others(self, meta: Any, ch: list[Any]) -> ast.Others:
        return ast.Others(ch[0], span=_span(meta))

    def declare(self, meta: Any, ch: list[Any]) -> ast.Declare:
        return ast.Declare(ch[0], str(ch[1])[1:], ch[2], span=_span(meta))

    def setup(self, meta: Any, ch: list[Any]) -> ast.Setup:
        return ast.Setup(tuple(ch), span=_span(meta))

    def scoring(self, meta: Any, ch: list[Any]) -> ast.Scoring:
        tiebreaks = tuple((str(ch[i]), ch[i + 1]) for i in range(2, len(ch), 2))
        return ast.Scoring(str(ch[0]), ch[1], tiebreaks, span=_span(meta))

    def create_players(self, meta: Any, ch: list[Any]) -> ast.CreatePlayers:
        return ast.CreatePlayers(ch[0], span=_span(meta))

    def create_teams(self, meta: Any, ch: list[Any]) -> ast.CreateTeams:
        return ast.CreateTeams(tuple(ch), span=_span(meta))

    def team_list(self, meta: Any, ch: list[Any]) -> tuple[int, ...]:
        return tuple(int(t) for t in ch)

    def create_deck(self, meta: Any, ch: list[Any]) -> ast.CreateDeck:
        if ch[2] is None:
            return ast.CreateDeck(None, ch[0], ch[1], span=_span(meta))
        return ast.CreateDeck(ch[0], ch[1], ch[2], span=_span(meta))

    def deck(self, meta: Any, ch: list[Any]) -> ast.Deck:
        return ast.Deck(tuple(ch), span=_span(meta))

    def attribute(self, meta: Any, ch: list[Any]) -> ast.Attribute:
        names = tuple(str(c) for c in ch if isinstance(c, Token))
        children = tuple(c for c in ch if isinstance(c, ast.Attribute))
        return ast.Attribute(names, children, span=_span(meta))

    # flow
    def stage(self, meta: Any, ch: list[Any]) -> ast.Stage:
        return ast.Stage(str(ch[0]), ch[1], tuple(ch[2:]), span=_span(meta))

    def end_condition(self, meta: Any, ch: list[Any]) -> Any:
        return ch[0]

    def do_block(self, meta: Any, ch: list[Any]) -> ast.Do:
        return ast.Do(tuple(ch), span=_span(meta))

    def choice(self, meta: Any, ch: list[Any]) -> ast.Choice:
        situation = str(ch[0]) if ch[0] is not None else None
        return ast.Choice(tuple(ch[2:]), ch[1], situation, span=_span(meta))

    def while_loop(self, meta: Any, ch: list[Any]) -> ast.While:
        return ast.While(ch[0], tuple(ch[1:]), span=_span(meta))

    def if_expr(self, meta: Any, ch: list[Any]) -> ast.If:
        return ast.If(ch[0], ch[1], ch[2], span=_span(meta))

    def guarded(self, meta: Any, ch: list[Any]) -> ast.Guarded:
        return ast.Guarded(ch[0], ch[1], span=_span(meta))

    def for_each(self, meta: Any, ch: list[Any]) -> ast.ForEach:
        return ast.ForEach(str(ch[0]), ch[1], str(ch[2])[1:], ch[3], span=_span(meta))

    def let(self, meta: Any, ch: list[Any]) -> ast.Let:
        return ast.Let(ch[0], str(ch[1])[1:], ch[2], span=_span(meta))

    # actions
    def move(self, meta: Any, ch: list[Any]) -> ast.Move:
        return ast.Move(ch[0], ch[1], span=_span(meta))

    def remember(self, meta: Any, ch: list[Any]) -> ast.Remember:
        return ast.Remember(ch[0], ch[1], span=_span(meta))

    def forget(self, meta: Any, ch: list[Any]) -> ast.Forget:
        return ast.Forget(ch[0], span=_span(meta))

    def shuffle(self, meta: Any, ch: list[Any]) -> ast.Shuffle:
        return ast.Shuffle(ch[0], span=_span(meta))

    def set_value(self, meta: Any, ch: list[Any]) -> ast.SetValue:
        return ast.SetValue(ch[0], ch[1], span=_span(meta))

    def inc(self, meta: Any, ch: list[Any]) -> ast.Increment:
        return ast.Increment(ch[0], _amount(ch[1], meta), 1, span=_span(meta))

    def dec(self, meta: Any, ch: list[Any]) -> ast.Increment:
        return ast.Increment(ch[0], _amount(ch[1], meta), -1, span=_span(meta))

    def swap(self, meta: Any, ch: list[Any]) -> ast.Swap:
        return ast.Swap(ch[0], ch[1], span=_span(meta))

    def cycle(self, meta: Any, ch: list[Any]) -> ast.Cycle:
        return ast.Cycle(str(ch[0]), ch[1], span=_span(meta))

    def cycle_target(self, meta: Any, ch: list[Any]) -> Any:
        return str(ch[0]) if isinstance(ch[0], Token) else ch[0]

    def turn_pass(self, meta: Any, ch: list[Any]) -> ast.TurnPass:
        return ast.TurnPass(span=_span(meta))

    def repeat(self, meta: Any, ch: list[Any]) -> ast.Repeat:
        return ast.Repeat(ch[0], ch[1], span=_span(meta))

    def repeat_all(self, meta: Any, ch: list[Any]) -> ast.RepeatAll:
        return ast.RepeatAll(ch[0], span=_span(meta))

    def awards(self, meta: Any, ch: list[Any]) -> ast.Awards:
        return ast.Awards(tuple(ch), span=_span(meta))

    def award(self, meta: Any, ch: list[Any]) -> ast.Award:
        return ast.Award(tuple(ch[:-1]), ch[-1], span=_span(meta))

    def award_condition(self, meta: Any, ch: list[Any]) -> ast.AwardCondition:
        return ast.AwardCondition(ch[0], ch[1], span=_span(meta))

    # atoms
    def int_literal(self, meta: Any, ch: list[Any]) -> ast.IntLiteral:
        return ast.IntLiteral(int(ch[0]), span=_token_span(ch[0]))

    def name_literal(self, meta: Any, ch: list[Any]) -> ast.NameLiteral:
        return ast.NameLiteral(str(ch[0]), span=_token_span(ch[0]))

    def variable(self, meta: Any, ch: list[Any]) -> ast.Variable:
        return ast.Variable(str(ch[0])[1:], span=_token_span(ch[0]))

    def game_owner(self, meta: Any, ch: list[Any]) -> ast.GameOwner:
        return ast.GameOwner(span=_span(meta))

    def all_of_kind(self, meta: Any, ch: list[Any]) -> ast.AllOfKind:
        return ast.AllOfKind(str(ch[0]), span=_token_span(ch[0]))

    # cards
    def card_at(self, meta: Any, ch: list[Any]) -> ast.CardAt:
        return ast.CardAt(str(ch[0]), ch[1], span=_span(meta))

    def nth(self, meta: Any, ch: list[Any]) -> ast.Node:
        index, target = ch
        if isinstance(target, ast.AllOfKind):
            cls = ast.PlayerRef if target.kind == "player" else ast.TeamRef
            return cls(index, span=_span(meta))
        return ast.CardAt(index, target, span=_span(meta))

    def top_n(self, meta: Any, ch: list[Any]) -> ast.TopN:
        return ast.TopN(str(ch[0]), ch[1], ch[2], span=_span(meta))

    def max_min(self, meta: Any, ch: list[Any]) -> ast.MaxMin:
        return ast.MaxMin(str(ch[0]), ch[1], ch[2], span=_span(meta))

    def actual(self, meta: Any, ch: list[Any]) -> ast.Actual:
        return ast.Actual(ch[0], span=_span(meta))

    # locations, storages, owners
    def location(self, meta: Any, ch: list[Any]) -> ast.Location:
        return ast.Location(ch[0], str(ch[1]), ch[2], ch[3], span=_span(meta))

    def storage(self, meta: Any, ch: list[Any]) -> ast.Storage:
        return ast.Storage(ch[0], str(ch[1]), ch[2], span=_span(meta))

    def player_ref(self, meta: Any, ch: list[Any]) -> ast.PlayerRef:
        return ast.PlayerRef(str(ch[0]), span=_span(meta))

    def team_ref(self, meta: Any, ch: list[Any]) -> ast.TeamRef:
        return ast.TeamRef(str(ch[0]), span=_span(meta))

    def owner_of(self, meta: Any, ch: list[Any]) -> ast.OwnerOf:
        return ast.OwnerOf(ch[0], span=_span(meta))

    def team_of(self, meta: Any, ch: list[Any]) -> ast.TeamOf:
        return ast.TeamOf(ch[0], span=_span(meta))

    def other(self, meta: Any, ch: list[Any]) -> ast.Other:
        return ast.Other(str(ch[0]), span=_span(meta))

    # collections
    def set_op(self, meta: Any, ch: list[Any]) -> ast.SetOp:
        return ast.SetOp(str(ch[0]), tuple(ch[1:]), span=_span(meta))

    def filter(self, meta: Any, ch: list[Any]) -> ast.Filter:
        return ast.Filter(ch[0], str(ch[1])[1:], ch[2], span=_span(meta))

    def sort(self, meta: Any, ch: list[Any]) -> ast.Sort:
        return ast.Sort(ch[0], ch[1], span=_span(meta))

    def run_end(self, meta: Any, ch: list[Any]) -> ast.RunEnd:
        return ast.RunEnd(str(ch[0]), ch[1], ch[2], ch[3], span=_span(meta))

    def runs(self, meta: Any, ch: list[Any]) -> ast.Runs:
        return ast.Runs(str(ch[0]), ch[1], ch[2], ch[3], span=_span(meta))

    def tuples(self, meta: Any, ch: list[Any]) -> ast.Tuples:
        return ast.Tuples(ch[0], ch[1], ch[2], span=_span(meta))

    def subsets(self, meta: Any, ch: list[Any]) -> ast.Subsets:
        return ast.Subsets(ch[0], span=_span(meta))

    def partition_runs(self, meta: Any, ch: list[Any]) -> ast.Runs:
        one = ast.IntLiteral(1, span=_span(meta))
        return ast.Runs("largest", one, ch[0], ch[1], span=_span(meta))

    def indexed_locations(self, meta: Any, ch: list[Any]) -> ast.IndexedLocations:
        return ast.IndexedLocations(ch[0], str(ch[1]), ch[2], span=_span(meta))

    def player_id(self, meta: Any, ch: list[Any]) -> ast.PlayerId:
        return ast.PlayerId(ch[0], span=_span(meta))

    def team_id(self, meta: Any, ch: list[Any]) -> ast.TeamId:
        return ast.TeamId(ch[0], span=_span(meta))

    def score_extreme(self, meta: Any, ch: list[Any]) -> ast.ScoreExtreme:
        return ast.ScoreExtreme(str(ch[0])[len("score") :], ch[1], ch[2], span=_span(meta))

    def partition(self, meta: Any, ch: list[Any]) -> ast.Partition:
        return ast.Partition(ch[0], tuple(ch[1:]), span=_span(meta))

    def aggregate(self, meta: Any, ch: list[Any]) -> ast.Aggregate:
        return ast.Aggregate(str(ch[0]), ch[1], str(ch[2])[1:], ch[3], span=_span(meta))

    def str_list(self, meta: Any, ch: list[Any]) -> ast.StrList:
        return ast.StrList(tuple(str(c) for c in ch), span=_span(meta))

    def range(self, meta: Any, ch: list[Any]) -> ast.Range:
        return ast.Range(ch[0], ch[1], span=_span(meta))

    # integers
    def random(self, meta: Any, ch: list[Any]) -> ast.Random:
        if ch[1] is None:
            return ast.Random(None, ch[0], span=_span(meta))
        return ast.Random(ch[0], ch[1], span=_span(meta))

    def arith(self, meta: Any, ch: list[Any]) -> ast.Arith:
        op, operands = str(ch[0]), ch[1:]
        if op in ("+", "*"):  # n-ary: fold left, each step spanning the whole form
            node = ast.Arith(op, operands[0], operands[1], span=_span(meta))
            for more in operands[2:]:
                node = ast.Arith(op, node, more, span=_span(meta))
            return node
        return ast.Arith(op, operands[0], operands[1], tuple(operands[2:]), span=_span(meta))

    def unary_int(self, meta: Any, ch: list[Any]) -> ast.UnaryInt:
        return ast.UnaryInt(str(ch[0]), ch[1], span=_span(meta))

    def size(self, meta: Any, ch: list[Any]) -> ast.Size:
        return ast.Size(ch[0], span=_span(meta))

    def sum(self, meta: Any, ch: list[Any]) -> ast.Sum:
        return ast.Sum(ch[0], ch[1], span=_span(meta))

    def score(self, meta: Any, ch: list[Any]) -> ast.Score:
        return ast.Score(ch[0], ch[1], span=_span(meta))

    def card_att(self, meta: Any, ch: list[Any]) -> ast.CardAtt:
        return ast.CardAtt(ch[0], ch[1], span=_span(meta))

    # booleans
    def compare(self, meta: Any, ch: list[Any]) -> ast.Compare:
        return ast.Compare(str(ch[0]), ch[1], ch[2], span=_span(meta))

    def bool_op(self, meta: Any, ch: list[Any]) -> ast.BoolOp:
        return ast.BoolOp(str(ch[0]), tuple(ch[1:]), span=_span(meta))

    def not_(self, meta: Any, ch: list[Any]) -> ast.Not:
        return ast.Not(ch[0], span=_span(meta))


# ---------------------------------------------------------------- syntax errors

_TOKEN_RE = re.compile(r";;[^\n]*|\(|\)|[^\s()]+")


def _tokens(text: str) -> list[tuple[str, int]]:
    """A rough token stream (text, offset) for error explanations; comments dropped."""
    return [
        (m.group(), m.start()) for m in _TOKEN_RE.finditer(text) if not m.group().startswith(";;")
    ]


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def _point(text: str, pos: int, length: int = 1) -> Span:
    line, col = _line_col(text, pos)
    return Span(line, col, line, col + max(length, 1), pos, pos + length)


def _open_forms(text: str, upto: int) -> list[tuple[int, str]]:
    """The parens still open at offset ``upto``: (offset, keyword of the form or '').

    The keyword is the word after the '(' when it is one, or the kind of a location or
    storage ('vloc', 'sto' ...) for ``(OWNER vloc NAME)``; ``game`` leads the game form
    only at the top level (elsewhere it is an owner).
    """
    toks = _tokens(text[:upto])
    stack: list[int] = []  # indexes into toks
    for i, (tok, _) in enumerate(toks):
        if tok == "(":
            stack.append(i)
        elif tok == ")" and stack:
            stack.pop()
    forms = []
    for depth, i in enumerate(stack):
        nxt = toks[i + 1][0] if i + 1 < len(toks) else ""
        kw = nxt if nxt in KEYWORDS and (nxt != "game" or depth == 0) else ""
        if not kw and nxt:
            # (OWNER KIND NAME): the word after the owner, which may be a form itself
            j = i + 1
            if nxt == "(":
                level = 0
                while j < len(toks):
                    level += {"(": 1, ")": -1}.get(toks[j][0], 0)
                    if level == 0:
                        break
                    j += 1
            after = toks[j + 1][0] if j + 1 < len(toks) else ""
            kw = after if after in _KINDS else ""
        forms.append((toks[i][1], kw))
    return forms


_KINDS = {"vloc", "iloc", "hloc", "mem", "sto", "str", "points"}
_KIND_SIGNATURES = {
    **{k: f"(OWNER {k} NAME)" for k in ("vloc", "iloc", "hloc", "mem")},
    "sto": "(OWNER sto NAME)",
    "str": "(OWNER str NAME)",
    "points": "(OWNER points NAME)",
}


def _label(keyword: str) -> str:
    """How a message names a form: '(move ...)', '(OWNER vloc ...)'."""
    return f"(OWNER {keyword} ...)" if keyword in _KINDS else f"({keyword} ...)"


def _shape(keyword: str) -> str | None:
    return FORM_SIGNATURES.get(keyword) or _KIND_SIGNATURES.get(keyword)


def _unclosed_candidates(text: str) -> Iterator[tuple[int, int]]:
    """The '(' most likely left unclosed, judged by indentation, best first.

    Scans line by line: a line that starts at or left of the column of a '(' opened on an
    earlier line and still open shows where that '(' should have been closed.  Yields the
    offsets of such '(' (innermost first) and of where its ')' belongs, then goes on as if
    they were closed there; last, the innermost '(' still open at the end of the file.
    """
    stack: list[tuple[int, int]] = []  # (offset, column)
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.split(";;", 1)[0]
        body = stripped.lstrip()
        indent = len(stripped) - len(body)
        if body and body[0] != ")":
            culprits = [s for s in stack if s[1] >= indent]
            for paren, _ in reversed(culprits):
                yield paren, offset + indent
            del stack[len(stack) - len(culprits) :]
        for tok, pos in _tokens(stripped):
            if tok == "(":
                stack.append((offset + pos, pos))
            elif tok == ")" and stack:
                stack.pop()
        offset += len(line)
    if stack:
        yield stack[-1][0], len(text)


def _extra_close_candidates(text: str, upto: int) -> list[tuple[int, int]]:
    """The ')' that may have been written too early, judged by indentation, in file order.

    A line that starts right of a '(' of an earlier line continues the form of the last
    such '('; if that form is already closed, the ')' that closed it came too early.
    Scans the lines up to the first one that starts after offset ``upto``; returns the
    offsets of such ')' and of their '('.
    """
    parens: list[list[int]] = []  # [offset of '(', its column, offset of its ')' or -1]
    stack: list[int] = []
    found: dict[int, int] = {}
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.split(";;", 1)[0]
        body = stripped.lstrip()
        if body and body[0] != ")":
            indent = len(stripped) - len(body)
            for paren in reversed(parens):
                if paren[1] < indent:
                    if 0 <= paren[2] <= upto:
                        found[paren[2]] = paren[0]
                    break
            if offset > upto:
                break
        for tok, pos in _tokens(stripped):
            if tok == "(":
                stack.append(len(parens))
                parens.append([offset + pos, pos, -1])
            elif tok == ")" and stack:
                parens[stack.pop()][2] = offset + pos
        offset += len(line)
    return sorted(found.items())


def _error_offset(text: str) -> int | None:
    """Where the parser stops in ``text`` (None: it parses)."""
    try:
        lark_parser().parse(text)
    except UnexpectedToken as err:
        return len(text) if err.token.type == "$END" else err.token.start_pos or 0
    except UnexpectedEOF:
        return len(text)
    except UnexpectedInput as err:
        return err.pos_in_stream or 0
    return None


#: How many repairs a syntax error may try (each one parses the file again).
_MAX_REPAIRS = 6


def _find_unclosed(text: str, stop: int) -> tuple[int, int] | None:
    """The unclosed '(' (and where it should close) whose repair gets the parser past
    offset ``stop``, where it stops now."""
    for i, (paren, close_at) in enumerate(_unclosed_candidates(text)):
        if i >= _MAX_REPAIRS or paren >= stop:
            break
        if close_at > stop:
            continue
        after = _error_offset(text[:close_at] + ")" + text[close_at:])
        if after is None or after > stop + 1:
            return paren, close_at
    return None


def _find_extra_close(text: str, stop: int) -> tuple[int, int] | None:
    """The ')' written too early (and its '(') whose removal gets the parser past offset
    ``stop``, where it stops now.

    Removing any ')' between the one written too early and ``stop`` usually lets the
    parser go on too, but removing one before it rarely does: the first that works wins.
    """
    for close, paren in _extra_close_candidates(text, stop)[:_MAX_REPAIRS]:
        after = _error_offset(text[:close] + text[close + 1 :])
        if after is None or after > stop:
            return close, paren
    return None


def _extra_close_diagnostic(text: str, close: int, opened: int) -> Diagnostic:
    kw = dict(_open_forms(text, close)).get(opened, "")
    what = _label(kw) if kw else "the '('"
    line, col = _line_col(text, opened)
    return Diagnostic(
        "error",
        f"unmatched ')': it closes {what} of line {line}, column {col} too early",
        _point(text, close),
        hint="remove it: the lines after it are indented as if that form were still open",
    )


_NAMEISH = re.compile(r"'?[A-Za-z][A-Za-z0-9_-]*")
_VALID_NAME = re.compile(r"'?[A-Z][A-Z0-9]*(-[A-Z0-9]+)*")
_WORD_CHAR = re.compile(r"[^\s();]")
#: Terminals that start an action after '(' and terminals that start only a value.
_ACTION_TERMINALS = frozenset(
    {
        "MOVE",
        "REMEMBER",
        "FORGET",
        "SHUFFLE",
        "SET",
        "INC",
        "DEC",
        "CYCLE",
        "TURN",
        "REPEAT",
        "CREATE",
        "DO",
        "CHOICE",
        "LET",
        "SWAP",
    }
)
_VALUE_TERMINALS = frozenset(
    {
        "END_POS",
        "MINMAX",
        "ACTUAL",
        "OWNER",
        "OTHER",
        "SET_OP",
        "FILTER",
        "SORT",
        "RUN",
        "RUNS",
        "TUPLES",
        "SUBSETS",
        "PARTITION",
        "RANGE",
        "RANDOM",
        "ARITH_OP",
        "UNARY_INT",
        "SIZE",
        "SUM",
        "SCORE",
        "CARDATT",
        "COMPARE_OP",
        "BOOL_OP",
        "NOT",
        "INDEXED",
        "PID",
        "TID",
        "SCORE_EXTREME",
    }
)


@cache
def _terminal_patterns() -> dict[str, re.Pattern[str]]:
    return {t.name: re.compile(t.pattern.to_regexp()) for t in lark_parser().terminals}


def _keywords_allowed(allowed: set[str]) -> set[str]:
    """The keywords that the parser would accept where ``allowed`` terminals are."""
    pats = _terminal_patterns()
    return {k for k in KEYWORDS if any(n in pats and pats[n].fullmatch(k) for n in allowed)}


def _word_at(text: str, pos: int) -> tuple[int, str]:
    """The whole word (between spaces, parens and comments) around offset ``pos``."""
    start = pos
    while start > 0 and _WORD_CHAR.match(text[start - 1]):
        start -= 1
    end = pos
    while end < len(text) and _WORD_CHAR.match(text[end]):
        end += 1
    return start, text[start:end]


def _bad_word(text: str, start: int, word: str, allowed: set[str]) -> Diagnostic | None:
    """A word the lexer cannot read: a misspelt keyword or a badly written name."""
    span = _point(text, start, len(word))
    if re.fullmatch(r"[a-z][a-z-]*", word):
        after_paren = text[:start].rstrip().endswith("(")
        here = _keywords_allowed(allowed)
        hint = did_you_mean(word, KEYWORDS if after_paren or not here else here)
        if after_paren or hint or "NAME" not in allowed:
            return Diagnostic(
                "error",
                f"unknown keyword '{word}'",
                span,
                hint=hint or did_you_mean(word, KEYWORDS),
            )
    if _NAMEISH.fullmatch(word):
        var = word.startswith("'")
        fixed = word.upper().replace("_", "-")
        return Diagnostic(
            "error",
            f"'{word}' is not a valid {'variable' if var else 'name'}: names are upper-case "
            "letters, digits and '-' (HEARTS, TRICK-2), variables are a quote and a name "
            "('P), keywords are lower case",
            span,
            hint=f"write {fixed}" if _VALID_NAME.fullmatch(fixed) else None,
        )
    return None


def _syntax_diagnostic(source: SourceFile, err: UnexpectedInput) -> Diagnostic:
    text = source.text
    if isinstance(err, UnexpectedEOF) or (
        isinstance(err, UnexpectedToken) and err.token.type == "$END"
    ):
        if not _tokens(text):
            return Diagnostic(
                "error",
                "the file holds no game: expected (game ...)",
                _point(text, 0),
                hint=f"a game is written {_shape('game')}",
            )
        found = _find_unclosed(text, len(text))
        culprit = found[0] if found else next(_unclosed_candidates(text), (None, 0))[0]
        if culprit is None:
            return Diagnostic("error", "unexpected end of file", _point(text, len(text)))
        return _unclosed_diagnostic(text, culprit, None)
    if isinstance(err, UnexpectedCharacters):
        at = err.pos_in_stream or 0
        start, word = _word_at(text, at)
        diagnostic = _bad_word(text, start, word, set(err.allowed or ()))
        if diagnostic is not None:
            return diagnostic
        where = f" in '{word}'" if len(word) > 1 else ""
        return Diagnostic("error", f"unexpected character {text[at]!r}{where}", _point(text, at))
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    pos = tok.start_pos or 0
    span = _token_span(tok) if tok.line else _point(text, pos)
    expected = set(err.expected or ())
    if tok.type not in ("LPAR", "RPAR"):
        start, word = _word_at(text, pos)
        if len(word) > len(tok) and _NAMEISH.fullmatch(word):  # e.g. 'Hand' read as 'and'
            diagnostic = _bad_word(text, start, word, expected)
            if diagnostic is not None:
                return diagnostic
    open_forms = _open_forms(text, pos)
    keyword = next((kw for _, kw in reversed(open_forms) if kw), "")
    shape = _shape(keyword)
    hint = f"the form is written {shape}" if shape else None
    where = f" in {_label(keyword)}" if keyword else ""
    if len(open_forms) == 1 and "GAME" in expected:
        return Diagnostic(
            "error",
            f"a game file is one (game ...) form, not {_describe(tok)}",
            span,
            hint=f"it is written {_shape('game')}",
        )
    if tok.type == "RPAR":
        extra = _find_extra_close(text, pos)
        if extra is not None:
            return _extra_close_diagnostic(text, *extra)
        if not open_forms:
            return Diagnostic("error", "unmatched ')'", span, hint="remove it")
        msg = f"too few arguments in {_label(keyword)}" if keyword else "unexpected ')'"
        return Diagnostic("error", msg, span, hint=hint)
    unclosed = _find_unclosed(text, pos)
    if unclosed is not None:
        return _unclosed_diagnostic(text, unclosed[0], span)
    extra = _find_extra_close(text, pos)
    if extra is not None:
        return _extra_close_diagnostic(text, *extra)
    if not open_forms:
        if expected & {"$END", "<END-OF-FILE>"}:
            return Diagnostic(
                "error",
                f"unexpected {_describe(tok)} after the end of the game",
                span,
                hint="the whole game is one (game ...) form",
            )
        return Diagnostic(
            "error",
            "a game file is one (game ...) form",
            span,
            hint=f"it is written {_shape('game')}",
        )
    if tok.type in _ACTION_TERMINALS and "SIZE" in expected and "MOVE" not in expected:
        return Diagnostic(
            "error",
            f"({tok} ...) is an action, but "
            + (f"{_label(keyword)} needs" if keyword else "there must be")
            + " a value here",
            span,
            hint=hint,
        )
    if tok.type in _VALUE_TERMINALS and "MOVE" in expected and "SIZE" not in expected:
        return Diagnostic(
            "error",
            f"({tok} ...) is a value, but "
            + (f"{_label(keyword)} needs" if keyword else "there must be")
            + " an action here",
            span,
            hint="an action is move, remember, forget, shuffle, set, inc, dec, cycle, turn, "
            "repeat or a block; to act only when a condition holds write (CONDITION ACTION)",
        )
    if tok.type in ("SCORING", "SETUP", "DECLARE") and keyword != "game":
        return Diagnostic(
            "error",
            f"({tok} ...) cannot be{where}: a ')' is probably missing before it",
            span,
            hint=f"({tok} ...) goes directly in the game: {_shape('game')}",
        )
    if tok.type == "STAGE":
        return Diagnostic(
            "error",
            f"a stage cannot be nested{where}",
            span,
            hint="a stage goes directly in the game, in another stage or in a let",
        )
    if keyword and "RPAR" in expected:
        msg = f"too many arguments in {_label(keyword)}, or a missing ')' before {_describe(tok)}"
        return Diagnostic("error", msg, span, hint=hint)
    return Diagnostic("error", f"unexpected {_describe(tok)}{where}", span, hint=hint)


def _unclosed_diagnostic(text: str, paren: int, stop: Span | None) -> Diagnostic:
    kw = dict(_open_forms(text, stop.start_pos if stop else len(text))).get(paren, "")
    what = f"'(' of {_label(kw)}" if kw else "'('"
    if stop is None:
        return Diagnostic(
            "error",
            f"unclosed {what}: the file ends before it is closed",
            _point(text, paren),
            hint="add the missing ')' where this form ends (the next line at the same "
            "indentation suggests where)",
        )
    return Diagnostic(
        "error",
        f"unclosed {what}",
        _point(text, paren),
        hint=f"it is still open at line {stop.line}, column {stop.column}; add the "
        "missing ')' where this form ends",
    )


def _describe(tok: Token) -> str:
    if tok.type == "RPAR":
        return "')'"
    if tok.type == "LPAR":
        return "'('"
    return f"'{tok}'"


_TRAILING_PARENS = re.compile(r"^(\s|\)|;;[^\n]*)*$")


#: How deeply forms may nest.  Much deeper files would exhaust Python's recursion and
#: indentation limits in the later stages; written games stay far below (the corpus: 21).
MAX_NESTING = 64


def _too_deep(text: str) -> Diagnostic | None:
    depth = 0
    for tok, pos in _tokens(text):
        if tok == "(":
            depth += 1
            if depth > MAX_NESTING:
                return Diagnostic(
                    "error",
                    f"forms nested too deeply (more than {MAX_NESTING} levels)",
                    _point(text, pos),
                    hint="split the form: (let VALUE 'VAR ...) names a part",
                )
        elif tok == ")":
            depth = max(depth - 1, 0)
    return None


def parse(source: SourceFile) -> tuple[ast.Game, list[Diagnostic]]:
    """Parse a game file.  Returns the AST and warnings; raises GameFileError."""
    text = source.text.lstrip("\ufeff")
    warnings: list[Diagnostic] = []
    too_deep = _too_deep(text)
    if too_deep is not None:
        raise GameFileError(source, [too_deep])
    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as err:
        # CardStock ignores stray ')' after the game; so do we, with a warning.
        if (
            isinstance(err, UnexpectedToken)
            and err.token.type == "RPAR"
            and set(err.expected) <= {"$END", "<END-OF-FILE>"}
            and _TRAILING_PARENS.match(text[err.token.start_pos :])
        ):
            warnings.append(
                Diagnostic("warning", "stray ')' after the game is ignored", _token_span(err.token))
            )
            text = text[: err.token.start_pos]
            return parse_clean(source, text, warnings)
        raise GameFileError(source, [_syntax_diagnostic(source, err)]) from None
    return _build(source, tree), warnings


def parse_clean(
    source: SourceFile, text: str, warnings: list[Diagnostic]
) -> tuple[ast.Game, list[Diagnostic]]:
    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as err:
        raise GameFileError(source, [_syntax_diagnostic(source, err)]) from None
    return _build(source, tree), warnings


#: The longest integer literal (Python refuses to read ones over 4300 digits; no game
#: needs more than a few).
MAX_INT_DIGITS = 18


def _build(source: SourceFile, tree: Any) -> ast.Game:
    too_long = [
        Diagnostic(
            "error",
            f"integer {tok[:12]}... is too large (more than {MAX_INT_DIGITS} digits)",
            _token_span(tok),
        )
        for tok in tree.scan_values(
            lambda v: isinstance(v, Token) and v.type == "INT" and len(v) > MAX_INT_DIGITS
        )
    ]
    if too_long:
        raise GameFileError(source, too_long)
    try:
        return _ToAst().transform(tree)  # type: ignore[no-any-return]
    except VisitError as err:  # our bug, not the user's: keep the original
        raise err.orig_exc from err
