"""``harness submit``: send a version to a contest server and wait for its admission check.

Exit status: 0 admitted, 1 refused (the reason and the stderr tail are printed),
2 a usage or connection problem.
"""

from __future__ import annotations

import io
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.errors import HarnessError
from harness.match.untrusted import QUOTE, visible

#: Seconds between two looks at the version's state, and the longest wait (seconds).
POLL_S = 0.5
WAIT_S = 600.0


class SubmitError(HarnessError, RuntimeError):
    """The server could not be reached or answered with an error (one line)."""


def _payload(path: Path) -> tuple[str, bytes]:
    """A folder as a .tar.gz made here; a file as itself."""
    if path.is_dir():
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for item in sorted(path.iterdir()):
                if item.name in (".git", "__pycache__", ".venv"):
                    continue
                tar.add(item, arcname=item.name, filter=lambda t: None if t.issym() or t.islnk() else t)
        return f"{path.name or 'bot'}.tar.gz", buf.getvalue()
    return path.name, path.read_bytes()


def submit(server: str, token: str, path: Path, command: str = "", build: str = "", *,
           wait_s: float = WAIT_S, say: Callable[[str], object] = print) -> bool:
    """Upload ``path`` (a folder, an archive or a file) and wait for its admission check.

    Returns:
        True when the version is admitted, False when it is refused.

    Raises:
        SubmitError: the server cannot be reached, refuses the token or the upload's form.
    """
    import httpx

    name, data = _payload(path)
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    base = server.rstrip("/")
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            answer = client.post("/submit", files={"file": (name, data)},
                                 data={"command": command, "build": build})
            if answer.status_code == 401:
                raise SubmitError("the server does not know this token (use the one of your login link)")
            body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
            if answer.status_code >= 400:
                if "error" in body:
                    say(visible(str(body["error"])))
                    return False
                raise SubmitError(f"the server answered {answer.status_code}: {visible(answer.text[:200])}")
            if body.get("notice"):  # this bot was submitted before: no new version
                say(visible(str(body["notice"])))
            else:
                say(f"submitted {visible(str(body['bot']))} ({visible(name)}, {len(data):,} bytes); "
                    "waiting for the admission check...")
            deadline = time.monotonic() + wait_s
            while body["state"] == "checking":
                if time.monotonic() > deadline:
                    raise SubmitError(f"no admission result after {wait_s:g} s; see {base}{visible(str(body['url']))}")
                time.sleep(POLL_S)
                body = client.get(f"/api/versions/{body['id']}").json()
    except httpx.HTTPError as exc:
        raise SubmitError(f"cannot reach {base}: {exc}") from None
    if body["state"] == "admitted":
        say(f"admitted: {visible(str(body['bot']))} is now your active version ({base}{visible(str(body['url']))})")
        return True
    say(f"refused: {visible(str(body['reason']))}")
    for line in (body.get("stderr_tail") or "").splitlines():
        say(f"  {QUOTE}{visible(line)}")
    say(f"your active version is unchanged; details: {base}{visible(str(body['url']))}")
    return False
