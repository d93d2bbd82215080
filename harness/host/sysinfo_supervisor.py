"""sysinfo(2) for a sandboxed bot, answered by the referee with fixed values: no shared task count.

``sysinfo(2)`` returns, besides the machine's memory, counters every sandbox
shares: the number of tasks on the machine (``procs``), the load averages,
free memory. Two colluding bots at one table used ``procs`` as a channel:
one starts threads, the other reads the count, 3.1-3.8 bits per hand. No
mount masks a system call, and refusing it breaks programs: glibc's
``sysconf(_SC_PHYS_PAGES)`` does not check sysinfo's result (Python's
``os.sysconf('SC_PHYS_PAGES')`` read an uninitialised 8.9e18) and the JVM
sizes its heap from it. So it is answered for the bot, the way container
runtimes emulate a call (seccomp_unotify(2), "user-space notification"):

1. :func:`prepare` (in the referee, before the fork): a tiny filter that
   sends ``sysinfo`` to a supervisor (``SECCOMP_RET_USER_NOTIF``) and allows
   everything else, compiled by libseccomp for the native ABI and, on
   x86-64, i386 and x32 (``int 0x80`` reaches the kernel's sysinfo too).
2. Its ``child`` function (in the forked child, before ``exec`` of
   bubblewrap; :func:`harness.host.botproc._make_preexec`) loads it with
   ``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER)``
   and sends the listener descriptor to the referee over a socket pair
   (``SCM_RIGHTS``). Filters stack: bwrap's allow-list loaded later allows
   sysinfo, and the kernel takes the strictest action of all the filters,
   ``USER_NOTIF`` before ``ALLOW``; the filter is inherited by bwrap,
   ``setpriv`` and every process of the bot, and none can remove it.
   Loading a filter needs ``no_new_privs`` unless the caller has
   ``CAP_SYS_ADMIN`` (root): it is set only when the kernel asks for it
   (an ordinary user; bwrap sets it for the bot anyway).
3. :class:`Supervisor` (a thread of the referee per bot) receives each
   notification (``SECCOMP_IOCTL_NOTIF_RECV``), opens the caller's
   ``/proc/<pid>/mem``, checks the notification is still valid
   (``SECCOMP_IOCTL_NOTIF_ID_VALID``: the pid is still that caller, not a
   reused one), writes the answer at the caller's pointer, and replies
   success (``SECCOMP_IOCTL_NOTIF_SEND``). A failed write replies
   ``EFAULT`` (what the kernel says for a bad pointer); the thread ends
   when the bot is gone (the listener reports ``POLLHUP``) or the bot is
   stopped. If the referee dies the descriptor closes and the kernel fails
   every further sysinfo with ``ENOSYS``: never a hang. An answer costs
   the referee about 120 µs of CPU: after :data:`BURST` calls a bot gets
   at most :data:`RATE` answers a second (it waits, on its own time).

The answer (:func:`answer`): the real uptime (``/proc/uptime`` shows it
too), loads 0, total and free memory the bot's memory limit (as its
generated ``/proc/meminfo``), no shared or buffer memory, no swap,
``procs`` 1, ``mem_unit`` 1 (64-bit layout) or the smallest power of two
that fits the 32-bit one (i386).

Off when the sandbox is off. Where the kernel lacks user notification
(before Linux 5.0, or a seccomp that refuses it) or libseccomp cannot
build the filter, :func:`support` says why and the sandbox starts without
it, with a warning: the channel then stays open (docs/security.md "Collusion").
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import platform
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from harness.host import bpfcache

__all__ = ["PROCS", "Prepared", "Supervisor", "SysinfoSupport", "answer", "prepare", "support"]

#: The task count every bot reads: one, whatever runs on the machine.
PROCS = 1

# seccomp(2) operations and flags (linux/seccomp.h).
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_GET_ACTION_AVAIL = 2
_SECCOMP_GET_NOTIF_SIZES = 3
_SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
_SECCOMP_RET_USER_NOTIF = 0x7FC00000
_PR_SET_NO_NEW_PRIVS = 38


def _iowr(nr: int, size: int, write_only: bool = False) -> int:
    """An ioctl number of the seccomp magic ``'!'`` (asm-generic/ioctl.h: the x86 and arm encoding)."""
    direction = 1 if write_only else 3
    return (direction << 30) | (size << 16) | (ord("!") << 8) | nr


# struct seccomp_notif {u64 id; u32 pid; u32 flags; struct seccomp_data {s32 nr; u32 arch; u64 ip; u64 args[6]}}
_NOTIF = struct.Struct("=QIIiIQ6Q")
# struct seccomp_notif_resp {u64 id; s64 val; s32 error; u32 flags}
_RESP = struct.Struct("=QqiI")
_NOTIF_RECV = _iowr(0, _NOTIF.size)
_NOTIF_SEND = _iowr(1, _RESP.size)
_NOTIF_ID_VALID = _iowr(2, 8, write_only=True)

#: AUDIT_ARCH values (linux/audit.h) whose sysinfo takes the 32-bit ``struct compat_sysinfo``.
_COMPAT_ARCHES = frozenset({0x40000003, 0x40000028})  # i386, arm
#: struct sysinfo of a 64-bit ABI (x86-64, x32, aarch64): long uptime; unsigned long loads[3], totalram,
#: freeram, sharedram, bufferram, totalswap, freeswap; u16 procs, pad; unsigned long totalhigh, freehigh;
#: u32 mem_unit; padded to 112 bytes.
_SYSINFO64 = struct.Struct("=q3Q6QHH4xQQI4x")
#: struct compat_sysinfo (i386, arm): the same with 32-bit longs and 8 bytes of padding: 64 bytes.
_SYSINFO32 = struct.Struct("=i3I6IHHIII8x")
#: Machines whose ioctl encoding and seccomp number are known here.
_SECCOMP_NR = {"x86_64": 317, "aarch64": 277}

_MESSAGE = b"L"
#: Answers a bot gets at once, then at most :data:`RATE` per second: an answer costs the referee ~120 µs
#: of CPU, so a bot that calls sysinfo in a loop waits (on its own time), not the referee.
BURST, RATE = 100, 200


class Pacer:
    """A token bucket: ``burst`` calls at once, then ``rate`` per second (the delay before the next, s)."""

    def __init__(self, burst: int = BURST, rate: float = RATE) -> None:
        self._burst, self._rate = burst, rate
        self._tokens = float(burst)
        self._last: float | None = None

    def delay(self, now: float) -> float:
        """Seconds to wait before answering a call that arrives at ``now`` (monotonic seconds); takes a token."""
        if self._last is not None:
            self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        self._tokens -= 1
        return 0.0 if self._tokens >= 0 else -self._tokens / self._rate


@dataclass(frozen=True, slots=True)
class SysinfoSupport:
    """Whether sysinfo can be answered for the bots here.

    Attributes:
        program: the compiled filter (``struct sock_filter`` array, 8 bytes per instruction), or None.
        problem: why not ('' when it can), in words.
    """

    program: bytes | None
    problem: str

    @property
    def ok(self) -> bool:
        """True when bots get their sysinfo from the referee."""
        return self.program is not None


class _Fprog(ctypes.Structure):
    """struct sock_fprog: the filter's length (instructions) and address."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@lru_cache(maxsize=1)
def _libc() -> tuple[Callable[..., int], Callable[..., int]]:
    """libc's syscall(2) and prctl(2), bound once in the referee (never inside a forked child)."""
    libc = ctypes.CDLL(None, use_errno=True)
    call = libc.syscall
    call.restype = ctypes.c_long
    return call, libc.prctl


def _libc_syscall() -> Callable[..., int]:
    return _libc()[0]


def _kernel_problem() -> str:
    """Why this kernel cannot notify a supervisor ('' when it can), asked of seccomp(2) itself."""
    number = _SECCOMP_NR.get(platform.machine())
    if number is None:
        return f"not implemented for this machine ({platform.machine()})"
    call = _libc_syscall()
    action = ctypes.c_uint32(_SECCOMP_RET_USER_NOTIF)
    if call(ctypes.c_long(number), _SECCOMP_GET_ACTION_AVAIL, 0, ctypes.byref(action)) != 0:
        return f"the kernel has no seccomp user notification ({os.strerror(ctypes.get_errno())}; Linux 5.0+ has it)"
    sizes = (ctypes.c_uint16 * 3)()
    if call(ctypes.c_long(number), _SECCOMP_GET_NOTIF_SIZES, 0, ctypes.byref(sizes)) != 0:
        return f"the kernel does not give seccomp's notification sizes ({os.strerror(ctypes.get_errno())})"
    if (sizes[0], sizes[1], sizes[2]) != (_NOTIF.size, _RESP.size, 64):
        return f"the kernel's seccomp notification structures differ from the known ones ({list(sizes)})"
    return ""


def _build() -> SysinfoSupport:
    problem = _kernel_problem()
    if problem:
        return SysinfoSupport(None, problem)
    problems: list[str] = []

    def build() -> dict[str, object] | None:
        built = _compile()
        if built.program is None:
            problems.append(built.problem)
            return None
        return {"program": built.program}

    entry = bpfcache.kept("sysinfo", __file__, build)  # compiled once, kept between runs
    if entry is None:
        return SysinfoSupport(None, problems[0] if problems else "libseccomp could not build the sysinfo filter")
    return SysinfoSupport(entry["program"], "")


def _compile() -> SysinfoSupport:
    """The sysinfo filter compiled by libseccomp (or why not)."""
    try:
        import pyseccomp as sc
    except ImportError:
        return SysinfoSupport(None, "the pyseccomp package is not installed (pip install pyseccomp)")
    except (RuntimeError, OSError) as exc:  # libseccomp.so missing
        return SysinfoSupport(None, f"libseccomp cannot be loaded ({exc}; apt-get install libseccomp2)")
    try:
        flt = sc.SyscallFilter(sc.ALLOW)
        flt.set_attr(sc.Attr.ACT_BADARCH, sc.ALLOW)  # another ABI is the allow-list's business
        if platform.machine() == "x86_64":
            flt.add_arch(sc.Arch.X86)
            flt.add_arch(sc.Arch.X32)
        elif platform.machine() == "aarch64":
            with contextlib.suppress(OSError):
                flt.add_arch(sc.Arch.ARM)
        flt.add_rule(sc.NOTIFY, "sysinfo")
        code = bpfcache.bpf_of(flt)
    except (OSError, RuntimeError, AttributeError, ValueError) as exc:
        return SysinfoSupport(None, f"libseccomp could not build the sysinfo filter: {exc}")
    if not code or len(code) % 8:
        return SysinfoSupport(None, f"libseccomp exported a malformed sysinfo filter ({len(code)} bytes)")
    return SysinfoSupport(code, "")


@lru_cache(maxsize=1)
def support() -> SysinfoSupport:
    """Whether sysinfo can be answered here (asked of the kernel and libseccomp once per process)."""
    return _build()


def answer(arch: int, total_bytes: int, uptime_s: int | None = None) -> bytes:
    """The ``struct sysinfo`` a bot gets, laid out for the ABI ``arch`` (an ``AUDIT_ARCH_*`` value).

    Args:
        arch: the caller's ABI (``seccomp_data.arch``): i386 and arm get ``struct compat_sysinfo``.
        total_bytes: the bot's memory (bytes): total and free RAM.
        uptime_s: seconds since boot (default: the machine's, rounded up as the kernel does).

    Returns:
        112 bytes (64-bit ABIs) or 64 (32-bit ABIs); ``procs`` is :data:`PROCS`.
    """
    if uptime_s is None:
        now = time.clock_gettime(time.CLOCK_BOOTTIME)
        uptime_s = int(now) + (now != int(now))
    if arch in _COMPAT_ARCHES:
        unit = 1
        while total_bytes // unit > 0xFFFFFFFF:  # as the kernel scales a 32-bit answer
            unit <<= 1
        ram = total_bytes // unit
        return _SYSINFO32.pack(min(uptime_s, 0x7FFFFFFF), 0, 0, 0, ram, ram, 0, 0, 0, 0, PROCS, 0, 0, 0, unit)
    return _SYSINFO64.pack(uptime_s, 0, 0, 0, total_bytes, total_bytes, 0, 0, 0, 0, PROCS, 0, 0, 0, 1)


class Prepared:
    """The referee's half of one bot's sysinfo filter, made before the fork (see :func:`prepare`).

    Attributes:
        child: the function the forked child runs before ``exec`` (async-signal-minded: only
            pre-bound calls); it loads the filter and sends the listener, or writes one line on
            the child's stderr and ends it (exit status 1), so the bot never runs unanswered.
    """

    def __init__(self, program: bytes) -> None:
        self._ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)  # both close-on-exec
        self._theirs: socket.socket | None = theirs
        number = _SECCOMP_NR[platform.machine()]
        filt = ctypes.create_string_buffer(program, len(program))
        prog = _Fprog(len(program) // 8, ctypes.addressof(filt))
        self._keep: tuple[object, ...] = (filt, prog)  # alive until the child has forked
        call, prctl = _libc()
        get_errno = ctypes.get_errno
        prog_ref = ctypes.byref(prog)
        seccomp_nr = ctypes.c_long(number)
        sendmsg = theirs.sendmsg
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS)]
        pack_fd = struct.Struct("i").pack
        close = os.close
        write = os.write
        exit_now = os._exit
        flags = _SECCOMP_FILTER_FLAG_NEW_LISTENER

        def child() -> None:
            fd = call(seccomp_nr, _SECCOMP_SET_MODE_FILTER, flags, prog_ref)
            if fd < 0 and get_errno() == errno.EACCES:  # no CAP_SYS_ADMIN: the kernel wants no_new_privs
                prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
                fd = call(seccomp_nr, _SECCOMP_SET_MODE_FILTER, flags, prog_ref)
            if fd < 0:
                write(2, b"harness: cannot load the sysinfo filter (seccomp NEW_LISTENER failed)\n")
                exit_now(1)
            try:
                sendmsg([_MESSAGE], [(*rights[0], pack_fd(fd))])
            except OSError:
                write(2, b"harness: cannot hand the sysinfo listener to the referee\n")
                exit_now(1)
            close(fd)  # the referee has its own copy; none may reach the bot

        self.child = child

    def listener(self) -> int | None:
        """After the fork: the listener descriptor the child sent (None when it sent none); closes the pair."""
        if self._theirs is not None:
            self._theirs.close()
            self._theirs = None
        self._keep = ()
        try:
            self._ours.setblocking(False)
            msg, fds, _, _ = socket.recv_fds(self._ours, len(_MESSAGE), 1)
        except OSError:
            return None
        finally:
            self._ours.close()
        for extra in fds[1:]:
            os.close(extra)
        return fds[0] if msg == _MESSAGE and fds else None

    def close(self) -> None:
        """Close both ends (when the bot could not be started; idempotent)."""
        if self._theirs is not None:
            self._theirs.close()
            self._theirs = None
        self._ours.close()
        self._keep = ()


def prepare() -> Prepared | None:
    """A :class:`Prepared` for one bot, or None where sysinfo cannot be answered (:func:`support`)."""
    program = support().program
    return Prepared(program) if program is not None else None


class Supervisor:
    """Answers one bot's sysinfo calls on a thread of its own until the bot is gone or :meth:`close`.

    Args:
        listener: the listener descriptor (owned from now on; closed by :meth:`close`).
        total_bytes: the bot's memory limit (bytes), its total and free RAM.
        name: for the thread's name, e.g. ``"0-solid"``.
    """

    def __init__(self, listener: int, total_bytes: int, name: str) -> None:
        self._fd = listener
        self._total = total_bytes
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        #: Calls answered, and calls answered with an error (the caller's pointer was bad).
        self.answered = 0
        self.failed = 0
        self._pacer = Pacer()
        self._thread = threading.Thread(target=self._run, name=f"sysinfo-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        while True:
            for fd, events in poller.poll():
                if fd == self._wake_r:
                    return
                if events & select.POLLIN:
                    self._answer_one()
                elif events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    return  # every process under the filter has exited

    def _answer_one(self) -> None:
        buf = bytearray(_NOTIF.size)  # zeroed, as the kernel requires
        try:
            fcntl.ioctl(self._fd, _NOTIF_RECV, buf, True)
        except OSError:
            return  # ENOENT: the caller was killed or interrupted meanwhile
        call_id, pid, _, _, arch, _, pointer, *_ = _NOTIF.unpack(buf)
        wait = self._pacer.delay(time.monotonic())
        if wait > 0:
            time.sleep(wait)
        error = 0
        try:
            mem = os.open(f"/proc/{pid}/mem", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            error = errno.EFAULT
        else:
            try:
                # The pid is the caller's only while the notification is valid: checked with mem open.
                fcntl.ioctl(self._fd, _NOTIF_ID_VALID, struct.pack("=Q", call_id))
                data = answer(arch, self._total)
                if os.pwrite(mem, data, pointer) != len(data):
                    error = errno.EFAULT
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    return  # the caller is gone: nothing to answer
                error = errno.EFAULT
            except OverflowError:  # a pointer beyond any user address
                error = errno.EFAULT
            finally:
                os.close(mem)
        self.answered += 1
        self.failed += bool(error)
        with contextlib.suppress(OSError):  # ENOENT: the caller was interrupted meanwhile
            fcntl.ioctl(self._fd, _NOTIF_SEND, bytearray(_RESP.pack(call_id, 0, -error, 0)), True)

    def close(self, timeout_s: float = 1.0) -> None:
        """Stop answering (after the bot has been stopped) and close the listener; idempotent."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        self._thread.join(timeout_s)
        for fd in (self._fd, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fd = -1
