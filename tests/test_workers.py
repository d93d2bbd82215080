"""run_all's one constraint: two jobs of one group (the matches of one deal) are never in flight together.

Property tests on an in-process executor that finishes jobs in an order
hypothesis chooses; the runner-level tests (real forked workers, a Dask
cluster) are in tests/test_runner.py and tests/test_cluster.py.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tournament.workers import Done, Job, run_all


class ScriptedExecutor:
    """Runs nothing: ``wait`` reports the running jobs that ``pick`` chooses; checks the groups at each submit."""

    def __init__(self, capacity: int, pick: st.DataObject, jobs: list[Job]) -> None:
        self.capacity = capacity
        self.pick = pick
        self.jobs = jobs
        self.in_flight: list[Job] = []
        self.started: list[str] = []
        self.violations: list[str] = []

    def submit(self, job: Job) -> None:
        if job.group is not None and any(j.group == job.group for j in self.in_flight):
            self.violations.append(job.key)
        self.in_flight.append(job)
        self.started.append(job.key)

    def running(self) -> list[Job]:
        return list(self.in_flight)

    def wait(self, timeout: float) -> list[Done]:
        # Work-conserving: a free slot is left empty only when every waiting job's group is in flight.
        waiting = [j for j in self.jobs if j.key not in self.started]
        busy = {j.group for j in self.in_flight}
        if len(self.in_flight) < self.capacity and any(j.group is None or j.group not in busy for j in waiting):
            self.violations.append("idle slot")
        # Some of the running jobs end (hypothesis picks which).
        ended = [j for j in self.in_flight if self.pick.draw(st.booleans())] or self.in_flight[:1]
        for job in ended:
            self.in_flight.remove(job)
        return [Done(job, {}, "", 0.0) for job in ended]

    def stop(self) -> None:  # pragma: no cover - never interrupted here
        self.in_flight.clear()


@settings(max_examples=100, deadline=None)
@given(groups=st.lists(st.integers(1, 6), min_size=1, max_size=12), capacity=st.integers(1, 8),
       loners=st.integers(0, 4), data=st.data())
def test_no_two_jobs_of_a_group_run_together_and_no_slot_idles_needlessly(
        groups: list[int], capacity: int, loners: int, data: st.DataObject) -> None:
    """Tables of 1-6 rotations (plan order: a table's rotations together) plus ungrouped jobs, any capacity."""
    jobs = [Job(key=f"t{t}r{r}", func=dict, args=(), directory=Path("."), group=f"t{t}")
            for t, rotations in enumerate(groups) for r in range(rotations)]
    jobs += [Job(key=f"free{i}", func=dict, args=(), directory=Path(".")) for i in range(loners)]
    executor = ScriptedExecutor(capacity, data, jobs)
    done: list[str] = []
    run_all(executor, jobs, lambda d: done.append(d.job.key), poll_s=0.0)
    assert executor.violations == []
    assert sorted(done) == sorted(j.key for j in jobs)
    for t, rotations in enumerate(groups):  # a table's rotations start in their order
        assert [k for k in executor.started if k.startswith(f"t{t}r")] == [f"t{t}r{r}" for r in range(rotations)]
