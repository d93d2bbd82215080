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
        return Clock(limits.decision_ms, limits.time_bank_ms)

    def own_clock(self, seat: int) -> dict[str, Any] | None:
        return None

    def launch(self, how: SeatLaunch) -> None:
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
        return self.proc is not None

    def poll(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def describe_exit(self) -> str:
        return "it never started" if self.proc is None else self.proc.describe_exit()

    def cpu_wait_s(self) -> float:
        return 0.0 if self.proc is None else self.proc.run_queue_wait_s()

    def startup_hint(self, code: int | None = None) -> str:
        if self.proc is None or self.proc.jail is None:
            return ""
        return self.proc.jail.access_hint(code)

    def catch_up_ms(self, decision_ms: int) -> int:
        return CATCH_UP_DECISIONS * decision_ms

    def timeout_detail(self, detail: str) -> str:
        return detail

    def stop(self, grace_ms: int) -> str:
        return self.stop_all([self], grace_ms)[0]

    @classmethod
    def stop_all(cls, seats: Sequence[Any], grace_ms: int) -> list[str]:
        """Every bot's quit, SIGTERM and SIGKILL steps with one shared wait each (:func:`stop_all`)."""
        procs = [s.proc for s in seats if s.proc is not None]
        steps = iter(stop_all(procs, grace_ms))
        return [next(steps) if s.proc is not None else "exited" for s in seats]

    @property
    def log_error(self) -> OSError | None:
        return None if self.proc is None else self.proc.log_error
