"""What every page the harness serves over HTTP sends and checks (the contest server, ``harness play --web``,
``harness watch``): a Content-Security-Policy and its companions on every response, writes from the page's
own origin only, and, for the pages served on this machine, a secret in the URL.

The policy (W3C CSP Level 3) lets a page run only scripts served by itself as files: no inline script, no
inline event handler, no ``eval``, no connection or form to another host, no ``<base>``, no framing. So text
a student or a bot controls that slipped unescaped into a page still could not run.

A request that can change state (any method but GET, HEAD and OPTIONS) is refused (403) when a browser says
it comes from another origin: by Fetch Metadata (``Sec-Fetch-Site``, W3C Fetch Metadata Request Headers)
where the browser sends it, else by ``Origin`` (RFC 6454) against the ``Host`` the request was sent to. A
request with neither header (``harness submit``, curl) was not sent by a browser on another site's behalf:
it is let through, to its route's own authentication. Cookies' SameSite attribute is not relied upon.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["PAGE_CSP", "PageGuard", "foreign_origin", "new_secret"]

#: The Content-Security-Policy of every response (see the module docstring). plotly.js draws with inline
#: styles and data: images, hence those two; EventSource and fetch go to the page's own origin only.
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
            "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
_HEADERS = [
    (b"content-security-policy", PAGE_CSP.encode()),
    (b"x-content-type-options", b"nosniff"),  # a text/plain log is never read as HTML or script
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers without CSP Level 2
    (b"referrer-policy", b"same-origin"),  # a URL holding a secret never leaves in a Referer
]
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_secret() -> str:
    """A secret for a local page's URL: 192 random bits, URL-safe base64 (32 characters)."""
    return secrets.token_urlsafe(24)


def foreign_origin(method: str, headers: dict[str, str]) -> str | None:
    """Where a request that can change state comes from, when a browser says it is another origin; else None.

    Args:
        method: the HTTP method.
        headers: the request's headers, names in lower case.

    Returns:
        None for GET/HEAD/OPTIONS, for the page's own origin, and for a request no browser sent on a page's
        behalf (neither ``Sec-Fetch-Site`` nor ``Origin``); else the other origin as the browser named it.
    """
    if method.upper() in _SAFE_METHODS:
        return None
    site = headers.get("sec-fetch-site")
    origin = headers.get("origin")
    if site is not None:  # Fetch Metadata: "none" is the person typing the URL or using a bookmark
        return None if site in ("same-origin", "none") else (origin or f"a {site} page")
    if origin is None:
        return None
    hosts = {headers.get("host", ""), headers.get("x-forwarded-host", "")} - {""}
    return None if origin != "null" and urlsplit(origin).netloc in hosts else origin


class PageGuard:
    """ASGI middleware: the headers of the module docstring on every HTTP response (a header the route set
    itself, e.g. a stricter Referrer-Policy, is kept), and 403 for a write from another origin
    (:func:`foreign_origin`)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        foreign = foreign_origin(scope["method"], headers)

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [h for h in _HEADERS if h[0] not in have]
            await send(message)

        if foreign is not None:
            body = (f"refused: this request came from another site ({foreign}); use the page's own forms and "
                    "buttons.").encode()
            await send_guarded({"type": "http.response.start", "status": 403,
                                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                            (b"content-length", str(len(body)).encode())]})
            await send_guarded({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send_guarded)
