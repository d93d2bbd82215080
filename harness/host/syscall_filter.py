"""The syscall filter of a bot's sandbox: an allow-list of system calls, and no channels through shared files.

A bot needs what an ordinary program of its language needs (CPython, Node,
the JVM, C/C++, Go and Rust binaries): memory, threads, files, time,
signals, sockets, processes. Everything else is attack surface or a
channel to another bot, so :func:`program` compiles an **allow-list**: a
call that is not on it fails with ``EPERM`` (``ENOSYS`` where a caller
must see "not implemented" to fall back) and never kills the process.
The list follows the default seccomp profile of the container runtimes
(Docker/Moby's ``profiles/seccomp/default.json``, which the defaults of
Podman and containerd follow), for a container without added capabilities: its
unconditional list, ``clone`` only without namespace flags, ``clone3``
failing with ``ENOSYS`` (seccomp cannot read the flags clone3 takes
through a pointer; glibc, Go and Rust then fall back to ``clone``),
``socket`` for every family but ``AF_ALG`` and ``AF_VSOCK``, and
``personality`` only for its harmless values. Refused as there, with
``EPERM``: the kernel keyring (``keyctl``, ``add_key``, ``request_key``),
namespaces (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag),
mounts (``mount``, ``umount2``, ``pivot_root``, the new mount API,
``chroot``), ``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``,
``pidfd_getfd``, ``bpf``, ``perf_event_open``, ``userfaultfd``,
``kexec_load``, module loading, ``reboot``, ``swapon``, ``acct``,
``quotactl``, setting the clock or the host name, ``syslog``, NUMA
policy, ``iopl``/``ioperm``, ``open_by_handle_at``, and every call the
list does not name. Stricter than that profile (the channels below, and
what a bot never needs): Linux AIO (``io_setup``, ``io_submit``, ...)
fails with ``ENOSYS``, since its requests carry ``RWF_NOWAIT`` past any
filter (glibc's POSIX AIO uses threads, not it); ``ptrace`` and
``process_vm_*`` are refused even though that profile allows them on
Linux 4.8+; and, on the i386 ABI, ``socket`` and ``socketcall``'s
``SYS_SOCKET`` are refused, since seccomp cannot check the address family
a ``socketcall`` passes through a pointer (a 32-bit bot cannot open its
socket: build it for 64 bits). ``fcntl`` is allowed for its commands one by one.

The channels: bubblewrap gives each bot namespaces of its own, but some
kernel state is attached to files, and every bot can open the same
read-only files (``/usr``, ``/etc/passwd``, the venv, the SDK, and its own
directory, which its copy in another match sees too). Through that state
two bots can talk as fast as they like: a byte-range lock one sets
(``fcntl F_SETLK``) another sees (``F_GETLK``): the colluder of the attack
trial learned its opponent's hole cards in 30 of 30 hands that way;
``inotify``, ``fanotify`` and ``dnotify`` report another process's opens
and reads of a shared file; dropping a shared file's pages from the page
cache (``posix_fadvise DONTNEED``) and testing whether a page is cached
(``preadv2 RWF_NOWAIT``, ``cachestat``, io_uring and AIO reads) is a
channel that can be set and cleared at will. The kernel keyring is one
too (a key one bot adds, with permissions for all, another reads, even
in a later match), which is why it is refused and why each bot also
starts in an empty session keyring of its own (:mod:`harness.host.botproc`).

bwrap loads the program right before the bot's first instruction (``bwrap
--seccomp FD``; as root that is ``setpriv``, which needs ``setresuid``,
``setgroups``, ``capset`` and ``prctl``, all on the list); every process of
the bot inherits it and none can remove it. It is built by libseccomp
(through ``pyseccomp``, ctypes over the system's ``libseccomp.so.2``),
never by hand, as a binary tree (``SCMP_FLTATR_CTL_OPTIMIZE`` 2) so a call
costs a few comparisons, not a walk through the list.

What the channel calls return, and why:

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
- ``madvise`` ``MADV_COLD`` and ``MADV_PAGEOUT`` (which deactivate or reclaim a
  range's pages, a file's included): ``EINVAL``, as before Linux 5.4; every other
  advice an ordinary program gives (``DONTNEED`` and ``FREE`` on its own memory, which
  allocators use, ``WILLNEED``, huge pages ...) is allowed, compared on its low 32 bits.
  With every page a bot may read cached before it starts
  (:mod:`harness.host.residency`), a bot can neither take a shared page out of the
  cache nor bring one in, so the time a read takes tells it nothing.
- ``preadv2`` / ``pwritev2`` with ``RWF_NOWAIT``: ``EOPNOTSUPP``, what a file
  system without non-blocking reads says; callers retry without the flag.
- ``cachestat`` (a file's page-cache state, Linux 6.5): ``ENOSYS``, as on an
  older kernel. io_uring (``io_uring_setup``, ``io_uring_enter``,
  ``io_uring_register``, whose reads take ``RWF_NOWAIT`` past any filter)
  and Linux AIO: ``ENOSYS``; libuv and others fall back to threads, as on
  kernels without them.
- ``mincore`` (which pages of a mapping are cached) and ``readahead`` (bring a
  file's pages in): ``ENOSYS``, as on a kernel without them; libunwind and a
  JVM's memory tracking, which use ``mincore``, fall back.

Arguments are compared as the kernel reads them: ``fcntl``'s command is an
``unsigned int``, so only its low 32 bits are compared (a command with high
bits set is ``F_GETLK`` to the kernel).

Architectures: the rules hold for the native ABI and, on x86-64, for the
i386 and x32 ABIs too (a 64-bit process can make 32-bit calls with
``int 0x80``, with other syscall numbers), each with its own numbers; a
call through any other ABI fails with ``ENOSYS``. A call this libseccomp
does not know by name (one newer than it) is not on the list: it fails
with ``EPERM``.

What this does not close (docs/security.md): contention for shared
hardware (CPU time under ``[sandbox] cpu = "weight"``, caches, memory
bandwidth), global counters (``/proc/stat``, ``/proc/meminfo``, the load
average) and the time a read or a lookup takes (a page another bot read is
cached; a name another bot looked up is in the directory-entry cache): a
private view (:mod:`harness.host.privateview`, the default) gives each bot
copies of its own, so there is no page or name another bot reads; with the
shared view the page cache is narrowed by :mod:`harness.host.residency`; and
the tournament never runs two matches with the same cards at once.
"""

from __future__ import annotations

import contextlib
import errno
import os
import platform
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from harness.host import bpfcache

__all__ = ["ALLOWED", "FilterSupport", "memfd", "program", "support"]

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
#: The other fcntl commands, allowed: F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_SETOWN, F_GETOWN,
#: F_SETSIG, F_GETSIG, F_SETOWN_EX, F_GETOWN_EX, F_GETOWNER_UIDS, F_DUPFD_QUERY, F_CREATED_QUERY,
#: F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS and the four read/write hints.
_FCNTL_ALLOWED = (0, 1, 2, 3, 4, 8, 9, 10, 11, 15, 16, 17, 1027, 1028, *range(1030, 1039))
_WATCH = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")
_FADVISE = ("fadvise64", "fadvise64_64", "arm_fadvise64_64")
_IO_URING = ("io_uring_setup", "io_uring_enter", "io_uring_register")
#: mincore reports which pages of a mapping are cached (of a file the caller may write or owns: one a bot
#: built itself, or its copy of a shared one) and readahead brings a file's pages in without a read to time:
#: ENOSYS, what a kernel without them says; callers (libunwind, a JVM's memory tracking) fall back.
_CACHE_PROBES = ("mincore", "readahead")
_AIO = ("io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
        "io_pgetevents_time64")
#: madvise(2) advice values allowed (asm-generic/mman-common.h): NORMAL .. KEEPONFORK, POPULATE_READ/WRITE,
#: DONTNEED_LOCKED, COLLAPSE, GUARD_INSTALL/REMOVE. None of them takes a page of a file out of the page cache
#: (DONTNEED and FREE drop the caller's own mappings or anonymous memory; REMOVE needs write access).
_MADVISE_ALLOWED = (*range(0, 5), *range(8, 20), 22, 23, 24, 25, 102, 103)
#: MADV_COLD and MADV_PAGEOUT: deactivate or reclaim the pages of a range, file pages included (a bot that
#: may write a file, or owns it, could evict shared pages): EINVAL, what kernels before 5.4 say.
MADV_COLD, MADV_PAGEOUT = 20, 21
#: preadv2/pwritev2's flags argument (index 5 on every ABI: fd, iov, iovcnt, pos_l, pos_h, flags).
_RW_FLAGS_ARG = 5
#: clone(2) flags that create namespaces (CLONE_NEWNS ... CLONE_NEWNET): the mask the runtimes' profile tests.
CLONE_NEW_MASK = 0x7E020000
#: socket(2) families refused: AF_ALG (38, the kernel's crypto API) and AF_VSOCK (40, reaches the VM host
#: whatever the network namespace).
AF_ALG, AF_VSOCK = 38, 40
#: personality(2) values allowed: PER_LINUX, PER_LINUX32, UNAME26, both, and the query 0xffffffff.
_PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)

#: The calls allowed without conditions, by purpose (names as libseccomp knows them; a name one ABI lacks,
#: such as ``mmap2`` on x86-64, applies where it exists). From the runtimes' default profile, less what the
#: module docstring says is refused or filtered.
ALLOWED: dict[str, tuple[str, ...]] = {
    "memory": (
        "brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "msync", "mlock", "mlock2",
        "mlockall", "munlock", "munlockall", "membarrier", "memfd_create", "memfd_secret", "remap_file_pages",
        "pkey_alloc", "pkey_free", "pkey_mprotect", "map_shadow_stack", "mseal",
    ),
    "threads and synchronisation": (
        "futex", "futex_time64", "futex_waitv", "futex_wake", "futex_wait", "futex_requeue", "set_robust_list",
        "get_robust_list", "set_tid_address", "gettid", "rseq", "arch_prctl", "set_thread_area", "get_thread_area",
        "modify_ldt", "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam", "sched_setparam",
        "sched_getscheduler", "sched_setscheduler", "sched_getattr", "sched_setattr", "sched_get_priority_max",
        "sched_get_priority_min", "sched_rr_get_interval", "sched_rr_get_interval_time64", "getcpu",
    ),
    "processes": (
        "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid", "waitpid", "kill", "tkill",
        "tgkill", "pidfd_open", "pidfd_send_signal", "process_mrelease", "getpid", "getppid", "getpgid", "getpgrp",
        "setpgid", "getsid", "setsid", "prctl", "seccomp", "landlock_create_ruleset", "landlock_add_rule",
        "landlock_restrict_self", "getrlimit", "ugetrlimit", "setrlimit", "prlimit64", "getrusage", "getpriority",
        "setpriority", "ioprio_get", "ioprio_set", "times", "restart_syscall", "capget", "capset",
    ),
    "users (setpriv drops to the seat's uid)": (
        "getuid", "getuid32", "geteuid", "geteuid32", "getgid", "getgid32", "getegid", "getegid32", "getresuid",
        "getresuid32", "getresgid", "getresgid32", "getgroups", "getgroups32", "setuid", "setuid32", "setgid",
        "setgid32", "setreuid", "setreuid32", "setregid", "setregid32", "setresuid", "setresuid32", "setresgid",
        "setresgid32", "setgroups", "setgroups32", "setfsuid", "setfsuid32", "setfsgid", "setfsgid32",
    ),
    "signals": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait",
        "rt_sigtimedwait_time64", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "sigprocmask",
        "sigreturn", "signalfd", "signalfd4", "alarm", "pause",
    ),
    "time": (
        "clock_gettime", "clock_gettime64", "clock_getres", "clock_getres_time64", "clock_nanosleep",
        "clock_nanosleep_time64", "clock_adjtime", "clock_adjtime64", "adjtimex", "gettimeofday", "time",
        "nanosleep", "getitimer", "setitimer", "timer_create", "timer_delete", "timer_getoverrun", "timer_gettime",
        "timer_gettime64", "timer_settime", "timer_settime64", "timerfd_create", "timerfd_gettime",
        "timerfd_gettime64", "timerfd_settime", "timerfd_settime64",
    ),
    "files": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "open", "openat", "openat2",
        "creat", "close", "close_range", "dup", "dup2", "dup3", "lseek", "_llseek", "stat", "stat64", "lstat",
        "lstat64", "fstat", "fstat64", "newfstatat", "fstatat64", "statx", "statfs", "statfs64", "fstatfs",
        "fstatfs64", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64",
        "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
        "renameat2", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat", "chmod", "fchmod", "fchmodat",
        "fchmodat2", "chown", "chown32", "fchown", "fchown32", "fchownat", "lchown", "lchown32", "umask",
        "truncate", "truncate64", "ftruncate", "ftruncate64", "fallocate", "fsync", "fdatasync", "sync", "syncfs",
        "sync_file_range", "sync_file_range2", "arm_sync_file_range", "copy_file_range", "sendfile",
        "sendfile64", "splice", "tee", "vmsplice", "utime", "utimes", "utimensat", "utimensat_time64", "futimesat",
        "getxattr", "lgetxattr", "fgetxattr", "setxattr", "lsetxattr", "fsetxattr", "listxattr", "llistxattr",
        "flistxattr", "removexattr", "lremovexattr", "fremovexattr", "name_to_handle_at", "ioctl", "pipe", "pipe2",
        "eventfd", "eventfd2",
    ),
    "waiting on descriptors": (
        "poll", "ppoll", "ppoll_time64", "select", "_newselect", "pselect6", "pselect6_time64", "epoll_create",
        "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_wait", "epoll_wait_old", "epoll_pwait",
        "epoll_pwait2",
    ),
    "sockets (socket itself: by family, below)": (
        "socketpair", "bind", "listen", "accept", "accept4", "connect", "getsockname", "getpeername", "getsockopt",
        "setsockopt", "shutdown", "send", "sendto", "sendmsg", "sendmmsg", "recv", "recvfrom", "recvmsg", "recvmmsg",
        "recvmmsg_time64",
    ),
    "System V and POSIX IPC (the bot's own IPC namespace)": (
        "ipc", "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semtimedop_time64", "semctl",
        "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedsend_time64",
        "mq_timedreceive", "mq_timedreceive_time64", "mq_notify", "mq_getsetattr",
    ),
    # sysinfo: allowed here, answered by the referee (harness.host.sysinfo_supervisor's filter stacks on this).
    "the system": ("uname", "sysinfo", "getrandom", "riscv_hwprobe", "riscv_flush_icache", "breakpoint",
                   "cacheflush", "set_tls"),
}


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


def _rules(sc: ModuleType, flt: Any, abi: str) -> None:  # flt: a pyseccomp SyscallFilter (pyseccomp has no types)
    """Add the allow-list and the channel rules to ``flt``, a filter of the one ABI ``abi``."""
    low32 = 0xFFFFFFFF

    def rule(action: int, call: str, *args: object) -> None:
        try:
            flt.add_rule(action, call, *args)
        except OSError as exc:
            # A call this ABI lacks or this libseccomp does not know (arm_fadvise64_64 on x86) needs no rule.
            if exc.errno not in (errno.EDOM, errno.EINVAL, errno.EFAULT):
                raise

    for calls in ALLOWED.values():
        for call in calls:
            rule(sc.ALLOW, call)
    for call in ("fcntl", "fcntl64"):
        for cmd in _FCNTL_ALLOWED:
            rule(sc.ALLOW, call, sc.Arg(1, sc.MASKED_EQ, low32, cmd))
        for cmd in _LOCK_SET:
            rule(sc.ERRNO(0), call, sc.Arg(1, sc.MASKED_EQ, low32, cmd))
        for cmd in _LOCK_QUERY:
            rule(sc.ERRNO(errno.ENOLCK), call, sc.Arg(1, sc.MASKED_EQ, low32, cmd))
        # F_NOTIFY (dnotify) and every command not named: the default, EPERM.
    rule(sc.ERRNO(0), "flock")
    for advice in _MADVISE_ALLOWED:  # madvise's advice is an int: the kernel reads the low 32 bits
        rule(sc.ALLOW, "madvise", sc.Arg(2, sc.MASKED_EQ, low32, advice))
    for advice in (MADV_COLD, MADV_PAGEOUT):
        rule(sc.ERRNO(errno.EINVAL), "madvise", sc.Arg(2, sc.MASKED_EQ, low32, advice))
    for call in _FADVISE:
        rule(sc.ERRNO(0), call)
    for call in ("preadv2", "pwritev2"):
        rule(sc.ALLOW, call, sc.Arg(_RW_FLAGS_ARG, sc.MASKED_EQ, RWF_NOWAIT, 0))
        rule(sc.ERRNO(errno.EOPNOTSUPP), call, sc.Arg(_RW_FLAGS_ARG, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for call in ("cachestat", "clone3", *_CACHE_PROBES, *_IO_URING, *_AIO):
        rule(sc.ERRNO(errno.ENOSYS), call)
    rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NEW_MASK, 0))
    for value in _PERSONALITIES:
        rule(sc.ALLOW, "personality", sc.Arg(0, sc.EQ, value))
    if abi != "x86":  # i386's socketcall passes the family through a pointer, which seccomp cannot read
        for cond in (sc.Arg(0, sc.LT, AF_ALG), sc.Arg(0, sc.EQ, AF_ALG + 1), sc.Arg(0, sc.GT, AF_VSOCK)):
            rule(sc.ALLOW, "socket", cond)
    # File watching (inotify, fanotify), the keyring, namespaces, mounts, ptrace ...: the default, EPERM.


def _new_filter(sc: ModuleType, arch: int | None) -> Any:  # a pyseccomp SyscallFilter (pyseccomp has no types)
    """An empty filter (default EPERM, another ABI ENOSYS, a binary tree) for the native ABI or ``arch`` alone."""
    flt = sc.SyscallFilter(sc.ERRNO(errno.EPERM))
    flt.set_attr(sc.Attr.ACT_BADARCH, sc.ERRNO(errno.ENOSYS))
    with contextlib.suppress(OSError):  # libseccomp before 2.5 builds a list instead of a tree
        flt.set_attr(sc.Attr.CTL_OPTIMIZE, 2)
    if arch is not None:
        flt.add_arch(arch)
        flt.remove_arch(sc.Arch.NATIVE)
    return flt


def _build() -> FilterSupport:
    """Compile the filter with libseccomp; a :class:`FilterSupport` saying why not when it cannot."""
    try:
        import pyseccomp as sc
    except ImportError:
        return FilterSupport(None, "the pyseccomp package is not installed (pip install pyseccomp; make install does)")
    except (RuntimeError, OSError) as exc:  # pyseccomp raises RuntimeError when libseccomp.so is missing
        return FilterSupport(None, f"libseccomp cannot be loaded ({exc}; Debian/Ubuntu: apt-get install libseccomp2)")
    try:
        flt = _new_filter(sc, None)
        _rules(sc, flt, platform.machine())
        abis = [platform.machine()]
        # One filter per ABI, merged: each gets exactly its own rules (i386 has no socket, see _rules).
        for name, arch in _compat_arches(sc):
            other = _new_filter(sc, arch)
            _rules(sc, other, name)
            flt.merge(other)
            abis.append(name)
        code = bpfcache.bpf_of(flt)
    except (OSError, RuntimeError, AttributeError, ValueError) as exc:
        return FilterSupport(None, f"libseccomp could not build the syscall filter: {exc}")
    if not code or len(code) % 8:
        return FilterSupport(None, f"libseccomp exported a malformed filter ({len(code)} bytes)")
    return FilterSupport(code, "", tuple(abis))


@lru_cache(maxsize=1)
def support() -> FilterSupport:
    """The filter of this machine: compiled once and kept between runs (:mod:`harness.host.bpfcache`:
    loading libseccomp and compiling cost a process tens to hundreds of milliseconds), looked up once per
    process."""
    problems: list[str] = []

    def build() -> dict[str, Any] | None:
        built = _build()
        if built.program is None:
            problems.append(built.problem)
            return None
        return {"program": built.program, "abis": list(built.abis)}

    entry = bpfcache.kept("allow-list", __file__, build)
    if entry is None:
        return FilterSupport(None, problems[0] if problems else "libseccomp could not build the syscall filter")
    abis = entry.get("abis")
    if not isinstance(abis, list) or not all(isinstance(a, str) for a in abis):
        return _build()
    return FilterSupport(entry["program"], "", tuple(abis))


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
