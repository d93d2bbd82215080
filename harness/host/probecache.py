"""The private view's package probe answers kept between processes, so a bot's start does not run the probe again.

:func:`harness.host.privateview.python_packages` finds which files of the
venv a Python bot may load by importing the SDK's modules in a trusted
Python process: seconds of CPU on a busy machine (24 s of the first bot's
40 s from the repository's root), paid by every ``harness match``,
``check-bot`` and tournament worker. The answer depends only on the
interpreter, its standard library, the venv's site-packages and the SDK's
sources, so it is kept under a key of all four (:func:`probe_key`: each
one's paths, sizes and modification times) in the user's cache directory
(:func:`harness.host.bpfcache.cache_dir`) and probed again whenever one
changes: installing, upgrading or removing a package changes its
site-packages entry, editing the SDK a source's time.

A kept answer is trusted as much as the harness's own code: it is read only
from a regular file of this user that nobody else may write, in a directory
of this user that nobody else may write (a bot never sees it: the sandbox
shows no home directory); anything else is probed afresh. A failed probe is
never kept.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence

from harness.host.usercache import cache_dir, keep, read_trusted

__all__ = ["kept_probe", "probe_key"]

#: The largest kept answer read back (bytes): a venv's whole site-packages lists far fewer paths.
_MAX_BYTES = 16 << 20
#: Files of the SDK's trees stamped at most (a larger tree is not the SDK: no key, probed every time).
_SDK_MAX_FILES = 5000


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _tree_stamps(top: str) -> list[str] | None:
    """Path, size and time of each Python source and extension of the tree ``top`` (a file: itself)."""
    if not os.path.isdir(top):
        return [_stamp(top)]
    out = []
    for folder, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".so", ".pth")):
                out.append(_stamp(os.path.join(folder, name)))
                if len(out) > _SDK_MAX_FILES:
                    return None
    out.append(_stamp(top))  # a module added or removed changes its folder's time
    return out


def probe_key(executable: str, stdlib: Sequence[str], site: str, sdk: Sequence[str],
              modules: Sequence[str]) -> str | None:
    """The key of a probe's answer: ``executable`` (the interpreter), the standard library folders
    ``stdlib`` (and their ``lib-dynload``), every top entry of the site-packages folder ``site``, the
    Python sources of the SDK's trees ``sdk``, each by path, size and modification time (ns), and the
    ``modules`` probed. None when ``site`` cannot be listed or an SDK tree is too large to stamp."""
    real = os.path.realpath(site)
    try:
        entries = sorted(os.listdir(real))
    except OSError:
        return None
    parts = [_stamp(os.path.realpath(executable))]
    for std in stdlib:
        parts += [_stamp(std), _stamp(os.path.join(std, "lib-dynload"))]
    parts += [_stamp(real), *(_stamp(os.path.join(real, e)) for e in entries)]
    for top in sdk:
        stamps = _tree_stamps(os.path.realpath(top))
        if stamps is None:
            return None
        parts += stamps
    return hashlib.sha256(json.dumps([parts, sorted(modules)]).encode()).hexdigest()


def _read(path: str) -> list[str] | None:
    """A kept answer (a list of paths), or None when there is none that may be trusted."""
    data = read_trusted(path, _MAX_BYTES)
    if data is None:
        return None
    try:
        files = json.loads(data)
    except ValueError:
        return None
    if not isinstance(files, list) or not all(isinstance(f, str) and os.path.isabs(f) for f in files):
        return None
    return files


def _write(path: str, files: list[str]) -> None:
    """Keep an answer (atomically; silently not where the directory cannot be made or written)."""
    keep(path, json.dumps(files).encode(), ".probe-")


def kept_probe(key: str | None, probe: Callable[[], list[str] | None]) -> list[str] | None:
    """The files ``probe`` answers (None: it failed), kept under ``key`` (:func:`probe_key`) between
    processes; a failed probe is not kept. Never raises for the cache's sake: without a key or a usable
    cache directory it is ``probe()``."""
    folder = cache_dir()
    if key is None or folder is None:
        return probe()
    path = os.path.join(folder, f"probe-{key[:32]}.json")
    files = _read(path)
    if files is not None:
        return files
    files = probe()
    if files is not None:
        _write(path, files)
    return files
