"""Constants of the hand state machine shared by its modules: cards per hand, phases, legal-action sets."""

from __future__ import annotations

from typing import Any

from harness.engine.actions import (
    BET,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    ActionKind,
    Legal,
    Phase,
)
from harness.engine.games import SEVEN_CARD_DRAW

HOLE_CARDS = SEVEN_CARD_DRAW.hole_cards  # 7, R2.7
MAX_DISCARDS = SEVEN_CARD_DRAW.max_discards  # 4, R4.1

BET1, DRAW_PHASE, BET2, COMPLETE = Phase.BET1, Phase.DRAW, Phase.BET2, Phase.COMPLETE
K_FOLD_CALL = (FOLD, CALL)
K_FOLD_CALL_RAISE = (FOLD, CALL, RAISE)
K_FOLD_CHECK = (FOLD, CHECK)
K_FOLD_CHECK_BET = (FOLD, CHECK, BET)
K_FOLD_CHECK_RAISE = (FOLD, CHECK, RAISE)
LEGAL_FOLD_CHECK = Legal(K_FOLD_CHECK, 0, 0, 0, 0)
_LEGALS: dict[tuple[Any, ...], Legal] = {}  # equal decisions share one frozen Legal: building one costs more


def legal_of(kinds: tuple[ActionKind, ...], call: int, lo: int, hi: int) -> Legal:
    """``Legal(kinds, call, lo, hi, 0)``, memoised (values only: any two are equal or not as if built anew)."""
    key = (kinds, call, lo, hi)
    lg = _LEGALS.get(key)
    if lg is None:
        if len(_LEGALS) >= 4096:  # bounded: deep stacks make many amounts
            _LEGALS.clear()
        lg = _LEGALS[key] = Legal(kinds, call, lo, hi, 0)
    return lg
