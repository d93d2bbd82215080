"""PROTOCOL.md says what the referee and the SDK do, and they do it: error reasons, the exit grace,
heartbeats, the SDK's ``state.legal``."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.engine.config import GameConfig
from harness.match.connection import Connection
from harness.match.referee import BotSpec, Limits, MatchSpec, play_match
from harness.match.seat import QUIT_GRACE_MS
from harness.specs import FaultKind
from protocol import codec
from protocol.messages import ErrorReason, Hello
from protocol.sdk import DecisionState

ROOT = Path(__file__).resolve().parents[1]
SPEC = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
SECRET = "s3cr3t"


def test_the_error_reasons_listed_are_those_the_referee_sends() -> None:
    row = next(line for line in SPEC.splitlines() if line.startswith("| `reason` | str |"))
    listed = set(re.findall(r"`([a-z_]+)`", row.split("|")[3]))
    assert listed == {r.value for r in ErrorReason}
    assert "bad_hello" not in listed
    # what the referee sends: version_mismatch (connection.py), out (put out), and the faults of a reply
    sent_per_fault = {FaultKind.MALFORMED, FaultKind.ILLEGAL, FaultKind.TIMEOUT, FaultKind.OVERSIZED}
    assert listed == {"version_mismatch", "out"} | {k.value for k in sent_per_fault}


@pytest.fixture()
def conn(tmp_path: Path) -> Iterator[Connection]:
    c = Connection(f"ipc://{tmp_path}/bot.sock", SECRET, "bot", 4096, lambda line: None)
    yield c
    c.close()


def greeted(conn: Connection, first: bytes, until_message: bool = False) -> bytes:
    """Connect a raw ZMTP DEALER, send ``first``, serve the referee until it closes the connection, or with
    ``until_message`` until its first message (a refused version is answered and the connection left to the seat's
    end); 120 s is an outer limit only. What came back."""
    import socket as so

    from harness.match import zmtp

    s = so.socket(so.AF_UNIX, so.SOCK_STREAM)
    s.settimeout(2)
    s.connect(conn.endpoint[len("ipc://"):])
    s.sendall(zmtp.GREETING + zmtp.ready(b"DEALER") + zmtp.frame(first))
    parser = zmtp.Parser(1 << 20)
    got: list[tuple[int, object, object]] = []
    end = time.monotonic() + 120
    closed = False
    while time.monotonic() < end and not closed:
        conn.poll_handshake()
        conn.wait(20)
        s.settimeout(0.02)
        try:
            data = s.recv(65536)
        except TimeoutError:
            continue
        if not data:
            closed = True
            break
        parser.feed(data)
        while (ev := parser.next()) is not None:
            got.append(ev)
        if until_message and any(ev[0] == zmtp.EV_MESSAGE for ev in got):
            break
    s.close()
    messages = [ev for ev in got if ev[0] == zmtp.EV_MESSAGE]
    return b"closed" if closed and not messages else b"".join(m[1] for m in messages)  # type: ignore[misc]


def test_a_wrong_secret_gets_no_answer_and_its_connection_is_closed(conn: Connection) -> None:
    assert greeted(conn, codec.encode(Hello(secret="wrong", name="bot", v=1))) == b"closed"


def test_the_right_secret_with_another_version_gets_a_fatal_version_mismatch(conn: Connection) -> None:
    reply = codec.decode(greeted(conn, codec.encode(Hello(secret=SECRET, name="bot", v=2)), until_message=True))
    assert reply.TYPE == "error" and reply.reason == "version_mismatch" and reply.fatal


def test_the_referee_answers_pings_and_sends_none() -> None:
    """PROTOCOL.md section 1: PING gets PONG (tests/test_connection.py), the referee sends no PING."""
    assert "The referee answers ZMTP heartbeats\n  (`PING` gets `PONG`) and sends none itself." in SPEC
    for name in ("zmtp.py", "connection.py"):
        source = (ROOT / "harness" / "match" / name).read_text(encoding="utf-8")
        assert 'command(b"PING"' not in source and "b\"PING\", " not in source, name


LOGGER = r'''
import os, sys, time, zmq, msgpack
s = zmq.Context().socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 0)
s.connect(os.environ["HARNESS_ENDPOINT"])
s.send(msgpack.packb({"type": "hello", "v": int(sys.argv[1]), "secret": os.environ["HARNESS_SECRET"], "name": "x"}))
while True:
    msg = msgpack.unpackb(s.recv())
    if msg["type"] in ("error", "match_end") and (msg["type"] == "match_end" or msg.get("fatal")):
        break
    if msg["type"] in ("act", "draw"):
        free = "check" in msg["legal"]["actions"]
        reply = {"type": "action", "v": 1, "seq": msg["seq"], "action": "check" if free else "fold"}
        if msg["type"] == "draw":
            reply = {"type": "discard", "v": 1, "seq": msg["seq"], "cards": []}
        s.send(msgpack.packb(reply))
print("got", msg["type"], msg.get("reason", ""), file=sys.stderr, flush=True)
time.sleep(float(sys.argv[2]))  # a JVM logging and running its shutdown hooks
print("logged and exiting", file=sys.stderr, flush=True)
'''


@pytest.mark.parametrize("version", [1, 2], ids=["after-match_end", "after-version_mismatch"])
def test_the_bot_gets_the_exit_grace_to_log_and_exit(tmp_path: Path, version: int) -> None:
    assert QUIT_GRACE_MS == 1000 and "exit grace of 1 second" in SPEC
    script = tmp_path / "logger.py"
    script.write_text(LOGGER)
    tmp_path.chmod(0o755)
    pause = "0.6" if version == 1 else "0.3"  # past the former 500 ms grace; none was given after a mismatch
    bots = [BotSpec("logger", (sys.executable, "logger.py", str(version), pause), cwd=str(tmp_path)),
            BotSpec("caller", (sys.executable, "-m", "bots.caller"), cwd=str(ROOT))]
    out = tmp_path / "m"
    result = play_match(bots, MatchSpec(game=GameConfig(), hands=1, seed=1), Limits(startup_ms=5000), out)
    err = (out / "logs" / "0-logger.err").read_text()
    expected = "got match_end" if version == 1 else "got error version_mismatch"
    assert expected in err and "logged and exiting" in err, err
    referee_log = (out / "logs" / "referee.log").read_text()
    assert "seat 0 logger: stopped by" not in referee_log, referee_log
    assert (result.status[0] == "ok") == (version == 1)


def test_state_legal_is_an_object_as_the_sdk_table_says() -> None:
    state = DecisionState(1, "act", {}, {"actions": ["fold", "call"], "call_amount": 10, "min_to": 20,
                                         "max_to": 990, "max_discards": 0}, {"decision_ms": 1000, "bank_ms": 0})
    assert state.legal.actions == ("fold", "call") and state.legal.min_to == 20
    assert state.time.decision_ms == 1000
    with pytest.raises(TypeError):
        state.legal["actions"]  # type: ignore[index]
    assert 'an object (not a map: `state.legal.actions`, never `state.legal["actions"]`)' in SPEC
