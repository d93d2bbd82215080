"""Engine exceptions. Every message names the rule id (RULES.md) it enforces."""

from __future__ import annotations


class CardError(ValueError):
    """Text or number that is not a card (R1.1)."""


class ConfigError(ValueError):
    """Invalid game settings or table (bad blinds, table size, stacks ...)."""


class InvalidActionError(ValueError):
    """A malformed action: wrong types, a card not held, duplicate discards."""


class IllegalActionError(ValueError):
    """A well-formed action the rules forbid now (wrong turn, amount, phase)."""


class ReplayError(ValueError):
    """A hand record that the engine does not reproduce; names the first difference."""
