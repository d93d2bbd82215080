"""Copies of the organiser's ELF libraries and programs without their debugging sections, for private views.

A private view (:mod:`harness.host.privateview`) copies into memory every
library a bot loads; some carry their debugging information (a pyenv-built
``libpython3.11.so`` is 22 MiB, 6 MiB without it), which no bot runs. Where
binutils' ``objcopy`` (or ``strip``) is installed, :func:`stripped` makes a
copy of such a file with ``--strip-debug`` once, keeps it in the user's cache
directory (:func:`harness.host.usercache.cache_dir`) under a key of the file's
path, size, time and inode, and the view copies that instead: the code, data
and symbols a program runs with are unchanged. Without the tool, a cache
directory, or for a file whose debugging sections are small
(:data:`MIN_DEBUG_BYTES`), the file is copied as it is.

Only the organiser's files are stripped (``/usr``, the harness's Python and
venv): never a bot's own, which the tool would have to parse and which its
author may read. A kept copy is trusted as much as the harness's own code:
used only when it is a regular file of this user that nobody else may write,
in a directory of this user that nobody else may write (the sandbox shows no
home directory, so no bot sees or reads it).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import struct
import subprocess
import tempfile
from functools import lru_cache

from harness.host.usercache import cache_dir, owned_safely

__all__ = ["MIN_DEBUG_BYTES", "debug_bytes", "stripped", "tool"]

#: Files with fewer bytes of debugging sections are copied as they are (a tool run is not worth it).
MIN_DEBUG_BYTES = 512 << 10


@lru_cache(maxsize=1)
def tool() -> list[str] | None:
    """The command that strips debugging sections (``objcopy --strip-debug``, else ``strip --strip-debug``),
    or None where binutils is not installed."""
    for name in ("objcopy", "strip"):
        found = shutil.which(name)
        if found:
            return [found, "--strip-debug"]
    return None


def debug_bytes(path: str) -> int:
    """Bytes of the ``.debug*`` sections of the 64-bit little-endian ELF file ``path`` (0: none, not an
    ELF file, or unreadable); read from its section headers."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return 0
            shoff, = struct.unpack_from("<Q", head, 40)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 58)
            if not shoff or shentsize < 64 or not 0 < shnum < 1 << 16 or shstrndx >= shnum:
                return 0
            fh.seek(shoff)
            table = fh.read(shentsize * shnum)
            if len(table) < shentsize * shnum:
                return 0
            sections = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
            _, _, _, _, str_off, str_size = sections[shstrndx]
            fh.seek(str_off)
            names = fh.read(min(str_size, 1 << 20))
        total = 0
        for name_at, kind, _, _, _, size in sections:
            name = names[name_at:names.find(b"\0", name_at)]
            if name.startswith(b".debug") and kind != 8:  # SHT_NOBITS takes no room in the file
                total += size
        return total
    except (OSError, struct.error, ValueError):
        return 0


@lru_cache(maxsize=4096)
def _debug_bytes_of(path: str, size: int, mtime_ns: int) -> int:
    del size, mtime_ns  # the cache key only
    return debug_bytes(path)


def stripped(path: str, st: os.stat_result) -> str | None:
    """A kept copy of the organiser's ELF file ``path`` (``st``: its ``lstat``) without its debugging
    sections, made now if need be; None when it is to be copied as it is (no tool, no cache directory,
    debugging sections under :data:`MIN_DEBUG_BYTES`, or the tool failed). Never raises."""
    if st.st_size < MIN_DEBUG_BYTES or not stat.S_ISREG(st.st_mode):  # most files: nothing else looked at
        return None
    command, folder = tool(), cache_dir()
    if command is None or folder is None:
        return None
    key = hashlib.sha256(f"{path}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_dev}".encode()).hexdigest()
    folder = os.path.join(folder, "stripped")
    kept = os.path.join(folder, f"{key[:32]}-{os.path.basename(path)[:64]}")
    with contextlib.suppress(OSError):
        found = os.stat(kept, follow_symlinks=False)
        if stat.S_ISREG(found.st_mode) and owned_safely(found) and owned_safely(os.stat(folder)):
            return kept
    if _debug_bytes_of(path, st.st_size, st.st_mtime_ns) < MIN_DEBUG_BYTES:
        return None
    try:
        os.makedirs(folder, mode=0o755, exist_ok=True)
        if not owned_safely(os.stat(folder)):
            return None
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".strip-")
        os.close(fd)
    except OSError:
        return None
    try:
        done = subprocess.run([*command, path, tmp], capture_output=True, timeout=120, check=False)
        if done.returncode != 0 or os.path.getsize(tmp) == 0:
            return None
        os.chmod(tmp, 0o644)
        os.replace(tmp, kept)
        return kept
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
