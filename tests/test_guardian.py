"""The guardian (harness.host.guardian): what escaped the death signals dies with the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from harness.host import botproc, guardian, marks

ROOT = Path(__file__).resolve().parents[1]

# A "run" that launches a bot the way a sandbox looks when bubblewrap had not armed --die-with-parent:
# in a session of its own, no death signal, carrying the marks a referee gives a bot.
RUN = textwrap.dedent("""
    import os, subprocess, sys, time
    from harness.host import botproc, guardian, marks
    env = dict(os.environ, **{botproc.MARK_ENV: sys.argv[1], botproc.OWNER_ENV: str(os.getpid()),
                              guardian.GUARD_ENV: guardian.token()})
    bot = subprocess.Popen(["sleep", "600"], env=env, start_new_session=True)
    if os.fork() == 0:  # a match worker: holds the guardian's pipe too
        time.sleep(600)
        os._exit(0)
    print(bot.pid, flush=True)  # once the worker exists: the test waits for this line, not for a time
    time.sleep(600)
""")


def _gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not marks._alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_a_bot_that_escaped_the_death_signals_dies_when_the_run_is_killed() -> None:
    mark = uuid.uuid4().hex
    run = subprocess.Popen([sys.executable, "-c", RUN, mark], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        assert run.stdout is not None
        bot = int(run.stdout.readline())
        assert marks._alive(bot), "the bot died before the run was killed"
        os.killpg(run.pid, signal.SIGKILL)  # the run and its worker, as a Ctrl-\\ or an OOM kill would
        run.wait()
        assert _gone(bot, 300), "the bot outlived its run: no guardian killed it"  # an outer limit only
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        for pid in botproc.find_marked(mark=mark):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_the_guardian_waits_for_every_process_holding_its_pipe() -> None:
    """A worker forked from the run keeps the bots guarded: the guardian acts only when it is gone too."""
    mark = uuid.uuid4().hex
    run = subprocess.Popen([sys.executable, "-c", RUN, mark], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    worker = None
    try:
        assert run.stdout is not None
        bot = int(run.stdout.readline())
        import psutil

        worker = next(p.pid for p in psutil.Process(run.pid).children() if p.name() != "sleep")
        run.kill()  # the run alone: its worker still holds the pipe
        run.wait()
        time.sleep(0.5)
        assert marks._alive(bot), "the guardian acted while a worker of the run was alive"
        os.kill(worker, signal.SIGKILL)
        assert _gone(bot, 300), "the bot outlived the run and its worker"
    finally:
        for pid in [*botproc.find_marked(mark=mark), *([worker] if worker else [])]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if run.poll() is None:
            run.kill()
            run.wait()


def test_a_zombie_referee_is_not_alive() -> None:
    """A killed referee whose parent is gone waits for init to reap it: its bots are orphans already."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            time.sleep(0.01)
        assert not marks._alive(pid)
        assert marks._alive(os.getpid())
    finally:
        os.waitpid(pid, 0)


def test_one_guardian_per_process_and_its_forks() -> None:
    first = guardian.token()
    assert guardian.token() == first
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, guardian.token().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 64).decode() == first
    os.close(read)
