"""Shared by several test modules (moved from test_protocol_codec.py): EXAMPLES, _spec_example."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgpack
import zmq

from protocol.codec import decode, encode
from protocol.messages import (
    ActionReply,
    ActRequest,
    DiscardReply,
    DrawRequest,
    Error,
    GameSettings,
    HandEnd,
    HandStart,
    Hello,
    Legal,
    MatchEnd,
    MatchLimits,
    MatchStart,
    Message,
    Opened,
    PotResult,
    Shown,
    TimeLeft,
    Welcome,
)
from protocol.version import MAX_MESSAGE_BYTES

SPEC = Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md"


STATE: dict[str, Any] = {
    "hand_id": 0,
    "seat": 0,
    "button": 0,
    "phase": "bet1",
    "cards": ["Ah", "Kh", "Qh", "7c", "7d", "3s", "2c"],
    "stacks": [995, 990],
    "bets": [5, 10],
    "pot": 15,
    "folded": [False, False],
    "all_in": [False, False],
    "draws": [None, None],
    "history": [
        {"seat": 0, "action": "small_blind", "amount": 5},
        {"seat": 1, "action": "big_blind", "amount": 10, "all_in": False},
    ],
    "to_act": 0,
    "small_blind": 5,
    "big_blind": 10,
    "ante": 0,
    "structure": "no-limit",
}


LEGAL = Legal(actions=("fold", "call", "raise"), call_amount=5, min_to=20, max_to=1000)


TIME = TimeLeft(decision_ms=1000, bank_ms=30000)


EXAMPLES = [
    Hello(secret="9f2c61d0a4", name="mybot"),
    ActionReply(seq=1, action="raise", amount=30),
    ActionReply(seq=2, action="fold"),
    DiscardReply(seq=2, cards=("3s", "2c")),
    DiscardReply(seq=3, cards=()),
    Welcome(),
    Error(reason="version_mismatch", message="speaks 2", seq=None, fatal=True),
    Error(reason="timeout", message="late", seq=7, fatal=False),
    MatchStart(
        match_id="demo",
        seat=1,
        names=("a", "b", "c"),
        game=GameSettings("no-limit", 5, 10, 0, True, None, 4, "stock"),
        hands=1000,
        starting_stack=1000,
        stack_mode="reset",
        limits=MatchLimits(1000, 30000, 10000, 10, MAX_MESSAGE_BYTES),
    ),
    MatchStart(
        match_id="ante",
        seat=0,
        names=("a", "b"),
        game=GameSettings("fixed-limit", 0, 0, 5, False, 20, 0, "per-seat"),
        hands=1,
        starting_stack=500,
        stack_mode="freezeout",
        limits=MatchLimits(50, 0, 100, 1, 1024),
    ),
    HandStart(hand_id=3, seat=0, button=1, names=("a", "b"), stacks=(1000, 1000),
              cards=("Ah", "Kh", "Qh", "7c", "7d", "3s", "2c")),
    ActRequest(seq=1, state=STATE, legal=LEGAL, time=TIME),
    DrawRequest(seq=2, state=dict(STATE, phase="draw"),
                legal=Legal(actions=("draw",), max_discards=4), time=TIME),
    HandEnd(
        hand_id=0,
        history=tuple(STATE["history"]) + ({"seat": 0, "action": "draw", "count": 2},),
        shown=(Shown(0, ("Ah", "Kh", "Qh", "7c", "7d", "Jh", "7s"), ("7c", "7d", "7s", "Ah", "Kh"),
                     "three_of_a_kind"),),
        pots=(PotResult(180, (0, 1), (0,), (180,)),),
        net=(90, -90),
        stacks=(1090, 910),
    ),
    HandEnd(  # Five Card Draw: seat 1 opened on jacks and nobody called; its openers are shown (R7.7)
        hand_id=2,
        history=({"seat": 0, "action": "ante", "amount": 1}, {"seat": 1, "action": "ante", "amount": 1},
                 {"seat": 1, "action": "bet", "amount": 2}, {"seat": 0, "action": "fold"}),
        shown=(),
        pots=(PotResult(4, (1,), (1,), (4,)),),
        net=(-1, 1),
        stacks=(99, 101),
        opener=Opened(1, ("Jh", "Jc")),
    ),
    MatchEnd(hands_played=10, net=(-5, 5), status=("ok", "out: timeout")),
]


def _spec_example() -> list[tuple[str, dict[str, Any]]]:
    """The messages of PROTOCOL.md section 9, in order, with their direction."""
    text = SPEC.read_text()
    block = text.split("## 9 Example")[1].split("```")[1]
    messages: list[tuple[str, str]] = []
    for line in block.splitlines():
        m = re.match(r"(->|<-) (.*)", line)
        if m:
            messages.append((m.group(1), m.group(2)))
        elif messages and line.startswith("    ") and not line.lstrip().startswith("("):
            messages[-1] = (messages[-1][0], messages[-1][1] + line)
    return [(d, json.loads(body)) for d, body in messages]


ROOT = Path(__file__).resolve().parent.parent


SECRET = "s3cret-for-tests"


class MiniReferee:
    """A ROUTER socket, one bot subprocess, and helpers to talk to it (always call ``close``)."""

    def __init__(
        self, tmp_path: Path, command: Sequence[str], name: str = "testbot", env: dict[str, str] | None = None
    ) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        endpoint = f"ipc://{tmp_path}/bot.sock"
        self.sock.bind(endpoint)
        self.identity: bytes | None = None
        self.err_path = tmp_path / "bot.err"
        launch_env = {
            **os.environ,
            "HARNESS_ENDPOINT": endpoint,
            "HARNESS_SECRET": SECRET,
            "HARNESS_BOT_NAME": name,
            "HARNESS_PROTOCOL_VERSION": "1",
            **(env or {}),
        }
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                list(command), cwd=ROOT, env=launch_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
            )

    def recv(self, timeout_ms: int = 300_000) -> Message:
        """The next message from the bot (decoded strictly); fails the test after the timeout (an outer limit:
        a JVM starting on a loaded machine takes many seconds)."""
        if not self.sock.poll(timeout_ms):
            raise AssertionError(f"no message from the bot within {timeout_ms} ms; stderr:\n{self.stderr()}")
        ident, data = self.sock.recv_multipart()
        if self.identity is None:
            self.identity = ident
        assert ident == self.identity
        return decode(data)

    def send(self, msg: Message | dict[str, Any]) -> None:
        assert self.identity is not None
        data = msgpack.packb(msg) if isinstance(msg, dict) else encode(msg)
        self.sock.send_multipart([self.identity, data])

    def handshake(self) -> Hello:
        hello = self.recv()
        assert isinstance(hello, Hello)
        assert hello.secret == SECRET
        self.send(Welcome())
        return hello

    def play_spec_hand(self) -> list[Message]:
        """Replay PROTOCOL.md's example hand (after the handshake); return the bot's replies.

        Each reply is checked against the request it answers: same seq, right type,
        a legal action and amount, discards held and within ``max_discards``.
        """
        replies: list[Message] = []
        for direction, wire in _spec_example():
            if direction == "->" or wire["type"] == "welcome":
                continue
            self.send(wire)
            if wire["type"] in ("act", "draw"):
                reply = self.recv()
                check_reply(decode(msgpack.packb(wire)), reply)  # type: ignore[arg-type]
                replies.append(reply)
        return replies

    def wait_exit(self, timeout_s: float = 300.0) -> int:
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the bot did not exit; stderr:\n{self.stderr()}") from None

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def close_socket(self) -> None:
        if not self.sock.closed:
            self.sock.close(linger=0)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=300)
        self.close_socket()
        self.ctx.term()


def check_reply(request: ActRequest | DrawRequest, reply: Message) -> None:
    """Assert that ``reply`` is a legal answer to ``request``."""
    legal = request.legal
    if isinstance(request, ActRequest):
        assert isinstance(reply, ActionReply), reply
        assert reply.seq == request.seq
        assert reply.action in legal.actions, (reply, legal)
        if reply.action in ("bet", "raise"):
            assert legal.min_to <= reply.amount <= legal.max_to, (reply, legal)
    else:
        assert isinstance(reply, DiscardReply), reply
        assert reply.seq == request.seq
        assert len(reply.cards) <= legal.max_discards
        assert len(set(reply.cards)) == len(reply.cards)
        assert set(reply.cards) <= set(request.state["cards"])
