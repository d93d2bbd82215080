"""Tournament schedules: which bots meet, in which seats, on which deals.

A pairing strategy (cutechess style) is a small object that yields the
tables of a tournament: tuples of bot names in canonical (configuration)
order. :func:`build_schedule` turns tables into matches: with duplicate on,
a table of k bots is played as k matches on the same deals (the same
``MatchSpec.seed``), rotation r putting bot i in seat (i + r) % k, so every
bot plays every seat's cards (DESIGN.md "Tournament promises").

Match seeds derive from the tournament seed and the table's bot names with
HMAC-SHA256 (:mod:`harness.match.deals`; never Python's salted ``hash()``),
so a table keeps its deals when other bots are added to the field and a
match seed reveals nothing of the tournament seed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from harness.match.deals import match_seed


class Format(StrEnum):
    """Tournament formats (``[schedule] format``)."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"


class ScheduleError(ValueError):
    """A schedule that cannot be built from the given bots (e.g. too few)."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a tournament.

    Attributes:
        match_id: unique, filesystem-safe id, e.g. ``"t003-r1-raiser-caller"``.
        table: index of the table (duplicate set) in the schedule, 0-based.
        rotation: 0..k-1; bot i of the table sits in seat (i + rotation) % k.
        bots: bot names by seat (seat 0 first).
        seed: the match seed, shared by every rotation of the table (secret: a bot that
            knows it knows every card).
    """

    match_id: str
    table: int
    rotation: int
    bots: tuple[str, ...]
    seed: int


class PairingStrategy(Protocol):
    """Yields the tables of a tournament: tuples of ``table_size`` bot names."""

    def tables(self, bots: Sequence[str]) -> Iterator[tuple[str, ...]]:
        """Yield each table once, bots in the order of ``bots``.

        Raises:
            ScheduleError: the bots cannot fill a table.
        """
        ...  # pragma: no cover


@dataclass(frozen=True, slots=True)
class RoundRobin:
    """Every combination of ``table_size`` bots plays (every pair when 2)."""

    table_size: int = 2

    def tables(self, bots: Sequence[str]) -> Iterator[tuple[str, ...]]:
        """Yield ``C(len(bots), table_size)`` tables in lexicographic order of positions.

        Raises:
            ScheduleError: fewer bots than seats.
        """
        if len(bots) < self.table_size:
            raise ScheduleError(f"round-robin needs at least table_size={self.table_size} bots, got {len(bots)}")
        yield from itertools.combinations(tuple(bots), self.table_size)


@dataclass(frozen=True, slots=True)
class Gauntlet:
    """Each challenger plays every combination of ``table_size - 1`` other bots.

    Challengers never meet each other; the rest of the field never meets
    without a challenger. Each table lists the challenger first.
    """

    challengers: tuple[str, ...]
    table_size: int = 2

    def tables(self, bots: Sequence[str]) -> Iterator[tuple[str, ...]]:
        """Yield ``len(challengers) * C(field, table_size - 1)`` tables.

        Raises:
            ScheduleError: a challenger is not among ``bots``, or the field is
                smaller than ``table_size - 1``.
        """
        unknown = [c for c in self.challengers if c not in bots]
        if unknown or not self.challengers:
            raise ScheduleError(f"gauntlet challengers must be bot names, got {list(self.challengers)}")
        field = [b for b in bots if b not in self.challengers]
        if len(field) < self.table_size - 1:
            raise ScheduleError(
                f"gauntlet needs at least {self.table_size - 1} bots besides the challengers, got {len(field)}"
            )
        for challenger in self.challengers:
            for others in itertools.combinations(field, self.table_size - 1):
                yield (challenger, *others)


def table_seed(tournament_seed: int, table: Sequence[str]) -> int:
    """Return the match seed of a table (:func:`harness.match.deals.match_seed`).

    Args:
        tournament_seed: the tournament seed (secret unless the organiser gave one).
        table: the table's bot names (any order).

    Returns:
        A 256-bit int, the same on every machine and run; keyed by the
        tournament seed (HMAC-SHA256), so it reveals nothing about it.
    """
    return match_seed(tournament_seed, table)


def rotate(table: Sequence[str], rotation: int) -> tuple[str, ...]:
    """Seat a table for one rotation: bot i goes to seat (i + rotation) % k.

    >>> rotate(("a", "b", "c"), 1)
    ('c', 'a', 'b')
    """
    k = len(table)
    seats: list[str] = [""] * k
    for i, name in enumerate(table):
        seats[(i + rotation) % k] = name
    return tuple(seats)


def build_schedule(
    strategy: PairingStrategy, bots: Sequence[str], *, seed: int, duplicate: bool = True
) -> list[Pairing]:
    """Expand a strategy's tables into the tournament's matches.

    Args:
        strategy: yields the tables.
        bots: all bot names, in configuration order.
        seed: the tournament seed.
        duplicate: play each table once per rotation (k matches) instead of once.

    Returns:
        Matches in play order: table by table, rotation by rotation.

    Raises:
        ScheduleError: from the strategy.
    """
    matches: list[Pairing] = []
    for t, table in enumerate(strategy.tables(bots)):
        table_key = table_seed(seed, table)
        rotations = range(len(table)) if duplicate else range(1)
        for r in rotations:
            seated = rotate(table, r)
            match_id = f"t{t:03d}-r{r}-" + "-".join(seated)
            matches.append(Pairing(match_id=match_id, table=t, rotation=r, bots=seated, seed=table_key))
    return matches
