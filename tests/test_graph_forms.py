"""The route-map forms, (connects ...) and (longest-path ...), on both engines.

Each card of a collection is an undirected edge between the values of two name
attributes, with an integer length.  Small maps are worked by hand; hypothesis holds
both forms to references written another way (union-find; Euler's theorem on every
subset of edges) over random multigraphs.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import pytest
from helpers import load_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlang.engine.native import native_available

ENGINES = [
    "python",
    pytest.param(
        "native",
        marks=pytest.mark.skipif(not native_available(), reason="the native engine is not built"),
    ),
]

Route = tuple[str, str, int]
ROUTES = "(game vloc ROUTES)"


def route_game(
    routes: Sequence[Route],
    queries: Sequence[tuple[str, str]] = (),
    kinds: str = "",
    extra: str = "",
) -> str:
    """A game whose setup puts the routes in ROUTES, then stores the longest path in
    LONG and whether each query's cities connect in Q0, Q1 ... (1 or 0), then runs
    ``extra``.  Every route is a card kind; one more kind, of which no card is made,
    gives the attributes when there is no route."""
    routes_kinds = "\n".join(
        f" (card-kind R{i} (FROM {a}) (TO {b}) (LENGTH {w}))" for i, (a, b, w) in enumerate(routes)
    )
    creates = " ".join(f"(create cards {ROUTES} R{i} 1)" for i in range(len(routes)))
    sets = "\n".join(
        f" (set (game sto Q{k}) (if (connects {ROUTES} FROM TO {x} {y}) 1 0))"
        for k, (x, y) in enumerate(queries)
    )
    return f"""(game
 (card-kind NEVER-MADE (FROM A) (TO B) (LENGTH 1))
{routes_kinds}
{kinds}
 (setup (create players 1) {creates})
 (set (game sto LONG) (longest-path {ROUTES} FROM TO LENGTH))
{sets}
{extra}
 (scoring max (game sto LONG)))"""


def stored(text: str, engine: str) -> dict[str, int]:
    """The game's integer storages once it has run (it has no decision)."""
    master = load_text(text).master(engine=engine)
    state = master.new_game(1)
    assert state.is_over and master.result(state).completed
    return {name: value for (owner, name), value in state.ints.items() if owner == -1}


def answers(
    routes: Sequence[Route], queries: Sequence[tuple[str, str]], engine: str
) -> tuple[int, list[bool]]:
    values = stored(route_game(routes, queries), engine)
    return values.get("LONG", 0), [values.get(f"Q{k}", 0) == 1 for k in range(len(queries))]


# ---------------------------------------------------------------- maps worked by hand

TRIANGLE_AND_TAIL = [("A", "B", 3), ("B", "C", 4), ("C", "A", 5), ("C", "D", 2)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_triangle_with_a_tail(engine: str) -> None:
    # D-C-A-B-C uses every route: 2 + 5 + 3 + 4; C is passed twice
    queries = [("A", "D"), ("D", "B"), ("A", "E"), ("A", "A"), ("E", "E")]
    assert answers(TRIANGLE_AND_TAIL, queries, engine) == (14, [True, True, False, True, True])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_star_allows_only_two_of_its_arms(engine: str) -> None:
    # a trail passes its centre once: the two longest arms, never all three
    star = [("X", "A", 1), ("X", "B", 2), ("X", "C", 3)]
    assert answers(star, [("A", "C")], engine) == (5, [True])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bowtie_is_walked_whole_through_its_knot(engine: str) -> None:
    bowtie = [("K", "A", 1), ("A", "B", 1), ("B", "K", 1), ("K", "C", 1), ("C", "D", 1)]
    bowtie.append(("D", "K", 1))
    assert answers(bowtie, [], engine)[0] == 6


@pytest.mark.parametrize("engine", ENGINES)
def test_parallel_routes_are_each_used_once(engine: str) -> None:
    # C-B-A-B: both A-B routes, one after the other
    parallel = [("A", "B", 2), ("A", "B", 3), ("B", "C", 1)]
    assert answers(parallel, [("C", "A")], engine) == (6, [True])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_loop_counts_once_and_joins_nothing_new(engine: str) -> None:
    loop = [("A", "A", 5), ("A", "B", 1), ("C", "C", 4)]
    assert answers(loop, [("A", "B"), ("A", "C"), ("C", "C")], engine) == (6, [True, False, True])


@pytest.mark.parametrize("engine", ENGINES)
def test_disconnected_parts(engine: str) -> None:
    parts = [("A", "B", 1), ("B", "C", 1), ("D", "E", 7)]
    queries = [("A", "C"), ("C", "A"), ("A", "D"), ("E", "D")]
    assert answers(parts, queries, engine) == (7, [True, True, False, True])


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_collection(engine: str) -> None:
    # no card is made: only a city joins itself
    assert answers([], [("A", "B"), ("A", "A")], engine) == (0, [False, True])


@pytest.mark.parametrize("engine", ENGINES)
def test_negative_lengths_are_left_out_of_the_longest_path(engine: str) -> None:
    # the empty trail is a trail: the longest is never below 0
    assert answers([("A", "B", -2), ("B", "C", 3), ("C", "D", -1)], [], engine)[0] == 3
    assert answers([("A", "B", -2)], [], engine)[0] == 0


TICKETS = """
 (card-kind TICKET-AD (FROM A) (TO D) (POINTS 5))
 (card-kind TICKET-AE (FROM A) (TO E) (POINTS 7))
 (card-kind TRAIN (COLOUR RED))"""


@pytest.mark.parametrize("engine", ENGINES)
def test_cities_read_from_cards_and_cards_that_are_no_routes(engine: str) -> None:
    # the tickets' ends are (attr ...) of a loop variable; a card without FROM and TO
    # (a TRAIN) among the routes is no route
    extra = f"""
 (create cards (game vloc TICKETS) TICKET-AD 1)
 (create cards (game vloc TICKETS) TICKET-AE 1)
 (create cards {ROUTES} TRAIN 2)
 (set (game sto DONE)
      (total POINTS (filter (game vloc TICKETS) 'T
                      (connects {ROUTES} FROM TO (attr FROM 'T) (attr TO 'T)))))
 (set (game sto TOP) (if (connects {ROUTES} FROM TO (attr FROM (top (game vloc TICKETS)))
                                   (attr TO (top (game vloc TICKETS)))) 1 0))"""
    values = stored(route_game(TRIANGLE_AND_TAIL, kinds=TICKETS, extra=extra), engine)
    assert (values["DONE"], values["TOP"], values["LONG"]) == (5, 0, 14)


def test_the_checker_types_the_forms() -> None:
    from cardlang import GameFileError

    text = route_game(
        TRIANGLE_AND_TAIL, extra=" (set (game sto BAD) (connects (game vloc ROUTES) FROM TO A B))"
    )
    with pytest.raises(
        GameFileError, match="expected an integer for an integer storage, got a boolean"
    ):
        load_text(text)
    text = route_game(
        TRIANGLE_AND_TAIL,
        extra=" (set (game str BAD) (longest-path (game vloc ROUTES) FROM TO LENGTH))",
    )
    with pytest.raises(
        GameFileError, match="expected a string for a string storage, got an integer"
    ):
        load_text(text)


# ---------------------------------------------------------------- references

CITIES = "ABCDE"


def union_find_connected(routes: Sequence[Route], x: str, y: str) -> bool:
    parent = {c: c for c in CITIES + "Z"}

    def root(c: str) -> str:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for a, b, _ in routes:
        parent[root(a)] = root(b)
    return root(x) == root(y)


def brute_longest_trail(routes: Sequence[Route]) -> int:
    """Euler: a set of edges is one trail exactly when its edges are connected and at
    most two cities have an odd degree; the longest trail is the heaviest such set."""
    best = 0
    for k in range(1, len(routes) + 1):
        for chosen in combinations(routes, k):
            if _is_one_trail(chosen):
                best = max(best, sum(w for _, _, w in chosen))
    return best


def _is_one_trail(edges: Sequence[Route]) -> bool:
    degree: dict[str, int] = {}
    for a, b, _ in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    odd = sum(d % 2 for d in degree.values())
    first = edges[0][0]
    return odd <= 2 and all(union_find_connected(edges, first, c) for c in degree)


ROUTE = st.tuples(st.sampled_from(CITIES), st.sampled_from(CITIES), st.integers(-3, 9))
QUERIES = [(x, y) for x, y in combinations(CITIES, 2)] + [("A", "Z"), ("Z", "Z"), ("C", "C")]


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(routes=st.lists(ROUTE, max_size=8))
def test_the_forms_agree_with_the_references(engine: str, routes: list[Route]) -> None:
    longest, connected = answers(routes, QUERIES, engine)
    assert longest == brute_longest_trail(routes)
    assert connected == [union_find_connected(routes, x, y) for x, y in QUERIES]
