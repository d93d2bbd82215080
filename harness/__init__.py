"""Seven Card Draw bot harness: engine, referee, tournament runner and leaderboard.

Layout (docs/INTERNALS.md pins the interfaces): ``harness.engine`` holds the pure rules; the other
modules run bots, matches and tournaments. ``protocol`` (a sibling package)
holds the wire contract and the Python bot SDK.
"""

__version__ = "0.1.0"
