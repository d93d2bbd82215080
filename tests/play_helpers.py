"""Driving ``harness play`` through pipes, as a script would: the command, a reader of its prompts, and the
``your move`` line read back (tests/test_play_terminal.py, tests/test_play_five_card_draw.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def harness_cmd() -> list[str]:
    """The ``harness`` command of this venv."""
    exe = Path(sys.executable).with_name("harness")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from harness.cli import app; app()"]


class Driver:
    """Reads ``harness play``'s stdout up to each prompt and answers it."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.buf = b""
        self.transcript = ""

    def until_prompt(self, timeout_s: float = 300.0) -> str | None:
        """The text since the last prompt, once the next prompt ``> `` is printed; None at the end of output."""
        end = time.monotonic() + timeout_s
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        while True:
            text = self.buf.decode("utf-8", "replace")
            at = text.find("\n> ")
            if text.startswith("> "):
                at = -1
            if at >= 0 or text.startswith("> "):
                cut = at + 3 if at >= 0 else 2
                chunk = text[:cut]
                self.buf = text[cut:].encode()
                self.transcript += chunk
                return chunk
            assert time.monotonic() < end, f"no prompt within {timeout_s} s; output so far:\n{self.transcript}{text}"
            data = os.read(fd, 65536)
            if not data:
                self.transcript += text
                self.buf = b""
                return None
            self.buf += data

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]


def choices(screen: str) -> dict[str, str]:
    """The ``your move`` line as {command: what}."""
    moves = [line for line in screen.splitlines() if line.startswith("your move")]
    if not moves:
        return {}
    out = {}
    for part in moves[-1].removeprefix("your move").split(" · "):
        cmd, _, what = part.strip().partition(" ")
        if cmd in ("b", "r", "d"):
            what = what.removeprefix("N ").removeprefix("… ")
        out[cmd] = what
    return out
