"""Fixtures shared by several test modules: ``node_bot`` (bots/node with its npm packages installed),
``arena`` (a folder for hostile entries; whatever a bot left running there is killed afterwards) and
``pg_cluster`` (a real PostgreSQL in a temp folder, per module)."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.protocol_helpers import ROOT
from tests.sandbox_helpers import processes_with

NPM = shutil.which("npm")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Ctrl-C handled as at a terminal, whoever started the suite.

    A shell without job control starts a background command (``make test &``, ``nohup``) with SIGINT
    ignored, and an ignored signal survives exec: every process a test starts would then ignore the
    Ctrl-C the tests send (a Python child keeps SIG_IGN instead of raising KeyboardInterrupt). A handled
    signal is reset to its default at exec, so the children start as from a terminal.
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="module")
def node_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bots/node copied to a temporary directory with its dependencies installed."""
    work = tmp_path_factory.mktemp("node-bot") / "bot"
    shutil.copytree(ROOT / "bots" / "node", work, ignore=shutil.ignore_patterns("node_modules"))
    done = subprocess.run(
        [str(NPM), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"npm ci failed in {work}:\n{done.stdout}\n{done.stderr}"
    return work / "bot.js"


@pytest.fixture()
def arena(tmp_path: Path) -> Iterator[Path]:
    """Where the entries live (readable by the bots' uids, as an organiser sets them up); whatever a test
    bot left on the host is removed afterwards."""
    tmp_path.chmod(0o755)
    yield tmp_path
    for proc in processes_with(str(tmp_path)):
        proc.kill()


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[Any]:
    """A real PostgreSQL made in a temp folder for a module's tests (tests/postgres_helpers.py; skips loudly
    where PostgreSQL cannot be run), stopped after them."""
    from tests.postgres_helpers import Cluster

    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["python", "native"])
def both_engines(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test on the Python engine, then again with every hand mirrored in the native core
    (tests/native_core_helpers.py: same state after every action, same refusals, same result)."""
    if request.param == "native":
        from tests.skip_helpers import NATIVE_CORE_MISSING, native_core_missing, skip_loudly

        if native_core_missing():
            skip_loudly(NATIVE_CORE_MISSING)
        from tests.native_core_helpers import mirror_native  # needs harness_core: only where a test asks

        mirror_native(monkeypatch)
    return str(request.param)
