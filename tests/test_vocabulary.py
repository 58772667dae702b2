"""Situations and the action vocabulary (cardlang.information.vocabulary): stable names for every
decision and option of a game, derived from its rules, never leaking hidden cards."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from conftest import CORPUS, CORPUS_FAILS_CHECK, GAMES, corpus_games, needs_corpus
from helpers import load_text

from cardlang import load_game
from cardlang.errors import GameFileError
from cardlang.information.views import view_of
from cardlang.information.vocabulary import Vocabulary, option_key

DOMINION = GAMES / "dominion.rcy"


@pytest.fixture(scope="module")
def dominion_random():  # type: ignore[no-untyped-def]
    return load_game(DOMINION, params={"KINGDOM": "RANDOM"})


def test_dominion_situations_are_the_declared_ones_in_order(dominion_random) -> None:  # type: ignore[no-untyped-def]
    vocab = Vocabulary.of(dominion_random)
    assert vocab.situations == tuple(dominion_random.situations)
    assert vocab.situation_id("ACTION-PHASE") == 0
    assert vocab.situation_id("BUY-PHASE") == 1
    assert vocab.text("BUY-PHASE").startswith("Buy phase")


def test_vocabulary_is_built_once_per_game_and_is_stable(dominion_random) -> None:  # type: ignore[no-untyped-def]
    assert Vocabulary.of(dominion_random) is Vocabulary.of(dominion_random)
    again = Vocabulary(load_game(DOMINION, params={"KINGDOM": "RANDOM"}))
    first = Vocabulary.of(dominion_random)
    assert again.situations == first.situations
    for s in first.situations:
        assert again.keys(s) == first.keys(s), f"keys of {s} differ between two loads"
        assert len(set(first.keys(s))) == len(first.keys(s)), f"duplicate keys in {s}"


def test_dominion_keys_read_as_branch_and_card_kinds(dominion_random) -> None:  # type: ignore[no-untyped-def]
    vocab = Vocabulary.of(dominion_random)
    assert vocab.keys("MOAT-REVEAL") == ("0", "1")
    action = vocab.keys("ACTION-PHASE")
    assert "0:C=SMITHY" in action and action[-1] == "1"
    # a filter on the card's types narrows the vocabulary: only Action cards are played
    assert "0:C=COPPER" not in action
    assert vocab.keys("BANDIT-TRASH") == ("0:C=SILVER", "0:C=GOLD")
    assert "0:PILE=SUPPLY:PROVINCE" in vocab.keys("BUY-PHASE")
    # a Bureaucrat victim's hand is not open to everyone: the vocabulary has room for "?"
    assert "0:C=?" in vocab.keys("BUREAUCRAT-TOPDECK")
    assert vocab.index("BUY-PHASE", "no such key") is None


@pytest.mark.early(57)
@pytest.mark.slow
def test_dominion_vocabulary_covers_every_option_of_10000_random_games(dominion_random) -> None:  # type: ignore[no-untyped-def]
    """Random kingdoms (from each game's seed), random moves; only options are listed."""
    vocab = Vocabulary.of(dominion_random)
    master = dominion_random.master()
    seen: dict[str, set[str]] = {s: set() for s in vocab.situations}
    rng = random.Random(2026)
    start = time.perf_counter()
    for seed in range(10_000):
        st = master.new_game(seed)
        while not st.is_over:
            options = master.legal_options(st)
            seen[vocab.situation_of(st)].update(vocab.option_keys(st, options, st.mover))
            master.apply(st, rng.randrange(len(options)))
    elapsed = time.perf_counter() - start
    missing = {s: sorted(k for k in keys if vocab.index(s, k) is None) for s, keys in seen.items()}
    assert not any(missing.values()), f"keys met in play but not in the vocabulary: {missing}"
    # every situation comes up in 10,000 random kingdoms
    assert all(seen.values()), [s for s, k in seen.items() if not k]
    print(f"10,000 games in {elapsed:.1f} s")


def _assert_keys_name_equivalent_options(game, games: int, seed: int = 0) -> int:  # type: ignore[no-untyped-def]
    """Within each decision, options sharing a key come from the same condact and bind
    the same card kinds (as PlayerView describes them); the key names the first.
    Returns how many decisions had a shared key."""
    vocab = Vocabulary.of(game)
    master = game.master()
    rng = random.Random(seed)
    shared = 0
    for s in range(games):
        st = master.new_game(seed + s)
        while not st.is_over:
            options = master.legal_options(st)
            keys = vocab.option_keys(st, options, st.mover)
            view = view_of(st, st.mover, game, options)
            described = view.options
            # a view alone gives the same situation and keys (what encoders use)
            assert vocab.view_situation(view) == vocab.situation_of(st)
            assert vocab.view_keys(view) == keys
            first: dict[str, int] = {}
            for i, key in enumerate(keys):
                j = first.setdefault(key, i)
                assert key.split(":")[0].split("/")[-1] == str(described[i].branch), key
                if j != i:
                    shared += 1
                    a, b = described[j], described[i]
                    assert (a.branch, a.kinds) == (b.branch, b.kinds), (
                        f"{key!r} names options that differ: {a} / {b}"
                    )
            master.apply(st, rng.randrange(len(options)))
    return shared


def test_each_dominion_key_maps_back_to_one_option(dominion_random) -> None:  # type: ignore[no-untyped-def]
    # 60 random games (the slow tier's 10,000-game vocabulary test covers far more)
    shared = _assert_keys_name_equivalent_options(dominion_random, games=60)
    assert shared > 0  # two Coppers in hand: the check above did run


def test_option_key_matches_the_batch_and_the_kinds_shown(dominion_random) -> None:  # type: ignore[no-untyped-def]
    vocab = Vocabulary.of(dominion_random)
    master = dominion_random.master()
    st = master.new_game(5)
    options = master.legal_options(st)
    keys = vocab.option_keys(st, options, st.mover)
    assert [option_key(dominion_random, st, o, st.mover) for o in options] == keys
    kinds = view_of(st, st.mover, dominion_random, options).option_kinds
    for key, kind in zip(keys, kinds, strict=True):
        # "0:C=SMITHY" (a card in hand) or "0:PILE=SUPPLY:GOLD" (a pile and its top card)
        assert key == "1" if kind is None else key.replace("=", ":").endswith(f":{kind}")
    indices = vocab.option_indices(st, options, st.mover)
    assert [vocab.keys(vocab.situation_of(st))[i] for i in indices] == keys  # type: ignore[index]
    first = vocab.first_options(st, options, st.mover)
    assert sorted(first.values()) == sorted(keys.index(k) for k in set(keys))
    assert all(indices[i] == index for index, i in first.items())


# ---------------------------------------------------------------- small games

_TWO_CHOICES = """(game
 (setup (create players 3)
        (create deck (game vloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (all player 'P (repeat 2 (move (top (game vloc STOCK)) (top ('P iloc HAND)))))
 (stage player (end (== (size ((current player) iloc HAND)) 0))
   (choice ((any ((next player) iloc HAND) 'C (move 'C (top (game vloc PILE))))
            (any (other player) 'P (inc ('P sto HITS)))
            (any (range 1 .. 3) 'N (inc ((current player) sto BID) 'N))))
   (choice ((any ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE)))))))
 (scoring max 0))"""


@pytest.fixture(scope="module")
def two_choices():  # type: ignore[no-untyped-def]
    return load_text(_TWO_CHOICES)


def test_unnamed_choices_get_one_situation_per_site(two_choices) -> None:  # type: ignore[no-untyped-def]
    vocab = Vocabulary.of(two_choices)
    first, second = vocab.situations
    assert (first, second) == ("CHOICE@6:4", "CHOICE@9:4")
    assert vocab.text(first) == "the choice at line 6, column 4"
    master = two_choices.master()
    st = master.new_game(1)
    assert vocab.situation_of(st) == first
    master.apply(st, 0)
    assert vocab.situation_of(st) == second


def test_keys_of_cards_players_and_integers(two_choices) -> None:  # type: ignore[no-untyped-def]
    vocab = Vocabulary.of(two_choices)
    first = vocab.situations[0]
    keys = vocab.keys(first)
    # the next player's hidden hand: every card type, and "?"
    assert "0:C=A X" in keys and "0:C=?" in keys
    # (other player) never names the mover: offsets 1 and 2 of 3 seats
    assert [k for k in keys if k.startswith("1:")] == ["1:P=P+1", "1:P=P+2"]
    assert [k for k in keys if k.startswith("2:")] == ["2:N=1", "2:N=2", "2:N=3"]
    # the current player's own hand is always seen: no "?"
    assert "0:C=?" not in vocab.keys(vocab.situations[1])


def test_keys_never_show_a_card_the_mover_cannot_see(two_choices) -> None:  # type: ignore[no-untyped-def]
    vocab = Vocabulary.of(two_choices)
    master = two_choices.master()
    st = master.new_game(3)
    options = master.legal_options(st)
    keys = vocab.option_keys(st, options, st.mover)
    assert keys[:2] == ["0:C=?", "0:C=?"]  # two cards of the next player's hidden hand
    # the same options named for the next player (who holds them) show their types
    holder = (st.mover + 1) % 3
    shown = vocab.option_keys(st, options, holder)[:2]
    assert all(k.startswith("0:C=") and k != "0:C=?" for k in shown)
    assert keys[2:4] == ["1:P=P+1", "1:P=P+2"]
    # seats are relative to the mover
    assert vocab.option_keys(st, options, (st.mover + 1) % 3)[2:4] == ["1:P=P+0", "1:P=P+1"]
    assert vocab.view_keys(view_of(st, st.mover, two_choices, options)) == keys
    assert vocab.view_keys(view_of(st, holder, two_choices, options))[:2] == shown


def test_a_situation_named_at_several_sites_prefixes_its_keys_with_the_site() -> None:
    game = load_text(
        """(game
 (situation PICK "pick a card")
 (setup (create players 2)
        (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (stage player (end (== (size (game vloc STOCK)) 0))
   (choice PICK ((any (game vloc STOCK) 'C (move 'C (top (game vloc PILE))))))
   ((> (size (game vloc STOCK)) 0)
    (choice PICK ((any (game vloc STOCK) 'C (move 'C (top (game vloc PILE))))))))
 (scoring max 0))"""
    )
    vocab = Vocabulary.of(game)
    assert vocab.situations == ("PICK",)
    keys = vocab.keys("PICK")
    assert len(keys) == 4 and len({k.split("/")[0] for k in keys}) == 2, keys


# ---------------------------------------------------------------- the CardStock corpus

CORPUS_SAMPLE = ["GoFish2", "GolfSix2", "Hearts4", "LostCities2", "Spades4", "LAMA3"]


@needs_corpus
@pytest.mark.parametrize("name", CORPUS_SAMPLE)
def test_corpus_vocabulary_covers_random_play(name: str) -> None:
    game = load_game(CORPUS / f"{name}.rcy")
    vocab = Vocabulary.of(game)
    assert all(s.startswith("CHOICE@") for s in vocab.situations)
    master = game.master()
    rng = random.Random(7)
    for seed in range(30):
        st = master.new_game(seed)
        while not st.is_over:
            options = master.legal_options(st)
            situation = vocab.situation_of(st)
            for key in vocab.option_keys(st, options, st.mover):
                assert vocab.index(situation, key) is not None, f"{situation}: {key}"
            master.apply(st, rng.randrange(len(options)))
    _assert_keys_name_equivalent_options(game, games=10)


@needs_corpus
def test_every_corpus_game_has_a_finite_vocabulary() -> None:
    for path in corpus_games():
        try:
            game = load_game(path)
        except GameFileError:
            assert path.stem in CORPUS_FAILS_CHECK, f"{path.stem} does not check"
            continue  # a file declared broken at check time
        vocab = Vocabulary.of(game)
        sizes = [len(vocab.keys(s)) for s in vocab.situations]
        assert sizes and all(0 < n <= 4 * 4096 for n in sizes), (Path(path).stem, sizes)


def test_the_caches_do_not_keep_games_alive() -> None:
    import gc
    import weakref

    from cardlang.information.encode import Encoder

    game = load_game(GAMES / "kuhn_poker.rcy")
    Encoder.of(game)
    ref = weakref.ref(game)
    del game
    gc.collect()
    assert ref() is None


def test_an_unnamed_situation_is_told_by_its_labels() -> None:
    """A choice without a situation name reads as its options' labels, each once
    (Kuhn's "Check, Bet 1, Fold or Call 1"), not as its position; its key stays the
    position (CHOICE@LINE:COL: what networks are keyed by)."""
    vocab = Vocabulary.of(load_game(GAMES / "kuhn_poker.rcy"))
    (situation,) = vocab.situations
    assert situation.startswith("CHOICE@")
    assert vocab.text(situation) == "Check, Bet 1, Fold or Call 1"
