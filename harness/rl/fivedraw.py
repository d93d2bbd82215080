"""The action and observation encodings of Five Card Draw with openers (RULES.md R7) for the environments
(``game="five-card-draw"``, :mod:`harness.rl.aec`): the interface of :mod:`harness.rl.encoding` with this
game's numbers and fields.

Actions: Triple Draw's (:mod:`harness.rl.tripledraw`), one ``Discrete(N_ACTIONS)`` space (39) with a mask:

====================  ======================================================================
index                 action
====================  ======================================================================
0, 1                  fold, check or call (as Seven Card Draw's, :mod:`harness.rl.encoding`)
2 .. 6                bet/raise to one of ``encoding.SIZES`` (the same sizes and masking)
7 .. 38               the draw: discard the cards at one set of 0-5 positions (``tripledraw.DISCARDS``)
====================  ======================================================================

The openers are in the mask: until someone opens, a bet (2 .. 6) is masked for a seat whose five cards do
not meet the game's ``openers`` rule (R7.2, R7.3); checking and folding stay legal. One draw of 0 to 5 cards
(R7.1), every set legal (R6.9).

Observation (:func:`observe`): a float32 vector, chips in units of ``min_bet`` (the game's ``unit``), seats
relative to the observer (slot 0), as Seven Card Draw's (:func:`layout` gives the offsets):

- ``cards`` (52): own five cards, one-hot. ``phase`` (4): one-hot bet1, draw, bet2, complete.
- ``button``, ``to_act``, ``stacks``, ``bets``, ``contrib`` (n each), ``legal`` (3), ``folded``, ``all_in``
  (n each): as Seven Card Draw's.
- ``pot`` (1): all chips in the middle, the chips carried in included (R7.4).
- ``draws`` (n): cards drawn (0-5), -1 before that seat has drawn.
- ``actions`` (2 * n * 3): per betting round and relative seat: checks, calls, bets+raises (counts).
- ``carried`` (1): chips carried into this deal from passed-out deals (R7.4), dead money in the main pot.
- ``opener`` (n): one-hot relative seat that opened (R7.2); all 0 until someone opens.
- ``can_open`` (1): 1 when the observer's own five cards meet the opening rule now (R7.2): public to no
  one else, and it says whether the bet indices may be offered before the open.
- ``shown`` (52 * (n - 1)): the five cards each other seat showed down, after the hand.

Chips carried in from passed-out deals have no upper bound (a run of passed-out deals grows them), so the
observation space bounds ``stacks``, ``pot`` and ``carried`` only by the largest float32 (:func:`bounds`;
Gymnasium's checker warns about an infinite bound).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.engine import Phase
from harness.engine.openers import may_open
from harness.engine.state import HandState
from harness.rl.encoding import offsets
from harness.rl.tripledraw import (
    DISCARDS,
    DRAW_BASE,
    DRAW_KEY,
    N_ACTIONS,
    NONE_KEY,
    action_of,
    decision,
    decode,
    mask,
    mask_row,
)

__all__ = ["DISCARDS", "DRAW_BASE", "DRAW_KEY", "NONE_KEY", "N_ACTIONS", "ROUNDS", "action_of", "bounds",
           "decision", "decode", "layout", "mask", "mask_row", "obs_size", "observe", "observe_into"]

#: Betting rounds of the game: one before the draw, one after (R7.1).
ROUNDS = 2
_KIND_COLUMN = {"check": 0, "call": 1, "bet": 2, "raise": 2}


def layout(n: int) -> dict[str, slice]:
    """Offsets of the observation's fields at ``n`` seats (module doc)."""
    return offsets([("cards", 52), ("phase", 4), ("button", n), ("to_act", n), ("stacks", n), ("bets", n),
                    ("contrib", n), ("pot", 1), ("legal", 3), ("folded", n), ("all_in", n), ("draws", n),
                    ("actions", ROUNDS * n * 3), ("carried", 1), ("opener", n), ("can_open", 1),
                    ("shown", 52 * (n - 1))])


def obs_size(n: int) -> int:
    """Length of the observation vector at ``n`` seats."""
    stop: int = layout(n)["shown"].stop
    return stop


def bounds(n: int, chips: int, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 vectors of the observation: ``bets``, ``contrib`` and ``legal`` up to ``chips /
    unit`` (``chips``: every chip dealt at the table), ``stacks``, ``pot`` and ``carried`` up to the largest
    float32 (module doc), ``draws`` -1..5, action counts up to ``chips + 1``, the rest 0/1."""
    lay = layout(n)
    size = obs_size(n)
    low, high = np.zeros(size, dtype=np.float32), np.ones(size, dtype=np.float32)
    for name in ("bets", "contrib", "legal"):
        high[lay[name]] = chips / unit
    for name in ("stacks", "pot", "carried"):
        high[lay[name]] = np.finfo(np.float32).max
    low[lay["draws"]], high[lay["draws"]] = -1.0, 5.0
    high[lay["actions"]] = chips + 1
    return low, high


def observe(state: HandState, seat: int) -> np.ndarray:
    """What ``seat`` sees, encoded (module doc): never another seat's cards before they are shown (R5.7)."""
    v = np.zeros(obs_size(state.n), dtype=np.float32)
    observe_into(v, 0, state, seat)
    return v


def observe_into(v: Any, at: int, state: HandState, seat: int) -> None:
    """:func:`observe` written into ``v[at:]`` (zeros there before)."""
    n = state.n
    lay = layout(n)
    unit = float(state.config.unit)

    def rel(s: int) -> int:
        return (s - seat) % n

    def put(name: str, offset: int, value: float) -> None:
        v[at + lay[name].start + offset] = value

    own = state.cards[seat]
    for c in own:
        put("cards", c, 1.0)
    phase = state.phase
    put("phase", {Phase.BET1: 0, Phase.DRAW: 1, Phase.BET2: 2}.get(phase, 3), 1.0)
    put("button", rel(state.button), 1.0)
    if state.to_act is not None:
        put("to_act", rel(state.to_act), 1.0)
    for s in range(n):
        k = rel(s)
        put("stacks", k, state.stacks[s] / unit)
        put("bets", k, state.bets[s] / unit)
        put("contrib", k, state.contrib[s] / unit)
        put("folded", k, float(state.folded[s]))
        put("all_in", k, float(state.all_in[s]))
        drew = state.draws[s]
        put("draws", k, -1.0 if drew is None else float(drew))
    put("pot", 0, state.pot / unit)
    if state.to_act == seat and phase not in (Phase.DRAW, Phase.COMPLETE):
        legal = state.legal()
        for i, x in enumerate((legal.call_amount, legal.min_to, legal.max_to)):
            put("legal", i, (x or 0) / unit)
    drawn = False
    for event in state.history:
        kind = event["action"]
        if kind == "draw":
            drawn = True
        elif kind in _KIND_COLUMN:
            v[at + lay["actions"].start + (int(drawn) * n + rel(event["seat"])) * 3 + _KIND_COLUMN[kind]] += 1.0
    put("carried", 0, state.carried / unit)
    if state.opener is not None:
        put("opener", rel(state.opener), 1.0)
    if len(own) == 5 and may_open(own, state.game.openers):
        put("can_open", 0, 1.0)
    if phase is Phase.COMPLETE:
        for s in state.result().shown:
            if s != seat:
                for c in state.cards[s]:
                    put("shown", 52 * (rel(s) - 1) + c, 1.0)
