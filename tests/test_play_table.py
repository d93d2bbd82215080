"""The commands a person types at ``harness play`` and the table the human seat follows."""

from __future__ import annotations

import pytest

from harness.play.table import CommandError, TableView, legal_choices, parse_command, sort_cards
from protocol.messages import ActionReply, ActRequest, DiscardReply, DrawRequest, HandStart, Legal, TimeLeft

CARDS = ["3h", "Kc", "7h", "As", "9d", "2c", "Ts"]
TIME = TimeLeft(1000, 0)


def act(actions: tuple[str, ...], call: int = 0, lo: int = 0, hi: int = 0, seq: int = 4) -> ActRequest:
    return ActRequest(seq=seq, state={"cards": CARDS}, legal=Legal(actions, call, lo, hi, 0), time=TIME)


def draw(most: int = 4) -> DrawRequest:
    return DrawRequest(seq=5, state={"cards": CARDS}, legal=Legal(("draw",), 0, 0, 0, most), time=TIME)


FACING = act(("fold", "call", "raise"), call=10, lo=40, hi=990)
FREE = act(("fold", "check", "bet"), lo=20, hi=1000)


def test_sorted_positions() -> None:
    assert sort_cards(CARDS) == ["As", "Kc", "Ts", "9d", "7h", "3h", "2c"]


@pytest.mark.parametrize(("line", "request_", "reply"), [
    ("f", FACING, ActionReply(4, "fold")),
    ("c", FACING, ActionReply(4, "call")),
    ("", FACING, ActionReply(4, "call")),
    ("", FREE, ActionReply(4, "check")),
    ("C", FREE, ActionReply(4, "check")),
    ("r 120", FACING, ActionReply(4, "raise", 120)),
    ("r", FACING, ActionReply(4, "raise", 40)),
    ("b 40", FREE, ActionReply(4, "bet", 40)),
    ("  b   1,000 ", FREE, ActionReply(4, "bet", 1000)),
    ("a", FACING, ActionReply(4, "raise", 990)),
    ("a", FREE, ActionReply(4, "bet", 1000)),
])
def test_betting_commands(line: str, request_: ActRequest, reply: ActionReply) -> None:
    assert parse_command(line, request_, stack=990, bet=0) == reply


@pytest.mark.parametrize(("line", "message"), [
    ("r 30", "raise to 30 is not legal: raise to 40 to 990 (R3.4, R3.6)"),
    ("r 991", "raise to 991 is not legal: raise to 40 to 990"),
    ("r ten", "'r': 'ten' is not a number of chips"),
    ("x", "unknown command 'x': f fold, c call 10, r N raise to 40 to 990"),
    ("d 1 2", "no draw now, this is a betting round"),
    ("r 40 50", "'r' takes one amount"),
])
def test_betting_mistakes_are_one_line(line: str, message: str) -> None:
    with pytest.raises(CommandError) as err:
        parse_command(line, FACING, stack=990, bet=10)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_help_lists_every_command() -> None:
    with pytest.raises(CommandError) as err:
        parse_command("?", FACING, 990, 10)
    for command in ("f fold", "c check", "b N", "r N", "a all-in", "d 2 5 7", "d 7h Kc"):
        assert command in str(err.value)


@pytest.mark.parametrize(("line", "cards"), [
    ("", ()), ("d", ()), ("d 6 7", ("3h", "2c")), ("d 3h kc", ("3h", "Kc")), ("d 10s 1", ("Ts", "As")),
])
def test_draw_commands(line: str, cards: tuple[str, ...]) -> None:
    assert parse_command(line, draw(), 990, 0) == DiscardReply(5, cards)


@pytest.mark.parametrize(("line", "message"), [
    ("d 8", "position 8: the positions of your cards are 1 to 7"),
    ("d Qh", "Qh is not in your hand"),
    ("d zz", "'zz' is neither a position (1-7) nor a card"),
    ("d 1 As", "As is named twice"),
    ("d 1 2 3 4 5", "5 cards: you may discard at most 4 (R4.1)"),
    ("c", "this is the draw"),
])
def test_draw_mistakes(line: str, message: str) -> None:
    with pytest.raises(CommandError) as err:
        parse_command(line, draw(), 990, 0)
    assert message in str(err.value)


def test_legal_choices_have_exact_amounts() -> None:
    assert legal_choices(FACING, stack=980, bet=10) == [
        ("f", "fold"), ("c", "call 10"), ("r N", "raise to 40 to 990"), ("a", "raise to 990 (all-in)")]
    short = act(("fold", "call"), call=300)
    assert legal_choices(short, stack=300, bet=0)[-1] == ("a", "call 300 (all-in)")


def test_the_table_conserves_chips_event_by_event() -> None:
    view = TableView()
    view.update(HandStart(hand_id=0, seat=0, button=0, names=("me", "bot"), stacks=(1000, 1000), cards=tuple(CARDS)))
    history = [{"seat": 0, "action": "small_blind", "amount": 5}, {"seat": 1, "action": "big_blind", "amount": 10},
               {"seat": 0, "action": "raise", "amount": 30}, {"seat": 1, "action": "call", "amount": 20},
               {"seat": 0, "action": "draw", "count": 2}, {"seat": 1, "action": "draw", "count": 0},
               {"seat": 1, "action": "bet", "amount": 970, "all_in": True}]
    totals = []

    def seen(line: str) -> None:
        snap = view.snapshot()
        totals.append(snap["pot"] + sum(s["stack"] for s in snap["seats"]))

    state = {"cards": CARDS, "phase": "bet2", "history": history, "stacks": [970, 0], "bets": [0, 970],
             "folded": [False, False], "all_in": [False, True], "draws": [2, 0]}
    lines = view.update(ActRequest(seq=3, state=state, legal=Legal(("fold", "call"), 970, 0, 0, 0), time=TIME), seen)
    assert totals == [2000] * len(history)
    assert lines[-1] == "bot bets to 970 (all-in)" and lines[4] == "you draw 2" and lines[5] == "bot stands pat"
    assert view.pots() == [(60, (0, 1))]  # the all-in bet is not called yet
    assert view.choices()[-1] == ("a", "call 970 (all-in)")
