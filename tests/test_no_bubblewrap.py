"""The commands on a machine without bubblewrap (CI has it, a fresh machine may not).

bubblewrap is found on ``PATH`` (:func:`harness.host.sandbox.support`,
``shutil.which("bwrap")``), so these tests hide it: ``PATH`` becomes one
directory holding a link to every program of the real ``PATH`` except
``bwrap``, and the cached probe is cleared. There, a usage mistake is still
one line on stderr and exit status 2, nothing written (README), and the
sandbox's WARNING comes only when bots really start, once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.host import sandbox as sb
from tests.sandbox_helpers import path_without

REPO = Path(__file__).resolve().parents[1]
CALLERS = ["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller"]
WARNING = "WARNING: bots are NOT fully isolated: bubblewrap is not installed"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hidden_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A ``PATH`` of one directory: every program of today's ``PATH`` but ``bwrap``."""
    return path_without(tmp_path_factory.mktemp("no-bwrap-bin"), "bwrap")


@pytest.fixture
def no_bwrap(hidden_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process without bubblewrap, in an empty working directory; the probe is cleared before and after."""
    monkeypatch.setenv("PATH", hidden_path)
    monkeypatch.chdir(tmp_path)
    sb.support.cache_clear()
    try:
        assert shutil.which("bwrap") is None and sb.support().bwrap is None, "bwrap is still found"
        yield tmp_path
    finally:
        sb.support.cache_clear()  # the next test probes the real PATH again


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def tournament(where: Path, *extra: str) -> Path:
    path = where / "t.toml"
    path.write_text("[schedule]\nhands = 2\njobs = 1\n" + "".join(extra) + "".join(
        f'[[bots]]\nname = "{n}"\ncommand = "python -m bots.caller"\ncwd = "{REPO}"\n' for n in "ab"))
    return path


def files_under(where: Path) -> list[Path]:
    return sorted(p for p in where.rglob("*") if p.name != "t.toml")


def foreign_out(where: Path) -> Path:
    """An output directory holding a file of someone else's."""
    out = where / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n")
    return out


@pytest.mark.parametrize(
    ("case", "args", "words"),
    [
        ("match-out-is-a-file", ["match", *CALLERS, "--out", "f.txt"], "harness match: --out f.txt: "),
        ("match-bad-hands", ["match", *CALLERS, "--hands", "0"], "harness match: --hands must be at least 1"),
        ("match-required", ["match", *CALLERS, "--sandbox", "required"],
         'harness match: [sandbox] mode = "required" but the sandbox cannot run here: bubblewrap is not installed'),
        ("check-bot-hands", ["check-bot", "--hands", "0", "--", "python", "-m", "bots.caller"],
         "harness check-bot: --hands must be at least 1, got 0"),
        ("check-bot-out-is-a-file", ["check-bot", "--out", "f.txt", "--", "python", "-m", "bots.caller"],
         "harness check-bot: --out f.txt: "),
        ("check-bot-required", ["check-bot", "--sandbox", "required", "--", "python", "-m", "bots.caller"],
         'harness check-bot: [sandbox] mode = "required" but the sandbox cannot run here'),
        ("run-foreign-out", ["run", "TOML", "--out", "mine"], "harness run: --out mine: the directory holds"),
        ("run-out-is-a-file", ["run", "TOML", "--out", "f.txt"], "harness run: --out f.txt: "),
        ("run-required", ["run", "TOML", "--sandbox", "required"],
         'harness run: [sandbox] mode = "required" but the sandbox cannot run here'),
        ("run-seeded-foreign-out", ["run", "TOML", "--out", "mine", "--seed", "7"],
         "harness run: --out mine: the directory holds"),
        ("plan-foreign-out", ["plan", "TOML", "--out", "mine"], "harness plan: --out mine: the directory holds"),
    ],
)
def test_a_usage_mistake_is_one_line_without_bubblewrap(
    no_bwrap: Path, case: str, args: list[str], words: str
) -> None:
    (no_bwrap / "f.txt").write_text("a file\n")
    foreign_out(no_bwrap)
    before = files_under(no_bwrap)
    args = [str(tournament(no_bwrap)) if a == "TOML" else a for a in args]
    code, out, err = invoke(*args)
    assert code == 2, (out, err)
    assert err.startswith(words) and err.count("\n") == 1, err
    assert "WARNING" not in err and "warning" not in err and "notice" not in err
    assert files_under(no_bwrap) == before, "a usage error wrote files"


def test_match_warns_once_when_its_bots_start(no_bwrap: Path) -> None:
    code, out, err = invoke("match", *CALLERS, "--hands", "2", "--out", "m", "--seed", "7")
    assert code == 0, (out, err)
    lines = err.splitlines()
    assert [ln.startswith(f"harness match: {WARNING}") for ln in lines].count(True) == 1, err
    assert lines[0].startswith(f"harness match: {WARNING}")  # then the seed's warning
    assert '"off" (--sandbox off) to silence this' in lines[0], lines[0]  # no tournament file here: the option
    assert "2 hands in" in out


def test_check_bot_warns_once_when_its_bots_start(no_bwrap: Path) -> None:
    code, out, err = invoke("check-bot", "--hands", "2", "--", "python", "-m", "bots.caller")
    assert code == 0, (out, err)
    assert err.count(WARNING) == 1 and err.startswith(f"harness check-bot: {WARNING}"), err
    assert "passes" in out.lower() or "ok" in out.lower(), out


def test_run_warns_once_before_the_entry_check_and_not_when_no_bot_starts(no_bwrap: Path) -> None:
    toml = tournament(no_bwrap)
    code, out, err = invoke("run", str(toml), "--out", "out", "--seed", "7")
    assert code == 0, (out, err)
    lines = err.splitlines()
    warned = [i for i, ln in enumerate(lines) if WARNING in ln]
    assert len(warned) == 1, err
    first_check = next(i for i, ln in enumerate(lines) if ln.startswith("entry check:"))
    assert warned[0] < first_check, err  # said before the first bot starts
    seed = [i for i, ln in enumerate(lines) if ln.startswith("harness run: warning: --seed = 7")]
    assert len(seed) == 1 and seed[0] < first_check, err
    assert "2/2 matches recorded" in out
    # Again: every match recorded, both bots' entry checks kept: no bot starts, so nothing to warn about.
    code, out, err = invoke("run", str(toml), "--out", "out", "--seed", "7")
    assert code == 0, (out, err)
    assert WARNING not in err and "--seed = 7" not in err, err


def test_a_fresh_process_without_bwrap_on_path(hidden_path: str, tmp_path: Path) -> None:
    """The installed command itself, in a new process whose PATH has no bwrap: one line, then a played match."""
    env = {**os.environ, "PATH": hidden_path}
    harness = [sys.executable, "-m", "harness.cli"]
    (tmp_path / "f.txt").write_text("a file\n")
    bad = subprocess.run([*harness, "match", *CALLERS, "--out", "f.txt"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert bad.stderr.startswith("harness match: --out f.txt: ")
    good = subprocess.run([*harness, "match", *CALLERS, "--hands", "2", "--out", "m"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert good.returncode == 0, good.stderr
    assert good.stderr.startswith(f"harness match: {WARNING}") and good.stderr.count(WARNING) == 1, good.stderr
