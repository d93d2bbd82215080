"""The shared test vectors (protocol/vectors/, its README.md) for the tests: loading them, and checking what a
starter's runner printed (``reply NAME HEX`` lines) with the referee's own codec."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import msgpack

from protocol.codec import decode, to_wire

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"


@cache
def vectors(name: str) -> dict[str, Any]:
    """The content of protocol/vectors/NAME.json (``messages`` or ``hands``)."""
    content: dict[str, Any] = json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))
    return content


def assert_runner_replies(stdout: str, lang: str) -> None:
    """Every reply vector was printed once by the runner and the referee's codec reads it as its ``value``."""
    want = {v["name"]: v["value"] for v in vectors("messages")["replies"]}
    got = {}
    for line in stdout.splitlines():
        if line.startswith("reply "):
            _, name, hexed = line.split()
            got[name] = bytes.fromhex(hexed)
    assert sorted(got) == sorted(want), f"{lang}: the runner printed replies {sorted(got)}, expected {sorted(want)}"
    for name, data in got.items():
        decoded = to_wire(decode(data))
        value = msgpack.unpackb(data)
        assert value == want[name] and decoded == want[name], f"{lang}: reply {name} is {value}, expected {want[name]}"
