"""bots._cards: the direct best-five search used by the example bots' draw agrees with the evaluator."""

from __future__ import annotations

import random

import pytest

from bots._cards import CARD_INT, CARD_TEXT, RANKS, SUITS, discard_to_best_five
from harness.engine.evaluator import Category, best_hand


def _by_evaluator(cards: list[str]) -> list[str]:
    five = set(best_hand([CARD_INT[c] for c in cards]).five)
    return [c for c in cards if CARD_INT[c] not in five]


def _hands(seed: int) -> list[list[str]]:
    """Random hands of 5..7 cards, plus hands crowded into few ranks (quads, full houses,
    two trips) or one suit (flushes, straight flushes) so that every category is met."""
    rng = random.Random(seed)
    hands = [rng.sample(CARD_TEXT, rng.choice((5, 6, 7, 7))) for _ in range(800)]
    for _ in range(800):
        ranks = rng.sample(RANKS, rng.randint(2, 5))
        pool = sorted({r + s for r in ranks for s in SUITS} | set(rng.sample(CARD_TEXT, 3)))
        hands.append(rng.sample(pool, min(len(pool), rng.choice((5, 6, 7)))))
    for _ in range(800):
        suit = rng.choice(SUITS)
        pool = sorted({r + suit for r in RANKS} | set(rng.sample(CARD_TEXT, 4)))
        hands.append(rng.sample(pool, rng.choice((5, 6, 7))))
    for top in range(3, 13):  # every straight, the wheel (top 3) included, with two extra cards
        for _ in range(20):
            run = [RANKS[top - i] if top - i >= 0 else "A" for i in range(5)]
            cards = {r + rng.choice(SUITS) for r in run}
            while len(cards) < 7:
                cards.add(rng.choice(CARD_TEXT))
            hands.append(sorted(cards))
    return hands


def test_discards_match_the_evaluators_best_five() -> None:
    seen: set[Category] = set()
    for cards in _hands(7):
        assert sorted(discard_to_best_five(cards)) == sorted(_by_evaluator(cards)), cards
        seen.add(best_hand([CARD_INT[c] for c in cards]).category)
    assert seen == set(Category)


def test_worked_examples() -> None:
    assert sorted(discard_to_best_five(["9s", "9d", "9c", "5h", "5s", "Kc", "2d"])) == ["2d", "Kc"]  # E2
    assert sorted(discard_to_best_five(["Ah", "2h", "3h", "4h", "5h", "Kc", "Kd"])) == ["Kc", "Kd"]  # wheel flush
    # two trips: the full house keeps the higher suits of the lower trips
    assert sorted(discard_to_best_five(["7c", "7d", "7h", "4c", "4d", "4h", "As"])) == ["4c", "As"]
    assert sorted(discard_to_best_five(["8s", "7d", "6c", "5h", "4s", "Kc", "Kd"])) == ["Kc", "Kd"]  # straight
    # quads and two pair: the best kicker of the rest, even from a third pair
    assert sorted(discard_to_best_five(["9s", "9d", "9c", "9h", "5s", "5c", "Kd"])) == ["5c", "5s"]
    assert sorted(discard_to_best_five(["9s", "9d", "5h", "5c", "3s", "3c", "Kd"])) == ["3c", "3s"]


@pytest.mark.parametrize(
    "cards", [["As", "Kd", "Qc", "Jh"], ["As", "As", "Kd", "Qc", "Jh"], ["As", "Kd", "Qc", "Jh", "1x"]]
)
def test_bad_hands_are_value_errors(cards: list[str]) -> None:
    with pytest.raises(ValueError):
        discard_to_best_five(cards)
