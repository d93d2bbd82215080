"""Hand histories, one home for the format (docs/HISTORY.md): writing, reading, checking and replaying.

Modules, in the direction of their imports: ``v1`` (version 1 of the record: the first releases'
writer and its replay), ``record`` (the current record, version 3, built from a hand and its
messages, and its replay), ``shape`` (the shape check of a line of either version: every field of
the right kind and range, named when not), ``files`` (history files: names, reading plain or gzip,
following a growing file, accessors over every version) and ``replay`` (re-running a whole
history from its seeds, ``harness replay``).

Uses the engine (:mod:`harness.engine`) and the values below it (:mod:`harness.specs`,
:mod:`harness.deals`); the referee, the reports, the tournament and the server use it. The engine
knows no file format.
"""
