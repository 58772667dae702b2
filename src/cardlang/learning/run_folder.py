"""What both trainers' run folders share (``cardlang train``: ppo_run.py for
``--algorithm ppo``, experimental/search.py for ``--algorithm search``).

A run lives in one folder (``--out``): ``model.pt`` (what ``neural:model=DIR`` loads),
``checkpoint.pt`` (the model with the training state), ``metrics.jsonl``, ``plots/``,
``report.html`` and ``MODEL_CARD.md``.  This base opens a new folder or resumes the run
in it (the checkpoint's own settings kept, but for the length and the evaluation asked
for now; a command that changes any other is refused), makes the model (new, or
``--init`` from a trained one), keeps the CPU clock across sessions and writes the
files every round.  A subclass says how a round is
played and what its checkpoint holds beside the model.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection
from dataclasses import fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from cardlang.agents.neural.model import (
    PILE_CARDS,
    TRAINED_NAMES,
    GameIdentity,
    NeuralModel,
    atomic_save,
    check_game,
    file_hash,
    game_hash,
    load_model,
    read_checkpoint,
)
from cardlang.agents.neural.network import NetConfig
from cardlang.agents.neural.search import SoloValue
from cardlang.compiler.load import load_game
from cardlang.engine.gamemaster import Limits
from cardlang.errors import UsageError
from cardlang.language.params import drawn_params
from cardlang.learning.config import TrainConfig
from cardlang.learning.evaluate import process_cpu_seconds
from cardlang.learning.report import write_model_card, write_report

CHECKPOINT = "checkpoint.pt"
MODEL = "model.pt"
METRICS = "metrics.jsonl"

Report = Callable[[str], None]
#: The network's sizes: settings of the run (TrainConfig) and of the network (NetConfig)
#: under the same names.
NET_SIZES = ("width", "body", "phi_layers", "heads", "layers", "feedforward", "hidden")
Run = TypeVar("Run", bound="RunFolder")


class RunFolder:
    """One run folder; ``checkpoint`` is the checkpoint a resumed run is made from."""

    algorithm: ClassVar[str]
    legend: ClassVar[str] = ""  # what a round's line says, printed before the first
    model: NeuralModel  # made by the subclass (``_model``)

    def __init__(
        self,
        config: TrainConfig,
        out: Path,
        report: Report,
        checkpoint: dict[str, Any] | None = None,
    ) -> None:
        self.out, self.report, self.config = out, report, config
        self.game = load_game(config.game, params=config.params, engine=config.engine)
        self.solo = SoloValue(config.solo_best, config.solo_cap)
        self.limits = Limits(max_decisions=config.max_decisions)
        self.round = 0
        self.metrics: list[dict[str, Any]] = []
        self.cpu_before = 0.0  # CPU seconds of earlier sessions of this run
        # the process's CPU before this run began: a run made inside a longer process
        # (card-report adapts a model per card) counts only its own
        self.cpu_at_start = process_cpu_seconds()

    # ------------------------------------------------------------ the model
    def _model(self, device: str, checkpoint: dict[str, Any] | None) -> NeuralModel:
        """A new model, or ``--init``'s; a resumed run's weights come from its checkpoint
        (so it needs no ``--init`` file)."""
        if self.config.init and checkpoint is None:
            return self._init_model(self.config.init, device)
        return self._new_model(device)

    def _solo_info(self) -> dict[str, Any]:
        return {"solo_value": {"best": self.config.solo_best, "cap": self.config.solo_cap}}

    def _new_model(self, device: str) -> NeuralModel:
        c = self.config
        sizes = {name: getattr(c, name) for name in NET_SIZES}
        net = NetConfig(**sizes, seats=self.game.nplayers, solo=self.game.nplayers == 1)
        identity = GameIdentity.of(self.game, c.params | drawn_params(c.param_draws))
        # a new model reads a buy of a pile as its card (what makes a card it never
        # met buyable by what it does)
        info = {**self._solo_info(), PILE_CARDS: True}
        return NeuralModel(net, identity, device=device, info=info)

    def _init_model(self, path: str, device: str) -> NeuralModel:
        """A trained model of this game file to go on from (``--init``): its weights, names
        and sizes (which replace the run's), and what it came from (the model card tells
        the lineage)."""
        model = load_model(path, self.game, device=device, other_game=True)
        if not model.game.learnt(self.game):  # a variant: new cards read by what they do
            self.report(
                f"--init {path} learnt another game file ('{model.game.name}'): cards it "
                "never met start from their components and effects"
            )
            # what this run saves is a model of this game file
            c = self.config
            model.game = GameIdentity.of(self.game, c.params | drawn_params(c.param_draws))
        for name in NET_SIZES:
            setattr(self.config, name, getattr(model.config, name))
        zeroed = model.forget_untrained()
        trained = model.info.get(TRAINED_NAMES)
        model.info = {**self._solo_info(), "init": {"model": str(path), "info": dict(model.info)}}
        if trained is not None:  # what it learnt stays learnt
            model.info[TRAINED_NAMES] = trained
        if zeroed:
            self.report(f"--init: {zeroed} names it never learnt start from zero")
        return model

    # ------------------------------------------------------------ open and resume
    @classmethod
    def open(
        cls: type[Run],
        config: TrainConfig,
        out: Path,
        report: Report,
        given: Collection[str] = (),
    ) -> Run:
        """A new run in ``out``, or the run there resumed from its checkpoint: its own
        settings, but for those of ``RESUME_SETTINGS`` asked for now; a setting among
        ``given`` (the ones the command named) that differs from the run's is refused."""
        path = out / CHECKPOINT
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} is a file, not a run folder")
        if path.exists() and not path.is_file():
            raise UsageError(f"{path} is not a file: a run folder's checkpoint must be one")
        remove_leftovers(out, report)
        if not path.is_file():
            out.mkdir(parents=True, exist_ok=True)
            return cls(config, out, report)
        data = read_checkpoint(path)
        saved = _saved_config(data, path)
        _check_same_run(config, saved, data, out)
        if saved.algorithm != cls.algorithm:
            raise UsageError(f"{out} holds a {saved.algorithm} run: resume it with that algorithm")
        _check_unchanged(config, saved, given, out)
        for name in RESUME_SETTINGS:  # the length always; the evaluation where named
            if name in _ALWAYS_FROM_COMMAND or name in given:
                setattr(saved, name, getattr(config, name))
        run = cls(saved, out, report, checkpoint=data)
        check_game(run.model.game, run.game, False, path)
        if data["game"]["sha256"] != game_hash(run.game):
            raise UsageError(f"{path} belongs to another game file")
        try:
            run._restore(data)
        except UsageError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, RuntimeError) as err:
            # every part of the training state is data read from the file: a part that
            # is missing or of the wrong shape is the file's fault, not a bug
            raise UsageError(
                f"{path}: its training state is damaged or of another version "
                f"({type(err).__name__}: {err}); resume from a copy, or move it away to "
                "start afresh"
            ) from None
        report(f"resuming {out} after round {run.round}")
        return run

    def _restore(self, data: dict[str, Any]) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ the loop
    def _rounds(self) -> None:
        """Rounds until ``rounds`` are done, the time limit has passed, or the next
        round would pass the CPU budget (judged by the last round's CPU time)."""
        c = self.config
        start, first = time.monotonic(), self.round
        last_cpu = 0.0
        if self.round < c.rounds and self.legend:
            self.report(self.legend)
        while self.round < c.rounds:
            if c.time_limit and time.monotonic() - start > c.time_limit:
                self.report(f"time limit reached after round {self.round}")
                break
            if c.cpu_limit and self.cpu_seconds() + last_cpu > c.cpu_limit:
                used = self.cpu_seconds() / 60
                self.report(f"CPU budget reached after round {self.round} ({used:.1f} CPU-minutes)")
                break
            cpu0 = self.cpu_seconds()
            self._round(self.round + 1)
            last_cpu = self.cpu_seconds() - cpu0
            self._eta(start, first, last_cpu)
        self._flush()
        self.report(f"done: {self.round} rounds; model in {self.out / MODEL}")

    def _eta(self, start: float, first: int, last_cpu: float) -> None:
        """How long the rest should take: this session's mean round, times the rounds
        left (by --rounds, or by the CPU budget where that ends the run sooner)."""
        c = self.config
        left = c.rounds - self.round
        if c.cpu_limit and last_cpu > 0:
            left = min(left, int(max(0.0, c.cpu_limit - self.cpu_seconds()) // last_cpu))
        done = self.round - first
        if left <= 0 or done <= 0:
            return
        seconds = (time.monotonic() - start) / done * left
        self.report(f"  {left} round(s) to go, about {_duration(seconds)} left (ETA)")

    def _round(self, number: int) -> None:
        raise NotImplementedError

    def _flush(self) -> None:
        """Write what a run that checkpoints only every few rounds has not yet written
        (the rounds are over); a run that writes every round has nothing to do."""

    # ------------------------------------------------------------ files
    def cpu_seconds(self) -> float:
        return self.cpu_before + process_cpu_seconds() - self.cpu_at_start

    def _write(self, training: dict[str, Any]) -> None:
        """The model, then the checkpoint (the model with ``training``), both atomic;
        then the metrics, the report and the model card."""
        self.model.save(self.out / MODEL)
        atomic_save({**self.model.payload(), "training": training}, self.out / CHECKPOINT)
        text = "".join(json.dumps(row) + "\n" for row in self.metrics)
        tmp = self.out / (METRICS + ".tmp")
        tmp.write_text(text)
        tmp.replace(self.out / METRICS)
        write_report(self.out, self.metrics, self.config)
        write_model_card(self.out, self.metrics, self.config, self.model)


def _saved_config(data: dict[str, Any], path: Path) -> TrainConfig:
    """The run's own settings from its checkpoint; a model file (no training state) or
    settings of another version are a message naming the file."""
    training = data.get("training")
    if not isinstance(training, dict) or not isinstance(training.get("config"), dict):
        raise UsageError(
            f"{path} holds a model but no training state: it is not a run's checkpoint "
            "(start a run from it with --init)"
        )
    try:
        return TrainConfig.from_dict(training["config"])
    except (TypeError, ValueError) as err:
        raise UsageError(f"{path}: its run settings are not this version's ({err})") from None


def _check_same_run(
    config: TrainConfig, saved: TrainConfig, data: dict[str, Any], out: Path
) -> None:
    """A run resumes with its own settings: a command naming another game file (its
    rules) or other parameters is a mistake to say, not to ignore."""
    asked = load_game(config.game, params=config.params)
    if data["game"]["sha256"] not in (game_hash(asked), file_hash(asked)):
        raise UsageError(
            f"{out} holds a run of {saved.game} ('{data['game']['name']}'), not of "
            f"{config.game}: give this game another --out"
        )
    if config.params and config.params != saved.params:
        raise UsageError(
            f"{out} holds a run with --param {_params(saved.params)}, not "
            f"{_params(config.params)}: a run keeps its parameters (give another --out)"
        )


#: Settings a resumed run takes from the command (none of them changes what it learns):
#: how long it goes on and the engine it plays on (always: the engines agree), and how
#: and when it is evaluated (where the command names them; else the run's own).
RESUME_SETTINGS = (
    "rounds",
    "time_limit",
    "cpu_limit",
    "engine",
    "evaluate_every",
    "eval_games",
    "eval_agents",
    "backend",  # where the games are played: never what a run learns
    "workers",
    "checkpoint_every",  # when the run's state is written: never what it learns
)
_ALWAYS_FROM_COMMAND = ("rounds", "time_limit", "engine")


def _check_unchanged(
    config: TrainConfig, saved: TrainConfig, given: Collection[str], out: Path
) -> None:
    """A resumed run learns with the settings it started with (the model card's
    "Reproduce" line names them): a command that asks for another is refused, naming
    each, rather than silently ignored."""
    names = {f.name for f in fields(TrainConfig)} - set(RESUME_SETTINGS) - {"game", "params"}
    changed = [
        f"--{_OPTIONS.get(name, name.replace('_', '-'))} {_setting(getattr(config, name))} "
        "(the run's: "
        f"{_setting(getattr(saved, name))})"
        for name in sorted(names & set(given))
        if getattr(config, name) != getattr(saved, name)
    ]
    if changed:
        raise UsageError(
            f"{out} holds a run that learns with its own settings, and this command changes "
            f"{len(changed)}: {'; '.join(changed)}. Leave them out to resume it (only "
            f"{', '.join('--' + n.replace('_', '-') for n in RESUME_SETTINGS)} apply to a "
            "resumed run), or give another --out for a new run"
        )


#: settings whose option is not their name with dashes
_OPTIONS = {"param_draws": "param-draw"}


def _setting(value: Any) -> str:
    if isinstance(value, dict):  # the drawn parameters
        return " ".join(f"{k.lower()}={v}" for k, v in drawn_params(value).items()) or "(none)"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) or "(none)"
    return "(none)" if value is None else str(value)


def _params(params: dict[str, str]) -> str:
    return " ".join(f"{k.lower()}={v}" for k, v in sorted(params.items())) or "(none)"


#: What an interrupted write leaves in a run folder: atomic_save's temporary files
#: (``.checkpoint.pt.XXXX.tmp``) and the metrics' (``metrics.jsonl.tmp``).
LEFTOVERS = (".*.pt.*.tmp", "*.jsonl.tmp")


def remove_leftovers(out: Path, report: Report) -> None:
    """Delete the temporary files of writes a killed run did not finish: the files
    they were meant to replace are whole (the writes are atomic), so nothing is lost."""
    if not out.is_dir():
        return
    found = sorted({p for pattern in LEFTOVERS for p in out.glob(pattern) if p.is_file()})
    for p in found:
        p.unlink(missing_ok=True)
    if found:
        report(f"removed {len(found)} unfinished write(s) of an interrupted run in {out}")


def _duration(seconds: float) -> str:
    """``1 h 05 min``, ``12 min``, ``40 s``."""
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    return f"{int(seconds // 60)} min" if seconds >= 60 else f"{int(seconds)} s"
