"""Helpers for the engine tests: stacked hands, snapshots, stand-pat draws."""

from __future__ import annotations

from typing import Any

from harness.engine import GameConfig, HandState
from harness.engine.cards import stacked_deck
from harness.history.v1 import build_record


def new_hand(
    stacks: list[int],
    button: int = 0,
    hands: list[str] | None = None,
    stock: str = "",
    seed: int = 1,
    **settings: Any,
) -> HandState:
    """A hand with the given settings; ``hands`` stacks the deal (seat order)."""
    deck = stacked_deck(hands, button, stock) if hands else None
    return HandState.start(GameConfig(**settings), stacks, button, seed, deck=deck)


def stand_pat_all(state: HandState) -> None:
    """Everyone in the draw stands pat."""
    while state.phase == "draw":
        state.draw([])


def check_down(state: HandState) -> None:
    """Check (or stand pat) until the hand is over; fails if a check is impossible."""
    while not state.is_complete:
        if state.phase == "draw":
            state.draw([])
        else:
            state.check()


def snapshot(state: HandState) -> tuple[Any, ...]:
    """Everything an illegal action must leave unchanged."""
    return (
        state.phase,
        state.to_act,
        list(state.stacks),
        list(state.bets),
        list(state.contrib),
        list(state.folded),
        list(state.all_in),
        [list(c) for c in state.cards],
        list(state.draws),
        [dict(e) for e in state.history],
        state.legal(),
        build_record(state),
    )


CONFIGS = [
    GameConfig(),
    GameConfig(ante=2),
    GameConfig(structure="fixed-limit"),
    GameConfig(structure="fixed-limit", ante=1, cap=0),
    GameConfig(structure="fixed-limit", cap=2, replacements="per-seat"),
    GameConfig(blinds=False, ante=5, min_bet=10),
    GameConfig(blinds=False, ante=1, min_bet=2, structure="fixed-limit"),
    GameConfig(ante=3, replacements="per-seat"),
]
