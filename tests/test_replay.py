"""check_history: replays engine-made hands from plain and gzip files; reports bad lines and tampering."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.history import record as handrecord
from harness.history.files import HistoryError, HistoryWriter
from harness.history.replay import HandCheck, check_history
from harness.history.v1 import build_record
from harness.match.referee import hand_seed
from tests.history_helpers import MATCH, as_version_2, played_hand


@pytest.mark.parametrize("name", ["hands.jsonl", "hands.jsonl.gz"])
def test_every_hand_replays(tmp_path: Path, name: str) -> None:
    with HistoryWriter(tmp_path / name) as w:
        for h in range(5):
            w.write(played_hand(h))
    checks = list(check_history(tmp_path / name))
    assert [(c.hand_id, c.ok) for c in checks] == [(h, True) for h in range(5)]


def test_tampered_hands_differ_and_an_unreadable_line_stops_the_check(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    bad = played_hand(1)
    bad["button"] = 2
    with HistoryWriter(path) as w:
        w.write(played_hand(0))
        w.write(bad)
    with open(path, "a") as f:
        f.write('{"hand_id": 2, "seed": \n')
    checks: list[HandCheck] = []
    with pytest.raises(HistoryError, match=r"hands.jsonl line 3: not valid JSON") as info:
        for check in check_history(path):  # a loop keeps the verdicts yielded before the error
            checks.append(check)  # noqa: PERF402
    assert [c.ok for c in checks] == [True, False]
    assert checks[1].hand_id == 1 and checks[1].detail
    assert not info.value.cut_off


def write_lines(path: Path, *lines: str | dict[str, Any]) -> Path:
    path.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines))
    return path


def cli_replay(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["replay", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_cli_prints_only_differing_hands_unless_verbose(tmp_path: Path) -> None:
    bad = played_hand(2)
    bad["players"][0]["net"] += 1
    bad["players"][1]["net"] -= 1
    path = write_lines(tmp_path / "h.jsonl", *(played_hand(h) for h in range(2)), bad, played_hand(3))
    code, out, err = cli_replay(str(path))
    assert code == 1 and err == ""
    assert out.splitlines()[0].startswith("hand 2: DIFFERS: ") and "net" in out
    assert out.splitlines()[1:] == ["3 of 4 hands replay identically; 1 differs"]
    code, out, _ = cli_replay("--verbose", str(path))
    assert code == 1 and "hand 0: OK" in out and "hand 3: OK" in out and len(out.splitlines()) == 5
    good = write_lines(tmp_path / "g.jsonl", *(played_hand(h) for h in range(3)))
    assert cli_replay(str(good))[:2] == (0, "3 of 3 hands replay identically\n")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("hello world", "not a hand history: {f} line 1: not valid JSON"),
        ("[1, 2]", "not a hand history: {f} line 1: expected a JSON object (one hand record), got a list"),
        ('{"foo": 1}', "not a hand history: {f} line 1: missing field(s) hand_id, seed"),
        ("", "no hands in {f}"),
        ("\n\n", "no hands in {f}"),
    ],
    ids=["text", "list", "object", "empty", "blank"],
)
def test_cli_a_file_that_is_not_a_hand_history_exits_2(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content + "\n" if content else "")
    code, out, err = cli_replay(str(path))
    assert code == 2 and out == ""
    assert err.startswith("harness replay: " + words.format(f=path))
    assert len(err.strip().splitlines()) == 1 and "DIFFERS" not in err


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("hand_id", "x", 'line 2: hand_id: expected a whole number >= 0, got a string ("x")'),
        ("players", [1, 2, 3], "line 2: players[0]: expected an object, got a number (1)"),
        ("actions", ["fold"], "line 2: actions[0]: expected an object"),
        ("game", ["no-limit"], "line 2: game: expected an object of game settings, got a list"),
        ("record_version", 7, "line 2: record_version: 7 is not a version this harness reads (1, 2, 3)"),
    ],
)
def test_cli_a_field_of_the_wrong_type_is_named_without_python_internals(
    tmp_path: Path, field: str, value: Any, words: str
) -> None:
    rec = played_hand(1)
    rec[field] = value
    path = write_lines(tmp_path / "x.jsonl", played_hand(0), rec, played_hand(2))
    code, out, err = cli_replay(str(path))
    assert code == 2, (out, err)
    assert out == "1 of 1 hands before line 2 replay identically\n"
    assert words in err and err.startswith("harness replay: not a hand history: ")
    for internal in ("Error", "object has no attribute", "dictionary update", "Traceback"):
        assert internal not in out + err


def test_cli_binary_and_cut_off_gzip_are_one_line_not_a_traceback(tmp_path: Path) -> None:
    garb = tmp_path / "garb.jsonl"
    garb.write_bytes(bytes(range(128, 256)) * 4)
    code, out, err = cli_replay(str(garb))
    assert code == 2 and err.startswith(f"harness replay: not a hand history: {garb} line 1: not UTF-8 text")
    gz = tmp_path / "hands.jsonl.gz"
    with HistoryWriter(gz) as w:
        for h in range(30):
            w.write(played_hand(h))
    data = gz.read_bytes()
    cut = tmp_path / "trunc.jsonl.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    code, out, err = cli_replay(str(cut))
    assert code == 2, (out, err)
    assert "replay identically" in out and "Aborted" not in out + err
    assert err.startswith(f"harness replay: damaged hand history: {cut} line ")
    assert "the compressed data ends early" in err and len(err.splitlines()) == 1


def test_cli_missing_file_exits_2(tmp_path: Path) -> None:
    code, _, err = cli_replay(str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err and "No such file" in err


def earlier_rule_hand(to: int = 68) -> HandState:
    """RULES.md E14's hand as releases before R3.4's raise cap played it: seat 0 raises to 68."""
    state = HandState.start(GameConfig(), [1144, 55, 1], 0, hand_seed(1, 0), 0, raise_cap=False)
    for step in (20, 30, 40, 54, to):
        state.raise_to(step)
    while state.to_act is not None:
        state.apply(state.default_action())  # seat 1 folds; the draw; round 2 checks
    return state


def test_histories_of_earlier_releases_with_a_raise_nobody_could_answer_still_replay(tmp_path: Path) -> None:
    """E14: a raise to 68 that only seat 1's 55 could face, with 14 back, is refused by today's engine
    but replays under the earlier rule, with a note; a tampered such hand still differs."""
    state = earlier_rule_hand()
    assert (0, 14) in state.result().uncalled
    decisions = [(handrecord.BY_BOT, None, 0.5)] * len(state.action_log())
    record = as_version_2(handrecord.build(state, match_id="m", match=MATCH, seated=[0, 1, 2], out=[False] * 3,
                                           decisions=decisions, faults=[]))  # as the earlier releases wrote it
    with pytest.raises(Exception, match="R3.4: seat 0 cannot raise to 68"):
        handrecord.replay_v2(record)
    tampered = json.loads(json.dumps(record))
    tampered["returned"][0]["chips"] = 13
    v1 = json.loads(json.dumps(build_record(state)))
    path = write_lines(tmp_path / "h.jsonl", record, tampered)
    checks = list(check_history(path))
    assert [(c.ok, bool(c.note)) for c in checks] == [(True, True), (False, False)]
    assert "R3.4" in checks[0].note and "refused: R3.4" in checks[1].detail
    code, out, _ = cli_replay(str(write_lines(tmp_path / "g.jsonl", record, played_hand(1))))
    assert code == 0
    assert out.splitlines() == [f"hand 0: OK with {checks[0].note}",
                                "2 of 2 hands replay identically (1 under the earlier raise rule, RULES.md E14)"]
    v1["match_id"] = "m"
    (check,) = check_history(write_lines(tmp_path / "v1.jsonl", v1))
    assert check.ok and check.note


def test_a_history_written_today_is_held_to_the_raise_rule_it_names(tmp_path: Path) -> None:
    """Version 3 names its raise rule: E14's over-reaching raise (68 where seat 1 can match 55) in a
    "capped" record differs, naming the hand and the action, with no note; in an "all-in" record (what
    the engine writes for a hand played under the earlier rule) it replays under that rule alone."""
    state = earlier_rule_hand()
    decisions = [(handrecord.BY_BOT, None, 0.5)] * len(state.action_log())
    record = handrecord.build(state, match_id="m", match=MATCH, seated=[0, 1, 2], out=[False] * 3,
                              decisions=decisions, faults=[])
    assert record["record_version"] == 3 and record["raise_rule"] == "all-in"
    planted = json.loads(json.dumps(record))
    planted["raise_rule"] = "capped"
    checks = list(check_history(write_lines(tmp_path / "h.jsonl", record, planted)))
    assert [(c.ok, c.note) for c in checks] == [(True, ""), (False, "")]
    assert checks[1].detail.startswith("actions[4] (raise) is refused: R3.4: seat 0 cannot raise to 68: no opponent")
    code, out, _ = cli_replay(str(write_lines(tmp_path / "g.jsonl", planted)))
    assert code == 1 and "hand 0" in out and "actions[4] (raise) is refused: R3.4" in out, out
    # Played today, the same shove is capped at 55 (R3.10) and the "capped" record replays.
    today = HandState.start(GameConfig(), [1144, 55, 1], 0, hand_seed(1, 0), 0)
    for step in (20, 30, 40, 54):
        today.raise_to(step)
    today.apply(today.capped(Action(ActionKind.RAISE, 68)))
    while today.to_act is not None:
        today.apply(today.default_action())
    fresh = handrecord.build(today, match_id="m", match=MATCH, seated=[0, 1, 2], out=[False] * 3,
                             decisions=[(handrecord.BY_BOT, None, 0.5)] * len(today.action_log()), faults=[])
    assert fresh["raise_rule"] == "capped" and fresh["actions"][4]["to"] == 55
    assert [(c.ok, c.note) for c in check_history(write_lines(tmp_path / "f.jsonl", fresh))] == [(True, "")]


def test_cli_a_tournament_with_damaged_histories_checks_every_match_and_names_each_problem(tmp_path: Path) -> None:
    """`harness replay DIR` of a tournament: a damaged hand history does not stop the check; every match is
    checked, each damaged one named (file, line, field), and the exit status is 1 at the end."""
    from harness.tournament.results import hand_history_path, read_records
    from harness.tournament.runner import run_tournament
    from tests.runner_helpers import fake_config

    out = tmp_path / "out"
    assert run_tournament(fake_config(out, ["a", "b", "c"], hands=3), play=_dealt_play, quiet=True).complete
    ids = [r.match_id for r in read_records(out)]
    assert len(ids) >= 3
    damaged = {}
    for match_id, change in ((ids[0], lambda r: r.update(hand_id="x")), (ids[1], lambda r: r.update(button=-1))):
        path = hand_history_path(out / "matches" / match_id)
        assert path is not None
        lines = _lines(path)
        record = json.loads(lines[1])
        change(record)
        lines[1] = json.dumps(record) + "\n"
        plain = path.with_name("hands.jsonl")
        path.unlink()
        plain.write_text("".join(lines), encoding="utf-8")
        damaged[match_id] = plain
    result = CliRunner().invoke(app, ["replay", str(out), "-v"])
    assert result.exit_code == 1, result.output
    assert f"match {ids[0]}: CANNOT BE CHECKED after 1 hands: not a hand history: {damaged[ids[0]]} line 2: " \
           "hand_id: expected a whole number >= 0" in result.stdout
    assert f"match {ids[1]}: CANNOT BE CHECKED after 1 hands: not a hand history: {damaged[ids[1]]} line 2: " \
           "button: -1 is out of range" in result.stdout
    assert all(f"match {m}: OK (3 hands)" in result.stdout for m in ids[2:])  # the others are still checked
    assert f"{len(ids) - 2} of {len(ids)} matches" in result.stdout and "2 cannot be checked" in result.stdout
    assert "Traceback" not in result.output


def _dealt_play(bots: Any, spec: Any, limits: Any, out_dir: Path) -> Any:
    """A match of real hands dealt from ``spec.seed`` (every decision the default action), as a referee writes
    them: what ``harness replay DIR`` checks."""
    from harness.deals import commitment
    from harness.history.files import history_name
    from harness.specs import MatchResult

    names = [b.name for b in bots]
    n = len(names)
    match = handrecord.match_dict(bots=names, hands=spec.hands, stack_mode="reset", starting_stack=1000,
                                  seed_sha256=commitment(spec.seed), decision_ms=100, time_bank_ms=0, max_faults=3)
    nets = []
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    with HistoryWriter(out_dir / history_name(spec.compress)) as writer:
        for h in range(spec.hands):
            state = HandState.start(GameConfig(), [1000] * n, h % n, hand_seed(spec.seed, h), h)
            while state.to_act is not None:
                state.apply(state.default_action())
            record = handrecord.build(state, match_id=spec.match_id, match=match, seated=list(range(n)),
                                      out=[False] * n, decisions=[(handrecord.BY_BOT, None, 0.5)] *
                                      len(state.action_log()), faults=[])
            writer.write(record)
            nets.append([p["net"] for p in record["players"]])
    return MatchResult(match_id=spec.match_id, seed=spec.seed, hands_played=spec.hands, bots=names,
                       net=[sum(col) for col in zip(*nets, strict=True)], hand_nets=nets, faults=[{}] * n,
                       status=["ok"] * n, duration_s=0.0)


def _lines(path: Path) -> list[str]:
    import gzip

    data = path.read_bytes()
    text = gzip.decompress(data).decode() if data[:2] == b"\x1f\x8b" else data.decode()
    return text.splitlines(keepends=True)


@pytest.mark.parametrize(
    ("order", "said"),
    [([0, 1, 3, 4], "hand 3: DIFFERS: hand_id: hand 3 where hand 2 was due (hand 2 missing)"),
     ([0, 4], "hand 4: DIFFERS: hand_id: hand 4 where hand 1 was due (hands 1-3 missing)"),
     ([0, 1, 1, 2], "hand 1: DIFFERS: hand_id: hand 1 again, where hand 2 was due"),
     ([0, 2, 1, 3], "hand 2: DIFFERS: hand_id: hand 2 where hand 1 was due (hand 1 missing)"),
     ([1, 2], "hand 1: DIFFERS: hand_id: hand 1 where hand 0 was due (hand 0 missing)")],
    ids=["lost", "lost-several", "repeated", "swapped", "first-lost"],
)
def test_a_hand_lost_repeated_or_moved_differs(tmp_path: Path, order: list[int], said: str) -> None:
    """Each hand replays on its own; the match does not: hands are 0, 1, 2 ... in order, each once."""
    path = write_lines(tmp_path / "h.jsonl", *(played_hand(h) for h in order))
    code, out, _ = cli_replay(str(path))
    assert code == 1 and said in out, out


def test_a_tournament_match_whose_history_lost_its_last_hands_or_all_differs(tmp_path: Path) -> None:
    """Hands cut from the end (or every hand) leave a history that replays: the count the match's result
    records says what is missing."""
    from harness.tournament.results import hand_history_path, read_records
    from harness.tournament.runner import run_tournament
    from tests.runner_helpers import fake_config

    out = tmp_path / "out"
    assert run_tournament(fake_config(out, ["a", "b"], hands=3), play=_dealt_play, quiet=True).complete
    ids = [r.match_id for r in read_records(out)]
    for match_id, keep in ((ids[0], 2), (ids[1], 0)):
        path = hand_history_path(out / "matches" / match_id)
        assert path is not None
        lines = _lines(path)[:keep]
        path.unlink()
        path.with_name("hands.jsonl").write_text("".join(lines), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(out)])
    assert result.exit_code == 1, result.output
    assert f"match {ids[0]}: DIFFERS: hands.jsonl holds 2 hands where the match's result records 3" in result.stdout
    assert f"match {ids[1]}: DIFFERS: hands.jsonl holds 0 hands where the match's result records 3" in result.stdout
