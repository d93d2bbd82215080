"""``harness bench plan``: how long planning a class contest takes (no bot is started).

Sixty bots at 6 seats: the sampled format's default plan (every pair of bots
meeting about twice: 24 tables per bot, 240 tables, 1,440 matches) is made
from scratch, with its fingerprints, as ``harness run`` makes it; then a 61st
bot is fitted in (:func:`harness.tournament.design.repair`), and the
round-robin of the same field (50 million tables) is refused by its count,
never listed. Target: under a second for the plan.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from harness.tournament.config import ConfigError, parse_config
from harness.tournament.plan import make_plan

ROOT = Path(__file__).resolve().parents[2]


def _config(bots: int, fmt: str) -> Any:
    data = {
        "tournament": {"name": "bench-plan", "seed": 1},
        "schedule": {"format": fmt, "table_size": 6, "hands": 100},
        "bots": [{"name": f"student{i:02d}", "command": "python -m bots.caller"} for i in range(bots)],
    }
    return parse_config(data, ROOT / "bench-plan.toml")


def bench_plan(bots: int = 60) -> dict[str, float]:
    """Time the plan of ``bots`` bots at 6 seats (sampled), a late entry, and the refused round-robin.

    Returns:
        ``plan_s`` (seconds for the whole plan; ``plan_cpu_s`` in CPU seconds), ``load_average_1min``,
        ``tables``, ``matches``, ``pair_meetings_min``, ``pair_meetings_max``, ``mean_meetings``,
        ``late_entry_s``, ``late_entry_tables_changed`` and ``round_robin_refused_s``.
    """
    cfg = _config(bots, "sampled")
    start, cpu = time.perf_counter(), time.process_time()
    plan = make_plan(cfg, seed=1)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    balance = plan.balance()
    assert balance is not None
    bigger = _config(bots + 1, "sampled")
    start = time.perf_counter()
    late = make_plan(bigger, seed=1, previous_design=plan.design)
    late_s = time.perf_counter() - start
    assert plan.design is not None and late.design is not None
    changed = len(set(late.design) - set(plan.design))
    start = time.perf_counter()
    try:
        _config(bots, "round-robin")
        refused = False
    except ConfigError:
        refused = True
    refused_s = time.perf_counter() - start
    return {
        "plan_s": round(elapsed, 3),
        "plan_cpu_s": round(cpu, 3),  # the same, in CPU time: what a busy machine does not change
        "load_average_1min": round(os.getloadavg()[0], 2),
        "tables": float(plan.tables),
        "matches": float(len(plan.matches)),
        "pair_meetings_min": float(balance.pair_meetings[0]),
        "pair_meetings_max": float(balance.pair_meetings[1]),
        "mean_meetings": round(balance.mean_meetings, 3),
        "late_entry_s": round(late_s, 3),
        "late_entry_tables_changed": float(changed),
        "round_robin_refused_s": round(refused_s, 3) if refused else -1.0,
    }
