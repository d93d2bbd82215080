"""A private view: each bot's sandbox shows its own copies of the files it needs, on a tmpfs of its own.

The channel it closes: every sandbox that binds the host's ``/usr``, venv and
SDK reads the same files, so the kernel keeps one page cache, one
directory-entry cache and one access time for them. A bot that reads a cold
page of a shared file (or looks up a name that does not exist, leaving a
negative directory entry) changes what another bot measures when it times the
same read or lookup: two colluders at one table passed 3.4 bits a hand through
pages and 3.7 through names with every page made resident beforehand
(:mod:`harness.host.residency`), since a kernel that pages out cold memory
takes the pages out again (docs/security.md).

With a private view (``[sandbox] view = "private"``, the default) :class:`PrivateView`
copies, before the bot starts, the files it can name into a directory of its
own on a tmpfs (``/dev/shm``) and the sandbox binds those copies read-only in
place of the host's: the ELF closure of its programs (:func:`elf_closure`: the
interpreter, the loader and every library they load), the harness's Python
(its standard library, less the test suite and GUI packages; of its venv the
packages the SDK imports, :func:`python_packages`), the SDK, a runtime's own
install tree (a JDK), ``/bin/sh``, the C locale and the time zone, and the
bot's own directory (up to :data:`OWN_MAX_BYTES`). No two sandboxes share an
inode of what they can read: a page one bot brings in, a name it looks up or
a file it reads is in its own tmpfs, which nobody else sees (a tmpfs keeps its
pages in memory, and drops a negative entry as soon as the lookup ends). The
view is removed when the bot ends (:meth:`PrivateView.remove`), and one a killed
referee left by the next view made (:func:`sweep`).

What is still shared: ``[sandbox] paths`` (the organiser's choice) and a bot's
own directory over :data:`OWN_MAX_BYTES` (seen only by that bot's copies in
other matches), bound as before; builds (:mod:`harness.host.build`), which need
the compilers of ``/usr``. A bot's directory is copied less what
:func:`left_out` leaves out (``.git``, virtual environments, Cargo's
``target``, folders tagged ``CACHEDIR.TAG``), and of the venv only the
packages its entry point's imports reach (:func:`imported_names`), found by a
probe whose answer is kept between processes (:mod:`harness.host.probecache`);
the organiser's ELF files are copied without their debugging sections where
binutils can strip them (:mod:`harness.host.elfstrip`). Cost (measured on the
project's machine, docs/security.md): the memory of the copies (63-69 MiB for a
Python bot, from its own folder or the repository's root; 17 MiB for a C bot),
charged to the referee's control group, and the time to copy them before each
bot starts (0.1-0.2 s of CPU; 0.3-3.8 s on a busy 2-core machine). What a bot loses: files of
``/usr`` that neither its programs' ELF headers nor its command and wrapper
script name (a library it opens with ``dlopen`` by a name of its own making);
``[sandbox] paths`` or ``view = "shared"`` bring them back.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import glob
import json
import os
import re
import secrets
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from harness.host import elfstrip, probecache

__all__ = [
    "OWN_MAX_BYTES",
    "USR_LINKS",
    "PrivateView",
    "ViewReport",
    "elf_closure",
    "left_out",
    "python_packages",
    "sweep",
    "view_parent",
]

#: Top-level links or directories of a merged-/usr system (:mod:`harness.host.sandbox` makes the links).
USR_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Name prefix of a view's directory: ``harness-view-<referee pid>-<random>``.
VIEW_PREFIX = "harness-view-"
#: Where views go: a tmpfs (pages kept in memory, charged to the referee), else the temporary directory.
PARENTS = ("/dev/shm",)
#: A bot's own directory is copied up to this many bytes (and :data:`OWN_MAX_FILES` files); a larger one
#: (model files) is bound as before, which only its own copies in other matches see.
OWN_MAX_BYTES = 128 << 20
OWN_MAX_FILES = 10_000
#: Parts of a Python standard library a bot does not need (its test suite alone is 123 MiB; ``distutils``
#: builds packages, ``pydoc_data`` is ``help()``'s text).
STDLIB_SKIPPED = ("test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "distutils", "pydoc_data",
                  "site-packages", "dist-packages", "config-*")
#: Parts of a runtime's tree a program does not run with (a JDK's jmods are 75 MiB of its 260).
RUNTIME_SKIPPED = ("jmods", "src.zip", "lib/src.zip", "include", "man", "demo", "sample", "legal")
#: Extension modules of a standard library left out, with the libraries they load: a GUI (Tk, X11, fonts),
#: a terminal's (curses, readline), NIS and the test modules (7 MiB with their libraries).
DYNLOAD_SKIPPED = ("_tkinter.*", "_test*", "_ctypes_test.*", "_xxtestfuzz.*", "xxlimited*", "nis.*", "_curses*",
                   "readline.*")
#: Files every bot gets besides its programs' closure: shells and the basic commands wrapper scripts run
#: (coreutils, sed, grep, awk, find), ``env`` for ``#!`` lines, the C locale (the time zone ``/etc/localtime`` points
#: to is added too). About 4 MiB.
FIXED_FILES = (
    "/bin/sh", "/bin/bash", "/usr/bin/env", "/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8",
    *(f"/usr/bin/{name}" for name in (
        "true", "false", "cat", "echo", "ls", "sleep", "head", "tail", "dirname", "basename", "readlink",
        "realpath", "uname", "id", "mkdir", "rm", "cp", "mv", "ln", "printf", "test", "[", "expr", "tr", "wc",
        "cut", "sort", "uniq", "date", "touch", "chmod", "nproc", "timeout", "tee", "seq", "sed", "grep", "whoami",
        "pwd", "stat", "du", "which", "xargs", "find", "awk", "getent", "hostname")),
)
#: The locales a program of the organiser's ``LANG`` loads, copied where it is at most
#: :data:`LOCALE_ARCHIVE_MAX` bytes (a few locales generated; without it a shell warns and uses C).
LOCALE_ARCHIVE = "/usr/lib/locale/locale-archive"
LOCALE_ARCHIVE_MAX = 16 << 20
#: Modules of the harness's SDK that every Python bot may import (what the default bots and the starters
#: import, and what the SDK imports late: pyzmq where installed, traceback); :func:`python_packages` imports
#: them to see what they load. Others (``harness.rl``, NumPy) are added where a bot's own files import them
#: (:func:`imported_names`).
SDK_MODULES = ("protocol", "bots", "harness.engine", "zmq", "traceback")
#: At most this many of a bot's Python files, and bytes of them, are read for their imports.
SCAN_FILES, SCAN_BYTES = 512, 8 << 20
_IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import|import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*))",
                     re.MULTILINE)
#: Library directories the loader searches after a binary's own (x86-64 and arm64 Debian, then the rest).
DEFAULT_LIB_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                    "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
_LINK_DEPTH = 16


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def view_parent() -> str:
    """Where views are made: the first writable tmpfs of :data:`PARENTS`, else the temporary directory."""
    for parent in PARENTS:
        if os.path.isdir(parent) and os.access(parent, os.W_OK | os.X_OK):
            return parent

    return tempfile.gettempdir()


def sweep(parent: str | None = None) -> list[str]:
    """Remove views whose referee is gone (killed with SIGKILL before it could remove them); returns them."""
    parent = parent or view_parent()
    removed = []
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        for e in entries:
            if not e.name.startswith(VIEW_PREFIX):
                continue
            pid = e.name[len(VIEW_PREFIX):].split("-", 1)[0]
            if not pid.isdigit() or e.stat(follow_symlinks=False).st_uid != os.geteuid():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                shutil.rmtree(e.path, ignore_errors=True)
                removed.append(e.path)
            except OSError:
                continue
    return removed


# ---------------------------------------------------------------------- ELF


@dataclass(frozen=True, slots=True)
class _Elf:
    interp: str
    needed: tuple[str, ...]
    paths: tuple[str, ...]  # DT_RUNPATH, else DT_RPATH, ':'-separated entries


def _read_elf(path: str) -> _Elf | None:
    """The loader, needed libraries and search paths of a 64-bit little-endian ELF file, or None."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            fh.seek(phoff)
            table = fh.read(phentsize * phnum)
            loads, interp, dynamic = [], "", None
            for i in range(phnum):
                p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from("<IIQQQQQQ", table, i * phentsize)
                if p_type == 1:
                    loads.append((p_vaddr, p_offset, p_filesz))
                elif p_type == 3:
                    fh.seek(p_offset)
                    interp = fh.read(p_filesz).split(b"\0", 1)[0].decode(errors="replace")
                elif p_type == 2:
                    dynamic = (p_offset, p_filesz)
            if dynamic is None:
                return _Elf(interp, (), ())
            fh.seek(dynamic[0])
            raw = fh.read(dynamic[1])
            entries = [struct.unpack_from("<qQ", raw, k) for k in range(0, len(raw) - 15, 16)]
            strtab = next((v for t, v in entries if t == 5), None)
            if strtab is None:
                return _Elf(interp, (), ())
            base = next((off + strtab - va for va, off, size in loads if va <= strtab < va + size), None)
            if base is None:
                return _Elf(interp, (), ())

            def string(at: int) -> str:
                fh.seek(base + at)
                return fh.read(4096).split(b"\0", 1)[0].decode(errors="replace")

            needed = tuple(string(v) for t, v in entries if t == 1)
            runpath = [string(v) for t, v in entries if t == 29] or [string(v) for t, v in entries if t == 15]
            return _Elf(interp, needed, tuple(p for r in runpath for p in r.split(":") if p))
    except (OSError, struct.error, ValueError):
        return None


@lru_cache(maxsize=1)
def _conf_dirs() -> tuple[str, ...]:
    """Library directories of ``/etc/ld.so.conf`` and the files it includes."""
    found: list[str] = []

    def read(path: str, depth: int) -> None:
        with contextlib.suppress(OSError), open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                line = line.split("#", 1)[0].strip()
                if line.startswith("include ") and depth < 4:
                    for inc in sorted(glob.glob(os.path.join("/etc", line[8:].strip()))):
                        read(inc, depth + 1)
                elif line.startswith("/"):
                    found.append(line)

    read("/etc/ld.so.conf", 0)
    return tuple(found)


@lru_cache(maxsize=4096)
def _closure_of(path: str, stamp: int) -> tuple[str, ...]:
    del stamp  # the cache key only
    out: list[str] = []
    todo, seen = [path], {path}
    while todo:
        current = todo.pop()
        elf = _read_elf(current)
        if elf is None:
            continue
        origin = os.path.dirname(os.path.realpath(current))
        dirs = [p.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for p in elf.paths]
        dirs += [*_conf_dirs(), *DEFAULT_LIB_DIRS]
        found = [elf.interp] if elf.interp else []
        for name in elf.needed:
            if "/" in name:
                found.append(name)
                continue
            hit = next((os.path.join(d, name) for d in dirs if os.path.exists(os.path.join(d, name))), None)
            if hit is not None:
                found.append(hit)
        for lib in found:
            if lib not in seen and os.path.exists(lib):
                seen.add(lib)
                out.append(lib)
                todo.append(os.path.realpath(lib))
    return tuple(out)


def elf_closure(path: str) -> tuple[str, ...]:
    """The files the loader opens to run ``path`` (an ELF program or library): its loader (``PT_INTERP``)
    and every library it needs, recursively, looked up as ld.so does (``DT_RUNPATH``/``DT_RPATH`` with
    ``$ORIGIN``, ``/etc/ld.so.conf``, the default directories). Read from the files' headers: nothing is run.
    Not an ELF file, or unreadable: ()."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return ()
    return _closure_of(path, stamp)


# ---------------------------------------------------------------------- Python


_PROBE = r"""
import importlib, json, os, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
        if name in ("bots", "harness.rl"):  # every module of the package (harness.rl imports them late)
            import pkgutil
            for info in pkgutil.iter_modules(sys.modules[name].__path__):
                try:
                    importlib.import_module(name + "." + info.name)
                except Exception:
                    pass
    except Exception:
        pass
files = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
print(json.dumps(sorted({os.path.realpath(f) for f in files if f})))
"""


#: Folders of a bot's directory left out of its copy and of the scan of its imports: version control,
#: and (:func:`left_out`) virtual environments and caches (``CACHEDIR.TAG``: Cargo's ``target``, pytest's,
#: mypy's and ruff's caches). From the repository's root they were 10,000 of 11,000 files.
LEFT_OUT_NAMES = (".git", ".hg", ".svn")
#: The first bytes of a cache directory's tag (the Cache Directory Tagging Specification).
CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"


def left_out(folder: str, name: str) -> bool:
    """The entry ``name`` of ``folder`` (in a bot's own directory) is not copied: :data:`LEFT_OUT_NAMES`,
    a virtual environment (a ``pyvenv.cfg`` in it; the harness's own venv is copied as the packages the
    bot imports, another one a bot runs is copied as its program's), a folder tagged ``CACHEDIR.TAG``, or
    Cargo's ``target`` beside a ``Cargo.toml``."""
    if name in LEFT_OUT_NAMES:
        return True
    path = os.path.join(folder, name)
    if os.path.islink(path) or not os.path.isdir(path):
        return False
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        return True
    if name == "target" and os.path.isfile(os.path.join(folder, "Cargo.toml")):
        return True
    with contextlib.suppress(OSError), open(os.path.join(path, "CACHEDIR.TAG"), "rb") as fh:
        return fh.read(len(CACHEDIR_SIGNATURE)) == CACHEDIR_SIGNATURE
    return False


def _entry_files(folder: str, argv: Sequence[str]) -> list[str] | None:
    """The Python files a command starts from inside ``folder``: ``-m NAME``'s module (and its packages'
    ``__init__.py``) and any ``*.py`` word; None when it names none there (a wrapper script, a native
    program)."""
    found: list[str] = []
    for i, word in enumerate(argv):
        if i and argv[i - 1] == "-m":
            found += _module_files(folder, word)
        elif word.endswith(".py"):
            path = os.path.normpath(os.path.join(folder, word))
            if _inside(path, folder) and os.path.isfile(path):
                found.append(path)
    return found or None


def _module_files(folder: str, name: str) -> list[str]:
    """The files of ``folder`` that importing the absolute module ``name`` runs: each package's
    ``__init__.py`` on the way and the module itself (a file, or a package's ``__init__.py``)."""
    parts = [p for p in name.split(".") if p.isidentifier()]
    out: list[str] = []
    base = folder
    for i, part in enumerate(parts):
        package = os.path.join(base, part, "__init__.py")
        module = os.path.join(base, part + ".py")
        if os.path.isfile(package):
            out.append(package)
            base = os.path.join(base, part)
        elif os.path.isfile(module) and i == len(parts) - 1:
            out.append(module)
            break
        else:
            break
    return out


_RELATIVE = re.compile(r"^\s*from\s+(\.+)([\w.]*)\s+import\s+\(?\s*([\w\s,]+)", re.MULTILINE)


def imported_names(folder: str, argv: Sequence[str] = ()) -> set[str]:
    """Module names a bot's own Python files import (``import x.y``, ``from x.y import``) and the one its
    command runs (``-m NAME``). Where the command names its entry (``-m NAME``, a ``*.py`` file in
    ``folder``): every file of the entry's top folder in ``folder`` (the whole of ``folder`` for a script
    at its top) and what they import, statement by statement (absolute and relative imports resolved in
    ``folder``), so that a bot run from a larger directory (``python -m bots.solid`` from the repository's
    root) is not given every package the rest of it imports; otherwise every file under ``folder``. At most
    :data:`SCAN_FILES` files and :data:`SCAN_BYTES` bytes, less what :func:`left_out` leaves out. Read as
    text: nothing of the bot is run."""
    names: set[str] = set()
    for i, word in enumerate(argv[:-1]):
        if word == "-m":
            names.add(argv[i + 1])
    entries = _entry_files(folder, argv)
    # Every file under the entry's own folder (its package's, for -m; the whole folder for a script at
    # its top, as a plugin imported by a string name lives beside it), then what they import, followed.
    tops = {folder} if entries is None else {
        os.path.join(folder, os.path.relpath(e, folder).split(os.sep, 1)[0]) if os.path.dirname(e) != folder
        else folder for e in entries}
    todo = list(entries or [])
    for top in sorted(tops):
        for base, dirs, found in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not left_out(base, d))
            todo += [os.path.join(base, n) for n in sorted(found) if n.endswith(".py")]
    follow = entries is not None
    script_dirs = sorted({os.path.dirname(e) for e in entries or [] if e.endswith(".py")} - {folder})
    seen: set[str] = set()
    files, left = 0, SCAN_BYTES
    while todo and files < SCAN_FILES and left > 0:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        files += 1
        try:
            with open(path, "rb") as fh:
                text = fh.read(min(left, 1 << 20)).decode(errors="replace")
        except OSError:
            continue
        left -= len(text)
        found_here: list[str] = []
        for m in _IMPORT.finditer(text):
            if m.group(1):
                found_here.append(m.group(1))
                rest = text[m.end():].split("\n", 1)[0].replace("(", " ").split(",")
                found_here += [f"{m.group(1)}.{w[0]}" for w in (n.split() for n in rest) if w and w[0].isidentifier()]
            else:
                found_here += [n.strip() for n in m.group(2).split(",")]
        names.update(n for n in found_here if n.split(".", 1)[0].isidentifier())
        if not follow:
            continue
        package = os.path.dirname(path)
        for m in _RELATIVE.finditer(text):
            base = package
            for _ in range(len(m.group(1)) - 1):
                base = os.path.dirname(base)
            if not _inside(base, folder):
                continue
            stem = m.group(2).strip(".")
            subs = [stem] if stem else []
            subs += [f"{stem}.{n.strip()}" if stem else n.strip() for n in m.group(3).split(",") if n.strip()]
            for sub in subs:
                todo += _module_files(base, sub.split(" ")[0])
        for name in found_here:
            for root in (folder, *script_dirs):  # python app/bot.py: app/ is first on its path
                todo += _module_files(root, name)
    return names


def wanted_modules(names: Iterable[str], site: str) -> tuple[str, ...]:
    """:data:`SDK_MODULES` and those of ``names`` that the organiser installed: a top-level entry of the
    site-packages directory ``site`` (so the probe never imports a bot's own module), or ``harness.rl``."""
    out = set(SDK_MODULES)
    try:
        tops = set(os.listdir(site))
    except OSError:
        tops = set()
    stems = {t.split(".", 1)[0].split("-", 1)[0] for t in tops}
    for name in names:
        top = name.split(".", 1)[0]
        if name == "harness.rl" or name.startswith("harness.rl."):
            out.add("harness.rl")
        elif top != "harness" and top in stems and not top.startswith("_"):
            out.add(top)
    return tuple(sorted(out))


_PROBED: dict[str, list[str] | None] = {}


def _run_probe(executable: str, modules: tuple[str, ...]) -> list[str] | None:
    """The files the probe process loads, or None when it fails (does not start, exits non-zero, times
    out or prints no list)."""
    try:
        done = subprocess.run([executable, "-c", _PROBE, *modules], capture_output=True, text=True,
                              timeout=120, check=False, cwd="/")
        files = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return files if isinstance(files, list) and all(isinstance(f, str) for f in files) else None


def python_packages(executable: str, site: str, modules: tuple[str, ...] = SDK_MODULES,
                    sdk: tuple[str, ...] = ()) -> tuple[str, ...] | None:
    """The entries of the site-packages directory ``site`` that ``modules`` (default :data:`SDK_MODULES`;
    those that import) load when ``executable`` imports them, with the libraries beside them
    (``numpy.libs``) and the ``.pth`` files: what a bot of the harness's Python is shown of its venv. One
    trusted probe process per set of modules (they are the organiser's: :func:`wanted_modules`), its
    answer kept between processes under a key of the interpreter, its standard library, ``site`` and the
    SDK's trees ``sdk`` (:mod:`harness.host.probecache`). None when the probe fails: the caller copies the
    whole site-packages (a bot that cannot import its packages would fail for the harness's sake)."""
    key = probecache.probe_key(executable, _stdlib(os.path.realpath(sys.base_prefix)), site, sdk, modules)
    if key is not None and key in _PROBED:
        files = _PROBED[key]
    else:
        files = probecache.kept_probe(key, lambda: _run_probe(executable, modules))
        if key is not None and files is not None:
            _PROBED[key] = files
    if files is None:
        return None
    real = os.path.realpath(site)
    tops = set()
    with contextlib.suppress(OSError):  # the .pth files (an editable install's path) and what they import
        for name in os.listdir(real):
            if name.endswith(".pth"):
                tops.add(name)
                with open(os.path.join(real, name), encoding="utf-8", errors="replace") as fh:
                    tops.update(line.split()[1].split(";")[0].split(".")[0] for line in fh
                                if line.startswith("import ") and len(line.split()) > 1)
    for f in files:
        if _inside(f, real) and f != real:
            top = f[len(real) + 1:].split("/", 1)[0]
            tops.add(top)
            stem = top.split(".", 1)[0]
            for extra in (f"{stem}.libs", f"{stem}_libs"):
                if os.path.isdir(os.path.join(real, extra)):
                    tops.add(extra)
    return tuple(sorted(os.path.join(real, t) for t in tops if os.path.lexists(os.path.join(real, t))))


def _venv_home(venv: str) -> str | None:
    """The prefix of the Python a venv was made from (``home`` in its ``pyvenv.cfg``, less ``bin``)."""
    with contextlib.suppress(OSError), open(os.path.join(venv, "pyvenv.cfg"), encoding="utf-8") as fh:
        for line in fh:
            key, _, value = line.partition("=")
            if key.strip() == "home":
                home = os.path.realpath(value.strip())
                return os.path.dirname(home) if os.path.basename(home) == "bin" else home
    return None


def _stdlib(prefix: str) -> list[str]:
    """A Python prefix's standard library directories (``lib/pythonX.Y``)."""
    return sorted(p for p in glob.glob(os.path.join(prefix, "lib", "python3*")) if os.path.isdir(p))


# ---------------------------------------------------------------------- the view


def _open_dir(path: str) -> bool:
    """A directory others may list and enter (a bot running as a uid of its own could in the shared view)."""
    try:
        return os.stat(path, follow_symlinks=False).st_mode & 0o005 == 0o005
    except OSError:
        return False


def _copy(src: str, dest: str, mode: int, size: int, mtime_ns: int | None = None) -> None:
    """Copy a regular file's bytes into a new file of ``mode`` (in the kernel: sendfile, no chmod after),
    with the modification time ``mtime_ns`` (ns) where given: Python checks a ``.pyc`` against its source's
    time, so a copy of a newer time would have every bot compile each module it imports again.

    Raises:
        OSError: it cannot be read, or ``dest`` cannot be made.
    """
    fin = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fout = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        try:
            done = 0
            while done < size:
                sent = os.sendfile(fout, fin, done, size - done)
                if sent == 0:  # the file shrank meanwhile
                    break
                done += sent
            if mtime_ns is not None:
                os.utime(fout, ns=(mtime_ns, mtime_ns))
        finally:
            os.close(fout)
    finally:
        os.close(fin)


@dataclass
class ViewReport:
    """What one view holds: files and bytes copied, and what was bound instead (shared)."""

    files: int = 0
    bytes: int = 0
    shared: tuple[str, ...] = ()

    def summary(self) -> str:
        line = f"private view: {self.files} files, {self.bytes / (1 << 20):.1f} MiB copied"
        if self.shared:
            line += "; bound shared: " + ", ".join(self.shared)
        return line


class PrivateView:
    """One bot's private copies of the files it may read, under :attr:`root` (the host's layout below it).

    The ``add`` methods raise :class:`OSError` (``ENOSPC``, ``ENOMEM``) only when the view's file system is
    full; a file that cannot be read is left out (the bot could not read it either).

    Args:
        others_only: the bot runs as a uid of its own (root): files not readable by others are not copied
            (it could not read them in the shared view either).
        hidden: host paths never copied (the match's output, the other bots' directories).
        own: the bot's own directories: copied byte for byte; the organiser's ELF files elsewhere are copied
            without their debugging sections where a tool can strip them (:mod:`harness.host.elfstrip`).

    Raises:
        OSError: the view's directory cannot be made.
    """

    def __init__(self, *, others_only: bool, hidden: Sequence[str] = (), parent: str | None = None,
                 own: Sequence[str] = ()) -> None:
        parent = parent or view_parent()
        sweep(parent)
        self.root = os.path.join(parent, f"{VIEW_PREFIX}{os.getpid()}-{secrets.token_hex(6)}")
        os.mkdir(self.root, 0o700)
        self.others_only = others_only
        self.hidden = [os.path.realpath(h) for h in hidden]
        self.own = [os.path.realpath(o) for o in own]
        #: Host paths copied whole or as the top of what was copied below them: bound at their place.
        self.anchors: list[str] = []
        self.report = ViewReport()
        self._done: set[str] = set()
        self._made: set[str] = set()

    def remove(self) -> None:
        """Remove the copies (idempotent; after the bot's processes are gone)."""
        shutil.rmtree(self.root, ignore_errors=True)

    def copy_of(self, path: str) -> str:
        """Where the copy of host ``path`` lies."""
        return self.root + path

    # -- adding

    def _hidden(self, path: str, top: str | None = None) -> bool:
        """``path`` lies in a hidden path inside the tree ``top`` being copied (as the shared view masks
        them only inside what it shows: a view inside a hidden directory is shown, as the SDK inside another
        bot's directory)."""
        return top is not None and any(_inside(path, h) and h != top and _inside(h, top) for h in self.hidden)

    def _anchor(self, path: str) -> None:
        if any(_inside(path, a) for a in self.anchors):
            return
        self.anchors = [a for a in self.anchors if not _inside(a, path)] + [path]

    def _mkdirs(self, folder: str) -> None:
        if folder not in self._made:
            os.makedirs(self.copy_of(folder), mode=0o755, exist_ok=True)
            self._made.add(folder)

    def _copy_file(self, path: str, st: os.stat_result) -> None:
        if path in self._done:
            return
        self._done.add(path)
        if self.others_only and not st.st_mode & stat.S_IROTH:
            return
        self._mkdirs(os.path.dirname(path))
        dest = self.copy_of(path)
        source, size = path, st.st_size
        if not any(_inside(path, o) for o in self.own):  # the organiser's files: debugging sections left out
            kept = elfstrip.stripped(path, st)
            with contextlib.suppress(OSError):
                if kept is not None:
                    source, size = kept, os.path.getsize(kept)
        try:
            _copy(source, dest, 0o444 | (st.st_mode & 0o111), size, st.st_mtime_ns)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(dest)
            if exc.errno in (errno.ENOSPC, errno.ENOMEM, errno.EDQUOT):  # the view's file system is full
                raise
            return  # a file the bot could not read either
        self.report.files += 1
        self.report.bytes += size

    def _copy_link(self, path: str, target: str) -> None:
        if path in self._done:
            return
        self._done.add(path)
        self._mkdirs(os.path.dirname(path))
        with contextlib.suppress(FileExistsError):
            os.symlink(target, self.copy_of(path))

    def add(self, path: str, depth: int = 0) -> None:
        """Copy the file or tree ``path`` (absolute) with each link on the way to it, as the loader would
        follow them: a link is made again and its target added too. Never raises: what cannot be read is
        left out (the bot could not read it either)."""
        path = os.path.normpath(path)
        if depth > _LINK_DEPTH or not os.path.isabs(path):
            return
        parts = path.strip("/").split("/")
        current = ""
        for i, name in enumerate(parts):
            nxt = f"{current}/{name}"
            try:
                st = os.lstat(nxt)
            except OSError:
                return
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(nxt)
                except OSError:
                    return
                if not (i == 0 and name in USR_LINKS):  # /lib, /bin ...: bwrap makes them (sandbox._usr_args)
                    self._copy_link(nxt, target)
                    if not _inside(nxt, "/usr"):
                        self._anchor(nxt)
                rest = "/".join(parts[i + 1:])
                resolved = os.path.normpath(os.path.join(os.path.dirname(nxt), target))
                self.add(os.path.join(resolved, rest) if rest else resolved, depth + 1)
                return
            current = nxt
        try:
            st = os.lstat(current)
        except OSError:
            return
        if not _inside(current, "/usr"):
            self._anchor(current)
        if stat.S_ISDIR(st.st_mode):
            self.add_tree(current)
        elif stat.S_ISREG(st.st_mode):
            self._copy_file(current, st)

    def add_tree(self, top: str, skip: Sequence[str] = (), keep: Iterable[str] | None = None,
                 max_bytes: int | None = None, max_files: int | None = None, prune: bool = False) -> bool:
        """Copy the tree ``top`` (a real directory): its files and links (links made again, not followed),
        less the names matching ``skip`` (glob patterns) at its top and, when ``keep`` is given, only those
        entries at its top; with ``prune`` (a bot's own directory), less what :func:`left_out` leaves out at
        any depth. With ``max_bytes``/``max_files``: nothing is copied and False is returned when the
        tree is larger (walked first, as pruned)."""
        top = os.path.normpath(top)
        keep_set = None if keep is None else {os.path.basename(k) for k in keep}

        def wanted(name: str) -> bool:
            if keep_set is not None and name not in keep_set:
                return False
            return not any(fnmatch.fnmatch(name, s) for s in skip)

        if max_bytes is not None or max_files is not None:
            total, count = 0, 0
            for folder, dirs, names in os.walk(top):
                if folder == top:
                    dirs[:] = [d for d in dirs if wanted(d)]
                    names = [n for n in names if wanted(n)]
                if prune:
                    dirs[:] = [d for d in dirs if not left_out(folder, d)]
                    names = [n for n in names if n not in LEFT_OUT_NAMES]
                count += len(names)
                for name in names:
                    with contextlib.suppress(OSError):
                        total += os.lstat(os.path.join(folder, name)).st_size
                if (max_bytes is not None and total > max_bytes) or (max_files is not None and count > max_files):
                    return False
        self._mkdirs(top)
        for folder, dirs, names in os.walk(top):
            if folder == top:
                dirs[:] = [d for d in dirs if wanted(d)]
                names = [n for n in names if wanted(n)]
            if prune:
                dirs[:] = [d for d in dirs if not left_out(folder, d)]
                names = [n for n in names if n not in LEFT_OUT_NAMES]
            for d in [d for d in dirs if self._hidden(os.path.join(folder, d), top)]:
                dirs.remove(d)  # an empty directory in its place, as the shared view masks it
                self._mkdirs(os.path.join(folder, d))
            for d in list(dirs):
                path = os.path.join(folder, d)
                if os.path.islink(path):  # os.walk lists a link to a directory here: made again, not followed
                    dirs.remove(d)
                    with contextlib.suppress(OSError):
                        self._copy_link(path, os.readlink(path))
                elif self.others_only and not _open_dir(path):  # closed to the bot's uid: left out, as it was
                    dirs.remove(d)
                else:
                    self._mkdirs(path)
            for name in names:
                if name.endswith((".opt-1.pyc", ".opt-2.pyc")):  # bytecode for python -O, -OO only
                    continue
                path = os.path.join(folder, name)
                if self._hidden(path, top):  # an empty file in its place
                    with contextlib.suppress(OSError):
                        os.close(os.open(self.copy_of(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444))
                    continue
                try:
                    st = os.lstat(path)
                    if stat.S_ISLNK(st.st_mode):
                        self._copy_link(path, os.readlink(path))
                    elif stat.S_ISREG(st.st_mode):
                        self._copy_file(path, st)
                except OSError:
                    continue
        return True

    def add_program(self, path: str) -> None:
        """A program or library with its ELF closure (:func:`elf_closure`)."""
        self.add(path)
        for lib in elf_closure(os.path.realpath(path)):
            self.add(lib)

    def add_libraries_of(self, folder: str, max_files: int) -> None:
        """The libraries the ELF programs and libraries of ``folder`` (a bot's own: executable files and
        ``*.so*``, the first ``max_files``, less what :func:`left_out` leaves out) load, not those files
        themselves (:func:`elf_closure`)."""
        seen = 0
        for base, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not left_out(base, d))
            for name in sorted(names):
                seen += 1
                if seen > max_files:
                    return
                path = os.path.join(base, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and (st.st_mode & 0o111 or ".so" in name):
                    for lib in elf_closure(path):
                        if not _inside(lib, folder):
                            self.add(lib)

    def add_python_prefix(self, prefix: str) -> None:
        """A Python installation (``sys.base_prefix``): its ``bin`` programs of Python, its ``lib`` shared
        libraries and its standard library less :data:`STDLIB_SKIPPED`, with the programs' ELF closure."""
        for program in sorted(glob.glob(os.path.join(prefix, "bin", "python3*"))):
            self.add_program(program)
        for std in _stdlib(prefix):
            self.add_tree(std, skip=STDLIB_SKIPPED)
            for ext in sorted(glob.glob(os.path.join(std, "lib-dynload", "*.so"))):
                if any(fnmatch.fnmatch(os.path.basename(ext), skip) for skip in DYNLOAD_SKIPPED):
                    with contextlib.suppress(OSError):
                        size = os.path.getsize(self.copy_of(ext))
                        os.unlink(self.copy_of(ext))
                        self.report.files -= 1
                        self.report.bytes -= size
                    continue
                for lib in elf_closure(ext):
                    self.add(lib)
        self._anchor(prefix)

    def add_venv(self, venv: str, packages: Sequence[str] | None = None) -> None:
        """A venv: its ``pyvenv.cfg``, its ``python`` links, and its site-packages (whole, or only
        ``packages``), with the Python it was made from (:meth:`add_python_prefix`)."""
        self._anchor(venv)
        self.add(os.path.join(venv, "pyvenv.cfg"))
        for link in sorted(glob.glob(os.path.join(venv, "bin", "python*"))):
            self.add(link)
        for std in _stdlib(venv):
            site = os.path.join(std, "site-packages")
            if not os.path.isdir(site):
                continue
            if packages is None:
                self.add_tree(site)
            else:
                self.add_tree(site, keep=[p for p in packages if _inside(p, site)])
            for top in ([site] if packages is None else [p for p in packages if _inside(p, site)]):
                for ext in glob.glob(os.path.join(top, "**", "*.so*"), recursive=True):
                    for lib in elf_closure(ext):
                        self.add(lib)
        home = _venv_home(venv)
        if home is not None:
            self.add_python_prefix(home)

    def add_runtime_tree(self, tree: str) -> None:
        """A runtime's own install tree (a JDK, Node, Go), less what only building needs
        (:data:`RUNTIME_SKIPPED`: a JDK's ``jmods`` and sources, headers, manuals), with the ELF closure of
        its programs and libraries."""
        self._anchor(tree)
        self.add_tree(tree, skip=RUNTIME_SKIPPED)
        for folder, _, names in os.walk(tree):
            for name in names:
                path = os.path.join(folder, name)
                if (os.path.basename(folder) == "bin" or ".so" in name) and not os.path.islink(path):
                    for lib in elf_closure(path):
                        self.add(lib)
