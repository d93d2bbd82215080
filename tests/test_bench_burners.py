"""The CPU burners of ``harness bench match --load N`` and ``tools/busy.py``: real processes, all gone when their
block ends, however it ends (a normal end, an error, Ctrl-C, SIGTERM, or the starting process killed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from harness.bench.burners import Burners
from tests.fault_helpers import live_descendants

pytestmark = pytest.mark.slow  # processes: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]
#: Starts 2 burners, prints their pids, then waits for a signal (Ctrl-C and SIGTERM as at a terminal).
HOLDER = """
import signal, sys
from harness.bench.burners import Burners
signal.signal(signal.SIGINT, signal.default_int_handler)
with Burners(2) as burners:
    print(*burners.pids, flush=True)
    while True:
        signal.pause()
"""


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _burners_of_a_holder() -> tuple[subprocess.Popen[str], list[int]]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    assert holder.stdout is not None
    pids = [int(p) for p in holder.stdout.readline().split()]
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    return holder, pids


def _wait_gone(pids: list[int]) -> list[int]:
    """The pids still alive after waiting for them to go (an outer limit, not a measured time)."""
    give_up = time.monotonic() + 120
    while any(_alive(p) for p in pids) and time.monotonic() < give_up:
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def test_burners_run_in_the_block_and_are_gone_after_it() -> None:
    with Burners(3) as burners:
        pids = burners.pids
        assert len(pids) == 3 and all(_alive(p) for p in pids)
        assert all(os.getsid(p) == p for p in pids)  # a session of its own: a terminal's Ctrl-C does not reach it
    assert not any(_alive(p) for p in pids) and burners.pids == []
    assert not live_descendants()


def test_burners_are_gone_after_an_error_in_the_block() -> None:
    with pytest.raises(RuntimeError, match="a probe failed"), Burners(2) as burners:
        pids = burners.pids
        raise RuntimeError("a probe failed")
    assert not any(_alive(p) for p in pids)
    assert not live_descendants()


def test_no_burner_for_zero_and_a_negative_count_is_refused() -> None:
    with Burners(0) as burners:
        assert burners.pids == [] and not live_descendants()
    with pytest.raises(ValueError, match="0 or more"):
        Burners(-1)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_the_burners(signum: int) -> None:
    holder, pids = _burners_of_a_holder()
    holder.send_signal(signum)
    holder.communicate(timeout=120)
    assert holder.returncode != 0  # stopped by the KeyboardInterrupt, after its block's finally
    assert not [p for p in pids if _alive(p)]


def test_burners_die_with_the_process_that_started_them() -> None:
    holder, pids = _burners_of_a_holder()
    holder.kill()  # SIGKILL: no finally runs; the kernel's parent-death signal stops them
    holder.communicate(timeout=120)
    assert not _wait_gone(pids)


def test_busy_py_runs_its_command_beside_burners_and_stops_them() -> None:
    probe = "import os, psutil; print(len(psutil.Process(os.getppid()).children()))"
    done = subprocess.run([sys.executable, "tools/busy.py", "--per-core", "1", "--", sys.executable, "-c", probe],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # busy.py's children while the command ran: the burners and the command itself
    assert int(done.stdout) == len(os.sched_getaffinity(0)) + 1
    assert "CPU burners beside" in done.stderr
    assert not live_descendants()
