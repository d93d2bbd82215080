"""Shared by several test modules (moved from test_bots_native.py): COMMANDS, build, LANGS (the starters
built by a Makefile: C, Java, Rust, Go)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.skip_helpers import skip_loudly

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


def toolchain(name: str, usual: str) -> str | None:
    """``name`` on PATH, else at its installer's usual place (rustup's ~/.cargo/bin, Go's /usr/local/go/bin)."""
    found = shutil.which(name)
    if found is None and (Path(usual).expanduser() / name).is_file():
        found = str(Path(usual).expanduser() / name)
    return found


CARGO = toolchain("cargo", "~/.cargo/bin")
GO = toolchain("go", "/usr/local/go/bin")


def missing_rust() -> str | None:
    if shutil.which("make") is None or CARGO is None:
        return "make or cargo (Rust 1.85+, rustup)"
    if not any(Path(d, "zmq.h").exists() for d in ("/usr/include", "/usr/local/include")):
        return "zmq.h and libzmq (Debian: libzmq3-dev)"
    return None


def missing_go() -> str | None:
    if shutil.which("make") is None or GO is None:
        return "make or go (Go 1.22+)"
    return None


MISSING = {"c": missing_c, "java": missing_java, "rust": missing_rust, "go": missing_go}
# What make may take on a loaded machine: a first cargo or go build fetches and compiles the dependencies.
_BUILD_S = {"c": 180, "java": 180, "rust": 900, "go": 900}


def build(tmp: Path, lang: str) -> Path:
    """bots/<lang> copied to ``tmp`` and built with its Makefile; the copy's folder. Skips loudly when the
    language's toolchain or libraries are missing."""
    why = MISSING[lang]()
    if why is not None:
        skip_loudly(f"the {lang} example bot cannot be built here: missing {why}")
    work = tmp / lang
    shutil.copytree(ROOT / "bots" / lang, work, ignore=shutil.ignore_patterns("bot", "build", "target"))
    tools = [f"CARGO={CARGO}"] if lang == "rust" else [f"GO={GO}"] if lang == "go" else []
    done = subprocess.run(["make", "-C", str(work), *tools], capture_output=True, text=True, timeout=_BUILD_S[lang])
    assert done.returncode == 0, done.stdout + done.stderr
    return work


LANGS = ("c", "java", "rust", "go")
COMMANDS = {"c": ("./bot",), "java": ("./run.sh",), "rust": ("./bot",), "go": ("./bot",)}
