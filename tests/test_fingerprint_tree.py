"""A bot's fingerprint covers what it runs: its cwd's files (a jar behind ``./run.sh``), or its ``files``."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest

from harness.tournament.config import ConfigError, parse_config
from harness.tournament.entries import entry_digest
from harness.tournament.plan import TREE_MAX_FILES, bot_setup, shared_cwds
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_play

ROOT = Path(__file__).resolve().parents[1]


def wrapped_bot(folder: Path) -> Path:
    """A bot folder as a Java student has it: ``run.sh`` runs what the build made (here a Python file)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    (folder / "impl.py").write_text("from bots.caller import Caller\nraise SystemExit(Caller().run())\n")
    (folder / "build").mkdir(exist_ok=True)
    (folder / "build" / "bot.jar").write_bytes(b"PK\x03\x04 version 1")
    run = folder / "run.sh"
    run.write_text(f"#!/bin/sh\nexec {sys.executable} impl.py \"$@\"\n")
    run.chmod(0o755)
    return folder


def config(tmp_path: Path, out: Path, *, files: list[str] | None = None, entry_check: bool = False):  # noqa: ANN201
    wrapped = {"name": "wrapped", "command": "./run.sh", "cwd": str(tmp_path / "javabot")}
    if files is not None:
        wrapped["files"] = files
    data = {
        "tournament": {"name": "t", "seed": 1, "output": str(out), "compress": False, "entry_check": entry_check},
        "schedule": {"hands": 3, "jobs": 2},
        "limits": {"decision_ms": 3000, "startup_ms": 30000},  # generous: good bots pass at any load
        "bots": [wrapped, *({"name": n, "command": "python -m bots.caller", "cwd": str(ROOT)} for n in "ab")],
    }
    return parse_config(data, tmp_path / "t.toml")


def test_a_bot_rebuilt_behind_its_wrapper_replays_its_matches_and_only_those(tmp_path: Path) -> None:
    folder = wrapped_bot(tmp_path / "javabot")
    out = folder / "out"  # the output directory inside the bot's cwd is not part of the bot
    cfg = config(tmp_path, out)
    first = run_tournament(cfg, play=fake_play, quiet=True)
    assert first.matches_run == 6
    assert run_tournament(cfg, play=fake_play, quiet=True).matches_run == 0  # its own output changed nothing
    (folder / "build" / "bot.jar").write_bytes(b"PK\x03\x04 version 2")  # same size, new content
    again = run_tournament(cfg, play=fake_play, quiet=True)
    replayed = [r for r in again.records if r.match_id not in {m.match_id for m in first.records}]
    assert again.matches_run == 4 and again.reuse.reused == 2
    assert len(replayed) == 4 and all("wrapped" in r.result.bots for r in replayed)
    # run-time files the harness ignores: bytecode caches
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "impl.cpython-311.pyc").write_bytes(b"x")
    assert run_tournament(cfg, play=fake_play, quiet=True).matches_run == 0


def test_the_entry_digest_changes_with_a_file_behind_the_wrapper(tmp_path: Path) -> None:
    folder = wrapped_bot(tmp_path / "javabot")
    cfg = config(tmp_path, tmp_path / "out")
    before = entry_digest(cfg, cfg.bots[0])
    others = [entry_digest(cfg, b) for b in cfg.bots[1:]]
    (folder / "build" / "bot.jar").write_bytes(b"rebuilt")
    assert entry_digest(cfg, cfg.bots[0]) != before
    assert [entry_digest(cfg, b) for b in cfg.bots[1:]] == others


def test_files_lists_what_makes_up_the_bot(tmp_path: Path) -> None:
    folder = wrapped_bot(tmp_path / "javabot")
    cfg = config(tmp_path, tmp_path / "out", files=["build"])
    digest = entry_digest(cfg, cfg.bots[0])
    (folder / "notes.txt").write_text("not part of the bot")
    assert entry_digest(cfg, cfg.bots[0]) == digest
    (folder / "build" / "bot.jar").write_bytes(b"rebuilt")
    assert entry_digest(cfg, cfg.bots[0]) != digest
    with pytest.raises(ConfigError, match=r"bots\[0\]\.files.*no_such\.jar.*does not exist"):
        config(tmp_path, tmp_path / "out", files=["no_such.jar"])


def test_a_shared_or_huge_cwd_is_not_walked(tmp_path: Path) -> None:
    folder = wrapped_bot(tmp_path / "javabot")
    cfg = config(tmp_path, tmp_path / "out")
    shared = shared_cwds(cfg.bots)
    assert shared == {os.path.realpath(ROOT)}
    assert bot_setup(cfg.bots[1], shared=shared)["run"]["tree"].startswith("not walked: cwd shared")
    assert bot_setup(cfg.bots[0], shared=shared)["run"]["tree_files"] == 3
    many = folder / "many"
    many.mkdir()
    for i in range(TREE_MAX_FILES):
        (many / str(i)).touch()
    huge = dataclasses.replace(cfg.bots[0])
    assert bot_setup(huge)["run"]["tree"].startswith(f"not walked: more than {TREE_MAX_FILES} files")


@pytest.mark.slow
def test_the_entry_check_runs_again_for_a_bot_rebuilt_behind_its_wrapper(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    folder = wrapped_bot(tmp_path / "javabot")
    cfg = config(tmp_path, tmp_path / "out", entry_check=True)
    first = run_tournament(cfg, play=fake_play, quiet=True)
    assert first.entries.passed == ["wrapped", "a", "b"], first.entries.failed
    again = run_tournament(cfg, play=fake_play, quiet=True)
    assert not any(e.checked for e in again.entries.entries.values())
    (folder / "build" / "bot.jar").write_bytes(b"rebuilt")
    third = run_tournament(cfg, play=fake_play, quiet=True)
    assert [n for n, e in third.entries.entries.items() if e.checked] == ["wrapped"]
    assert third.matches_run == 4
