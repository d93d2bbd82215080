"""The Python SDK: in-process handling, and real bot subprocesses against a minimal in-test referee.

``MiniReferee`` is the smallest referee that follows PROTOCOL.md: it binds a ROUTER on a
private ipc endpoint, launches the bot with the launch environment, and replays the
heads-up hand of PROTOCOL.md section 9. Other test modules reuse it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from protocol.codec import decode, encode
from protocol.messages import (
    ActionReply,
    ActRequest,
    DiscardReply,
    DrawRequest,
    Error,
    Hello,
    Legal,
    MatchEnd,
    TimeLeft,
    Welcome,
)
from protocol.sdk import Action, Bot, DecisionState, bet, call, check, fold, raise_to
from tests.protocol_helpers import ROOT, SECRET, STATE, MiniReferee, _spec_example

# --------------------------------------------------------------------------- in process

ACT = ActRequest(seq=5, state=STATE, legal=Legal(("fold", "call", "raise"), 5, 20, 1000), time=TimeLeft(1000, 30000))
FREE = ActRequest(seq=6, state=STATE, legal=Legal(("fold", "check", "bet"), 0, 20, 995), time=TimeLeft(1000, 30000))
DRAW = DrawRequest(
    seq=7, state=dict(STATE, phase="draw"), legal=Legal(("draw",), max_discards=4), time=TimeLeft(1000, 0)
)


def test_action_helpers() -> None:
    assert fold() == Action("fold") and check() == Action("check") and call() == Action("call")
    assert bet(40) == Action("bet", 40) and raise_to(60) == Action("raise", 60)


def test_decision_state_view() -> None:
    s = DecisionState.of(ACT)
    assert s.cards == STATE["cards"] and s.pot == 15 and s.my_stack == 995
    assert s.to_call == 5 and s.min_to == 20 and s.max_to == 1000 and s.max_discards == 0
    assert s.can("raise") and not s.can("check") and s.players_in == 2
    assert s.default_action() == fold()
    assert DecisionState.of(FREE).default_action() == check()
    assert s.wager(5000) == raise_to(1000) and s.wager(1) == raise_to(20)
    assert DecisionState.of(FREE).wager(50) == bet(50)


def test_handle_replies_and_hooks() -> None:
    seen: list[str] = []

    class Recorder(Bot):
        def act(self, state: DecisionState) -> Action:
            return raise_to(state.min_to)

        def draw(self, state: DecisionState) -> list[str]:
            return ["2c", "3s"]

        def on_hand_end(self, msg: Any) -> None:
            seen.append("hand_end")

    bot = Recorder()
    assert bot.handle(ACT) == ActionReply(seq=5, action="raise", amount=20)
    assert bot.handle(DRAW) == DiscardReply(seq=7, cards=("2c", "3s"))
    assert bot.handle(Welcome()) is None


def test_a_failing_bot_answers_with_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    class Broken(Bot):
        def act(self, state: DecisionState) -> Action:
            raise RuntimeError("boom")

        def draw(self, state: DecisionState) -> list[str]:
            return [51]  # type: ignore[list-item]

    bot = Broken()
    assert bot.handle(ACT) == ActionReply(seq=5, action="fold")
    assert bot.handle(FREE) == ActionReply(seq=6, action="check")
    assert bot.handle(DRAW) == DiscardReply(seq=7, cards=())
    err = capsys.readouterr().err
    assert "boom" in err and "draw() must return card strings" in err


def test_string_actions_are_accepted() -> None:
    class Lazy(Bot):
        def act(self, state: DecisionState) -> Action:
            return "call"  # type: ignore[return-value]

    assert Lazy().handle(ACT) == ActionReply(seq=5, action="call")


# --------------------------------------------------------------------------- frames (run()'s path)

SPEC_FRAMES: dict[str, bytes] = {}
for _direction, _wire in _spec_example():
    if _direction == "<-":
        SPEC_FRAMES.setdefault(_wire["type"], msgpack.packb(_wire))  # the first of each type
ACT_WIRE = msgpack.unpackb(SPEC_FRAMES["act"])


def _frame(**fields: Any) -> bytes:
    return msgpack.packb({"type": "act", "v": 1, "seq": 9, **fields})


class Quiet(Bot):
    """Calls or checks, raises when it can; draws the first two cards; no hooks."""

    def act(self, state: DecisionState) -> Action:
        if state.can("raise"):
            return raise_to(state.min_to)
        return check() if state.can("check") else call()

    def draw(self, state: DecisionState) -> list[str]:
        return list(state.cards[:2])


class Hooked(Quiet):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def on_match_start(self, msg: Any) -> None:
        self.seen.append(msg)

    def on_hand_start(self, msg: Any) -> None:
        self.seen.append(msg)

    def on_hand_end(self, msg: Any) -> None:
        self.seen.append(msg)
        raise RuntimeError("a bug in a hook")

    def on_match_end(self, msg: Any) -> None:
        self.seen.append(msg)


def test_frames_get_strictly_valid_replies() -> None:
    bot = Quiet()
    for t in ("welcome", "match_start", "hand_start"):
        assert bot.handle_frame(SPEC_FRAMES[t]) is None
    reply = decode(bot.handle_frame(SPEC_FRAMES["act"]))  # type: ignore[arg-type]
    assert reply == ActionReply(seq=1, action="raise", amount=20)
    reply = decode(bot.handle_frame(SPEC_FRAMES["draw"]))  # type: ignore[arg-type]
    draw = msgpack.unpackb(SPEC_FRAMES["draw"])
    assert reply == DiscardReply(seq=draw["seq"], cards=tuple(draw["state"]["cards"][:2]))
    assert bot.handle_frame(SPEC_FRAMES["hand_end"]) is None
    assert bot._exit is None
    assert bot.handle_frame(SPEC_FRAMES["match_end"]) is None and bot._exit == 0


@pytest.mark.parametrize("seq", [0, 127, 128, 255, 256, 65535, 65536, 2**32, 2**40])
def test_requests_are_read_in_any_field_order(seq: int) -> None:
    """Field order on the wire does not matter: both orders give the same reply and state."""
    seen: list[Any] = []

    class Reader(Quiet):
        def act(self, state: DecisionState) -> Action:
            seen.append((state.seq, dict(state.raw), state.legal, state.time, state.cards, state.to_call))
            return super().act(state)

    wire = {**ACT_WIRE, "seq": seq}
    shuffled = {k: wire[k] for k in ("legal", "time", "state", "seq", "v", "type")}
    replies = [decode(Reader().handle_frame(msgpack.packb(w))) for w in (wire, shuffled)]  # type: ignore[arg-type]
    assert replies[0] == replies[1] == ActionReply(seq=seq, action="raise", amount=20)
    assert seen[0] == seen[1]
    assert seen[0][1] == ACT_WIRE["state"] and seen[0][2] == Legal(("fold", "call", "raise"), 5, 20, 1000)


def test_messages_are_built_only_when_asked_for() -> None:
    bot = Quiet()
    bot.handle_frame(SPEC_FRAMES["match_start"])
    bot.handle_frame(SPEC_FRAMES["hand_start"])
    assert bot._match_msg is None and bot._hand_msg is None  # nothing built yet
    assert bot.match == decode(SPEC_FRAMES["match_start"])
    assert bot.hand == decode(SPEC_FRAMES["hand_start"])


def test_a_broken_hand_start_leaves_no_hand(capsys: pytest.CaptureFixture[str]) -> None:
    bot = Quiet()
    bot.handle_frame(SPEC_FRAMES["hand_start"])
    assert bot.hand is not None
    bot.handle_frame(SPEC_FRAMES["hand_start"][:-3])  # cut short: not even a msgpack value, ignored
    bot.handle_frame(msgpack.packb({"type": "hand_start", "v": 1, "hand_id": 3}))  # fields missing
    assert bot.hand is None
    err = capsys.readouterr().err
    assert "not a msgpack value" in err and "invalid hand_start" in err


def test_hooks_get_the_same_messages_as_the_strict_codec(capsys: pytest.CaptureFixture[str]) -> None:
    bot = Hooked()
    for t in ("match_start", "hand_start", "hand_end", "match_end"):
        assert bot.handle_frame(SPEC_FRAMES[t]) is None
    assert bot.seen == [decode(SPEC_FRAMES[t]) for t in ("match_start", "hand_start", "hand_end", "match_end")]
    assert bot.hand == bot.seen[1]
    assert "a bug in a hook" in capsys.readouterr().err  # logged; the match went on
    assert bot._exit == 0


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"state": 5, "legal": ACT_WIRE["legal"], "time": ACT_WIRE["time"]}, "fold"),
        ({"state": ACT_WIRE["state"], "legal": {"actions": ["fold", "check"]}, "time": []}, "check"),
        ({"state": ACT_WIRE["state"], "time": ACT_WIRE["time"]}, "fold"),
        # usable maps, but min_to missing: act() fails reading it
        (
            {"state": ACT_WIRE["state"], "legal": {"actions": ["fold", "check", "raise"]}, "time": ACT_WIRE["time"]},
            "check",
        ),
        ({"state": ACT_WIRE["state"], "legal": {"actions": "raise"}, "time": ACT_WIRE["time"]}, "fold"),
    ],
)
def test_unusable_requests_get_the_default_action(
    fields: dict[str, Any], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = decode(Quiet().handle_frame(_frame(**fields)))  # type: ignore[arg-type]
    assert reply == ActionReply(seq=9, action=expected)
    assert "default action" in capsys.readouterr().err


def test_unusable_draw_requests_stand_pat(capsys: pytest.CaptureFixture[str]) -> None:
    frame = msgpack.packb({"type": "draw", "v": 1, "seq": 4, "state": {"cards": "AsKs"}, "legal": {}, "time": {}})
    assert decode(Quiet().handle_frame(frame)) == DiscardReply(seq=4, cards=())  # type: ignore[arg-type]
    frame = msgpack.packb({"type": "draw", "v": 1, "seq": 5, "state": None})
    assert decode(Quiet().handle_frame(frame)) == DiscardReply(seq=5, cards=())  # type: ignore[arg-type]
    assert "standing pat" in capsys.readouterr().err


@pytest.mark.parametrize(
    "frame",
    [
        b"\xc1garbage",
        msgpack.packb([1, 2]),
        msgpack.packb({"type": "surprise", "v": 1}),
        msgpack.packb({"type": ["act"], "v": 1}),
        _frame(seq="x"),
        _frame(seq=-1),
        _frame(seq=True),
        msgpack.packb({"type": "hand_start", "v": 1, "hand_id": 0, "names": b"x" * 70000}),
        msgpack.packb({"type": "error", "v": 1, "reason": 5}),
        msgpack.packb({"type": "act", "v": 1, "seq": 1, **{f"k{i}": i for i in range(70)}}),
    ],
)
def test_unusable_messages_are_ignored(frame: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    bot = Hooked()
    assert bot.handle_frame(frame) is None
    assert bot._exit is None and bot.seen == []
    assert "ignored an invalid message" in capsys.readouterr().err


def test_cut_or_damaged_frames_never_raise(capsys: pytest.CaptureFixture[str]) -> None:
    """Every prefix of the spec's frames, and each with one byte changed, is answered or ignored."""
    rng = random.Random(5)
    for frame in SPEC_FRAMES.values():
        variants = [frame[:n] for n in range(len(frame))]
        for _ in range(300):
            i = rng.randrange(len(frame))
            variants.append(frame[:i] + bytes([rng.randrange(256)]) + frame[i + 1 :])
        for data in variants:
            for bot in (Quiet(), Hooked()):
                reply = bot.handle_frame(data)
                if reply is not None:
                    assert isinstance(decode(reply), (ActionReply, DiscardReply))
                _ = (bot.hand, bot.match)
    capsys.readouterr()


def test_unsendable_answers_become_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    answers: list[Any] = [Action("raise", 2.5), Action("all-in"), Action("raise", True), Action("bet", 2**41), 7]

    class Odd(Bot):
        def act(self, state: DecisionState) -> Action:
            return answers.pop(0)

        def draw(self, state: DecisionState) -> list[str]:
            return ["As"] * 8

    bot = Odd()
    free = _frame(state=ACT_WIRE["state"], legal={**ACT_WIRE["legal"], "actions": ["fold", "check", "bet"]}, time={})
    while answers:
        assert decode(bot.handle_frame(free)) == ActionReply(seq=9, action="check")  # type: ignore[arg-type]
    assert decode(bot.handle_frame(SPEC_FRAMES["draw"])).cards == ()  # type: ignore[arg-type, union-attr]
    err = capsys.readouterr().err
    assert err.count("act() failed") == 5 and "draw() failed" in err


# --------------------------------------------------------------------------- subprocesses

RECORDING_BOT = textwrap.dedent(
    """
    import json, sys
    from protocol.sdk import Bot, call, check

    class Recording(Bot):
        def __init__(self):
            super().__init__()
            self.log = []

        def act(self, state):
            self.log.append(["act", state.phase, state.seq])
            return check() if state.can("check") else call()

        def draw(self, state):
            self.log.append(["draw", state.max_discards])
            return ["3s", "2c"]

        def on_match_start(self, msg):
            self.log.append(["match_start", msg.seat, list(msg.names)])

        def on_hand_start(self, msg):
            self.log.append(["hand_start", msg.hand_id])

        def on_hand_end(self, msg):
            self.log.append(["hand_end", list(msg.net), msg.shown[0].category])

        def on_match_end(self, msg):
            self.log.append(["match_end", msg.hands_played])
            with open(sys.argv[1], "w") as f:
                json.dump(self.log, f)

    raise SystemExit(Recording().run())
    """
)


@pytest.fixture
def referee_for(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[MiniReferee] = []

    def start(command: Sequence[str], **kw: Any) -> MiniReferee:
        ref = MiniReferee(tmp_path, command, **kw)
        made.append(ref)
        return ref

    yield start
    for ref in made:
        ref.close()


def test_sdk_bot_plays_a_hand_over_zeromq(tmp_path: Path, referee_for: Any) -> None:
    script = tmp_path / "recording_bot.py"
    script.write_text(RECORDING_BOT)
    out = tmp_path / "log.json"
    ref = referee_for([sys.executable, str(script), str(out)], name="rec")
    hello = ref.handshake()
    assert hello.name == "rec" and hello.v == 1
    replies = ref.play_spec_hand()
    assert [type(r).__name__ for r in replies] == ["ActionReply", "DiscardReply", "ActionReply"]
    assert replies[1] == DiscardReply(seq=2, cards=("3s", "2c"))
    assert ref.wait_exit() == 0
    assert json.loads(out.read_text()) == [
        ["match_start", 0, ["mybot", "solid"]],
        ["hand_start", 0],
        ["act", "bet1", 1],
        ["draw", 4],
        ["act", "bet2", 3],
        ["hand_end", [90, -90], "three_of_a_kind"],
        ["match_end", 1],
    ]


def test_bot_waits_for_the_referee_to_bind(tmp_path: Path) -> None:
    """Like a libzmq socket, the SDK retries until the endpoint exists."""
    endpoint = f"ipc://{tmp_path}/late.sock"
    env = {**os.environ, "HARNESS_ENDPOINT": endpoint, "HARNESS_SECRET": SECRET, "HARNESS_BOT_NAME": "late"}
    proc = subprocess.Popen([sys.executable, "-m", "bots.caller"], cwd=ROOT, env=env, stderr=subprocess.PIPE)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    try:
        time.sleep(0.3)  # the bot is up before the socket exists
        sock.bind(endpoint)
        assert sock.poll(300_000), "no hello"  # outer limits only
        ident, data = sock.recv_multipart()
        assert decode(data) == Hello(secret=SECRET, name="late")
        sock.send_multipart([ident, encode(MatchEnd(hands_played=0, net=(), status=()))])
        assert proc.wait(timeout=300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=300)
        proc.stderr.close()  # type: ignore[union-attr]
        sock.close(linger=0)
        ctx.term()


def test_bot_exits_when_the_referee_disappears(tmp_path: Path, referee_for: Any) -> None:
    ref = referee_for([sys.executable, "-m", "bots.caller"])
    ref.handshake()
    ref.close_socket()  # the referee vanishes without a match_end
    assert ref.wait_exit() == 0
    assert "referee closed the connection" in ref.stderr()


def test_fatal_error_ends_the_bot(tmp_path: Path, referee_for: Any) -> None:
    ref = referee_for([sys.executable, "-m", "bots.caller"])
    ref.recv()
    ref.send(Error(reason="version_mismatch", message="the referee speaks 1, the bot 2"))
    assert ref.wait_exit() == 1
    assert "version_mismatch" in ref.stderr()


def test_bot_ignores_invalid_referee_messages(tmp_path: Path, referee_for: Any) -> None:
    ref = referee_for([sys.executable, "-m", "bots.caller"])
    ref.handshake()
    ref.send({"type": "act", "v": 1, "seq": "x"})
    ref.send({"type": "surprise", "v": 1})
    replies = ref.play_spec_hand()
    assert len(replies) == 3
    assert ref.wait_exit() == 0
    assert "ignored an invalid message" in ref.stderr()


def test_missing_environment_is_a_clear_error() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    done = subprocess.run(
        [sys.executable, "-m", "bots.caller"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    assert "HARNESS_ENDPOINT is not set" in done.stderr


def test_card_ints_are_the_evaluators_encoding() -> None:
    """PROTOCOL.md section 11: the SDK gives bots the ints harness.engine.evaluator takes."""
    from harness.engine.cards import CARD_STRS
    from protocol.sdk import card_ints

    assert card_ints(["2c", "As", "Td"]) == [0, 51, 33]
    assert card_ints(list(CARD_STRS)) == list(range(52))
