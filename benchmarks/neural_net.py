"""CPU cost of the neural agent's networks per view: the transformer beside Deep Sets.

What it measures
    Two-player Dominion views (seat 0 against ``bmu``), tokenized by the engine
    (``VectorEnv(..., tokens=NameTable())``, tests/test_vector_tokens.py holds them equal
    to ``information/tokens.py``), in batches of ``--batch`` (256) views padded to the
    longest.  For each network (``agents/neural/network.py``: the transformer, the
    shipped models' body, and Deep Sets at several widths), microseconds per view of
    the forward pass without gradients (playing, acting in self-play) and of forward plus
    backward (learning), on one torch thread (one process per core is how training
    runs).  Each repetition measures every network in turn (A B C ... A B C ...),
    ``--repeats`` times; the table gives medians.  The issue's goal: at most 100 us per
    view forward at batch 256 on one core.

Usage (from the repository root)
    python benchmarks/neural_net.py
    python benchmarks/neural_net.py --json benchmarks/results/DATE-neural_net.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import median, note  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: (label, NetConfig sizes)
NETWORKS = [
    ("transformer d=64", {"body": "transformer", "width": 64}),
    ("deepsets d=32", {"body": "deepsets", "width": 32, "hidden": 64}),
    ("deepsets d=48", {"body": "deepsets", "width": 48, "hidden": 96}),
    ("deepsets d=64", {"body": "deepsets", "width": 64}),
    ("deepsets d=64 phi=2", {"body": "deepsets", "width": 64, "phi_layers": 2}),
]


def views(batch: int, seed: int) -> tuple[dict[str, Any], int]:
    """One batch of Dominion views as the network's tensors, and the names used."""
    from cardlang.env.vector import VectorEnv, random_actions
    from cardlang.information.tokens import NameTable
    from cardlang.learning.ppo import token_inputs

    table = NameTable()
    env = VectorEnv(
        ROOT / "games/dominion.rcy", batch, seats=0, opponents="bmu", tokens=table, seed=seed
    )
    _, mask, *_ = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(5, 25))):  # views from the middle of games
        _, mask, *_ = env.step(random_actions(mask, rng))
    tensors = token_inputs(env)
    t, a = tensors["names"].shape[1], tensors["action_names"].shape[1]
    note(f"{batch} views: up to {t} tokens (mean {env.token_count.mean():.0f}), {a} actions")
    return tensors, len(table)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5, help="calls per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    import torch
    from cardlang.agents.neural.network import NetConfig, make_net

    torch.set_num_threads(1)
    tensors, names = views(args.batch, args.seed)
    nets = []
    for label, sizes in NETWORKS:
        torch.manual_seed(0)
        net = make_net(NetConfig(names=max(names, 64), seats=2, **sizes))
        nets.append((label, net, {"forward": [], "backward": []}))
    per_view = 1e6 / args.batch
    for r in range(args.repeats):
        for _, net, rates in nets:
            with torch.no_grad():
                net(**tensors)  # warm
                start = time.process_time()
                for _ in range(args.calls):
                    net(**tensors)
                rates["forward"].append((time.process_time() - start) / args.calls * per_view)
            start = time.process_time()
            for _ in range(args.calls):
                logits, values = net(**tensors)
                loss = values.sum() + logits.masked_fill(~tensors["action_mask"], 0).sum()
                loss.backward()
            rates["backward"].append((time.process_time() - start) / args.calls * per_view)
        note(f"repetition {r + 1}/{args.repeats} done")
    lines = [f"{'network':<22} {'forward us/view':>16} {'fwd+bwd us/view':>16} {'parameters':>11}"]
    results = []
    for label, net, rates in nets:
        params = sum(p.numel() for p in net.parameters())
        fwd, bwd = median(rates["forward"]), median(rates["backward"])
        lines.append(f"{label:<22} {fwd:>16.1f} {bwd:>16.1f} {params:>11,}")
        results.append(
            {
                "network": label,
                "forward_us": fwd,
                "forward_backward_us": bwd,
                "parameters": params,
                "runs": rates,
            }
        )
    print("CPU time per view, one torch thread, batch", args.batch, "(medians)")
    print("\n".join(lines))
    if args.json:
        out = {
            "benchmark": "neural_net",
            "batch": args.batch,
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
            "results": results,
        }
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
        note(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
