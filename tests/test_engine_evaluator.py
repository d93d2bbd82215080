"""Evaluator: rule examples (R5.2-R5.4, E2, E3) and a differential test against phevaluator."""

from __future__ import annotations

import itertools
import random

import pytest

from harness.engine import CardError, Category, HandRank, best_hand, evaluate, parse_cards
from harness.engine.cards import card_str, cards_str, parse_card
from harness.engine.evaluator import build_tables, category_of


def ev(text: str) -> int:
    return evaluate(parse_cards(text))


def test_card_text_round_trip() -> None:
    assert [card_str(c) for c in range(52)][:4] == ["2c", "2d", "2h", "2s"]
    assert parse_card("As") == 51 and parse_card("as") == 51 and parse_card("2c") == 0
    assert all(parse_card(card_str(c)) == c for c in range(52))
    for bad in ("1s", "Ax", "", "Asd", 5, None):
        with pytest.raises(CardError):
            parse_card(bad)  # type: ignore[arg-type]
    with pytest.raises(CardError):
        card_str(52)


def test_e2_full_house_beats_flush_and_picks_the_five() -> None:
    a = best_hand(parse_cards("9s 9d 9c 5h 5s Kc 2d"))
    b = best_hand(parse_cards("8d 7d 6d 5d 4c Kd 2s"))
    assert a.category is Category.FULL_HOUSE and a.label == "full house"
    assert sorted(cards_str(a.five)) == sorted(["9s", "9d", "9c", "5h", "5s"])
    assert b.category is Category.FLUSH
    assert set(cards_str(b.five)) == {"Kd", "8d", "7d", "6d", "5d"}
    assert cards_str(b.five)[0] == "Kd"
    assert a > b


def test_e3_wheel_royal_and_no_wraparound() -> None:
    assert ev("5c 4d 3h 2s Ac") < ev("6c 5d 4h 3s 2c")
    assert category_of(ev("5c 4d 3h 2s Ac")) is Category.STRAIGHT
    assert ev("Ah Kh Qh Jh Th") > ev("9s 8s 7s 6s 5s")
    assert category_of(ev("Qs Kd Ah 2c 3d")) is Category.HIGH_CARD


def test_wheel_straight_flush_is_the_lowest_straight_flush() -> None:
    wheel_sf = best_hand(parse_cards("Ah 2h 3h 4h 5h Kc Kd"))
    assert wheel_sf.category is Category.STRAIGHT_FLUSH
    assert cards_str(wheel_sf.five) == ["5h", "4h", "3h", "2h", "Ah"]
    assert wheel_sf < best_hand(parse_cards("2s 3s 4s 5s 6s"))
    assert wheel_sf > best_hand(parse_cards("Ac Ad Ah As Kc"))
    # a six-card straight flush plays its top five
    six = best_hand(parse_cards("2d 3d 4d 5d 6d Ad 9c"))
    assert cards_str(six.five) == ["6d", "5d", "4d", "3d", "2d"]


def test_unused_two_cards_do_not_count() -> None:
    # Same best five (A A K Q J), different unused cards: a split.
    a = best_hand(parse_cards("Ac Ad Ks Qh Jc 3d 2c"))
    b = best_hand(parse_cards("Ah As Kd Qc Jd 9c 8d"))
    assert a == b and a.value == b.value
    # Two pair: the third pair does not play, only the best kicker does.
    c = best_hand(parse_cards("Kc Kd 8h 8s 4c 4d 2s"))
    d = best_hand(parse_cards("Kh Ks 8c 8d 5c 3d 2h"))
    assert d > c
    assert sorted(cards_str(c.five)) == sorted(["Kc", "Kd", "8h", "8s", "4d"])
    # Trips plus trips is a full house using the lower trips as the pair.
    e = best_hand(parse_cards("7c 7d 7h 4c 4d 4h As"))
    assert e.category is Category.FULL_HOUSE and len(set(e.five)) == 5


def test_handrank_compares_by_value_only() -> None:
    x = best_hand(parse_cards("Ac Kc Qd Jd 9h"))
    y = best_hand(parse_cards("Ad Kd Qc Jc 9s"))
    assert x == y and not x < y and hash(x) == hash(y)
    assert isinstance(x, HandRank) and x.five != y.five


@pytest.mark.parametrize(
    "bad", [[0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 1, 2, 3], [0, 1, 2, 3, 52], [-1, 1, 2, 3, 4]]
)
def test_bad_input_is_refused(bad: list[int]) -> None:
    with pytest.raises(CardError):
        evaluate(bad)
    with pytest.raises(CardError):
        best_hand(bad)


def _check_same_order(pairs: dict[int, int]) -> None:
    """Ours (higher better) vs phevaluator (lower better): same strict order."""
    ours = sorted(pairs)
    theirs = [pairs[v] for v in ours]
    assert all(a > b for a, b in zip(theirs, theirs[1:], strict=False))


@pytest.mark.slow
def test_all_five_card_hands_match_phevaluator() -> None:
    pheval = pytest.importorskip("phevaluator._pheval")
    build_tables()
    seen: dict[int, int] = {}
    it = itertools.combinations(range(52), 5)
    while chunk := list(itertools.islice(it, 200_000)):
        pairs = set(zip(map(evaluate, chunk), itertools.starmap(pheval.evaluate_5cards, chunk), strict=True))
        for ours, theirs in pairs:
            assert seen.setdefault(ours, theirs) == theirs, (ours, theirs)
    assert len(seen) == 7462 and len(set(seen.values())) == 7462
    _check_same_order(seen)


@pytest.mark.slow
def test_random_seven_card_hands_match_phevaluator() -> None:
    pheval = pytest.importorskip("phevaluator._pheval")
    rng = random.Random(20240521)
    sample = rng.sample
    hands = [sample(range(52), 7) for _ in range(200_000)]
    seen: dict[int, int] = {}
    for hand in hands:
        ours = best_hand(hand)
        assert seen.setdefault(ours.value, pheval.evaluate_7cards(*hand)) == pheval.evaluate_7cards(*hand)
        assert set(ours.five) <= set(hand) and len(set(ours.five)) == 5
        assert evaluate(ours.five) == ours.value == evaluate(hand)
    _check_same_order(seen)
