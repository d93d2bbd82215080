"""Limits for a bot's process tree where no control group can be made (an ordinary user, Linux).

Without control groups the kernel offers an ordinary user per-process
limits only (rlimits). This module adds what the referee can enforce from
outside, for all of a bot's processes together: its *tree* (in a sandbox,
every process of the bot's pid namespace, which are all descendants of
bubblewrap; without one, the bot's descendants by parentage).

- **processes**: in a sandbox, ``RLIMIT_NPROC`` set inside the bot's own
  user namespace (``prlimit``, util-linux), which Linux 5.14+ counts per
  user namespace, so it is exact for the bot alone (set before bubblewrap
  it would count every process of the user). The watch judges: a tree at
  the limit has reached it. The kernel's limit is one above the watch's,
  so a refused fork is always seen as the process limit: the tree was
  then over the watch's limit, and still at it if one task (a runtime's
  short-lived thread) ended before the watch's next look; with both at the
  same number the bot just went on, its fork refused, and stayed "ok".
- **memory**: ``RLIMIT_DATA`` per process (set by
  :mod:`harness.host.botproc`), and the sum of the tree's private resident
  memory checked every :data:`POLL_S` seconds (pages shared after a fork
  counted once, ``Pss``): over ``memory_mb`` the whole tree is killed, as
  the cgroup's OOM kill would.
- **fair CPU** (``freeze``): a waiting bot's processes are stopped with
  ``SIGSTOP`` and resumed with ``SIGCONT``. An ordinary user cannot give a
  process a lower CPU share and take it back (raising a nice value or
  leaving ``SCHED_IDLE`` needs ``CAP_SYS_NICE``), so ``weight`` is not
  possible here: :func:`harness.host.sandbox.decide_isolation` uses ``freeze``.
- **CPU pin**: every thread whose affinity is wider than the match's CPUs
  is put back at each check (a bot can call ``sched_setaffinity`` on
  itself; only a seccomp rule refusing it would stop it at once).

The classes have the interface of :class:`harness.host.cgroups.MatchGroup`
and :class:`~harness.host.cgroups.BotGroup`, so the referee drives either.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterable

from harness.host.marks import send_signal

__all__ = ["POLL_S", "TreeBot", "TreeMatch", "children", "tree_pids"]

#: Seconds between two checks of every bot's tree (memory, processes, CPU pin).
POLL_S = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE")
_FREEZE_ROUNDS = 20


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` over all its threads (``/proc/<pid>/task/*/children``, Linux 3.5+)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out.extend(int(x) for x in f.read().split())
        except (OSError, ValueError):
            continue
    return out


def tree_pids(root: int, spare: Iterable[int] = ()) -> list[int]:
    """Every descendant of ``root`` (not ``root`` itself), parents first; ``spare`` pids are walked, not listed."""
    skip = set(spare)
    out: list[int] = []
    stack = [root]
    seen = {root}
    while stack:
        for kid in children(stack.pop()):
            if kid not in seen:
                seen.add(kid)
                stack.append(kid)
                if kid not in skip:
                    out.append(kid)
    return out


def _state(pid: int) -> str:
    """The one-letter state of ``pid`` (``/proc/<pid>/stat``), '' when gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return ""
    return data[data.rfind(b")") + 2:][:1].decode()


def _ppid(pid: int) -> int:
    """The parent of ``pid`` (``/proc/<pid>/stat`` field 4), 0 when gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        return int(data[data.rfind(b")") + 2:].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _anon_bytes(pid: int) -> int:
    """Private resident memory of ``pid``: resident less shared pages (``/proc/<pid>/statm``)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            fields = f.read().split()
        return max(0, int(fields[1]) - int(fields[2])) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _pss_anon(pid: int) -> int:
    """Private memory of ``pid`` with pages shared after a fork divided among their sharers (bytes).

    ``Pss_Anon`` + ``Pss_Shmem`` of ``/proc/<pid>/smaps_rollup`` (Linux 5.7+): exact but it walks the
    page tables, so it is read only when the cheap sum (:func:`_anon_bytes`, which counts a
    forked child's copy-on-write pages again) is over the limit. Falls back to that figure.
    """
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            text = f.read()
    except OSError:
        return _anon_bytes(pid)
    total, found = 0, False
    for line in text.splitlines():
        if line.startswith((b"Pss_Anon:", b"Pss_Shmem:")):
            total += int(line.split()[1]) * 1024
            found = True
    return total if found else _anon_bytes(pid)


def _ticks(pid: int) -> int:
    """User + system CPU clock ticks of ``pid`` and its reaped children (``/proc/<pid>/stat`` 14-17)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        fields = data[data.rfind(b")") + 2:].split()
        return sum(int(x) for x in fields[11:15])
    except (OSError, ValueError):
        return 0


class TreeBot:
    """One bot's process tree, limited and frozen from outside (see the module docstring).

    Created by :meth:`TreeMatch.add_bot`; :meth:`attach` is called with the
    started process (bubblewrap in a sandbox).

    Attributes:
        label: e.g. ``"0-solid"``.
        memory_bytes: all of the tree's private resident memory (0 = no limit).
        pids_max: processes and threads of the tree (0 = no limit).
        nproc_in_jail: the sandbox sets ``RLIMIT_NPROC`` to ``pids_max`` + 1 inside
            the bot's user namespace (set by the referee).
    """

    version = "tree"
    join_fds: tuple[int, ...] = ()

    def __init__(self, label: str, *, memory_bytes: int, pids_max: int, cpus: Iterable[int] | None) -> None:
        self.label = label
        self.memory_bytes = memory_bytes
        self.pids_max = pids_max
        self.cpus = frozenset(cpus) if cpus is not None else None
        self.nproc_in_jail = False
        self._root: int | None = None
        self._jailed = False
        self._lock = threading.Lock()
        self._oom = 0
        self._forks = 0
        self._ticks_seen = 0
        self._frozen = False
        self.repinned = 0  # threads put back on the match's CPUs so far

    def attach(self, pid: int, *, jailed: bool) -> None:
        """Watch the tree of ``pid`` (our child; bubblewrap when ``jailed``, whose own processes are spared)."""
        self._root = pid
        self._jailed = jailed

    def pids(self) -> list[int]:
        """The bot's processes: in a jail the root's descendants below bubblewrap's two, else root and descendants."""
        root = self._root
        if root is None or _ppid(root) != os.getpid():  # reaped (its pid may be another process's now)
            return []
        if self._jailed:
            return tree_pids(root, children(root))  # bwrap's pid-1 reaper is spared
        return [root, *tree_pids(root)]

    # ------------------------------------------------------------------ the referee's interface

    def set_turn(self, on_move: bool) -> None:
        """No CPU weight without control groups (see the module docstring): nothing to do."""

    def freeze(self, frozen: bool) -> None:
        """Stop (``SIGSTOP``) or resume (``SIGCONT``) every process of the tree.

        Stopping repeats until no new process turns up: a process with a
        pending ``SIGSTOP`` cannot complete a fork (the kernel restarts it),
        so the tree stops growing. A process that another one resumed meanwhile
        is stopped again at the next check (:meth:`check`).
        """
        with self._lock:
            self._frozen = frozen
            if not frozen:
                for pid in self.pids():
                    send_signal(pid, signal.SIGCONT)
                return
            done: set[int] = set()
            for _ in range(_FREEZE_ROUNDS):
                todo = [p for p in self.pids() if p not in done]
                if not todo:
                    return
                for pid in todo:
                    send_signal(pid, signal.SIGSTOP)
                done.update(todo)

    def limit_hits(self) -> tuple[int, int]:
        """(memory-limit kills, process-limit hits) so far, as the watch found them."""
        return self._oom, self._forks

    def cpu_seconds(self) -> float:
        """CPU time of the tree's live processes and the children they reaped, and of those seen before (s)."""
        total = sum(_ticks(p) for p in self.pids())
        self._ticks_seen = max(self._ticks_seen, total)
        return self._ticks_seen / os.sysconf("SC_CLK_TCK")

    def signal(self, sig: int, *, skip: Iterable[int] = ()) -> None:
        """Send ``sig`` to every process of the tree except ``skip``."""
        skipped = set(skip)
        for pid in self.pids():
            if pid not in skipped:
                send_signal(pid, sig)

    def kill(self) -> bool:
        """SIGKILL the tree; True when it is empty.

        In a jail, killing the pid namespace's first process (bubblewrap's
        reaper) makes the kernel kill every process in the namespace at once.
        Otherwise the tree is stopped first (no fork), killed, then resumed so
        the kills land, until nothing is left.
        """
        if self._jailed and self._root is not None:
            for init in children(self._root):
                send_signal(init, signal.SIGKILL)
            for _ in range(200):
                if not self.pids():
                    return True
                time.sleep(0.005)
        for _ in range(10):
            pids = self.pids()
            if not pids:
                return True
            self.freeze(True)
            for pid in self.pids():
                send_signal(pid, signal.SIGKILL)
            for pid in pids:
                send_signal(pid, signal.SIGCONT)
            time.sleep(0.005)
        return not self.pids()

    def close(self) -> None:
        """Kill what is left of the tree (idempotent)."""
        if self._root is not None:
            self.kill()
        self._root = None

    # ------------------------------------------------------------------ the watch

    def check(self) -> None:
        """One check: the tree's memory and processes against the limits (killing it over one), its CPU pin."""
        if self._root is None:
            return
        pids = self.pids()
        if not pids:
            return
        tasks = 0
        memory = 0
        ticks = 0
        for pid in pids:
            ticks += _ticks(pid)
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            tasks += len(tids)
            memory += _anon_bytes(pid)
            if self.cpus is not None:
                for tid in tids:
                    with contextlib.suppress(OSError, ValueError):
                        if not os.sched_getaffinity(int(tid)) <= self.cpus:
                            os.sched_setaffinity(int(tid), self.cpus)
                            self.repinned += 1
        self._ticks_seen = max(self._ticks_seen, ticks)  # what cpu_seconds() reports once the tree is gone
        jail_init = 1 if self._jailed and self.nproc_in_jail else 0  # bwrap's reaper counts in the namespace
        if self.memory_bytes > 0 and memory > self.memory_bytes and sum(map(_pss_anon, pids)) > self.memory_bytes:
            self._oom += 1
            self.kill()
            return
        if self.pids_max > 0 and tasks + jail_init >= self.pids_max:
            self._forks += 1
            self.kill()
            return
        with self._lock:  # a waiting bot's process resumed by another of its processes: stopped again
            if self._frozen:
                for pid in pids:
                    if _state(pid) not in ("T", "t", "Z", "X", ""):
                        send_signal(pid, signal.SIGSTOP)



class TreeMatch:
    """The process-tree limits of one match: a :class:`TreeBot` per seat and one watch thread.

    The thread checks every bot's tree every :data:`POLL_S` seconds
    (about 10 file reads per process of a bot) until :meth:`close`.
    """

    version = "tree"

    def __init__(self) -> None:
        self.bots: list[TreeBot] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="tree-limits", daemon=True)
        self._thread.start()

    def add_bot(self, label: str, *, memory_bytes: int, pids_max: int, cpus: Iterable[int] | None = None) -> TreeBot:
        """A bot's tree limits (see :meth:`harness.host.cgroups.MatchGroup.add_bot` for the arguments)."""
        bot = TreeBot(label, memory_bytes=memory_bytes, pids_max=pids_max, cpus=cpus)
        self.bots.append(bot)
        return bot

    def _watch(self) -> None:
        while not self._stop.wait(POLL_S):
            for bot in list(self.bots):
                with contextlib.suppress(Exception):  # a check must never end the watch
                    bot.check()

    def close(self) -> None:
        """Stop the watch, kill what is left of every tree (idempotent)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        for bot in self.bots:
            bot.close()
        self.bots = []
