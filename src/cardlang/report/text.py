"""The report in a terminal: one block per card, then what the run spent.

Each card's block says in words where the card stands (peers.py's ``Placement.words``),
then a table of its figures, each with its 95% interval and the games behind it, the
tuned bot in words, the head-to-head matches against the official cards of its cost,
the notes (a card never bought, an interval the budget left wide), and the neural
sections as not measured.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardlang.report.neural import PLAY_ROWS, NeuralResult
from cardlang.report.plans import card_title
from cardlang.report.sections import NOT_MEASURED, CardReport, Figure, Report

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = ["print_report"]


def print_report(console: Console, report: Report) -> None:
    for card in report.cards:
        _print_card(console, card)
    console.print(
        f"{report.file}: {report.games:,} games in {report.cpu_seconds:.1f} CPU-s "
        f"({report.games_per_second:,.0f} games/s), budget {report.minutes:g} CPU-minutes; "
        f"seed {report.seed}. Peers: {_peers_source(report)}."
    )


def _print_card(console: Console, card: CardReport) -> None:
    from rich.table import Table

    money = card.money
    title = f"{card_title(card.card)} (${card.cost}, {', '.join(t.title() for t in card.types)})"
    console.print(f"[bold]{title}[/bold]")
    placed = money.placement.words() if money.placement else "not placed: never bought"
    console.print(f"  {placed}")
    table = Table(title="card plus money", title_justify="left", show_edge=False)
    for column in ("figure", "value", "95% interval", "games"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    rows = [
        (f"win share against {money.opponent}, seats rotated", money.share, 3),
        ("copies owned at the end of a game", money.copies, 2),
        ("games in which it owned a copy", money.bought, 3),
    ]
    for label, figure, digits in rows:
        interval = f"{figure.low:.{digits}f}-{figure.high:.{digits}f}"
        table.add_row(label, f"{figure.value:.{digits}f}", interval, f"{figure.games:,}")
    for duel in money.head_to_head:
        label = f"win share against the {card_title(duel.peer)} bot"
        share = duel.share
        table.add_row(label, f"{share.value:.3f}", _interval(share), f"{share.games:,}")
    console.print(table)
    console.print(f"  bot: {money.plan.words()}")
    console.print(_plans_table(card))
    for note in money.notes:
        console.print(f"  [yellow]note:[/yellow] {note}")
    if card.win_rate_added is None:
        console.print(f"  win rate added (neural): {NOT_MEASURED}")
    else:
        _print_neural(console, card.win_rate_added)
    console.print(f"  {card.cpu_seconds:.1f} CPU-s for this card\n")


def _print_neural(console: Console, neural: NeuralResult) -> None:
    """The model as met and as adapted, side by side, each figure with its interval."""
    from rich.table import Table

    table = Table(
        title="win rate added: a neural model against itself barred from the card",
        title_justify="left",
        show_edge=False,
    )
    plays = neural.columns()
    table.add_column("figure (free seat)", justify="left")
    for name, _ in plays:
        table.add_column(name, justify="right")
    rows = PLAY_ROWS
    for label, pick, digits in rows:
        cells = []
        for _, play in plays:
            figure = pick(play)
            cells.append("-" if figure is None else _cell(figure, digits))
        table.add_row(label, *cells)
    console.print(table)
    games = ", ".join(f"{name} {play.added.games:,} games" for name, play in plays)
    console.print(
        f"  model {neural.model}; adapted by {neural.updates} PPO updates "
        f"({neural.adapt_cpu_seconds:.0f} CPU-s); {games} on {len(neural.kingdoms)} kingdoms"
    )
    if neural.declined:
        console.print(
            "  headline: 0.000, declined: both models lose by buying it, and leaving it "
            "alone adds nothing"
        )
    elif neural.fresh is not None:
        console.print(
            f"  headline: the better of the two ({neural.chosen_name}) played again on "
            "fresh games, so that the games that chose it do not report it"
        )
    for note in neural.notes:
        console.print(f"  [yellow]note:[/yellow] {note}")


def _cell(figure: Figure, digits: int) -> str:
    """A figure over its interval: three plays' columns and the labels fit 80 columns."""
    return f"{figure.value:.{digits}f}\n({figure.bounds(digits)})"


def _plans_table(card: CardReport) -> Table:
    from rich.table import Table

    table = Table(
        title="the search's best plans (screened, then refined on other seeds)",
        title_justify="left",
        show_edge=False,
    )
    for column in ("win share", "games", "plan"):
        table.add_column(column, justify="left" if column == "plan" else "right")
    for plan, share in card.money.tried:
        table.add_row(f"{share.value:.3f}", f"{share.games:,}", plan.words())
    return table


def _interval(figure: Figure) -> str:
    return f"{figure.low:.3f}-{figure.high:.3f}"


def _peers_source(report: Report) -> str:
    about = report.peers
    if not about:
        return "none shipped"
    return (
        f"{about.get('game', '?')} as of {about.get('date', '?')} "
        f"(rules {str(about.get('rules_fingerprint', '?'))[:12]}, seed {about.get('seed', '?')})"
    )
