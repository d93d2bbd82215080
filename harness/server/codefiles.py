"""A version's files as the server shows them: a bounded listing and a streamed .tar.gz.

Both do blocking file work, so the server runs them off the event loop (the listing in a worker thread,
the archive as a sync iterator that Starlette drives in its thread pool): one student's large or many-file
version never stalls the pages of the others.
"""

from __future__ import annotations

import os
import queue
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Files a version page lists; the walk counts up to :data:`COUNT_LIMIT` more and stops.
LIST_LIMIT = 500
COUNT_LIMIT = 10_000
#: Bytes per chunk of the streamed archive, and chunks buffered between the writer thread and the response.
CHUNK = 256 * 1024
_BUFFERED = 8


@dataclass(frozen=True)
class Listing:
    """The first ``shown`` relative paths (sorted per folder, folders after their files) and how many more.

    ``more`` counts files past ``shown``; ``more_at_least`` is True when the walk stopped at
    :data:`COUNT_LIMIT` files, so there are ``more`` or more.
    """

    shown: tuple[str, ...]
    more: int
    more_at_least: bool


def list_files(folder: Path, limit: int = LIST_LIMIT, count_limit: int = COUNT_LIMIT) -> Listing:
    """The bounded listing of ``folder`` (symbolic links are listed, never followed). Missing: empty."""
    shown: list[str] = []
    seen = 0
    stack = [folder]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(Path(entry.path))
                continue
            seen += 1
            if len(shown) < limit:
                shown.append(os.fspath(Path(entry.path).relative_to(folder)))
            if seen >= count_limit:
                return Listing(tuple(shown), seen - len(shown), True)
        stack.extend(reversed(subdirs))
    return Listing(tuple(shown), seen - len(shown), False)


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


class _Stopped(Exception):
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
                tar.add(folder, arcname=arcname)
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
