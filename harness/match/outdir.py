"""Output directories of ``harness match`` and ``harness check-bot``, checked before anything runs.

A match appends to ``hands.jsonl`` in its directory, so a directory that
already holds a hand history would mix two matches in one file; a path that
is (or lies under) a file cannot hold one at all. Both are usage mistakes,
reported in one line before any bot starts.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from harness.errors import HarnessError

#: Where ``harness match`` writes when no ``--out`` is given (``results/`` is gitignored).
DEFAULT_BASE = Path("results")
_HISTORY_NAMES = ("hands.jsonl", "hands.jsonl.gz")


class OutDirError(HarnessError, ValueError):
    """An output directory that cannot be used; the message names it and says what to do."""


#: errno values that mean the output's disk takes no more data: full, over quota, read-only, failing.
STORAGE_ERRNOS: tuple[int, ...] = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)


class StorageError(HarnessError):
    """Results or hand histories cannot be written: the disk is full, over quota, read-only or failing.

    Attributes:
        path: the file or directory that could not be written.
        errno: one of :data:`STORAGE_ERRNOS`.
    """

    def __init__(self, path: Path | str, code: int) -> None:
        self.path = Path(path)
        self.errno = code
        super().__init__(f"cannot write {self.path}: {os.strerror(code)}")


def storage_errno(exc: BaseException) -> int | None:
    """The :data:`STORAGE_ERRNOS` value behind ``exc`` (itself, or an error it was raised while handling), or None.

    A full disk often shows first in a flush and again in the cleanup that
    closes the file: the chain is searched so that either is recognised.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, StorageError):
            return current.errno
        if isinstance(current, OSError) and current.errno in STORAGE_ERRNOS:
            return current.errno
        current = current.__cause__ or current.__context__
    return None


def prepare_out_dir(path: Path, option: str = "--out") -> Path:
    """Create ``path`` (and its parents) for a new match's hand history and logs.

    Args:
        path: the directory; it may exist if it holds no hand history.
        option: the command-line option that gave it, for messages.

    Returns:
        ``path``, now an existing, writable directory.

    Raises:
        OutDirError: ``path`` is a file or lies under one, already holds a
            ``hands.jsonl``, is not writable, or cannot be created.
    """
    path = Path(path)
    for name in _HISTORY_NAMES:
        if (path / name).exists():
            raise OutDirError(
                f"{option} {path}: already holds a hand history ({path / name}); "
                "give a new directory or remove the old one"
            )
    return _make_dir(path, option)


def _make_dir(path: Path, option: str) -> Path:
    if path.exists() and not path.is_dir():
        raise OutDirError(f"{option} {path}: this is a file, not a directory; give a directory (created if missing)")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutDirError(f"{option} {path}: {parent} is a file, so no directory can be made under it")
            break
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutDirError(f"{option} {path}: cannot create the directory ({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutDirError(f"{option} {path}: the directory is not writable")
    return path


def default_out_dir(kind: str, base: Path = DEFAULT_BASE) -> Path:
    """Create and return a fresh ``base/<kind>-YYYYmmdd-HHMMSS`` directory (``-2``, ``-3`` ... if taken).

    Args:
        kind: the command, e.g. ``"match"``.
        base: parent directory (default ``results/`` under the current directory).

    Raises:
        OutDirError: ``base`` cannot be created or written.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    _make_dir(base, "default output directory")
    for n in range(1, 1000):
        path = base / (f"{kind}-{stamp}" if n == 1 else f"{kind}-{stamp}-{n}")
        try:
            path.mkdir()  # not exist_ok: two matches started in one second get two directories
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutDirError(f"cannot create {path} ({exc.strerror or exc}); give --out DIR") from None
        return path
    raise OutDirError(f"too many {kind} directories for {stamp} in {base}; give --out DIR")
