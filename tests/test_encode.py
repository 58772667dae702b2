"""Encoders (cardlang.information.encode): fixed layouts per situation, masks over the vocabulary,
batches, and no leak of hidden cards."""

from __future__ import annotations

import json
import os
import random
import re

import numpy as np
import pytest
from conftest import CORPUS, GAMES, needs_corpus
from helpers import run_cli

from cardlang import load_game
from cardlang.information.encode import Encoder
from cardlang.information.views import PlayerView, view_of
from cardlang.information.vocabulary import Vocabulary

DOMINION = GAMES / "dominion.rcy"


@pytest.fixture(scope="module")
def dominion():  # type: ignore[no-untyped-def]
    return load_game(DOMINION, params={"KINGDOM": "RANDOM"})


def _decisions(game, games: int, *, record: bool = False, seed: int = 0):  # type: ignore[no-untyped-def]
    """(state, options, snapshot view of the mover) at every decision of random games."""
    master = game.master()
    rng = random.Random(seed)
    for s in range(games):
        st = master.new_game(seed + s, record=record)
        while not st.is_over:
            options = master.legal_options(st)
            yield st, options, view_of(st, st.mover, game, options)
            master.apply(st, rng.randrange(len(options)))


def test_layouts_are_contiguous_and_fixed(dominion) -> None:  # type: ignore[no-untyped-def]
    enc = Encoder.of(dominion)
    assert Encoder.of(dominion) is enc
    assert len(enc.layouts) == len(enc.situations) == 23
    for layout in enc.layouts:
        at = 0
        for block in layout.blocks:
            assert block.start == at, (layout.situation, block)
            at = block.stop
        assert layout.size == at <= enc.width
    again = Encoder(load_game(DOMINION, params={"KINGDOM": "RANDOM"}))
    assert again.layouts == enc.layouts  # from the rules, not from one game
    first = enc.layouts[0].blocks
    assert first[0].what == "current" and first[0].labels == ("P+0", "P+1")
    names = {(b.owner, b.name) for b in first if b.what == "size"}
    assert ("game", "SUPPLY#16(vloc)") in names  # indexed piles, bounded by the setup
    assert ("P+1", "HAND(iloc)") in names and ("P+0", "DECK(hloc)") in names
    seen = {(b.owner, b.name, b.what) for b in first}
    assert ("P+0", "HAND(iloc)", "cards") in seen  # the viewer's own hand: its cards
    assert ("P+1", "HAND(iloc)", "expected") in seen  # the opponent's: expectations
    assert ("P+1", "HAND(iloc)", "cards") not in seen
    storages = {(b.owner, label) for b in first if b.what == "storage" for label in b.labels}
    assert {("game", "PILES"), ("P+0", "COINS"), ("P+1", "PROVINCE")} <= storages


def test_shapes_masks_and_values(dominion) -> None:  # type: ignore[no-untyped-def]
    enc = Encoder.of(dominion)
    vocab = Vocabulary.of(dominion)
    for st, options, view in _decisions(dominion, 5):
        sid, vector, mask = enc.encode(view)
        situation = vocab.situation_of(st)
        assert sid == vocab.situation_id(situation)
        layout = enc.layouts[sid]
        assert vector.dtype == np.float32 and vector.shape == (layout.size,)
        assert mask.dtype == np.bool_ and mask.shape == (len(vocab.keys(situation)),)
        wanted = {vocab.index(situation, k) for k in vocab.option_keys(st, options, st.mover)}
        assert set(np.flatnonzero(mask)) == wanted, "the mask is the legal options' keys"
        # a few values read back where the layout says
        for block in layout.blocks:
            if block.what == "size" and block.owner == "P+0" and block.name == "HAND(iloc)":
                assert vector[block.start] == len(st.zones.get((st.mover, "iloc", "HAND"), ()))
            if block.what == "storage" and block.owner == "P+0":
                coins = block.start + block.labels.index("COINS")
                assert vector[coins] == st.ints.get((st.mover, "COINS"), 0)


def test_encoding_is_deterministic_and_live_views_agree(dominion) -> None:  # type: ignore[no-untyped-def]
    enc = Encoder.of(dominion)
    for n, (st, options, view) in enumerate(_decisions(dominion, 2, seed=11)):
        sid, vector, mask = enc.encode(view)
        again = enc.encode(view_of(st, st.mover, dominion, options))
        live = PlayerView.live(st, st.mover, dominion, options)
        from_live = enc.encode(live)
        live.close()
        for other in (again, from_live):
            assert other[0] == sid
            assert np.array_equal(other[1], vector) and np.array_equal(other[2], mask), n


def test_batch_equals_single(dominion) -> None:  # type: ignore[no-untyped-def]
    enc = Encoder.of(dominion)
    views = [v for _, _, v in _decisions(dominion, 1, seed=3)][:64]
    sits, vectors, masks = enc.buffers(len(views))
    vectors[:] = 7.0  # encode_batch must overwrite (and pad) every row
    masks[:] = True
    enc.encode_batch(views, sits, vectors, masks)
    assert vectors.shape == (len(views), enc.width) and masks.shape[1] == enc.n_actions
    for i, view in enumerate(views):
        sid, vector, mask = enc.encode(view)
        assert sits[i] == sid
        assert np.array_equal(vectors[i, : len(vector)], vector)
        assert not vectors[i, len(vector) :].any()
        assert np.array_equal(masks[i, : len(mask)], mask) and not masks[i, len(mask) :].any()


def _assert_invariant_under_determinization(game, games: int, every: int) -> int:  # type: ignore[no-untyped-def]
    enc = Encoder.of(game)
    master = game.master()
    rng = random.Random(5)
    checked = 0
    for n, (st, _, view) in enumerate(_decisions(game, games, record=True)):
        if n % every:
            continue
        sid, vector, mask = enc.encode(view)
        for _ in range(3):
            det = view.determinize(rng)
            det_view = view_of(det, st.mover, game, master.legal_options(det))
            d_sid, d_vector, d_mask = enc.encode(det_view)
            assert d_sid == sid
            assert np.array_equal(d_vector, vector), "the encoding shows hidden cards"
            assert np.array_equal(d_mask, mask), "the mask shows hidden cards"
            checked += 1
    return checked


def test_encoding_never_depends_on_hidden_cards(dominion) -> None:  # type: ignore[no-untyped-def]
    assert _assert_invariant_under_determinization(dominion, games=2, every=7) > 20


@needs_corpus
@pytest.mark.parametrize("name", ["GoFish2", "Hearts4", "GolfSix2"])
def test_corpus_encodings(name: str) -> None:
    game = load_game(CORPUS / f"{name}.rcy")
    enc = Encoder.of(game)
    vocab = Vocabulary.of(game)
    for st, options, view in _decisions(game, 2):
        sid, vector, mask = enc.encode(view)
        assert vector.shape == (enc.layouts[sid].size,)
        assert mask.sum() == len(set(vocab.option_keys(st, options, st.mover)))
    assert _assert_invariant_under_determinization(game, games=1, every=5) > 0


def test_a_view_without_a_decision_cannot_be_encoded(dominion) -> None:  # type: ignore[no-untyped-def]
    st = dominion.master().new_game(1)
    with pytest.raises(ValueError, match="no decision"):
        Encoder.of(dominion).encode(view_of(st, 0))


# ---------------------------------------------------------------- cardlang describe


def test_describe_json_matches_the_encoder_and_the_vocabulary(dominion) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("describe", str(DOMINION), "--param", "kingdom=random", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    enc = Encoder.of(dominion)
    assert data["width"] == enc.width and data["n_actions"] == enc.n_actions
    assert data["card_types"][:3] == ["COPPER", "SILVER", "GOLD"]
    situations = data["situations"]
    assert [s["name"] for s in situations] == list(enc.situations)
    vocab = enc.vocabulary
    for s in situations:
        assert s["keys"] == list(vocab.keys(s["name"]))
        blocks = data["common_layout"] + s["extra_layout"]
        assert [b["start"] for b in blocks[1:]] == [b["stop"] for b in blocks[:-1]]
        assert blocks[-1]["stop"] == s["size"] == enc.layout(s["name"]).size
    library = situations[vocab.situation_id("LIBRARY-SKIP")]
    assert library["text"].startswith("Library") and library["sites"]
    assert [(b["what"], b["owner"], b["name"]) for b in library["extra_layout"]] == [
        ("top", "P+0", "HAND(iloc)")
    ]


def test_describe_tables() -> None:
    proc = run_cli("describe", str(DOMINION))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for text in ["situations", "BUY-PHASE", "Buy phase", "SUPPLY#0..16(vloc)", "0:C=<card>"]:
        assert text in out, text
    assert "0:PILE=<location>" in out and "SUPPLY:PROVINCE" in out


@needs_corpus
def test_describe_an_unnamed_choice() -> None:
    proc = run_cli("describe", str(CORPUS / "GoFish2.rcy"), "--json")
    assert proc.returncode == 0, proc.stderr
    (situation,) = json.loads(proc.stdout)["situations"]
    assert situation["name"] == "CHOICE@46:9" and "0:R=A,OP=P+1" in situation["keys"]


def test_describe_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.rcy"
    bad.write_text("(game (setup (create players 2))\n (call NOPE)\n (scoring max 0))\n")
    proc = run_cli("describe", str(bad))
    assert proc.returncode == 1 and "bad.rcy:2:" in proc.stderr, proc.stderr
    usage = run_cli("describe")
    assert usage.returncode == 2 and "usage:" in usage.stderr
    param = run_cli("describe", str(DOMINION), "--param", "nosuch=1")
    assert param.returncode == 2 and "no parameter NOSUCH" in param.stderr


def test_the_documented_examples_run() -> None:
    """The Python examples of docs/encoding.md: its own and the one of its section
    "Encoding for neural agents" (the README's, before the README became a front page)."""
    root = GAMES.parent
    doc = (root / "docs" / "encoding.md").read_text(encoding="utf-8")
    assert "## Encoding for neural agents" in doc
    blocks = re.findall(r"```python\n(.*?)```", doc, flags=re.S)
    assert len(blocks) >= 2, "docs/encoding.md has lost an example"
    for block in blocks:
        env: dict[str, object] = {}
        cwd = os.getcwd()
        os.chdir(root)
        try:
            exec(compile(block, "example", "exec"), env)
        finally:
            os.chdir(cwd)
        assert isinstance(env["vector"], np.ndarray) and env["mask"].any()  # type: ignore[union-attr]
