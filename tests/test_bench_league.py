"""``harness bench league --json`` runs to its end with tiny settings and prints one JSON object of figures (they
are not checked against targets: only that each is measured)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # processes: outside the fast set

REPO = Path(__file__).resolve().parents[1]


def test_bench_league_json_measures_every_figure() -> None:
    done = subprocess.run([sys.executable, "-m", "harness.cli", "bench", "league", "--json", "--quick", "--hands", "2"],
                          cwd=REPO, capture_output=True, text=True, timeout=840, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    for name in ("hands_per_s_jobs_1", "hands_per_s_jobs_2", "match_overhead_ms", "processes_left"):
        assert name in figures, figures
    assert figures["processes_left"] == 0
    try:
        import distributed  # noqa: F401
    except ImportError:
        return
    # The figures _job_ms gives: a local executor's parallel is None (its capacity counts).
    assert figures["local_task_ms"] > 0 and figures["dask_task_ms"] > 0, figures
