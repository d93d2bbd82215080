"""Hand-strength features of an observation and a draw abstraction (the ``features=True`` option of the
environments and of :func:`harness.rl.as_bot`). Numpy and the engine's evaluators only.

Appended after the base observation (:func:`harness.rl.encoding.layout`), :data:`SIZE` values, in order:

- ``category`` (9): one-hot category of the best five of the seat's current cards (R5.2, high card .. straight
  flush).
- ``equity`` (1): the estimated chance that these cards win at showdown against ``n - 1`` random seven-card
  hands, 0..1: ``p ** (n - 1)``, where ``p`` is the share of :data:`EQUITY_SAMPLES` random seven-card hands
  (a fixed table, drawn once from a fixed seed: deterministic, the same for the environment and the bot)
  whose best five these cards beat, ties counting half. Card removal and the opponents' draws are ignored.
- ``outs`` (1): before the seat's draw, how many unseen cards (of the 45 it cannot see) raise its category
  when they replace its lowest card outside :func:`harness.engine.evaluator.best_keep`; 0 after its draw.
- ``pot_odds`` (1): ``call / (pot + call)`` of the seat's decision (0 when it has nothing to call).
- ``position`` (1): ``((seat - button - 1) mod n) / (n - 1)``: 1 on the button (last to act after the draw,
  R2.3/R3.1), 0 just left of it.
- ``keep`` (52): one-hot by card int of the cards :func:`~harness.engine.evaluator.best_keep` keeps.
- ``choices`` (3): before the seat's draw (seven cards), the draw actions of :func:`draw_choices` ``"best"``,
  ``"made"``, ``"draw"`` as offsets ``i`` of the action index ``DRAW_BASE + i`` (0..98, :mod:`harness.rl.encoding`);
  0 (stand pat) after its draw. The one-hot ``cards`` field has no order, and a draw action names positions:
  this field lets a policy that sees only the observation (``evaluate``, ``as_bot``) play the draw abstraction.

Deuce-to-Seven Triple Draw's features (``game="deuce-to-seven-triple-draw", features=True``; ``low=True`` below),
:data:`SIZE_27` values, in order, with the same meanings read for a 2-7 low game (R8.2):

- ``category`` (9): one-hot R5.2 category of the five cards (high card is the good one here:
  :func:`harness.engine.lowball.low_category`).
- ``equity`` (1): ``p ** (n - 1)``, ``p`` the share of :data:`EQUITY_SAMPLES` random five-card hands (a fixed table,
  as above) these five beat deuce-to-seven, ties half; draws and card removal ignored.
- ``pot_odds`` (1), ``position`` (1): as above (the button acts last after each draw, R8.1).
- ``keep`` (52): one-hot of the cards :func:`harness.engine.lowball.keep_27` keeps.
- ``choice`` (1): while a draw is still to come for the seat, the offset ``i`` (0..31) of ``keep_27``'s draw as the
  action ``DRAW_BASE + i`` of :mod:`harness.rl.tripledraw` for the cards in their order (0, stand pat, otherwise).

The draw abstraction: :func:`draw_choices` names three draws as action indices, ``"best"`` (``best_keep``),
``"made"`` (keep the made part of the best five, topped up to three cards by the highest others) and
``"draw"`` (keep a four-card flush or open-ended straight draw; ``best`` when there is none): a policy may
choose among three instead of 99, from the observation alone (the ``choices`` field).
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.engine.evaluator import (
    Category,
    best_hand,
    best_keep,
    evaluate,
    flush_draw,
    improving_cards,
    straight_draw,
)
from harness.engine.lowball import evaluate_27, keep_27, low_category
from harness.rl.actions import DISCARDS, DISCARDS_27, DRAW_BASE

__all__ = ["EQUITY_SAMPLES", "SIZE", "SIZE_27", "bounds", "draw_choices", "equity", "equity_27", "fill", "fill_27",
           "layout", "outs"]

EQUITY_SAMPLES = 20000
_FIELDS = (("category", 9), ("equity", 1), ("outs", 1), ("pot_odds", 1), ("position", 1), ("keep", 52), ("choices", 3))
SIZE = sum(size for _, size in _FIELDS)
_FIELDS_27 = (("category", 9), ("equity", 1), ("pot_odds", 1), ("position", 1), ("keep", 52), ("choice", 1))
SIZE_27 = sum(size for _, size in _FIELDS_27)
_TABLE: list[int] = []
_TABLE_27: list[int] = []
_CACHE_27: dict[tuple[int, ...], tuple[int, float, tuple[int, ...], int]] = {}
_CACHE: dict[tuple[int, ...], tuple[int, float, int, tuple[int, ...]]] = {}
_CHOICES: dict[tuple[int, ...], tuple[int, int, int]] = {}


def layout(at: int = 0, low: bool = False) -> dict[str, slice]:
    """Offsets of the feature fields, starting at ``at`` (the base observation's size); ``low``: Triple Draw's."""
    out = {}
    for name, size in _FIELDS_27 if low else _FIELDS:
        out[name] = slice(at, at + size)
        at += size
    return out


def bounds(n: int, low_game: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 vectors of the features: 0..1 except ``outs`` (0..45) and ``choices`` (0..98); with
    ``low_game``, Triple Draw's: 0..1 except ``choice`` (0..31)."""
    if low_game:
        low, high = np.zeros(SIZE_27, np.float32), np.ones(SIZE_27, np.float32)
        high[layout(low=True)["choice"]] = float(len(DISCARDS_27) - 1)
        return low, high
    low, high = np.zeros(SIZE, np.float32), np.ones(SIZE, np.float32)
    high[layout()["outs"]] = 45.0
    high[layout()["choices"]] = 98.0
    return low, high


def _table() -> list[int]:
    if not _TABLE:
        rng = random.Random(20261206)  # fixed: the same table everywhere
        _TABLE.extend(sorted(evaluate(rng.sample(range(52), 7)) for _ in range(EQUITY_SAMPLES)))
    return _TABLE


def equity(cards: Sequence[int], opponents: int = 1) -> float:
    """The ``equity`` feature (module doc) of 5-7 cards against ``opponents`` random hands, 0..1."""
    table = _table()
    value = evaluate(cards)
    p = (bisect_left(table, value) + bisect_right(table, value)) / (2 * len(table))
    return float(p ** opponents)


def outs(cards: Sequence[int]) -> int:
    """The ``outs`` feature (module doc) of seven cards: unseen cards that raise the category when they
    replace the lowest card outside ``best_keep``."""
    kept = set(best_keep(cards))
    worst = min((c for c in cards if c not in kept), key=lambda c: (c >> 2, c & 3))
    return improving_cards([c for c in cards if c != worst], evaluate(cards) >> 20)

def _of(cards: Sequence[int], drawn: bool) -> tuple[int, float, int, tuple[int, ...]]:
    """(category, one-opponent p, outs (0 once ``drawn``), kept cards) of a hand, memoised (a hand's cards change
    once, at its draw)."""
    key = (*sorted(cards), drawn)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= 65536:
            _CACHE.clear()
        found = _CACHE[key] = (evaluate(cards) >> 20, equity(cards),
                               outs(cards) if len(cards) == 7 and not drawn else 0, tuple(best_keep(cards)))
    return found


def fill(v: Any, at: int, n: int, seat: int, cards: Sequence[int], drawn: bool, button: int, pot: int,
         call: int) -> None:
    """Write the features into ``v[at : at + SIZE]`` (zeros before; ``v`` as :func:`harness.rl.encoding.fill`).

    Args:
        n, seat, button: the table size, the observer's seat, the button's seat.
        cards: the observer's current cards (ints, in the engine's order: ``choices`` names positions).
        drawn: whether the observer has drawn.
        pot: all chips committed (chips). call: the observer's ``call_amount`` now (0 when not its decision).
    """
    category, p, out, kept = _of(cards, drawn)
    lay = layout(at)
    v[lay["category"].start + category] = 1.0
    v[lay["equity"].start] = p ** (n - 1)
    if out:
        v[lay["outs"].start] = float(out)
    if call:
        v[lay["pot_odds"].start] = call / (pot + call)
    v[lay["position"].start] = ((seat - button - 1) % n) / (n - 1)
    k = lay["keep"].start
    for c in kept:
        v[k + c] = 1.0
    if len(cards) == 7 and not drawn:
        k = lay["choices"].start
        for j, i in enumerate(_choices(cards)):
            if i:
                v[k + j] = float(i)


def _choices(cards: Sequence[int]) -> tuple[int, int, int]:
    """The ``choices`` field's offsets of seven cards in their order, memoised (bounded)."""
    key = tuple(cards)
    found = _CHOICES.get(key)
    if found is None:
        if len(_CHOICES) >= 65536:
            _CHOICES.clear()
        d = draw_choices(cards)
        found = _CHOICES[key] = (d["best"] - DRAW_BASE, d["made"] - DRAW_BASE, d["draw"] - DRAW_BASE)
    return found


def _keep_index(cards: Sequence[int], keep: Sequence[int]) -> int:
    kept = set(keep)
    return DRAW_BASE + DISCARDS.index(tuple(p for p, c in enumerate(cards) if c not in kept))


def draw_choices(cards: Sequence[int]) -> dict[str, int]:
    """The draw abstraction (module doc): ``{"best": index, "made": index, "draw": index}``, draw action
    indices of :mod:`harness.rl.encoding` for ``cards`` in the observation's order (the engine's
    ``state.cards[seat]``, the request's ``cards``).

    Raises:
        CardError: not 5-7 distinct cards.
    """
    best = best_keep(cards)
    hand = best_hand(cards)
    size = {Category.HIGH_CARD: 0, Category.ONE_PAIR: 2, Category.TWO_PAIR: 4, Category.THREE_OF_A_KIND: 3,
            Category.FOUR_OF_A_KIND: 4}.get(hand.category, 5)
    made = list(hand.five[:size])
    others = sorted((c for c in cards if c not in made), reverse=True)
    made += others[: max(0, 3 - len(made))]  # at most four discards (R4.1)
    draw = flush_draw(cards) or straight_draw(cards) or best
    if len(cards) - len(draw) > 4:
        draw = best
    return {"best": _keep_index(cards, best), "made": _keep_index(cards, made), "draw": _keep_index(cards, draw)}


def equity_27(cards: Sequence[int], opponents: int = 1) -> float:
    """Triple Draw's ``equity`` feature (module doc) of five cards against ``opponents`` random hands, 0..1."""
    if not _TABLE_27:
        rng = random.Random(20261207)  # fixed: the same table everywhere
        _TABLE_27.extend(sorted(evaluate_27(rng.sample(range(52), 5)) for _ in range(EQUITY_SAMPLES)))
    value = evaluate_27(cards)
    p = (bisect_left(_TABLE_27, value) + bisect_right(_TABLE_27, value)) / (2 * len(_TABLE_27))
    return float(p ** opponents)


def _of_27(cards: Sequence[int]) -> tuple[int, float, tuple[int, ...], int]:
    """(category, one-opponent p, kept cards, the draw's offset) of five cards in their order, memoised (bounded)."""
    key = tuple(cards)
    found = _CACHE_27.get(key)
    if found is None:
        if len(_CACHE_27) >= 65536:
            _CACHE_27.clear()
        kept = keep_27(cards)
        offset = DISCARDS_27.index(tuple(i for i, c in enumerate(cards) if c not in kept))
        found = _CACHE_27[key] = (int(low_category(evaluate_27(cards))), equity_27(cards), tuple(kept), offset)
    return found


def fill_27(v: Any, at: int, n: int, seat: int, cards: Sequence[int], draws_left: bool, button: int, pot: int,
            call: int) -> None:
    """Write Triple Draw's features into ``v[at : at + SIZE_27]`` (zeros before; arguments as :func:`fill`,
    ``draws_left``: a draw is still to come for the seat); all zeros for a seat without cards (it folded, its
    cards mucked).

    Raises:
        CardError: not five distinct cards (nor none).
    """
    if not cards:
        return
    category, p, kept, offset = _of_27(cards)
    lay = layout(at, low=True)
    v[lay["category"].start + category] = 1.0
    v[lay["equity"].start] = p ** (n - 1)
    if call:
        v[lay["pot_odds"].start] = call / (pot + call)
    v[lay["position"].start] = ((seat - button - 1) % n) / (n - 1)
    k = lay["keep"].start
    for c in kept:
        v[k + c] = 1.0
    if draws_left and offset:
        v[lay["choice"].start] = float(offset)
