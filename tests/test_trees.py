"""Walks of a student's tree (harness/host/trees.py, the build's take-back and size): iterative, bounded, links
never followed, whatever the depth. Python 3.11's recursive walks (rglob, os.walk, rmtree, tarfile.add) raise
RecursionError on a tree 1,100 folders deep, which a build makes with one ``mkdir -p``."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.host.build import _size, _take_back
from harness.host.trees import MAX_DEPTH, add_tree, remove_tree, walk
from tests.server_helpers import deep_tree


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    """tmp_path, emptied with remove_tree afterwards: pytest's own clean-up of old temp folders recurses."""
    try:
        yield tmp_path
    finally:
        for child in list(tmp_path.iterdir()):
            remove_tree(child)


def test_a_walk_stops_at_the_depth_limit_and_says_so(tmp: Path) -> None:
    (tmp / "bot.py").write_text("pass\n")
    deep_tree(tmp, 1100)
    tree = walk(tmp, max_entries=10_000)
    assert tree.too_deep and not tree.too_many
    assert max(rel.count("/") + 1 for rel, _ in tree.entries) == MAX_DEPTH
    assert tree.files() == ["bot.py"]
    assert f"deeper than {MAX_DEPTH} folders" in tree.left_out()


def test_a_walk_stops_at_the_entry_limit(tmp: Path) -> None:
    for i in range(50):
        (tmp / f"f{i}").write_bytes(b"")
    tree = walk(tmp, max_entries=20)
    assert tree.too_many and len(tree.entries) == 20


def test_remove_tree_removes_a_tree_deeper_than_path_max_and_follows_no_link(tmp: Path) -> None:
    victim = tmp / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine\n")
    top = tmp / "t"
    top.mkdir()
    deep_tree(top, 2000, name="d" * 20, link=str(victim))  # 42,000 characters of path
    (top / "locked").mkdir()
    (top / "locked" / "f").write_text("x")
    os.chmod(top / "locked", 0)
    remove_tree(top)
    assert not top.exists()
    assert (victim / "keep.txt").read_text() == "mine\n"


def test_the_builds_take_back_empties_a_folder_left_toodeep_tree(tmp: Path) -> None:
    """What ``mkdir -p x/a/a/...; ln -s /etc/shadow .../sh`` leaves: the size check says it is past the limits
    and the take-back empties the folder (no link out of it is left), neither raising."""
    folder = tmp / "v"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    deep_tree(folder, 1100)
    _, _, within = _size(folder)
    assert not within
    removed, problem = _take_back(folder, {os.geteuid()})
    assert f"more than {MAX_DEPTH} deep" in problem and "\n" not in problem
    assert folder.is_dir() and not any(folder.iterdir())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755 and folder.stat().st_uid == os.geteuid()


def test_the_builds_take_back_keeps_a_tree_within_the_limits(tmp: Path) -> None:
    folder = tmp / "v"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    deep_tree(folder, MAX_DEPTH - 1)  # the link lies at the limit's depth
    removed, problem = _take_back(folder, {os.geteuid()})
    assert problem == "" and removed == ["/".join(["a"] * (MAX_DEPTH - 1) + ["sh"])]  # it leads out: removed
    assert (folder / "bot.py").is_file() and _size(folder)[2]


def test_a_code_archive_of_a_deep_tree_holds_what_it_can_and_says_what_it_left_out(tmp: Path) -> None:
    folder = tmp / "v"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    deep_tree(folder, 1100)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        note = add_tree(tar, folder, "alice.v1", max_entries=10_000)
    assert f"deeper than {MAX_DEPTH} folders" in note
    with tarfile.open(fileobj=io.BytesIO(buf.getvalue())) as tar:
        names = tar.getnames()
    assert "alice.v1/bot.py" in names and max(n.count("/") for n in names) == MAX_DEPTH
