"""Engine speed: random legal hands per second and seven-card evaluations per second.

Engine only (no bots, no sockets): start a hand, pick uniformly among the
legal action kinds with a seeded ``random.Random`` (bet/raise amounts
uniform in ``min_to..max_to``, draws of 0..4 cards), apply, until
the hand is complete, then read its result.

Rates are per CPU second of this process (``time.process_time``): the
engine is single-threaded, and on a shared 2-core machine wall-clock time
would mostly measure the other processes.
"""

from __future__ import annotations

import random
import time
from typing import Any

from harness.engine import Action, GameConfig, HandState
from harness.engine.actions import BET, CALL_ACTION, CHECK_ACTION, DRAW, FOLD_ACTION, RAISE
from harness.engine.evaluator import best_hand, build_tables

_SIMPLE = {"fold": FOLD_ACTION, "check": CHECK_ACTION, "call": CALL_ACTION}


def play_random_hands(players: int, hands: int, seed: int = 1, config: GameConfig | None = None) -> int:
    """Play ``hands`` random legal hands at a table of ``players``; return the number of actions."""
    # random() is one C call; int(random() * k) is uniform over 0..k-1 up to 2**-53.
    rnd = random.Random(seed).random
    cfg = config or GameConfig()
    stacks = [1000] * players
    actions = 0
    for h in range(hands):
        state = HandState.start(cfg, stacks, h % players, seed * 1_000_003 + h)
        apply = state.apply
        while state.to_act is not None:
            lg = state.legal()
            kinds = lg.actions
            kind = kinds[int(rnd() * len(kinds))]
            if kind is DRAW:
                cards = state.cards[state.to_act]
                first = int(rnd() * 4)
                apply(Action(DRAW, 0, tuple(cards[first : first + int(rnd() * 5)])))
            elif kind is BET or kind is RAISE:
                lo = lg.min_to
                apply(Action(kind, lo + int(rnd() * (lg.max_to - lo + 1))))
            else:
                apply(_SIMPLE[kind])
            actions += 1
        state.result()
    return actions


def hands_per_second(players: int, seconds: float = 1.0, seed: int = 1) -> float:
    """Random legal hands per CPU second at a table of ``players`` (runs at least ``seconds``)."""
    build_tables()  # the evaluator's one-off table, built once per process
    play_random_hands(players, 200, seed)
    done = 0
    t0 = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        play_random_hands(players, 1000, seed + done)
        done += 1000
        elapsed = time.process_time() - t0
    return done / elapsed


def evals_per_second(count: int = 200_000, seed: int = 1) -> float:
    """Seven-card ``best_hand`` calls (value, category and the five) per second."""
    rng = random.Random(seed)
    hands = [rng.sample(range(52), 7) for _ in range(count)]
    build_tables()  # one-off cost of a long-running process; not part of the rate
    t0 = time.process_time()
    for hand in hands:
        best_hand(hand)
    return count / (time.process_time() - t0)


def run(seconds: float = 1.0) -> dict[str, Any]:
    """All engine figures: ``hands_per_s_heads_up``, ``hands_per_s_six_handed``, ``evals_per_s``."""
    return {
        "hands_per_s_heads_up": round(hands_per_second(2, seconds)),
        "hands_per_s_six_handed": round(hands_per_second(6, seconds)),
        "evals_per_s": round(evals_per_second()),
    }
