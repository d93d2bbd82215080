"""Pure Seven Card Draw rules (RULES.md): cards, evaluation, hand state machine, pots. No I/O."""

from harness.engine.cards import card_str, cards_str, parse_card, parse_cards
from harness.engine.errors import (
    CardError,
    ConfigError,
    IllegalActionError,
    InvalidActionError,
    ReplayError,
)
from harness.engine.evaluator import Category, HandRank, best_hand, evaluate

__all__ = [
    "CardError",
    "Category",
    "ConfigError",
    "HandRank",
    "IllegalActionError",
    "InvalidActionError",
    "ReplayError",
    "best_hand",
    "card_str",
    "cards_str",
    "evaluate",
    "parse_card",
    "parse_cards",
]
