"""Types are checked: mypy strict for the engine and the protocol, and no new error anywhere else.

The engine and the protocol are clean under ``mypy --strict``. The rest is held where it stands:
the count below is the number of errors left, and may only go down (lower it when you fix some).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install -e '.[test]'")

ROOT = Path(__file__).resolve().parents[1]
#: Errors still reported, by check; the test fails if a check reports more.
CEILINGS = {
    "default: harness, protocol, bots": 145,
}


def _errors(*args: str, cache: Path) -> tuple[int, str]:
    out, err, _status = api.run(["--cache-dir", str(cache), "--no-error-summary", *args])
    lines = [line for line in out.splitlines() if re.search(r": error: ", line)]
    return len(lines), "\n".join(lines[:40]) + err


@pytest.mark.slow
@pytest.mark.parametrize("package", ["harness/engine", "protocol"])
def test_clean_under_strict_mypy(package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    count, shown = _errors("--strict", package, cache=tmp_path)
    assert count == 0, shown


@pytest.mark.slow
@pytest.mark.parametrize("check", sorted(CEILINGS))
def test_no_new_type_errors(check: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    count, shown = _errors("harness", "protocol", "bots", cache=tmp_path)
    assert count <= CEILINGS[check], f"{count} mypy errors ({check}), at most {CEILINGS[check]}:\n{shown}"
