"""Text to AST: Lark's LALR parser over grammar/cardlang.lark, then a strict transformer.

Pipeline position: first stage.  ``parse(source)`` returns a ``Game`` node and a list of
warnings, or raises ``GameFileError`` with positioned diagnostics.  Syntax errors are
explained in terms of the form being written (its expected shape) and name the unclosed
``(`` rather than the end of the file.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedInput, v_args
from lark.exceptions import UnexpectedEOF, UnexpectedToken, VisitError

from cardlang import ast
from cardlang.errors import Diagnostic, GameFileError, SourceFile, did_you_mean
from cardlang.forms import FORM_SIGNATURES, KEYWORDS

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
        cache=False,
    )


def _span(meta: Any) -> Span:
    if getattr(meta, "empty", True) and not hasattr(meta, "line"):
        return Span.unknown()
    return Span(
        meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos
    )


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
        declares = tuple(c for c in ch if isinstance(c, ast.Declare))
        setup = next(c for c in ch if isinstance(c, ast.Setup))
        scoring = ch[-1]
        body = tuple(c for c in ch[len(declares) + 1 : -1])
        return ast.Game(declares, setup, body, scoring, span=_span(meta))

    def declare(self, meta: Any, ch: list[Any]) -> ast.Declare:
        return ast.Declare(ch[0], str(ch[1])[1:], span=_span(meta))

    def setup(self, meta: Any, ch: list[Any]) -> ast.Setup:
        return ast.Setup(tuple(ch), span=_span(meta))

    def scoring(self, meta: Any, ch: list[Any]) -> ast.Scoring:
        return ast.Scoring(str(ch[0]), ch[1], span=_span(meta))

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
        return ast.Choice(tuple(ch), span=_span(meta))

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
        return ast.Increment(ch[0], ch[1], 1, span=_span(meta))

    def dec(self, meta: Any, ch: list[Any]) -> ast.Increment:
        return ast.Increment(ch[0], ch[1], -1, span=_span(meta))

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

    def indexed(self, meta: Any, ch: list[Any]) -> ast.Node:
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
        return ast.Arith(str(ch[0]), ch[1], ch[2], span=_span(meta))

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
    return [(m.group(), m.start()) for m in _TOKEN_RE.finditer(text) if not m.group().startswith(";;")]


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def _point(text: str, pos: int, length: int = 1) -> Span:
    line, col = _line_col(text, pos)
    return Span(line, col, line, col + max(length, 1), pos, pos + length)


def _open_forms(text: str, upto: int) -> list[tuple[int, str]]:
    """The parens still open at offset ``upto``: (offset, keyword after it or '')."""
    stack: list[tuple[int, str]] = []
    toks = _tokens(text[:upto])
    for i, (tok, pos) in enumerate(toks):
        if tok == "(":
            nxt = toks[i + 1][0] if i + 1 < len(toks) else ""
            stack.append((pos, nxt if nxt in KEYWORDS else ""))
        elif tok == ")" and stack:
            stack.pop()
    return stack


def _suspect_unclosed(text: str) -> int | None:
    """Which '(' was most likely left unclosed, judged by indentation.

    Scans line by line: the first line that starts at or left of the column of a '(' that
    was opened on an earlier line and is still open shows where that '(' should have been
    closed.  Returns the offset of the innermost such '('.
    """
    stack: list[tuple[int, int]] = []  # (offset, column)
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.split(";;", 1)[0]
        indent = len(stripped) - len(stripped.lstrip())
        first = stripped.lstrip()[:1]
        if first and first != ")":
            culprits = [s for s in stack if s[1] >= indent]
            if culprits:
                return culprits[-1][0]
        for tok, pos in _tokens(stripped):
            if tok == "(":
                stack.append((offset + pos, pos))
            elif tok == ")" and stack:
                stack.pop()
        offset += len(line)
    return stack[-1][0] if stack else None


def _syntax_diagnostic(source: SourceFile, err: UnexpectedInput) -> Diagnostic:
    text = source.text
    pos = getattr(err, "pos_in_stream", None)
    if isinstance(err, UnexpectedEOF) or (
        isinstance(err, UnexpectedToken) and err.token.type == "$END"
    ):
        culprit = _suspect_unclosed(text)
        if culprit is None:
            return Diagnostic("error", "unexpected end of file", _point(text, len(text)))
        forms = dict(_open_forms(text, len(text)))
        kw = forms.get(culprit, "")
        what = f"'(' of ({kw} ...)" if kw else "'('"
        return Diagnostic(
            "error",
            f"unclosed {what}: the file ends before it is closed",
            _point(text, culprit),
            hint="add the missing ')' where this form ends (the next line at the same "
            "indentation suggests where)",
        )
    if isinstance(err, UnexpectedCharacters):
        word = re.match(r"[^\s()]+", text[err.pos_in_stream :])
        bad = word.group() if word else text[err.pos_in_stream]
        span = _point(text, err.pos_in_stream, len(bad))
        if re.fullmatch(r"[a-z][a-z-]*", bad):
            return Diagnostic(
                "error", f"unknown keyword '{bad}'", span, hint=did_you_mean(bad, KEYWORDS)
            )
        if re.fullmatch(r"'?[A-Za-z][A-Za-z0-9_-]*", bad):
            return Diagnostic(
                "error",
                f"'{bad}' is not a valid name: names are upper-case letters and digits "
                "(HEARTS, TRICK2), variables start with a quote ('P), keywords are lower case",
                span,
            )
        return Diagnostic("error", f"unexpected character {bad!r}", span)
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    pos = tok.start_pos or 0
    span = _token_span(tok) if tok.line else _point(text, pos)
    open_forms = _open_forms(text, pos)
    keyword = next((kw for _, kw in reversed(open_forms) if kw), "")
    shape = FORM_SIGNATURES.get(keyword)
    if tok.type == "RPAR" and not open_forms:
        return Diagnostic("error", "unmatched ')'", span, hint="remove it")
    if tok.type == "RPAR":
        msg = f"too few arguments in ({keyword} ...)" if keyword else "unexpected ')'"
    elif keyword:
        msg = f"unexpected {_describe(tok)} in ({keyword} ...)"
    else:
        msg = f"unexpected {_describe(tok)}"
    hint = f"the form is written {shape}" if shape else None
    if keyword and tok.type != "RPAR" and "RPAR" in err.expected:
        suspect = _suspect_unclosed(text)
        if suspect is not None and suspect < pos:
            kw = dict(_open_forms(text, pos)).get(suspect, "")
            return Diagnostic(
                "error",
                f"unclosed '(' of ({kw} ...)" if kw else "unclosed '('",
                _point(text, suspect),
                hint=f"it is still open at line {span.line}, column {span.column}; add the "
                "missing ')' where this form ends",
            )
        msg = f"too many arguments in ({keyword} ...), or a missing ')' before {_describe(tok)}"
    return Diagnostic("error", msg, span, hint=hint)


def _describe(tok: Token) -> str:
    if tok.type == "RPAR":
        return "')'"
    if tok.type == "LPAR":
        return "'('"
    return f"'{tok}'"


_TRAILING_PARENS = re.compile(r"^(\s|\)|;;[^\n]*)*$")


def parse(source: SourceFile) -> tuple[ast.Game, list[Diagnostic]]:
    """Parse a game file.  Returns the AST and warnings; raises GameFileError."""
    text = source.text.lstrip("\ufeff")
    warnings: list[Diagnostic] = []
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


def _build(source: SourceFile, tree: Any) -> ast.Game:
    try:
        return _ToAst().transform(tree)  # type: ignore[no-any-return]
    except VisitError as err:  # our bug, not the user's: keep the original
        raise err.orig_exc from err
