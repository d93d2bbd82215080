"""The referee's hot path in the native core (the crate in ``native/``): ZMTP framing and a bot's reply decoded.

The match layer's one door to ``harness_core`` (``tests/test_layering.py``), as
:mod:`harness.engine.native` is the engine's. Both pieces are the Python ones' twins, checked against
them by property tests (same events and fault texts for any bytes in any split; same reply, or the
same :class:`ProtocolError`, for any bytes):

- :data:`Parser`: :class:`harness.match.zmtp.Parser` in Rust (same arguments, methods, events, bounds).
- :func:`decode_reply`: :func:`protocol.codec.decode_reply`; a well-formed ``action`` or ``discard``
  reply is read in Rust, anything else is left to :func:`protocol.codec.decode`, the one place that
  says what is wrong, so every error is the codec's own.
- :func:`start_hand`: :func:`harness.engine.games.start_hand` with a Seven Card Draw hand played in the
  core (:class:`harness.engine.native_state.NativeHandState`, ``HandState``'s API), checked against the
  Python engine after every action by tests/test_native_state.py; other games stay on the Python engine.

``make install`` builds the crate; importing this module without it raises ImportError (the endpoint then
keeps the Python twins).
"""

from __future__ import annotations

import harness_core

from harness.engine.native_state import start_hand
from protocol import codec
from protocol.messages import ActionReply, DiscardReply, Message
from protocol.version import MAX_AMOUNT, MAX_MESSAGE_BYTES, PROTOCOL_VERSION

__all__ = ["Parser", "decode_reply", "start_hand"]

#: ``Parser(frame_limit, skip_limit=None)``: the ZMTP parser in Rust (:class:`harness.match.zmtp.Parser`'s API).
Parser = harness_core.ZmtpParser

_fast = harness_core.ReplyDecoder(
    ActionReply,
    DiscardReply,
    object.__new__,
    tuple(ActionReply.__dict__[f].__set__ for f in ("seq", "action", "amount", "v")),
    tuple(DiscardReply.__dict__[f].__set__ for f in ("seq", "cards", "v")),
    PROTOCOL_VERSION,
    MAX_AMOUNT,
)
_decode = codec.decode


def decode_reply(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Message:
    """:func:`protocol.codec.decode_reply` with its fast path in Rust: the same message, or the same error.

    Raises:
        ProtocolError: as :func:`protocol.codec.decode`.
    """
    reply = _fast(data, max_bytes)
    return reply if reply is not None else _decode(data, max_bytes)
