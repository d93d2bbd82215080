"""docs/researchers.md: its Python example runs as written (train, evaluate on duplicate deals, write a bot)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

pytest.importorskip("pettingzoo", reason="harness.rl needs the 'rl' extra (in the test extra too)")
pytest.importorskip("gymnasium", reason="harness.rl needs the 'rl' extra (in the test extra too)")

ROOT = Path(__file__).resolve().parents[1]


def test_the_example_trains_evaluates_and_writes_a_bot_that_plays(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "researchers.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", text, re.S)
    script = tmp_path / "example.py"
    script.write_text(example)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    # the policy and both baselines on the same duplicate deals, each with its interval, and the verdicts
    for name in ("policy", "check_fold", "always_call"):
        assert re.search(rf"^{name} +[-+]?[0-9.]+ bb/100 \(95% ", done.stdout, re.M), done.stdout
    assert re.search(r"^the policy (beats|LOSES to|does not clearly beat) check_fold", done.stdout, re.M), done.stdout
    match = subprocess.run(
        [sys.executable, "-m", "harness.cli", "match", "--sandbox", "off", "--hands", "10", "--seed", "3",
         "--bot", f"mine={sys.executable} policy_bot.py", "--bot", f"solid={sys.executable} -m bots.solid",
         "--out", str(tmp_path / "m")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert match.returncode == 0, match.stderr
    assert "Traceback" not in (tmp_path / "m" / "logs" / "0-mine.err").read_text()
