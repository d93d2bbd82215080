"""Types are checked: ``mypy --strict`` over harness, protocol and bots.

The check must report no error (settings in pyproject.toml's ``[tool.mypy]``). No time limit of its own beyond
pytest-timeout's outer one: a cold run takes about a minute on an idle machine, many more on a busy one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install -e '.[test]'")

ROOT = Path(__file__).resolve().parents[1]

#: The checks: mypy's arguments each.
CHECKS = {
    "strict: harness, protocol, bots, examples": ("--strict", "harness", "protocol", "bots", "examples"),
}


@pytest.mark.slow
@pytest.mark.parametrize("check", sorted(CHECKS))
def test_mypy_reports_no_error(check: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out, err, _status = api.run(["--cache-dir", str(tmp_path), "--no-error-summary", *CHECKS[check]])
    errors = [line for line in out.splitlines() if re.search(r": error: ", line)]
    assert not errors, f"{len(errors)} mypy errors ({check}):\n" + "\n".join(errors[:40]) + err
