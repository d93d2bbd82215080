"""Conditional requests for the pages a class polls: an entity tag made from what a page shows, and the 304.

A polled page (the leaderboard, a student's page, the admin page, the final's report) computes its tag
from the few facts it is drawn from (the published board's file stamp, the session's person, the settings,
a student's versions...) before anything else; when the browser's ``If-None-Match`` holds that tag, the
answer is ``304 Not Modified`` with no query for the page's content and no template rendered. Every tagged
answer says ``Cache-Control: private, no-cache`` (the browser keeps the page but asks each time) and
``Vary: Cookie`` (the tag is the session's).

Source: RFC 9110 §8.8.3 (ETag, weak comparison) and §13.1.2 (If-None-Match); RFC 9111 §5.2.2.4 (no-cache).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Hashable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

#: Made once per server process and put in every tag: a restart (new templates, new code) changes every page.
PROCESS = os.urandom(6).hex()
#: What a tagged answer says about caching: kept by the browser (never by a shared cache), asked again each time.
CACHE_CONTROL = "private, no-cache"


def tag(*parts: Hashable) -> str:
    """A weak entity tag (``W/"<24 hex digits>"``) of ``parts`` (their ``repr``) and this server process.

    Two calls with equal parts in the same process give the same tag; any part that differs gives another
    (a 96-bit BLAKE2b digest).
    """
    digest = hashlib.blake2b(repr((PROCESS, parts)).encode("utf-8", "backslashreplace"), digest_size=12)
    return f'W/"{digest.hexdigest()}"'


def _opaque(text: str) -> str:
    """A tag's opaque part, for the weak comparison (``W/`` and surrounding blanks dropped)."""
    text = text.strip()
    return text[2:] if text.startswith("W/") else text


def matches(if_none_match: str | None, current: str) -> bool:
    """Whether an ``If-None-Match`` header value names ``current`` (weak comparison; ``*`` names any)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    want = _opaque(current)
    return any(_opaque(t) == want for t in if_none_match.split(","))


def not_modified(request: Request, current: str) -> Response | None:
    """The 304 answer when the request's ``If-None-Match`` names ``current``; None: the page must be made."""
    if not matches(request.headers.get("if-none-match"), current):
        return None
    return Response(status_code=304, headers=headers(current))


def headers(current: str) -> dict[str, str]:
    """The validator headers of a tagged answer (a 200 or its 304)."""
    return {"ETag": current, "Cache-Control": CACHE_CONTROL, "Vary": "Cookie"}


def tagged(response: Response, current: str) -> Response:
    """``response`` with the validator headers of ``current`` (:func:`headers`); kept as it is when its status is
    not 200 (an error page is not kept)."""
    if response.status_code == 200:
        for name, value in headers(current).items():
            response.headers[name] = value
    return response


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """``(mtime ns, size, inode)`` of ``path``: changes when the file is written or replaced (None: no file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino
