"""check_history: replays engine-made hands from plain and gzip files; reports bad lines and tampering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.engine import GameConfig, HandState
from harness.history import HistoryWriter
from harness.referee import hand_seed
from harness.replay import check_history


def played_hand(h: int) -> dict[str, Any]:
    state = HandState.start(GameConfig(), [1000, 1000, 1000], h % 3, hand_seed(1, h), h)
    while state.to_act is not None:
        state.apply(state.default_action())
    record = state.record()
    record.update(match_id="m", bots=["a", "b", "c"], match_seats=[0, 1, 2], timings_ms=[], faults=[])
    return record


@pytest.mark.parametrize("name", ["hands.jsonl", "hands.jsonl.gz"])
def test_every_hand_replays(tmp_path: Path, name: str) -> None:
    with HistoryWriter(tmp_path / name) as w:
        for h in range(5):
            w.write(played_hand(h))
    checks = list(check_history(tmp_path / name))
    assert [(c.hand_id, c.ok) for c in checks] == [(h, True) for h in range(5)]


def test_tampered_and_unreadable_lines_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    bad = played_hand(1)
    bad["button"] = 2
    with HistoryWriter(path) as w:
        w.write(played_hand(0))
        w.write(bad)
    with open(path, "a") as f:
        f.write('{"hand_id": 2, "seed": \n')
    checks = list(check_history(path))
    assert [c.ok for c in checks] == [True, False, False]
    assert checks[1].hand_id == 1 and checks[1].detail
    assert "hands.jsonl:3" in checks[2].detail
