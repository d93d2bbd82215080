"""One match: the referee and what it drives: it never blocks forever on a bot, and the match always finishes.

Modules, in the direction of their imports:

- values and rules of a match: ``clock`` (a bot's clock), ``msgsize`` (message
  bounds), ``untrusted`` (text a bot controls, made safe), ``carry`` (passed-out
  deals' antes in the middle between hands, R7.4); the value types and
  the deals every layer uses are one floor down (:mod:`harness.specs`,
  :mod:`harness.deals`), and hand histories have their own package
  (:mod:`harness.history`);
- bot hosting lives one floor down, in :mod:`harness.host` (processes, sandbox,
  control groups, limits);
- the wire: ``zmtp`` (the ZMTP parser), ``native_wire`` (its twin and the reply
  decoder's in the native core, used when built), ``wire`` (per-hand messages),
  ``trace`` (the opt-in wire trace of every message), ``endpoint`` (one bot's
  socket, handshake and bounds) and ``connection`` (its request/reply exchange);
- the seats: ``seat`` (the ``Seat`` protocol: what the referee needs of whatever
  answers a seat), ``botseat`` (a bot process in its sandbox), ``human`` (a seat
  a person answers, ``harness play``), ``seathost`` (the match's seats and the
  host that binds, launches, times and stops them);
- the match: ``referee`` (the hand loop), ``stoprequest`` (a stop asked of a
  match's thread, checked between hands in case its KeyboardInterrupt was lost), ``privatedir`` (where each match's
  endpoints live, and what killed referees left there), ``verdict`` (what
  ``harness match`` says), ``outdir`` and ``checkbot`` (``harness check-bot``).

Nothing here imports :mod:`harness.tournament`.
"""
