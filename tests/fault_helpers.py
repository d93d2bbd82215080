"""Shared by several test modules (moved from test_faults.py): assert_nothing_left."""

from __future__ import annotations

import json
import os
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

import psutil

from harness.host.botproc import find_marked
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec, SandboxSettings


def live_descendants() -> list[psutil.Process]:
    """This process's descendants that are alive (not zombies), less multiprocessing's resource tracker: the
    standard library starts it once per process, at the first named semaphore (a process pool made in this
    process, such as an in-process contest server's board worker), and it lives as long as the process by design."""
    tracker = getattr(resource_tracker._resource_tracker, "_pid", None)  # noqa: SLF001  (no public accessor)
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and child.pid != tracker:
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def assert_nothing_left() -> None:
    """No process launched for this test process is alive (marked env or our fixtures in argv)."""
    left = set(find_marked(owner_pid=os.getpid())) | {p.pid for p in live_descendants()}
    assert not left, f"processes left behind: {[(pid, _described(pid)) for pid in sorted(left)]}"


def _described(pid: int) -> str:
    """A left process's command line and parent, so a failure says what was left, not only its number."""
    try:
        p = psutil.Process(pid)
        return f"{' '.join(p.cmdline())[:300]!r} (parent {p.ppid()}, started {p.create_time():.0f})"
    except psutil.Error:
        return "gone"


REPO = Path(__file__).resolve().parent.parent


# max_faults is high so that a faulting bot stays in and gets the default action at every decision.
# Generous enough that a good bot never times out on a loaded machine (load 40 on 2 cores: 200 ms were
# not), short enough that the bots that are late on purpose (they sleep past decision + bank) stay quick.
LIMITS = Limits(decision_ms=1000, time_bank_ms=3000, startup_ms=8000, max_faults=1000, log_bytes=200_000)


HANDS = 6


SEED = 20240611


def fixture_bot(name: str, *args: str, label: str | None = None) -> BotSpec:
    return BotSpec(
        name=label or name.replace("_", "-"),
        command=("python", "-m", f"tests.fixtures.broken_bots.{name}", *args),
        cwd=str(REPO),
    )


GOOD = BotSpec(name="caller", command=("python", "-m", "bots.caller"), cwd=str(REPO))


def match_spec() -> MatchSpec:
    from harness.engine.config import GameConfig

    return MatchSpec(game=GameConfig(), hands=HANDS, seed=SEED, match_id="faults")


def play(
    bots: list[BotSpec], out: Path, limits: Limits = LIMITS, sandbox: SandboxSettings | None = None
) -> MatchResult:
    from harness.match.referee import play_match

    result = play_match(bots, match_spec(), limits, out, sandbox=sandbox)
    assert_nothing_left()
    assert result.hands_played == HANDS, "the match must always finish"
    assert sum(result.net) == 0
    return result


def history(out: Path) -> list[dict[str, Any]]:
    lines = (out / "hands.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def assert_history_stands_alone(out: Path, result: MatchResult) -> None:
    """The hand history of a faulty match: valid against the JSON Schema, every chip recomputed by the
    standalone checker, each fault tied to its decision, a put-out bot folded without being asked."""
    from tests.history_helpers import check_records, schema_errors

    records = history(out)
    assert [e for r in records for e in schema_errors(r)] == []
    assert check_records(records, out / "copy.jsonl") == []
    counted: list[dict[str, int]] = [{} for _ in result.bots]
    put_out: dict[int, tuple[int, int]] = {}  # seat -> (hand, decision index; -1 before the first decision)
    for r in records:
        h = r["hand_id"]
        for f in r["faults"]:
            counted[f["seat"]][f["kind"]] = counted[f["seat"]].get(f["kind"], 0) + 1
            if f["put_out"]:
                assert f["seat"] not in put_out, "put out once"
                put_out[f["seat"]] = (h, -1 if f["action"] is None else f["action"])
        for p in r["players"]:
            assert p["out"] == (p["seat"] in put_out and (put_out[p["seat"]][0] < h or put_out[p["seat"]][1] < 0))
        for i, a in enumerate(r["actions"]):
            if a["by"] == "fault":
                fault = r["faults"][a["fault"]]
                assert fault["action"] == i and fault["seat"] == a["seat"]
            was_out = a["seat"] in put_out and put_out[a["seat"]] < (h, i)
            assert (a["by"] == "out") == was_out, (h, i, a)
    assert counted == [faults_of(result, seat) for seat in range(len(result.bots))]
    assert sorted(put_out) == [seat for seat, status in enumerate(result.status) if status != "ok"]


def faults_of(result: MatchResult, seat: int) -> dict[str, int]:
    return {k: v for k, v in result.faults[seat].items() if v}
