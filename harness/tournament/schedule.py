"""Tournament schedules: which bots meet, in which seats, on which deals.

A pairing strategy (cutechess style) is a small object that yields the
tables of a tournament: tuples of bot names in canonical (configuration)
order, and counts them without listing them (a plan of 800,000 matches is
refused before anything is built). :func:`build_schedule` turns tables into
matches: with duplicate on, a table of k bots is played as k matches on the
same deals (the same ``MatchSpec.seed``), rotation r putting bot i in seat
(i + r) % k, so every bot plays every seat's cards, so luck of the
cards cancels out of a bot's total.

Formats: ``round-robin`` (every combination of ``table_size`` bots),
``gauntlet`` (challengers against every combination of the others) and
``sampled`` (a balanced sample of tables, :mod:`harness.tournament.design`).

Tables and matches are named by their bots, never by their position in the
schedule (``"alice+bob"``, ``"alice+bob~2"`` for a table drawn twice), and
match seeds derive from the tournament seed and the table's bot names with
HMAC-SHA256 (:mod:`harness.deals`; never Python's salted ``hash()``),
so a table keeps its name and its deals when other bots are added to the
field or leave it, and a match seed reveals nothing of the tournament seed.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from math import comb
from typing import Protocol, TypeVar

from harness.deals import match_seed
from harness.errors import HarnessError
from harness.tournament import design

#: Separates bot names in table and match names ("+" is not allowed in a bot name).
SEAT_SEPARATOR = "+"
#: Separates a table's name from its instance number when the same bots are drawn twice.
INSTANCE_SEPARATOR = "~"


class Format(StrEnum):
    """Tournament formats (``[schedule] format``)."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    SAMPLED = "sampled"


class ScheduleError(HarnessError, ValueError):
    """A schedule that cannot be built from the given bots (e.g. too few)."""


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of a tournament.

    Attributes:
        match_id: unique, filesystem-safe id: the seated bots joined by ``+``
            (``"raiser+caller"``), then ``~i`` for the i-th copy of a table,
            then (once planned, :mod:`harness.tournament.plan`) ``-`` and the
            first 8 hex digits of the match's fingerprint.
        table: the table's name: its bots in canonical order joined by ``+``
            (and ``~i``); the same for every rotation of the table.
        rotation: 0..k-1; bot i of the table sits in seat (i + rotation) % k.
        rotations: matches played of this table (k with duplicate, else 1).
        bots: bot names by seat (seat 0 first).
        seed: the match seed, shared by every rotation of the table (secret: a bot that
            knows it knows every card).
        fingerprint: SHA-256 (hex) of everything that decides the match, set by
            the plan ("" before).
    """

    match_id: str
    table: str
    rotation: int
    bots: tuple[str, ...]
    seed: int
    rotations: int = 1
    fingerprint: str = ""


class PairingStrategy(Protocol):
    """Yields the tables of a tournament: tuples of ``table_size`` bot names."""

    @property
    def table_size(self) -> int:
        """Bots at each table (2 to 6, R1.2)."""
        ...  # pragma: no cover

    def count(self, bots: int) -> int:
        """Number of tables for ``bots`` bots, computed without listing them.

        Raises:
            ScheduleError: the parameters cannot be met.
        """
        ...  # pragma: no cover

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
        """Yield ``C(len(bots), table_size)`` tables, each sorted by name, in lexicographic order.

        Sorted by name, so the order of the bots in the file changes neither a
        table nor its seating.

        Raises:
            ScheduleError: fewer bots than seats.
        """
        if len(bots) < self.table_size:
            raise ScheduleError(f"round-robin needs at least table_size={self.table_size} bots, got {len(bots)}")
        yield from itertools.combinations(sorted(bots), self.table_size)

    def count(self, bots: int) -> int:
        """Number of tables for ``bots`` bots, without listing them: C(n, k)."""
        return comb(bots, self.table_size)


@dataclass(frozen=True, slots=True)
class Gauntlet:
    """Each challenger plays every combination of ``table_size - 1`` other bots.

    Challengers never meet each other; the rest of the field never meets
    without a challenger. Each table lists the challenger first, then the
    others sorted by name.
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
        field = sorted(b for b in bots if b not in self.challengers)
        if len(field) < self.table_size - 1:
            raise ScheduleError(
                f"gauntlet needs at least {self.table_size - 1} bots besides the challengers, got {len(field)}"
            )
        for challenger in self.challengers:
            for others in itertools.combinations(field, self.table_size - 1):
                yield (challenger, *others)

    def count(self, bots: int) -> int:
        """Number of tables for ``bots`` bots (challengers included), without listing them."""
        challengers = len(set(self.challengers))
        return challengers * comb(max(bots - challengers, 0), self.table_size - 1)


@dataclass(frozen=True, slots=True)
class Sampled:
    """A balanced sample of tables (:mod:`harness.tournament.design`), drawn from the seed.

    Give ``tables_per_bot`` (each bot sits at that many tables, within one) or
    ``tables`` (the total); with neither, each bot gets :func:`default_tables_per_bot`.
    ``previous`` (a design stored by an earlier run in the same output
    directory) is repaired rather than redrawn, so a late entry changes only
    its own tables.
    """

    table_size: int
    seed: int
    tables_per_bot: int | None = None
    total: int | None = None
    previous: tuple[tuple[str, ...], ...] | None = field(default=None, compare=False)

    def count(self, bots: int) -> int:
        """Number of tables for ``bots`` bots.

        Raises:
            ScheduleError: parameters no design can meet (see :func:`design.check_parameters`).
        """
        try:
            if self.total is not None:
                return design.check_parameters(bots, self.table_size, tables=self.total)
            per_bot = self.tables_per_bot or default_tables_per_bot(bots, self.table_size)
            return design.check_parameters(bots, self.table_size, tables_per_bot=per_bot)
        except design.DesignError as exc:
            raise ScheduleError(str(exc)) from None

    def tables(self, bots: Sequence[str]) -> Iterator[tuple[str, ...]]:
        """Yield the design's tables (seat order of rotation 0).

        Raises:
            ScheduleError: see :meth:`count`.
        """
        wanted = self.count(len(bots))
        names = sorted(bots)  # the design depends on the set of bots, not on their order in the file
        usable = self.previous is not None and all(len(t) == self.table_size for t in self.previous)
        if usable and self.previous:
            tables = design.repair(self.previous, names, self.table_size, wanted, seed=self.seed)
        else:
            tables = design.build(names, self.table_size, wanted, seed=self.seed)
        for table in tables:
            yield tuple(sorted(table))


def default_tables_per_bot(bots: int, table_size: int) -> int:
    """Tables per bot so that each pair of bots meets about twice: ``ceil(2 (n - 1) / (k - 1))``.

    Capped at the number of distinct tables a bot can sit at, ``C(n - 1, k - 1)``.
    """
    if bots < 2:
        return 1
    wanted = -(-2 * (bots - 1) // (table_size - 1))
    return max(1, min(wanted, comb(bots - 1, table_size - 1)))


def table_seed(tournament_seed: int, table: Sequence[str], instance: int = 0) -> int:
    """Return the match seed of a table (:func:`harness.deals.match_seed`).

    Args:
        tournament_seed: the tournament seed (secret unless the organiser gave one).
        table: the table's bot names (any order).
        instance: 0 for the first table of these bots, i for the i-th copy
            (sampled format): each copy gets its own deals.

    Returns:
        A 256-bit int, the same on every machine and run; keyed by the
        tournament seed (HMAC-SHA256), so it reveals nothing about it.
    """
    return match_seed(tournament_seed, [*table, f"#{instance}"] if instance else table)


def instance_of(table: str) -> int:
    """The copy number of a table name: 0 for ``"a+b"``, 1 for ``"a+b~2"`` (see :func:`table_name`)."""
    _, sep, number = table.rpartition(INSTANCE_SEPARATOR)
    return int(number) - 1 if sep and number.isdigit() else 0


_Seated = TypeVar("_Seated")


def rotate(table: Sequence[_Seated], rotation: int) -> tuple[_Seated, ...]:
    """Seat a table for one rotation: bot i (a name or a spec) goes to seat (i + rotation) % k.

    >>> rotate(("a", "b", "c"), 1)
    ('c', 'a', 'b')
    """
    k = len(table)
    seats = list(table)
    for i, bot in enumerate(table):
        seats[(i + rotation) % k] = bot
    return tuple(seats)


def table_name(table: Sequence[str], instance: int = 0) -> str:
    """``"a+b+c"``, or ``"a+b+c~2"`` for the second copy of a table (instance 1)."""
    return SEAT_SEPARATOR.join(table) + (f"{INSTANCE_SEPARATOR}{instance + 1}" if instance else "")


def build_schedule(
    strategy: PairingStrategy, bots: Sequence[str], *, seed: int, duplicate: bool = True
) -> list[ScheduledMatch]:
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
    matches: list[ScheduledMatch] = []
    copies: Counter[frozenset[str]] = Counter()
    for table in strategy.tables(bots):
        members = frozenset(table)
        instance = copies[members]
        copies[members] += 1
        canonical = tuple(sorted(table))
        deal_seed = table_seed(seed, canonical, instance)
        name = table_name(canonical, instance)
        if duplicate:
            rotations, chosen = len(table), range(len(table))
        else:  # one seating per table, drawn from the seed: every seat equally likely for every bot
            rotations, chosen = 1, range(deal_seed % len(table), deal_seed % len(table) + 1)
        for r in chosen:
            seated = rotate(canonical, r)
            match_id = table_name(seated, instance)
            matches.append(ScheduledMatch(match_id=match_id, table=name, rotation=r, bots=seated, seed=deal_seed,
                                   rotations=rotations))
    return matches
