"""An engine declares what it offers (engine/engines.py ``EngineTraits``), and offers
what it declares: the layers above ask ``master.traits`` rather than probe a master."""

from __future__ import annotations

import pytest
from conftest import GAMES

from cardlang import load_game
from cardlang.engine.engines import ENGINE_NAMES, NATIVE, PYTHON, engine_named
from cardlang.engine.native import native_available
from cardlang.engine.protocol import Engine
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
