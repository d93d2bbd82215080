"""docs/researchers.md: its Python example runs as written (the shipped PPO weights evaluated on duplicate deals) and
the example bot plays a match."""

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


def test_the_example_evaluates_the_shipped_weights_and_the_bot_plays(tmp_path: Path) -> None:
    """The guide's Python block (the shipped PPO weights against solid on duplicate deals) runs as written and
    prints what the guide shows: the policy beating both baselines; its bot plays a match over the protocol."""
    text = (ROOT / "docs" / "researchers.md").read_text(encoding="utf-8")
    (example,) = [b for b in re.findall(r"^```python\n(.*?)^```", text, re.S | re.M) if "PpoPolicy" in b]
    script = tmp_path / "example.py"
    script.write_text(example)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    # the policy and both baselines on the same duplicate deals, each with its interval, and the verdicts
    for name in ("policy", "check_fold", "always_call"):
        assert re.search(rf"^{name} +[-+]?[0-9.]+ bb/100 \(95% ", done.stdout, re.M), done.stdout
    printed = re.search(r"^(policy +[-+][0-9.]+ bb/100 .*)$", done.stdout, re.M)
    assert printed is not None and printed.group(1) in text, "the guide shows another result than the run"
    for name in ("check_fold", "always_call"):
        assert f"the policy beats {name}" in done.stdout, done.stdout
    match = subprocess.run(
        [sys.executable, "-m", "harness.cli", "match", "--sandbox", "off", "--hands", "10", "--seed", "3",
         "--bot", f"ppo={sys.executable} -m examples.ppo_policy", "--bot", f"solid={sys.executable} -m bots.solid",
         "--out", str(tmp_path / "m")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert match.returncode == 0, match.stderr
    assert "Traceback" not in (tmp_path / "m" / "logs" / "0-ppo.err").read_text()
