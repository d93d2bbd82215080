"""A stop asked of a thread (harness.match.stoprequest): seen by that thread only, until forgotten; the CLI's
stop-signal handler asks it besides raising KeyboardInterrupt, since that exception can be lost."""

from __future__ import annotations

import signal
import threading

import pytest

from harness.cli.boundary import on_stop_signal
from harness.match import stoprequest


def test_a_request_stops_only_the_thread_asked_until_forgotten() -> None:
    seen: list[str] = []

    def other() -> None:
        try:
            stoprequest.raise_if_asked()
            seen.append("went on")
        except KeyboardInterrupt:
            seen.append("stopped")

    me = threading.get_ident()
    stoprequest.ask_stop(me)
    try:
        with pytest.raises(KeyboardInterrupt):
            stoprequest.raise_if_asked()
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert seen == ["went on"]
    finally:
        stoprequest.forget(me)
    stoprequest.raise_if_asked()  # forgotten: goes on


def test_the_cli_stop_signal_handler_also_asks_its_thread() -> None:
    me = threading.get_ident()
    try:
        with pytest.raises(KeyboardInterrupt):
            on_stop_signal(signal.SIGTERM, None)
        with pytest.raises(KeyboardInterrupt):  # the referee's check between hands, had the first been lost
            stoprequest.raise_if_asked()
    finally:
        stoprequest.forget(me)
        from harness.cli import boundary

        boundary._stopped_by.clear()
