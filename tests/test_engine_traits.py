"""An engine declares what it offers (engine/traits.py ``EngineTraits``), and offers
what it declares: the layers above ask ``master.traits`` rather than probe a master."""

from __future__ import annotations

import pytest
from conftest import GAMES

from cardlang import load_game
from cardlang.engine.engines import ENGINE_NAMES, engine_named
from cardlang.engine.native import native_available
from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.traits import NATIVE, PYTHON
from cardlang.errors import UsageError

#: What each trait promises a caller may call.
OFFERS = {
    "agents_inside": ("play_native", "random_agent"),
    "search_inside": ("search_engine",),
    "batch_stepping": ("play_batch",),
}


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_a_master_offers_what_its_engine_declares(name: str) -> None:
    if name == "native" and not native_available():
        pytest.skip("the native engine is not built")
    master = load_game(GAMES / "kuhn_poker.rcy").master(engine=name)
    assert isinstance(master, Engine) and master.traits is engine_named(name)
    assert master.traits.name == name
    for trait, methods in OFFERS.items():
        for method in methods:
            assert hasattr(master, method) == getattr(master.traits, trait), (trait, method)


def test_the_python_engine_is_the_reference() -> None:
    assert PYTHON.reference and not NATIVE.reference
    assert ENGINE_NAMES == ("python", "native")


def test_an_unknown_engine_is_a_usage_error_with_a_suggestion() -> None:
    with pytest.raises(UsageError, match="did you mean 'native'"):
        engine_named("nativ")


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_a_state_says_which_engine_it_belongs_to(name: str) -> None:
    if name == "native" and not native_available():
        pytest.skip("the native engine is not built")
    master = load_game(GAMES / "kuhn_poker.rcy").master(engine=name)
    st = master.new_game(0)
    assert isinstance(st, EngineState) and st.traits is master.traits
    # and where the master declares less (its game's agents all kept in Python)
    kept = load_game(GAMES / "kuhn_poker.rcy", agents_inside=False).master(engine=name)
    assert kept.new_game(0).traits is kept.traits and not kept.traits.agents_inside


# ---------------------------------------------------------------- the engine, passed down


def test_a_game_loaded_for_an_engine_plays_on_it_and_names_are_checked_at_once() -> None:
    game = load_game(GAMES / "kuhn_poker.rcy", engine="python")
    assert game.master().traits is PYTHON
    with pytest.raises(UsageError, match="did you mean 'python'"):
        load_game(GAMES / "kuhn_poker.rcy", engine="pyton")


def test_nothing_below_the_command_line_reads_the_engine_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``CARDLANG_ENGINE`` is the command line's default for ``--engine`` and nothing
    else's: a game loaded in Python plays on the default engine whatever it says."""
    from cardlang.engine.engines import default_engine

    other = "python" if default_engine() == "native" else "native"
    monkeypatch.setenv("CARDLANG_ENGINE", other)
    assert load_game(GAMES / "kuhn_poker.rcy").master().traits.name == default_engine()


def test_the_command_line_settles_the_engine_once_and_passes_it_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import argparse

    from cardlang.cli.options import use_engine

    monkeypatch.setenv("CARDLANG_ENGINE", "python")
    args = argparse.Namespace(engine=None)
    use_engine(args)
    assert args.engine == "python"  # the environment, read at the edge
    monkeypatch.setenv("CARDLANG_ENGINE", "bogus")
    with pytest.raises(UsageError, match="names no engine"):
        use_engine(argparse.Namespace(engine=None))
    args = argparse.Namespace(engine="python")
    use_engine(args)  # --engine wins over the environment
    assert args.engine == "python"


def test_every_command_loads_its_game_for_the_engine_it_was_given() -> None:
    """No ``load_game(...)`` under cli/ without the engine the command settled."""
    import re
    from pathlib import Path

    cli = Path(__file__).resolve().parent.parent / "src" / "cardlang" / "cli"
    for path in sorted(cli.glob("*.py")):
        for call in re.findall(
            r"load_game(?:_and_text)?\((?:[^()]|\([^()]*\))*\)", path.read_text()
        ):
            if "def " in call:
                continue
            assert "engine" in call, f"{path.name}: {call}"
