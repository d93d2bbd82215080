"""What the ``harness`` command writes: stdout lines, and the one style of stderr.

Every line on stderr is ``harness COMMAND: message`` (``harness COMMAND: warning: ...``, ``harness COMMAND:
notice: ...``; ``WARNING:`` only for the sandbox's alert that bots are not isolated, docs/security.md), one
line each, through :func:`say`; stdout goes through :func:`echo`. Both show what a bot could have put in a
line with its control characters escaped. Library code never prints: it is handed a :class:`CommandVoice`
(or a callback) and the CLI says its lines here. Imports only typer at the top (``harness --help`` stays fast).
"""

from __future__ import annotations

import os
import sys

import typer

__all__ = ["MAX_LINE", "CommandVoice", "closed_pipe", "echo", "say", "stdout_gone", "usage"]

#: The longest message :func:`say` writes on one line (characters): a longer one (a 10 kB option value quoted in
#: an error) keeps its start and its last 200 characters and says how much was cut.
MAX_LINE = 2000


def echo(text: str) -> None:
    """Print ``text`` on stdout, what a bot could have put in it neutralised (:func:`harness.match.untrusted.visible`).

    Every line the CLI prints goes through here: bots' stderr tails, tracebacks
    and fault details reach the terminal only with their control characters
    (escape sequences, carriage returns, BiDi overrides) shown as escapes.
    """
    from harness.match.untrusted import visible

    typer.echo(visible(text, multiline=True))


def say(command: str | None, message: str, *, commentary: bool = False) -> None:
    """Print one line on stderr in the harness's one style: ``harness COMMAND: message`` (``harness: message``
    when no command is known); the one writer of stderr in the CLI.

    ``commentary``: a line of ``harness run``'s running commentary (README), written as it is, a bot's stderr
    tail in it kept on its own lines (control characters escaped all the same).
    """
    from harness.match.untrusted import visible

    if commentary:
        typer.echo(visible(message, multiline=True), err=True)
        return
    message = visible(message)  # one line: a bot's text cannot start a forged line of its own
    if len(message) > MAX_LINE:  # a 10 kB value echoed in an error: its start and its end, the length said
        cut = len(message) - MAX_LINE + 200
        message = f"{message[:MAX_LINE - 400]}... [{cut:,} characters cut] ...{message[-200:]}"
    typer.echo(f"harness {command}: {message}" if command else f"harness: {message}", err=True)


def usage(command: str, message: str, code: int = 2) -> typer.Exit:
    """:func:`say` the message; return the Exit (status 2, a usage error, unless ``code``) to raise."""
    say(command, message)
    return typer.Exit(code)


class CommandVoice:
    """The channel a command hands to library code (:class:`harness.tournament.voice.Voice`): its running
    commentary as written (README: ``plan:``, ``estimate:``, ``[3/12] ...``), its warnings and notices as
    ``harness COMMAND: warning: ...`` / ``notice: ...`` lines."""

    def __init__(self, command: str, *, quiet: bool = False) -> None:
        self.command = command
        self.quiet = quiet

    def say(self, text: str) -> None:
        """A line of running commentary (may hold a bot's stderr tail: several lines, control characters
        escaped)."""
        if not self.quiet:
            say(self.command, text, commentary=True)

    def warn(self, text: str, *, alert: bool = False) -> None:
        """A warning: ``harness COMMAND: warning: text`` (``WARNING:`` for an ``alert``, the sandbox's)."""
        if not self.quiet:
            say(self.command, f"{'WARNING' if alert else 'warning'}: {text}")

    def notice(self, text: str) -> None:
        """A notice: ``harness COMMAND: notice: text``."""
        if not self.quiet:
            say(self.command, f"notice: {text}")


def stdout_gone() -> bool:
    """stdout is a pipe whose reader has closed it (``| head`` has read its lines): no one reads what follows.

    Polled between a long command's steps (``harness sprt``'s matches) so that it stops before the next one
    rather than at its next line; a pipe's write end reports POLLERR once its last reader is gone (Linux
    ``pipe_poll``). False for a terminal, a file, or a stdout without a descriptor.
    """
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)  # POLLERR is reported whatever the events asked for
        return any(events & select.POLLERR for _fd, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll, no descriptor (a test's captured stdout)
        return False


def closed_pipe() -> int:
    """stdout's reader is gone (``harness replay FILE -v | head``): stop quietly, as ``cat`` does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing left to flush at exit, so no "Broken pipe"
    except (OSError, ValueError):
        pass
    return 1
