"""One match: the referee and what it drives: it never blocks forever on a bot, and the match always finishes.

Modules, in the direction of their imports: ``specs`` (value types),
``clock``, ``placement``, ``handrecord`` (the hand record, docs/HISTORY.md),
``history`` and ``replay`` (hand-history files, every version),
``botproc`` (bot subprocesses), ``connection`` (one bot's ZeroMQ channel),
``referee`` (plays the match), ``outdir`` and ``checkbot`` (``harness
check-bot``). Nothing here imports :mod:`harness.tournament`.
"""
