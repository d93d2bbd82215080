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
- :func:`md_cell`: a Markdown table cell (one line; ``|``, ``<``, ``>``, ``&``
  as HTML entities, so no row is split and no tag reaches a viewer).
- :func:`md_fence`: a fenced code block whose fence the text cannot close.
- :func:`csv_cell`: a CSV field: one line, and a leading ``= + - @`` is
  quoted with ``'`` so that a spreadsheet does not run it as a formula
  (OWASP "CSV injection").

The HTML report escapes through its templates (Jinja autoescape) and does not
need these.
"""

from __future__ import annotations

__all__ = ["visible", "md_cell", "md_fence", "csv_cell"]

_KEEP_MULTILINE = frozenset("\n\t")
_MD_ENTITIES = str.maketrans({"&": "&amp;", "|": "&#124;", "<": "&lt;", ">": "&gt;"})
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


def md_cell(text: str) -> str:
    """``text`` as the content of one Markdown table cell (GFM): one line, ``| < > &`` as entities."""
    return visible(text).translate(_MD_ENTITIES)


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
