"""The agent contract (docs/agents.md): one view for an agent from a file, wherever it plays.

In ``simulate``, ``play`` and ``serve`` a plugin's ``choose(view, options)`` gets a live
``PlayerView``; in a tournament's sandbox a ``SandboxView`` built from plain data
(runs/agent_view.py).  Here the two are held to each other: name by name (every public
name of one is on the other, or is in the documented list of what needs the game), value
by value (the same game, seed and decision show the same thing on both sides), and in
use (one agent file that reads the whole view plays through all four commands).
"""

from __future__ import annotations

import io
import json
import pickle
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardlang import load_game
from cardlang.cli.main import main
from cardlang.engine.game import Game
from cardlang.information.views import AgentView, PlayerView, consult, view_of
from cardlang.information.vocabulary import Vocabulary
from cardlang.runs.agent_view import (
    GAME_ONLY_OPTION,
    GAME_ONLY_VIEW,
    SandboxUnavailable,
    SandboxView,
    plain,
    view_data,
)

ROOT = Path(__file__).resolve().parent.parent
KUHN = ROOT / "games" / "kuhn_poker.rcy"
HEARTS = ROOT / "games" / "hearts.rcy"
DOMINION = ROOT / "games" / "dominion.rcy"
RECORDER = Path(__file__).resolve().parent / "contract_agents" / "recorder.py"
SPEC = f"{RECORDER}:Recorder"
DOC = ROOT / "docs" / "agents.md"


def _engines() -> list[str]:
    try:
        load_game(KUHN).master(engine="native")
    except Exception:  # not built here: the Python engine only
        return ["python"]
    return ["python", "native"]


ENGINES = _engines()


def _public(obj: Any) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def _rules(game: Game) -> dict[str, Any]:
    """What a tournament sends a sandboxed agent's worker at the start of a game."""
    return {
        "name": game.source.name,
        "text": game.source.text,
        "kinds": plain(dict(game.kind_attributes)),
    }


def _sandbox_view(view: PlayerView, game: Game) -> SandboxView:
    """The SandboxView a sandboxed agent would get for ``view``: its plain data, through
    a pickle as to a worker, with the whole history and the situation's vocabulary."""
    data = pickle.loads(pickle.dumps(view_data(view, Vocabulary.of(game), 0, True)))
    return SandboxView(data, data["history"], data.get("vocabulary", ()), _rules(game))


def _decisions(path: Path, engine: str, seeds: range, every: int, most: int) -> Iterator[Any]:
    """``(game, master, st, options)`` at every ``every``-th decision of recorded games
    played at random (at most ``most`` decisions a game)."""
    game = load_game(path)
    master = game.master(engine=engine)
    for seed in seeds:
        st = master.new_game(seed, record=True)
        rng = random.Random(seed)
        while not st.is_over and st.decisions < most:
            options = master.legal_options(st)
            if st.decisions % every == 0:
                yield game, master, st, options
            master.apply(st, rng.randrange(len(options)))


# ---------------------------------------------------------------- the names


def test_both_views_satisfy_the_one_protocol_that_names_the_whole_view() -> None:
    """``AgentView`` (information/views.py) is the view agents are written against: both
    views are instances of it (mypy checks their types against it too), and it names
    every public name of a ``PlayerView`` but its constructor ``live``."""
    game, master, st, options = next(_decisions(HEARTS, "python", range(1), 1, 1))
    view = view_of(st, st.mover, game, options)
    assert isinstance(view, AgentView)
    assert isinstance(_sandbox_view(view, game), AgentView)
    members = {name for name in vars(AgentView) if not name.startswith("_")}
    assert members == _public(view) - {"live"}


def test_every_public_name_of_a_player_view_is_on_a_sandbox_view_or_needs_the_game() -> None:
    game, master, st, options = next(_decisions(HEARTS, "python", range(1), 1, 1))
    view = view_of(st, st.mover, game, options)
    sandbox = _sandbox_view(view, game)
    ours, theirs = _public(view), _public(sandbox)
    assert set(GAME_ONLY_VIEW) <= ours, "GAME_ONLY_VIEW names what PlayerView lacks"
    assert ours - theirs <= set(GAME_ONLY_VIEW), "missing on SandboxView"
    assert theirs <= ours, "on SandboxView only: add it to PlayerView, or it drifts"
    assert ours - theirs == {"live"}  # the constructor from a Gamestate
    for name in GAME_ONLY_VIEW:
        if not hasattr(sandbox, name):
            continue
        value = getattr(sandbox, name)
        if callable(value):
            arguments = (random.Random(0),) if name == "determinize" else ()
            with pytest.raises(SandboxUnavailable, match="holds no game"):
                value(*arguments)
        else:
            assert value is None, name

    option, sandboxed = view.options[0], sandbox.options[0]
    ours, theirs = _public(option), _public(sandboxed)
    assert set(GAME_ONLY_OPTION) <= ours
    assert ours == theirs, "OptionView and SandboxOption differ"
    for name in GAME_ONLY_OPTION:
        assert getattr(sandboxed, name) is None, name


def test_the_contract_document_names_every_attribute() -> None:
    game, master, st, options = next(_decisions(HEARTS, "python", range(1), 1, 1))
    view = view_of(st, st.mover, game, options)
    text = DOC.read_text()
    names = _public(view) | _public(view.options[0]) | {"vocabulary", "refusal"}
    undocumented = sorted(n for n in names if not re.search(rf"`[^`]*\b{n}\b[^`]*`", text))
    assert not undocumented, f"docs/agents.md does not name {undocumented}"
    for name in (*GAME_ONLY_VIEW, *GAME_ONLY_OPTION):
        assert re.search(rf"`{name}(\([^`]*\))?`", text), name


def test_the_documents_examples_run(tmp_path: Path) -> None:
    from cardlang.runs.simulate import run_batch

    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, "docs/agents.md", "exec"), {})
    example = tmp_path / "greedy.py"
    example.write_text(blocks[-1])
    summary = run_batch(
        load_game(DOMINION), games=2, seed=1, agent_specs=[f"{example}:Greedy", "random"]
    )
    assert summary.failed == 0 and summary.completed == 2


# ---------------------------------------------------------------- the values

#: The accessors of a view that take arguments, compared one by one below; a new one
#: must be added here (and compared).
METHODS = {
    "cards",
    "known_cards",
    "zone_knowledge",
    "size",
    "top",
    "tops",
    "locations",
    "storage",
    "history_since",
    "close",
}


def assert_same_view(view: PlayerView, sandbox: SandboxView) -> None:
    names = _public(sandbox) - set(GAME_ONLY_VIEW)
    methods = {n for n in names if callable(getattr(sandbox, n))}
    assert methods == METHODS, "a new accessor: compare it here"
    for name in sorted(names - methods - {"options", "raw_options"}):
        assert plain(getattr(view, name)) == plain(getattr(sandbox, name)), name
    assert len(view.raw_options) == len(sandbox.raw_options) == len(sandbox.options)
    assert sandbox.raw_options == sandbox.options  # what choose is given, in a sandbox
    assert len(view.options) == len(sandbox.options)
    for shown, sandboxed in zip(view.options, sandbox.options, strict=True):
        for name in sorted(_public(sandboxed) - set(GAME_ONLY_OPTION)):
            assert plain(getattr(shown, name)) == plain(getattr(sandboxed, name)), name
    # the accessors, on every location
    assert set(view.locations()) == set(sandbox.locations())
    assert plain(view.tops()) == plain(sandbox.tops())
    assert list(plain(view.tops())) == list(sandbox.tops())  # in the order made
    for key in view.locations():
        for name in ("cards", "known_cards", "size", "top"):
            assert plain(getattr(view, name)(*key)) == getattr(sandbox, name)(*key), (name, key)
        ours, theirs = view.zone_knowledge(*key), sandbox.zone_knowledge(*key)
        assert (ours.size, dict(ours.known)) == (theirs.size, dict(theirs.known)), key
        assert plain(dict(ours.expected)) == dict(theirs.expected), key
    for owner, name in [*view.ints, (0, "NO_SUCH_STORAGE")]:
        assert view.storage(owner, name) == sandbox.storage(owner, name)
    for where in ((0, "iloc", "NO_SUCH_PLACE"), (-1, "hloc", "NO_SUCH_PLACE")):
        for name in ("cards", "known_cards", "size", "top"):
            assert plain(getattr(view, name)(*where)) == getattr(sandbox, name)(*where)
    length = view.history_length
    for start in (0, length // 2, length):
        assert plain(view.history_since(start)) == sandbox.history_since(start)
    sandbox.close()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("path", "seeds", "every", "most"),
    [(KUHN, range(6), 1, 10), (HEARTS, range(2), 5, 80), (DOMINION, range(1), 23, 400)],
    ids=["kuhn", "hearts", "dominion"],
)
def test_a_sandbox_view_shows_what_the_player_view_shows(
    path: Path, seeds: range, every: int, most: int, engine: str
) -> None:
    """At sampled decisions of recorded games: a snapshot view and a live one (as the
    tournament reads it, through ``consult``) against the SandboxView made of it."""
    checked = 0
    knew: set[str] = set()  # what the seat knew of hidden locations' cards, at some point
    for game, master, st, options in _decisions(path, engine, seeds, every, most):
        snapshot = view_of(st, st.mover, game, options)
        assert_same_view(snapshot, _sandbox_view(snapshot, game))

        def compare(view: PlayerView, _: Any, game: Game = game) -> None:
            sandbox = _sandbox_view(view, game)
            assert_same_view(view, sandbox)
            for key in sandbox.hidden_sizes:
                if any(c is not None for c in sandbox.known_cards(*key)):
                    knew.add("cards")
                if sandbox.zone_knowledge(*key).expected:
                    knew.add("odds")

        consult(compare, st, st.mover, game, options, master.limits)
        checked += 1
    assert checked >= 5
    # Hearts: a card passed is known to lie in the hand it went to; Dominion: a shuffled
    # deck's composition
    assert knew == {KUHN: {"odds"}, HEARTS: {"cards", "odds"}, DOMINION: {"odds"}}[path]


def test_view_data_sends_only_the_new_history() -> None:
    points = _decisions(HEARTS, "python", range(1), 9, 20)
    next(points)
    game, master, st, options = next(points)  # decision 9
    view = view_of(st, st.mover, game, options)
    length = view.history_length
    data = view_data(view, Vocabulary.of(game), length - 3, False)
    assert data["history_length"] == length and len(data["history"]) == 3
    assert "vocabulary" not in data


# ---------------------------------------------------------------- every command


def _json_out(capsys: Any) -> dict[str, Any]:
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_agent_file_plays_through_simulate(capsys: Any) -> None:
    runs = [
        (KUHN, f"{SPEC},random", ["--games", "4"]),
        (HEARTS, f"{SPEC},random,{SPEC}:answer=vector,{SPEC}:answer=option", ["--games", "1"]),
        (DOMINION, f"{SPEC},bmu", ["--games", "1", "--max-decisions", "300"]),
    ]
    for path, agents, extra in runs:
        code = main(["simulate", str(path), "--agents", agents, "--seed", "1", "--json", *extra])
        summary = _json_out(capsys)
        assert summary["failed"] == 0 and summary["failed_by_agent"] == {}, summary
        assert code == 0
        assert summary["completed"] + summary["cutoff"] == summary["games"]
    assert summary["mean_decisions"] > 50  # Dominion: many decisions of the file's agent


def test_the_agent_file_plays_through_a_tournament(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    # the command makes its process non-dumpable: not the test runner's
    monkeypatch.setattr("cardlang.runs.sandbox.harden_parent", lambda: None)
    args = ["tournament", str(KUHN), "--agents", f"random,{SPEC}", "--games", "2"]
    args += ["--seed", "1", "--db", str(tmp_path / "t.sqlite"), "--json", "--quiet"]
    assert main(args) == 0
    result = _json_out(capsys)
    assert result["forfeits"][SPEC] == {}, result["forfeits"]
    games = result["games"]
    assert games["planned"] == games["completed"] == 2 and games["failed"] == 0, games


def test_the_agent_file_plays_through_play(capsys: Any, monkeypatch: Any) -> None:
    """A person at seat 1 of Hearts (always answering 1), the file's agent at the others."""
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    code = main(
        ["play", str(HEARTS), "--seat", "1", "--agents", SPEC, "--seed", "2", "--no-record"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "the game is over" in out and "failed" not in err


def test_the_agent_file_plays_through_serve(capsys: Any, monkeypatch: Any) -> None:
    """``cardlang serve`` with a person at seat 0 of Hearts, played through the HTTP API
    (Starlette's TestClient in place of the server), the file's agent at the others."""
    pytest.importorskip("starlette", reason="cardlang serve needs the web extra (starlette)")
    pytest.importorskip("uvicorn", reason="cardlang serve needs the web extra (uvicorn)")
    try:
        from starlette.testclient import TestClient
    except RuntimeError:  # neither httpx2 nor httpx
        pytest.skip("Starlette's TestClient needs httpx2 (or httpx)")
    import cardlang.interactive.web as web_module

    made: list[Any] = []
    create_app = web_module.create_app

    def creating(web: Any) -> Any:
        made.append(web)
        return create_app(web)

    class Server:
        """Plays the people's seats (option 0 each time) until the game is done."""

        def __init__(self, app: Any) -> None:
            self.app = app
            self.moves = 0

        def run(self, sockets: Any) -> None:
            (web,) = made
            with TestClient(self.app) as client:
                deadline = time.monotonic() + 120
                while not web.done.is_set() and time.monotonic() < deadline:
                    if not self.move(client, web):
                        time.sleep(0.005)

        def move(self, client: Any, web: Any) -> bool:
            for seat, channel in web.channels.items():
                got = client.get(f"/api/seat/{seat}/state", params={"token": channel.token})
                table = got.json()["table"]
                if table is None or table["decision"] is None:
                    continue
                body = {"decision": table["decision"], "option": 0}
                token = {"X-Cardlang-Token": channel.token}
                posted = client.post(f"/api/seat/{seat}/move", headers=token, json=body)
                assert posted.status_code in (200, 409), posted.text  # 409: already taken
                self.moves += posted.status_code == 200
                return True
            return False

    servers: list[Server] = []

    def server_for(app: Any, sock: Any) -> Server:
        servers.append(Server(app))
        return servers[-1]

    monkeypatch.setattr(web_module, "create_app", creating)
    monkeypatch.setattr(web_module, "server_for", server_for)
    args = ["serve", str(HEARTS), "--people", "0", "--agents", SPEC, "--port", "0"]
    code = main([*args, "--seed", "3", "--no-record"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert made[0].status == "over" and servers[0].moves == 16  # 3 passes, 13 tricks
