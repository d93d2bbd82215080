"""One slow decision costs one timeout, not one per request it overlapped (PROTOCOL.md section 8).

- the referee: after a request timed out, the bot's next request waits for its late reply
  (up to ``CATCH_UP_DECISIONS`` decision times) before it is sent: a 3 s stall under a 1 s decision
  time (here scaled to 0.9 s and 0.3 s) cost three timeouts, now one;
- the bots: a request with a message queued behind it has timed out, and is skipped, not
  answered (the SDK, and the C and Java starters).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness.engine.config import GameConfig
from harness.match.endpoint import CATCH_UP_DECISIONS
from harness.match.referee import play_match
from harness.specs import BotSpec, Limits, MatchSpec, SandboxMode, SandboxSettings
from protocol.messages import ActionReply
from tests.native_helpers import COMMANDS, LANGS, build
from tests.protocol_helpers import MiniReferee, _spec_example

ROOT = Path(__file__).resolve().parent.parent
# 2 s: no decision of a fast bot comes near it, even on a loaded machine (300 ms did: a second timeout).
DECISION_MS = 2000
STALL_S = 3 * DECISION_MS / 1000  # the student's 3 s stall under 1 s per decision, scaled

STALLER = textwrap.dedent(
    f"""
    import time

    from protocol.sdk import Bot, call, check


    class Staller(Bot):
        stalled = False

        def act(self, state):
            if not self.stalled:  # one slow decision, e.g. a garbage collection or a deep search
                self.stalled = True
                time.sleep({STALL_S})
            return check() if state.can("check") else call()

        def draw(self, state):
            return []


    raise SystemExit(Staller().run())
    """
)

pytestmark = pytest.mark.slow


def test_one_stall_costs_one_timeout(tmp_path: Path) -> None:
    assert STALL_S < (1 + CATCH_UP_DECISIONS) * DECISION_MS / 1000  # within the referee's catch-up wait
    (tmp_path / "staller.py").write_text(STALLER)
    bots = [BotSpec("staller", ("python", str(tmp_path / "staller.py")), cwd=str(ROOT)),
            BotSpec("caller", ("python", "-m", "bots.caller"), cwd=str(ROOT))]
    limits = Limits(decision_ms=DECISION_MS, time_bank_ms=0, startup_ms=60000, max_faults=100)
    spec = MatchSpec(game=GameConfig(), hands=6, seed=3, match_id="stall")
    result = play_match(bots, spec, limits, tmp_path / "out", sandbox=SandboxSettings(mode=SandboxMode.OFF))
    assert result.hands_played == 6
    assert result.faults[0].get("timeout", 0) == 1, result.faults
    assert result.faults[1].get("timeout", 0) == 0, result.faults
    assert list(result.status) == ["ok", "ok"]


def _queued_requests_get_one_reply(tmp_path: Path, command: list[str]) -> None:
    """A request with a timeout notice and a newer request queued behind it: only the newer is answered."""
    wires = [w for d, w in _spec_example() if d == "<-"]
    act = next(w for w in wires if w["type"] == "act")
    ref = MiniReferee(tmp_path, command)
    try:
        ref.handshake()
        for wire in wires[: wires.index(act)]:  # match_start, hand_start
            if wire["type"] != "welcome":
                ref.send(wire)
        time.sleep(0.3)
        os.kill(ref.proc.pid, signal.SIGSTOP)  # the bot is busy: three messages queue up
        try:
            ref.send(act)
            ref.send({"type": "error", "v": 1, "reason": "timeout", "message": "no reply with seq 1 within the "
                      "time limit", "seq": act["seq"], "fatal": False})
            ref.send({**act, "seq": act["seq"] + 1})
            time.sleep(0.3)
        finally:
            os.kill(ref.proc.pid, signal.SIGCONT)
        reply = ref.recv()
        assert isinstance(reply, ActionReply) and reply.seq == act["seq"] + 1, (reply, ref.stderr())
        assert not ref.sock.poll(500), f"a second reply: {ref.recv()}"
        ref.send({"type": "match_end", "v": 1, "hands_played": 1, "net": [0, 0], "status": ["ok", "ok"]})
        ref.wait_exit()
    finally:
        ref.close()


def test_the_sdk_skips_a_request_that_timed_out(tmp_path: Path) -> None:
    _queued_requests_get_one_reply(tmp_path, [sys.executable, "-m", "bots.caller"])


# Not Go: zmq4 hands the frames that queued while the bot was stopped over one at a time from a
# goroutine, so under load the request can be read before the frames behind it show up (1 run in 6
# here); bots/go checks again once its decision is made, which a slow decision (the usual cause) meets.
@pytest.mark.timeout(900)  # a first cargo build compiles the dependencies
@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "go"])
def test_the_starters_skip_a_request_that_timed_out(tmp_path: Path, lang: str) -> None:
    work = build(tmp_path, lang)
    _queued_requests_get_one_reply(tmp_path, [str(work / COMMANDS[lang][0][2:])])


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                    reason="the Node.js bot needs `node` and `npm` on PATH (Node 18+)")
def test_the_node_bot_skips_a_request_that_timed_out(tmp_path: Path, node_bot: Path) -> None:
    """bots/node, the bot written from PROTOCOL.md alone, keeps section 8's rule too (zeromq.js: ``readable``)."""
    _queued_requests_get_one_reply(tmp_path, [str(shutil.which("node")), str(node_bot)])
