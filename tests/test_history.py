"""Hand-history JSON Lines writer and reader (harness/history/files.py): the file layer, lines as written.

Reading records in the current shape (upgrading version 1) is tested in tests/test_history_format.py.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.history.files import (
    HistoryError,
    HistoryWriter,
    numbered_lines,
    record_problem,
    without_volatile,
)


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a history file as written (no upgrade, no shape check)."""
    for _, record in numbered_lines(path):
        yield record


@pytest.mark.parametrize("name", ["hands.jsonl", "hands.jsonl.gz"])
def test_round_trip_plain_and_gzip(tmp_path: Path, name: str) -> None:
    records = [{"hand_id": i, "net": [i, -i], "bots": ["a", "b"], "timings_ms": [[0, 0.5]]} for i in range(5)]
    path = tmp_path / "sub" / name
    with HistoryWriter(path) as w:
        for r in records:
            w.write(r)
    assert list(read_lines(path)) == records


def test_each_hand_is_on_disk_as_soon_as_written(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    w = HistoryWriter(path)
    w.write({"hand_id": 0})
    assert path.read_text() == '{"hand_id":0}\n'
    w.close()


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text('{"hand_id": 0}\n\n{"hand_id": 1, "net": [\n')
    with pytest.raises(HistoryError, match=r"hands.jsonl line 3: not valid JSON") as info:
        list(read_lines(path))
    assert info.value.line == 3 and not info.value.cut_off
    path.write_text('{"hand_id": 0, "bots": ["a\n{"x": 1}\n')  # a string cut off, then more lines
    with pytest.raises(HistoryError) as info:
        list(read_lines(path))
    assert "starting at column" in str(info.value) and " at at " not in str(info.value)
    path.write_text("[1, 2]\n")
    with pytest.raises(HistoryError, match="JSON object"):
        list(read_lines(path))


def test_without_volatile_drops_each_decision_time_only() -> None:
    rec = {"hand_id": 3, "actions": [{"index": 0, "kind": "call", "ms": 1.5}, {"index": 1, "ms": None}]}
    assert without_volatile(rec) == {"hand_id": 3, "actions": [{"index": 0, "kind": "call"}, {"index": 1}]}
    assert rec["actions"][0]["ms"] == 1.5  # the record itself is left as it was


def test_binary_file_is_named_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "garb.jsonl"
    path.write_bytes(b'{"hand_id": 0}\n' + b"\x8d\xff\x00binary" + os.urandom(64))
    with pytest.raises(HistoryError, match=r"garb.jsonl line 2: not UTF-8 text") as info:
        list(read_lines(path))
    assert not info.value.cut_off and str(info.value).startswith("not a hand history: ")


def test_cut_off_gzip_yields_the_lines_before_then_says_so(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl.gz"
    with HistoryWriter(path) as w:
        for i in range(400):
            w.write({"hand_id": i, "pad": os.urandom(40).hex()})
    data = path.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    got: list[int] = []
    with pytest.raises(HistoryError, match=r"cut.jsonl.gz line \d+: the compressed data ends early") as info:
        for record in read_lines(cut):
            got.append(record["hand_id"])
    assert info.value.cut_off and str(info.value).startswith("damaged hand history: ")
    assert got == list(range(len(got))) and 0 < len(got) < 400
    assert info.value.line == len(got) + 1


def test_gzip_is_recognised_by_content_and_plain_text_named_gz_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(gzip.compress(b'{"hand_id": 1}\n'))
    (tmp_path / "b.jsonl.gz").write_text('{"hand_id": 2}\n')
    assert list(read_lines(tmp_path / "a.jsonl")) == [{"hand_id": 1}]
    assert list(read_lines(tmp_path / "b.jsonl.gz")) == [{"hand_id": 2}]


def test_cut_off_last_line_differs_from_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text('{"hand_id": 0}\n\n{"hand_id": 1, "net": [1,')
    assert next(numbered_lines(path)) == (1, {"hand_id": 0})
    with pytest.raises(HistoryError, match="line 3: the last line is cut off") as info:
        list(read_lines(path))
    assert info.value.cut_off


def _record(**changes: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "hand_id": 0, "seed": 5, "config": {"big_blind": 10}, "stacks": [1000, 1000], "button": 0,
        "actions": [{"seat": 0, "action": "call", "amount": 5}], "bots": ["a", "b"], "match_seats": [0, 1],
        "match_id": "m", "faults": [], "timings_ms": [[0, 0.5]],
    }
    rec.update(changes)
    return {k: v for k, v in rec.items() if v is not ...}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"hand_id": "x"}, 'hand_id: expected a whole number >= 0, got a string ("x")'),
        ({"hand_id": True}, "hand_id: expected a whole number >= 0, got true/false"),
        ({"seed": ...}, "missing field(s) seed"),
        ({"bots": [1, 2]}, "bots[0]: expected a bot name (one line of printable text, 1 to 64 characters), "
                           "got a number (1)"),
        ({"bots": ["a"]}, "bots: 1 entries for 2 seats"),
        ({"config": ["x"]}, "config: expected an object of game settings, got a list"),
        ({"actions": ["fold"]}, "actions[0]: expected an object"),
        ({"actions": [{"seat": "0", "action": "call"}]}, "actions[0].seat: expected a whole number >= 0, got a string"),
        ({"stacks": "1000"}, "stacks: expected a list, got a string"),
        ({"match_id": 3}, "match_id: expected a match id (one line of printable text, at most 256 characters), "
                          "got a number"),
    ],
)
def test_record_problem_names_the_field(changes: dict[str, Any], words: str) -> None:
    assert record_problem(_record()) is None
    problem = record_problem(_record(**changes))
    assert problem is not None and words in problem
    assert "Error" not in problem and "'str' object" not in problem
