"""Walks of a folder a student made (an upload, what a build left): iterative, bounded, links never followed.

Python 3.11's ``Path.rglob``, ``os.walk``, ``shutil.rmtree`` and
``tarfile.add`` recurse once per folder level, so a tree 1,000 folders deep
(``mkdir -p a/a/a/...`` in a build) raises ``RecursionError``. Everything here
keeps an explicit stack instead: :func:`walk` stops at :data:`MAX_DEPTH`
levels and a number of entries and says what it left out; :func:`remove_tree`
removes a tree of any depth, one folder descriptor open at a time.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MAX_DEPTH", "Tree", "add_tree", "remove_tree", "walk"]

#: The most folder levels a student's tree may have (``a/b/c/file`` is 4).
MAX_DEPTH = 32


@dataclass(slots=True)
class Tree:
    """What :func:`walk` found.

    Attributes:
        entries: ``(relative path, lstat)`` of every entry seen, parents before their contents.
        too_deep: an entry lies deeper than the depth limit (not listed, not descended into).
        too_many: the entry limit was reached (the rest not listed).
        unreadable: folders that could not be listed (permissions, a name too long for the system).
    """

    entries: list[tuple[str, os.stat_result]] = field(default_factory=list)
    too_deep: bool = False
    too_many: bool = False
    unreadable: int = 0

    @property
    def complete(self) -> bool:
        """Every entry was seen."""
        return not (self.too_deep or self.too_many or self.unreadable)

    def left_out(self, max_depth: int = MAX_DEPTH) -> str:
        """One line naming what was left out ('' when nothing was)."""
        parts = []
        if self.too_deep:
            parts.append(f"what lies deeper than {max_depth} folders")
        if self.too_many:
            parts.append(f"everything past the first {len(self.entries):,} entries")
        if self.unreadable:
            parts.append(f"{self.unreadable} folder(s) that could not be read")
        return ("left out: " + ", ".join(parts)) if parts else ""

    def files(self) -> list[str]:
        """The regular files' relative paths, sorted."""
        return sorted(rel for rel, st in self.entries if stat.S_ISREG(st.st_mode))


def walk(top: Path | str, *, max_entries: int, max_depth: int = MAX_DEPTH) -> Tree:
    """Every entry below ``top`` (not ``top`` itself), links not followed, at most ``max_entries`` entries
    and ``max_depth`` levels; an explicit stack, never recursion."""
    tree = Tree()
    root = os.fspath(top)
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        rel, depth = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                for entry in it:
                    if depth + 1 > max_depth:
                        tree.too_deep = True
                        break
                    if len(tree.entries) >= max_entries:
                        tree.too_many = True
                        return tree
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    path = os.path.join(rel, entry.name) if rel else entry.name
                    tree.entries.append((path, st))
                    if stat.S_ISDIR(st.st_mode):
                        stack.append((path, depth + 1))
        except OSError:
            if rel or os.path.isdir(root):
                tree.unreadable += 1
    return tree


def remove_tree(top: Path | str) -> None:
    """Remove ``top`` and everything in it, however deep, links never followed; errors ignored (what cannot
    be removed stays). One folder descriptor is open at a time: it goes down by name and back up by ``..``."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    path = os.fspath(top)
    try:
        st = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    names: list[tuple[str, int, int]] = []  # the folders gone down into: name, (dev, ino) of its parent
    stuck: set[tuple[int, int]] = set()  # folders that could not be emptied: not gone down into again
    try:
        while True:
            child = None
            with contextlib.suppress(OSError), os.scandir(fd) as it:
                for entry in it:
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if not is_dir:
                        with contextlib.suppress(OSError):
                            os.unlink(entry.name, dir_fd=fd)
                        continue
                    try:
                        est = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if (est.st_dev, est.st_ino) in stuck:
                        continue
                    child = entry.name
                    break
            if child is not None:
                here = os.fstat(fd)
                try:
                    with contextlib.suppress(OSError):
                        os.chmod(child, 0o700, dir_fd=fd)  # a folder made unreadable can still be emptied
                    sub = os.open(child, flags, dir_fd=fd)
                except OSError:
                    with contextlib.suppress(OSError):
                        est = os.stat(child, dir_fd=fd, follow_symlinks=False)
                        stuck.add((est.st_dev, est.st_ino))
                    continue
                os.close(fd)
                fd = sub
                names.append((child, here.st_dev, here.st_ino))
                continue
            if not names:
                break
            name, dev, ino = names.pop()
            mine = os.fstat(fd)
            parent = os.open("..", flags, dir_fd=fd)
            os.close(fd)
            fd = parent
            pst = os.fstat(fd)
            if (pst.st_dev, pst.st_ino) != (dev, ino):  # moved meanwhile: stop rather than delete elsewhere
                return
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                stuck.add((mine.st_dev, mine.st_ino))
    except OSError:
        return
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def add_tree(tar: tarfile.TarFile, folder: Path, arcname: str, *, max_entries: int, max_depth: int = MAX_DEPTH,
             skip: Callable[[str], bool] = lambda rel: False) -> str:
    """Add ``folder``'s folders, regular files and links (as links, never followed) to ``tar`` under
    ``arcname`` (FIFOs, sockets and devices are left out), bounded like :func:`walk`; ``skip(relative path)``
    leaves an entry out.

    Returns:
        One line naming what was left out past the limits ('' when nothing was).
    """
    tree = walk(folder, max_entries=max_entries, max_depth=max_depth)
    top = tar.gettarinfo(os.fspath(folder), arcname=arcname)
    tar.addfile(top)
    for rel, st in sorted(tree.entries):
        if skip(rel) or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            continue
        path = os.path.join(folder, rel)
        try:
            info = tar.gettarinfo(path, arcname=f"{arcname}/{rel}")
            if info.isreg():
                with open(path, "rb") as body:
                    info.size = os.fstat(body.fileno()).st_size
                    tar.addfile(info, body)
            elif info.isdir() or info.issym():
                tar.addfile(info)
        except OSError:
            continue
    return tree.left_out(max_depth)
