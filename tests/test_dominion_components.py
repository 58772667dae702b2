"""games/dominion.rcy: every card kind's components agree with what the card does.

Each of the 33 card kinds carries the components the neural agent embeds a card from
(../shared/specs/neural.md, "Card embeddings from components"): COST, CARDS, ACTIONS,
BUYS, COINS, TRASH, VP and TYPES.  The rules read only COST, TYPES, a Treasure's COINS
and VP; the others describe the card's ``on PLAY`` body, so nothing but these tests keeps
them true.  The convention, written in the game file's header: CARDS, ACTIONS, BUYS and
COINS are the least a play gives (the unconditional part: a conditional or variable part
counts 0), TRASH is the most of its player's own cards a play can trash, VP is the least
the card adds to its owner's score.

How each is observed, with the harness of test_dominion.py (a real turn with the wanted
hand):
- an Action card is played in the Action phase (with Actions to spare and a second
  Action card, the *spare*, kept in hand, so that the phase goes on and the card's effect
  ends at the next ACTION-PHASE decision); its sub-decisions, and the other player's, are
  answered by a fixed policy per seed (first option, last option, or at random), never
  one that takes the spare out of the hand.  From the event log and the storages:
  CARDS = cards moved from the player's deck to its hand, ACTIONS = change of the
  ACTIONS storage + 1 (the play uses one), BUYS and COINS = change of those storages,
  TRASH = the player's own cards moved to the trash.  Throne Room and Vassal play another
  card: a play then gives at least (trashes at most) its own components plus those of
  the cards it played (twice for Throne Room);
- a Treasure (or any card that is not an Action) at the start of the Buy phase, where
  the game plays every Treasure in hand (once after a Merchant, once not);
- COST: the card is for sale with COST coins and not with one fewer, and buying it
  costs COST;
- VP: the change of its owner's score when one is added to decks of 5, 10 and 20 cards;
- TYPES: ACTION iff it can be played in the Action phase, TREASURE iff it is played at
  the start of the Buy phase, ATTACK iff playing it lets a Moat in the other player's
  hand react, REACTION iff its holder may reveal it to an Attack, VICTORY iff Bureaucrat
  makes its holder put it back.  CURSE is read by no rule (only by the bots).

A component that the table VARIABLE does not name must be observed exactly in every
play; one it names must never be undercut and must be met by some play.  The last test
changes one component in a copy of the game file and checks that the disagreement is
found.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import GAMES
from helpers import without_kingdom_check
from test_dominion import (
    ALL_KINGDOM,
    BASIC,
    TRASH,
    Table,
    deck,
    discard,
    dominion,
    hand,
    play,
    scenario,
)
from test_readme_examples import _block

from cardlang import load_game
from cardlang.engine.game import Game

KINDS = (*BASIC, *ALL_KINGDOM)
#: the components every kind carries, TYPES apart
NUMBERS = ("COST", "CARDS", "ACTIONS", "BUYS", "COINS", "TRASH", "VP")
#: the components a play gives at least
GIVES = ("CARDS", "ACTIONS", "BUYS", "COINS")
#: per kind, the components that vary from play to play (or with the deck, for VP)
VARIABLE: dict[str, frozenset[str]] = {
    "CELLAR": frozenset({"CARDS"}),  # draws as many as it discards
    "LIBRARY": frozenset({"CARDS"}),  # draws to 7 in hand
    "MONEYLENDER": frozenset({"COINS"}),  # +$3 only if it trashes a Copper
    "THRONE-ROOM": frozenset(GIVES),  # plays another card twice
    "VASSAL": frozenset(GIVES),  # +$2, and may play the card it discards
    "SILVER": frozenset({"COINS"}),  # +$1 per Merchant played before it
    "GARDENS": frozenset({"VP"}),  # 1 VP per 10 cards owned
}
#: cards that play another card, and how many times
PLAYS_ANOTHER = {"THRONE-ROOM": 2, "VASSAL": 1}
#: what hands and decks are made of in the plays (no card that plays another one: a play
#: holds at most one nested play)
POOL = (
    "COPPER",
    "COPPER",
    "COPPER",
    "SILVER",
    "GOLD",
    "ESTATE",
    "DUCHY",
    "CURSE",
    *(k for k in ALL_KINGDOM if k not in PLAYS_ANOTHER),
)
PLAYS = 36  # plays observed per Action kind (the policy cycles first, last, random)
ME, OTHER = 1, 0  # the player under test moves; the other player is attacked


@dataclass
class Play:
    """What one play of a card did."""

    seen: dict[str, int]
    nested: list[str] = field(default_factory=list)  # kinds of the cards it played
    moat_held: bool = False  # the other player held a Moat
    moat_asked: bool = False  # ... and was asked to reveal it


def attrs(game: Game, kind: str) -> dict[str, Any]:
    return dict(game.kind_attributes[kind])


def _bound(option: Sequence[Any]) -> set[Any]:
    """The values an option binds (card ids for a card)."""
    return {arg[1] for fn, arg in option if fn is None}


def _effects(t: Table, before: dict[str, int], card: int | None) -> Play:
    """What the moves logged since ``before`` was read did to player ME."""
    st = t.st
    moves = [e for e in st.log or () if e[0] == "move"]
    seen = {
        "CARDS": sum(1 for _, _, src, dst, _ in moves if src == deck(ME) and dst == hand(ME)),
        "TRASH": sum(1 for _, _, src, dst, _ in moves if dst == TRASH and src[0] == ME),
        "ACTIONS": t.count(ME, "ACTIONS") - before["ACTIONS"] + 1,
        "BUYS": t.count(ME, "BUYS") - before["BUYS"],
        "COINS": t.count(ME, "COINS") - before["COINS"],
    }
    nested = [st.cards[c]["KIND"] for _, c, _, dst, _ in moves if dst == play(ME) and c != card]
    return Play(seen, nested)


def play_once(game: Game, kind: str, seed: int) -> Play:
    """Play ``kind`` from ME's hand once (see the module docstring)."""
    rng = random.Random(seed)
    policy = ("first", "last", "random")[seed % 3]
    spare_kind = "VILLAGE" if kind != "VILLAGE" else "SMITHY"
    extras = [rng.choice(POOL) for _ in range(rng.randint(3, 7))]
    other = [rng.choice(("COPPER", "SILVER", "ESTATE", "DUCHY")) for _ in range(4)]
    moat = seed % 2 == 0
    t = scenario(
        game,
        ME,
        seed=seed,
        hands={ME: [kind, spare_kind, *extras], OTHER: (["MOAT"] if moat else []) + other},
        decks={ME: [rng.choice(POOL) for _ in range(rng.randint(10, 15))]},
        discards={ME: [rng.choice(POOL) for _ in range(rng.randint(0, 5))]},
    )
    if seed % 4 == 3:
        t.empty_pile("CURSE")  # one empty Supply pile: Poacher discards, Witch gives none
    st, master = t.st, t.master
    card, spare = st.zones[hand(ME)][:2]
    assert t.kinds(hand(ME))[:2] == [kind, spare_kind]
    t.set(ME, "ACTIONS", 3)
    assert t.situation == "ACTION-PHASE" and t.mover == ME
    options = master.legal_options(st)
    index = next(i for i, o in enumerate(options) if card in _bound(o))
    before = {name: t.count(ME, name) for name in ("ACTIONS", "BUYS", "COINS")}
    st.log = []  # from here on the moves are recorded
    master.apply(st, index)
    moat_asked = False
    for _ in range(500):
        assert st.status == "running", t.describe_failure()
        if t.situation == "ACTION-PHASE":
            break
        moat_asked |= t.situation == "MOAT-REVEAL"
        options = master.legal_options(st)
        allowed = list(range(len(options)))
        if st.mover == ME:  # never an option that takes the spare out of the hand
            keep = [i for i in allowed if _keeps(t, i, spare)]
            allowed = keep or allowed
        if policy == "first":
            choice = allowed[0]
        elif policy == "last":
            choice = allowed[-1]
        else:
            choice = rng.choice(allowed)
        master.apply(st, choice)
    else:
        raise AssertionError(f"{kind}: the play did not end")
    assert t.mover == ME and st.card_zone[spare] == hand(ME), f"{kind}: the spare was moved"
    result = _effects(t, before, card)
    result.moat_held, result.moat_asked = moat, moat_asked
    return result


def _keeps(t: Table, index: int, spare: int) -> bool:
    trial = t.st.clone()
    t.master.apply(trial, index)
    return trial.card_zone[spare] == hand(ME)


def start_of_buy_phase(game: Game, kind: str, merchant: bool) -> tuple[bool, bool, Play]:
    """ME's turn with ``kind`` in hand (after playing a Merchant if asked), the Action
    phase ended: whether it could be played as an Action, whether the Buy phase played
    it, and what the start of the Buy phase did."""
    held = [kind, "MOAT", "ESTATE"] + (["MERCHANT"] if merchant else [])
    t = scenario(game, ME, hands={ME: held}, decks={ME: ["ESTATE"] * 5})
    assert t.situation == "ACTION-PHASE"
    offered = kind in t.option_kinds(0)
    if merchant:
        t.choose("MERCHANT", 0, situation="ACTION-PHASE")  # +1 Card +1 Action, $0
        assert t.situation == "ACTION-PHASE", "the Moat keeps the Action phase going"
    card = t.st.zones[hand(ME)][0]
    before = {name: t.count(ME, name) for name in ("ACTIONS", "BUYS", "COINS")}
    end = next(i for i, o in enumerate(t.views()) if o.kind is None)  # end the phase
    t.st.log = []  # (views read the log as a record of the whole game: none after this)
    t.master.apply(t.st, end)  # sets ACTIONS to 0, then the Buy phase begins
    assert t.situation == "BUY-PHASE"
    played = t.st.card_zone[card] == play(ME)
    effects = _effects(t, {**before, "ACTIONS": 0}, card)
    effects.seen["ACTIONS"] -= 1  # no Action was used: the phase just ended
    return offered, played, effects


def attacked_holder(game: Game, kind: str) -> tuple[bool, bool]:
    """The other player holds ``kind`` when ME plays Bureaucrat: whether it may be
    revealed to the Attack, and whether Bureaucrat lets it be put back onto the deck."""
    t = scenario(game, ME, hands={ME: ["BUREAUCRAT", "ESTATE"], OTHER: [kind, "COPPER", "COPPER"]})
    t.choose("BUREAUCRAT", 0, situation="ACTION-PHASE")
    revealed = t.situation == "MOAT-REVEAL"
    if revealed:
        t.choose(branch=1, mover=OTHER)  # not revealed: the Attack goes on
    topdecked = t.situation == "BUREAUCRAT-TOPDECK" and kind in t.option_kinds(0)
    return revealed, topdecked


def price_errors(game: Game, kind: str) -> list[str]:
    cost = attrs(game, kind)["COST"]
    t = scenario(game, ME, hands={ME: ["ESTATE", "ESTATE"]})
    assert t.situation == "BUY-PHASE"
    t.set(ME, "BUYS", 2)
    errors = []
    if cost > 0:
        t.set(ME, "COINS", cost - 1)
        if kind in t.option_kinds(0):
            errors.append(f"{kind}: for sale with ${cost - 1}, COST {cost}")
    t.set(ME, "COINS", cost)
    if kind not in t.option_kinds(0):
        errors.append(f"{kind}: not for sale with ${cost}, COST {cost}")
    else:
        t.choose(kind, 0, situation="BUY-PHASE")
        if t.count(ME, "COINS") != 0:
            errors.append(f"{kind}: buying it with ${cost} leaves ${t.count(ME, 'COINS')}")
    return errors


def score_added(game: Game, kind: str, owned: int) -> int:
    """How much one more ``kind`` adds to the score of a player owning ``owned`` Coppers."""
    t = Table(game)
    t.arrange(ME, hand=[], deck=["COPPER"] * owned, discard=[], play=[])
    before = t.master.current_scores(t.st)[ME][0]
    t.put([kind], discard(ME))
    return t.master.current_scores(t.st)[ME][0] - before


def _compare(kind: str, name: str, value: int, plays: list[Play], game: Game) -> list[str]:
    """The component ``name`` = ``value`` against the plays observed."""
    errors = []
    least = name != "TRASH"

    def bound(p: Play) -> int:
        n = PLAYS_ANOTHER.get(kind, 0)
        return value + n * sum(attrs(game, k)[name] for k in p.nested)

    for p in plays:
        got = p.seen[name]
        if least and got < bound(p) or not least and got > bound(p):
            what = "less" if least else "more"
            errors.append(f"{kind}: a play gave {name} {got}, {what} than {bound(p)}")
    alone = [p.seen[name] for p in plays if not p.nested]
    if not alone:
        return [*errors, f"{kind}: no play without a nested one"]
    if name in VARIABLE.get(kind, ()) or name == "TRASH":
        extreme = min(alone) if least else max(alone)
        if extreme != value:
            word = "least" if least else "most"
            errors.append(f"{kind}: {name} {value}, but the {word} a play gave is {extreme}")
    elif set(alone) != {value}:
        errors.append(f"{kind}: {name} {value}, but plays gave {sorted(set(alone))}")
    return errors


def disagreements(game: Game, kind: str, plays: int = PLAYS) -> list[str]:
    """Every way ``kind``'s components disagree with what the card does (none: [])."""
    a = attrs(game, kind)
    types = set(a["TYPES"])
    errors = price_errors(game, kind)
    # VP
    added = [score_added(game, kind, n) for n in (4, 9, 19)]
    if "VP" in VARIABLE.get(kind, ()):
        if min(added) != a["VP"] or any(v < a["VP"] for v in added):
            errors.append(f"{kind}: VP {a['VP']}, but it adds {added} to scores")
    elif set(added) != {a["VP"]}:
        errors.append(f"{kind}: VP {a['VP']}, but it adds {added} to scores")
    # the types rules read when it is held
    revealed, topdecked = attacked_holder(game, kind)
    if revealed != ("REACTION" in types):
        errors.append(f"{kind}: TYPES {sorted(types)}, revealed to an Attack: {revealed}")
    if topdecked != ("VICTORY" in types):
        errors.append(f"{kind}: TYPES {sorted(types)}, put back by Bureaucrat: {topdecked}")
    # what playing it does
    offered, played, effects = start_of_buy_phase(game, kind, merchant=False)
    if offered != ("ACTION" in types):
        errors.append(f"{kind}: TYPES {sorted(types)}, playable as an Action: {offered}")
    if played != ("TREASURE" in types):
        errors.append(f"{kind}: TYPES {sorted(types)}, played in the Buy phase: {played}")
    if offered:
        observed = [play_once(game, kind, seed) for seed in range(plays)]
        asked = {p.moat_asked for p in observed if p.moat_held and not p.nested}
        if asked != {"ATTACK" in types}:
            errors.append(f"{kind}: TYPES {sorted(types)}, a Moat may react: {sorted(asked)}")
    else:  # not an Action: this is all it does when held, Merchant or not
        observed = [effects, start_of_buy_phase(game, kind, merchant=True)[2]]
        if "ATTACK" in types:
            errors.append(f"{kind}: an ATTACK that cannot be played")
    for name in (*GIVES, "TRASH"):
        errors += _compare(kind, name, a[name], observed, game)
    return errors


# ---------------------------------------------------------------- the tests


def test_every_kind_has_every_component() -> None:
    kinds = dominion().kind_attributes
    assert set(kinds) == set(KINDS)
    for kind, a in kinds.items():
        assert {n: type(a.get(n)) for n in NUMBERS} == dict.fromkeys(NUMBERS, int), kind
        assert isinstance(a["TYPES"], tuple) and a["TYPES"], kind


@pytest.mark.parametrize("kind", KINDS)
def test_the_components_agree_with_the_card(kind: str) -> None:
    assert disagreements(dominion(), kind) == []


def test_the_play_components_of_a_few_cards() -> None:
    """The figures of the card texts, read the plain way: hand size, storages."""
    game = dominion()
    for kind, cards, actions, buys, coins in (
        ("SMITHY", 3, 0, 0, 0),
        ("VILLAGE", 1, 2, 0, 0),
        ("MARKET", 1, 1, 1, 1),
        ("FESTIVAL", 0, 2, 1, 2),
        ("COUNCIL-ROOM", 4, 0, 1, 0),
    ):
        t = scenario(game, ME, hands={ME: [kind, "ESTATE"]}, decks={ME: ["ESTATE"] * 6})
        size, before = len(t.kinds(hand(ME))), {n: t.count(ME, n) for n in GIVES[1:]}
        t.choose(kind, 0, situation="ACTION-PHASE")
        a = attrs(game, kind)
        assert (a["CARDS"], a["ACTIONS"], a["BUYS"], a["COINS"]) == (cards, actions, buys, coins)
        assert len(t.kinds(hand(ME))) - size == a["CARDS"] - 1, kind
        after = {n: t.count(ME, n) for n in GIVES[1:]}
        assert t.situation == "BUY-PHASE"  # no Action, no Treasure in hand: nothing played
        assert after["ACTIONS"] - before["ACTIONS"] == a["ACTIONS"] - 1, kind
        assert after["BUYS"] - before["BUYS"] == a["BUYS"], kind
        assert after["COINS"] - before["COINS"] == a["COINS"], kind


def _changed(kind: str, name: str, old: int, new: int) -> Game:
    """dominion.rcy with one component of one kind changed."""
    text = (GAMES / "dominion.rcy").read_text(encoding="utf-8")
    start = text.index(f"(card-kind {kind} ")
    end = text.find("(card-kind", start + 1)
    block = text[start:end]
    assert len(re.findall(rf"\({name} {old}\)", block)) == 1, (kind, name)
    text = text[:start] + block.replace(f"({name} {old})", f"({name} {new})") + text[end:]
    params = {"PLAYERS": "2", "KINGDOM": ",".join(ALL_KINGDOM)}
    text = without_kingdom_check(text)
    return load_game(text=text, name="dominion-changed.rcy", params=params)


@pytest.mark.parametrize(
    ("kind", "name", "old", "new"),
    [
        ("SMITHY", "CARDS", 3, 2),
        ("LIBRARY", "CARDS", 0, 1),
        ("VILLAGE", "ACTIONS", 2, 1),
        ("MARKET", "BUYS", 1, 0),
        ("MILITIA", "COINS", 2, 3),
        ("MONEYLENDER", "COINS", 0, 3),
        ("SILVER", "COINS", 2, 1),
        ("CHAPEL", "TRASH", 4, 3),
        ("SENTRY", "TRASH", 2, 3),
        ("WORKSHOP", "TRASH", 0, 1),
        ("THRONE-ROOM", "ACTIONS", 0, 1),
    ],
)
def test_a_changed_component_is_found(kind: str, name: str, old: int, new: int) -> None:
    errors = disagreements(_changed(kind, name, old, new), kind, plays=18)
    assert errors and all(e.startswith(f"{kind}: ") for e in errors), errors
    assert any(name in e for e in errors), errors


def test_the_readme_cards_state_their_components() -> None:
    """Bazaar and Hexer, the README's example cards, agree with their plays too."""
    text = (GAMES / "dominion.rcy").read_text(encoding="utf-8")
    marker = " ;; ------------------------------------------------------------ procedures"
    text = text.replace(marker, _block("lisp") + "\n" + marker, 1)
    kingdom = ",".join((*ALL_KINGDOM, "BAZAAR", "HEXER"))
    text = without_kingdom_check(text)
    game = load_game(text=text, name="dominion+readme.rcy", params={"KINGDOM": kingdom})
    assert attrs(game, "BAZAAR")["CARDS"] == 1 and attrs(game, "HEXER")["COINS"] == 2
    for kind in ("BAZAAR", "HEXER"):
        assert disagreements(game, kind) == []
