"""Broken bots in real matches: the match finishes, the fault has the right kind,
the good bot's results are unaffected, and no process is left behind.

Every broken bot (tests/fixtures/broken_bots) plays the referee's default
action whenever it is not misbehaving, so a good bot (``bots.caller``) must get
hand for hand what it gets against ``passive`` (the default action every
time) while the broken bot is in, and what it gets against ``folder`` once
the broken bot is out (an out bot is folded at its first decision, PROTOCOL.md
section 7).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from harness.specs import BotSpec, Limits, MatchResult, SandboxMode, SandboxSettings
from tests.fault_helpers import (
    GOOD,
    LIMITS,
    REPO,
    assert_history_stands_alone,
    assert_nothing_left,
    faults_of,
    fixture_bot,
    history,
    match_spec,
    play,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("harness.match.referee") is None or importlib.util.find_spec("bots.caller") is None,
        reason="needs harness.match.referee.play_match and bots.caller (not landed yet)",
    ),
]


def first_fault_hand(out: Path, kind: str) -> int:
    """Index of the first hand whose record mentions a fault of ``kind``."""
    for h, record in enumerate(history(out)):
        if f'"{kind}"' in json.dumps(record.get("faults", record)):
            return h
    raise AssertionError(f"no {kind!r} fault in {out / 'hands.jsonl'}")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MatchResult]:
    """The good bot against the two well-behaved references."""
    refs = {}
    for name in ("passive", "folder"):
        out = tmp_path_factory.mktemp(f"ref-{name}")
        refs[name] = play([GOOD, fixture_bot(name)], out)
        assert faults_of(refs[name], 0) == faults_of(refs[name], 1) == {}, refs[name].faults
    return refs


# (fixture argv, fault kind expected, whether the bot stays in the match)
IN_PLAY_CASES = [
    (("late_reply",), "timeout", True),
    (("garbage",), "malformed", True),
    (("bad_amount", "bool"), "malformed", True),
    (("bad_amount", "float"), "malformed", True),
    (("bad_amount", "negative"), "malformed", True),
    (("bad_amount", "huge"), "malformed", True),
    (("illegal_action",), "illegal", True),
    (("out_of_turn",), "illegal", True),
    (("pre_answer",), "illegal", True),  # a reply sent before its request never answers it
    (("oversized",), "oversized", True),  # read and judged: the bot stays in
    (("oversized", "huge"), "oversized", False),  # over the transport's limit: refused at its header, out
    (("reconnect",), "disconnected", False),  # closed and reopened its socket: not a crash, not oversized
    (("reconnect", "close"), "disconnected", False),
    (("wrong_seq",), "illegal", True),
    (("crash_mid_hand",), "crash", False),
    # Peers that break ZMTP itself (a hand-written client): each bound broken is fatal, seen as it comes.
    (("zmtp_hostile", "multipart"), "malformed", False),  # a message that never ends: refused at its first frame
    (("zmtp_hostile", "long_header"), "oversized", False),  # a frame header announcing 2^63 bytes
    (("zmtp_hostile", "second_frame"), "malformed", False),  # a reply in two frames
    (("zmtp_hostile", "commands"), "illegal", False),  # a stream of 4-byte command frames
]


@pytest.mark.parametrize(
    ("argv", "kind", "stays_in"), IN_PLAY_CASES, ids=lambda v: "-".join(v) if isinstance(v, tuple) else None
)
def test_fault_is_recorded_and_the_good_bot_is_unaffected(
    tmp_path: Path, reference: dict[str, MatchResult], argv: tuple[str, ...], kind: str, stays_in: bool | None
) -> None:
    bot = fixture_bot(argv[0], *argv[1:], label="-".join(argv).replace("_", "-"))
    result = play([GOOD, bot], tmp_path)
    assert faults_of(result, 0) == {}, "the good bot must have no fault"
    assert faults_of(result, 1).get(kind, 0) >= 1, f"expected a {kind} fault, got {result.faults[1]}"
    assert first_fault_hand(tmp_path, kind) >= 0
    assert_history_stands_alone(tmp_path, result)

    passive, folder = reference["passive"].hand_nets, reference["folder"].hand_nets
    out = result.status[1] != "ok"
    if stays_in is True:
        assert not out, result.status
    if stays_in is False:
        assert out, result.status
        assert faults_of(result, 1) == {kind: 1}, "one kind per cause, one record"
    if not out:
        # Every fault got the default action, which is what passive plays.
        assert result.hand_nets == passive
        assert result.net == reference["passive"].net
    else:
        # Passive before the hand where it went out, folded in every hand after it.
        h = first_fault_hand(tmp_path, kind)
        assert result.hand_nets[:h] == passive[:h]
        assert result.hand_nets[h + 1 :] == folder[h + 1 :]


def test_a_wager_above_max_to_is_the_all_in_it_means_never_a_fault(tmp_path: Path) -> None:
    """R3.10: a bet or raise to 10**9 (above every stack) is played as one to max_to, the all-in capped
    by R3.4: no fault, and each such wager in the history is an all-in (equal stacks: max_to is the all-in)."""
    result = play([GOOD, fixture_bot("bad_amount", "over_stack", label="over-stack")], tmp_path)
    assert faults_of(result, 0) == faults_of(result, 1) == {}, result.faults
    assert_history_stands_alone(tmp_path, result)
    wagers = [a for r in history(tmp_path) for a in r["actions"] if a["seat"] == 1 and a["kind"] in ("bet", "raise")]
    assert wagers and all(a["by"] == "bot" and a["all_in"] for a in wagers), wagers[:3]


def test_a_wrong_seq_is_one_illegal_fault_per_request_naming_the_seq_expected(tmp_path: Path) -> None:
    """PROTOCOL.md section 8: not a timeout and an illegal fault each time (out after 5 requests)."""
    limits = dataclasses.replace(LIMITS, max_faults=10)
    result = play([GOOD, fixture_bot("wrong_seq", "zero")], tmp_path, limits)
    assert faults_of(result, 1) == {"illegal": 10}
    assert result.status[1].startswith("max_faults: 10 faults (illegal 10)")
    details = [f["detail"] for r in history(tmp_path) for f in r["faults"]]
    assert_history_stands_alone(tmp_path, result)
    assert details[0] == "a reply with seq 0, but the pending request is seq 1: echo the request's seq"
    assert len(details) == 10 and all("but the pending request is seq" in d for d in details)
    err = next((tmp_path / "logs").glob("1-*.err")).read_text()
    assert "but the pending request is seq 1" in err  # the bot is told, in an error message


@pytest.mark.parametrize("mode", ["stray", "hello"])
def test_a_flood_between_requests_costs_one_record_per_request(tmp_path: Path, mode: str) -> None:
    """Thousands of messages out of turn: one fault record per request with its count, a hand
    history that replays, a capped referee.log, and nothing charged to the good bot."""
    from harness.history.replay import check_history

    limits = dataclasses.replace(LIMITS, log_bytes=20_000)
    result = play([GOOD, fixture_bot("flood", mode, label=f"flood-{mode}")], tmp_path, limits)
    assert faults_of(result, 0) == {}
    records = history(tmp_path)
    requests = sum(1 for r in records for a in r["actions"] if a["seat"] == 1 and a["ms"] is not None)
    flooder = [(r["hand_id"], f) for r in records for f in r["faults"] if f["seat"] == 1]
    assert 1 <= len(flooder) <= requests, "at most one fault record per request"
    # Each names the decision (request) it was counted in: one record per request.
    assert len({(hand, f["action"]) for hand, f in flooder}) == len(flooder)
    assert all(f["action"] is not None for _, f in flooder)
    flooder = [f for _, f in flooder]
    assert any(" messages out of turn: " in f["detail"] or f["detail"].startswith("flood: ") for f in flooder)
    assert all(len(f["detail"]) <= 400 for f in flooder)
    assert all(ok for ok in (c.ok for c in check_history(tmp_path / "hands.jsonl")))
    assert (tmp_path / "hands.jsonl").stat().st_size < 200_000
    log = (tmp_path / "logs" / "referee.log").read_bytes()
    assert len(log) <= limits.log_bytes + 200


def test_bots_that_fail_to_start_are_out_and_the_match_goes_on(
    tmp_path: Path, reference: dict[str, MatchResult]
) -> None:
    bots = [
        GOOD,
        fixture_bot("exit_at_start"),
        fixture_bot("never_connects"),
        fixture_bot("wrong_secret"),
        fixture_bot("slow_start", "16"),  # twice startup_ms
    ]
    result = play(bots, tmp_path)
    for seat in range(1, len(bots)):
        assert faults_of(result, seat).get("failed_start", 0) == 1, (bots[seat].name, result.faults[seat])
        assert result.status[seat] != "ok"
    assert faults_of(result, 0) == {}
    assert_history_stands_alone(tmp_path, result)
    # Against four bots that are out, the good bot gets what four folders give it.
    folders = [GOOD] + [fixture_bot("folder", label=f"folder{i}") for i in range(1, len(bots))]
    expected = play(folders, tmp_path / "ref")
    assert result.hand_nets == expected.hand_nets


def test_start_up_counts_the_bots_own_time_not_the_time_others_held_the_cpu(tmp_path: Path) -> None:
    """PROTOCOL.md section 7: 0.25 s of start-up work on a CPU shared with four busy processes takes
    well over startup_ms on the clock, yet the bot is not failed; a sleeping bot still is (test above)."""
    from harness.match.referee import play_match

    cpu = max(os.sched_getaffinity(0))
    hogs = [
        subprocess.Popen([sys.executable, "-c", f"import os, time\nos.sched_setaffinity(0, {{{cpu}}})\n"
                          "end = time.monotonic() + 4\nwhile time.monotonic() < end: pass"],
                         start_new_session=True)  # a session each: autogroup shares the CPU between sessions
        for _ in range(4)
    ]
    try:
        limits = Limits(decision_ms=2000, time_bank_ms=0, startup_ms=1000, max_faults=1000, log_bytes=200_000)
        started = time.monotonic()
        result = play_match([GOOD, fixture_bot("busy_start", "0.25")], match_spec(), limits, tmp_path,
                            cpus={cpu}, sandbox=SandboxSettings(mode=SandboxMode.OFF))
        took = time.monotonic() - started
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert_nothing_left()
    log = (tmp_path / "logs" / "referee.log").read_text()
    assert took > 1.0 and "kept from a CPU by others" in log, (took, log)  # the case arose
    assert [faults_of(result, seat) for seat in (0, 1)] == [{}, {}], result.faults
    assert result.status == ["ok", "ok"]


def test_a_flood_on_stdout_is_capped_and_costs_nothing(tmp_path: Path, reference: dict[str, MatchResult]) -> None:
    result = play([GOOD, fixture_bot("flood_stdout")], tmp_path)
    assert faults_of(result, 1) == {}
    assert result.hand_nets == reference["passive"].hand_nets
    out_logs = list((tmp_path / "logs").glob("1-*.out"))
    assert len(out_logs) == 1
    data = out_logs[0].read_bytes()
    assert LIMITS.log_bytes <= len(data) <= LIMITS.log_bytes + 200
    assert b"[log truncated" in data
    err = next((tmp_path / "logs").glob("1-*.err")).read_text()
    assert "decision 1" in err


def test_children_that_ignore_sigterm_are_killed(tmp_path: Path, reference: dict[str, MatchResult]) -> None:
    # Without the sandbox (its pid namespace and control group are tested in test_sandbox.py): the
    # printed pids are then the host's, and the marks, groups and trees of botproc must find them.
    result = play([GOOD, fixture_bot("sigterm_child")], tmp_path, sandbox=SandboxSettings(mode=SandboxMode.OFF))
    assert faults_of(result, 1) == {}
    assert result.hand_nets == reference["passive"].hand_nets
    log = next((tmp_path / "logs").glob("1-*.out")).read_text()
    pids = [int(p) for p in re.findall(r"^child (\d+)$", log, re.M)]
    assert len(pids) == 2
    for pid in pids:
        try:
            assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            pass


def test_the_flaky_example_bot_faults_and_is_put_out(tmp_path: Path) -> None:
    flaky = BotSpec(
        name="flaky",
        command=("python", "-m", "bots.flaky"),
        cwd=str(REPO),
        env={"FLAKY_TIMEOUT_RATE": "0.3", "FLAKY_ILLEGAL_RATE": "0.6", "FLAKY_SEED": "1", "FLAKY_MAX_SLEEP_MS": "2000"},
    )
    limits = Limits(decision_ms=1000, time_bank_ms=0, startup_ms=8000, max_faults=3)  # the good bot never late
    result = play([GOOD, flaky], tmp_path, limits)
    assert faults_of(result, 0) == {}
    assert sum(result.faults[1].values()) == 3
    assert set(faults_of(result, 1)) <= {"illegal", "timeout"}
    assert result.status[1] != "ok"
    assert_history_stands_alone(tmp_path, result)


def test_a_bot_that_never_answers_is_waited_for_once_then_put_out_and_never_asked_again(tmp_path: Path) -> None:
    """A silent bot costs one catch-up wait per stall, not one per request, and once put out it is sent
    nothing more: counted from its own log of the requests it got and the referee's log, not timed."""
    limits = Limits(decision_ms=1000, time_bank_ms=0, startup_ms=8000, max_faults=4)
    result = play([GOOD, fixture_bot("silent")], tmp_path, limits)
    assert faults_of(result, 1) == {"timeout": 4} and result.status[1].startswith("max_faults")
    assert (tmp_path / "logs" / "1-silent.err").read_text().count("request ") == 4, "asked after it was out"
    log = (tmp_path / "logs" / "referee.log").read_text()
    assert log.count("did not catch up") == 3  # before requests 2, 3 and 4
    assert log.count("the same stall: no wait") == 2  # requests 3 and 4 were sent at once
    assert_history_stands_alone(tmp_path, result)
    assert sum(a["by"] == "out" for r in history(tmp_path) for a in r["actions"]) > 0
