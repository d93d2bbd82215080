"""The marks a referee puts in a bot's environment, and the search for marked processes left behind.

Every bot carries :data:`MARK_ENV` (a fresh id per launch), :data:`OWNER_ENV` (its referee's pid)
and :data:`GUARD_ENV` (its run's guardian token, :mod:`harness.host.guardian`), inherited by every
process it starts; :func:`find_marked` reads them from ``/proc/<pid>/environ`` and
:func:`kill_strays` kills what a dead referee left. Standard library only: the guardian imports
this module when its run is gone.
"""

from __future__ import annotations

import os
import signal

__all__ = ["GUARD_ENV", "MARK_ENV", "OWNER_ENV", "find_marked", "kill_strays", "send_signal"]

#: Variable carrying a per-launch id; every descendant of the bot inherits it.
MARK_ENV = "HARNESS_BOT_ID"
#: Variable carrying the pid of the referee that launched the bot.
OWNER_ENV = "HARNESS_OWNER_PID"
#: Variable carrying the token of the run's guardian (:mod:`harness.host.guardian`).
GUARD_ENV = "HARNESS_GUARD"


def find_marked(mark: str | None = None, owner_pid: int | None = None, guard: str | None = None) -> list[int]:
    """Pids of live processes launched by the harness, read from ``/proc/<pid>/environ``.

    Args:
        mark: only processes whose :data:`MARK_ENV` equals this id.
        owner_pid: only processes whose :data:`OWNER_ENV` equals this pid.
        guard: only processes whose guardian token (:data:`harness.host.GUARD_ENV`) is this.
            With none of them, every marked process.

    Returns:
        Pids (excluding the caller) whose environment matches; processes we
        may not read are skipped. A process that rewrote its environment
        escapes this search (its process group is still killed).
    """
    want: list[bytes] = []
    if mark is not None:
        want.append(f"\0{MARK_ENV}={mark}\0".encode())
    if owner_pid is not None:
        want.append(f"\0{OWNER_ENV}={owner_pid}\0".encode())
    if guard is not None:
        want.append(f"\0{GUARD_ENV}={guard}\0".encode())
    any_mark = f"\0{MARK_ENV}=".encode()
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                data = b"\0" + f.read()
        except OSError:
            continue
        if want:
            if all(w in data for w in want):
                found.append(int(entry))
        elif any_mark in data:
            found.append(int(entry))
    return found


def kill_strays(owner_pid: int | None = None, *, only_orphans: bool = True, guard: str | None = None) -> list[int]:
    """SIGKILL marked bot processes left behind, e.g. after a referee was killed with -9.

    Args:
        owner_pid: only processes launched by this referee pid; None = any.
        guard: only processes of this guardian token (:mod:`harness.host.guardian`); None = any.
        only_orphans: skip processes whose owning referee is still alive.

    Returns:
        The pids signalled.
    """
    killed = []
    for pid in find_marked(owner_pid=owner_pid, guard=guard):
        if only_orphans:
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = dict(
                        item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item
                    )
                owner = int(env.get(OWNER_ENV.encode(), b"0"))
            except (OSError, ValueError):
                continue
            if owner and _alive(owner):
                continue
        send_signal(pid)
        killed.append(pid)
    return killed


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie (killed, not reaped yet: an orphan waits for init) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]  # the name in parentheses may hold anything
    except (OSError, IndexError):
        return True
    return state not in (b"Z", b"X")


def send_signal(pid: int, sig: int = signal.SIGKILL) -> None:
    """``os.kill(pid, sig)``, quiet when the process is gone or not ours to signal (a race with its exit)."""
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
