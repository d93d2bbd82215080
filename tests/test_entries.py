"""Entry checks: real bots start once and play a few hands before the first match; failures are left out."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.tournament.config import parse_config
from harness.tournament.runner import NotEnoughBots, run_tournament
from tests.test_runner_fakes import fake_play

ROOT = Path(__file__).resolve().parents[1]


def class_config(tmp_path: Path, bots: dict[str, str], *, out: Path | None = None):  # noqa: ANN201
    """A tournament of real bot commands (the matches themselves are faked in these tests)."""
    data = {
        "tournament": {"name": "class", "output": str(out or tmp_path / "out"), "compress": False},
        "schedule": {"hands": 3, "jobs": 2},
        "limits": {"decision_ms": 1000, "startup_ms": 4000},
        "bots": [{"name": name, "command": command, "cwd": str(ROOT if "-m" in command else tmp_path)}
                 for name, command in bots.items()],
    }
    return parse_config(data, tmp_path / "class.toml")


def broken_entries(tmp_path: Path) -> dict[str, str]:
    tmp_path.chmod(0o755)  # entries readable by the bots' own uids (the sandbox, as root)
    (tmp_path / "badimport.py").write_text("import a_module_nobody_installed\n")
    (tmp_path / "crash.py").write_text("raise RuntimeError('crashed on start')\n")
    return {
        "good_caller": "python -m bots.caller",
        "missing": "python no_such_file.py",
        "badimport": "python badimport.py",
        "crash": "python crash.py",
        "breaker": "python -m tests.fixtures.broken_bots.garbage",
        "good_raiser": "python -m bots.raiser",
    }


def test_the_entry_check_leaves_out_each_broken_bot_with_its_reason_and_keeps_the_good_ones(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    cfg = class_config(tmp_path, broken_entries(tmp_path))
    summary = run_tournament(cfg, play=fake_play, progress=False)
    out = tmp_path / "out"
    assert list(summary.entries.passed) == ["good_caller", "good_raiser"]
    assert summary.plan.bots == ("good_caller", "good_raiser") and summary.complete and summary.matches_run == 2
    failed = summary.entries.failed
    assert set(failed) == {"missing", "badimport", "crash", "breaker"}
    assert failed["missing"].reason.startswith("failed to start (exited before its hello (exit status 2))")
    assert "can't open file" in failed["missing"].stderr_tail
    assert "No module named 'a_module_nobody_installed'" in failed["badimport"].reason
    assert "RuntimeError: crashed on start" in failed["crash"].reason and "Traceback" in failed["crash"].stderr_tail
    assert failed["breaker"].reason.startswith("malformed ")
    # printed at once, before the plan, with the tail of the bot's stderr and the path of its log
    err = capfd.readouterr().err
    assert err.index("entry check: bot 'missing' is left out") < err.index("plan: 2 bots")
    assert f"its stderr: {out / 'entries' / 'crash' / 'logs' / '0-crash.err'}" in err
    assert "  | RuntimeError: crashed on start" in err
    # kept in entries.json, and listed below the ranked bots with the reason
    kept = json.loads((out / "entries.json").read_text())["bots"]
    assert {name for name, e in kept.items() if not e["ok"]} == set(failed)
    rows = list(csv.DictReader((out / "leaderboard.csv").read_text().splitlines()))
    assert [r["bot"] for r in rows[:2]] == ["good_caller", "good_raiser"] and rows[0]["rank"] == "1"
    assert {r["bot"]: r["rank"] for r in rows[2:]} == dict.fromkeys(failed, "")
    assert next(r for r in rows if r["bot"] == "crash")["note"].startswith("failed its entry check: failed to start")
    # a rerun checks only the bots that failed: the good ones passed with the same setup
    again = run_tournament(cfg, play=fake_play, quiet=True)
    assert not again.entries.entries["good_caller"].checked and again.entries.entries["crash"].checked
    assert again.matches_run == 0


def test_fewer_than_two_working_bots_stops_before_any_match(tmp_path: Path) -> None:
    bots = broken_entries(tmp_path)
    del bots["good_raiser"], bots["breaker"], bots["badimport"]
    path = tmp_path / "class.toml"
    text = "[tournament]\nname = \"class\"\n[limits]\nstartup_ms = 4000\n"
    for name, command in bots.items():
        cwd = ROOT if "-m" in command else tmp_path
        text += f'[[bots]]\nname = "{name}"\ncommand = "{command}"\ncwd = "{cwd}"\n'
    path.write_text(text)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "harness run: " in result.output and "only 1 of 3 bots passed the entry check" in result.output
    assert not (out / "results.jsonl").read_text() and not list((out / "matches").iterdir())
    assert json.loads((out / "entries.json").read_text())["bots"]["crash"]["ok"] is False
    with pytest.raises(NotEnoughBots):
        run_tournament(class_config(tmp_path, bots, out=out), play=fake_play, quiet=True)
