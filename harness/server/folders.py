"""A version's folder as the server shows it: its file list, its code download, its part of the admin export.

A folder a student's build made may be of any shape (10,000 folders deep, a
million entries, links): every walk here is :func:`harness.host.trees.walk`
(iterative, links never followed, bounded in entries and depth), so a page
never fails on a strange tree; it shows what it can and says what it left
out.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from harness.host.build import MAX_ENTRIES as BUILD_ENTRIES
from harness.host.trees import MAX_DEPTH, add_tree, walk

__all__ = ["EXPORT_ENTRIES", "FILES_SHOWN", "code_archive", "export_tree", "version_files"]

#: Files listed on a version's page.
FILES_SHOWN = 500
#: Most entries of one part (uploads, matches...) of the admin export.
EXPORT_ENTRIES = 1_000_000
#: The note a code download or export holds when a walk left something out.
LEFT_OUT = "LEFT-OUT.txt"


def version_files(folder: Path) -> list[str]:
    """The folder's files (relative, sorted, at most :data:`FILES_SHOWN`), then one line saying what was left
    out, if anything was ([] when the folder is gone)."""
    if not folder.is_dir():
        return []
    tree = walk(folder, max_entries=BUILD_ENTRIES)
    files = tree.files()
    notes = [tree.left_out()] if tree.left_out() else []
    if len(files) > FILES_SHOWN:
        notes.append(f"left out: {len(files) - FILES_SHOWN:,} more files")
    return files[:FILES_SHOWN] + [f"[{note}]" for note in notes]


def code_archive(folder: Path, arcname: str) -> bytes:
    """A .tar.gz of the folder's folders, files and links under ``arcname`` (with ``arcname/LEFT-OUT.txt``
    saying what a walk past the limits left out)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        note = add_tree(tar, folder, arcname, max_entries=BUILD_ENTRIES)
        if note:
            _add_note(tar, f"{arcname}/{LEFT_OUT}", note)
    return buf.getvalue()


def export_tree(tar: tarfile.TarFile, folder: Path, arcname: str, *, skip_suffix: str = "") -> None:
    """Add one part of the data folder (``uploads``, ``matches``...) to the admin export, files ending in
    ``skip_suffix`` left out; students' trees lie two levels down (``uploads/<student>/<folder>``)."""
    note = add_tree(tar, folder, arcname, max_entries=EXPORT_ENTRIES, max_depth=MAX_DEPTH + 4,
                    skip=lambda rel: bool(skip_suffix) and rel.endswith(skip_suffix))
    if note:
        _add_note(tar, f"{arcname}/{LEFT_OUT}", note)


def _add_note(tar: tarfile.TarFile, name: str, note: str) -> None:
    body = (note + "\n").encode()
    info = tarfile.TarInfo(name)
    info.size = len(body)
    tar.addfile(info, io.BytesIO(body))
