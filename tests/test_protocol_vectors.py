"""The shared test vectors (protocol/vectors/README.md): the files are current, they say what the referee's
codec and the engine do, and the Python SDK passes them (reads every request, builds every reply, survives
every bad request). The starters in other languages run them in test_bots_native.py and test_bots_node.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest

from protocol.codec import decode, to_wire
from protocol.errors import ProtocolError
from protocol.sdk import Action, Bot, DecisionState
from tests.vectors_helpers import ROOT, VECTORS, vectors

MESSAGES = vectors("messages")


def _generator() -> ModuleType:
    """tools/protocol_vectors.py, loaded from its file (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("protocol_vectors", ROOT / "tools" / "protocol_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vector_files_are_current() -> None:
    """What tools/protocol_vectors.py writes today is what is in protocol/vectors/ (a codec or engine change
    that alters a vector fails here until the files are regenerated)."""
    stale = _generator().stale()
    assert stale == [], f"protocol/vectors/{stale} not current: run python tools/protocol_vectors.py"


def test_the_check_mode_names_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    gen = _generator()
    for name, data in gen.files().items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.setattr(gen, "VECTORS", tmp_path)
    assert gen.main(["protocol_vectors.py", "--check"]) == 0
    (tmp_path / "hands.msgpack").write_bytes(b"\x80")
    assert gen.main(["protocol_vectors.py", "--check"]) == 1
    assert "protocol/vectors/hands.msgpack is not current" in capsys.readouterr().err


def test_the_msgpack_twins_hold_the_json_content() -> None:
    for name in ("messages", "hands"):
        assert msgpack.unpackb((VECTORS / f"{name}.msgpack").read_bytes()) == vectors(name), name


def test_every_category_has_hands_and_the_engine_agrees() -> None:
    from harness.engine.cards import parse_cards
    from harness.engine.evaluator import Category, best_hand

    hands = vectors("hands")["hands"]
    assert len(hands) >= 2000
    assert {h["category"] for h in hands} == {c.name.lower() for c in Category}
    for h in hands[:200]:
        best = best_hand(parse_cards(h["cards"]))
        assert best.category.name.lower() == h["category"]
        assert "".join(c[0] for c in h["five"]) == h["ranks"] or h["ranks"] == "5432A"


class _Recorder(Bot):
    """Records the state of each request; answers with the decision it is given."""

    def __init__(self, decision: Any = None) -> None:
        super().__init__()
        self.seen: DecisionState | None = None
        self.decision = decision

    def act(self, state: DecisionState) -> Action:
        self.seen = state
        return self.decision or Action("fold")

    def draw(self, state: DecisionState) -> list[str]:
        self.seen = state
        return self.decision or []


@pytest.mark.parametrize("vector", MESSAGES["requests"], ids=lambda v: v["name"])
def test_the_sdk_reads_every_request(vector: dict[str, Any]) -> None:
    bot = _Recorder()
    reply = bot.handle_frame(bytes.fromhex(vector["hex"]))
    s, want = bot.seen, vector["read"]
    assert s is not None
    got = {"type": s.kind, "seq": s.seq, "phase": s.phase, "seat": s.seat, "button": s.button, "cards": s.cards,
           "stacks": s.stacks, "bets": s.bets, "pot": s.pot, "actions": list(s.legal.actions),
           "call_amount": s.to_call, "min_to": s.min_to, "max_to": s.max_to, "max_discards": s.max_discards,
           "decision_ms": s.time.decision_ms, "bank_ms": s.time.bank_ms, "game": s.game}
    assert got == want
    assert reply is not None
    answer = to_wire(decode(reply))
    assert answer["type"] == {"act": "action", "draw": "discard"}[want["type"]] and answer["seq"] == want["seq"]


@pytest.mark.parametrize("vector", MESSAGES["replies"], ids=lambda v: v["name"])
def test_the_sdk_builds_every_reply(vector: dict[str, Any]) -> None:
    d = vector["decision"]
    kind = "draw" if "cards" in d else "act"
    decision = d["cards"] if kind == "draw" else Action(d["action"], d.get("amount", 0))
    request = {"type": kind, "v": 1, "seq": d["seq"], "state": {"cards": ["3s", "2c"]},
               "legal": {"actions": ["fold", "check", "call", "bet", "raise"]}, "time": {}}
    reply = _Recorder(decision).handle_frame(msgpack.packb(request))
    assert reply is not None
    assert msgpack.unpackb(reply) == vector["value"] == to_wire(decode(reply))


@pytest.mark.parametrize("vector", MESSAGES["notifications"], ids=lambda v: v["name"])
def test_the_sdk_answers_no_notification_and_stops_where_due(vector: dict[str, Any]) -> None:
    bot = _Recorder()
    assert bot.handle_frame(bytes.fromhex(vector["hex"])) is None
    assert (bot._exit is not None) == vector["exit"]


@pytest.mark.parametrize("vector", MESSAGES["bad_requests"], ids=lambda v: v["name"])
def test_the_sdk_ignores_every_bad_request(vector: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    bot = _Recorder()
    assert bot.handle_frame(bytes.fromhex(vector["hex"])) is None
    assert bot.seen is None and bot._exit is None
    assert "ignored" in capsys.readouterr().err


def _illegal(reply: dict[str, Any], request: dict[str, Any]) -> bool:
    """PROTOCOL.md section 7's `illegal`, judged from the request's legal map and cards alone."""
    legal, cards = request["legal"], request["state"]["cards"]
    if reply["seq"] != request["seq"]:
        return True
    if reply["type"] == "discard":
        thrown = reply["cards"]
        return (len(set(thrown)) != len(thrown) or not set(thrown) <= set(cards)
                or len(thrown) > legal["max_discards"])
    if reply["action"] not in legal["actions"]:
        return True
    return reply["action"] in ("bet", "raise") and not legal["min_to"] <= reply["amount"] <= legal["max_to"]


@pytest.mark.parametrize("vector", MESSAGES["bad_replies"], ids=lambda v: v["name"])
def test_every_bad_reply_is_the_fault_it_names(vector: dict[str, Any]) -> None:
    data = bytes.fromhex(vector["hex"])
    if vector["fault"] == "malformed":
        with pytest.raises(ProtocolError) as caught:
            decode(data)
        assert caught.value.field == vector["field"]
    else:
        requests = {v["name"]: v for v in MESSAGES["requests"]}
        request = msgpack.unpackb(bytes.fromhex(requests[vector["request"]]["hex"]))
        reply = to_wire(decode(data))
        assert _illegal(reply, request), vector["why"]


def test_the_generator_runs_as_a_script_from_anywhere(tmp_path: Path) -> None:
    import subprocess

    done = subprocess.run([sys.executable, str(ROOT / "tools" / "protocol_vectors.py"), "--check"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
