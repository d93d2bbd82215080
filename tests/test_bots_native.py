"""The C, Java, Rust and Go example bots (bots/c, bots/java, bots/rust, bots/go): built by their make
targets, they pass the shared vectors (protocol/vectors: their runner's replies read by the referee's
codec), pass check-bot and play a real match against the referee's own ZMTP (C libzmq, libzmq's Java
binding, the Rust zmq crate over libzmq, Go's pure zmq4 over a real Unix socket).

Each is built in a temporary copy of its folder. Skipped loudly, saying what is missing, without a C
compiler, libzmq's and msgpack-c's headers (Debian: gcc make libzmq3-dev libmsgpack-dev), a JDK with
libzmq-java and libmsgpack-java, cargo (with libzmq3-dev) or go.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.engine.config import GameConfig
from harness.specs import BotSpec, Limits, MatchSpec
from tests.fault_helpers import assert_nothing_left
from tests.native_helpers import CARGO, COMMANDS, GO, LANGS, ROOT, build
from tests.vectors_helpers import VECTORS, assert_runner_replies, vectors

# A first cargo or go build fetches and compiles the dependencies: minutes on a loaded machine (the suite's
# outer limit allows it).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=LANGS)
def native(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return request.param, build(tmp_path_factory.mktemp("native"), request.param)


def test_the_example_bot_passes_check_bot(native: tuple[str, Path]) -> None:
    lang, work = native
    harness = Path(sys.executable).with_name("harness")
    done = subprocess.run([str(harness), "check-bot", "--hands", "6", "--cwd", str(work), "--", *COMMANDS[lang]],
                          capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: no protocol violation" in done.stdout, done.stdout


def test_the_example_bot_plays_triple_draw_without_a_violation(native: tuple[str, Path]) -> None:
    """Another game (PROTOCOL.md section 6, "Other games"): five cards, up to five discards, from ``legal``."""
    lang, work = native
    harness = Path(sys.executable).with_name("harness")
    done = subprocess.run([str(harness), "check-bot", "--hands", "6", "--game", "deuce-to-seven-triple-draw",
                           "--cwd", str(work), "--", *COMMANDS[lang]], capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hands of deuce-to-seven-triple-draw" in done.stdout and "OK: no protocol violation" in done.stdout


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


def test_the_example_bot_passes_the_shared_vectors(native: tuple[str, Path]) -> None:
    lang, work = native
    done = subprocess.run([*COMMANDS[lang], "--vectors", str(VECTORS)], cwd=work, capture_output=True, text=True,
                          timeout=200)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_runner_replies(done.stdout, lang)
    # The Rust and Go starters have their own evaluator: every hand of the vectors is checked.
    last = f"ok {len(vectors('hands')['hands'])} hands" if lang in ("rust", "go") else "ok messages"
    assert done.stdout.splitlines()[-1] == last, done.stdout[-500:]
    if lang in ("rust", "go"):  # and the language's own runner: `make test` (cargo test, go test)
        done = subprocess.run(["make", "-C", str(work), "test", f"CARGO={CARGO}", f"GO={GO}"], capture_output=True,
                              text=True, timeout=900, env={**os.environ, "PROTOCOL_VECTORS": str(VECTORS)})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]



@pytest.mark.parametrize(("lang", "tool"), [("rust", "CARGO"), ("go", "GO")])
def test_a_missing_toolchain_skips_loudly(lang: str, tool: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from tests import native_helpers

    monkeypatch.setattr(native_helpers, tool, None)
    with pytest.warns(UserWarning, match=f"missing make or {tool.lower()}"), \
            pytest.raises(pytest.skip.Exception, match=f"the {lang} example bot cannot be built here"):
        build(tmp_path, lang)
    assert not (tmp_path / lang).exists()
