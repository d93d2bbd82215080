"""The flaky bot: plays like the caller, but now and then replies too late or illegally.

A deliberately broken but harmless bot for fault-handling runs
(``tournaments/faults.toml``): it exercises the referee's timeouts, illegal
action handling and "out after max_faults" rule in a real tournament.

Run: ``python -m bots.flaky`` (started by the harness). Tuned by environment
variables (set them in the tournament file's ``env`` for the bot):

- ``FLAKY_TIMEOUT_RATE`` (default 0.02): share of decisions answered late.
  A late reply sleeps past ``decision_ms`` + the remaining bank, but never
  longer than ``FLAKY_MAX_SLEEP_MS`` (default 3000); with a large bank the
  sleep only drains the bank (a slow reply, not yet a fault).
- ``FLAKY_ILLEGAL_RATE`` (default 0.03): share of decisions answered with an
  illegal action (a raise below the minimum, a check facing a bet, or five
  discards).
- ``FLAKY_SEED`` (default: the bot's name): the seed of its coin flips, so
  a run is reproducible.
"""

from __future__ import annotations

import os
import random
import time

from bots._cards import discard_to_best_five
from protocol.sdk import Action, Bot, DecisionState, call, check

# Added to the deadline so that a late reply is really late (ms).
_LATE_MARGIN_MS = 30


def _rate(name: str, default: float) -> float:
    try:
        return min(1.0, max(0.0, float(os.environ.get(name, default))))
    except ValueError:
        return default


class Flaky(Bot):
    """Caller's play with injected faults at the rates above."""

    def __init__(self) -> None:
        super().__init__()
        self.timeout_rate = _rate("FLAKY_TIMEOUT_RATE", 0.02)
        self.illegal_rate = _rate("FLAKY_ILLEGAL_RATE", 0.03)
        try:
            self.max_sleep_ms = max(0, int(os.environ.get("FLAKY_MAX_SLEEP_MS", "3000")))
        except ValueError:
            self.max_sleep_ms = 3000
        self.rng = random.Random(os.environ.get("FLAKY_SEED") or os.environ.get("HARNESS_BOT_NAME", "flaky"))

    def _maybe_sleep(self, state: DecisionState) -> None:
        if self.rng.random() < self.timeout_rate:
            late_ms = state.time.decision_ms + state.time.bank_ms + _LATE_MARGIN_MS
            time.sleep(min(late_ms, self.max_sleep_ms) / 1000)

    def act(self, state: DecisionState) -> Action:
        self._maybe_sleep(state)
        if self.rng.random() < self.illegal_rate:
            if (state.can("raise") or state.can("bet")) and state.min_to > 1:
                return Action("raise" if state.can("raise") else "bet", state.min_to - 1)
            return check() if not state.can("check") else call()
        return check() if state.can("check") else call()

    def draw(self, state: DecisionState) -> list[str]:
        self._maybe_sleep(state)
        if self.rng.random() < self.illegal_rate:
            return list(state.cards[:5])
        return discard_to_best_five(state.cards)[: state.max_discards]


if __name__ == "__main__":
    raise SystemExit(Flaky().run())
