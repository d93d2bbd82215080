"""Reports of uncaught errors ("tracebacks") in a bot's stderr, in any language a bot is written in.

One recogniser for every place that counts them (``harness check-bot``, the
entry check, the report), so the three agree. Each runtime's report is
recognised by its first line, as the runtime prints it:

=========  ==================================================================
Python     ``Traceback (most recent call last):`` through the exception line;
           chained exceptions (``During handling of the above exception``)
           count once
Java/JVM   ``Exception in thread "main" java.lang...`` and its ``\\tat``
           frames, ``Caused by:`` included
Node.js    ``TypeError: ...`` followed by ``    at ...`` frames
C++        ``terminate called after throwing an instance of ...``
Go         ``panic: ...`` with its ``goroutine N [running]:`` stacks
.NET       ``Unhandled exception. System...`` and its ``   at`` frames
Rust       ``thread 'main' panicked at ...`` with its message and ``note:``
=========  ==================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Trace", "find_traces", "find_tracebacks", "describe_traces"]

#: (language, first line) per runtime; the first that matches names the block.
_STARTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Python", re.compile(r"Traceback \(most recent call last\):")),
    ("Java", re.compile(r"Exception in thread \"")),
    ("Go", re.compile(r"^panic: ")),
    ("Rust", re.compile(r"thread '.*' panicked at")),
    ("C++", re.compile(r"terminate called after throwing|terminate called without an active exception")),
    (".NET", re.compile(r"^Unhandled [eE]xception[.:]")),
)
# Python prints chained exceptions as several tracebacks of one error.
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")
# Node.js and browsers: "TypeError: x is not a function" followed by "    at f (file.js:3:9)".
_JS_ERROR = re.compile(r"^\w*(Error|Exception)\b.*")
_JS_FRAME = re.compile(r"^\s+at .+")
_GO_MORE = re.compile(r"^(goroutine \d+ \[|\[signal |created by |exit status )")


@dataclass(frozen=True, slots=True)
class Trace:
    """One uncaught error's report.

    Attributes:
        language: ``Python``, ``Java``, ``Node.js``, ``C++``, ``Go``, ``.NET`` or ``Rust``.
        text: its lines as the bot wrote them (tabs and indentation kept), joined by ``\\n``.
    """

    language: str
    text: str


def _indented(line: str) -> bool:
    return line[:1] in (" ", "\t")


def find_traces(text: str) -> list[Trace]:
    """Every report of an uncaught error in ``text`` (a bot's stderr), in order.

    A block runs from its first line over its indented lines (the frames);
    Python's ends at its exception line, Java's takes ``Caused by:`` and
    ``Suppressed:`` sections, Go's its blank-line-separated goroutine stacks,
    Rust's its message line and ``note:``.

    Returns:
        The traces, e.g. ``[Trace("Java", 'Exception in thread "main" ...\\n\\tat Bot.main(Bot.java:3)')]``.
    """
    lines = text.splitlines()
    found: list[Trace] = []
    chained = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(_CHAINED):
            chained = True
            i += 1
            continue
        language = next((lang for lang, start in _STARTS if start.search(line)), None)
        if language is None and _JS_ERROR.match(stripped) and i + 1 < len(lines) and _JS_FRAME.match(lines[i + 1]):
            language = "Node.js"
        if language is None:
            if stripped:
                chained = False
            i += 1
            continue
        block = [line]
        i += 1
        if language == "Rust" and line.rstrip().endswith(":") and i < len(lines):
            block.append(lines[i])  # the panic message, on its own line since Rust 1.73
            i += 1
        while i < len(lines):
            nxt = lines[i]
            if _indented(nxt):
                block.append(nxt)
            elif language == "Java" and nxt.startswith(("Caused by:", "Suppressed:")):
                block.append(nxt)
            elif language == "Rust" and nxt.startswith(("note:", "stack backtrace:")):
                block.append(nxt)
            elif language == "Go" and (not nxt.strip() or _GO_MORE.match(nxt)
                                       or (i + 1 < len(lines) and lines[i + 1].startswith("\t"))):
                block.append(nxt)  # a blank line, a goroutine header, or a function line over its "\t" file line
            else:
                if language == "Python" and nxt.strip():  # the exception line ends a Python traceback
                    block.append(nxt)
                    i += 1
                break
            i += 1
        while block and not block[-1].strip():
            block.pop()
        if chained and found and language == "Python":
            found[-1] = Trace("Python", "\n".join([found[-1].text, "", *block]))
        else:
            found.append(Trace(language, "\n".join(block)))
        chained = False
    return found


def find_tracebacks(text: str) -> list[str]:
    """The text of each :func:`find_traces` block (what ``harness check-bot`` prints)."""
    return [t.text for t in find_traces(text)]


def describe_traces(traces: list[Trace] | tuple[Trace, ...]) -> str:
    """``"1 traceback (Java)"``, ``"3 tracebacks (Python 2, Go 1)"``; ``""`` for none."""
    if not traces:
        return ""
    counts: dict[str, int] = {}
    for t in traces:
        counts[t.language] = counts.get(t.language, 0) + 1
    n = len(traces)
    langs = next(iter(counts)) if len(counts) == 1 else ", ".join(f"{k} {v}" for k, v in counts.items())
    return f"{n} traceback{'s' if n != 1 else ''} ({langs})"
