"""``cardlang train FILE --out DIR``: train a neural agent.

``--algorithm ppo`` (the default, the supported way): PPO over lockstep games inside the
engine, against an opponent pool (cardlang.learning.ppo_run); ``--algorithm search``
(experimental): self-play with search, AlphaZero's way
(cardlang.learning.experimental.search, reached through cardlang.learning.seam).  This
module reads the options and reports progress.  torch is needed (``pip install -e
".[neural]"``): without it the command says so, and nothing else of cardlang imports it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path

from cardlang.cli.options import (
    EXIT_OK,
    SubParsers,
    backend_options,
    chance,
    engine_option,
    non_negative,
    output_dir,
    param_option,
    positive,
    positive_float,
    positive_up_to,
    record_given,
    seed_option,
    share,
    whole,
    workers_count,
)
from cardlang.errors import UsageError
from cardlang.language.params import parse_param_args, parse_param_draws
from cardlang.learning.config import ALGORITHM_DEFAULTS, TrainConfig, default_of


def add_parser(sub: SubParsers) -> None:
    """The train command's options, in the groups ``--help`` shows them in."""
    p = sub.add_parser(
        "train",
        help="train a neural agent: PPO over lockstep games, or self-play with search "
        "(needs the neural extra)",
        description="Rounds of play and learning, evaluation against named agents and a "
        "checkpoint after every round. --algorithm ppo (the default, the supported way): "
        "PPO over many games stepped inside the engine against an opponent pool; "
        "--algorithm search (experimental): self-play with search (AlphaZero). Run it "
        "again with the same --out to resume: the run keeps "
        "its settings (only --rounds, --time-limit, --cpu-minutes and the evaluation options may "
        "change).",
    )
    p.add_argument(
        "--algorithm",
        choices=("ppo", "search"),
        default="ppo",
        help="ppo: PPO over lockstep games (fast; the default and the supported way); "
        "search (experimental): self-play with information-set search, learning its move "
        "distributions",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        type=output_dir,
        help="the run's folder (resumed if it holds one)",
    )
    param_option(p)
    p.add_argument(
        "--param-draw",
        action="append",
        metavar="NAME=VALUE|VALUE...",
        help="--algorithm ppo: train on every alternative of a parameter the game declares, "
        "e.g. --param-draw 'kingdom=first-game|size-distortion' (repeatable: every "
        "combination); each gets an equal share of the games. The evaluation plays the "
        "game of --param",
    )
    p.add_argument(
        "--always",
        metavar="CARD[,CARD...]",
        type=lambda text: [c.strip().upper() for c in text.split(",") if c.strip()],
        default=[],
        help="--algorithm ppo: every training game deals these cards (a designer's new "
        "card, to adapt a model to it from --init): the games are --always-games draws of "
        "the parameter that deals cards (Dominion's kingdom), each holding them, the "
        "rest drawn with --seed",
    )
    p.add_argument(
        "--card-bonus",
        type=non_negative,
        default=default_of("card_bonus"),
        metavar="B",
        help="--always: the policy tries the cards more while it learns them: B logits "
        "added to every option that binds one (buy, gain, play), falling linearly to "
        "none by the last round (0: off; 2 is a strong push)",
    )
    p.add_argument(
        "--always-games",
        type=positive,
        default=default_of("always_games"),
        metavar="K",
        help="--always: how many drawn kingdoms share the games (%(default)s)",
    )
    engine_option(p)
    seed_option(p)
    _length_options(p)
    _ppo_options(p)
    _experimental_options(p)
    _search_options(p)
    _learning_options(p)
    _network_options(p)
    _evaluation_options(p)
    backend_options(p)
    record_given(p)  # a resumed run refuses changed settings (run_folder.py)


def _length_options(p: argparse.ArgumentParser) -> None:
    """How long a run goes: rounds, a time limit, a CPU budget."""
    g = p.add_argument_group("length")
    g.add_argument(
        "--rounds",
        type=positive,
        default=default_of("rounds"),
        help="rounds in all, counting earlier sessions (%(default)s); a PPO round is "
        "--updates updates",
    )
    g.add_argument(
        "--time-limit",
        type=non_negative,
        default=default_of("time_limit"),
        metavar="SECONDS",
        help="stop after the round in which this many seconds have passed (0: no limit)",
    )
    g.add_argument(
        "--cpu-minutes",
        type=positive_float,
        default=None,
        metavar="M",
        help="a budget of CPU time (every process of the run, all sessions): no round "
        "starts that the last round's CPU time says would pass it (none by default)",
    )


def _ppo_options(p: argparse.ArgumentParser) -> None:
    """PPO's settings (--algorithm ppo): lanes, updates, the opponent pool, the loss."""
    g = p.add_argument_group("PPO (--algorithm ppo)")
    g.add_argument(
        "--checkpoint-every",
        type=positive,
        default=default_of("checkpoint_every"),
        metavar="ROUNDS",
        help="write the checkpoint, model, metrics and report every this many rounds, and "
        "after the last (%(default)s): a large --average reservoir takes seconds to write; "
        "what the "
        "run learns is the same, a kill loses the rounds since the last checkpoint",
    )
    g.add_argument(
        "--envs",
        type=positive_up_to(MAX_LANES, "games in lockstep"),
        default=default_of("envs"),
        help="games played in lockstep, all lanes (%(default)s)",
    )
    g.add_argument(
        "--updates",
        type=positive,
        default=default_of("updates"),
        help="PPO updates per round (%(default)s)",
    )
    g.add_argument(
        "--horizon",
        type=positive_up_to(MAX_STEPS_HELD, "steps"),
        default=default_of("horizon"),
        help="steps per game and update (%(default)s); a round's --horizon x --updates steps "
        "per game "
        "should exceed --max-decisions, or self-play games cut at the round's end are lost",
    )
    g.add_argument(
        "--epochs",
        type=positive,
        default=default_of("epochs"),
        help="passes over each update's steps (%(default)s)",
    )
    g.add_argument(
        "--clip", type=non_negative, default=default_of("clip"), help="PPO ratio clip (%(default)s)"
    )
    g.add_argument(
        "--entropy",
        type=non_negative,
        default=default_of("entropy"),
        help="entropy weight (%(default)s)",
    )
    g.add_argument(
        "--entropy-final",
        type=non_negative,
        default=default_of("entropy_final"),
        metavar="WEIGHT",
        help="the entropy weight reached at round --anneal-rounds, linearly from --entropy "
        "(none: constant); a weight that ends low nears an equilibrium without the early collapse "
        "to pure moves a low weight from the start brings (poker)",
    )
    g.add_argument(
        "--lr-final",
        type=positive_float,
        default=default_of("lr_final"),
        metavar="RATE",
        help="PPO's learning rate reached at round --anneal-rounds, linearly from --lr "
        "(none: constant)",
    )
    g.add_argument(
        "--anneal-rounds",
        type=whole,
        default=default_of("anneal_rounds"),
        metavar="N",
        help="the round at which --entropy-final and --lr-final are reached (0: the "
        "--rounds the run begins with; a resumed run given more rounds keeps its schedule)",
    )
    g.add_argument(
        "--lam", type=non_negative, default=default_of("lam"), help="GAE lambda (%(default)s)"
    )
    g.add_argument(
        "--opponents",
        default=default_of("opponents"),
        metavar="POOL",
        help="who the learner plays, SPEC@WEIGHT comma separated: self (the current policy "
        "in every seat), past (snapshots of earlier policies), average (the average policy "
        "of --average: the learner answers the average of its own play, fictitious "
        "self-play as NFSP's), barred (the current policy barred from a kingdom card drawn "
        "each game among those it deals: the learner is paid for what a card is worth to "
        "it, the comparison card-report makes), or any agent that plays "
        "inside the engine (random, bigmoney, bmu, smithy, a TOML bot); e.g. "
        "self@2,past@1,bmu@1 (%(default)s)",
    )
    g.add_argument(
        "--reward",
        choices=("outcome", "score", "margin"),
        default=default_of("reward"),
        help="what a game is worth to a seat: outcome (its share of the win), score "
        "(its score, e.g. chips, over --score-scale) or margin (its score less the best "
        "other seat's, over --score-scale: a dense signal for learning from nothing) "
        "(%(default)s)",
    )
    g.add_argument(
        "--score-scale",
        type=positive_float,
        default=default_of("score_scale"),
        help="--reward score or margin: the score (or lead) worth the most (%(default)s); "
        "larger ones "
        "count as it",
    )
    g.add_argument(
        "--snapshot-every",
        type=positive,
        default=default_of("snapshot_every"),
        help="updates between snapshots (%(default)s)",
    )
    g.add_argument(
        "--snapshots",
        type=positive_up_to(10_000, "snapshots"),
        default=default_of("snapshots"),
        help="snapshots kept (%(default)s)",
    )
    g.add_argument(
        "--actors",
        type=workers_count,
        default=default_of("actors"),
        metavar="K",
        help="self-play actors, each stepping its share of --envs while the learner "
        "learns (in worker processes with --backend process, the default; as Ray actors "
        "with --backend ray; in turn with --backend serial). The model depends on K, not "
        "on where the actors run (default: --workers; without it, one per core less one with "
        "--backend process, else 1)",
    )
    g.add_argument(
        "--forced-openings",
        type=share,
        default=default_of("forced_openings"),
        metavar="P",
        help="each learning seat's game, with chance P (0..1), opens with a kingdom card it "
        "did not choose: its first gain of one is drawn among those it may take then, and "
        "that move is not learnt from: meant to teach the network to play, and to value, "
        "decks it would not build (0: off; docs/neural.md says what it did so far)",
    )
    g.add_argument(
        "--name-dropout",
        type=chance,
        default=default_of("name_dropout"),
        metavar="P",
        help="each game reads each card kind without its name with chance P (0..1): the "
        "network learns a card by what it does (its components and effects), and so "
        "reads a card it has never met (0: off; 0.3 for models meant for new cards)",
    )


def _experimental_options(p: argparse.ArgumentParser) -> None:
    """PPO's remedies for games whose self-play circles (poker), tried on Leduc and used
    by no shipped model (models/leduc ran --average beside it, but ships the current
    policy; benchmarks/results/leduc-research-log.md).  They live in the experimental
    room, cardlang.learning.experimental."""
    g = p.add_argument_group(
        "PPO, experimental (cardlang.learning.experimental: off the supported path, and "
        "no shipped model depends on them; the Leduc research log in benchmarks/results/ "
        "says what each measured)"
    )
    g.add_argument(
        "--magnet",
        type=non_negative,
        default=default_of("magnet"),
        help="weight of the pull towards the magnet, KL(policy || magnet) (0: none); it "
        "settles self-play that circles, as in poker (R-NaD, magnetic mirror descent)",
    )
    g.add_argument(
        "--magnet-every",
        type=whole,
        default=default_of("magnet_every"),
        help="updates between the magnet becoming a copy of the policy (0: the magnet is "
        "the starting policy, kept)",
    )
    g.add_argument(
        "--magnet-reward",
        action="store_true",
        help="put the magnet's pull into the rewards, not the loss (R-NaD's reward "
        "transformation): a move's mover pays --magnet times log(policy / magnet) of it, "
        "and in a two-player game the opponent gains it, so the game itself is regularised",
    )
    g.add_argument(
        "--average",
        type=whole,
        default=default_of("average"),
        metavar="DECISIONS",
        help="also learn the average of the policies played (NFSP's average network), from "
        "a reservoir of this many decisions, saved as average.pt: in poker the average, "
        "not the current policy, nears the equilibrium (0: none)",
    )
    g.add_argument(
        "--average-recent",
        action="store_true",
        help="--average over a window of recent decisions (each new one replaces a random "
        "one once the reservoir is full), not over all decisions alike",
    )
    g.add_argument(
        "--average-linear",
        action="store_true",
        help="--average with each decision weighted by the number of the update that "
        "played it (CFR+'s linear averaging: the early policies fade from the average)",
    )
    g.add_argument(
        "--rollouts",
        type=whole,
        default=default_of("rollouts"),
        metavar="K",
        help="value every move of each learnt decision by K rollouts from the position as "
        "it lies (the game's rows forked, the cards to come kept), not by the one move "
        "played: in a game of hidden cards the value head cannot see the cards, the "
        "rollouts play on them (costs a game's rest per move; self and in-engine agent "
        "lanes, not past or average; 0: none)",
    )


def _search_options(p: argparse.ArgumentParser) -> None:
    """Self-play with search's settings (--algorithm search, experimental)."""
    g = p.add_argument_group(
        "self-play with search, experimental (--algorithm search; "
        "cardlang.learning.experimental.search)"
    )
    g.add_argument(
        "--games",
        type=positive,
        default=default_of("games"),
        help="self-play games per round (%(default)s)",
    )
    g.add_argument(
        "--iterations",
        type=whole,
        default=default_of("iterations"),
        help="search iterations per move (%(default)s; 0: raw policy)",
    )
    g.add_argument(
        "--determinizations",
        type=positive_up_to(1024, "worlds"),
        default=default_of("determinizations"),
        help="worlds evaluated per expansion (%(default)s)",
    )
    g.add_argument(
        "--temperature",
        type=non_negative,
        default=default_of("temperature"),
        help="move choice temperature (%(default)s)",
    )
    g.add_argument(
        "--noise",
        type=non_negative,
        default=default_of("noise"),
        help="weight of Dirichlet root noise (%(default)s)",
    )
    g.add_argument(
        "--alpha",
        type=non_negative,
        default=default_of("alpha"),
        help="Dirichlet alpha (%(default)s)",
    )
    g.add_argument(
        "--policy",
        choices=("visits", "gumbel"),
        default=default_of("policy"),
        help="how the search chooses and what it teaches: visits (AlphaZero: PUCT, visit "
        "shares) or gumbel (Gumbel MuZero: sequential halving over Gumbel-sampled moves, "
        "the improved policy; learns with few iterations) (%(default)s)",
    )
    g.add_argument(
        "--considered",
        type=positive_up_to(1024, "moves"),
        default=default_of("considered"),
        help="--policy gumbel: the moves its root considers, sampled (%(default)s)",
    )
    g.add_argument(
        "--max-decisions",
        type=positive,
        default=default_of("max_decisions"),
        help="cut a game off after this many decisions (%(default)s)",
    )
    g.add_argument(
        "--solo-best",
        type=positive,
        default=default_of("solo_best"),
        help="solo games: the length valued 1 (%(default)s)",
    )
    g.add_argument(
        "--solo-cap",
        type=positive,
        default=default_of("solo_cap"),
        help="solo games: the length valued -1 (%(default)s)",
    )


def _learning_options(p: argparse.ArgumentParser) -> None:
    """What both algorithms learn with: the optimiser, the batches, a start."""
    g = p.add_argument_group("learning")
    g.add_argument(
        "--steps",
        type=positive,
        default=default_of("steps"),
        help="search: gradient steps per round (%(default)s)",
    )
    g.add_argument(
        "--batch-size",
        type=positive_up_to(MAX_STEPS_HELD, "samples"),
        default=None,
        help="samples per gradient step (ppo 256, search 128)",
    )
    g.add_argument(
        "--buffer",
        type=positive_up_to(MAX_STEPS_HELD * 100, "samples"),
        default=default_of("buffer"),
        help="search: replay buffer, samples (%(default)s)",
    )
    g.add_argument(
        "--lr", type=non_negative, default=None, help="learning rate (ppo 0.0003, search 0.001)"
    )
    g.add_argument(
        "--value-weight",
        type=non_negative,
        default=None,
        help="weight of the value loss (ppo 0.5, search 1)",
    )
    g.add_argument(
        "--warm-start",
        metavar="DB",
        default=default_of("warm_start"),
        help="first imitate the games recorded in DB (e.g. a simulate --db of bots)",
    )
    g.add_argument(
        "--warm-steps",
        type=whole,
        default=default_of("warm_steps"),
        help="steps of imitation (%(default)s)",
    )
    g.add_argument(
        "--init",
        metavar="MODEL",
        help="start from a trained model of this game file (its weights, names and sizes)",
    )


def _network_options(p: argparse.ArgumentParser) -> None:
    """The network's shape and device."""
    g = p.add_argument_group("network")
    g.add_argument(
        "--body",
        choices=("transformer", "deepsets"),
        default=None,
        help="the network's body: Deep Sets (cheap on a CPU; ppo's default) or a "
        "transformer (search's default)",
    )
    g.add_argument(
        "--width", type=positive, default=default_of("width"), help="token width (%(default)s)"
    )
    g.add_argument(
        "--heads", type=positive, default=default_of("heads"), help="attention heads (%(default)s)"
    )
    g.add_argument(
        "--layers",
        type=positive,
        default=default_of("layers"),
        help="transformer layers (%(default)s)",
    )
    g.add_argument(
        "--feedforward",
        type=positive,
        default=default_of("feedforward"),
        help="feed-forward width (%(default)s)",
    )
    g.add_argument(
        "--hidden",
        type=positive,
        default=default_of("hidden"),
        help="heads' MLP width (%(default)s)",
    )
    g.add_argument(
        "--device",
        type=_device,
        default=default_of("device"),
        help="auto (a GPU when present), cpu, cuda, cuda:N or mps: one this machine has",
    )


def _evaluation_options(p: argparse.ArgumentParser) -> None:
    """Evaluation against named agents between rounds."""
    g = p.add_argument_group("evaluation")
    g.add_argument(
        "--evaluate-every",
        type=whole,
        default=default_of("evaluate_every"),
        help="rounds between evaluations (%(default)s; 0: never)",
    )
    g.add_argument(
        "--eval-games",
        type=positive,
        default=default_of("eval_games"),
        help="games per evaluation agent (%(default)s)",
    )
    g.add_argument("--eval-agents", default="random", help="comma separated agent specs (random)")
    g.add_argument(
        "--eval-iterations",
        type=whole,
        default=default_of("eval_iterations"),
        help="the model's search when evaluated (%(default)s)",
    )


#: Bounds of what training allocates up front: games stepped in lockstep, and steps or
#: samples held at once (a batch, a horizon; a replay buffer up to 100 times as many).
MAX_LANES = 65_536
MAX_STEPS_HELD = 1_000_000


def _device(text: str) -> str:
    """--device: ``auto``, or a device torch parses and this machine has (a name it
    cannot use is refused here, not trained past on the CPU)."""
    if text == "auto":
        return text
    try:
        from cardlang.agents.neural.network import checked_device
    except ImportError:  # no torch: cmd_train says how to install it
        return text
    try:
        checked_device(text)
    except UsageError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _check_network(args: argparse.Namespace, body: str) -> None:
    """The network options' values and the size of the network they make, checked before
    any set-up (torch would allocate a network of any size first)."""
    from cardlang.agents.neural.network import NetConfig, weight_shapes

    sizes = {name: getattr(args, name) for name in ("width", "heads", "layers", "feedforward")}
    try:
        weight_shapes(NetConfig(**sizes, hidden=args.hidden, body=body))
    except UsageError as err:
        raise UsageError(f"--width, --heads, --layers, --feedforward, --hidden: {err}") from None


#: Options whose setting has another name in TrainConfig.
OPTION_FIELDS = {
    "file": "game",
    "param": "params",
    "param_draw": "param_draws",
    "cpu_minutes": "cpu_limit",
}


def cmd_train(args: argparse.Namespace) -> int:
    try:
        import torch
    except ImportError:
        raise UsageError(
            'cardlang train needs torch: pip install -e ".[neural]" (torch==2.13.0)'
        ) from None
    from cardlang.agents import make_agent
    from cardlang.cli.options import backend_choice

    if args.width % args.heads:
        raise UsageError(f"--width {args.width} must be a multiple of --heads {args.heads}")
    _check_network(args, args.body or ALGORITHM_DEFAULTS[args.algorithm]["body"])
    backend, workers = backend_choice(args)
    if args.backend is None and args.workers is None:
        backend = "process"  # self-play is the slow part: use every core by default
    agents = [a.strip() for a in args.eval_agents.split(",") if a.strip()]
    for spec in agents:
        make_agent(spec, 0)  # a bad agent name fails before any training
    if args.warm_start and not Path(args.warm_start).is_file():
        raise UsageError(f"--warm-start: no records file {args.warm_start}")
    if args.init and not Path(args.init).exists():
        raise UsageError(f"--init: no model at {args.init}")
    ppo = args.algorithm == "ppo"
    if args.param_draw and not ppo:
        raise UsageError("--param-draw: only --algorithm ppo trains on drawn parameters")
    if args.rollouts and not ppo:
        raise UsageError("--rollouts: only --algorithm ppo values moves by rollouts")
    if args.always and not ppo:
        raise UsageError("--always: only --algorithm ppo trains on drawn kingdoms")
    if args.forced_openings and not ppo:
        raise UsageError("--forced-openings: only --algorithm ppo forces openings")
    config = train_config(args, agents, backend, workers)

    def report(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    given = {OPTION_FIELDS.get(d, d) for d in args.given or ()}  # the settings asked for

    if ppo:
        from cardlang.learning.lanes import parse_pool
        from cardlang.learning.ppo_run import PPORun

        parse_pool(args.opponents)  # a bad pool fails before any set-up
        torch.set_num_threads(1)  # one process per core pays best on a CPU
        PPORun.open(config, Path(args.out), report, given).run()
    else:
        from cardlang.learning.seam import search_run

        search_run().open(config, Path(args.out), report, given).run()
    print(f"model: {Path(args.out) / 'model.pt'}; report: {Path(args.out) / 'report.html'}")
    return EXIT_OK


def train_config(
    args: argparse.Namespace, agents: list[str], backend: str, workers: int | None
) -> TrainConfig:
    """The run's settings from its options: every setting named as its option is read
    from it; the rest are worked out here (what the run does not say, its algorithm's:
    learning/config.py ``ALGORITHM_DEFAULTS``)."""
    same = {f.name: getattr(args, f.name) for f in fields(TrainConfig) if hasattr(args, f.name)}
    return TrainConfig(
        **same
        | {
            "game": args.file,
            "params": parse_param_args(args.param),
            "param_draws": parse_param_draws(args.param_draw),
            "cpu_limit": (args.cpu_minutes or 0.0) * 60,
            "card_bonus_rounds": args.rounds if args.card_bonus else 0.0,
            "noise": min(args.noise, 1.0),
            **{
                name: value if getattr(args, name) is None else getattr(args, name)
                for name, value in ALGORITHM_DEFAULTS[args.algorithm].items()
            },
            "eval_agents": agents,
            "backend": backend,
            "workers": workers,
            "warm_steps": args.warm_steps if args.warm_start else 0,
            "anneal_rounds": args.anneal_rounds or args.rounds,
        }
    )
