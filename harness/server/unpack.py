"""Safe unpacking of a submission: a .zip, a .tar.gz (or .tgz, .tar) or a single file.

Every refusal is one sentence (:class:`UnpackError`), never a traceback, and
nothing is written outside the target folder. Refused: an absolute path, a
``..`` part, a symlink or hard link, a device, FIFO or other special file, a
name with control characters, an empty name, a name given twice (twice a
file, or a file and a folder, in either order), two names differing only in
case (they would clash on the students' own case-insensitive disks), a
name that would not show as itself (not UTF-8, bidi overrides, zero-width
characters, line separators: :func:`_unshowable`), more
than :data:`MAX_ENTRIES` entries (files and folders, those named and those a
path implies, all counted before anything is written), more than
:data:`MAX_BYTES` unpacked, or an archive that unpacks to more than
:data:`MAX_RATIO` times its size (a decompression bomb). Sizes are counted on
the bytes actually read, never on what the archive's headers claim. The work
done is bounded by these counts: at most :data:`MAX_ENTRIES` folders or files
are made, whatever the archive holds.

Headers are bounded before they are read: a path deeper than
:data:`harness.host.trees.MAX_DEPTH` folders, a name past :data:`MAX_NAME`
bytes, a tar long-name (GNU ``L``/``K``) or pax (``x``/``g``) header past
:data:`MAX_NAME` / :data:`MAX_PAX` bytes (tarfile reads one whole into
memory), more than :data:`MAX_CHAIN` of them in a row, a sparse member, or a
zip whose raw central directory holds more than :data:`MAX_ENTRIES` entries
or an extra field or comment past :data:`MAX_ZIP_FIELD` bytes is refused
from the header's own size fields. No recursion: folders are made level by
level and trees are walked with :mod:`harness.host.trees`.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import IO, Any

from harness.errors import HarnessError
from harness.host.trees import MAX_DEPTH, walk

#: Largest upload (bytes, as sent).
MAX_UPLOAD = 20 * 1024 * 1024
#: Largest total unpacked size (bytes).
MAX_BYTES = 100 * 1024 * 1024
#: Most entries in one submission: files and folders, named or implied by a path (``a/b/c`` is three).
MAX_ENTRIES = 2000
#: Unpacked / packed size above which an archive is a decompression bomb (once past 1 MiB unpacked).
MAX_RATIO = 200
_RATIO_FLOOR = 1024 * 1024
_CHUNK = 1024 * 1024
#: Longest member name or link name (bytes): a GNU long-name header (``L``/``K``) past it is refused unread.
MAX_NAME = 4096
#: Largest pax extended header (``x``/``g``) (bytes), refused unread past it.
MAX_PAX = 64 * 1024
#: Most bytes of long-name and pax headers in one archive.
MAX_EXTENDED = 4 * 1024 * 1024
#: Most extended headers (long name, long link, pax) in a row before one member.
MAX_CHAIN = 4
#: Largest extra field or comment of a zip entry (bytes).
MAX_ZIP_FIELD = 16 * 1024
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\\]")


class UnpackError(HarnessError, ValueError):
    """A refused upload; the message is one sentence for the student."""


def _safe_parts(name: str) -> PurePosixPath:
    """The member's relative path, or UnpackError (absolute, ``..``, control characters, a name that cannot be
    shown as it is: :func:`_unshowable`)."""
    if _BAD_NAME.search(name):
        raise UnpackError(f"refused: the file name {_shown(name)} holds a control character or a backslash.")
    _refuse_unshowable(name)
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise UnpackError(f"refused: {_shown(name)} is an absolute path; archives must hold relative paths only.")
    path = PurePosixPath(name)
    if ".." in path.parts:
        raise UnpackError(f"refused: {_shown(name)} goes up a folder (..); archives must stay inside their own folder.")
    return path


def _shown(name: str) -> str:
    """A member's name as a refusal quotes it: its repr (a byte that is not UTF-8 as ``\\xff``), cut to 200
    characters (a name may be 64 KiB)."""
    text = re.sub(r"\\udc([89a-f][0-9a-f])", r"\\x\1", repr(name))  # tarfile's surrogateescape: the byte
    return text if len(text) <= 200 else text[:197] + "..."


#: The bytes of a name that is not UTF-8, as :mod:`tarfile` decodes them (``surrogateescape``).
_UNDECODED = re.compile("[\udc80-\udcff]")


def _unshowable(name: str) -> bool:
    """Whether a name would not show as itself on a page or a terminal: bytes that are not UTF-8, or a character
    :meth:`str.isprintable` refuses (the bidi overrides and isolates that reorder what is read, zero-width
    characters, line and paragraph separators, a byte-order mark, any other format or separator but space)."""
    return not name.isprintable()


def _refuse_unshowable(name: str) -> None:
    if _unshowable(name):
        what = "is not UTF-8" if _UNDECODED.search(name) else "holds an invisible or direction-changing character"
        raise UnpackError(f"refused: the file name {_shown(name)} cannot be shown as it is (it {what}); rename "
                          "it with letters, digits and punctuation.")


class _Budget:
    """Counts entries and bytes against the limits, and knows every path already claimed (a file or a folder)."""

    def __init__(self, packed: int) -> None:
        self.packed = max(1, packed)
        self.entries = 0
        self.bytes = 0
        self.kinds: dict[PurePosixPath, bool] = {}  # path -> is a folder
        self.folded: dict[str, PurePosixPath] = {}  # casefolded path -> the path as named
        self.current = ""  # the member's name as the archive gives it, for a refusal that comes later

    def claim(self, rel: PurePosixPath, folder: bool, name: str) -> None:
        """Count one archive member (``rel``, a folder or a file) and each folder its path implies that was not
        counted yet, before anything of it is written.

        Raises:
            UnpackError: more than :data:`MAX_ENTRIES` entries, an empty file name, a path claimed before as a
                file (or a file claimed before as a folder), or two paths differing only in case.
        """
        self.current = name
        self._count()
        if len(rel.parts) > MAX_DEPTH:
            raise UnpackError(f"refused: {_shown(name)} lies {len(rel.parts)} folders deep; at most {MAX_DEPTH} "
                              "levels are accepted.")
        if len(name.encode(errors="replace")) > MAX_NAME:
            raise UnpackError(f"refused: the name {_shown(name)} is longer than {MAX_NAME} bytes.")
        if not rel.parts:
            if folder:  # "." or "./": the submission's own folder
                return
            raise UnpackError(f"refused: an entry of the archive has no file name ({_shown(name)}).")
        for depth in range(1, len(rel.parts)):
            parent = PurePosixPath(*rel.parts[:depth])
            if self.kinds.get(parent) is None:
                self._count()
            self._mark(parent, True)
        self._mark(rel, folder)

    def _count(self) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise UnpackError(f"refused: more than {MAX_ENTRIES:,} files and folders; submit only what the bot "
                              "needs.")

    def _mark(self, path: PurePosixPath, folder: bool) -> None:
        seen = self.kinds.get(path)
        if seen is not None:
            if seen and folder:  # a folder named again (or implied again): the same folder
                return
            if seen == folder:
                raise UnpackError(f"refused: {_shown(str(path))} appears twice in the archive.")
            raise UnpackError(f"refused: {_shown(str(path))} is both a file and a folder in the archive.")
        key = str(path).casefold()
        other = self.folded.get(key)
        if other is not None:
            raise UnpackError(f"refused: {_shown(str(other))} and {_shown(str(path))} differ only in case; they "
                              "would be one file on a case-insensitive disk.")
        self.kinds[path] = folder
        self.folded[key] = path

    def add(self, n: int, name: str) -> None:
        self.bytes += n
        if self.bytes > MAX_BYTES:
            raise UnpackError(f"refused: unpacks to more than {MAX_BYTES // 2**20} MiB (at {_shown(name)}); "
                              "submit only what the bot needs.")
        if self.bytes > _RATIO_FLOOR and self.bytes > MAX_RATIO * self.packed:
            raise UnpackError(f"refused: unpacks to more than {MAX_RATIO} times its size (at {_shown(name)}), "
                              "as a decompression bomb does.")


def _mkdirs(dest: Path, parts: tuple[str, ...]) -> None:
    """Make ``dest/parts...`` level by level (no recursion; the depth is bounded by :meth:`_Budget.claim`)."""
    path = dest
    for part in parts:
        path = path / part
        try:
            os.mkdir(path)
        except FileExistsError:
            continue


def _write(dest: Path, rel: PurePosixPath, source: IO[bytes], budget: _Budget, mode: int) -> None:
    target = dest.joinpath(*rel.parts)
    _mkdirs(dest, rel.parts[:-1])
    with open(target, "xb") as out:  # claimed once (_Budget.claim): "x" fails loudly if that ever breaks
        while chunk := source.read(_CHUNK):
            budget.add(len(chunk), str(rel))
            out.write(chunk)
    os.chmod(target, 0o755 if mode & 0o111 else 0o644)


def _check_zip_directory(data: bytes) -> None:
    """Walk the zip's central directory from its raw bytes before :mod:`zipfile` parses it: more than
    :data:`MAX_ENTRIES` entries, a name longer than :data:`MAX_NAME` or an extra field or comment longer than
    :data:`MAX_ZIP_FIELD` is refused before one :class:`zipfile.ZipInfo` is made (each costs memory)."""
    try:
        end = zipfile._EndRecData(io.BytesIO(data))  # type: ignore[attr-defined]
    except OSError:
        end = None
    if not end:
        return  # zipfile says why
    size_cd, offset_cd = end[zipfile._ECD_SIZE], end[zipfile._ECD_OFFSET]  # type: ignore[attr-defined]
    start = end[zipfile._ECD_LOCATION] - size_cd  # type: ignore[attr-defined]
    if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:  # type: ignore[attr-defined]
        start -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator  # type: ignore[attr-defined]
    if start < 0 or size_cd < 0 or offset_cd < 0:
        return
    pos, stop, count = start, min(len(data), start + size_cd), 0
    header = struct.Struct(zipfile.structCentralDir)  # type: ignore[attr-defined]
    while pos + header.size <= stop and data[pos:pos + 4] == zipfile.stringCentralDir:  # type: ignore[attr-defined]
        fields: Any = header.unpack_from(data, pos)
        name_len, extra_len, comment_len = fields[12], fields[13], fields[14]
        count += 1
        if count > MAX_ENTRIES:
            raise UnpackError(f"refused: more than {MAX_ENTRIES:,} files and folders; submit only what the bot "
                              "needs.")
        if name_len > MAX_NAME:
            raise UnpackError(f"refused: entry {count} of the zip has a name longer than {MAX_NAME} bytes.")
        if extra_len > MAX_ZIP_FIELD or comment_len > MAX_ZIP_FIELD:
            raise UnpackError(f"refused: entry {count} of the zip has an extra field or comment longer than "
                              f"{MAX_ZIP_FIELD // 1024} KiB.")
        pos += header.size + name_len + extra_len + comment_len


def _unzip(data: bytes, dest: Path, budget: _Budget) -> None:
    _check_zip_directory(data)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise UnpackError(f"refused: not a readable zip file ({exc}).") from None
    if len(infos) > MAX_ENTRIES:  # each member is an entry: refused before any is looked at
        raise UnpackError(f"refused: more than {MAX_ENTRIES:,} files and folders ({len(infos):,} entries); submit "
                          "only what the bot needs.")
    members = []
    for info in infos:  # the whole listing is checked before anything is written
        rel = _safe_parts(info.filename)
        kind = stat.S_IFMT(info.external_attr >> 16)
        folder = info.filename.endswith("/")  # ZipInfo.is_dir() fails on an empty name
        if kind == stat.S_IFLNK:
            raise UnpackError(f"refused: {_shown(info.filename)} is a symbolic link; submit the file itself.")
        if not folder and kind not in (0, stat.S_IFREG):
            raise UnpackError(f"refused: {_shown(info.filename)} is not a regular file (a device, FIFO or socket).")
        budget.claim(rel, folder, info.filename)
        members.append((info, rel, folder))
    for info, rel, folder in members:
        if folder:
            _mkdirs(dest, rel.parts)
            continue
        try:
            with archive.open(info) as source:
                _write(dest, rel, source, budget, info.external_attr >> 16)
        except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError, ValueError, zlib_error(),
                OSError) as exc:
            if isinstance(exc, OSError) and exc.errno is not None:  # the disk's, not the data's
                raise
            raise UnpackError(f"refused: {_shown(info.filename)} cannot be read from the zip ({exc}).") from None


_EXTENDED = {tarfile.GNUTYPE_LONGNAME: MAX_NAME, tarfile.GNUTYPE_LONGLINK: MAX_NAME,
             tarfile.XHDTYPE: MAX_PAX, tarfile.XGLTYPE: MAX_PAX, tarfile.SOLARIS_XHDTYPE: MAX_PAX}


class _BoundedInfo(tarfile.TarInfo):
    """A tar header checked from its raw fields before :mod:`tarfile` reads what it announces: a long-name or
    pax header is read whole into memory, so one past :data:`MAX_NAME` / :data:`MAX_PAX`, more than
    :data:`MAX_CHAIN` of them in a row (each one a level of recursion), a GNU sparse member or a pax header
    about sparse data (whose maps are read whole too) is refused unread."""

    def _proc_member(self, archive: Any) -> Any:  # tarfile's hook for every header it reads
        bound = _EXTENDED.get(self.type)
        if bound is None:
            archive.harness_chain = 0
            if self.type == tarfile.GNUTYPE_SPARSE:
                raise UnpackError(f"refused: {_shown(self.name)} is a sparse file; submit an ordinary archive.")
            return super()._proc_member(archive)  # type: ignore[misc]
        archive.harness_chain = getattr(archive, "harness_chain", 0) + 1
        archive.harness_extended = getattr(archive, "harness_extended", 0) + self.size
        if archive.harness_chain > MAX_CHAIN:
            raise UnpackError(f"refused: more than {MAX_CHAIN} extended headers in a row in the archive.")
        if self.size > bound:
            raise UnpackError(f"refused: the archive has a long-name or pax header of {self.size:,} bytes; at most "
                              f"{bound:,} are accepted.")
        if archive.harness_extended > MAX_EXTENDED:
            raise UnpackError(f"refused: the archive's long-name and pax headers pass {MAX_EXTENDED // 2**20} MiB.")
        if self.type in (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE):
            raw = archive.fileobj.read(self._block(self.size))  # type: ignore[attr-defined]
            if b"GNU.sparse" in raw:
                raise UnpackError("refused: the archive holds a sparse file; submit an ordinary archive.")
            real = archive.fileobj
            archive.fileobj = _Replay(real, raw)  # tarfile reads the header again: it gets these bytes
            try:
                return super()._proc_member(archive)  # type: ignore[misc]
            finally:
                archive.fileobj = real
        return super()._proc_member(archive)  # type: ignore[misc]


class _Replay:
    """A file object whose first read returns bytes already read from ``real`` (then reads ``real``)."""

    def __init__(self, real: Any, first: bytes) -> None:
        self._real = real
        self._first: bytes | None = first

    def read(self, size: int = -1) -> bytes:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self._real.read(size)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class _BoundedTar(tarfile.TarFile):
    tarinfo = _BoundedInfo


def _untar(data: bytes, dest: Path, budget: _Budget) -> None:
    try:
        archive = _BoundedTar.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, OSError, EOFError, zlib_error()) as exc:
        raise UnpackError(f"refused: not a readable tar archive ({exc}).") from None
    try:
        for member in archive:  # streamed: a header count is never trusted; each member claimed as it comes
            rel = _safe_parts(member.name)
            if member.issym() or member.islnk():
                raise UnpackError(f"refused: {_shown(member.name)} is a link; submit the file itself.")
            if not member.isdir() and not member.isreg():
                raise UnpackError(f"refused: {_shown(member.name)} is not a regular file (a device, FIFO or "
                                  "socket).")
            budget.claim(rel, member.isdir(), member.name)
            if member.isdir():
                _mkdirs(dest, rel.parts)
                continue
            source = archive.extractfile(member)
            assert source is not None  # a regular member
            _write(dest, rel, source, budget, member.mode)
    except (tarfile.TarError, EOFError, zlib_error(), OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:  # the disk's (a name too long...), not the data's
            raise
        raise UnpackError(f"refused: the archive is damaged ({exc}).") from None


def zlib_error() -> type[Exception]:
    return zlib.error


def unpack(data: bytes, filename: str, dest: Path) -> list[str]:
    """Unpack an upload into ``dest`` (created; must not exist) and return its files (relative, sorted).

    Args:
        data: the upload's bytes (at most :data:`MAX_UPLOAD`).
        filename: its name as sent (``.zip``, ``.tar.gz``/``.tgz``/``.tar``, else a single file of that name).
        dest: the version's folder.

    Raises:
        UnpackError: a refusal, in one sentence; ``dest`` is then left for the caller to remove.
    """
    if len(data) > MAX_UPLOAD:  # the caller may have read only MAX_UPLOAD + 1 bytes: no figure but the limit
        raise UnpackError(f"refused: the upload is more than {MAX_UPLOAD // 2**20} MiB; at most "
                          f"{MAX_UPLOAD // 2**20} MiB are accepted.")
    if not data:
        raise UnpackError("refused: the upload is empty.")
    dest.mkdir(parents=True)
    budget = _Budget(len(data))
    lower = filename.lower()
    try:
        if data[:4] == b"PK\x03\x04" or lower.endswith(".zip"):
            _unzip(data, dest, budget)
        elif lower.endswith((".tar.gz", ".tgz", ".tar")) or data[:2] == b"\x1f\x8b":
            _untar(data, dest, budget)
        else:
            base = PurePosixPath(filename.replace("\\", "/")).name
            if not base or base in (".", "..") or _BAD_NAME.search(base):
                raise UnpackError(f"refused: {_shown(filename)} is not a usable file name.")
            _refuse_unshowable(base)
            budget.claim(PurePosixPath(base), False, base)
            _write(dest, PurePosixPath(base), io.BytesIO(data), budget, 0o644)
    except OSError as exc:  # a name too long for the disk, say: the student's archive, one line, no host path
        raise UnpackError(f"refused: {_shown(budget.current)} cannot be unpacked "
                          f"({exc.strerror or type(exc).__name__}).") from None
    files = sorted(str(path) for path, folder in budget.kinds.items() if not folder)
    if not files:
        raise UnpackError("refused: the archive holds no file.")
    return files


def content_hash(folder: Path) -> str:
    """SHA-256 over a folder's files (relative names and contents, sorted): the version's identity."""
    h = hashlib.sha256()
    for name in walk(folder, max_entries=MAX_ENTRIES + 1).files():  # an unpacked upload: within its limits
        rel = name.encode()
        h.update(len(rel).to_bytes(4, "big") + rel)
        body = (folder / name).read_bytes()
        h.update(len(body).to_bytes(8, "big") + body)
    return h.hexdigest()
