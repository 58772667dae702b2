"""Card moves: (move ...), (remember ...), (forget ...), (shuffle ...) and (swap ...).

Pipeline position: compiler, a part of ``StmtCompiler`` (statements.py).

The common move, (top|bottom LOCATION) to (top|bottom LOCATION), once or repeated, is
one generated function (``_move_code``); a move of any other card to the top or bottom
of a location is written inline in an action's code (``_move_lines``); the rest are
closures.  Every move appends ('move', card, from, to, index) to the event log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardlang.compiler.stmt_base import StmtCompilerBase
from cardlang.engine.control import Action
from cardlang.engine.runtime import Fn, charge_work, reference_room
from cardlang.engine.state import Gamestate, shuffle_in_place
from cardlang.errors import RuleError
from cardlang.language import ast
from cardlang.language import types as T


class MovesMixin(StmtCompilerBase):
    """Moving cards between locations, and the other statements that edit locations."""

    def _move_lines(self, n: ast.Move, pad: str, consts: dict[str, Any]) -> list[str]:
        """A move of any card to the top or bottom of a location, written inline; the
        common (top LOCATION) -> (top LOCATION) keeps its own generated function."""
        dest = n.dest
        fast = self._end_of_location(n.card) is not None
        if fast or not (isinstance(dest, ast.CardAt) and dest.position in ("top", "bottom")):
            return self._lines_by_closure(n, pad, consts)
        t = len(consts)
        consts[f"MESSAGE{t}"], consts[f"SPAN{t}"] = self._move_message(n), n.span
        c, k, z, dk, dz = (f"{x}{t}" for x in ("c", "k", "z", "dk", "dz"))
        put = f"{dz}.append({c})" if dest.position == "top" else f"{dz}.insert(0, {c})"
        at = f"len({dz}) - 1" if dest.position == "top" else "0"
        return [
            f"{pad}{c} = {self.x.src(n.card)}",
            f"{pad}if {c} is None:",
            f"{pad}    raise RuleError(MESSAGE{t}, SPAN{t})",
            f"{pad}{k} = st.card_zone[{c}]",
            f"{pad}{z} = st.zones[{k}]",
            f"{pad}if {z}[-1] == {c}:",
            f"{pad}    {z}.pop()",
            f"{pad}else:",
            f"{pad}    {z}.remove({c})",
            f"{pad}{dk} = {self.x.raw_src(dest.collection)}",
            f"{pad}{dz} = st.zones.get({dk})",
            f"{pad}if {dz} is None:",
            f"{pad}    {dz} = st.zones[{dk}] = []",
            f"{pad}{put}",
            f"{pad}st.card_zone[{c}] = {dk}",
            f"{pad}if st.log is not None:",
            f"{pad}    st.log.append(('move', {c}, {k}, {dk}, {at}))",
        ]

    def _end_of_location(self, node: ast.Node) -> tuple[str, str] | None:
        """For (top|bottom LOCATION) of a real location: (its key's source, position)."""
        if (
            isinstance(node, ast.CardAt)
            and node.position in ("top", "bottom")
            and self.checked.type_of(node.collection) == T.LOC
        ):
            return self.x.raw_src(node.collection), node.position
        return None

    def _move_code(
        self, n: ast.Move, count_src: str | None = None, repeat: ast.Node | None = None
    ) -> Action | None:
        """Generated code for (move (top|bottom LOC) (top|bottom LOC)), the common move, done
        once or, with ``count_src``, that many times (dealing, gathering).

        A repeated move looks both locations up once, before the loop, when moving cards
        cannot change their keys (no card, location size or owner-of-card in them).  Its
        passes are charged to the work budget at ``repeat``, the (repeat ...) form.
        """
        source, dest = self._end_of_location(n.card), self._end_of_location(n.dest)
        if source is None or dest is None:
            return None
        source_lookup = [f"z = zones.get({source[0]})"]
        take = [
            "if not z:",
            "    raise RuleError(MESSAGE, SPAN)",
            "c = z.pop()" if source[1] == "top" else "c = z.pop(0)",
        ]
        dest_lookup = [
            f"dk = {dest[0]}",
            "dz = zones.get(dk)",
            "if dz is None:",
            "    dz = zones[dk] = []",
        ]
        landed = "len(dz) - 1" if dest[1] == "top" else "0"  # where the card lies now
        put = [
            "dz.append(c)" if dest[1] == "top" else "dz.insert(0, c)",
            "src = st.card_zone[c]",
            "st.card_zone[c] = dk",
            "if st.log is not None:",
            f"    st.log.append(('move', c, src, dk, {landed}))",
        ]
        # As in the general move, the destination is evaluated after the card is taken.
        one_move = source_lookup + take + dest_lookup + put
        lines = ["def moves(st):", "    zones = st.zones"]
        if count_src is None:
            lines += _indent(one_move, 1)
        elif _stable_key(source[0]) and _stable_key(dest[0]):
            lines += [
                f"    count = repeat_count({count_src}, SPAN)",
                "    _charge(st, count, REPEAT_SPAN, '(repeat ...)')",
                "    if count <= 0:",
                "        return",
            ]
            lines += _indent(source_lookup + dest_lookup, 1) + ["    for _ in range(count):"]
            lines += _indent(take + put, 2)
        else:
            lines += [
                f"    count = repeat_count({count_src}, SPAN)",
                "    _charge(st, count, REPEAT_SPAN, '(repeat ...)')",
                "    for _ in range(count):",
            ]
            lines += _indent(one_move, 2)
        return self.x.define(  # type: ignore[no-any-return]
            "moves",
            lines,
            MESSAGE=self._move_message(n),
            SPAN=n.span,
            REPEAT_SPAN=(repeat or n).span,
        )

    def _move_message(self, n: ast.Move) -> str:
        what = self.checked.source.snippet(n.card.span, 60)
        return f"move from an empty location: {what} has no card"

    def a_Move(self, n: ast.Move) -> Action:
        fast = self._move_code(n)
        if fast is not None:
            return fast
        card = self.x.value(n.card)
        dest_key, place = self._position(n.dest)
        on_top = isinstance(n.dest, ast.CardAt) and n.dest.position == "top"
        span = n.span
        message = self._move_message(n)

        def move(st: Gamestate) -> None:
            c = card(st)
            if c is None:
                raise RuleError(message, span)
            zones = st.zones
            src = st.card_zone[c]
            z = zones[src]
            if z[-1] == c:
                z.pop()
            else:
                z.remove(c)
            dk = dest_key(st)
            dz = zones.get(dk)
            if dz is None:
                dz = zones[dk] = []
            if on_top:
                dz.append(c)
                at = len(dz) - 1
            else:
                at = place(st, dz, c)
            st.card_zone[c] = dk
            if st.log is not None:
                st.log.append(("move", c, src, dk, at))

        return move

    def _position(self, node: ast.Node) -> tuple[Fn, Callable[[Gamestate, list[int], int], int]]:
        """(top|bottom|N LOCATION) as a destination: its key, and how to insert there
        (which gives the index the card took, for the event log)."""
        assert isinstance(node, ast.CardAt)
        key = self.x.location_key(node.collection)
        if node.position == "top":
            return key, _put_on_top
        if node.position == "bottom":
            return key, _put_at_bottom
        index = self.x.value(node.position)  # type: ignore[arg-type]

        def put_at(st: Gamestate, z: list[int], c: int) -> int:
            at = min(max(index(st), 0), len(z))  # N from the bottom, as list.insert clamps
            z.insert(at, c)
            return at

        return key, put_at

    def a_Remember(self, n: ast.Remember) -> Action:
        card = self.x.value(n.card)
        dest_key, place = self._position(n.dest)
        span = n.span

        def remember(st: Gamestate) -> None:
            c = card(st)
            if c is None:
                raise RuleError("remember of a card in an empty location", span)
            dk = dest_key(st)
            dz = st.zones.get(dk)
            if dz is None:
                dz = st.zones[dk] = []
            reference_room(st, span)
            place(st, dz, c)
            st.refs += 1
            if st.log is not None:  # a remembered card is shown to everyone
                st.log.append(("remember", c, dk))

        return remember

    def a_Forget(self, n: ast.Forget) -> Action:
        assert isinstance(n.card, ast.CardAt)
        key = self.x.location_key(n.card.collection)
        card = self.x.value(n.card)
        span = n.span

        def forget(st: Gamestate) -> None:
            c = card(st)
            if c is None:
                raise RuleError("forget from an empty mem location", span)
            z = st.zones[key(st)]
            charge_work(st, len(z), span, "(forget ...)")  # the search below
            # remove the reference at that position: search from the top
            for i in range(len(z) - 1, -1, -1):
                if z[i] == c:
                    del z[i]
                    st.refs -= 1
                    return

        return forget

    def a_Shuffle(self, n: ast.Shuffle) -> Action:
        key = self.x.location_key(n.location)
        span = n.span

        def shuffle(st: Gamestate) -> None:
            z = st.zones.get(key(st))
            if z:
                charge_work(st, len(z), span, "(shuffle ...)")
                shuffle_in_place(st, z)
                if st.log is not None:  # with the new order, for knowledge.py
                    st.log.append(("shuffle", key(st), tuple(z)))

        return shuffle

    def a_Swap(self, n: ast.Swap) -> Action:
        first, second = self.x.value(n.first), self.x.value(n.second)
        span = n.span

        def swap(st: Gamestate) -> None:
            a, b = first(st), second(st)
            if a is None or b is None:
                raise RuleError("swap with an empty location: there is no card to swap", span)
            if a == b:
                return
            ka, kb = st.card_zone[a], st.card_zone[b]
            za, zb = st.zones[ka], st.zones[kb]
            ia, ib = za.index(a), zb.index(b)
            za[ia], zb[ib] = b, a
            st.card_zone[a], st.card_zone[b] = kb, ka
            if st.log is not None:
                # as two moves, each to where the card now lies (replayed in this order,
                # they reproduce the swap: see knowledge.py)
                st.log.append(("move", a, ka, kb, ib))
                st.log.append(("move", b, kb, ka, ia))

        return swap


_UNSTABLE_IN_KEYS = (
    "zones",
    "card_zone",
    "cards",
    "_owner_of",
    "_best",
    "_top",
    "_bottom",
    "_nth",
    "ops.",
    "len(",
    "_att",
    "_sum",
    "_score",
    "_random",
)


def _put_on_top(st: Gamestate, z: list[int], c: int) -> int:
    z.append(c)
    return len(z) - 1


def _put_at_bottom(st: Gamestate, z: list[int], c: int) -> int:
    z.insert(0, c)
    return 0


def _indent(lines: list[str], depth: int) -> list[str]:
    return ["    " * depth + line for line in lines]


def _stable_key(key_src: str) -> bool:
    """A location key that moving cards cannot change (it reads no card or location)."""
    return not any(word in key_src for word in _UNSTABLE_IN_KEYS)
