"""The wire contract between referee and bots, and the Python bot SDK. Imports nothing from harness.

``protocol.messages`` defines every message once, ``protocol.codec`` encodes and strictly
decodes them, ``protocol.sdk`` is the Python bot SDK; the spec is ``protocol/PROTOCOL.md``.
"""

from protocol.errors import ProtocolError
from protocol.version import MAX_AMOUNT, MAX_MESSAGE_BYTES, PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION", "MAX_MESSAGE_BYTES", "MAX_AMOUNT", "ProtocolError"]
