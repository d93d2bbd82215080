"""Every page a bot may read is in the page cache before it starts, so a read carries nothing.

For the shared view (``[sandbox] view = "shared"``): the default private view
(:mod:`harness.host.privateview`) gives each bot copies of its own, which no
other bot reads, and needs no pass.

The channel: every sandbox sees the same read-only files (``/usr``, the
harness's venv, the SDK, and a bot's own directory, which its copy in the
next rotation sees too), and the kernel keeps one page cache for them. A bot
that reads one byte of a page nobody had read brings that page into the
cache; a later ``pread`` of it takes about 1-10 µs instead of 0.3-17 ms from
the disk. So a bot can *write* a bit by reading a cold page and another (or
itself in the next rotation, after the seats are swapped) *read* it by
timing a read: 27 bits a hand (its seven cards) across rotations, 6 bits a
hand between two colluders at one table, measured with large, rarely read
files of ``/usr``.

Writing needs a cold page; reading needs a page whose state another changed.
So before each bot starts, :class:`Residency` brings every page of every
regular file the bot's sandbox shows into the cache (those already there
cost one ``cachestat`` call per file, Linux 6.5+; without it, a read of the
whole file): the bot finds every page cached, its reads change nothing and
its timings tell nothing. The bot cannot take a page out again: ``posix_fadvise``
does nothing in the sandbox, ``madvise`` ``MADV_COLD``/``MADV_PAGEOUT`` are
refused, and pages made resident here are charged to the referee's control
group, not to the bot's (a bot at its memory limit reclaims only what it
charged itself). A later match's pass touches every page again, so nothing a
bot left in the cache outlives its match (the rotation oracle is closed).
What is left: the kernel evicting pages on its own during a match, under
memory pressure or, on kernels that page out cold memory proactively (DAMON
``pageout``, as on some virtual machines: :func:`proactive_reclaim`, which
the pass's line in ``referee.log`` warns of), within seconds; then two bots
at one table can still pass bits through pages that left the cache; and the
directory-entry cache (a name looked up once is found faster the next time),
which the walk fills for every name that exists but not for names that do
not (docs/security.md measures what is left).

Cost: the view's files stay in the page cache (``/usr`` of a desktop-sized
Debian is a few GiB; the machine needs the memory) and each match's first
bot waits for one walk of the view (about a second for 150,000 files; the
first match of a boot reads them all from the disk). Files a bot cannot read
(not readable by others, when each bot runs as a uid of its own) are skipped.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Residency", "ResidencyReport", "cached_pages", "proactive_reclaim"]

#: cachestat(2)'s number (the generic table: the same on x86-64 and arm64; Linux 6.5+).
_NR_CACHESTAT = 451
_PAGE = os.sysconf("SC_PAGE_SIZE")
_CHUNK = 1 << 20


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Stat(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("cache", "dirty", "writeback", "evicted", "recently_evicted")]


_libc = ctypes.CDLL(None, use_errno=True)
_have_cachestat = [True]


def cached_pages(fd: int) -> int | None:
    """Pages of the open file ``fd`` in the page cache (cachestat(2)), or None where the kernel cannot say."""
    if not _have_cachestat[0]:
        return None
    whole, out = _Range(0, 0), _Stat()
    if _libc.syscall(_NR_CACHESTAT, fd, ctypes.byref(whole), ctypes.byref(out), 0) == 0:
        return int(out.cache)
    if ctypes.get_errno() in (errno.ENOSYS, errno.EPERM):
        _have_cachestat[0] = False
    return None


#: Where the kernel's DAMON monitors (kdamonds) are listed (Linux 5.18+ sysfs interface).
DAMON_ADMIN = "/sys/kernel/mm/damon/admin/kdamonds"


def proactive_reclaim(admin: str = DAMON_ADMIN) -> str:
    """Why pages made resident may leave the cache during a match on their own ('' when nothing says so):
    a running DAMON monitor with a ``pageout`` scheme (which pages out whatever was not accessed for a few
    seconds, mapped or not, as some virtual machines' kernels do)."""
    try:
        daemons = sorted(os.listdir(admin))
    except OSError:
        return ""
    for daemon in daemons:
        base = os.path.join(admin, daemon)
        try:
            with open(os.path.join(base, "state"), encoding="ascii") as fh:
                if fh.read().strip() != "on":
                    continue
        except OSError:
            continue
        for folder, _, names in os.walk(os.path.join(base, "contexts")):
            if "action" in names:
                try:
                    with open(os.path.join(folder, "action"), encoding="ascii") as fh:
                        action = fh.read().strip()
                except OSError:
                    continue
                if action == "pageout":
                    return (f"the kernel pages out cold memory on its own (DAMON {daemon}: pageout): pages made "
                            "resident leave the cache seconds later, so bots at one table can still pass bits "
                            "through it (docs/security.md)")
    return ""


@dataclass
class ResidencyReport:
    """What one pass did.

    Attributes:
        files: regular files looked at.
        pages_read: pages that were not cached and were read.
        missing: pages still not cached after the pass (the machine evicted them again at once:
            too little memory for the view).
        seconds: wall time of the pass.
    """

    files: int = 0
    pages_read: int = 0
    missing: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for ``referee.log``."""
        line = (f"page cache: {self.files} files shown to bots made resident ({self.pages_read} pages read) in "
                f"{self.seconds:.2f} s")
        if self.missing:
            line += f"; {self.missing} pages would not stay cached (too little memory for the view)"
        warning = proactive_reclaim()
        return f"{line}; WARNING: {warning}" if warning else line


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class Residency:
    """Makes the files shown to a match's bots resident, each tree once per match (one per match)."""

    def __init__(self, *, others_only: bool) -> None:
        """``others_only``: bots run as uids of their own (root): skip files not readable by others."""
        self.others_only = others_only
        self.done: list[str] = []
        self.report = ResidencyReport()

    def settle(self, paths: Iterable[str], hidden: Sequence[str] = ()) -> None:
        """Make every regular file under ``paths`` (files or trees, symbolic links not followed) fully
        cached, except under ``hidden`` and trees already done in this match. Never raises: a file that
        cannot be opened or read is one the bot cannot read either."""
        started = time.monotonic()
        for root in paths:
            real = os.path.realpath(root)
            if any(_inside(real, d) for d in self.done) or not os.path.exists(real):
                continue
            self.done.append(real)
            if os.path.isdir(real):
                for folder, dirs, names in os.walk(real):
                    if hidden:
                        dirs[:] = [d for d in dirs if not any(_inside(os.path.join(folder, d), h) for h in hidden)]
                    for name in names:
                        self._file(os.path.join(folder, name))
            else:
                self._file(real)
        self.report.seconds += time.monotonic() - started

    def _file(self, path: str) -> None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
                return
            if self.others_only and not st.st_mode & stat.S_IROTH:
                return
            self.report.files += 1
            pages = (st.st_size + _PAGE - 1) // _PAGE
            cached = cached_pages(fd)
            if cached is not None and cached >= pages:
                return
            self.report.pages_read += pages - (cached or 0) if cached is not None else pages
            offset = 0
            while offset < st.st_size:  # a read of every page: synchronous, unlike WILLNEED's readahead
                got = os.pread(fd, _CHUNK, offset)
                if not got:
                    break
                offset += len(got)
            after = cached_pages(fd)
            if after is not None and after < pages:
                self.report.missing += pages - after
        except OSError:
            return
        finally:
            os.close(fd)
