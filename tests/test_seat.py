"""The Seat protocol (harness.match.seat): both seat kinds implement it, the referee and the host never ask
a seat's kind, and a seat of a third kind (here: a launcher with no sandbox, as a remote bot's relay would
be) plays a real match through the protocol alone."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.engine import GameConfig
from harness.match.botseat import BotSeat
from harness.match.clock import Clock
from harness.match.human import HumanLink, HumanSeat, HumanSpec
from harness.match.referee import play_match
from harness.match.seat import Seat, SeatLaunch, stop_seats
from harness.specs import Limits, MatchSpec, SandboxMode, SandboxSettings
from tests.fault_helpers import GOOD, LIMITS, REPO, assert_nothing_left, history

MATCH = REPO / "harness" / "match"
#: The names of the seat kinds: asking whether a seat is one of them is seat_for's job alone.
KINDS = {"HumanSpec", "HumanProcess", "HumanSeat", "BotSpec", "BotProcess", "BotSeat"}
MEMBERS = ("clock", "own_clock", "launch", "has_process", "poll", "describe_exit", "cpu_wait_s", "startup_hint",
           "catch_up_ms", "timeout_detail", "stop", "stop_all", "log_error")


def test_both_seat_kinds_implement_every_method_of_the_protocol() -> None:
    bot, human = BotSeat(GOOD), HumanSeat(HumanSpec("me", HumanLink(), decision_ms=5000))
    for seat in (bot, human):
        assert isinstance(seat, Seat)
        assert [m for m in MEMBERS if m not in vars(type(seat))] == [], "each kind says its own behaviour"
        assert not seat.has_process and seat.poll() is None and seat.log_error is None
        assert seat.stop(0) == "exited"  # nothing started: nothing to stop
    limits = Limits(decision_ms=700, time_bank_ms=9000)
    assert (bot.clock(limits).decision_ms, bot.clock(limits).bank_ms) == (700, 9000)
    assert (human.clock(limits).decision_ms, human.clock(limits).bank_ms) == (5000, 0)
    assert bot.own_clock(0) is None and human.own_clock(1) == {"seat": 1, "name": "me", "decision_ms": 5000,
                                                                "idle_ms": 600_000}
    assert bot.catch_up_ms(700) == 3500 and human.catch_up_ms(700) == 0
    assert bot.timeout_detail("late") == "late" and "decision limit of 5000 ms" in human.timeout_detail("late")
    with pytest.raises(ValueError, match="empty command"):
        BotSeat(GOOD.__class__("empty", ()))


def _kind_checks(path: Path) -> list[str]:
    """``isinstance`` calls on a seat kind outside ``seat_for``, as ``file:line``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "seat_for"
               for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                and id(node) not in allowed):
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            if names & KINDS:
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_referee_and_the_host_never_ask_what_kind_a_seat_is() -> None:
    assert _kind_checks(MATCH / "referee.py") + _kind_checks(MATCH / "seathost.py") == []


class LauncherSeat:
    """A third kind of seat: it starts ``bots.caller`` itself, unconfined, as a remote bot's relay would start
    whatever carries the seat's channel to it. Only the protocol's methods: the referee knows no more."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.proc: subprocess.Popen[bytes] | None = None
        self.calls: list[str] = []

    def clock(self, limits: Limits) -> Clock:
        return Clock(limits.decision_ms, limits.time_bank_ms)

    def own_clock(self, seat: int) -> dict[str, Any] | None:
        return None

    def launch(self, how: SeatLaunch) -> None:
        self.calls.append("launch")
        assert set(how.env) >= {"HARNESS_ENDPOINT", "HARNESS_SECRET", "HARNESS_BOT_NAME"}
        self.proc = subprocess.Popen([sys.executable, "-m", "bots.caller"], cwd=REPO, env={**how.env, "PATH": ""},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def has_process(self) -> bool:
        return self.proc is not None

    def poll(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def describe_exit(self) -> str:
        return f"the launcher's bot exited with status {self.poll()}"

    def cpu_wait_s(self) -> float:
        return 0.0

    def startup_hint(self, code: int | None = None) -> str:
        return ""

    def catch_up_ms(self, decision_ms: int) -> int:
        return decision_ms

    def timeout_detail(self, detail: str) -> str:
        return detail

    def stop(self, grace_ms: int) -> str:
        self.calls.append("stop")
        if self.proc is None:
            return "exited"
        try:
            self.proc.wait(grace_ms / 1000.0)
            return "exited"
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "sigkill"

    @classmethod
    def stop_all(cls, seats: Sequence[Any], grace_ms: int) -> list[str]:
        return [s.stop(grace_ms) for s in seats]

    @property
    def log_error(self) -> OSError | None:
        return None


@pytest.mark.slow
def test_a_seat_of_a_third_kind_plays_a_match_through_the_protocol_alone(tmp_path: Path) -> None:
    third = LauncherSeat("launched")
    assert isinstance(third, Seat)
    spec = MatchSpec(game=GameConfig(), hands=4, seed=3, match_id="third")
    result = play_match([third, GOOD], spec, LIMITS, tmp_path, sandbox=SandboxSettings(mode=SandboxMode.OFF))
    assert_nothing_left()
    assert result.hands_played == 4 and result.status == ["ok", "ok"] and result.bots == ["launched", "caller"]
    assert third.calls == ["launch", "stop"] and third.poll() == 0, "it read match_end and exited by itself"
    by = {a["by"] for r in history(tmp_path) for a in r["actions"] if a["seat"] == 0}
    assert by == {"bot"}, "every decision of the third seat was its own, none a fault's"


def test_seats_of_several_kinds_stop_together_by_kind_in_their_order() -> None:
    a, b, c = LauncherSeat("a"), BotSeat(GOOD), LauncherSeat("c")
    assert stop_seats([a, b, c], 0) == ["exited", "exited", "exited"]
    assert a.calls == ["stop"] and c.calls == ["stop"]
