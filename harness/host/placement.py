"""Where a match runs: pinning a process to CPUs under SCHED_BATCH (Linux).

On this kind of VM, waking a thread on another core goes through the
hypervisor, so a match is fastest with its referee and bots on one core;
sharing that core, SCHED_BATCH lets a thread that wakes another finish its
burst instead of being preempted (measured: ~15% more hands/s). Set before
the referee's ZeroMQ threads and the bots exist, both are inherited.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Placement:
    """A process's CPU set and scheduling policy, as :func:`pin` found them."""

    cpus: frozenset[int]
    policy: int


def pin(cpus: Iterable[int]) -> Placement:
    """Put this process, and the threads and children it starts from now on, on ``cpus`` under SCHED_BATCH.

    Returns:
        The placement before, for :func:`restore`.

    Raises:
        OSError: a CPU this process may not use.
        AttributeError: not Linux (no ``os.sched_setaffinity``).
    """
    before = Placement(frozenset(os.sched_getaffinity(0)), os.sched_getscheduler(0))
    os.sched_setaffinity(0, set(cpus))
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    return before


def restore(before: Placement) -> None:
    """Undo :func:`pin` for this process (threads and children started meanwhile keep theirs)."""
    os.sched_setaffinity(0, before.cpus)
    os.sched_setscheduler(0, before.policy, os.sched_param(0))


def run_queue_wait_s(pids: Iterable[int]) -> float:
    """How long the most-delayed thread of ``pids`` has waited for a CPU, in seconds.

    Reads the second field of ``/proc/<pid>/task/<tid>/schedstat`` (time spent
    runnable on a run queue while another task ran, ns; Linux
    ``Documentation/scheduler/sched-stats``). It measures starvation by the
    rest of the machine, which is not the waiting thread's own time. Threads
    or processes gone meanwhile are skipped; 0.0 when the kernel keeps no such
    statistics.
    """
    worst = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    fields = f.read().split()
                worst = max(worst, int(fields[1]))
            except (OSError, IndexError, ValueError):
                continue
    return worst / 1e9
