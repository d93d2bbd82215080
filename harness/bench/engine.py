"""Engine speed: random legal hands per second and seven-card evaluations per second.

Engine only (no bots, no sockets): start a hand, pick uniformly among the
legal action kinds with a seeded ``random.Random`` (bet/raise amounts
uniform in ``min_to..max_to``, draws of 0..4 cards), apply, until
the hand is complete, then read its result.

Rates are per CPU second of this process (``time.process_time``): the
engine is single-threaded, and on a shared 2-core machine wall-clock time
would mostly measure the other processes.

The native core (``native/``, :mod:`harness.engine.native`) is measured in the same run with the same
chooser written in Rust (``harness_core.play_random_hands``: no Python per action), and its
seven-card evaluations in Rust alone; the ``native_over_python`` ratios compare the two. The
``native_state`` figures play the same Python loop on the referee's native hand
(:class:`harness.engine.native_state.NativeHandState`: the rules in Rust, every action through the Python API).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from harness.engine import Action, GameConfig, HandState
from harness.engine.actions import BET, CALL_ACTION, CHECK_ACTION, DRAW, FOLD_ACTION, RAISE
from harness.engine.evaluator import best_hand, build_tables

_SIMPLE = {"fold": FOLD_ACTION, "check": CHECK_ACTION, "call": CALL_ACTION}


def play_random_hands(players: int, hands: int, seed: int = 1, config: GameConfig | None = None,
                      start: Callable[..., Any] = HandState.start) -> int:
    """Play ``hands`` random legal hands at a table of ``players``; return the number of actions.

    ``start`` deals each hand (``HandState.start``'s arguments): the Python engine, or the referee's
    native hand (``NativeHandState.start``), driven through the same Python API.
    """
    # random() is one C call; int(random() * k) is uniform over 0..k-1 up to 2**-53.
    rnd = random.Random(seed).random
    cfg = config or GameConfig()
    stacks = [1000] * players
    actions = 0
    for h in range(hands):
        state = start(cfg, stacks, h % players, seed * 1_000_003 + h)
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


def hands_per_second(players: int, seconds: float = 1.0, seed: int = 1,
                     start: Callable[..., Any] = HandState.start) -> float:
    """Random legal hands per CPU second at a table of ``players`` (runs at least ``seconds``), dealt by ``start``."""
    build_tables()  # the evaluator's one-off table, built once per process
    play_random_hands(players, 200, seed, start=start)
    done = 0
    t0 = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        play_random_hands(players, 1000, seed + done, start=start)
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


def native_hands_per_second(players: int, seconds: float = 1.0, seed: int = 1) -> float:
    """Random legal hands per CPU second of the native core alone at a table of ``players``.

    Raises:
        ImportError: the native core is not built (``make install``).
    """
    from harness.engine.native import play_random_hands

    batch = 2000
    done = 0
    t0 = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        play_random_hands(players, batch, seed + done)
        done += batch
        elapsed = time.process_time() - t0
        batch = min(batch * 2, 200_000)
    return done / elapsed


def native_evals_per_second(count: int = 2_000_000, seed: int = 1) -> float:
    """Seven-card evaluations (value and the five) per CPU second in the native core alone."""
    from harness.engine.native import evaluate_random

    t0 = time.process_time()
    evaluate_random(count, seed)
    return count / (time.process_time() - t0)


def run(seconds: float = 1.0) -> dict[str, Any]:
    """All engine figures: the Python engine's ``hands_per_s_heads_up``, ``hands_per_s_six_handed``,
    ``evals_per_s``, then the native core's (``native_...``) and the ratios, measured in the same run;
    ``native`` says ``not built`` when ``harness_core`` cannot be imported."""
    figures: dict[str, Any] = {
        "hands_per_s_heads_up": round(hands_per_second(2, seconds)),
        "hands_per_s_six_handed": round(hands_per_second(6, seconds)),
        "evals_per_s": round(evals_per_second()),
    }
    try:
        heads_up = native_hands_per_second(2, seconds)
        six = native_hands_per_second(6, seconds)
        evals = native_evals_per_second()
        from harness.engine.native_state import NativeHandState

        state_heads_up = hands_per_second(2, seconds, start=NativeHandState.start)
        state_six = hands_per_second(6, seconds, start=NativeHandState.start)
    except ImportError:
        figures["native"] = "not built (make install builds native/ with cargo)"
        return figures
    figures.update({
        "native_hands_per_s_heads_up": round(heads_up),
        "native_hands_per_s_six_handed": round(six),
        "native_evals_per_s": round(evals),
        "native_over_python_heads_up": round(heads_up / figures["hands_per_s_heads_up"], 1),
        "native_over_python_six_handed": round(six / figures["hands_per_s_six_handed"], 1),
        # the referee's hand: the rules in the core, driven action by action through HandState's Python API
        "native_state_hands_per_s_heads_up": round(state_heads_up),
        "native_state_hands_per_s_six_handed": round(state_six),
        "native_state_over_python_heads_up": round(state_heads_up / figures["hands_per_s_heads_up"], 2),
        "native_state_over_python_six_handed": round(state_six / figures["hands_per_s_six_handed"], 2),
    })
    return figures
