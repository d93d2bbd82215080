"""``harness submit`` shows what a server sends back (a refusal's reason, a bot's stderr tail) escaped: a
bot's traceback can hold terminal escapes and bidi marks, which must not rewrite the author's terminal
nor pass for the harness's own lines. The server here is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.server.client import submit

HOSTILE = "boom\x1b[2J\x1b]0;pwned\x07 \u202eevil\u202c"


class _Answers(BaseHTTPRequestHandler):
    def _json(self, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers["Content-Length"]))
        self._json({"bot": "b\x1bot", "state": "refused", "reason": HOSTILE,
                    "stderr_tail": "line one\nharness: forged\x1b[1A", "url": "/v/1\x1b"})

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_a_refusal_is_shown_escaped(server: str, tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print('hi')\n")
    lines: list[str] = []
    assert submit(server, "token", bot, say=lines.append) is False
    shown = "\n".join(lines)
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "refused: boom\\x1b[2J" in shown
    assert "\\u202eevil" in shown
    # the bot's stderr stays quoted as the bot's: no line of it passes for the harness
    assert "  | harness: forged\\x1b[1A" in lines
