"""Hostile submissions: each refused (or stopped) with its one-sentence message, nothing written outside its folder.

Path traversal, absolute paths, symlinks and hard links, devices, a zip bomb,
100,000 files, 60,000 empty folders, every shape of clashing or empty name,
a 2 GB file (slow) and a chunked upload past the limit. Builds: tests/test_server_builds.py.
"""

from __future__ import annotations

import io
import os
import tarfile
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from harness.host.trees import MAX_DEPTH
from harness.server.submission import prepare
from harness.server.unpack import MAX_ENTRIES, MAX_UPLOAD, UnpackError, unpack
from tests.server_helpers import served_contest, upload

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
     lambda: _tar([(_info(f"f{i}", size=0), b"") for i in range(100_000)], mode="w:gz"), f"more than {MAX_ENTRIES:,}"),
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


def _zip_entries(names: list[str]) -> bytes:
    """A zip of these members, in this order (a name ending in / is a folder; a file holds b"x"), written by hand
    (APPNOTE 4.3: stored members), as zipfile refuses to write an empty name."""
    import struct
    import zlib

    local, central = bytearray(), bytearray()
    for name in names:
        raw = name.encode()
        body = b"" if name.endswith("/") else b"x"
        crc = zlib.crc32(body)
        attr = ((0o40755 << 16) | 0x10) if name.endswith("/") else (0o100644 << 16)
        offset = len(local)
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc, len(body), len(body), len(raw), 0)
        local += raw + body
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0, 0, 0, 0, crc, len(body), len(body),
                               len(raw), 0, 0, 0, 0, attr, offset)
        central += raw
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(names), len(names), len(central), len(local), 0)
    return bytes(local + central + end)


def _tar_entries(names: list[str]) -> bytes:
    return _tar([(_info(n, tarfile.DIRTYPE), None) if n.endswith("/") else (_info(n, size=1), b"x")
                 for n in names])


SHAPES = [
    ("file then folder", ["a", "a/"], "both a file and a folder"),
    ("folder then file", ["a/", "a"], "both a file and a folder"),
    ("file then a file inside it", ["a", "a/b.py"], "both a file and a folder"),
    ("a file inside then the file", ["a/b.py", "a"], "both a file and a folder"),
    ("duplicate file", ["bot.py", "bot.py"], "appears twice"),
    ("duplicate through ./", ["bot.py", "./bot.py"], "appears twice"),
    ("duplicate through //", ["d/bot.py", "d//bot.py"], "appears twice"),
    ("names differing in case", ["Bot.py", "bot.py"], "differ only in case"),
    ("folders differing in case", ["Lib/a.py", "lib/b.py"], "differ only in case"),
    ("empty name", ["", "bot.py"], "no file name"),
    ("a dot as a file", [".", "bot.py"], "no file name"),
]


# a tar cannot hold an empty name (it writes "./", a folder): the "." case is its empty name
SHAPE_CASES = [(fmt, *shape) for shape in SHAPES for fmt in ("zip", "tar") if not (fmt == "tar" and "" in shape[1])]


@pytest.mark.parametrize(("fmt", "shape", "names", "words"), SHAPE_CASES, ids=[f"{c[1]}-{c[0]}" for c in SHAPE_CASES])
def test_every_archive_shape_gets_a_one_line_refusal(tmp_path: Path, fmt: str, shape: str, names: list[str],
                                                     words: str) -> None:
    data = _zip_entries(names) if fmt == "zip" else _tar_entries(names)
    with pytest.raises(UnpackError) as info:
        unpack(data, f"a.{'zip' if fmt == 'zip' else 'tar.gz'}", tmp_path / "v")
    message = str(info.value)
    assert words in message and "\n" not in message and message.startswith("refused"), message


def test_dot_folders_and_repeated_folders_are_fine(tmp_path: Path) -> None:
    files = unpack(_zip_entries(["./", "d/", "d/", "d/bot.py", "d/e/"]), "a.zip", tmp_path / "v")
    assert files == ["d/bot.py"]


@pytest.mark.parametrize("fmt", ["zip", "tar"])
def test_60000_empty_folders_are_refused_after_counting_at_most_the_limit(tmp_path: Path, fmt: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders count as entries: the refusal comes before more than MAX_ENTRIES folders are made (the work is
    counted in folders made, not timed)."""
    names = [f"d{i}/" for i in range(60_000)] + ["bot.py"]
    data = _zip_entries(names) if fmt == "zip" else _tar_entries(names)
    made: list[str] = []
    real_mkdir = os.mkdir

    def counting_mkdir(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        made.append(os.fspath(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", counting_mkdir)
    with pytest.raises(UnpackError) as info:
        unpack(data, f"a.{'zip' if fmt == 'zip' else 'tar.gz'}", tmp_path / "v")
    assert f"more than {MAX_ENTRIES:,} files and folders" in str(info.value)
    assert len(made) <= MAX_ENTRIES + 1  # the version's own folder, then at most the limit


def test_implied_folders_count_too(tmp_path: Path) -> None:
    names = [f"d{i}/bot.py" for i in range(MAX_ENTRIES // 2 + 5)]  # fewer members than the limit, twice the entries
    with pytest.raises(UnpackError) as info:
        unpack(_zip_entries(names), "a.zip", tmp_path / "v")
    assert f"more than {MAX_ENTRIES:,} files and folders" in str(info.value)
    assert not (tmp_path / "v" / "d0").exists()  # refused from the listing, before anything was written


def test_a_name_too_long_for_the_disk_is_a_refusal(tmp_path: Path) -> None:
    with pytest.raises(UnpackError) as info:
        unpack(_zip_entries(["x" * 300 + ".py"]), "a.zip", tmp_path / "v")
    message = str(info.value)
    assert message.startswith("refused") and "File name too long" in message and str(tmp_path) not in message


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


def test_an_upload_over_the_limit_never_gets_a_false_size(tmp_path: Path) -> None:
    """unpack is handed at most MAX_UPLOAD + 1 bytes by the server: its message gives the limit, no figure."""
    with pytest.raises(UnpackError) as info:
        unpack(bytes(MAX_UPLOAD + 1), "big.bin", tmp_path / "v")
    assert str(info.value) == "refused: the upload is more than 20 MiB; at most 20 MiB are accepted."


def test_chunked_and_sized_uploads_over_the_limit_over_http(tmp_path: Path) -> None:
    """A chunked 64 MiB upload (no Content-Length) and a sized one are both refused with 413 and the true words;
    the server stops reading the chunked one past the limit and stays up."""
    with served_contest(tmp_path) as (server, urls):
        alice = server.client(urls["alice"])
        boundary = "b0undary"
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode()

        def chunks():  # noqa: ANN202
            yield head
            for _ in range(64):
                yield bytes(2**20)
            yield f"\r\n--{boundary}--\r\n".encode()

        answer = alice.post("/submit", content=chunks(), headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}", "Accept": "application/json"})
        assert answer.status_code == 413
        assert answer.json()["error"] == "refused: the upload is more than 20 MiB; at most 20 MiB are accepted."
        sized = upload(server.client(urls["alice"]), "big.bin", bytes(MAX_UPLOAD + 2**20))
        assert sized.status_code == 413 and "more than 20 MiB" in sized.json()["error"]
        assert server.client(urls["alice"]).get("/healthz").text == "ok"
        log = server.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log, log


def test_the_60000_folder_zip_and_the_file_folder_clash_are_refusals_over_http(tmp_path: Path) -> None:
    with served_contest(tmp_path) as (server, urls):
        alice = server.client(urls["alice"])
        answer = upload(alice, "clash.zip", _zip_entries(["bot.py", "a", "a/"]), "python bot.py")
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "refused: 'a' is both a file and a folder in the archive."
        folders = _zip_entries([f"d{i}/" for i in range(60_000)] + ["bot.py"])
        answer = upload(alice, "folders.zip", folders, "python bot.py")
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"].startswith(f"refused: more than {MAX_ENTRIES:,} files and folders")
        assert not any((tmp_path / "contest-t" / "staging").iterdir())  # nothing left behind
        log = server.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log and "FileExistsError" not in log, log


@pytest.mark.parametrize(("command", "files", "words"), [
    ("/srv/contest/bot", {"bot.py": b"pass\n"}, "the command's program '/srv/contest/bot'"),
    ("../other/bot", {"bot.py": b"pass\n"}, "the command's program '../other/bot'"),
    ("~teacher/bin/python bot.py", {"bot.py": b"pass\n"}, "the command's program '~teacher/bin/python'"),
    ("./bot", {"bot": b"#!/srv/contest/data/versions/7/bot\n"},
     "bot: its #! line names '/srv/contest/data/versions/7/bot'"),
    ("python bot.py", {"bot.py": b"pass\n", "run": b"#!/usr/../srv/x\n"}, "run: its #! line names '/usr/../srv/x'"),
])
def test_a_command_or_interpreter_outside_the_folder_and_the_system_is_refused(
        tmp_path: Path, command: str, files: dict[str, bytes], words: str) -> None:
    """The sandbox shows a bot its program and #! interpreter with their folder: a path of the server's there would
    show the student that folder, so the submission is refused in one sentence and nothing is left."""
    with pytest.raises(UnpackError) as info:
        prepare(_zip(files), "bot.zip", tmp_path / "staging", command=command)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert not any((tmp_path / "staging").iterdir())


@pytest.mark.parametrize(("command", "files"), [
    ("python bot.py", {"bot.py": b"#!/usr/bin/env python3\npass\n"}),
    ("./bot", {"bot": b"#!/bin/sh\nexec python3 bot.py\n", "bot.py": b"pass\n"}),
    ("./run.sh", {"run.sh": b"#!/usr/bin/python3\n", "lib/tool": b"#!./interp\n"}),
    ("java -cp .:/usr/share/java/zmq.jar Bot", {"Bot.class": b"\xca\xfe"}),
])
def test_commands_and_interpreters_in_the_folder_or_the_system_are_accepted(
        tmp_path: Path, command: str, files: dict[str, bytes]) -> None:
    assert prepare(_zip(files), "bot.zip", tmp_path / "staging", command=command).command == command


def _peak_bytes(call) -> tuple[int, BaseException | None]:  # noqa: ANN001
    """The most memory Python allocated while ``call()`` ran (tracemalloc), and what it raised."""
    tracemalloc.start()
    try:
        call()
        raised = None
    except BaseException as exc:  # noqa: BLE001
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, raised


def _long_header_tar(fmt: int, *, link: bool = False) -> bytes:
    """A .tar.gz of one member whose name (or link name) is 32 MiB of 'a': a GNU ``L``/``K`` header or a pax one."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=fmt) as tar:
        long = "a" * (32 * 2**20)
        info = tarfile.TarInfo("link" if link else long)
        if link:
            info.type, info.linkname = tarfile.SYMTYPE, long
            tar.addfile(info)
        else:
            info.size = 2
            tar.addfile(info, io.BytesIO(b"hi"))
    return buf.getvalue()


@pytest.mark.parametrize(("fmt", "link"), [(tarfile.GNU_FORMAT, False), (tarfile.GNU_FORMAT, True),
                                           (tarfile.PAX_FORMAT, False), (tarfile.PAX_FORMAT, True)],
                         ids=["gnu-long-name", "gnu-long-link", "pax-path", "pax-linkpath"])
def test_a_huge_long_name_or_pax_header_is_refused_unread(tmp_path: Path, fmt: int, link: bool) -> None:
    """A 32 KiB upload whose header announces a 32 MiB name: refused from the header's size field, with a few
    hundred KiB allocated (tarfile would read the whole name into memory)."""
    data = _long_header_tar(fmt, link=link)
    assert len(data) < 64 * 1024
    peak, raised = _peak_bytes(lambda: unpack(data, "a.tar.gz", tmp_path / "v"))
    assert isinstance(raised, UnpackError), raised
    assert "header of 33,554,4" in str(raised) and "\n" not in str(raised)
    assert peak < 4 * 2**20, peak


def test_a_chain_of_extended_headers_is_refused_not_recursed(tmp_path: Path) -> None:
    """3,000 GNU long-name headers in a row (each one a level of tarfile's recursion): a one-line refusal."""
    info = tarfile.TarInfo("n" * 200 + "/bot.py")
    info.size = 0
    whole = info.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
    extended = whole[:-tarfile.BLOCKSIZE]  # the L header and its name blocks, without the member's own header
    raw = extended * 3000 + whole + bytes(2 * tarfile.BLOCKSIZE)
    with pytest.raises(UnpackError) as info_:
        unpack(raw, "a.tar", tmp_path / "v")
    assert "extended headers in a row" in str(info_.value)


def test_a_sparse_member_is_refused(tmp_path: Path) -> None:
    info = _info("bot.py", tarfile.GNUTYPE_SPARSE)
    with pytest.raises(UnpackError) as info_:
        unpack(_tar([(info, b"")], mode="w"), "a.tar", tmp_path / "v")
    assert "sparse" in str(info_.value)


def test_a_zip_of_100000_entries_is_refused_from_its_raw_directory(tmp_path: Path) -> None:
    """The central directory is counted from its bytes: no ZipInfo is made for 100,000 entries (each costs
    hundreds of bytes), so the refusal allocates a few MiB at most."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for i in range(100_000):
            z.writestr(f"{i}", b"")
    data = buf.getvalue()
    assert len(data) < MAX_UPLOAD
    peak, raised = _peak_bytes(lambda: unpack(data, "a.zip", tmp_path / "v"))
    assert isinstance(raised, UnpackError) and f"more than {MAX_ENTRIES:,} files" in str(raised), raised
    assert peak < 8 * 2**20, peak


@pytest.mark.parametrize("field", ["extra", "comment"])
def test_a_zip_entry_with_a_huge_extra_field_or_comment_is_refused(tmp_path: Path, field: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("bot.py")
        if field == "extra":
            info.extra = (0xCAFE).to_bytes(2, "little") + (60_000).to_bytes(2, "little") + bytes(60_000)
        else:
            info.comment = b"c" * 60_000
        z.writestr(info, b"pass\n")
    with pytest.raises(UnpackError) as info_:
        unpack(buf.getvalue(), "a.zip", tmp_path / "v")
    assert "extra field or comment longer than" in str(info_.value)


@pytest.mark.parametrize("fmt", ["zip", "tar"])
def test_a_tree_deeper_than_the_limit_is_refused_before_anything_is_written(tmp_path: Path, fmt: str) -> None:
    names = ["a/" * 1100 + "bot.py"]
    data = _zip_entries(names) if fmt == "zip" else _tar_entries(names)
    with pytest.raises(UnpackError) as info:
        unpack(data, f"a.{'zip' if fmt == 'zip' else 'tar.gz'}", tmp_path / "v")
    message = str(info.value)
    assert f"at most {MAX_DEPTH} levels" in message and "\n" not in message
    assert not (tmp_path / "v" / "a").exists()
    files = unpack(_tar_entries(["a/" * (MAX_DEPTH - 1) + "bot.py"]), "a.tar.gz", tmp_path / "ok")
    assert files == ["a/" * (MAX_DEPTH - 1) + "bot.py"]


def test_deep_and_long_header_uploads_are_one_line_400s_over_http(tmp_path: Path) -> None:
    """POST /submit with 1,100 nested folders, and with a 32 MiB GNU long name: 400 with one line each, no
    traceback in the server's log, nothing left in staging."""
    with served_contest(tmp_path) as (server, urls):
        alice = server.client(urls["alice"])
        answer = upload(alice, "deep.tar.gz", _tar_entries(["a/" * 1100 + "bot.py"]), "python bot.py")
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error.startswith("refused:") and f"at most {MAX_DEPTH} levels" in error and "\n" not in error
        answer = upload(alice, "long.tar.gz", _long_header_tar(tarfile.GNU_FORMAT), "python bot.py")
        assert answer.status_code == 400, answer.text
        assert "long-name or pax header" in answer.json()["error"]
        assert not any((tmp_path / "contest-t" / "staging").iterdir())
        log = server.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log and "RecursionError" not in log, log
