"""cardlang play: a person's seat in a terminal, and the session under it.

Whole games are played through the terminal front end with scripted input; what a seat
is shown is checked against the game state at that moment (no card of another seat's
hand, ever); the game lands in the records and replays; answers by number, by words of a
label, advice, leaving.
"""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import make_agent
from conftest import GAMES
from helpers import run_cli

from cardlang import load_game
from cardlang.interactive import Abandoned, PersonSeat, Session, Table
from cardlang.interactive.session import PERSON, Seating
from cardlang.interactive.table import card_label
from cardlang.interactive.terminal import TerminalFront, match_answer
from cardlang.runs.replay import replay_game
from cardlang.runs.store import RunStore

KUHN = GAMES / "kuhn_poker.rcy"
HEARTS = GAMES / "hearts.rcy"


class Watching:
    """A front end that takes the first option and keeps every table it was shown,
    with the game state's other hands at that moment."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.seen: list[tuple[Table, set[str]]] = []

    def decide(self, table: Table, advise: Any) -> int:
        assert self.session is not None
        st = self.session.st
        others = {
            card_label(st.cards[c])
            for (owner, kind, name), cards in st.zones.items()
            if kind == "iloc" and owner not in (table.seat, -1)
            for c in cards
        }
        self.seen.append((table, others))
        return 0


def _seated(path: Path, seat: int, front: Any, seed: int = 0) -> tuple[Session, Seating]:
    game = load_game(path)
    session = Session(game.master(), seed, advisor="ismcts:iterations=10")
    specs = ["random"] * game.nplayers
    specs[seat] = PERSON
    agents = [
        PersonSeat(front, session) if p == seat else make_agent(s, seed=p)
        for p, s in enumerate(specs)
    ]
    return session, Seating(agents, specs)


@pytest.mark.parametrize("seat", [0, 2])
def test_a_seat_is_never_shown_another_seats_hand(seat: int) -> None:
    front = Watching()
    session, seating = _seated(HEARTS, seat, front, seed=5)
    front.session = session
    result = session.play(seating)
    assert result.completed and len(front.seen) >= 13  # 13 tricks, and the passing
    for table, others in front.seen:
        shown = repr(table)
        assert others and not any(f"'{name}'" in shown for name in others)
        assert [z.name for z in table.yours] and all(z.cards is not None for z in table.yours)
        assert all(z.cards is None for z in table.hidden)


def test_a_game_played_in_the_terminal_is_recorded_and_replays(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    answers = io.StringIO("1\n" * 20)
    out = io.StringIO()
    game = load_game(KUHN)
    session = Session(game.master(), 3)
    front = TerminalFront(answers, out)
    seating = Seating(
        [PersonSeat(front, session), make_agent("random", seed=1)], [PERSON, "random"]
    )
    result = session.play(seating)
    game_id = session.save(db, seating, game_path=KUHN, game_text=KUHN.read_text(), params={})
    text = out.getvalue()
    assert "you are P0 of 2" in text and "Hand: " in text and "P1 Hand 1" in text
    with RunStore.open(db, create=False) as store:
        stored, choices = store.game(game_id), store.choices(game_id)
    assert stored.seed == 3 and choices
    replayed, _ = replay_game(game, stored, choices)
    assert replayed.scores == result.scores
    # a second game from the same seed is a batch of its own
    session2 = Session(game.master(), 3)
    front2 = TerminalFront(io.StringIO("1\n" * 20), io.StringIO())
    seating2 = Seating(
        [PersonSeat(front2, session2), make_agent("random", seed=1)], [PERSON, "random"]
    )
    session2.play(seating2)
    assert (
        session2.save(db, seating2, game_path=KUHN, game_text=KUHN.read_text(), params={})
        != game_id
    )
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM batches").fetchone()[0] == 2


def test_answers_by_number_by_words_and_equal_labels() -> None:
    labels = ("Buy Copper ($0)", "Buy Silver ($3)", "Play Smithy", "Play Smithy", "End turn")
    assert match_answer("2", labels) == 1
    assert match_answer("silver", labels) == 1
    assert match_answer("play smithy", labels) == 2  # two copies: one choice
    assert match_answer("end", labels) == 4
    assert "options 1 to 5" in str(match_answer("9", labels))
    assert "2 options match 'buy'" in str(match_answer("buy", labels))
    assert "no option's label holds" in str(match_answer("gold", labels))


def test_advice_and_leaving_in_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    game = load_game(KUHN)
    session = Session(game.master(), 0, advisor="ismcts:iterations=30")
    out = io.StringIO()
    front = TerminalFront(io.StringIO("?\nh\nt\nq\n"), out)
    seating = Seating(
        [PersonSeat(front, session), make_agent("random", seed=1)], [PERSON, "random"]
    )
    with pytest.raises(Abandoned):
        session.play(seating)
    text = out.getvalue()
    assert "ismcts:iterations=30, its estimates (95% intervals)" in text
    assert re.search(r"wins about \d+% \(\d+-\d+%\)", text)  # how sure it is
    assert "visits" not in text
    assert "answer with an option's number" in text  # h
    assert text.count("--- round") == 2  # t showed the table again
    assert not db.exists()


def test_the_command_plays_records_and_refuses_bad_arguments(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    done = run_cli(
        "play", str(KUHN), "--seat", "1", "--db", str(db), "--seed", "4",
        stdin="1\n" * 10,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "you are P1" in done.stdout and "the game is over" in done.stdout
    assert "recorded as game 1" in done.stdout
    left = run_cli("play", str(KUHN), "--db", str(db), stdin="q\n")
    assert left.returncode == 130 and "nothing was recorded" in left.stdout
    for extra, message in [
        (["--seat", "5"], "seats 0 to 1"),
        (["--agents", "random,random"], "the other seats are 1"),
        (["--advisor", "nosuchagent"], "nosuchagent"),
    ]:
        bad = run_cli("play", str(KUHN), *extra, stdin="")
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


def test_by_default_the_game_goes_into_the_users_records_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32, item 10: not under the working folder, and the command says where."""
    monkeypatch.setenv("CARDLANG_HOME", str(tmp_path / "home"))
    done = run_cli("play", str(KUHN), "--seed", "4", stdin="1\n" * 10)
    assert done.returncode == 0, done.stderr
    db = tmp_path / "home" / "runs.sqlite"
    assert f"recorded as game 1 in {db}" in done.stdout
    assert db.is_file()
    skipped = run_cli("play", str(KUHN), "--no-record", stdin="1\n" * 10)
    assert skipped.returncode == 0 and "recorded" not in skipped.stdout


def test_each_game_is_a_fresh_deal_whose_seed_is_printed(tmp_path: Path) -> None:
    """Issue 32: play (and serve) dealt the same game every time (--seed 0).  Now each
    game draws its seed and says it; --seed gives that very deal again."""
    import re

    def deal(*extra: str) -> tuple[int, str]:
        done = run_cli("play", str(KUHN), "--no-record", *extra, stdin="t\nq\n")
        seed = re.search(r"seed (\d+)", done.stdout)
        assert seed, done.stdout
        hand = re.search(r"  Hand: (.*)", done.stdout)
        assert hand, done.stdout
        return int(seed.group(1)), hand.group(1)

    first, second = deal(), deal()
    assert first[0] != second[0]  # two draws from a billion
    assert deal("--seed", str(first[0])) == first


def test_the_terminal_tells_the_others_moves_without_their_hidden_cards() -> None:
    """A move that names a card the seat cannot see (a card passed face down) is told
    with that card as "a card"; moves played face up and tricks taken are told in full;
    no line names a card the seat has never seen (test_serve.unseen_names)."""
    from test_serve import unseen_names

    from cardlang.interactive.terminal import TerminalStory

    game = load_game(HEARTS)
    session = Session(game.master(), 2)
    told: list[tuple[str, set[str]]] = []
    saw: set[int] = set()

    def say(line: str) -> None:
        told.append((line, unseen_names(session.st, 0, saw)))

    story = TerminalStory(session, 0, say)
    session.narrate = story.narrate

    def catch_up() -> None:  # at each of its decisions the seat sees its hand
        unseen_names(session.st, 0, saw)
        story.catch_up()

    front = TerminalFront(io.StringIO("1\n" * 40), io.StringIO(), catch_up=catch_up)
    agents = [PersonSeat(front, session)] + [make_agent("random", seed=p) for p in (1, 2, 3)]
    session.play(Seating(agents, [PERSON, "random", "random", "random"]))
    story.catch_up()
    # the others' passes, a run of them as one line ("P1 · Random: Pass a card ×3")
    assert any(re.search(r" · Random: Pass a card( ×\d)?$", line) for line, _ in told)
    assert any("cannot see" not in line for line, _ in told)  # tricks are told in full
    assert sum(line.startswith("  ") and " wins the trick" in line for line, _ in told) == 13
    for line, hidden in told:
        assert not any(re.search(rf"\b{re.escape(n)}\b", line.lower()) for n in hidden), line


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_secret_pick_is_told_only_when_revealed(engine: str) -> None:
    """Punish: the other seat picks first, in secret; the person is told only that it
    moved, then, when both picks are revealed, what each picked, in order."""
    from cardlang.engine.native import native_available
    from cardlang.interactive.terminal import TerminalStory

    if engine == "native" and not native_available():
        pytest.skip("the native engine is not built")
    game = load_game(GAMES / "punish.rcy")
    session = Session(game.master(engine=engine), 3)
    told: list[str] = []
    story = TerminalStory(session, 1, told.append)
    session.narrate = story.narrate
    front = TerminalFront(io.StringIO("1\n" * 300), io.StringIO(), catch_up=story.catch_up)
    agents = [make_agent("random", seed=0), PersonSeat(front, session)]
    session.play(Seating(agents, ["random", PERSON]))
    story.catch_up()
    hidden = [i for i, line in enumerate(told) if "made a move you cannot see" in line]
    revealed = [i for i, line in enumerate(told) if "P0 reveals their pick: " in line]
    assert hidden and len(revealed) >= len(hidden)
    for i in hidden:  # the pick's label comes after it is revealed, never before
        assert any(j > i for j in revealed)
    assert all(re.search(r"reveals their pick: \w", told[j]) for j in revealed)


def _table(situation: str, options: tuple[str, ...], **extra: Any) -> Table:
    fields: dict[str, Any] = dict(
        seat=0, players=2, turn=4, situation=situation, text=situation, yours=(), open=(),
        hidden=(), storages=(), options=options,
    )  # fmt: skip
    fields.update(extra)
    return Table(**fields)


def test_several_answers_at_once_serve_the_decisions_that_repeat() -> None:
    """Cellar: "copper, copper, estate" answers three decisions of its kind, each said
    back; an answer given ahead is dropped when the kind of decision changes."""
    out = io.StringIO()
    front = TerminalFront(io.StringIO("copper, copper, estate, village\n2\n"), out)
    discard = ("Discard Copper", "Discard Estate", "Stop discarding")
    picks = [front.decide(_table("CELLAR-DISCARD", discard), list) for _ in range(3)]
    assert picks == [0, 0, 1]
    assert out.getvalue().count("you: Discard Copper") == 2
    assert "you: Discard Estate" in out.getvalue()
    # "village" was for a Cellar decision: at a buy it is dropped, said, and the seat asked
    assert front.decide(_table("BUY-PHASE", ("Buy Silver", "Buy Village")), list) == 1
    assert out.getvalue().count("> ") == 2
    assert "not used: 'village' (this is another decision)" in out.getvalue()


def test_answers_given_at_hearts_pass_serve_its_three_passes() -> None:
    """``PASS-1``..``PASS-3`` are one kind of decision: three cards typed at the first
    pass answer all three; an answer no option names is named and dropped, never lost
    silently, and the seat is asked again."""
    out = io.StringIO()
    front = TerminalFront(io.StringIO("king of clubs, jack of clubs, 9 of spades\n"), out)
    hand = ("Pass King of Clubs", "Pass Jack of Clubs", "Pass 9 of Spades", "Pass 2 of Hearts")
    picks = [front.decide(_table(f"PASS-{n}", hand), list) for n in (1, 2, 3)]
    assert picks == [0, 1, 2]
    assert out.getvalue().count("> ") == 1
    out = io.StringIO()
    front = TerminalFront(io.StringIO("king of clubs, queen of hearts\n3\n"), out)
    assert front.decide(_table("PASS-1", hand), list) == 0
    assert front.decide(_table("PASS-2", hand), list) == 2
    assert "not used: 'queen of hearts' ('queen of hearts' is not one of" in out.getvalue()


def test_a_card_text_on_request_and_a_table_that_fits_80_columns() -> None:
    """``? militia`` prints the card's text; a Dominion table at its first buy fits an
    80x24 terminal with its options."""
    game = load_game(GAMES / "dominion.rcy")
    session = Session(game.master(), 3)
    out = io.StringIO()
    front = TerminalFront(io.StringIO("? militia\n? moat\nq\n"), out)
    seating = Seating(
        [PersonSeat(front, session), make_agent("bigmoney", seed=1)], [PERSON, "bigmoney"]
    )
    with pytest.raises(Abandoned):
        session.play(seating)
    text = out.getvalue()
    assert "Militia: +$2. Each other player discards down to 3 cards in hand." in text
    assert "Moat: +2 Cards." in text
    screen = text.split("> ")[0].splitlines()
    assert max(len(line) for line in screen) <= 80, screen
    assert len(screen) + 1 <= 24, screen  # the table, the options and the prompt
    assert "Supply:" in text and "SUPPLY" not in text


def _table_at(path: Path, reached: Any, seed: int = 2) -> Table:
    """The table of the seat to move at the first decision where ``reached(st)``."""
    from cardlang.information.views import view_of
    from cardlang.interactive.table import table_of

    game = load_game(path)
    m = game.master(engine="python")
    st = m.new_game(seed, record=True)
    while not reached(st):
        m.apply(st, 0)
    view = view_of(st, st.mover, game, m.legal_options(st))
    return table_of(view, view.option_labels)


def _in_play(st: Any) -> bool:
    return any(
        cards for (owner, kind, name), cards in st.zones.items() if name == "PLAY" and owner >= 0
    )


def _mid_trick(st: Any) -> bool:
    return (
        st.pending is not None
        and st.pending.situation == "PLAY"
        and any(cards for (_, kind, name), cards in st.zones.items() if name == "PLAYED")
    )


@pytest.mark.parametrize(
    ("path", "reached"),
    [(HEARTS, _mid_trick), (GAMES / "dominion.rcy", _in_play)],
    ids=["trick", "in-play"],
)
def test_the_terminal_prints_every_zone_of_the_table(path: Path, reached: Any) -> None:
    """The terminal prints what the web page shows, from the same ``Table``: the middle
    (the trick with who played what, the cards in play), then every zone that holds a
    card, each card of the zones shown, within 80 columns."""
    from cardlang.interactive.terminal import render_table

    table = _table_at(path, reached)
    assert any(zone.cards for _, zone in table.middle)
    text = render_table(table)
    middle = text.splitlines()[1]
    for _, zone in table.middle:
        assert f"{zone.owner} " in middle
        for card in zone.cards or ():
            assert card in middle
    for zone in (*table.yours, *table.open, *table.hidden):
        assert zone.name in text or not zone.size, zone  # an empty zone says nothing
        for card in zone.cards or ():  # a Supply pile by its card and size
            assert re.sub(r" x[0-9]+$", "", card) in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_advice_says_when_it_is_a_close_call() -> None:
    """The best is marked only when its interval clears every other's; within the noise
    of another, both are "about as good"; an option barely tried is uncertain."""
    from cardlang.interactive.session import Advice
    from cardlang.interactive.terminal import render_advice

    close = Advice("ismcts", [0.736, 0.718, 0.2, 0.9], [1500, 1300, 400, 12])
    assert close.verdicts() == ["about as good", "about as good", "worse", "uncertain"]
    text = render_advice(("End the Action phase", "Play Smithy", "Play Moat", "Buy"), close)
    assert "a close call between 2 options" in text and "<- best" not in text
    assert re.search(r"1\. wins about 74% \(71-76%\) +End the Action phase  <- about as good", text)
    assert re.search(r"4\. wins about 90% \(73-100%\) +Buy  <- uncertain", text)
    clear = Advice("ismcts", [0.8, 0.5, None], [2000, 1000, None])  # type: ignore[list-item]
    assert clear.verdicts() == ["best", "worse", ""]
    assert clear.words(2) == "no estimate"
    assert Advice("policy", [0.3, 0.6]).verdicts() == ["worse", "best"]  # no visits: values


def test_both_front_ends_show_standard_cards_by_the_tables_faces() -> None:
    """A standard card's face (rank and suit symbol) is made in one place, the table:
    the page draws ``card_faces`` (seat.js keeps no rule of its own), the terminal writes
    the same faces into its text; every other name stays as it is."""
    from cardlang.interactive.table import card_face, with_faces
    from cardlang.interactive.terminal import render_table

    assert card_face("10 of Hearts") == "10\u2665" and card_face("King of Clubs") == "K\u2663"
    assert card_face("Province") is None and card_face("10 of Hearts x2") is None
    assert with_faces("Queen of Spades x2, Copper") == "Q\u2660 x2, Copper"
    hearts = _table_at(HEARTS, _mid_trick)
    faces = dict(hearts.card_faces)
    (hand,) = [zone for zone in hearts.yours if zone.cards]
    for entry in hand.cards or ():
        name = re.sub(r" x[0-9]+$", "", entry)
        assert faces[name] == card_face(name)
        assert name not in render_table(hearts, symbols=True).split("\n", 1)[1]
        assert faces[name] in render_table(hearts, symbols=True)
    dominion = _table_at(GAMES / "dominion.rcy", lambda st: st.turns >= 3)
    assert dominion.card_faces == ()


def test_the_tables_words_are_the_games() -> None:
    """Hearts' led suit is a suit symbol and its flag yes or no ((display-values ...));
    Dominion's Actions, Buys and Coins are shown for the player whose turn it is only
    ((during-turn ...)); an empty Supply pile is named by the card it held."""
    from cardlang.interactive.table import Zone
    from cardlang.interactive.terminal import PileMemory, render_piles, render_table

    hearts = _table_at(HEARTS, _mid_trick)
    assert dict(dict(hearts.storages)["game"])["Led"] in "\u2660\u2663\u2665\u2666"
    assert hearts.round_text.startswith("Trick ")  # (round-number sto TRICKS "Trick" 1)
    from cardlang.interactive.terminal import render_table as rendered

    assert rendered(hearts).startswith(f"--- {hearts.round_text}, you are P")
    dominion = _table_at(GAMES / "dominion.rcy", lambda st: st.turns >= 3)
    shown = dict(dominion.storages)
    assert {"Actions", "Buys", "Coins"} <= dict(shown["you"]).keys()  # the seat to move
    others = [owner for owner in shown if owner not in ("you", "game")]
    assert others and all("Coins" not in dict(shown[o]) for o in others)
    seen = PileMemory()
    full = Zone("game", "Supply", 8, ("Province x8",), 1, "-1:vloc:SUPPLY#1")
    gold = Zone("game", "Supply", 30, ("Gold x30",), 2, "-1:vloc:SUPPLY#2")
    render_piles([full, gold], seen)
    empty = Zone("game", "Supply", 0, (), 1, "-1:vloc:SUPPLY#1")
    assert render_piles([empty, gold], seen) == ["  Supply: Province 0, Gold 30"]
    # after the first table: the piles that changed
    assert render_piles([empty, gold], seen, compact=True) == [
        "  Supply: Province 0 (the rest as dealt; t shows all)"
    ]
    assert "Coins" in render_table(dominion)


def test_options_are_listed_in_the_hands_order() -> None:
    """Hearts' pass: 13 options in deal order, listed (and numbered) as the hand is
    sorted; the number typed picks the option listed under it."""
    from cardlang.interactive.table import option_order

    table = _table_at(
        HEARTS, lambda st: st.pending is not None and st.pending.situation == "PASS-1"
    )
    order = option_order(table)
    assert sorted(order) == list(range(len(table.options))) and order != sorted(order)
    hand = [c for z in table.yours if z.name == "Hand" for c in z.cards or ()]
    listed = [table.targets[i][1] for i in order]  # type: ignore[index]
    assert listed == hand
    front = TerminalFront(io.StringIO("1\n"), io.StringIO())
    assert front.decide(table, list) == order[0]


def test_a_dominion_screen_with_the_others_moves_fits_the_terminal() -> None:
    """From one prompt to the next (the others' turn told, the table, the options): 80
    columns, and about 24 lines: the Supply by the piles that changed after the first
    table, equal moves told once with their count, what a move set off in one paragraph,
    the options in as many columns as fit."""
    game = load_game(GAMES / "dominion.rcy")
    session = Session(game.master(), 3)
    out = io.StringIO()
    front = TerminalFront(io.StringIO("buy silver\n" * 10 + "q\n"), out)
    from cardlang.interactive.terminal import TerminalStory

    story = TerminalStory(session, 0, front.say)
    session.narrate = story.narrate
    front.catch_up = story.catch_up
    seating = Seating(
        [PersonSeat(front, session), make_agent("bigmoney", seed=1)], [PERSON, "bigmoney"]
    )
    with pytest.raises(Abandoned):
        session.play(seating)
    screens = [s.splitlines() for s in out.getvalue().split("> ")[1:-1]]
    assert len(screens) >= 8
    assert all(max(len(line) for line in screen) <= 80 for screen in screens)
    heights = sorted(len(screen) + 1 for screen in screens)  # with the prompt's line
    assert heights[len(heights) // 2] <= 25 and heights[-1] <= 27, heights
    assert "(the rest as dealt; t shows all)" in out.getvalue()
