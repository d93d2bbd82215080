"""``harness play --web``: the same match, played by clicking in a local web page.

A small ASGI app (starlette, served by uvicorn on 127.0.0.1 at a free port)
with four routes: ``/`` the page, ``/state`` the table now (JSON,
:meth:`harness.play.table.TableView.snapshot`), ``/events`` the table after
every event as server-sent events, and ``POST /answer`` the person's
decision. An answer is checked by the same :func:`harness.play.table.parse_command`
as a typed command (a refused one is a 400 with the one-line reason), then
validated again by the referee like any reply.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from importlib.resources import files
from typing import Any

import uvicorn
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from harness.match.human import LEFT, HumanLink
from harness.play.table import CommandError, TableView

__all__ = ["WebTable"]

_STATIC = files("harness.play") / "static"
_TYPES = {"play.js": "text/javascript", "play.css": "text/css"}


class WebTable:
    """The person's interface in the browser (see the module docstring).

    Listens at once, so the URL can be printed before the match starts.

    Args:
        port: TCP port on 127.0.0.1 (0: a free one).
        pace_ms: pause after each event of another seat, so the page can follow it (ms).

    Raises:
        OSError: the port cannot be bound.
    """

    def __init__(self, port: int = 0, pace_ms: int = 300) -> None:
        self.view = TableView()
        self.pace_s = pace_ms / 1000.0
        self._lock = threading.Lock()
        self._version = 0
        self._snapshot: dict[str, Any] = {"seats": [], "log": [], "legal": None, "over": False}
        self._link: HumanLink | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        # Only this machine's names reach the app (no DNS rebinding), and an answer must come from the page
        # itself: JSON from this origin (another site's form cannot post one).
        app = Starlette(middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"])],
                        routes=[
            Route("/", self._page),
            Route("/static/{name}", self._static),
            Route("/state", self._state),
            Route("/events", self._events),
            Route("/answer", self._answer, methods=["POST"]),
        ])
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        name="play-web", daemon=True)
        self._thread.start()

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

    def close(self, grace_s: float = 0.5) -> None:
        """Let the page fetch the last table, then stop the server."""
        if self._thread.is_alive():
            time.sleep(grace_s)  # the event streams poll every 50 ms: the last table goes out meanwhile
        self._server.should_exit = True
        self._thread.join(5)
        self._sock.close()

    # ---- routes (the server's thread)

    async def _page(self, request: Request) -> Response:
        return HTMLResponse((_STATIC / "play.html").read_text(encoding="utf-8"))

    async def _static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _TYPES:
            return Response("not found", status_code=404)
        return Response((_STATIC / name).read_text(encoding="utf-8"), media_type=_TYPES[name])

    async def _state(self, request: Request) -> Response:
        with self._lock:
            return JSONResponse({**self._snapshot, "version": self._version})

    async def _events(self, request: Request) -> Response:
        async def stream() -> Any:
            seen = -1
            while True:
                with self._lock:
                    version, snap = self._version, self._snapshot
                if version != seen:
                    seen = version
                    yield {"event": "table", "data": json.dumps({**snap, "version": version})}
                    if snap.get("over"):
                        return
                if await request.is_disconnected():
                    return
                await asyncio.sleep(0.05)

        return EventSourceResponse(stream(), ping=15)

    async def _answer(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and origin.rstrip("/") not in (self.url.rstrip("/"), f"http://localhost:{self.port}"):
            return JSONResponse({"error": f"answers come from the table's own page, not {origin}"}, 403)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"error": "an answer is JSON (Content-Type: application/json)"}, 415)
        try:
            body = await request.json()
            seq = int(body["seq"])
            line = _command(body)
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "an answer is {seq, action, amount} or {seq, discard: [cards]}"}, 400)
        link = self._link
        # While a request waits for the person the referee sends the seat nothing: the view stands still.
        req = self.view.request
        if link is None or req is None or req.seq != seq:
            return JSONResponse({"error": "nothing to answer now (too late, or not your turn)"}, 409)
        try:
            reply = self.view.parse(line)
        except CommandError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        if not link.answer(reply):
            return JSONResponse({"error": "too late: the idle limit passed and the default action was played"}, 409)
        self.view.answered()
        self._publish()
        return JSONResponse({"ok": True})


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

