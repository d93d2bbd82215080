"""CPU burners: busy processes started beside a measurement (``harness bench match --load N``) or a test run
(``make test-busy``, ``tools/busy.py``), and always stopped.

A burner is ``python -c "while True: pass"`` in a session of its own (a Ctrl-C at the terminal does not reach
it), killed with its process group when its :class:`Burners` block ends, whatever ends it: a normal end, an
exception, a Ctrl-C or a SIGTERM (turned into :class:`KeyboardInterrupt` inside the block). Should the process
that started them die without running its ``finally`` (SIGKILL), each burner gets SIGKILL from the kernel too
(``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
from types import FrameType, TracebackType
from typing import Any

#: What a burner runs: one core's worth of work, forever, no I/O.
BURN = "while True: pass"
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Between fork and exec: SIGKILL this child when the thread that started it ends (Linux; ignored elsewhere)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl (not Linux): the finally is then the only stop
        pass


class Burners:
    """``count`` CPU burners for the time of a ``with`` block.

    Usage::

        with Burners(4) as burners:
            ...  # measured beside 4 busy processes; burners.pids their process ids

    Args:
        count: how many burners (0 starts none).

    Raises:
        ValueError: ``count`` below 0.
        KeyboardInterrupt: SIGTERM arrived inside the block (turned into one, so the block's ``finally`` runs);
            :attr:`stopped_by` then holds the signal's number.
    """

    def __init__(self, count: int) -> None:
        if count < 0:
            raise ValueError(f"the number of burners must be 0 or more, got {count}")
        self.count = count
        self.procs: list[subprocess.Popen[bytes]] = []
        self.stopped_by: int | None = None
        self._old_term: Any = None

    @property
    def pids(self) -> list[int]:
        """The burners' process ids (empty once stopped)."""
        return [p.pid for p in self.procs]

    def _on_term(self, signum: int, frame: FrameType | None) -> None:
        self.stopped_by = signum
        raise KeyboardInterrupt

    def __enter__(self) -> Burners:
        if self.count and threading.current_thread() is threading.main_thread():
            self._old_term = signal.signal(signal.SIGTERM, self._on_term)
        try:
            for _ in range(self.count):
                self.procs.append(subprocess.Popen([sys.executable, "-c", BURN], start_new_session=True,
                                                   preexec_fn=die_with_parent, stdin=subprocess.DEVNULL))
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def stop(self) -> None:
        """Kill every burner's process group and wait for it; restore the SIGTERM handler. Idempotent."""
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
        self.procs = []
        if self._old_term is not None:
            signal.signal(signal.SIGTERM, self._old_term)
            self._old_term = None

