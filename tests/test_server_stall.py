"""One student's large version never stalls the server for everyone (a real ``harness serve``).

The version's code is streamed off the event loop, and its page lists a bounded number of files.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

pytest.importorskip("starlette")

from harness.server.contest import load_contest  # noqa: E402
from harness.server.folders import FILES_SHOWN as LIST_LIMIT  # noqa: E402
from tests.server_helpers import (  # noqa: E402
    RAISER,
    Served,
    contest_file,
    free_port,
    links,
    upload,
    version_state,
    wait_for,
)

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def _admitted_folder(server: Served, client: httpx.Client, contest: Path) -> tuple[int, Path]:
    vid = upload(client, "bot.py", RAISER.encode()).json()["id"]
    wait_for(lambda: version_state(client, vid)["state"] == "admitted")
    folders = [p.parent for p in load_contest(contest).data.rglob("bot.py") if "staging" not in p.parts]
    assert len(folders) == 1, folders
    return vid, folders[0]


def _holds_open(pid: int, path: Path) -> bool:
    fds = Path(f"/proc/{pid}/fd")
    for fd in fds.iterdir():
        try:
            if os.readlink(fd) == os.fspath(path):
                return True
        except OSError:
            continue
    return False


def test_healthz_answers_while_a_large_version_is_downloading(tmp_path: Path) -> None:
    """The server still reads the large file (the archive is not built yet) when /healthz answers.

    Before, the archive was built whole in memory on the event loop: /healthz waited until it was done."""
    contest = contest_file(tmp_path, students=("alice",))
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        client = server.client(urls["alice"])
        vid, folder = _admitted_folder(server, client, contest)
        big = (folder / "big.bin").resolve()
        with open(big, "wb") as f:  # incompressible, far more than socket buffers and the stream's queue
            for _ in range(160):
                f.write(os.urandom(2**20))
        with client.stream("GET", f"/versions/{vid}/code") as answer:
            assert answer.status_code == 200
            first = next(answer.iter_raw())
            assert first
            wait_for(lambda: _holds_open(server.proc.pid, big))  # the archive is being written
            assert httpx.get(server.url + "/healthz", timeout=300).status_code == 200
            assert _holds_open(server.proc.pid, big), "the archive was finished before /healthz answered"
    finally:
        server.stop()


def test_a_version_of_many_files_lists_the_first_and_counts_the_rest(tmp_path: Path) -> None:
    contest = contest_file(tmp_path, students=("alice",))
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        client = server.client(urls["alice"])
        vid, folder = _admitted_folder(server, client, contest)
        many = folder / "many"
        many.mkdir()
        for i in range(LIST_LIMIT + 100):
            (many / f"f{i:05d}").write_bytes(b"")
        page = client.get(f"/versions/{vid}").text
        assert page.count("<li><code>") == LIST_LIMIT
        more = re.search(r"and ([0-9,]+) more files", page)
        assert more, page
        total = sum(1 for p in folder.rglob("*") if p.is_file())
        assert LIST_LIMIT + int(more.group(1).replace(",", "")) == total
    finally:
        server.stop()
