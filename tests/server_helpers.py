"""A real contest server for tests: ``harness serve`` (uvicorn) on 127.0.0.1 in its own process group."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from harness.tournament.config import toml_value

ROOT = Path(__file__).resolve().parents[1]
HARNESS = [sys.executable, "-c", "from harness.cli import app; app()"]
RAISER = (ROOT / "bots" / "raiser.py").read_text(encoding="utf-8")
CALLER = (ROOT / "bots" / "caller.py").read_text(encoding="utf-8")
BROKEN = "import nosuchmodule_for_the_test\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def contest_file(folder: Path, *, students: tuple[str, ...] = ("alice", "bob", "carol"), hands: int = 10,
                 jobs: int = 2, database: str = "", quota: int = 2, extra: str = "", cluster: str = "",
                 sandbox: str = "off", build_timeout_s: int = 3, ladder: str = "") -> Path:
    """A small, fast contest: heads-up, ``hands`` hands per match, the caller as house bot (``cluster``: the
    ladder plays on that Dask scheduler instead of ``jobs`` local workers; ``sandbox``: its ``[sandbox] mode``;
    ``ladder``: more ``[ladder]`` lines; ``extra``: more tables at the end)."""
    db_line = f'database = "{database}"\n' if database else ""
    slots = f'cluster = "{cluster}"' if cluster else f"jobs = {jobs}"
    text = (f'[contest]\nname = "t"\n{db_line}\n[ladder]\nhands = {hands}\ntable_size = 2\n{slots}\n'
            f"challenges_per_hour = {quota}\nbuild_timeout_s = {build_timeout_s}\n{ladder}\n"
            f"[sandbox]\nmode = \"{sandbox}\"\n\n"
            f'[[reference]]\nname = "caller"\ncommand = "python -m bots.caller"\ncwd = {toml_value(str(ROOT))}\n\n'
            + "".join(f'[[students]]\nname = "{s}"\n\n' for s in students) + extra)
    path = folder / "contest.toml"
    path.write_text(text, encoding="utf-8")
    return path


def links(contest: Path, port: int) -> dict[str, str]:
    """``{student: login url}`` (and ``admin``) from ``harness serve --links``."""
    out = subprocess.run([*HARNESS, "serve", str(contest), "--links", "--port", str(port)], capture_output=True,
                         text=True, check=True, cwd=contest.parent, timeout=300)
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0] == ["student", "url"]
    return dict(rows[1:])


class Served:
    """A running ``harness serve``; :meth:`stop` (or :meth:`kill9`) ends it and every process it started."""

    def __init__(self, contest: Path, port: int) -> None:
        self.contest, self.port = contest, port
        self.url = f"http://127.0.0.1:{port}"
        self.log = contest.parent / f"server-{port}-{time.monotonic_ns()}.log"
        self.proc = subprocess.Popen([*HARNESS, "serve", str(contest), "--port", str(port)], cwd=contest.parent,
                                     stdout=open(self.log, "wb"), stderr=subprocess.STDOUT,  # noqa: SIM115
                                     start_new_session=True)
        deadline = time.monotonic() + 300  # an outer limit: the wait is for /healthz
        while True:
            try:
                if httpx.get(self.url + "/healthz", timeout=30).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the server did not start: {self.log.read_text()}")
            time.sleep(0.2)

    def client(self, login: str | None = None) -> httpx.Client:
        """An HTTP client; with a login url, signed in as a person clicking it in web mail: the link (a client
        that does not say where it comes from) answers a page naming whose link it is and signs in nobody; its
        button posts to the link, which sets the session cookie and moves on (a browser's address bar then
        holds ``/``)."""
        client = httpx.Client(base_url=self.url, timeout=300)  # outer limits only
        if login:
            answer = client.get(login)
            assert answer.status_code == 200, answer.text
            assert 'id="sign-in"' in answer.text and "harness_session" not in client.cookies
            answer = client.post(login)
            assert answer.status_code == 200, answer.text
            assert 'http-equiv="refresh" content="0; url=/"' in answer.text
            assert "harness_session" in client.cookies
        return client

    def _group_gone(self) -> bool:
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return True
        return False

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reap()

    def kill9(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self._reap(grace=60)

    def _reap(self, grace: float = 60) -> None:
        deadline = time.monotonic() + grace
        while not self._group_gone() and time.monotonic() < deadline:
            time.sleep(0.1)
        if not self._group_gone():
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def wait_for(predicate, timeout: float = 300, every: float = 0.3):  # noqa: ANN001, ANN201
    """Poll ``predicate`` until it returns something true; fail after ``timeout`` seconds (an outer limit,
    generous: a machine at load 40 is many times slower than an idle one)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s")
        time.sleep(every)


def upload(client: httpx.Client, name: str, body: bytes, command: str = "", **form: str) -> httpx.Response:
    return client.post("/submit", files={"file": (name, body)}, data={"command": command, **form},
                       headers={"Accept": "application/json"})


def version_state(client: httpx.Client, vid: int) -> dict:
    return client.get(f"/api/versions/{vid}").json()


def deep_tree(top: Path, levels: int, name: str = "a", link: str = "/etc/shadow") -> None:
    """``top/name/name/...`` ``levels`` folders deep with a symbolic link ``sh`` to ``link`` at the bottom, made
    through folder descriptors (so deeper than PATH_MAX works): what ``mkdir -p`` and ``ln -s`` in a build
    leave. Remove it with :func:`harness.host.trees.remove_tree`: ``shutil.rmtree`` (and pytest's clean-up of
    old temp folders) recurses and fails on it."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
        os.symlink(link, "sh", dir_fd=fd)
    finally:
        os.close(fd)


def group_fds(pgid: int) -> list[str]:
    """Where the open file descriptors of every process of the process group ``pgid`` lead (readable ones)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                data = f.read()
            if int(data[data.rfind(b")") + 2:].split()[2]) != pgid:
                continue
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    found.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    continue
        except (OSError, ValueError, IndexError):
            continue
    return found


class Slots:
    """An executor that only records what the ladder submits (nothing runs)."""

    capacity = 2
    parallel = None

    def __init__(self) -> None:
        self.jobs: list[Any] = []

    def submit(self, job: Any) -> None:
        self.jobs.append(job)

    def running(self) -> list[Any]:
        return list(self.jobs)

    def wait(self, timeout: float) -> list[Any]:
        return []

    def stop(self) -> None:
        pass

    def describe(self) -> None:
        return None

    def live_hands(self, job: Any) -> None:
        return None

    def close(self) -> None:
        pass


@contextlib.contextmanager
def served_contest(folder: Path, **contest: Any) -> Iterator[tuple[Served, dict[str, str]]]:
    """A contest server (:func:`contest_file` in ``folder`` with ``contest``'s settings) on a free port of
    127.0.0.1, with its login links by student name; stopped afterwards, whatever happened."""
    path = contest_file(folder, **contest)
    port = free_port()
    urls = links(path, port)
    server = Served(path, port)
    try:
        yield server, urls
    finally:
        server.stop()
