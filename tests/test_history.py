"""Hand-history JSON Lines writer and reader (harness/history.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.history import HistoryError, HistoryWriter, engine_part, read_history, without_volatile


@pytest.mark.parametrize("name", ["hands.jsonl", "hands.jsonl.gz"])
def test_round_trip_plain_and_gzip(tmp_path: Path, name: str) -> None:
    records = [{"hand_id": i, "net": [i, -i], "bots": ["a", "b"], "timings_ms": [[0, 0.5]]} for i in range(5)]
    path = tmp_path / "sub" / name
    with HistoryWriter(path) as w:
        for r in records:
            w.write(r)
    assert list(read_history(path)) == records


def test_each_hand_is_on_disk_as_soon_as_written(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    w = HistoryWriter(path)
    w.write({"hand_id": 0})
    assert path.read_text() == '{"hand_id":0}\n'
    w.close()


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text('{"hand_id": 0}\n\n{"hand_id": 1, "net": [\n')
    with pytest.raises(HistoryError, match=r"hands.jsonl:3"):
        list(read_history(path))
    path.write_text("[1, 2]\n")
    with pytest.raises(HistoryError, match="JSON object"):
        list(read_history(path))


def test_engine_part_and_volatile_keys() -> None:
    rec = {"hand_id": 3, "seed": 9, "bots": ["a"], "match_seats": [0], "timings_ms": [[0, 1.0]], "faults": [], "match_id": "m"}
    assert engine_part(rec) == {"hand_id": 3, "seed": 9}
    assert "timings_ms" not in without_volatile(rec) and "faults" in without_volatile(rec)
