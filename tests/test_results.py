"""The results store: durable appends, torn lines, manifests, partial match directories, ownership."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.specs import MatchResult
from harness.tournament.results import (
    MARKER_FILE,
    MatchRecord,
    ResultsError,
    ResultsStore,
    check_out_dir,
    hand_history_path,
    read_hands,
    read_manifest,
    read_records,
    read_results,
)


def record(match_id: str, net: int = 5) -> MatchRecord:
    result = MatchResult(
        match_id=match_id, seed=1, hands_played=2, bots=["a", "b"], net=[net, -net],
        hand_nets=[[net, -net], [0, 0]], faults=[{}, {"timeout": 1}], status=["ok", "ok"], duration_s=0.5,
    )
    return MatchRecord(table="a+b", rotation=1, unit=10, result=result, rotations=2, fingerprint="f" * 64)


MANIFEST = {"format": 3, "name": "t"}


def test_a_match_folders_result_is_the_result_with_its_unit_as_big_blind() -> None:
    """``harness match``'s result.json: the MatchResult's fields and big_blind, read back as a record of one match."""
    rec = record("m1")
    data = rec.to_match_folder()
    assert data == {**rec.result.to_dict(), "big_blind": 10}
    again = MatchRecord.from_match_folder(json.loads(json.dumps(data)))
    assert (again.table, again.rotation, again.unit, again.result) == ("m1", 0, 10, rec.result)
    with pytest.raises(KeyError):
        MatchRecord.from_match_folder(rec.result.to_dict())


def test_records_round_trip(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "out")
    assert store.open() == {}
    store.append(record("m1"))
    store.append(record("m2", net=-3))
    store.close()
    assert read_records(tmp_path / "out") == [record("m1"), record("m2", net=-3)]
    again = ResultsStore(tmp_path / "out")
    assert list(again.open()) == ["m1", "m2"]
    again.write_manifest(MANIFEST)
    assert json.loads((tmp_path / "out" / "tournament.json").read_text()) == MANIFEST
    assert again.previous_manifest() == MANIFEST


def test_torn_last_line_is_ignored_and_cut_before_the_next_append(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open()
    store.append(record("m1"))
    line = json.dumps(record("m2").to_dict())
    with open(store.results_path, "a") as fh:
        fh.write(line[: len(line) // 2])  # the process died mid-write
    store.close()
    assert [r.match_id for r in read_records(tmp_path)] == ["m1"]
    reopened = ResultsStore(tmp_path)
    assert list(reopened.open()) == ["m1"]
    reopened.append(record("m2"))
    assert [r.match_id for r in read_records(tmp_path)] == ["m1", "m2"]
    assert store.results_path.read_text().count("\n") == 2


def test_duplicate_record_counts_once(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open()
    store.append(record("m1", net=5))
    store.append(record("m1", net=7))
    assert read_records(tmp_path) == [record("m1", net=5)]


def test_damaged_middle_line_is_an_error(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open()
    with open(store.results_path, "a") as fh:
        fh.write("garbage\n")
    store.append(record("m1"))
    store.close()
    with pytest.raises(ResultsError, match="line 1"):
        ResultsStore(tmp_path).open()


def test_a_directory_with_files_of_its_own_is_refused_untouched(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    (out / "matches" / "x").mkdir(parents=True)
    (out / "leaderboard.md").write_text("my notes\n")
    (out / "matches" / "x" / "keep.txt").write_text("precious\n")
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    with pytest.raises(ResultsError) as info:
        ResultsStore(out).open()
    message = str(info.value)
    assert "\n" not in message and f"--out {out}: the directory holds files this harness did not make" in message
    assert "leaderboard.md, matches" in message and "nothing was changed" in message
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert (out / "leaderboard.md").read_text() == "my notes\n"
    # an empty directory, a missing one and one of ours are fine
    (tmp_path / "empty").mkdir()
    for ok in (tmp_path / "empty", tmp_path / "new" / "dir"):
        check_out_dir(ok)
        with ResultsStore(ok) as store:
            store.open()
        assert (ok / MARKER_FILE).is_file()
        check_out_dir(ok)


def test_an_older_harness_directory_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "tournament.json").write_text("{}")
    (tmp_path / "results.jsonl").write_text("")
    with pytest.raises(ResultsError, match="older harness version"):
        check_out_dir(tmp_path)


def test_missing_results_file(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="no results file"):
        read_records(tmp_path)


def test_fresh_match_dir_removes_partial_output(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    store.open()
    path = store.fresh_match_dir("m1")
    (path / "hands.jsonl").write_text('{"hand_id": 0}\n')
    (path / "logs").mkdir()
    again = store.fresh_match_dir("m1")
    assert again == path and list(again.iterdir()) == []


def test_compressed_hand_history_is_found_and_reads_back(tmp_path: Path) -> None:
    from harness.history.files import HistoryWriter

    with HistoryWriter(tmp_path / "hands.jsonl.gz") as w:
        w.write({"record_version": 2, "hand_id": 0})
        w.write({"record_version": 2, "hand_id": 1})
    gz = hand_history_path(tmp_path)
    assert gz is not None and gz.name == "hands.jsonl.gz"
    assert read_hands(gz) == [{"record_version": 2, "hand_id": 0}, {"record_version": 2, "hand_id": 1}]


def test_a_second_store_on_the_same_directory_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    first = ResultsStore(tmp_path / "out")
    first.open()
    with pytest.raises(ResultsError, match=rf"out is in use by another harness run \(pid {os.getpid()}\)"):
        ResultsStore(tmp_path / "out").open()
    first.close()
    with ResultsStore(tmp_path / "out") as second:
        assert second.open() == {}


def test_the_lock_holds_across_processes_and_dies_with_its_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from harness.tournament.results import ResultsStore; "
         "ResultsStore(sys.argv[1]).open(); print('locked', flush=True); sys.stdin.read()",
         str(tmp_path / "out")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(ResultsError, match=rf"in use by another harness run \(pid {holder.pid}\)"):
            ResultsStore(tmp_path / "out").open()
    finally:
        holder.kill()
        holder.wait()
    with ResultsStore(tmp_path / "out") as store:  # a killed holder leaves no stale lock
        store.open()


def test_an_output_path_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text("x")
    with pytest.raises(ResultsError, match=r"base.toml is a file, not a directory; give a directory path"):
        ResultsStore(tmp_path / "base.toml").open()
    with pytest.raises(ResultsError, match=r"base.toml is a file, not a directory"):
        ResultsStore(tmp_path / "base.toml" / "sub").open()


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda d: d["result"].update(net=[1149, -149]), "does not sum to zero"),
        (lambda d: d["result"].update(net=[6, -6]), "not the sum of its hands"),
        (lambda d: d["result"]["hand_nets"].__setitem__(1, [3, 0]), "hand 1: nets [3, 0] do not sum to zero"),
        (lambda d: d["result"].update(hands_played=3), "hands_played is 3"),
        (lambda d: d["result"].update(status=["ok"]), "status has 1 entries for 2 bots"),
        (lambda d: d.update(result="x"), "not a match record"),
    ],
)
def test_records_whose_numbers_do_not_add_up_are_refused(tmp_path: Path, edit, words: str) -> None:  # type: ignore[no-untyped-def]
    good = json.dumps(record("m1").to_dict())
    bad = record("m2").to_dict()
    edit(bad)
    (tmp_path / "results.jsonl").write_text(good + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ResultsError) as info:
        read_records(tmp_path)
    assert "results.jsonl, line 2: " in str(info.value) and words in str(info.value)
    assert "fix or remove that line" in str(info.value)


def test_torn_last_line_and_duplicates_are_reported_as_notices(tmp_path: Path) -> None:
    line = json.dumps(record("m1").to_dict())
    (tmp_path / "results.jsonl").write_text(line + "\n" + line + "\n" + line[:30])
    stored = read_results(tmp_path)
    assert [r.match_id for r in stored.records] == ["m1"]
    assert len(stored.notices) == 2
    assert "line 2: a second record of match m1" in stored.notices[0]
    assert "line 3: incomplete last line" in stored.notices[1]
    (tmp_path / "results.jsonl").write_text(line + "\n")
    assert read_results(tmp_path).notices == []


def test_missing_directory_and_damaged_manifest_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="nosuchdir: no such directory"):
        read_records(tmp_path / "nosuchdir")
    with pytest.raises(ResultsError, match="nosuchdir: no such directory"):
        read_manifest(tmp_path / "nosuchdir")
    assert read_manifest(tmp_path) == {}
    (tmp_path / "tournament.json").write_text("{'name': 1}")
    with pytest.raises(ResultsError, match=r"tournament.json: unreadable \(Expecting property name"):
        read_manifest(tmp_path)
