"""Errors raised by the protocol codec."""

from __future__ import annotations


class ProtocolError(ValueError):
    """A message that cannot be accepted: not msgpack, wrong shape, wrong type, out of range or too big.

    Attributes:
        field: Dotted path of the offending field (``"amount"``, ``"legal.min_to"``,
            ``"cards[2]"``), ``"type"`` for an unknown or missing type, ``"<message>"`` when
            the bytes as a whole are at fault (oversized, not msgpack, not a map).
    """

    __slots__ = ("field",)

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
