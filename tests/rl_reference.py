"""The reference (first, plain) implementation of the RL encodings, kept to check the fast one against.

``harness.rl.encoding`` computes masks, decodings and observations with tables and in-place numpy writes;
these are the straightforward versions it replaced, written from the module doc. Tests assert the two give
identical arrays and actions over thousands of random decisions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.rl.encoding import BET_BASE, CALL, DISCARDS, DRAW_BASE, FOLD, N_ACTIONS, SIZES, layout

_FRACTIONS = {"half_pot": 0.5, "pot": 1.0, "two_pots": 2.0}
_PHASE_NAMES = ("bet1", "draw", "bet2", "complete")
_KIND_COLUMN = {"check": 0, "call": 1, "bet": 2, "raise": 2}


def amounts(legal: Any, bet: int, pot: int) -> list[int]:
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


def mask_of(phase: str, legal: Any, bet: int, pot: int) -> np.ndarray:
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    if phase == "draw":
        m[DRAW_BASE:] = 1
        return m
    if phase == "complete":
        return m
    m[CALL] = 1
    if legal.call_amount > 0:
        m[FOLD] = 1
    if legal.min_to:
        seen = set()
        for i, to in enumerate(amounts(legal, bet, pot)):
            if to not in seen:
                seen.add(to)
                m[BET_BASE + i] = 1
    return m


def decode_of(phase: str, legal: Any, bet: int, pot: int, cards: list[Any], index: int) -> tuple[str, Any]:
    index = int(index)
    if phase == "draw":
        if DRAW_BASE <= index < N_ACTIONS:
            return "draw", [cards[p] for p in DISCARDS[index - DRAW_BASE]]
    elif phase != "complete":
        if index == CALL:
            return ("call", None) if legal.call_amount > 0 else ("check", None)
        if index == FOLD and legal.call_amount > 0:
            return "fold", None
        if BET_BASE <= index < DRAW_BASE and legal.min_to:
            a = amounts(legal, bet, pot)
            i = index - BET_BASE
            if a[i] not in a[:i]:
                return ("bet" if "bet" in legal.actions else "raise"), a[i]
    raise ValueError(f"action {index} is not legal now (phase {phase})")


def observe(state: Any, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` in an engine state, field by field as the module doc lists them."""
    n = state.n
    lay = layout(n)
    unit = float(state.config.unit)
    v = [0.0] * lay["shown"].stop
    for c in state.cards[seat]:
        v[c] = 1.0
    v[lay["phase"].start + _PHASE_NAMES.index(str(state.phase))] = 1.0
    v[lay["button"].start + (state.button - seat) % n] = 1.0
    to_act = state.to_act
    if to_act is not None:
        v[lay["to_act"].start + (to_act - seat) % n] = 1.0
    rel = [(seat + k) % n for k in range(n)]
    for name, values in (("stacks", state.stacks), ("bets", state.bets), ("contrib", state.contrib)):
        for k, s in enumerate(rel):
            v[lay[name].start + k] = values[s] / unit
    v[lay["pot"].start] = sum(state.contrib) / unit
    if to_act == seat and str(state.phase) != "draw":
        legal = state.legal()
        at = lay["legal"].start
        v[at], v[at + 1], v[at + 2] = legal.call_amount / unit, legal.min_to / unit, legal.max_to / unit
    for k, s in enumerate(rel):
        v[lay["folded"].start + k] = 1.0 if state.folded[s] else 0.0
        v[lay["all_in"].start + k] = 1.0 if state.all_in[s] else 0.0
        v[lay["draws"].start + k] = -1.0 if state.draws[s] is None else float(state.draws[s])
    round_ = 0
    for event in state.history:
        kind = event["action"]
        if kind == "draw":
            round_ = 1
        column = _KIND_COLUMN.get(kind)
        if column is not None:
            v[lay["actions"].start + (round_ * n + (event["seat"] - seat) % n) * 3 + column] += 1.0
    if state.is_complete:
        for s in state.result().shown:
            if s != seat:
                for c in state.cards[s]:
                    v[lay["shown"].start + 52 * ((s - seat) % n - 1) + c] = 1.0
    return np.array(v, dtype=np.float32)
