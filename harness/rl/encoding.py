"""The action and observation encodings of the Seven Card Draw environments (no PettingZoo needed here).

Actions: one ``Discrete(N_ACTIONS)`` space for every decision, with a mask of the legal ones.

====================  ======================================================================
index                 action
====================  ======================================================================
0                     fold (R3.5; masked when checking is free, as folding then only loses)
1                     check, or call (the ``call_amount`` of ``Legal``; all-in for less)
2 .. 2+len(SIZES)-1   bet/raise to one of :data:`SIZES` (below), clipped to ``min_to..max_to``
DRAW_BASE .. +98      the draw: discard the cards at one set of 0-4 positions (:data:`DISCARDS`)
====================  ======================================================================

Bet sizes (:data:`SIZES`): ``"min"`` (``min_to``: the minimum bet or raise, R3.6; in fixed-limit the one
legal amount, R3.7), ``"half_pot"``, ``"pot"``, ``"two_pots"`` (a raise of that fraction of the pot after
calling: ``to = bet + call + f * (pot + call)``, R3.6 sizes in chips) and ``"all_in"`` (``max_to``: the
all-in, or what the deepest opponent can match, R3.4). A size whose amount equals an earlier size's is
masked, so every legal index is a different action (fixed-limit: only ``"min"``).

Draw actions (:data:`DISCARDS`): index ``DRAW_BASE + i`` discards the positions ``DISCARDS[i]`` of the
seat's seven cards as the observation lists them (``cards`` order), sets sorted by size, then
lexicographically: ``()`` (stand pat), ``(0,)``, ..., ``(6,)``, ``(0, 1)``, ..., ``(3, 4, 5, 6)``; 99 in all
(1 + 7 + 21 + 35 + 35, R4.1: 0-4 cards).

Observation (:func:`observe`): a float32 vector, chips in big blinds (the game's ``unit``), seats
*relative*: slot 0 is the observer, slot k the k-th seat after it (clockwise); ``n`` = seats at the table.
See :func:`layout` for the offsets; field by field:

- ``cards`` (52): own current cards, one-hot by card int (``harness.engine.cards``: rank * 4 + suit).
- ``phase`` (4): one-hot bet1, draw, bet2, complete.
- ``button`` (n): one-hot relative seat of the button.
- ``to_act`` (n): one-hot relative seat to act (all 0 when the hand is over).
- ``stacks`` (n): chips behind, bb. ``bets`` (n): chips in the current round, bb. ``contrib`` (n): chips
  put in this hand, bb. ``pot`` (1): all chips committed, bb.
- ``legal`` (3): ``call_amount``, ``min_to``, ``max_to`` of the observer's decision in bb (0 when not its turn).
- ``folded`` (n), ``all_in`` (n): 0/1.
- ``draws`` (n): cards drawn (0-4), -1 before that seat has drawn (public draw counts, R4.1).
- ``actions`` (2 * n * 3): the public betting actions, per round (bet1, bet2) and relative seat: checks,
  calls, bets+raises (counts).
- ``shown`` (52 * (n - 1)): the cards each other seat showed down (R5.7), one-hot, after the hand.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from harness.engine import Phase
from harness.engine.state import HandState

__all__ = [
    "DISCARDS",
    "DRAW_BASE",
    "N_ACTIONS",
    "SIZES",
    "decode",
    "decode_of",
    "encode",
    "layout",
    "mask",
    "mask_of",
    "observe",
    "obs_size",
]

SIZES = ("min", "half_pot", "pot", "two_pots", "all_in")
_FRACTIONS = {"half_pot": 0.5, "pot": 1.0, "two_pots": 2.0}
FOLD, CALL = 0, 1
BET_BASE = 2
DISCARDS: tuple[tuple[int, ...], ...] = tuple(c for k in range(5) for c in combinations(range(7), k))
DRAW_BASE = BET_BASE + len(SIZES)
N_ACTIONS = DRAW_BASE + len(DISCARDS)
assert len(DISCARDS) == 99
_PHASE_NAMES = ("bet1", "draw", "bet2", "complete")


def _amounts(legal: Any, bet: int, pot: int) -> list[int]:
    """The "to" amount of each bet size (``legal``: min_to, max_to, call_amount; ``bet``: the seat's bet this
    round; ``pot``: all chips committed), or 0s where no bet/raise is legal."""
    if not legal.min_to:
        return [0] * len(SIZES)
    lo, hi, call = legal.min_to, legal.max_to, legal.call_amount
    out = []
    for name in SIZES:
        if name == "min":
            to = lo
        elif name == "all_in":
            to = hi
        else:
            to = min(max(bet + call + int(_FRACTIONS[name] * (pot + call)), lo), hi)
        out.append(to)
    return out


_EMPTY_MASK = np.zeros(N_ACTIONS, dtype=np.int8)
_DRAW_MASK = _EMPTY_MASK.copy()
_DRAW_MASK[DRAW_BASE:] = 1


def mask_of(phase: str, legal: Any, bet: int, pot: int) -> np.ndarray:
    """:func:`mask` from the decision's parts (``phase`` text, a ``Legal`` of the engine or the protocol)."""
    if phase == "draw":
        return _DRAW_MASK.copy()
    if phase == "complete":
        return _EMPTY_MASK.copy()
    m = bytearray(N_ACTIONS)  # bytes, then one array: numpy's item assignment costs microseconds
    m[CALL] = 1
    if legal.call_amount > 0:
        m[FOLD] = 1
    if legal.min_to:
        seen = set()
        for i, to in enumerate(_amounts(legal, bet, pot)):
            if to not in seen:
                seen.add(to)
                m[BET_BASE + i] = 1
    return np.frombuffer(m, dtype=np.int8)


def mask(state: HandState) -> np.ndarray:
    """The legal actions of the seat to act: an int8 vector of :data:`N_ACTIONS` (all 0 when the hand is over)."""
    if state.phase is Phase.COMPLETE:
        return np.zeros(N_ACTIONS, dtype=np.int8)
    return mask_of(state.phase, state.legal(), state.bets[state.to_act], sum(state.contrib))


def decode_of(phase: str, legal: Any, bet: int, pot: int, cards: list[Any], index: int) -> tuple[str, Any]:
    """:func:`decode` from the decision's parts; ``cards``: the seat's cards in observation order."""
    index = int(index)  # checked as mask_of() would allow it, without building the mask
    if phase == "draw":
        if DRAW_BASE <= index < N_ACTIONS:
            return "draw", [cards[p] for p in DISCARDS[index - DRAW_BASE]]
    elif phase != "complete":
        if index == CALL:
            return ("call", None) if legal.call_amount > 0 else ("check", None)
        if index == FOLD and legal.call_amount > 0:
            return "fold", None
        if BET_BASE <= index < DRAW_BASE and legal.min_to:
            amounts = _amounts(legal, bet, pot)
            i = index - BET_BASE
            if amounts[i] not in amounts[:i]:  # a repeated amount is masked: its first index stands for it
                return ("bet" if "bet" in legal.actions else "raise"), amounts[i]
    raise ValueError(f"action {index} is not legal now (phase {phase})")


def decode(state: HandState, index: int) -> tuple[str, Any]:
    """The engine action of ``index`` for the seat to act: ``("fold"|"check"|"call", None)``,
    ``("bet"|"raise", to)`` or ``("draw", cards)`` (card ints).

    Raises:
        ValueError: ``index`` is not legal now (see :func:`mask`).
    """
    if state.phase is Phase.COMPLETE:
        raise ValueError(f"action {index} is not legal: the hand is complete")
    s = state.to_act
    return decode_of(state.phase, state.legal(), state.bets[s], sum(state.contrib), state.cards[s], index)


def layout(n: int) -> dict[str, slice]:
    """Offsets of the observation's fields for a table of ``n`` seats (see the module doc)."""
    sizes = [("cards", 52), ("phase", 4), ("button", n), ("to_act", n), ("stacks", n), ("bets", n),
             ("contrib", n), ("pot", 1), ("legal", 3), ("folded", n), ("all_in", n), ("draws", n),
             ("actions", 2 * n * 3), ("shown", 52 * (n - 1))]
    out, at = {}, 0
    for name, size in sizes:
        out[name] = slice(at, at + size)
        at += size
    return out


def obs_size(n: int) -> int:
    """Length of the observation vector at ``n`` seats."""
    return layout(n)["shown"].stop


_KIND_COLUMN = {"check": 0, "call": 1, "bet": 2, "raise": 2}


def observe(state: HandState, seat: int, lay: dict[str, slice] | None = None) -> np.ndarray:
    """What ``seat`` sees, encoded (module doc): never another seat's cards before they are shown (R5.7)."""
    to_act = state.to_act
    legal = state.legal() if to_act == seat and state.phase is not Phase.DRAW else None
    shown = {s: state.cards[s] for s in state.result().shown} if state.is_complete else {}
    return encode(state.n, float(state.config.unit), seat, state.cards[seat], str(state.phase), state.button, to_act,
                  state.stacks, state.bets, state.contrib, legal, state.folded, state.all_in, state.draws,
                  state.history, shown, lay)


def encode(n: int, unit: float, seat: int, cards: Any, phase: str, button: int, to_act: int | None, stacks: Any,
           bets: Any, contrib: Any, legal: Any, folded: Any, all_in: Any, draws: Any, history: Any,
           shown: dict[int, Any], lay: dict[str, slice] | None = None) -> np.ndarray:
    """The observation vector from its parts (:func:`observe` for an engine state; a bot's view for
    :func:`harness.rl.as_bot`): chips in chips, cards as ints, ``legal`` None when the seat has no betting
    decision, ``shown`` the shown cards by seat."""
    lay = lay or layout(n)
    v = [0.0] * lay["shown"].stop  # a list, turned into an array once: item by item numpy is slower
    for c in cards:
        v[c] = 1.0
    v[lay["phase"].start + _PHASE_NAMES.index(phase)] = 1.0
    v[lay["button"].start + (button - seat) % n] = 1.0
    if to_act is not None:
        v[lay["to_act"].start + (to_act - seat) % n] = 1.0
    rel = [(seat + k) % n for k in range(n)]
    for name, values in (("stacks", stacks), ("bets", bets), ("contrib", contrib)):
        at = lay[name].start
        for k, s in enumerate(rel):
            v[at + k] = values[s] / unit
    v[lay["pot"].start] = sum(contrib) / unit
    if legal is not None:
        at = lay["legal"].start
        v[at], v[at + 1], v[at + 2] = legal.call_amount / unit, legal.min_to / unit, legal.max_to / unit
    f, a, d = lay["folded"].start, lay["all_in"].start, lay["draws"].start
    for k, s in enumerate(rel):
        v[f + k] = 1.0 if folded[s] else 0.0
        v[a + k] = 1.0 if all_in[s] else 0.0
        v[d + k] = -1.0 if draws[s] is None else float(draws[s])
    base = lay["actions"].start
    round_ = 0
    for event in history:
        kind = event["action"]
        if kind == "draw":
            round_ = 1
        column = _KIND_COLUMN.get(kind)
        if column is not None:
            v[base + (round_ * n + (event["seat"] - seat) % n) * 3 + column] += 1.0
    start = lay["shown"].start
    for s, held in shown.items():
        if s != seat:
            k = (s - seat) % n - 1
            for c in held:
                v[start + 52 * k + c] = 1.0
    return np.array(v, dtype=np.float32)
