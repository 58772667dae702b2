"""The presentation forms (docs/language.md, "Presentation"): checked like the rest of a
game, never part of what plays, and what the table shows.

- a typo in a form is an error at its place with a did-you-mean; a table score that
  reads what some player cannot see, or draws a random number, is refused;
- the forms change no rules fingerprint, no event log, no option and no result, even
  with the table score evaluated after every move;
- the table score of the shipped games is the game's own score where they must agree
  (Dominion's VP, Gardens included, at the end of a game), on both engines;
- the table shows display names, hides bookkeeping, sorts a hand, gives card texts and
  the scores.
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest
from cardlang.agents import make_agent
from cardlang.agents.loop import play_out

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.errors import GameFileError
from cardlang.interactive.table import seat_view, table_of
from cardlang.interactive.terminal import render_table
from cardlang.language.fingerprint import rules_fingerprint
from cardlang.runs.ending import Ending, ending_of

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
ENGINES = ["python", "native"] if native_available() else ["python"]
PRESENTED = ["dominion", "hearts", "kuhn_poker", "leduc_poker", "crazy_eights"]

SMALL = """(game
 (display vloc PILE "Pile")
 (display sto SCORE "Score")
 (bookkeeping sto TEMP)
 (hand-order SUIT RANK)
 (table-score "Points" ((current player) sto SCORE))
 (end-reason "Hands are empty" (== (size ((current player) iloc HAND)) 0))
 (score-part "Draws" ((current player) sto SCORE))
 (face-down vloc PILE)
 (setup
  (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (TWO, THREE, FOUR)) (SUIT (CLUBS, HEARTS)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (== (size ((current player) iloc HAND)) 0))
   (choice ((any ((current player) iloc HAND) 'C
                 (do ((move 'C (top (game vloc PILE)))
                      (set ((current player) sto TEMP) (random 3))
                      (inc ((current player) sto SCORE) ((current player) sto TEMP))))))))
 (scoring max ((current player) sto SCORE)))"""

#: The forms of SMALL, removed: the same rules.
BARE = re.sub(
    r"^ \((display|bookkeeping|hand-order|table-score|end-reason|score-part|face-down) [^\n]*\n",
    "",
    SMALL,
    flags=re.M,
)


def _errors(text: str) -> list[str]:
    with pytest.raises(GameFileError) as caught:
        load_game(text=text, name="t.rcy")
    return [f"{d.message} | {d.hint}" for d in caught.value.diagnostics if d.severity == "error"]


def test_the_forms_are_read() -> None:
    shows = load_game(text=SMALL).checked.presentation
    assert shows.displays == {("vloc", "PILE"): "Pile", ("sto", "SCORE"): "Score"}
    assert shows.bookkeeping == {("sto", "TEMP")}
    assert shows.hand_order == ("SUIT", "RANK")
    assert shows.value_orders["RANK"] == ("TWO", "THREE", "FOUR")
    assert shows.table_score_text == "Points"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            '(display vloc PILE "Pile")',
            '(display vloc PILLE "Pile")',
            "no vloc PILLE | did you mean 'PILE'",
        ),
        ('(display vloc PILE "Pile")', '(display iloc PILE "Pile")', "PILE is not an iloc"),
        ("(bookkeeping sto TEMP)", "(bookkeeping sto TMEP)", "no sto TMEP | did you mean 'TEMP'"),
        (
            "(hand-order SUIT RANK)",
            "(hand-order SUIT RANKK)",
            "'RANKK' to sort by | did you mean 'RANK'",
        ),
        (
            '(table-score "Points" ((current player) sto SCORE))',
            '(table-score "Points" (size (filter ((current player) iloc HAND) \'C (== 1 1))))',
            "only what every player sees",
        ),
        (
            '(table-score "Points" ((current player) sto SCORE))',
            '(table-score "Points" (random 3))',
            "cannot draw a random number",
        ),
        (
            '(table-score "Points" ((current player) sto SCORE))',
            '(table-score "Points" (top (game vloc PILE)))',
            "integer",
        ),
        (
            '(display vloc PILE "Pile")',
            '(display vloc PILE "Pile") (display vloc PILE "P")',
            "displayed twice",
        ),
        ("(hand-order SUIT RANK)", "(hand-order SUIT) (hand-order RANK)", "one (hand-order"),
        ("(face-down vloc PILE)", "(face-down vloc PIEL)", "no vloc PIEL | did you mean 'PILE'"),
        ("(face-down vloc PILE)", "(face-down vloc PILE) (bookkeeping vloc PILE)", "never shown"),
        (
            '(end-reason "Hands are empty" (== (size ((current player) iloc HAND)) 0))',
            '(end-reason "Hands are empty" (size ((current player) iloc HAND)))',
            "boolean",
        ),
        (
            '(end-reason "Hands are empty" (== (size ((current player) iloc HAND)) 0))',
            '(end-reason "A two is held" (any ((current player) iloc HAND) \'C (== 1 1)))',
            "an end reason may read only what every player sees",
        ),
        (
            '(score-part "Draws" ((current player) sto SCORE))',
            '(score-part "Draws" (random 2))',
            "a score part cannot draw a random number",
        ),
    ],
)
def test_a_typo_in_a_form_is_an_error_at_its_place(old: str, new: str, expected: str) -> None:
    assert old in SMALL
    errors = _errors(SMALL.replace(old, new))
    assert any(expected in e for e in errors), errors


def test_a_hidden_location_may_be_counted() -> None:
    """(size ...) of a hand is public: a table score may read it."""
    text = SMALL.replace(
        '(table-score "Points" ((current player) sto SCORE))',
        '(table-score "Cards" (size ((current player) iloc HAND)))',
    )
    assert load_game(text=text).checked.presentation.table_score_text == "Cards"


def test_card_text_placeholders_name_the_kind_attributes() -> None:
    text = """(game
 (card-kind GEM (VALUE 3) (text "Worth {VALUE}"))
 (card-kind ROCK (VALUE 1) (text "Worth {VALU}"))
 (setup (create players 1) (create cards (game vloc BAG) GEM 1) (create cards (game vloc BAG) ROCK 1))
 (do ((pass)))
 (scoring max 0))"""
    errors = _errors(text)
    assert errors == ["the card has no attribute VALU | did you mean 'VALUE'?"], errors
    game = load_game(text=text.replace("{VALU}", "{VALUE}"))
    assert game.checked.presentation.card_texts == {"GEM": "Worth {VALUE}", "ROCK": "Worth {VALUE}"}


@pytest.mark.parametrize("name", PRESENTED)
def test_the_forms_change_no_fingerprint(name: str) -> None:
    """The shipped games with their forms removed have the fingerprint they have with
    them (models trained before the forms were written stay bound to the games)."""
    text = (GAMES / f"{name}.rcy").read_text()
    heads = "display|bookkeeping|face-down|hand-order|table-score|end-reason|score-part"
    forms = re.compile(rf"^ \(({heads}|card-badge|card-colour)\b.*?(?=^ [(;]|\Z)", re.M | re.S)
    bare = forms.sub("", text)
    bare = re.sub(r'\n  \(text "[^"\n]*"\)', "", bare)
    assert bare != text and "(text " not in bare and "(display" not in bare
    assert rules_fingerprint(bare) == rules_fingerprint(text)
    load_game(text=bare, name=f"{name}.rcy")  # still a game


@pytest.mark.parametrize("engine", ENGINES)
def test_the_forms_change_nothing_that_plays(engine: str) -> None:
    """SMALL with and without its forms, the table score evaluated after every move of
    the first: the same logs, options and results."""
    games = (load_game(text=SMALL), load_game(text=BARE))
    for seed in range(6):
        runs = []
        for game in games:
            master = game.master(engine=engine)
            st = master.new_game(seed, record=True)
            rng = random.Random(seed)
            seen = []
            while not st.is_over:
                options = master.legal_options(st)
                seen.append([game.describe_option(st, o) for o in options])
                master.apply(st, rng.randrange(len(options)))
                if game.table_score is not None:
                    scores = master.table_scores(st)
                    assert scores == [st_score[0] for st_score in master.current_scores(st)]
            runs.append((list(st.log), seen, master.result(st)))
        assert runs[0] == runs[1]


@pytest.mark.parametrize("engine", ENGINES)
def test_dominion_vp_on_the_table_is_its_score(engine: str) -> None:
    """Dominion's table score (VP from the public counts, Gardens from the number of
    cards owned) is its scoring's VP at the end of random games on a Gardens kingdom."""
    game = load_game(GAMES / "dominion.rcy", params={"KINGDOM": "SIZE-DISTORTION"})
    master = game.master(engine=engine)
    for seed in range(3):
        st = master.new_game(seed)
        assert master.table_scores(st) == [3, 3]  # three Estates each
        rng = random.Random(seed)
        while not st.is_over:
            master.apply(st, rng.randrange(len(master.legal_options(st))))
        assert master.table_scores(st) == [s[0] for s in master.current_scores(st)]


def test_a_game_without_forms_shows_as_before() -> None:
    game = load_game(text=BARE)
    master = game.master(engine="python")
    st = master.new_game(1)
    assert master.table_scores(st) is None
    table = table_of(seat_view(st, 0, game), ())
    assert table.scores == () and table.score_text == ""
    assert {z.name for z in table.yours} == {"HAND"}


def test_the_table_shows_the_game_as_written() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master(engine="python")
    st = master.new_game(3)
    rng = random.Random(3)
    for _ in range(5):  # past the deal and into the passing
        master.apply(st, rng.randrange(len(master.legal_options(st))))
    seat = st.mover
    table = table_of(seat_view(st, seat, game), ())
    hand = next(z for z in table.yours if z.name == "Hand")
    suits = [c.rsplit(" of ", 1)[1] for c in hand.cards or ()]
    assert suits == sorted(suits, key=["Clubs", "Diamonds", "Hearts", "Spades"].index)
    assert all(z.name != "STOCK" for z in (*table.yours, *table.open, *table.hidden))
    assert table.score_text == "Points" and table.scores[0] == ("you", 0)
    assert len(table.scores) == 4


def test_dominion_table_names_piles_and_hides_counters() -> None:
    game = load_game(GAMES / "dominion.rcy")
    master = game.master(engine="python")
    st = master.new_game(2)
    table = table_of(seat_view(st, 0, game), ())
    text = render_table(table)
    # read down the columns: the Treasures, then the Victory cards, then the kingdom
    assert re.search(r"Supply:\n +Copper 46 +Estate 8 .*\n +Silver 40 +Duchy 8 ", text), text
    assert "SUPPLY" not in text and "PICKING" not in text and "MERCHANTS" not in text
    assert "\nyou: Actions 1, Buys 1, Coins 0, Turns 0; VP 3" in text or "; VP 3\n" in text
    assert "\nVP: P1 3" in text or "\nP1: Turns 0; VP 3" in text
    hand = next(z for z in table.yours if z.name == "Hand")
    names = [re.sub(r" x\d+$", "", c) for c in hand.cards or ()]
    assert names == sorted(names, key=["Copper", "Estate"].index)  # by cost
    texts = dict(table.card_texts)
    assert texts["Copper"] == "$1" and texts["Estate"] == "1 VP"


def test_check_reports_a_form_typo_with_a_caret(tmp_path: Path) -> None:
    path = tmp_path / "t.rcy"
    path.write_text(SMALL.replace("(bookkeeping sto TEMP)", "(bookkeeping sto TMEP)"))
    done = subprocess.run(
        ["python", "-m", "cardlang", "check", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 1
    assert "t.rcy:4:2: error: the game has no sto TMEP" in done.stderr
    assert "did you mean 'TEMP'?" in done.stderr and "^" in done.stderr


def test_what_a_click_on_the_table_stands_for() -> None:
    """Each option says what on the table stands for it: a Supply pile for a buy (the
    pile a web page's click buys from), a card of one's own for a card it binds."""
    from cardlang.information.views import view_of

    game = load_game(GAMES / "dominion.rcy")
    master = game.master(engine="python")
    st = master.new_game(5, record=True)
    options = master.legal_options(st)
    view = view_of(st, st.mover, game, options)
    table = table_of(view, view.option_labels)
    refs = {z.ref for z in table.open}
    assert view.situation == "BUY-PHASE"
    for label, target in zip(table.options, table.targets, strict=True):
        if label.startswith("Buy ") and "nothing" not in label:
            assert target is not None and target[0] == "zone" and target[1] in refs, label
        else:
            assert target is None, label
    hearts = load_game(GAMES / "hearts.rcy")
    m = hearts.master(engine="python")
    st = m.new_game(1, record=True)
    options = m.legal_options(st)
    view = view_of(st, st.mover, hearts, options)
    table = table_of(view, view.option_labels)
    hand = next(z for z in table.yours if z.name == "Hand")
    assert {t[1] for t in table.targets if t} <= set(hand.cards or ())


def test_card_badges_and_colours() -> None:
    """(card-badge "${COST}") and (card-colour TYPES ...): checked, and on the table."""
    game = load_game(GAMES / "dominion.rcy")
    shows = game.checked.presentation
    assert shows.card_badge == "${COST}"
    assert shows.card_colours is not None and shows.card_colours[0] == "TYPES"
    st = game.master(engine="python").new_game(1)
    table = table_of(seat_view(st, 0, game), ())
    looks = {name: (badge, colour) for name, badge, colour in table.card_looks}
    assert looks["Copper"] == ("$0", "#f2d675") and looks["Estate"] == ("$2", "#b5d99c")
    assert looks["Militia"][1] == "#f4b7a8"  # an Attack and an Action: the first pair
    bad = SMALL.replace(
        "(hand-order SUIT RANK)",
        '(hand-order SUIT RANK) (card-badge "{RANKK}") (card-colour SUIT (HEARTS "red; x:y"))',
    )
    errors = _errors(bad)
    assert any("no attribute RANKK" in e and "RANK" in e for e in errors), errors
    assert any("is not a colour" in e for e in errors), errors


@pytest.mark.parametrize("engine", ENGINES)
def test_a_table_score_that_fails_changes_nothing(engine: str) -> None:
    """A table score that fails (here a division by a score of 0) is a rule error at its
    place, and the game goes on as if it had never been asked."""
    from cardlang.errors import RuleError

    failing = load_game(
        text=SMALL.replace(
            '(table-score "Points" ((current player) sto SCORE))',
            '(table-score "Points" (// 10 ((current player) sto SCORE)))',
        )
    )
    for seed in range(4):
        logs, failed = [], 0
        for ask in (True, False):
            master = failing.master(engine=engine)
            st = master.new_game(seed, record=True)
            rng = random.Random(seed)
            while not st.is_over:
                if ask:  # at every decision: it fails where some seat's score is 0
                    try:
                        master.table_scores(st)
                    except RuleError:
                        failed += 1
                master.apply(st, rng.randrange(len(master.legal_options(st))))
            logs.append((list(st.log), master.result(st)))
        assert failed and logs[0] == logs[1]


def test_checking_the_forms_leaves_the_name_checks_as_they_were() -> None:
    """A location filled as one kind and read as another is still the checker's error
    when a (display ...) names it (the forms' check once added the read kinds to the
    written ones, hiding it)."""
    text = SMALL.replace(
        "(scoring max ((current player) sto SCORE))",
        "(scoring max (+ ((current player) sto SCORE) (size (game iloc PILE))))",
    )
    errors = _errors(text)
    assert any("never filled as an iloc" in e for e in errors), errors


def test_a_decision_is_asked_in_words() -> None:
    """A named situation is asked by the game's text (Hearts' passes count "1 of 3"); an
    unnamed choice with few options by their labels (Kuhn's "Check or Bet 1?"), never
    by its position."""
    from cardlang.information.views import view_of

    hearts = load_game(GAMES / "hearts.rcy")
    m = hearts.master(engine="python")
    st = m.new_game(1, record=True)
    view = view_of(st, st.mover, hearts, m.legal_options(st))
    assert table_of(view, view.option_labels).text == "Pass 3 cards to the left: 1 of 3"
    kuhn = load_game(GAMES / "kuhn_poker.rcy")
    m = kuhn.master(engine="python")
    st = m.new_game(1, record=True)
    view = view_of(st, st.mover, kuhn, m.legal_options(st))
    assert view.situation == "CHOICE"
    assert table_of(view, view.option_labels).text == "Check or Bet 1?"


def test_the_place_every_seat_plays_to_is_the_middle_of_the_table() -> None:
    """Hearts' trick (each seat's PLAYED) and Dominion's cards in play are the middle
    of the table: one zone per seat by its offset from the viewer, taken out of the
    other zone lists; a game without such a place (Kuhn) has no middle."""
    from cardlang.information.views import view_of

    hearts = load_game(GAMES / "hearts.rcy")
    m = hearts.master(engine="python")
    st = m.new_game(2, record=True)
    while st.pending is None or st.pending.situation != "PLAY" or st.mover != 1:
        m.apply(st, 0)
    view = view_of(st, 1, hearts, m.legal_options(st))
    table = table_of(view, view.option_labels)
    assert [offset for offset, _ in table.middle] == [0, 1, 2, 3]
    assert {zone.name for _, zone in table.middle} == {"Trick"}
    assert [zone.owner for _, zone in table.middle] == ["you", "P2", "P3", "P0"]
    assert all(zone.name != "Trick" for zone in (*table.yours, *table.open))
    dominion = load_game(GAMES / "dominion.rcy")
    st = dominion.master(engine="python").new_game(1, record=True)
    middle = table_of(seat_view(st, 0, dominion), ()).middle
    assert [(o, z.owner, z.name) for o, z in middle] == [
        (0, "you", "In play"),
        (1, "P1", "In play"),
    ]
    kuhn = load_game(GAMES / "kuhn_poker.rcy")
    st = kuhn.master(engine="python").new_game(1, record=True)
    assert table_of(seat_view(st, 0, kuhn), ()).middle == ()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", PRESENTED)
def test_the_end_is_told_in_the_game_s_words(engine: str, name: str) -> None:
    """Each shipped game says why it ended (an end reason holds at every completed end)
    and its score parts add up to the score (Dominion's VP, Hearts' points with a moon
    shot), the same on both engines."""
    game = load_game(GAMES / f"{name}.rcy")
    master = game.master(engine=engine)
    shows = game.checked.presentation
    for seed in range(4):
        st = master.new_game(seed)
        rng = random.Random(seed)
        while not st.is_over:
            master.apply(st, rng.randrange(len(master.legal_options(st))))
        result = master.result(st)
        ending = ending_of(master, st, game)
        python = game.master(engine="python")
        assert master.ending_values(st) == python.ending_values(_replayed(game, seed))
        if result.completed:
            assert ending.reason in {text for text, _ in shows.end_reasons}
        if shows.score_parts:
            totals = [sum(values[p] for _, values in ending.parts) for p in range(game.nplayers)]
            assert totals == list(result.scores)


def _replayed(game: object, seed: int) -> object:
    """The random game of ``seed`` again, on the Python engine."""
    master = game.master(engine="python")  # type: ignore[attr-defined]
    st = master.new_game(seed)
    rng = random.Random(seed)
    while not st.is_over:
        master.apply(st, rng.randrange(len(master.legal_options(st))))
    return st


def test_the_end_names_the_province_pile_and_breaks_down_the_vp() -> None:
    """A Big Money mirror ends on the Provinces: 8 of them, 48 VP between the players,
    the starting Estates beside them, and no line for Gardens (0 for everyone)."""
    game = load_game(GAMES / "dominion.rcy")
    master = game.master(engine="python")
    for seed in range(2):
        st = master.new_game(seed)
        play_out(master, st, [make_agent("bigmoney", 1), make_agent("bigmoney", 2)], ["b"] * 2)
        ending = ending_of(master, st, game)
        assert ending.reason == "The Province pile is empty"
        rows = dict(ending.parts)
        assert sum(rows["Provinces"]) == 6 * 8 and rows["Estates"] == (3, 3)
        assert "Gardens" not in rows and "Curses" not in rows


def test_taken_tricks_are_a_face_down_pile() -> None:
    """Hearts' taken tricks are open to the rules (a vloc) but drawn face down, with
    their size, and never named on the table."""
    game = load_game(GAMES / "hearts.rcy")
    master = game.master(engine="python")
    st = master.new_game(2)
    rng = random.Random(2)
    while not st.is_over and st.turns < 40:
        master.apply(st, rng.randrange(len(master.legal_options(st))))
    table = table_of(seat_view(st, 0, game), ())
    taken = [z for z in table.hidden if z.name == "Taken"]
    assert taken and all(z.cards is None and z.size > 0 for z in taken)
    assert not [z for z in (*table.yours, *table.open) if z.name == "Taken"]


def test_the_terminal_tells_the_end_with_the_breakdown() -> None:
    from cardlang.interactive.terminal import render_result

    class Result:
        completed, end_reason, winners, scores = True, "completed", (1,), (20, 26)

    ending = Ending("The Province pile is empty", (("Provinces", (18, 24)), ("Estates", (2, 2))))
    text = render_result(Result(), ending, 0)
    assert text.splitlines() == [
        "--- the game is over ---",
        "  The Province pile is empty.",
        "             P0 (you)  P1",
        "  Provinces        18  24",
        "  Estates           2   2",
        "  score            20  26",
        "  won by P1",
    ]


PARAMETERS = """(game
 (declare (A) 'PICK)
 (declare (A, B, C, D) 'ALL)
 (parameter-values 'PICK "one of A to D, or two of them" (choose (range 1 .. 2) 'ALL))
 (setup (create players 1))
 (do ((pass)))
 (scoring max 0))"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("(parameter-values 'PICK", "(parameter-values 'PIKC", "no parameter PIKC is declared"),
        ("(declare (A) 'PICK)", "(declare (E) 'PICK)", "the default of PICK does not fit"),
        ("(choose (range 1 .. 2) 'ALL)", "(choose 'ALL 'ALL)", "counts with a number"),
        ("(choose (range 1 .. 2) 'ALL)", "(choose 1 (size 'ALL))", "literal list of names"),
    ],
)
def test_parameter_values_are_checked_at_their_place(old: str, new: str, expected: str) -> None:
    assert old in PARAMETERS
    errors = _errors(PARAMETERS.replace(old, new))
    assert any(expected in e for e in errors), errors


def test_parameter_values_bound_the_command_line() -> None:
    from cardlang.errors import UsageError

    load_game(text=PARAMETERS, params={"PICK": "B,C"})
    with pytest.raises(UsageError, match="3 names .* do not fit: one of A to D"):
        load_game(text=PARAMETERS, params={"PICK": "A,B,C"})
    assert rules_fingerprint(PARAMETERS) == rules_fingerprint(
        PARAMETERS.replace("(choose (range 1 .. 2) 'ALL)", "(choose 1 'ALL)")
    )
