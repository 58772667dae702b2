"""What ``cardlang heuristics`` shows: a table, JSON, plots and a self-contained HTML page.

Pipeline position: last.  Reads ``experiment.Results`` (one per variant of a game) and the
measures' definitions; computes nothing about games except the comparison of two
variants (``measures.compare``) and the series the plots draw.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardlang.analysis.measures import MEASURES, Difference, Estimate, compare

if TYPE_CHECKING:
    from rich.console import Console

    from cardlang.analysis.data import GameRecord
    from cardlang.analysis.experiment import Results


# ---------------------------------------------------------------- numbers


def fmt(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def fmt_interval(e: Estimate) -> str:
    if e.n == 0 or math.isnan(e.ci_low):
        return "-"
    return f"[{fmt(e.ci_low)}, {fmt(e.ci_high)}]"


def estimate_json(e: Estimate) -> dict[str, Any]:
    """An estimate as JSON: NaN (no data) becomes null, so the output stays valid JSON."""

    def clean(x: float) -> float | None:
        return None if math.isnan(x) else round(x, 6)

    return {
        "value": clean(e.value),
        "ci_low": clean(e.ci_low),
        "ci_high": clean(e.ci_high),
        "n": e.n,
    }


# ---------------------------------------------------------------- one variant


def to_json(results: Results) -> dict[str, Any]:
    """One object: every measure by name ({value, ci_low, ci_high, n}), then
    ``seat_win_rates`` per design and ``experiment`` (games per design)."""
    out: dict[str, Any] = {name: estimate_json(e) for name, e in results.measures.items()}
    out["seat_win_rates"] = {
        design: [estimate_json(e) for e in rates] for design, rates in results.seat_wins.items()
    }
    out["experiment"] = {
        "label": results.label,
        "games": {design: len(games) for design, games in results.games.items()},
        "played_now": results.played,
        "from_records": results.stored,
    }
    return out


def print_results(console: Console, results: Results) -> None:
    from rich.table import Table

    table = Table(title=f"game quality: {results.label}", title_justify="left")
    for column in ("measure", "value", "95% interval", "n", "design", "higher is"):
        table.add_column(column, justify="right" if column in ("value", "n") else "left")
    for name, e in results.measures.items():
        m = MEASURES[name]
        table.add_row(m.title, fmt(e.value), fmt_interval(e), str(e.n), m.design, m.higher_is)
    console.print(table)
    print_seat_wins(console, results)
    console.print(
        "n: the games (or decisions) a value rests on; '-': no data for it in this design. "
        "Formulas: docs/heuristics.md, and report.html with --plot."
    )
    for reason, titles in missing_reasons(results).items():
        console.print(f"'-' for {', '.join(titles)}: {reason}", highlight=False, markup=False)


def missing_reasons(results: Results) -> dict[str, list[str]]:
    """Why measures have no value, each reason with the measures it stops: what their
    games lack (the AI's estimates), else that the design's games hold no data for it."""
    out: dict[str, list[str]] = {}
    for name, e in results.measures.items():
        if e.n:
            continue
        m = MEASURES[name]
        played = len(results.games.get(m.design, ()))
        if not played:
            reason = f"no games of the '{m.design}' design were played"
        elif m.needs:
            reason = f"they need {m.needs}"
        else:
            reason = f"its {played} '{m.design}' games hold no case of it"
        out.setdefault(reason, []).append(m.title)
    return out


def print_seat_wins(console: Console, results: Results) -> None:
    from rich.table import Table

    table = Table(title="win share per seat (a shared win split)", title_justify="left")
    table.add_column("design")
    seats = max((len(r) for r in results.seat_wins.values()), default=0)
    for s in range(seats):
        table.add_column(f"P{s}", justify="right")
    for design, rates in results.seat_wins.items():
        table.add_row(design, *(f"{fmt(e.value)} {fmt_interval(e)}" for e in rates))
    console.print(table)


# ---------------------------------------------------------------- two variants


def differences(a: Results, b: Results, seed: int) -> dict[str, Difference]:
    """Per measure both variants' games measured: B - A with its interval."""
    out = {}
    for name, m in MEASURES.items():
        if m.design in a.games and m.design in b.games:
            out[name] = compare(m, a.games[m.design], b.games[m.design], seed=seed)
    return out


def comparison_json(a: Results, b: Results, diffs: dict[str, Difference]) -> dict[str, Any]:
    return {
        "a": to_json(a),
        "b": to_json(b),
        "difference": {
            name: {**estimate_json(_as_estimate(d)), "significant": d.significant}
            for name, d in diffs.items()
        },
    }


def _as_estimate(d: Difference) -> Estimate:
    """A difference B - A as an estimate (n: the smaller of the two samples)."""
    return Estimate(d.value, d.ci_low, d.ci_high, min(d.n_a, d.n_b))


def print_comparison(
    console: Console, a: Results, b: Results, diffs: dict[str, Difference]
) -> None:
    from rich.table import Table

    table = Table(title=f"A: {a.label}    B: {b.label}", title_justify="left")
    for column in ("measure", "A", "B", "B - A", "95% interval", "significant"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for name, d in diffs.items():
        ea, eb = a.measures[name], b.measures[name]
        table.add_row(
            MEASURES[name].title,
            fmt(ea.value),
            fmt(eb.value),
            fmt(d.value),
            fmt_interval(_as_estimate(d)),
            "yes" if d.significant else "",
        )
    console.print(table)
    console.print(
        "significant: the 95% interval of the difference excludes 0 (a bootstrap over "
        "games; with many measures, expect about 1 in 20 false alarms)"
    )


# ---------------------------------------------------------------- plots


def write_plots(directory: Path, variants: Sequence[Results]) -> list[Path]:
    """PNG plots and report.html in ``directory``; returns the files written."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        from cardlang.errors import UsageError

        raise UsageError("--plot needs matplotlib: pip install 'cardlang[plot]'") from None
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in (
        ("win_rates", _plot_win_rates),
        ("lead_history", _plot_lead_history),
        ("branching", _plot_branching),
        ("game_length", _plot_lengths),
    ):
        fig, ax = plt.subplots(figsize=(7, 4))
        draw(ax, variants)
        if name != "win_rates":  # decisions and game counts are whole numbers
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        fig.tight_layout()
        path = directory / f"{name}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    page = directory / "report.html"
    page.write_text(_html(variants, written), encoding="utf-8")
    return [*written, page]


def _plot_win_rates(ax: Any, variants: Sequence[Results]) -> None:
    bars = [(v.label, design, rates) for v in variants for design, rates in v.seat_wins.items()]
    width = 0.8 / max(len(bars), 1)
    for k, (label, design, rates) in enumerate(bars):
        xs = [s + k * width for s in range(len(rates))]
        values = [0.0 if math.isnan(e.value) else e.value for e in rates]
        errors = [
            [max(v - e.ci_low, 0) for v, e in zip(values, rates, strict=True)],
            [max(e.ci_high - v, 0) for v, e in zip(values, rates, strict=True)],
        ]
        name = design if len(variants) == 1 else f"{label}: {design}"
        ax.bar(xs, values, width, yerr=errors, capsize=3, label=name)
    if bars:
        n = len(bars[0][2])
        ax.axhline(1 / n, color="grey", linestyle=":", linewidth=1, label="even share")
        ax.set_xticks([s + width * (len(bars) - 1) / 2 for s in range(n)])
        ax.set_xticklabels([f"P{s}" for s in range(n)])
    ax.set_ylabel("win share")
    ax.set_title("Win share per seat (95% intervals)")
    ax.legend(fontsize="small")


def _plot_lead_history(ax: Any, variants: Sequence[Results]) -> None:
    """Estimated standings through one sample AI game (from the search agents' traces:
    at each decision, the mover's estimate of every seat's standing)."""
    games = [g for g in variants[0].games.get("ai", []) if _traced(g)][:1]
    for game in games:
        points = [(d.index, d.standings) for d in game.decisions if d.standings]
        for seat in range(game.nplayers):
            won = " (won)" if seat in game.winners else ""
            ax.plot(
                [i for i, _ in points],
                [s[seat] for _, s in points],
                color=f"C{seat}",
                linewidth=2 if won else 1,
                label=f"P{seat}{won}",
            )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("decision")
    ax.set_ylabel("estimated standing")
    where = f"AI game {games[0].index} of the batch" if games else "no traced AI game"
    ax.set_title(f"Lead history ({where})")
    if games:
        ax.legend(fontsize="small")


def _traced(game: GameRecord) -> bool:
    return any(d.standings for d in game.decisions)


def _plot_branching(ax: Any, variants: Sequence[Results]) -> None:
    for v in variants:
        for design, games in v.games.items():
            xs, ys = _mean_options_by_index(games)
            name = design if len(variants) == 1 else f"{v.label}: {design}"
            ax.plot(xs, ys, label=name)
    ax.set_xlabel("decision")
    ax.set_ylabel("mean number of options")
    ax.set_title("Branching factor over the game")
    ax.legend(fontsize="small")


def _mean_options_by_index(games: Sequence[GameRecord]) -> tuple[list[int], list[float]]:
    sums: dict[int, list[float]] = {}
    for game in games:
        for d in game.decisions:
            acc = sums.setdefault(d.index, [0.0, 0])
            acc[0] += d.options
            acc[1] += 1
    xs = sorted(i for i, (_, n) in sums.items() if n >= max(1, len(games) // 10))
    return xs, [sums[i][0] / sums[i][1] for i in xs]


def _plot_lengths(ax: Any, variants: Sequence[Results]) -> None:
    for v in variants:
        for design, games in v.games.items():
            lengths = [len(g.decisions) for g in games]
            name = design if len(variants) == 1 else f"{v.label}: {design}"
            if lengths:
                ax.hist(lengths, bins=min(30, max(5, len(set(lengths)))), alpha=0.5, label=name)
    ax.set_xlabel("decisions in the game")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    ax.legend(fontsize="small")


# ---------------------------------------------------------------- the page


def _html(variants: Sequence[Results], images: Sequence[Path]) -> str:
    """One page with everything inline (the PNGs as data URLs): it can be mailed."""
    title = " vs ".join(v.label for v in variants)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>cardlang heuristics: {html.escape(title)}</title>",
        # fits 1280 px and a phone: the formula under its measure, pictures scaled down
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 .5em}"
        "table{border-collapse:collapse;width:100%}"
        "td,th{padding:.2em .5em;border-bottom:1px solid #ddd;vertical-align:top}"
        "td.num{text-align:right;white-space:nowrap}td.ci{white-space:nowrap}"
        ".formula{font-size:.75em;color:#666}img{max-width:100%;height:auto}"
        "@media(max-width:600px){body{margin:1em auto}td,th{padding:.2em .25em}"
        ".design{display:none}}</style></head><body>",
        f"<h1>Game quality: {html.escape(title)}</h1>",
        _html_table(variants),
        *(
            f"<p>'-' for {html.escape(', '.join(titles))}: {html.escape(reason)}</p>"
            for reason, titles in missing_reasons(variants[0]).items()
        ),
    ]
    for path in images:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        parts.append(f"<p><img alt='{path.stem}' src='data:image/png;base64,{data}'></p>")
    parts.append("<p>Measures, formulas and how to read them: docs/heuristics.md in cardlang.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _html_table(variants: Sequence[Results]) -> str:
    head = "".join(f"<th>{html.escape(v.label)}</th><th>95% interval</th>" for v in variants)
    rows = [f"<table><tr><th>measure</th>{head}<th class='design'>design</th></tr>"]
    for name, m in MEASURES.items():
        cells = []
        for v in variants:
            e = v.measures.get(name)
            if e is None:
                cells.append("<td></td><td></td>")
            else:
                interval = fmt_interval(e)
                cells.append(f"<td class='num'>{fmt(e.value)}</td><td class='ci'>{interval}</td>")
        rows.append(
            f"<tr><td>{html.escape(m.title)}"
            f"<div class='formula'>{html.escape(m.formula)}</div></td>{''.join(cells)}"
            f"<td class='design'>{m.design}</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)
