"""Readable labels of options (``Game.option_text``, ``(label "TEXT" CONDACT)``) and the
story of a game (``cardlang transcript --story [--as SEAT]``, runs/story.py).

Labels are for people only: a written label must change no event log, option list or
result, under either engine.  The story is checked without goldens: its turn headers,
its sentences, the winner, and that a seat's story names no card that seat never saw.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from helpers import run_cli

from cardlang import load_game
from cardlang.engine.labels import card_title
from cardlang.engine.native import native_available
from cardlang.information.views import view_of
from cardlang.information.visibility import can_see
from cardlang.runs.story import said, tell_story

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
ENGINES = ["python", "native"] if native_available() else ["python"]
#: What code looks like in a label: a call, a quoted variable, a binding "'C=".
CODE = re.compile(r"\(call|\(move|\(set|'[A-Z][A-Z0-9-]*")


def _walk(game, engine: str, seeds: range, cap: int = 400):  # noqa: ANN001, ANN202
    """Every decision of seeded random games: (state, options)."""
    master = game.master(engine=engine)
    for seed in seeds:
        st = master.new_game(seed)
        rng = random.Random(seed)
        for _ in range(cap):
            if st.is_over:
                break
            options = master.legal_options(st)
            yield st, options
            master.apply(st, rng.randrange(len(options)))


@pytest.mark.parametrize("engine", ENGINES)
def test_every_dominion_option_has_a_written_label(engine: str) -> None:
    game = load_game(GAMES / "dominion.rcy", params={"KINGDOM": "RANDOM"})
    templates = game._option_text.templates
    situations: set[str] = set()
    for st, options in _walk(game, engine, range(12)):
        choice = st.pending
        situations.add(choice.situation)
        for option in options:
            first = next((a for fn, a in option if fn is not None), None)
            branch = choice.branches[choice.branch_of(first)]
            assert branch.start_pos in templates, (choice.situation, option)
            text = game.option_text(st, option)
            assert text and not CODE.search(text) and "?" not in text, text
    assert {"ACTION-PHASE", "BUY-PHASE"} <= situations and len(situations) > 8


def test_dominion_labels_read_as_written() -> None:
    game = load_game(GAMES / "dominion.rcy")
    texts: set[str] = set()
    for st, options in _walk(game, "python", range(3)):
        texts.update(game.option_text(st, o) for o in options)
    assert "Buy Province ($8)" in texts
    assert "Buy Silver ($3)" in texts
    assert "End the Action phase" in texts
    assert any(re.fullmatch(r"Play (Smithy|Village|Militia|Market|Moat|Cellar)", t) for t in texts)


@pytest.mark.parametrize("name", ["hearts", "kuhn_poker", "punish", "trains", "crazy_eights"])
def test_automatic_labels_read_well(name: str) -> None:
    game = load_game(GAMES / f"{name}.rcy")
    for engine in ENGINES:
        texts = set()
        for st, options in _walk(game, engine, range(3), cap=200):
            for option in options:
                text = game.option_text(st, option)
                assert text and not CODE.search(text), (name, text)
                texts.add(text)
        if name == "hearts":
            assert all(
                re.fullmatch(r"(Play|Pass) the (\d+|Jack|Queen|King|Ace) of \w+", t) for t in texts
            )
        if name == "kuhn_poker":  # its labels are written
            assert texts == {"Check", "Bet 1", "Call 1", "Fold"}


def test_automatic_labels_of_a_game_without_written_ones() -> None:
    text = _without_labels((GAMES / "kuhn_poker.rcy").read_text())
    game = load_game(text=text, name="kuhn_poker.rcy")
    texts = {
        game.option_text(st, o) for st, options in _walk(game, "python", range(3)) for o in options
    }
    assert "Set the state to Checked" in texts
    assert "Take 1 from your chips, add 1 to the pot, set the state to Bet" in texts


def _without_labels(text: str) -> str:
    """The game text with every ``(label "TEXT" CONDACT)`` replaced by its CONDACT."""
    while (start := text.find('(label "')) >= 0:
        end = text.index('"', start + len('(label "')) + 1
        depth, close = 1, end
        while depth:
            depth += {"(": 1, ")": -1}.get(text[close], 0)
            close += 1
        text = text[:start] + text[end : close - 1] + text[close:]
    return text


def test_labels_change_nothing_that_plays() -> None:
    """The same game with and without written labels: the same logs, options, results."""
    plain = """(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (== (size ((current player) iloc HAND)) 0))
   (choice ((any ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE))))
            ((> (size (game iloc STOCK)) 0) (pass)))))
 (scoring max (size ((current player) iloc HAND))))"""
    labelled = plain.replace(
        "((any ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE))))",
        '((label "Lay {C} ({C.RANK})" (any ((current player) iloc HAND) \'C '
        "(move 'C (top (game vloc PILE)))))",
    ).replace(
        "((> (size (game iloc STOCK)) 0) (pass))",
        '(label "Wait" ((> (size (game iloc STOCK)) 0) (pass)))',
    )
    assert labelled != plain
    a, b = load_game(text=plain), load_game(text=labelled)
    for engine in ENGINES:
        for seed in range(5):
            runs = []
            for game in (a, b):
                master = game.master(engine=engine)
                st = master.new_game(seed, record=True)
                rng = random.Random(seed)
                seen = []
                while not st.is_over:
                    options = master.legal_options(st)
                    seen.append([game.describe_option(st, o) for o in options])
                    master.apply(st, rng.randrange(len(options)))
                runs.append((list(st.log), seen, master.result(st)))
            assert runs[0] == runs[1]
    texts = {b.option_text(st, o) for st, options in _walk(b, "python", range(2)) for o in options}
    assert "Wait" in texts and any(
        re.fullmatch(r"Lay the [ABC] of [XY] \([ABC]\)", t) for t in texts
    )


def test_a_view_labels_what_its_seat_may_see() -> None:
    game = load_game(GAMES / "crazy_eights.rcy")
    master = game.master(engine="python")
    for st, options in _walk(game, "python", range(2), cap=60):
        mover = st.mover
        labels = view_of(st, mover, game, options).option_labels
        assert len(labels) == len(options)
        for text, option in zip(labels, options, strict=True):
            full = game.option_text(st, option)
            if full.startswith("Draw "):  # the top of the stock: no one sees it
                assert text.startswith("Draw a card"), text
            else:
                assert text == full
    assert master is not None


def test_third_person() -> None:
    assert said("P0", "Buy Province ($8)") == "P0 buys Province ($8)"
    assert said("P1", "Don't reveal Moat") == "P1 doesn't reveal Moat"
    assert said("P1", "Put Gold on your deck") == "P1 puts Gold on their deck"
    assert said("P0", "Province") == "P0 chooses: Province"


# ---------------------------------------------------------------- the story


def test_dominion_story() -> None:
    done = run_cli("transcript", "games/dominion.rcy", "--story", "--agents", "bigmoney,smithy")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Turn 1: P0" in out and "Turn 2: P1" in out
    assert re.search(r"P[01] buys (Silver|Gold|Province) \(\$\d\)", out)
    assert re.search(r"P1 plays Smithy", out)
    assert re.search(r"^winners?: P", out, re.M)
    assert not CODE.search(out)
    plain = run_cli("transcript", "games/dominion.rcy", "--agents", "bigmoney,smithy")
    assert "chooses" in plain.stdout and "Turn 1" not in plain.stdout  # the log as it was


def test_hearts_story() -> None:
    done = run_cli("transcript", "games/hearts.rcy", "--story", "--seed", "4")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Setup" in out and "the stock is dealt" in out
    assert re.search(
        r"P\d plays the (\d+|Jack|Queen|King|Ace) of (Clubs|Hearts|Spades|Diamonds)", out
    )
    assert re.search(r"P\d passes the ", out)
    assert re.search(r"^winners?: P", out, re.M)


def _unseen_by(st, seat: int, owner: int) -> set[int]:  # noqa: ANN001
    """Cards of ``owner``'s that ``seat`` never saw: every move of them was hidden from it."""
    seen: set[int] = set()
    owned: set[int] = set()
    for event in st.log:
        if event[0] != "move":
            continue
        _, card, src, dst, _ = event
        if owner in (src[0], dst[0]):
            owned.add(card)
        if can_see(seat, src) or can_see(seat, dst):
            seen.add(card)
    return owned - seen


def _play(game, seed: int):  # noqa: ANN001, ANN202
    master = game.master(engine="python")
    st = master.new_game(seed, record=True)
    rng = random.Random(seed)
    choices = []
    while not st.is_over:
        options = master.legal_options(st)
        choices.append(rng.randrange(len(options)))
        master.apply(st, choices[-1])
    return st, choices, master.result(st)


def test_a_seats_story_hides_the_others_cards() -> None:
    """In Kuhn poker the folded card is never shown: P1's story must not name P0's."""
    game = load_game(GAMES / "kuhn_poker.rcy")
    checked = 0
    for seed in range(40):
        st, choices, result = _play(game, seed)
        hidden = _unseen_by(st, 1, 0)
        if not hidden:
            continue
        story = tell_story(game, seed, choices, result, ["random", "random"], seat=1)
        full = tell_story(game, seed, choices, result, ["random", "random"])
        for card in hidden:
            name = card_title(st.cards[card])
            assert name not in story, (seed, name, story)
            assert name in full
        own = [card_title(st.cards[c]) for c in st.zones.get((1, "iloc", "HAND"), ())]
        assert all(n in story for n in own)
        checked += 1
    assert checked >= 3


def test_a_hearts_story_as_a_seat_names_only_its_own_hand_at_the_deal() -> None:
    game = load_game(GAMES / "hearts.rcy")
    st, choices, result = _play(game, 2)
    story = tell_story(game, 2, choices, result, ["random"] * 4, seat=1)
    deal = next(line for line in story.splitlines() if "is dealt" in line)
    dealt = [e for e in st.log if e[0] == "move" and e[2] == (-1, "iloc", "STOCK")][:52]
    for _, card, _, dst, _ in dealt:
        name = card_title(st.cards[card])
        assert (name in deal) == (dst[0] == 1), name
    assert "P0 gets 13 cards" in deal
    # P0's passes are hidden from P1 (they go from P0's hand to P0's passing)
    first = story.split("Turn 1: P0", 1)[1].split("Turn 2", 1)[0]
    assert first.count("P0 passes a card") == 3


def test_story_cli_checks_the_seat() -> None:
    done = run_cli("transcript", "games/kuhn_poker.rcy", "--as", "5")
    assert done.returncode != 0 and "--as 5" in done.stderr
    done = run_cli("transcript", "games/kuhn_poker.rcy", "--as", "1", "--seed", "3")
    assert done.returncode == 0 and "as seen by P1" in done.stdout


def test_the_rules_fingerprint_ignores_labels_comments_and_layout() -> None:
    """Models are bound to the rules' fingerprint: written labels keep them, a rule
    change does not."""
    from cardlang.language.fingerprint import rules_fingerprint

    text = (GAMES / "kuhn_poker.rcy").read_text()
    plain = _without_labels(text)
    relaid = ";; another comment\n" + plain.replace("\n", "\n  ").replace(" (", "  (")
    assert plain != text and rules_fingerprint(text) == rules_fingerprint(plain)
    assert rules_fingerprint(relaid) == rules_fingerprint(text)
    changed = text.replace("(inc (game sto POT) 1)", "(inc (game sto POT) 2)", 1)
    assert changed != text and rules_fingerprint(changed) != rules_fingerprint(text)
    relabelled = text.replace('(label "Fold"', '(label "Give up"')
    assert rules_fingerprint(relabelled) == rules_fingerprint(text)
    texts = text.replace('"Bet 1"', '"Bet one"')  # a string that is a label's, not a rule's
    assert rules_fingerprint(texts) == rules_fingerprint(text)


def test_stories_speak_the_games_words() -> None:
    """Issue 32, item 6: every verb of a label in the third person, a card gained from
    the Supply is 'gained', and places are called as the game file displays them."""
    from cardlang.agents import make_agent

    from cardlang.runs.runner import play_game

    assert said("P0", "Trash Estate and draw 2") == "P0 trashes Estate and draws 2"
    game = load_game(GAMES / "dominion.rcy", params={"KINGDOM": "SIZE-DISTORTION"})
    master = game.master(engine="python")
    agents = [make_agent("double-witch", 1), make_agent("bmu", 2)]
    choices: list[int] = []

    class Keep:
        def __init__(self, agent: object) -> None:
            self.agent = agent

        def choose(self, view: object, options: list) -> int:  # type: ignore[type-arg]
            pick = self.agent.choose(view, options)  # type: ignore[attr-defined]
            choices.append(pick)
            return pick  # type: ignore[no-any-return]

    result, _ = play_game(master, [Keep(a) for a in agents], 4)
    story = tell_story(game, 4, choices, result, ["double-witch", "bmu"])
    assert "P1 gains Curse" in story, story[:3000]
    assert "supply 6" not in story and "(to the discard)" not in story
    assert "P0's discard pile" in story and "P0's in play" in story
    assert "\nSupply: Copper 46, Silver 40, Gold 30" in story  # the kingdom, told first
    assert "Witch 10" in story.split("Setup")[0]


def test_a_trick_won_is_told_as_won_with_its_points() -> None:
    """Issue 32, item 6: the cards of a trick gathered from the players' played places
    are one line, "P1 wins the trick: ..."; at a table (interactive Teller) with what
    it was worth by the game's table score, "(2 points)"."""
    from cardlang.interactive.teller import Teller

    done = run_cli("transcript", "games/hearts.rcy", "--story", "--seed", "3")
    assert done.returncode == 0, done.stderr
    won = re.findall(r"^  (P\d) wins the trick: (.+)$", done.stdout, re.M)
    assert len(won) == 13 and all(len(cards.split(", ")) == 4 for _, cards in won)
    assert "takes the" not in done.stdout
    game = load_game(GAMES / "hearts.rcy")
    master = game.master(engine="python")
    st = master.new_game(3, record=True)
    rng = random.Random(3)
    teller = Teller(game, range(4))
    told: list[str] = []
    while not st.is_over:
        options = master.legal_options(st)
        pick = rng.randrange(len(options))
        teller.before(st, st.mover, "random", options[pick], "a move")
        master.apply(st, pick)
        told += [line for line in teller.after(st)[0].then if "wins the trick" in line]
    assert len(told) == 13
    worth = [re.match(r"P\d wins the trick \((\d+) points?\): ", line) for line in told]
    assert any(worth) and not all(worth)  # a trick without hearts is worth nothing
    points = sum(int(m.group(1)) for m in worth if m)
    assert points == 26  # 13 hearts and the Queen of Spades (no moon shot in this deal)
