"""``harness leaderboard DIR`` on edited or incomplete output directories (trial finding D).

A record whose bots were edited is a damaged line (exit 2, its line named),
not a ValueError from the statistics; without ``tournament.json`` the plan is
unknown, so records superseded when a bot changed cannot be told from current
ones: the command refuses (exit 2) and leaves the files it would overwrite.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.tournament.results import MANIFEST_FILE, RESULTS_FILE
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config, fake_play


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["alice", "bob", "carol", "dave"], hands=4, jobs=1), play=fake_play,
                   progress=False, quiet=True)
    return out


def _leaderboard(out: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["leaderboard", str(out)])
    assert "Traceback" not in result.output and not isinstance(result.exception, ValueError), result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("edit", [
    lambda r: r["result"]["bots"].__setitem__(1, "zed"),  # an unknown name
    lambda r: r["result"].__setitem__("bots", r["result"]["bots"][::-1]) or r.__setitem__("table", "bob+carol"),
    lambda r: r["result"]["bots"].__setitem__(0, "\x1b[2Jalice"),  # not a name: nothing prints it
], ids=["unknown-bot", "moved-table", "escape-codes"])
def test_a_record_with_edited_bots_is_a_damaged_line(finished: Path, edit) -> None:  # noqa: ANN001
    path = finished / RESULTS_FILE
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])
    edit(record)
    lines[2] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    before = (finished / "leaderboard.md").read_bytes()
    code, out, err = _leaderboard(finished)
    assert code == 2 and out == ""
    assert f"{RESULTS_FILE}, line 3: match {record['match_id']}: " in err and "fix or remove that line" in err
    assert "its bots" in err or "is not a bot name" in err
    assert "\x1b" not in err
    assert err.count("\n") == 1
    assert (finished / "leaderboard.md").read_bytes() == before


def test_without_the_plan_the_leaderboard_is_refused_and_kept(finished: Path) -> None:
    (finished / MANIFEST_FILE).unlink()
    files = {p.name: p.read_bytes() for p in finished.glob("leaderboard.*")}
    code, out, err = _leaderboard(finished)
    assert code == 2 and out == ""
    assert f"{MANIFEST_FILE}: missing" in err and "superseded" in err and "harness run CONFIG --out" in err
    assert {p.name: p.read_bytes() for p in finished.glob("leaderboard.*")} == files
    assert files and (finished / RESULTS_FILE).stat().st_size > 0
