"""A state sent to another compiled copy of its game (engine/transfer.py), and the
tournament's mirrored agents that play from such states (runs/agent_worker.py).

The claims: a state carried over plays on exactly as the original does, on both engines,
on every game file; and a built-in agent that is sent, at each decision, one world dealt
from its seat's knowledge (never the game, its seed or the other seats' seeds) answers
exactly what the same agent answers with the real game's view.  The copy of the game is
compiled separately, as a worker process compiles its own.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents.loop import resolve_choice
from cardlang.agents.registry import agent_maker
from conftest import corpus_params, own_games

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.engine.transfer import receive_state, send_state
from cardlang.information.views import consult
from cardlang.runs.agent_worker import MirrorSession
from cardlang.runs.sandbox import world_message

ENGINES = [
    "python",
    pytest.param(
        "native",
        marks=pytest.mark.skipif(not native_available(), reason="the native engine is not built"),
    ),
]


def _play_on(master: Any, st: Any, seed: int, moves: int = 60) -> tuple[list[int], Any]:
    """The option counts met on ``moves`` random moves from ``st``, and how it ended."""
    rng, counts = random.Random(seed), []
    for _ in range(moves):
        if st.is_over:
            break
        counts.append(len(master.legal_options(st)))
        master.apply(st, rng.randrange(counts[-1]))
    # the seed is not carried over (a world sent never names its game)
    result = dataclasses.replace(master.result(st), seed=0) if st.is_over else None
    return counts, (st.is_over, st.end_reason, result)


def _carried_over(path: Path, engine: str, games: int = 2, every: int = 7) -> int:
    game, twin = load_game(path), load_game(path)
    master = game.master(engine=engine)
    compared = 0
    for seed in range(games):
        st = master.new_game(seed, record=True)
        rng, k = random.Random(seed), 0
        while not st.is_over and k < 250:
            k += 1
            if k % every == 0:
                sent = send_state(master, st)
                expected = _play_on(master, st.clone(), k)
                there, copy = receive_state(twin, master.limits, sent)
                assert _play_on(there, copy, k) == expected, f"{path.name} {seed}@{k}"
                compared += 1
            master.apply(st, rng.randrange(len(master.legal_options(st))))
    return compared


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", own_games(), ids=lambda p: p.stem)
def test_a_state_carried_over_plays_on_as_the_original(path: Path, engine: str) -> None:
    _carried_over(path, engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", corpus_params(), ids=lambda p: p.stem if p else "absent")
def test_corpus_states_carried_over_play_on_as_the_originals(path: Path, engine: str) -> None:
    from cardlang.errors import GameFileError

    try:
        _carried_over(path, engine, games=1, every=11)
    except GameFileError:
        pytest.skip("a corpus file that does not check")


def test_tables_of_another_game_are_refused() -> None:
    if not native_available():
        pytest.skip("the native engine is not built")
    hearts = load_game(Path("games/hearts.rcy")).master(engine="native")
    st = hearts.new_game(1)
    sent = send_state(hearts, st)
    with pytest.raises(RuntimeError, match="not this game's"):
        receive_state(load_game(Path("games/kuhn_poker.rcy")), None, sent)
    with pytest.raises(RuntimeError, match="cut short"):
        receive_state(load_game(Path("games/hearts.rcy")), None, (sent[0], sent[1][:-9], sent[2]))


def _mirrored_answers(path: str, engine: str, spec: str, seed: int) -> int:
    """Play one game; at each of seat 0's decisions ask the agent with the real view and
    its mirrored twin (same spec and seed, in a separately compiled game) with a world
    message only, and check they answer the same.  The other seats move at random."""
    game = load_game(Path(path))
    master = game.master(engine=engine)
    twin_master = load_game(Path(path)).master(engine=engine)
    make = agent_maker(spec)
    here = make(5)
    there = MirrorSession(twin_master, make, {"seat": 0, "spec": spec, "seed": 5})
    st = master.new_game(seed, record=True)
    worlds, others = random.Random(seed), random.Random(seed + 1)
    seen = compared = 0
    while not st.is_over:
        options = master.legal_options(st)
        if st.mover != 0:
            master.apply(st, others.randrange(len(options)))
            continue

        def both(view: Any, options: Any, seen: int = seen) -> tuple[dict[str, Any], Any]:
            message = world_message(view, worlds, seen, len(options))
            return message, here.choose(view, options)

        message, answer = consult(both, st, 0, game, options, master.limits)
        seen += len(message["history"])
        index = (
            answer if type(answer) is int else resolve_choice(game, st, options, answer, spec)[0]
        )
        assert there.decide(message, None) == {"index": index}, f"decision {st.decisions}"
        compared += 1
        master.apply(st, index)
    return compared


MIRRORED = [
    ("games/kuhn_poker.rcy", "ismcts:iterations=60"),
    ("games/leduc_poker.rcy", "pimc:determinizations=3"),
    ("games/hearts.rcy", "ismcts:iterations=25"),
    ("games/punish.rcy", "ismcts:iterations=25"),
    ("games/dominion.rcy", "smithy"),
    ("games/dominion.rcy", "ismcts:iterations=4"),
    ("games/trains.rcy", "pimc:determinizations=2"),
    ("games/crazy_eights.rcy", "random"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("path", "spec"), MIRRORED, ids=lambda x: Path(x).stem if "/" in x else x)
def test_a_mirrored_agent_answers_as_with_the_real_view(path: str, engine: str, spec: str) -> None:
    assert _mirrored_answers(path, engine, spec, seed=3) > 0


def test_the_message_holds_no_seed_and_no_hidden_card() -> None:
    """What a mirrored worker is sent: a world whose hidden places are dealt from the
    seat's knowledge (over many messages, the opponent's Kuhn card is each card of the
    two it may be), with an RNG and seed that are not the game's."""
    game = load_game(Path("games/kuhn_poker.rcy"))
    master = game.master()
    seen_cards: set[str] = set()
    worlds = random.Random(0)
    for seed in range(12):
        st = master.new_game(seed, record=True)
        options = master.legal_options(st)
        message = consult(
            lambda view, options: world_message(view, worlds, 0, len(options)),
            st,
            st.mover,
            game,
            options,
            master.limits,
        )
        _, world = receive_state(load_game(Path("games/kuhn_poker.rcy")), None, message["world"])
        assert world.rng != st.rng and world.seed == 0
        opponent = [k for k in world.zones if k[0] == 1 - st.mover and world.zones[k]]
        seen_cards.update(str(world.cards[c]) for k in opponent for c in world.zones[k])
    assert len(seen_cards) == 3  # every card, not just the true ones


def test_a_tournaments_mirrored_workers_are_sent_no_seed(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every message a built-in agent's worker gets in a tournament, read as bytes: no
    game's seed appears in any, and no agent seed but the worker's own, once per game
    (its agent's constructor); the worlds are dealt, not the game's own deals."""
    import pickle

    from cardlang.runs.sandbox import AgentWorker
    from cardlang.runs.tournament import (
        run_tournament,
        tournament_agent_seed,
        tournament_game_seed,
    )

    sent: list[tuple[Any, ...]] = []
    ask = AgentWorker.ask

    def recording(self: AgentWorker, message: tuple[Any, ...], seconds: float) -> Any:
        sent.append(message)
        return ask(self, message, seconds)

    monkeypatch.setattr(AgentWorker, "ask", recording)
    secret, games = "00112233445566778899aabbccddeeff", 6
    game = load_game(Path("games/kuhn_poker.rcy"))
    result = run_tournament(
        game,
        agents=["ismcts:iterations=20", "pimc:determinizations=2"],
        games=games,
        seed=4,
        secret=secret,
    )
    assert result.to_json()["games"]["completed"] == games
    game_seeds = [tournament_game_seed(secret, 4, i) for i in range(games)]
    agent_seeds = {tournament_agent_seed(secret, s, seat) for s in game_seeds for seat in (0, 1)}
    starts = [m for m in sent if m[0] == "game"]
    assert len(starts) == 2 * games
    for message in sent:
        data = pickle.dumps(message)
        for seed in game_seeds:
            assert seed.to_bytes(8, "little") not in data, message[0]
        for seed in agent_seeds:
            if message[0] == "game" and message[1]["seed"] == seed:
                continue
            assert seed.to_bytes(8, "little") not in data, message[0]
    for start in starts:
        assert set(start[1]) == {"seed", "seat", "spec"}
