"""``harness watch DIR``: follow a match or a tournament in the browser as its hands are played.

:class:`Follower` reads the hand histories of DIR as they grow (a match
folder's ``hands.jsonl`` / ``hands.jsonl.gz``, or a tournament's published
``matches/*/``; never ``.private/``, whose tables are not revealed yet) and
turns each finished hand into what a spectator is sent (:func:`hand_script`):
the hand as the report's table viewer reads it twice, once with every card
taken out (:func:`public_view`: stacks, bets, pot, cards drawn as counts,
R4.3), played back step by step, and once whole (the cards, the showdown,
R5.7, the pots and the net), shown at the playback's end. Records are
written only once a hand is over, so a spectator sees hole cards only after
the hand has ended and can never help a seat.

The page (``static/watch.html``/``watch.js``) draws the table with the
report's component (``harness/report/static/table-viewer.js`` and ``.css``,
served from the report's package as they are), adding each hand as it comes.

:class:`WatchServer` serves the page (starlette + uvicorn on 127.0.0.1, a free
port) and sends every new hand and the standings to each browser as
server-sent events; any number of browsers can watch at once. Every route is
under a secret (:func:`harness.play.guard.new_secret`) that the printed URL
holds: another user of this machine can reach 127.0.0.1 but not the page, its
files, its standings or its event stream (404), and every response carries
:data:`harness.play.guard.PAGE_CSP`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

import uvicorn
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route

from harness.history.files import HistoryError, find_history, records_or_problems
from harness.play.guard import PageGuard, new_secret
from harness.report.hands import hand_view
from harness.report.viewer import hide_cards, static_text, viewer_view
from harness.specs import SettingsError
from harness.tournament.stats import bb_per_100

__all__ = ["Follower", "WatchServer", "hand_script", "public_view"]

_STATIC = files("harness.play") / "static"
_TYPES = {"watch.js": "text/javascript", "play.css": "text/css"}
#: The report's table viewer component (harness/report/static), served as it is.
_VIEWER = {"table-viewer.js": "text/javascript", "table-viewer.css": "text/css"}
#: How often the histories are looked at (s).
POLL_S = 0.5
#: Hands a browser that connects is sent from the past (the chip graph takes the current match's nets).
_BACKLOG = 1


def public_view(view: dict[str, Any]) -> dict[str, Any]:
    """A viewer hand view (:func:`harness.report.viewer.viewer_view`) with every card taken out: what the table
    showed while the hand was played (stacks, bets, pot, cards drawn as counts, R4.3;
    :func:`harness.report.viewer.hide_cards` of every seat, showdowns and fault details, which may name a card,
    included). The pots are emptied too (the hand list would tell them early); the nets are kept (the viewer
    shows them only at the hand's end). ``public`` is True."""
    out = hide_cards(view, seen=(), shown=False, fault_details=False)
    out["pots"] = []
    out["returned"] = []
    out["public"] = True
    return out


def hand_script(record: dict[str, Any], index: int) -> dict[str, Any]:
    """What a spectator is sent of one finished hand (see the module docstring).

    Args:
        record: a hand record (docs/HISTORY.md).
        index: the hand's place in the order the follower read hands (0, 1, ...).

    Returns:
        ``{index, match_id, hand_id, hands, bots, big_blind, nets, public, end}``: ``public`` is the hand
        without a card (:func:`public_view`), played back first; ``end`` the whole hand
        (:func:`harness.report.viewer.viewer_view`), shown once the playback reaches the hand's end. Chips in
        chips; ``nets`` maps bot name to net chips.
    """
    full = viewer_view(hand_view(record))
    full["index"] = index
    public = public_view(full)
    game = record["game"]
    return {
        "index": index,
        "match_id": record["match_id"],
        "hand_id": record["hand_id"],
        "hands": record["match"]["hands"],
        "bots": record["match"]["bots"],
        "big_blind": game.get("big_blind") or game.get("min_bet") or 1,
        "nets": dict(zip(full["bots"], full["net"], strict=True)),
        "public": public,
        "end": full,
    }


class _Source:
    """One hand history being followed: read up to its last complete record, again when it grows.

    Only the file's last line, without its final newline, can be a line still being written: reading waits
    there, until the match is finished. Any other damaged line is a notice (once, naming the file, the line
    and the problem), and the hands after it are read when the file allows, or the notice says reading stops
    there.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = -1
        self.finished = False
        self.count = 0
        self.told: set[str] = set()

    def new_records(self) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
        """The ``(line, record)`` added since the last call, and the notices not given yet (one line each).

        Once the match is finished (its folder holds ``result.json``, written after the last hand), a last line
        cut off will never be completed: it is a notice too.
        """
        try:
            size = self.path.stat().st_size
        except OSError:
            return [], []
        finished = (self.path.parent / "result.json").exists()
        if size == self.size and finished == self.finished:
            return [], []
        self.size = size
        self.finished = finished
        records: list[tuple[int, dict[str, Any]]] = []
        notices: list[str] = []
        try:
            for line, item in records_or_problems(self.path):
                if isinstance(item, HistoryError):
                    if not item.at_end:
                        notices.append(f"{item}; {item.then()}")
                    elif finished:  # else a line still being written, read next time
                        notices.append(f"{item}; the match is finished, so it will not be completed")
                    continue
                records.append((line, item))
        except OSError as exc:
            notices.append(f"cannot read {self.path}: {exc.strerror or exc}; the hands read so far are shown")
        fresh = records[self.count:]
        self.count = len(records)
        new = [n for n in notices if n not in self.told]
        self.told.update(new)
        return fresh, new


class Follower:
    """The hands of DIR in the order they were read, as public scripts, and the standings.

    A damaged line of a history (not the last line still being written) is a notice, kept in ``notices``
    and passed to ``notify`` once: one line naming the file, the line and what is wrong.

    Args:
        directory: a match folder (``harness match``/``harness play --out``) or a tournament's output.
        notify: called with each new notice (from the thread that polls).

    Raises:
        SettingsError: DIR holds neither a hand history nor a ``matches/`` folder (the message says which).
    """

    def __init__(self, directory: Path, notify: Callable[[str], None] | None = None) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise SettingsError(f"{directory} is not a directory")
        d = self.directory
        self.single = find_history(d) is not None or (d / "logs").is_dir()
        if not self.single and not (d / "matches").is_dir() and not (d / "tournament.json").exists():
            raise SettingsError(f"{directory} holds no hand history (hands.jsonl) and no matches/ folder: "
                             "give a match's folder or a tournament's output directory")
        self.sources: dict[Path, _Source] = {}
        self.hands: list[dict[str, Any]] = []
        self.totals: dict[str, dict[str, Any]] = {}
        self.notices: list[str] = []
        self._notify = notify
        self._lock = threading.Lock()

    def poll(self) -> int:
        """Read what is new; return how many hands were added."""
        paths: list[Path] = []
        if self.single:
            found = find_history(self.directory)
            paths = [found] if found is not None else []
        else:  # only published matches: .private/ holds tables whose deals are still secret
            for match_dir in sorted((self.directory / "matches").glob("*")):
                found = find_history(match_dir)
                if found is not None:
                    paths.append(found)
        added = 0
        for path in paths:
            source = self.sources.setdefault(path, _Source(path))
            records, notices = source.new_records()
            for notice in notices:
                self._tell(notice)
            for line, record in records:
                with self._lock:
                    try:
                        script = hand_script(record, len(self.hands))
                    except (KeyError, TypeError, ValueError, IndexError) as exc:  # a record no viewer can draw
                        self._tell(f"{path} line {line}: a hand record the viewer cannot show "
                                   f"({type(exc).__name__}: {exc}); skipped", locked=True)
                        continue
                    self.hands.append(script)
                    for name, net in script["nets"].items():
                        row = self.totals.setdefault(name, {"bot": name, "net": 0, "hands": 0, "bb": 0.0})
                        row["net"] += net
                        row["hands"] += 1
                        row["bb"] += net / script["big_blind"]  # in big blinds: bb/100 over every blind size
                added += 1
        return added

    def _tell(self, notice: str, locked: bool = False) -> None:
        if locked:
            self.notices.append(notice)
        else:
            with self._lock:
                self.notices.append(notice)
        if self._notify is not None:
            self._notify(notice)

    def notices_since(self, start: int) -> list[str]:
        """The notices from the ``start``-th on."""
        with self._lock:
            return self.notices[start:]

    def standings(self) -> list[dict[str, Any]]:
        """Every bot seen: net chips, hands played, bb/100 (big blinds won per 100 hands), best first."""
        with self._lock:
            rows = [{"bot": r["bot"], "net": r["net"], "hands": r["hands"],
                     "bb100": round(bb_per_100(r["bb"], 1, r["hands"]), 1) if r["hands"] else 0.0}
                    for r in self.totals.values()]
        return sorted(rows, key=lambda r: -r["bb100"])

    def since(self, start: int) -> list[dict[str, Any]]:
        with self._lock:
            return self.hands[start:]

    def graph(self, match_id: str) -> list[dict[str, int]]:
        """The nets of every hand of one match read so far (the chip graph's points)."""
        with self._lock:
            return [h["nets"] for h in self.hands if h["match_id"] == match_id]


class WatchServer:
    """Serves the spectator page for DIR (see the module docstring); stop with :meth:`close`.

    Args:
        follower: what to follow.
        port: TCP port on 127.0.0.1 (0: a free one).
        present: the page opens in the presenter view (large, full screen, advancing by itself).

    Raises:
        OSError: the port cannot be bound.
    """

    def __init__(self, follower: Follower, port: int = 0, present: bool = False) -> None:
        self.follower = follower
        self.present = present
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        secret = new_secret()
        #: The page's address, secret included (the page's own links are relative to it).
        self.url = f"http://127.0.0.1:{self.port}/{secret}/" + ("?present=1" if present else "")
        app = Starlette(middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"]),
                                    Middleware(PageGuard)],
                        routes=[Mount(f"/{secret}", routes=[
                            Route("/", self._page),
                            Route("/static/plotly.js", self._plotly),
                            Route("/static/{name}", self._static),
                            Route("/standings", self._standings),
                            Route("/events", self._events),
                        ])])
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
        self._poller = threading.Thread(target=self._poll, name="watch-poll", daemon=True)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        name="watch-web", daemon=True)
        follower.poll()
        self._poller.start()
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.wait(POLL_S):
            self.follower.poll()

    def wait(self) -> None:
        """Serve until Ctrl-C (KeyboardInterrupt is raised to the caller)."""
        while self._thread.is_alive():
            self._thread.join(0.5)

    def close(self) -> None:
        self._stop.set()
        self._server.should_exit = True
        self._thread.join(5)
        self._sock.close()

    async def _page(self, request: Request) -> Response:
        return HTMLResponse((_STATIC / "watch.html").read_text(encoding="utf-8"))

    async def _plotly(self, request: Request) -> Response:
        from plotly.offline import get_plotlyjs

        return Response(get_plotlyjs(), media_type="text/javascript", headers={"Cache-Control": "max-age=3600"})

    async def _static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name in _VIEWER:
            return Response(static_text(name), media_type=_VIEWER[name])
        if name not in _TYPES:
            return PlainTextResponse("not found", status_code=404)
        return Response((_STATIC / name).read_text(encoding="utf-8"), media_type=_TYPES[name])

    async def _standings(self, request: Request) -> Response:
        return JSONResponse({"standings": self.follower.standings(), "hands": len(self.follower.hands),
                             "notices": self.follower.notices_since(0)})

    async def _events(self, request: Request) -> Response:
        follower = self.follower

        async def stream() -> Any:
            hands = follower.since(0)
            start = max(0, len(hands) - _BACKLOG)
            graph = follower.graph(hands[-1]["match_id"]) if hands else []
            notices = follower.notices_since(0)
            yield {"event": "hello", "data": json.dumps({
                "directory": str(follower.directory), "tournament": not follower.single,
                "graph": graph[: max(0, len(graph) - _BACKLOG)],
                "standings": follower.standings(), "present": self.present, "notices": notices,
            })}
            sent = start
            told = len(notices)
            while not self._stop.is_set():
                for notice in follower.notices_since(told):
                    told += 1
                    yield {"event": "notice", "data": json.dumps(notice)}
                fresh = follower.since(sent)
                for hand in fresh:
                    yield {"event": "hand", "data": json.dumps(hand)}
                if fresh:
                    sent += len(fresh)
                    yield {"event": "standings", "data": json.dumps(follower.standings())}
                if await request.is_disconnected():
                    return
                await asyncio.sleep(0.2)

        return EventSourceResponse(stream(), ping=15)

