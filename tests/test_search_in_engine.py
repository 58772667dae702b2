"""ISMCTS and MCTS searched inside the native engine (agents/search/in_engine.py,
native/src/search.h) choose exactly as the Python search does: the same choices, the
same traces, the same event logs, on either engine; and the random draws they share with
Python (CPython's Mersenne Twister) are Python's, draw for draw."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import make_agent
from cardlang.agents.search.in_engine import EngineSearch
from hypothesis import given, settings
from hypothesis import strategies as st

from cardlang import load_game
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from cardlang.runs.runner import play_game
from cardlang.runs.simulate import agent_seeds, game_seeds

pytestmark = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

GAMES = Path(__file__).resolve().parent.parent / "games"


# ---------------------------------------------------------------- Python's generator


def _native_random(seed: int) -> tuple[Any, random.Random]:
    from cardlang.engine.native import _native  # the build the engine loaded

    theirs = random.Random(seed)
    ours = _native.PyRandom()
    ours.load(list(theirs.getstate()[1]))
    return ours, theirs


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    draws=st.lists(
        st.one_of(
            st.tuples(st.just("random"), st.just(0)),
            st.tuples(st.just("bits"), st.integers(0, 64)),
            st.tuples(st.just("below"), st.integers(1, 2**40)),
            st.tuples(st.just("shuffle"), st.integers(0, 40)),
        ),
        max_size=40,
    ),
)
def test_the_engines_mersenne_twister_draws_as_pythons(seed: int, draws: list[Any]) -> None:
    ours, theirs = _native_random(seed)
    for what, n in draws:
        if what == "random":
            assert ours.random() == theirs.random()
        elif what == "bits":
            assert ours.getrandbits(n) == theirs.getrandbits(n)
        elif what == "below":
            assert ours.below(n) == theirs._randbelow(n)  # type: ignore[attr-defined]
        else:
            items = list(range(n))
            theirs.shuffle(items)
            assert ours.shuffle(list(range(n))) == items
    assert tuple(ours.save()) == theirs.getstate()[1]  # and the state handed back


# ---------------------------------------------------------------- the search


def _play(
    game_file: Path,
    spec: str,
    n_games: int,
    engine: str,
    agents_inside: bool = True,
    cutoff: int | None = None,
) -> list[Any]:
    """Per game: the searching seat's (choice, values, standings) and the event log
    (``agents_inside=False``: the game's agents, the search too, all kept in Python;
    ``cutoff``: each game cut off after that many decisions)."""
    limits = Limits(max_decisions=cutoff) if cutoff else None
    master = load_game(game_file, agents_inside=agents_inside).master(limits, engine=engine)
    nplayers = master.new_game(0).nplayers
    out: list[Any] = []
    for g, seed in enumerate(game_seeds(7, n_games)):
        seat = g % nplayers
        seeds = agent_seeds(seed, nplayers)
        agents = [make_agent("random", s) for s in seeds]
        search = agents[seat] = make_agent(spec, seeds[seat])
        decisions: list[Any] = []
        inner = search.choose

        def choose(
            view: Any, options: Any, inner: Any = inner, search: Any = search, out: Any = decisions
        ) -> Any:
            chosen = inner(view, options)
            trace = search.last_trace
            out.append((chosen, trace.option_values, trace.standings))
            return chosen

        search.choose = choose
        _, state = play_game(master, agents, seed, record=True)
        out.append((decisions, list(state.log)))
    return out


CASES = [
    ("hearts.rcy", "ismcts:iterations=40", 4, None),
    ("hearts.rcy", "mcts:iterations=25", 4, None),
    ("dominion.rcy", "ismcts:iterations=12:margin=0.3", 1, None),
    ("kuhn_poker.rcy", "ismcts:iterations=30", 6, None),
    ("crazy_eights.rcy", "mcts:iterations=15:c=1.4", 3, None),
    # the bots' twins roll out: the first 80 decisions of one game here (most of the time
    # is the Python search), three whole games in the long checks
    ("dominion.rcy", "ismcts:iterations=8:rollout=bigmoney", 1, 80),
    pytest.param(
        "dominion.rcy", "ismcts:iterations=8:rollout=bigmoney", 3, None, marks=pytest.mark.slow
    ),
]


@pytest.mark.early(11)
@pytest.mark.parametrize(("name", "spec", "n_games", "cutoff"), CASES)
def test_the_search_inside_the_engine_chooses_as_the_python_search(
    name: str, spec: str, n_games: int, cutoff: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched = []
    real_decide = EngineSearch.decide

    def counting(self: EngineSearch, *args: Any) -> Any:
        searched.append(1)
        return real_decide(self, *args)

    monkeypatch.setattr(EngineSearch, "decide", counting)
    inside = _play(GAMES / name, spec, n_games, "native", cutoff=cutoff)
    assert searched, "no decision was searched inside the engine"
    count = len(searched)
    # the same search in Python
    assert _play(GAMES / name, spec, n_games, "native", False, cutoff) == inside
    assert len(searched) == count  # none inside the engine that time
    python = _play(GAMES / name, spec, n_games, "python", cutoff=cutoff)
    assert [d for d, _ in python] == [d for d, _ in inside]
    assert [log for _, log in python] == [log for _, log in inside]


def test_a_search_whose_rollout_agents_have_no_twin_stays_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cardlang.agents.scripted.dominion import DominionBot

    monkeypatch.setattr(DominionBot, "native_agent", lambda self, master: None)
    monkeypatch.setattr(EngineSearch, "decide", None)  # would fail if called
    _play(GAMES / "dominion.rcy", "ismcts:iterations=4:rollout=bigmoney", 1, "native", cutoff=80)


def test_a_timed_search_inside_the_engine_searches_and_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searched = []
    real_decide = EngineSearch.decide

    def counting(self: EngineSearch, *args: Any) -> Any:
        answer = real_decide(self, *args)
        searched.append(answer[3])  # the iterations done
        return answer

    monkeypatch.setattr(EngineSearch, "decide", counting)
    [(decisions, log)] = _play(GAMES / "hearts.rcy", "ismcts:iterations=1:time=0.002", 1, "native")
    assert searched and all(done >= 1 for done in searched)
    assert any(done > 1 for done in searched)  # the clock, not the iterations, stopped it
    searched_traces = [d for d in decisions if len(d[1]) > 1]
    assert searched_traces and all(len(standings) == 4 for _, _, standings in searched_traces)


LATE_DECK = """(game
 (setup (create players 2)
        (create deck (game vloc POOL) (deck (RANK (A, B)))))
 ;; the SPARE deck's card types are made when someone first opens it, mid-game
 (stage player (end (> (size (game vloc WON)) 3))
   (choice ((any (game vloc POOL) 'C (move 'C (top (game vloc WON))))
            (create deck (game vloc SPARE) (deck (SUIT (X, Y, Z))))
            (any (game vloc SPARE) 'C (move 'C (top (game vloc WON)))))))
 (scoring max (size (filter (game vloc WON) 'C (== (cardatt RANK 'C) A)))))"""


def test_card_types_made_during_a_search_are_named_and_searched_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardlang.engine.native import NativeMaster

    path = tmp_path / "late.rcy"
    path.write_text(LATE_DECK)
    namings: list[int] = []  # per search: how often the engine was given names
    real_decide, real_name = EngineSearch.decide, NativeMaster.name_moves

    def decide(self: EngineSearch, *args: Any) -> Any:
        namings.append(0)
        return real_decide(self, *args)

    def name_moves(self: NativeMaster, card_slots: frozenset[int]) -> None:
        if namings:
            namings[-1] += 1
        real_name(self, card_slots)

    monkeypatch.setattr(EngineSearch, "decide", decide)
    monkeypatch.setattr(NativeMaster, "name_moves", name_moves)
    inside = _play(path, "ismcts:iterations=30", 2, "native")
    # the first search met the SPARE cards (made by its own simulations) and asked again
    assert namings[0] >= 2
    assert _play(path, "ismcts:iterations=30", 2, "native", agents_inside=False) == inside


def test_a_long_search_inside_the_engine_stops_on_a_signal() -> None:
    # Ctrl-C reaches Python as a signal whose handler raises: the engine's search asks
    # Python every few iterations, so a search of twenty seconds stops at once
    import signal
    import time

    class Stop(KeyboardInterrupt):  # as Ctrl-C: an agent's own exception would fail it
        pass

    def raise_stop(signum: int, frame: Any) -> None:
        raise Stop

    game = load_game(GAMES / "hearts.rcy")
    master = game.master(engine="native")
    agents = [make_agent("random", s) for s in range(4)]
    agents[0] = make_agent("ismcts:iterations=1:time=20", 5)
    previous = signal.signal(signal.SIGALRM, raise_stop)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Stop):
            play_game(master, agents, 3)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.perf_counter() - start < 5
