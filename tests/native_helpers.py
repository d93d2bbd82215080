"""Shared by several test modules (moved from test_bots_native.py): COMMANDS, build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


JAVA_LIBS = Path("/usr/share/java")


def missing_c() -> str | None:
    if shutil.which("make") is None or shutil.which("cc") is None:
        return "make or a C compiler (cc)"
    for header in ("zmq.h", "msgpack.h"):
        if not any((Path(d) / header).exists() for d in ("/usr/include", "/usr/local/include")):
            return f"{header} (Debian: libzmq3-dev libmsgpack-dev)"
    return None


def missing_java() -> str | None:
    if shutil.which("make") is None or shutil.which("javac") is None or shutil.which("java") is None:
        return "make, javac or java (Debian: default-jdk-headless)"
    for jar in ("zmq.jar", "msgpack-core.jar"):
        if not (JAVA_LIBS / jar).exists():
            return f"{JAVA_LIBS / jar} (Debian: libzmq-java libmsgpack-java)"
    return None


def build(tmp: Path, lang: str) -> Path:
    """bots/<lang> copied to ``tmp`` and built with its Makefile; the copy's folder."""
    why = missing_c() if lang == "c" else missing_java()
    if why is not None:
        pytest.skip(f"the {lang} example bot cannot be built here: missing {why}")
    work = tmp / lang
    shutil.copytree(ROOT / "bots" / lang, work, ignore=shutil.ignore_patterns("bot", "build"))
    done = subprocess.run(["make", "-C", str(work)], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return work


COMMANDS = {"c": ("./bot",), "java": ("./run.sh",)}
