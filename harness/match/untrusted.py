"""Text a bot controls, made safe to print or write (its stderr, tracebacks, fault details, log lines).

A hostile bot writes escape sequences to its stderr (clear the screen, set the
window title, move the cursor, forge a line of the harness's output), BiDi
overrides that reorder what a reader sees, or Markdown/HTML that breaks a
table or runs in a viewer. Every sink that shows such text uses one of these
functions:

- :func:`visible`: terminals and plain-text logs. Every character that
  :meth:`str.isprintable` calls unprintable (C0 and C1 controls, ESC, DEL, CR,
  Unicode format characters such as the BiDi overrides U+202A..U+202E and
  U+2066..U+2069, line and paragraph separators, lone surrogates) is shown
  as its Python escape (``\\x1b``, ``\\u202e``); newlines are kept only where
  asked (``multiline``).
- :func:`quoted`: pages that show what a bot or a build wrote beside the
  harness's own lines: :func:`visible` (multiline), each line begun with
  :data:`QUOTE`, so a line that imitates the harness's reads as the bot's.
- :func:`md_text` (and :func:`md_cell`, the same for a table cell): inline
  Markdown text with every character that makes inline markup escaped
  (``& < > |`` as HTML entities, the others with a backslash, CommonMark
  sections 2.4-2.5), so no link, image, autolink, emphasis, raw HTML, entity
  or table pipe is made of it: a viewer shows the characters.
- :func:`md_code`: an inline code span whose backtick fence the text cannot close.
- :func:`md_fence`: a fenced code block whose fence the text cannot close.
- :func:`csv_cell`: a CSV field: one line, and a leading ``= + - @`` is
  quoted with ``'`` so that a spreadsheet does not run it as a formula
  (OWASP "CSV injection").

The HTML report escapes through its templates (Jinja autoescape); its bot
pages render the Markdown report (raw HTML off), so they rely on these too.
"""

from __future__ import annotations

import re

__all__ = ["visible", "quoted", "md_text", "md_cell", "md_code", "md_fence", "csv_cell"]

_KEEP_MULTILINE = frozenset("\n\t")
# Characters that make inline markup anywhere in a line (CommonMark 6, GFM 6.5-6.9): backslash-escaped
# (2.4); ``& < > |`` as entities (2.5: no tag and no cell-splitting pipe even in the raw file). ``( ) !``
# make a link or an image only after an unescaped ``]`` or before a ``[``; block markers (``-``, ``+``,
# ``=``) only act at the start of a line, where no escaped text is put.
_MD_ESCAPES = str.maketrans({**{ch: "\\" + ch for ch in "\\`*_[]$~#"},
                             "&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "&#124;"})
# GFM's extended autolinks (``http://``, ``www.``, ``a@b.c``) need no bracket: break them with an escape.
_AUTOLINK = re.compile(r":(?=//)|(?<=[wW]{3})\.|@")
_FORMULA_START = ("=", "+", "-", "@")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every unprintable character shown as its escape (``ESC`` -> ``\\x1b``).

    Args:
        text: text a bot controls (any str; lone surrogates included).
        multiline: keep ``\\n`` and ``\\t`` (a stderr tail, a traceback);
            otherwise they are escaped too and the result is one line.
            A ``\\r\\n`` line end counts as ``\\n``; a lone ``\\r`` (which
            would let a line overwrite itself on a terminal) is escaped.

    Returns:
        A str with no control, format or separator character other than the
        kept ones; printable text (any script, emoji) is unchanged.
    """
    if text.isprintable():
        return text
    if multiline:
        text = text.replace("\r\n", "\n")
        keep = _KEEP_MULTILINE
    else:
        keep = frozenset()
    return "".join(ch if ch.isprintable() or ch in keep else _escape(ch) for ch in text)


#: What begins each line of a bot's (or a build's) own output where the harness shows it (:func:`quoted`), as
#: check-bot quotes a stderr.
QUOTE = "| "


def quoted(text: str) -> str:
    """Text a bot or a build wrote (its stderr, stdout, a build's output), marked as theirs: :func:`visible` with
    newlines kept, and every line begun with :data:`QUOTE`, so no line of it can pass for one of the harness's
    (a forged "[log truncated ...]" or "[harness: ...]" note). "" stays ""; a final newline is kept."""
    if not text:
        return ""
    body = visible(text, multiline=True)
    end = "\n" if body.endswith("\n") else ""
    return "\n".join(QUOTE + line for line in body.removesuffix("\n").split("\n")) + end


def md_text(text: str) -> str:
    """``text`` as inline Markdown that renders as exactly its characters (one line).

    ``& < > |`` become entities (the raw file holds no tag and no
    cell-splitting pipe), ``\\ ` * _ [ ] $ ~ #`` get a backslash
    (CommonMark 2.4-2.5), and so do the ``:`` of ``://``, the ``.`` after
    ``www`` and ``@``, which GFM would turn into autolinks: ``![x](http://host/)``,
    ``[text](url)``, ``<http://host>``, ``<img ...>``, ``&#60;``, emphasis
    and bare URLs are plain text. Unprintable characters are shown as
    escapes first (:func:`visible`).
    """
    return _AUTOLINK.sub(lambda m: "\\" + m.group(), visible(text).translate(_MD_ESCAPES))


def md_cell(text: str) -> str:
    """``text`` as the content of one Markdown table cell (GFM): :func:`md_text` (``|`` as ``&#124;``)."""
    return md_text(text)


def md_code(text: str) -> str:
    """``text`` (one line) as an inline code span whose backtick fence is longer than any run in it.

    Not for a table cell (GFM splits a cell on ``|`` even inside a code span): use :func:`md_cell`.
    """
    text = visible(text)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(text: str, info: str = "text") -> str:
    """``text`` (multi-line) as a fenced code block whose fence is longer than any backtick run in it."""
    text = visible(text, multiline=True)
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{info}\n{text}\n{fence}"


def csv_cell(text: str) -> str:
    """``text`` as a CSV field: one line, and a leading ``= + - @`` prefixed with ``'`` (no formula)."""
    text = visible(text)
    return "'" + text if text.startswith(_FORMULA_START) else text
