"""How the runner's jobs (matches, entry checks) are executed: the :class:`Executor` interface.

The runner hands an executor :class:`Job` values and collects :class:`Done`
values; it never knows where a job ran. :class:`LocalExecutor` (the default)
forks one worker process per job on this machine, at most ``jobs`` at a time,
each pinned to a CPU of its own when asked. Another backend (a Dask cluster)
implements the same four methods; the job's function and arguments are
module-level and picklable for that reason.

A job's function runs in the worker with the job's directory and returns a
JSON-ready dict, which the worker writes to ``<dir>/result.json`` (through a
temporary file and a rename); a failure writes ``<dir>/error.txt`` with the
traceback instead. The runner, the only writer of the output directory's
shared files, then reads the result.

Worker lifetime (local): Ctrl-C at the terminal reaches the whole process
group; workers ignore it and stop on the SIGTERM the runner sends, once (a
second signal must not cut the referee's cleanup short). The kernel sends
the same SIGTERM when the runner dies (``PR_SET_PDEATHSIG``), so a ``kill -9``
of the runner stops its matches and bots at once. ``<out>/.workers`` lists the
running workers, so the next run on that directory kills what their bots
may have left (:meth:`LocalExecutor.kill_leftovers`).
"""

from __future__ import annotations

import ctypes
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from harness.host import guardian
from harness.host.botproc import kill_strays
from harness.host.placement import pin
from harness.match.outdir import STORAGE_ERRNOS, StorageError, storage_errno
from harness.match.stoprequest import ask_stop
from harness.match.stoprequest import forget as forget_stop

RESULT_FILE = "result.json"
ERROR_FILE = "error.txt"
WORKERS_FILE = ".workers"
_PR_SET_PDEATHSIG = 1  # prctl(2) option (linux/prctl.h)
_STOP_GRACE_S = 15.0
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: A worker whose job could not write (disk full, ...) exits with this plus the index of the errno in
#: STORAGE_ERRNOS: the disk cannot take error.txt either, so the exit code carries the reason.
STORAGE_EXIT = 100


@dataclass(frozen=True, slots=True)
class Job:
    """One unit of work: ``func(*args)`` run with ``directory`` as its output.

    Attributes:
        key: unique name (the match id, or ``entry:<bot>``).
        func: a module-level function returning a JSON-ready dict.
        args: its arguments (picklable).
        directory: where the job writes (created, empty, before it starts).
        info: anything the runner wants back with the result (not sent to the worker).
        group: jobs of one group are never in flight together (:func:`run_all`),
            or None. The runner groups the matches that deal the same cards (the
            rotations of a duplicate set): run together, a bot's copies in them
            could tell each other the cards the other copy faces.
    """

    key: str
    func: Callable[..., dict[str, Any]]
    args: tuple[Any, ...]
    directory: Path
    info: Any = None
    group: Hashable | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """A finished job.

    Attributes:
        job: the job.
        result: the dict its function returned, or None if it failed.
        error: why it failed ("" on success); the traceback is in ``<dir>/error.txt``.
        wall_s: seconds from start to collection.
        storage: the errno (:data:`harness.match.outdir.STORAGE_ERRNOS`) when the job failed
            because its directory's disk takes no more data (full, read-only, ...), else None.
    """

    job: Job
    result: dict[str, Any] | None
    error: str
    wall_s: float
    storage: int | None = None


class Executor(Protocol):
    """Runs jobs somewhere and reports them as they finish."""

    @property
    def capacity(self) -> int:
        """Jobs in flight at most (the runner submits no more)."""
        ...  # pragma: no cover

    def submit(self, job: Job) -> None:
        """Start ``job`` now (the caller keeps at most :attr:`capacity` running)."""
        ...  # pragma: no cover

    def running(self) -> list[Job]:
        """Jobs started and not yet reported."""
        ...  # pragma: no cover

    def wait(self, timeout: float) -> list[Done]:
        """Return the jobs that finished, waiting up to ``timeout`` seconds for one."""
        ...  # pragma: no cover

    def stop(self) -> None:
        """Stop every running job (the interrupt path); their results are not reported."""
        ...  # pragma: no cover

    def describe(self) -> str | None:
        """Where the jobs run, in one line for the start of a run, when not on this machine; None: here."""
        ...  # pragma: no cover

    @property
    def parallel(self) -> int | None:
        """Jobs that really run at once when that is not this machine's ``jobs`` (a cluster's threads); None."""
        ...  # pragma: no cover

    def live_hands(self, job: Job) -> int | None:
        """Hands a running match job has played so far, when its files are not on this machine; None: they
        are (the caller counts them in its directory)."""
        ...  # pragma: no cover

    def close(self) -> None:
        """Release what the executor holds (a cluster's connection), after :meth:`stop` or the last job."""
        ...  # pragma: no cover


def pick_cpu(allowed: list[int], busy: list[int | None]) -> int:
    """The allowed CPU with the fewest running jobs (lowest number on ties)."""
    return min(allowed, key=lambda cpu: (busy.count(cpu), cpu))


def _worker(func: Callable[..., dict[str, Any]], args: tuple[Any, ...], directory: Path, parent: int,
            cpu: int | None, nice: int = 0) -> None:
    """Body of a worker process: run the job (``nice`` added to its niceness, which its bots inherit), leave
    result.json (or error.txt)."""

    def on_term(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        ask_stop(threading.get_ident())  # the referee stops itself if this exception is lost in a finalizer
        raise KeyboardInterrupt

    forget_stop(threading.get_ident())  # a request of the thread that forked this process is not this job's

    # A Python no-op handler rather than SIG_IGN: ignored signals survive exec into the bots.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, on_term)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the run still works, cleanup is just slower
        pass
    if os.getppid() != parent:  # the runner died before the death signal was armed
        os._exit(130)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by the parent around start()
    if cpu is not None:
        try:
            pin({cpu})
        except (AttributeError, OSError):
            pass
    if nice > 0:
        os.nice(nice)
    try:
        result = func(*args)
        tmp = directory / (RESULT_FILE + ".tmp")
        tmp.write_text(json.dumps(result), encoding="utf-8")
        os.replace(tmp, directory / RESULT_FILE)
    except KeyboardInterrupt:
        os._exit(130)
    except BaseException as exc:  # noqa: BLE001 - any failure is reported through error.txt
        code = storage_errno(exc)
        try:
            (directory / ERROR_FILE).write_text(traceback.format_exc(), encoding="utf-8")
        except OSError:  # the disk that failed the job cannot take its report: the exit code says why
            pass
        os._exit(1 if code is None else STORAGE_EXIT + STORAGE_ERRNOS.index(code))


@dataclass(slots=True)
class _Running:
    job: Job
    process: Any  # multiprocessing.Process (fork context)
    cpu: int | None
    started: float = field(default_factory=time.monotonic)


class LocalExecutor:
    """Forked worker processes on this machine, one per job, at most ``capacity`` at once.

    Args:
        capacity: parallel jobs (>= 1).
        pin: run each job on one CPU of its own (``harness.host.placement.pin``:
            affinity and SCHED_BATCH), spreading jobs over the CPUs this process may use.
        workers_file: where to list the running workers' pids (``<out>/.workers``), or None.
        nice: added to each worker's niceness (0..19; the bots inherit it): a server's web process stays
            ahead of its ladder's matches for the CPU.
    """

    def __init__(self, capacity: int, *, pin: bool = True, workers_file: Path | None = None, nice: int = 0) -> None:
        self.capacity = max(1, capacity)
        self.nice = nice
        self._allowed = sorted(os.sched_getaffinity(0)) if pin and hasattr(os, "sched_getaffinity") else []
        self._ctx = multiprocessing.get_context("fork")
        self._running: dict[str, _Running] = {}
        self._workers_file = workers_file
        guardian.token()  # before the workers fork: they share the run's guardian instead of one each

    def describe(self) -> None:
        """None: the jobs run on this machine (:meth:`Executor.describe`)."""
        return None

    @property
    def parallel(self) -> None:
        """None: as many at once as :attr:`capacity` (:attr:`Executor.parallel`)."""
        return None

    def live_hands(self, job: Job) -> None:
        """None: a job's files are on this machine (:meth:`Executor.live_hands`)."""
        return None

    def close(self) -> None:
        """Nothing to release: every worker is a child of this process, gone once reported or stopped."""

    def kill_leftovers(self) -> list[int]:
        """Kill what the bots of an earlier run's workers left behind; return the pids signalled.

        Bots carry their referee's (worker's) pid in ``HARNESS_OWNER_PID``; only
        orphans are killed (a live, reused pid is left alone).
        """
        if self._workers_file is None:
            return []
        try:
            pids = [int(x) for x in self._workers_file.read_text(encoding="ascii").split()]
        except (OSError, ValueError):
            return []
        killed: list[int] = []
        for pid in pids:
            killed += kill_strays(owner_pid=pid)
        self._write_workers()
        return killed

    def _write_workers(self) -> None:
        if self._workers_file is None:
            return
        tmp = self._workers_file.with_name(self._workers_file.name + ".tmp")
        try:
            tmp.write_text("".join(f"{r.process.pid}\n" for r in self._running.values()), encoding="ascii")
            os.replace(tmp, self._workers_file)
        except OSError:  # best effort (a full disk): the results store reports what matters, the run goes on
            pass

    def submit(self, job: Job) -> None:
        """Fork a worker for ``job`` (Ctrl-C and SIGTERM blocked until it is tracked)."""
        cpu = pick_cpu(self._allowed, [r.cpu for r in self._running.values()]) if self._allowed else None
        proc = self._ctx.Process(target=_worker, name=f"job-{job.key}",
                                 args=(job.func, job.args, job.directory, os.getpid(), cpu, self.nice))
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            proc.start()
            self._running[job.key] = _Running(job, proc, cpu)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        self._write_workers()

    def running(self) -> list[Job]:
        return [r.job for r in self._running.values()]

    def wait(self, timeout: float) -> list[Done]:
        if not self._running:
            return []
        multiprocessing.connection.wait([r.process.sentinel for r in self._running.values()], timeout=timeout)
        done: list[Done] = []
        for key, run in list(self._running.items()):
            if run.process.is_alive():
                continue
            run.process.join()
            del self._running[key]
            done.append(_collect(run.job, run.process.exitcode, time.monotonic() - run.started))
        if done:
            self._write_workers()
        return done

    def stop(self) -> None:
        """SIGTERM each running job once, wait for the referee's cleanup, SIGKILL stragglers."""
        for run in self._running.values():
            if run.process.is_alive():
                try:
                    os.kill(run.process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + _STOP_GRACE_S
        for run in self._running.values():
            run.process.join(max(0.0, deadline - time.monotonic()))
            if run.process.is_alive():
                run.process.kill()
                run.process.join()
        self._running.clear()
        self._write_workers()


def _collect(job: Job, exitcode: int | None, wall_s: float) -> Done:
    """Read a finished worker's result.json; on failure make sure error.txt says why."""
    path = job.directory / RESULT_FILE
    error = job.directory / ERROR_FILE
    if exitcode is not None and STORAGE_EXIT <= exitcode < STORAGE_EXIT + len(STORAGE_ERRNOS):
        code = STORAGE_ERRNOS[exitcode - STORAGE_EXIT]
        return Done(job, None, f"cannot write {job.directory}: {os.strerror(code)}", wall_s, storage=code)
    if not path.exists():
        if not error.exists():
            error.write_text(f"worker exited with code {exitcode} without a result\n", encoding="utf-8")
        last = [ln for ln in error.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        return Done(job, None, last[-1] if last else f"exit code {exitcode}", wall_s)
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        error.write_text(f"unreadable {RESULT_FILE}: {exc}\n", encoding="utf-8")
        return Done(job, None, f"unreadable {RESULT_FILE}", wall_s)
    return Done(job, result, "", wall_s)


def _next_job(todo: list[Job], busy: set[Hashable]) -> Job | None:
    """Take from ``todo`` (kept last-first) the first job whose group is not ``busy`` (None if there is none).

    The scan stops at the first free job: the busy groups' waiting jobs come
    first in a plan's order, so it passes at most a few per running job.
    """
    for i in range(len(todo) - 1, -1, -1):
        group = todo[i].group
        if group is None or group not in busy:
            return todo.pop(i)
    return None


def run_all(executor: Executor, jobs: Sequence[Job], on_done: Callable[[Done], None], *,
            poll_s: float = 0.2, on_start: Callable[[Job], object] | None = None,
            on_tick: Callable[[], None] | None = None) -> None:
    """Run ``jobs`` on ``executor``, at most its capacity at once, calling ``on_done`` as each ends.

    Two jobs of one :attr:`Job.group` are never in flight together (submitted
    and not yet reported: on a cluster that includes queued), on any executor:
    when the next job's group is busy, the first job in order whose group is
    free starts instead, so with many groups the slots stay full, and a group's
    jobs still start in their order (a duplicate set completes early and is
    scored while the run goes on).

    Args:
        executor: where the jobs run.
        jobs: in the order to start them (within the constraint above).
        on_done: called in this process with each finished job.
        poll_s: longest wait between two ``on_tick`` calls (seconds).
        on_start: called just before a job is submitted (e.g. to prepare its directory).
        on_tick: called after every wait (progress).

    Raises:
        KeyboardInterrupt: Ctrl-C or SIGTERM, after the executor stopped every running job
            (as it does when ``on_done`` cannot write: OSError, StorageError).
    """
    todo = list(reversed(jobs))
    old_term = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: FrameType | None) -> None:
        if callable(old_term):  # the CLI's own handler: it records SIGTERM, for the exit status (143)
            old_term(signum, frame)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        while todo or executor.running():
            while todo and len(executor.running()) < executor.capacity:
                job = _next_job(todo, {j.group for j in executor.running() if j.group is not None})
                if job is None:
                    break  # every waiting job's group is in flight: wait for one to end
                if on_start is not None:
                    on_start(job)
                executor.submit(job)
            for done in executor.wait(poll_s):
                on_done(done)
            if on_tick is not None:
                on_tick()
    except (KeyboardInterrupt, OSError, StorageError):  # also when on_done cannot record (a full disk)
        executor.stop()
        raise
    finally:
        signal.signal(signal.SIGTERM, old_term)
