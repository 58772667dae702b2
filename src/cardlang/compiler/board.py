"""Creation and storage: players, teams, decks and cards created; storages set.

Pipeline position: compiler, a part of ``StmtCompiler`` (statements.py).

(create players ...), (create teams ...), (create deck ...) and (create cards ...) make
the board; (set ...) and (inc ...)/(dec ...) update the integer, string and point
storages (points from (awards ...) are interned point maps).  Each is a closure; the
integer and string updates an action holds are written as code by statements.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardlang.compiler.stmt_base import StmtCompilerBase
from cardlang.engine.control import Action
from cardlang.engine.points import PointMap
from cardlang.engine.runtime import card_room, checked_increment
from cardlang.engine.state import Gamestate
from cardlang.errors import RuleError, did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import deck_cards, one_based_teams, static_int


class BoardMixin(StmtCompilerBase):
    """Statements that create the board's players, teams and cards, or set storages."""

    def a_CreatePlayers(self, n: ast.CreatePlayers) -> Action:
        count = static_int(n.count, lambda name: None)
        span = n.span

        def create_players(st: Gamestate) -> None:
            if count is not None and count != st.nplayers:
                raise RuleError("the number of players cannot change during a game", span)

        return create_players

    def a_CreateTeams(self, n: ast.CreateTeams) -> Action:
        listed = [tuple(t) for t in n.teams]
        if one_based_teams(n, self.x.nplayers):  # the checker warned about it
            listed = [tuple(p - 1 for p in t) for t in listed]
        span = n.span

        def create_teams(st: Gamestate) -> None:
            teams = [t for t in listed]
            named = {p for t in teams for p in t}
            if any(not 0 <= p < st.nplayers for p in named):
                raise RuleError(f"teams name players outside 0..{st.nplayers - 1}", span)
            teams += [(p,) for p in range(st.nplayers) if p not in named]
            st.teams = teams
            st.team_of = [0] * st.nplayers
            for i, team in enumerate(teams):
                for p in team:
                    st.team_of[p] = i

        return create_teams

    def a_CreateDeck(self, n: ast.CreateDeck) -> Action:
        assert isinstance(n.deck, ast.Deck)
        descriptions = deck_cards(n.deck)
        key = self.x.location_key(n.location)
        name = self.x.value(n.name) if n.name is not None else None
        span = n.span
        # One attribute dict per description, shared by every state (point maps cache
        # scores by its identity).  A named deck records its name as attribute DECK.
        shared: dict[str, list[dict[str, str]]] = {}

        def attrs_for(deck_name: str) -> list[dict[str, str]]:
            if deck_name not in shared:
                extra = {"DECK": deck_name} if deck_name else {}
                shared[deck_name] = [dict(d, **extra) for d in descriptions]
            return shared[deck_name]

        def create_deck(st: Gamestate) -> None:
            k = key(st)
            z = st.zones.get(k)
            if z is None:
                z = st.zones[k] = []
            made = attrs_for(name(st) if name else "")
            card_room(st, len(made), span)
            first = len(st.cards)
            st.cards.extend(made)
            st.card_zone.extend([k] * len(made))
            z.extend(range(first, first + len(made)))
            if st.log is not None:
                st.log.append(("create", len(made), k))

        return create_deck

    def a_CreateCards(self, n: ast.CreateCards) -> Action:
        key = self.x.location_key(n.location)
        kind = self.x.value(n.kind)
        count = self.x.value(n.count)
        tables = self.kind_cards
        span = n.span

        def create_cards(st: Gamestate) -> None:
            name = kind(st)
            attrs = tables.get(name)
            if attrs is None:
                hint = did_you_mean(name, tables)
                raise RuleError(f"no card kind named {name}" + (f" ({hint})" if hint else ""), span)
            k = key(st)
            z = st.zones.get(k)
            if z is None:
                z = st.zones[k] = []
            made = max(count(st), 0)  # none for a negative count, as a repeat
            card_room(st, made, span)
            first = len(st.cards)
            st.cards.extend([attrs] * made)
            st.card_zone.extend([k] * made)
            z.extend(range(first, first + made))
            if st.log is not None:
                st.log.append(("create", made, k))

        return create_cards

    # ------------------------------------------------------------ storage
    def a_SetValue(self, n: ast.SetValue) -> Action:
        t = self.checked.type_of(n.target)
        key = self.x.storage_key(n.target)
        if t == T.POINTS and isinstance(n.value, ast.Awards):
            make = self._awards(n.value)

            def set_points(st: Gamestate) -> None:
                st.points[key(st)] = make(st)

            return set_points
        value = self.x.value(n.value)
        table = {T.INTSTO: "ints", T.STRSTO: "strs", T.POINTS: "points"}[t]

        def set_value(st: Gamestate) -> None:
            v = value(st)
            getattr(st, table)[key(st)] = v
            if st.log is not None:
                st.log.append(("set", key(st), v))

        return set_value

    def _awards(self, n: ast.Awards) -> Callable[[Gamestate], PointMap]:
        # One generated function builds the whole awards tuple; Python folds the
        # constant parts at compile time.
        def award_src(award: ast.Award) -> str:
            conds = "".join(
                f"({self.x.src(c.key)}, {self.x.src(c.value)}), " for c in award.conditions
            )
            return f"(({conds}), {self.x.src(award.points)})"

        build = self.x.value_of_source("(" + "".join(award_src(a) + ", " for a in n.awards) + ")")

        # Point maps are immutable, so equal ones are shared: a trick-taking game that
        # re-sets its precedence map every trick then keeps the scores it computed.
        interned: dict[Any, PointMap] = {}

        def make(st: Gamestate) -> PointMap:
            awards = build(st)
            pm = interned.get(awards)
            if pm is None:
                if len(interned) >= 4096:
                    interned.clear()
                pm = interned[awards] = PointMap(awards)
            return pm

        return make

    def a_Increment(self, n: ast.Increment) -> Action:
        key = self.x.storage_key(n.target)
        amount = self.x.value(n.amount)
        sign = n.sign

        span = n.span

        def increment(st: Gamestate) -> None:
            k = key(st)
            v = st.ints[k] = checked_increment(st.ints.get(k, 0), sign, amount(st), span)
            if st.log is not None:
                st.log.append(("set", k, v))

        return increment
