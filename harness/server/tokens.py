"""Login tokens: random secrets in login links, stored only as their SHA-256.

A token is 32 random bytes (URL-safe base64, :func:`secrets.token_urlsafe`):
far too many to guess, so one unsalted SHA-256 is enough to keep a copy of the
database from opening sessions (as GitHub's personal access tokens are stored).
"""

from __future__ import annotations

import hashlib
import secrets

TOKEN_BYTES = 32


def new_token() -> str:
    """A fresh token (43 URL-safe characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """The stored form of a token: SHA-256, 64 hex digits."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
