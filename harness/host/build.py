"""One untrusted command in a bot's sandbox with its folder writable: a submission's ``build``.

A build is the student's code as much as the bot it makes, so it runs in the
same jail (:class:`harness.host.sandbox.BotJail`, as :func:`harness.host.sandbox.decide_isolation`
decides from the contest's ``[sandbox]``): its own uid from ``[sandbox] uid_range``
(as root), its control group (or limits per process tree), the seccomp
allow-list, no network, a fresh ``/tmp`` and ``/dev/shm`` (tmpfs, gone at the
end), and of the machine only the allow-list of views a bot gets (``/usr``, a
few files of ``/etc``, the harness's interpreter and SDK, ``[sandbox] paths``)
plus the compilers and build tools the PATH finds (:data:`harness.host.sandbox.BUILD_TOOLS`)
with their install trees. Unlike a bot its folder is writable: what it writes
there stays, what it writes anywhere else is gone when it ends.

Its limits (:class:`BuildLimits`): wall time, memory and processes of all its
processes together, 64 MiB per file (``RLIMIT_FSIZE``), the size of its folder
(bytes, :data:`MAX_ENTRIES` entries and :data:`harness.host.trees.MAX_DEPTH`
levels, checked every :data:`DISK_CHECK_S` seconds and at the end) and the
output kept. Every walk of the folder is iterative and bounded; a folder left
past the entry or depth limit, or one that cannot be read whole, is emptied
and the build fails in one line. The clean-up (the uid lease, the scratch
folder) runs whatever happened before it. Where bubblewrap cannot run (or ``[sandbox] mode = "off"``) no build
runs: :func:`build_problem` says why.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from harness.host import cgroups
from harness.host.botproc import BotProcess, BotStartError, stop_all
from harness.host.sandbox import BUILD_TOOLS, DEFAULT_PIDS, BotJail, SandboxError, UidLease, decide_isolation, support
from harness.host.treelimits import TreeBot, TreeMatch
from harness.host.trees import MAX_DEPTH, remove_tree, walk
from harness.specs import BotSpec, Limits, SandboxMode, SandboxSettings

__all__ = ["BuildLimits", "BuildResult", "build_problem", "run_build"]

#: How often the folder's size is measured while the build runs (s).
DISK_CHECK_S = 0.5
#: How often the build's end is looked for (s).
_POLL_S = 0.05
#: The most entries a build's folder may hold (files, folders, links).
MAX_ENTRIES = 100_000


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What a build may use.

    Attributes:
        timeout_s: wall time (seconds) before it is stopped.
        memory_mb: memory of all its processes together, its ``/tmp`` included (MiB).
        disk_mb: the size of its folder when it ends, what it was given included (MiB).
        max_processes: processes and threads together (0: :data:`harness.host.sandbox.DEFAULT_PIDS`).
        output_bytes: output (stdout and stderr) kept; more is counted and dropped.
    """

    timeout_s: float = 60.0
    memory_mb: int = 2048
    disk_mb: int = 500
    max_processes: int = 0
    output_bytes: int = 65536


@dataclass(frozen=True, slots=True)
class BuildResult:
    """How a build ended: ``ok``, one line ``summary`` of what happened ('' when it succeeded), its
    ``output`` (stdout and stderr together, at most :attr:`BuildLimits.output_bytes`) and the harness's
    ``notes`` on it (one line each: what was removed from its folder), kept apart so that a page can tell the
    build's lines from the harness's."""

    ok: bool
    summary: str
    output: str
    notes: str = ""


def build_problem(settings: SandboxSettings) -> str:
    """Why no build can run here under ``settings`` ('' when one can): the sandbox is off or cannot run.

    ``mode = "required"`` with anything of the sandbox missing is a problem too (:func:`decide_isolation` raises).
    """
    if settings.mode is SandboxMode.OFF:
        return '[sandbox] mode = "off"'
    try:
        decided = decide_isolation(settings)
    except SandboxError as exc:
        return str(exc)
    if not decided.namespaces:
        return support().namespaces_problem or "bubblewrap cannot run here"
    return ""


def _size(folder: Path) -> tuple[int, int, bool]:
    """(bytes on disk, entries, within the limits) of ``folder``: walked iteratively, links not followed, at
    most :data:`MAX_ENTRIES` + 1 entries and :data:`harness.host.trees.MAX_DEPTH` levels."""
    tree = walk(folder, max_entries=MAX_ENTRIES + 1)
    within = not tree.too_deep and not tree.too_many and len(tree.entries) <= MAX_ENTRIES
    return sum(st.st_blocks * 512 for _, st in tree.entries), len(tree.entries), within


def _lend(folder: Path, uid: int) -> None:
    """Give ``folder`` and everything in it to ``uid`` (the build's), links not followed."""
    os.chown(folder, uid, uid)
    for rel, _ in walk(folder, max_entries=MAX_ENTRIES).entries:  # an unpacked upload: within the limits
        with contextlib.suppress(OSError):
            os.chown(folder / rel, uid, uid, follow_symlinks=False)


def _take_back(folder: Path, owners: set[int]) -> tuple[list[str], str]:
    """Make what the build left the server's again: owned by this process's user, readable by every bot's
    uid and writable by none (folders 0755, files 0644 or 0755), links kept as links; a FIFO, socket or
    device it made is removed, and so is a link that leads out of the folder (the server, which may follow
    it, sees the host's files). Only entries owned by ``owners`` (the build's uid, or ours) are touched.

    The walk is iterative and bounded (:data:`MAX_ENTRIES` entries, :data:`harness.host.trees.MAX_DEPTH`
    levels; each folder is made readable before it is listed): a tree past them, or one that cannot be read
    whole, is not the server's to keep, so everything in the folder is removed (:func:`remove_tree`).

    Returns:
        The removed entries (relative to the folder), and why the folder was emptied ('' when it was not).
    """
    me, group = os.geteuid(), os.getegid()
    top = os.fspath(folder)
    removed: list[str] = []
    problem = ""
    stack: list[tuple[str, int]] = [("", 0)]
    seen = 0
    while stack and not problem:
        rel, depth = stack.pop()
        path = os.path.join(top, rel) if rel else top
        try:
            st = os.lstat(path)
        except OSError as exc:
            if rel:  # a name too long for the system, say: the tree cannot be taken back whole
                problem = f"an entry it left cannot be read ({exc.strerror or type(exc).__name__})"
            continue
        if st.st_uid in owners:
            try:
                if stat.S_ISLNK(st.st_mode) and not _inside(os.path.realpath(path), top):
                    os.unlink(path)
                    removed.append(rel)
                elif stat.S_ISLNK(st.st_mode):
                    os.chown(path, me, group, follow_symlinks=False)
                elif stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                    os.chown(path, me, group, follow_symlinks=False)
                    exe = stat.S_ISDIR(st.st_mode) or st.st_mode & 0o100
                    os.chmod(path, 0o755 if exe else 0o644, follow_symlinks=False)
                else:
                    os.unlink(path)
                    removed.append(rel)
            except OSError:
                pass
        if not stat.S_ISDIR(st.st_mode):
            continue
        try:
            with os.scandir(path) as it:
                for entry in it:
                    seen += 1
                    if depth + 1 > MAX_DEPTH:
                        problem = f"it left folders more than {MAX_DEPTH} deep"
                        break
                    if seen > MAX_ENTRIES:
                        problem = f"it left more than {MAX_ENTRIES:,} entries"
                        break
                    stack.append((os.path.join(rel, entry.name) if rel else entry.name, depth + 1))
        except OSError as exc:
            problem = f"a folder it left cannot be read ({exc.strerror or type(exc).__name__})"
    if problem:
        _empty(folder)
    return removed, problem


def _empty(folder: Path) -> None:
    """Remove everything in ``folder`` (however deep, links not followed) and give the folder back."""
    try:
        with os.scandir(folder) as it:
            names = [entry.name for entry in it]
    except OSError:
        names = []
    for name in names:
        remove_tree(folder / name)
    with contextlib.suppress(OSError):
        os.chown(folder, os.geteuid(), os.getegid(), follow_symlinks=False)
        os.chmod(folder, 0o755)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def run_build(command: str, folder: Path, *, settings: SandboxSettings, limits: BuildLimits,
              hidden: tuple[str, ...] = ()) -> BuildResult:
    """Run ``/bin/sh -c command`` in ``folder`` in a bot's sandbox with the folder writable (module doc).

    Args:
        command: the build command line (a shell's).
        folder: the version's folder: its working directory, the one place it can write to.
        settings: the contest's ``[sandbox]``.
        limits: its limits.
        hidden: host paths masked wherever they fall inside its view (the data folder).

    Returns:
        The result; a sandbox that cannot run is a failure whose summary says why (nothing runs).
    """
    problem = build_problem(settings)
    if problem:
        return BuildResult(False, f"the build was not run: this server cannot run build commands in a sandbox "
                                  f"({problem})", "")
    folder = Path(os.path.realpath(folder))
    decided = decide_isolation(settings)
    scratch = tempfile.mkdtemp(prefix="harness-build-")
    seat_dir = os.path.join(scratch, "seat")
    os.mkdir(seat_dir, 0o700)
    groups: cgroups.MatchGroup | TreeMatch | None = None
    lease: UidLease | None = None
    proc: BotProcess | None = None
    uid: int | None = None
    owners = {os.geteuid()}  # who may own what it leaves in the folder: it, or (as root) its uid
    taken = False
    run_limits = Limits(memory_mb=limits.memory_mb, max_processes=limits.max_processes, open_files=1024,
                        log_bytes=limits.output_bytes)
    try:
        pids = limits.max_processes or DEFAULT_PIDS
        group: cgroups.BotGroup | TreeBot | None = None
        if decided.cgroups:
            try:
                groups = cgroups.MatchGroup(support().cgroups)
            except cgroups.CgroupError as exc:
                if settings.mode is SandboxMode.REQUIRED:
                    return BuildResult(False, f"the build was not run: its control group cannot be made ({exc})", "")
                groups = TreeMatch()
        elif decided.tree:
            groups = TreeMatch()
        if groups is not None:
            group = groups.add_bot("build", memory_bytes=limits.memory_mb * 1024 * 1024, pids_max=pids,
                                   cpus=os.sched_getaffinity(0))
        if support().root:
            lease = UidLease(1, settings.uid_range)
            uid = lease.uids[0]
            owners.add(uid)
            _lend(folder, uid)
        jail = BotJail(seat_dir=seat_dir, cwd=os.fspath(folder), settings=settings, hidden=hidden, uid=uid,
                       memory_mb=limits.memory_mb, writable=True, tools=BUILD_TOOLS)
        if isinstance(group, TreeBot):
            group.nproc_in_jail = decided.nproc_in_jail
            if decided.nproc_in_jail:
                jail.nproc = pids
        elif group is not None:
            jail.cgroup_dirs, jail.cgroup_version = dict(group.dirs), group.version
        # stdout and stderr in one stream, in the order written; the command is the shell's $1, not parsed here
        spec = BotSpec(name="build", command=("/bin/sh", "-c", 'exec 2>&1; eval "$1"', "build", command),
                       cwd=os.fspath(folder))
        proc = BotProcess(spec, {}, Path(scratch) / "logs", run_limits, "build", jail=jail, group=group)
        try:
            proc.start()
        except BotStartError as exc:
            return BuildResult(False, f"the build could not be started: {exc}", "")
        summary = _wait(proc, folder, limits)
        proc.stop(grace_ms=0)  # what it left running
        removed, emptied = _take_back(folder, owners)
        taken = True
        output = _output(Path(scratch) / "logs")
        notes = "".join(f"[harness: removed {name}: not a file, folder or link inside the folder]\n"
                        for name in removed)
        if emptied:
            notes += f"[harness: removed everything in the folder: {emptied}]\n"
            return BuildResult(False, summary or f"the build was refused: {emptied} (the size limit); its folder "
                                                  "was emptied", output, notes)
        if summary:
            return BuildResult(False, summary, output, notes)
        if proc.returncode != 0:
            return BuildResult(False, f"the build failed with {proc.describe_exit()}", output, notes)
        size, _, within = _size(folder)
        if size > limits.disk_mb * 1024 * 1024 or not within:
            return BuildResult(False, _too_big(limits), output, notes)
        return BuildResult(True, "", output, notes)
    except (SandboxError, cgroups.CgroupError) as exc:
        return BuildResult(False, f"the build was not run: its sandbox could not be set up ({exc})", "")
    finally:  # each step runs whatever the one before did: the uid lease and the scratch folder always go
        if proc is not None:
            with contextlib.suppress(Exception):
                proc.stop(grace_ms=0)
        if groups is not None:
            with contextlib.suppress(Exception):
                groups.close()
        if not taken:
            with contextlib.suppress(Exception):
                if os.path.isdir(folder):
                    _take_back(folder, owners)
        if lease is not None:
            with contextlib.suppress(Exception):
                lease.release()
        remove_tree(scratch)


def _too_big(limits: BuildLimits) -> str:
    return (f"the build was stopped: its folder grew over {limits.disk_mb} MiB, {MAX_ENTRIES} entries or "
            f"{MAX_DEPTH} folders deep (the size limit)")


def _wait(proc: BotProcess, folder: Path, limits: BuildLimits) -> str:
    """Wait for the build to end; stop it at its time or size limit ('' when it ended by itself, else why)."""
    start = time.monotonic()
    measured = start
    while proc.poll() is None:
        now = time.monotonic()
        if now - start >= limits.timeout_s:
            stop_all([proc], 0)
            return f"the build was stopped after {limits.timeout_s:g} s (the time limit)"
        if now - measured >= DISK_CHECK_S:
            measured = now
            size, _, within = _size(folder)
            if size > limits.disk_mb * 1024 * 1024 or not within:
                stop_all([proc], 0)
                return _too_big(limits)
        time.sleep(_POLL_S)
    return ""


def _output(log_dir: Path) -> str:
    """The build's output (stdout, then anything on stderr: bubblewrap's or setpriv's own words)."""
    parts = []
    for name in ("build.out", "build.err"):
        try:
            parts.append((log_dir / name).read_bytes().decode("utf-8", "replace"))
        except OSError:
            continue
    return "".join(parts)
