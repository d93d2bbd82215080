"""A throw-away PostgreSQL cluster for the server's tests (Debian's ``postgresql``), or a loud skip.

The cluster is made by ``initdb`` in a temporary folder, listens on a free
port of 127.0.0.1 with ``trust`` authentication, and is stopped (``pg_ctl stop
-m immediate``) when the test session ends. As root the server programs run as
``nobody`` (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import NoReturn

from tests.server_helpers import free_port
from tests.skip_helpers import skip_loudly as skip_loudly_with


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def skip_loudly(reason: str) -> NoReturn:
    message = (f"POSTGRESQL TESTS NOT RUN: {reason}. Install Debian's postgresql (apt-get install -y postgresql), "
               "as make test does when run as root.")
    skip_loudly_with(message)


class Cluster:
    """A running cluster; :meth:`database` makes a fresh, empty database and returns its URL."""

    def __init__(self) -> None:
        initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
        if not initdb or not pg_ctl:
            skip_loudly("initdb and pg_ctl were not found")
        self.pg_ctl = pg_ctl
        self.folder = Path(tempfile.mkdtemp(prefix="harness-pg-"))
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
            self.prefix = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
        self.port = free_port()
        data = self.folder / "data"
        self._run([initdb, "-D", str(data), "-U", "harness", "--auth=trust", "-E", "UTF8", "--no-sync"])
        options = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder} " \
                  "-c fsync=off"
        self._run([pg_ctl, "-D", str(data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"])
        self.data = data

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run([*self.prefix, *argv], capture_output=True, text=True, timeout=120,
                              cwd=self.folder)
        if done.returncode != 0:
            skip_loudly(f"{Path(argv[0]).name} failed: {(done.stderr or done.stdout).strip()[-300:]}")

    def database(self) -> str:
        import psycopg

        name = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=harness dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql://harness@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.folder, ignore_errors=True)
