"""Per-decision limit plus time bank (harness/match/clock.py)."""

from __future__ import annotations

import time

import pytest

from harness.match.clock import Clock


def test_time_within_the_limit_costs_no_bank() -> None:
    c = Clock(100, 1000)
    c.charge(99.0)
    assert c.bank_left_ms == 1000


def test_time_over_the_limit_comes_out_of_the_bank() -> None:
    c = Clock(100, 1000)
    c.charge(350.0)
    assert c.bank_left_ms == 750
    c.charge(2000.0)
    assert c.bank_left_ms == 0


def test_deadline_includes_the_bank_and_expire_spends_it() -> None:
    c = Clock(100, 900)
    c.start()
    assert 900 < c.remaining_ms() <= 1000
    c.expire()
    assert c.bank_left_ms == 0
    c.start()
    assert 0 < c.remaining_ms() <= 100


def test_remaining_is_whole_ms_rounded_up_and_zero_after_deadline() -> None:
    c = Clock(5, 0)
    c.start()
    assert isinstance(c.remaining_ms(), int) and c.remaining_ms() >= 1
    c.deadline -= 1.0  # move the deadline into the past
    assert c.remaining_ms() == 0


@pytest.mark.parametrize("decision, bank", [(0, 10), (-1, 10), (10, -1)])
def test_bad_limits_are_refused(decision: int, bank: int) -> None:
    with pytest.raises(ValueError):
        Clock(decision, bank)


def test_stop_charges_up_to_the_arrival_and_records_up_to_the_reply_in_hand() -> None:
    """The bank pays only until the reply may have arrived (a stalled referee costs the bot nothing);
    the recorded time runs to the moment the reply is held, so it is never below the bot's own time."""
    c = Clock(100, 1000)
    sent = time.perf_counter() - 0.5  # the request left half a second ago (taken before its write)
    c.start(at=sent)
    recorded = c.stop(at=sent + 0.15)  # the reply arrived 150 ms after it left; the referee looked late
    assert c.bank_ms == pytest.approx(950.0)  # 150 ms charged: 50 beyond the limit
    assert recorded >= 500.0
    c.start()
    assert c.stop(at=time.perf_counter() + 10.0) >= 0.0  # an arrival "after now" charges up to now
