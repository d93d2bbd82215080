"""Engine exceptions. Every message names the rule id (RULES.md) it enforces."""

from __future__ import annotations

from harness.errors import HarnessError


class CardError(HarnessError, ValueError):
    """Text or number that is not a card (R1.1)."""


class GameConfigError(HarnessError, ValueError):
    """Invalid game settings or table (bad blinds, table size, stacks ...)."""


class InvalidActionError(HarnessError, ValueError):
    """A malformed action: wrong types, a card not held, duplicate discards."""


class IllegalActionError(HarnessError, ValueError):
    """A well-formed action the rules forbid now (wrong turn, amount, phase)."""


class ReplayError(HarnessError, ValueError):
    """A hand record that the engine does not reproduce; names the first difference."""
