"""The compiled hot path and its pure-Python fallback (harness._native, setup.py).

The rest of the suite runs whatever the install built (compiled where a C
compiler was at hand). Here: a match played with every module from its
``.py`` (``HARNESS_PURE_PYTHON=1``, what a machine without a compiler runs)
writes the same hand history and result as the same match played with the
build's compiled modules; and a compiled module whose source changed after its
build is never the one imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import _native
from harness.match.history import VOLATILE_KEYS

ROOT = Path(__file__).resolve().parents[1]

#: Plays a short match in a fresh interpreter; prints which modules ran compiled, the result and the history.
MATCH = r"""
import json, sys
from pathlib import Path
from harness import _native
from harness.engine import GameConfig
from harness.match.referee import BotSpec, Limits, MatchSpec, play_match
from harness.match.history import read_history
root, out = Path(sys.argv[1]), Path(sys.argv[2])
bots = [BotSpec(n, (sys.executable, "-m", f"bots.{n}"), cwd=str(root), env={"RANDOM_BOT_SEED": "7"})
        for n in ("raiser", "solid", "random_bot")]
spec = MatchSpec(GameConfig(ante=1), hands=40, seed=2026, stack_mode="freezeout", starting_stack=300)
result = play_match(bots, spec, Limits(startup_ms=20000), out)
print(json.dumps({"compiled": _native.compiled(), "net": result.net, "faults": result.faults,
                  "hands": list(read_history(out / "hands.jsonl"))}))
"""


def _without_times(hands: list[dict]) -> list[dict]:
    for record in hands:
        for key in VOLATILE_KEYS:
            record.pop(key, None)
        for action in record.get("actions", []):
            action.pop("ms", None)
    return hands


def _env(pure: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != _native.PURE_ENV}
    if pure:
        env[_native.PURE_ENV] = "1"
    return env


def _play(tmp: Path, pure: bool) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MATCH, str(ROOT), str(tmp)], env=_env(pure), cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_pure_python_and_compiled_play_the_same_match(tmp_path: Path) -> None:
    pure = _play(tmp_path / "pure", pure=True)
    assert pure["compiled"] == []  # every module from its source
    native = _play(tmp_path / "native", pure=False)
    # Compiled: exactly the modules built from their current source (none without a C compiler).
    assert native["compiled"] == [m for m in _native.COMPILED if _native.fresh(m)]
    assert pure["net"] == native["net"] and pure["faults"] == native["faults"]
    assert _without_times(pure["hands"]) == _without_times(native["hands"])
    assert len(pure["hands"]) > 10


def test_an_extension_built_from_another_source_is_never_imported(tmp_path: Path) -> None:
    """A manifest that names other sources: every compiled module is stale and imports from its .py."""
    manifest = tmp_path / "_native.sha256"
    manifest.write_text("".join(f"{name} {'0' * 64}\n" for name in _native.COMPILED))
    script = (
        "import sys, json; from harness import _native; _native.MANIFEST = sys.argv[1]; "
        "import harness.engine.state, harness.match.referee; "
        "print(json.dumps([_native.compiled(), harness.match.referee.__file__]))"
    )
    done = subprocess.run([sys.executable, "-c", script, str(manifest)], env=_env(False), cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    compiled, referee_file = json.loads(done.stdout)
    assert compiled == [] and referee_file == _native.source("harness.match.referee")


@pytest.mark.parametrize("built_from", ["this source", "another source", "no record"])
def test_the_finder_judges_each_module_by_the_source_its_extension_was_built_from(
    monkeypatch: pytest.MonkeyPatch, built_from: str
) -> None:
    """Independent of the build: an extension beside the source is used only if built from that very source."""
    name = "harness.match.wire"
    sha = {"this source": _native.digest(_native.source(name)), "another source": "0" * 64}.get(built_from)
    monkeypatch.setattr(_native, "extension", lambda n: "/nowhere/wire.so")
    monkeypatch.setattr(_native, "read_manifest", lambda path=None: {} if sha is None else {name: sha})
    spec = _native.SourceFirst(pure=False).find_spec(name)
    if built_from == "this source":
        assert spec is None  # left to the normal import: the extension
    else:
        assert spec is not None and spec.origin == _native.source(name)
    assert _native.SourceFirst(pure=False).find_spec("harness.match.outdir") is None  # never compiled
    pure = _native.SourceFirst(pure=True).find_spec(name)
    assert pure is not None and pure.origin == _native.source(name)
