"""The second-language proof: the Node.js bot (bots/node, written from PROTOCOL.md alone) plays a hand.

Its npm dependencies (zeromq 6 ships prebuilt binaries inside its npm package, so no
download from elsewhere is needed) are installed into a temporary copy of bots/node.
Skipped, with the reason, when node or npm is not installed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.protocol_helpers import ROOT, MiniReferee

NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    NODE is None or NPM is None, reason="Node.js bot test needs `node` and `npm` on PATH (Node 18+)"
)]


def test_node_bot_plays_a_hand(tmp_path: Path, node_bot: Path) -> None:
    ref = MiniReferee(tmp_path, [str(NODE), str(node_bot)], name="node")
    try:
        hello = ref.handshake()
        assert hello.name == "node"
        replies = ref.play_spec_hand()
        assert [type(r).__name__ for r in replies] == ["ActionReply", "DiscardReply", "ActionReply"]
        # Its draw keeps the pair of sevens and throws the lowest unpaired cards.
        assert set(replies[1].cards) == {"2c", "3s", "Qh", "Kh"}  # type: ignore[union-attr]
        assert ref.wait_exit() == 0
    finally:
        ref.close()


def test_node_bot_exits_when_the_referee_disappears(tmp_path: Path, node_bot: Path) -> None:
    ref = MiniReferee(tmp_path, [str(NODE), str(node_bot)], name="node")
    try:
        ref.handshake()
        ref.close_socket()
        assert ref.wait_exit() == 0
    finally:
        ref.close()


def test_node_bot_plays_a_match_over_the_referees_zmtp(tmp_path: Path, node_bot: Path) -> None:
    """zeromq.js against the referee's own ZMTP (not the MiniReferee's libzmq): a real match, no fault."""
    from harness.engine.config import GameConfig
    from harness.match.referee import play_match
    from harness.specs import BotSpec, Limits, MatchSpec

    bots = [BotSpec("node", (str(NODE), str(node_bot)), cwd=str(node_bot.parent)),
            BotSpec("caller", ("python", "-m", "bots.caller"), cwd=str(ROOT))]
    limits = Limits(decision_ms=2000, time_bank_ms=5000, startup_ms=10000, max_faults=3)
    result = play_match(bots, MatchSpec(GameConfig(), hands=10, seed=3), limits, tmp_path)
    assert result.status == ["ok", "ok"] and result.faults == [{}, {}], (result.status, result.faults)
    assert result.hands_played == 10


def test_node_bot_plays_triple_draw_without_a_fault(tmp_path: Path, node_bot: Path) -> None:
    """Another game (PROTOCOL.md section 6, "Other games"): five cards, up to five discards, from ``legal``."""
    from harness.engine.config import GameConfig
    from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW
    from harness.match.referee import play_match
    from harness.specs import BotSpec, Limits, MatchSpec

    bots = [BotSpec("node", (str(NODE), str(node_bot)), cwd=str(node_bot.parent)),
            BotSpec("raiser", ("python", "-m", "bots.raiser"), cwd=str(ROOT))]
    limits = Limits(decision_ms=2000, time_bank_ms=5000, startup_ms=10000, max_faults=3)
    spec = MatchSpec(GameConfig(structure="fixed-limit"), hands=10, seed=4, definition=DEUCE_TO_SEVEN_TRIPLE_DRAW)
    result = play_match(bots, spec, limits, tmp_path)
    assert result.status == ["ok", "ok"] and result.faults == [{}, {}], (result.status, result.faults)
    assert result.hands_played == 10


def test_node_bot_passes_the_shared_vectors(node_bot: Path) -> None:
    """bots/node/vectors.js: every request read and answered, every bad request ignored, every reply read by
    the referee's codec as the vector's map."""
    import subprocess

    from tests.vectors_helpers import VECTORS, assert_runner_replies

    done = subprocess.run([str(NODE), str(node_bot.with_name("vectors.js")), str(VECTORS)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_runner_replies(done.stdout, "node")
    assert done.stdout.splitlines()[-1] == "ok messages"


def test_the_guides_steps_start_a_node_bot_in_a_new_folder(tmp_path: Path) -> None:
    """docs/bot-authors.md's commands for a Node bot of one's own, followed as written (``~/mybot`` made a
    temporary folder): the copy installs with ``npm ci --ignore-scripts`` and passes check-bot."""
    import os
    import re
    import subprocess
    import sys

    guide = (ROOT / "docs" / "bot-authors.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", guide, re.S) if "mkdir ~/mybot" in b]
    assert len(blocks) == 1, "docs/bot-authors.md: one sh block starts a Node bot in ~/mybot"
    assert "package-lock.json" in blocks[0] and "npm ci --ignore-scripts" in blocks[0]
    folder = tmp_path / "mybot"
    os.chmod(tmp_path, 0o755)  # the sandbox runs the bot as a uid of its own
    script = blocks[0].replace("~/mybot", str(folder))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-e", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "OK: no protocol violation" in done.stdout, done.stdout
    assert (folder / "node_modules" / "zeromq").is_dir()
