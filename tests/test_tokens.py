"""Tokens of views (cardlang.information.tokens): every game file tokenizes, the layout
follows the rules, and a token set shows nothing a view does not."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS_FAILS_CHECK, corpus_params

from cardlang import load_game
from cardlang.engine.state import RUNNING
from cardlang.information.tokens import (
    CARD,
    MAX_NAMES,
    SCALAR,
    SITUATION,
    TOP,
    UNKNOWN,
    ZONE,
    NameTable,
    Tokenizer,
    bucket,
    card_components,
    collate,
)
from cardlang.information.views import PlayerView

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.rcy"))


def _views(path: Path, seed: int = 1, limit: int = 120, params=None):  # type: ignore[no-untyped-def]
    game = load_game(path, params=params)
    master = game.master()
    st = master.new_game(seed, record=True)
    rng = random.Random(seed)
    while st.status == RUNNING and limit:
        options = master.legal_options(st)
        yield game, st, options, PlayerView.live(st, st.mover, game, options)
        master.apply(st, rng.randrange(len(options)))
        limit -= 1


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_every_game_file_tokenizes_by_its_rules(path: Path) -> None:
    table = NameTable()
    tokenizer = None
    for game, st, _options, view in _views(path):
        tokenizer = tokenizer or Tokenizer(game, table)
        t = tokenizer.tokenize(view)
        kinds = list(t.kinds)
        assert kinds.count(SITUATION) == 1
        assert t.names.shape == (len(kinds), MAX_NAMES)
        assert (t.names < len(table)).all() and (t.names[:, 0] != UNKNOWN).all()
        # one action per distinct option key, each option mapped to its action
        keys = tokenizer.vocabulary.view_keys(view)
        assert list(t.keys) == list(dict.fromkeys(keys))
        assert [t.keys[a] for a in t.action_of] == keys
        assert all(keys[o] == t.keys[j] for j, o in enumerate(t.option_of))
        # card tokens of a location add up to its size, which its zone token holds
        by_zone: dict[int, float] = defaultdict(float)
        sizes: dict[int, int] = {}
        for row, kind, b, cont in zip(t.names, t.kinds, t.buckets, t.continuous, strict=True):
            if kind == CARD:
                by_zone[int(row[0])] += float(np.exp(cont[0]) - 1e-3)
            elif kind == ZONE:
                sizes[int(row[0])] = int(round(float(np.exp(cont[0]) - 1e-3)))
                assert b == bucket(sizes[int(row[0])]) and sizes[int(row[0])] > 0
        for zone, total in by_zone.items():
            assert total == pytest.approx(sizes[zone], abs=1e-2)
        # situation token: whose turn it is, from the viewer
        assert t.buckets[kinds.index(SITUATION)] == (view.current_player - view.seat) % st.nplayers


@pytest.mark.parametrize("path", corpus_params(), ids=lambda p: p.stem if p else "absent")
def test_every_corpus_game_tokenizes(path: Path) -> None:
    """Every CardStock game of the corpus that checks: the views of a random game's
    first decisions tokenize, with one situation token and one action per key."""
    if path.stem in CORPUS_FAILS_CHECK:
        pytest.skip("the corpus file does not check")
    table = NameTable()
    tokenizer = None
    for game, _st, _options, view in _views(path, limit=25):
        tokenizer = tokenizer or Tokenizer(game, table)
        t = tokenizer.tokenize(view)
        assert list(t.kinds).count(SITUATION) == 1
        assert len(t.keys) == len(set(tokenizer.vocabulary.view_keys(view))) >= 1


def test_storages_and_turn_are_scalar_tokens() -> None:
    game, st, options, view = next(_views(ROOT / "games/kuhn_poker.rcy", limit=2))
    table = NameTable()
    t = Tokenizer(game, table).tokenize(view)
    names = {
        table.names[int(row[0])]: (int(b), tuple(c))
        for row, k, b, c in zip(t.names, t.kinds, t.buckets, t.continuous, strict=True)
        if k == SCALAR
    }
    assert "sto:P+0:CHIPS" in names and names["sto:P+0:CHIPS"][0] == bucket(-1)  # the ante
    assert "sto:game:POT" in names and names["sto:game:POT"][0] == 2
    assert "turns" in names


def test_card_components_are_attribute_values() -> None:
    assert card_components({"KIND": "SMITHY", "COST": 4, "TYPES": ["ACTION"]}) == [
        "comp:KIND=SMITHY",
        "comp:COST=4",
        "comp:TYPES=ACTION",
    ]
    assert card_components({"RANK": "A", "SUIT": "SPADES", "DECK": "RED"}) == [
        "comp:RANK=A",
        "comp:SUIT=SPADES",
    ]


def test_top_tokens_where_a_choice_reads_the_top_card() -> None:
    # Crazy Eights: a play must match the discard pile's top card
    table = NameTable()
    tops = 0
    for game, _, _, view in _views(ROOT / "games/crazy_eights.rcy", limit=20):
        t = Tokenizer(game, table).tokenize(view)
        tops += int((t.kinds == TOP).sum())
    assert tops > 0


def test_a_frozen_table_maps_new_names_to_unknown() -> None:
    table = NameTable(["a", "b"], frozen=True)
    assert table.id("a") == 1 and table.id("c") == UNKNOWN and len(table) == 3
    growing = NameTable(capacity=3)
    assert growing.id("x") == 1 and growing.id("y") == 2 and growing.id("z") == UNKNOWN


@pytest.mark.parametrize("path", ["games/hearts.rcy", "games/dominion.rcy"])
def test_tokens_show_nothing_the_view_does_not(path: str) -> None:
    """The tokens of a view are those of the same view in any determinization: worlds
    that differ only in cards the player cannot see."""
    table = NameTable()
    rng = random.Random(4)
    checked = 0
    for i, (game, _st, options, view) in enumerate(_views(ROOT / path, seed=3, limit=60)):
        if i % 7:
            continue
        tokenizer = Tokenizer(game, table)
        real = tokenizer.tokenize(view)
        for _ in range(3):
            world = view.determinize(rng)
            other = tokenizer.tokenize(PlayerView(world, view.seat, game, options))
            for field in ("names", "kinds", "buckets", "continuous", "action_names"):
                assert np.array_equal(getattr(real, field), getattr(other, field)), field
            checked += 1
    assert checked >= 6


def test_collate_pads_with_masks() -> None:
    table = NameTable()
    items = []
    for game, _, _, view in _views(ROOT / "games/hearts.rcy", limit=5):
        items.append(Tokenizer(game, table).tokenize(view))  # at once: the views are live
    batch = collate(items)
    assert batch.token_mask.sum(1).tolist() == [len(x.kinds) for x in items]
    assert batch.action_mask.sum(1).tolist() == [len(x.keys) for x in items]
    assert (batch.names[~batch.token_mask] == 0).all()


def test_the_core_never_imports_torch() -> None:
    code = (
        "import sys, cardlang, cardlang.cli.main, cardlang.agents, cardlang.information.tokens, "
        "cardlang.runs.simulate, cardlang.analysis.measures\n"
        "from cardlang.agents import make_agent\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
