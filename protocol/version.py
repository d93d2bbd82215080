"""Protocol version and wire limits (see PROTOCOL.md, "Envelope" and "Limits")."""

from __future__ import annotations

#: Version of the wire protocol described in PROTOCOL.md. Every message carries it as `v`.
PROTOCOL_VERSION: int = 1

#: Largest encoded message, in bytes, in either direction. A bot reply above it is an
#: "oversized" fault; the referee never sends anything larger.
MAX_MESSAGE_BYTES: int = 64 * 1024

#: Largest chip amount or counter accepted on the wire (2**40); anything above is "absurd".
MAX_AMOUNT: int = 2**40
