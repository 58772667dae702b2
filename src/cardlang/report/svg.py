"""Bar charts with intervals, as inline SVG written by code: no plotting library needed.

The report's page (page.py) must work where only the core is installed (matplotlib is an
extra), and a page with its plots inside is one file to send.  ``bar_chart`` draws one
bar per ``Bar``, its 95% interval as a whisker, a dashed reference line (0.5: even
against the opponent), and each bar's label under it; a highlighted bar is the card the
report is about.  The neural sections' plots (buy-turn histogram, win share by copies)
are bar charts too.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["COST_COLOURS", "Bar", "bar_chart"]

#: A colour per cost, so that a chart of every card reads the costs at a glance.
COST_COLOURS = {
    2: "#8fb8de",
    3: "#9ccc9c",
    4: "#f2c66d",
    5: "#e89a7c",
    6: "#b79ad6",
}
OTHER_COLOUR = "#bbbbbb"
HIGHLIGHT = "#c0392b"

# the layout, in pixels
BAR_WIDTH, GAP, HEIGHT, LEFT, TOP, BOTTOM = 26, 8, 220, 70, 30, 100
TITLE_CHARACTER = 9.5  # the width of a title's character (bold, 16 px)
LEGEND_WIDTH = 44  # one swatch and its short label


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    low: float
    high: float
    colour: str = OTHER_COLOUR
    highlight: bool = False
    note: str = ""  # shown when the mouse is over the bar


def bar_chart(
    bars: Sequence[Bar],
    title: str,
    y_label: str,
    *,
    top: float = 1.0,
    reference: float | None = 0.5,
    legend: Sequence[tuple[str, str]] = (),
) -> str:
    """The chart as an ``<svg>`` element (see the module docstring); ``legend``: (label,
    colour) swatches after the title."""
    # wide enough for its bars, and for its title and legend
    title_end = LEFT - 40 + int(TITLE_CHARACTER * len(title)) + 16
    width = max(LEFT + len(bars) * (BAR_WIDTH + GAP) + GAP, title_end + LEGEND_WIDTH * len(legend))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{TOP + HEIGHT + BOTTOM}" role="img" aria-label="{html.escape(title)}">',
        f'<text x="{LEFT - 40}" y="18" font-weight="bold">{html.escape(title)}</text>',
        *_axis(width, y_label, top),
    ]
    parts.extend(_legend(legend, title_end))
    for i, bar in enumerate(bars):
        parts.extend(_bar(i, bar, top))
    if reference is not None:
        y = _y(reference, top)
        parts.append(
            f'<line x1="{LEFT}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#555" '
            'stroke-dasharray="4 3"/>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _y(value: float, top: float) -> float:
    """The pixel row of ``value`` on a scale from 0 to ``top``."""
    return TOP + HEIGHT * (1 - min(max(value, 0.0), top) / top)


def _ticks(top: float) -> list[float]:
    """Round values from 0 to ``top``, about five of them: steps of 1, 2, 2.5 or 5
    times a power of ten (0.02, not 0.019)."""
    if top <= 0:
        return [0.0]
    power = 10.0 ** math.floor(math.log10(top / 4))
    steps = [m * power for m in (1, 2, 2.5, 5, 10, 20)]
    step = min(steps, key=lambda st: (abs(int(top / st + 1e-9) - 4), -st))  # nearest 4 apart
    return [k * step for k in range(int(top / step + 1e-9) + 1)]


def _axis(width: int, y_label: str, top: float) -> list[str]:
    parts = []
    for value in _ticks(top):
        y = _y(value, top)
        parts.append(f'<line x1="{LEFT}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{value:.2g}</text>"
        )
    middle = TOP + HEIGHT / 2
    parts.append(
        f'<text x="{LEFT - 36}" y="{middle:.0f}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 {LEFT - 36} {middle:.0f})">{html.escape(y_label)}</text>'
    )
    return parts


def _legend(legend: Sequence[tuple[str, str]], x: int) -> list[str]:
    parts = []
    for k, (label, colour) in enumerate(legend):
        left = x + k * LEGEND_WIDTH
        parts.append(f'<rect x="{left}" y="8" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{left + 16}" y="18" font-size="12">{html.escape(label)}</text>')
    return parts


def _bar(i: int, bar: Bar, top: float) -> list[str]:
    x = LEFT + GAP + i * (BAR_WIDTH + GAP)
    y, base = _y(bar.value, top), _y(0.0, top)
    centre = x + BAR_WIDTH / 2
    low, high = _y(bar.low, top), _y(bar.high, top)
    colour = HIGHLIGHT if bar.highlight else bar.colour
    tip = html.escape(f"{bar.label}: {bar.value:.3f} ({bar.low:.3f}-{bar.high:.3f}) {bar.note}")
    weight = ' font-weight="bold"' if bar.highlight else ""
    label_y = base + 10
    return [
        f"<g><title>{tip}</title>",
        f'<rect x="{x}" y="{y:.1f}" width="{BAR_WIDTH}" height="{base - y:.1f}" fill="{colour}"/>',
        f'<line x1="{centre}" x2="{centre}" y1="{low:.1f}" y2="{high:.1f}" stroke="#222"/>',
        f'<line x1="{centre - 4}" x2="{centre + 4}" y1="{low:.1f}" y2="{low:.1f}" stroke="#222"/>',
        f'<line x1="{centre - 4}" x2="{centre + 4}" y1="{high:.1f}" y2="{high:.1f}" '
        'stroke="#222"/>',
        f'<text x="{centre}" y="{label_y:.0f}" font-size="11" text-anchor="end"{weight} '
        f'transform="rotate(-50 {centre} {label_y:.0f})">{html.escape(bar.label)}</text>',
        "</g>",
    ]
