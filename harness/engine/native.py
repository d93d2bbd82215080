"""The native core: the same rules in Rust (the crate in ``native/``, Python module ``harness_core``).

The training environments play on the core, and so does the referee's Seven Card Draw hand
(:class:`harness.engine.native_state.NativeHandState`, over :data:`NativeHand`); this module is the
one door to the crate for the rest of the harness (``tests/test_layering.py``): :func:`start_native` builds
a :class:`harness_core.NativeHand` from the same arguments as :meth:`harness.engine.HandState.start`, so
both deal the same cards for the same seed (the crate implements CPython's Mersenne Twister and
``random.shuffle``, R2.7, R4.4) and play the same hand action for action (the differential test,
``harness bench engine --differential N``).
:data:`NativeTables` steps many self-play tables in one call (``harness.rl.native_vector`` wraps it),
:data:`NativeAec` plays the hands of the AEC environment (``harness.rl.aec``).
``make install`` builds the crate (cargo, maturin); importing this module without it raises ImportError.
"""

from __future__ import annotations

from collections.abc import Sequence

import harness_core

from harness.engine.cards import check_deck
from harness.engine.config import GameConfig

__all__ = ["NativeAec", "NativeHand", "NativeTables", "evaluate_random", "play_random_hands", "start_native"]

NativeHand = harness_core.NativeHand
#: N self-play tables stepped in one call, writing observations, masks and rewards into NumPy arrays
#: (the core of :class:`harness.rl.native_vector.NativeVectorEnv`).
NativeTables = harness_core.NativeTables
#: One table of the PettingZoo AEC environment: the hand, its decision, the observation and mask of any seat
#: written into new NumPy arrays (the core of :class:`harness.rl.aec.SevenCardDrawEnv`).
NativeAec = harness_core.NativeAec
#: Random legal hands in Rust alone (``harness bench engine``): ``play_random_hands(players, hands, seed,
#: **settings)`` returns the actions played; ``evaluate_random(count, seed)`` evaluates random seven-card hands.
play_random_hands = harness_core.play_random_hands
evaluate_random = harness_core.evaluate_random


def start_native(config: GameConfig, stacks: Sequence[int], button: int, seed: int, *,
                 deck: Sequence[int | str] | None = None, raise_cap: bool = True) -> harness_core.NativeHand:
    """A native hand: shuffle with ``random.Random(seed)``'s sequence, post, deal (R2), as ``HandState.start``.

    Args:
        config: the game settings (already checked by :class:`GameConfig`).
        stacks: chips per seat, 2..6 seats, each 1..2**50.
        button: the button's seat.
        seed: the hand's seed, any int (as ``HandState.start``).
        deck: a stacked deck (52 distinct cards, ints or texts) used instead of the shuffle.
        raise_cap: R3.4's bound on bets and raises (False only for earlier releases' histories, E14).

    Raises:
        ValueError: a table, stack, button or deck the rules refuse (R1.1, R1.2, R1.4, R2.1, R4.4);
            ``CardError`` for a stacked deck that is not the 52 cards.
    """
    return harness_core.NativeHand(
        list(stacks), button, seed,
        structure=str(config.structure), small_blind=config.small_blind, big_blind=config.big_blind,
        ante=config.ante, blinds=config.blinds, min_bet=config.min_bet, cap=config.cap,
        replacements=str(config.replacements),
        deck=None if deck is None else check_deck(deck), raise_cap=raise_cap,
    )
