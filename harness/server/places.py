"""The contest file's folders made and checked before the server writes in them.

The contest file is read without writing anything (:func:`harness.server.contest.load_contest`
names any path that must already exist: ``[[reference]] cwd``, ``files``, ``[sandbox] paths``);
what the server creates is made here, and a path that cannot be used is one line naming the
file, the key, the path and the OS's reason:
``contest.toml: [contest] data: cannot use the folder /proc/nope: No such file or directory``.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from harness.server.contest import Contest
from harness.tournament.config import ConfigError

SQLITE = "sqlite:///"


def prepare_places(contest: Contest) -> None:
    """Make the data folder (and an SQLite database's folder and file) and check the server may write there.

    Raises:
        ConfigError: ``[contest] data`` or ``[contest] database`` cannot be made or written (file, key, path,
            the OS's reason).
    """
    _writable_folder(contest, "[contest] data", contest.data)
    if not contest.database.startswith(SQLITE):
        return
    path = Path(contest.database.removeprefix(SQLITE))
    if not path.is_absolute():  # e.g. sqlite:///:memory: (the contest file makes paths absolute)
        return
    _writable_folder(contest, "[contest] database", path.parent)
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o666))  # SQLite takes an empty file as a new database
    except OSError as exc:
        raise ConfigError(contest.path, "[contest] database",
                          f"cannot use the SQLite file {path}: {exc.strerror or exc}") from None


def _writable_folder(contest: Contest, key: str, folder: Path) -> None:
    """Make ``folder`` (and its parents) and write a temporary file in it.

    Raises:
        ConfigError: it cannot be made or written (file, key, path, the OS's reason).
    """
    try:
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ConfigError(contest.path, key, f"cannot use the folder {folder}: {exc.strerror or exc}") from None
