"""The referees' private endpoint directories: where they go, and removing those a killed referee left.

Each match binds its seats' Unix sockets in a directory of its own,
``<parent>/harness-<referee pid>-<random>`` (mode 0700), removed at the end of
the match. The parent is the temporary directory unless that is too deep for a
socket path; a referee killed with SIGKILL leaves its directory behind, and
:func:`remove_stale_private_dirs` removes those whose referee is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import psutil

__all__ = ["IPC_PATH_MAX", "PRIVATE_DIR_PREFIX", "SHORT_PARENTS", "private_parent", "remove_stale_private_dirs"]

#: Name prefix of the private endpoint directories: ``harness-<referee pid>-<random>``.
PRIVATE_DIR_PREFIX = "harness-"
#: Longest Unix socket path (``sockaddr_un.sun_path`` less its NUL: 107 on Linux).
IPC_PATH_MAX = 107
#: What a seat's socket adds to its private directory's parent (a 7-digit pid, mkdtemp's 8 characters).
_SOCKET_TAIL = len(f"/{PRIVATE_DIR_PREFIX}4194304-abcdefgh/seat5/bot.sock")
#: Where the private directories go when the temporary directory is too deep for a socket path.
SHORT_PARENTS = ("/tmp", "/var/tmp", "/dev/shm")


def private_parent() -> str:
    """The directory that holds the referees' private endpoint directories.

    The temporary directory (``TMPDIR``), unless a seat's socket path under it
    would exceed :data:`IPC_PATH_MAX` (a deep ``TMPDIR``, e.g. a test's or a
    CI job's): then the first writable of :data:`SHORT_PARENTS`.

    Raises:
        ValueError: no such directory is short enough (the message says to set a shorter ``TMPDIR``).
    """
    parent = tempfile.gettempdir()
    if len(parent) + _SOCKET_TAIL <= IPC_PATH_MAX:
        return parent
    for short in SHORT_PARENTS:
        if os.path.isdir(short) and os.access(short, os.W_OK | os.X_OK) and len(short) + _SOCKET_TAIL <= IPC_PATH_MAX:
            return short
    raise ValueError(
        f"the temporary directory {parent} is too deep for the bots' Unix sockets (at most {IPC_PATH_MAX} "
        f"characters each) and none of {', '.join(SHORT_PARENTS)} is writable: set TMPDIR to a shorter directory"
    )


def remove_stale_private_dirs(parent: str | None = None) -> list[str]:
    """Remove private endpoint directories left by referees that were killed (kill -9).

    A referee removes its own directory at the end of a match, after Ctrl-C
    and after an error; only a process killed outright leaves one behind.
    A directory is removed when its name carries a pid that no longer runs
    and it belongs to this user.

    Args:
        parent: where to look (default: :func:`private_parent`).

    Returns:
        The directories removed.
    """
    if parent is None:
        try:
            parent = private_parent()
        except ValueError:
            return []
    removed: list[str] = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    uid = os.getuid()
    for name in names:
        if not name.startswith(PRIVATE_DIR_PREFIX):
            continue
        pid_text = name[len(PRIVATE_DIR_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit():
            continue
        path = os.path.join(parent, name)
        try:
            if os.lstat(path).st_uid != uid:
                continue
            # A killed referee may linger as a zombie until it is reaped: that counts as gone.
            gone = psutil.Process(int(pid_text)).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            gone = True
        except (OSError, ValueError, psutil.Error):  # vanished meanwhile, or no access: leave it
            continue
        if gone:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
