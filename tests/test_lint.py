"""The code stays ruff-clean under the configuration in pyproject.toml ([tool.ruff])."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATHS = ("harness", "protocol", "bots", "tests", "tools", "examples")


@pytest.mark.skipif(
    importlib.util.find_spec("ruff") is None,
    reason="ruff is not installed; install the test extras: pip install -e '.[test]'",
)
def test_ruff_check_is_clean() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"ruff check {' '.join(PATHS)} found problems:\n{done.stdout}{done.stderr}"
