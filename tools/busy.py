"""Run a command beside busy processes: 2 CPU burners per core (``make test-busy``: the test suite at load ~3x
the cores), as on a shared machine.

Usage: ``python tools/busy.py [--per-core N] -- COMMAND [ARG...]``. The burners are
:mod:`harness.bench.burners`': plain spinning processes in a process group of their own; they are killed when the
command ends, whatever its outcome (its exit status is this script's), and when this script is stopped by Ctrl-C or
SIGTERM. A test that passes only on an idle
machine fails here: every test must wait for the event it needs, with generous outer limits.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

from harness.bench.burners import Burners

_stopped_by: list[int] = []


def _interrupt(signum: int, frame: object) -> None:
    _stopped_by.append(signum)
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    """Start ``per_core`` x ``os.cpu_count()`` burners, run the command, kill the burners; its exit status."""
    parser = argparse.ArgumentParser(prog="busy.py", description=__doc__.splitlines()[0])
    parser.add_argument("--per-core", type=int, default=2, help="burners per core (default 2)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    count = args.per_core * len(os.sched_getaffinity(0))
    signal.signal(signal.SIGINT, _interrupt)
    try:
        with Burners(count):  # killed when the block ends, however it ends
            signal.signal(signal.SIGTERM, _interrupt)  # as Ctrl-C (the block's own handler would forget the signal)
            print(f"busy.py: {count} CPU burners beside: {' '.join(command)}", file=sys.stderr, flush=True)
            return subprocess.call(command)
    except KeyboardInterrupt:
        return 128 + (_stopped_by[0] if _stopped_by else signal.SIGINT)  # 130 for Ctrl-C, 143 for SIGTERM


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
