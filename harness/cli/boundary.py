"""The ``harness`` command's one error boundary, and its stop signals.

Every command raises; nothing catches by itself what the boundary says the same way. :class:`HarnessGroup`
(the root command) catches, once for every command:

* a usage mistake found by the parser (an unknown option, a bad value): one line, exit status 2;
* a :class:`harness.errors.HarnessError` (an error the harness raises on purpose: a bad file or option, a
  bot that cannot start, a lost cluster...): its message as one line ``harness COMMAND: message``, the exit
  status from :func:`exit_code` (the table below);
* Ctrl-C (130) and SIGTERM (143), raised as ``KeyboardInterrupt`` (:func:`on_stop_signal`);
* stdout's reader gone (``| head``): a quiet end;
* a path too long for the file system (``ENAMETOOLONG``: a path the user gave): one line, exit status 2;
* anything else is a bug in the harness: its traceback, one line saying so, and exit status
  :data:`EXIT_BUG` (70, ``EX_SOFTWARE`` of sysexits.h), never a usage error.

Imports only typer and :mod:`harness.errors` at the top (``harness --help`` stays fast).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import Any

import typer
from typer.core import TyperGroup

from harness.cli.voice import closed_pipe, say
from harness.errors import HarnessError
from harness.match.stoprequest import ask_stop
from harness.match.stoprequest import forget as forget_stop

try:  # typer >= 0.20 vendors click: its own copy raises these
    from typer._click import exceptions as clickx
except ImportError:  # pragma: no cover - typer on the real click
    from click import exceptions as clickx  # type: ignore[no-redef]

__all__ = ["EXIT_BUG", "EXIT_CODES", "EXIT_DISK", "EXIT_FAILED", "EXIT_USAGE", "HarnessGroup", "UsageError",
           "exit_code"]

#: A usage mistake or input the harness refuses (an option, a file, a setting): nothing was started.
EXIT_USAGE = 2
#: An operation failed (a lost cluster, the database, a file that cannot be written).
EXIT_FAILED = 1
#: ``harness run`` stopped by its output's disk (full, over quota, read-only, failing): every record kept.
EXIT_DISK = 4
#: A bug in the harness: an exception that is no HarnessError got out of a command (traceback printed).
EXIT_BUG = 70

#: Error classes whose exit status is not the rule's (a ``ValueError`` kind, bad input: 2; else 1), by
#: qualified name (no import of their modules until one is raised); the first class of the error's MRO
#: found here wins. Every command's documented statuses come from this table and the rule.
EXIT_CODES: dict[str, int] = {
    "harness.match.outdir.StorageError": EXIT_DISK,  # the output's disk: full, over quota, read-only, failing
    "harness.host.sandbox.SandboxError": EXIT_USAGE,  # mode "required" where it cannot run: change a setting
    "harness.host.botproc.BotStartError": EXIT_USAGE,  # the bot command given cannot be started
    "harness.server.client.SubmitError": EXIT_USAGE,  # the server, its address or the token given
}


class UsageError(HarnessError, ValueError):
    """A mistake in a command's options or arguments that the parser cannot see (exit status 2)."""


def exit_code(exc: HarnessError) -> int:
    """The exit status of ``exc``: :data:`EXIT_CODES`, else 2 for bad input (a ``ValueError``), else 1."""
    for cls in type(exc).__mro__:
        code = EXIT_CODES.get(f"{cls.__module__}.{cls.__qualname__}")
        if code is not None:
            return code
    return EXIT_USAGE if isinstance(exc, ValueError) else EXIT_FAILED


#: The command being run, as its words after ``harness`` (``["bench", "match"]``): the boundary's lines name it.
_invoked: list[str] = []


class HarnessGroup(TyperGroup):
    """The root command (and ``harness bench``): the error boundary (module doc), SIGTERM handled as Ctrl-C
    (exit status 143, 130 for Ctrl-C), and a quiet end when stdout's reader goes away."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            _invoked.append(command.name or name or "")
        return name, command, rest

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        old_handlers = catch_stop_signals()
        _invoked.clear()
        try:
            code = super().main(args, "harness", complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except clickx.NoArgsIsHelpError as exc:  # `harness` alone: the help, as asked for
            exc.show()
            code = exc.exit_code
        except clickx.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "harness"
            text = " ".join(exc.format_message().split()).rstrip(".")
            say(where.removeprefix("harness").strip() or None, f"{text[:1].lower()}{text[1:]}; see {where} -h")
            code = exc.exit_code
        except clickx.ClickException as exc:
            say(None, " ".join(exc.format_message().split()))
            code = exc.exit_code
        except typer.Abort:
            code = 130
        except HarnessError as exc:
            say(command_name(), str(exc))
            code = exit_code(exc)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                code = closed_pipe()
            elif exc.errno == errno.ENAMETOOLONG:  # always a path the user gave or named (an option, a file)
                say(command_name(), name_too_long(exc))
                code = EXIT_USAGE
            else:
                code = _bug(exc)
        except Exception as exc:  # noqa: BLE001 - the boundary: a bug, said as one
            code = _bug(exc)
        finally:
            for signum, handler in old_handlers.items():
                signal.signal(signum, handler)
            forget_stop(threading.get_ident())
        try:
            sys.stdout.flush()
        except OSError:  # the reader went away after the last line
            code = closed_pipe()
        code = code if isinstance(code, int) else 0
        if _stopped_by and code in (0, 130):  # stopped, as asked: 130 for Ctrl-C, 143 for SIGTERM
            code = 128 + _stopped_by[0]
        sys.exit(code)


def command_name() -> str | None:
    """The command being run (``"match"``, ``"bench match"``), or None before one is known."""
    return " ".join(_invoked) or None


def name_too_long(exc: OSError) -> str:
    """The one line for ``ENAMETOOLONG``: the path (its start and its end when long) and the file system's limit.

    The harness makes no long name of its own (its files are named after bots, at most 32 characters), so the
    path came from the user: an option (``--out``), an argument, a file's key (``[tournament] output`` or the
    ``results/<name>`` made of ``[tournament] name``).
    """
    path = os.fsdecode(exc.filename) if exc.filename is not None else ""
    shown = path if len(path) <= 120 else f"{path[:60]}...{path[-40:]} ({len(path):,} characters)"
    where = f"{shown}: " if path else ""
    return (f"{where}file name too long (a name in a path is at most 255 bytes on most file systems); "
            "give a shorter path or name")


def _bug(exc: BaseException) -> int:
    """An exception no command should let out: its traceback, then one line saying it is a bug."""
    import traceback

    traceback.print_exception(exc)
    say(command_name(), f"internal error ({type(exc).__name__}): a bug in the harness, not in your input; "
                        f"the traceback is above (exit status {EXIT_BUG})")
    return EXIT_BUG


#: The stop signals received (SIGINT, SIGTERM), in order: the first one gives the exit status, 128 + its number.
_stopped_by: list[int] = []


def on_stop_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM: recorded, then raised as Ctrl-C's KeyboardInterrupt, so that every command stops
    on SIGTERM as on Ctrl-C (bots stopped, what is recorded kept) and exits 143 instead of 130.

    A second SIGTERM while the first one's cleanup runs is only recorded (a service manager's repeated
    stop request must not cut the cleanup short); a second Ctrl-C still interrupts, as Python's default does.
    """
    again = signum in _stopped_by
    _stopped_by.append(signum)
    if not (again and signum == signal.SIGTERM):
        ask_stop(threading.get_ident())  # a match stops at its next hand if this exception is lost in a finalizer
        raise KeyboardInterrupt


def catch_stop_signals() -> dict[int, Any]:
    """Install :func:`on_stop_signal` for SIGINT and SIGTERM (from the main thread only: an embedding
    caller's thread cannot); return the handlers it replaced, to be put back."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    _stopped_by.clear()
    return {signum: signal.signal(signum, on_stop_signal) for signum in (signal.SIGINT, signal.SIGTERM)}
