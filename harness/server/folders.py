"""A version's folder as the server shows it: its file list, its code download, its part of the admin export.

A folder a student's build made may be of any shape (10,000 folders deep, a
million entries, links): every walk here is :func:`harness.host.trees.walk`
(iterative, links never followed, bounded in entries and depth), so a page
never fails on a strange tree; it shows what it can and says what it left
out. The listing and the archive are blocking file work: the server runs the
listing in a worker thread and streams the archive from a sync iterator that
Starlette drives in its thread pool (:func:`tar_stream`, written by a thread
of its own as it is sent, a few chunks in memory whatever the size), so one
student's large version never stalls the pages of the others.
"""

from __future__ import annotations

import io
import queue
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.host.build import MAX_ENTRIES as BUILD_ENTRIES
from harness.host.trees import MAX_DEPTH, add_tree, walk
from harness.match.untrusted import visible

__all__ = ["EXPORT_ENTRIES", "FILES_SHOWN", "Listing", "code_archive", "export_tree", "list_files", "shown_name",
           "tar_stream"]

#: Files listed on a version's page; the walk behind it sees at most :data:`COUNT_LIMIT` entries.
FILES_SHOWN = 500
COUNT_LIMIT = 10_000
#: Most entries of one part (uploads, matches...) of the admin export.
EXPORT_ENTRIES = 1_000_000
#: The note a code download or export holds when a walk left something out.
LEFT_OUT = "LEFT-OUT.txt"
#: Bytes per chunk of the streamed archive, and chunks buffered between the writer thread and the response.
CHUNK = 256 * 1024
_BUFFERED = 8


@dataclass(frozen=True)
class Listing:
    """The first ``shown`` relative paths (sorted) and how many more files there are.

    ``more_at_least`` is True when the walk stopped at its limit (then there are ``more`` or more);
    ``note`` says what a walk past the limits (depth, entries, unreadable folders) left out ('' if nothing).
    """

    shown: tuple[str, ...]
    more: int
    more_at_least: bool
    note: str = ""


def list_files(folder: Path, limit: int = FILES_SHOWN, count_limit: int = COUNT_LIMIT) -> Listing:
    """The bounded listing of ``folder`` (links listed as entries, never followed), each name as a page may show
    it (:func:`shown_name`). Missing: empty."""
    if not folder.is_dir():
        return Listing((), 0, False)
    tree = walk(folder, max_entries=count_limit)
    files = tree.files()
    return Listing(tuple(shown_name(f) for f in files[:limit]), max(0, len(files) - limit), tree.too_many,
                   tree.left_out())


def shown_name(name: str) -> str:
    """A file name a build made (any bytes but ``/`` and NUL) as text that shows as itself: a byte that is not
    UTF-8 as ``\\xff``, a bidi override, zero-width character or line separator as its escape
    (:func:`harness.match.untrusted.visible`). An upload's names are refused before that
    (:mod:`harness.server.unpack`); a build's cannot be."""
    try:
        name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file system gave: visible() escapes it
        pass
    return visible(name)


def code_archive(folder: Path, arcname: str) -> bytes:
    """A .tar.gz of the folder (:func:`tar_stream`'s content, whole in memory: for tests and small folders)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        _add_code(tar, folder, arcname)
    return buf.getvalue()


def _add_code(tar: tarfile.TarFile, folder: Path, arcname: str) -> None:
    """The folder's folders, files and links under ``arcname`` (with ``arcname/LEFT-OUT.txt`` saying what a walk
    past the limits left out)."""
    note = add_tree(tar, folder, arcname, max_entries=BUILD_ENTRIES)
    if note:
        _add_note(tar, f"{arcname}/{LEFT_OUT}", note)


def export_tree(tar: tarfile.TarFile, folder: Path, arcname: str, *, skip_suffix: str = "") -> None:
    """Add one part of the data folder (``uploads``, ``matches``...) to the admin export, files ending in
    ``skip_suffix`` left out; students' trees lie two levels down (``uploads/<student>/<folder>``)."""
    note = add_tree(tar, folder, arcname, max_entries=EXPORT_ENTRIES, max_depth=MAX_DEPTH + 4,
                    skip=lambda rel: bool(skip_suffix) and rel.endswith(skip_suffix))
    if note:
        _add_note(tar, f"{arcname}/{LEFT_OUT}", note)


def _add_note(tar: tarfile.TarFile, name: str, note: str) -> None:
    body = (note + "\n").encode()
    info = tarfile.TarInfo(name)
    info.size = len(body)
    tar.addfile(info, io.BytesIO(body))


class _QueueWriter:
    """A write-only file whose writes go, in :data:`CHUNK` pieces, into a bounded queue."""

    def __init__(self, out: queue.Queue[bytes | BaseException | None], stop: threading.Event) -> None:
        self.out, self.stop, self.buf = out, stop, bytearray()

    def write(self, data: bytes) -> int:
        self.buf += data
        while len(self.buf) >= CHUNK:
            self._put(bytes(self.buf[:CHUNK]))
            del self.buf[:CHUNK]
        return len(data)

    def flush(self) -> None:
        pass

    def close_out(self) -> None:
        if self.buf:
            self._put(bytes(self.buf))
            self.buf.clear()

    def _put(self, item: bytes) -> None:
        while not self.stop.is_set():
            try:
                self.out.put(item, timeout=1)
                return
            except queue.Full:
                continue
        raise _Stopped


class _Stopped(HarnessError):
    """The reader went away (the client disconnected): the writer stops."""


def tar_stream(folder: Path, arcname: str) -> Iterator[bytes]:
    """``folder`` as a .tar.gz under ``arcname``, in chunks, written by a thread of its own as it is read.

    Memory stays at a few chunks whatever the size; closing the iterator early stops the writer.
    """
    out: queue.Queue[bytes | BaseException | None] = queue.Queue(_BUFFERED)
    stop = threading.Event()

    def write() -> None:
        writer = _QueueWriter(out, stop)
        try:
            with tarfile.open(fileobj=writer, mode="w|gz") as tar:  # type: ignore[call-overload]
                _add_code(tar, folder, arcname)
            writer.close_out()
            end: BaseException | None = None
        except _Stopped:
            return
        except Exception as exc:  # noqa: BLE001 - handed to the reader, which raises it
            end = exc
        while not stop.is_set():
            try:
                out.put(end, timeout=1)
                return
            except queue.Full:
                continue

    thread = threading.Thread(target=write, name="tar-stream", daemon=True)
    thread.start()
    try:
        while True:
            item = out.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
