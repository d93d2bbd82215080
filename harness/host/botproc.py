"""One bot subprocess: launch under resource limits, capture its output, kill it for sure.

A bot is untrusted code; all its processes are gone when its match ends.
:class:`BotProcess`
starts it in its own session and process group with resource limits set in
the child before ``exec``, captures stdout/stderr into size-capped log files
without ever letting a full pipe block the bot, and stops it with the
escalation jupyter_client uses (voluntary exit, SIGTERM, SIGKILL), recording
which step ended it. Linux only (``/proc``, ``prctl``).

Environment of the bot (a deliberate allowlist, so the referee's secrets such
as API tokens or cloud credentials never reach untrusted code):

1. the referee's variables named in :data:`PASSED_ENV` or starting with a
   prefix in :data:`PASSED_ENV_PREFIXES` (PATH, HOME, LANG, LC_*, PYTHONPATH,
   VIRTUAL_ENV, ...);
2. then ``spec.env`` (the tournament file's per-bot variables);
3. then the referee's launch environment (``HARNESS_ENDPOINT``,
   ``HARNESS_SECRET``, ...), which nothing can override;
4. then :data:`MARK_ENV` = a fresh id, inherited by every descendant, so that
   processes that left the bot's process group or session are still found
   and killed (and tests can check that nothing of ours is left).

Cleanup: :meth:`BotProcess.stop` kills the process group, every process still
linked to the bot by parentage, and every process carrying the bot's mark.
``PR_SET_PDEATHSIG`` makes the bot itself die with the referee even after a
``kill -9`` of the referee; what survives it (the bot's own children, or a sandbox whose
bubblewrap had not armed ``--die-with-parent`` yet) is killed by the run's guardian
(:mod:`harness.host.guardian`) once every process of the run is gone, or by :func:`kill_strays`
(keyed on the mark) when the run starts again.
The referee is deliberately not made a ``PR_SET_CHILD_SUBREAPER``: orphans
would become its children and zombies until reaped, and a ``waitpid(-1)``
to reap them would steal the bots' exit statuses from ``subprocess``; the
mark finds orphans without that.
"""

from __future__ import annotations

import ctypes
import errno
import math
import os
import resource
import select
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import HarnessError
from harness.host import guardian, sysinfo_supervisor
from harness.host.marks import MARK_ENV, OWNER_ENV, find_marked, kill_strays, send_signal
from harness.host.placement import run_queue_wait_s
from harness.host.treelimits import children
from harness.specs import BotSpec, Limits

if TYPE_CHECKING:
    from harness.host.cgroups import BotGroup
    from harness.host.sandbox import BotJail
    from harness.host.treelimits import TreeBot

__all__ = [
    "BotProcess",
    "BotStartError",
    "MARK_ENV",
    "OWNER_ENV",
    "PASSED_ENV",
    "PASSED_ENV_PREFIXES",
    "StopStep",
    "TRUNCATED_NOTE",
    "describe_exit",
    "find_marked",
    "bot_path",
    "resolve_command",
    "kill_strays",
    "stop_all",
]


#: Referee variables passed to bots unchanged (everything else is dropped).
PASSED_ENV: frozenset[str] = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "TMPDIR",
        "LANG", "LANGUAGE", "VIRTUAL_ENV", "CONDA_PREFIX", "JAVA_HOME",
        "GOPATH", "GOROOT", "NODE_PATH", "CARGO_HOME", "RUSTUP_HOME",
        "LD_LIBRARY_PATH", "SYSTEMROOT",
    }
)
#: Prefixes of referee variables passed to bots (locale and Python settings).
PASSED_ENV_PREFIXES: tuple[str, ...] = ("LC_", "PYTHON")

#: File-size limit (RLIMIT_FSIZE) for files the bot writes itself (bytes).
FILE_SIZE_LIMIT = 64 * 1024 * 1024

#: What the harness writes at the end of a bot's log cut at its cap (``% cap``): the bot wrote at most the cap, so
#: a log longer than that ends with the harness's note, never the bot's.
TRUNCATED_NOTE = b"\n[log truncated: the bot wrote more than %d bytes]\n"
_READ_CHUNK = 65536
# Time given to SIGTERM before SIGKILL when grace_ms is 0 (ms).
_MIN_TERM_MS = 50

# prctl(2) options (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


class StopStep(StrEnum):
    """How :meth:`BotProcess.stop` ended the bot's main process."""

    EXITED = "exited"
    SIGTERM = "sigterm"
    SIGKILL = "sigkill"


class BotStartError(HarnessError, RuntimeError):
    """The bot could not be launched; the message says what, where and how to fix it."""


def describe_exit(returncode: int | None) -> str:
    """Say in words how a process ended, naming the limit behind a limit signal.

    Args:
        returncode: ``Popen.returncode`` (negative = killed by that signal).

    Returns:
        e.g. ``"exit status 1"``, ``"killed by SIGXCPU (CPU-time limit)"``,
        ``"still running"``.
    """
    if returncode is None:
        return "still running"
    if returncode >= 0:
        return f"exit status {returncode}"
    sig = -returncode
    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = f"signal {sig}"
    why: dict[int, str] = {
        signal.SIGXCPU: " (CPU-time limit)",
        signal.SIGXFSZ: " (file-size limit)",
        signal.SIGSEGV: " (segmentation fault; the memory limit can cause it)",
        signal.SIGKILL: " (killed; the memory or CPU limit, or the referee)",
    }
    return f"killed by {name}{why.get(sig, '')}"


def _bot_environment(spec_env: Mapping[str, str], launch_env: Mapping[str, str], mark: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k in PASSED_ENV or k.startswith(PASSED_ENV_PREFIXES)
    }
    env.update({str(k): str(v) for k, v in spec_env.items()})
    env.update({str(k): str(v) for k, v in launch_env.items()})
    env["PATH"] = bot_path(env.get("PATH", os.defpath))
    env[MARK_ENV] = mark
    env[OWNER_ENV] = str(os.getpid())
    env[guardian.GUARD_ENV] = guardian.token()  # kills it should this process die before bwrap arms its own
    return env


def bot_path(path: str) -> str:
    """A bot's PATH: the directory of the harness's interpreter first, then ``path`` (the referee's).

    So that a bot's own scripts (a ``run.sh`` of ``exec python impl.py``) find as ``python`` and
    ``python3`` the interpreter that has the SDK, pyzmq and msgpack, as a bare ``python`` command does
    (:func:`resolve_command`), with the sandbox and without.
    """
    first = os.path.dirname(sys.executable) if sys.executable else ""
    if not first or path.split(os.pathsep, 1)[0] == first:
        return path
    return f"{first}{os.pathsep}{path}" if path else first


def resolve_command(spec: BotSpec, env: Mapping[str, str] | None = None) -> list[str]:
    """Check a bot's command and cwd before launching it; return the argv to run.

    ``python``/``python3`` as the program means the harness's own interpreter
    (``sys.executable``), which has pyzmq, msgpack and the SDK.

    Args:
        spec: the bot.
        env: the environment whose PATH is searched (default: the referee's).

    A program with a slash is found from the bot's ``cwd``; one without is looked up
    on the PATH only, as a shell does (the error suggests ``./NAME`` when ``cwd`` has it).

    Raises:
        BotStartError: empty command, cwd missing, program not found or not executable.
    """
    if env is None:
        env = os.environ
    if not spec.command:
        raise BotStartError(f"bot {spec.name!r}: empty command; give the argv, e.g. ['python', '-m', 'bots.caller']")
    argv = [str(a) for a in spec.command]
    if spec.cwd is not None and not Path(spec.cwd).is_dir():
        raise BotStartError(
            f"bot {spec.name!r}: working directory {spec.cwd!r} does not exist; fix `cwd` in the bot's entry"
        )
    # A bare "python" would otherwise be whatever PATH finds first, often one
    # without pyzmq/msgpack; the harness's own interpreter has them.
    if argv[0] in ("python", "python3") and sys.executable:
        argv[0] = sys.executable
        return argv
    exe = argv[0]
    if os.sep in exe:
        path = Path(spec.cwd or ".") / exe if not os.path.isabs(exe) else Path(exe)
        if not path.exists():
            raise BotStartError(f"bot {spec.name!r}: command {exe!r} not found (looked at {path})")
        if path.is_dir():
            raise BotStartError(f"bot {spec.name!r}: command {exe!r} is a directory, not a program ({path})")
        if not os.access(path, os.X_OK):
            raise BotStartError(f"bot {spec.name!r}: command {exe!r} is not executable; {_run_hint(path, exe)}")
    else:
        found = shutil.which(exe, path=env.get("PATH", os.defpath))
        if found is None:
            # As in a shell, a name without a slash is looked up on the PATH only, never in cwd.
            local = Path(spec.cwd or ".") / exe
            hint = (f"did you mean ./{exe}? (a file of that name is in {local.parent.resolve()}; a name without "
                    "a slash is looked up on the PATH, as in a shell)") if local.is_file() else \
                "install it or give its full path"
            raise BotStartError(f"bot {spec.name!r}: command {exe!r} not found on PATH; {hint}")
        path = Path(found)
    problem = exec_problem(path)
    if problem:
        raise BotStartError(f"bot {spec.name!r}: command {exe!r} {problem}")
    return argv


#: Interpreters to suggest by file name suffix, for a script that cannot run by itself.
_INTERPRETERS = {".py": "python3", ".js": "node", ".mjs": "node", ".rb": "ruby", ".pl": "perl", ".sh": "sh"}


def _run_hint(path: Path, exe: str) -> str:
    """How to make ``path`` runnable, from what it holds (a compiled program, a script)."""
    head = _head(path)
    if head.startswith(b"\x7fELF") or head.startswith(b"#!"):
        return f"run `chmod +x {path}`"
    interpreter = _INTERPRETERS.get(path.suffix)
    if interpreter:
        return f"run `chmod +x {path}` and give it a `#!` line, or start it as `{interpreter} {exe}`"
    return f"run `chmod +x {path}` (a script also needs a `#!` line, or its interpreter first in the command)"


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(20)
    except OSError:
        return b""


def exec_problem(path: Path) -> str | None:
    """Why the kernel would refuse to execute ``path`` (``ENOEXEC``), in words with the fix; None if it can.

    A program is either a compiled executable (ELF) for this machine or a
    script whose first line is ``#!interpreter``. Anything else fails with
    "Exec format error".
    """
    head = _head(path)
    if not head or head.startswith(b"#!"):
        return None
    if head.startswith(b"\x7fELF"):
        own = _head(Path("/proc/self/exe"))
        # e_ident class (32/64-bit) and byte order at 4-5, e_machine at 18-19.
        if len(own) >= 20 and len(head) >= 20 and (head[4:6] != own[4:6] or head[18:20] != own[18:20]):
            return "is a compiled program for another kind of machine (Exec format error); build it here"
        return None
    interpreter = _INTERPRETERS.get(path.suffix, "its interpreter")
    return (
        "has no `#!` line and is not a compiled program, so the system cannot run it (Exec format error): "
        f"add a first line such as `#!/usr/bin/env {'python3' if interpreter == 'its interpreter' else interpreter}`, "
        f"or start it as `{interpreter} {path.name}`"
    )


@lru_cache(maxsize=1)
def _prctl() -> Callable[..., int]:
    """libc's prctl(2), bound once in the parent (never inside the forked child)."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


#: keyctl(2)'s number per machine (asm/unistd.h) and its KEYCTL_JOIN_SESSION_KEYRING operation (linux/keyctl.h).
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "loongarch64": 219, "i686": 288, "i386": 288,
               "armv7l": 311, "ppc64le": 355, "s390x": 280}
_KEYCTL_JOIN_SESSION_KEYRING = 1
_NO_KEYRING = b"harness: cannot give the bot a session keyring of its own (keyctl JOIN_SESSION_KEYRING failed)\n"


@lru_cache(maxsize=1)
def _session_keyring_joiner() -> Callable[[], int] | None:
    """A call that puts the calling process in a new, empty, anonymous session keyring (0, or an errno).

    What ``pam_keyinit`` does at login: the process stops possessing the
    keyring it was started in (the organiser's login session, with its
    Kerberos tickets, AFS tokens, fscrypt keys), and its own is empty. Bound
    once in the parent, like :func:`_prctl`; None on a machine not listed.
    """
    number = _SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p]
    syscall.restype = ctypes.c_long
    get_errno = ctypes.get_errno

    def join() -> int:
        return 0 if syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None) >= 0 else get_errno()

    return join


def _make_preexec(
    limits: Limits, join_fds: Sequence[int] = (), grouped: bool = False, nproc: bool = True,
    fresh_keyring: bool = False, sysinfo: Callable[[], None] | None = None,
) -> Callable[[], None]:
    """Build the child-side setup run between fork and exec.

    It only calls ``setrlimit``, a pre-bound ``prctl`` and ``write`` to
    descriptors opened by the parent: ``preexec_fn`` is not safe with
    threads in general (a lock held by another thread at fork time stays
    held in the child), so it must not import, log or allocate through
    locks. Keep it that way.

    Args:
        limits: the rlimits to set.
        join_fds: control-group ``cgroup.procs`` descriptors; writing ``"0"``
            moves the child into the bot's group before it runs anything.
        grouped: memory and processes are limited by that group, for all
            the bot's processes together: no per-process RLIMIT_DATA/NPROC.
        nproc: set ``RLIMIT_NPROC`` here (when not grouped); False when the
            sandbox sets it inside the bot's user namespace instead.
        fresh_keyring: start the bot in a new, empty session keyring
            (:func:`_session_keyring_joiner`; the sandbox does); a failure other
            than ``ENOSYS`` (a kernel without keyrings) ends the child with a
            line on its stderr, so it never runs possessing the referee's.
        sysinfo: run last: loads the filter whose supervisor answers the bot's sysinfo
            (:attr:`harness.host.sysinfo_supervisor.Prepared.child`; the sandbox does).

    Memory per process is ``RLIMIT_DATA`` (private writable mappings: heap,
    anonymous memory), not ``RLIMIT_AS``: runtimes such as the JVM and
    Node.js reserve gigabytes of address space they never use.
    """
    rl: list[tuple[int, int, int]] = []

    def add(which: int, soft: int, hard: int | None = None) -> None:
        hard = soft if hard is None else hard
        cur_soft, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            # An unprivileged referee cannot raise a hard limit.
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        rl.append((which, soft, hard))

    if limits.memory_mb > 0 and not grouped:
        add(resource.RLIMIT_DATA, limits.memory_mb * 1024 * 1024)
    if limits.cpu_seconds > 0:
        # SIGXCPU at the soft limit, SIGKILL one second later.
        add(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)
    if limits.open_files > 0:
        add(resource.RLIMIT_NOFILE, limits.open_files)
    if limits.max_processes > 0 and not grouped and nproc:
        add(resource.RLIMIT_NPROC, limits.max_processes)
    add(resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT)
    add(resource.RLIMIT_CORE, 0)

    prctl = _prctl()
    parent = os.getpid()
    setrlimit = resource.setrlimit
    getppid = os.getppid
    exit_now = os._exit
    sigkill = int(signal.SIGKILL)
    write = os.write
    joins = tuple(join_fds)
    join_keyring = _session_keyring_joiner() if fresh_keyring else None

    def preexec() -> None:
        for fd in joins:  # into the bot's control group before anything of the bot runs
            write(fd, b"0")
        if join_keyring is not None and join_keyring() not in (0, errno.ENOSYS):
            write(2, _NO_KEYRING)
            exit_now(1)
        for which, soft, hard in rl:
            setrlimit(which, (soft, hard))
        # Die with the referee (even kill -9). Note: the signal fires when the
        # *thread* that forked exits, so launch bots from a long-lived thread.
        prctl(_PR_SET_PDEATHSIG, sigkill, 0, 0, 0)
        if getppid() != parent:  # the referee died before prctl took effect
            exit_now(1)
        if sysinfo is not None:
            sysinfo()

    return preexec


class _LogPump:
    """Drain a bot's stdout and stderr into capped files on one daemon thread.

    The pipes are always read to the end so the bot never blocks on a full
    pipe; bytes past ``cap`` are counted and discarded and one note is written.
    A write that fails (a full disk: ENOSPC, EDQUOT, EIO) is never a traceback
    of this thread: the first error is kept in :attr:`error` (its ``filename``
    the log file), that file gets nothing more, and the pipes are still drained.
    """

    def __init__(self, pipes: list[tuple[int, Path]], cap: int, name: str) -> None:
        self._cap = cap
        self._sel = selectors.DefaultSelector()
        self._files: dict[int, list[int]] = {}  # pipe fd -> [file fd, bytes written]
        self._paths: dict[int, Path] = {}
        #: The first write to a log file that failed, or None.
        self.error: OSError | None = None
        for fd, path in pipes:
            os.set_blocking(fd, False)
            out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
            self._files[fd] = [out, 0]
            self._paths[fd] = path
            self._sel.register(fd, selectors.EVENT_READ)
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        self._sel.register(self._wake_r, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._run, name=f"botlog-{name}", daemon=True)
        self._thread.start()

    def _write(self, fd: int, data: bytes) -> None:
        slot = self._files[fd]
        room = self._cap - slot[1]
        if room > 0:
            chunk = data[:room]
            try:
                os.write(slot[0], chunk)
                slot[1] += len(chunk)
                if len(data) > room:
                    os.write(slot[0], TRUNCATED_NOTE % self._cap)
                    slot[1] = self._cap + 1  # note written once
            except OSError as exc:
                slot[1] = self._cap + 1  # nothing more to this file; the pipe is still drained
                if self.error is None:
                    self.error = OSError(exc.errno, exc.strerror, str(self._paths[fd]))

    def _run(self) -> None:
        open_pipes = len(self._files)
        stopping = False
        while open_pipes:
            # After stop is asked, only drain what is already buffered.
            for key, _ in self._sel.select(0 if stopping else None):
                fd = key.fd
                if fd == self._wake_r:
                    stopping = True
                    self._sel.unregister(fd)
                    continue
                try:
                    data = os.read(fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    self._write(fd, data)
                else:
                    self._sel.unregister(fd)
                    open_pipes -= 1
            if stopping:
                break
        self._close()

    def _close(self) -> None:
        for fd, (out, _) in self._files.items():
            for f in (fd, out):
                try:
                    os.close(f)
                except OSError:
                    pass
        self._sel.close()
        os.close(self._wake_r)

    def finish(self, timeout_s: float) -> None:
        """Wait for EOF on both pipes (up to ``timeout_s``), then stop reading."""
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            # A process outside our reach still holds the pipe: stop anyway.
            try:
                os.write(self._wake_w, b"x")
            except OSError:
                pass
            self._thread.join(1.0)
        os.close(self._wake_w)


def _descendants(pid: int) -> list[int]:
    """Pids of processes below ``pid`` by parentage (``/proc/<pid>/task/*/children``)."""
    out: list[int] = []
    stack = [pid]
    while stack:
        kids = children(stack.pop())
        out.extend(kids)
        stack.extend(kids)
    return out


class BotProcess:
    """One bot subprocess with limits, capped logs and a sure stop.

    Example::

        proc = BotProcess(spec, {"HARNESS_ENDPOINT": ep, ...}, out / "logs", limits, "0-solid")
        proc.start()
        ...
        step = proc.stop(grace_ms=500)   # "exited" | "sigterm" | "sigkill"

    Launch bots from one long-lived thread (the referee's): ``PR_SET_PDEATHSIG``
    kills a bot when the *thread* that started it ends.

    Args:
        spec: the command, cwd and extra environment of the bot.
        env: the referee's launch environment (``HARNESS_ENDPOINT``, ...).
        log_dir: directory for ``<label>.out`` and ``<label>.err`` (created).
        limits: resource limits (memory_mb, cpu_seconds, open_files,
            max_processes, log_bytes are used here).
        label: file-name-safe label, e.g. ``"0-solid"``.
        jail: the bot's sandbox (:class:`harness.host.sandbox.BotJail`), or None
            to run it as the referee's user. In a jail the process started is
            bubblewrap (its exit status is the bot's, 128 + n when signal n
            killed it) and the bot's processes live in their own pid namespace.
        group: the bot's control group (:class:`harness.host.cgroups.BotGroup`),
            or None. The child joins it before ``exec``; memory and processes
            are then limited for all the bot's processes together, and
            stopping empties the group. Or its limits per process tree
            (:class:`harness.host.treelimits.TreeBot`, no control groups),
            which watch the started process's tree.
    """

    def __init__(
        self,
        spec: BotSpec,
        env: Mapping[str, str],
        log_dir: Path,
        limits: Limits,
        label: str,
        jail: BotJail | None = None,
        group: BotGroup | TreeBot | None = None,
    ) -> None:
        self.spec = spec
        self.jail = jail
        self.group = group
        self.label = label
        self.limits = limits
        self.log_dir = Path(log_dir)
        self.mark = uuid.uuid4().hex
        self._launch_env = dict(env)
        self._popen: subprocess.Popen[bytes] | None = None
        self._pump: _LogPump | None = None
        self._stop_step: str | None = None
        self._pidfd: int | None = None
        self._sysinfo: sysinfo_supervisor.Supervisor | None = None

    @property
    def stdout_path(self) -> Path:
        """The captured stdout log file."""
        return self.log_dir / f"{self.label}.out"

    @property
    def stderr_path(self) -> Path:
        """The captured stderr log file."""
        return self.log_dir / f"{self.label}.err"

    @property
    def pid(self) -> int:
        """The bot's pid (also its process group and session id). Raises RuntimeError before start."""
        if self._popen is None:
            raise RuntimeError(f"bot {self.label}: not started")
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """Exit status as ``Popen.returncode`` (negative = signal), None while running or before start."""
        return None if self._popen is None else self._popen.returncode

    def start(self) -> None:
        """Launch the bot.

        Raises:
            BotStartError: command not found or not executable, cwd missing,
                log directory not writable, or the limits could not be set.
            RuntimeError: already started.
        """
        if self._popen is not None:
            raise RuntimeError(f"bot {self.label}: already started")
        env = _bot_environment(self.spec.env, self._launch_env, self.mark)
        argv = resolve_command(self.spec, env)
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BotStartError(f"bot {self.spec.name!r}: cannot create log directory {self.log_dir}: {exc}") from None
        cwd = self.spec.cwd
        jail = self.jail
        group = self.group
        grouped = group is not None and group.version != "tree"  # a control group, not limits per tree
        if not grouped and self.limits.memory_mb > 0:
            # A JVM sizes its heap from the machine's memory (it would from a control group's limit) and
            # commits more than a GiB of it at start on a large machine: RLIMIT_DATA would stop it.
            own = env.get("JAVA_TOOL_OPTIONS", "")
            env["JAVA_TOOL_OPTIONS"] = f"-XX:MaxRAM={self.limits.memory_mb}m" + (f" {own}" if own else "")
        if jail is not None:
            try:
                argv, env = jail.wrap(argv, env)
            except RuntimeError as exc:  # SandboxError
                jail.close_fds()
                jail.release()
                raise BotStartError(f"bot {self.spec.name!r}: {exc}") from None
            cwd = None  # bwrap --chdir
        # The bot's sysinfo answered by the referee (no shared task count): a filter loaded before exec.
        answering = sysinfo_supervisor.prepare() if jail is not None and jail.answer_sysinfo else None
        try:
            self._popen = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                pass_fds=jail.pass_fds if jail is not None else (),  # the seccomp program, read by bwrap
                preexec_fn=_make_preexec(
                    self.limits, group.join_fds if group is not None else (), grouped=grouped,
                    nproc=jail is None or jail.nproc == 0, fresh_keyring=jail is not None,
                    sysinfo=answering.child if answering is not None else None,
                ),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            if jail is not None:
                jail.release()
            raise self._start_error(exc, argv) from None
        finally:
            if jail is not None:
                jail.close_fds()  # bwrap has its own copy
            if answering is not None and self._popen is None:
                answering.close()
        if answering is not None:
            listener = answering.listener()  # None: the child said why on its stderr and exited
            if listener is not None:
                assert jail is not None
                self._sysinfo = sysinfo_supervisor.Supervisor(listener, jail.memory_bytes(), self.label)
        assert self._popen.stdout is not None and self._popen.stderr is not None
        attach = getattr(group, "attach", None)
        if attach is not None:  # limits per process tree (no control group): the tree starts here
            attach(self._popen.pid, jailed=jail is not None)
        try:  # a pidfd lets stop() wake exactly when the bot exits (Linux >= 5.3)
            self._pidfd = os.pidfd_open(self._popen.pid)
        except (AttributeError, OSError):
            self._pidfd = None
        self._start_pump()

    def _start_error(self, exc: BaseException, argv: Sequence[str]) -> BotStartError:
        """The one-line reason a bot's command could not be started (not found, not executable, bad format)."""
        name, cmd = self.spec.name, argv[0]
        if isinstance(exc, FileNotFoundError):
            return BotStartError(f"bot {name!r}: command {cmd!r} not found (cwd {self.spec.cwd or os.getcwd()})")
        if isinstance(exc, PermissionError):
            return BotStartError(f"bot {name!r}: command {cmd!r} is not executable; "
                                 f"run `chmod +x` on it or start it through its interpreter")
        if isinstance(exc, OSError) and exc.errno == errno.ENOEXEC:
            why = exec_problem(Path(self.spec.cwd or ".", cmd)) or "cannot be executed (Exec format error)"
            return BotStartError(f"bot {name!r}: command {cmd!r} {why}")
        return BotStartError(f"bot {name!r}: could not start {argv!r}: {exc}")

    def _start_pump(self) -> None:
        """Hand the bot's stdout and stderr to the log pump (which closes them).

        Raises:
            BotStartError: the logs cannot be written (the bot is killed first).
        """
        assert self._popen is not None and self._popen.stdout is not None and self._popen.stderr is not None
        out_fd = os.dup(self._popen.stdout.fileno())
        err_fd = os.dup(self._popen.stderr.fileno())
        self._popen.stdout.close()
        self._popen.stderr.close()
        self._popen.stdout = self._popen.stderr = None
        try:
            self._pump = _LogPump(
                [(out_fd, self.stdout_path), (err_fd, self.stderr_path)],
                self.limits.log_bytes,
                self.label,
            )
        except OSError as exc:
            self._kill_all()
            self._close_sysinfo()
            raise BotStartError(f"bot {self.spec.name!r}: cannot write logs in {self.log_dir}: {exc}") from None


    @property
    def log_error(self) -> OSError | None:
        """The first write to the bot's log files that failed (``filename``: the file), or None: the
        match that hosts it reports it once the bot is stopped."""
        return None if self._pump is None else self._pump.error

    def poll(self) -> int | None:
        """Return the exit status (negative = killed by that signal), or None while running."""
        if self._popen is None:
            return None
        return self._popen.poll()

    def run_queue_wait_s(self) -> float:
        """Seconds the bot's most-delayed thread spent waiting for a CPU that others held, so far.

        Over every process of the bot (its control group, else its process tree);
        0.0 before start or without scheduler statistics
        (:func:`harness.host.placement.run_queue_wait_s`).
        """
        if self._popen is None:
            return 0.0
        pids = self.group.pids() if self.group is not None else []
        if not pids:
            pids = [self._popen.pid, *_descendants(self._popen.pid)]
        return run_queue_wait_s(pids)

    def stop(self, grace_ms: int = 500) -> str:
        """End the bot and everything it started; idempotent.

        Steps: wait up to ``grace_ms`` for a voluntary exit (the referee has
        sent match_end), then SIGTERM to the process group and wait up to
        ``grace_ms`` again, then SIGKILL. Whatever step ended the bot, every
        remaining process of its group, its descendants and every process
        carrying its mark is SIGKILLed, and the bot is reaped. To stop
        several bots with the waits overlapping, use :func:`stop_all`.

        Args:
            grace_ms: milliseconds for each of the first two steps.

        Returns:
            ``"exited"``, ``"sigterm"`` or ``"sigkill"``: the step that ended
            the bot's main process (the first call's answer on repeat calls).
        """
        return stop_all([self], grace_ms)[0]

    def _finish(self, tree: set[int], step: str) -> None:
        self._kill_all(tree)
        self._stop_step = step
        self._close_sysinfo()
        if self.jail is not None:
            self.jail.release()  # its private view's copies, once nothing of it runs
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if self._pump is not None:
            self._pump.finish(1.0)

    def _close_sysinfo(self) -> None:
        """Stop answering the bot's sysinfo (once its processes are gone)."""
        if self._sysinfo is not None:
            self._sysinfo.close()
            self._sysinfo = None

    def _signal_group(self, sig: int) -> None:
        assert self._popen is not None
        if self.jail is not None:
            self._signal_jail(sig)
            return
        try:
            os.killpg(self._popen.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _signal_jail(self, sig: int) -> None:
        """Signal the bot's processes in its sandbox, not bubblewrap's own two.

        bwrap (our child) and its pid-1 reaper in the bot's pid namespace are
        spared: killing either ends the namespace, and with it every process
        in it, at once, which is for the last step only.
        """
        assert self._popen is not None and self.jail is not None
        outer = self._popen.pid
        spare = {outer, *children(outer)}
        group = self.group
        pids = group.pids() if group is not None else _descendants(outer)
        for p in pids:
            if p not in spare:
                send_signal(p, sig)

    def _kill_all(self, tree: set[int] | None = None) -> None:
        """SIGKILL the group, the known tree and every marked process, then reap the bot."""
        assert self._popen is not None
        if self.jail is not None:
            self._kill_jail()
            return
        if self.group is not None:
            self.group.kill()  # every process of the bot, however it left the tree, group and session
        pid = self._popen.pid
        if self._popen.returncode is None:
            tree = (tree or set()) | set(_descendants(pid))
        self._signal_group(signal.SIGKILL)
        for p in tree or ():
            send_signal(p)
        # Processes that left the group/session and the parentage chain.
        for p in find_marked(self.mark):
            send_signal(p)
        if self._popen.returncode is None:
            send_signal(pid)
            self._popen.wait()
        # A second sweep catches a process forked during the first one.
        for p in find_marked(self.mark):
            send_signal(p)

    def _kill_jail(self) -> None:
        """End a sandboxed bot: bwrap dies, so does its pid namespace (every process in it); the group is emptied."""
        assert self._popen is not None and self.jail is not None
        if self._popen.returncode is None:
            send_signal(self._popen.pid)  # --die-with-parent takes the namespace's pid 1, and the kernel the rest
            self._popen.wait()
        if self.group is not None:
            self.group.kill()

    def describe_exit(self) -> str:
        """How the bot ended, in words (:func:`describe_exit`), naming a sandbox limit that killed it or that
        its threads reached.

        In a sandbox bubblewrap reports death by signal n as exit status 128 + n;
        the control group's counters tell a memory-limit kill from others.
        """
        code = self.returncode
        if self.jail is not None and code is not None and 128 < code < 128 + 65:
            code = -(code - 128)
        words = describe_exit(code)
        group = self.group
        if group is not None and code is not None:
            oom, forks = group.limit_hits()
            if oom and code < 0:
                words += f"; its processes reached the memory limit ({self.limits.memory_mb} MiB for all of them)"
            elif forks:  # a runtime that cannot start a thread often exits by itself (a JVM: status 1)
                words += (f"; its processes and threads reached the process limit ({group.pids_max} together: "
                          "every thread counts, [limits] max_processes)")
        return words

    def __repr__(self) -> str:
        pid = self._popen.pid if self._popen else None
        return f"BotProcess(label={self.label!r}, pid={pid}, returncode={self.returncode})"


# Serialises stops: the referee may stop bots again from a Ctrl-C handler.
_STOP_LOCK = threading.RLock()


def _wait_exit(procs: Sequence[BotProcess], ms: int) -> None:
    """Wait up to ``ms`` until every process in ``procs`` has exited (reaping none of them)."""
    deadline = time.monotonic() + ms / 1000
    pending = [p for p in procs if p.poll() is None]
    while pending:
        left_ms = (deadline - time.monotonic()) * 1000
        if left_ms <= 0:
            return
        fds = [p._pidfd for p in pending if p._pidfd is not None]
        if len(fds) == len(pending):
            poller = select.poll()
            for fd in fds:
                poller.register(fd, select.POLLIN)
            poller.poll(max(1, math.ceil(left_ms)))  # whole ms: below 1 would busy-loop
        else:
            time.sleep(min(0.005, left_ms / 1000))
        pending = [p for p in pending if p.poll() is None]


def stop_all(procs: Sequence[BotProcess], grace_ms: int = 500) -> list[str]:
    """Stop several bots at once, each step's wait shared by all (see :meth:`BotProcess.stop`).

    With six bots that ignore ``match_end`` this takes about ``2 * grace_ms``,
    not six times that.

    Args:
        procs: the bots; ones already stopped or never started are fine.
        grace_ms: milliseconds for the voluntary-exit and the SIGTERM steps.

    Returns:
        Per bot, in order: ``"exited"``, ``"sigterm"`` or ``"sigkill"``.
    """
    with _STOP_LOCK:
        live = [p for p in procs if p._stop_step is None and p._popen is not None]
        for p in procs:
            if p._popen is None and p._stop_step is None:
                p._stop_step = StopStep.EXITED
        # Snapshot the trees while parentage still links them (a sandbox's group needs no snapshot).
        trees = {id(p): set() if p.jail is not None else set(_descendants(p.pid)) for p in live}
        steps = {id(p): StopStep.EXITED for p in live}
        _wait_exit(live, grace_ms)
        termed = [p for p in live if p.poll() is None]
        for p in termed:
            steps[id(p)] = StopStep.SIGTERM
            if p.jail is None:
                trees[id(p)].update(_descendants(p.pid))
            p._signal_group(signal.SIGTERM)
        _wait_exit(termed, max(grace_ms, _MIN_TERM_MS))
        for p in termed:
            if p.poll() is None:
                steps[id(p)] = StopStep.SIGKILL
        for p in live:
            p._finish(trees[id(p)], steps[id(p)])
        return [str(p._stop_step) for p in procs]
