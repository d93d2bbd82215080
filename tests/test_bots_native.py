"""The C and Java example bots (bots/c, bots/java): built by their make targets, they pass check-bot
and play a real match against the referee's own ZMTP (C libzmq, and libzmq's Java binding).

Each is built in a temporary copy of its folder. Skipped, saying what is missing, without a C
compiler, libzmq's and msgpack-c's headers (Debian: gcc make libzmq3-dev libmsgpack-dev), or a JDK
with libzmq-java and libmsgpack-java.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.engine.config import GameConfig
from harness.specs import BotSpec, Limits, MatchSpec
from tests.fault_helpers import assert_nothing_left
from tests.native_helpers import COMMANDS, ROOT, build

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["c", "java"])
def native(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return request.param, build(tmp_path_factory.mktemp("native"), request.param)


def test_the_example_bot_passes_check_bot(native: tuple[str, Path]) -> None:
    lang, work = native
    harness = Path(sys.executable).with_name("harness")
    done = subprocess.run([str(harness), "check-bot", "--hands", "6", "--cwd", str(work), "--", *COMMANDS[lang]],
                          capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: no protocol violation" in done.stdout, done.stdout


def test_the_example_bot_plays_a_match_against_the_python_bots(native: tuple[str, Path], tmp_path: Path) -> None:
    from harness.match.referee import play_match

    lang, work = native
    bots = [BotSpec(f"{lang}bot", COMMANDS[lang], cwd=str(work)),
            BotSpec("caller", ("python", "-m", "bots.caller"), cwd=str(ROOT)),
            BotSpec(f"{lang}bot2", COMMANDS[lang], cwd=str(work))]
    limits = Limits(decision_ms=2000, time_bank_ms=5000, startup_ms=10000, max_faults=3)
    result = play_match(bots, MatchSpec(GameConfig(), hands=20, seed=5), limits, tmp_path)
    assert_nothing_left()
    assert result.status == ["ok"] * 3 and result.faults == [{}, {}, {}], (result.status, result.faults)
    assert result.hands_played == 20 and sum(result.net) == 0
