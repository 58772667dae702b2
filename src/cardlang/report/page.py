"""The report as one HTML page (``--html DIR`` writes DIR/card-report.html), plots inside.

Per card: where it stands in words, its figures with their intervals, the tuned bot (in
words and as the bot file, to play it with ``cardlang simulate``), the search's best
plans, and the plots (svg.py): the card among the official cards of its cost, among
every official card (coloured by cost), its bot's win share by copies owned, and its
head-to-head matches.  The neural sections say they were not measured.  Then what the
run spent and where the peers come from.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import html
from pathlib import Path

from cardlang.report.neural import PLAY_ROWS, NeuralResult, Play
from cardlang.report.peers import Peer, Peers
from cardlang.report.plans import card_title
from cardlang.report.sections import NOT_MEASURED, CardReport, Figure, Report
from cardlang.report.svg import COST_COLOURS, OTHER_COLOUR, Bar, bar_chart

__all__ = ["PAGE_NAME", "write_page"]

PAGE_NAME = "card-report.html"

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; color: #222; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
.verdict { font-size: 1.2em; margin: .4em 0 1em; }
table { border-collapse: collapse; margin: .6em 0 1em; }
td, th { padding: .2em .8em; border-bottom: 1px solid #eee; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.note { background: #fff6d6; padding: .4em .8em; border-left: 4px solid #e0b000; }
.absent { color: #666; font-style: italic; }
.plots svg { margin: .5em 1.5em .5em 0; vertical-align: top; }
pre { background: #f6f6f6; padding: .6em; display: inline-block; }
footer { color: #666; font-size: .9em; margin-top: 3em; }
"""


def write_page(directory: Path, report: Report, peers: Peers) -> Path:
    """Write the page into ``directory`` (made if missing); its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / PAGE_NAME
    path.write_text(page(report, peers), encoding="utf-8")
    return path


def page(report: Report, peers: Peers) -> str:
    names = ", ".join(card_title(c.card) for c in report.cards)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>card-report: {html.escape(names)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Card report: {html.escape(names)}</h1>",
        f"<p>{html.escape(report.file)}: each card's strength measured by a bot made for it "
        "(Big Money that buys the card, tuned), against Big Money Ultimate and against the "
        "same bots made for the official cards.</p>",
    ]
    parts += [_card(card, peers) for card in report.cards]
    parts.append(_footer(report))
    parts.append("</body></html>")
    return "\n".join(parts)


def _card(card: CardReport, peers: Peers) -> str:
    money = card.money
    title = f"{card_title(card.card)} (${card.cost}, {', '.join(t.title() for t in card.types)})"
    verdict = money.placement.words() if money.placement else "not placed: never bought"
    parts = [
        f"<h2>{html.escape(title)}</h2>",
        f"<p class='verdict'>{html.escape(verdict)}</p>",
        *[f"<p class='note'>{html.escape(note)}</p>" for note in money.notes],
        "<h3>Card plus money</h3>",
        _figures(card),
        f"<p>The tuned bot: {html.escape(money.plan.words())}. As a bot file "
        "(<code>cardlang simulate FILE --agents this.toml,bmu</code>):</p>",
        f"<pre>{html.escape(money.plan.toml(), quote=False)}</pre>",
        "<div class='plots'>",
        _chart_cost_peers(card, peers),
        _chart_every_card(card, peers),
        _chart_by_copies(card),
        _chart_head_to_head(card),
        "</div>",
        "<p>Win share by copies owned is what the games show, not what a copy causes: the "
        "games in which the bot owned more copies differ in more than their copies.</p>",
        _plans_tried(card),
        "<h3>Win rate added (a neural agent with and without the card)</h3>",
        _neural(card),
    ]
    return "\n".join(parts)


def _neural(card: CardReport) -> str:
    """The neural section: its figures as met and adapted, and its two plots."""
    neural = card.win_rate_added
    if neural is None:
        return f"<p class='absent'>{html.escape(NOT_MEASURED)}.</p>"
    plays = neural.columns()
    rows = PLAY_ROWS
    names = [f"{n} ({neural.chosen_name})" if n == "headline" else n for n, _ in plays]
    head = "<tr><th>figure</th>" + "".join(f"<th>{n}</th>" for n in names) + "</tr>"
    body = "".join(
        f"<tr><td>{html.escape(label)}</td>"
        + "".join(f"<td>{_neural_cell(pick(play), digits)}</td>" for _, play in plays)
        + "</tr>"
        for label, pick, digits in rows
    )
    headline = neural.headline
    parts = [
        "<p>The general model plays itself on random kingdoms that hold the card, one seat "
        "barred from it (it may not buy, gain or play it), seats rotated: what the free seat "
        "wins beyond one half is what the card adds. <em>As met</em>: the model as shipped, "
        "which never learnt the card and reads it by its components and effects; "
        f"<em>adapted</em>: after {neural.updates} PPO updates on kingdoms that always hold "
        f"it ({neural.adapt_cpu_seconds:.0f} CPU-s); <em>headline</em>: the better of the "
        "two, played again on fresh games, so that the games that chose it do not report "
        "it (the better of two figures on their own games is biased up).</p>",
        f"<table>{head}{body}</table>",
        *_declined(neural),
        *[f"<p class='note'>{html.escape(note)}</p>" for note in neural.notes],
        "<div class='plots'>",
        _chart_first_buys(card.card, headline),
        _chart_neural_copies(headline),
        "</div>",
    ]
    return "\n".join(parts)


def _declined(neural: NeuralResult) -> list[str]:
    """Where both plays lose by buying the card there is no headline column: say why."""
    if not neural.declined:
        return []
    return [
        "<p><strong>headline: 0.000, declined</strong>: both models lose by buying it, and "
        "a player who leaves it alone loses nothing (the plots show the better play).</p>"
    ]


def _neural_cell(figure: Figure | None, digits: int) -> str:
    return "-" if figure is None else figure.text(digits)


#: At most this many bars in the first-buy chart: later turns are grouped.
FIRST_BUY_BARS = 16


def _chart_first_buys(card: str, play: Play) -> str:
    """The turn of the first buy, as the share of free seats that first bought it then
    (turns grouped two or more a bar where they are many, so that the chart fits)."""
    turns = play.first_buy_turns
    if not turns:
        return ""
    seats = play.bought.games
    first, last = min(turns), max(turns)
    size = -(-(last - first + 1) // FIRST_BUY_BARS)  # turns a bar
    bars = []
    for start in range(first, last + 1, size):
        end = min(start + size - 1, last)
        n = sum(turns.get(t, 0) for t in range(start, end + 1))
        label = f"turn {start}" if start == end else f"turns {start}-{end}"
        bars.append(Bar(label, n / seats, n / seats, n / seats, note=f"{n:,} of {seats:,} seats"))
    top = max(b.value for b in bars)
    title = f"When {card_title(card)} is first bought (game turn)"
    return bar_chart(bars, title, "share of seats", top=top * 1.1, reference=None)


def _chart_neural_copies(play: Play) -> str:
    last = max((n for n, _ in play.by_copies), default=0)
    bars = [
        Bar(
            f"{n}{'+' if n == last and n > 0 else ''} owned",
            f.value,
            f.low,
            f.high,
            note=f"{f.games:,} seats",
        )
        for n, f in play.by_copies
    ]
    if not bars:
        return ""
    return bar_chart(bars, "Win share by copies owned (neural, free seat)", "win share")


def _figures(card: CardReport) -> str:
    money = card.money
    rows = [
        (f"win share against {money.opponent}, seats rotated", money.share),
        ("copies owned at the end of a game", money.copies),
        ("share of games in which it owned a copy", money.bought),
    ]
    rows += [
        (f"win share against the {card_title(d.peer)} bot", d.share) for d in money.head_to_head
    ]
    body = "".join(
        f"<tr><td>{html.escape(label)}</td><td>{f.value:.3f}</td>"
        f"<td>{f.low:.3f} - {f.high:.3f}</td><td>{f.games:,}</td></tr>"
        for label, f in rows
    )
    head = "<tr><th>figure</th><th>value</th><th>95% interval</th><th>games</th></tr>"
    return f"<table>{head}{body}</table>"


def _peer_bar(peer: Peer) -> Bar:
    colour = COST_COLOURS.get(peer.cost, OTHER_COLOUR)
    note = f"at ${peer.cost}: {peer.plan.words()}"
    return Bar(card_title(peer.card), peer.share, peer.low, peer.high, colour, note=note)


def _own_bar(card: CardReport) -> Bar:
    share = card.money.share
    title = card_title(card.card)
    return Bar(title, share.value, share.low, share.high, highlight=True, note="(this card)")


def _chart_cost_peers(card: CardReport, peers: Peers) -> str:
    same = peers.at_cost(card.cost, leaving_out=card.card)
    if not same:
        return f"<p class='absent'>No official card costs ${card.cost}.</p>"
    bars = sorted([_own_bar(card), *map(_peer_bar, same)], key=lambda b: -b.value)
    return bar_chart(bars, f"Among the ${card.cost} cards", "win share against bmu")


def _chart_every_card(card: CardReport, peers: Peers) -> str:
    others = [_peer_bar(p) for p in peers.cards if p.card != card.card]
    bars = sorted([_own_bar(card), *others], key=lambda b: -b.value)
    legend = [(f"${cost}", colour) for cost, colour in COST_COLOURS.items()]
    return bar_chart(bars, "Among every official card", "win share against bmu", legend=legend)


def _chart_by_copies(card: CardReport) -> str:
    bars = [
        Bar(f"{n} owned", f.value, f.low, f.high, note=f"{f.games:,} games")
        for n, f in card.money.by_copies
    ]
    if not bars:
        return ""
    return bar_chart(bars, "Win share by copies owned at the end", "win share against bmu")


def _chart_head_to_head(card: CardReport) -> str:
    duels = card.money.head_to_head
    if not duels:
        return ""
    bars = [
        Bar(f"vs {card_title(d.peer)}", d.share.value, d.share.low, d.share.high) for d in duels
    ]
    title = f"{card_title(card.card)}'s bot against the ${card.cost} cards' bots"
    return bar_chart(bars, title, "win share")


def _plans_tried(card: CardReport) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(plan.words())}</td><td>{_cell(share)}</td><td>{share.games:,}</td></tr>"
        for plan, share in card.money.tried
    )
    return (
        "<h4>The search's best plans (screened and refined on other seeds)</h4>"
        "<table><tr><th>plan</th><th>win share</th><th>games</th></tr>"
        f"{rows}</table>"
    )


def _cell(f: Figure) -> str:
    return f.text()


def _footer(report: Report) -> str:
    about = report.peers
    return (
        f"<footer>{report.games:,} games in {report.cpu_seconds:.1f} CPU-seconds "
        f"({report.games_per_second:,.0f} games per second), budget {report.minutes:g} "
        f"CPU-minutes, seed {report.seed}; rules fingerprint {report.rules_fingerprint[:16]}. "
        f"Peers: {html.escape(str(about.get('game', '?')))} as of "
        f"{html.escape(str(about.get('date', '?')))}, rules "
        f"{html.escape(str(about.get('rules_fingerprint', '?'))[:16])}, "
        f"{about.get('games', 0):,} games ({html.escape(str(about.get('command', '')))}).</footer>"
    )
