"""A bot's log (its stdout or stderr in a match or its admission check) as a page shows it.

Its end only (the bytes a page may hold), with the server's paths hidden by the caller's ``hide``
(:func:`harness.server.hostpaths.for_student`), every line the bot wrote marked as its own
(:func:`harness.match.untrusted.quoted`), and the harness's truncation note apart and unmarked: a log longer
than its cap ends with the harness's note (the bot writes at most the cap), so a bot that writes the same words
itself shows them marked as its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from harness.host.botproc import TRUNCATED_NOTE
from harness.match.untrusted import quoted

__all__ = ["shown_log"]


def shown_log(path: Path, limit: int, cap: int, hide: Callable[[str], str]) -> str:
    """The last ``limit`` characters a bot wrote to the log at ``path``, marked, then the harness's note if the
    log was cut at ``cap`` bytes (``[limits] log_bytes``); "" when the log is missing or empty.

    Args:
        hide: what the student must not see taken out of the bot's text (paths), before it is marked.
    """
    note = TRUNCATED_NOTE % cap
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - 4 * limit - len(note)))  # UTF-8: at most 4 bytes a character
            data = f.read()
    except OSError:
        return ""
    cut = size > cap and data.endswith(note)
    if cut:
        data = data[: -len(note)]
    text = quoted(hide(data.decode("utf-8", errors="replace")[-limit:]))
    if cut:
        text += ("" if not text or text.endswith("\n") else "\n") + note.decode().strip() + "\n"
    return text
