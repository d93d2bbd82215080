"""Shared by browser test modules: ARTIFACTS, CHROMIUM_FLAGS, LOCAL_URL, require_chromium, play_passively."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, NoReturn

from tests.skip_helpers import skip_loudly as skip_loudly_with

ROOT = Path(__file__).resolve().parents[1]


ARTIFACTS = ROOT / "test-artifacts"


#: The line ``harness play --web`` and ``harness watch`` print: group 1 is the page's URL, its secret included.
LOCAL_URL = re.compile(r"open (http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{32}/)")


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium",
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def skip_loudly(reason: str) -> NoReturn:
    message = (f"BROWSER TEST NOT RUN: {reason}. Install Debian's chromium (apt-get install -y chromium), "
               "as make test does when run as root.")
    skip_loudly_with(message)


def require_chromium() -> str:
    """Debian's chromium executable, with the playwright package importable; else skip loudly."""
    executable = chromium_path()
    if executable is None:
        skip_loudly("no chromium executable found")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        skip_loudly("the playwright Python package is not installed (pip install -e '.[test]')")
    return executable


def play_passively(page: Any, pause_ms: int = 100, over_ms: int = 600_000) -> None:
    """At the table of ``harness play --web`` (or a server game): check, call or stand pat until the
    match is over (``#over``), looking every ``pause_ms``; ``over_ms`` is an outer limit only (a loaded
    machine plays the bots' turns slowly: the wait is for the end itself, never for a number of steps)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + over_ms / 1000
    while not page.locator("#over").count():
        assert time.monotonic() < deadline, f"the match was not over within {over_ms} ms"
        passive = page.locator("#controls button.passive")
        if passive.count():
            try:
                passive.first.click(timeout=10_000)
            except PlaywrightTimeout:  # the button went away (the bots' turn, the hand's end): look again
                pass
        page.wait_for_timeout(pause_ms)


def wrong_secrets(root: str, secret: str) -> list[str]:
    """Bases that must not open a secret URL: one character changed (never to itself: a secret may end in
    "x") and the case swapped; ``root`` ends in "/", each base too."""
    other = "y" if secret.endswith("x") else "x"
    wrong = [f"{root}{secret[:-1]}{other}/", f"{root}{secret.swapcase()}/"]
    assert all(w != f"{root}{secret}/" for w in wrong), wrong
    return wrong


def launch_browser(pw: Any, executable: str, profile: Path, *, extra: list[str] | None = None,
                   size: tuple[int, int] = (1100, 800)) -> Any:
    """A headless Chromium (Playwright's persistent context) with the project's flags (:data:`CHROMIUM_FLAGS`
    and ``extra``), its profile in ``profile`` and a ``size`` viewport (width, height in pixels)."""
    return pw.chromium.launch_persistent_context(profile, executable_path=executable,
                                                 args=CHROMIUM_FLAGS + (extra or []),
                                                 viewport={"width": size[0], "height": size[1]})
