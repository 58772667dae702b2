"""A trained model: the network, its name table, the game it learnt, and its files (torch).

Pipeline position: agents/neural.  A ``NeuralModel`` evaluates tokenized views in
batches (``evaluate``) and is saved and loaded as a checkpoint:

- a checkpoint is one ``torch.save`` file of plain data (tensors, numbers, strings,
  lists, dicts), so it loads with ``weights_only=True``: a checkpoint cannot run code;
- it is written atomically (a temporary file in the same folder, flushed and synced,
  then renamed over the old one): a run killed while saving leaves the previous file
  whole;
- it holds the SHA-256 of its weights (``weights_sha256``), and a load refuses weights
  that do not match it (bytes flipped on disk), that hold NaN or infinities (a diverged
  run), or that do not fit the network's settings, with a message naming the file;
- it names the game file it was trained on (its name, the SHA-256 of its text, the
  parameters), and ``load_model`` refuses another game file with a message that says
  both; ``other_game=True`` accepts it on purpose (a variant with new cards: they are
  embedded from their components).

A model directory (``models/dominion-solo``) holds ``model.pt`` and the model card
``MODEL_CARD.md``; a path to a directory means its ``model.pt``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from cardlang.agents.neural.network import (
    SIZE_RANGES,
    NetConfig,
    batch_tensors,
    make_net,
    pick_device,
    shown_value,
    weight_shapes,
)
from torch import nn

from cardlang.errors import UsageError
from cardlang.information.tokens import NameTable, Tokenizer, ViewTokens, collate
from cardlang.language.fingerprint import rules_fingerprint

#: ``info["expected_counts"]`` of a model trained on the engine's tokens (learning/ppo.py):
#: it reads hidden locations as the uniform odds over unseen cards, at play too.
UNIFORM_COUNTS = "uniform"

if TYPE_CHECKING:
    from cardlang.engine.game import Game

FORMAT = "cardlang-neural/1"
#: ``info`` key: the model reads a pile's option as its card (``NameTable.pile_cards``);
#: models made before issue 54's second pass lack it and read a pile by name alone.
PILE_CARDS = "pile_cards"
#: ``info`` key: the names training fed the network (their embeddings were learnt).
TRAINED_NAMES = "trained_names"
MODEL_FILE = "model.pt"


@dataclass(frozen=True)
class GameIdentity:
    """The game file a model was trained on (``sha256``: its rules' fingerprint)."""

    name: str
    sha256: str
    params: Mapping[str, str] = field(default_factory=dict)
    nplayers: int = 2

    @classmethod
    def of(cls, game: Game, params: Mapping[str, str] | None = None) -> GameIdentity:
        return cls(game.name, game_hash(game), dict(params or {}), game.nplayers)

    def learnt(self, game: Game) -> bool:
        """Whether these are ``game``'s rules (by their fingerprint, or by the whole
        file's hash for models saved before the fingerprint)."""
        return self.sha256 in (game_hash(game), file_hash(game))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "params": dict(self.params),
            "nplayers": self.nplayers,
        }


def game_hash(game: Game) -> str:
    """The rules' fingerprint (language/fingerprint.py): comments, layout and labels do
    not count, so a model outlives its game file's readable labels."""
    return rules_fingerprint(game.source.text)


def file_hash(game: Game) -> str:
    """The file's own SHA-256: what models saved before the rules' fingerprint hold."""
    return hashlib.sha256(game.source.text.encode()).hexdigest()


class NeuralModel:
    """The network with its name table and the game it was made for."""

    def __init__(
        self,
        config: NetConfig,
        game: GameIdentity,
        names: Sequence[str] = (),
        net: nn.Module | None = None,
        device: str = "auto",
        info: Mapping[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.game = game
        self.info: dict[str, Any] = dict(info or {})
        self.table = self._table(names)
        self.device = pick_device(device)
        self.net = (net or make_net(config)).to(self.device)
        self.net.eval()  # training switches it to train mode for its steps, then back
        self._tokenizers: dict[int, Tokenizer] = {}

    # ------------------------------------------------------------ use
    def tokenizer(self, game: Game) -> Tokenizer:
        """The tokenizer of a game into this model's names (one per game object): with
        the uniform odds for hidden locations where the model learnt from them
        (``info["expected_counts"]``, set by PPO on the engine's tokens), else the
        knowledge pools of a recorded game."""
        found = self._tokenizers.get(id(game))
        if found is None or found.nplayers != game.nplayers:
            uniform = self.info.get("expected_counts") == UNIFORM_COUNTS
            found = self._tokenizers[id(game)] = Tokenizer(game, self.table, uniform)
        return found

    def set_names(self, names: Sequence[str]) -> None:
        """Replace the name table by a saved one (``names[0]`` is the unknown name)."""
        self.table = self._table(names)
        self._tokenizers.clear()

    def _table(self, names: Sequence[str]) -> NameTable:
        pile_cards = bool(self.info.get(PILE_CARDS, False))
        return NameTable(names[1:], capacity=self.config.names, pile_cards=pile_cards)

    def freeze(self) -> None:
        """Stop adding names: a name met from now on is the unknown name (play, not
        training); so is a name training never fed the network, where the model says
        which it learnt (``info["trained_names"]``; older models: every name)."""
        self.table.frozen = True
        trained = self.info.get(TRAINED_NAMES)
        if trained is not None:
            self.table.known = frozenset(self.table.id(n) for n in trained if n in self.table)
        self._tokenizers.clear()

    def trained_ids(self) -> np.ndarray | None:
        """The ids of the names training fed the network, or None where the model does
        not say (made before issue 54)."""
        trained = self.info.get(TRAINED_NAMES)
        if trained is None:
            return None
        return np.array([self.table.id(n) for n in trained if n in self.table], dtype=np.int64)

    def learnt(self, ids: np.ndarray) -> None:
        """Add the names of ``ids`` to those training fed the network."""
        names = set(self.info.get(TRAINED_NAMES) or ())
        names.update(self.table.names[i] for i in np.unique(ids).tolist() if i)
        self.info[TRAINED_NAMES] = sorted(names)

    def forget_untrained(self) -> int:
        """Zero the embeddings of the names training never fed the network (they hold
        their random initial values): a run that goes on from this model (``--init``)
        starts a new card's name from nothing, not from noise.  How many were zeroed."""
        trained = self.trained_ids()
        if trained is None:
            return 0
        names = self.net.names
        assert isinstance(names, nn.Embedding | nn.EmbeddingBag)  # both bodies' name table
        table = names.weight
        keep = torch.zeros(table.shape[0], dtype=torch.bool)
        keep[torch.from_numpy(trained)] = True
        keep[0] = True
        with torch.no_grad():
            table[~keep] = 0.0
        return int((~keep[: len(self.table)]).sum())

    @torch.no_grad()
    def evaluate(self, items: Sequence[ViewTokens]) -> tuple[list[np.ndarray], np.ndarray]:
        """Per view: the policy over its action tokens (probabilities), and the values
        per seat offset from the viewer ([len(items), seats])."""
        if self.net.training:
            self.net.eval()
        batch = collate(items)
        logits, values = self.net(**batch_tensors(batch, self.device))
        probs = torch.softmax(logits, dim=-1).cpu().numpy()
        out = [probs[i, : len(x.option_of)] for i, x in enumerate(items)]
        return out, values.cpu().numpy()

    @torch.no_grad()
    def logits(self, items: Sequence[ViewTokens]) -> list[np.ndarray]:
        if self.net.training:
            self.net.eval()
        batch = collate(items)
        logits, _ = self.net(**batch_tensors(batch, self.device))
        lg = logits.cpu().numpy()
        return [lg[i, : len(x.option_of)] for i, x in enumerate(items)]

    # ------------------------------------------------------------ files
    def payload(self) -> dict[str, Any]:
        state = {k: v.detach().cpu() for k, v in self.net.state_dict().items()}
        # how the model reads a pile is its table's: the info only carries it to the
        # next load (so a run that replaced the info, --init, need not copy it over)
        info = {k: v for k, v in self.info.items() if k != PILE_CARDS}
        if self.table.pile_cards:
            info[PILE_CARDS] = True
        return {
            "format": FORMAT,
            "config": self.config.to_dict(),
            "game": self.game.to_dict(),
            "names": list(self.table.names),
            "state_dict": state,
            "weights_sha256": weights_checksum(state),
            "info": info,
        }

    def save(self, path: str | Path, extra: Mapping[str, Any] | None = None) -> None:
        data = self.payload()
        if extra:  # other weights (the average policy's): their own checksum
            data.update(extra)
            data["weights_sha256"] = weights_checksum(data["state_dict"])
        atomic_save(data, model_path(path))


def model_path(path: str | Path) -> Path:
    p = Path(path)
    return p / MODEL_FILE if p.is_dir() or not p.suffix else p


def atomic_save(data: Mapping[str, Any], path: Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, synced, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(dict(data), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint's data, loaded with ``weights_only=True`` (no code runs)."""
    file = model_path(path)
    if not file.is_file():
        raise UsageError(f"no model at {path} (expected a .pt file or a folder with {MODEL_FILE})")
    try:
        data = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as err:  # a truncated or foreign file: say so, not a traceback
        raise UsageError(
            f"{file} is not a readable cardlang model: {type(err).__name__}: {err}"
        ) from err
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{file} is not a cardlang model (format {FORMAT} expected)")
    problem = _malformed(data)
    if problem:
        raise UsageError(f"{file} is not a usable cardlang model: {problem}")
    return data


def weights_checksum(state_dict: Mapping[str, torch.Tensor]) -> str:
    """SHA-256 over the weights: each tensor's name, dtype, shape and bytes, by name."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tensor.dtype}:{tuple(tensor.shape)};".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


_PARTS = {"config": dict, "game": dict, "names": list, "state_dict": dict}


def _malformed(data: Mapping[str, Any]) -> str | None:
    """What is wrong with a checkpoint's data (None: nothing): a missing or mistyped
    part, settings of another version or out of range, a name table or weights that do
    not fit the settings, weights that fail their checksum or are not finite.  Every
    part is checked before any of it is used: the file is untrusted, and torch would
    build a network of any size it describes.  Files saved before the checksum have
    none to check."""
    for part, kind in _PARTS.items():
        if not isinstance(data.get(part), kind):
            return f"its {part!r} is missing or not a {kind.__name__}"
    problem = _info_problem(data.get("info", {}))
    if problem:
        return problem
    config, problem = _settings(data)
    if config is None:
        return problem
    problem = _names_problem(data["names"], config) or _weights_problem(data, config)
    return problem


def _settings(data: Mapping[str, Any]) -> tuple[NetConfig | None, str | None]:
    """The checkpoint's network settings, checked in type and range (``NetConfig``
    refuses what is out of range), and its game's; else None and what is wrong."""
    try:
        config = NetConfig(**data["config"])
    except TypeError as err:
        return None, f"its config settings are not this version's ({err})"
    except UsageError as err:  # a value of the wrong type or out of range
        return None, f"its {err}"
    try:
        GameIdentity(**data["game"])
    except TypeError as err:
        return None, f"its game settings are not this version's ({err})"
    problem = _identity_problem(data["game"])
    return (None, problem) if problem else (config, None)


def _info_problem(info: object) -> str | None:
    """What is wrong with the parts of a checkpoint's ``info`` that play reads (None:
    nothing): the solo value's lengths (the agent divides by them) and the tokens'
    odds of hidden cards."""
    if not isinstance(info, dict):
        return "its 'info' is not a dict"
    solo = info.get("solo_value", {})
    if not isinstance(solo, dict) or not all(
        type(solo.get(key, 1)) is int and 1 <= solo.get(key, 1) <= 10**9 for key in ("best", "cap")
    ):
        return f"its info's solo_value is not two lengths from 1 up ({shown_value(solo)})"
    counts = info.get("expected_counts")
    if counts is not None and not isinstance(counts, str):
        return f"its info's expected_counts is not a name ({shown_value(counts)})"
    return None


def _identity_problem(game: Mapping[str, Any]) -> str | None:
    """What is wrong with the types of the game a checkpoint names (None: nothing)."""
    for key in ("name", "sha256"):
        if not isinstance(game.get(key), str):
            return f"its game's {key} is not text"
    params = game.get("params", {})
    if not isinstance(params, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in params.items()
    ):
        return "its game's params are not names and values"
    nplayers = game.get("nplayers", 2)
    if type(nplayers) is not int or not 1 <= nplayers <= SIZE_RANGES["seats"][1]:
        return f"its game's nplayers is not a number of players ({shown_value(nplayers)})"
    return None


def _names_problem(names: list[Any], config: NetConfig) -> str | None:
    """What is wrong with a checkpoint's name table (None: nothing): ``names[0]`` is the
    unknown name, and the table holds at most ``config.names`` rows."""
    if not all(isinstance(n, str) for n in names):
        return "its name table holds something other than names"
    if not 1 <= len(names) <= config.names:
        return f"its name table has {len(names):,} names; its settings allow 1 to {config.names:,}"
    return None


def _weights_problem(data: Mapping[str, Any], config: NetConfig) -> str | None:
    """What is wrong with a checkpoint's weights (None: nothing): a tensor missing, left
    over, of another shape or type than the settings' network has, a checksum that fails,
    a value that is not finite."""
    state = data["state_dict"]
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        return "its weights are not named tensors"
    try:
        expected = weight_shapes(config)  # a network too large is refused here
    except UsageError as err:
        return str(err)
    problem = _fit_problem(state, expected)
    if problem:
        return problem
    saved = data.get("weights_sha256")
    if saved is not None and saved != weights_checksum(state):
        return "its weights do not match their checksum (the file is corrupt)"
    for name, tensor in state.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            return f"its weights hold NaN or infinite values ({name}): a run that diverged"
    return None


def _fit_problem(
    state: Mapping[str, torch.Tensor], expected: Mapping[str, tuple[tuple[int, ...], torch.dtype]]
) -> str | None:
    """The first tensor of ``state`` that the network's ``expected`` shapes and types do
    not have, or lack (None: they fit): said before any weight is copied."""
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    if missing or extra:
        what = (
            f"{missing[0]} is missing" if missing else f"{shown_value(extra[0])} is not one of them"
        )
        return f"its weights do not fit its network settings: {what}"
    for name, (shape, dtype) in expected.items():
        tensor = state[name]
        if tuple(tensor.shape) != shape or tensor.dtype != dtype:
            return (
                f"its weights do not fit its network settings: {name} is {tensor.dtype} "
                f"{tuple(tensor.shape)}, the settings make it {dtype} {shape}"
            )
    return None


def load_model(
    path: str | Path,
    game: Game | None = None,
    *,
    other_game: bool = False,
    device: str = "auto",
) -> NeuralModel:
    """The model saved at ``path``; with ``game``, checked to be the game it learnt."""
    data = read_checkpoint(path)
    if game is not None:
        config = NetConfig(**data["config"])
        check_game(GameIdentity(**data["game"]), game, other_game, path, config)
    return model_from_payload(data, path, device)


def model_from_payload(data: Mapping[str, Any], path: Any, device: str = "auto") -> NeuralModel:
    """The model ``NeuralModel.payload`` (or a checked checkpoint, ``read_checkpoint``)
    describes; ``path`` names where it came from in a message."""
    config = NetConfig(**data["config"])
    identity = GameIdentity(**data["game"])
    model = NeuralModel(config, identity, data["names"], device=device, info=data.get("info"))
    load_weights(model.net, data["state_dict"], path)
    return model


def load_weights(net: nn.Module, state_dict: Mapping[str, torch.Tensor], path: Any) -> None:
    """``net.load_state_dict``; weights that do not fit the network are the file's fault
    (a tensor of another shape, a missing layer): a message naming it."""
    try:
        net.load_state_dict(state_dict)
    except RuntimeError as err:
        first = str(err).strip().splitlines()
        detail = " ".join(line.strip() for line in first[:3])
        raise UsageError(f"{path}: its weights do not fit its network settings: {detail}") from None


def check_game(
    identity: GameIdentity,
    game: Game,
    other_game: bool,
    path: str | Path,
    config: NetConfig | None = None,
) -> None:
    """A UsageError unless the model can play ``game``: the same number of players (and
    a value per seat: ``config.seats``), and the rules it learnt unless ``other_game``."""
    if config is not None and config.seats != game.nplayers:
        raise UsageError(
            f"model {path} values {config.seats} seat(s); this game has {game.nplayers}"
        )
    if game.nplayers != identity.nplayers:
        raise UsageError(
            f"model {path} was trained for {identity.nplayers} player(s); this game has "
            f"{game.nplayers} (--param players=...)"
        )
    if not other_game and not identity.learnt(game):
        digest = game_hash(game)
        raise UsageError(
            f"model {path} was trained on the game file '{identity.name}' (sha256 "
            f"{identity.sha256[:12]}...), not on '{game.name}' (sha256 {digest[:12]}...). "
            "To play it on a variant of that game on purpose (new cards are embedded from "
            "their attributes), add other_game=1 to the agent spec."
        )
