"""Compiled seccomp programs kept between runs, so that a process does not compile them (or load libseccomp) again.

The bots' syscall allow-list (:mod:`harness.host.syscall_filter`) and the
sysinfo filter (:mod:`harness.host.sysinfo_supervisor`) are compiled by
libseccomp through pyseccomp: loading pyseccomp runs
``ctypes.util.find_library`` (an ``ldconfig -p``; hundreds of milliseconds
on a loaded machine) and compiling the allow-list tens of milliseconds of
CPU. Every ``harness match``, ``check-bot`` and tournament worker paid both
before its first bot started. A program depends only on its rules (the
source of the module that builds it), the machine and the libseccomp and
pyseccomp that compile it, so it is kept under a key of all four in the
user's cache directory (``$XDG_CACHE_HOME/harness``, else
``~/.cache/harness``) and compiled again whenever one changes.

A kept program is trusted as much as the harness's own code, under the rule of
:mod:`harness.host.usercache` (a regular file of this user that nobody else may
write, in such a directory); anything else is compiled afresh. Where nothing can
be written, programs are compiled per process, as before.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import json
import os
import platform
import sysconfig
import tempfile
from collections.abc import Callable
from typing import Any

from harness.host.usercache import cache_dir, keep, read_trusted

__all__ = ["bpf_of", "cache_dir", "kept"]

#: libseccomp's shared object by its soname, as the dynamic linker loads it (its file, size and time are
#: part of the key): Debian and Ubuntu's multiarch directories, then the others of common distributions.
_LIBSECCOMP = "libseccomp.so.2"
_LIB_DIRS = ("/usr/lib/{multiarch}", "/lib/{multiarch}", "/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/lib")
#: The largest program accepted from a file (bytes): the kernel's BPF_MAXINSNS instructions.
_MAX_BYTES = 4096 * 8


def _compilers() -> list[str] | None:
    """What compiles a program here: libseccomp's and pyseccomp's files (path, size, time); None if unknown."""
    found = []
    multiarch = sysconfig.get_config_var("MULTIARCH") or f"{platform.machine()}-linux-gnu"
    for folder in dict.fromkeys(d.format(multiarch=multiarch) for d in _LIB_DIRS):
        with contextlib.suppress(OSError):
            path = os.path.realpath(os.path.join(folder, _LIBSECCOMP))
            st = os.stat(path)
            found.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    spec = importlib.util.find_spec("pyseccomp")
    if not found or spec is None or not spec.origin:
        return None
    st = os.stat(spec.origin)
    return [*dict.fromkeys(found), f"{spec.origin}:{st.st_size}:{st.st_mtime_ns}"]


def _read(path: str) -> dict[str, Any] | None:
    """A kept entry, or None when there is none that may be trusted (see the module docstring)."""
    data = read_trusted(path, 4 * _MAX_BYTES)
    if data is None:
        return None
    try:
        entry: dict[str, Any] = json.loads(data)
        code = base64.b64decode(entry["program"], validate=True)
    except (ValueError, KeyError, TypeError):
        return None
    if not code or len(code) % 8 or len(code) > _MAX_BYTES:
        return None
    entry["program"] = code
    return entry


def _write(path: str, entry: dict[str, Any]) -> None:
    """Keep an entry (atomically; silently not where the directory cannot be made or written)."""
    keep(path, json.dumps({**entry, "program": base64.b64encode(entry["program"]).decode()}).encode(), ".bpf-")


def kept(name: str, source_file: str, build: Callable[[], dict[str, Any] | None]) -> dict[str, Any] | None:
    """The entry ``build`` makes (``{"program": bytes, ...}`` with JSON-ready other values, or None when it
    cannot), kept between runs under ``name`` and a key of ``source_file``'s content (the module holding the
    rules), the machine and the compilers (:func:`_compilers`); None entries are not kept.

    Never raises for the cache's sake: without a usable cache it is ``build()``.
    """
    try:
        with open(source_file, "rb") as fh:
            source = fh.read()
        compilers = _compilers()
    except OSError:
        compilers = None
    folder = cache_dir()
    if compilers is None or folder is None:
        return build()
    key = hashlib.sha256(json.dumps([name, platform.machine(), compilers]).encode() + b"\0" + source).hexdigest()
    path = os.path.join(folder, f"{name}-{key[:32]}.json")
    entry = _read(path)
    if entry is not None:
        return entry
    entry = build()
    if entry is not None:
        _write(path, entry)
    return entry


def bpf_of(flt: Any) -> bytes:
    """The BPF program of a pyseccomp ``SyscallFilter`` as bytes (8 per instruction; the caller checks that).

    Raises:
        OSError, RuntimeError, AttributeError, ValueError: libseccomp could not export it.
    """
    with tempfile.TemporaryFile() as fh:
        flt.export_bpf(fh)
        fh.seek(0)
        return fh.read()
