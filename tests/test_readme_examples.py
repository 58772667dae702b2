"""The README's Dominion examples work as written: the new cards and the bot file."""

from __future__ import annotations

import re

from cardlang.agents import make_agent
from conftest import GAMES
from helpers import with_kingdom_cards

from cardlang import load_game
from cardlang.runs.simulate import run_batch

ROOT = GAMES.parent


def _block(language: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(rf"```{language}\n(.*?)```", readme, flags=re.S)
    assert blocks, f"the README has no {language} block"
    return blocks[0]


def _dominion_with_readme_cards():  # type: ignore[no-untyped-def]
    text = (GAMES / "dominion.rcy").read_text(encoding="utf-8")
    marker = " ;; ------------------------------------------------------------ procedures"
    assert marker in text
    text = text.replace(marker, _block("lisp") + "\n" + marker, 1)
    text = with_kingdom_cards(text, "BAZAAR", "HEXER")  # as the README says to
    kingdom = "BAZAAR,HEXER,MOAT,VILLAGE,SMITHY,MARKET,MILITIA,CELLAR,CHAPEL,WITCH"
    return load_game(text=text, name="dominion+readme.rcy", params={"KINGDOM": kingdom})


def test_the_readme_cards_check_and_play() -> None:
    game = _dominion_with_readme_cards()
    assert {"BAZAAR", "HEXER"} <= set(game.kind_attributes)
    summary = run_batch(game, games=60, seed=3, agent_specs=["random", "random"])
    assert summary.failed == 0 and summary.completed == 60


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
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(ROOT)  # the examples name games/... from the repository root
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


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
