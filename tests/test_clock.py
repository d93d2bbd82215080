"""Per-decision limit plus time bank (harness/match/clock.py)."""

from __future__ import annotations

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
