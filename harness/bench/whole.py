"""A whole match's cost, start-up to exit, and the cost of its hands alone: a long run minus a short one, the
way ``harness bench match`` measures our referee with its bots and the MIT Pokerbots engine with its own."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """One whole match, start-up to exit: ``hands`` played, ``decisions`` taken, ``wall_s`` (s), ``cpu_s`` of
    every process of the match (the referee or engine and both bots; user + system, s)."""

    hands: int
    decisions: int
    wall_s: float
    cpu_s: float


def per_decision(long: Run, short: Run) -> dict[str, float]:
    """The cost of the hands a long run plays beyond a short one: start-up and shutdown cancel out.

    Returns:
        ``cpu_us_per_decision`` (every process of the match, µs) and ``hands_per_s`` (wall).
    """
    cpu = max(long.cpu_s - short.cpu_s, 1e-9) / max(1, long.decisions - short.decisions)
    return {"cpu_us_per_decision": cpu * 1e6,
            "hands_per_s": (long.hands - short.hands) / max(long.wall_s - short.wall_s, 1e-9)}


def short_of(hands: int) -> int:
    """The short run beside a long one of ``hands``: a tenth, at least 2 hands."""
    return max(2, hands // 10)
