"""The root of the harness's exceptions.

``except HarnessError`` catches every error the harness raises on purpose (a usage mistake, a bad file, a
bot that cannot start, a lost worker...), and nothing else: a traceback that gets past it is a bug. Each
class also keeps its standard base (``ValueError`` for bad input, ``RuntimeError``/``OSError`` for a
failed operation), so callers that catch those keep working. ``protocol``'s ``ProtocolError`` is not
under it: bots import ``protocol`` without the harness.
"""

from __future__ import annotations

__all__ = ["HarnessError"]


class HarnessError(Exception):
    """Base of every exception class defined in ``harness`` (module doc)."""
