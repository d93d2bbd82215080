"""The guardian: a run's bots die when every process of the run is gone, even after ``kill -9``.

A bot dies with its referee through ``PR_SET_PDEATHSIG`` (:mod:`harness.host.botproc`), and a
sandboxed bot through bubblewrap's ``--die-with-parent``. bubblewrap arms the second one in the
sandbox's own first process only after it has set up the namespaces and mounts: a referee killed
in that window (tens of milliseconds, while a match starts its bots) leaves that process, and the
bot under it, reparented to init and alive for ever. Nothing inside the sandbox can close the
window, so a process outside it does.

The first bot launched by a process starts its guardian: a small process of its own session (a
``kill`` of the run's process group does not reach it), not a child of the run (double fork), which
holds the read end of a pipe. The write end stays in the run's process and every process it forks
(a match worker), never in what it executes (``O_CLOEXEC``). When the last of them is gone, the
guardian reads end-of-file, kills every process that carries its token in :data:`GUARD_ENV` and
whose referee (``HARNESS_OWNER_PID``) is dead (:func:`harness.host.marks.kill_strays`), and exits.
A run that ends normally has stopped its bots already: the guardian finds none.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
import uuid

from harness.host.marks import GUARD_ENV, kill_strays

__all__ = ["GUARD_ENV", "token", "watch"]
#: Passes of the guardian's search after end-of-file, this far apart (seconds): a process caught
#: forking is found on the next pass.
PASSES, PASS_GAP_S = 3, 0.05

_held: tuple[int, str] | None = None  # (write end, token) of this process or the one it was forked from


def token() -> str:
    """This process's guardian token, starting the guardian on first use (then once per process).

    A process forked from one that has a guardian shares it (the write end is inherited); a process
    started by ``exec`` has its own.

    Raises:
        OSError: the pipe or the guardian process cannot be made.
    """
    global _held
    if _held is not None and _open(_held[0]):
        return _held[1]
    new = uuid.uuid4().hex
    read_end, write_end = os.pipe()  # both O_CLOEXEC: nothing this process executes holds them
    try:
        starter = subprocess.Popen([sys.executable, "-m", "harness.host.guardian", str(read_end), new],
                                   pass_fds=(read_end,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    starter.wait()  # it forks the guardian and exits: the guardian is nobody's child here
    _held = (write_end, new)
    return new


def _open(fd: int) -> bool:
    """Whether ``fd`` is still a pipe (the write end), not closed or reused for another file."""
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def watch(read_end: int, guard: str) -> None:
    """The guardian's body: wait for end-of-file on ``read_end``, then kill the token's orphaned bots."""
    while True:
        try:
            if not os.read(read_end, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    for n in range(PASSES):
        kill_strays(guard=guard)
        if n + 1 < PASSES:
            time.sleep(PASS_GAP_S)


def main(argv: list[str]) -> int:
    """``python -m harness.host.guardian READ_FD TOKEN``: fork the guardian and return at once."""
    read_end, guard = int(argv[0]), argv[1]
    if os.fork():
        return 0
    try:
        os.setsid()
    except OSError:
        pass
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    watch(read_end, guard)
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
