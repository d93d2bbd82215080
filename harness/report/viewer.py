"""The table viewer's data and files: one component (``static/table-viewer.js`` and ``.css``) for the
report's hand viewer, the single-file replay of ``harness replay MATCH_DIR --html FILE`` and any
other page that shows hands (a live page, a contest server).

To embed it: serve or inline the two files, then in the page::

    <div id="viewer"></div>
    <script src="table-viewer.js"></script>
    <script>SevenDrawViewer.mount(document.getElementById("viewer"), {hands: HANDS});</script>

where ``HANDS`` is a list of :func:`viewer_view` dicts (JSON). Options and methods are listed at
the top of ``table-viewer.js``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from harness.engine.cards import parse_cards
from harness.engine.evaluator import best_hand
from harness.specs import MatchSpec

#: The component's files, in ``harness/report/static/``.
STATIC_FILES = ("table-viewer.js", "table-viewer.css")


def viewer_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """A hand view (:func:`harness.report.hands.hand_view`, with steps) as the viewer reads it: the view plus
    ``categories``, each player's best five's category after the draw (R5.2; "" without 7 cards), for search."""
    out = dict(view)
    out["categories"] = [best_hand(parse_cards(cards)).label if len(cards) >= 5 else ""
                         for cards in view.get("final") or []]
    return out


#: What a step keeps of a seat whose cards are hidden: everything but the cards of a draw (R4.3: counts only).
_PUBLIC_STEP = ("seat", "action", "phase", "by", "fault", "added", "to", "owed", "all_in", "count", "pot", "stacks")


def hide_cards(view: Mapping[str, Any], *, seen: Iterable[int] = (), shown: bool = True,
               fault_details: bool = True) -> dict[str, Any]:
    """A viewer hand view (:func:`viewer_view`) with the cards of every seat not in ``seen`` taken out, for a
    page that may not show them: their ``hole``/``final`` slots become ``None`` (the viewer draws them face
    down), their draws keep only the count (R4.3), their ``categories`` are emptied.

    Args:
        view: a viewer hand view.
        seen: the positions in the view (0..n-1, not match seats) whose cards stay.
        shown: keep ``shown``, the five cards each player showed down (R5.7; public once the hand is over), and
            their categories; False empties it (the cards of nobody).
        fault_details: keep each fault's ``detail`` (which may name a card); False empties those of hidden seats.
    """
    keep = set(seen)
    out = dict(view)
    n = len(view["bots"])
    out["hole"] = [list(c) if k in keep else [None] * len(c) for k, c in enumerate(view["hole"])]
    out["final"] = [list(c) if k in keep else [None] * len(c) for k, c in enumerate(view["final"])]
    out["steps"] = [dict(s) if s["seat"] in keep else {k: s[k] for k in _PUBLIC_STEP if k in s}
                    for s in view["steps"]]
    out["shown"] = [dict(x) for x in view["shown"]] if shown else []
    shown_at = {x["seat"]: x["category"] for x in out["shown"]}
    categories = list(view.get("categories") or [""] * n)
    out["categories"] = [categories[k] if k in keep else shown_at.get(k, "") for k in range(n)]
    if not fault_details:
        out["faults"] = [f if f["seat"] in keep else dict(f, detail="") for f in view["faults"]]
    return out


def static_text(name: str) -> str:
    """The text of one of the report's static files (``harness/report/static/<name>``)."""
    return resources.files("harness.report").joinpath("static", name).read_text(encoding="utf-8")


def script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<`` at all (written ``\\u003c``, the same string to
    a JSON reader), so neither ``</script>`` nor ``<!--`` (which would make the element swallow the page) can
    appear whatever the strings hold (HTML Living Standard, "restrictions for contents of script elements")."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


#: The id ``harness match`` gives its match (no id of its own).
DEFAULT_MATCH_ID: str = str(MatchSpec.__dataclass_fields__["match_id"].default)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def replay_title(match_id: str, bots: Sequence[str]) -> str:
    """The title of one match's replay page: ``"caller vs raiser"``, then ``", match r0-t1"`` when the match has
    an id of its own (``harness match`` gives every match the default id, ``"match"``: :class:`MatchSpec`)."""
    players = " vs ".join(bots)
    return players if match_id in ("", DEFAULT_MATCH_ID) else f"{players}, match {match_id}"


def replay_html(hands: Iterable[Mapping[str, Any]], *, title: str, note: str = "") -> str:
    """One self-contained HTML page with the viewer over ``hands`` (hand views of one match, listed as
    "hand N"): data, script and styles
    inline, nothing fetched. Its Content-Security-Policy (W3C CSP Level 3) allows only its own two
    scripts (by SHA-256) and inline styles, and no connection of any kind.

    Args:
        hands: hand views with steps, in order.
        title: the page's title and heading (escaped).
        note: a line under the heading (escaped).
    """
    data = script_json([viewer_view(h) for h in hands])
    component = static_text("table-viewer.js")
    boot = ('SevenDrawViewer.mount(document.getElementById("viewer"), '
            '{hands: JSON.parse(document.getElementById("hands-data").textContent), oneMatch: true});')
    csp = (f"default-src 'none'; script-src {_sha256(component)} {_sha256(boot)}; style-src 'unsafe-inline'; "
           "img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'")
    css = static_text("report.css") + static_text("table-viewer.css")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{html.escape(csp)}\">\n"
        f"<title>{html.escape(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{html.escape(title)}</h1>\n<p class=\"explain\">{html.escape(note)}</p>\n"
        "<div id=\"viewer\"></div>\n"
        f"<script type=\"application/json\" id=\"hands-data\">{data}</script>\n"
        f"<script>{component}</script>\n<script>{boot}</script>\n</main>\n</body>\n</html>\n"
    )
