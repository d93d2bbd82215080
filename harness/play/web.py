"""``harness play --web``: the same match, played by clicking in a local web page.

A small ASGI app (starlette, served by uvicorn on 127.0.0.1 at a free port)
whose every route is under a secret (:func:`harness.play.guard.new_secret`):
the printed URL ``http://127.0.0.1:PORT/SECRET/`` is the page, and
``SECRET/state`` the table now (JSON,
:meth:`harness.play.table.TableView.snapshot`), ``SECRET/events`` the table
after every event as server-sent events, ``SECRET/static/...`` its script
and style, and ``POST SECRET/answer`` the person's decision. Any other
path, ``/state`` without the secret say, is 404: another user of this
machine, who can reach 127.0.0.1 too, can neither read the hole cards nor
answer. Every response carries :data:`harness.play.guard.PAGE_CSP`, and an
answer posted by another site's page is refused
(:class:`harness.play.guard.PageGuard`). An answer is checked by the same :func:`harness.play.table.parse_command`
as a typed command (a refused one is a 400 with the one-line reason), then
validated again by the referee like any reply. The table itself is a
:class:`harness.play.channel.TableChannel`, which the contest server serves too.
"""

from __future__ import annotations

import socket
import threading
import time
from importlib.resources import files

import uvicorn
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route

from harness.match.human import HumanLink
from harness.play.channel import TableChannel
from harness.play.guard import PageGuard, new_secret
from harness.play.table import TableView

__all__ = ["WebTable", "page_html", "static_response"]

_STATIC = files("harness.play") / "static"
_TYPES = {"play.js": "text/javascript", "play.css": "text/css"}


class WebTable:
    """The person's interface in the browser (see the module docstring): a :class:`TableChannel` served
    by its own server on this machine.

    Listens at once, so the URL (:attr:`url`, holding the secret) can be printed before the match starts.

    Args:
        port: TCP port on 127.0.0.1 (0: a free one).
        pace_ms: pause after each event of another seat, so the page can follow it (ms).

    Raises:
        OSError: the port cannot be bound.
    """

    def __init__(self, port: int = 0, pace_ms: int = 300) -> None:
        self.channel = TableChannel(pace_ms)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self._secret = new_secret()
        self.base = f"/{self._secret}/"
        #: The page's address, secret included: whoever has it sees the cards and answers.
        self.url = f"http://127.0.0.1:{self.port}{self.base}"
        # Only this machine's names reach the app (no DNS rebinding), every route is under the secret, and an
        # answer must come from the page itself: JSON (another site's form cannot send it) from this origin.
        app = Starlette(middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"]),
                                    Middleware(PageGuard)],
                        routes=[Mount(f"/{self._secret}", routes=[
                            Route("/", self._page),
                            Route("/static/{name}", self._static),
                            Route("/state", self._state),
                            Route("/events", self._events),
                            Route("/answer", self._answer, methods=["POST"]),
                        ])])
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        name="play-web", daemon=True)
        self._thread.start()

    @property
    def view(self) -> TableView:
        """The table as the person sees it."""
        return self.channel.view

    def __call__(self, link: HumanLink) -> None:
        """Follow the seat until the match is over (see :func:`harness.play.session.play_with_human`)."""
        self.channel(link)

    def close(self, grace_s: float = 0.5) -> None:
        """Let the page fetch the last table, then stop the server."""
        if self._thread.is_alive():
            time.sleep(grace_s)  # the event streams poll every 50 ms: the last table goes out meanwhile
        self._server.should_exit = True
        self._thread.join(5)
        self._sock.close()

    # ---- routes (the server's thread)

    async def _page(self, request: Request) -> Response:
        return HTMLResponse(page_html(base=self.base, static=f"{self.base}static/"))

    async def _static(self, request: Request) -> Response:
        return static_response(request.path_params["name"])

    async def _state(self, request: Request) -> Response:
        return JSONResponse(self.channel.state())

    async def _events(self, request: Request) -> Response:
        return EventSourceResponse(self.channel.events(request.is_disconnected), ping=15)

    async def _answer(self, request: Request) -> Response:
        status, payload = self.channel.answer_json(request.headers.get("content-type", ""), await request.body())
        return JSONResponse(payload, status)


def page_html(base: str = "/", static: str = "/static/", footer: str = "") -> str:
    """The table's page: ``base`` is where its ``state``/``events``/``answer`` routes are, ``static`` where
    ``play.js``/``play.css`` are; ``footer`` (trusted HTML) goes at the end of the body."""
    html = (_STATIC / "play.html").read_text(encoding="utf-8")
    html = html.replace('data-base="/"', f'data-base="{base}"').replace('"/static/', f'"{static}')
    return html.replace("</body>", footer + "</body>")


def static_response(name: str) -> Response:
    """``play.js`` or ``play.css`` (404 for any other name)."""
    if name not in _TYPES:
        return PlainTextResponse("not found", status_code=404)
    return Response((_STATIC / name).read_text(encoding="utf-8"), media_type=_TYPES[name])
