"""``harness play``: a person at the table against bots, in the terminal or the browser.

Modules: ``table`` follows the hand from the human seat's messages (what the seat may see,
nothing more) and turns typed or clicked commands into replies; ``channel`` keeps that table for
web pages (``--web`` and the contest server's games); ``terminal`` and ``web`` draw it; ``watch``
follows a running match (``harness watch``); ``session`` runs the match with the seat
(:mod:`harness.match.human`) and the interface side by side; ``guard`` is what every page served
over HTTP sends and checks (the Content-Security-Policy, writes from the page's own origin only,
the secret in a local page's URL), for these pages and the contest server's.
"""
