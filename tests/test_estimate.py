"""The plan's estimate: the arithmetic of time and disk, bots slower than caller, the last run's rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.tournament.estimate import (
    BLOCK,
    DEFAULT_RATES,
    RUNNER_S,
    BotCost,
    MatchCost,
    Rates,
    describe_bytes,
    describe_seconds,
    match_seconds,
    plan_cost,
)
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config, fake_play

RATES = Rates(start_s={2: 0.2}, hand_s={2: 0.001}, hand_bytes={2: 100}, measured=True)


def test_a_match_is_its_fixed_part_plus_its_hands_plus_what_its_bots_add() -> None:
    plain = MatchCost(seats=2, hands=100, bots=["a", "b"])
    assert match_seconds(RATES, plain, {}) == pytest.approx(0.2 + 0.1 + RUNNER_S)
    slow = {"b": BotCost(start_s=0.5, decision_s=0.002, decisions_per_hand=3.0),
            "war": BotCost(decision_s=0.001, decisions_per_hand=50.0)}
    assert match_seconds(RATES, plain, slow) == pytest.approx(0.2 + 0.1 + RUNNER_S + 0.5 + 100 * 3 * 0.002)
    capped = MatchCost(seats=2, hands=100, bots=["a", "war"])  # a raise war in a check is not a match's rate
    assert match_seconds(RATES, capped, slow) == pytest.approx(0.2 + 0.1 + RUNNER_S + 100 * 6 * 0.001)


def test_jobs_divide_the_time_and_disk_counts_whole_blocks() -> None:
    matches = [MatchCost(seats=2, hands=100, bots=["a", "b"])] * 10
    one = plan_cost(RATES, matches, {}, jobs=1)
    two = plan_cost(RATES, matches, {}, jobs=2)
    assert (one.matches, one.hands) == (10, 1000)
    if two.jobs == 2:  # on a machine with 2 CPUs or more
        assert two.seconds == pytest.approx(one.seconds / 2)
    per_match = RATES.match_bytes(2, 100)
    assert per_match % 1 == 0 and per_match >= 4 * BLOCK  # history, result.json, referee.log, 2 directories
    assert RATES.match_bytes(2, 100, compressed=False) > per_match
    assert plan_cost(RATES, [], {}, jobs=1, extra_bytes=1e6).bytes == 0  # nothing to play, nothing written


def test_words() -> None:
    assert [describe_seconds(s) for s in (42, 600, 3 * 3600, 9 * 86400)] == ["42 s", "10 min", "3.0 h", "9 days"]
    assert [describe_bytes(b) for b in (512, 83_000, 12_000_000, 1.4e9)] == ["512 B", "83 kB", "12 MB", "1.4 GB"]


def test_a_rerun_scales_the_estimate_by_the_recorded_matches(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_tournament(fake_config(out, ["a", "b", "c"], hands=5), play=fake_play, quiet=True)
    assert first.estimate is not None and first.estimate.source == "defaults"
    bigger = run_tournament(fake_config(out, ["a", "b", "c", "d"], hands=5), play=fake_play, quiet=True)
    assert bigger.estimate is not None and bigger.estimate.source == "the last run's 6 matches"
    assert bigger.estimate.matches == 6
    # the fake referee takes no time at all: the scaled estimate is far below the defaults' guess
    unscaled = plan_cost(DEFAULT_RATES, [MatchCost(2, 5, ["a", "d"])] * 6, {}, jobs=2)
    assert bigger.estimate.seconds < unscaled.seconds / 2


def test_the_estimate_is_refined_once_after_the_first_tenth_of_the_run() -> None:
    from harness.tournament.estimate import Refiner

    todo = {f"m{i}": MatchCost(2, 100, ["a", "b"]) for i in range(40)}
    refiner = Refiner(RATES, todo, {}, jobs=1)
    predicted = match_seconds(RATES, todo["m0"], {})
    lines = [refiner.record(f"m{i}", 2 * predicted - RUNNER_S) for i in range(6)]  # twice as slow as the model
    assert lines[:3] == [None, None, None] and lines[4:] == [None, None]
    assert lines[3] is not None and lines[3].startswith("estimate after 4 of 40 matches: about ")
    assert "took 2.00x the first estimate" in lines[3] and describe_seconds(36 * 2 * predicted) in lines[3]


def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process may use CPUs 0 and 1 (as under ``taskset -c 0,1``)."""
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})


def test_the_estimate_counts_the_matches_that_run_at_once_under_taskset(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``harness run --jobs 3`` under ``taskset -c 0,1``: 3 matches at once, and the estimate says 3, on 2 CPUs."""
    import harness.tournament.runner as runner_module
    from harness.tournament.workers import LocalExecutor

    two_cpus(monkeypatch)
    seen: dict[str, int] = {"capacity": 0, "peak": 0}

    class Counting(LocalExecutor):
        def __init__(self, capacity: int, **kwargs: object) -> None:
            super().__init__(capacity, **kwargs)  # type: ignore[arg-type]
            seen["capacity"] = self.capacity

        def submit(self, job: object) -> None:
            super().submit(job)  # type: ignore[arg-type]
            seen["peak"] = max(seen["peak"], len(self.running()))

    monkeypatch.setattr(runner_module, "LocalExecutor", Counting)
    summary = run_tournament(fake_config(tmp_path / "out", ["a", "b", "c"], jobs=3), play=fake_play, quiet=True)
    assert summary.estimate is not None and summary.matches_run == 6
    assert seen["capacity"] == summary.estimate.jobs == 3  # what runs at once is what the estimate says
    assert seen["peak"] == 3  # three tables' first rotations in flight together
    assert summary.estimate.cpus == 2 and "with 3 jobs on 2 CPUs" in summary.estimate.describe()

    # The time: three matches on two CPUs take what two CPUs give, not a third of the sum.
    matches = [MatchCost(seats=2, hands=100, bots=["a", "b"])] * 6
    one = plan_cost(RATES, matches, {}, jobs=1)
    three = plan_cost(RATES, matches, {}, jobs=3)
    assert three.seconds == pytest.approx(one.seconds / 2) and one.cpus is None
    # jobs = 0: the CPUs this process may use (its affinity, not the machine's count).
    default = plan_cost(RATES, matches, {}, jobs=0)
    assert (default.jobs, default.cpus) == (2, None) and "with 2 jobs," in default.describe()
    # A cluster's threads each have a CPU of their own.
    cluster = plan_cost(RATES, matches, {}, jobs=0, parallel=3)
    assert (cluster.jobs, cluster.cpus) == (3, None) and cluster.seconds == pytest.approx(one.seconds / 3)


def test_harness_plan_says_the_jobs_a_run_would_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from harness.cli import app

    two_cpus(monkeypatch)
    path = tmp_path / "t.toml"
    path.write_text("".join(f'[[bots]]\nname = "{n}"\ncommand = "true"\n' for n in "abc"))
    result = CliRunner().invoke(app, ["plan", str(path), "--out", str(tmp_path / "o"), "--jobs", "3", "--no-measure"])
    assert result.exit_code == 0, result.output
    assert "with 3 jobs on 2 CPUs" in result.stdout
