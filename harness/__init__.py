"""Seven Card Draw bot harness: engine, referee, tournament runner and leaderboard.

Layout, from the bottom floor up (docs/INTERNALS.md pins the interfaces; ``tests/test_layering.py``
holds the arrows): ``errors`` (the root exception class), ``engine`` (the pure rules), ``specs``
(match values) and ``deals`` (seeds), ``history`` (hand histories), ``match`` (one match: the
referee and the bots it hosts), ``tournament`` (many matches, the leaderboard), ``report`` (HTML
reports), ``play`` (a person at the table), ``server`` (the contest server), ``rl`` (training
environments), ``bench`` (figures) and ``cli`` (the ``harness`` command). ``protocol`` (a sibling
package) holds the wire contract and the Python bot SDK.
"""

__version__ = "0.1.0"
