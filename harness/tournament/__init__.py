"""Tournaments: many matches and their leaderboard: a run that is stopped and started again resumes, losing nothing.

Modules, in the direction of their imports: ``design`` (sampled tables) and ``schedule`` (formats, pairings),
``config`` (the TOML file), ``results`` (the crash-safe results store, the output directory's marker),
``racing`` (a racing final's stopping rule),
``stats``, ``ratings`` and ``leaderboard`` (pure statistics and their tables), ``sprt`` (``harness sprt``),
``plan`` (per-match fingerprints, reuse), ``estimate`` (time and disk), ``workers`` (how jobs run: the
Executor), ``matchjob`` (one match as a job of either backend), ``cluster`` (the Dask executor), ``entries``
(entry checks), ``voice`` (the one channel a run speaks through), ``progress`` (what a run says while it
plays), ``seeds`` (the secret seed), ``runner`` (checks, plans and plays through :mod:`harness.match`).
Nothing in :mod:`harness.match` imports from here.
"""
