"""A throw-away PostgreSQL cluster (the server's bench and tests): ``initdb`` in a temporary folder, listening on
a free port of 127.0.0.1 with ``trust`` authentication, stopped (``pg_ctl stop -m immediate``) and removed by
:meth:`TemporaryPostgres.stop`. As root its programs run as ``nobody`` (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg

from harness.errors import HarnessError


class PostgresUnavailable(HarnessError):
    """No PostgreSQL could be made here (not installed, or ``initdb``/``pg_ctl`` failed): one line saying why."""


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class TemporaryPostgres:
    """A running cluster; :meth:`database` makes a fresh, empty database and returns its URL.

    Raises:
        PostgresUnavailable: ``initdb`` and ``pg_ctl`` were not found, or one failed (nothing is left behind).
    """

    def __init__(self) -> None:
        initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
        if not initdb or not pg_ctl:
            raise PostgresUnavailable("initdb and pg_ctl were not found (PostgreSQL is not installed)")
        self.pg_ctl = pg_ctl
        self.folder = Path(tempfile.mkdtemp(prefix="harness-pg-"))
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
            self.prefix = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
        self.port = _free_port()
        self.data = self.folder / "data"
        self.started = False
        try:
            self._run([initdb, "-D", str(self.data), "-U", "harness", "--auth=trust", "-E", "UTF8", "--no-sync"])
            options = f"-c listen_addresses=127.0.0.1 -c port={self.port} " \
                      f"-c unix_socket_directories={self.folder} -c fsync=off"
            self._run([pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"])
            self.started = True
        except BaseException:
            self.stop()
            raise

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run([*self.prefix, *argv], capture_output=True, text=True, timeout=120,
                              cwd=self.folder)
        if done.returncode != 0:
            detail = " ".join((done.stderr or done.stdout).split())[-300:]
            raise PostgresUnavailable(f"{Path(argv[0]).name} failed: {detail}")

    def database(self) -> str:
        """A new empty database: its SQLAlchemy URL (``postgresql://harness@127.0.0.1:PORT/NAME``)."""
        name = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=harness dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql://harness@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the cluster at once and remove its folder (idempotent)."""
        if self.started:
            subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
                           capture_output=True, timeout=60)
            self.started = False
        shutil.rmtree(self.folder, ignore_errors=True)
