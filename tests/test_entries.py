"""Entry checks: real bots start once and play a few hands before the first match; failures are left out."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.tournament.config import parse_config
from harness.tournament.runner import NotEnoughBots, run_tournament
from tests.runner_helpers import fake_play

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]


def class_config(tmp_path: Path, bots: dict[str, str], *, out: Path | None = None):  # noqa: ANN201
    """A tournament of real bot commands (the matches themselves are faked in these tests)."""
    data = {
        "tournament": {"name": "class", "output": str(out or tmp_path / "out"), "compress": False},
        "schedule": {"hands": 3, "jobs": 2},
        "limits": {"decision_ms": 3000, "startup_ms": 30000},  # generous: good bots pass at any load
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
    assert re.search(rf"its stderr: {re.escape(str(out / 'entries' / 'crash' / 'logs'))}/[01]-crash\.err", err)
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
    text = "[tournament]\nname = \"class\"\n[limits]\nstartup_ms = 30000\n"
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


def _field(tmp_path: Path, bots: dict[str, tuple[str, dict[str, str]]], *, hands: int, limits: dict[str, int],
           sandbox: str = "auto"):  # noqa: ANN202
    data = {
        "tournament": {"name": "field", "output": str(tmp_path / "out"), "compress": False},
        "schedule": {"hands": hands, "jobs": 2},
        "limits": limits,
        "sandbox": {"mode": sandbox},
        "bots": [{"name": name, "command": command, "cwd": str(ROOT), "env": env}
                 for name, (command, env) in bots.items()],
    }
    return parse_config(data, tmp_path / "field.toml")


def test_the_entry_check_looks_like_a_match_so_a_bot_cannot_behave_only_for_it(tmp_path: Path) -> None:
    """A bot that behaves when it thinks it is being checked (opponents named check-*, a short match, an
    odd id, seat 0 at 3 seats) and attacks otherwise attacks in the check too, and is left out; an honest
    recorder sees the check exactly as its matches: same match_start settings and seat count, opponents
    named after entries, an id shaped like theirs, no message shape its matches do not have."""
    spot, record = tmp_path / "spotter.jsonl", tmp_path / "recorder.jsonl"
    fixture = "python -m tests.fixtures.hostile.spotter"
    cfg = _field(tmp_path, {
        "spotter": (fixture, {"SPOT_LOG": str(spot)}),
        "recorder": (fixture, {"SPOT_LOG": str(record), "SPOT_HONEST": "1"}),
        "caller": ("python -m bots.caller", {}),
        "raiser": ("python -m bots.raiser", {}),
    }, hands=12, limits={"decision_ms": 2000, "max_faults": 1000}, sandbox="off")  # off: the fixture logs
    summary = run_tournament(cfg, progress=False)
    assert set(summary.entries.failed) == {"spotter"}, summary.entries.entries
    assert "malformed" in summary.entries.failed["spotter"].reason or "illegal" in summary.entries.failed[
        "spotter"].reason
    assert [json.loads(line)["check"] for line in spot.read_text().splitlines()] == [False]  # fooled: it attacked
    assert summary.complete and summary.matches_run == 6
    check, *matches = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(matches) == 4 and not check["check"]
    same = ("hands", "limits", "game", "starting_stack", "stack_mode", "type", "v")
    for match in matches:
        assert sorted(check["start"]) == sorted(match["start"])
        assert {k: check["start"].get(k) for k in same} == {k: match["start"].get(k) for k in same}
        assert len(check["start"]["names"]) == len(match["start"]["names"]) == 2
    opponents = [n for n in check["start"]["names"] if n != "recorder"]
    assert opponents and set(opponents) <= {"spotter", "caller", "raiser"}
    from tests.fixtures.hostile.spotter import MATCH_ID

    assert MATCH_ID.match(check["start"]["match_id"]) and check["start"]["hands"] == 12
    for kind, shapes in check["shapes"].items():
        seen = {s for match in matches for s in match["shapes"].get(kind, [])}
        assert set(shapes) <= seen, kind


def test_an_honest_slow_bot_passes_on_the_time_bank_and_a_bot_that_fails_is_told_which_limit(
        tmp_path: Path) -> None:
    """A bot thinking 60 ms per decision with 50 ms per decision: the tournament's 10 s time bank covers it in
    the check as in its matches; with a 20 ms bank it times out, and the reason gives the limit and its parts."""
    steady = ("python -m tests.fixtures.broken_bots.steady", {"THINK_MS": "60"})
    bots = {"steady": steady, "caller": ("python -m bots.caller", {})}
    roomy = _field(tmp_path, bots, hands=12, limits={"decision_ms": 50, "time_bank_ms": 10_000})
    summary = run_tournament(roomy, play=fake_play, progress=False)
    assert summary.entries.passed == ["steady", "caller"], summary.entries.failed
    assert summary.entries.entries["steady"].decision_ms >= 60  # it did use the bank
    tight = _field(tmp_path / "tight", bots, hands=12, limits={"decision_ms": 50, "time_bank_ms": 20})
    with pytest.raises(NotEnoughBots):
        run_tournament(tight, play=fake_play, progress=False)
    entries = json.loads((tmp_path / "tight" / "out" / "entries.json").read_text())["bots"]
    reason = entries["steady"]["reason"]
    assert "timeout " in reason, reason  # (and, with 10 of them, put out: max_faults)
    assert re.search(r"timeout: no reply with seq \d+ within \d+ ms \(50 ms per decision \+ \d+ ms left of the "
                     r"20 ms time bank(; its slowest reply so far took \d+ ms)?\)", reason), reason
    slowest = re.search(r"slowest reply so far took (\d+) ms", reason)
    assert slowest is None or int(slowest.group(1)) >= 60  # None: its very first reply was already too late
