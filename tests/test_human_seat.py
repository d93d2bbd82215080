"""A human seat plays a real match against a bot subprocess, behind the bot seat's interface.

The "person" here is a scripted thread reading the seat's :class:`HumanLink`,
so the referee, the wire and the hand history are the real ones: the seat's
replies are validated as a bot's, recorded as its replies with their decision
times, and its own clock (an idle limit) plays the default action and says so.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.engine import GameConfig
from harness.history.files import read_history
from harness.history.replay import check_history
from harness.match.human import LEFT, HumanLink, HumanSpec
from harness.match.referee import BotSpec, Limits, MatchSpec, play_match
from harness.specs import SandboxMode, SandboxSettings
from protocol.messages import ActionReply, ActRequest, DiscardReply, DrawRequest, Error, HandEnd, MatchEnd

PY = sys.executable
RAISER = BotSpec("raiser", (PY, "-m", "bots.raiser"))
OFF = SandboxSettings(mode=SandboxMode.OFF)


def _person(link: HumanLink, seen: list[Any], skip_first: bool = False) -> threading.Thread:
    """A scripted person: calls or checks, discards the first two cards; optionally ignores the first request."""

    def run() -> None:
        skipped = not skip_first
        while True:
            msg = link.next(30)
            seen.append(msg)
            if msg is None or msg == LEFT:
                return
            if isinstance(msg, (ActRequest, DrawRequest)):
                if not skipped:
                    skipped = True  # let the idle limit pass
                    continue
                if isinstance(msg, DrawRequest):
                    link.answer(DiscardReply(seq=msg.seq, cards=tuple(msg.state["cards"][:2])))
                else:
                    action = "check" if "check" in msg.legal.actions else "call"
                    link.answer(ActionReply(seq=msg.seq, action=action))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_human_seat_plays_as_a_bot_seat_and_is_recorded_as_human(tmp_path: Path) -> None:
    link = HumanLink()
    seen: list[Any] = []
    person = _person(link, seen)
    human = HumanSpec("me", link)
    result = play_match([human, RAISER], MatchSpec(GameConfig(), hands=6, seed=3), Limits(), tmp_path, sandbox=OFF)
    person.join(10)
    assert not person.is_alive()
    assert result.status == ["ok", "ok"] and result.faults == [{}, {}]
    assert sum(result.net) == 0
    records = list(read_history(tmp_path / "hands.jsonl"))
    assert len(records) == 6
    from tests.history_helpers import schema_errors

    mine = []
    for r in records:
        assert schema_errors(r) == []
        assert r["match"]["humans"] == [{"seat": 0, "name": "me", "decision_ms": None, "idle_ms": 600_000}]
        mine += [a for a in r["actions"] if a["seat"] == 0]
    assert mine and all(a["by"] == "bot" and a["fault"] is None and a["ms"] > 0 for a in mine)
    assert any(a["kind"] == "draw" and len(a["discards"]) == 2 for a in mine)
    assert all(v.ok for v in check_history(tmp_path / "hands.jsonl", match_seed=3))
    assert sum(isinstance(m, HandEnd) for m in seen) == 6 and any(isinstance(m, MatchEnd) for m in seen)


def test_the_idle_limit_plays_the_default_action_and_says_so(tmp_path: Path) -> None:
    link = HumanLink()
    seen: list[Any] = []
    person = _person(link, seen, skip_first=True)
    human = HumanSpec("me", link, idle_ms=300)
    result = play_match([human, RAISER], MatchSpec(GameConfig(), hands=2, seed=3), Limits(), tmp_path, sandbox=OFF)
    person.join(10)
    assert result.faults[0] == {"timeout": 1} and result.status[0] == "ok"
    records = list(read_history(tmp_path / "hands.jsonl"))
    fault = records[0]["faults"][0]
    assert fault["seat"] == 0 and fault["kind"] == "timeout" and "idle for 300 ms" in fault["detail"]
    first = next(a for a in records[0]["actions"] if a["seat"] == 0)
    assert first["by"] == "fault" and first["kind"] in ("fold", "check")
    told = [m for m in seen if isinstance(m, Error)]
    assert told and told[0].reason == "timeout" and "idle" in told[0].message and not told[0].fatal
    later = [a for r in records for a in r["actions"] if a["seat"] == 0][1:]
    assert all(a["by"] == "bot" for a in later)


def test_a_person_who_leaves_is_put_out_and_the_match_ends(tmp_path: Path) -> None:
    link = HumanLink()
    link.leave()
    result = play_match([HumanSpec("me", link), RAISER], MatchSpec(GameConfig(), hands=3, seed=3), Limits(),
                        tmp_path, sandbox=OFF)
    assert result.hands_played == 3 and result.status[0] != "ok"
    assert "left the table" in result.status[0]


def test_a_human_reply_is_validated_as_a_bots(tmp_path: Path) -> None:
    """An interface that sends an illegal raise gets the referee's ``illegal`` fault, as a bot would."""
    link = HumanLink()

    def run() -> None:
        first = True
        while (msg := link.next(30)) not in (None, LEFT):
            if isinstance(msg, ActRequest):
                link.answer(ActionReply(seq=msg.seq, action="raise", amount=1) if first else
                            ActionReply(seq=msg.seq, action="check" if "check" in msg.legal.actions else "call"))
                first = False
            elif isinstance(msg, DrawRequest):
                link.answer(DiscardReply(seq=msg.seq, cards=()))

    person = threading.Thread(target=run, daemon=True)
    person.start()
    result = play_match([HumanSpec("me", link), RAISER], MatchSpec(GameConfig(), hands=1, seed=3), Limits(),
                        tmp_path, sandbox=OFF)
    person.join(10)
    assert result.faults[0] == {"illegal": 1}
    (record,) = list(read_history(tmp_path / "hands.jsonl"))
    assert record["faults"][0]["kind"] == "illegal" and "R3" in record["faults"][0]["detail"]


def test_the_clock_of_a_human_seat() -> None:
    spec = HumanSpec("me", HumanLink(), decision_ms=30_000)
    assert spec.deadline_ms == 30_000 and "decision limit of 30000 ms" in spec.timeout_detail()
    assert HumanSpec("me", HumanLink()).deadline_ms == 600_000
    with pytest.raises(ValueError, match="idle_ms must be at least 1 ms"):
        HumanSpec("me", HumanLink(), idle_ms=0)
