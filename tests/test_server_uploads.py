"""Hostile submissions: each refused (or stopped) with its one-sentence message, nothing written outside its folder.

Path traversal, absolute paths, symlinks and hard links, devices, a zip bomb,
100,000 files and a 2 GB file (slow). Builds: tests/test_server_builds.py.
"""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from harness.server.submission import prepare
from harness.server.unpack import MAX_FILES, UnpackError, unpack

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for info, body in members:
            tar.addfile(info, io.BytesIO(body) if body is not None else None)
    return buf.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size, link
    return info


def _zip(files: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in files.items():
            z.writestr(name, body)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (0o120777 << 16)
            z.writestr(info, "/etc/passwd")
    return buf.getvalue()


def _outside(tmp_path: Path, dest: Path) -> list[str]:
    """Files under tmp_path but outside dest (the test's own 'sentinel' excepted)."""
    return sorted(os.fspath(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                  if p.is_file() and not p.is_relative_to(dest) and p.name != "sentinel")


CASES = [
    ("zip traversal", "a.zip", lambda: _zip({"../evil.py": b"x"}), "goes up a folder"),
    ("zip absolute", "a.zip", lambda: _zip({"/tmp/evil.py": b"x"}), "absolute path"),
    ("zip symlink", "a.zip", lambda: _zip({"bot.py": b"x"}, symlink="link"), "symbolic link"),
    ("tar traversal", "a.tar.gz", lambda: _tar([(_info("x/../../evil.py", size=1), b"x")]), "goes up a folder"),
    ("tar absolute", "a.tar.gz", lambda: _tar([(_info("/etc/cron.d/evil", size=1), b"x")]), "absolute path"),
    ("tar symlink", "a.tar.gz", lambda: _tar([(_info("l", tarfile.SYMTYPE, link="/etc/passwd"), None)]), "a link"),
    ("tar hard link", "a.tar.gz", lambda: _tar([(_info("l", tarfile.LNKTYPE, link="/etc/passwd"), None)]), "a link"),
    ("tar device", "a.tar.gz", lambda: _tar([(_info("dev", tarfile.CHRTYPE), None)]), "not a regular file"),
    ("tar fifo", "a.tar.gz", lambda: _tar([(_info("fifo", tarfile.FIFOTYPE), None)]), "not a regular file"),
    ("control character", "a.zip", lambda: _zip({"a\nb.py": b"x"}), "control character"),
    ("zip bomb", "bomb.zip", lambda: _zip({"zeros": bytes(60 * 2**20)}), "decompression bomb"),
    ("too many files", "many.tar.gz",
     lambda: _tar([(_info(f"f{i}", size=0), b"") for i in range(100_000)], mode="w:gz"), f"more than {MAX_FILES:,}"),
    ("not a zip", "a.zip", lambda: b"PK\x03\x04garbage", "not a readable zip"),
    ("empty", "a.py", lambda: b"", "empty"),
]


@pytest.mark.parametrize(("name", "filename", "make", "words"), CASES, ids=[c[0] for c in CASES])
def test_hostile_archives_are_refused_in_one_sentence(tmp_path: Path, name: str, filename: str, make, words: str):
    (tmp_path / "sentinel").write_text("untouched")
    dest = tmp_path / "staging" / "v"
    with pytest.raises(UnpackError) as info:
        unpack(make(), filename, dest)
    message = str(info.value)
    assert words in message and "\n" not in message and message.startswith("refused")
    assert _outside(tmp_path, dest) == []
    assert (tmp_path / "sentinel").read_text() == "untouched"
    assert not Path("/tmp/evil.py").exists()


def test_prepare_leaves_nothing_behind_on_refusal(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    staging.mkdir()
    with pytest.raises(UnpackError):
        prepare(_zip({"../x": b"1"}), "a.zip", staging)
    assert list(staging.iterdir()) == []


def test_archive_with_one_top_folder_and_bot_toml(tmp_path: Path) -> None:
    data = _zip({"mybot/bot.toml": b'command = "python main.py"\n', "mybot/main.py": b"print(1)\n"})
    staging = tmp_path / "s"
    staging.mkdir()
    got = prepare(data, "mybot.zip", staging)
    assert got.command == "python main.py" and sorted(got.files) == ["bot.toml", "main.py"]
    same = prepare(data, "again.zip", staging)
    assert same.sha256 == got.sha256  # versions are named by content


@pytest.mark.slow
def test_a_2_gb_file_is_refused_after_the_limit_without_writing_it(tmp_path: Path) -> None:
    import gzip

    class Zeros(io.RawIOBase):
        def __init__(self, n: int) -> None:
            self.left = n

        def readable(self) -> bool:
            return True

        def readinto(self, b) -> int:  # noqa: ANN001
            n = min(len(b), self.left)
            b[:n] = bytes(n)
            self.left -= n
            return n

    size = 2 * 2**30
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
        tar.addfile(_info("huge.bin", size=size), io.BufferedReader(Zeros(size), 2**20))
    dest = tmp_path / "v"
    with pytest.raises(UnpackError) as info:
        unpack(raw.getvalue(), "huge.tar.gz", dest)
    assert "decompression bomb" in str(info.value) or "more than 100 MiB" in str(info.value)
    assert sum(p.stat().st_size for p in dest.rglob("*") if p.is_file()) <= 100 * 2**20 + 2**20
