"""What of the server's machine a student may be shown: nothing (no host path, no frame of the server's code).

Every text the server shows a student that a program wrote (a build's output, a
bot's stderr and traceback, a refusal's reason, a match's statuses, a game's
error) passes :func:`for_student` first:

- a Python traceback keeps only the frames in the student's own folder, shown
  relative (``File "./bot.py", line 3``); the frames of the harness, its SDK
  and the standard library become one line ``(frames outside your folder not
  shown)``; so do a Node, Java or Go stack's frames that name a host path;
- what is left of the student's folder is shown as ``.``; the data folder as
  ``[data]``, the contest file's folder as ``[contest]``, the harness's
  source as ``[harness]``, its Python as ``[python]``, the server's home as
  ``~`` (:func:`host_roots`). Paths under ``/usr`` (the Debian layout, the
  same on every machine) are left as they are.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import harness

__all__ = ["HIDDEN_FRAMES", "for_student", "hide_paths", "host_roots"]

#: The line that stands for frames not shown.
HIDDEN_FRAMES = "(frames outside your folder not shown)"

_PY_FRAME = re.compile(r'^(?P<indent>\s*)File "(?P<path>[^"]*)", line \d+')
#: A frame of another language's stack: Node's ``at f (/p/x.js:1:2)``, Java's ``at a.B(...)``, Go's ``\t/p/x.go:12``.
_OTHER_FRAME = re.compile(r"^\s+(at\s|/)")


def host_roots(data: Path, contest_dir: Path, extra: Iterable[str] = ()) -> tuple[tuple[str, str], ...]:
    """The server's paths a student must not see, each with the word shown instead, longest first.

    Args:
        data: the contest's data folder.
        contest_dir: the folder of the contest file (the links file is usually there).
        extra: more host paths, shown as ``[server]``.
    """
    source = Path(harness.__file__).parents[1]
    named: list[tuple[str | Path, str]] = [
        (data, "[data]"), (contest_dir, "[contest]"), (source, "[harness]"), (sys.prefix, "[python]"),
        (sys.base_prefix, "[python]"), (os.path.expanduser("~"), "~"), *((e, "[server]") for e in extra)]
    out: dict[str, str] = {}
    for path, word in named:
        for form in (os.path.abspath(path), os.path.realpath(path)):
            if form == "/" or form == "/usr" or form.startswith("/usr/") or form in out:
                continue
            out[form] = word
    return tuple(sorted(out.items(), key=lambda kv: -len(kv[0])))


def _inside(path: str, folders: Sequence[str]) -> str | None:
    """The folder of ``folders`` that ``path`` lies in, or None."""
    for f in folders:
        if path == f or path.startswith(f + "/"):
            return f
    return None


def for_student(text: str, roots: Sequence[tuple[str, str]], folder: str | os.PathLike[str] | None = None) -> str:
    """``text`` as a student may see it (module doc): frames outside ``folder`` dropped, host paths hidden.

    Args:
        text: what a program wrote (any size; lines kept in order).
        roots: :func:`host_roots`.
        folder: the student's own folder (its frames are kept, relative), or None.
    """
    if not text:
        return text
    own = [] if folder is None else sorted({os.path.abspath(folder), os.path.realpath(folder)}, key=len, reverse=True)
    hosts = [r for r, _ in roots]
    lines = text.split("\n")
    out: list[str] = []
    skipping: int | None = None  # the indent of a dropped frame: its deeper lines (source, carets) go with it
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if skipping is not None and line.strip() and indent > skipping:
            continue
        skipping = None
        frame = _PY_FRAME.match(line)
        path = frame.group("path") if frame else None
        if path is not None and (path.startswith(("/", "<")) and not _inside(os.path.normpath(path), own)):
            skipping = len(frame.group("indent")) if frame else 0
            if not out or out[-1].strip() != HIDDEN_FRAMES:
                out.append(" " * skipping + HIDDEN_FRAMES)
            continue
        if frame is None and _OTHER_FRAME.match(line) and any(h in line for h in hosts) and not any(
                f in line for f in own):
            if not out or out[-1].strip() != HIDDEN_FRAMES:
                out.append(line[:indent] + HIDDEN_FRAMES)
            continue
        out.append(line)
    shown = "\n".join(out)
    for f in own:
        shown = re.sub(re.escape(f) + _END, ".", shown)
    return hide_paths(shown, roots)


#: The end of a path's last name: what follows is no character of a file name (``/root`` is not ``/rootfs``).
_END = r"(?![\w.+@~-])"


def hide_paths(text: str, roots: Sequence[tuple[str, str]]) -> str:
    """``text`` with each of ``roots`` (:func:`host_roots`) replaced by its word, wherever it stands whole."""
    for root, word in roots:
        if root in text:
            text = re.sub(re.escape(root) + _END, word.replace("\\", "\\\\"), text)
    return text
