"""A game file's rules fingerprint: what a model or a table learnt is bound to.

Two files have the same fingerprint when they hold the same rules token for token: their
comments, layout, ``(label "TEXT" ...)`` wrappers and presentation forms (``(display
...)``, ``(bookkeeping ...)``, ``(face-down ...)``, ``(hand-order ...)``, ``(table-score
...)``, ``(end-reason ...)``, ``(score-part ...)``, a card kind's ``(text "...")``: for
people, changing nothing that plays: docs/language.md) and ``(parameter-values ...)``
(which values ``--param`` may take) do not count.  So writing a
game's labels or how a table shows it, or re-indenting it, keeps the models trained on
it, while any change to what is played (a cost, a card, a rule) makes a new fingerprint.

Pipeline position: language (it reads the text alone, with the grammar's lexical rules:
``;;`` comments, strings without newlines).
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["rules_fingerprint", "rules_tokens"]

# grammar/cardlang.lark: STRING /"[^"\\\n]*"/, COMMENT /;;[^\n]*/
_TOKEN = re.compile(r'"[^"\\\n]*"|;;[^\n]*|\s+|[()]|[^\s()";]+|.')


#: The heads of the forms for people that are dropped whole (grammar/cardlang.lark).
PRESENTATION_FORMS = frozenset(
    {
        "display",
        "bookkeeping",
        "face-down",
        "hand-order",
        "table-score",
        "end-reason",
        "score-part",
        "text",
        "card-badge",
        "card-colour",
        "display-values",
        "during-turn",
        "round-number",
    }
)


#: Forms that decide which games may be set up, never how one is played: dropped too.
SETUP_CHECK_FORMS = frozenset({"parameter-values"})
_DROPPED = PRESENTATION_FORMS | SETUP_CHECK_FORMS


def rules_tokens(text: str) -> list[str]:
    """The text's tokens without comments, layout, label wrappers or presentation forms."""
    tokens = [t for t in _TOKEN.findall(text) if not t.isspace() and not t.startswith(";;")]
    return _unwrap_labels(_drop_presentation(tokens))


def _drop_presentation(tokens: list[str]) -> list[str]:
    """``( display ... )`` and the other presentation forms removed, at every depth
    (their heads are keywords: lower case, unlike every name a game defines)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] == "(" and tokens[i + 1 : i + 2] and tokens[i + 1] in _DROPPED:
            depth = 0
            while i < len(tokens):  # skip to the matching ")"
                depth += {"(": 1, ")": -1}.get(tokens[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(tokens[i])
        i += 1
    return out


def rules_fingerprint(text: str) -> str:
    """The SHA-256 of the rules' tokens (hex)."""
    return hashlib.sha256("\n".join(rules_tokens(text)).encode()).hexdigest()


def _unwrap_labels(tokens: list[str]) -> list[str]:
    """``( label "TEXT" X )`` -> ``X``, at every depth."""
    out: list[str] = []
    closers: list[bool] = []  # per open paren: whether its ")" closes a label (dropped)
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t == "(":
            is_label = tokens[i + 1 : i + 2] == ["label"] and tokens[i + 2 : i + 3] != []
            is_label = is_label and tokens[i + 2].startswith('"')
            closers.append(is_label)
            if is_label:
                i += 3
                continue
        elif t == ")" and closers and closers.pop():
            i += 1
            continue
        out.append(t)
        i += 1
    return out
