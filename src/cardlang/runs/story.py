"""A game told as a story: turn by turn, who played, drew, bought, what was revealed.

Pipeline position: runs, beside transcript.py (the low-level log, which stays as it is).
``tell_story`` replays a game from its seed and chosen option indices on the Python
engine (the reference; both engines give the same log) and tells it from the event log:
each decision by its readable label (``Game.option_text``: "Buy Province ($8)", "Play
the 7 of Hearts"), moves as sentences ("P0 draws Copper, Estate", "the stock is dealt:
P0 gets 13 cards ..."), a header at each turn (``Gamemaster._stage_pass`` is where a
turn starts: a Gamemaster of this module's notes where in the log each one began), and
the result.

With ``seat`` the story is that seat's view, by the rule views and knowledge follow
(``information.visibility.can_see``): a card is named when the seat sees where it was
or where it went, else it is "a card" (a count for several); another seat's decision is
labelled with what the seat sees of it (its options' cards before and after the move),
and a secret pick of a ``(simultaneous ...)`` block is told only when it is revealed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardlang.engine.frames import F_PLAYER
from cardlang.engine.game import Game
from cardlang.engine.gamemaster import Gamemaster, GameResult, Limits
from cardlang.engine.labels import SeesCard, card_title, words
from cardlang.engine.owners import GAME_OWNER, ZoneKey, owner_words
from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import Gamestate
from cardlang.information.visibility import can_see, seer
from cardlang.language import types as T
from cardlang.runs.ending import Ending, ending_of, score_lines
from cardlang.runs.transcript import render_result

#: The names of the places a player plays cards to (a trick, cards in play): a move there
#: is "plays", and a table shows them in the middle, the seats around it.
PLAY_PLACES = frozenset({"PLAY", "PLAYED", "IN-PLAY", "TABLE", "TRICK", "PILE", "FIELD", "BOARD"})
#: Up to this many cards are listed one by one; more are counted by name ("Copper x4").
_LISTED = 4


class _MarkingMaster(Gamemaster[Game]):
    """The Python engine's Gamemaster, noting where in the event log each stage pass
    (each turn) began: ``marks`` holds (log position, turn number, current seat)."""

    def __init__(self, game: Game, limits: Limits | None = None) -> None:
        super().__init__(game, limits)
        self.marks: list[tuple[int, int, int]] = []

    def _stage_pass(self, st: Gamestate, frame: list[Any]) -> None:
        super()._stage_pass(st, frame)
        if st.log is not None:
            self.marks.append((len(st.log), st.turns, frame[F_PLAYER]))


@dataclass
class _Decision:
    """What the story says of one decision: its label, and the cards it names (whose
    moves it need not tell again)."""

    label: str | None  # None: a secret pick the reader does not see
    cards: frozenset[int]
    secret: bool = False


@dataclass
class _Turn:
    number: int
    seat: int
    lines: list[str] = field(default_factory=list)


def tell_story(
    game: Game,
    seed: int,
    choices: Sequence[int],
    result: GameResult,
    agent_names: Sequence[str],
    limits: Limits | None = None,
    seat: int | None = None,
) -> str:
    """The story of the game played from ``seed`` with option indices ``choices``
    (``result``: how it ended), told to everyone or, with ``seat``, as that seat saw it."""
    master = _MarkingMaster(game, limits)
    st = master.new_game(seed, record=True)
    table = open_table(game, st)  # what lies open on the table as play begins
    decisions: dict[int, _Decision] = {}  # log position of a decision event -> its story
    reveals: list[str] = []  # the labels of secret picks, in the order they are revealed
    for index in choices:
        if st.is_over:
            break
        options = master.legal_options(st)
        option = options[index]
        choice, mover = st.pending, st.mover
        at = len(st.log or ())
        before = st.clone()
        master.apply(st, index)
        secret = bool(getattr(choice, "secret", False))
        cards = named_cards(game, before, option)
        full = game.option_text(before, option, choice, mover=mover)
        if secret:
            reveals.append(full)
        if seat is None or seat == mover and not secret:
            label: str | None = full
        elif secret:
            label = full if seat == mover else None
        else:
            label = game.option_text(
                before,
                option,
                choice,
                mover=mover,
                sees_card=seen_before_or_after(seat, before, st),
                sees_zone=seer(seat),
            )
        decisions[at] = _Decision(label, cards, secret)
    teller = _Teller(st, seat, decisions, reveals, game.checked.presentation.displays)
    head = [
        f"{game.source.name}, seed {seed}" + ("" if seat is None else f", as seen by P{seat}"),
        "players: " + ", ".join(f"P{i} {a}" for i, a in enumerate(agent_names)),
        *table,
        "",
    ]
    body = teller.tell(st.log or [], master.marks)
    return "\n".join([*head, *body, "", *_told_end(master, st, game, result, seat)])


def _told_end(
    master: Engine, st: EngineState, game: Game, result: GameResult, seat: int | None
) -> list[str]:
    """The result, after why the game ended and the scores line by line where the game
    says so (its ``(end-reason ...)`` and ``(score-part ...)``)."""
    ending = ending_of(master, st, game) if result.completed else Ending()
    lines = [ending.reason + "."] if ending.reason else []
    if ending.parts:
        lines += score_lines(ending, result.scores, seat)
    return [*lines, render_result(result)]


def open_table(game: Game, st: EngineState) -> list[str]:
    """The game's open locations as play begins, one line per name (indexed ones, a
    Supply: each pile by its top card and size), as the game displays them; bookkeeping
    left out.  Dominion's kingdom, told at the start of its story."""
    shows = game.checked.presentation
    lines: dict[str, list[str]] = {}
    for (owner, kind, name), cards in st.zones.items():
        base = name.partition("#")[0]
        if owner != GAME_OWNER or kind != "vloc" or not cards or (kind, base) in shows.bookkeeping:
            continue
        title = shows.displays.get((kind, base), words(base))
        top = card_title(st.cards[cards[-1]]).removeprefix("the ")
        lines.setdefault(title, []).append(f"{top} {len(cards)}" if len(cards) > 1 else top)
    return [f"{title}: {', '.join(piles)}" for title, piles in lines.items()]


def tell_events(
    st: EngineState,
    events: Sequence[tuple[Any, ...]],
    seat: int | None,
    named: Iterable[int] = (),
    reveals: Sequence[str] = (),
    displays: Mapping[tuple[str, str], str] | None = None,
    worth: Mapping[int, str] | None = None,
) -> list[str]:
    """The sentences of a stretch of the event log (what one move set off: the cards it
    moved, a showdown, a shuffle, a reveal), told to ``seat`` as the story tells them
    (a card the seat saw neither where it was nor where it went is "a card"); ``named``:
    the cards the move's own label names, whose first move is not told again;
    ``reveals``: the labels of the secret picks the stretch reveals, in order;
    ``displays``: the game's names for its locations ((display ...)); ``worth``: what
    the stretch gained each seat that gained ("2 points"), told with a trick it won.  Decisions
    in the stretch are left to the caller (``cardlang.interactive`` tells each move by
    its label)."""
    teller = _Teller(st, seat, {}, list(reveals), displays, worth)
    return teller.tell_moves([e for e in events if e[0] != "decision"], set(named))


#: Verbs a label may start with, whose third person the story uses ("P0 buys ...").
_VERBS = frozenset(
    """acquire add bet buy call check choose discard don't draw end fold gain give go keep
    leave lower move pass pay pick play put raise reveal set shuffle skip stop take trash
    use""".split()
)


def said(who: str, label: str | None) -> str:
    """A decision in the story: "P0 buys Province ($8)" for a label that starts with a
    verb ("Buy Province ($8)"), "P0 chooses: ..." for any other."""
    if not label:
        return f"{who} chooses"
    if label.partition(" ")[0].lower() not in _VERBS:
        return f"{who} chooses: {label}"
    # every verb of the label: "Trash Estate and draw 2" -> "trashes Estate and draws 2"
    phrases = [
        " and ".join(_third_person(part) for part in p.split(" and ")) for p in label.split(", ")
    ]
    text = ", ".join(phrases)
    text = re.sub(r"\byour\b", "their", text)
    text = re.sub(r"\byou\b", "them", text)
    return f"{who} {text}"


def _third_person(phrase: str) -> str:
    """ "Buy Province" -> "buys Province" (a phrase that starts with a known verb)."""
    first, _, rest = phrase.partition(" ")
    verb = first.lower()
    if verb not in _VERBS:
        return phrase
    if verb == "don't":
        third = "doesn't"
    elif verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        third = verb + "es"
    else:
        third = verb + "s"
    return third + (f" {rest}" if rest else "")


def seen_before_or_after(seat: int, before: Any, after: Any) -> SeesCard:
    """Whether ``seat`` sees a card where it was before a move or where it is after
    (the rule a move's label and story follow for another seat's move)."""

    def sees(card: int) -> bool:
        return any(
            zone is not None and can_see(seat, zone)
            for zone in (before.card_zone[card], after.card_zone[card])
        )

    return sees


def named_cards(game: Game, st: Any, option: Sequence[Any]) -> frozenset[int]:
    """The cards an option's label names: those it binds (one, or a collection), and the
    top cards of the locations it binds."""
    found: set[int] = set()
    types = game.checked.slot_types
    for fn, arg in option:
        if fn is not None:
            continue
        slot, value, _ = arg
        t = types.get(slot)
        if t == T.CARD and value is not None:
            found.add(value)
        elif t in (T.LOC, T.MEMLOC):
            cards = st.zones.get(value) or ()
            if cards:
                found.add(cards[-1])
        elif isinstance(value, list | tuple):  # a collection of cards
            found.update(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return frozenset(found)


class _Teller:
    """Turns the event log into the story's lines (see the module docstring)."""

    def __init__(
        self,
        st: EngineState,
        seat: int | None,
        decisions: dict[int, _Decision],
        reveals: list[str],
        displays: Mapping[tuple[str, str], str] | None = None,
        worth: Mapping[int, str] | None = None,
    ) -> None:
        self.displays = displays or {}  # (kind, name) -> the game's name for people
        self.worth = worth or {}  # seat -> what it gained ("2 points")
        self.st = st
        self.seat = seat
        self.decisions = decisions
        self.reveals = list(reversed(reveals))

    def sees(self, key: ZoneKey) -> bool:
        return self.seat is None or can_see(self.seat, key)

    def tell(
        self, events: Sequence[tuple[Any, ...]], marks: list[tuple[int, int, int]]
    ) -> list[str]:
        turns: list[_Turn] = [_Turn(0, -1)]  # 0: the setup
        marks = sorted(marks)
        m = 0
        told: set[int] = set()  # cards the last decision named, until they first move
        i = 0
        while i < len(events):
            while m < len(marks) and marks[m][0] <= i:
                _, number, current = marks[m]
                if number != turns[-1].number:
                    turns.append(_Turn(number, current))
                else:
                    turns[-1].seat = current
                m += 1
            event = events[i]
            kind = event[0]
            lines = turns[-1].lines
            if kind == "move":
                i = self._tell_run(events, i, marks, m, told, lines)
                continue
            if kind == "decision":
                d = self.decisions.get(i)
                told = set(d.cards) if d is not None else set()
                mover = event[1]
                if d is None:
                    lines.append(f"P{mover} chooses")
                elif d.secret:
                    if d.label is None:
                        lines.append(f"P{mover} picks in secret")
                    else:
                        lines.append(f"P{mover} picks in secret: {d.label}")
                else:
                    lines.append(said(f"P{mover}", d.label))
            elif kind == "reveal":
                label = self.reveals.pop() if self.reveals else event[2]
                lines.append(f"P{event[1]} reveals their pick: {label}")
            elif kind == "shuffle":
                lines.append(f"({self.location(event[1])} shuffled)")
            i += 1
        out: list[str] = []
        for turn in turns:
            if not turn.lines:
                continue
            out.append("Setup" if turn.number == 0 else f"Turn {turn.number}: P{turn.seat}")
            out.extend(f"  {line}" for line in turn.lines)
        return out

    def tell_moves(self, events: Sequence[tuple[Any, ...]], told: set[int]) -> list[str]:
        """The sentences of a stretch of the log with no decision and no turn in it."""
        lines: list[str] = []
        i = 0
        while i < len(events):
            event = events[i]
            if event[0] == "move":
                i = self._tell_run(events, i, [], 0, told, lines)
                continue
            if event[0] == "reveal":
                label = self.reveals.pop() if self.reveals else None
                lines.append(f"P{event[1]} reveals their pick" + (f": {label}" if label else ""))
            elif event[0] == "shuffle":
                lines.append(f"({self.location(event[1])} shuffled)")
            i += 1
        return lines

    def _tell_run(
        self,
        events: Sequence[tuple[Any, ...]],
        i: int,
        marks: list[tuple[int, int, int]],
        m: int,
        told: set[int],
        lines: list[str],
    ) -> int:
        """Tell the run of moves that starts at ``events[i]`` (the moves from one place to
        one place, or a deal; storage changes between them, which the story does not
        tell, skipped over) but the first moves of the cards in ``told``; the index after
        the run."""
        event = events[i]
        run = [event]
        j = k = i + 1
        while k < len(events) and events[k][0] in ("move", "set", "create", "remember"):
            if events[k][0] == "move":
                if not self._joins(event, events[k], k, marks, m):
                    break
                run.append(events[k])
                j = k + 1
            k += 1
        shown = [e for e in run if e[1] not in told]
        told.difference_update(e[1] for e in run)
        if shown:
            lines.extend(self.moves(shown))
        return j

    @staticmethod
    def _joins(
        first: tuple[Any, ...],
        other: tuple[Any, ...],
        at: int,
        marks: list[tuple[int, int, int]],
        m: int,
    ) -> bool:
        """Whether a move belongs to the run that ``first`` starts: from the same place to
        the same place, or the same kind of place of another owner (a deal), or from the
        same kind of place of another player to the same place (a gather: a trick won);
        a turn that begins between them ends the run."""
        if m < len(marks) and marks[m][0] <= at:
            return False
        src, dst = first[2], first[3]
        if other[2] == src:
            return other[3] == dst or other[3][1:] == dst[1:]
        # a gather: the same kind of place of other players into one place (a trick)
        return other[3] == dst and other[2][1:] == src[1:] and src[0] >= 0 and other[2][0] >= 0

    # ------------------------------------------------------------ words
    def location(self, key: ZoneKey) -> str:
        owner, kind, name = key
        base, _, index = name.partition("#")
        shown = self.displays.get((kind, base))
        # the game's name for it ("the Supply": a pile is told by its cards), else its own
        if shown:
            place = shown[0].lower() + shown[1:]  # mid-sentence: "P0's discard pile"
        else:
            place = words(base).lower() + (f" {index}" if index else "")
        if owner == GAME_OWNER:
            return f"the {place}"
        return f"{owner_words(owner)}'s {place}"

    def cards_text(self, run: Sequence[tuple[Any, ...]]) -> str:
        shown = []
        hidden = 0
        for _, card, src, dst, _ in run:
            if self.sees(src) or self.sees(dst):
                shown.append(card_title(self.st.cards[card]))
            else:
                hidden += 1
        counts = Counter(shown)
        if len(shown) <= _LISTED and len(counts) == len(shown):
            listed = shown
        else:
            listed = [n if k == 1 else f"{n} x{k}" for n, k in counts.items()]
        if hidden:
            listed.append("a card" if hidden == 1 else f"{hidden} cards")
        return ", ".join(listed)

    def moves(self, run: Sequence[tuple[Any, ...]]) -> list[str]:
        """One sentence for a run of moves (a deal: one per receiver)."""
        src = run[0][2]
        sources = list(dict.fromkeys(e[2] for e in run))
        if len(sources) > 1:  # a gather from several players' places into one
            return [self.gathered(sources, run[0][3], self.cards_text(run))]
        owners = list(dict.fromkeys(e[3] for e in run))
        if len(owners) > 1:  # a deal
            parts = [
                f"{self.owner_word(dst[0])} gets {self.cards_text([e for e in run if e[3] == dst])}"
                for dst in owners
            ]
            return [f"{self.location(src)} is dealt: " + "; ".join(parts)]
        return [self.sentence(src, owners[0], self.cards_text(run))]

    def gathered(self, sources: Sequence[ZoneKey], dst: ZoneKey, what: str) -> str:
        """The cards of several players' places gathered into one: a trick won ("P1 wins
        the trick: ...") where they were played, else "P1 collects ... from ..."."""
        taker = self.owner_word(dst[0])
        if sources[0][2].partition("#")[0] in PLAY_PLACES and dst[0] >= 0:
            gained = self.worth.get(dst[0])
            return f"{taker} wins the trick" + (f" ({gained})" if gained else "") + f": {what}"
        places = " and ".join(self.location(src) for src in sources)
        return f"{taker} collects {what} from {places}"

    def owner_word(self, owner: int) -> str:
        if owner == GAME_OWNER:
            return "the game"
        return owner_words(owner)

    def sentence(self, src: ZoneKey, dst: ZoneKey, what: str) -> str:
        s_owner, s_kind, s_name = src
        d_owner, d_kind, d_name = dst
        s_base, d_base = s_name.partition("#")[0], d_name.partition("#")[0]
        actor = s_owner if s_owner >= 0 else d_owner
        who = self.owner_word(actor) if actor >= 0 else None
        from_game = s_owner == GAME_OWNER
        if who is not None:
            if d_base == "HAND" and d_owner == actor:
                if s_kind == "hloc" or (from_game and s_kind == "iloc") or s_base == "DECK":
                    return f"{who} draws {what}"
                if from_game:
                    return f"{who} takes {what} from {self.location(src)}"
                return f"{who} takes {what} back from {self.location(src)}"
            if s_owner >= 0 and 0 <= d_owner != s_owner:
                if d_base == "HAND":
                    return f"{who} gives {what} to P{d_owner}"
                return f"P{d_owner} takes {what} from {self.location(src)}"
            if d_base in PLAY_PLACES and s_owner == actor:
                return f"{who} plays {what}"
            if from_game and s_kind == "vloc" and d_owner == actor:  # from an open pile
                if d_base.startswith("DISCARD"):
                    return f"{who} gains {what}"
                return f"{who} gains {what} to {self.location(dst)}"
            if d_base.startswith("DISCARD"):
                if from_game:
                    return f"{who} takes {what} from {self.location(src)} (to the discard)"
                if s_base == "HAND":
                    return f"{who} discards {what}"
                return f"{who} discards {what} from {self.location(src)}"
            if d_base == "TRASH":
                return f"{who} trashes {what}"
            if d_base.startswith("REVEAL"):
                return f"{who} reveals {what}"
            if from_game and d_owner == actor:
                return f"{who} takes {what} from {self.location(src)} to {self.location(dst)}"
            return f"{who} puts {what} from {self.location(src)} into {self.location(dst)}"
        return f"{what}: {self.location(src)} -> {self.location(dst)}"
