"""The referee's own ZMTP in real matches: other implementations interoperate, hostile peers are bounded.

Interop: libzmq through pyzmq with heartbeats on, a reconnect before the
hello, a hand-written ZMTP 3.1 client and a 3.0 one (zeromq.js, C and Java
are in tests/test_bots_node.py and tests/test_bots_native.py). Hostile
peers (tests/fixtures/broken_bots/zmtp_hostile.py) that break ZMTP before
the hello never start; those that break it in play are in
tests/test_faults.py; here their cost: the referee's peak memory (a match in
a process of its own) and the opponent's decision times.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from harness.match.endpoint import memory_bound
from harness.specs import Limits
from tests.fault_helpers import GOOD, HANDS, LIMITS, REPO, assert_history_stands_alone, faults_of, fixture_bot, play

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def passive(tmp_path_factory: pytest.TempPathFactory) -> list[list[int]]:
    return play([GOOD, fixture_bot("passive")], tmp_path_factory.mktemp("passive")).hand_nets


@pytest.mark.parametrize(
    "argv", [("zmtp_hostile", "play"), ("zmtp_hostile", "v30"), ("zmtp_hostile", "pinger"),
             ("zmq_peer", "heartbeat"), ("zmq_peer", "reconnect_first")],
    ids="-".join,
)
def test_other_zmtp_peers_play_without_a_fault(tmp_path: Path, passive: list[list[int]], argv: tuple[str, str]) -> None:
    limits = Limits(decision_ms=2000, time_bank_ms=6000, startup_ms=30000, max_faults=1000, log_bytes=200_000)
    result = play([GOOD, fixture_bot(*argv, label="-".join(argv).replace("_", "-"))], tmp_path, limits)
    assert [faults_of(result, 0), faults_of(result, 1)] == [{}, {}], result.faults
    assert result.status == ["ok", "ok"]
    assert result.hand_nets == passive
    log = (tmp_path / "logs" / "referee.log").read_text()
    if argv[1] in ("heartbeat", "pinger"):  # its PINGs were answered (an unanswered one closes libzmq's connection)
        assert "PING answered with PONG" in log, log


def test_peers_that_break_zmtp_before_hello_never_start(tmp_path: Path) -> None:
    modes = ["greeting_stall", "garbage", "mechanism"]
    bots = [GOOD] + [fixture_bot("zmtp_hostile", m, label=m.replace("_", "-")) for m in modes]
    limits = LIMITS  # the good bot never late; the broken greetings wait out startup_ms
    result = play(bots, tmp_path, limits)
    assert faults_of(result, 0) == {}
    for seat in (1, 2, 3):
        assert faults_of(result, seat) == {"failed_start": 1}, result.faults
    assert_history_stands_alone(tmp_path, result)
    log = (tmp_path / "logs" / "referee.log").read_text()
    assert "frame with flags 0xf0 (reserved bits set): not ZMTP" in log
    assert "mechanism 'PLAIN': the referee speaks only NULL" in log
    assert "seat 1 greeting-stall: failed_start: no valid hello" in log  # half a greeting is only silence


# The peak is VmHWM, this program's own high-water mark: ru_maxrss also keeps the RSS of the process that
# forked it (here pytest, often larger than a match), which would hide what the match itself reached.
MEMORY_RUN = r"""
import json, re, sys
from pathlib import Path
from harness.match.referee import play_match
from tests.fault_helpers import GOOD, LIMITS, fixture_bot, match_spec
result = play_match([GOOD, fixture_bot(*sys.argv[2:])], match_spec(), LIMITS, Path(sys.argv[1]))
peak = int(re.search(r"^VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M).group(1))
print(json.dumps({"peak_kib": peak, "status": result.status, "faults": result.faults, "hands": result.hands_played}))
"""


def referee_peak(out: Path, *argv: str) -> dict:
    """A match in a process of its own: its result and the referee's peak resident memory (KiB)."""
    done = subprocess.run([sys.executable, "-c", MEMORY_RUN, str(out), *argv], cwd=REPO, capture_output=True,
                          text=True, timeout=100)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("multipart", "malformed"),
     pytest.param("long_header", "oversized", marks=pytest.mark.slow),
     pytest.param("commands", "illegal", marks=pytest.mark.slow),
     pytest.param("second_frame", "malformed", marks=pytest.mark.slow)],
)
def test_the_referee_memory_stays_under_its_bound_whatever_a_peer_sends(tmp_path: Path, mode: str, kind: str) -> None:
    """The endless multipart message (libzmq kept ~32 bytes of referee memory per byte sent): the sender is
    out, the match recorded and scored, and the referee's peak stays within its stated bound of a clean match."""
    clean = referee_peak(tmp_path / "clean", "passive")
    hostile = referee_peak(tmp_path / "hostile", "zmtp_hostile", mode)
    assert hostile["hands"] == HANDS and hostile["status"][0] == "ok"
    assert hostile["status"][1].startswith(f"{kind}: ") and hostile["faults"][1] == {kind: 1}, hostile
    bound_kib = memory_bound(LIMITS.max_message_bytes) // 1024
    grew = hostile["peak_kib"] - clean["peak_kib"]
    print(f"referee peak: clean {clean['peak_kib']} KiB, {mode} {hostile['peak_kib']} KiB (bound {bound_kib} KiB)")
    assert grew <= bound_kib + 4096, (clean, hostile, bound_kib)  # 4 MiB for the noise of a Python process


def victim_ms(out: Path) -> float:
    """Seat 1's typical decision time: the lower quartile of its decisions (ms), as tests/test_sandbox.py."""
    times = sorted(a["ms"] for line in (out / "hands.jsonl").read_text().splitlines()
                   for a in json.loads(line)["actions"] if a["seat"] == 1 and a["ms"] is not None)
    return statistics.quantiles(times, n=4)[0]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["commands", "pinger"])
def test_command_frames_do_not_slow_the_opponent(tmp_path: Path, mode: str) -> None:
    """A stream of command frames (put out at once) or PINGs within the budget for the whole match (answered):
    the victim's decisions take what they take against a quiet opponent, within 20% (up to five tries)."""
    from harness.match.referee import play_match
    from tests.fault_helpers import match_spec

    cpu = max(os.sched_getaffinity(0))
    limits = Limits(decision_ms=2000, time_bank_ms=0, startup_ms=4000, max_faults=1000, log_bytes=200_000)
    victim = fixture_bot("zmq_peer", "think", label="thinker")

    def run(name: str, other: str) -> float:
        opponent = fixture_bot("zmtp_hostile", other, label=f"{other}")
        play_match([opponent, victim], match_spec(), limits, tmp_path / name, cpus={cpu})
        return victim_ms(tmp_path / name)

    tries = []
    for attempt in range(5):
        before = run(f"base{attempt}", "play")
        flood = run(f"flood{attempt}", mode)
        after = run(f"after{attempt}", "play")
        tries.append((before, flood, after))
        if flood <= 1.2 * max(before, after):
            break
    else:
        pytest.fail(f"the {mode} opponent slowed the victim by more than 20% (ms: base, flood, after): {tries}")


def test_tcp_on_loopback_works_as_ipc(tmp_path: Path, passive: list[list[int]]) -> None:
    """``transport="tcp"`` (no sandbox: its network namespace has no loopback of the host's): libzmq and
    the hand-written client play over tcp://127.0.0.1, the same as over ipc."""
    from harness.match.referee import play_match
    from harness.specs import SandboxMode, SandboxSettings
    from tests.fault_helpers import match_spec

    for other in (fixture_bot("passive"), fixture_bot("zmtp_hostile", "play", label="hand-written")):
        out = tmp_path / other.name
        result = play_match([GOOD, other], match_spec(), LIMITS, out, transport="tcp",
                            sandbox=SandboxSettings(mode=SandboxMode.OFF))
        assert result.status == ["ok", "ok"] and result.faults == [{}, {}], (result.status, result.faults)
        assert result.hand_nets == passive
