"""One control group per bot: memory, processes and CPU for all of a bot's processes together (Linux).

Per-process limits (rlimits) let a bot escape them with children: three
children hold three times the memory. A control group counts every process
the bot starts, whatever it does to its session, its environment or its
signals, and can kill them all at once. This module drives the kernel's
cgroup file system directly (``Documentation/admin-guide/cgroup-v1`` and
``cgroup-v2.rst``), no library: mkdir, write a limit, write a pid.

Both layouts are supported:

- cgroup v1, one hierarchy per controller (``/sys/fs/cgroup/memory``,
  ``pids``, ``cpu``, ``cpuacct``, ``cpuset``, ``freezer``): used when the
  memory and pids controllers are there (also on "hybrid" systems, whose
  cgroup2 mount then has no controllers);
- cgroup v2, the unified hierarchy, with the memory and pids controllers
  available to the referee's cgroup, which must be the root, or ours to
  manage: as root, or delegated to the user (``systemd-run --user --scope
  -p Delegate=yes``, or a subtree an administrator gave the user). A v2
  group with processes of its own cannot give its children controllers,
  so the group's processes (the harness) move into its child
  :data:`LEAF` first; forked workers start there and use its parent.
- cgroup v1 as an ordinary user: hierarchies whose groups the user owns
  (``cgcreate -a USER -t USER``, then ``cgexec``), used as they are.

Layout: ``<the referee's own cgroup>/harness-<pid>-<random>/<seat label>``
in each hierarchy, so limits nest inside whatever confines the referee;
except for CPU (v1 ``cpu`` and ``cpuacct``, and all of v2, where one
directory holds every controller): there each bot's group is
``<the referee's own cgroup>/harness-<pid>-<random>-<seat label>``, a
sibling of the referee, so that a waiting bot's low weight is low next to
the referee too (nested in a match group, a busy waiting bot would weigh as
much as the referee whenever no other bot runs).
Per bot: ``memory`` (all processes and their tmpfs files; no swap), ``pids``
(processes and threads), CPU weight (fair CPU, see :meth:`BotGroup.set_turn`),
CPU accounting, the CPU set the match runs on, and freezing.

Hot path: switching the CPU weight is one ``write`` to a descriptor opened
once (about 1 µs); freezing is one ``write`` too, but costs the kernel tens
of µs (:data:`harness.host.sandbox.CPU_POLICIES`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import psutil

from harness.errors import HarnessError

__all__ = ["BotGroup", "CgroupError", "CgroupSupport", "MatchGroup", "probe", "remove_stale"]

#: Controllers a bot group must have (v1 hierarchies, or v2 controllers).
REQUIRED = ("memory", "pids")
#: Controllers used when present.
OPTIONAL = ("cpu", "cpuacct", "cpuset", "freezer")
#: CPU weights of a bot on move and of a bot waiting (v1 ``cpu.shares``, v2 ``cpu.weight``).
WEIGHTS = {"v1": (b"1024", b"2"), "v2": (b"100", b"1")}
#: v1 hierarchies whose bot groups are siblings of the referee rather than nested in the match's group.
FLAT_V1 = frozenset({"cpu", "cpuacct"})
#: v2: where the processes of a delegated group go, so that the group's children can have controllers.
LEAF = "harness-referee"
_KILL_ROUNDS = 50


class CgroupError(HarnessError, OSError):
    """A control group could not be created, limited or joined (the message says which file)."""


@dataclass(frozen=True, slots=True)
class CgroupSupport:
    """What :func:`probe` found.

    Attributes:
        version: ``"v1"``, ``"v2"``, or None when bot groups cannot be made here.
        parents: controller -> the directory in which match groups are created
            (the referee's own cgroup in that hierarchy); for v2 every
            controller maps to the same directory, under ``"unified"``.
        controllers: the controllers usable for bot groups.
        reason: why not (when ``version`` is None), in words.
    """

    version: str | None
    parents: tuple[tuple[str, str], ...] = ()
    controllers: frozenset[str] = frozenset()
    reason: str = ""

    @property
    def available(self) -> bool:
        """True when bot groups can be made."""
        return self.version is not None

    @property
    def where(self) -> str:
        """The directories in which match groups are made, in words."""
        return ", ".join(dict.fromkeys(path for _, path in self.parents)) or "no cgroup"


def _read(path: str) -> str:
    with open(path, encoding="ascii", errors="replace") as f:
        return f.read()


def _write(path: str, value: str | bytes) -> None:
    data = value.encode("ascii") if isinstance(value, str) else value
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as exc:
        text = data.decode(errors="replace")
        raise CgroupError(exc.errno, f"cannot write {text!r} to {path}: {exc.strerror}") from None


def _mounts() -> list[tuple[str, str, str, str]]:
    """(mount point, mounted root, fs type, super options) of every cgroup mount (``/proc/self/mountinfo``)."""
    found = []
    try:
        text = _read("/proc/self/mountinfo")
    except OSError:
        return []
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        point = fields[4].replace("\\040", " ")
        found.append((point, fields[3], tail[0], tail[2]))
    return found


def _own_paths() -> dict[str, str]:
    """Hierarchy key -> this process's cgroup path: v1 controllers by name, v2 under ``""``."""
    paths: dict[str, str] = {}
    for line in _read("/proc/self/cgroup").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":
            paths[""] = path
        for c in controllers.split(","):
            if c:
                paths[c] = path
    return paths


def _join(point: str, root: str, path: str) -> str | None:
    """The directory of cgroup ``path`` under a mount of hierarchy subtree ``root`` (None if outside it)."""
    if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    rel = path[len(root):] if root != "/" else path
    return os.path.join(point, rel.lstrip("/"))


def _try_dir(parent: str) -> str:
    """Create and remove a test group under ``parent``; '' when it works, else why not."""
    test = os.path.join(parent, f"harness-probe-{os.getpid()}-{secrets.token_hex(3)}")
    try:
        os.mkdir(test)
    except OSError as exc:
        return f"cannot create a group in {parent} ({exc.strerror})"
    with contextlib.suppress(OSError):
        os.rmdir(test)
    return ""


@lru_cache(maxsize=1)
def probe() -> CgroupSupport:
    """Find where bot groups can be made (cached for the process).

    Never raises: an unusable system gives ``CgroupSupport(None, reason=...)``.
    """
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError as exc:
        return CgroupSupport(None, reason=f"cannot read /proc/self/cgroup ({exc.strerror})")
    v1: dict[str, str] = {}
    unified = None
    for point, root, fstype, opts in mounts:
        if fstype == "cgroup2":
            if "" in own and unified is None:
                unified = _join(point, root, own[""])
            continue
        for c in opts.split(","):
            if (c in REQUIRED or c in OPTIONAL) and c in own and c not in v1:
                where = _join(point, root, own[c])
                if where is not None:
                    v1[c] = where
    if all(c in v1 for c in REQUIRED):
        problems = [p for c in REQUIRED if (p := _try_dir(v1[c]))]
        if problems:
            return CgroupSupport(None, reason="; ".join(problems))
        usable = {c: d for c, d in v1.items() if c in REQUIRED or not _try_dir(d)}
        return CgroupSupport("v1", tuple(sorted(usable.items())), frozenset(usable))
    if unified is None:
        return CgroupSupport(None, reason="no cgroup file system with the memory and pids controllers is mounted")
    if os.path.basename(unified) == LEAF:  # a worker forked after the probe moved us there
        unified = os.path.dirname(unified)
    try:
        offered = set(_read(os.path.join(unified, "cgroup.controllers")).split())
    except OSError as exc:
        return CgroupSupport(None, reason=f"cannot read {unified}/cgroup.controllers ({exc.strerror})")
    missing = [c for c in REQUIRED if c not in offered]
    if missing:
        return CgroupSupport(
            None,
            reason=f"the cgroup v2 group {unified} does not offer the {' and '.join(missing)} controller(s) "
            "(on a hybrid system they are bound to cgroup v1; else run the harness in a delegated cgroup)",
        )
    wanted = [c for c in ("memory", "pids", "cpu", "cpuset") if c in offered]
    problem = _delegation_problem(unified)
    if problem:
        return CgroupSupport(None, reason=problem)
    try:
        _enable(unified, wanted)
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            return CgroupSupport(None, reason=f"cannot enable controllers for groups under {unified} ({exc})")
        # "No internal processes": a non-root v2 group with processes of its own cannot give its
        # children controllers. Ours is delegated to us: move its processes into a leaf of their own.
        problem = _into_leaf(unified)
        if problem:
            return CgroupSupport(None, reason=problem)
        try:
            _enable(unified, wanted)
        except OSError as exc2:
            return CgroupSupport(None, reason=f"cannot enable controllers for groups under {unified} ({exc2})")
    problem = _try_dir(unified)
    if problem:
        return CgroupSupport(None, reason=problem)
    controllers = frozenset({*wanted, "cpuacct", "freezer"})  # v2: CPU stats and freezing are core files
    return CgroupSupport("v2", (("unified", unified),), controllers)


def _enable(group: str, controllers: Iterable[str]) -> None:
    """Enable ``controllers`` for the children of a v2 group (those not enabled yet).

    Raises:
        CgroupError: ``EBUSY`` when the group holds processes (and is not the root).
    """
    enabled = set(_read(os.path.join(group, "cgroup.subtree_control")).split())
    todo = [c for c in controllers if c not in enabled]
    if todo:
        _write(os.path.join(group, "cgroup.subtree_control"), " ".join("+" + c for c in todo))


def _delegation_problem(group: str) -> str:
    """Why this process may not manage the children of v2 ``group`` ('' when it may).

    A group is ours to manage when we may create directories in it and write
    its ``cgroup.procs`` and ``cgroup.subtree_control``: as root, or when it
    was delegated to our user (systemd's ``Delegate=yes`` makes the user own
    exactly these; ``cgroup-v2.rst`` "Model of Delegation").
    """
    if os.geteuid() == 0:
        return ""
    for path in (group, os.path.join(group, "cgroup.procs"), os.path.join(group, "cgroup.subtree_control")):
        if not os.access(path, os.W_OK):
            try:
                owner = f"owned by uid {os.stat(path).st_uid}"
            except OSError as exc:
                owner = exc.strerror or "unreadable"
            return (
                f"the cgroup v2 group {group} is not delegated to you ({path} is {owner}, not writable): run the "
                "harness in a delegated one, e.g. systemd-run --user --scope -p Delegate=yes harness ..."
            )
    return ""


def _into_leaf(group: str) -> str:
    """Move every process of v2 ``group`` into its child :data:`LEAF`; '' when done, else why not.

    Every process of a delegated group is the user's own (``systemd-run
    --scope`` puts the harness there): they stay inside the group, under
    its limits, and the group may then give its children controllers.
    """
    leaf = os.path.join(group, LEAF)
    try:
        os.makedirs(leaf, exist_ok=True)
    except OSError as exc:
        return f"cannot create {leaf} for the processes of {group} ({exc.strerror})"
    procs = os.path.join(leaf, "cgroup.procs")
    for _ in range(_KILL_ROUNDS):
        try:
            pids = _read(os.path.join(group, "cgroup.procs")).split()
        except OSError as exc:
            return f"cannot read {group}/cgroup.procs ({exc.strerror})"
        if not pids:
            return ""
        for pid in pids:
            try:
                _write(procs, pid)
            except CgroupError as exc:
                if exc.errno != errno.ESRCH:  # gone meanwhile: fine
                    return f"cannot move process {pid} of {group} into {leaf} ({exc.strerror})"
    return f"processes keep arriving in {group}: cannot empty it into {leaf}"


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a killed referee may linger as a zombie until reaped: that counts as gone)."""
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)  # psutil is untyped
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # no access: assume alive, leave its groups alone
        return True


def _empty_and_remove(path: str) -> None:
    """Kill every process under a group directory (depth first) and remove the directories."""
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            _empty_and_remove(entry.path)
    for _ in range(_KILL_ROUNDS):
        try:
            pids = [int(x) for x in _read(os.path.join(path, "cgroup.procs")).split()]
        except (OSError, ValueError):
            break
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    _rmdir(path)


def remove_stale(support: CgroupSupport) -> list[str]:
    """Remove the groups of referees that were killed (``harness-<pid>-...`` whose pid is gone), killing what is left.

    A referee removes its groups at the end of a match, after Ctrl-C and
    after an error; only one killed outright (``kill -9``) leaves them.

    Returns:
        The directories removed.
    """
    removed = []
    for parent in dict.fromkeys(path for _, path in support.parents):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            pid = name.split("-")[1] if name.startswith("harness-") and name.count("-") >= 2 else ""
            if not pid.isdigit() or _alive(int(pid)):
                continue
            path = os.path.join(parent, name)
            with contextlib.suppress(OSError):
                _empty_and_remove(path)
                removed.append(path)
    return removed


class MatchGroup:
    """The groups of one match: ``harness-<pid>-<random>`` in each hierarchy, a bot group per seat.

    Args:
        support: from :func:`probe` (must be available).

    Raises:
        CgroupError: a directory cannot be created or set up.
    """

    def __init__(self, support: CgroupSupport) -> None:
        if support.version is None:
            raise CgroupError(errno.ENOTSUP, support.reason or "control groups are not available")
        self.support = support
        self.version = support.version
        remove_stale(support)
        self.name = name = f"harness-{os.getpid()}-{secrets.token_hex(4)}"
        self.parents = dict(support.parents)
        #: Hierarchies where bot groups are made next to the referee, named ``<name>-<label>``.
        self.flat = frozenset(self.parents) if self.version == "v2" else FLAT_V1 & set(self.parents)
        self.dirs: dict[str, str] = {}  # hierarchy key -> this match's directory (nested hierarchies)
        self.bots: list[BotGroup] = []
        try:
            for key, parent in support.parents:
                if key in self.flat:
                    continue
                path = os.path.join(parent, name)
                if path in self.dirs.values():  # co-mounted controllers (e.g. cpu,cpuacct) share a hierarchy
                    self.dirs[key] = path
                    continue
                os.mkdir(path)
                self.dirs[key] = path
                if key == "cpuset":  # v1: a new cpuset is empty; give it its parent's CPUs and memory nodes
                    for f in ("cpuset.cpus", "cpuset.mems"):
                        _write(os.path.join(path, f), _read(os.path.join(parent, f)).strip() or "\n")
        except OSError as exc:
            self.close()
            if isinstance(exc, CgroupError):
                raise
            raise CgroupError(exc.errno, f"cannot create the match's control groups: {exc}") from None

    def add_bot(self, label: str, *, memory_bytes: int, pids_max: int, cpus: Iterable[int] | None = None) -> BotGroup:
        """Create the group of one bot with its limits.

        Args:
            label: file-name-safe, e.g. ``"0-solid"``.
            memory_bytes: memory of all its processes together (0 = no limit).
            pids_max: processes and threads together (0 = no limit).
            cpus: CPUs its processes may use (None: the match's).

        Raises:
            CgroupError: naming the file that could not be written.
        """
        group = BotGroup(self, label, memory_bytes=memory_bytes, pids_max=pids_max, cpus=cpus)
        self.bots.append(group)
        return group

    def close(self) -> None:
        """Kill what is left in the bot groups and remove every directory (idempotent)."""
        for bot in self.bots:
            bot.close()
        self.bots = []
        for path in dict.fromkeys(self.dirs.values()):
            _rmdir(path)
        self.dirs = {}


def _rmdir(path: str) -> None:
    """Remove a cgroup directory; a group empties a moment after its last process died, so retry briefly."""
    for _ in range(50):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return
            time.sleep(0.01)


class BotGroup:
    """One bot's control group in each hierarchy (see :class:`MatchGroup`).

    The bot joins before ``exec``: the launcher writes ``"0"`` (= "this
    process", or on v1 "this thread", the one a forked child has) to each
    descriptor of :attr:`join_fds`, opened here, so the child needs no
    path, no allocation and no permission of its own.
    """

    def __init__(
        self, match: MatchGroup, label: str, *, memory_bytes: int, pids_max: int, cpus: Iterable[int] | None
    ) -> None:
        self.version = match.version
        self.label = label
        self.dirs: dict[str, str] = {}
        self.join_fds: tuple[int, ...] = ()
        self._fds: list[int] = []
        self._weight_fd: int | None = None
        self._turn_values = WEIGHTS[self.version]  # (on move, waiting)
        self._freeze_fd: int | None = None
        self._events: list[tuple[int, bytes]] = []  # (descriptor, counter name) read by limit_hits()
        self.memory_bytes = memory_bytes
        self.pids_max = pids_max
        try:
            self._create(match, label, cpus)
        except OSError as exc:
            self.close()
            if isinstance(exc, CgroupError):
                raise
            raise CgroupError(exc.errno, f"cannot create the control group of {label}: {exc}") from None

    def _path(self, key: str, name: str) -> str:
        return os.path.join(self.dirs[key], name)

    def _open(self, key: str, name: str, flags: int) -> int:
        fd = os.open(self._path(key, name), flags | os.O_CLOEXEC)
        self._fds.append(fd)
        return fd

    def _create(self, match: MatchGroup, label: str, cpus: Iterable[int] | None) -> None:
        v2 = self.version == "v2"
        for key, parent in match.parents.items():
            if key in match.flat:
                path = os.path.join(parent, f"{match.name}-{label}")
            else:
                path = os.path.join(match.dirs[key], label)
            if path not in self.dirs.values():
                os.mkdir(path)
            self.dirs[key] = path
        mem, pids = ("unified", "unified") if v2 else ("memory", "pids")
        if self.memory_bytes > 0:
            if v2:
                _write(self._path(mem, "memory.max"), str(self.memory_bytes))
                for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                    if os.path.exists(self._path(mem, name)):
                        _write(self._path(mem, name), value)
            else:
                _write(self._path(mem, "memory.limit_in_bytes"), str(self.memory_bytes))
                if os.path.exists(self._path(mem, "memory.memsw.limit_in_bytes")):  # swap accounting on: no swap
                    _write(self._path(mem, "memory.memsw.limit_in_bytes"), str(self.memory_bytes))
        if self.pids_max > 0:
            _write(self._path(pids, "pids.max"), str(self.pids_max))
        if v2:
            if cpus is not None and "cpuset" in match.support.controllers:
                _write(self._path("unified", "cpuset.cpus"), ",".join(str(c) for c in sorted(cpus)))
        elif "cpuset" in self.dirs:  # v1: a new cpuset is empty, and an empty one takes no process
            parent = os.path.dirname(self.dirs["cpuset"])
            allowed = ",".join(str(c) for c in sorted(cpus)) if cpus is not None else ""
            _write(self._path("cpuset", "cpuset.cpus"), allowed or _read(os.path.join(parent, "cpuset.cpus")).strip())
            _write(self._path("cpuset", "cpuset.mems"), _read(os.path.join(parent, "cpuset.mems")).strip())
        # Joining: v1 needs the pid in every hierarchy (once per directory), v2 in the one group. On v1 the
        # child (one thread: it was just forked) writes its thread to ``tasks``: moving one thread takes none of
        # the kernel's global threadgroup lock, whose write side waits for an RCU grace period (``cgroup.procs``
        # took milliseconds per bot under load).
        unique = {path: key for key, path in reversed(list(self.dirs.items()))}
        join = "cgroup.procs" if v2 else "tasks"
        self.join_fds = tuple(self._open(key, join, os.O_WRONLY) for key in unique.values())
        cpu_key = "unified" if v2 else "cpu"
        if cpu_key in self.dirs and "cpu" in match.support.controllers:
            idle = self._path(cpu_key, "cpu.idle")
            if os.path.exists(idle):  # Linux 5.15+: a waiting bot's group is SCHED_IDLE, preempted at once
                self._weight_fd = self._open(cpu_key, "cpu.idle", os.O_WRONLY)
                self._turn_values = (b"0", b"1")
            elif os.path.exists(self._path(cpu_key, "cpu.weight" if v2 else "cpu.shares")):
                self._weight_fd = self._open(cpu_key, "cpu.weight" if v2 else "cpu.shares", os.O_WRONLY)
                self._turn_values = WEIGHTS[self.version]
        freeze = ("unified", "cgroup.freeze") if v2 else ("freezer", "freezer.state")
        if freeze[0] in self.dirs and os.path.exists(self._path(*freeze)):
            self._freeze_fd = self._open(*freeze, os.O_WRONLY)
        oom = ("unified", "memory.events") if v2 else ("memory", "memory.oom_control")
        if os.path.exists(self._path(*oom)):
            self._events.append((self._open(*oom, os.O_RDONLY), b"oom_kill"))
        if os.path.exists(self._path(pids, "pids.events")):
            self._events.append((self._open(pids, "pids.events", os.O_RDONLY), b"max"))

    # ------------------------------------------------------------------ the hot path

    def set_turn(self, on_move: bool) -> None:
        """Give the bot the full CPU weight (on move) or the least (waiting): one write, ~1 µs.

        While another bot thinks, a waiting bot's processes get about 2/1026
        (v1) or 1/101 (v2) of a CPU they share with it, and all of an idle CPU.
        """
        if self._weight_fd is not None:
            os.write(self._weight_fd, self._turn_values[0 if on_move else 1])

    def freeze(self, frozen: bool) -> None:
        """Stop (or resume) every process of the bot; the kernel finishes a freeze asynchronously."""
        if self._freeze_fd is not None:
            os.write(self._freeze_fd, (b"1" if frozen else b"0") if self.version == "v2" else
                     (b"FROZEN" if frozen else b"THAWED"))

    def limit_hits(self) -> tuple[int, int]:
        """(processes killed by the memory limit, forks refused by the process limit) so far: two preads."""
        counts = [0, 0]
        for fd, name in self._events:
            for line in os.pread(fd, 4096, 0).split(b"\n"):
                key, _, value = line.partition(b" ")
                if key == name and value.strip().isdigit():
                    counts[0 if name == b"oom_kill" else 1] = int(value)
        return counts[0], counts[1]

    # ------------------------------------------------------------------ the rest

    def pids(self) -> list[int]:
        """Pids of every process in the group (as this process sees them)."""
        key = "unified" if self.version == "v2" else "pids"
        try:
            return [int(x) for x in _read(self._path(key, "cgroup.procs")).split()]
        except (OSError, KeyError, ValueError):
            return []

    def cpu_seconds(self) -> float:
        """CPU time used by all of the bot's processes so far (s); 0.0 when not accounted."""
        try:
            if self.version == "v2":
                for line in _read(self._path("unified", "cpu.stat")).splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return 0.0
            return int(_read(self._path("cpuacct", "cpuacct.usage"))) / 1e9
        except (OSError, KeyError, ValueError):
            return 0.0

    def signal(self, sig: int, *, skip: Iterable[int] = ()) -> None:
        """Send ``sig`` to every process of the group except ``skip``."""
        skipped = set(skip)
        for pid in self.pids():
            if pid not in skipped:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)

    def kill(self) -> bool:
        """SIGKILL every process of the group, including any forked meanwhile; True when it is empty.

        v2 with ``cgroup.kill`` (Linux 5.14+) does it in one write; otherwise the
        group is frozen (no process can fork while frozen), each process gets
        SIGKILL, and the group is thawed so the signals are delivered; repeated
        until the group is empty.
        """
        kill_file = self._path("unified", "cgroup.kill") if self.version == "v2" else ""
        if kill_file and os.path.exists(kill_file):
            with contextlib.suppress(OSError):
                _write(kill_file, "1")
        killed: set[int] = set()
        for i in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return True
            if not killed.issuperset(pids):  # not only processes already killed and on their way out
                with contextlib.suppress(OSError):
                    self.freeze(True)
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(OSError):
                    self.freeze(False)
                killed.update(pids)
            else:  # killed already; thawed, should anything have frozen the group since
                with contextlib.suppress(OSError):
                    self.freeze(False)
            # Mostly what is left is leaving (bubblewrap's pid 1 tears its namespaces down after the bwrap
            # that was waited for has gone): look again soon, then every 5 ms.
            time.sleep(min(0.005, 0.0002 * 2**i))
        return not self.pids()

    def close(self) -> None:
        """Kill what is left, close the descriptors and remove the directories (idempotent)."""
        if self.dirs:
            self.kill()
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
        self.join_fds = ()
        self._weight_fd = self._freeze_fd = None
        self._events = []
        for path in dict.fromkeys(self.dirs.values()):
            _rmdir(path)
        self.dirs = {}
