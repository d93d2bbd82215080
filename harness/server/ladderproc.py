"""The ladder in a process of its own, behind the pages for the CPU.

``harness serve`` answers pages in one process and runs the ladder (:class:`~harness.server.ladder.Ladder`: its
scheduler and match workers) in another, ``python -m harness.server.ladderproc CONTEST PARENT``, at
:data:`~harness.server.board.BACKGROUND_NICENESS` (its workers and their bots inherit it): the web process only
reads what the ladder stores, and a class polling its pages never waits for the ladder's share of the interpreter.

:class:`LadderProcess` (in the web process) starts it, starts it again when it dies, and ends it with the server.
The ladder process ends itself when the web process is gone, even after ``kill -9`` (``PR_SET_PDEATHSIG``), and
stops its match workers as it goes. A restart loses and doubles nothing: the matches left running are played again
from scratch (:func:`harness.server.store.recover`).

The ladder process also keeps the leaderboard: recomputed once per completed block and published to
``<data>/board.json`` (:class:`~harness.server.board.LiveBoard`, ``publish``), which the pages read. What the admin
page shows of it is in two settings: ``ladder_error`` (why it stopped) and ``ladder_slots`` (``[busy, available]``
job-slot seconds, :meth:`Ladder.occupancy`), written every :data:`STATUS_S` seconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from sqlalchemy import Engine

from harness.errors import HarnessError
from harness.server import store
from harness.server.board import BACKGROUND_NICENESS, BOARD_FILE, LiveBoard
from harness.server.contest import Contest, load_contest
from harness.server.db import open_database
from harness.server.final import CLUSTER_THREADS
from harness.server.ladder import Ladder
from harness.tournament.cluster import ClusterError

#: Seconds between two writes of the ladder's slot-seconds (``ladder_slots``) and two looks at the board's key.
STATUS_S = 2.0
#: Longest wait before the ladder process is started again after it died (s); the first wait is 1 s, doubled
#: each time it dies within :data:`_SHORT_RUN_S` of its start.
RESTART_MAX_S = 60.0
_SHORT_RUN_S = 60.0
#: Seconds the ladder process has to stop its matches after SIGTERM (its own stop waits up to 30 s for its loop
#: and 15 s for its workers) before it is killed.
STOP_GRACE_S = 60.0
_PR_SET_PDEATHSIG = 1  # prctl(2) option (linux/prctl.h)
#: The first line the ladder process writes: it runs (anything else is ``error: ...`` or ``cluster: ...``).
READY = "ready"


class LadderStartError(HarnessError):
    """The ladder process could not start (``cluster``: the ``[ladder] cluster`` cannot be reached); one line."""

    def __init__(self, line: str, *, cluster: bool = False) -> None:
        super().__init__(line)
        self.cluster = cluster


class LadderProcess:
    """The ladder's process, seen from the web process: :meth:`start`, :attr:`error`, :meth:`occupancy`, :meth:`stop`.

    A thread waits on the process and starts it again when it dies (after 1 s, up to :data:`RESTART_MAX_S` when it
    keeps dying); :meth:`stop` ends it (SIGTERM, then SIGKILL after :data:`STOP_GRACE_S`) and nothing is started
    after.

    Args:
        contest: the contest (its file is what the ladder process loads).
        engine: the database (the web process's engine; the ladder process opens its own).
    """

    def __init__(self, contest: Contest, engine: Engine) -> None:
        self.contest = contest
        self.engine = engine
        self.proc: subprocess.Popen[bytes] | None = None
        #: How often the ladder process died and was started again since :meth:`start`.
        self.restarts = 0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._watch: threading.Thread | None = None

    def start(self) -> None:
        """Start the ladder process and wait until it runs (its matches left running are queued again).

        Raises:
            LadderStartError: it could not start (the contest, the database or the cluster); nothing is left running.
        """
        store.set_setting(self.engine, "ladder_error", "")
        store.set_setting(self.engine, "ladder_slots", "")
        store.set_setting(self.engine, CLUSTER_THREADS, "")
        self.proc = self._spawn()
        self._watch = threading.Thread(target=self._supervise, name="ladder-watch", daemon=True)
        self._watch.start()

    def _spawn(self) -> subprocess.Popen[bytes]:
        # Started from this (long-lived) thread or the watcher: PR_SET_PDEATHSIG fires when the starting thread ends.
        proc = subprocess.Popen([sys.executable, "-m", "harness.server.ladderproc", str(self.contest.path.resolve()),
                                 str(os.getpid())], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        out: IO[bytes] | None = proc.stdout
        line = out.readline().decode("utf-8", "replace").strip() if out is not None else ""
        if out is not None:
            out.close()
        if line != READY:
            proc.wait()
            kind, _, text = line.partition(": ")
            raise LadderStartError(text or f"the ladder process exited with status {proc.returncode}",
                                   cluster=kind == "cluster")
        return proc

    def _supervise(self) -> None:
        delay = 1.0
        while not self._stopping.is_set():
            proc = self.proc
            if proc is None:
                return
            began = time.monotonic()
            code = proc.wait()
            if self._stopping.is_set():
                return
            self.restarts += 1
            delay = delay * 2 if time.monotonic() - began < _SHORT_RUN_S else 1.0
            delay = min(delay, RESTART_MAX_S)
            print(f"harness serve: the ladder process exited with status {code}; starting it again",
                  file=sys.stderr, flush=True)
            while not self._stopping.wait(delay):
                try:
                    with self._lock:
                        if self._stopping.is_set():
                            return
                        self.proc = self._spawn()
                    break
                except LadderStartError as exc:
                    store.set_setting(self.engine, "ladder_error", f"the ladder process did not start: {exc}")
                    delay = min(delay * 2, RESTART_MAX_S)

    @property
    def error(self) -> str:
        """Why the ladder stopped ("": it runs), for the admin page."""
        return store.setting(self.engine, "ladder_error", "")

    def occupancy(self) -> tuple[float, float]:
        """``(busy, available)`` job-slot seconds of the ladder process since it started, as it last wrote them."""
        try:
            busy, available = json.loads(store.setting(self.engine, "ladder_slots", "") or "[0, 0]")
            return float(busy), float(available)
        except (ValueError, TypeError):
            return 0.0, 0.0

    def stop(self) -> None:
        """End the ladder process (it stops its matches: they are played again at the next start); idempotent."""
        with self._lock:
            self._stopping.set()
            proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._watch is not None and self._watch is not threading.current_thread():
            self._watch.join()


def _die_with(parent: int) -> None:
    """SIGTERM to this process when ``parent`` dies; exit now if it already has."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the server's stop still ends it
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def main(argv: list[str]) -> int:
    """The ladder process: ``CONTEST PARENT`` (the contest file, the web process's id). Exit status 0 when stopped
    by SIGTERM (or its parent's death), 2 when it could not start, 3 when the ladder failed (``ladder_error``)."""
    path, parent = Path(argv[0]), int(argv[1])
    stop = threading.Event()
    # Ctrl-C at the terminal reaches the whole group: the web process stops this one with SIGTERM. A Python
    # no-op handler rather than SIG_IGN: an ignored signal survives exec into the checks' and matches' bots.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    _die_with(parent)
    os.nice(BACKGROUND_NICENESS)
    try:
        contest = load_contest(path)
        engine = open_database(contest.database)
        board = LiveBoard(contest, engine, worker=False, publish=contest.data / BOARD_FILE)
        ladder = Ladder(contest, engine, board, nice=0)  # its workers inherit this process's niceness
        board.rows()  # published before the pages open: they never compute it themselves
        if contest.ladder.cluster:  # the final's plan on the admin page counts them (the web process asks no one)
            store.set_setting(engine, CLUSTER_THREADS, str(ladder.capacity))
    except ClusterError as exc:
        print(f"cluster: {exc}", flush=True)
        return 2
    except Exception as exc:  # noqa: BLE001 - one line for the server to show
        print(f"error: {type(exc).__name__}: {exc}".splitlines()[0], flush=True)
        return 2
    print(READY, flush=True)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # nobody reads the pipe after the first line
    code = 0
    ladder.start()
    try:
        while not stop.wait(STATUS_S):
            board.rows()  # recomputed and published when a block completed since (the ladder counts them)
            if ladder.error:
                store.set_setting(engine, "ladder_error", ladder.error)
                code = 3
                break
            store.set_setting(engine, "ladder_slots", json.dumps([round(x, 1) for x in ladder.occupancy()]))
    finally:
        ladder.stop()
        engine.dispose()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
