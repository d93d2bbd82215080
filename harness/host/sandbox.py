"""One sandbox per bot: bubblewrap namespaces and mounts, a control group, a uid of its own.

A bot is hostile code: it may reach its own socket and processes, a
read-only view of what it needs and a scratch directory, nothing else
(docs/security.md). Each runs under
bubblewrap (``bwrap``, the sandbox Flatpak uses; Debian package
``bubblewrap``) with:

- its own pid, network (loopback only), IPC, UTS and cgroup namespaces: it
  sees and signals only its own processes, reaches no network, and its one
  way out is its own referee socket: the seat's directory (holding nothing
  but the socket) bind-mounted alone at ``/run/harness``;
- by default its own copies of the files it needs, on a tmpfs of its own
  (:mod:`harness.host.privateview`: no two sandboxes share a cached page, a
  directory entry or an access time of what they read), bound where the host
  has them; with ``[sandbox] view = "shared"`` the host's files themselves:
- a read-only view of what it needs (``/usr`` and the usual links, a few
  files of ``/etc``, the harness's interpreter and venv, the SDK packages
  ``protocol``, ``bots`` and ``harness.engine``, its own directory, the
  ``[sandbox] paths``), with the output directories, the other bots'
  directories and ``[sandbox] hidden`` masked by empty tmpfs mounts where
  they fall inside that view; of its program the file, its venv or
  runtime tree and its ``#!`` interpreter's, never a shared prefix of the
  organiser's home (:func:`install_tree`); a private, size-limited tmpfs
  ``/tmp`` (``HOME`` and ``TMPDIR``) and ``/dev/shm``; a fresh ``/proc``
  masked to an allow-list as container runtimes mask it (no shared
  counters, no host settings) and a read-only ``/dev`` without terminals;
  of ``/sys`` only ``/sys/fs/cgroup``, its own control group read-only in
  its own cgroup namespace (where the JVM, Go and .NET read their memory
  and CPU limits, as container runtimes show it); generated ``/etc/passwd`` and ``/etc/group`` in which its uid
  and gid are :data:`BOT_USER` with home ``/tmp`` (``USER``, ``LOGNAME``);
- as root: a uid of its own from ``[sandbox] uid_range`` (leased with a
  lock file, so concurrent matches never share one), entered with
  ``setpriv`` (util-linux) after bwrap has built the mounts, with no
  capabilities and ``no_new_privs``; as an ordinary user: bwrap's user
  namespace;
- its control group (:mod:`harness.host.cgroups`): memory and processes of
  all its processes together, CPU accounting and weight, killed whole at the
  end;
- a seccomp allow-list (:mod:`harness.host.syscall_filter`, loaded by
  bwrap): the system calls ordinary programs make, no keyring, namespaces,
  mounts or ptrace, and no file locks, file watching or page-cache probing,
  the channels through which bots in different sandboxes could talk over
  the files they all see; and a fresh, empty session keyring
  (:class:`harness.host.botproc.BotProcess` joins one before exec);
- its sysinfo(2) answered by the referee with fixed values (no shared task
  count; :mod:`harness.host.sysinfo_supervisor`).

The referee also makes itself non-dumpable (``PR_SET_DUMPABLE``) while bots
run, so a process of its own user cannot read its memory or ptrace it.

:func:`decide_isolation` decides what a match gets from ``[sandbox] mode``: ``auto``
uses what works and explains what does not (:attr:`Isolation.warning`),
``required`` raises :class:`SandboxError` unless everything works, ``off``
uses nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import glob
import importlib.util
import os
import random
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.errors import HarnessError
from harness.host import cgroups, privateview, syscall_filter, sysinfo_supervisor, treelimits
from harness.host.residency import Residency
from harness.specs import CpuPolicy, FileView, SandboxMode, SandboxSettings

__all__ = [
    "DEFAULT_PIDS",
    "ENDPOINT_DIR",
    "BUILD_TOOLS",
    "BotJail",
    "Isolation",
    "SandboxError",
    "SandboxSupport",
    "UidLease",
    "non_dumpable",
    "decide_isolation",
    "support",
]

#: Processes and threads of one bot when ``[limits] max_processes`` is 0.
DEFAULT_PIDS = 256
#: Where a sandboxed bot finds its socket.
ENDPOINT_DIR = "/run/harness"
ENDPOINT_NAME = "bot.sock"
#: How the isolation's warning begins when a bot runs with less isolation than the full sandbox.
NOT_ISOLATED = "bots are NOT fully isolated"
#: Files of /etc a bot may need: the dynamic linker, time zone, TLS roots, alternatives. Its users and
#: hosts are generated instead (:meth:`BotJail._etc_args`): the organiser's users are none of its business.
#: A world-readable file is copied in (no mount: each bind costs bwrap a read of the whole mount table), a
#: link into /usr made again, a directory or any other file bound read-only.
ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "ssl", "ca-certificates",
    "alternatives", "os-release", "mime.types",
)
#: The name the seat's uid and gid resolve to inside the sandbox (``USER``, ``LOGNAME``; home ``/tmp``).
BOT_USER = "bot"
#: Entries of /proc besides the processes that a bot sees as the kernel shows them: what runtimes read
#: (the process's own files, CPU model, kernel version, file systems, uptime). Every other one is masked,
#: as container runtimes mask /proc (Docker's default masked and read-only paths: keys, kcore, kmsg,
#: timer_list, sched_debug, sysrq-trigger, acpi, scsi, bus, fs, irq ...), and so is any the kernel adds.
PROC_SHOWN = frozenset({"self", "thread-self", "mounts", "net", "version", "filesystems", "uptime"})
#: Entries of /proc replaced by a file generated per bot: runtimes read the machine's size there (glibc
#: counts CPUs in /proc/stat when there is no /sys; Node and the JVM read /proc/meminfo), but the kernel's
#: are counters every sandbox shares (free memory, forks, tasks running), so channels between bots.
PROC_GENERATED = ("meminfo", "stat", "loadavg", "cgroups", "cpuinfo")
#: Files of /proc/sys shown read-only: fixed settings that libraries and runtimes read. The rest of
#: /proc/sys is masked: it holds counters shared by every sandbox (kernel/pty/nr, fs/file-nr, fs/aio-nr,
#: fs/dentry-state, kernel/random/entropy_avail ...) and the host's settings.
PROC_SYS_SHOWN = (
    "kernel/osrelease", "kernel/ostype", "kernel/version", "kernel/pid_max", "kernel/threads-max",
    "kernel/ngroups_max", "kernel/cap_last_cap", "kernel/overflowuid", "kernel/overflowgid",
    "vm/overcommit_memory", "vm/max_map_count", "vm/mmap_min_addr", "fs/nr_open", "fs/pipe-max-size",
)
#: Devices in a bot's /dev (bound from the host). No /dev/ptmx nor /dev/pts: no bot needs a terminal,
#: and every pseudo-terminal opened moves a counter all sandboxes could read.
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
#: Directories of /etc that runtimes under /usr point into (Debian's JDKs: /etc/java-17-openjdk ...).
ETC_PATTERNS = ("java-*", "java")
#: The largest /etc file copied into a sandbox rather than bound (bytes; ld.so.cache is tens of KiB).
ETC_COPY_MAX = 1 << 20
#: The most entries of an /etc directory made again in a sandbox rather than bound (ld.so.conf.d,
#: ca-certificates); a larger one (ssl, alternatives) is bound: a bind costs less than that many files.
ETC_TREE_MAX = 8
#: Top-level links or directories of a merged-/usr system.
USR_LINKS = privateview.USR_LINKS
#: Interpreters a bot's own scripts may run by name (``exec python impl.py`` in a ``run.sh``): where the
#: bot's PATH finds them, they are shown read-only at the same place, with their install trees
#: (:meth:`BotJail._program_view`); ``python``/``python3`` are the harness's (first on the bot's PATH,
#: :func:`harness.host.botproc.bot_path`).
PATH_INTERPRETERS = ("python3", "python", "node", "java")
#: What a build (:mod:`harness.host.build`) is shown besides, where the PATH finds them, with their install
#: trees: compilers and build tools of the usual languages (those under ``/usr`` are there anyway).
BUILD_TOOLS = ("cc", "gcc", "g++", "make", "cmake", "javac", "jar", "mvn", "gradle", "cargo", "rustc", "go",
               "npm", "npx", "tsc", "dotnet")
#: The most paths of /usr a bot's command line and wrapper script name that its private view copies.
NAMED_MAX = 64
#: Where uid leases are kept (root only).
LEASE_DIR = "/run/lock/harness-sandbox-uids"

_PR_SET_DUMPABLE = 4
_PR_GET_DUMPABLE = 3


class SandboxError(HarnessError, RuntimeError):
    """The sandbox is required but cannot run here, or cannot be set up; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SandboxSupport:
    """What this machine offers (see :func:`support`).

    Attributes:
        bwrap: path of a working ``bwrap``, or None.
        setpriv: path of ``setpriv`` (needed as root), or None.
        root: the harness runs as root (uid per seat).
        namespaces_problem: why namespaces cannot be used ('' when they can).
        cgroups: what :func:`harness.host.cgroups.probe` found.
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


def _usr_args(copies: str = "") -> list[str]:
    """``/usr`` and the top-level links or directories of a merged-/usr system, bound from the host or,
    with ``copies`` (a private view's root, :mod:`harness.host.privateview`), from the copies under it."""
    args = ["--ro-bind", copies + "/usr", "/usr"]
    for name in USR_LINKS:
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(copies + path):
            args += ["--ro-bind", copies + path, path]
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


@lru_cache(maxsize=1)
def _proc_layout() -> tuple[tuple[str, bool], ...]:
    """The entries of a fresh /proc in a sandbox besides the processes and links: (name, is a directory).

    Read once from inside one (the kernel decides what a new proc mount holds); from the host's /proc
    when that run fails, so that a bot's sandbox, which would then fail the same way, says why. A file
    that only its owner may open (kmsg, kcore, kpage*, slabinfo ...) is left out: the bot's uid cannot,
    so it needs no mask (a mount less at every bot's start).
    """
    script = ('cd /proc && for f in *; do if [ -L "$f" ]; then :; elif [ -d "$f" ]; then echo "d $f"; '
              'else echo "f $f"; fi; done')
    sup = support()
    listing: list[tuple[str, bool]] = []
    if sup.bwrap is not None:
        argv = [sup.bwrap, *_namespace_args(sup.root), *_usr_args(), "--proc", "/proc", "/bin/sh", "-c", script]
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
            if done.returncode == 0:
                listing = [(line[2:], line[0] == "d") for line in done.stdout.splitlines() if line[2:3]]
    if not listing:
        with contextlib.suppress(OSError), os.scandir("/proc") as entries:
            listing = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries if not e.is_symlink()]
    return tuple((name, is_dir) for name, is_dir in listing
                 if not name.isdigit() and (is_dir or _open_to_others(f"/proc/{name}")))


def _open_to_others(path: str) -> bool:
    """A /proc file that a uid other than its owner may read or write (as the bot is); True when unknown."""
    try:
        return bool(os.stat(path).st_mode & 0o066)
    except OSError:
        return True


def _host_field(path: str, key: str, default: int) -> int:
    """The number after ``key`` on its line of a /proc file (``MemTotal:``, ``btime``), or ``default``."""
    with contextlib.suppress(OSError, ValueError, IndexError), open(path) as fh:
        for line in fh:
            if line.startswith(key):
                return int(line[len(key):].split()[0])
    return default


@lru_cache(maxsize=1)
def _host_cpus() -> tuple[str, ...]:
    """Names of the host's online CPUs as /proc/stat lists them (``cpu0``, ``cpu1`` ...)."""
    with contextlib.suppress(OSError), open("/proc/stat") as fh:
        names = tuple(w for w in (line.split(maxsplit=1)[0] for line in fh if line.startswith("cpu")) if w != "cpu")
        if names:
            return names
    return tuple(f"cpu{i}" for i in range(os.cpu_count() or 1))


def machine_memory_kb(memory_mb: int | None) -> int:
    """The machine's memory as a bot is shown it (KiB): its limit ``memory_mb`` (MiB), at most the host's
    ``MemTotal`` (None: the host's). Its ``/proc/meminfo`` and its sysinfo(2) say the same."""
    host_kb = _host_field("/proc/meminfo", "MemTotal:", 1 << 20)
    return min(host_kb, memory_mb * 1024) if memory_mb else host_kb


@lru_cache(maxsize=16)
def proc_files(memory_mb: int | None) -> dict[str, str]:
    """The generated /proc files of a bot (name -> text), fixed for its whole life.

    ``meminfo`` shows ``memory_mb`` (MiB; None: the host's total) as total, free and available, no
    swap; ``stat`` the host's online CPUs with zero times, its boot time, no forks; ``loadavg`` an
    idle machine; ``cpuinfo`` the host's as this process first read it (:func:`_cpuinfo_file`). The same
    layout as the kernel's (proc(5)), so parsers that read them work.
    """
    kb = machine_memory_kb(memory_mb)
    huge = _host_field("/proc/meminfo", "Hugepagesize:", 2048)
    mem = [("MemTotal", kb), ("MemFree", kb), ("MemAvailable", kb), ("Buffers", 0), ("Cached", 0),
           ("SwapCached", 0), ("Active", 0), ("Inactive", 0), ("SwapTotal", 0), ("SwapFree", 0), ("Shmem", 0)]
    meminfo = "".join(f"{k + ':':<16}{v:>8} kB\n" for k, v in mem)
    meminfo += f"{'HugePages_Total:':<16}{0:>8}\n{'HugePages_Free:':<16}{0:>8}\n{'Hugepagesize:':<16}{huge:>8} kB\n"
    zeros = " 0" * 10
    stat = "".join(f"{name:<4}{zeros}\n" for name in ("cpu", *_host_cpus()))
    stat += (f"intr 0\nctxt 0\nbtime {_host_field('/proc/stat', 'btime', 0)}\nprocesses 0\nprocs_running 1\n"
             f"procs_blocked 0\nsoftirq{zeros} 0\n")
    return {"meminfo": meminfo, "stat": stat, "loadavg": "0.00 0.00 0.00 1/1 1\n", "cgroups": _cgroups_file(),
            "cpuinfo": _cpuinfo_file()}


@lru_cache(maxsize=1)
def _cpuinfo_file() -> str:
    """``/proc/cpuinfo`` as a bot sees it: the host's, read once, so its ``cpu MHz`` lines are fixed. The
    kernel's show each CPU's clock as it is now, which one bot's load moves for every bot (a channel where
    the frequency scales; this project's virtual machine shows a constant)."""
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
        return fh.read()
    return ""


@lru_cache(maxsize=1)
def _cgroups_file() -> str:
    """``/proc/cgroups`` as a bot sees it: the host's controllers and hierarchies (the JVM reads them to
    find its limits), with one group each: the kernel's counts of groups are shared by every sandbox."""
    lines = []
    with contextlib.suppress(OSError), open("/proc/cgroups") as fh:
        for line in fh:
            fields = line.split()
            if line.startswith("#") or len(fields) != 4:
                lines.append(line)
            else:
                lines.append(f"{fields[0]}\t{fields[1]}\t1\t{fields[3]}\n")
    return "".join(lines)


@lru_cache(maxsize=64)
def etc_files(uid: int, gid: int) -> dict[str, str]:
    """The generated /etc files of a bot (name -> text): its users, groups, name service and hosts.

    ``uid``/``gid`` (the seat's, or the user namespace's) resolve to :data:`BOT_USER` with home
    ``/tmp`` (its scratch), so ``getpass.getuser()``, ``whoami`` and a JVM's ``user.home`` work; besides
    it only ``root`` and ``nobody``/``nogroup`` (what files it sees are owned by), none of the organiser's.
    """
    users = {0: "root:x:0:0:root:/root:/usr/sbin/nologin",
             65534: "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
             uid: f"{BOT_USER}:x:{uid}:{gid}:poker bot:/tmp:/bin/sh"}
    groups = {0: "root:x:0:", 65534: "nogroup:x:65534:", gid: f"{BOT_USER}:x:{gid}:"}
    names = "passwd group shadow gshadow hosts networks protocols services ethers rpc netgroup".split()
    return {
        "passwd": "".join(f"{line}\n" for _, line in sorted(users.items())),
        "group": "".join(f"{line}\n" for _, line in sorted(groups.items())),
        "nsswitch.conf": "".join(f"{name}: files\n" for name in names),
        "hosts": "127.0.0.1\tlocalhost\n127.0.1.1\tbot\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    }


@lru_cache(maxsize=1)
def _sys_files() -> dict[str, str]:
    """The host's values of :data:`PROC_SYS_SHOWN` (path under /proc/sys -> text), copied into each bot's
    /proc/sys as plain files: fixed settings, read once."""
    found = {}
    for name in PROC_SYS_SHOWN:
        with contextlib.suppress(OSError), open(f"/proc/sys/{name}") as fh:
            found[name] = fh.read()
    return found


def _homes() -> list[str]:
    """The organiser's home directories (``HOME`` and its passwd entry's), resolved."""
    homes = {os.path.realpath(os.path.expanduser("~"))}
    with contextlib.suppress(KeyError, ImportError):
        import pwd

        homes.add(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))
    return sorted(h for h in homes if h != "/")


#: Files that mark the top of one runtime's install tree (a JDK's ``release``, Go's ``VERSION`` with
#: ``src``, Node's ``include/node``), so that one under a home directory is shown whole.
_TREE_MARKS = (("release", "lib"), ("VERSION", "src"), ("include/node", "bin/node"))


def install_tree(program: str) -> str | None:
    """The install directory to show with a program file (absolute path), or None: the file alone.

    A venv (``pyvenv.cfg`` at the top) is shown; so is the prefix of a program in ``PREFIX/bin``
    (or its directory) outside the organiser's home (``node`` under ``/opt/node/bin``: ``/opt/node``).
    Inside the home only a tree that is one runtime's (:data:`_TREE_MARKS`) is: never a shared prefix
    such as ``~/.local`` (its ``share`` holds other programs' data), the home itself or a parent of it.
    """
    for path in dict.fromkeys((program, os.path.realpath(program))):
        parent = os.path.dirname(path)
        prefix = os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent
        if _is_venv(prefix):
            return prefix
    real = os.path.realpath(program)
    parent = os.path.dirname(real)
    prefix = os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent
    homes = _homes()
    if prefix == "/" or any(_inside(h, prefix) for h in homes):
        return None
    if any(_inside(prefix, h) for h in homes) and not any(
        all(os.path.exists(os.path.join(prefix, mark)) for mark in marks) for marks in _TREE_MARKS
    ):
        return None
    return prefix


def _is_venv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _interpreter(program: str, env: Mapping[str, str]) -> str | None:
    """The interpreter a script's ``#!`` line names (through ``/usr/bin/env NAME`` on the PATH), or None."""
    try:
        with open(program, "rb") as fh:
            head = fh.readline(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode(errors="replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return shutil.which(names[0], path=env.get("PATH", os.defpath)) if names else None
    return words[0] if os.path.isabs(words[0]) else None


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
class Isolation:
    """What a match's bots get.

    Attributes:
        namespaces: bubblewrap sandboxes (and a uid per seat as root).
        cgroups: a control group per bot.
        cpu: the fair-CPU policy in force (NONE without cgroups or tree limits).
        warning: what is missing and what that means, or None when all is on.
        summary: one line for logs and ``harness check-bot``, e.g.
            ``"on (bubblewrap, a uid per seat, seccomp, cgroup v1, cpu: weight)"``.
        syscall_filter: the bots' sandboxes load the seccomp filter
            (:mod:`harness.host.syscall_filter`; only with ``namespaces``).
        tree: no control groups: limits, freezing and the CPU pin are kept per
            process tree from outside (:mod:`harness.host.treelimits`).
        nproc_in_jail: with ``tree``, the process limit is ``RLIMIT_NPROC`` set
            inside each bot's user namespace (exact for the bot alone).
        missing: the protections not in force, one phrase each (the warning lists them).
        sysinfo: the referee answers the bots' sysinfo(2) with fixed values
            (:mod:`harness.host.sysinfo_supervisor`; only with ``namespaces``).
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
    sysinfo: bool = False

    @property
    def active(self) -> bool:
        """True when anything of the sandbox is used."""
        return self.namespaces or self.cgroups or self.tree


def sysinfo_problem() -> str:
    """Why the bots' sysinfo(2) cannot be answered by the referee here ('' when it can).

    :func:`harness.host.sysinfo_supervisor.support`, and: an ordinary user loads the filter with
    ``no_new_privs``, which a setuid-root bubblewrap would not survive (it would lose its privileges).
    """
    problem = sysinfo_supervisor.support().problem
    bwrap = support().bwrap
    if not problem and bwrap is not None and os.geteuid() != 0:
        with contextlib.suppress(OSError):
            if os.stat(bwrap).st_mode & 0o4000:
                problem = f"{bwrap} is setuid root, and an ordinary user's filter needs no_new_privs, which it refuses"
    return problem


def _missing_without_cgroups(namespaces: bool, nproc_in_jail: bool, cpu: CpuPolicy) -> list[str]:
    """What per-tree limits (:mod:`harness.host.treelimits`) cannot do that control groups do, one phrase each."""
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


def decide_isolation(settings: SandboxSettings, *, transport: str = "ipc") -> Isolation:
    """Decide what the sandbox does for a match under ``settings``.

    Raises:
        SandboxError: ``mode = "required"`` and something is missing (the
            message lists what and how to fix it), or the settings are unusable.
    """
    if settings.mode is SandboxMode.OFF:
        return Isolation(False, False, CpuPolicy.NONE, None, "off ([sandbox] mode = \"off\")")
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
    answering = sysinfo_problem() if namespaces else "no sandbox"
    if namespaces and filtered and answering:  # (without the filter that problem says it all)
        problems.append(f"sysinfo(2) is not answered by the referee: {answering}")
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
            "or set [sandbox] mode = \"auto\" (--sandbox auto)."
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
                        "and file watching on the files they all see and through kernel keys, and can make any "
                        "system call (namespaces, ptrace, bpf)")
        if filtered and answering:
            lost.append("two colluding bots can pass a few bits per hand through the task count of sysinfo(2)")
        if missing:
            lost.append("missing: " + "; ".join(missing))
        warning = (NOT_ISOLATED + ": " + "; ".join(problems) + ". So " + "; ".join(lost)
                   + ". Set [sandbox] mode = \"required\" (--sandbox required) to refuse such runs (contests), "
                   "\"off\" (--sandbox off) to silence this.")
    summary = ("on (" + ", ".join(parts) + ")") if not problems else (
        ("partly on (" + ", ".join(parts) + ")" if parts else "OFF") + ": " + "; ".join(problems))
    return Isolation(namespaces, groups, cpu, warning, summary, filtered, tree, nproc_in_jail, tuple(missing),
                namespaces and not answering)


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


@lru_cache(maxsize=1)
def _sdk_paths() -> tuple[str, ...]:
    """What an SDK bot imports from the harness: ``protocol``, ``bots``, ``harness.engine`` with the one
    module it imports (``harness.errors``, the root exception class), and ``harness.rl`` for a policy played
    through ``as_bot`` (read-only; where this process imports them from, found once)."""
    paths = []
    for name in ("protocol", "bots"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths += list(spec.submodule_search_locations)
    harness_dir = Path(__file__).resolve().parents[1]
    paths += [str(harness_dir / name) for name in ("__init__.py", "errors.py", "engine", "rl")]
    return tuple(paths)


@lru_cache(maxsize=1)
def _harness_views() -> tuple[str, ...]:
    """What every bot is shown of the harness, resolved once per process: the SDK (:func:`_sdk_paths`) and
    the interpreter's prefix and base prefix (its venv and the Python it was made from)."""
    return tuple(os.path.realpath(p) for p in (*_sdk_paths(), sys.prefix, sys.base_prefix))


def _program_files(program: str, cwd: str, path_env: str) -> list[str]:
    """What to show of a program (see :meth:`BotJail._program_view`): ``program`` a path (from ``cwd``)
    or a name looked up on ``path_env`` (a PATH)."""
    env = {"PATH": path_env}
    shown: list[str] = []
    for step in range(2):  # the program, then the interpreter its #! line names
        if os.sep in program:
            path = os.path.join(cwd, program)  # an absolute path stays one
        else:
            found = shutil.which(program, path=path_env)
            if found is None:
                break
            path = os.path.abspath(found)
        shown.append(path)
        tree = install_tree(path)
        # A bot's own program given by path is shown alone (or with its venv), as it always was.
        if tree is not None and (step or os.sep not in program or _is_venv(tree)):
            shown.append(tree)
        interpreter = _interpreter(path, env)
        if interpreter is None:
            break
        program = interpreter
    return shown


def _path_stamp(path_env: str) -> tuple[object, ...]:
    """What the lookup of a name on ``path_env`` depends on: the home (:func:`install_tree`) and the
    modification time of each PATH directory (a program installed or removed there changes it)."""
    stamps: list[object] = [os.environ.get("HOME")]
    for folder in path_env.split(os.pathsep):
        try:
            stamps.append(os.stat(folder or ".").st_mtime_ns)
        except OSError:
            stamps.append(None)
    return tuple(stamps)


@lru_cache(maxsize=16)
def _interpreter_views(path_env: str, stamp: tuple[object, ...],
                       names: tuple[str, ...] = PATH_INTERPRETERS) -> tuple[str, ...]:
    """The programs ``names`` (default :data:`PATH_INTERPRETERS`) found on ``path_env`` with their trees,
    resolved; ``stamp`` is :func:`_path_stamp` (``path_env``'s state), so that a lookup is redone only when it
    could differ."""
    del stamp  # the cache key only
    return tuple(os.path.realpath(f) for name in names for f in _program_files(name, "/", path_env))


@lru_cache(maxsize=4)
def _etc_dirs(stamp: int) -> tuple[str, ...]:
    """The directories of /etc that :data:`ETC_PATTERNS` match; ``stamp`` is /etc's modification time
    (an entry added or removed changes it)."""
    del stamp  # the cache key only
    return tuple(str(p) for pattern in ETC_PATTERNS for p in sorted(Path("/etc").glob(pattern)))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _mount_point(path: str, folder: bool) -> None:
    """Make an empty directory or file at ``path`` (in a private view's copies) for a bind over it."""
    with contextlib.suppress(OSError):
        if folder:
            os.makedirs(path, 0o755, exist_ok=True)
        elif not os.path.lexists(path):
            os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o444))


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
        memory_mb: the bot's memory limit (MiB), shown as the machine's memory in its /proc/meminfo
            (None: the host's).
        writable: its directory is bound read-write (a build writes its program there), not read-only.
        tools: programs shown where the PATH finds them, with their install trees, besides
            :data:`PATH_INTERPRETERS` (a build's compilers: :data:`BUILD_TOOLS`).

    Raises:
        SandboxError: the directory is ``/``.
    """

    def __init__(
        self, *, seat_dir: str, cwd: str | None, settings: SandboxSettings, hidden: Sequence[str], uid: int | None,
        memory_mb: int | None = None, writable: bool = False, tools: Sequence[str] = (),
    ) -> None:
        self.seat_dir = seat_dir
        self.cwd = os.path.realpath(cwd or os.getcwd())
        if self.cwd == "/":
            raise SandboxError("a bot's directory (cwd) cannot be / under the sandbox: give it a directory of its own")
        self.settings = settings
        self.hidden = [os.path.realpath(h) for h in hidden]
        self.uid = uid
        self.memory_mb = memory_mb
        self.writable = writable
        self.tools = tuple(tools)
        self.endpoint = f"ipc://{ENDPOINT_DIR}/{ENDPOINT_NAME}"
        self.unseen: list[str] = []  # files the command names that the sandbox does not show (set by wrap)
        #: Descriptors the process started from :meth:`wrap`'s command line must inherit (the seccomp program,
        #: the generated /etc and /proc files).
        self.pass_fds: tuple[int, ...] = ()
        #: Processes and threads of the bot's user namespace (``RLIMIT_NPROC`` set inside it), 0 = not set here.
        self.nproc = 0
        #: The bot's control group (hierarchy key -> host directory, :attr:`harness.host.cgroups.BotGroup.dirs`)
        #: and its version ("v1", "v2"), shown read-only at /sys/fs/cgroup; empty: no /sys at all.
        self.cgroup_dirs: dict[str, str] = {}
        self.cgroup_version = ""
        #: The referee answers the bot's sysinfo(2) (:mod:`harness.host.sysinfo_supervisor`; where it can).
        self.answer_sysinfo = not sysinfo_problem()
        #: The match's page-cache pass (:mod:`harness.host.residency`), run on what :meth:`wrap` shows; None: none.
        self.residency: Residency | None = None
        #: The bot's private copies (``[sandbox] view = "private"``, not for a build), made by :meth:`wrap`,
        #: removed by :meth:`release`.
        self.private: privateview.PrivateView | None = None

    def memory_bytes(self) -> int:
        """The machine's memory as the bot is shown it (bytes; :func:`machine_memory_kb`)."""
        return machine_memory_kb(self.memory_mb) * 1024

    def access_hint(self, code: int | None = None) -> str:
        """Why the bot may not have started: its directory is closed to its uid ('' when nothing is seen).

        As root each bot runs as a uid of its own, which needs read and
        search permission on its directory (``chmod -R a+rX DIR``). ``code``: its exit status; 127 is
        a shell's "command not found", a program its script runs that the sandbox does not show.
        """
        if code == 127 and not self.unseen:
            return (
                "; note: exit status 127 is a shell's 'command not found': in the sandbox a bot's scripts find the "
                f"programs of /usr, its cwd's, and {', '.join(PATH_INTERPRETERS)} where the PATH finds them; add the "
                "directory of any other program it runs to [sandbox] paths (or try --sandbox off to compare)"
            )
        if self.unseen:  # `cd /tmp && harness check-bot -- python /path/to/bot.py`: "can't open file"
            folder = os.path.dirname(self.unseen[0])
            return (
                f"; note: the sandbox does not show {self.unseen[0]} to the bot (only its cwd {self.cwd} and "
                f"[sandbox] paths): make {folder} its cwd (--cwd DIR or --bot NAME@DIR=..., [[bots]] cwd) or add it "
                "to [sandbox] paths"
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

    def _program_view(self, program: str, env: Mapping[str, str]) -> list[str]:
        """What to show of the bot's program: the file (given by path, or found on the PATH), its install
        tree where it has one of its own (:func:`install_tree`), and the same for a script's interpreter."""
        return _program_files(program, self.cwd, env.get("PATH", os.defpath))

    def _views(self, programs: Sequence[str], resolved: Sequence[str] = ()) -> list[str]:
        """Host directories and files shown read-only (deduplicated, nested ones dropped): the bot's
        directory, the harness's (:func:`_harness_views`), ``[sandbox] paths``, ``programs`` and
        ``resolved`` (the same as ``programs``, already real paths)."""
        real = [os.path.realpath(v) for v in (*self.settings.paths, *programs)]
        out: list[str] = []
        for v in (self.cwd, *_harness_views(), *real, *resolved):
            if _inside(v, "/usr") or v == "/" or not os.path.exists(v):
                continue
            if any(_inside(v, o) for o in out):
                continue
            out = [o for o in out if not _inside(o, v)] + [v]
        return out

    def _data(self, dest: str, text: str | bytes, option: str = "--ro-bind-data") -> list[str]:
        """bwrap arguments that show ``text`` (mode 0444) at ``dest``, through a descriptor of :attr:`pass_fds`:
        bound read-only over what is there (``--ro-bind-data``), or a new file (``--file``: no mount).

        Raises:
            SandboxError: no memory file could be made.
        """
        try:
            fd = os.memfd_create("harness-sandbox-file", os.MFD_CLOEXEC)
        except OSError as exc:
            raise SandboxError(f"cannot hand {dest} to bubblewrap: {exc.strerror}") from None
        self.pass_fds = (*self.pass_fds, fd)  # closed by close_fds, also if what follows fails
        try:
            os.write(fd, text.encode() if isinstance(text, str) else text)
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError as exc:
            raise SandboxError(f"cannot hand {dest} to bubblewrap: {exc.strerror}") from None
        return ["--perms", "0444", option, str(fd), dest]

    def _etc_args(self) -> list[str]:
        """/etc: the host's files a program needs (:data:`ETC_FILES`, :data:`ETC_PATTERNS`), read-only, and
        generated users, groups, name service and hosts (:func:`etc_files`)."""
        args = ["--perms", "0755", "--dir", "/etc"]  # bwrap would make it 0700 as root
        for name in ETC_FILES:
            args += self._etc_entry(f"/etc/{name}")
        try:
            stamp = os.stat("/etc").st_mtime_ns
        except OSError:
            stamp = 0
        for path in _etc_dirs(stamp):
            args += self._bound(path)
        uid, gid = (self.uid, self.uid) if self.uid is not None else (os.getuid(), os.getgid())
        for name, text in etc_files(uid, gid).items():  # files of the bot's own root: no mount needed
            args += self._data(f"/etc/{name}", text, "--file")
        return args

    def _etc_entry(self, path: str) -> list[str]:
        """bwrap arguments that show the host's ``path`` (in /etc) as it is, with as few mounts as can be
        (:data:`ETC_FILES`): a copy of a world-readable file (read now: never stale), the same link where it
        points into /usr, a small directory of those made again (:data:`ETC_TREE_MAX`), else a read-only
        bind; nothing when there is nothing there."""
        try:
            st = os.lstat(path)
        except OSError:
            return []
        made = self._etc_copy(path, st, [ETC_TREE_MAX])
        if made is not None:
            return made
        return self._bound(path)

    def _bound(self, path: str) -> list[str]:
        """bwrap arguments that show host ``path`` read-only at its place: its private copy where the bot has
        a private view (:attr:`private`), else the host's."""
        if self.private is not None:
            try:
                self.private.add(path)
            except OSError as exc:
                raise SandboxError(f"no room for the bot's private view of its files ({exc.strerror})") from None
            if not os.path.lexists(self.private.copy_of(path)):
                return []
            return ["--ro-bind", self.private.copy_of(path), path]
        return ["--ro-bind-try", path, path]

    def _etc_copy(self, path: str, st: os.stat_result, budget: list[int]) -> list[str] | None:
        """:meth:`_etc_entry`'s copy of ``path`` (read and write bits as the host's, never writable), or None
        when it must be bound: not world-readable, too large, a link out of /usr, more entries than ``budget``."""
        mode = f"{st.st_mode & 0o555:04o}"
        if stat.S_ISLNK(st.st_mode):
            with contextlib.suppress(OSError):
                target = os.readlink(path)
                if _inside(os.path.normpath(os.path.join(os.path.dirname(path), target)), "/usr") and _inside(
                    os.path.realpath(path), "/usr"
                ):
                    return ["--symlink", target, path]
        elif stat.S_ISREG(st.st_mode) and st.st_mode & 0o004 and st.st_size <= ETC_COPY_MAX:
            with contextlib.suppress(OSError), open(path, "rb") as fh:
                data = fh.read(ETC_COPY_MAX + 1)
                if len(data) <= ETC_COPY_MAX:
                    return ["--perms", mode, *self._data(path, data, "--file")[2:]]
        elif stat.S_ISDIR(st.st_mode) and st.st_mode & 0o005 == 0o005:
            with contextlib.suppress(OSError):
                names = sorted(os.listdir(path))
                budget[0] -= len(names)
                if budget[0] >= 0:
                    made = ["--perms", mode, "--dir", path]
                    for name in names:
                        child = os.path.join(path, name)
                        part = self._etc_copy(child, os.lstat(child), budget)
                        if part is None:
                            return None
                        made += part
                    return made
        return None

    def _proc_dev_args(self, scratch: str) -> tuple[list[str], list[str]]:
        """A fresh /proc masked as container runtimes mask it, and a minimal, read-only /dev: the bwrap
        arguments to give first, and those to give after every bind (:meth:`wrap`).

        /proc: the processes of the bot's own pid namespace; of the rest only :data:`PROC_SHOWN`,
        generated :data:`PROC_GENERATED` (:func:`proc_files`) and a /proc/sys of :data:`PROC_SYS_SHOWN`;
        every other file reads empty (``/dev/null`` over it) and every other directory is empty and
        read-only. /dev: :data:`DEV_NODES`, the ``fd``/``stdin``/``stdout``/``stderr`` links and a
        private ``/dev/shm`` of ``scratch`` bytes.

        The second list holds the tmpfs mounts under which nothing is bound (the masked directories,
        /proc/sys, /dev/shm): bwrap reads the whole mount table at every bind, so a mount made after the
        binds costs none of them a line.
        """
        # As root the tmpfs mounts below are root's (0555, 0755) and the seat's uid, without capabilities,
        # cannot write them: made read-only only for an ordinary user's bot, which owns its user namespace's.
        def ro(path: str) -> list[str]:
            return ["--remount-ro", path] if self.uid is None else []

        args = ["--proc", "/proc"]
        late: list[str] = []
        for name, is_dir in _proc_layout():
            path = f"/proc/{name}"
            if name in PROC_SHOWN or name in PROC_GENERATED or name == "sys":
                continue
            if is_dir:  # empty; as root the seat's uid cannot write a 0555 directory of root's anyway
                late += ["--perms", "0555", "--tmpfs", path, *ro(path)]
            else:
                args += ["--dev-bind", "/dev/null", path]  # reads empty, as runc masks a file
        for name, text in proc_files(self.memory_mb).items():
            args += self._data(f"/proc/{name}", text)
        late += ["--perms", "0555", "--tmpfs", "/proc/sys"]
        made = set()
        for name, text in _sys_files().items():
            folder = os.path.dirname(name)
            if folder not in made:
                late += ["--perms", "0555", "--dir", f"/proc/sys/{folder}"]
                made.add(folder)
            late += self._data(f"/proc/sys/{name}", text, "--file")
        late += ro("/proc/sys")
        args += ["--perms", "0755", "--tmpfs", "/dev"]
        for name in DEV_NODES:
            args += ["--dev-bind-try", f"/dev/{name}", f"/dev/{name}"]
        for link, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                             ("stderr", "/proc/self/fd/2")):
            args += ["--symlink", target, f"/dev/{link}"]
        late += ["--size", scratch, "--perms", "1777", "--tmpfs", "/dev/shm", *ro("/dev")]  # /dev/shm made first
        return args, late

    def _cgroup_args(self) -> list[str]:
        """``/sys/fs/cgroup``: the bot's own group read-only, laid out as in a container.

        The bot joined its group before bubblewrap made its cgroup namespace, so its
        ``/proc/self/cgroup`` reads ``/`` and the mounts' roots in ``/proc/self/mountinfo`` too:
        runtimes (the JVM's container support, Go's automaxprocs, .NET) find their limits there.
        v2: the group at ``/sys/fs/cgroup``; v1: each hierarchy at ``/sys/fs/cgroup/<controller>``.
        """
        if not self.cgroup_dirs:
            return []
        args = ["--perms", "0555", "--dir", "/sys", "--perms", "0555", "--dir", "/sys/fs"]
        if self.cgroup_version == "v2":
            path = next(iter(self.cgroup_dirs.values()))
            return [*args, "--ro-bind", path, "/sys/fs/cgroup"]
        args += ["--perms", "0555", "--tmpfs", "/sys/fs/cgroup"]
        for key, path in sorted(self.cgroup_dirs.items()):
            args += ["--ro-bind", path, f"/sys/fs/cgroup/{key}"]
        return [*args, *(["--remount-ro", "/sys/fs/cgroup"] if self.uid is None else [])]  # as in _proc_dev_args

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
        self.close_fds()
        self.release()
        shown = self._program_view(argv[0], env)
        # What a wrapper script runs by name finds what it finds outside (looked up again when PATH changes).
        path_env = env.get("PATH", os.defpath)
        resolved = _interpreter_views(path_env, _path_stamp(path_env))
        if self.tools:
            resolved += _interpreter_views(path_env, _path_stamp(path_env), self.tools)
        shared: list[str] = []
        if self.settings.view is FileView.PRIVATE and not self.writable:
            views, shared = self._private_views(argv, shown, path_env)
            assert self.private is not None
            usr = _usr_args(self.private.root)
        else:
            views = self._views(shown, resolved)
            usr = _usr_args()
        args = [sup.bwrap, *_namespace_args(self.uid is not None), *usr]
        code = syscall_filter.program()
        if code is not None:  # without it decide_isolation() said so (or refused, mode "required")
            try:
                fd = syscall_filter.memfd(code)
            except OSError as exc:
                raise SandboxError(f"cannot hand the seccomp filter to bubblewrap: {exc.strerror}") from None
            self.pass_fds = (*self.pass_fds, fd)
            args += ["--seccomp", str(fd)]
        args += self._etc_args()
        # The private mounts first: a bot's directory may lie under /tmp and is bound over them.
        proc_dev, late = self._proc_dev_args(scratch)
        args += [*proc_dev, "--size", scratch, "--perms", "1777", "--tmpfs", "/tmp"]
        made = {"/", "/usr", "/etc", "/tmp", "/proc", "/dev"}
        args += self._cgroup_args()
        made.update(("/sys", "/sys/fs", "/sys/fs/cgroup") if self.cgroup_dirs else ())
        self.unseen = _unseen_files(argv[1:], self.cwd, views, self.hidden)
        if self.residency is not None:  # every page it may read cached before it starts (harness.host.residency)
            self.residency.settle(shared if self.private is not None else ["/usr", "/etc", *views], self.hidden)
        copies = set(views) - set(shared) if self.private is not None else set()
        bound: list[str] = ["/usr"] if self.private is not None else []  # (bound by _usr_args, from the copies)
        for view in views:
            # Parents made world-traversable: bwrap makes them 0700 as root, and the bot is not root. (Those
            # inside a view bound already exist there, read-only: a private view binds its copies inside a
            # directory bound from the host.)
            parts = view.split("/")
            for depth in range(1, len(parts) - 1):
                parent = "/".join(parts[: depth + 1])
                if parent not in made and not any(_inside(parent, b) for b in bound):
                    args += ["--perms", "0755", "--dir", parent]
                    made.add(parent)
            source = self.private.copy_of(view) if self.private is not None and view in copies else view
            args += ["--bind" if self.writable and view == self.cwd else "--ro-bind", source, view]
            bound.append(view)
        if self.writable and self.cwd not in views:  # inside another view (shown read-only): bound over it
            args += ["--bind", self.cwd, self.cwd]
        for h in self.hidden:  # (a private view's copies leave hidden paths out)
            if any(_inside(h, v) for v in views if v not in copies) and not _inside(self.cwd, h):
                if os.path.isdir(h):
                    args += ["--tmpfs", h]  # an empty directory over it
                elif os.path.exists(h):
                    args += ["--ro-bind", "/dev/null", h]  # an empty file over it
        args += [
            "--perms", "0755", "--dir", os.path.dirname(ENDPOINT_DIR),
            "--ro-bind", self.seat_dir, ENDPOINT_DIR,
            "--chdir", self.cwd,
            *late,  # tmpfs mounts with nothing bound under them, after every bind (see _proc_dev_args)
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
        inner.update(HOME="/tmp", TMPDIR="/tmp", USER=BOT_USER, LOGNAME=BOT_USER, HARNESS_ENDPOINT=self.endpoint)
        return args, inner

    def _private_views(self, argv: Sequence[str], shown: Sequence[str], path_env: str) -> tuple[list[str], list[str]]:
        """Make the bot's private view (:attr:`private`, :mod:`harness.host.privateview`) and say what to bind:
        (every view, the ones among them bound from the host as before). Copied: the fixed files
        (:data:`harness.host.privateview.FIXED_FILES`, the time zone), the harness's Python and SDK, the
        bot's program with its install tree and its ``#!`` interpreter's, the interpreters of
        :data:`PATH_INTERPRETERS` its command names, and its own directory up to
        :data:`harness.host.privateview.OWN_MAX_BYTES`; bound: ``[sandbox] paths`` and a larger directory.

        Raises:
            SandboxError: the view's directory cannot be made, or its file system is full.
        """
        try:
            view = privateview.PrivateView(others_only=self.uid is not None, hidden=self.hidden, own=[self.cwd])
        except OSError as exc:
            raise SandboxError(f"cannot make the bot's private view of its files: {exc.strerror}") from None
        self.private = view
        try:
            return self._fill_private_view(view, argv, shown, path_env)
        except OSError as exc:
            raise SandboxError(
                f"no room for the bot's private view of its files in {os.path.dirname(view.root)} ({exc.strerror}): "
                "free memory there, or set [sandbox] view = \"shared\"") from None

    def _fill_private_view(self, view: privateview.PrivateView, argv: Sequence[str], shown: Sequence[str],
                           path_env: str) -> tuple[list[str], list[str]]:
        """:meth:`_private_views`' copies and binds (raises OSError when the view's file system is full)."""
        os.makedirs(view.copy_of("/usr"), 0o755, exist_ok=True)
        sup = support()
        for path in (*privateview.FIXED_FILES, sup.setpriv, sup.prlimit):  # what runs in the sandbox before the bot
            if path:
                view.add_program(path)
        with contextlib.suppress(OSError):  # the organiser's locales, unless a large archive (locales-all)
            if os.path.getsize(privateview.LOCALE_ARCHIVE) <= privateview.LOCALE_ARCHIVE_MAX:
                view.add(privateview.LOCALE_ARCHIVE)
        with contextlib.suppress(OSError):
            view.add(os.path.realpath("/etc/localtime"))
        base = os.path.realpath(sys.base_prefix)
        venv = os.path.realpath(sys.prefix)
        text = " ".join(argv)
        with contextlib.suppress(OSError), open(shown[0] if shown else argv[0], "rb") as fh:
            if fh.read(2) == b"#!":  # a wrapper script: the interpreters and files of /usr it names
                fh.seek(0)
                text += " " + fh.read(1 << 16).decode(errors="replace")
        words = set(re.split(r"[\s:=,;\"'()]+", text))
        # The harness's Python and SDK where the bot runs Python (its program, or a word of its command or
        # script: python, python3, python3.11 ...); a Java, Node or native bot is spared their copies.
        if any(re.fullmatch(r"python[0-9.]*", os.path.basename(w)) for w in words) or any(
                _inside(os.path.realpath(p), root) for p in shown for root in (venv, base)):
            if venv != base:
                site = next((os.path.join(s, "site-packages") for s in privateview._stdlib(venv)), venv)
                modules = privateview.wanted_modules(privateview.imported_names(self.cwd, argv), site)
                view.add_venv(venv, privateview.python_packages(sys.executable, site, modules, _sdk_paths()))
            else:
                view.add_python_prefix(base)
            for path in _sdk_paths():
                view.add(os.path.realpath(path))
        programs = list(shown)
        for name in PATH_INTERPRETERS:
            if name in words or any(w.endswith("/" + name) for w in words):
                programs += _program_files(name, "/", path_env)
        named = sorted(w for w in words if _inside(os.path.normpath(w), "/usr") and os.path.exists(w))
        for path in named[:NAMED_MAX]:  # a class path's jars, a JNI library directory (what /usr would show)
            if os.path.isdir(path):
                view.add_tree(os.path.normpath(path), max_bytes=privateview.OWN_MAX_BYTES // 4, max_files=2000)
                for lib in glob.glob(os.path.join(path, "*.so*")):
                    view.add_program(lib)
            else:
                view.add_program(path)
        for program in programs:
            real = os.path.realpath(program)
            if os.path.isdir(real):
                if _is_venv(real):
                    if real != venv:
                        view.add_venv(real)
                elif real not in ("/", "/usr", "/usr/local") and not _inside(self.cwd, real):
                    view.add_runtime_tree(real)
            elif not _inside(real, self.cwd):
                view.add_program(program)
        shared = [os.path.realpath(p) for p in self.settings.paths if os.path.exists(p)]
        view.add_libraries_of(self.cwd, privateview.OWN_MAX_FILES)  # a native bot's libzmq, its JNI library's
        if view.add_tree(self.cwd, max_bytes=privateview.OWN_MAX_BYTES, max_files=privateview.OWN_MAX_FILES,
                         prune=True):
            view.anchors = [a for a in view.anchors if not _inside(a, self.cwd)] + [self.cwd]
        else:
            shared.append(self.cwd)
        view.report.shared = tuple(shared)
        views: list[str] = []
        for v in sorted({*view.anchors, *shared}, key=lambda p: (p.count("/"), p)):
            if v in shared:  # shown as it is, over the copies: its mount point made in them (read-only inside)
                if v != "/" and not _inside(v, "/etc"):
                    if _inside(v, "/usr") or any(_inside(v, o) for o in views if o not in shared):
                        _mount_point(view.copy_of(v), os.path.isdir(v))
                    views.append(v)
                continue
            # (/usr is bound whole, /etc made by _etc_args: both from the same copies)
            if v == "/" or _inside(v, "/usr") or _inside(v, "/etc") or any(
                    _inside(v, o) for o in views if o not in shared):
                continue
            views.append(v)
        return views, [v for v in views if v in shared]

    def release(self) -> None:
        """Remove the bot's private view (after its processes are gone; idempotent)."""
        if self.private is not None:
            self.private.remove()
            self.private = None

    def close_fds(self) -> None:
        """Close :attr:`pass_fds` (after the process has started; idempotent)."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()
