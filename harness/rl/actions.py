"""The layout of the environments' one action space (documented in :mod:`harness.rl.encoding`): the home of
what the encodings and the features (:mod:`harness.rl.features`, whose draw abstraction names draw actions)
both use.

Index :data:`FOLD`, :data:`CALL`, then a bet/raise to one of :data:`SIZES` from :data:`BET_BASE`, then a draw
of one of :data:`DISCARDS` (the sets of 0-4 positions of the seven cards, R4.1) from :data:`DRAW_BASE`;
:data:`N_ACTIONS` in all. Deuce-to-Seven Triple Draw's space (:mod:`harness.rl.tripledraw`) has the same betting
indices, then one of :data:`DISCARDS_27` (the sets of 0-5 positions of the five cards, R8.1) from
:data:`DRAW_BASE`.
"""

from __future__ import annotations

from itertools import combinations

__all__ = ["BET_BASE", "CALL", "DISCARDS", "DISCARDS_27", "DRAW_BASE", "FOLD", "N_ACTIONS", "SIZES"]

SIZES = ("min", "half_pot", "pot", "two_pots", "all_in")
FOLD, CALL = 0, 1
BET_BASE = 2
DISCARDS: tuple[tuple[int, ...], ...] = tuple(c for k in range(5) for c in combinations(range(7), k))
DRAW_BASE = BET_BASE + len(SIZES)
N_ACTIONS = DRAW_BASE + len(DISCARDS)
assert len(DISCARDS) == 99
#: Triple Draw's draws: sets sorted by size, then lexicographically, ``()`` (stand pat) first (R8.1).
DISCARDS_27: tuple[tuple[int, ...], ...] = tuple(c for k in range(6) for c in combinations(range(5), k))
assert len(DISCARDS_27) == 32
