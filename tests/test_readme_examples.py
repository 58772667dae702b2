"""The README's examples, and those that moved from it to docs/, work as written.

The README is a front page; the examples it held live on the pages they belong to
(issue 52): the new cards and the bot file on docs/dominion.md, the Python examples in
the sections listed in ``MOVED_PYTHON`` (and in docs/encoding.md, which test_encode.py
runs).  The check example stays in the README.
"""

from __future__ import annotations

import re
import textwrap

from cardlang.agents import make_agent
from conftest import GAMES
from helpers import with_kingdom_cards

from cardlang import load_game
from cardlang.runs.simulate import run_batch

ROOT = GAMES.parent

#: The page that holds the Dominion examples: the new cards (Bazaar, Hexer) and the bot file.
DOMINION_PAGE = "docs/dominion.md"

#: The sections whose Python examples moved from the README: (page, its heading line).
#: Each holds at least one ```python block, and every block of each is run.
MOVED_PYTHON = [
    ("docs/records.md", "# Records and replays"),
    ("docs/commands.md", "## From Python"),
    ("docs/rl.md", "## In the RL ecosystem: PettingZoo, Gymnasium, OpenSpiel, vectorized batches"),
    ("docs/information.md", "## In short"),
]
# docs/encoding.md, "## Encoding for neural agents": run by test_encode.py


def _read(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def _blocks(text: str, language: str) -> list[str]:
    """The ```LANGUAGE blocks of ``text``, dedented (a block in a list item is indented)."""
    found = re.findall(rf"^([ \t]*)```{language}\n(.*?)^\1```", text, flags=re.S | re.M)
    return [textwrap.dedent(body) for _, body in found]


def _block(language: str) -> str:
    """The first ```LANGUAGE block of the Dominion page (the cards, the bot file)."""
    blocks = _blocks(_read(DOMINION_PAGE), language)
    assert blocks, f"{DOMINION_PAGE} has no {language} block"
    return blocks[0]


def _section(page: str, heading: str) -> str:
    """The section of ``page`` that starts at the line ``heading``, up to the next heading
    of the same or a higher level (code blocks skipped)."""
    text = _read(page)
    lines = text.split("\n")
    assert heading in lines, f"{page} has no section {heading!r}"
    start = lines.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    fenced = False
    for end in range(start + 1, len(lines)):
        if lines[end].lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", lines[end]):
            return "\n".join(lines[start:end])
    return "\n".join(lines[start:])


def _dominion_with_readme_cards():  # type: ignore[no-untyped-def]
    text = (GAMES / "dominion.rcy").read_text(encoding="utf-8")
    marker = " ;; ------------------------------------------------------------ procedures"
    assert marker in text
    text = text.replace(marker, _block("lisp") + "\n" + marker, 1)
    text = with_kingdom_cards(text, "BAZAAR", "HEXER")  # as the page says to
    kingdom = "BAZAAR,HEXER,MOAT,VILLAGE,SMITHY,MARKET,MILITIA,CELLAR,CHAPEL,WITCH"
    return load_game(text=text, name="dominion+readme.rcy", params={"KINGDOM": kingdom})


def test_the_readme_cards_check_and_play() -> None:
    game = _dominion_with_readme_cards()
    assert {"BAZAAR", "HEXER"} <= set(game.kind_attributes)
    summary = run_batch(game, games=60, seed=3, agent_specs=["random", "random"])
    assert summary.failed == 0 and summary.completed == 60


def test_the_readme_card_is_the_dominion_page_card() -> None:
    """The README's first new card is the one the Dominion page's example (played above)
    holds, word for word, so it is checked and played too."""
    cards = _blocks(_read("README.md"), "lisp")
    assert cards, "the README shows a first new card"
    page = _block("lisp")
    for card in cards:
        assert card.strip() in page, card


def test_the_readme_bot_file_plays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bot = tmp_path / "my-bot.toml"
    bot.write_text(_block("toml").split("\n", 1)[1], encoding="utf-8")
    assert make_agent(str(bot), 1).name == "council-room-money"
    kingdom = "COUNCIL-ROOM,VILLAGE,SMITHY,WITCH,MOAT,MARKET,MINE,CHAPEL,CELLAR,FESTIVAL"
    game = load_game(GAMES / "dominion.rcy", params={"KINGDOM": kingdom})
    summary = run_batch(game, games=40, seed=5, agent_specs=[str(bot), "bigmoney"])
    assert summary.failed == 0 and summary.completed == 40
    assert summary.wins_by_agent[str(bot)] > 0


def test_every_python_example_of_the_readme_runs(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every ```python block of the README and of the sections its examples moved to."""
    examples = [("README.md", block) for block in _blocks(_read("README.md"), "python")]
    for page, heading in MOVED_PYTHON:
        blocks = _blocks(_section(page, heading), "python")
        assert blocks, f"{page}, {heading!r}: its Python example is gone"
        examples += [(page, block) for block in blocks]
    assert len(examples) >= 4
    monkeypatch.chdir(ROOT)  # the examples name games/... from the repository root
    for page, block in examples:
        exec(compile(block, page, "exec"), {})


def test_the_readme_check_example_is_what_check_prints() -> None:
    """The README's `cardlang check examples/bad.rcy` block is the command's output."""
    from helpers import run_cli

    readme = (ROOT / "README.md").read_text()
    block = re.search(r"  \$ cardlang check examples/bad.rcy\n(.*?)\n  ```", readme, re.S)
    assert block, "the README shows the check example"
    shown = "\n".join(line[2:] for line in block.group(1).splitlines())
    done = run_cli("check", "examples/bad.rcy")
    assert done.returncode == 1
    assert done.stderr.strip() == shown.strip()
