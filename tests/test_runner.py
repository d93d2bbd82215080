"""The runner with a fake referee: parallel matches, resume, failures, interrupts, reproducibility."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from harness.results import ResultsError, read_records
from harness.runner import run_tournament, schedule_for
from tests.test_runner_fakes import failing_play, fake_config, fake_play

NAMES = ["a", "b", "c", "d"]
ROOT = Path(__file__).resolve().parents[1]


def board(out: Path) -> str:
    return (out / "leaderboard.csv").read_text()


def test_parallel_run_records_every_match_once_and_resume_skips_them(tmp_path: Path) -> None:
    cfg = fake_config(tmp_path / "out", NAMES, hands=15, jobs=3)
    summary = run_tournament(cfg, play=fake_play, quiet=True)
    assert summary.complete and summary.matches_run == 12 and summary.hands_run == 12 * 15
    ids = [r.match_id for r in read_records(tmp_path / "out")]
    assert sorted(ids) == sorted(p.match_id for p in schedule_for(cfg))
    for match_id in ids:
        assert (tmp_path / "out" / "matches" / match_id / "hands.jsonl").exists()
    first = board(tmp_path / "out")
    again = run_tournament(cfg, play=fake_play, quiet=True)
    assert again.matches_run == 0 and again.complete
    assert len(read_records(tmp_path / "out")) == 12
    assert board(tmp_path / "out") == first


def test_partial_match_is_replayed_from_scratch(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = fake_config(out, NAMES, hands=10)
    run_tournament(cfg, play=fake_play, quiet=True)
    complete = board(out)
    # Forget the last record (as if killed before appending it) and leave a half-written match dir.
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:-1]) + lines[-1][:40])
    lost = json.loads(lines[-1])["match_id"]
    (out / "matches" / lost / "hands.jsonl").write_text('{"hand_id": 0, "net": [999, -999]}\n')
    (out / "matches" / lost / "junk").write_text("x")
    summary = run_tournament(cfg, play=fake_play, quiet=True)
    assert summary.matches_run == 1
    assert not (out / "matches" / lost / "junk").exists()
    assert len((out / "matches" / lost / "hands.jsonl").read_text().splitlines()) == 10
    assert board(out) == complete


def test_failed_matches_are_reported_not_recorded_and_retried(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = fake_config(out, NAMES, hands=10)
    summary = run_tournament(cfg, play=failing_play, quiet=True)
    assert summary.failed and all(f.split("-")[2] == "c" for f in summary.failed)
    assert not summary.complete
    for match_id in summary.failed:
        assert "referee bug (simulated)" in (out / "matches" / match_id / "error.txt").read_text()
    assert {r.match_id for r in read_records(out)}.isdisjoint(summary.failed)
    retry = run_tournament(cfg, play=fake_play, quiet=True)
    assert retry.complete and retry.matches_run == len(summary.failed)
    clean = tmp_path / "clean"
    run_tournament(fake_config(clean, NAMES, hands=10), play=fake_play, quiet=True)
    assert board(out) == board(clean)


def test_same_seed_same_leaderboard_other_seed_other_deals(tmp_path: Path) -> None:
    for name, seed, jobs in (("x", 3, 1), ("y", 3, 2), ("z", 4, 2)):
        run_tournament(fake_config(tmp_path / name, NAMES, hands=12, seed=seed, jobs=jobs), play=fake_play, quiet=True)
    assert board(tmp_path / "x") == board(tmp_path / "y")
    assert board(tmp_path / "x") != board(tmp_path / "z")


def test_changed_schedule_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, NAMES, hands=5), play=fake_play, quiet=True)
    with pytest.raises(ResultsError, match="different tournament"):
        run_tournament(fake_config(out, NAMES, hands=6), play=fake_play, quiet=True)
    with pytest.raises(ResultsError, match="different tournament"):
        run_tournament(fake_config(out, NAMES[:3], hands=5), play=fake_play, quiet=True)
    # jobs may change between a run and its resumption
    assert run_tournament(fake_config(out, NAMES, hands=5, jobs=1), play=fake_play, quiet=True).complete


def test_four_handed_compressed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = fake_config(out, ["a", "b", "c", "d", "e"], table_size=4, hands=8, compress=True)
    summary = run_tournament(cfg, play=fake_play, quiet=True)
    assert summary.matches_total == 5 * 4 and summary.complete
    record = read_records(out)[0]
    assert (out / "matches" / record.match_id / "hands.jsonl.gz").exists()
    assert not (out / "matches" / record.match_id / "hands.jsonl").exists()
    rows = board(out).splitlines()
    assert rows[1].split(",")[1] == "a"  # the strongest fake bot tops it


SLOW_RUN = """
import sys, time
from pathlib import Path
from harness.runner import run_tournament
from tests.test_runner_fakes import fake_config, fake_play

def slow_play(bots, spec, limits, out_dir):
    if spec.match_id.startswith("t000"):
        return fake_play(bots, spec, limits, out_dir)
    (out_dir / "hands.jsonl").write_text('{"hand_id": 0}\\n')
    time.sleep(60)

summary = run_tournament(fake_config(Path(sys.argv[1]), ["a", "b", "c"], hands=5, jobs=2),
                         play=slow_play, progress=False)
print("interrupted" if summary.interrupted else "finished", len(summary.records), flush=True)
"""


def test_ctrl_c_stops_workers_and_keeps_what_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SLOW_RUN), str(out)], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait for table 0 to be recorded and slow matches to run
            recorded = (out / "results.jsonl").exists() and len(read_records(out)) == 2
            workers = psutil.Process(proc.pid).children() if proc.poll() is None else []
            if recorded and len(workers) == 2:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run did not reach its slow matches")
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        stdout, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert stdout.split() == ["interrupted", "2"]
    assert all(not p.is_running() or p.status() == psutil.STATUS_ZOMBIE for p in workers)
    assert len(read_records(out)) == 2
    assert (out / "leaderboard.csv").exists()
