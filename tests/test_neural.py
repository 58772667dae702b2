"""The neural agent: network, search, checkpoints, the agent spec, and training."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies

torch = pytest.importorskip("torch")

from cardlang.agents import make_agent  # noqa: E402
from cardlang.agents.neural.agent import NeuralAgent  # noqa: E402
from cardlang.agents.neural.model import (  # noqa: E402
    GameIdentity,
    NeuralModel,
    load_model,
    read_checkpoint,
)
from cardlang.agents.neural.network import BODIES, NetConfig, batch_tensors  # noqa: E402
from cardlang.agents.neural.search import (  # noqa: E402
    NeuralSearch,
    SearchResult,
    SoloValue,
    choose_action,
    improved_policy,
)
from helpers import run_cli, train_until_killed, with_kingdom_cards, with_rounds  # noqa: E402

from cardlang import load_game  # noqa: E402
from cardlang.engine.state import RUNNING  # noqa: E402
from cardlang.errors import UsageError  # noqa: E402
from cardlang.information.tokens import collate  # noqa: E402
from cardlang.information.views import PlayerView  # noqa: E402
from cardlang.learning.config import TrainConfig  # noqa: E402
from cardlang.learning.experimental.search import TrainingRun  # noqa: E402
from cardlang.runs.runner import play_game  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: Each player is dealt two cards and plays one; the higher card played takes a chip.
#: The best move is known: play the higher of one's two cards.
HIGH_CARD = """(game
 (setup (create players 2)
        (create deck (game iloc STOCK) (deck (RANK (ONE, TWO, THREE, FOUR, FIVE, SIX)))))
 (do ((set (game points STRENGTH)
           (((RANK : ONE) 1) ((RANK : TWO) 2) ((RANK : THREE) 3)
            ((RANK : FOUR) 4) ((RANK : FIVE) 5) ((RANK : SIX) 6)))
      (shuffle (game iloc STOCK))
      (all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player
        (end (== (size (union (all player 'P ('P vloc PLAYED)))) 2))
        (choice ((any ((current player) iloc HAND) 'C (move 'C (top ((current player) vloc PLAYED)))))))
 (do ((inc ((owner (max (union (all player 'P ('P vloc PLAYED))) using (game points STRENGTH)))
            sto CHIPS) 1)))
 (scoring max ((current player) sto CHIPS)))
"""


def _model(game, seed: int = 0, **sizes) -> NeuralModel:  # type: ignore[no-untyped-def]
    torch.manual_seed(seed)
    config = NetConfig(
        seats=game.nplayers,
        solo=game.nplayers == 1,
        width=32,
        heads=4,
        feedforward=64,
        hidden=64,
        **sizes,
    )
    return NeuralModel(config, GameIdentity.of(game), device="cpu")


def _views(game, seed: int, limit: int = 40):  # type: ignore[no-untyped-def]
    master = game.master()
    st = master.new_game(seed, record=True)
    rng = random.Random(seed)
    while st.status == RUNNING and limit:
        options = master.legal_options(st)
        yield st, options, PlayerView.live(st, st.mover, game, options)
        master.apply(st, rng.randrange(len(options)))
        limit -= 1


def _tokens(model: NeuralModel, game, seed: int = 1, limit: int = 30):  # type: ignore[no-untyped-def]
    tokenizer = model.tokenizer(game)
    return [tokenizer.tokenize(view) for _, _, view in _views(game, seed, limit)]


# ---------------------------------------------------------------- the network


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("path", ["games/hearts.rcy", "games/dominion.rcy"])
def test_outputs_do_not_depend_on_token_order(path: str, body: str) -> None:
    game = load_game(ROOT / path)
    model = _model(game, body=body)
    items = _tokens(model, game, limit=12)
    batch = collate(items)
    rng = np.random.default_rng(0)
    shuffled = collate(items)
    for i, x in enumerate(items):
        t, a = len(x.kinds), len(x.keys)
        perm, aperm = rng.permutation(t), rng.permutation(a)
        for field in ("names", "kinds", "buckets", "continuous"):
            getattr(shuffled, field)[i, :t] = getattr(batch, field)[i, :t][perm]
        shuffled.action_names[i, :a] = batch.action_names[i, :a][aperm]
        shuffled.action_names[i, :a] = batch.action_names[i, :a][aperm]
        items[i].perm = aperm  # type: ignore[attr-defined]
    model.net.eval()
    with torch.no_grad():
        logits, values = model.net(**batch_tensors(batch))
        logits2, values2 = model.net(**batch_tensors(shuffled))
    assert torch.allclose(values, values2, atol=1e-5)
    for i, x in enumerate(items):
        a = len(x.keys)
        assert torch.allclose(logits[i, :a][x.perm], logits2[i, :a], atol=1e-4)  # type: ignore[attr-defined]


@pytest.mark.parametrize("body", BODIES)
def test_padding_and_illegal_actions_get_no_probability(body: str) -> None:
    game = load_game(ROOT / "games/hearts.rcy")
    model = _model(game, body=body)
    items = _tokens(model, game, limit=20)
    priors, values = model.evaluate(items)
    batch = collate(items)
    with torch.no_grad():
        logits, _ = model.net(**batch_tensors(batch))
    assert torch.isinf(logits[~torch.from_numpy(batch.action_mask)]).all()
    for p, x in zip(priors, items, strict=True):
        assert len(p) == len(x.keys) and p.sum() == pytest.approx(1.0, abs=1e-5)
    assert values.shape == (len(items), 4) and ((values >= 0) & (values <= 1)).all()


def test_solo_values_are_in_minus_one_to_one() -> None:
    game = load_game(ROOT / "games/dominion.rcy", params={"PLAYERS": "1"})
    model = _model(game)
    _, values = model.evaluate(_tokens(model, game, limit=8))
    assert values.shape[1] == 1 and (np.abs(values) <= 1).all()
    solo = SoloValue(best=10, cap=40)
    assert solo(10) == 1.0 and solo(40) == -1.0 and solo(None) == -1.0
    assert solo(14) > solo(15) > solo(20)
    assert SoloValue()(1) == 1.0  # the notes' form: ending at once is best


def test_deep_sets_ignores_padding_and_is_deterministic_on_cpu(tmp_path: Path) -> None:
    """Garbage under the masks changes nothing; the same seed gives the same weights and
    bit-identical outputs; a checkpoint keeps its body."""
    game = load_game(ROOT / "games/dominion.rcy")
    model = _model(game, body="deepsets")
    items = _tokens(model, game, limit=10)
    batch = collate(items)
    noisy = collate(items)
    pad = ~noisy.token_mask
    noisy.names[pad] = 7
    noisy.kinds[pad] = 1
    noisy.continuous[pad] = 3.0
    noisy.action_names[~noisy.action_mask] = 5
    model.net.eval()
    with torch.no_grad():
        logits, values = model.net(**batch_tensors(batch))
        logits2, values2 = model.net(**batch_tensors(noisy))
    assert torch.equal(values, values2)
    legal = torch.from_numpy(batch.action_mask)
    assert torch.equal(logits[legal], logits2[legal])
    twin = _model(game, body="deepsets")
    twin.net.eval()
    with torch.no_grad():
        assert torch.equal(twin.net(**batch_tensors(batch))[0], logits)
    model.save(tmp_path / "m")
    loaded = load_model(tmp_path / "m", game)
    assert loaded.config.body == "deepsets" and type(loaded.net).__name__ == "DeepSetsNet"


@pytest.mark.parametrize("phi_layers", [0, 1])
def test_deep_sets_packed_forward_is_the_padded_function(monkeypatch, phi_layers: int) -> None:
    """The packed forward (real tokens and legal actions only, each distinct token and
    action computed once) gives the padded reference's outputs and gradients, up to the
    order of float sums; a row without tokens and a row without actions included; a
    hash collision of torch's dedup falls back to every row its own, and torch's way
    (a GPU's) gives the native kernels' outputs."""
    from cardlang.agents.neural import kernels, network

    game = load_game(ROOT / "games/dominion.rcy")
    model = _model(game, body="deepsets")
    torch.manual_seed(phi_layers)
    net = network.DeepSetsNet(replace(model.config, phi_layers=phi_layers))
    items = _tokens(model, game, limit=24)
    x = batch_tensors(collate(items))
    x["token_mask"][3] = False  # a row without tokens
    x["action_mask"][5] = False  # a row without actions (a final observation)

    def run(forward: Any) -> tuple[Any, ...]:
        net.zero_grad()
        logits, values = forward(**x)
        legal = logits[x["action_mask"]]
        (legal.square().sum() + values.sum()).backward()
        grads = [p.grad.clone() for p in net.parameters() if p.grad is not None]
        return (logits, values, *grads)

    packed, padded = run(net), run(net.padded_forward)
    assert torch.equal(torch.isinf(packed[0]), ~x["action_mask"])
    assert torch.equal(torch.isinf(padded[0]), ~x["action_mask"])
    legal = x["action_mask"]
    torch.testing.assert_close(packed[0][legal], padded[0][legal], rtol=1e-4, atol=1e-5)
    for a, b in zip(packed[1:], padded[1:], strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    names = x["names"].reshape(-1, x["names"].shape[-1])
    first, inverse = kernels.distinct_rows((names,))
    assert len(first) < len(inverse) / 4  # rows repeat: the sharing pays
    # torch's way (a GPU's) tells a collision of its first hash by its second
    monkeypatch.setattr(kernels, "_ROW_HASH", torch.ones((2, 64), dtype=torch.int64))
    first, inverse = kernels.distinct_rows((names,), native=False)
    assert len(first) < len(inverse)  # the second hash is no check here: rows merge
    monkeypatch.setattr(
        kernels, "_ROW_HASH", torch.stack([torch.ones(64, dtype=torch.int64), torch.arange(64)])
    )
    first, inverse = kernels.distinct_rows((names,), native=False)
    assert torch.equal(first, torch.arange(len(inverse)))  # the check caught the collision
    monkeypatch.setattr(kernels, "native_kernels", lambda *tensors: False)
    fallback = run(net)
    for a, b in zip(fallback, packed, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(
    strategies.integers(0, 2**31 - 1),
    strategies.integers(0, 60),
    strategies.integers(1, 5),
    strategies.integers(1, 8),
    strategies.booleans(),
)
def test_the_native_kernels_are_torchs_functions(
    seed: int, rows: int, values: int, d: int, phi: bool
) -> None:
    """The native dedup groups rows as torch's does (columns of several types, a subset
    of rows, rows equal in one column and not another); the native max pool's winners
    are torch's argmax's, ties (many: few distinct values) to the earliest token and to
    the padding's row where no token exceeds it, rows without tokens included."""
    from cardlang.agents.neural import kernels

    if kernels._native is None:
        pytest.skip("the native module is not built")
    g = torch.Generator().manual_seed(seed)
    names = torch.randint(0, values, (rows, 3), generator=g)
    kinds = torch.randint(0, 2, (rows, 1), generator=g, dtype=torch.int8)
    features = torch.randint(0, values, (rows, 2), generator=g).float()
    subset = torch.randperm(rows, generator=g)[: rows // 2 + 1 if rows else 0].sort().values
    for parts, chosen in (((names,), None), ((names, kinds, features), subset)):
        native = kernels.distinct_rows(parts, chosen)
        torch_way = kernels.distinct_rows(parts, chosen, native=False)
        for first, inverse in (native, torch_way):
            at = torch.arange(len(parts[0])) if chosen is None else chosen
            for part in parts:  # every row is its distinct row
                assert torch.equal(part[at[first[inverse]]], part[at])
        assert len(native[0]) == len(torch_way[0])  # as many groups: the same grouping
    b, t = 4, 5
    slots = torch.rand(b * t, generator=g) < 0.6
    real = slots.nonzero().squeeze(1)
    table = torch.randint(0, values, (max(len(real), 1) + 1, d), generator=g).float()
    table[-1] = 0.0 if phi else float("-inf")
    inverse = torch.randint(0, len(table) - 1, (len(real),), generator=g)
    native = kernels.max_winners(table, real, inverse, b, t)
    assert torch.equal(native, kernels.max_winners(table, real, inverse, b, t, native=False))


def test_the_native_kernels_refuse_what_is_out_of_bounds() -> None:
    from cardlang.agents.neural import kernels

    if kernels._native is None:
        pytest.skip("the native module is not built")
    table = torch.zeros((3, 2))
    with pytest.raises(IndexError, match="out of range"):
        kernels.max_winners(table, torch.tensor([0]), torch.tensor([3]), 1, 1)
    with pytest.raises(IndexError, match="out of range"):
        kernels.max_winners(table, torch.tensor([1]), torch.tensor([0]), 1, 1)
    with pytest.raises(IndexError, match="out of range"):
        kernels.distinct_rows((torch.zeros((2, 2)),), torch.tensor([2]))


# ---------------------------------------------------------------- search and agent


@pytest.mark.parametrize("iterations", [0, 12])
def test_the_agent_only_plays_legal_options(iterations: int, tmp_path: Path) -> None:
    game = load_game(ROOT / "games/hearts.rcy")
    model = _model(game)
    _tokens(model, game)  # names into the table
    model.save(tmp_path / "m")
    agents = [
        make_agent(f"neural:model={tmp_path / 'm'}:iterations={iterations}:temperature=1", s)
        for s in range(4)
    ]
    trace: list = []  # type: ignore[type-arg]
    result, _ = play_game(game.master(), agents, 5, record=True, trace=trace)
    assert result.end_reason == "completed"
    for d in trace:
        assert not d.illegal and 0 <= d.option_index < d.options
        assert d.trace is not None and d.trace.policy is not None
        assert sum(d.trace.policy) == pytest.approx(1.0)
        assert d.trace.policy[d.option_index] > 0 or iterations == 0


def test_the_raw_policy_tells_its_probabilities(tmp_path: Path) -> None:
    """A raw-policy agent gives solvers its distribution over options (its softmax at
    temperature 1, all on the move it plays at temperature 0, options sharing a move
    folded into the one it plays); a searching agent has none to give."""
    game = load_game(ROOT / "games/hearts.rcy")
    model = _model(game)
    _tokens(model, game)
    model.save(tmp_path / "m")
    soft = make_agent(f"neural:model={tmp_path / 'm'}:temperature=1", 0)
    greedy = make_agent(f"neural:model={tmp_path / 'm'}", 0)
    assert not hasattr(
        make_agent(f"neural:model={tmp_path / 'm'}:iterations=4", 0), "probabilities"
    )
    seen = 0
    for st, options, view in _views(game, seed=3, limit=25):
        if st.mover != 0 or len(options) < 2:
            continue
        p = soft.probabilities(view, options)
        assert len(p) == len(options) and sum(p) == pytest.approx(1.0) and min(p) >= 0
        q = greedy.probabilities(view, options)
        assert sorted(q)[-1] == 1.0 and q.index(1.0) == greedy.choose(view, options)
        seen += 1
    assert seen


def test_search_puts_its_visits_on_the_winning_move() -> None:
    """With an untrained network, a search that reaches the end of the game finds the
    winning move of High Card for the second player, where one card wins and the other
    loses."""
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    model = _model(game)
    search = NeuralSearch(model, iterations=48, determinizations=2, seed=1)
    ranks = ["ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX"]
    found = decisive = 0
    for seed in range(40):
        for st, options, view in _views(game, seed):
            if st.mover != 1 or len(options) != 2:
                continue
            played = ranks.index(str(view.cards(0, "vloc", "PLAYED")[0]["RANK"]))
            cards = [ranks.index(str(o.card["RANK"])) for o in view.options]
            if (max(cards) > played) == (min(cards) > played):
                break  # both cards win, or both lose: no move is better
            result = search.run(view)
            best = int(result.tokens.option_of[int(np.argmax(result.visits))])
            found += cards[best] > played
            decisive += 1
            break
    assert decisive >= 8 and found == decisive


def _second_player_decisions(game, seeds: range):  # type: ignore[no-untyped-def]
    """High Card's second-player decisions where one card wins and the other loses:
    (view, rank of each option, rank played against)."""
    ranks = ["ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX"]
    for seed in seeds:
        for st, options, view in _views(game, seed):
            if st.mover != 1 or len(options) != 2:
                continue
            played = ranks.index(str(view.cards(0, "vloc", "PLAYED")[0]["RANK"]))
            cards = [ranks.index(str(o.card["RANK"])) for o in view.options]
            if (max(cards) > played) != (min(cards) > played):
                yield view, cards, played
            break


def test_a_gumbel_root_tries_its_moves_and_plays_the_winning_one() -> None:
    """Gumbel MuZero's root (sequential halving) with an untrained network finds High
    Card's winning move, its improved policy puts more weight there than the prior, and
    sampling with Gumbel noise still plays it (the halving keeps only the winner)."""
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    model = _model(game)
    rng = random.Random(0)
    decisive = 0
    for sample in (False, True):
        search = NeuralSearch(
            model, iterations=24, determinizations=2, policy="gumbel", sample=sample, seed=2
        )
        for view, cards, played in _second_player_decisions(game, range(40)):
            result = search.run(view)
            assert result.visits.min() >= 1  # both moves considered, however small a prior
            winning = next(
                j for j, o in enumerate(result.tokens.option_of) if cards[int(o)] > played
            )
            improved = improved_policy(result)
            assert improved.sum() == pytest.approx(1.0)
            assert improved[winning] > result.network_priors[winning]
            action = choose_action(result, 1.0 if sample else 0.0, rng)
            assert action == winning
            decisive += 1
    assert decisive >= 16


def test_the_improved_policy_is_the_prior_until_values_differ() -> None:
    """Without visits, or with equal values everywhere, the improved policy is the
    prior; a visited move with a better value gains weight, a worse one loses it."""
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    _, _, view = next(_views(game, 1))
    tokens = _model(game).tokenizer(game).tokenize(view)
    prior = np.array([0.7, 0.3])

    def result(visits: list[int], q: list[float | None]) -> SearchResult:
        return SearchResult(
            tokens, prior, np.array(visits, float), (0.5, 0.5), q, 8, prior, view.seat
        )

    assert improved_policy(result([0, 0], [None, None])) == pytest.approx(prior)
    assert improved_policy(result([4, 4], [0.5, 0.5])) == pytest.approx(prior)
    better = improved_policy(result([4, 4], [0.4, 0.6]))
    assert better[1] > 0.3 and better[0] < 0.7
    unvisited = improved_policy(result([8, 0], [0.9, None]))  # completed by the mixed value
    assert unvisited[0] > 0.7


def test_an_unknown_policy_is_a_usage_error(tmp_path: Path) -> None:
    game = load_game(text=HIGH_CARD, name="high_card.rcy")
    _model(game).save(tmp_path / "m")
    with pytest.raises(UsageError, match="policy must be one of visits, gumbel"):
        make_agent(f"neural:model={tmp_path / 'm'}:policy=best", 0)


def test_a_model_refuses_another_game_file(tmp_path: Path) -> None:
    game = load_game(ROOT / "games/kuhn_poker.rcy")
    model = _model(game)
    model.save(tmp_path / "m")
    hearts4 = load_game(text=HIGH_CARD, name="high_card.rcy")
    with pytest.raises(UsageError, match="was trained on the game file 'kuhn_poker'.*other_game=1"):
        load_model(tmp_path / "m", hearts4)
    load_model(tmp_path / "m", hearts4, other_game=True)
    agent = NeuralAgent(str(tmp_path / "m"))
    with pytest.raises(UsageError, match="kuhn_poker"):
        play_game(hearts4.master(), [agent, agent], 1)


# ---------------------------------------------------------------- checkpoints


def test_checkpoint_round_trip_loads_with_weights_only(tmp_path: Path) -> None:
    game = load_game(ROOT / "games/hearts.rcy")
    model = _model(game)
    items = _tokens(model, game, limit=10)
    before, values = model.evaluate(items)
    model.save(tmp_path / "m")
    data = torch.load(tmp_path / "m" / "model.pt", weights_only=True)
    assert data["game"]["sha256"] == GameIdentity.of(game).sha256
    again = load_model(tmp_path / "m", game, device="cpu")
    assert again.table.names == model.table.names
    after, values2 = again.evaluate(items)
    assert np.allclose(values, values2)
    for p, q in zip(before, after, strict=True):
        assert np.allclose(p, q, atol=1e-6)


def test_a_broken_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(UsageError, match="not a readable cardlang model"):
        read_checkpoint(bad)
    with pytest.raises(UsageError, match="no model at"):
        read_checkpoint(tmp_path / "missing")


# ---------------------------------------------------------------- new cards


BAZAAR = """(card-kind BAZAAR (COST 5) (TYPES (ACTION))
  (on PLAY
      (call DRAW 'ME 1)
      (inc ('ME sto ACTIONS) 2)
      (inc ('ME sto COINS))))

"""


def _with_bazaar() -> str:
    text = (ROOT / "games/dominion.rcy").read_text()
    anchor = "(card-kind CELLAR"
    return with_kingdom_cards(text.replace(anchor, BAZAAR + " " + anchor, 1), "BAZAAR")


def test_a_new_card_is_embedded_from_its_components(tmp_path: Path) -> None:
    game = load_game(ROOT / "games/dominion.rcy")
    model = _model(game)
    _tokens(model, game, limit=60)
    model.save(tmp_path / "m")
    variant = load_game(
        text=_with_bazaar(),
        name="dominion-bazaar.rcy",
        params={
            "KINGDOM": "BAZAAR,VILLAGE,SMITHY,MARKET,MILITIA,MOAT,CELLAR,MINE,REMODEL,WORKSHOP"
        },
    )
    loaded = load_model(tmp_path / "m", variant, other_game=True)
    loaded.freeze()
    tokenizer = loaded.tokenizer(variant)
    bazaar = tokenizer.components("BAZAAR")
    table = loaded.table
    assert "comp:KIND=BAZAAR" not in table  # the card itself is new ...
    known = [i for i in bazaar if i]
    assert {table.names[i] for i in known} >= {
        "comp:COST=5",
        "comp:TYPES=ACTION",
    }  # ... its parts are not
    embedding = loaded.net.names.weight[torch.tensor(bazaar)].sum(0)
    assert embedding.abs().sum() > 0
    # and the agent plays the variant, Bazaar in the kingdom, on purpose
    agents = [NeuralAgent(str(tmp_path / "m"), other_game=True, seed=s) for s in range(2)]
    result, _ = play_game(variant.master(), agents, 2)
    assert result.end_reason in ("completed", "cutoff:decisions")


# ---------------------------------------------------------------- training


def _config(out: Path, **changes) -> TrainConfig:  # type: ignore[no-untyped-def]
    game = out.parent / "high_card.rcy"
    game.write_text(HIGH_CARD)
    base = dict(
        game=str(game),
        rounds=4,
        games=12,
        iterations=12,
        determinizations=1,
        steps=40,
        batch_size=32,
        width=32,
        heads=4,
        feedforward=64,
        hidden=64,
        evaluate_every=0,
        backend="serial",
        workers=1,
        device="cpu",
        lr=3e-3,
        seed=3,
    )
    base.update(changes)
    return TrainConfig(**base)  # type: ignore[arg-type]


def _plays_higher_card(model_dir: Path, games: int = 80) -> float:
    """How often the raw policy plays the higher card where that is the better move:
    always for the first player (it wins more often), and for the second where one of
    its cards beats the card played and the other does not."""
    game = load_game(model_dir.parent / "high_card.rcy")
    model = load_model(model_dir, game, device="cpu")
    model.freeze()
    search = NeuralSearch(model, iterations=0)
    ranks = ["ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX"]
    right = total = 0
    for seed in range(100, 100 + games):
        for st, options, view in _views(game, seed):
            if len(options) != 2:
                continue
            cards = [ranks.index(str(o.card["RANK"])) for o in view.options]
            if st.mover == 1:
                played = ranks.index(str(view.cards(0, "vloc", "PLAYED")[0]["RANK"]))
                if (max(cards) > played) == (min(cards) > played):
                    continue
            result = search.run(view)
            chosen = int(result.tokens.option_of[int(np.argmax(result.priors))])
            right += cards[chosen] == max(cards)
            total += 1
    return right / total


def test_a_small_training_run_learns_the_best_move(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = TrainingRun.open(_config(out, rounds=0), out, lambda line: None)
    run.run()  # round 0: the untrained model, saved
    before = _plays_higher_card(out)
    run = TrainingRun.open(_config(out, rounds=5), out, lambda line: None)
    run.run()
    after = _plays_higher_card(out)
    assert before < 0.75 and after > 0.9, (before, after)
    metrics = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [m["round"] for m in metrics] == [1, 2, 3, 4, 5]
    assert (out / "report.html").is_file() and (out / "MODEL_CARD.md").is_file()
    # the self-play games are in the records, each neural decision with its policy
    from cardlang.runs.store import RunStore

    with RunStore.open(out / "records.sqlite", create=False) as store:
        decisions = store.decisions(1)
    assert decisions and all(d["policy"] is not None for d in decisions)


def test_a_warm_start_imitates_recorded_games_and_is_evaluated_first(tmp_path: Path) -> None:
    from cardlang.runs.simulate import run_batch
    from cardlang.runs.store import RunStore

    out = tmp_path / "run"
    config = _config(out, rounds=1, games=4, steps=5, evaluate_every=1, eval_games=10)
    game = load_game(config.game)
    with RunStore.open(tmp_path / "bots.sqlite") as store:
        run_batch(game, games=30, seed=1, agent_specs=["random", "random"], store=store)
    config.warm_start, config.warm_steps = str(tmp_path / "bots.sqlite"), 20
    lines: list[str] = []
    TrainingRun.open(config, out, lines.append).run()
    assert any(line.startswith("warm start: ") for line in lines)
    metrics = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [m["round"] for m in metrics] == [0, 1]
    assert "evaluation" in metrics[0] and "policy_loss" not in metrics[0]
    card = (out / "MODEL_CARD.md").read_text()
    assert "imitation of" in card and "1 rounds" in card
    assert (out / "plots" / "losses.png").is_file()
    config.rounds = 2  # resumed, the run still knows what it started from
    TrainingRun.open(config, out, lines.append).run()
    card = (out / "MODEL_CARD.md").read_text()
    assert "imitation of" in card and "2 rounds" in card


def test_a_run_goes_on_from_a_trained_model_with_gumbel_self_play(tmp_path: Path) -> None:
    """``--init`` starts from another run's model (its weights, names and sizes; the
    model card tells the lineage), here with Gumbel self-play, and it still learns."""
    first = tmp_path / "first"
    TrainingRun.open(_config(first, rounds=2), first, lambda line: None).run()
    start = _plays_higher_card(first)
    out = tmp_path / "run"
    config = _config(out, rounds=3, init=str(first / "model.pt"), policy="gumbel", width=16)
    run = TrainingRun.open(config, out, lambda line: None)
    assert run.model.config.width == 32  # the init model's size, not --width
    assert run.model.table.pile_cards  # a new model's way of reading piles, kept
    initial = {k: v.clone() for k, v in run.model.net.state_dict().items()}
    first_weights = torch.load(first / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(initial[k], first_weights[k]) for k in initial)
    run.run()
    assert _plays_higher_card(out) >= min(start, 0.9)
    card = (out / "MODEL_CARD.md").read_text()
    assert f"went on from the model {first / 'model.pt'}" in card
    assert "Gumbel improved policy (8 moves considered)" in card
    # resuming needs only the run's checkpoint, not the model it started from
    shutil.rmtree(first)
    config.rounds = 4
    TrainingRun.open(config, out, lambda line: None).run()
    assert f"went on from the model {first / 'model.pt'}" in (out / "MODEL_CARD.md").read_text()
    assert load_model(out, device="cpu").table.pile_cards


def test_a_model_made_before_pile_cards_reads_piles_by_name() -> None:
    """The shipped models learnt a buy as the pile's name alone: they keep reading it so."""
    assert not load_model(ROOT / "models" / "dominion-general", device="cpu").table.pile_cards


@pytest.mark.parametrize("body", BODIES)
def test_training_is_deterministic_on_cpu(tmp_path: Path, body: str) -> None:
    weights = []
    for name in ("a", "b"):
        out = tmp_path / name / "run"
        out.parent.mkdir()
        config = _config(out, rounds=2, steps=5, games=4, body=body)
        TrainingRun.open(config, out, lambda line: None).run()
        weights.append(torch.load(out / "model.pt", weights_only=True)["state_dict"])
    for key in weights[0]:
        assert torch.equal(weights[0][key], weights[1][key]), key


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    game = tmp_path / "high_card.rcy"
    game.write_text(HIGH_CARD)
    command = [
        sys.executable,
        "-m",
        "cardlang",
        "train",
        str(game),
        "--out",
        str(out),
        "--rounds",
        "30",
        "--algorithm",
        "search",
        "--games",
        "6",
        "--iterations",
        "4",
        "--steps",
        "10",
        "--width",
        "32",
        "--evaluate-every",
        "0",
        "--backend",
        "serial",
        "--device",
        "cpu",
    ]
    done = train_until_killed(command, out, rounds=2)
    load_model(out, device="cpu")  # whole, whenever the kill came
    assert done >= 2
    finish = subprocess.run(
        with_rounds(command, done + 2), cwd=ROOT, capture_output=True, text=True
    )
    assert finish.returncode == 0, finish.stderr
    assert f"resuming {out} after round {done}" in finish.stderr
    metrics = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [m["round"] for m in metrics] == list(range(1, done + 3))


def test_train_without_an_out_folder_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cardlang", "train", "games/kuhn_poker.rcy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "--out" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("model", "params"),
    [
        ("models/dominion-solo", {"PLAYERS": "1"}),
        ("models/dominion-2p", {"PLAYERS": "2"}),
        ("models/dominion-2p-search", {"PLAYERS": "2"}),
        ("models/dominion-random", {"KINGDOM": "random"}),
        ("models/dominion-scratch", {"PLAYERS": "2"}),
        ("models/dominion-general", {"KINGDOM": "random"}),
        # the unseen-cards model (of games/dominion.rcy with made-up cards: a variant to
        # it) on a kingdom of the cards it never met
        (
            "models/dominion-unseen:other_game=1",
            {
                "KINGDOM": "witch,laboratory,festival,council-room,"
                "moneylender,library,smithy,merchant,remodel,bandit"
            },
        ),
    ],
)
def test_the_shipped_models_play_their_game(model: str, params: dict[str, str]) -> None:
    """The shipped models name games/dominion.rcy's hash: a change of the game file must
    come with retrained models (each MODEL_CARD.md says how)."""
    game = load_game(ROOT / "games/dominion.rcy", params=params)
    agents = [make_agent(f"neural:model={ROOT / model}", seat) for seat in range(game.nplayers)]
    result, _ = play_game(game.master(), agents, 7, record=True)
    assert result.end_reason == "completed" and result.turns < 30 * game.nplayers


def test_the_shipped_hearts_model_plays_its_game() -> None:
    """models/hearts names games/hearts.rcy's hash, as the Dominion models name theirs,
    and plays a whole game from every seat (its own view of each)."""
    game = load_game(ROOT / "games/hearts.rcy")
    agents = [make_agent(f"neural:model={ROOT / 'models/hearts'}", seat) for seat in range(4)]
    result, _ = play_game(game.master(), agents, 11, record=True)
    assert result.end_reason == "completed" and sum(result.credits) == pytest.approx(1.0)


#: models/leduc's best responses, seat by seat (its model card): 0.4993 together
LEDUC_BEST_RESPONSES = {0: 0.11470, 1: 0.38462}


@pytest.mark.slow  # two exact solves: CI runs them (`pytest -m slow`)
@pytest.mark.early(12)
@pytest.mark.parametrize("seat", [0, 1])
def test_the_shipped_leduc_model_is_within_the_goal(seat: int) -> None:
    """models/leduc's NashConv (both seats' best responses to it, exact over every deal
    and information state) is at most issue 30's 0.5, as its model card says.  A seat a
    test, so that the two solves run side by side."""
    assert sum(LEDUC_BEST_RESPONSES.values()) <= 0.5
    opponent = f"neural:model={ROOT / 'models/leduc'}:temperature=1"
    done = run_cli(
        "solve", str(ROOT / "games/leduc_poker.rcy"), "--seat", str(seat),
        "--opponent", opponent, "--reward", "score", "--json", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["exact"]
    assert float(result["value"]) == pytest.approx(LEDUC_BEST_RESPONSES[seat], abs=1e-4)
