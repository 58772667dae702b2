"""games/trains.rcy against an independent implementation of the rules of Trains.

``Reference`` plays the rules of specs/trains.md (the map, 20 rails each, 4 cards and
2 of 5 destinations each in turn order, draw 2 or acquire or pass, the end by rails or
by a round of passes, scoring with union-find and a brute-force longest trail) and
knows nothing of the game file but its documented option order.  Only the shuffles
are taken from the engine: at the first decision the reference reads the rail DECK and
the destination STACK as they were shuffled (the dealt hands and the first offer put
back on top) and deals from them itself.  Random games are played beside it on both
engines, with 2, 3 and 4 players: at every decision it says who decides and the exact
list of options; at the end, the scores.  Then cases worked by hand, what the views
show, and search agents playing whole games.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import Any

import pytest
from conftest import GAMES, ROOT

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.information.views import view_of

ENGINES = ["python", *(["native"] if native_available() else [])]
TRAINS = GAMES / "trains.rcy"
GAME = -1
DECK, STACK, MAP, DISCARD = (
    (GAME, "hloc", "DECK"),
    (GAME, "hloc", "STACK"),
    (GAME, "vloc", "MAP"),
    (GAME, "vloc", "DISCARD"),
)

# The map of specs/trains.md, in its order: (from, to, colour, length).
CONNECTIONS = [
    ("BOSTON", "NEW-YORK", "RED", 3),
    ("BOSTON", "NEW-YORK", "BLUE", 3),
    ("BOSTON", "MONTREAL", "WHITE", 4),
    ("MONTREAL", "TORONTO", "GREEN", 4),
    ("TORONTO", "DETROIT", "RED", 3),
    ("TORONTO", "PITTSBURGH", "BLUE", 5),
    ("DETROIT", "CHICAGO", "WHITE", 4),
    ("DETROIT", "CLEVELAND", "GREEN", 3),
    ("CLEVELAND", "PITTSBURGH", "RED", 3),
    ("CLEVELAND", "CHICAGO", "BLUE", 5),
    ("PITTSBURGH", "PHILADELPHIA", "WHITE", 4),
    ("PITTSBURGH", "WASHINGTON", "GREEN", 4),
    ("NEW-YORK", "PHILADELPHIA", "GREEN", 3),
    ("NEW-YORK", "PHILADELPHIA", "WHITE", 3),
    ("PHILADELPHIA", "WASHINGTON", "RED", 3),
    ("NEW-YORK", "PITTSBURGH", "BLUE", 5),
    ("CHICAGO", "PITTSBURGH", "RED", 5),
]
NAMES = [f"{a}-{b}-{colour}" for a, b, colour, _ in CONNECTIONS]
EDGE = dict(zip(NAMES, CONNECTIONS, strict=True))
CITIES = sorted({c for a, b, _, _ in CONNECTIONS for c in (a, b)})

Option = tuple[Any, ...]  # ("KEEP", (a, b)), ("DRAW",), ("ACQUIRE", name), ("PASS",)


# ------------------------------------------------------------ graphs
def joined(edges: list[str], x: str, y: str) -> bool:
    """Whether the connections join x and y (union-find)."""
    parent = {c: c for c in CITIES}

    def find(c: str) -> str:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for name in edges:
        a, b, _, _ = EDGE[name]
        parent[find(a)] = find(b)
    return find(x) == find(y)


def longest_trail(edges: list[str]) -> int:
    """The greatest total length of a trail: every walk that uses each connection at most
    once, from every city, tried in full."""
    best = 0

    def walk(city: str, used: frozenset[str], length: int) -> None:
        nonlocal best
        best = max(best, length)
        for name in edges:
            a, b, _, n = EDGE[name]
            if name not in used and city in (a, b):
                walk(b if city == a else a, used | {name}, length + n)

    for city in CITIES:
        walk(city, frozenset(), 0)
    return best


# ------------------------------------------------------------ the rules
@dataclass
class Reference:
    """Trains from the rules alone (specs/trains.md, and the deviations the game file's
    header states: options in the file's order, 2 of 5 kept by two choices of one, the
    3 others returned under the stack in their order, no longest-path bonus while
    nobody owns a connection)."""

    n: int
    deck: list[str]  # colours, top last
    stack: list[tuple[str, str]]  # destinations, top last
    discard: Counter[str] = field(default_factory=Counter)
    hands: list[Counter[str]] = field(default_factory=list)
    rails: list[int] = field(default_factory=list)
    owned: list[list[str]] = field(default_factory=list)
    destinations: list[list[tuple[str, str]]] = field(default_factory=list)
    free: list[str] = field(default_factory=lambda: list(NAMES))
    offer: list[tuple[str, str]] = field(default_factory=list)
    keeping: bool = True
    mover: int = 0
    passes: int = 0
    trigger: int | None = None  # who went below 3 rails
    left: int = 0  # turns still to play after that
    over: bool = False

    def __post_init__(self) -> None:
        self.hands = [Counter() for _ in range(self.n)]
        self.rails = [20] * self.n
        self.owned = [[] for _ in range(self.n)]
        self.destinations = [[] for _ in range(self.n)]
        for hand in self.hands:
            for _ in range(4):
                hand[self.deck.pop()] += 1
        self._offer()

    def _offer(self) -> None:
        self.offer = [self.stack.pop() for _ in range(5)]

    def can_acquire(self, p: int, name: str) -> bool:
        _, _, colour, length = EDGE[name]
        return length <= self.rails[p] and self.hands[p][colour] >= length

    def options(self) -> list[Option]:
        if self.keeping:
            return [("KEEP", d) for d in self.offer]
        p = self.mover
        acquire = [("ACQUIRE", c) for c in self.free if self.can_acquire(p, c)]
        draw = [("DRAW",)] if self.deck else []
        return [*draw, *acquire] if draw or acquire else [("PASS",)]

    def apply(self, option: Option) -> None:
        assert option in self.options()
        p = self.mover
        if option[0] == "KEEP":
            self.destinations[p].append(option[1])
            self.offer.remove(option[1])
            if len(self.destinations[p]) == 2:
                self.stack[0:0] = self.offer  # under the stack, in their order
                self.mover += 1
                if self.mover == self.n:
                    self.keeping, self.mover = False, 0
                else:
                    self._offer()
            return
        if option[0] == "DRAW":
            for _ in range(2):
                if self.deck:
                    self.hands[p][self.deck.pop()] += 1
            self.passes = 0
        elif option[0] == "ACQUIRE":
            _, _, colour, length = EDGE[option[1]]
            self.hands[p][colour] -= length
            self.discard[colour] += length
            self.rails[p] -= length
            self.owned[p].append(option[1])
            self.free.remove(option[1])
            self.passes = 0
        else:
            self.passes += 1
        if self.trigger is not None:
            self.left -= 1
        elif self.rails[p] < 3:
            self.trigger, self.left = p, self.n - 1
        if (self.trigger is not None and self.left == 0) or self.passes >= self.n:
            self.over = True
        else:
            self.mover = (p + 1) % self.n

    @property
    def ended(self) -> str:
        return "RAILS" if self.trigger is not None else "BLOCKED"

    def parts(self, p: int) -> dict[str, int]:
        longest = [longest_trail(edges) for edges in self.owned]
        top = max(longest)
        ok = [joined(self.owned[p], x, y) for x, y in self.destinations[p]]
        return {
            "SEGMENTS": sum(EDGE[c][3] for c in self.owned[p]),
            "JOINED": sum(ok),
            "MISSED": len(ok) - sum(ok),
            "LONGEST": longest[p],
            "BONUS": 20 if top > 0 and longest[p] == top else 0,
        }

    def scores(self) -> tuple[int, ...]:
        out = []
        for p in range(self.n):
            s = self.parts(p)
            out.append(s["SEGMENTS"] + 10 * (s["JOINED"] - s["MISSED"]) + s["BONUS"])
        return tuple(out)


# ------------------------------------------------------------ the engine's side
def colours(st: Any, key: tuple[int, str, str]) -> list[str]:
    return [st.cards[c]["COLOUR"] for c in st.zones.get(key, [])]


def pairs(st: Any, key: tuple[int, str, str]) -> list[tuple[str, str]]:
    return [(st.cards[c]["FROM"], st.cards[c]["TO"]) for c in st.zones.get(key, [])]


def kinds(st: Any, key: tuple[int, str, str]) -> list[str]:
    return [st.cards[c]["KIND"] for c in st.zones.get(key, [])]


def reference_for(st: Any) -> Reference:
    """The reference, dealt from the engine's shuffles: at the first decision the dealt
    hands (4 cards each from the top, seat 0 first) and the offer to seat 0 (5 from the
    top of the stack) are put back where they came from."""
    n = st.nplayers
    deck = colours(st, DECK)
    for p in reversed(range(n)):
        deck += colours(st, (p, "iloc", "HAND"))[::-1]
    stack = pairs(st, STACK) + pairs(st, (0, "iloc", "OFFERED"))[::-1]
    ref = Reference(n, deck, stack)
    ref.discard = Counter(colours(st, DISCARD))
    return ref


def engine_options(master: Any, game: Any, st: Any) -> list[Option]:
    """The engine's options as the reference names them (the branch of the TURN choice
    says what an option does: 0 draw, 1 acquire, 2 pass)."""
    view = view_of(st, st.mover, game, master.legal_options(st))
    out: list[Option] = []
    for o in view.options:
        if view.situation == "KEEP":
            out.append(("KEEP", (o.card["FROM"], o.card["TO"])))
        else:
            assert view.situation == "TURN"
            out.append([("DRAW",), ("ACQUIRE", o.kind), ("PASS",)][o.branch])
    return out


def check_board(st: Any, ref: Reference) -> None:
    """What the engine holds is what the reference holds."""
    for p in range(ref.n):
        assert Counter(colours(st, (p, "iloc", "HAND"))) == +ref.hands[p]
        assert st.ints.get((p, "RAILS")) == ref.rails[p]
        assert kinds(st, (p, "vloc", "ROUTES")) == ref.owned[p]
        assert st.ints.get((p, "SCORE"), 0) == sum(EDGE[c][3] for c in ref.owned[p])
        assert pairs(st, (p, "iloc", "DESTINATIONS")) == ref.destinations[p]
    assert colours(st, DECK) == ref.deck
    assert kinds(st, MAP) == ref.free
    assert Counter(colours(st, DISCARD)) == +ref.discard


Chooser = Callable[[Reference, list[Option]], int]


def play(master: Any, game: Any, st: Any, choose: Chooser) -> Reference:
    """Play ``st`` to its end beside the reference, checking every decision."""
    ref = reference_for(st)
    while not ref.over:
        assert not st.is_over and st.mover == ref.mover
        want = ref.options()
        assert engine_options(master, game, st) == want
        i = choose(ref, want)
        master.apply(st, i)
        ref.apply(want[i])
        if not ref.keeping and not ref.over:
            check_board(st, ref)
    assert st.is_over and st.end_reason == "completed"
    assert tuple(master.result(st).scores) == ref.scores()
    assert st.strs[(GAME, "ENDED")] == ref.ended
    for p in range(ref.n):
        for name, value in ref.parts(p).items():
            assert st.ints.get((p, name), 0) == value, (p, name)
        assert pairs(st, (p, "vloc", "DESTINATIONS-SHOWN")) == ref.destinations[p]
    return ref


def random_chooser(seed: int) -> Chooser:
    """Uniform, or (every third game) drawing whenever it can, so that decks run out."""
    rng = random.Random(seed)
    drawer = seed % 3 == 2

    def choose(ref: Reference, options: list[Option]) -> int:
        if drawer and ("DRAW",) in options and rng.random() < 0.9:
            return options.index(("DRAW",))
        return rng.randrange(len(options))

    return choose


# ------------------------------------------------------------ (a) random games
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("players", "games"), [(2, 100), (3, 50), (4, 60)])
def test_random_games_follow_the_rules(engine: str, players: int, games: int) -> None:
    game = load_game(TRAINS, params={"PLAYERS": str(players)})
    master = game.master(engine=engine)
    seen: Counter[str] = Counter()
    for seed in range(games):
        ref = play(master, game, master.new_game(seed), random_chooser(seed))
        seen[ref.ended] += 1
        seen["joined"] += sum(ref.parts(p)["JOINED"] for p in range(players))
        seen["shared bonus"] += sum(ref.parts(p)["BONUS"] > 0 for p in range(players)) > 1
        seen["empty deck"] += not ref.deck
    assert seen["RAILS"] and seen["joined"] and seen["shared bonus"] and seen["empty deck"]
    if players == 4:  # a round of passes ends some games (rare with fewer players)
        assert seen["BLOCKED"]


# ------------------------------------------------------------ (b) worked by hand
def with_one_card_removed(players: int = 2) -> Any:
    """The game with one rail card taken out before the deal (face up to the discard).
    The real deck always holds an even number of cards (100, less 4 a player, less 2 a
    draw), so only an odd deck lets a player draw from a deck of one."""
    text = TRAINS.read_text(encoding="utf-8")
    shuffle = "  (shuffle (game hloc DECK))\n"
    assert text.count(shuffle) == 1
    text = text.replace(
        shuffle, shuffle + "  (move (top (game hloc DECK)) (top (game vloc DISCARD)))\n"
    )
    return load_game(text=text, name="trains-99.rcy", params={"PLAYERS": str(players)})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_draw_from_a_deck_of_one_takes_one_card(engine: str) -> None:
    game = with_one_card_removed()
    master = game.master(engine=engine)
    st = master.new_game(7)
    ref = reference_for(st)
    assert len(ref.deck) == 91
    while len(ref.deck) > 1:  # keep first offers, then only draw
        options = ref.options()
        i = options.index(("DRAW",)) if not ref.keeping else 0
        assert engine_options(master, game, st) == options
        master.apply(st, i)
        ref.apply(options[i])
    p = st.mover
    before = len(st.zones[(p, "iloc", "HAND")])
    last = st.zones[DECK][-1]
    assert engine_options(master, game, st)[0] == ("DRAW",)
    master.apply(st, 0)
    assert st.zones[(p, "iloc", "HAND")][-1] == last
    assert len(st.zones[(p, "iloc", "HAND")]) == before + 1 and not st.zones.get(DECK)
    assert ("DRAW",) not in engine_options(master, game, st)  # nobody draws from nothing
    # the reference, played on from the same place, ends the game as the engine does
    ref.apply(("DRAW",))
    check_board(st, ref)
    rng = random.Random(7)
    while not ref.over:
        want = ref.options()
        assert engine_options(master, game, st) == want
        i = rng.randrange(len(want))
        master.apply(st, i)
        ref.apply(want[i])
    assert st.is_over and tuple(master.result(st).scores) == ref.scores()


Keep = Callable[[int, list[tuple[str, str]], list[tuple[str, str]]], tuple[str, str] | None]


def scripted(master: Any, game: Any, seed: int, plans: list[list[str]], keep: Keep) -> Any:
    """A game in which each player acquires the connections of its plan, the last one
    last and the others as soon as it can pay for one, and otherwise draws (or passes).
    Returns (state, the movers after each turn, rails after each turn) or None when this
    seed's cards do not allow it: an offer without the destination ``keep`` wants, a
    player forced to acquire off its plan, or a plan unfinished at the end."""
    st = master.new_game(seed)
    todo = [list(plan) for plan in plans]
    turns: list[tuple[int, int, int]] = []  # (who, rails after, mover after or -1)
    kept: list[list[tuple[str, str]]] = [[] for _ in plans]
    while not st.is_over:
        p = st.mover
        options = engine_options(master, game, st)
        if options[0][0] == "KEEP":
            want = keep(p, [o[1] for o in options], kept[p])
            if want is None:
                return None
            kept[p].append(want)
            master.apply(st, options.index(("KEEP", want)))
            continue
        ready = [c for c in todo[p][:-1] if ("ACQUIRE", c) in options]
        if not ready and len(todo[p]) == 1 and ("ACQUIRE", todo[p][0]) in options:
            ready = list(todo[p])
        if ready:
            todo[p].remove(ready[0])
            i = options.index(("ACQUIRE", ready[0]))
        elif options[0] in (("DRAW",), ("PASS",)):
            i = 0
        else:
            return None
        master.apply(st, i)
        turns.append((p, st.ints[(p, "RAILS")], -1 if st.is_over else st.mover))
    if any(todo):
        return None
    return st, turns


def keeper(joins: list[list[str]], wanted: list[set[tuple[str, str]]]) -> Keep:
    """Each player keeps first a destination in ``wanted[p]`` (if that set is not empty),
    then one its plan ``joins[p]`` does not join."""

    def keep(p: int, offer: list[tuple[str, str]], kept: list[tuple[str, str]]) -> Any:
        if not kept and wanted[p]:
            return next((d for d in offer if d in wanted[p]), None)
        return next((d for d in offer if not joined(joins[p], *d)), None)

    return keep


@cache
def scenario(name: str) -> tuple[int, list[list[str]], Keep, int]:
    """The first seed (found on the Python engine) whose cards let the scenario's plans
    be played; the engines play every seed alike."""
    players, plans, keep = SCENARIOS[name]
    game = load_game(TRAINS, params={"PLAYERS": str(players)})
    master = game.master(engine="python")
    for seed in range(3000):
        if scripted(master, game, seed, plans, keep) is not None:
            return seed, plans, keep, players
    raise AssertionError(f"no seed plays scenario {name}")


# Seat 0 builds Boston - New York - Philadelphia (6), Cleveland - Chicago (5),
# Montreal - Toronto (4), Pittsburgh - Washington (4): 19 segments, 1 rail left, and its
# longest path is 6. Seat 1 builds Toronto - Detroit - Cleveland: 6 segments, longest 6.
TIE_P0 = [
    "BOSTON-NEW-YORK-RED",
    "NEW-YORK-PHILADELPHIA-GREEN",
    "CLEVELAND-CHICAGO-BLUE",
    "MONTREAL-TORONTO-GREEN",
    "PITTSBURGH-WASHINGTON-GREEN",
]
TIE_P1 = ["TORONTO-DETROIT-RED", "DETROIT-CLEVELAND-GREEN"]
EAST = {("BOSTON", "NEW-YORK"), ("BOSTON", "PHILADELPHIA"), ("NEW-YORK", "PHILADELPHIA")}
# Seat 1 of three spends 5 + 5 + 4 + 3 = 17 rails (3 left: the game goes on), then 3 more.
TRIGGER_P1 = [
    "CLEVELAND-CHICAGO-BLUE",
    "NEW-YORK-PITTSBURGH-BLUE",
    "BOSTON-MONTREAL-WHITE",
    "PHILADELPHIA-WASHINGTON-RED",
    "TORONTO-DETROIT-RED",
]
SCENARIOS: dict[str, tuple[int, list[list[str]], Keep]] = {
    "tie": (2, [TIE_P0, TIE_P1], keeper([TIE_P0, TIE_P1], [EAST, set()])),
    "trigger": (3, [[], TRIGGER_P1, []], keeper([[], TRIGGER_P1, []], [set(), set(), set()])),
}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_destination_joined_one_missed_and_a_shared_longest_path(engine: str) -> None:
    seed, plans, keep, players = scenario("tie")
    game = load_game(TRAINS)
    master = game.master(engine=engine)
    played = scripted(master, game, seed, plans, keep)
    assert played is not None
    st, turns = played
    # seat 0 joins an eastern destination through New York (or along one connection) and
    # misses its other one; seat 1 misses both; both paths are 6 long: +20 each
    assert [st.ints[(0, k)] for k in ("SEGMENTS", "JOINED", "MISSED", "LONGEST", "BONUS")] == [
        19,
        1,
        1,
        6,
        20,
    ]
    assert [st.ints.get((1, k), 0) for k in ("SEGMENTS", "JOINED", "MISSED", "LONGEST")] == [
        6,
        0,
        2,
        6,
    ]
    assert st.ints[(1, "BONUS")] == 20
    assert tuple(master.result(st).scores) == (19 + 10 - 10 + 20, 6 - 20 + 20)
    assert master.result(st).winners == (0,)
    # seat 0's last connection leaves it 1 rail: seat 1 plays once more, and that is all
    assert st.strs[(GAME, "ENDED")] == "RAILS"
    assert turns[-2][:2] == (0, 1) and turns[-2][2] == 1
    assert turns[-1][0] == 1 and turns[-1][2] == -1


@pytest.mark.parametrize("engine", ENGINES)
def test_fewer_than_3_rails_gives_each_other_player_one_more_turn(engine: str) -> None:
    seed, plans, keep, players = scenario("trigger")
    game = load_game(TRAINS, params={"PLAYERS": "3"})
    master = game.master(engine=engine)
    played = scripted(master, game, seed, plans, keep)
    assert played is not None
    st, turns = played
    mine = [i for i, (who, _, _) in enumerate(turns) if who == 1]
    rails = [turns[i][1] for i in mine]
    at_three = rails.index(3)  # 17 spent: exactly 3 rails left does not end the game
    assert rails[at_three + 1 :] and all(r == 3 for r in rails[at_three:-1])
    last = mine[-1]
    assert rails[-1] == 0 and turns[last][2] == 2
    # after seat 1 goes below 3: seat 2, then seat 0, then the end
    assert [(who, after) for who, _, after in turns[last + 1 :]] == [(2, 0), (0, -1)]
    assert st.strs[(GAME, "ENDED")] == "RAILS"


# ------------------------------------------------------------ (c) views
@pytest.mark.parametrize("engine", ENGINES)
def test_views_hide_hands_destinations_and_the_deck(engine: str) -> None:
    game = load_game(TRAINS)
    master = game.master(engine=engine)
    st = master.new_game(11)
    offered = view_of(st, 1, game, master.legal_options(st))
    assert offered.cards(0, "iloc", "OFFERED") is None  # seat 0's offer: its own
    assert offered.size(0, "iloc", "OFFERED") == 5
    rng = random.Random(11)
    while not (st.zones.get((0, "vloc", "ROUTES")) and st.zones.get((1, "vloc", "ROUTES"))):
        master.apply(st, rng.randrange(len(master.legal_options(st))))
    assert not st.is_over
    for seat, other in ((0, 1), (1, 0)):
        view = view_of(st, seat, game)
        assert view.cards(seat, "iloc", "HAND") is not None
        assert view.cards(other, "iloc", "HAND") is None
        assert view.size(other, "iloc", "HAND") == len(st.zones[(other, "iloc", "HAND")])
        assert len(view.cards(seat, "iloc", "DESTINATIONS") or ()) == 2
        assert view.cards(other, "iloc", "DESTINATIONS") is None
        assert view.cards(GAME, "hloc", "DECK") is None
        assert view.cards(GAME, "hloc", "STACK") is None
        assert view.size(GAME, "hloc", "DECK") == len(st.zones[DECK])
        for p in (0, 1):  # owned connections, the free ones, the discard and rails: open
            routes = view.cards(p, "vloc", "ROUTES")
            assert routes is not None and [c["KIND"] for c in routes] == kinds(
                st, (p, "vloc", "ROUTES")
            )
            assert view.storage(p, "RAILS") == st.ints[(p, "RAILS")]
        assert [c["KIND"] for c in view.cards(*MAP) or ()] == kinds(st, MAP)
        assert view.cards(*DISCARD) is not None
    while not st.is_over:
        master.apply(st, rng.randrange(len(master.legal_options(st))))
    # at the end every destination is turned face up
    assert len(view_of(st, 0, game).cards(1, "vloc", "DESTINATIONS-SHOWN") or ()) == 2


def test_the_options_read_as_what_they_do() -> None:
    game = load_game(TRAINS)
    master = game.master(engine="python")
    st = master.new_game(3)
    view = view_of(st, st.mover, game, master.legal_options(st))
    assert view.situation == "KEEP" and "destination" in view.situation_text
    assert view.options[0].bindings[0][0] == "DESTINATION"
    rng = random.Random(3)
    labels: set[str] = set()
    while not st.is_over:
        view = view_of(st, st.mover, game, master.legal_options(st))
        if view.situation == "TURN":
            labels |= {"; ".join(o.actions) for o in view.options}
        master.apply(st, rng.randrange(len(view.options)))
    assert "(call DRAW 'ME)" in labels
    assert "(call ACQUIRE 'ME 'CONNECTION)" in labels


def test_the_map_in_the_file_is_the_map_of_the_rules() -> None:
    master = load_game(TRAINS).master(engine="python")
    st = master.new_game(0)
    cards = [st.cards[c] for c in st.zones[MAP]]
    assert [(c["FROM"], c["TO"], c["COLOUR"], c["LENGTH"]) for c in cards] == CONNECTIONS
    assert Counter(colours(st, DECK)) + sum(
        (Counter(colours(st, (p, "iloc", "HAND"))) for p in (0, 1)), Counter()
    ) == Counter({c: 25 for c in ("RED", "BLUE", "GREEN", "WHITE")})
    destinations = pairs(st, STACK) + pairs(st, (0, "iloc", "OFFERED"))
    everywhere = list(NAMES)  # every pair joined by the whole map: every pair here
    assert sorted(tuple(sorted(d)) for d in destinations) == sorted(
        (a, b) for a, b in combinations(CITIES, 2) if joined(everywhere, a, b)
    )


# ------------------------------------------------------------ (d) search agents
@pytest.mark.parametrize("engine", ENGINES)
def test_search_agents_play_it_in_full(engine: str) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardlang",
            "simulate",
            str(TRAINS),
            "--games",
            "4",
            "--agents",
            "ismcts:iterations=20",
            "--engine",
            engine,
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["completed"] == 4 and summary["failed"] == 0 and summary["cutoff"] == 0
