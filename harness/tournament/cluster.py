"""Matches on a Dask cluster: :class:`DaskExecutor`, the runner's second backend.

``[schedule] backend = "dask"`` (or ``harness run FILE --cluster ADDRESS``)
runs every job of the runner (the entry checks, then the matches) as one task
of a Dask cluster (the ``distributed`` package, an optional extra:
``pip install --config-settings editable_mode=compat -e '.[cluster]'``; this module imports it only
inside the functions that need it, so the local backend never loads it).
The runner does not change: it hands :class:`~harness.tournament.workers.Job`
values to this executor exactly as to the local one and stores what comes
back, so resume, fingerprints, the leaderboard and the report are the same
code on both backends.

A task (:func:`run_task`, on a worker):

1. checks, once per worker process and bot, that the worker runs the same
   harness code as the runner (:func:`code_digest`) and that every bot's
   command and working directory exist there (they must be at the same paths
   on every worker: a shared file system, as on clusters). A worker that
   cannot run a job refuses it with the reason; the runner then sends the job
   to another worker and records it as failed, with every worker's reason in
   ``error.txt``, when none is left;
2. runs the job's function (for a match, :func:`harness.tournament.matchjob.play_and_store`:
   the referee with the same :class:`~harness.specs.MatchSpec` and seeds
   as locally, the hand history gzipped) in a private scratch directory of
   the worker, on one CPU of its own when ``pin`` is on (a CPU leased with a
   lock file, so the worker processes of one machine never share one);
3. returns the function's result with every file of the scratch directory
   (the hand history, ``logs/``); the runner, the only writer of the output
   directory, writes them where the local backend's worker would have.

Nothing but data goes through Dask: a job's function and arguments must
pickle with the standard :mod:`pickle`, i.e. by reference to a module the
workers import themselves (:meth:`DaskExecutor.submit` refuses anything else),
and no code is uploaded to the workers.

Faults: a worker that dies during a match (killed, machine lost) makes the
Dask scheduler run the match again on another worker (matches are
deterministic, so the result is the same; up to
``distributed.scheduler.allowed-failures`` times, then the match is recorded
as failed). Bots die with their worker: the referee starts them from the
task's thread (the worker's executor threads live as long as the worker),
with ``PR_SET_PDEATHSIG``, and the first task of the next worker on that
machine kills whatever they left (:func:`harness.host.botproc.kill_strays`).
Ctrl-C cancels the queued tasks and interrupts the running ones (a
``KeyboardInterrupt`` raised in the task's thread, so the referee's cleanup
stops their bots, as SIGTERM does in a local worker); losing the scheduler
stops the run with :class:`ClusterError`. Either way nothing partial is
recorded and the same command resumes.

``local:N`` starts a ``distributed.LocalCluster`` of N single-threaded worker
processes in a child process of its own session (so Ctrl-C at the terminal
reaches only the runner, which stops the tasks first) that ends with the runner.
It listens on 127.0.0.1 over TLS with a certificate made for this run alone
(:func:`local_security`), handed to the child on its stdin: a scheduler that
any local user could reach would run their code as the harness's user.
"""

from __future__ import annotations

import ctypes
import dataclasses
import fcntl
import functools
import gzip
import hashlib
import json
import logging
import os
import pickle
import queue
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import harness.match.referee  # noqa: F401 - what a match needs, loaded before a worker's first (warm_up)
import harness.tournament.entries  # noqa: F401
from harness.errors import HarnessError
from harness.history.files import HistoryTail
from harness.host.botproc import BotStartError, kill_strays, resolve_command
from harness.host.placement import pin, restore
from harness.match.stoprequest import ask_stop
from harness.match.stoprequest import forget as forget_stop
from harness.specs import BotSpec, SandboxMode, SandboxSettings
from harness.tournament.config import ConfigError, TournamentConfig
from harness.tournament.matchjob import count_hands
from harness.tournament.results import HANDS_FILE, fsync_file
from harness.tournament.workers import ERROR_FILE, RESULT_FILE, Done, Job

#: Seconds to wait for the scheduler when connecting.
CONNECT_TIMEOUT_S = 20.0
#: Seconds ``local:N`` may take to start (each worker process imports distributed: slow on a busy machine).
LOCAL_START_S = 90.0
#: Seconds the running tasks get to stop their bots after Ctrl-C.
STOP_GRACE_S = 15.0
#: Event topic of the hands played by running matches (progress).
PROGRESS_TOPIC = "harness-hands"
#: Seconds between two progress events of a running match.
PROGRESS_EVERY_S = 2.0
#: Files above this size travel gzipped (hand histories not compressed by the job, large logs).
_SHIP_RAW_BYTES = 4096
_REFRESH_S = 2.0
_PR_SET_PDEATHSIG = 1  # prctl(2) options (linux/prctl.h)
_PR_SET_DUMPABLE = 4
_SOURCE_PACKAGES = ("harness", "protocol", "bots")
#: Variables a Dask nanny sets in its workers that bots inherit (PYTHON*, ``harness.host.botproc``): the
#: runner's values go with each task. (Its others, MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS..., never reach a bot.)
RUNNER_ENV = ("PYTHONHASHSEED",)


class ClusterError(HarnessError, RuntimeError):
    """The Dask cluster cannot be used: the scheduler is unreachable or was lost, or ``distributed`` is missing."""


# ---------------------------------------------------------------- both sides


def code_digest() -> str:
    """SHA-256 (hex) of the harness's source: every ``.py`` file of ``harness``, ``protocol`` and ``bots``.

    The runner sends its digest with every task; a worker whose own differs
    refuses the task, so every match of a tournament is played by the same code.
    """
    return _code_digest(os.fspath(Path(__file__).resolve().parents[2]))


_DIGESTS: dict[str, str] = {}


def _code_digest(root: str) -> str:
    if root not in _DIGESTS:
        h = hashlib.sha256()
        for package in _SOURCE_PACKAGES:
            for path in sorted(Path(root, package).rglob("*.py")):
                h.update(path.relative_to(root).as_posix().encode() + b"\0")
                h.update(hashlib.sha256(path.read_bytes()).digest())
        _DIGESTS[root] = h.hexdigest()
    return _DIGESTS[root]


def sandboxes_of(value: Any) -> list[SandboxSettings]:
    """The :class:`SandboxSettings` in a job's function (a ``functools.partial``'s arguments) or arguments."""
    found: list[SandboxSettings] = []

    def walk(v: Any) -> None:
        if isinstance(v, SandboxSettings):
            if v not in found:
                found.append(v)
        elif isinstance(v, functools.partial):
            walk(v.args)
            walk(v.keywords)
        elif isinstance(v, list | tuple):
            for item in v:
                walk(item)
        elif isinstance(v, dict):
            for item in v.values():
                walk(item)

    walk(value)
    return found


def hide(value: Any, path: Path) -> Any:
    """``value`` with ``path`` added to the ``hidden`` of every :class:`SandboxSettings` in it (partials included)."""
    if isinstance(value, SandboxSettings):
        return dataclasses.replace(value, hidden=(*value.hidden, os.fspath(path)))
    if isinstance(value, functools.partial):
        return functools.partial(value.func, *hide(value.args, path), **hide(value.keywords, path))
    if isinstance(value, list | tuple):
        items = [hide(v, path) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: hide(v, path) for k, v in value.items()}
    return value


def expected_sandbox(settings: Sequence[SandboxSettings]) -> tuple[bool, bool]:
    """What a worker must give the bots (bubblewrap, control groups): all of it for mode ``required``,
    for ``auto`` what this machine (the runner's) gives, nothing for ``off``."""
    from harness.host.sandbox import SandboxError, decide_isolation

    need_ns = need_cg = False
    for box in settings:
        if box.mode is SandboxMode.REQUIRED:
            need_ns = need_cg = True
        elif box.mode is SandboxMode.AUTO:
            try:
                here = decide_isolation(box)
            except SandboxError:
                continue
            need_ns, need_cg = need_ns or here.namespaces, need_cg or here.cgroups
    return need_ns, need_cg


def bots_of(args: Iterable[Any]) -> list[BotSpec]:
    """The :class:`BotSpec` values among a job's arguments (alone or in a list or tuple), in order."""
    found: list[BotSpec] = []
    for arg in args:
        items = arg if isinstance(arg, list | tuple) else (arg,)
        found += [b for b in items if isinstance(b, BotSpec) and b not in found]
    return found


# ---------------------------------------------------------------- worker side

_LOCK = threading.Lock()
#: Bots (command, cwd) this worker process found runnable.
_CHECKED: set[tuple[tuple[str, ...], str | None]] = set()
_SWEPT = False
#: Running tasks of this worker process: Dask key -> the thread running it.
_ACTIVE: dict[str, int] = {}
#: Keys already interrupted (once only: a second KeyboardInterrupt would cut the referee's cleanup short).
_ABORTED: set[str] = set()
#: Keys a runner asked to stop -> when (monotonic s): a task of such a key that starts later (it was
#: between its scheduler's dispatch and :data:`_ACTIVE` when asked) returns at once instead of playing.
_STOPPED: dict[str, float] = {}
#: Seconds a stop request is remembered (far beyond a dispatch in flight, so the set stays small).
_STOPPED_KEEP_S = 600.0
#: Running tasks' scratch directories, for progress: Dask key -> directory.
_WATCHED: dict[str, Path] = {}
_WATCHER: threading.Thread | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a worker cannot run a job: ``bot`` is the bot's name, or None for the worker itself (its code)."""

    worker: str
    bot: str | None
    reason: str


def preflight(bots: Iterable[BotSpec], digest: str, worker: str, sandboxes: Sequence[SandboxSettings] = (),
              expect: tuple[bool, bool] = (False, False)) -> Refusal | None:
    """Can this worker run these bots with the runner's code, sandboxed as expected? None if so, else why not.

    Checks the code digest, that the sandbox gives what ``expect`` says
    (bubblewrap, control groups: :func:`expected_sandbox`) and each bot's
    command and cwd (cached per bot), after :func:`warm_up`.
    """
    from harness.host.sandbox import SandboxError, decide_isolation

    mine = warm_up()
    if digest != mine:
        return Refusal(worker, None, (
            f"worker {worker} runs other harness code than the runner (source digest {mine[:12]}, "
            f"the runner's {digest[:12]}; harness at {Path(__file__).resolve().parents[2]}): install the "
            "same version on every worker, at the same path (a shared file system)"))
    need_ns, need_cg = expect
    for box in sandboxes:
        try:
            got = decide_isolation(box)
        except SandboxError as exc:
            return Refusal(worker, None, f"worker {worker} cannot sandbox the bots: {exc}")
        missing = [what for what, need, have in (("bubblewrap", need_ns, got.namespaces),
                                                 ("control groups", need_cg, got.cgroups)) if need and not have]
        if missing:
            return Refusal(worker, None, (
                f"worker {worker} cannot sandbox the bots as the runner's machine does (no {' or '.join(missing)}: "
                f"{got.summary}): every worker must isolate bots alike; install bubblewrap and run workers where "
                "control groups can be made (docs/security.md), or set [sandbox] mode"))
    for bot in bots:
        setup = (tuple(bot.command), bot.cwd)
        if setup in _CHECKED:
            continue
        try:
            resolve_command(bot)
        except BotStartError as exc:
            return Refusal(worker, bot.name, (
                f"on worker {worker}, {exc} (a bot's command and cwd must exist at the same path on every "
                "worker: a shared file system; nothing is copied to the workers)"))
        with _LOCK:
            _CHECKED.add(setup)
    return None


def warm_up() -> str:
    """Ready this worker process for matches, once; return its :func:`code_digest`.

    Imports what a match needs (so the first match is not slower than the
    others), quiets the worker (:func:`_quiet_worker`: with its profiler on,
    matches ran about 20% slower), makes the process non-dumpable for good (its memory holds its
    tasks' match seeds; a referee restoring dumpability after its match must
    not reopen it while another task runs) and kills what bots of a dead
    worker of this machine left behind (their referee is gone). The runner
    calls it on every worker when it connects; a task calls it too (a worker
    that joined later).
    """
    global _SWEPT
    with _LOCK:
        if not _SWEPT and _worker_address().startswith("pid "):  # not a Dask worker (a test): no side effects
            return code_digest()
        if not _SWEPT:
            _SWEPT = True
            from harness.host.sandbox import support

            support()  # probed once per process (bubblewrap, control groups): forked local workers inherit it
            _quiet_worker()
            try:
                ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
            except (OSError, AttributeError):
                pass
            kill_strays()  # only orphans: bots whose referee (a killed worker) is gone
    return code_digest()


def _quiet_worker() -> None:
    """Stop this Dask worker's profiler and event-loop tick (from any thread): they only feed dashboards.

    The profiler samples the running task's stack every 10 ms under the
    interpreter lock the referee needs (``distributed.worker.profile``); the
    tick wakes the event loop every 20 ms (``distributed.admin.tick``). On a
    machine whose cores all play matches, every wake-up is taken from one.
    """
    from distributed import get_worker

    worker = get_worker()
    for name in ("profile", "profile-cycle", "tick"):
        callback = worker.periodic_callbacks.pop(name, None)
        if callback is not None:
            worker.loop.add_callback(callback.stop)


def _scratch_root() -> tuple[Path, Path]:
    """This worker process's private scratch directory, and what to hide from bots (the worker's own directory)."""
    try:
        from distributed import get_worker

        base = Path(get_worker().local_directory)
        hidden = base
    except (ImportError, ValueError):  # not in a Dask worker (tests)
        base = Path(tempfile.gettempdir())
        hidden = None
    root = base / f"harness-{os.getpid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    return root, hidden or root


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"pid {os.getpid()}"


@contextmanager
def leased_cpu(enabled: bool) -> Iterator[int | None]:
    """One CPU of this machine for the calling thread while the block runs, pinned as the local backend pins.

    The CPU is leased with an ``flock`` on ``<tmp>/harness-cpus-<uid>/cpu<N>``:
    the task threads of every worker process of the machine take distinct CPUs
    (released by the kernel if the process dies). With every allowed CPU taken,
    the thread is left where it is.
    """
    if not enabled or not hasattr(os, "sched_getaffinity"):
        yield None
        return
    folder = Path(tempfile.gettempdir()) / f"harness-cpus-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    fd = cpu = None
    for candidate in sorted(os.sched_getaffinity(0)):
        fd = os.open(folder / f"cpu{candidate}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            fd = None
            continue
        cpu = candidate
        break
    before = None
    try:
        if cpu is not None:
            try:
                before = pin({cpu})  # this thread: the referee's threads and bots started from it inherit it
            except OSError:
                before = None
        yield cpu
    finally:
        if before is not None:
            restore(before)
        if fd is not None:
            os.close(fd)


def _set_async_exc(ident: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(exc) if exc else None)


def abort_tasks(keys: Iterable[str]) -> list[str]:
    """Interrupt the tasks of these Dask keys running in this worker process (``Client.run`` calls it).

    A ``KeyboardInterrupt`` is raised once in each task's thread, as SIGTERM
    does in a local worker: the referee stops its bots and the task returns an
    aborted payload. Returns the keys still running (being stopped included),
    so the caller can call again until none is.
    """
    running = []
    now = time.monotonic()
    with _LOCK:
        for key, since in list(_STOPPED.items()):
            if now - since > _STOPPED_KEEP_S:
                del _STOPPED[key]
        for key in keys:
            _STOPPED.setdefault(key, now)
            ident = _ACTIVE.get(key)
            if ident is None:
                continue
            if key not in _ABORTED:
                _ABORTED.add(key)
                _set_async_exc(ident, KeyboardInterrupt)
                ask_stop(ident)  # after: the exception can be lost in a finalizer; the referee then stops itself
            running.append(key)
    return running


def _watch_progress(worker: Any) -> None:
    """Worker thread: every few seconds, the hands each running match has written, as Dask events."""
    tails: dict[str, HistoryTail] = {}
    sent: dict[str, int] = {}
    while True:
        time.sleep(PROGRESS_EVERY_S)
        with _LOCK:
            watched = dict(_WATCHED)
        for key in list(tails):
            if key not in watched:
                tails.pop(key, None)
                sent.pop(key, None)
        for key, directory in watched.items():
            hands = count_hands(directory, key, tails)
            if hands != sent.get(key, 0):
                sent[key] = hands
                try:
                    worker.log_event(PROGRESS_TOPIC, {"key": key, "hands": hands})
                except Exception:  # noqa: BLE001 - progress is best effort; the match goes on
                    pass


def _start_watcher() -> None:
    global _WATCHER
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return
    with _LOCK:
        if _WATCHER is None:
            _WATCHER = threading.Thread(target=_watch_progress, args=(worker,), name="harness-progress", daemon=True)
            _WATCHER.start()


def _map(value: Any, old: Path, new: Path) -> Any:
    """Replace ``old`` by ``new`` in a job's arguments or result (paths and path strings under it)."""
    if isinstance(value, Path):
        return new / value.relative_to(old) if value == old or old in value.parents else value
    if isinstance(value, str):
        prefix = os.fspath(old)
        return os.fspath(new) + value[len(prefix):] if value == prefix or value.startswith(prefix + "/") else value
    if isinstance(value, list | tuple):
        mapped = [_map(v, old, new) for v in value]
        return mapped if isinstance(value, list) else tuple(mapped)
    if isinstance(value, dict):
        return {k: _map(v, old, new) for k, v in value.items()}
    return value


def _pack(directory: Path) -> list[tuple[str, bytes, bool]]:
    """Every regular file under ``directory``: (relative path, bytes, gzipped for the trip)."""
    files = []
    for path in sorted(directory.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        squeeze = len(data) > _SHIP_RAW_BYTES and not path.name.endswith(".gz")
        files.append((path.relative_to(directory).as_posix(), gzip.compress(data, 1) if squeeze else data, squeeze))
    return files


def worker_host(address: str) -> str:
    """The machine of a worker address: ``tcp://10.0.0.5:40123`` -> ``10.0.0.5`` (``[::1]`` for IPv6)."""
    rest = address.split("://", 1)[-1]
    return rest.rsplit(":", 1)[0] if ":" in rest else rest


def apart_workers(workers: Iterable[str], used_hosts: Iterable[str]) -> list[str]:
    """The workers on machines not in ``used_hosts`` (``[schedule] rotations_apart``), in the order given."""
    used = set(used_hosts)
    return [w for w in workers if worker_host(w) not in used]


def run_task(func: Any, args: tuple[Any, ...], directory: Path, key: str, digest: str, pin: bool,
             expect: tuple[bool, bool] = (False, False), env: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """Body of one Dask task (on a worker): check, run the job in scratch space, return its result and files.

    Args:
        func: the job's function (importable on the worker).
        args: its arguments; ``directory`` among them (or paths under it) is
            replaced by the task's scratch directory.
        directory: the job's directory in the runner's output directory.
        key: the task's Dask key (for Ctrl-C and progress).
        digest: the runner's :func:`code_digest`.
        pin: run on one CPU of its own (:func:`leased_cpu`).
        expect: what the sandbox must give the bots here (:func:`expected_sandbox`).
        env: the runner's values (None: unset) of variables the Dask nanny
            changes in its workers and bots would inherit (:data:`RUNNER_ENV`):
            set so in this worker's environment, so bots start as locally.

    The job's sandbox settings (in ``func`` or ``args``) also hide the
    worker's own directory (scratch space of every task) from the bots.

    Returns:
        ``{"refused": reason, "bot": name | None, "worker"}`` when this worker
        cannot run it, else ``{"result": dict | None, "error": traceback or "",
        "aborted": bool, "files": [(path, bytes, gzipped)], "worker", "cpu", "seconds"}``.
    """
    start = time.monotonic()
    worker = _worker_address()
    refusal = preflight(bots_of(args), digest, worker, sandboxes_of((func, args)), expect)
    for name, value in (env or {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if refusal is not None:
        return {"refused": refusal.reason, "bot": refusal.bot, "worker": worker}
    root, hidden = _scratch_root()
    func, args = hide((func, args), hidden)
    scratch = root / uuid.uuid4().hex
    scratch.mkdir(mode=0o700)
    payload: dict[str, Any] = {"result": None, "error": "", "aborted": False, "worker": worker, "cpu": None}
    ident = threading.get_ident()
    try:
        try:
            with _LOCK:
                if key in _STOPPED:  # Ctrl-C came before this task started: play nothing
                    raise KeyboardInterrupt
                _ACTIVE[key] = ident
                _WATCHED[key] = scratch
            _start_watcher()
            try:
                with leased_cpu(pin) as cpu:
                    payload["cpu"] = cpu
                    result = func(*_map(args, directory, scratch))
                payload["result"] = _map(result, scratch, directory)
            finally:
                with _LOCK:
                    _ACTIVE.pop(key, None)
                    _WATCHED.pop(key, None)
                    _ABORTED.discard(key)
                _set_async_exc(ident, None)  # an abort that came too late must not hit the next task
                forget_stop(ident)
        except KeyboardInterrupt:
            payload["aborted"] = True
        except BaseException:  # noqa: BLE001 - any failure is reported through error.txt, as locally
            payload["error"] = traceback.format_exc()
        if not payload["aborted"]:
            payload["files"] = _pack(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    payload["seconds"] = time.monotonic() - start
    return payload


# ---------------------------------------------------------------- runner side


@dataclass(slots=True)
class _Task:
    job: Job
    future: Any  # distributed.Future
    key: str
    submitted: float = field(default_factory=time.monotonic)
    refusals: list[Refusal] = field(default_factory=list)
    allowed: list[str] | None = None  # the workers it may run on (None: any)


def _safe_relative(name: str) -> PurePosixPath | None:
    rel = PurePosixPath(name)
    if rel.is_absolute() or not rel.parts or any(p in ("", ".", "..") for p in rel.parts):
        return None
    return rel


def store_payload(job: Job, payload: Mapping[str, Any]) -> None:
    """Write a finished task's files, ``result.json`` or ``error.txt`` into the job's directory (the runner's side).

    The hand history is fsynced, as the local worker leaves it, before the
    runner appends the match's record.
    """
    directory = job.directory
    for name, data, squeezed in payload.get("files", ()):
        rel = _safe_relative(name)
        if rel is None:
            continue
        path = directory.joinpath(*rel.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.decompress(data) if squeezed else data)
        if path.name in (HANDS_FILE, HANDS_FILE + ".gz"):
            fsync_file(path)
    if payload.get("error"):
        (directory / ERROR_FILE).write_text(payload["error"], encoding="utf-8")
    elif payload.get("result") is not None:
        tmp = directory / (RESULT_FILE + ".tmp")
        tmp.write_text(json.dumps(payload["result"]), encoding="utf-8")
        os.replace(tmp, directory / RESULT_FILE)


def _last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else text


class DaskExecutor:
    """Runs the runner's jobs as tasks of a Dask cluster (the :class:`~harness.tournament.workers.Executor` interface).

    Use :meth:`connect`. ``capacity`` (jobs in flight) is ``jobs`` when given,
    else twice the cluster's worker threads (a queued task per thread, so a
    worker never waits for the runner between two matches), refreshed as
    workers come and go; ``parallel`` is the worker threads alone (for the
    estimate).

    Args:
        client: a connected ``distributed.Client``.
        address: the scheduler's address, for messages.
        pin: run each job on one CPU of its own on its worker.
        jobs: at most this many jobs at once (0 = as many as the cluster has threads).
        local: the ``local:N`` cluster's process, ended by :meth:`close`.
    """

    def __init__(self, client: Any, address: str, *, pin: bool = True, jobs: int = 0,
                 local: subprocess.Popen[bytes] | None = None, local_address: str = "",
                 rotations_apart: bool = False) -> None:
        self.client = client
        self.rotations_apart = rotations_apart
        #: Per job group (a table's rotations), the machines (worker hosts) that played one of its jobs.
        self._hosts: dict[Any, set[str]] = {}
        self._local_address = local_address
        self.address = address
        self.pin = pin
        self.jobs = jobs
        self._local = local
        self._digest = code_digest()
        self._tasks: dict[str, _Task] = {}
        # Finished tasks (key, status, payload or exception), fetched off the main thread: a result
        # is a round trip to a worker, and fetching them one by one here would hold the runner up.
        self._finished: queue.Queue[tuple[str, str, Any]] = queue.Queue()
        self._fetcher = ThreadPoolExecutor(4, thread_name_prefix="harness-fetch")
        self._early: list[Done] = []  # jobs that failed at submission, reported by the next wait()
        self._hands: dict[str, int] = {}
        self._refused: dict[tuple[str, str | None], Refusal] = {}  # (worker, bot or None) -> why
        self._threads: dict[str, int] = {}
        self._expect: list[list[SandboxSettings]] = []  # sandbox settings seen, and what workers must give them
        self._expected: list[tuple[bool, bool]] = []
        self._refreshed = -float("inf")
        self._stopping = False
        self._refresh(force=True)
        client.subscribe_topic(PROGRESS_TOPIC, self._on_progress)
        try:  # the workers there now import and check once, before the first match
            client.run(warm_up, on_error="ignore")
        except Exception:  # noqa: BLE001 - each task warms its worker up anyway
            pass

    # ------------------------------------------------------------ set-up

    @classmethod
    def for_config(cls, config: TournamentConfig) -> DaskExecutor:
        """The executor of a tournament's ``[schedule] scheduler`` (or ``--cluster``), with its ``pin`` and ``jobs``.

        ``harness run`` makes it and passes it to the runner, which closes nothing it did not make.

        Raises:
            ConfigError: the backend is dask but no scheduler is given.
            ClusterError: the cluster cannot be reached (or started, for ``local:N``).
        """
        sched = config.schedule
        if sched.scheduler is None:
            raise ConfigError(config.path, "[schedule] backend",
                              'backend = "dask" needs scheduler = "tcp://HOST:8786" (or "local:N") in [schedule], '
                              "or --cluster ADDRESS")
        executor = cls.connect(sched.scheduler, pin=sched.pin, jobs=sched.jobs)
        executor.rotations_apart = sched.rotations_apart
        return executor

    @classmethod
    def connect(cls, address: str, *, pin: bool = True, jobs: int = 0,
                timeout_s: float = CONNECT_TIMEOUT_S) -> DaskExecutor:
        """Connect to the scheduler at ``address`` (``tcp://HOST:PORT``), or start ``local:N`` first.

        Raises:
            ClusterError: ``distributed`` is not installed, the local cluster
                does not start, or the scheduler cannot be reached in ``timeout_s``.
        """
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError(
                "the dask backend needs the distributed package: pip install --config-settings editable_mode=compat "
                "-e '.[cluster]' (on the runner and on every worker)") from None
        # The harness reports cluster trouble in its own words; distributed's log lines would only repeat it.
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        import dask

        dask.config.set({"distributed.admin.tick.interval": "1s"})  # the client's loop: fewer wake-ups here too
        local = None
        target = address
        security = None  # a cluster of the organiser's: TLS, if any, from Dask's configuration
        if address.startswith("local:"):
            local, target, security = start_local_cluster(int(address.split(":", 1)[1]))
        try:
            client = Client(target, timeout=timeout_s, set_as_default=False, security=security)
        except (OSError, TimeoutError) as exc:
            if local is not None:
                stop_local_cluster(local)
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address} within {timeout_s:.0f} s ({exc}): start it with "
                "`dask scheduler` and workers with `dask worker ADDRESS --nthreads 1` (docs/organisers.md, "
                "\"On a cluster\"), or check the address") from None
        try:
            return cls(client, address, pin=pin, jobs=jobs, local=local, local_address=target if local else "")
        except BaseException:
            client.close()
            if local is not None:
                stop_local_cluster(local)
            raise

    def close(self) -> None:
        """Disconnect; end the ``local:N`` cluster (its workers and, with them, any bot)."""
        self._fetcher.shutdown(wait=False, cancel_futures=True)
        try:
            self.client.close(timeout=5)
        except Exception:  # noqa: BLE001 - closing after the scheduler is gone must not hide the real error
            pass
        if self._local is not None:
            stop_local_cluster(self._local)
            self._local = None

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ the cluster's size

    def describe(self) -> str:
        """``cluster: tcp://10.0.0.5:8786, 8 workers, 8 threads`` (or that none has joined yet)."""
        self._refresh(force=True)
        threads = sum(self._threads.values())
        where = self.address if not self._local_address else f"{self.address} (scheduler {self._local_address})"
        if not threads:
            return (f"cluster: {where}, no workers yet: the matches wait for workers to join "
                    "(`dask worker ADDRESS --nthreads 1`)")
        return (f"cluster: {where}, {self.workers} worker{'s' if self.workers != 1 else ''}, "
                f"{threads} thread{'s' if threads != 1 else ''}")

    def _refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._refreshed < _REFRESH_S:
            return
        self._refreshed = now
        self._check_connected()
        try:
            self._threads = dict(self.client.nthreads())
        except Exception as exc:  # noqa: BLE001 - the next check says what happened
            if self.client.status != "running":
                raise self._lost() from exc
            return
        # A job kept off the workers that refused it would wait for ever once its allowed ones are gone.
        for key, task in list(self._tasks.items()):
            if key in self._tasks and task.allowed is not None and not set(task.allowed) & set(self._threads):
                del self._tasks[key]
                self.client.cancel([task.future])
                done = self._send(task)
                if done is not None:
                    self._early.append(done)

    @property
    def parallel(self) -> int:
        """Worker threads of the cluster now (matches that really run at once), at least 1."""
        return max(1, min(sum(self._threads.values()) or 1, self.jobs or 1 << 30))

    @property
    def workers(self) -> int:
        """Worker processes connected now."""
        return len(self._threads)

    @property
    def capacity(self) -> int:
        """Jobs to keep in flight: ``jobs``, else two per worker thread (at least 1)."""
        return self.jobs or max(1, 2 * sum(self._threads.values()))

    def _check_connected(self) -> None:
        if self.client.status not in ("running", "newly-created"):
            raise self._lost()

    def _lost(self) -> ClusterError:
        return ClusterError(
            f"lost the Dask scheduler at {self.address} (client {self.client.status}); nothing partial is "
            "recorded: run the same command again to resume once the scheduler is back")

    # ------------------------------------------------------------ Executor

    def submit(self, job: Job) -> None:
        """Send ``job`` to the cluster (to a worker that has not refused its bots).

        Raises:
            TypeError: the job's function or arguments would ship code (they must
                pickle by reference: module-level functions and plain data).
        """
        try:
            pickle.dumps((job.func, job.args))
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise TypeError(f"job {job.key}: its function and arguments must be importable on the workers "
                            f"(module-level, plain data); nothing else is sent through Dask: {exc}") from None
        done = self._send(_Task(job, None, ""))
        if done is not None:  # every worker already refused one of its bots
            self._early.append(done)

    def _excluded(self, task: _Task) -> dict[str, Refusal]:
        """Workers that must not get this job, with why."""
        names = {b.name for b in bots_of(task.job.args)}
        out = {r.worker: r for r in task.refusals}
        for (worker, bot), why in self._refused.items():
            if bot is None or bot in names:
                out.setdefault(worker, why)
        return out

    def _send(self, task: _Task) -> Done | None:
        """Submit (or resubmit) a task; a Done when no worker is left that could run it."""
        excluded = self._excluded(task)
        restrict = None
        if excluded:
            self._refresh(force=True)
            restrict = [w for w in self._threads if w not in excluded]
            if not restrict:
                return self._fail(task, "no worker can run this job:\n" + "\n".join(
                    f"- {r.reason}" for r in excluded.values()), _last_line(next(iter(excluded.values())).reason))
        used = self._hosts.get(task.job.group, set()) if self.rotations_apart and task.job.group is not None else set()
        if used:  # [schedule] rotations_apart: a machine none of the table's other rotations ran on
            self._refresh(force=True)
            restrict = apart_workers(restrict if restrict is not None else list(self._threads), used)
            if not restrict:
                return self._fail(task, (
                    "[schedule] rotations_apart: every machine that can run this match already played a rotation "
                    f"of its table ({', '.join(sorted(used))}); a table of k rotations needs k machines (worker "
                    "hosts): add machines to the cluster, or set rotations_apart = false"), "no machine of its own")
        task.allowed = restrict
        task.key = f"harness-{task.job.key}-{uuid.uuid4().hex[:12]}"
        task.submitted = time.monotonic()
        boxes = sandboxes_of((task.job.func, task.job.args))
        if boxes not in self._expect:
            self._expect.append(boxes)
            self._expected.append(expected_sandbox(boxes))
        expect = self._expected[self._expect.index(boxes)]
        task.future = self.client.submit(
            run_task, task.job.func, task.job.args, task.job.directory, task.key, self._digest, self.pin, expect,
            {name: os.environ.get(name) for name in RUNNER_ENV},
            key=task.key, pure=False, workers=restrict, allow_other_workers=False,
        )
        self._tasks[task.key] = task
        task.future.add_done_callback(lambda future, key=task.key: self._on_done(key, future))
        return None

    def _on_done(self, key: str, future: Any) -> None:
        """The client's thread: a task ended; fetch its payload (not after :meth:`close`)."""
        try:
            self._fetcher.submit(self._fetch, key, future)
        except RuntimeError:  # closed: nobody waits for it any more
            pass

    def _fetch(self, key: str, future: Any) -> None:
        """Fetcher thread: the finished task's payload (or exception) into the queue :meth:`wait` reads."""
        status = future.status
        try:
            value = future.result() if status == "finished" else future.exception() if status == "error" else None
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which decides
            status, value = "unfetched", exc
        self._finished.put((key, status, value))

    def running(self) -> list[Job]:
        return [t.job for t in self._tasks.values()] + [d.job for d in self._early]

    def live_hands(self, job: Job) -> int:
        """Hands the running job has played so far (from its worker's progress events; 0 before the first)."""
        for key, task in self._tasks.items():
            if task.job is job:
                return self._hands.get(key, 0)
        return 0

    def _on_progress(self, event: tuple[float, Any]) -> None:
        msg = event[1]
        if isinstance(msg, dict) and msg.get("key") in self._tasks:
            self._hands[msg["key"]] = int(msg.get("hands", 0))

    def wait(self, timeout: float) -> list[Done]:
        """The jobs that finished, waiting up to ``timeout`` s for one.

        Raises:
            ClusterError: the scheduler was lost.
        """
        self._refresh()
        done, self._early = self._early, []
        if done:
            timeout = 0.0
        elif not self._tasks:
            time.sleep(timeout)
            self._check_connected()
            return []
        finished = []
        try:
            finished.append(self._finished.get(timeout=timeout))
            while True:
                finished.append(self._finished.get_nowait())
        except queue.Empty:
            pass
        for key, status, value in finished:
            task = self._tasks.pop(key, None)
            if task is None:
                continue
            self._hands.pop(key, None)
            outcome = self._outcome(task, status, value)
            if outcome is not None:
                done.append(outcome)
        return done

    def _outcome(self, task: _Task, status: str, value: Any) -> Done | None:
        """What a finished future means: a Done, or None when the job went to another worker."""
        if status == "cancelled":
            if self.client.status != "running":
                raise self._lost()
            return self._fail(task, "the Dask cluster cancelled this task (was it restarted?)", "cancelled")
        if status == "unfetched":
            if self.client.status != "running":
                raise self._lost() from value
            return self._fail(task, f"the task's result could not be fetched: {value!r}", repr(value))
        if status == "error":
            exc = value
            name = type(exc).__name__
            if name == "KilledWorker":
                why = (f"the worker running this job died on every attempt ({exc}); the workers' logs say why "
                       "(e.g. out of memory)")
            else:
                why = "the task failed on the Dask worker:\n" + "".join(
                    traceback.format_exception(type(exc), exc, exc.__traceback__))
            return self._fail(task, why, f"{name}: {exc}")
        payload = value
        if "refused" in payload:
            refusal = Refusal(payload["worker"], payload.get("bot"), payload["refused"])
            self._refused[(refusal.worker, refusal.bot)] = refusal
            task.refusals.append(refusal)
            return self._send(task)
        wall = time.monotonic() - task.submitted
        if payload.get("aborted"):
            return None  # only ever asked for by stop(), whose jobs are not reported
        if task.job.group is not None and payload.get("worker"):
            self._hosts.setdefault(task.job.group, set()).add(worker_host(payload["worker"]))
        store_payload(task.job, payload)
        if payload.get("error"):
            return Done(task.job, None, _last_line(payload["error"]), wall)
        if payload.get("result") is None:
            return self._fail(task, "the job returned no result", "no result")
        return Done(task.job, payload["result"], "", min(wall, payload.get("seconds", wall)))

    def _fail(self, task: _Task, text: str, error: str) -> Done:
        (task.job.directory / ERROR_FILE).write_text(text.rstrip("\n") + "\n", encoding="utf-8")
        return Done(task.job, None, error, time.monotonic() - task.submitted)

    def stop(self) -> None:
        """Ctrl-C: cancel the queued tasks, interrupt the running ones and wait (up to
        :data:`STOP_GRACE_S`) until their referees have stopped their bots; nothing is reported."""
        self._stopping = True
        tasks = list(self._tasks.values())
        self._tasks.clear()
        if not tasks:
            return
        keys = [t.key for t in tasks]
        futures = [t.future for t in tasks]
        deadline = time.monotonic() + STOP_GRACE_S
        try:
            active, unanswered = self._abort(keys)
            self.client.cancel([t.future for t in tasks if t.key not in active])
            # A queued task may have started meanwhile, or a busy worker not answered: ask again until
            # every worker has answered and no task of ours runs anywhere.
            while (active or unanswered) and time.monotonic() < deadline:
                time.sleep(0.2)
                active, unanswered = self._abort(keys)
        except Exception:  # noqa: BLE001 - the scheduler may be gone; its workers stop the tasks with it
            pass
        try:
            self.client.cancel(futures, force=True)
        except Exception:  # noqa: BLE001
            pass

    def _abort(self, keys: list[str]) -> tuple[set[str], bool]:
        """Interrupt these tasks wherever they run: the keys still running, and whether a worker failed to
        answer (it may run one of them: it is asked again)."""
        found = self.client.run(abort_tasks, keys, on_error="return")
        running = {k for hit in found.values() if isinstance(hit, list) for k in hit}
        return running, any(isinstance(hit, BaseException) for hit in found.values())


def cluster_threads(address: str, *, jobs: int = 0, timeout_s: float = 5.0) -> int:
    """Matches a cluster runs at once (for ``harness plan``): N for ``local:N``, else its worker threads now.

    Raises:
        ClusterError: ``distributed`` is missing or the scheduler does not answer within ``timeout_s``.
    """
    if address.startswith("local:"):
        threads = int(address.split(":", 1)[1])
    else:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("the dask backend needs the distributed package: pip install --config-settings "
                               "editable_mode=compat -e '.[cluster]'") from None
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        try:
            with Client(address, timeout=timeout_s, set_as_default=False) as client:
                threads = sum(client.nthreads().values())
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"the Dask scheduler at {address} did not answer within {timeout_s:.0f} s ({exc})") \
                from None
    return max(1, min(threads, jobs or threads or 1))


# ---------------------------------------------------------------- local:N


def local_security() -> Any:
    """A ``distributed.Security`` for one ``local:N`` cluster: a self-signed certificate and key made now, held in
    memory, required for every connection (scheduler, workers, the runner's client) and never written to disk.

    Raises:
        ClusterError: the ``cryptography`` package that makes the certificate is missing.
    """
    from distributed import Security

    try:
        return Security.temporary()
    except ImportError:
        raise ClusterError("the local Dask cluster needs the cryptography package: pip install --config-settings "
                           "editable_mode=compat -e '.[cluster]'") from None


def client_config(security: Any) -> dict[str, Any]:
    """Dask configuration that lets every client of this process reach a cluster made with ``security`` (a
    ``distributed.Security``), as an organiser's TLS cluster is reached: use with ``dask.config.set``
    (:func:`reached_as_configured` does)."""
    tls = security.get_tls_config_for_role("client")
    return {"distributed.comm.tls.ca-file": tls["ca_file"], "distributed.comm.tls.client.cert": tls["cert"],
            "distributed.comm.tls.client.key": tls["key"], "distributed.comm.require-encryption": True}


def reached_as_configured(security: Any) -> Any:
    """A context in which every client of this process reaches a cluster of ``security`` through Dask's
    configuration (:func:`client_config`), as ``--cluster tls://...`` reaches an organiser's."""
    import dask

    return dask.config.set(client_config(security))


def _security_of(pem: Mapping[str, str]) -> Any:
    """The ``Security`` of a certificate and key in PEM (``{"cert", "key"}``), for every role, TLS required."""
    from distributed import Security

    cert, key = pem["cert"], pem["key"]
    return Security(tls_ca_file=cert, tls_client_cert=cert, tls_client_key=key, tls_scheduler_cert=cert,
                    tls_scheduler_key=key, tls_worker_cert=cert, tls_worker_key=key, require_encryption=True)


def start_local_cluster(workers: int, *, timeout_s: float = LOCAL_START_S
                        ) -> tuple[subprocess.Popen[bytes], str, Any]:
    """Start ``local:N``: a ``distributed.LocalCluster`` in a child process of its own session.

    Its own session: Ctrl-C at the terminal reaches the runner alone, which
    then stops the tasks itself. The child ends the cluster when its stdin
    closes (the runner closed it or died, even by ``kill -9``) or on SIGTERM.
    The cluster speaks TLS only, with :func:`local_security`'s certificate (sent
    on the child's stdin, so no other user can read it), so no other local user
    can connect to it and run code as this one.

    Returns:
        The child, the scheduler's address (``tls://127.0.0.1:PORT``) and the ``distributed.Security`` a client
        needs to connect.

    Raises:
        ClusterError: it did not start within ``timeout_s`` (with its last log line), or cryptography is missing.
    """
    security = local_security()
    tls = security.get_tls_config_for_role("client")
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.tournament.cluster", "local", str(workers), str(os.getpid())],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True,
    )
    assert proc.stdout is not None and proc.stdin is not None

    try:
        proc.stdin.write(json.dumps({"cert": tls["cert"], "key": tls["key"]}).encode() + b"\n")
        proc.stdin.flush()
    except OSError:
        pass  # it died at once: said below, with its log
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout_s)
        line = proc.stdout.readline().decode("utf-8", "replace").strip() if ready else ""
    except BaseException:  # Ctrl-C while it starts: do not leave it behind
        stop_local_cluster(proc, grace_s=2.0)
        log.close()
        raise
    if not line.startswith("tls://"):
        stop_local_cluster(proc)
        log.seek(0)
        tail = _last_line(log.read().decode("utf-8", "replace")) or "no error printed (a busy machine?)"
        log.close()
        raise ClusterError(f"the local Dask cluster of {workers} workers did not start within {timeout_s:.0f} s: "
                           f"{tail}")
    log.close()
    return proc, line, security


def stop_local_cluster(proc: subprocess.Popen[bytes], grace_s: float = 20.0) -> None:
    """End a ``local:N`` cluster: close its stdin, wait ``grace_s``, then kill its whole session."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def _serve_local(workers: int, parent: int) -> None:
    """Body of the ``local:N`` child: run the cluster until stdin closes or SIGTERM."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        return
    import dask
    from distributed import LocalCluster

    # Less bookkeeping on a machine whose cores play the matches (monitoring only feeds dashboards;
    # the event-loop tick alone cost the scheduler, nannies and workers 2-3% of a core each, idle).
    dask.config.set({"distributed.admin.system-monitor.interval": "5s",
                     "distributed.admin.system-monitor.gil.enabled": False,
                     "distributed.worker.memory.monitor-interval": "1s",
                     "distributed.worker.profile.enabled": False,
                     "distributed.admin.tick.interval": "1s",
                     # The runner keeps a match queued per worker thread: nothing to steal.
                     "distributed.scheduler.work-stealing": False})
    # The certificate, one JSON line on stdin (never on the command line or on disk: other users see neither).
    security = _security_of(json.loads(sys.stdin.buffer.readline() or b"{}"))
    stop = threading.Event()
    # SIGINT keeps its default: this session has no terminal, and an ignored signal would reach the bots.
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           protocol="tls://", security=security, scheduler_port=0, dashboard_address=None,
                           silence_logs=logging.CRITICAL,
                           memory_limit=0)  # the referee is small; bots have their own limits
    try:
        print(cluster.scheduler_address, flush=True)

        def eof() -> None:
            sys.stdin.buffer.read()
            stop.set()

        threading.Thread(target=eof, daemon=True).start()
        stop.wait()
    finally:
        cluster.close(timeout=10)


if __name__ == "__main__":  # python -m harness.tournament.cluster local N PARENT_PID
    if len(sys.argv) == 4 and sys.argv[1] == "local":
        _serve_local(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit("usage: python -m harness.tournament.cluster local N PARENT_PID")
