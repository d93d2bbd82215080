"""The syscall filter of a bot's sandbox: no file locks, no file watching, no page-cache probing.

Bubblewrap gives each bot namespaces of its own, but some kernel state is
attached to files, and every bot can open the same read-only files (``/usr``,
``/etc/passwd``, the venv, the SDK, and its own directory, which its copy in
another match sees too). Through that state two bots can talk as fast as they
like: a byte-range lock one sets (``fcntl F_SETLK``) another sees
(``F_GETLK``): the colluder of the attack trial learned its opponent's hole
cards in 30 of 30 hands that way; ``inotify``, ``fanotify`` and ``dnotify``
report another process's opens and reads of a shared file; dropping a shared
file's pages from the page cache (``posix_fadvise DONTNEED``) and testing
whether a page is cached (``preadv2 RWF_NOWAIT``, ``cachestat``, io_uring
reads) is a channel that can be set and cleared at will.

:func:`program` compiles a seccomp BPF program that bwrap loads right before
the bot's first instruction (``bwrap --seccomp FD``); every process of the
bot inherits it and none can remove it. It is built by libseccomp (through
``pyseccomp``, ctypes over the system's ``libseccomp.so.2``), never by hand.
Every other call is allowed: this is a filter of channels, not a general
syscall allow-list (namespaces, the uid and the cgroup do the rest).

What the filtered calls return, and why:

- Taking or releasing a lock (``fcntl`` ``F_SETLK``, ``F_SETLKW``,
  ``F_OFD_SETLK``, ``F_OFD_SETLKW`` and the 32-bit ``*64`` forms; ``flock``):
  0, doing nothing. In a sandbox the only other holders of a lock on a file
  a bot can open are other bots, which no lock may reach; what a bot loses is
  mutual exclusion between its own processes through locks. Programs that
  lock their own files as a matter of course keep working: SQLite locks a
  database on every read, even one in the bot's read-only directory, and
  fails with "database is locked" when the lock call fails (tried, with
  ENOLCK); Java's ``FileChannel.lock`` and package managers are the same.
- Testing a lock (``F_GETLK``, ``F_OFD_GETLK`` and ``F_GETLK64``): ``ENOLCK``
  ("No locks available", what a file system without locking says): a no-op
  cannot fill in the answer, and a made-up one would mislead.
- Leases (``F_SETLEASE``, ``F_GETLEASE``): ``ENOLCK`` (a no-op ``F_GETLEASE``
  would read as a read lease).
- File watching (``inotify_init``, ``inotify_init1``, ``inotify_add_watch``,
  ``fanotify_init``, ``fanotify_mark``, ``fcntl F_NOTIFY``): ``EPERM``, so a
  watcher (Node's ``fs.watch``, Python's watchdog) fails at once with a clear
  error instead of waiting for events that never come.
- ``posix_fadvise`` (``fadvise64``, ``fadvise64_64``): 0, doing nothing: it is
  advice, and ``DONTNEED`` would evict a shared file's pages.
- ``preadv2`` / ``pwritev2`` with ``RWF_NOWAIT``: ``EOPNOTSUPP``, what a file
  system without non-blocking reads says; callers retry without the flag.
- ``cachestat`` (a file's page-cache state, Linux 6.5): ``ENOSYS``, as on an
  older kernel. io_uring (``io_uring_setup``, ``io_uring_enter``,
  ``io_uring_register``, whose reads take ``RWF_NOWAIT`` past any filter):
  ``ENOSYS``; libuv and others fall back to threads, as on kernels without it.

Arguments are compared as the kernel reads them: ``fcntl``'s command is an
``unsigned int``, so only its low 32 bits are compared (a command with high
bits set is ``F_GETLK`` to the kernel).

Architectures: the rules hold for the native ABI and, on x86-64, for the
i386 and x32 ABIs too (a 64-bit process can make 32-bit calls with
``int 0x80``, with other syscall numbers); a call through any other ABI
kills the process.

What this does not close (README "Untrusted bots"): contention for shared
hardware (CPU time under ``[sandbox] cpu = "weight"``, caches, memory
bandwidth), global counters (``/proc/stat``, ``/proc/meminfo``, the load
average) and the time a read takes (a page another bot read is cached);
each carries a few bits per second at best, noisy, and the tournament never
runs two matches with the same cards at once.
"""

from __future__ import annotations

import errno
import os
import platform
import tempfile
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["FilterSupport", "memfd", "program", "support"]

# fcntl(2) commands (linux/fcntl.h, asm-generic/fcntl.h).
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_GETLK64, F_SETLK64, F_SETLKW64 = 12, 13, 14  # the 32-bit ABIs' forms (fcntl64)
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
RWF_NOWAIT = 0x08  # linux/fs.h
#: Lock calls that succeed without doing anything.
_LOCK_SET = (F_SETLK, F_SETLKW, F_SETLK64, F_SETLKW64, F_OFD_SETLK, F_OFD_SETLKW)
#: Lock and lease calls that fail with ENOLCK.
_LOCK_QUERY = (F_GETLK, F_GETLK64, F_OFD_GETLK, F_SETLEASE, F_GETLEASE)
_WATCH = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")
_FADVISE = ("fadvise64", "fadvise64_64", "arm_fadvise64_64")
_IO_URING = ("io_uring_setup", "io_uring_enter", "io_uring_register")
#: preadv2/pwritev2's flags argument (index 5 on every ABI: fd, iov, iovcnt, pos_l, pos_h, flags).
_RW_FLAGS_ARG = 5


@dataclass(frozen=True, slots=True)
class FilterSupport:
    """Whether the filter can be built here.

    Attributes:
        program: the compiled BPF program (bytes, 8 per instruction), or None.
        problem: why not ('' when it can), naming what to install.
        abis: the ABIs the rules cover, e.g. ``("x86_64", "x86", "x32")``.
    """

    program: bytes | None
    problem: str
    abis: tuple[str, ...] = ()


def _compat_arches(sc: object) -> list[tuple[str, int]]:
    """The ABIs a process of this machine may call besides the native one (x86-64: i386 and x32)."""
    arch = getattr(sc, "Arch")  # noqa: B009 - pyseccomp is imported lazily
    machine = platform.machine()
    if machine == "x86_64":
        return [("x86", arch.X86), ("x32", arch.X32)]
    if machine == "aarch64":
        return [("arm", arch.ARM)]
    return []


def _build() -> FilterSupport:
    """Compile the filter with libseccomp; a :class:`FilterSupport` saying why not when it cannot."""
    try:
        import pyseccomp as sc
    except ImportError:
        return FilterSupport(None, "the pyseccomp package is not installed (pip install pyseccomp; make install does)")
    except (RuntimeError, OSError) as exc:  # pyseccomp raises RuntimeError when libseccomp.so is missing
        return FilterSupport(None, f"libseccomp cannot be loaded ({exc}; Debian/Ubuntu: apt-get install libseccomp2)")
    try:
        flt = sc.SyscallFilter(sc.ALLOW)
        flt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
        abis = [platform.machine()]
        for name, arch in _compat_arches(sc):
            flt.add_arch(arch)
            abis.append(name)
        low32 = 0xFFFFFFFF

        def rule(action: int, call: str, *args: object) -> None:
            try:
                flt.add_rule(action, call, *args)
            except OSError as exc:
                # A call no ABI of this libseccomp knows (e.g. arm_fadvise64_64 on x86) needs no rule.
                if exc.errno not in (errno.EDOM, errno.EINVAL, errno.EFAULT):
                    raise

        for call in ("fcntl", "fcntl64"):
            for cmd in _LOCK_SET:
                rule(sc.ERRNO(0), call, sc.Arg(1, sc.MASKED_EQ, low32, cmd))
            for cmd in _LOCK_QUERY:
                rule(sc.ERRNO(errno.ENOLCK), call, sc.Arg(1, sc.MASKED_EQ, low32, cmd))
            rule(sc.ERRNO(errno.EPERM), call, sc.Arg(1, sc.MASKED_EQ, low32, F_NOTIFY))
        rule(sc.ERRNO(0), "flock")
        for call in _WATCH:
            rule(sc.ERRNO(errno.EPERM), call)
        for call in _FADVISE:
            rule(sc.ERRNO(0), call)
        for call in ("preadv2", "pwritev2"):
            rule(sc.ERRNO(errno.EOPNOTSUPP), call, sc.Arg(_RW_FLAGS_ARG, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
        for call in ("cachestat", *_IO_URING):
            rule(sc.ERRNO(errno.ENOSYS), call)
        with tempfile.TemporaryFile() as fh:
            flt.export_bpf(fh)
            fh.seek(0)
            code = fh.read()
    except (OSError, RuntimeError, AttributeError, ValueError) as exc:
        return FilterSupport(None, f"libseccomp could not build the syscall filter: {exc}")
    if not code or len(code) % 8:
        return FilterSupport(None, f"libseccomp exported a malformed filter ({len(code)} bytes)")
    return FilterSupport(code, "", tuple(abis))


@lru_cache(maxsize=1)
def support() -> FilterSupport:
    """The filter of this machine, built once per process (a few milliseconds)."""
    return _build()


def program() -> bytes | None:
    """The compiled BPF program (a ``struct sock_filter`` array) for ``bwrap --seccomp``, or None (:func:`support`)."""
    return support().program


def memfd(code: bytes) -> int:
    """A new file descriptor holding ``code`` from offset 0 (an anonymous memory file), for one bwrap to read.

    One per bot: bwrap reads the program from the descriptor's current offset,
    so two bots must not share one. The caller closes it once bwrap has started.

    Raises:
        OSError: no memory file could be made.
    """
    fd = os.memfd_create("harness-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, code)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
