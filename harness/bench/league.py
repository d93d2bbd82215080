"""``harness bench league``: tournament throughput, the cost of a match, a class contest.

- ``hands_per_s_jobs_<j>``: a short heads-up duplicate round-robin of four
  cheap bots (two callers, two seeded random bots: 6 pairs x 2 rotations = 12
  matches) run with each job count; total hands played divided by
  wall-clock seconds. Matches are independent, so 2 jobs should give close to
  twice the hands/s of 1 job on a machine with 2 free cores.
- ``match_overhead_ms``: what a match costs beyond its hands, through the
  runner (fork, start-up and handshake of two Python ``caller`` bots, the
  clean stop that leaves no process, the result files): the median wall time
  of a match, from its worker's start to its record, minus its hands' time at
  the steady rate measured on a long match (:func:`harness.tournament.estimate.calibrate`).
- ``hands_per_s_dask_local_2``: the same league on the dask backend, a
  ``LocalCluster`` of 2 single-threaded workers (started before the clock
  runs: ``dask_cluster_start_s``), against 2 local jobs measured alternately
  with it (``dask_over_jobs_2``, best of three each); ``dask_task_ms`` is what one job costs on the Dask
  path (submission, scheduling, the worker's checks, scratch space, shipping
  the files back, the runner's writes) measured with jobs that do nothing,
  beside ``local_task_ms`` (a forked worker) for the same jobs. Left out
  when ``distributed`` is not installed.
- ``contest_hands_per_s``: a class contest (24 copies of the
  example bots, heads-up, 100 hands a match), scaled down to fit a minute:
  12 bots, 132 matches; entry check, plan and estimate as ``harness run`` does
  them, with ``contest_estimate_error`` = estimated / measured time - 1.
"""

from __future__ import annotations

import importlib.util
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil

from harness.tournament.cluster import DaskExecutor, reached_as_configured
from harness.tournament.config import TournamentConfig, parse_config, with_overrides
from harness.tournament.estimate import DEFAULT_RATES, calibrate
from harness.tournament.runner import run_tournament
from harness.tournament.workers import Executor, Job, LocalExecutor, run_all

ROOT = Path(__file__).resolve().parents[2]


def bench_config(hands: int = 250) -> TournamentConfig:
    """The benchmark's tournament: 4 bots, heads-up, duplicate, ``hands`` per match."""
    data = {
        "tournament": {"name": "bench-league", "seed": 1, "entry_check": False},
        "schedule": {"table_size": 2, "hands": hands, "duplicate": True},
        "bots": [
            {"name": "caller1", "command": "python -m bots.caller"},
            {"name": "caller2", "command": "python -m bots.caller"},
            {"name": "random1", "command": "python -m bots.random_bot", "env": {"RANDOM_BOT_SEED": "1"}},
            {"name": "random2", "command": "python -m bots.random_bot", "env": {"RANDOM_BOT_SEED": "2"}},
        ],
    }
    return parse_config(data, ROOT / "bench-league.toml")


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its waited-for descendants."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def bench_league(quick: bool = False, hands: int = 250) -> dict[str, float]:
    """Every figure of ``harness bench league``: :func:`throughput`, :func:`match_overhead`, :func:`contest`.

    Args:
        quick: leave out the class contest (about 40 s).
        hands: hands per match of the benchmark league (250; fewer only to try the command out: the
            figures then weigh start-up more).
    """
    return {**throughput(hands), **dask_throughput(hands), **match_overhead(min(hands, 20)),
            **({} if quick else contest())}


def noop_job(directory: Path) -> dict[str, float]:
    """A job that does nothing (the per-job cost of an executor)."""
    return {}


def _job_ms(executor: Executor, count: int, root: Path) -> float:
    """Milliseconds of worker time per do-nothing job: wall x parallel jobs / jobs, through run_all."""
    jobs = []
    for i in range(count):
        directory = root / f"job{i}"
        directory.mkdir(parents=True)
        jobs.append(Job(key=f"noop{i}", func=noop_job, args=(directory,), directory=directory))
    done: list[Any] = []
    start = time.perf_counter()
    run_all(executor, jobs, done.append, poll_s=0.05)
    elapsed = time.perf_counter() - start
    assert all(d.result == {} for d in done) and len(done) == count
    # ``parallel`` is None for local workers: as many run at once as their capacity (Executor.parallel).
    return round(1000 * elapsed * (executor.parallel or executor.capacity) / count, 2)


def dask_throughput(hands: int = 250, workers: int = 2, noop_jobs: int = 200, rounds: int = 3) -> dict[str, float]:
    """The benchmark league and do-nothing jobs on a ``local:<workers>`` Dask cluster ({} without distributed).

    The league is played ``rounds`` times on the cluster and as many times with
    ``workers`` local jobs, alternately (load from elsewhere on the machine
    hits both alike); the best of each gives ``hands_per_s_dask_local_<n>`` and
    ``dask_over_jobs_<n>`` (target >= 0.9).
    """
    if importlib.util.find_spec("distributed") is None:
        return {}

    figures: dict[str, float] = {}
    start = time.perf_counter()
    with DaskExecutor.connect(f"local:{workers}") as executor, \
            reached_as_configured(executor.client.security), \
            tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:  # each run reaches it as an organiser's
        figures["dask_cluster_start_s"] = round(time.perf_counter() - start, 2)
        address = executor._local_address
        best = {"dask": 0.0, "local": 0.0}
        for r in range(rounds):
            for kind, override in (("local", {"jobs": workers}), ("dask", {"cluster": address})):
                cfg = with_overrides(bench_config(hands), out=Path(tmp) / f"{kind}{r}", **override)
                start = time.perf_counter()
                if kind == "dask":  # a connection per run, as `harness run --cluster` makes
                    with DaskExecutor.for_config(cfg) as ex:
                        summary = run_tournament(cfg, quiet=True, rates=DEFAULT_RATES, executor=ex)
                else:
                    summary = run_tournament(cfg, quiet=True, rates=DEFAULT_RATES)
                best[kind] = max(best[kind], summary.hands_run / (time.perf_counter() - start))
        figures[f"hands_per_s_dask_local_{workers}"] = round(best["dask"], 1)
        figures[f"dask_over_jobs_{workers}"] = round(best["dask"] / best["local"], 2)
        figures["dask_task_ms"] = _job_ms(executor, noop_jobs, Path(tmp) / "dask-noop")
        figures["local_task_ms"] = _job_ms(LocalExecutor(workers, pin=True), noop_jobs, Path(tmp) / "local-noop")
    return figures


def throughput(hands: int = 250, jobs: Sequence[int] = (1, 2)) -> dict[str, float]:
    """Run the benchmark league once per job count.

    Args:
        hands: hands per match (12 matches).
        jobs: job counts to measure.

    Returns:
        ``{"hands_per_s_jobs_<j>": float, "cores_used_jobs_<j>": float, ...}`` plus
        ``"speedup"`` (hands/s of the last job count over the first) and ``"hands"`` (per run).
    """
    figures: dict[str, float] = {}
    total = 0
    for j in jobs:
        with tempfile.TemporaryDirectory(prefix="bench-league-") as tmp:
            cfg = with_overrides(bench_config(hands), out=Path(tmp) / "out", jobs=j)
            before = _cpu_seconds()
            start = time.perf_counter()
            summary = run_tournament(cfg, quiet=True, rates=DEFAULT_RATES)
            elapsed = time.perf_counter() - start
            total = summary.hands_run
            figures[f"hands_per_s_jobs_{j}"] = round(summary.hands_run / elapsed, 1)
            # Cores our process tree kept busy: with other load on the machine, 2 jobs cannot
            # reach 2x; this shows whether the harness or the machine was the limit.
            figures[f"cores_used_jobs_{j}"] = round((_cpu_seconds() - before) / elapsed, 2)
    first, last = figures[f"hands_per_s_jobs_{jobs[0]}"], figures[f"hands_per_s_jobs_{jobs[-1]}"]
    figures["speedup"] = round(last / first, 2) if first else 0.0
    figures["hands"] = float(total)
    return figures


def match_overhead(hands: int = 20, bots: int = 4) -> dict[str, float]:
    """The cost of a match beyond its hands, through the runner, with Python ``caller`` bots (1 job).

    Returns:
        ``match_overhead_ms`` (median match wall time minus ``hands`` x the steady time
        per hand), ``match_wall_ms_median``, ``hand_ms_heads_up`` and
        ``processes_left`` (bot processes alive after the run: 0 expected).
    """
    rates = calibrate(2, hands=500)
    per_hand = rates.hand_s[2]
    data = {
        "tournament": {"name": "bench-overhead", "seed": 1, "entry_check": False},
        "schedule": {"table_size": 2, "hands": hands, "jobs": 1},
        "bots": [{"name": f"caller{i}", "command": "python -m bots.caller"} for i in range(bots)],
    }
    cfg = parse_config(data, ROOT / "bench-overhead.toml")
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
        summary = run_tournament(with_overrides(cfg, out=Path(tmp) / "out"), quiet=True, rates=rates)
    median = statistics.median(summary.match_walls)
    return {
        "match_overhead_ms": round(1000 * (median - hands * per_hand), 1),
        "match_wall_ms_median": round(1000 * median, 1),
        "hand_ms_heads_up": round(1000 * per_hand, 3),
        "processes_left": float(len([p for p in psutil.Process().children(recursive=True)
                                     if p.status() != psutil.STATUS_ZOMBIE])),
    }


#: The class contest's bots: copies of the example bots (``bots/``), 3 of each.
CONTEST_MODULES = ("caller", "raiser", "random_bot", "solid")


def contest_config(copies: int = 3, hands: int = 100) -> TournamentConfig:
    """The scaled-down class contest: ``copies`` of each example bot, heads-up, ``hands`` a match."""
    bots = []
    for module in CONTEST_MODULES:
        for i in range(copies):
            entry: dict[str, Any] = {"name": f"{module}{i}", "command": f"python -m bots.{module}"}
            if module == "random_bot":
                entry["env"] = {"RANDOM_BOT_SEED": str(i)}
            bots.append(entry)
    data = {"tournament": {"name": "bench-contest", "seed": 1}, "schedule": {"hands": hands}, "bots": bots}
    return parse_config(data, ROOT / "bench-contest.toml")


def contest(copies: int = 3, hands: int = 100) -> dict[str, float]:
    """Run the scaled-down class contest as ``harness run`` would; hands/s and the estimate's error."""
    cfg = contest_config(copies, hands)
    with tempfile.TemporaryDirectory(prefix="bench-contest-") as tmp:
        summary = run_tournament(with_overrides(cfg, out=Path(tmp) / "out"), quiet=True)
    assert summary.estimate is not None
    return {
        "contest_hands_per_s": round(summary.hands_run / summary.seconds, 1),
        "contest_matches": float(summary.matches_run),
        "contest_seconds": round(summary.seconds, 1),
        "contest_estimate_s": round(summary.estimate.seconds, 1),
        "contest_estimate_error": round(summary.estimate.seconds / summary.seconds - 1, 3),
    }
