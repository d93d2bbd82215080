"""A bot process in its sandbox: the :class:`~harness.match.seat.Seat` of every bot of a match."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.host import cgroups
from harness.host.botproc import BotProcess, BotStartError, stop_all
from harness.host.sandbox import SandboxError
from harness.match.clock import Clock
from harness.match.endpoint import CATCH_UP_DECISIONS
from harness.match.seat import SeatLaunch, SeatStartError
from harness.specs import BotSpec, Limits

__all__ = ["BotSeat"]


class BotSeat:
    """A seat answered by a bot subprocess (:class:`harness.host.botproc.BotProcess`), jailed and limited.

    Its clock is the match's (``decision_ms`` and the time bank); it starts in the sandbox the host makes
    for it (:attr:`SeatLaunch.confine`); a bot that timed out gets :data:`CATCH_UP_DECISIONS` decision
    times to send its late reply before its next request (PROTOCOL.md section 8); it is stopped by
    ``match_end``, then SIGTERM, then SIGKILL of everything it started.

    Args:
        spec: the bot's name, command, directory and environment.

    Raises:
        ValueError: the command is empty.
    """

    def __init__(self, spec: BotSpec) -> None:
        if not spec.command:
            raise ValueError(f"bot {spec.name!r} has an empty command")
        self.spec = spec
        self.name = spec.name
        #: The bot's process once launched (None before, or after a failed start).
        self.proc: BotProcess | None = None

    def clock(self, limits: Limits) -> Clock:
        """The match's clock: ``decision_ms`` per decision and ``time_bank_ms`` for the match."""
        return Clock(limits.decision_ms, limits.time_bank_ms)

    def own_clock(self, seat: int) -> dict[str, Any] | None:
        """None: a bot plays under the match's limits."""
        return None

    def launch(self, how: SeatLaunch) -> None:
        """Make its sandbox (``how.confine``) and start the bot in it (:meth:`BotProcess.start`).

        Raises:
            SeatStartError: the sandbox cannot be made, or the bot cannot start (not found, not executable).
        """
        try:
            jail, group = how.confine()
        except (SandboxError, cgroups.CgroupError) as exc:
            raise SeatStartError(f"its sandbox could not be set up: {exc}") from None
        proc = BotProcess(self.spec, how.env, how.log_dir, how.limits, how.label, jail=jail, group=group)
        try:
            proc.start()
        except BotStartError as exc:
            raise SeatStartError(str(exc)) from None
        self.proc = proc

    @property
    def has_process(self) -> bool:
        """True once the bot's process started."""
        return self.proc is not None

    def poll(self) -> int | None:
        """The bot's exit status (negative: the signal that killed it), None while it runs."""
        return None if self.proc is None else self.proc.poll()

    def describe_exit(self) -> str:
        """How the bot's process ended, in words (:meth:`BotProcess.describe_exit`)."""
        return "it never started" if self.proc is None else self.proc.describe_exit()

    def cpu_wait_s(self) -> float:
        """Seconds the bot's most-delayed thread waited for a CPU others held (:meth:`BotProcess.run_queue_wait_s`)."""
        return 0.0 if self.proc is None else self.proc.run_queue_wait_s()

    def startup_hint(self, code: int | None = None) -> str:
        """Its jail's words on a directory closed to the bot's uid, or on exit status 127 ('' without a jail)."""
        if self.proc is None or self.proc.jail is None:
            return ""
        return self.proc.jail.access_hint(code)

    def catch_up_ms(self, decision_ms: int) -> int:
        """:data:`CATCH_UP_DECISIONS` decision times: a slow decision costs one timeout, not several."""
        return CATCH_UP_DECISIONS * decision_ms

    def timeout_detail(self, detail: str) -> str:
        """The channel's words, as they are."""
        return detail

    def stop(self, grace_ms: int) -> str:
        """``grace_ms`` to exit after ``match_end``, then SIGTERM, ``grace_ms`` again, then SIGKILL of it all."""
        return self.stop_all([self], grace_ms)[0]

    @classmethod
    def stop_all(cls, seats: Sequence[Any], grace_ms: int) -> list[str]:
        """Every bot's quit, SIGTERM and SIGKILL steps with one shared wait each (:func:`stop_all`)."""
        procs = [s.proc for s in seats if s.proc is not None]
        steps = iter(stop_all(procs, grace_ms))
        return [next(steps) if s.proc is not None else "exited" for s in seats]

    @property
    def log_error(self) -> OSError | None:
        """The first write to its ``logs/<label>.out|.err`` that failed, or None."""
        return None if self.proc is None else self.proc.log_error
