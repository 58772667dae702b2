"""What a seat is told of each move: the game's story from that seat's side.

Each move is told by its readable label (``Game.option_text``) as the seat may read it:
a card the seat saw neither before the move nor after it is "a card" ("P1 (random):
Pass a card"; a card played face up is named).  A secret pick of a ``(simultaneous
...)`` block is told only as "a move you cannot see" until every pick is revealed.
What the move set off (the cards it moved, a trick taken, a showdown, a shuffle) follows
in ``Line.then``, told by the story's rules (``runs.story.tell_events``) from the seat's
side.  Its own moves are told as they are.

Pipeline position: cardlang.interactive (reads states through the engine's public parts
and the visibility rule of cardlang.information).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cardlang.agents.specs import short_name
from cardlang.information.visibility import seer
from cardlang.runs.story import named_cards, seen_before_or_after, tell_events


def seat_name(seat: int, spec: str) -> str:
    """A seat as a table names it: "P1 · ISMCTS" (its agent in a word; the spec itself
    where a person asks: the web page's tooltip, the command line)."""
    return f"P{seat} \u00b7 {short_name(spec)}"


@dataclass(frozen=True)
class Line:
    """One move as a seat is told it."""

    mover: int
    who: str  # the mover's agent ("random", "person")
    turn: int
    text: str  # "You: Pass the 7 of Hearts", "P1 · Random: Play the Queen of Spades"
    hidden: bool  # the move was told without its label
    then: tuple[str, ...] = ()  # what the move set off: "P1 takes the Queen of Clubs ..."


class Teller:
    """Tells each move to the seats ``tell`` (seat numbers): ``before`` as the move is
    chosen (before it is applied), ``after`` once it is applied.  Each seat reads the
    move's readable label (``Game.option_text``) as it may know it: a card it saw neither
    before the move nor after it is "a card"."""

    def __init__(self, game: Any, tell: Iterable[int]) -> None:
        self.game = game
        self.tell = tuple(tell)
        checked = getattr(game, "checked", None)  # the game's names for its locations
        shows = checked.presentation if checked is not None else None
        self.displays = shows.displays if shows is not None else {}
        # what a trick won is worth: the change of the taker's (table-score ...)
        self.score_text = (shows.table_score_text or "") if shows is not None else ""
        self._scorer: Any = None  # a master that evaluates table scores, made once
        self._pending: _Pending | None = None
        #: the labels of secret picks made and not revealed yet, in the order made (a
        #: reveal tells them all, in that order: runs/story.py)
        self._picks: list[str] = []

    def before(self, st: Any, mover: int, who: str, option: Sequence[Any], label: str) -> None:
        """The move ``option`` of ``mover`` (``label``: as the mover reads it) is about
        to be applied to ``st``."""
        cards = named_cards(self.game, st, option)
        situation = st.pending.situation if st.pending is not None else ""
        text = self.game.situations.get(situation, situation) if situation else ""
        # the state before the move: each seat's label is made once the move is applied
        # (a card played face up is seen after it); a person's pace makes the copy cheap
        at = len(st.log or ())  # the log before the move: what it sets off comes after
        self._pending = _Pending(mover, who, label, text, st.turns, cards, option, st.clone(), at)

    def after(self, st: Any) -> dict[int, Line]:
        """The line each seat is told of the move just applied ({} when none is pending)."""
        move, self._pending = self._pending, None
        if move is None:
            return {}
        secret = st.pick_count() > 0  # a (simultaneous ...) block's picks not revealed
        events = (st.log or [])[move.log_at :]
        revealed = sum(1 for e in events if e[0] == "reveal")
        # a secret pick waits for the others (one more unrevealed) or, the last of its
        # block, sets off the reveal: its label is told with the reveal
        if st.pick_count() > move.before.pick_count() or revealed:
            self._picks.append(move.label)
        reveals, self._picks = self._picks[:revealed], self._picks[revealed:]
        worth = self._worth(move.before, st)
        lines: dict[int, Line] = {}
        for s in self.tell:
            # the cards its label names: their first moves are not told again
            then = tuple(tell_events(st, events, s, move.cards, reveals, self.displays, worth))
            if s == move.mover:
                text = f"You: {move.label}"
                lines[s] = Line(move.mover, move.who, move.turn, text, False, then)
                continue
            saw = seen_before_or_after(s, move.before, st)
            hidden = secret or not all(saw(c) for c in move.cards)
            if secret:  # a secret pick: only that a move was made, until it is revealed
                text = f"{seat_name(move.mover, move.who)} made a move you cannot see" + (
                    f" ({move.situation})" if move.situation else ""
                )
            else:
                text = f"{seat_name(move.mover, move.who)}: {self._label_for(s, move, st)}"
            lines[s] = Line(move.mover, move.who, move.turn, text, hidden, then)
        return lines

    def _worth(self, before: Any, after: Any) -> dict[int, str]:
        """What the move gained each seat whose table score changed, in the score's
        words ("2 points"; public: the checker holds a table score to what every player
        sees): a trick won is told with it."""
        if not self.score_text or getattr(self.game, "table_score", None) is None:
            return {}
        if self._scorer is None:
            self._scorer = getattr(after, "master", None) or self.game.master(engine="python")
        old, new = self._scorer.table_scores(before), self._scorer.table_scores(after)
        name = self.score_text.lower()
        return {
            seat: f"{b - a} {name[:-1] if abs(b - a) == 1 and name.endswith('s') else name}"
            for seat, (a, b) in enumerate(zip(old, new, strict=True))
            if b != a
        }

    def _label_for(self, seat: int, move: _Pending, after: Any) -> str:
        return str(
            self.game.option_text(
                move.before,
                move.option,
                move.before.pending,
                mover=move.mover,
                sees_card=seen_before_or_after(seat, move.before, after),
                sees_zone=seer(seat),
            )
        )


@dataclass(frozen=True)
class _Pending:
    """A move told once it is applied."""

    mover: int
    who: str
    label: str  # as the mover reads it
    situation: str  # the situation's text
    turn: int
    cards: frozenset[int]  # the cards its label names
    option: Sequence[Any]
    before: Any  # a copy of the state before it
    log_at: int  # the length of the event log before it
