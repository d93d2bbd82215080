"""``harness bench env --anchors`` without its anchors installed: one notice line per anchor left out, no traceback,
and our figures still printed (a real subprocess; OpenSpiel and RLCard hidden by modules that refuse to import).
The figures' values are not judged: no test measures time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
pytest.importorskip("gymnasium", reason=_EXTRA)

ROOT = Path(__file__).resolve().parent.parent


def test_missing_anchors_are_one_line_each_and_our_figures_still_print(tmp_path: Path) -> None:
    for name in ("pyspiel", "rlcard"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('hidden by the test', name={name!r})\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "harness.cli", "bench", "env", "--anchors", "--json",
                           "--seconds", "0.02"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("harness bench env: notice: OpenSpiel's universal_poker not measured: pyspiel is not "
                               "installed (pip install open_spiel")
    assert lines[1].startswith("harness bench env: notice: RLCard's limit hold'em not measured: rlcard is not "
                               "installed (pip install rlcard")
    figures = json.loads(done.stdout)
    assert figures["steps_per_s"] > 0 and figures["anchors_ours_steps_per_s"] > 0
    assert not [k for k in figures if "openspiel" in k or "rlcard" in k]
