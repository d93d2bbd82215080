"""A full (or read-only, over-quota, failing) output disk stops a run in one line (trial finding C).

The trial ran with the output on a small tmpfs: 8 tracebacks from the
workers and the runner, exit 1. Now the run stops at the first write that
fails, says which path and why in one line, exits 4, and a later run resumes
with every record kept.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.cli.run import DISK_EXIT
from harness.match.outdir import StorageError, storage_errno
from harness.tournament.results import RESULTS_FILE, ResultsStore, read_records
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config, fake_play
from tests.sandbox_helpers import without_isolation_warning

_COUNTER: Path | None = None  # set before the run: forked workers see it
_FULL_FROM = 2  # matches that fit on the "disk"


def filling_play(bots: Any, spec: Any, limits: Any, out_dir: Path, **_: Any) -> Any:
    """fake_play until the disk is "full": then the history's flush fails as on a full tmpfs."""
    assert _COUNTER is not None
    _COUNTER.mkdir(exist_ok=True)
    started = len(os.listdir(_COUNTER))
    (_COUNTER / f"{started}-{os.getpid()}").touch()
    if started >= _FULL_FROM:
        try:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        finally:  # the referee's cleanup fails the same way (gzip close): the first error is the context
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return fake_play(bots, spec, limits, out_dir)


def test_a_full_disk_stops_the_run_in_one_line_and_the_next_run_resumes(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    global _COUNTER
    _COUNTER = tmp_path / "started"
    config = fake_config(tmp_path / "out", ["a", "b", "c"], hands=3, jobs=1)
    first = run_tournament(config, play=filling_play, quiet=True)
    assert first.storage and not first.complete
    assert first.stopped.startswith(f"cannot write {tmp_path / 'out' / '.private' / 'matches'}/")  # still private
    assert first.stopped.endswith(": No space left on device")
    assert len(read_records(tmp_path / "out")) == _FULL_FROM == len(first.records)
    assert "Traceback" not in capfd.readouterr().err  # nor from the forked workers

    again = run_tournament(config, play=fake_play, quiet=True)
    assert again.complete and again.matches_run == 6 - _FULL_FROM and not again.storage
    assert {r.match_id for r in first.records} <= {r.match_id for r in again.records}


def test_a_record_that_does_not_fit_is_cut_off_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = fake_config(tmp_path / "out", ["a", "b"], hands=2, jobs=1)
    run_tournament(config, play=fake_play, quiet=True)
    path = tmp_path / "out" / RESULTS_FILE
    before = path.read_bytes()
    record = read_records(tmp_path / "out")[0]

    def full(fd: int) -> None:
        raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StorageError) as err:
        ResultsStore(tmp_path / "out").append(record)
    assert err.value.path == path and storage_errno(err.value) == errno.EDQUOT
    assert str(err.value) == f"cannot write {path}: {os.strerror(errno.EDQUOT)}"
    assert path.read_bytes() == before  # no torn line for the next run to trip on


def test_harness_run_on_a_full_disk_exits_4_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    import harness.match.referee

    global _COUNTER
    _COUNTER = tmp_path / "started"
    monkeypatch.setattr(harness.match.referee, "play_match", filling_play)
    toml = tmp_path / "t.toml"
    root = Path(__file__).resolve().parents[1]
    toml.write_text('[schedule]\nhands = 2\njobs = 1\n' + "".join(
        f'[[bots]]\nname = "{n}"\ncommand = "python -m bots.caller"\ncwd = "{root}"\n' for n in "abc"))
    result = CliRunner().invoke(app, ["run", str(toml), "--out", str(tmp_path / "out"), "--no-entry-check"])
    assert result.exit_code == DISK_EXIT == 4, result.output
    # (as an ordinary user without control groups the run also says, first, that its bots are not fully isolated)
    lines = [ln for ln in without_isolation_warning(result.stderr.splitlines()) if ln.startswith("harness run: ")]
    assert len(lines) == 1 and "No space left on device" in lines[0] and "run the same command again" in lines[0]
    assert "Traceback" not in result.output + capfd.readouterr().err
    assert len(read_records(tmp_path / "out")) == _FULL_FROM


def test_plan_warns_when_the_estimate_does_not_fit_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.tournament.estimate import PlanCost, disk_warning

    est = PlanCost(seconds=10.0, bytes=13e6, matches=20, hands=4000, jobs=2, source="defaults")
    real = os.statvfs(tmp_path)
    room = real.f_bavail * real.f_frsize
    assert disk_warning(PlanCost(1.0, room / 2, 1, 1, 1, "defaults"), tmp_path / "new" / "out") is None

    class Small:
        f_bavail, f_frsize = 150, 4096  # 614 kB

    monkeypatch.setattr(os, "statvfs", lambda path: Small)
    warning = disk_warning(est, tmp_path / "new" / "out")
    assert warning is not None and "has 614 kB free" in warning and "need about 13 MB" in warning
    assert "exit status 4" in warning


def full_check(bot: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """An entry check whose hand history does not fit: the disk, not the bot, failed it."""
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


def test_a_full_disk_during_the_entry_check_blames_the_disk_not_the_bots(tmp_path: Path) -> None:
    config = fake_config(tmp_path / "out", ["a", "b"], hands=2, jobs=1, entry_check=True)
    with pytest.raises(StorageError) as err:
        run_tournament(config, play=fake_play, check=full_check, quiet=True)
    assert err.value.errno == errno.EROFS and str(err.value).startswith(f"cannot write {tmp_path / 'out'}/entries/")
    assert not (tmp_path / "out" / "entries.json").exists()  # no bot is recorded as failing its check


def _logs_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write to a bot's log file (``logs/*.err``, ``*.out``) fails as on a full disk; other writes go on."""
    real = os.write

    def write(fd: int, data: Any) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if "/logs/" in target and target.endswith((".err", ".out")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.slow
def test_a_bots_log_on_a_full_disk_is_one_prefixed_line_and_no_thread_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    import threading

    raised: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(f"{args.thread}: {args.exc_value!r}"))
    _logs_full(monkeypatch)
    talker = ("a=python -c \"import sys, runpy; sys.stderr.write('starting\\n'); sys.stderr.flush(); "
              "sys.argv = ['caller']; runpy.run_module('bots.caller', run_name='__main__')\"")
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["match", "--bot", talker, "--bot", "b=python -m bots.caller", "--hands", "2",
                                      "--seed", "5", "--out", str(out), "--sandbox", "off", "--cwd", str(root)])
    err = result.stderr + capfd.readouterr().err
    assert raised == [], "the log thread raised"
    assert "Traceback" not in err and "Exception in thread" not in err, err
    assert result.exit_code != 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if "No space left on device" in ln]
    assert len(lines) == 1 and lines[0].startswith("harness match: "), result.stderr
    assert len(list((out / "hands.jsonl").read_text().splitlines())) == 2  # the hands played are kept


def test_a_running_report_on_a_full_disk_is_a_warning_with_the_commands_prefix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import harness.report.html
    from harness.cli.run import running_report

    def full(out_dir: Path, **_: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(harness.report.html, "write_report", full)
    running_report(tmp_path)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"harness run: warning: the running report of {tmp_path} could not be written: "
                     "No space left on device"]
