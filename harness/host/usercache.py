"""The user's cache directory for what the harness keeps between runs, and the one rule for trusting it.

Kept there: compiled seccomp programs (:mod:`harness.host.bpfcache`), the private view's package probe
answers (:mod:`harness.host.probecache`) and libraries without their debugging sections
(:mod:`harness.host.elfstrip`). What is read back is trusted as much as the harness's own code, so it is
read only from a regular file of this user that nobody else may write, in a directory of this user that
nobody else may write (a bot never sees it: the sandbox shows no home directory). Anything else is made
afresh; where nothing can be written, nothing is kept.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

__all__ = ["cache_dir", "keep", "owned_safely", "read_trusted"]


def cache_dir() -> str | None:
    """The directory of kept things: ``$XDG_CACHE_HOME/harness`` (when absolute, as the XDG base directory
    specification says), else ``~/.cache/harness`` (``HOME``, else the passwd entry's); None without a home
    (unset, empty, relative or ``/``)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.environ.get("HOME")
        if home is None:
            with contextlib.suppress(KeyError, ImportError):
                import pwd

                home = pwd.getpwuid(os.geteuid()).pw_dir
        if not home or not os.path.isabs(home) or home == "/":
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "harness")


def owned_safely(st: os.stat_result) -> bool:
    """This user's, and writable by nobody else."""
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def read_trusted(path: str, limit: int) -> bytes | None:
    """At most ``limit`` bytes of the kept file ``path``; None when there is none that may be trusted (not a
    regular file, a link, or it or its directory writable by someone else). Never raises."""
    try:
        folder = os.stat(os.path.dirname(path))
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fh.fileno())
            if not (stat.S_ISREG(st.st_mode) and owned_safely(st) and owned_safely(folder)):
                return None
            return fh.read(limit)
        except OSError:
            return None


def keep(path: str, data: bytes, prefix: str) -> None:
    """Keep ``data`` at ``path`` (atomically: a temporary file named ``prefix...`` beside it, then renamed);
    silently nothing where the directory cannot be made or written or is not owned safely."""
    folder = os.path.dirname(path)
    with contextlib.suppress(OSError):
        os.makedirs(folder, mode=0o755, exist_ok=True)
        if not owned_safely(os.stat(folder)):
            return
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix)
        try:
            os.write(fd, data)
            os.fchmod(fd, 0o644)
        finally:
            os.close(fd)
        try:
            os.replace(tmp, path)
        except OSError:
            os.unlink(tmp)
