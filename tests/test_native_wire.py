"""The referee's hot path in the native core (harness.match.native_wire) in real matches.

The endpoint reads frames with the Rust parser and replies with the Rust decoder when the crate is built,
and with the Python twins otherwise; the same match gives the same hand histories either way (faults and
their details included), the times measured aside. The pieces' own properties are in tests/test_zmtp.py
and tests/test_protocol_fuzz.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.match import connection, endpoint, zmtp
from protocol import codec
from tests.fault_helpers import GOOD, REPO, fixture_bot, history, play
from tests.skip_helpers import NATIVE_CORE_MISSING, native_core_missing

pytestmark = pytest.mark.skipif(native_core_missing(), reason=NATIVE_CORE_MISSING)

_WHICH = (
    "import sys\n"
    "if sys.argv[1] == 'without':\n"
    "    sys.modules['harness_core'] = None  # import harness_core raises ImportError\n"
    "from harness.engine import games\n"
    "from harness.match import connection, endpoint, referee, zmtp\n"
    "from protocol import codec\n"
    "print(endpoint._Parser is zmtp.Parser, connection._decode_reply is codec.decode_reply,\n"
    "      referee._start_hand is games.start_hand)\n"
)


@pytest.mark.parametrize("core", ["with", "without"])
def test_the_match_layer_uses_the_native_twins_when_the_core_is_built(core: str) -> None:
    """The endpoint's parser, the connection's reply decoder and the referee's hand (Seven Card Draw) are the
    core's when it imports, the Python ones without it."""
    out = subprocess.run([sys.executable, "-c", _WHICH, core], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout.split()
    python = core == "without"
    assert out == [str(python), str(python), str(python)]


def _without_times(x: Any) -> Any:
    """A record with every measured time (``ms``) blanked: the rest must match byte for byte."""
    if isinstance(x, dict):
        return {k: None if k == "ms" else _without_times(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_without_times(v) for v in x]
    return x


@pytest.mark.parametrize(
    "bots",
    [
        ("caller", "reply-array"),  # every reply malformed: the codec's detail in the history
        ("bad-amount", "illegal"),  # malformed amounts and illegal actions, both seats
    ],
    ids="-".join,
)
def test_the_same_match_gives_the_same_histories_with_either_parser_and_decoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bots: tuple[str, str]
) -> None:
    specs = {
        "caller": GOOD,
        "reply-array": fixture_bot("wrong_encoding", "reply-array"),
        "bad-amount": fixture_bot("bad_amount", "float"),
        "illegal": fixture_bot("illegal_action"),
    }
    seats = [specs[b] for b in bots]
    assert endpoint._Parser is not zmtp.Parser  # the native twins, as the referee uses them
    native = play(seats, tmp_path / "native")
    monkeypatch.setattr(endpoint, "_Parser", zmtp.Parser)
    monkeypatch.setattr(connection, "_decode_reply", codec.decode_reply)
    python = play(seats, tmp_path / "python")
    ours, theirs = history(tmp_path / "native"), history(tmp_path / "python")
    assert any(r["faults"] for r in ours), "the match is meant to carry faults"
    assert [json.dumps(_without_times(r)) for r in ours] == [json.dumps(_without_times(r)) for r in theirs]
    assert (native.net, native.status, native.faults) == (python.net, python.status, python.faults)
