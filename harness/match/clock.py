"""A bot's clock: a per-decision limit plus a time bank for the whole match.

Only the bot's thinking time is charged: the referee starts the clock when it
sends a request and stops it when the reply arrives, so the engine's work and
the other bots' turns never cost a bot anything. Two times come out of one
decision: what is *charged* to the bank ends at the earliest moment the reply
may have arrived (a referee that was not looking, descheduled or stopped,
never costs the bot), and what is *recorded* runs from just before the
request was written to when the referee holds the reply, so it is never less
than the bot's own time, however loaded the machine (docs/HISTORY.md,
``ms``). Times are milliseconds on the wire and in records, seconds of
``time.perf_counter()`` (monotonic on Linux) inside. PROTOCOL.md "Limits".
"""

from __future__ import annotations

import time

_now = time.perf_counter


class Clock:
    """One bot's clock for one match.

    A decision may take ``decision_ms``; what it takes beyond that is drawn from
    the bank. A decision that exhausts both is a timeout: the bank is then empty
    and later decisions get ``decision_ms`` only.

    Args:
        decision_ms: time allowed per decision before the bank is used (ms, > 0).
        bank_ms: the match's time bank (ms, >= 0).

    Raises:
        ValueError: a negative bank or a non-positive decision limit.
    """

    __slots__ = ("decision_ms", "bank_ms", "_decision_s", "_started", "deadline")

    def __init__(self, decision_ms: int, bank_ms: int) -> None:
        if decision_ms <= 0:
            raise ValueError(f"decision_ms must be > 0 (got {decision_ms})")
        if bank_ms < 0:
            raise ValueError(f"time bank must be >= 0 ms (got {bank_ms})")
        self.decision_ms = int(decision_ms)
        self.bank_ms = float(bank_ms)
        self._decision_s = decision_ms / 1000.0
        self._started = 0.0
        #: perf_counter() value after which the pending decision has timed out.
        self.deadline = 0.0

    def start(self, at: float | None = None) -> float:
        """Start timing a decision (call right before sending the request).

        Args:
            at: when the request left, in ``time.perf_counter()`` seconds: a time taken
                *before* the write that sent it (``Connection.request`` passes it to its
                ``sent`` callback), so that the bot's time is never cut short by the
                referee being descheduled after the write; None = now.

        Returns:
            The decision's deadline in ``time.perf_counter()`` seconds: one
            deadline per decision, never extended by anything the bot sends.
        """
        self._started = now = _now() if at is None else at
        self.deadline = now + self._decision_s + self.bank_ms / 1000.0
        return self.deadline

    def stop(self, at: float | None = None) -> float:
        """Stop timing the pending decision (call once the reply is in hand): charge it, return its time.

        Args:
            at: the earliest moment the reply may have arrived, in ``time.perf_counter()``
                seconds (the referee's connection knows it, see
                ``Connection.answered_at``); None = now. The bank is charged up to
                there only: time the referee spent after that (its own work, being
                descheduled) is not charged.

        Returns:
            The decision's time for the record, in ms: from the start to now, when the
            reply is held, so never less than the bot took, whatever the load. It may
            exceed what was charged (by the referee's stall after ``at``).
        """
        now = _now()
        elapsed_ms = (now - self._started) * 1000.0
        if elapsed_ms < 0.0:
            return 0.0
        charged_ms = elapsed_ms if at is None or at >= now else (at - self._started) * 1000.0
        over = charged_ms - self.decision_ms  # as charge(), inline: once per decision
        if over > 0:
            self.bank_ms = max(0.0, self.bank_ms - over)
        return elapsed_ms

    def charge(self, elapsed_ms: float) -> float:
        """Charge ``elapsed_ms`` of thinking time: the excess over the limit comes out of the bank.

        Returns:
            ``elapsed_ms`` unchanged, for recording.
        """
        over = elapsed_ms - self.decision_ms
        if over > 0:
            self.bank_ms = max(0.0, self.bank_ms - over)
        return elapsed_ms

    def expire(self) -> float:
        """Record a timeout for the pending decision: the bank is spent.

        Returns:
            The time the decision was given (ms), for recording.
        """
        elapsed_ms = (_now() - self._started) * 1000.0
        self.bank_ms = 0.0
        return elapsed_ms

    def remaining_ms(self) -> int:
        """Whole ms left before the pending decision's deadline (0 when past it).

        Rounded up, so a poll for this long never returns before the deadline
        and never asks for a sub-millisecond timeout (pyzmq returns at once on
        a float below 1).
        """
        left = (self.deadline - _now()) * 1000.0
        if left <= 0:
            return 0
        whole = int(left)
        return whole + 1 if whole < left else whole

    @property
    def bank_left_ms(self) -> int:
        """What is left of the bank, in whole ms (for the request's ``time`` field)."""
        return int(self.bank_ms)
