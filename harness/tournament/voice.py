"""The one channel through which a run speaks: its running commentary, warnings and notices.

Library code never prints: :func:`harness.tournament.runner.run_tournament` and its progress display are
handed a :class:`Voice` and say every line through it. The ``harness`` command hands its own
(:class:`harness.cli.voice.CommandVoice`: warnings as ``harness run: warning: ...``); without one, a
:class:`StderrVoice` writes the same lines on stderr without the command's name (a script, a test, a
benchmark with ``quiet``). Commentary is the run's progress as README describes it (``plan:``,
``estimate:``, ``entry check: ...``, ``[3/12] ...``); a bot's text in it is shown with its control characters
escaped (:func:`harness.match.untrusted.visible`).
"""

from __future__ import annotations

import sys
from typing import Protocol

from harness.match.untrusted import visible

__all__ = ["StderrVoice", "Voice"]


class Voice(Protocol):
    """Where a run's lines go (module doc)."""

    def say(self, text: str) -> None:
        """A line of running commentary (several lines for a bot's stderr tail)."""

    def warn(self, text: str, *, alert: bool = False) -> None:
        """A warning; ``alert``: the sandbox's warning that bots are not isolated (``WARNING:``)."""

    def notice(self, text: str) -> None:
        """A notice: something chosen, said once."""


class StderrVoice:
    """The default :class:`Voice`: every line on stderr as it is (``warning: ...``, ``notice: ...``);
    ``quiet``: nothing at all."""

    def __init__(self, *, quiet: bool = False) -> None:
        self.quiet = quiet

    def say(self, text: str) -> None:
        if not self.quiet:
            print(visible(text, multiline=True), file=sys.stderr, flush=True)

    def warn(self, text: str, *, alert: bool = False) -> None:
        self.say(f"{'WARNING' if alert else 'warning'}: {visible(text)}")

    def notice(self, text: str) -> None:
        self.say(f"notice: {visible(text)}")
