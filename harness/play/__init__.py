"""``harness play``: a person at the table against bots, in the terminal or the browser.

:mod:`harness.play.table` follows the hand from the human seat's messages
(what the seat may see, nothing more) and turns typed or clicked commands into
replies; :mod:`harness.play.channel` keeps that table for web pages (``--web`` and the contest
server's games); :mod:`harness.play.terminal` and :mod:`harness.play.web` draw it;
:mod:`harness.play.watch` follows a running match (``harness watch``);
:mod:`harness.play.session` runs the match with the seat
(:mod:`harness.match.human`) and the interface side by side.
"""
