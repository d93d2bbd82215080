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
from typing import Any

import psutil
import pytest

from harness.tournament.plan import bot_setup
from harness.tournament.results import match_files, read_records
from harness.tournament.runner import run_tournament, schedule_for
from harness.tournament.workers import pick_cpu
from tests.runner_helpers import (
    EXCLUSIVE_DIR,
    exclusive_play,
    failing_play,
    fake_config,
    fake_play,
    never_start_play,
    placement_play,
)

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
    pending = out / ".private" / "results.jsonl"  # where it was recorded before its table was published
    pending.write_text("".join(line for line in pending.read_text().splitlines(keepends=True)
                               if json.loads(line)["match_id"] != lost))
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
    assert summary.failed and all(f.startswith("c+") for f in summary.failed)
    assert not summary.complete
    for match_id in summary.failed:
        assert "referee bug (simulated)" in (match_files(out, match_id) / "error.txt").read_text()
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


def lines_of(out: Path) -> dict[str, str]:
    """results.jsonl lines by match id (bytes as written)."""
    return {json.loads(line)["match_id"]: line for line in (out / "results.jsonl").read_text().splitlines()}


def test_a_changed_game_or_hand_count_reuses_nothing_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, NAMES, hands=5), play=fake_play, quiet=True)
    again = run_tournament(fake_config(out, NAMES, hands=6), play=fake_play, quiet=True)
    assert (again.reuse.reused, again.reuse.playing, again.reuse.dropped) == (0, 12, 12)
    assert "[schedule] hands changed" in again.reuse.describe()
    assert again.complete and len(again.records) == 12
    other_seed = run_tournament(fake_config(out, NAMES, hands=6, seed=9), play=fake_play, quiet=True)
    assert other_seed.reuse.reused == 0 and "[tournament] seed changed" in other_seed.reuse.describe()
    # jobs may change between a run and its resumption: everything is reused
    same = run_tournament(fake_config(out, NAMES, hands=6, seed=9, jobs=1), play=fake_play, quiet=True)
    assert (same.reuse.reused, same.matches_run, same.reuse.describe()) == (
        12, 0, "reused 12 matches, playing 0, dropped 0")


def test_adding_a_bot_plays_only_its_matches_and_keeps_the_others_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, NAMES, hands=5), play=fake_play, quiet=True)
    before = lines_of(out)
    bigger = run_tournament(fake_config(out, [*NAMES, "e"], hands=5), play=fake_play, quiet=True)
    assert bigger.matches_run == 8 and (bigger.reuse.reused, bigger.reuse.playing, bigger.reuse.dropped) == (12, 8, 0)
    after = lines_of(out)
    assert all(after[mid] == line for mid, line in before.items())
    assert all("e" in json.loads(after[mid])["result"]["bots"] for mid in set(after) - set(before))
    # removing it again plays nothing: its matches are dropped (kept on disk, not counted)
    smaller = run_tournament(fake_config(out, NAMES, hands=5), play=fake_play, quiet=True)
    assert (smaller.matches_run, smaller.reuse.dropped, len(smaller.records)) == (0, 8, 12)
    assert len(lines_of(out)) == 20 and "| e " not in (out / "leaderboard.md").read_text()


def test_changing_one_bots_env_or_command_replays_only_its_matches(tmp_path: Path) -> None:
    import dataclasses

    out = tmp_path / "out"
    cfg = fake_config(out, NAMES, hands=5)
    run_tournament(cfg, play=fake_play, quiet=True)
    before = lines_of(out)
    bots = list(cfg.bots)
    bots[1] = dataclasses.replace(bots[1], env={"X": "1"})
    changed = run_tournament(dataclasses.replace(cfg, bots=tuple(bots)), play=fake_play, quiet=True)
    assert changed.matches_run == 6 and changed.reuse.reused == 6 and changed.reuse.dropped == 6
    replayed = [r for r in changed.records if r.match_id not in before]
    assert len(replayed) == 6 and all("b" in r.result.bots for r in replayed)
    assert all(lines_of(out)[mid] == line for mid, line in before.items())  # old results stay on disk
    bots[1] = dataclasses.replace(cfg.bots[1], command=("false",))
    assert run_tournament(dataclasses.replace(cfg, bots=tuple(bots)), play=fake_play, quiet=True).matches_run == 6
    limits = dataclasses.replace(cfg, limits=dataclasses.replace(cfg.limits, memory_mb=1))
    redone = run_tournament(limits, play=fake_play, quiet=True)
    assert redone.matches_run == 12 and "[limits] changed" in redone.reuse.describe()


def test_the_fingerprint_records_python_as_written(tmp_path: Path) -> None:
    import dataclasses

    cfg = fake_config(tmp_path / "out", NAMES)
    python = dataclasses.replace(cfg.bots[0], command=(sys.executable, "-m", "bots.caller"), cwd=str(ROOT))
    setup = bot_setup(python)
    assert setup["command"] == ["python", "-m", "bots.caller"]
    assert list(setup["files"]) == ["bots/caller.py"]  # the module's file: editing it changes the bot


def test_a_bot_that_never_started_is_reported_with_its_first_failure(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = run_tournament(fake_config(out, NAMES, hands=4), play=never_start_play, quiet=True)
    assert summary.complete and list(summary.never_started) == ["c"]  # d started when not in seat 0
    why = summary.never_started["c"]
    assert why.startswith("failed_start: exited before its hello (exit status 1); its stderr (")
    assert why.endswith("-c.err) ends with: ImportError: no module x")
    assert run_tournament(fake_config(out, NAMES, hands=4), play=fake_play, quiet=True).never_started == {"c": why}


def test_progress_lines_are_never_wrapped(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    names = ["a_bot_with_a_rather_long_name_01", "a_bot_with_a_rather_long_name_02"]
    run_tournament(fake_config(tmp_path / "out", names, hands=3), play=fake_play, progress=False)
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("[")]
    assert len(lines) == 2 and all(len(line) > 80 for line in lines)
    assert all(line.endswith("hands, 0.0 s)") for line in lines)


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
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config, fake_play

def slow_play(bots, spec, limits, out_dir):
    if spec.match_id.startswith(("a+b-", "b+a-")):
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
        deadline = time.monotonic() + 600  # an outer limit: the wait is for the event
        while time.monotonic() < deadline:  # wait for table 0 to be recorded and slow matches to run
            recorded = (out / "results.jsonl").exists() and len(read_records(out)) == 2
            workers = psutil.Process(proc.pid).children() if proc.poll() is None else []
            if recorded and len(workers) == 2:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run did not reach its slow matches")
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        stdout, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert stdout.split() == ["interrupted", "2"]
    assert all(not p.is_running() or p.status() == psutil.STATUS_ZOMBIE for p in workers)
    assert len(read_records(out)) == 2
    assert (out / "leaderboard.csv").exists()


KILLED_RUN = """
import sys, time
from pathlib import Path
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config

def endless_play(bots, spec, limits, out_dir):
    (out_dir / "hands.jsonl").write_text('{"hand_id": 0}\\n')
    time.sleep(120)

run_tournament(fake_config(Path(sys.argv[1]), ["a", "b", "c"], hands=5, jobs=2), play=endless_play, progress=False)
"""


def test_kill_9_of_the_runner_stops_its_workers(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(out)], cwd=ROOT, start_new_session=True)
    workers: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 600  # an outer limit: the wait is for the workers
        while time.monotonic() < deadline and len(workers) < 2:
            workers = psutil.Process(proc.pid).children()
            time.sleep(0.05)
        assert len(workers) == 2, "the run did not start its matches"
        assert (out / ".workers").read_text().split() == [str(w.pid) for w in workers]
        os.kill(proc.pid, signal.SIGKILL)  # the runner only, not its process group
        proc.wait()
        gone, alive = psutil.wait_procs(workers, timeout=100)  # the matches would sleep for 120 s
        assert alive == [], "match workers outlived a kill -9 of the runner"
    finally:
        for p in psutil.Process().children(recursive=True) + workers:
            if p.pid == proc.pid or p in workers:
                try:
                    p.kill()
                except psutil.NoSuchProcess:
                    pass
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize(("table_size", "jobs"), [(2, 2), (3, 4)])
def test_matches_of_one_deal_never_run_together_and_other_tables_fill_the_slots(
        tmp_path: Path, table_size: int, jobs: int) -> None:
    """A duplicate set's rotations deal the same cards: run at once, a bot's copies could swap them."""
    marks = tmp_path / "marks"
    marks.mkdir()
    cfg = fake_config(tmp_path / "out", NAMES, table_size=table_size, hands=3, jobs=jobs,
                      env={EXCLUSIVE_DIR: str(marks)})
    summary = run_tournament(cfg, play=exclusive_play, quiet=True)
    assert summary.complete and summary.matches_run == {2: 12, 3: 12}[table_size]
    assert not (marks / "overlaps").exists(), (marks / "overlaps").read_text()
    assert max(int(n) for n in (marks / "concurrency").read_text().split()) >= 2
    assert list(marks.iterdir()) == [marks / "concurrency"]


def test_a_new_run_kills_what_an_earlier_runs_bots_left(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = fake_config(out, ["a", "b"], hands=2)
    run_tournament(cfg, play=fake_play, quiet=True)
    dead = subprocess.Popen(["true"])
    dead.wait()  # a worker pid that no longer exists
    env = {**os.environ, "HARNESS_BOT_ID": "stray", "HARNESS_OWNER_PID": str(dead.pid)}
    stray = subprocess.Popen(["sleep", "60"], env=env)
    try:
        (out / ".workers").write_text(f"{dead.pid}\n")
        run_tournament(cfg, play=fake_play, quiet=True)
        assert stray.wait(timeout=300) == -signal.SIGKILL
        assert (out / ".workers").read_text() == ""
    finally:
        if stray.poll() is None:
            stray.kill()
            stray.wait()


def _placements(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.rglob("placement.json"))]


def test_pinned_matches_each_run_on_one_cpu_under_sched_batch(tmp_path: Path) -> None:
    out = tmp_path / "pinned"
    summary = run_tournament(fake_config(out, ["a", "b", "c"], hands=5, jobs=2), play=placement_play, quiet=True)
    allowed = sorted(os.sched_getaffinity(0))
    seen = _placements(out)
    assert len(seen) == summary.matches_total == len(summary.records)
    assert all(len(p["cpus"]) == 1 and p["cpus"][0] in allowed and p["batch"] for p in seen)
    assert os.sched_getaffinity(0) == set(allowed)  # the runner itself is never pinned


def test_unpinned_matches_keep_every_cpu(tmp_path: Path) -> None:
    out = tmp_path / "free"
    run_tournament(fake_config(out, ["a", "b"], hands=5, jobs=2, pin=False), play=placement_play, quiet=True)
    allowed = sorted(os.sched_getaffinity(0))
    assert all(p["cpus"] == allowed and not p["batch"] for p in _placements(out))


def test_pick_cpu_spreads_running_matches() -> None:
    assert pick_cpu([0, 1], []) == 0
    assert pick_cpu([0, 1], [0]) == 1
    assert pick_cpu([0, 1], [0, 1]) == 0
    assert pick_cpu([2, 5, 7], [2, 5, 2, None]) == 7


def test_progress_flags_trouble_as_it_happens_and_prints_running_totals(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["a", "b", "c", "weak"], hands=4, jobs=1), play=never_start_play, progress=False)
    err = capfd.readouterr().err.splitlines()
    lines = [line for line in err if line.startswith("[")]
    assert len(lines) == 12
    with_c = [line for line in lines if "+c-" in line or "c+" in line.split(":")[0]]
    assert with_c and all("FAILED START: c" in line for line in with_c)
    assert all("faults: weak illegal 1, timeout 2" in line for line in lines if "weak" in line.split(":")[0])
    first = [line for line in err if line.startswith("first failure of bot 'c'")]
    assert len(first) == 1  # once, at its first failure, with its log
    assert err.index(first[0]) == err.index(with_c[0]) + 1
    assert first[0].endswith("-c.err") and str(out / ".private" / "matches") in first[0]  # its table is unfinished
    totals = [line for line in err if line.startswith("totals after")]
    assert totals == [next(line for line in err if line.startswith("totals after 10 of 12 matches (bb/100 so far): "))]
    assert all(name in totals[0] for name in ("a ", "b ", "c ", "weak "))


def test_a_table_with_a_rotation_to_play_stays_private_and_a_half_done_publication_completes(tmp_path: Path) -> None:
    """Matches with "c" in seat 0 fail: the other rotation of each of c's tables is recorded, privately only;
    the retry completes those tables and publishes them. A run stopped half-way through a publication (the
    records appended, the directories not moved) finishes it when it resumes, playing nothing."""
    out = tmp_path / "out"
    cfg = fake_config(out, NAMES, hands=10)
    first = run_tournament(cfg, play=failing_play, quiet=True)
    waiting = {r.match_id for r in first.records if "c" in r.result.bots}
    assert waiting and len(first.failed) == len(waiting)
    public = {r.match_id for r in read_records(out)}
    assert public and public.isdisjoint(waiting)  # neither their records...
    assert all((out / ".private" / "matches" / m).is_dir() and not (out / "matches" / m).exists() for m in waiting)
    assert {r.match_id for r in read_records(out, pending=True)} >= waiting  # ...nor their files are public
    assert oct((out / ".private").stat().st_mode & 0o777) == "0o700"
    retry = run_tournament(cfg, play=fake_play, quiet=True)
    assert retry.complete and {r.match_id for r in read_records(out)} == {r.match_id for r in retry.records}
    assert not any((out / ".private" / "matches").iterdir())
    # Half a publication: a table's directories back in .private, as if the run stopped before moving them.
    table = retry.records[-1].table
    for rec in retry.records:
        if rec.table == table:
            (out / "matches" / rec.match_id).rename(out / ".private" / "matches" / rec.match_id)
    again = run_tournament(cfg, play=fake_play, quiet=True)
    assert again.matches_run == 0 and not any((out / ".private" / "matches").iterdir())
    assert len((out / "results.jsonl").read_text().splitlines()) == len(retry.records)  # none published twice


def test_the_end_of_a_run_reads_its_results_once_and_ranks_once(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`harness run`'s tail: the score stage reads results.jsonl once and the leaderboard's rankings
    (the 1,000-resample bootstrap) serve the report too, which reads and resamples nothing again."""
    from harness.cli.run import final_report
    from harness.tournament import leaderboard, ratings, results, runner

    reads: list[bool] = []
    boots: list[int] = []
    real_read, real_boot = results.read_results, ratings.bootstrap_ranks

    def counting_read(out_dir: Path, *, pending: bool = False) -> results.StoredResults:
        reads.append(pending)
        return real_read(out_dir, pending=pending)

    def counting_boot(*args: Any, **kwargs: Any) -> Any:
        boots.append(1)
        return real_boot(*args, **kwargs)

    for module in (results, leaderboard, runner):
        monkeypatch.setattr(module, "read_results", counting_read)
    monkeypatch.setattr(ratings, "bootstrap_ranks", counting_boot)
    summary = run_tournament(fake_config(tmp_path / "out", ["a", "b", "c"]), play=fake_play, quiet=True)
    assert summary.complete and summary.board is not None and summary.board.ranks is not None
    reads_in_run = len(reads)
    final_report(summary.out_dir, stopped=False, board=summary.board)
    assert (tmp_path / "out" / "report" / "index.html").is_file()
    assert len(reads) == reads_in_run, "the report read results.jsonl again"
    assert reads[-1] is True and reads.count(True) == 1, reads  # the score stage's one reading
    assert len(boots) == 1, f"{len(boots)} bootstraps at the end of one run"
