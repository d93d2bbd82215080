"""The table of one human seat, independent of how it reaches the person: one source for every web page.

:class:`TableChannel` follows the seat's :class:`~harness.match.human.HumanLink` (in the interface thread),
keeps the table as the person sees it (:class:`harness.play.table.TableView`, versioned so a page can wait
for the next one) and checks an answer posted from a page (the same parser as a typed command, then the
referee validates it like any reply). ``harness play --web`` (:mod:`harness.play.web`) and the contest
server's "play against" games serve it over HTTP, each with its own routes and checks of who may answer.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from harness.match.human import LEFT, HumanLink
from harness.play.table import CommandError, TableView

__all__ = ["TableChannel"]

#: How often a page's event stream looks for a new table (s).
_POLL_S = 0.05


class TableChannel:
    """One human seat's table, for pages (module doc).

    Args:
        pace_ms: pause after each event of another seat, so a page can follow it (ms).
    """

    def __init__(self, pace_ms: int = 300) -> None:
        self.view = TableView()
        self.pace_s = pace_ms / 1000.0
        self._lock = threading.Lock()
        self._version = 0
        # The empty table, complete: a page may connect before the first message (the server's games do).
        self._snapshot: dict[str, Any] = {**self.view.snapshot(), "over": False}
        self._link: HumanLink | None = None
        #: ``time.monotonic()`` of the person's last answer (or of the start): for idle games.
        self.last_answer = time.monotonic()

    # ---- the match side (the interface thread)

    def _publish(self, over: bool = False) -> None:
        snap = self.view.snapshot()
        with self._lock:
            snap["over"] = over
            self._snapshot = snap
            self._version += 1

    def _event(self, line: str) -> None:
        self._publish()
        if self.pace_s:
            time.sleep(self.pace_s)

    def __call__(self, link: HumanLink) -> None:
        """Follow the seat until the match is over (see :func:`harness.play.session.play_with_human`)."""
        self._link = link
        while True:
            msg = link.next(None)
            if msg is None:
                continue
            if msg == LEFT:
                self._publish(over=True)
                return
            self.view.update(msg, self._event)  # type: ignore[arg-type]
            self._publish()

    @property
    def over(self) -> bool:
        """The match is over or the seat has left (the last table is published)."""
        with self._lock:
            return bool(self._snapshot.get("over"))

    # ---- the page side (a server's threads)

    def state(self) -> dict[str, Any]:
        """The table now: :meth:`harness.play.table.TableView.snapshot` plus ``over`` and ``version``."""
        with self._lock:
            return {**self._snapshot, "version": self._version}

    async def events(self, disconnected: Callable[[], Awaitable[bool]]) -> AsyncIterator[dict[str, str]]:
        """Server-sent events: the table after every change (``event: table``), until over or disconnected."""
        seen = -1
        while True:
            with self._lock:
                version, snap = self._version, self._snapshot
            if version != seen:
                seen = version
                yield {"event": "table", "data": json.dumps({**snap, "version": version})}
                if snap.get("over"):
                    return
            if await disconnected():
                return
            await asyncio.sleep(_POLL_S)

    def answer_json(self, content_type: str, data: bytes) -> tuple[int, dict[str, Any]]:
        """:meth:`answer` of a request's body: only JSON is read (another site's form cannot post JSON to
        a page's origin); 415 for anything else, 400 for a body that is not JSON."""
        if content_type.split(";")[0].strip() != "application/json":
            return 415, {"error": "an answer is JSON (Content-Type: application/json)"}
        try:
            body = json.loads(data)
        except ValueError:
            body = None
        return self.answer(body)

    def answer(self, body: Any) -> tuple[int, dict[str, Any]]:
        """Post the person's decision from a page.

        Args:
            body: the page's JSON: ``{seq, action: fold|check|call|bet|raise|allin, amount}`` or
                ``{seq, discard: [cards]}``.

        Returns:
            ``(HTTP status, JSON body)``: 200 ``{"ok": true}``; 400 a malformed or refused answer (the
            reason in one line, as for a typed command); 409 nothing to answer now.
        """
        try:
            seq = int(body["seq"])
            line = _command(body)
        except (ValueError, KeyError, TypeError):
            return 400, {"error": "an answer is {seq, action, amount} or {seq, discard: [cards]}"}
        link = self._link
        # While a request waits for the person the referee sends the seat nothing: the view stands still.
        req = self.view.request
        if link is None or req is None or req.seq != seq:
            return 409, {"error": "nothing to answer now (too late, or not your turn)"}
        try:
            reply = self.view.parse(line)
        except CommandError as exc:
            return 400, {"error": str(exc)}
        if not link.answer(reply):
            return 409, {"error": "too late: the idle limit passed and the default action was played"}
        self.last_answer = time.monotonic()
        self.view.answered()
        self._publish()
        return 200, {"ok": True}


def _command(body: dict[str, Any]) -> str:
    """The typed command an answer from the page stands for (checked by the same parser)."""
    if "discard" in body:
        cards = body["discard"]
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ValueError("discard")
        return " ".join(["d", *cards])
    action = str(body["action"])
    letters = {"fold": "f", "check": "c", "call": "c", "allin": "a"}
    if action in letters:
        return letters[action]
    if action in ("bet", "raise"):
        return f"{action[0]} {int(body['amount'])}"
    raise ValueError(action)
