"""Benchmarks called by ``harness bench``: they print figures, they never assert.

Every ``harness bench`` command prints its figures the same way (:func:`render`):
one table of figure, value and, where docs/speed.md sets one, the target; with
``--json``, one JSON object with the same keys and values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

#: docs/speed.md targets, by figure. ``overhead_ratio`` is the one the 1.3 target means:
#: wall time per heads-up hand at the headline placement / (decisions per hand x the
#: raw ZeroMQ round trip, free placement), on an otherwise idle machine.
TARGETS: dict[str, str] = {
    "hands_per_s_heads_up": ">= 1,500",
    "hands_per_s_six_handed": ">= 5,000",
    "evals_per_s": ">= 100,000",
    "overhead_ratio": "<= 1.3 on an idle machine",
    "referee_peak_rss_mb": "< 100",
    "referee_cpu_us_per_decision": "<= 30",
    "floor_ratio_heads_up": ">= 0.85",
    "c_over_acpc_decisions": ">= 1 (the ACPC dealer's decisions/s, same run)",
    "speedup": ">= 1.5 (2 jobs over 1)",
    "match_overhead_ms": "<= 300",
    "dask_over_jobs_2": ">= 0.9 (dask on 2 local workers over 2 jobs)",
    "processes_left": "0",
    "contest_estimate_error": "within +-0.25",
    "plan_s": "< 1 (60 bots, 6 seats)",
    "sandboxed_ratio_heads_up": ">= 0.9",
    "sandbox_start_ms": "< 50 (per bot)",
}


def _text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 1000:
        return f"{int(value):,}"
    return f"{value:,.1f}" if abs(value) >= 100 else f"{value:g}"


def render(figures: Mapping[str, Any], targets: Mapping[str, str] | None = None) -> str:
    """The figures as one table: ``figure  value  target`` (the target only where one is set).

    Args:
        figures: the benchmark's JSON-ready figures, in the order to print.
        targets: target per figure (default :data:`TARGETS`); for engine-only
            figures pass the engine's own.
    """
    targets = TARGETS if targets is None else targets
    rows = [[name, _text(value), targets.get(name, "")] for name, value in figures.items()]
    # disable_numparse: tabulate would read "5,560,340" back as a number and print a mixed column as 5.56034e+06
    table: str = tabulate(rows, headers=["figure", "value", "target"], colalign=("left", "right", "left"),
                          disable_numparse=True)
    return table
