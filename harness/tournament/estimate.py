"""Time and disk estimates of a plan, from rates measured on this machine.

A match costs a fixed part (starting the bots, the handshake, stopping them,
the runner's bookkeeping) plus a part per hand, both growing with the seats
at the table. :func:`calibrate` measures both with ``bots.caller`` at the
plan's table size (two short real matches, about a second); a bot slower to
start or to decide than ``caller`` adds what its entry check measured
(:class:`BotCost`); and once matches of the plan are recorded, the estimate
is scaled by how long they really took (the last run's rate).

Parallel matches: a local run plays :func:`effective_jobs` matches at once
(``jobs``, or with 0 the CPUs this process may use), the number the estimate
states; the wall time is the sum of the match times divided by that number,
or by the CPUs when there are fewer (:func:`speedup`: each match pinned to one
CPU of its own; ``harness bench league`` shows 2 jobs at about 2x).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.engine import GameConfig, Replacements
from harness.match.referee import Referee
from harness.specs import BotSpec, Limits, MatchSpec

#: Bytes of a match record (``results.jsonl`` line, and its copy ``result.json``) and per hand and seat.
RECORD_BYTES, RECORD_BYTES_PER_SEAT_HAND = 700, 6
#: File system block: every small file (result.json, referee.log) and directory takes at least one.
BLOCK = 4096
#: Directories per match (``matches/<id>/`` and its ``logs/``).
DIRS_PER_MATCH = 2
#: The report (``report/``, ``reports/``): per match (its page and the hands kept for the viewer) and once
#: (plotly.js and the index), measured on a 24-bot contest (docs/organisers.md "Publishing results").
REPORT_BYTES_PER_MATCH, REPORT_BYTES = 50_000, 5_000_000
#: An entry check's hand history and logs (``entries/<bot>/``).
ENTRY_BYTES = 50_000
#: The runner's own time per match (fork, result files, fsyncs), seconds.
RUNNER_S = 0.03
#: Decisions per hand and seat counted at most (a raise war in an entry check is not a match's rate).
MAX_DECISIONS_PER_HAND = 6.0


@dataclass(frozen=True, slots=True)
class Rates:
    """Seconds and bytes of a match of ``bots.caller`` bots, by table size (seats 2..8).

    Attributes:
        start_s: fixed seconds of a match (launch, handshake, stop, runner).
        hand_s: seconds per hand.
        hand_bytes: bytes per hand of a gzip-compressed hand history.
        measured: True when measured here and now (:func:`calibrate`), False for the defaults.
    """

    start_s: Mapping[int, float]
    hand_s: Mapping[int, float]
    hand_bytes: Mapping[int, float]
    measured: bool = False

    def match_seconds(self, seats: int, hands: int) -> float:
        """Estimated wall seconds of one match of caller-like bots on a CPU of its own."""
        return self.start_s[seats] + hands * self.hand_s[seats]

    def match_bytes(self, seats: int, hands: int, compressed: bool = True) -> float:
        """Estimated disk use of one match: hand history, result.json, referee.log, directories, its record.

        Files are counted in whole blocks, as ``du`` counts them (the bots' logs are empty when
        they write nothing).
        """
        history = hands * self.hand_bytes[seats] * (1 if compressed else 9)
        record = RECORD_BYTES + hands * seats * RECORD_BYTES_PER_SEAT_HAND
        return _blocks(history) + _blocks(record) + BLOCK + DIRS_PER_MATCH * BLOCK + record


def _blocks(size: float) -> float:
    """``size`` rounded up to whole file-system blocks."""
    return -(-size // BLOCK) * BLOCK


#: Measured on the 2-core development VM (docs/speed.md), for messages that cannot wait for a calibration;
#: 7 and 8 seats (Five Card Draw only, R7.1) are extended from 5 and 6 by the same step, not measured.
DEFAULT_RATES = Rates(
    start_s={2: 0.17, 3: 0.24, 4: 0.30, 5: 0.40, 6: 0.48, 7: 0.56, 8: 0.64},
    hand_s={2: 0.0011, 3: 0.0016, 4: 0.0019, 5: 0.0034, 6: 0.0042, 7: 0.0050, 8: 0.0058},
    hand_bytes={2: 169, 3: 243, 4: 316, 5: 386, 6: 449, 7: 512, 8: 575},  # version-2 records, gzip flushed per hand
)


@dataclass(frozen=True, slots=True)
class BotCost:
    """What a bot costs beyond ``bots.caller``, measured by its entry check.

    Attributes:
        start_s: extra seconds to start (and stop).
        decision_s: extra seconds per decision.
        decisions_per_hand: its decisions per hand in the check (at most :data:`MAX_DECISIONS_PER_HAND`).
    """

    start_s: float = 0.0
    decision_s: float = 0.0
    decisions_per_hand: float = 3.0


@dataclass(frozen=True, slots=True)
class PlanCost:
    """A plan's cost.

    Attributes:
        seconds: wall-clock seconds for the matches still to play.
        bytes: disk bytes for them, with their part of the report.
        matches: matches still to play.
        hands: hands still to play.
        jobs: matches that run at once (the runner's executor runs this many).
        source: where the rates come from ("measured now", "the last run", "defaults").
        cpus: the CPUs they share when fewer than ``jobs`` (the time is
            divided by these), else None.
    """

    seconds: float
    bytes: float
    matches: int
    hands: int
    jobs: int
    source: str
    cpus: int | None = None

    def describe(self) -> str:
        """``"about 6 min with 2 jobs, 120 MB (rates: measured now)"`` (``"with 3 jobs on 2 CPUs"``)."""
        on = f" on {self.cpus} CPU{'s' if self.cpus != 1 else ''}" if self.cpus is not None else ""
        return (f"about {describe_seconds(self.seconds)} with {self.jobs} job{'s' if self.jobs != 1 else ''}{on}, "
                f"{describe_bytes(self.bytes)} on disk (rates: {self.source})")


def describe_seconds(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"3.5 h"``, ``"9 days"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


def disk_warning(estimate: PlanCost, out_dir: Path) -> str | None:
    """A warning when the disk of ``out_dir`` (or of its nearest existing parent) has less free space
    than ``estimate.bytes``, else None (also when the free space cannot be read)."""
    where = Path(out_dir).absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        stat = os.statvfs(where)
    except OSError:
        return None
    free = stat.f_bavail * stat.f_frsize
    if free >= estimate.bytes:
        return None
    return (f"the disk of {out_dir} has {describe_bytes(free)} free, the matches to play need about "
            f"{describe_bytes(estimate.bytes)}: a run stops when it is full (exit status 4; nothing recorded is "
            "lost); free space, or give --out a directory on a larger disk")


def describe_bytes(count: float) -> str:
    """``"830 kB"``, ``"12 MB"``, ``"1.4 GB"`` (powers of 1000)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= size:
            return f"{count / size:.1f} {unit}" if count < 10 * size else f"{count / size:.0f} {unit}"
    return f"{count:.0f} B"


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity: ``taskset``, a container's cpuset), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def effective_jobs(jobs: int) -> int:
    """Matches a local run plays at once: ``jobs`` as given (``--jobs``, ``[schedule] jobs``), 0 = :func:`usable_cpus`.

    The one count of the local executor (:class:`harness.tournament.workers.LocalExecutor`'s
    capacity), the estimate and the refined estimate.
    """
    return max(1, jobs or usable_cpus())


def speedup(at_once: int, *, local: bool = True) -> int:
    """What ``at_once`` parallel matches divide the wall time by: the CPUs they share when fewer (here).

    A cluster's worker threads (``local=False``) each have a CPU of their own.
    """
    return max(1, min(at_once, usable_cpus()) if local else at_once)


@dataclass(slots=True)
class MatchCost:
    """Inputs of one match's estimate: seats, hands and the bots by seat."""

    seats: int
    hands: int
    bots: Sequence[str]


def match_seconds(rates: Rates, match: MatchCost, costs: Mapping[str, BotCost]) -> float:
    """Estimated wall seconds of one match, including each bot's extra cost over ``caller``.

    ``rates`` gives a match of ``caller`` bots; each bot adds its extra start-up
    and, per hand, its decisions times its extra time per decision.
    """
    base = rates.match_seconds(match.seats, match.hands) + RUNNER_S
    extra_start = sum(costs[b].start_s for b in match.bots if b in costs)
    extra_hand = sum(costs[b].decision_s * min(costs[b].decisions_per_hand, MAX_DECISIONS_PER_HAND)
                     for b in match.bots if b in costs)
    return base + extra_start + match.hands * extra_hand


def plan_cost(rates: Rates, matches: Iterable[MatchCost], costs: Mapping[str, BotCost], *, jobs: int,
              compressed: bool = True, scale: float = 1.0, source: str = "", extra_bytes: float = 0.0,
              parallel: int | None = None) -> PlanCost:
    """Estimate the wall time and disk use of ``matches`` run ``jobs`` at a time.

    Args:
        rates: per-table-size rates (:func:`calibrate` or :data:`DEFAULT_RATES`).
        matches: the matches still to play.
        costs: per bot, what its entry check measured beyond ``caller``.
        jobs: parallel matches (``[schedule] jobs``; 0 = the CPUs here, :func:`effective_jobs`).
        compressed: hand histories gzipped (the default).
        scale: measured / estimated time of the matches already recorded (1 without any).
        source: where the rates come from, for :meth:`PlanCost.describe`.
        extra_bytes: disk used once (the report's fixed part, the entry checks).
        parallel: matches that really run at once, when not ``jobs`` on this
            machine (the worker threads of a Dask cluster).
    """
    seconds = 0.0
    size = 0.0
    count = hands = 0
    for m in matches:
        seconds += match_seconds(rates, m, costs)
        size += rates.match_bytes(m.seats, m.hands, compressed) + REPORT_BYTES_PER_MATCH
        count += 1
        hands += m.hands
    local = parallel is None
    at_once = effective_jobs(jobs) if parallel is None else max(1, parallel)
    speed = speedup(at_once, local=local)
    if count:
        size += extra_bytes
    return PlanCost(seconds=seconds * scale / speed, bytes=size, matches=count, hands=hands, jobs=at_once,
                    source=source or ("measured now" if rates.measured else "defaults"),
                    cpus=speed if speed < at_once else None)


def calibrate(seats: int, *, hands: int = 200, cpu: int | None = None) -> Rates:
    """Measure the rates of ``seats``-handed matches of ``bots.caller`` here (two real matches).

    A 1-hand and a ``hands``-hand match are played through the referee, pinned
    to one CPU as the runner pins its matches; their difference gives the time
    per hand, the short one the fixed part. The other table sizes keep their
    defaults. Takes about 0.5 s heads-up, 2 s at 6 seats.

    Raises:
        OSError: no temporary directory could be written.
    """
    bots = [BotSpec(f"caller{i}", (sys.executable, "-m", "bots.caller"), cwd=_repo_root()) for i in range(seats)]
    game = GameConfig(replacements=Replacements.PER_SEAT if seats <= 4 else Replacements.STOCK)
    if cpu is None and hasattr(os, "sched_getaffinity"):
        cpu = min(os.sched_getaffinity(0))
    walls = []
    size = 0
    with tempfile.TemporaryDirectory(prefix="harness-calibrate-") as tmp:
        for n in (1, hands):
            out = Path(tmp) / f"m{n}"
            # Compressed as a tournament writes it (gzip flushed after every hand): time and bytes.
            referee = Referee(bots, MatchSpec(game=game, hands=n, seed=n, compress=True), Limits(), out,
                              cpus=None if cpu is None else {cpu})
            start = time.perf_counter()
            referee.run()
            walls.append(time.perf_counter() - start)
            if n == hands:
                size = (out / "hands.jsonl.gz").stat().st_size
    per_hand = max((walls[1] - walls[0]) / max(hands - 1, 1), 1e-5)
    start_s = max(walls[0] - per_hand, 0.01)
    return Rates(
        start_s={**DEFAULT_RATES.start_s, seats: start_s},
        hand_s={**DEFAULT_RATES.hand_s, seats: per_hand},
        hand_bytes={**DEFAULT_RATES.hand_bytes, seats: size / hands},
        measured=True,
    )


def _repo_root() -> str:
    """The directory that holds ``bots/`` (the example bots' cwd)."""
    return os.fspath(Path(__file__).resolve().parents[2])


class Refiner:
    """Refines a run's estimate once its first matches are done (their real times against the model's).

    A table's time depends on who sits at it together (two bots that raise each
    other at every turn make long hands, a bot's thinking can grow with its
    opponents), which a bot's entry check against ``caller`` and ``raiser`` cannot
    show, and on what else runs on the machine. So after the first tenth of the
    run (at least two matches per job) the estimate is scaled by how long those
    matches really took.

    Args:
        rates: the rates of the first estimate.
        todo: the matches of the run, by match id.
        costs: the bots' costs of the first estimate.
        jobs: parallel matches.
        parallel: matches that really run at once, when not ``jobs`` here (a Dask cluster's threads).
    """

    def __init__(self, rates: Rates, todo: Mapping[str, MatchCost], costs: Mapping[str, BotCost],
                 jobs: int, parallel: int | None = None) -> None:
        self.predicted = {key: match_seconds(rates, m, costs) for key, m in todo.items()}
        self.jobs = max(1, parallel) if parallel is not None else effective_jobs(jobs)
        self.at = max(2 * self.jobs, -(-len(todo) // 10))
        self.done_predicted = self.done_measured = 0.0
        self.done: set[str] = set()
        self.said = False

    def record(self, key: str, duration_s: float) -> str | None:
        """Count a finished match; at the refinement point return the line to print (once), else None."""
        if key not in self.predicted or key in self.done:
            return None
        self.done.add(key)
        self.done_predicted += self.predicted[key]
        self.done_measured += duration_s + RUNNER_S
        if self.said or len(self.done) < self.at or len(self.done) >= len(self.predicted) or not self.done_predicted:
            return None
        self.said = True
        scale = self.done_measured / self.done_predicted
        # The real times were taken with self.jobs matches sharing the CPUs: divided by all of them.
        left = sum(s for k, s in self.predicted.items() if k not in self.done) * scale / self.jobs
        return (f"estimate after {len(self.done)} of {len(self.predicted)} matches: about {describe_seconds(left)} "
                f"left (these matches took {scale:.2f}x the first estimate)")
