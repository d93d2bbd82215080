"""``harness bench league``: tournament throughput with 1 and 2 parallel matches.

A short heads-up duplicate round-robin of four cheap bots (two callers, two
seeded random bots: 6 pairs x 2 rotations = 12 matches) is run with each
job count into a temporary directory; the figure is total hands played
divided by wall-clock seconds. Matches are independent, so 2 jobs should
give close to twice the hands/s of 1 job on a machine with 2 free cores.
"""

from __future__ import annotations

import resource
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from harness.tournament.config import TournamentConfig, parse_config, with_overrides
from harness.tournament.runner import run_tournament

ROOT = Path(__file__).resolve().parents[2]


def bench_config(hands: int = 250) -> TournamentConfig:
    """The benchmark's tournament: 4 bots, heads-up, duplicate, ``hands`` per match."""
    data = {
        "tournament": {"name": "bench-league", "seed": 1},
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


def bench_league(hands: int = 250, jobs: Sequence[int] = (1, 2)) -> dict[str, float]:
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
            summary = run_tournament(cfg, quiet=True)
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
