"""Tournaments: many matches and their leaderboard (DESIGN.md "Tournament promises").

Modules, in the direction of their imports: ``schedule`` (pairings),
``config`` (the TOML file), ``results`` (the crash-safe results store),
``stats`` and ``leaderboard`` (pure statistics and their tables),
``runner`` (plays the schedule through :mod:`harness.match`).
Nothing in :mod:`harness.match` imports from here.
"""
