"""What every command of the ``harness`` CLI shares: the typer app, one-line errors, option checks.

One style for everything written to stderr: ``harness COMMAND: message``
(``harness COMMAND: warning: ...``, ``harness COMMAND: notice: ...``), one
line each, through :func:`_say`; a usage error is one such line (exit
status 2); output cut short by a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 vendors click: its own copy raises these
    from typer._click import exceptions as _clickx
except ImportError:  # pragma: no cover - typer on the real click
    from click import exceptions as _clickx  # type: ignore[no-redef]


class _HarnessGroup(TyperGroup):
    """The root command: one-line usage errors, SIGTERM handled as Ctrl-C (:func:`_on_stop_signal`; exit
    status 143, 130 for Ctrl-C), and a quiet end when stdout's reader goes away."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        old_handlers = _catch_stop_signals()
        try:
            code = super().main(args, "harness", complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except _clickx.NoArgsIsHelpError as exc:  # `harness` alone: the help, as asked for
            exc.show()
            code = exc.exit_code
        except _clickx.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "harness"
            text = " ".join(exc.format_message().split()).rstrip(".")
            _say(where.removeprefix("harness").strip() or None, f"{text[:1].lower()}{text[1:]}; see {where} -h")
            code = exc.exit_code
        except _clickx.ClickException as exc:
            _say(None, " ".join(exc.format_message().split()))
            code = exc.exit_code
        except typer.Abort:
            code = 130
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            code = _closed_pipe()
        finally:
            for signum, handler in old_handlers.items():
                signal.signal(signum, handler)
        try:
            sys.stdout.flush()
        except OSError:  # the reader went away after the last line
            code = _closed_pipe()
        code = code if isinstance(code, int) else 0
        if _stopped_by and code in (0, 130):  # stopped, as asked: 130 for Ctrl-C, 143 for SIGTERM
            code = 128 + _stopped_by[0]
        sys.exit(code)


#: The stop signals received (SIGINT, SIGTERM), in order: the first one gives the exit status, 128 + its number.
_stopped_by: list[int] = []


def _on_stop_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM: recorded, then raised as Ctrl-C's KeyboardInterrupt, so that every command stops
    on SIGTERM as on Ctrl-C (bots stopped, what is recorded kept) and exits 143 instead of 130.

    A second SIGTERM while the first one's cleanup runs is only recorded (a service manager's repeated
    stop request must not cut the cleanup short); a second Ctrl-C still interrupts, as Python's default does.
    """
    again = signum in _stopped_by
    _stopped_by.append(signum)
    if not (again and signum == signal.SIGTERM):
        raise KeyboardInterrupt


def _catch_stop_signals() -> dict[int, Any]:
    """Install :func:`_on_stop_signal` for SIGINT and SIGTERM (from the main thread only: an embedding
    caller's thread cannot); return the handlers it replaced, to be put back."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    _stopped_by.clear()
    return {signum: signal.signal(signum, _on_stop_signal) for signum in (signal.SIGINT, signal.SIGTERM)}


def _stdout_gone() -> bool:
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


def _closed_pipe() -> int:
    """stdout's reader is gone (``harness replay FILE -v | head``): stop quietly, as ``cat`` does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing left to flush at exit, so no "Broken pipe"
    except (OSError, ValueError):
        pass
    return 1


def _echo(text: str) -> None:
    """Print ``text`` on stdout, what a bot could have put in it neutralised (:func:`harness.match.untrusted.visible`).

    Every line the CLI prints goes through here: bots' stderr tails, tracebacks
    and fault details reach the terminal only with their control characters
    (escape sequences, carriage returns, BiDi overrides) shown as escapes.
    """
    from harness.match.untrusted import visible

    typer.echo(visible(text, multiline=True))


def _say(command: str | None, message: str) -> None:
    """Print one line on stderr in the harness's one style: ``harness COMMAND: message``."""
    from harness.match.untrusted import visible

    message = visible(message)  # one line: a bot's text cannot start a forged line of its own
    typer.echo(f"harness {command}: {message}" if command else f"harness: {message}", err=True)


def _usage(command: str, message: str, code: int = 2) -> typer.Exit:
    """:func:`_say` the message; return the Exit (status 2, a usage error, unless ``code``) to raise."""
    _say(command, message)
    return typer.Exit(code)


def _out_of_bounds(*options: tuple[str, str, int | None]) -> str | None:
    """The first ``(option, setting, value)`` outside its bounds (:data:`harness.specs.BOUNDS`), as an error."""
    from harness.specs import bound_problem

    for option, setting, value in options:
        problem = None if value is None else bound_problem(setting, value, option)
        if problem:
            return problem
    return None


def _bots_and_sandbox_problem(specs: list[Any], sandbox: str) -> str | None:
    """The first problem of ``--bot`` commands (not found, not executable) or of ``--sandbox``, as an error."""
    from harness.host.botproc import BotStartError, resolve_command
    from harness.specs import SandboxMode

    for spec in specs:
        try:
            resolve_command(spec)
        except BotStartError as exc:
            return str(exc)
    if sandbox not in tuple(m.value for m in SandboxMode):
        return f"--sandbox must be auto, required or off, got {sandbox!r}"
    return None


def _bot_specs(items: list[str], cwd: Path | None, usage: Any, *, allow_dir: bool = True) -> list[Any]:
    """The ``--bot NAME=COMMAND`` / ``NAME@DIR=COMMAND`` options as BotSpecs (parsed by
    :func:`harness.specs.parse_named_command`); ``usage(message)`` makes the error."""
    from harness.specs import BotSpec, parse_named_command

    specs: list[Any] = []
    for item in items:
        try:
            name, folder, argv = parse_named_command(item, allow_dir=allow_dir)
        except ValueError as exc:
            raise usage(str(exc)) from None
        bot_dir = Path(folder).expanduser() if folder else cwd
        if bot_dir is not None and not bot_dir.is_dir():
            where = f"--bot {name}@{folder}" if folder else "--cwd"
            raise usage(f"{where}: {bot_dir} is not a directory")
        if any(s.name == name for s in specs):
            raise usage(f"--bot {name!r} is given twice; every bot needs its own name")
        specs.append(BotSpec(name, argv, cwd=None if bot_dir is None else os.fspath(bot_dir.resolve())))
    return specs


def _version(value: bool) -> None:
    """``--version``: the version from :data:`harness.__version__` (the package's one home of it; no metadata
    lookup, which costs a scan of every installed distribution)."""
    if value:
        from harness import __version__
        from protocol.version import PROTOCOL_VERSION

        _echo(f"harness {__version__} (bot protocol version {PROTOCOL_VERSION})")
        raise typer.Exit(0)


# rich_markup_mode=None: plain help text, so "[tournament] output" in a help string is
# printed as written instead of being swallowed as rich markup.
app = typer.Typer(
    cls=_HarnessGroup,
    help="Seven Card Draw bot harness: run tournaments, matches, and check bots.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", is_eager=True, callback=_version
    ),
) -> None:
    """Seven Card Draw bot harness: run tournaments, matches, and check bots."""


bench_app = typer.Typer(
    help="Benchmarks that print speed figures (one table; --json: one JSON object).",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(bench_app, name="bench")


def _overrides(config: Path, out: Path | None, jobs: int | None, hands: int | None, seed: str | None,
               pin: bool | None, sandbox: str | None = None,
               cluster: str | None = None):  # noqa: ANN202 - a TournamentConfig, imported lazily
    from harness.tournament.config import load_config, with_overrides

    return with_overrides(load_config(config), out=out, jobs=jobs, hands=hands, seed=seed, pin=pin, sandbox=sandbox,
                          cluster=cluster)


def _sandbox_plan(settings):  # noqa: ANN001, ANN202 - SandboxSettings -> Plan, imported lazily
    """Decide the sandbox of a command's bots, printing nothing (see :func:`_sandbox_say`).

    Called while the options are checked, so that mode "required" on a machine
    without the sandbox is a usage error before anything is started or written.

    Raises:
        harness.host.sandbox.SandboxError: mode "required" and the sandbox cannot run here.
    """
    from harness.host.sandbox import plan

    return plan(settings)


def _sandbox_say(decided, command: str) -> None:  # noqa: ANN001 - a harness.host.sandbox.JailPlan
    """Print the sandbox's WARNING when bots are not isolated (a notice when it is off), on stderr.

    Called once every option and file has been checked, just before the bots
    start: a usage error stays one line (README's front), and the warning comes with
    every run that really starts bots.
    """
    if decided.warning:
        _say(command, f"WARNING: {decided.warning}")
    elif not decided.active:  # mode "off": chosen, so one quiet line
        _say(command, "notice: the sandbox is off ([sandbox] mode / --sandbox): bots run unisolated, as your user")


_CLUSTER_HELP = ("Play the matches on a Dask cluster: tcp://HOST:8786 (a running `dask scheduler`) or local:N "
                 "(N worker processes on this machine); overrides [schedule] backend and scheduler.")



def _print_figures(figures: dict[str, Any], json_out: bool, targets: dict[str, str]) -> None:
    """The one output of the bench commands: a table (figure, value, target), or one JSON object."""
    import json

    from harness.bench import render

    _echo(json.dumps(figures) if json_out else render(figures, targets))


def _parse_seed(seed: str | None, usage: Any) -> int:
    """The match seed of ``--seed`` (decimal or hex), or a new secret one; a bad value is a usage error."""
    from harness.deals import new_seed, parse_seed

    try:
        return new_seed() if seed is None else parse_seed(seed)
    except ValueError as exc:
        raise usage(f"--seed: {exc}") from None


def _print_result(result: Any, unit: int, *, first: str = "bot", you: int | None = None) -> None:
    """The result table of one match (a :class:`harness.specs.MatchResult`): net chips, bb/100 (``unit``:
    the big blind in chips), faults and status per seat; ``you`` marks the person's seat."""
    from tabulate import tabulate

    from harness.tournament.stats import bb_per_100

    rows = []
    for seat, name in enumerate(result.bots):
        faults = ", ".join(f"{k} {v}" for k, v in sorted(result.faults[seat].items())) or "-"
        bb100 = bb_per_100(result.net[seat], result.hands_played, unit)
        who = f"{name} (you)" if seat == you and name != "you" else name
        rows.append([who, seat, result.net[seat], f"{bb100:+.1f}", faults, result.status[seat]])
    _echo(tabulate(rows, headers=[first, "seat", "net chips", "bb/100", "faults", "status"],
                   colalign=("left", "right", "right", "right", "left", "left")))


def _write_result(command: str, out_dir: Path, result: Any, unit: int) -> None:
    """``result.json`` of a match directory (what ``harness report DIR`` reads); a failure is a warning."""
    import json

    from harness.match.verdict import RESULT_FILE

    try:
        record = {**result.to_dict(), "big_blind": unit}
        (out_dir / RESULT_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        _say(command, f"warning: cannot write {out_dir / RESULT_FILE}: {exc.strerror or exc}")


def _pin_problem(pin: int | None) -> str | None:
    """Why ``--pin CPU`` cannot be used here (a CPU this process may not run on), or None."""
    allowed = sorted(os.sched_getaffinity(0))
    if pin is None or pin in allowed:
        return None
    return f"--pin {pin}: no such CPU available here; use one of {', '.join(map(str, allowed))}"


def _out_dir(out: Path | None, kind: str, usage: Any) -> Path:
    """The new output directory of ``--out`` (or ``results/KIND-DATE-TIME``); a bad one is a usage error."""
    from harness.match.outdir import OutDirError, default_out_dir, prepare_out_dir

    try:
        return prepare_out_dir(out) if out is not None else default_out_dir(kind)
    except OutDirError as exc:
        raise usage(str(exc)) from None


def _stack_problem(players: int, stack: int) -> str | None:
    """Why ``--stack`` is too deep for every message of a hand to fit (PROTOCOL.md section 7), or None."""
    from harness.engine import GameConfig
    from harness.match.msgsize import message_problem

    return message_problem(GameConfig(), players, stack, "--stack")


def _play_one_match(command: str, out_dir: Path, history: Path, play: Callable[[], Any],
                    on_interrupt: Callable[[Any], None] | None = None) -> Any:
    """Run ``play()`` (one match, its result returned) with its failures as the command's one-line errors:
    settings the referee refuses (exit status 2), an output directory it cannot write (1), Ctrl-C (130,
    every bot stopped, the hands so far kept in ``history``; ``on_interrupt`` gets their result, marked
    interrupted: :class:`harness.match.referee.MatchInterrupted`)."""
    from harness.engine import GameConfigError

    try:
        return play()
    except (ValueError, GameConfigError) as exc:
        raise _usage(command, str(exc)) from None
    except OSError as exc:
        raise _usage(command, f"cannot write to {out_dir}: {exc.strerror or exc}", 1) from None
    except KeyboardInterrupt as exc:
        result = getattr(exc, "result", None)
        if result is not None and on_interrupt is not None:
            on_interrupt(result)
        raise _usage(command, f"interrupted; bots stopped; hands so far in {history}", 130) from None
