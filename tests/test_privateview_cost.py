"""What keeps the private view cheap enough to be the default (harness.host.privateview, probecache, elfstrip).

The package probe's answer is kept between processes and probed again when the site-packages, the
interpreter or the SDK change; a probe that fails copies the whole site-packages; a bot's copy of its
directory leaves out version control, virtual environments and caches; its imports are followed from its
entry point; the organiser's ELF files are copied without their debugging sections, a bot's own byte for
byte. The copies themselves (an inode per bot, nothing left) are tested in test_sandbox_privateview.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.host import elfstrip, privateview, probecache


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(privateview, "_PROBED", {})  # this process's answers: each test probes afresh
    return tmp_path / "xdg" / "harness"


def site_packages(tmp_path: Path) -> Path:
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "pkg_a").mkdir()
    (site / "pkg_a" / "__init__.py").write_text("A = 1\n")
    (site / "pkg_b.py").write_text("B = 1\n")
    return site


def test_the_probes_answer_is_kept_and_a_changed_site_packages_probes_again(tmp_path: Path, cache: Path) -> None:
    """The answer kept under the key of this interpreter, standard library, site-packages and SDK is used
    without a probe (a planted answer naming ``pkg_a`` comes back, though probing ``json`` loads nothing of
    this site-packages); once a package is installed (a new entry) the key changes and the real probe
    answers. Without the cache every bot's start ran the probe again (24 s of the first start's 40)."""
    site = site_packages(tmp_path)
    sdk = (str(tmp_path / "sdk"),)
    (tmp_path / "sdk").mkdir()
    (tmp_path / "sdk" / "mod.py").write_text("import json\n")
    key = probecache.probe_key(sys.executable, privateview._stdlib(os.path.realpath(sys.base_prefix)), str(site),
                               sdk, ("json",))
    assert key is not None
    calls: list[int] = []
    assert probecache.kept_probe(key, lambda: calls.append(1) or [str(site / "pkg_a" / "__init__.py")])
    assert probecache.kept_probe(key, lambda: calls.append(1) or []) == [str(site / "pkg_a" / "__init__.py")]
    assert calls == [1], "the second answer was read back, not probed"
    assert list(cache.glob("probe-*.json"))
    found = privateview.python_packages(sys.executable, str(site), ("json",), sdk)
    assert found == (os.path.realpath(site / "pkg_a"),), found
    (site / "pkg_c.py").write_text("C = 1\n")  # pip install: a new entry of site-packages
    assert privateview.python_packages(sys.executable, str(site), ("json",), sdk) == ()
    before = probecache.probe_key(sys.executable, [], str(site), sdk, ("json",))
    (tmp_path / "sdk" / "mod.py").write_text("import json, csv\n")  # the SDK changed: another key again
    assert probecache.probe_key(sys.executable, [], str(site), sdk, ("json",)) != before


def test_a_kept_answer_others_may_write_is_not_trusted(tmp_path: Path, cache: Path) -> None:
    """An answer file anybody may write could name any host file for every bot's view: it is probed again."""
    calls: list[int] = []
    assert probecache.kept_probe("k" * 64, lambda: calls.append(1) or ["/usr/bin/env"]) == ["/usr/bin/env"]
    kept = next(cache.glob("probe-*.json"))
    kept.write_text('["/etc/shadow"]')
    kept.chmod(0o666)
    assert probecache.kept_probe("k" * 64, lambda: calls.append(1) or ["/usr/bin/env"]) == ["/usr/bin/env"]
    assert calls == [1, 1]


def test_a_failed_probe_is_not_kept_and_copies_the_whole_site_packages(tmp_path: Path, cache: Path) -> None:
    """A probe that cannot run answers None (not an empty list, which showed a bot no package at all); the
    view then copies every entry of the venv's site-packages, and nothing is kept, so the next start probes."""
    site = site_packages(tmp_path)
    failing = shutil.which("false")
    assert failing is not None
    assert privateview.python_packages(failing, str(site), ("json",), ()) is None
    assert not list(cache.glob("probe-*.json"))
    (tmp_path / "venv" / "pyvenv.cfg").write_text("include-system-site-packages = false\n")
    view = privateview.PrivateView(others_only=False, parent=str(tmp_path))
    try:
        view.add_venv(str(tmp_path / "venv"), None)
        copied = Path(view.copy_of(str(site)))
        assert sorted(p.name for p in copied.iterdir()) == ["pkg_a", "pkg_b.py"]
    finally:
        view.remove()


def bot_folder(tmp_path: Path) -> Path:
    home = tmp_path / "bot"
    (home / "lib").mkdir(parents=True)
    (home / "bot.py").write_text("import helper\nfrom lib import tools as t\n")
    (home / "helper.py").write_text("import numpy\n")
    (home / "lib" / "__init__.py").write_text("")
    (home / "lib" / "tools.py").write_text("from .deep import x\n")
    (home / "lib" / "deep.py").write_text("import scipy.stats\nx = 1\n")
    (home / "unused.py").write_text("import pandas\n")
    (home / ".git").mkdir()
    (home / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (home / "sub").mkdir()
    (home / "sub" / ".git").write_text("gitdir: ../.git/worktrees/sub\n")  # a worktree's .git is a file
    (home / "sub" / "keep.txt").write_text("kept")
    (home / ".venv" / "lib").mkdir(parents=True)
    (home / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (home / ".venv" / "lib" / "big.py").write_text("import torch\n")
    (home / "Cargo.toml").write_text("[package]\nname = 'bot'\n")
    (home / "target" / "release").mkdir(parents=True)
    (home / "target" / "release" / "bot").write_bytes(b"\0" * 100)
    (home / ".mypy_cache").mkdir()
    (home / ".mypy_cache" / "CACHEDIR.TAG").write_bytes(privateview.CACHEDIR_SIGNATURE + b"\n")
    (home / "data").mkdir()
    (home / "data" / "CACHEDIR.TAG").write_text("not the signature\n")  # a tag without it: an ordinary folder
    (home / "data" / "weights.bin").write_bytes(b"\1" * 10)
    (home / "node_modules" / "zeromq").mkdir(parents=True)  # what a Node bot runs with: kept
    (home / "node_modules" / "zeromq" / "index.js").write_text("")
    return home


def test_version_control_venvs_and_caches_are_left_out_of_a_bots_copy(tmp_path: Path) -> None:
    """From the repository's root a bot's copy held .git, .venv and Cargo's target: 10,000 of its 11,000
    files. Left out: .git (a folder, or a worktree's file), a folder holding pyvenv.cfg, target beside a
    Cargo.toml, a folder tagged CACHEDIR.TAG with the specification's signature; kept: the rest."""
    home = bot_folder(tmp_path)
    view = privateview.PrivateView(others_only=False, parent=str(tmp_path))
    try:
        assert view.add_tree(str(home), max_files=12, prune=True), "the size check counts what is copied"
        copied = Path(view.copy_of(str(home)))
        names = sorted(str(p.relative_to(copied)) for p in copied.rglob("*") if p.is_file())
        assert names == ["Cargo.toml", "bot.py", "data/CACHEDIR.TAG", "data/weights.bin", "helper.py",
                         "lib/__init__.py", "lib/deep.py", "lib/tools.py", "node_modules/zeromq/index.js",
                         "sub/keep.txt", "unused.py"], names
    finally:
        view.remove()
    unpruned = privateview.PrivateView(others_only=False, parent=str(tmp_path))
    try:
        assert not unpruned.add_tree(str(home), max_files=12), "without pruning the same folder is too large"
    finally:
        unpruned.remove()


def test_a_bots_imports_are_followed_from_its_entry_point(tmp_path: Path) -> None:
    """``python -m bots.solid`` from a larger folder (the repository's root): the files of its package
    ``bots`` and what they import, statement by statement through the folder's own modules (absolute and
    relative imports), not a module of the folder nobody imports nor a venv's; a script at the folder's top
    or a wrapper script: every file of the folder but the left-out ones, as before. From the repository's
    root ``python -m bots.solid`` had every package the harness and its tests import probed and copied
    (322 MiB)."""
    home = bot_folder(tmp_path)
    (home / "bots").mkdir()
    (home / "bots" / "__init__.py").write_text("")
    (home / "bots" / "solid.py").write_text("from bots import _cards\nimport lib.tools\n")
    (home / "bots" / "_cards.py").write_text("import msgpack\n")
    (home / "bots" / "plugin.py").write_text("import sklearn\n")  # imported by a string: beside the entry
    followed = privateview.imported_names(str(home), ["python", "-m", "bots.solid"])
    assert {"bots.solid", "bots._cards", "msgpack", "sklearn", "lib.tools", "scipy.stats"} <= followed, followed
    assert not {"pandas", "numpy", "torch"} & followed, followed
    for argv in (["python", "bot.py"], ["./run.sh"]):
        everything = privateview.imported_names(str(home), argv)
        assert {"numpy", "scipy.stats", "pandas", "sklearn"} <= everything, everything
        assert "torch" not in everything
    (home / "app").mkdir()
    (home / "app" / "main.py").write_text("import strategy\n")  # python app/main.py: app/ is on its path
    (home / "app" / "strategy.py").write_text("from . import x\nimport yaml\n")
    found = privateview.imported_names(str(home), ["python", "app/main.py"])
    assert "yaml" in found and "pandas" not in found, found


@pytest.fixture()
def debug_program(tmp_path: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or elfstrip.tool() is None:
        pytest.skip("ELF STRIP TEST SKIPPED: no C compiler or binutils (objcopy/strip) here")
    source = tmp_path / "prog.c"
    source.write_text("#include <stdio.h>\nint main(void) { puts(\"stripped ok\"); return 0; }\n")
    program = tmp_path / "prog"
    subprocess.run([compiler, "-g3", "-O0", "-o", str(program), str(source)], check=True, capture_output=True)
    return program


def test_the_organisers_elf_files_are_copied_without_debugging_sections(
        tmp_path: Path, cache: Path, debug_program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program with debugging sections is copied without them (kept once in the cache, runs the same); the
    same file in the bot's own directory is copied byte for byte (never parsed by the tool for a bot)."""
    assert elfstrip.debug_bytes(str(debug_program)) > 0
    monkeypatch.setattr(elfstrip, "MIN_DEBUG_BYTES", 0)  # this small program's few KiB are enough here
    view = privateview.PrivateView(others_only=False, parent=str(tmp_path), own=[str(tmp_path / "bot")])
    try:
        view.add(str(debug_program))
        copy = view.copy_of(str(debug_program))
        assert os.path.getsize(copy) < os.path.getsize(debug_program)
        assert elfstrip.debug_bytes(copy) == 0
        assert subprocess.run([copy], capture_output=True, text=True, check=True).stdout == "stripped ok\n"
        assert list((cache / "stripped").iterdir())
        (tmp_path / "bot").mkdir()
        own = tmp_path / "bot" / "prog"
        shutil.copy2(debug_program, own)
        view.add(str(own))
        assert Path(view.copy_of(str(own))).read_bytes() == debug_program.read_bytes()
    finally:
        view.remove()


def test_without_a_cache_directory_elf_files_are_copied_as_they_are(
        tmp_path: Path, debug_program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/")
    monkeypatch.setattr(elfstrip, "MIN_DEBUG_BYTES", 0)
    assert elfstrip.stripped(str(debug_program), os.lstat(debug_program)) is None
