"""``harness report`` over a damaged hand history: the report is written with what could be read, each damaged
history is one stderr line naming the file and the line, and the exit status is 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import GameConfig
from tests.history_helpers import random_match


def _match_folder(folder: Path, damage: Any = None) -> None:
    """A match folder as ``harness match --out`` leaves it (result.json, hands.jsonl), line 2 ``damage``d."""
    records = random_match(GameConfig(), seats=2, hands=4, seed=11, match_id="m")
    folder.mkdir()
    nets = [[p["net"] for p in r["players"]] for r in records]
    result = {"match_id": "m", "seed": 1, "hands_played": len(records), "bots": records[0]["match"]["bots"],
              "net": [sum(n[k] for n in nets) for k in range(2)], "hand_nets": nets, "faults": [{}, {}],
              "status": ["ok", "ok"], "big_blind": 10}
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    lines = [json.dumps(r) + "\n" for r in records]
    if damage is not None:
        lines[1] = damage(lines[1])
    (folder / "hands.jsonl").write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "said"),
    [(lambda line: line[:70] + "\n", "not valid JSON"),
     (lambda line: '{"record_version": 2, "hand_id": 1}\n', "not a hand record of this harness")],
    ids=["cut-short", "not-a-record"],
)
def test_a_damaged_history_is_reported_written_and_exits_1(tmp_path: Path, damage: Any, said: str) -> None:
    folder = tmp_path / "m"
    _match_folder(folder, damage)
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 1, result.output
    assert "report:" in result.stdout and (folder / "report" / "index.html").is_file()  # written all the same
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"harness report: not a hand history: {folder / 'hands.jsonl'} line 2: {said}"), lines
    assert "Traceback" not in result.output
    page = (folder / "report" / "matches" / "m.html").read_text(encoding="utf-8")
    assert "The hand history cannot be read" in page and "line 2" in page


def test_a_sound_history_exits_0(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    _match_folder(folder)
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_a_tournaments_match_folder_points_to_the_tournament(tmp_path: Path) -> None:
    """A tournament's matches/<id> holds the runner's result.json (no match settings): one line saying where the
    report is made, not a KeyError."""
    from harness.tournament.results import MANIFEST_FILE

    folder = tmp_path / "league" / "matches" / "m"
    folder.parent.mkdir(parents=True)
    _match_folder(folder)
    (tmp_path / "league" / MANIFEST_FILE).write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    assert result.stderr == (f"harness report: {folder} is one match of the tournament in {tmp_path / 'league'}: "
                             f"run harness report {tmp_path / 'league'} (its report has a page for every match)\n")
