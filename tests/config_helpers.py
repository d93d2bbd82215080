"""Shared by several test modules (moved from test_config.py): BOTS, write."""

from __future__ import annotations

from pathlib import Path

BOTS = """
[[bots]]
name = "a"
command = "python -m bots.caller"
[[bots]]
name = "b"
command = ["python3", "-m", "bots.raiser", "--x", "1 2"]
cwd = ".."
env = { FOO = "bar" }
[[bots]]
name = "c"
command = "./mybot --fast"
"""


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    folder = tmp_path / "tournaments"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    mybot = folder / "mybot"  # BOTS's "./mybot": commands are checked at load time
    if not mybot.exists():
        mybot.write_text("#!/bin/sh\n")
        mybot.chmod(0o755)
    return path
