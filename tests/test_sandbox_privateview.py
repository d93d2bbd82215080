"""The private view (harness.host.privateview): each bot's own copies, what they hold, and nothing left after.

The channels it closes are measured in real matches in tests/test_sandbox_pagecache.py; here, what makes
them closed: the files a bot reads are inodes nobody else's sandbox holds, on a tmpfs, removed when the bot
ends (and by the next view when a referee was killed), and what the view copies stays what the shared view
shows (hidden paths empty, nothing outside /usr that the bot's script names).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.host import privateview
from harness.host import sandbox as sb
from harness.specs import FileView, SandboxSettings
from tests.sandbox_helpers import SUPPORT

pytestmark = [
    pytest.mark.slow,  # a probe process per view (harness.host.privateview.python_packages)
    pytest.mark.skipif(not SUPPORT.namespaces, reason="PRIVATE-VIEW TESTS SKIPPED: bubblewrap cannot run here "
                       f"({SUPPORT.namespaces_problem}); install bubblewrap"),
]

UID = 60996 if os.geteuid() == 0 else None


def jail_for(tmp_path: Path, name: str, hidden: tuple[str, ...] = ()) -> tuple[sb.BotJail, Path]:
    home = tmp_path / name
    home.mkdir(exist_ok=True)
    seat = tmp_path / f"seat-{name}"
    seat.mkdir(mode=0o700, exist_ok=True)
    for path in (tmp_path, home):
        path.chmod(0o755)
    private = SandboxSettings(view=FileView.PRIVATE)
    return sb.BotJail(seat_dir=str(seat), cwd=str(home), settings=private, hidden=hidden, uid=UID), home


def test_two_bots_read_copies_of_their_own_and_nothing_is_left(tmp_path: Path) -> None:
    """Two bots of one match: the loader, libc and the interpreter each sees are copies (another inode than
    the host's and than the other bot's) on a tmpfs; after release the copies are gone. Before the private
    view both bound the host's /usr: the same inodes, so the same page cache and directory entries."""
    python = os.path.realpath(sys.executable)
    libc = next(lib for lib in privateview.elf_closure(python) if "libc.so" in lib)
    views = []
    try:
        for name in ("a", "b"):
            jail, _ = jail_for(tmp_path, name)
            argv, _ = jail.wrap([sys.executable, "-c", "pass"], {"PATH": os.defpath})
            jail.close_fds()
            assert jail.private is not None
            views.append(jail)
            assert f"{jail.private.root}/usr" in argv  # /usr is bound from the copies
        inodes = []
        for jail in views:
            assert jail.private is not None
            copies = [jail.private.copy_of(os.path.realpath(p)) for p in (libc, python)]
            inodes.append({(os.stat(c).st_dev, os.stat(c).st_ino) for c in copies})
        host = {(os.stat(p).st_dev, os.stat(p).st_ino) for p in (os.path.realpath(libc), python)}
        assert len(inodes[0] | inodes[1] | host) == 6, "every copy is an inode of its own"
        first = views[0].private
        assert first is not None
        kind = subprocess.run(["stat", "-f", "-c", "%T", first.root], capture_output=True, text=True,
                              check=False).stdout.strip()
        if privateview.view_parent() == "/dev/shm":
            assert kind == "tmpfs", kind
    finally:
        roots = [j.private.root for j in views if j.private is not None]
        for jail in views:
            jail.release()
    assert roots and not any(os.path.exists(r) for r in roots)


def test_a_view_left_by_a_killed_referee_is_removed_by_the_next(tmp_path: Path) -> None:
    """A referee killed with SIGKILL cannot remove its bots' copies: the next view made removes every view
    whose referee's pid no longer runs, and leaves a live referee's alone."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    parent = tmp_path / "shm"
    parent.mkdir()
    left = parent / f"{privateview.VIEW_PREFIX}{dead.pid}-abc"
    (left / "usr").mkdir(parents=True)
    (left / "usr" / "file").write_text("copy")
    live = parent / f"{privateview.VIEW_PREFIX}{os.getpid()}-def"
    live.mkdir()
    view = privateview.PrivateView(others_only=False, parent=str(parent))
    try:
        assert not left.exists() and live.exists()
    finally:
        view.remove()


def test_the_copies_show_what_the_shared_view_shows(tmp_path: Path) -> None:
    """Hidden paths inside the bot's directory are empty, as the shared view masks them; a file outside /usr
    that the bot's script names (a secret of the organiser's) is not copied; a file of /usr it names (a jar,
    a library) is; as root, a folder closed to others is not copied (the bot's uid could not enter it). The
    shared view (view = "shared") copies nothing."""
    if UID is not None:  # as root: a folder of the bot's closed to others is closed to its uid, copied or not
        closed = tmp_path / "bot" / "closed"
        closed.mkdir(parents=True)
        (closed / "inside.txt").write_text("readable file in a closed folder")
        closed.chmod(0o700)
    secret = tmp_path / "organiser-secret.txt"
    secret.write_text("not for bots")
    jail, home = jail_for(tmp_path, "bot")
    (home / "out").mkdir()
    (home / "out" / "results.jsonl").write_text("hidden")
    named = next(str(p) for p in Path("/usr/bin").iterdir() if p.name == "ls")
    (home / "run.sh").write_text(f"#!/bin/sh\ncat {secret} {named}\nexec python bot.py\n")
    (home / "run.sh").chmod(0o755)
    jail.hidden = [str(home / "out")]
    try:
        jail.wrap(["./run.sh"], {"PATH": os.defpath})
        jail.close_fds()
        assert jail.private is not None
        copy = Path(jail.private.copy_of(str(home)))
        assert (copy / "run.sh").is_file() and (copy / "out").is_dir() and not any((copy / "out").iterdir())
        assert not Path(jail.private.copy_of(str(secret))).exists()
        assert UID is None or not (copy / "closed").exists()
        assert Path(jail.private.copy_of(os.path.realpath(named))).exists()
    finally:
        jail.release()
    shared = sb.BotJail(seat_dir=str(tmp_path / "seat-bot"), cwd=str(home), hidden=(), uid=UID,
                        settings=SandboxSettings(view=FileView.SHARED))
    argv, _ = shared.wrap(["./run.sh"], {"PATH": os.defpath})
    shared.close_fds()
    assert shared.private is None and "/usr" in argv[argv.index("--ro-bind") + 1:][:2]


def test_a_full_view_is_a_clear_sandbox_error_and_leaves_nothing(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the view's file system is full (/dev/shm of a small machine), the bot's start fails with a
    one-line reason naming the way out, and the partial copies are removed (the referee charges the bot a
    failed start and plays on)."""
    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(privateview, "_copy", full)
    jail, _ = jail_for(tmp_path, "bot")
    with pytest.raises(sb.SandboxError, match=r"no room for the bot's private view.*view = \"shared\""):
        jail.wrap([sys.executable, "-c", "pass"], {"PATH": os.defpath})
    root = jail.private.root if jail.private is not None else None
    jail.close_fds()
    jail.release()
    assert root is None or not os.path.exists(root)


def test_a_native_bot_gets_the_libraries_it_links(tmp_path: Path) -> None:
    """A program of the bot's own folder (a C or Rust starter linked to the system's libzmq) finds every
    library its ELF headers name in the copies; here a system program that links libraries no default copy
    holds (bubblewrap's libcap, libselinux), copied into the folder as the bot's program."""
    program = os.path.realpath(SUPPORT.bwrap or "")
    jail, home = jail_for(tmp_path, "native")
    (home / "bot").write_bytes(Path(program).read_bytes())
    (home / "bot").chmod(0o755)
    needed = list(privateview.elf_closure(str(home / "bot")))
    assert needed, "the program links libraries"
    try:
        jail.wrap(["./bot"], {"PATH": os.defpath})
        jail.close_fds()
        assert jail.private is not None
        missing = [lib for lib in needed if not os.path.exists(jail.private.copy_of(os.path.realpath(lib)))]
        assert missing == []
    finally:
        jail.release()


def test_sandbox_paths_are_shown_as_they_are_over_the_copies(tmp_path: Path) -> None:
    """``[sandbox] paths`` are the organiser's choice: shown from the host, also under /usr (over the copies
    of /usr, a mount point made in them) and inside the bot's own copied folder."""
    extra = next(p for p in ("/usr/share/common-licenses", "/usr/share/zoneinfo", "/usr/include")
                 if os.path.isdir(p))
    jail, home = jail_for(tmp_path, "paths")
    (home / "models").mkdir()
    (home / "models" / "weights.bin").write_text("w")
    (home / "models" / "weights.bin").chmod(0o644)
    jail.settings = SandboxSettings(paths=(extra, str(home / "models")), view=FileView.PRIVATE)
    probe = f"import os; print(len(os.listdir({extra!r})), os.listdir({str(home / 'models')!r}))"
    try:
        argv, env = jail.wrap([sys.executable, "-c", probe], {"PATH": os.defpath})
        for path in (extra, str(home / "models")):
            assert argv[argv.index(path) - 1:argv.index(path) + 2] == ["--ro-bind", path, path], path
        done = subprocess.run(argv, env=env, pass_fds=jail.pass_fds, capture_output=True, text=True, timeout=120)
    finally:
        jail.close_fds()
        jail.release()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(None, 1) == [str(len(os.listdir(extra))), "['weights.bin']\n"]
