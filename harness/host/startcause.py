"""Why a bot failed to start, when its stderr or the referee's detail tells: a limit, or a file.

``harness check-bot`` and the entry check print one generic hint for a
failed start (connect a DEALER, send hello) unless this finds the cause in
what the runtime wrote: the JVM's ``Unable to access jarfile``, Python's
``can't open file``, Node's ``Cannot find module``, the dynamic loader's
missing library, or an out-of-memory, out-of-threads or out-of-files report
that names the limit to raise (:class:`harness.specs.Limits`).
"""

from __future__ import annotations

import re

from harness.specs import Limits

__all__ = ["start_cause"]

_MEMORY = re.compile(
    r"Could not reserve enough space|insufficient memory for the Java Runtime|java\.lang\.OutOfMemoryError"
    r"|Error occurred during initialization of VM|\bMemoryError\b|std::bad_alloc|Cannot allocate memory"
    r"|runtime: out of memory|JavaScript heap out of memory|memory allocation of \d+ bytes failed"
    r"|OutOfMemoryException"
)
_THREADS = re.compile(
    r"unable to create native thread|unable to create new native thread|can't start new thread"
    r"|pthread_create|Resource temporarily unavailable|fork: retry|failed to create new OS thread"
)
_FILES_LIMIT = re.compile(r"Too many open files")
# (pattern, what it means): group 1 is the file or module named.
_FILES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Unable to access jarfile (\S+)"), "the jar {0} cannot be opened"),
    (re.compile(r"Could not find or load main class (\S+)"), "the Java main class {0} is not on the class path"),
    (re.compile(r"can't open file '([^']+)'"), "the file {0} does not exist"),
    (re.compile(r"Cannot find module '([^']+)'"), "the Node.js module {0} is not found"),
    (re.compile(r"No module named '?([^'\s]+)"), "the Python module {0} is not installed for the bot's Python"),
    (re.compile(r"error while loading shared libraries: ([^:\s]+)"), "the shared library {0} is not found"),
    (re.compile(r"(\S+): Permission denied"), "{0} cannot be run or read (permission denied)"),
    (re.compile(r"(\S+): No such file or directory"), "{0} does not exist"),
)
_WHERE = "paths are relative to the bot's cwd; under the sandbox it sees only its cwd and [sandbox] paths"


def start_cause(stderr: str, status: str, limits: Limits) -> str:
    """The cause of a failed start in one line, or ``""`` when nothing tells it.

    Args:
        stderr: the bot's stderr (its runtime's last words).
        status: the referee's ``failed_start: ...`` detail.
        limits: the limits it ran under (named in the answer, in MiB and ms).

    Returns:
        e.g. ``"the memory limit (memory_mb = 1024 MiB): its stderr says 'Could not reserve enough space'"``,
        ``"the jar javabot.jar cannot be opened (paths are relative to ...)"``.
    """
    # A connection the referee dropped (a wrong secret, a REQ socket, ...) is the cause, not the limit.
    if "no valid hello within" in status and not stderr.strip() and "dropped:" not in status:
        return (f"the start-up limit (startup_ms = {limits.startup_ms} ms): it wrote nothing and sent no hello "
                "in time; a runtime that starts slowly (a JVM) needs a larger startup_ms")
    for line in stderr.splitlines():
        if (m := _MEMORY.search(line)) is not None:
            limit = f"memory_mb = {limits.memory_mb} MiB" if limits.memory_mb else "memory_mb"
            return f"the memory limit ({limit}): its stderr says {m.group(0)!r}"
        if (m := _THREADS.search(line)) is not None:
            limit = f"max_processes = {limits.max_processes}" if limits.max_processes else "max_processes"
            return f"the process limit ({limit}, threads count too): its stderr says {m.group(0)!r}"
        if (m := _FILES_LIMIT.search(line)) is not None:
            return f"the open-files limit (open_files = {limits.open_files}): its stderr says {m.group(0)!r}"
    for line in stderr.splitlines():
        for pattern, words in _FILES:
            if (m := pattern.search(line)) is not None:
                return f"{words.format(m.group(1))} ({_WHERE})"
    if "CPU-time limit" in status:
        return f"the CPU-time limit (cpu_seconds = {limits.cpu_seconds})"
    return ""
