"""The report's budget: CPU-minutes split between its sections and its cards, as games.

``--minutes M`` is what the whole report may spend, in CPU-minutes.  Each section gets a
fixed share (``SECTION_SHARES``), split evenly between the cards named.  A section turns
its seconds into games by the engine's own count of the work a game takes
(``Gamestate.work``, measured on a few games first) and a nominal speed
(``WORK_PER_CPU_SECOND``), not by a clock: so the same file, cards, budget and seed give
the same games, and the same report, on any machine, and the report says what it
actually spent beside what it was given.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_MINUTES",
    "SECTION_SHARES",
    "WORK_PER_CPU_SECOND",
    "Budget",
    "games_in",
]

DEFAULT_MINUTES = 15.0

#: The engine's work units one CPU-second gets through in bot games: 3.1 to 3.5 x 10^7
#: on the project's machine for every base card's card-plus-money bot against bmu
#: (2026-12), taken a little lower so that a slower machine still keeps to the budget.
WORK_PER_CPU_SECOND = 3.0e7

#: Each section's share of the budget: the card-plus-money bot's search and games, and
#: "win_rate_added" (report/neural.py: a neural model adapted to the card, then playing
#: itself with and without it), which takes most of it because it trains.
SECTION_SHARES = {"card_plus_money": 0.12, "win_rate_added": 0.88}


@dataclass(frozen=True)
class Budget:
    """``minutes`` of CPU for a report on ``cards`` cards."""

    minutes: float
    cards: int

    def seconds(self, section: str) -> float:
        """A section's CPU-seconds, all cards together."""
        return self.minutes * 60.0 * SECTION_SHARES[section]

    def seconds_per_card(self, section: str) -> float:
        return self.seconds(section) / max(1, self.cards)

    def games(self, section: str, work_per_game: float) -> int:
        """The games one card's ``section`` may play, at ``work_per_game``."""
        return games_in(self.seconds_per_card(section), work_per_game)


def games_in(seconds: float, work_per_game: float) -> int:
    """The games ``seconds`` of CPU play at ``work_per_game`` (the nominal speed)."""
    return int(seconds * WORK_PER_CPU_SECOND / max(1.0, work_per_game))
