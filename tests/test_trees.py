"""Walks of a student's tree (harness/host/trees.py, the build's take-back and size): iterative, bounded, links
never followed, whatever the depth. Python 3.11's recursive walks (rglob, os.walk, rmtree, tarfile.add) raise
RecursionError on a tree 1,100 folders deep, which a build makes with one ``mkdir -p``."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from pathlib import Path

from harness.host.build import _size, _take_back
from harness.host.trees import MAX_DEPTH, add_tree, remove_tree, walk


def _deep(top: Path, levels: int, name: str = "a", link: str = "/etc/shadow") -> None:
    """``top/name/name/...`` ``levels`` deep (made through folder descriptors, so deeper than PATH_MAX works),
    with a link to ``link`` at the bottom."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
        os.symlink(link, "sh", dir_fd=fd)
    finally:
        os.close(fd)


def test_a_walk_stops_at_the_depth_limit_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("pass\n")
    _deep(tmp_path, 1100)
    tree = walk(tmp_path, max_entries=10_000)
    assert tree.too_deep and not tree.too_many
    assert max(rel.count("/") + 1 for rel, _ in tree.entries) == MAX_DEPTH
    assert tree.files() == ["bot.py"]
    assert f"deeper than {MAX_DEPTH} folders" in tree.left_out()


def test_a_walk_stops_at_the_entry_limit(tmp_path: Path) -> None:
    for i in range(50):
        (tmp_path / f"f{i}").write_bytes(b"")
    tree = walk(tmp_path, max_entries=20)
    assert tree.too_many and len(tree.entries) == 20


def test_remove_tree_removes_a_tree_deeper_than_path_max_and_follows_no_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine\n")
    top = tmp_path / "t"
    top.mkdir()
    _deep(top, 2000, name="d" * 20, link=str(victim))  # 42,000 characters of path
    (top / "locked").mkdir()
    (top / "locked" / "f").write_text("x")
    os.chmod(top / "locked", 0)
    remove_tree(top)
    assert not top.exists()
    assert (victim / "keep.txt").read_text() == "mine\n"


def test_the_builds_take_back_empties_a_folder_left_too_deep(tmp_path: Path) -> None:
    """What ``mkdir -p x/a/a/...; ln -s /etc/shadow .../sh`` leaves: the size check says it is past the limits
    and the take-back empties the folder (no link out of it is left), neither raising."""
    folder = tmp_path / "v"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    _deep(folder, 1100)
    _, _, within = _size(folder)
    assert not within
    removed, problem = _take_back(folder, {os.geteuid()})
    assert f"more than {MAX_DEPTH} deep" in problem and "\n" not in problem
    assert folder.is_dir() and not any(folder.iterdir())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755 and folder.stat().st_uid == os.geteuid()


def test_the_builds_take_back_keeps_a_tree_within_the_limits(tmp_path: Path) -> None:
    folder = tmp_path / "v"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    _deep(folder, MAX_DEPTH - 1)  # the link lies at the limit's depth
    removed, problem = _take_back(folder, {os.geteuid()})
    assert problem == "" and removed == ["/".join(["a"] * (MAX_DEPTH - 1) + ["sh"])]  # it leads out: removed
    assert (folder / "bot.py").is_file() and _size(folder)[2]


def test_a_code_archive_of_a_deep_tree_holds_what_it_can_and_says_what_it_left_out(tmp_path: Path) -> None:
    folder = tmp_path / "v"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    _deep(folder, 1100)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        note = add_tree(tar, folder, "alice.v1", max_entries=10_000)
    assert f"deeper than {MAX_DEPTH} folders" in note
    with tarfile.open(fileobj=io.BytesIO(buf.getvalue())) as tar:
        names = tar.getnames()
    assert "alice.v1/bot.py" in names and max(n.count("/") for n in names) == MAX_DEPTH
