"""Safe unpacking of a submission: a .zip, a .tar.gz (or .tgz, .tar) or a single file.

Every refusal is one sentence (:class:`UnpackError`) and nothing is written
outside the target folder. Refused: an absolute path, a ``..`` part, a
symlink or hard link, a device, FIFO or other special file, a name with
control characters, more than :data:`MAX_FILES` files, more than
:data:`MAX_BYTES` unpacked, or an archive that unpacks to more than
:data:`MAX_RATIO` times its size (a decompression bomb). Sizes are counted on
the bytes actually read, never on what the archive's headers claim.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

from harness.errors import HarnessError

#: Largest upload (bytes, as sent).
MAX_UPLOAD = 20 * 1024 * 1024
#: Largest total unpacked size (bytes).
MAX_BYTES = 100 * 1024 * 1024
#: Most files in one submission.
MAX_FILES = 2000
#: Unpacked / packed size above which an archive is a decompression bomb (once past 1 MiB unpacked).
MAX_RATIO = 200
_RATIO_FLOOR = 1024 * 1024
_CHUNK = 1024 * 1024
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\\]")


class UnpackError(HarnessError, ValueError):
    """A refused upload; the message is one sentence for the student."""


def _safe_parts(name: str) -> PurePosixPath:
    """The member's relative path, or UnpackError (absolute, ``..``, control characters)."""
    if _BAD_NAME.search(name):
        raise UnpackError(f"refused: the file name {name!r} holds a control character or a backslash.")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise UnpackError(f"refused: {name!r} is an absolute path; archives must hold relative paths only.")
    path = PurePosixPath(name)
    if ".." in path.parts:
        raise UnpackError(f"refused: {name!r} goes up a folder (..); archives must stay inside their own folder.")
    return path


class _Budget:
    """Counts files and bytes written against the limits."""

    def __init__(self, packed: int) -> None:
        self.packed = max(1, packed)
        self.files = 0
        self.bytes = 0

    def file(self, name: str) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise UnpackError(f"refused: more than {MAX_FILES:,} files; submit only what the bot needs.")

    def add(self, n: int, name: str) -> None:
        self.bytes += n
        if self.bytes > MAX_BYTES:
            raise UnpackError(f"refused: unpacks to more than {MAX_BYTES // 2**20} MiB (at {name!r}); "
                              "submit only what the bot needs.")
        if self.bytes > _RATIO_FLOOR and self.bytes > MAX_RATIO * self.packed:
            raise UnpackError(f"refused: unpacks to more than {MAX_RATIO} times its size (at {name!r}), "
                              "as a decompression bomb does.")


def _write(dest: Path, rel: PurePosixPath, source: IO[bytes], budget: _Budget, mode: int) -> None:
    target = dest.joinpath(*rel.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.is_dir():
        raise UnpackError(f"refused: {str(rel)!r} appears twice in the archive.")
    with open(target, "xb") as out:
        while chunk := source.read(_CHUNK):
            budget.add(len(chunk), str(rel))
            out.write(chunk)
    os.chmod(target, 0o755 if mode & 0o111 else 0o644)


def _unzip(data: bytes, dest: Path, budget: _Budget) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UnpackError(f"refused: not a readable zip file ({exc}).") from None
    for info in infos:
        rel = _safe_parts(info.filename)
        kind = stat.S_IFMT(info.external_attr >> 16)
        if kind == stat.S_IFLNK:
            raise UnpackError(f"refused: {info.filename!r} is a symbolic link; submit the file itself.")
        if info.is_dir():
            dest.joinpath(*rel.parts).mkdir(parents=True, exist_ok=True)
            continue
        if kind not in (0, stat.S_IFREG):
            raise UnpackError(f"refused: {info.filename!r} is not a regular file (a device, FIFO or socket).")
        budget.file(info.filename)
        try:
            with archive.open(info) as source:
                _write(dest, rel, source, budget, info.external_attr >> 16)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
            if isinstance(exc, UnpackError):
                raise
            raise UnpackError(f"refused: {info.filename!r} cannot be read from the zip ({exc}).") from None


def _untar(data: bytes, dest: Path, budget: _Budget) -> None:
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UnpackError(f"refused: not a readable tar archive ({exc}).") from None
    try:
        for member in archive:  # streamed: a header count is never trusted
            rel = _safe_parts(member.name)
            if member.issym() or member.islnk():
                raise UnpackError(f"refused: {member.name!r} is a link; submit the file itself.")
            if member.isdir():
                dest.joinpath(*rel.parts).mkdir(parents=True, exist_ok=True)
                continue
            if not member.isreg():
                raise UnpackError(f"refused: {member.name!r} is not a regular file (a device, FIFO or socket).")
            budget.file(member.name)
            source = archive.extractfile(member)
            assert source is not None  # a regular member
            _write(dest, rel, source, budget, member.mode)
    except (tarfile.TarError, OSError, EOFError, zlib_error()) as exc:
        if isinstance(exc, UnpackError):
            raise
        raise UnpackError(f"refused: the archive is damaged ({exc}).") from None


def zlib_error() -> type[Exception]:
    import zlib

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
    if len(data) > MAX_UPLOAD:
        raise UnpackError(f"refused: the upload is {len(data) / 2**20:.1f} MiB; at most "
                          f"{MAX_UPLOAD // 2**20} MiB are accepted.")
    if not data:
        raise UnpackError("refused: the upload is empty.")
    dest.mkdir(parents=True)
    budget = _Budget(len(data))
    lower = filename.lower()
    if data[:4] == b"PK\x03\x04" or lower.endswith(".zip"):
        _unzip(data, dest, budget)
    elif lower.endswith((".tar.gz", ".tgz", ".tar")) or data[:2] == b"\x1f\x8b":
        _untar(data, dest, budget)
    else:
        base = PurePosixPath(filename.replace("\\", "/")).name
        if not base or base in (".", "..") or _BAD_NAME.search(base):
            raise UnpackError(f"refused: {filename!r} is not a usable file name.")
        budget.file(base)
        _write(dest, PurePosixPath(base), io.BytesIO(data), budget, 0o644)
    files = sorted(os.fspath(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    if not files:
        raise UnpackError("refused: the archive holds no file.")
    return files


def content_hash(folder: Path) -> str:
    """SHA-256 over a folder's files (relative names and contents, sorted): the version's identity."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = os.fspath(path.relative_to(folder)).encode()
        h.update(len(rel).to_bytes(4, "big") + rel)
        body = path.read_bytes()
        h.update(len(body).to_bytes(8, "big") + body)
    return h.hexdigest()
