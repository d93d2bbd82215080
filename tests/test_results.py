"""The results store: durable appends, torn lines, manifests, partial match directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.results import MatchRecord, ResultsError, ResultsStore, compress_file, read_hands, read_records
from harness.specs import MatchResult


def record(match_id: str, net: int = 5) -> MatchRecord:
    result = MatchResult(
        match_id=match_id, seed=1, hands_played=2, bots=["a", "b"], net=[net, -net],
        hand_nets=[[net, -net], [0, 0]], faults=[{}, {"timeout": 1}], status=["ok", "ok"], duration_s=0.5,
    )
    return MatchRecord(table=0, rotation=1, big_blind=10, result=result)


MANIFEST = {"fingerprint": "abc", "name": "t"}


def test_records_round_trip(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "out")
    assert store.open(MANIFEST) == {}
    store.append(record("m1"))
    store.append(record("m2", net=-3))
    assert read_records(tmp_path / "out") == [record("m1"), record("m2", net=-3)]
    again = ResultsStore(tmp_path / "out").open(MANIFEST)
    assert list(again) == ["m1", "m2"] and again["m2"] == record("m2", net=-3)
    assert json.loads((tmp_path / "out" / "tournament.json").read_text()) == MANIFEST


def test_torn_last_line_is_ignored_and_cut_before_the_next_append(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open(MANIFEST)
    store.append(record("m1"))
    line = json.dumps(record("m2").to_dict())
    with open(store.results_path, "a") as fh:
        fh.write(line[: len(line) // 2])  # the process died mid-write
    assert [r.match_id for r in read_records(tmp_path)] == ["m1"]
    reopened = ResultsStore(tmp_path)
    assert list(reopened.open(MANIFEST)) == ["m1"]
    reopened.append(record("m2"))
    assert [r.match_id for r in read_records(tmp_path)] == ["m1", "m2"]
    assert store.results_path.read_text().count("\n") == 2


def test_duplicate_record_counts_once(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open(MANIFEST)
    store.append(record("m1", net=5))
    store.append(record("m1", net=7))
    assert read_records(tmp_path) == [record("m1", net=5)]


def test_damaged_middle_line_is_an_error(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open(MANIFEST)
    with open(store.results_path, "a") as fh:
        fh.write("garbage\n")
    store.append(record("m1"))
    with pytest.raises(ResultsError, match="line 1"):
        ResultsStore(tmp_path).open(MANIFEST)


def test_other_tournament_is_refused(tmp_path: Path) -> None:
    ResultsStore(tmp_path).open(MANIFEST)
    with pytest.raises(ResultsError, match="different tournament.*new --out"):
        ResultsStore(tmp_path).open({"fingerprint": "xyz"})


def test_missing_results_file(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="no results file"):
        read_records(tmp_path)


def test_fresh_match_dir_removes_partial_output(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open(MANIFEST)
    path = store.fresh_match_dir("m1")
    (path / "hands.jsonl").write_text('{"hand_id": 0}\n')
    (path / "logs").mkdir()
    again = store.fresh_match_dir("m1")
    assert again == path and list(again.iterdir()) == []


def test_compressed_hand_history_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text('{"hand_id": 0, "net": [1, -1]}\n{"hand_id": 1, "net": [0, 0]}\n')
    gz = compress_file(path)
    assert gz.name == "hands.jsonl.gz" and not path.exists()
    assert read_hands(gz) == [{"hand_id": 0, "net": [1, -1]}, {"hand_id": 1, "net": [0, 0]}]
