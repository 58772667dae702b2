"""What a training run shows people: plots, one HTML page, and the model card.

Pipeline position: learning.  Written after every round from the metrics (one dict per
round, ppo_run.py or experimental/search.py): ``plots/losses.png`` (policy and value
loss, agreement with the target), ``plots/evaluation.png`` (win share against each
evaluation agent with its 95% interval, or a solo game's mean length beside the
agents'), ``report.html`` (both plots inlined, and the table of rounds) and
``MODEL_CARD.md``.  Plots need matplotlib (the ``plot`` extra); without it the page holds
the table alone.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardlang.language.params import drawn_params

if TYPE_CHECKING:
    from cardlang.agents.neural.model import NeuralModel
    from cardlang.learning.config import TrainConfig


SEARCH_CURVES = (
    ("policy_loss", "-", "policy loss"),
    ("target_entropy", ":", "target entropy (the policy loss's floor)"),
    ("value_loss", "-", "value loss (MSE)"),
    ("policy_agreement", "--", "policy agrees with the target"),
)
PPO_CURVES = (
    ("policy", "-", "policy loss (clipped surrogate)"),
    ("value", "-", "value loss (MSE)"),
    ("entropy", ":", "policy entropy"),
    ("kl", "--", "approximate KL to the acting policy"),
)
SEARCH_COLUMNS = (
    "round",
    "games",
    "samples",
    "buffer",
    "steps",
    "policy_loss",
    "value_loss",
    "policy_agreement",
    "seconds",
    "cpu_hours",
)
PPO_COLUMNS = (
    "round",
    "games",
    "games_total",
    "steps",
    "policy",
    "value",
    "entropy",
    "kl",
    "games_per_core_hour",
    "seconds",
    "cpu_hours",
    "rss_mb",
)


def write_report(out: Path, metrics: Sequence[dict[str, Any]], config: TrainConfig) -> None:
    plots = out / "plots"
    images: list[Path] = []
    if metrics:
        try:
            images = _plots(plots, metrics)
        except ImportError:
            images = []
    page = _page(metrics, config, images)
    tmp = out / "report.html.tmp"
    tmp.write_text(page)
    tmp.replace(out / "report.html")


def _plots(folder: Path, metrics: Sequence[dict[str, Any]]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    curves = PPO_CURVES if any("entropy" in m for m in metrics) else SEARCH_CURVES
    first = curves[0][0]
    trained = [m for m in metrics if first in m]  # (round 0 of a warm start has none)
    rounds = [m["round"] for m in trained]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, style, label in curves:
        ax.plot(rounds, [m.get(key, float("nan")) for m in trained], style, label=label)
    ax.set_xlabel("round")
    ax.legend()
    ax.set_title("training losses")
    losses = folder / "losses.png"
    fig.tight_layout()
    fig.savefig(losses, dpi=90)
    plt.close(fig)
    paths = [losses]
    evaluated = [m for m in metrics if m.get("evaluation")]
    if evaluated:
        fig, ax = plt.subplots(figsize=(7, 4))
        names = list(evaluated[-1]["evaluation"])
        solo = "mean_turns" in evaluated[-1]["evaluation"][names[0]]
        key = "mean_turns" if solo else "win_share"
        for name in names:
            rows = [
                (m["round"], m["evaluation"][name]) for m in evaluated if name in m["evaluation"]
            ]
            xs = [r for r, _ in rows]
            ys = [f[key] for _, f in rows]
            lows = [f["low"] for _, f in rows]
            highs = [f["high"] for _, f in rows]
            label = name if solo else f"vs {name}"
            ax.plot(xs, ys, marker="o", label=label)
            ax.fill_between(xs, lows, highs, alpha=0.2)
        ax.set_xlabel("round")
        ax.set_ylabel("mean turns (completed games)" if solo else "win share of the model")
        if not solo:
            ax.axhline(0.5, color="grey", lw=0.5)
        ax.legend()
        ax.set_title("evaluation (95% intervals)")
        fig.tight_layout()
        evaluation = folder / "evaluation.png"
        fig.savefig(evaluation, dpi=90)
        plt.close(fig)
        paths.append(evaluation)
    return paths


def _page(metrics: Sequence[dict[str, Any]], config: TrainConfig, images: Sequence[Path]) -> str:
    parts = [
        "<!doctype html><meta charset='utf-8'><title>cardlang training</title>",
        "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:right}"
        "table{border-collapse:collapse}tr:nth-child(even){background:#f3f3f3}</style>",
        f"<h1>Training: {html.escape(config.game)}</h1>",
        f"<p>parameters {html.escape(str(config.params or {}))}; seed {config.seed}</p>",
    ]
    for image in images:
        data = base64.b64encode(image.read_bytes()).decode()
        parts.append(f"<img alt='{image.stem}' src='data:image/png;base64,{data}'>")
    columns = PPO_COLUMNS if config.algorithm == "ppo" else SEARCH_COLUMNS
    parts.append(
        "<h2>Rounds</h2><table><tr>"
        + "".join(f"<th>{html.escape(COLUMN_NAMES.get(c, c))}</th>" for c in columns)
        + "</tr>"
    )
    for m in metrics:
        cells = "".join(f"<td>{_fmt(m.get(c), c)}</td>" for c in columns)
        parts.append(f"<tr>{cells}</tr>")
    parts.append("</table>")
    parts += _evaluation_table(metrics)
    return "\n".join(parts)


#: The rounds table's headings, for people (metrics.jsonl keeps the keys).
COLUMN_NAMES = {
    "games_total": "games so far",
    "steps": "steps learnt",
    "policy": "policy loss",
    "value": "value loss",
    "policy_loss": "policy loss",
    "value_loss": "value loss",
    "policy_agreement": "agreement with search",
    "kl": "KL to the acting policy",
    "games_per_core_hour": "games / core-hour",
    "cpu_hours": "core-hours so far",
    "rss_mb": "memory (MB)",
}


def _evaluation_table(metrics: Sequence[dict[str, Any]]) -> list[str]:
    """The evaluations as a table: a row per evaluated round, a column per agent, each
    cell the win share with its 95% interval (solo: the mean turns)."""
    evaluated = [m for m in metrics if m.get("evaluation")]
    if not evaluated:
        return []
    agents = list(dict.fromkeys(name for m in evaluated for name in m["evaluation"]))
    rows = ["<h2>Evaluations</h2><table><tr><th>round</th>"]
    rows[0] += "".join(f"<th>against {html.escape(a)}</th>" for a in agents) + "</tr>"
    for m in evaluated:
        cells = "".join(f"<td>{_figure(m['evaluation'].get(a))}</td>" for a in agents)
        rows.append(f"<tr><td>{m['round']}</td>{cells}</tr>")
    rows.append("</table>")
    return rows


def _figure(f: dict[str, Any] | None) -> str:
    """One evaluation against one agent: "0.912 [0.865, 0.944] (200 games)", or a solo
    game's "15.10 turns [14.90, 15.30] (196/200 completed)"."""
    if f is None:
        return ""
    if "win_share" in f:
        return f"{f['win_share']:.3f} [{f['low']:.3f}, {f['high']:.3f}] ({f['games']} games)"
    return (
        f"{f['mean_turns']:.2f} turns [{f['low']:.2f}, {f['high']:.2f}] "
        f"({f['completed']}/{f['games']} completed)"
    )


def evaluation_text(evaluation: dict[str, Any] | None) -> str:
    if not evaluation:
        return ""
    return "; ".join(
        f"vs {name}: {_figure(f)}" if "win_share" in f else f"{name}: {_figure(f)}"
        for name, f in evaluation.items()
    )


#: settings that are not options of the command, or that do not change the model
_NOT_FLAGS = {
    "game",
    "params",
    "param_draws",
    "algorithm",
    "time_limit",
    "backend",
    "workers",
    "device",
    "games",
}


def reproduce_command(config: TrainConfig, rounds: int | None = None) -> str:
    """The ``cardlang train`` command with every setting that differs from the
    defaults (the seed and the rounds always; ``rounds``: those trained so far; the
    learning rate and the value weight always too, since their defaults depend on the
    algorithm)."""
    from dataclasses import replace

    from cardlang.learning.config import TrainConfig

    c = config if rounds is None else replace(config, rounds=rounds)
    parts = [f"cardlang train {c.game} --algorithm {c.algorithm}"]
    parts += [f"--param {k}={v}" for k, v in c.params.items()]
    parts += [f"--param-draw '{k}={v}'" for k, v in drawn_params(c.param_draws).items()]
    defaults = TrainConfig(game=c.game).to_dict()
    for name, value in c.to_dict().items():
        always = ("seed", "rounds", "lr", "value_weight")
        if name in _NOT_FLAGS or (value == defaults.get(name) and name not in always):
            continue
        if value is None:
            continue
        flag = f"--{name.replace('_', '-')}"
        if isinstance(value, bool):  # a switch: named when on (every switch is off by default)
            if value:
                parts.append(flag)
            continue
        text = ",".join(value) if isinstance(value, list) else str(value)
        parts.append(f"{flag} {text}")
    if c.algorithm == "search":
        parts.append(f"--games {c.games}")
    return " ".join(parts)


def _fmt(value: Any, column: str = "") -> str:
    """A cell: large counts with separators (61,090, not 6.109e+04), losses to 4 digits."""
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if column in ("games_per_core_hour", "rss_mb", "seconds") or abs(value) >= 1000:
            return f"{value:,.0f}"
        if column == "cpu_hours":
            return f"{value:.3f}"
        return f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return html.escape(str(value)) if value is not None else ""


def write_model_card(
    out: Path, metrics: Sequence[dict[str, Any]], config: TrainConfig, model: NeuralModel
) -> None:
    """``MODEL_CARD.md``: the game, the network, how it was trained, the compute and
    the latest evaluation."""
    c = config
    game = model.game
    every = c.params | drawn_params(c.param_draws)
    params = ", ".join(f"{k}={v}" for k, v in every.items()) or "default parameters"
    size = sum(p.numel() for p in model.net.parameters())
    if game.nplayers == 1:
        value = f"solo, scaled inverse length (best {c.solo_best}, cap {c.solo_cap} turns)"
    else:
        value = "expected standing per seat"
    warm = model.info.get("warm_start")
    if warm:
        start = (
            f"imitation of {warm['records']} ({warm['samples']} samples, {warm['steps']} "
            "steps) before self-play"
        )
    else:
        start = "none: self-play from scratch"
    init = model.info.get("init")
    if init:  # went on from another run's model: say what that one was
        earlier = init["info"].get("warm_start") or init["info"].get("init")
        start = f"went on from the model {init['model']}" + (
            f" (itself started from {earlier.get('records') or earlier.get('model')})"
            if earlier
            else ""
        )
    cpu = metrics[-1]["cpu_hours"] if metrics else 0.0
    rounds = sum("policy_loss" in m for m in metrics)  # (a warm start's round 0 trained none)
    if c.algorithm == "ppo":
        body = (
            f"Deep Sets, width {c.width}, {c.phi_layers} per-token layer(s)"
            if c.body == "deepsets"
            else f"set transformer, width {c.width}, {c.layers} layers, {c.heads} heads"
        )
        games = metrics[-1].get("games_total", 0) if metrics else 0
        training = [
            f"- network: {body}, MLP heads {c.hidden}; {size:,} parameters; "
            f"{len(model.table)} names",
            f"- PPO: {len(metrics)} rounds of {c.updates} updates; {c.envs} games in lockstep "
            f"inside the engine, horizon {c.horizon}, {c.epochs} epochs of minibatches of "
            f"{c.batch_size}, clip {c.clip}, entropy {c.entropy}, GAE lambda {c.lam}, lr {c.lr}, "
            f"value weight {c.value_weight}; seed {c.seed}",
            f"- opponents: {c.opponents} (past: the last {c.snapshots} snapshots, one every "
            f"{c.snapshot_every} updates)",
            f"- games trained on: {games:,}",
        ]
    else:
        training = [
            f"- network: set transformer, width {c.width}, {c.layers} layers, {c.heads} heads, "
            f"feed-forward {c.feedforward}, MLP heads {c.hidden}; {size:,} parameters; "
            f"{len(model.table)} names",
            f"- self-play: {rounds} rounds of {c.games} games, {c.iterations} search "
            f"iterations per move ({c.determinizations} determinizations per expansion), "
            f"temperature {c.temperature}, root noise {c.noise} (alpha {c.alpha}), "
            f"policy target: "
            + (
                "visit shares"
                if c.policy == "visits"
                else f"Gumbel improved policy ({c.considered} moves considered)"
            ),
            f"- learning: {c.steps} steps of {c.batch_size} samples per round, buffer "
            f"{c.buffer}, lr {c.lr}; seed {c.seed}",
        ]
    lines = [
        f"# Model card: {game.name} ({params})",
        "",
        f"- game file: `{c.game}` (rules fingerprint `{game.sha256}`), {game.nplayers} seat(s)",
        *training,
        f"- value: {value}",
        f"- warm start: {start}",
        f"- compute: {cpu:.2f} CPU core-hours (process and worker CPU time; no GPU)",
    ]
    last = next((m for m in reversed(metrics) if m.get("evaluation")), None)
    if last:
        lines += ["", f"## Evaluation after round {last['round']}", ""]
        lines += [evaluation_text(last["evaluation"])]
    command = reproduce_command(c, metrics[-1]["round"] if metrics else None)
    lines += [
        "",
        f"Reproduce: `{command} --out DIR`",
    ]
    tmp = out / "MODEL_CARD.md.tmp"
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(out / "MODEL_CARD.md")
