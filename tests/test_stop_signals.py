"""SIGTERM stops every long-running command as Ctrl-C does (bots stopped, what is recorded kept), with exit
status 143; Ctrl-C (SIGINT) gives 130. For ``harness match``, ``harness run`` and ``harness serve``: each is
started for real, the signal is sent once it is under way (its bots playing, its server answering), and
no process it started is left afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from harness.host.marks import find_marked
from tests.server_helpers import Served, contest_file, free_port, wait_for

pytestmark = pytest.mark.slow  # real processes and a real server

ROOT = Path(__file__).resolve().parents[1]
HARNESS = [sys.executable, "-m", "harness.cli"]
SIGNALS = pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                                  ids=["SIGTERM", "SIGINT"])
#: Outer limits only (a loaded machine is slow); every wait is for an event.
START_S = 300
STOP_S = 300


def _hands(history: Path) -> int:
    try:
        return history.read_text(encoding="utf-8").count("\n")
    except FileNotFoundError:
        return 0


def _stop(proc: subprocess.Popen[str], signum: int) -> str:
    """Send ``signum`` to ``proc``; its stderr once it has ended (killed, with its group, if it never does)."""
    proc.send_signal(signum)
    try:
        return proc.communicate(timeout=STOP_S)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _all_gone(procs: list[psutil.Process]) -> bool:
    return all(not p.is_running() or p.status() == psutil.STATUS_ZOMBIE for p in procs)


@SIGNALS
def test_match_stops_its_bots_and_keeps_the_hands(tmp_path: Path, signum: int, status: int) -> None:
    out = tmp_path / "m"
    proc = subprocess.Popen(
        [*HARNESS, "match", "--bot", f"a={sys.executable} -m bots.caller", "--bot",
         f"b={sys.executable} -m bots.caller", "--hands", "10000000", "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is not None or (_hands(out / "hands.jsonl") > 0
                                                    and find_marked(owner_pid=proc.pid)), timeout=START_S)
        assert proc.poll() is None, proc.communicate()
    finally:
        err = _stop(proc, signum)
    assert proc.returncode == status, err
    assert "interrupted; bots stopped" in err
    assert find_marked(owner_pid=proc.pid) == []
    for line in (out / "hands.jsonl").read_text(encoding="utf-8").splitlines():
        json.loads(line)  # every line kept is whole


@SIGNALS
def test_run_stops_its_matches_and_keeps_what_is_recorded(tmp_path: Path, signum: int, status: int) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        f'[tournament]\nname = "t"\noutput = "{tmp_path / "out"}"\n[schedule]\nhands = 10000000\njobs = 1\n'
        + "".join(f'[[bots]]\nname = "{n}"\ncommand = "python -m bots.caller"\ncwd = "{ROOT}"\n' for n in "ab"),
        encoding="utf-8")
    proc = subprocess.Popen([*HARNESS, "run", str(config), "--no-entry-check"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    started: list[psutil.Process] = []
    try:
        def playing() -> bool:
            if proc.poll() is not None:
                return True
            if not any((tmp_path / "out").rglob("hands.jsonl*")):  # a match has started (its history is .gz)
                return False
            started[:] = psutil.Process(proc.pid).children(recursive=True)
            return len(started) >= 3  # a worker and its two bots (at least)

        wait_for(playing, timeout=START_S)
        assert proc.poll() is None, proc.communicate()
    finally:
        err = _stop(proc, signum)
    assert proc.returncode == status, err
    assert "interrupted: run the same command again to resume" in err
    assert wait_for(lambda: _all_gone(started), timeout=STOP_S)
    assert (tmp_path / "out" / "results.jsonl").exists() or not list((tmp_path / "out").glob("results*"))


@SIGNALS
def test_serve_stops_and_leaves_no_process(tmp_path: Path, signum: int, status: int) -> None:
    port = free_port()
    server = Served(contest_file(tmp_path), port)  # returns once /healthz answers
    try:
        children = psutil.Process(server.proc.pid).children(recursive=True)
        server.proc.send_signal(signum)
        assert server.proc.wait(STOP_S) == status, server.log.read_text()
        assert wait_for(lambda: _all_gone(children), timeout=STOP_S)
    finally:
        server.stop()
    assert "Traceback" not in server.log.read_text()
