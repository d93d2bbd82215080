"""Compiled seccomp programs kept between runs (harness.host.bpfcache): used again, trusted only when safe."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.host import bpfcache, syscall_filter, usercache

PROGRAM = bytes(range(16))  # two instructions' worth


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if bpfcache._compilers() is None:
        pytest.skip("BPF CACHE TEST SKIPPED: no libseccomp.so.2 or pyseccomp here (nothing would be kept)")
    return tmp_path / "harness"


def counting(program: bytes = PROGRAM) -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> dict:
        calls.append(1)
        return {"program": program, "abis": ["x"]}

    return calls, build


def test_a_program_is_compiled_once_and_then_read(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "rules.py"
    source.write_text("RULES = 1\n")
    calls, build = counting()
    assert bpfcache.kept("t", str(source), build) == {"program": PROGRAM, "abis": ["x"]}
    assert bpfcache.kept("t", str(source), build) == {"program": PROGRAM, "abis": ["x"]}
    assert len(calls) == 1
    source.write_text("RULES = 2\n")  # other rules: compiled again
    assert bpfcache.kept("t", str(source), build)["program"] == PROGRAM
    assert len(calls) == 2


@pytest.mark.parametrize("damage", ["group-writable", "corrupt", "odd-length", "symlink", "folder-writable"])
def test_a_kept_program_that_may_not_be_trusted_is_compiled_again(cache: Path, tmp_path: Path, damage: str) -> None:
    source = tmp_path / "rules.py"
    source.write_text("RULES = 1\n")
    calls, build = counting()
    bpfcache.kept("t", str(source), build)
    (kept,) = cache.glob("t-*.json")
    if damage == "group-writable":
        kept.write_text(kept.read_text().replace("AAECAwQFBgcICQoLDA0ODw==", "/////////////////////w=="))
        kept.chmod(0o664)
    elif damage == "corrupt":
        kept.write_text("{not json")
    elif damage == "odd-length":
        kept.write_text('{"program": "AAEC", "abis": ["x"]}')
    elif damage == "symlink":
        other = tmp_path / "other.json"
        other.write_text(kept.read_text())
        kept.unlink()
        kept.symlink_to(other)
    else:
        cache.chmod(0o777)
    assert bpfcache.kept("t", str(source), build)["program"] == PROGRAM
    assert len(calls) == 2, "compiled again, not read"


def test_nothing_is_kept_when_the_cache_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the directory would be
    source = tmp_path / "rules.py"
    source.write_text("RULES = 1\n")
    calls, build = counting()
    assert bpfcache.kept("t", str(source), build)["program"] == PROGRAM
    assert bpfcache.kept("t", str(source), build)["program"] == PROGRAM
    assert len(calls) == 2


def test_the_kept_allow_list_is_the_compiled_one(cache: Path) -> None:
    built = syscall_filter._build()
    if built.program is None:
        pytest.skip(f"SECCOMP TEST SKIPPED: {built.problem}")
    syscall_filter.support.cache_clear()
    try:
        first = syscall_filter.support()  # compiled and kept
        syscall_filter.support.cache_clear()
        second = syscall_filter.support()  # read
    finally:
        syscall_filter.support.cache_clear()
    assert first.program == second.program == built.program and second.abis == built.abis
    assert len(list(cache.glob("allow-list-*.json"))) == 1
    assert os.stat(next(cache.glob("allow-list-*.json"))).st_mode & 0o022 == 0


def test_without_a_home_nothing_is_kept_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "")  # no home: "~/.cache" would be a path relative to the working directory
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "rules.py"
    source.write_text("RULES = 1\n")
    calls, build = counting()
    assert usercache.cache_dir() is None
    assert bpfcache.kept("t", str(source), build)["program"] == PROGRAM
    assert bpfcache.kept("t", str(source), build)["program"] == PROGRAM
    assert len(calls) == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["rules.py"]
