"""Pinning a process to CPUs under SCHED_BATCH, and undoing it."""

from __future__ import annotations

import os

import pytest

from harness.host.placement import pin, restore


def test_pin_then_restore() -> None:
    cpus, policy = os.sched_getaffinity(0), os.sched_getscheduler(0)
    before = pin({max(cpus)})
    try:
        assert os.sched_getaffinity(0) == {max(cpus)} and os.sched_getscheduler(0) == os.SCHED_BATCH
        assert before.cpus == cpus and before.policy == policy
    finally:
        restore(before)
    assert (os.sched_getaffinity(0), os.sched_getscheduler(0)) == (cpus, policy)


def test_a_cpu_out_of_reach_is_refused() -> None:
    with pytest.raises(OSError):
        pin({100_000})
