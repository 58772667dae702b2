"""A person's seat in a terminal: the table as text, options by number or by label.

At each of the seat's decisions the terminal shows the table (table.py: your cards, the
open zones, the sizes of the rest, the storages, the situation's text) and the options,
numbered.  The person answers with

- a number (an option);
- words from an option's label ("province", "play smithy"): the option whose label holds
  them, when only one does;
- several answers separated by commas ("copper, copper, estate" for Cellar; three cards
  at Hearts' pass): the first now, the next ones at the decisions that follow while they
  are of the same kind (a situation's name without its number) and name an option; an
  answer that cannot be used is named and dropped with the rest;
- ``?``: each option's value as the advisor estimates it (a search agent; slow on big
  games, so only on demand); ``? NAME``: what the card NAME says (its ``(text ...)``);
- ``t``: the table again; ``h``: this help; ``q``: leave the game (nothing recorded).

The table is laid out for an 80x24 terminal: indexed locations (a Supply) in columns,
the options in columns when they are many, the seat's own move said back.

The others' moves are told as the seat may know them (teller.py: a move that names a
card the seat cannot see is told without its label).  Input and output are streams, so
tests play a whole game through it.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from cardlang.interactive.session import Abandoned, Advice, Session
from cardlang.interactive.table import SUITS, Table, Zone, option_order, with_faces
from cardlang.interactive.teller import Teller
from cardlang.runs.ending import Ending, score_lines

HELP = (
    "answer with an option's number or words from its label (several, comma separated, "
    "for a decision that repeats); ? advice, ? CARD its text, t the table, h help, q leave"
)
#: The terminal's width: the table and the options are laid out to fit it.
WIDTH = 80


def shows_symbols(stream: IO[str]) -> bool:
    """Whether ``stream`` can print the suit symbols (else the plain words stay)."""
    try:
        "".join(SUITS.values()).encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class TerminalFront:
    def __init__(
        self,
        stdin: IO[str] | None = None,
        stdout: IO[str] | None = None,
        *,
        catch_up: Callable[[], None] | None = None,
    ) -> None:
        """``catch_up`` is called before each decision (to tell the moves made since)."""
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.catch_up = catch_up
        self.queued: list[str] = []  # answers given ahead, for the decisions that follow
        self.piles = PileMemory()  # each pile's card and first size (see PileMemory)
        self.symbols = shows_symbols(self.stdout)  # suit symbols where it can print them
        self.queued_for = ""  # the situation they were given at

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def decide(self, table: Table, advise: Callable[[], Advice]) -> int:
        if self.catch_up is not None:
            self.catch_up()
        order = option_order(table)  # as the hand is sorted: numbers follow this order
        shown = tuple(table.options[i] for i in order)
        ahead = self._queued_choice(table, order, shown)
        if ahead is not None:
            return ahead
        self.say(self._table(table))
        while True:
            self.say(render_options(shown))
            answers = [a.strip() for a in self._ask().split(",") if a.strip()] or [""]
            answer = answers[0]
            choice = match_answer(answer, shown)
            if isinstance(choice, int):
                self.queued, self.queued_for = answers[1:], table.situation
                self.say(f"you: {shown[choice]}")
                return order[choice]
            if answer in ("?", "advice"):
                self.say(render_advice(shown, advise().reordered(order)))
            elif answer.startswith("?"):
                self.say(card_text(table, answer[1:].strip()))
            elif answer in ("t", "table"):
                self.say(self._table(table, whole=True))
            elif answer in ("h", "help"):
                self.say(HELP)
            else:
                self.say(choice)  # why the answer names no option

    def _table(self, table: Table, whole: bool = False) -> str:
        """The table; after the first, the Supply by the piles that changed (``whole``:
        every pile, as ``t`` asks)."""
        compact = not whole and bool(self.piles.first)
        return render_table(table, piles=self.piles, symbols=self.symbols, compact=compact)

    def _queued_choice(self, table: Table, order: list[int], shown: tuple[str, ...]) -> int | None:
        """The next answer given ahead, if this decision is of the kind it was given
        for (Cellar's discards; Hearts' three passes, ``PASS-1`` to ``PASS-3``, are one
        kind) and it names one of its options; else the queue is dropped, and said so."""
        if not self.queued:
            return None
        if decision_kind(table.situation) != decision_kind(self.queued_for):
            self._drop("this is another decision")
            return None
        answer = self.queued.pop(0)
        choice = match_answer(answer, shown)
        if not isinstance(choice, int):
            self.queued.insert(0, answer)
            self._drop(f"{answer!r} is not one of this decision's options")
            return None
        self.say(f"you: {shown[choice]}")
        return order[choice]

    def _drop(self, why: str) -> None:
        """An answer given ahead that cannot be used is named, never lost silently."""
        dropped = ", ".join(repr(a) for a in self.queued)
        self.say(f"not used: {dropped} ({why})")
        self.queued = []

    def _ask(self) -> str:
        self.stdout.write("> ")
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:  # end of input: the person is gone
            raise Abandoned("no more input")
        answer = line.strip()
        if answer.lower() in ("q", "quit"):
            raise Abandoned("left the game")
        return answer.lower()


def decision_kind(situation: str) -> str:
    """A situation without its number: the decisions a queue of answers may serve
    (Hearts' ``PASS-1``, ``PASS-2``, ``PASS-3`` are one kind)."""
    return re.sub(r"[-_ ]*[0-9]+$", "", situation)


def match_answer(answer: str, labels: tuple[str, ...]) -> int | str:
    """The option an answer names (its index), or why it names none."""
    if answer.isdigit():
        n = int(answer)
        if 1 <= n <= len(labels):
            return n - 1
        return f"there are options 1 to {len(labels)}"
    if answer in ("?", "advice", "t", "table", "h", "help", ""):
        return HELP
    words = answer.split()
    found = [i for i, label in enumerate(labels) if all(w in label.lower() for w in words)]
    distinct = {labels[i] for i in found}
    if len(distinct) == 1:  # equal labels (two copies of a card) are one choice
        return found[0]
    if not found:
        return f"no option's label holds {answer!r}; {HELP}"
    return f"{len(distinct)} options match {answer!r}: say more, or use the number"


def _owner(zone: Zone) -> str:
    """The owner as a prefix: none for one's own zones and the game's."""
    return "" if zone.owner in ("you", "game") else f"{zone.owner} "


def render_zone(zone: Zone, symbols: bool = False) -> list[str]:
    """A zone's line: its cards, wrapped between cards (never inside a card's name);
    standard cards by their suit symbols where the terminal shows them."""
    owner = _owner(zone)
    if zone.cards is None:
        return [f"  {owner}{zone.name}: {zone.size} card{'s' if zone.size != 1 else ''}"]
    cards = [with_faces(c) if symbols else c for c in zone.cards]
    return wrap_items(f"  {owner}{zone.name}: ", cards or ["(empty)"])


def wrap_items(head: str, items: list[str], separator: str = ", ") -> list[str]:
    """``head`` then ``items`` joined by ``separator``, broken between items where a
    line would pass the width; the next lines indented under the first item.  An item
    longer than a line is broken between its words."""
    lines = [head]
    indent = " " * len(head)
    for i, item in enumerate(items):
        last = i == len(items) - 1
        piece = item if last else item + separator.rstrip()
        start = lines[-1] in (head, indent)
        joined = lines[-1] + ("" if start else " ") + piece
        if len(joined) <= WIDTH:
            lines[-1] = joined
            continue
        if not start:
            lines.append(indent)
        room = max(20, WIDTH - len(indent))
        broken = textwrap.wrap(piece, room, break_long_words=False, break_on_hyphens=False)
        lines[-1] += broken[0]
        lines += [indent + part for part in broken[1:]]
    return lines


def card_text(table: Table, name: str) -> str:
    """``? NAME``: the text of the card whose name holds NAME (among the cards shown)."""
    texts = dict(table.card_texts)
    found = [n for n in texts if name and name.lower() in n.lower()]
    exact = [n for n in found if n.lower() == name.lower()]
    found = exact or found
    if len(found) == 1:
        return f"{found[0]}: {texts[found[0]]}"
    if not found:
        known = ", ".join(sorted(texts)) if texts else "none"
        return f"no card on the table called {name!r} has a text (cards with one: {known})"
    return f"{len(found)} cards match {name!r}: {', '.join(sorted(found))}"


def columns(items: list[str], indent: int = 4) -> list[str]:
    """``items`` in as many columns as fit the terminal's width, read down each column;
    each column as wide as its own longest item (a long last option does not widen the
    others)."""
    if not items:
        return []
    for per_line in range(len(items), 0, -1):
        rows = -(-len(items) // per_line)
        cols = [items[c * rows : (c + 1) * rows] for c in range(per_line)]
        cols = [col for col in cols if col]
        widths = [max(len(i) for i in col) + 2 for col in cols]
        if indent + sum(widths) - 2 <= WIDTH or per_line == 1:
            break
    lines = []
    for r in range(rows):
        cells = [col[r].ljust(w) for col, w in zip(cols, widths, strict=True) if r < len(col)]
        lines.append(" " * indent + "".join(cells).rstrip())
    return lines


@dataclass
class PileMemory:
    """What a terminal remembers of the piles it showed: each pile's card (an emptied
    pile is still named) and its first size."""

    cards: dict[str, str] = field(default_factory=dict)
    first: dict[str, int] = field(default_factory=dict)


def render_piles(
    piles: list[Zone], seen: PileMemory | None = None, compact: bool = False
) -> list[str]:
    """Indexed locations of one name (a Supply): each pile by its card and size, in
    columns under the name ("Supply:" then "Copper 46   Silver 40 ..."); an empty pile
    by the card it held when last seen ("Province 0"); ``compact``: only the piles whose
    size changed since ``seen`` first saw them, on one line ("Supply: Silver 38, Copper
    45 (the rest as dealt; t shows all)"), as a terminal shows every table after its
    first."""
    owner = _owner(piles[0])
    seen = PileMemory() if seen is None else seen
    shown, changed = [], []
    for pile in piles:
        if pile.cards:
            seen.cards[pile.ref] = re.sub(r" x[0-9]+$", "", pile.cards[-1])
        first = seen.first.setdefault(pile.ref, pile.size)
        if not pile.size:
            text = f"{seen.cards[pile.ref]} 0" if pile.ref in seen.cards else "(empty)"
        elif pile.cards:
            text = f"{seen.cards[pile.ref]} {pile.size}"
        else:
            text = f"{pile.size} cards"
        shown.append(text)
        if pile.size != first:
            changed.append(text)
    if compact:
        said = ", ".join(changed) + " (the rest as dealt" if changed else "as dealt ("
        return wrap_items(f"  {owner}{piles[0].name}: ", [f"{said}; t shows all)"])
    line = f"  {owner}{piles[0].name}: {', '.join(shown)}"
    if len(line) <= WIDTH:
        return [line]
    return [f"  {owner}{piles[0].name}:", *columns(shown)]


def render_zones(
    zones: tuple[Zone, ...],
    seen: PileMemory | None = None,
    symbols: bool = False,
    compact: bool = False,
) -> list[str]:
    """Each zone on its line, an empty one left out (the hand excepted: "Passing:
    (empty)" all hand long says nothing); a run of indexed locations of one name on one
    line (``render_piles``)."""
    lines: list[str] = []
    piles: list[Zone] = []
    for zone in zones:
        if piles and (
            zone.index is None or (zone.owner, zone.name) != (piles[0].owner, piles[0].name)
        ):
            lines += render_piles(piles, seen, compact)
            piles = []
        if zone.index is None and not _first_of_piles(zone, zones):
            if zone.size or zone.name == "Hand":
                lines += render_zone(zone, symbols)
        else:
            piles.append(zone)
    if piles:
        lines += render_piles(piles, seen, compact)
    return lines


def _first_of_piles(zone: Zone, zones: tuple[Zone, ...]) -> bool:
    """The first of indexed locations has no index of its own: is ``zone`` followed by
    locations of its name that have one?"""
    return any(z.index is not None and (z.owner, z.name) == (zone.owner, zone.name) for z in zones)


def render_table(
    table: Table,
    head: str | None = None,
    piles: PileMemory | None = None,
    symbols: bool = False,
    compact: bool = False,
) -> str:
    """The table as text, under ``head`` (default: the turn and the seat); ``piles``:
    each pile's card as last seen, to name a pile once it is empty (kept up to date);
    ``symbols``: standard cards by rank and suit symbol ("K♣"); ``compact``: a Supply
    by the piles that changed (``render_piles``)."""
    # turns counted per player: "round 8" where every seat has had about 8 turns
    rounds = table.turn // max(table.players, 1) + 1
    when = table.round_text or f"round {rounds}"  # the game's count where it gives one
    head = head or f"--- {when}, you are P{table.seat} of {table.players} ---"
    lines = [head, *render_middle(table, symbols)]
    if table.yours:
        lines.append("yours:")
        lines += render_zones(table.yours, piles, symbols, compact)
    shown = [
        z for z in table.open if z.size or z.index is not None or _first_of_piles(z, table.open)
    ]
    if shown and all(z.index is not None or _first_of_piles(z, table.open) for z in shown):
        # only piles (a Supply): their own line, not under a heading
        lines += [line[2:] for line in render_zones(table.open, piles, symbols, compact)]
    elif table.open:
        lines.append("on the table:")
        lines += render_zones(table.open, piles, symbols, compact)
    if table.hidden:  # "face down: Deck 5, P1 Hand 5", wrapped between zones
        lines += wrap_items("face down: ", [f"{_owner(z)}{z.name} {z.size}" for z in table.hidden])
    lines += _counters(table)
    lines.append(table.text or table.situation)
    return "\n".join(lines)


def render_middle(table: Table, symbols: bool = False) -> list[str]:
    """The middle of the table (a trick, the cards in play): each seat's cards there,
    yours first ("Trick: you 7 of Spades | P1 King of Spades | P2 - | P3 -"); a seat
    with nothing there is a dash.  Wrapped between seats."""
    if not table.middle:
        return []
    name = table.middle[0][1].name
    cells = []
    for _, zone in table.middle:
        cards = ", ".join(zone.cards) if zone.cards else "-"
        cells.append(f"{zone.owner} {with_faces(cards) if symbols else cards}")
    return wrap_items(f"{name}: ", cells, " |")


def _counters(table: Table) -> list[str]:
    """Each owner's storages on a line, a seat's table score at its end ("you: Actions
    1, Buys 1, Coins 4, Turns 3; VP 3"); the scores of seats with no counters shown on one
    line ("Points: you 0, P1 0, P2 0, P3 0")."""
    scores = dict(table.scores)
    lines = []
    for owner, values in table.storages:
        shown = ", ".join(f"{name} {value}" for name, value in values)
        if owner in scores:
            shown += f"; {table.score_text} {scores.pop(owner)}"
        lines.append(f"{owner}: {shown}")
    if scores:  # the seats with no counters shown: their scores on one line
        lines.append(f"{table.score_text}: " + ", ".join(f"{o} {v}" for o, v in scores.items()))
    return lines


def render_result(result: Any, ending: Ending, seat: int) -> str:
    """The end of a game: why it ended (the game's words), each seat's score with its
    breakdown (one column per seat), and who won."""
    lines = ["--- the game is over ---"]
    if not result.completed:
        lines.append(f"  cut off ({result.end_reason})")
    elif ending.reason:
        lines.append(f"  {ending.reason}.")
    lines += score_lines(ending, result.scores, seat)
    winners = result.winners
    if result.completed and seat in winners:
        lines.append("  you win" + (" (shared)" if len(winners) > 1 else ""))
    elif result.completed:
        lines.append("  won by " + ", ".join(f"P{w}" for w in winners))
    return "\n".join(lines)


def render_options(labels: tuple[str, ...]) -> str:
    """The options numbered, one per line; many short ones in columns."""
    width = len(str(len(labels)))
    items = [f"{i + 1:>{width}}. {label}" for i, label in enumerate(labels)]
    if len(items) > 8:
        return "\n".join(columns(items, indent=2))
    return "\n".join(f"  {item}" for item in items)


def render_advice(labels: tuple[str, ...], advice: Advice) -> str:
    """Each option's estimate as a win chance with its 95% interval, and how it stands:
    the best marked only when no other is within the noise; a close call said so; an
    option the search barely tried called uncertain."""
    values = advice.values
    if all(v is None for v in values):
        return f"the advisor ({advice.advisor}) has no estimate for these options"
    verdicts = advice.verdicts()
    close = verdicts.count("about as good")
    head = f"{advice.advisor}, its estimates (95% intervals):"
    if close:
        head += f" a close call between {close} options"
    lines = [head]
    width = len(str(len(labels)))
    words = [advice.words(i) for i in range(len(labels))]
    pad = max(len(w) for w in words)
    for i, label in enumerate(labels):
        mark = (
            f"  <- {verdicts[i]}" if verdicts[i] in ("best", "about as good", "uncertain") else ""
        )
        lines.append(f"  {i + 1:>{width}}. {words[i]:<{pad}}  {label}{mark}")
    return "\n".join(lines)


class TerminalStory:
    """Tells a person's seat, in the terminal, the others' moves as it may know them: a
    session's narrator (``narrate``) with a ``catch_up`` for the front end.  The moves
    made since the seat's last decision are said together, a run of equal moves as one
    line ("P1 · Big Money: Play the Copper ×5"), so that a turn of the others fits the
    screen above the table."""

    def __init__(self, session: Session, seat: int, say: Callable[[str], None]) -> None:
        self.session = session
        self.seat = seat
        self.say = say
        self.teller = Teller(session.game, [seat])
        self.held: list[tuple[str, int]] = []  # lines not said yet, each with its count

    def narrate(self, mover: int, who: str, option: Any, label: str) -> None:
        """A move is about to be applied: hold the last one's line, and this move."""
        self._collect()
        self.teller.before(self.session.st, mover, who, option, label)

    def catch_up(self) -> None:
        """Say the moves made since the last time (the seat's own left out)."""
        self._collect()
        for text, count in self.held:
            self.say(text if count == 1 else f"{text} \u00d7{count}")
        self.held = []

    def _collect(self) -> None:
        for line in self.teller.after(self.session.st).values():
            if line.mover != self.seat:
                self._hold(line.text)
            if line.then:  # a trick taken, a showdown, a clean-up: one's own too
                # what one move set off, in one paragraph (a clean-up is five lines else)
                said = [c[0].upper() + c[1:] for c in line.then]
                self._hold("\n".join(wrap_items("  ", said, "; ")))

    def _hold(self, text: str) -> None:
        if self.held and self.held[-1][0] == text:
            self.held[-1] = (text, self.held[-1][1] + 1)
        else:
            self.held.append((text, 1))
