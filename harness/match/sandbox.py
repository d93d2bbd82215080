"""One sandbox per bot: bubblewrap namespaces and mounts, a control group, a uid of its own.

A bot is hostile code (DESIGN.md "Contest promises"). Each runs under
bubblewrap (``bwrap``, the sandbox Flatpak uses; Debian package
``bubblewrap``) with:

- its own pid, network (loopback only), IPC, UTS and cgroup namespaces: it
  sees and signals only its own processes, reaches no network, and its one
  way out is its own referee socket: the seat's directory (holding nothing
  but the socket) bind-mounted alone at ``/run/harness``;
- a read-only view of what it needs (``/usr`` and the usual links, a few
  files of ``/etc``, the harness's interpreter and venv, the SDK packages
  ``protocol``, ``bots`` and ``harness.engine``, its own directory, the
  ``[sandbox] paths``), with the output directories, the other bots'
  directories and ``[sandbox] hidden`` masked by empty tmpfs mounts where
  they fall inside that view; a private, size-limited tmpfs ``/tmp``
  (``HOME`` and ``TMPDIR``) and ``/dev/shm``; a fresh ``/proc`` and a
  minimal ``/dev``; no ``/sys``;
- as root: a uid of its own from ``[sandbox] uid_range`` (leased with a
  lock file, so concurrent matches never share one), entered with
  ``setpriv`` (util-linux) after bwrap has built the mounts, with no
  capabilities and ``no_new_privs``; as an ordinary user: bwrap's user
  namespace;
- its control group (:mod:`harness.match.cgroups`): memory and processes of
  all its processes together, CPU accounting and weight, killed whole at the
  end;
- a seccomp filter (:mod:`harness.match.syscall_filter`, loaded by bwrap):
  no file locks, file watching or page-cache probing, the channels through
  which bots in different sandboxes could talk over the files they all see.

The referee also makes itself non-dumpable (``PR_SET_DUMPABLE``) while bots
run, so a process of its own user cannot read its memory or ptrace it.

:func:`plan` decides what a match gets from ``[sandbox] mode``: ``auto``
uses what works and explains what does not (:attr:`Plan.warning`),
``required`` raises :class:`SandboxError` unless everything works, ``off``
uses nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import importlib.util
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.match import cgroups, syscall_filter, treelimits
from harness.match.specs import CpuPolicy, SandboxMode, SandboxSettings

__all__ = [
    "DEFAULT_PIDS",
    "ENDPOINT_DIR",
    "BotJail",
    "Plan",
    "SandboxError",
    "SandboxSupport",
    "UidLease",
    "non_dumpable",
    "plan",
    "support",
]

#: Processes and threads of one bot when ``[limits] max_processes`` is 0.
DEFAULT_PIDS = 256
#: Where a sandboxed bot finds its socket.
ENDPOINT_DIR = "/run/harness"
ENDPOINT_NAME = "bot.sock"
#: Files of /etc a bot may need: the dynamic linker, users, time zone, TLS roots, alternatives.
ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "passwd", "group", "hosts",
    "nsswitch.conf", "ssl", "ca-certificates", "alternatives", "os-release", "mime.types",
)
#: Directories of /etc that runtimes under /usr point into (Debian's JDKs: /etc/java-17-openjdk ...).
ETC_PATTERNS = ("java-*", "java")
#: Top-level links or directories of a merged-/usr system.
USR_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Where uid leases are kept (root only).
LEASE_DIR = "/run/lock/harness-sandbox-uids"

_PR_SET_DUMPABLE = 4
_PR_GET_DUMPABLE = 3


class SandboxError(RuntimeError):
    """The sandbox is required but cannot run here, or cannot be set up; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SandboxSupport:
    """What this machine offers (see :func:`support`).

    Attributes:
        bwrap: path of a working ``bwrap``, or None.
        setpriv: path of ``setpriv`` (needed as root), or None.
        root: the harness runs as root (uid per seat).
        namespaces_problem: why namespaces cannot be used ('' when they can).
        cgroups: what :func:`harness.match.cgroups.probe` found.
        prlimit: path of ``prlimit`` (util-linux; sets the process limit inside
            a bot's user namespace when there are no control groups), or None.
    """

    bwrap: str | None
    setpriv: str | None
    root: bool
    namespaces_problem: str
    cgroups: cgroups.CgroupSupport
    prlimit: str | None = None

    @property
    def namespaces(self) -> bool:
        """True when bubblewrap sandboxes work here."""
        return not self.namespaces_problem


def _usr_args() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in USR_LINKS:
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


@lru_cache(maxsize=1)
def support() -> SandboxSupport:
    """Probe bubblewrap (one trivial sandbox run), setpriv and control groups; cached for the process."""
    root = os.geteuid() == 0
    bwrap = shutil.which("bwrap")
    setpriv = shutil.which("setpriv")
    problem = ""
    if bwrap is None:
        problem = "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    elif root and setpriv is None:
        problem = "setpriv (util-linux) is not installed; it gives each bot its own uid"
    else:
        true = shutil.which("true", path="/usr/bin:/bin") or "/usr/bin/true"
        argv = [bwrap, *_namespace_args(root), *_usr_args(), "--proc", "/proc", "--dev", "/dev", true]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=20, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            problem = f"bubblewrap does not run: {exc}"
        else:
            if done.returncode != 0:
                err = done.stderr.decode(errors="replace").strip().splitlines()
                problem = (
                    f"bubblewrap cannot create namespaces here ({err[-1] if err else f'exit {done.returncode}'}"
                    "; unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1 "
                    "or user.max_user_namespaces)"
                )
    return SandboxSupport(bwrap, setpriv, root, problem, cgroups.probe(), shutil.which("prlimit"))


def _namespace_args(root: bool) -> list[str]:
    args = [
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--hostname", "bot", "--new-session", "--die-with-parent",
    ]
    if root:  # real root builds the mounts; setpriv then drops to the seat's uid (see BotJail)
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:  # an unprivileged user: bwrap's own user namespace, none nested inside it
        args += ["--unshare-user", "--disable-userns"]
    return args


@dataclass(frozen=True, slots=True)
class Plan:
    """What a match's bots get.

    Attributes:
        namespaces: bubblewrap sandboxes (and a uid per seat as root).
        cgroups: a control group per bot.
        cpu: the fair-CPU policy in force (NONE without cgroups or tree limits).
        warning: what is missing and what that means, or None when all is on.
        summary: one line for logs and ``harness check-bot``, e.g.
            ``"on (bubblewrap, a uid per seat, seccomp, cgroup v1, cpu: weight)"``.
        syscall_filter: the bots' sandboxes load the seccomp filter
            (:mod:`harness.match.syscall_filter`; only with ``namespaces``).
        tree: no control groups: limits, freezing and the CPU pin are kept per
            process tree from outside (:mod:`harness.match.treelimits`).
        nproc_in_jail: with ``tree``, the process limit is ``RLIMIT_NPROC`` set
            inside each bot's user namespace (exact for the bot alone).
        missing: the protections not in force, one phrase each (the warning lists them).
    """

    namespaces: bool
    cgroups: bool
    cpu: CpuPolicy
    warning: str | None
    summary: str
    syscall_filter: bool = False
    tree: bool = False
    nproc_in_jail: bool = False
    missing: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """True when anything of the sandbox is used."""
        return self.namespaces or self.cgroups or self.tree


def _missing_without_cgroups(namespaces: bool, nproc_in_jail: bool, cpu: CpuPolicy) -> list[str]:
    """What per-tree limits (:mod:`harness.match.treelimits`) cannot do that control groups do, one phrase each."""
    every = f"every {round(treelimits.POLL_S * 1000)} ms"
    out = [
        f"memory for all of a bot's processes together (each process is held to memory_mb by RLIMIT_DATA; their "
        f"sum is checked {every}, so a bot can go over between checks, and its /tmp files are not counted)",
    ]
    if not nproc_in_jail:
        out.append(f"the process limit (checked {every} only: RLIMIT_NPROC would count all of the user's processes)")
    if cpu is CpuPolicy.WEIGHT:
        out.append("fair CPU by weight (an ordinary user cannot lower a process's CPU share and raise it again): "
                   "waiting bots are stopped with SIGSTOP instead, as cpu = \"freeze\"")
    out.append(f"the CPU pin (a bot can widen its CPU affinity; it is put back {every})")
    if not namespaces:
        out.append("limits, freezing and cleanup of children that leave the bot's process tree (a double fork)")
    return out


def plan(settings: SandboxSettings, *, transport: str = "ipc") -> Plan:
    """Decide what the sandbox does for a match under ``settings``.

    Raises:
        SandboxError: ``mode = "required"`` and something is missing (the
            message lists what and how to fix it), or the settings are unusable.
    """
    if settings.mode is SandboxMode.OFF:
        return Plan(False, False, CpuPolicy.NONE, None, "off ([sandbox] mode = \"off\")")
    sup = support()
    problems = []
    filtering = syscall_filter.support()
    if not sup.namespaces:
        problems.append(sup.namespaces_problem)
    elif transport != "ipc":
        problems.append("the tcp transport cannot reach a bot without network: use ipc")
    elif filtering.problem:
        problems.append(f"no seccomp filter: {filtering.problem}")
    namespaces = sup.namespaces and transport == "ipc"
    filtered = namespaces and filtering.program is not None
    groups = sup.cgroups.available
    tree = not groups
    nproc_in_jail = tree and namespaces and sup.prlimit is not None
    missing: list[str] = []
    cpu = settings.cpu
    if groups:
        controllers = sup.cgroups.controllers
        if cpu is CpuPolicy.WEIGHT and "cpu" not in controllers:
            problems.append(f"control groups: the cpu controller is not available in {sup.cgroups.where}")
            missing.append("fair CPU by weight: waiting bots are frozen instead, as cpu = \"freeze\"")
            cpu = CpuPolicy.FREEZE
        if "cpuset" not in controllers:
            problems.append(f"control groups: the cpuset controller is not available in {sup.cgroups.where}")
            missing.append("the CPU pin (a bot can widen its CPU affinity to every CPU)")
    else:
        problems.append(f"control groups: {sup.cgroups.reason}")
        missing += _missing_without_cgroups(namespaces, nproc_in_jail, cpu)
        if cpu is CpuPolicy.WEIGHT:
            cpu = CpuPolicy.FREEZE
    if problems and settings.mode is SandboxMode.REQUIRED:
        raise SandboxError(
            "[sandbox] mode = \"required\" but the sandbox cannot run here: " + "; ".join(problems)
            + ". Install bubblewrap (apt-get install bubblewrap) and libseccomp (apt-get install libseccomp2; "
            "pip install pyseccomp) and run where control groups can be created "
            "(as root, or in a delegated cgroup: systemd-run --user --scope -p Delegate=yes harness ...), "
            "or set [sandbox] mode = \"auto\"."
        )
    parts = []
    if namespaces:
        parts += ["bubblewrap", "a uid per seat" if sup.root else "a user namespace"]
    if filtered:
        parts.append("seccomp")
    if groups:
        parts += [f"cgroup {sup.cgroups.version}", f"cpu: {cpu.value}"]
    else:
        parts += ["limits per process tree", f"cpu: {cpu.value} by signals" if cpu is CpuPolicy.FREEZE else "cpu: none"]
    warning = None
    if problems:
        lost = []
        if not namespaces:
            lost.append("bots run as the harness's user and can read its files, other bots' processes and memory, "
                        "the results and the network")
        if namespaces and not filtered:
            lost.append("bots can pass each other information (their cards, when two collude) through file locks "
                        "and file watching on the files they all see")
        if missing:
            lost.append("missing: " + "; ".join(missing))
        warning = ("bots are NOT fully isolated: " + "; ".join(problems) + ". So " + "; ".join(lost)
                   + ". Set [sandbox] mode = \"required\" to refuse such runs (contests), \"off\" to silence this.")
    summary = ("on (" + ", ".join(parts) + ")") if not problems else (
        ("partly on (" + ", ".join(parts) + ")" if parts else "OFF") + ": " + "; ".join(problems))
    return Plan(namespaces, groups, cpu, warning, summary, filtered, tree, nproc_in_jail, tuple(missing))


# ---------------------------------------------------------------------- uids


class UidLease:
    """Distinct uids for the seats of one match, locked so no concurrent match takes them.

    Each uid of ``[sandbox] uid_range`` has a lock file in :data:`LEASE_DIR`
    (root-only); a uid is ours while we hold an exclusive ``flock`` on it, and
    the kernel drops the lock if we die, so a killed referee never blocks one.

    Raises:
        SandboxError: fewer free uids than seats, or the lock directory is unusable.
    """

    def __init__(self, count: int, uid_range: tuple[int, int]) -> None:
        first, last = uid_range
        if not 0 < first <= last:
            raise SandboxError(f"[sandbox] uid_range {list(uid_range)} must be [first, last] with 0 < first <= last")
        self.uids: list[int] = []
        self._fds: list[int] = []
        try:
            os.makedirs(LEASE_DIR, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise SandboxError(f"cannot create {LEASE_DIR} for uid leases: {exc.strerror}") from None
        candidates = list(range(first, last + 1))
        start = random.randrange(len(candidates))  # spread concurrent referees over the range
        for uid in candidates[start:] + candidates[:start]:
            if len(self.uids) == count:
                break
            fd = os.open(os.path.join(LEASE_DIR, str(uid)), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.uids.append(uid)
            self._fds.append(fd)
        if len(self.uids) < count:
            self.release()
            raise SandboxError(
                f"only {len(self.uids)} of the {last - first + 1} uids of [sandbox] uid_range are free, "
                f"{count} are needed: widen the range or run fewer matches at once"
            )

    def release(self) -> None:
        """Give the uids back (idempotent)."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
        self.uids = []


# ---------------------------------------------------------------------- the referee's memory


@contextlib.contextmanager
def non_dumpable() -> Iterator[None]:
    """Make this process non-dumpable while the block runs (``prctl(PR_SET_DUMPABLE, 0)``), then restore.

    A non-dumpable process's ``/proc/<pid>/mem``, ``environ`` and ptrace are
    closed to other processes of its user (root excepted, which the
    sandbox's uid per seat and pid namespace take care of).
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        before = prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
        prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        before = -1
    try:
        yield
    finally:
        if before > 0:
            prctl(_PR_SET_DUMPABLE, before, 0, 0, 0)


# ---------------------------------------------------------------------- one bot


def _sdk_paths() -> list[str]:
    """What an SDK bot imports from the harness: ``protocol``, ``bots`` and ``harness.engine`` (read-only)."""
    paths = []
    for name in ("protocol", "bots"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths += list(spec.submodule_search_locations)
    harness_dir = Path(__file__).resolve().parents[1]
    paths += [str(harness_dir / "__init__.py"), str(harness_dir / "engine")]
    return paths


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _unseen_files(args: Sequence[str], cwd: str, views: Sequence[str], hidden: Sequence[str]) -> list[str]:
    """Existing files named in ``args`` (a script, a model file) that the bot's view does not show.

    Not shown by design (the view is the bot's directory, read-only, and what it needs to run),
    so the bot fails to open them: the caller says so instead of leaving "can't open file" alone.
    """
    out = []
    for arg in args:
        if arg.startswith("-") or os.sep not in arg:
            continue
        path = os.path.realpath(os.path.join(cwd, arg))
        if not os.path.isfile(path):
            continue
        if not any(_inside(path, v) for v in views) or any(_inside(path, h) for h in hidden):
            out.append(path)
    return out


class BotJail:
    """The sandbox of one bot: its bwrap command line, control group and uid.

    Args:
        seat_dir: the host directory holding only this seat's socket (bound at
            :data:`ENDPOINT_DIR`).
        cwd: the bot's directory (None: the referee's), shown read-only.
        settings: ``[sandbox]`` (scratch size, extra paths).
        hidden: host paths masked wherever they fall inside the view.
        uid: the seat's uid (root only), else None.

    Raises:
        SandboxError: the directory is ``/``.
    """

    def __init__(
        self, *, seat_dir: str, cwd: str | None, settings: SandboxSettings, hidden: Sequence[str], uid: int | None
    ) -> None:
        self.seat_dir = seat_dir
        self.cwd = os.path.realpath(cwd or os.getcwd())
        if self.cwd == "/":
            raise SandboxError("a bot's directory (cwd) cannot be / under the sandbox: give it a directory of its own")
        self.settings = settings
        self.hidden = [os.path.realpath(h) for h in hidden]
        self.uid = uid
        self.endpoint = f"ipc://{ENDPOINT_DIR}/{ENDPOINT_NAME}"
        self.unseen: list[str] = []  # files the command names that the sandbox does not show (set by wrap)
        #: Descriptors the process started from :meth:`wrap`'s command line must inherit (the seccomp program).
        self.pass_fds: tuple[int, ...] = ()
        #: Processes and threads of the bot's user namespace (``RLIMIT_NPROC`` set inside it), 0 = not set here.
        self.nproc = 0

    def access_hint(self) -> str:
        """Why the bot may not have started: its directory is closed to its uid ('' when nothing is seen).

        As root each bot runs as a uid of its own, which needs read and
        search permission on its directory (``chmod -R a+rX DIR``).
        """
        if self.unseen:  # `cd /tmp && harness check-bot -- python /path/to/bot.py`: "can't open file"
            folder = os.path.dirname(self.unseen[0])
            return (
                f"; note: the sandbox does not show {self.unseen[0]} to the bot (only its cwd {self.cwd} and "
                f"[sandbox] paths): make {folder} its cwd (check-bot --cwd, [[bots]] cwd) or add it to [sandbox] paths"
            )
        if self.uid is None:
            return ""
        try:
            st = os.stat(self.cwd)
        except OSError:
            return ""
        if st.st_uid != self.uid and (st.st_mode & 0o005) != 0o005:
            return (
                f"; note: its directory {self.cwd} (mode {st.st_mode & 0o777:o}) is not readable by the bot, which "
                f"runs as uid {self.uid} in the sandbox: chmod -R a+rX {self.cwd}"
            )
        return ""

    def _program_view(self, program: str, env: Mapping[str, str]) -> str:
        """What to show of the bot's program: itself when given by path; for a runtime found on the
        PATH outside /usr (``node`` under /opt/node/bin), its whole install directory."""
        if os.sep in program:
            return os.path.join(self.cwd, program)  # an absolute path stays one
        found = shutil.which(program, path=env.get("PATH", os.defpath))
        if found is None:
            return program
        real = Path(os.path.realpath(found))
        home = real.parent.parent if real.parent.name == "bin" else real.parent
        return str(home) if str(home) not in ("/", os.path.expanduser("~")) else str(real)

    def _views(self, program: str) -> list[str]:
        """Host directories and files shown read-only (deduplicated, nested ones dropped)."""
        views = [self.cwd, *_sdk_paths(), sys.prefix, sys.base_prefix, *self.settings.paths, program]
        out: list[str] = []
        for v in views:
            v = os.path.realpath(v)
            if not os.path.exists(v) or _inside(v, "/usr") or v == "/":
                continue
            if any(_inside(v, o) for o in out):
                continue
            out = [o for o in out if not _inside(o, v)] + [v]
        return out

    def wrap(self, argv: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        """The bwrap command line that runs ``argv`` in the sandbox, and the environment to give it.

        The process started from it must inherit :attr:`pass_fds` (``Popen(...,
        pass_fds=jail.pass_fds)``); call :meth:`close_fds` once it has started.

        Raises:
            SandboxError: the seat's socket cannot be lent to its uid, or the
                seccomp program cannot be handed to bwrap.
        """
        sup = support()
        assert sup.bwrap is not None
        scratch = str(self.settings.scratch_mb * 1024 * 1024)
        args = [sup.bwrap, *_namespace_args(self.uid is not None), *_usr_args()]
        code = syscall_filter.program()
        if code is not None:  # without it plan() said so (or refused, mode "required")
            self.close_fds()
            try:
                fd = syscall_filter.memfd(code)
            except OSError as exc:
                raise SandboxError(f"cannot hand the seccomp filter to bubblewrap: {exc.strerror}") from None
            self.pass_fds = (fd,)
            args += ["--seccomp", str(fd)]
        args += ["--perms", "0755", "--dir", "/etc"]  # bwrap would make it 0700 as root
        for name in ETC_FILES:
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        for pattern in ETC_PATTERNS:
            for path in sorted(Path("/etc").glob(pattern)):
                args += ["--ro-bind", str(path), str(path)]
        # The private mounts first: a bot's directory may lie under /tmp and is bound over them.
        args += [
            "--proc", "/proc", "--dev", "/dev",
            "--size", scratch, "--perms", "1777", "--tmpfs", "/tmp",
            "--size", scratch, "--perms", "1777", "--tmpfs", "/dev/shm",
        ]
        made = {"/", "/usr", "/etc", "/tmp", "/proc", "/dev"}
        views = self._views(self._program_view(argv[0], env))
        self.unseen = _unseen_files(argv[1:], self.cwd, views, self.hidden)
        for view in views:
            # Parents made world-traversable: bwrap makes them 0700 as root, and the bot is not root.
            parts = Path(view).parents
            for parent in reversed([str(p) for p in parts]):
                if parent not in made:
                    args += ["--perms", "0755", "--dir", parent]
                    made.add(parent)
            args += ["--ro-bind", view, view]
        for h in self.hidden:
            if any(_inside(h, v) for v in views) and not _inside(self.cwd, h):
                if os.path.isdir(h):
                    args += ["--tmpfs", h]  # an empty directory over it
                elif os.path.exists(h):
                    args += ["--ro-bind", "/dev/null", h]  # an empty file over it
        args += [
            "--perms", "0755", "--dir", os.path.dirname(ENDPOINT_DIR),
            "--ro-bind", self.seat_dir, ENDPOINT_DIR,
            "--chdir", self.cwd,
        ]
        if self.uid is not None:
            assert sup.setpriv is not None
            try:  # the seat's uid must reach its socket; nobody else can (0700 parent on the host)
                os.chown(self.seat_dir, self.uid, self.uid)
                for name in os.listdir(self.seat_dir):
                    os.chown(os.path.join(self.seat_dir, name), self.uid, self.uid)
            except OSError as exc:
                raise SandboxError(f"cannot lend the seat's socket to uid {self.uid}: {exc.strerror}") from None
            args += [sup.setpriv, f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--no-new-privs"]
        args.append("--")
        if self.nproc > 0 and sup.prlimit is not None:
            # Inside the bot's user namespace, where Linux 5.14+ counts it for this namespace alone
            # (set before bwrap, it would count every process of the user).
            args += [sup.prlimit, f"--nproc={self.nproc}:{self.nproc}", "--"]
        args += argv
        inner = dict(env)
        inner.update(HOME="/tmp", TMPDIR="/tmp", HARNESS_ENDPOINT=self.endpoint)
        return args, inner

    def close_fds(self) -> None:
        """Close :attr:`pass_fds` (after the process has started; idempotent)."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()
