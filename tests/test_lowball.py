"""The deuce-to-seven evaluator (RULES.md R8.2, R8.3): worked example E22, the 7,462 classes, and PokerKit.

PokerKit's ``StandardLowHand`` (deuce-to-seven low) is the independent oracle: every class of five-card
hands, in order, and random pairs of hands. Without pokerkit (the ``test`` extra installs it) those
tests are skipped with a reason that says so.
"""

from __future__ import annotations

import itertools
import random
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.engine.cards import CARD_STRS, parse_cards
from harness.engine.errors import CardError
from harness.engine.evaluator import Category, evaluate
from harness.engine.lowball import LOW_TOP, evaluate_27, low_category

E22 = [  # best first (R8.2)
    "7h 5d 4c 3s 2h",
    "7h 6d 4c 3s 2h",
    "8h 5d 4c 3s 2h",
    "Kh Qd Jc Ts 8h",
    "Ah 5d 4c 3s 2h",
    "2h 2d 3c 4s 5h",
    "6h 5d 4c 3s 2h",
    "7h 5h 4h 3h 2h",
]


def _classes() -> list[list[int]]:
    """One hand of each of the 7,462 classes: every rank multiset offsuit, and every five distinct ranks suited."""
    hands = []
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        seen: dict[int, int] = {}
        cards = []
        for r in ranks:
            cards.append(r * 4 + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        if len(set(ranks)) == 5:
            hands.append([r * 4 for r in ranks])  # suited
            cards[0] += 1  # not suited
        hands.append(cards)
    return hands


def test_e22_order_best_first() -> None:
    values = [evaluate_27(parse_cards(h)) for h in E22]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert evaluate_27(parse_cards("7c 5d 4h 3s 2c")) == evaluate_27(parse_cards("7h 5s 4c 3d 2d"))
    labels = [low_category(v).label for v in values]
    assert labels == ["high card"] * 5 + ["one pair", "straight", "flush"]


def test_the_wheel_is_ace_high_and_the_steel_wheel_an_ace_high_flush() -> None:
    wheel, steel = parse_cards("Ah 5d 4c 3s 2h"), parse_cards("Ah 5h 4h 3h 2h")
    assert low_category(evaluate_27(wheel)) == Category.HIGH_CARD
    assert low_category(evaluate_27(steel)) == Category.FLUSH
    # between the ace-high hands with a king and the ones with a six as second card
    assert evaluate_27(parse_cards("Ah 6d 4c 3s 2h")) < evaluate_27(wheel) < evaluate_27(parse_cards("Kh Qd Jc Ts 8h"))


def test_r8_3_seven_thousand_four_hundred_sixty_two_classes_in_reverse_high_order() -> None:
    hands = _classes()
    assert len(hands) == 7462
    low = [evaluate_27(h) for h in hands]
    assert len(set(low)) == 7462
    wheel_ranks = {0, 1, 2, 3, 12}
    rest = [h for h in hands if {c >> 2 for c in h} != wheel_ranks]
    by_low = sorted(rest, key=evaluate_27)
    assert by_low == sorted(rest, key=evaluate, reverse=True)  # the high order reversed, the wheels aside
    assert max(low) == evaluate_27(parse_cards("7h 5d 4c 3s 2h"))
    assert min(low) == evaluate_27(parse_cards("Ah Kh Qh Jh Th"))
    assert all(0 <= v <= LOW_TOP for v in low)


def test_exactly_five_cards() -> None:
    with pytest.raises(CardError, match=r"^R8\.2: deuce-to-seven needs exactly five cards, got 6$"):
        evaluate_27(parse_cards("7h 5d 4c 3s 2h 9c"))
    with pytest.raises(CardError):
        evaluate_27([1, 1, 2, 3, 4])


@given(st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True))
def test_suits_never_break_ties(cards: list[int]) -> None:
    """Moving every card one suit round keeps the value (R8.2): flushes stay flushes, ranks stay."""
    assert evaluate_27([c >> 2 << 2 | (c + 1) & 3 for c in cards]) == evaluate_27(cards)


def _pokerkit_low() -> type:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from pokerkit import StandardLowHand
        except ImportError:
            pytest.skip("pokerkit is not installed (pip install -e '.[test]'): "
                        "the deuce-to-seven cross-check against PokerKit did not run")
    return StandardLowHand  # type: ignore[no-any-return]


def _text(cards: list[int]) -> str:
    return "".join(CARD_STRS[c] for c in cards)


def test_every_class_in_pokerkits_order() -> None:
    """All 7,462 classes sorted by evaluate_27: PokerKit finds each strictly better than the one before."""
    low_hand = _pokerkit_low()
    ordered = sorted(_classes(), key=evaluate_27)
    theirs = [low_hand(_text(h)) for h in ordered]
    pairs = zip(ordered, ordered[1:], theirs, theirs[1:], strict=False)
    wrong = [(_text(a), _text(b)) for a, b, x, y in pairs if not x < y]
    assert not wrong, f"{len(wrong)} of 7461 neighbours ordered otherwise by PokerKit, e.g. {wrong[:3]}"


def test_random_pairs_as_pokerkit_compares_them() -> None:
    """20,000 seeded random pairs of hands (ties included): the same verdict, better, worse or equal."""
    low_hand = _pokerkit_low()
    rng = random.Random(27)
    deck = list(range(52))
    ties = 0
    for _ in range(20_000):
        cards = rng.sample(deck, 10)
        a, b = cards[:5], cards[5:]
        ours = (evaluate_27(a) > evaluate_27(b)) - (evaluate_27(a) < evaluate_27(b))
        x, y = low_hand(_text(a)), low_hand(_text(b))
        theirs = (x > y) - (x < y)
        assert ours == theirs, (_text(a), _text(b))
        ties += ours == 0
    assert ties > 0  # the pairs did test equal hands too
