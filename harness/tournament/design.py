"""Sampled tables for 3-6 seats: a seeded, balanced incomplete block design, repaired locally.

A round-robin at k seats plays every one of the C(n, k) combinations of n
bots: 134,596 tables for 24 bots at 6 seats. The sampled format plays a
small set of tables instead, chosen so that the comparison stays fair:

1. every bot sits at the same number of tables, within one;
2. every pair of bots shares a table about equally often;
3. every bot sits in every seat equally often: with duplicate each table is
   played once per seat rotation, so this holds exactly.

Points 1-2 are the defining properties of a *balanced incomplete block
design* (BIBD; Fisher and Yates 1938; Colbourn and Dinitz, *Handbook of
Combinatorial Designs*, 2nd ed., 2007, part II): v points (bots) in blocks
(tables) of size k, each point in r blocks, each pair in lambda blocks. An
exact BIBD exists only for some (v, k, lambda) (it needs
``lambda (v - 1) = r (k - 1)`` and ``b k = v r``), so like the seatings of
bridge movements and Swiss-system poker leagues we use the nearest
*approximately balanced* design, found by search: a greedy construction
(each table filled with the bots that have played least, then the ones that
have met its members least) followed by a local search that swaps bots
between tables to minimise ``sum over pairs of meetings**2`` (for fixed
table counts the sum of meetings is fixed, so this minimises their
variance; this is the objective of the *social golfer* and "whist
tournament" searches, e.g. Harvey's CSPLib problem 10). All random choices
come from ``random.Random`` seeded with the tournament seed: the same seed
and bots give the same design.

Stability: a contest's bots change (a late entry, a bot that fails its entry
check, a withdrawal). Rebuilding the design would reseat everybody and
replay every match, so :func:`repair` instead changes only the tables that
must change: a new bot takes seats at new tables and the seats it vacates
for them elsewhere; a removed bot's tables are refilled or dissolved. The
number of tables touched equals the tables of the bot added or removed
(the minimum: each of them must change).

Bound (tested in tests/test_design.py and measured by ``harness bench plan``):
with lambda = r (k - 1) / (n - 1) the mean number of meetings of a pair,
every pair of a fresh design meets ``floor(lambda) - 1`` to ``ceil(lambda) +
1`` times (:data:`PAIR_SLACK`; met in all 1,498 parameter sets of n = 3..30
bots, k = 2..6 seats, r in 1, 2, 3, 5, 8, 13, two seeds each). After late
entries or removals, where most tables are kept as they were, ``floor(lambda)
- 2`` to ``ceil(lambda) + 2`` (:data:`REPAIR_SLACK`; met in all 180 repairs of a
sweep of 10-60 bots, the first bound still held in nine of ten). Every bot sits at the same number of
tables within one, always. The search often does better (an exact design such
as the Fano plane for 7 bots at 3 seats is found), but not always: exact
designs are rare and hard to find, so the bounds promised are the ones above.
The plan printed before a run gives the range reached.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import ceil, comb, floor

from harness.errors import HarnessError

#: Pairs meet from floor(lambda) - PAIR_SLACK to ceil(lambda) + PAIR_SLACK times (see the module docstring).
PAIR_SLACK = 1
#: The same after bots were added or removed (:func:`repair`), where most tables stay as they were.
REPAIR_SLACK = 2
#: Annealing steps per table slot and pass.
_SWAPS_PER_SLOT = 20
#: Annealing passes at most (a pass after the first only while the bound is not met).
_PASSES = 3
#: Fresh draws at most (only while the bound is not met).
_RESTARTS = 3


class DesignError(HarnessError, ValueError):
    """Parameters no design can meet (e.g. more tables per bot than distinct tables exist)."""


@dataclass(frozen=True, slots=True)
class Balance:
    """How balanced a design is.

    Attributes:
        tables_per_bot: (fewest, most) tables of any bot.
        pair_meetings: (fewest, most) tables shared by any pair of bots.
        mean_meetings: lambda, the mean number of tables a pair shares.
        repeated_tables: tables whose set of bots appears more than once.
    """

    tables_per_bot: tuple[int, int]
    pair_meetings: tuple[int, int]
    mean_meetings: float
    repeated_tables: int

    def within_bounds(self, slack: int = PAIR_SLACK) -> bool:
        """True when counts are within one and pairs within ``slack`` of lambda (see the module docstring)."""
        lo, hi = self.pair_meetings
        lam = self.mean_meetings
        pairs_ok = floor(lam) - slack <= lo and hi <= ceil(lam) + slack
        return self.tables_per_bot[1] - self.tables_per_bot[0] <= 1 and pairs_ok


def balance(tables: Sequence[Sequence[str]], bots: Sequence[str]) -> Balance:
    """Measure a design over ``bots`` (every pair of ``bots`` counts, also pairs that never meet)."""
    counts = Counter(b for t in tables for b in t)
    meet: Counter[tuple[str, str]] = Counter()
    for t in tables:
        for a, b in itertools.combinations(sorted(t), 2):
            meet[(a, b)] += 1
    pairs = [meet[(a, b)] for a, b in itertools.combinations(sorted(bots), 2)]
    per_bot = [counts[b] for b in bots]
    lam = sum(pairs) / len(pairs) if pairs else 0.0
    sets = Counter(frozenset(t) for t in tables)
    return Balance(
        tables_per_bot=(min(per_bot), max(per_bot)),
        pair_meetings=(min(pairs), max(pairs)) if pairs else (0, 0),
        mean_meetings=lam,
        repeated_tables=sum(c - 1 for c in sets.values() if c > 1),
    )


def table_count(bots: int, table_size: int, tables_per_bot: int) -> int:
    """Tables needed for each bot to sit at ``tables_per_bot`` of them (within one): ``ceil(n r / k)``."""
    return ceil(bots * tables_per_bot / table_size)


def check_parameters(bots: int, table_size: int, *, tables_per_bot: int | None = None,
                     tables: int | None = None) -> int:
    """Check a sampled format's parameters and return the number of tables.

    Raises:
        DesignError: fewer bots than seats, ``tables_per_bot`` above the number of distinct
            tables a bot can sit at (``C(n - 1, k - 1)``), or ``tables`` too few for every bot
            to play (``ceil(n / k)``) or more than the distinct tables (``C(n, k)``). The
            message says what is allowed.
    """
    if bots < table_size:
        raise DesignError(f"{bots} bots cannot fill a table of {table_size}; expected at least {table_size} bots")
    distinct_per_bot = comb(bots - 1, table_size - 1)
    if tables_per_bot is not None:
        if not 1 <= tables_per_bot <= distinct_per_bot:
            raise DesignError(
                f"tables_per_bot = {tables_per_bot} cannot be met with {bots} bots at {table_size} seats: a bot can "
                f"sit at only {distinct_per_bot} different tables; expected 1 to {distinct_per_bot} "
                "(or more [schedule] hands per match)"
            )
        return table_count(bots, table_size, tables_per_bot)
    assert tables is not None
    fewest, most = ceil(bots / table_size), comb(bots, table_size)
    if not fewest <= tables <= most:
        raise DesignError(
            f"tables = {tables} cannot be met with {bots} bots at {table_size} seats: expected {fewest} "
            f"(every bot plays) to {most} (every distinct table)"
        )
    return tables


class _Search:
    """Mutable design state: tables (lists of bot indices), per-bot counts, pair meetings."""

    def __init__(self, n: int, k: int, rng: random.Random) -> None:
        self.n, self.k, self.rng = n, k, rng
        self.tables: list[list[int]] = []
        self.count = [0] * n
        self.meet = [[0] * n for _ in range(n)]
        self.sets: Counter[frozenset[int]] = Counter()

    def add_table(self, members: list[int]) -> None:
        self.tables.append(members)
        for a in members:
            self.count[a] += 1
        for a, b in itertools.combinations(members, 2):
            self.meet[a][b] += 1
            self.meet[b][a] += 1
        self.sets[frozenset(members)] += 1

    def _unset(self, t: int) -> None:
        self.sets[frozenset(self.tables[t])] -= 1

    def _set(self, t: int) -> None:
        self.sets[frozenset(self.tables[t])] += 1

    def place(self, t: int, slot: int, bot: int) -> None:
        """Put ``bot`` in an empty slot (-1) of table t."""
        members = self.tables[t]
        self._unset(t)
        for m in members:
            if m >= 0:
                self.meet[bot][m] += 1
                self.meet[m][bot] += 1
        members[slot] = bot
        self.count[bot] += 1
        self._set(t)

    def vacate(self, t: int, slot: int) -> int:
        """Empty a slot of table t (-1) and return who sat there."""
        members = self.tables[t]
        bot = members[slot]
        self._unset(t)
        members[slot] = -1
        for m in members:
            if m >= 0:
                self.meet[bot][m] -= 1
                self.meet[m][bot] -= 1
        self.count[bot] -= 1
        self._set(t)
        return bot

    def cost_with(self, bot: int, members: Iterable[int], skip: int = -1) -> int:
        """Meetings ``bot`` already has with ``members`` (the pair-cost of seating it there)."""
        row = self.meet[bot]
        return sum(row[m] for m in members if m >= 0 and m != skip)

    def greedy(self, tables: int) -> None:
        """Fill ``tables`` tables, each with the bots that played least, then met its members least."""
        n, k, rng, meet, count = self.n, self.k, self.rng, self.meet, self.count
        for _ in range(tables):
            members: list[int] = []
            order = list(range(n))
            rng.shuffle(order)  # ties broken at random (seeded)
            met = [0] * n  # meetings of each bot with the members chosen so far
            while len(members) < k:
                free = [b for b in order if b not in members]
                fewest = min(count[b] for b in free)
                pool = [b for b in free if count[b] == fewest]
                last = len(members) + 1 == k
                best = min(pool, key=lambda b: (met[b], self._repeat(members, b) if last else 0))
                members.append(best)
                row = meet[best]
                for b in range(n):
                    met[b] += row[b]
            self.add_table(members)

    def _repeat(self, members: list[int], b: int) -> int:
        return self.sets[frozenset([*members, b])] if len(members) + 1 == self.k else 0

    def within_bounds(self) -> bool:
        """True when every pair meets floor(lambda) - PAIR_SLACK .. ceil(lambda) + PAIR_SLACK times."""
        slots = len(self.tables) * self.k * (self.k - 1) // 2
        lam = slots / (self.n * (self.n - 1) / 2)
        lo, hi = floor(lam) - PAIR_SLACK, ceil(lam) + PAIR_SLACK
        return all(lo <= self.meet[a][b] <= hi for a in range(self.n) for b in range(a + 1, self.n))

    def total_cost(self) -> float:
        """The annealing objective over all pairs."""
        cost = self.pair_costs()
        return sum(cost[self.meet[a][b]] for a in range(self.n) for b in range(a + 1, self.n))

    def pair_costs(self) -> list[float]:
        """Cost of a pair by its meetings: squared distance to lambda, and far more outside floor..ceil."""
        slots = sum(self.k * (self.k - 1) // 2 for _ in self.tables)
        lam = slots / (self.n * (self.n - 1) / 2)
        lo, hi = floor(lam), ceil(lam)
        top = len(self.tables) + 2
        return [(m - lam) ** 2 + 8 * (max(lo - m, 0, m - hi) ** 2) for m in range(top)]

    def violating_bots(self, slack: int = PAIR_SLACK) -> set[int]:
        """Bots of the pairs that meet outside floor(lambda) - slack .. ceil(lambda) + slack times."""
        slots = len(self.tables) * self.k * (self.k - 1) // 2
        lam = slots / (self.n * (self.n - 1) / 2)
        lo, hi = floor(lam) - slack, ceil(lam) + slack
        return {x for a in range(self.n) for b in range(a + 1, self.n)
                if not lo <= self.meet[a][b] <= hi for x in (a, b)}

    def _delta(self, ta: int, a: int, tb: int, b: int, cost: list[float]) -> float:
        """Change of the objective if ``a`` (at table ta) and ``b`` (at tb) swap tables."""
        meet = self.meet
        ra, rb = meet[a], meet[b]
        delta = 0.0
        for m in self.tables[ta]:
            if m != a:
                x, y = ra[m], rb[m]
                delta += cost[x - 1] - cost[x] + cost[y + 1] - cost[y]
        for m in self.tables[tb]:
            if m != b:
                x, y = rb[m], ra[m]
                delta += cost[x - 1] - cost[x] + cost[y + 1] - cost[y]
        return delta

    def _swap(self, ta: int, ia: int, tb: int, ib: int) -> bool:
        """Swap two seats' bots unless that repeats a table; True when done."""
        A, B = self.tables[ta], self.tables[tb]
        a, b = A[ia], B[ib]
        keys = {frozenset(A), frozenset(B), frozenset(B) - {b} | {a}, frozenset(A) - {a} | {b}}
        before = sum(max(self.sets[key] - 1, 0) for key in keys)
        self.vacate(ta, ia)
        self.vacate(tb, ib)
        self.place(ta, ia, b)
        self.place(tb, ib, a)
        if sum(max(self.sets[key] - 1, 0) for key in keys) > before:
            self.vacate(ta, ia)
            self.vacate(tb, ib)
            self.place(ta, ia, a)
            self.place(tb, ib, b)
            return False
        return True

    def fix_pairs(self, movable: Sequence[int] | None = None, slack: int = PAIR_SLACK, rounds: int = 4) -> bool:
        """Steepest descent aimed at the pairs outside the bound: for each, the best swap that mends it.

        A pair that met too rarely is brought together (one of them moves to a table of
        the other); a pair that met too often is split (one of them leaves a shared
        table). A swap is made only when it lowers the objective. Returns True when every
        pair is within ``slack``.
        """
        allowed = set(range(len(self.tables)) if movable is None else movable)
        cost = self.pair_costs()
        slots = len(self.tables) * self.k * (self.k - 1) // 2
        lam = slots / (self.n * (self.n - 1) / 2)
        lo, hi = floor(lam) - slack, ceil(lam) + slack
        for _ in range(rounds):
            bad = [(a, b) for a in range(self.n) for b in range(a + 1, self.n) if not lo <= self.meet[a][b] <= hi]
            if not bad:
                return True
            where: dict[int, list[int]] = {}
            for r in allowed:
                for m in self.tables[r]:
                    where.setdefault(m, []).append(r)
            for a, b in bad:
                best: tuple[float, int, int, int, int] | None = None
                if self.meet[a][b] < lo:  # bring a to one of b's tables (or b to one of a's)
                    for x, y in ((a, b), (b, a)):
                        for tx in where.get(x, ()):
                            if y in self.tables[tx]:
                                continue
                            for ty in where.get(y, ()):
                                if x in self.tables[ty]:
                                    continue
                                for iz, z in enumerate(self.tables[ty]):
                                    if z == y or z in self.tables[tx]:
                                        continue
                                    d = self._delta(tx, x, ty, z, cost)
                                    if best is None or d < best[0]:
                                        best = (d, tx, self.tables[tx].index(x), ty, iz)
                elif self.meet[a][b] > hi:  # move a or b away from a table they share
                    for t in where.get(a, ()):
                        if b not in self.tables[t]:
                            continue
                        for x in (a, b):
                            for u in allowed:
                                if u == t or x in self.tables[u]:
                                    continue
                                for iz, z in enumerate(self.tables[u]):
                                    if z in self.tables[t]:
                                        continue
                                    d = self._delta(t, x, u, z, cost)
                                    if best is None or d < best[0]:
                                        best = (d, t, self.tables[t].index(x), u, iz)
                if best is not None and best[0] < 0:
                    _, ta, ia, tb, ib = best
                    if self._swap(ta, ia, tb, ib):
                        for r in (ta, tb):  # keep the index of tables by bot current
                            for m in where:
                                where[m] = [q for q in where[m] if q != r]
                            for m in self.tables[r]:
                                where.setdefault(m, []).append(r)
        return self.violating_bots(slack) == set()

    def improve(self, movable: Sequence[int] | None = None, *, strict: bool = False) -> None:
        """Simulated annealing over swaps of two bots between tables (never creating a repeated table).

        Half the proposals are random swaps; the others aim at a fault: the member of a
        random table that has met its table-mates most is moved out, or a bot is moved to
        the table of a bot it has met too rarely.

        Args:
            movable: tables whose members may move (default: all); a swap needs both tables in it.
            strict: take only swaps that lower the cost (a descent: no table changes for nothing).
        """
        ts = list(range(len(self.tables))) if movable is None else list(movable)
        if len(ts) < 2:
            return
        rng, k, meet, tables = self.rng, self.k, self.meet, self.tables
        cost = self.pair_costs()
        lo = min(m for m in range(len(cost)) if cost[m] == min(cost))  # floor(lambda) or ceil(lambda)
        steps = _SWAPS_PER_SLOT * len(ts) * k
        temp0 = 15.0
        rand = rng.random  # int(rand() * n) is several times faster than randrange/sample
        nt = len(ts)
        for step in range(steps):
            temp = temp0 * (1.0 - step / steps) ** 2 + 1e-9
            kind = rand()
            ta = ts[int(rand() * nt)]
            tb = ts[int(rand() * nt)]
            if ta == tb:
                continue
            ib = int(rand() * k)
            if kind < 0.6:
                ia = int(rand() * k)
            elif kind < 0.8:  # move out the member that has met its table-mates most
                A = tables[ta]
                worst = -1.0
                ia = 0
                for i in range(k):
                    row = meet[A[i]]
                    c = sum([cost[row[m]] for m in A])  # row[A[i]] is 0: cost[0] is the same for all i
                    if c > worst:
                        worst, ia = c, i
            else:  # bring together a pair that met too rarely
                ia = int(rand() * k)
                a = tables[ta][ia]
                row = meet[a]
                B = tables[tb]
                if a in B:
                    continue
                keep = [i for i in range(k) if row[B[i]] < lo]
                if not keep:
                    continue
                choices = [i for i in range(k) if i not in keep]
                if not choices:
                    continue
                ib = choices[int(rand() * len(choices))]
            A, B = tables[ta], tables[tb]
            a, b = A[ia], B[ib]
            if a in B or b in A:
                continue
            delta = self._delta(ta, a, tb, b, cost)
            if (delta >= 0) if strict else (delta > 0 and rand() >= math.exp(-delta / temp)):
                continue
            self._swap(ta, ia, tb, ib)  # refused when it would repeat a table


def _rng(seed: int, label: str) -> random.Random:
    digest = hashlib.sha256(f"sampled-design\x00{seed}\x00{label}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def build(bots: Sequence[str], table_size: int, tables: int, *, seed: int) -> list[tuple[str, ...]]:
    """A fresh design: ``tables`` tables of ``table_size`` bots (see the module docstring).

    Args:
        bots: the bots, in a fixed order (the order only matters through the seeded tie-breaks).
        table_size: seats per table, 2..6.
        tables: number of tables (:func:`table_count` or ``[schedule] tables``).
        seed: the tournament seed (or any secret derived from it).

    Returns:
        The tables, each a tuple of bot names in seat order for rotation 0.
    """
    n, k = len(bots), table_size
    best: _Search | None = None
    for attempt in range(_RESTARTS):  # a restart (another seeded draw) only while the bound is not met
        search = _Search(n, k, _rng(seed, f"build{attempt}" if attempt else "build"))
        search.greedy(tables)
        for _ in range(_PASSES):  # a further pass (annealing again) only while the bound is not met
            search.improve()
            if search.within_bounds() or search.fix_pairs():
                return [tuple(bots[i] for i in t) for t in search.tables]
        if best is None or search.total_cost() < best.total_cost():
            best = search
    assert best is not None
    return [tuple(bots[i] for i in t) for t in best.tables]


def repair(previous: Sequence[Sequence[str]], bots: Sequence[str], table_size: int, tables: int, *,
           seed: int) -> list[tuple[str, ...]]:
    """Fit an earlier design to a changed set of bots, changing as few tables as possible.

    Tables that hold only bots still in ``bots`` and are not needed to make room
    stay exactly as they were (same members, same seat order). A removed bot's
    seats are refilled (or some of its tables dissolved when fewer tables are
    needed); a new bot takes one seat at each new table and the seats vacated
    for those tables by bots already playing, so every bot ends within one
    table of the others. Only the tables touched are then improved by the
    local search.

    Args:
        previous: the earlier design (tables of names).
        bots: the bots now in the contest.
        table_size: seats per table.
        tables: number of tables wanted now.
        seed: the tournament seed.

    Returns:
        The design: kept tables first, in their earlier order, then the changed and new ones.
    """
    n, k = len(bots), table_size
    index = {b: i for i, b in enumerate(bots)}
    rng = _rng(seed, "repair\x00" + "\x00".join(sorted(bots)))
    search = _Search(n, k, rng)
    touched: set[int] = set()
    holes: list[tuple[int, int]] = []
    origin: list[tuple[str, ...] | None] = []  # each row's earlier members (None: a new table)
    for t in previous:
        if len(t) != k:
            continue
        members = [index.get(b, -1) for b in t]
        row = len(search.tables)
        origin.append(tuple(t))
        search.tables.append([-1] * k)
        search.sets[frozenset(search.tables[row])] += 1
        for slot, b in enumerate(members):
            if b >= 0:
                search.place(row, slot, b)
            else:
                holes.append((row, slot))
                touched.add(row)
    # Fewer tables wanted: dissolve tables with holes first (their bots are re-seated), then others.
    while len(search.tables) > tables:
        candidates = sorted(touched) or list(range(len(search.tables)))
        row = rng.choice(candidates)
        for slot in range(k):
            if search.tables[row][slot] >= 0:
                search.vacate(row, slot)
        search.sets[frozenset(search.tables[row])] -= 1
        search.tables.pop(row)
        origin.pop(row)
        holes = [(r - (r > row), s) for r, s in holes if r != row]
        touched = {r - (r > row) for r in touched if r != row}
    while len(search.tables) < tables:
        row = len(search.tables)
        origin.append(None)
        search.tables.append([-1] * k)
        search.sets[frozenset(search.tables[row])] += 1
        holes += [(row, slot) for slot in range(k)]
        touched.add(row)
    # Quotas: every bot within one of total / n; the extra seats go to those already holding more.
    total = tables * k
    base, extra = divmod(total, n)
    order = sorted(range(n), key=lambda b: (-search.count[b], rng.random()))
    quota = [base] * n
    for b in order[:extra]:
        quota[b] += 1
    # Bots over their quota give up the seat where they meet their table-mates most.
    for b in range(n):
        while search.count[b] > quota[b]:
            seats = [(r, s) for r, t in enumerate(search.tables) for s, m in enumerate(t) if m == b]
            r, s = max(seats, key=lambda rs: (rs[0] in touched, search.cost_with(b, search.tables[rs[0]], b)))
            search.vacate(r, s)
            holes.append((r, s))
            touched.add(r)
    _fill(search, holes, quota, touched)
    for _ in range(_PASSES):
        search.improve(sorted(touched))
        if search.within_bounds() or search.fix_pairs(sorted(touched)):
            break
    for _ in range(_PASSES):
        # Outside the repair bound: let the tables of the bots concerned move too, by descent only,
        # so a table changes only where a swap brings a pair back towards lambda.
        bad = search.violating_bots(REPAIR_SLACK)
        if not bad:
            break
        concerned = {r for r, t in enumerate(search.tables) if bad.intersection(t)}
        search.fix_pairs(sorted(touched | concerned), slack=REPAIR_SLACK)
    named = [tuple(bots[i] for i in t) for t in search.tables]
    kept = [t for r, t in enumerate(named) if origin[r] == t]
    changed = [t for r, t in enumerate(named) if origin[r] != t]
    return kept + changed


def _fill(search: _Search, holes: list[tuple[int, int]], quota: list[int], touched: set[int]) -> None:
    """Fill every hole with a bot under its quota, moving one bot along when none fits (a chain of two)."""
    rng = search.rng
    pending = list(holes)
    guard = 0
    while pending:
        guard += 1
        if guard > 100_000:  # pragma: no cover - a bug, never a user mistake
            raise RuntimeError("sampled design repair did not converge")
        pending.sort(key=lambda rs: rs)
        r, s = pending.pop(0)
        members = search.tables[r]
        under = [b for b in range(search.n) if search.count[b] < quota[b] and b not in members]
        if under:
            best = min(under, key=lambda b: (search.count[b] - quota[b], search.cost_with(b, members),
                                             search._repeat([m for m in members if m >= 0], b), rng.random()))
            search.place(r, s, best)
            continue
        # Nobody under quota can sit here: move a bot y from another table u to here, and leave
        # u's seat to a bot under quota that is not at u.
        needy = [b for b in range(search.n) if search.count[b] < quota[b]]
        options = []
        for u, table in enumerate(search.tables):
            if u == r:
                continue
            for slot, y in enumerate(table):
                if y < 0 or y in members:
                    continue
                takers = [z for z in needy if z not in table]
                if takers:
                    # y's meetings at its new table, less those it leaves, plus the best taker's at u.
                    rest = [m for m in table if m != y]
                    cost = (search.cost_with(y, members) - search.cost_with(y, table, y)
                            + min(search.cost_with(z, rest) for z in takers))
                    options.append((u in touched, cost, rng.random(), u, slot))
        if not options:  # pragma: no cover - cannot happen with n > k
            raise RuntimeError("sampled design repair found no bot to move")
        _, _, _, u, slot = min(options, key=lambda o: (not o[0], o[1], o[2]))
        y = search.vacate(u, slot)
        search.place(r, s, y)
        pending.append((u, slot))
        touched.add(u)
