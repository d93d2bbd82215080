"""The one adapter between hand histories and the report.

Everything in :mod:`harness.report` reads a hand through :func:`hand_view`;
a new hand-history format (or version) only needs this module to change.

A hand view is JSON-ready (it is embedded in the HTML report as data)::

    {"match_id": str, "hand_id": int, "bots": [name by hand seat],
     "button": hand seat, "structure": "no-limit"|"fixed-limit",
     "small_blind": chips, "big_blind": chips, "ante": chips,
     "stacks": [chips at the start, by hand seat],
     "hole": [[card, ...] dealt, by hand seat], "final": [[card, ...] after the draw],
     "steps": [step, ...],                 # every event in order, blinds and antes first
     "shown": [{"seat", "five": [cards], "category": "two pair"}, ...],
     "pots": [{"amount", "eligible": [seats], "winners": [seats], "shares": [chips]}],
     "returned": [{"seat", "amount"}],     # unmatched chips handed back (R3.9)
     "net": [chips by hand seat], "final_stacks": [chips],
     "faults": [{"seat", "bot", "kind", "detail", "decision": index in steps or None}],
     "timings": [[hand seat, ms], ...]}

    step = {"seat", "action": "ante"|"small_blind"|"big_blind"|"fold"|"check"|"call"|"bet"|"raise"|"draw",
            "added": chips put in by this step, "to": the seat's total bet this round after it,
            "pot": chips in the pot after it, "stacks": [chips behind by seat after it],
            "phase": "bet1"|"draw"|"bet2", "all_in": bool,
            "by": "post"|"bot"|"fault"|"out"|"unsent"|None,   # who decided (None: version 1 does not say)
            "fault": kind of the fault a default action answers, or None,
            "discards": [cards], "received": [cards]}      # draws only (discards/received may be
                                                           # absent from a format that hides them)

Seats in a view are positions 0..n-1 among the players dealt in (``seats``
gives each one's match seat); ``decision`` of a fault indexes ``steps``.

Source: the hand-history format (docs/HISTORY.md), every version:
record_version 2 (``players``, ``posts``, ``actions`` with ``added``/``to``/``by``,
``returned``), and 1 (the engine's record plus the referee's keys: ``history``
holds the public events, bet/raise ``amount`` the "to" total and call
``amount`` the chips added; ``actions`` the same decisions with the draw's cards).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harness.history.files import read_history

POSTS = ("ante", "small_blind", "big_blind")


def read_hand_records(path: Path) -> Iterator[dict[str, Any]]:
    """The raw hand records of a hand history file (plain or gzip), in file order, for :func:`hand_view`.

    Raises:
        harness.history.files.HistoryError: the file is not a hand history.
    """
    return read_history(path)


def read_hand_views(path: Path) -> Iterator[dict[str, Any]]:
    """Every hand of a hand history file as a view (:func:`hand_view`), in file order.

    Raises:
        harness.history.files.HistoryError: the file is not a hand history.
    """
    for record in read_history(path):
        yield hand_view(record)


def hand_view(record: Mapping[str, Any], *, steps: bool = True) -> dict[str, Any]:
    """Turn one hand record into the report's hand view (see the module docstring).

    Args:
        record: one line of a hand history.
        steps: build ``steps`` (the viewer's); False leaves it empty, for
            statistics over every hand (faults, timings, pots, shown hands) at a fraction of
            the cost; ``hole`` and ``final`` are then empty too.

    Raises:
        KeyError, ValueError: a record without the fields of a hand history.
    """
    if record.get("record_version") == 2:
        return _view_v2(record, steps)
    config = record.get("config") or {}
    n = len(record["stacks"])
    bots = list(record.get("bots") or [f"seat {s}" for s in range(n)])
    stacks = list(record["stacks"])
    behind = list(stacks)
    bets = [0] * n
    pot = 0
    phase = "bet1"
    detailed = iter(record.get("actions") or [])
    steps_: list[dict[str, Any]] = []
    for event in (record.get("history") or []) if steps else []:
        seat = int(event["seat"])
        kind = str(event["action"])
        step: dict[str, Any] = {"seat": seat, "action": kind, "added": 0, "all_in": bool(event.get("all_in")),
                                "by": None, "fault": None}
        if kind not in POSTS:
            detail = next(detailed, None)
            if detail is not None and (detail.get("seat") != seat or detail.get("action") != kind):
                detail = None  # out of step: show the public event only
        else:
            detail = None
        if kind == "draw":
            if phase != "draw":
                phase, bets = "draw", [0] * n
            step["count"] = int(event.get("count", 0))
            if detail is not None:
                step["discards"] = list(detail.get("discards") or [])
                step["received"] = list(detail.get("received") or [])
        else:
            if phase == "draw":
                phase = "bet2"
            amount = int(event.get("amount") or 0)
            if kind in ("bet", "raise"):
                added = amount - bets[seat]
            elif kind in POSTS or kind == "call":
                added = amount
            else:
                added = 0
            bets[seat] += added
            behind[seat] -= added
            pot += added
            step["added"] = added
        step["to"] = bets[seat]
        step["pot"] = pot
        step["stacks"] = list(behind)
        step["phase"] = phase
        steps_.append(step)
    returned = [{"seat": int(u["seat"]), "amount": int(u["amount"])} for u in record.get("uncalled") or []
                if isinstance(u, Mapping)]
    faults = []
    for fault in record.get("faults") or []:
        seat = int(fault["seat"])
        faults.append({
            "seat": seat,
            "bot": bots[seat] if 0 <= seat < len(bots) else f"seat {seat}",
            "kind": str(fault.get("kind", "")),
            "detail": str(fault.get("detail", "")),
            "decision": fault.get("action_index"),
        })
    return {
        "match_id": record.get("match_id", ""),
        "hand_id": int(record["hand_id"]),
        "bots": bots,
        "seats": list(record.get("match_seats") or range(n)),
        "button": int(record.get("button", 0)),
        "structure": str(config.get("structure", "")),
        "small_blind": int(config.get("small_blind") or 0),
        "big_blind": int(config.get("big_blind") or 0),
        "ante": int(config.get("ante") or 0),
        "stacks": stacks,
        "hole": [list(cards) for cards in record.get("hole_cards") or [[] for _ in range(n)]] if steps else [],
        "final": [list(cards) for cards in record.get("final_cards") or record.get("hole_cards") or []]
        if steps else [],
        "steps": steps_,
        "shown": [{"seat": int(s["seat"]), "five": list(s.get("five") or []), "category": str(s.get("category", ""))}
                  for s in record.get("shown") or []],
        "pots": [{"amount": int(p["amount"]), "eligible": list(p.get("eligible") or []),
                  "winners": list(p.get("winners") or []), "shares": list(p.get("shares") or [])}
                 for p in record.get("pots") or []],
        "returned": returned,
        "net": [int(x) for x in record.get("net") or [0] * n],
        "final_stacks": [int(x) for x in record.get("final_stacks") or stacks],
        "faults": faults,
        "timings": [[int(s), float(ms)] for s, ms in record.get("timings_ms") or []],
    }


def _view_v2(record: Mapping[str, Any], steps: bool) -> dict[str, Any]:
    """:func:`hand_view` of a version-2 record (docs/HISTORY.md): chips come straight from the record."""
    players = record["players"]
    seats = [int(p["seat"]) for p in players]
    pos = {m: k for k, m in enumerate(seats)}
    game = record.get("game") or {}
    bots = [str(p["bot"]) for p in players]
    stacks = [int(p["stack"]) for p in players]
    faults = record.get("faults") or []
    n_posts = len(record.get("posts") or [])
    steps_: list[dict[str, Any]] = []
    if steps:
        behind = list(stacks)
        pot = 0
        for post in record.get("posts") or []:
            k = pos[post["seat"]]
            chips = int(post["chips"])
            behind[k] -= chips
            pot += chips
            steps_.append({"seat": k, "action": post["kind"], "added": chips,
                           "to": chips if post["kind"] != "ante" else 0,  # antes are dead money (R2.4)
                           "pot": pot, "stacks": list(behind), "phase": "bet1", "all_in": bool(post["all_in"]),
                           "by": "post", "fault": None})
        for action in record["actions"]:
            k = pos[action["seat"]]
            fault = action.get("fault")
            step: dict[str, Any] = {"seat": k, "action": action["kind"], "phase": action["phase"],
                                    "by": action.get("by"),
                                    "fault": faults[fault]["kind"]
                                    if isinstance(fault, int) and 0 <= fault < len(faults) else None}
            if action["kind"] == "draw":
                step.update(added=0, to=0, all_in=False, count=len(action["discards"]),
                            discards=list(action["discards"]), received=list(action["received"]),
                            reshuffled=list(action.get("reshuffled") or []))
            else:
                added = int(action["added"])
                behind[k] -= added
                pot += added
                step.update(added=added, to=int(action["to"]), owed=int(action["owed"]),
                            all_in=bool(action["all_in"]))
            step["pot"] = pot
            step["stacks"] = list(behind)
            steps_.append(step)
    return {
        "match_id": record.get("match_id", ""),
        "hand_id": int(record["hand_id"]),
        "bots": bots,
        "seats": seats,
        "button": pos[record["button"]],
        "structure": str(game.get("structure", "")),
        "small_blind": int(game.get("small_blind") or 0),
        "big_blind": int(game.get("big_blind") or 0),
        "ante": int(game.get("ante") or 0),
        "stacks": stacks,
        "hole": [list(p["dealt"]) for p in players] if steps else [],
        "final": [list(p["final_cards"]) for p in players] if steps else [],
        "steps": steps_,
        "shown": [{"seat": pos[s["seat"]], "five": list(s["five"]), "category": str(s["category"])}
                  for s in record.get("shown") or []],
        "pots": [{"amount": int(p["chips"]), "eligible": [pos[s] for s in p["eligible"]],
                  "winners": [pos[s] for s in p["winners"]], "shares": list(p["shares"])}
                 for p in record.get("pots") or []],
        "returned": [{"seat": pos[r["seat"]], "amount": int(r["chips"])} for r in record.get("returned") or []],
        "net": [int(p["net"]) for p in players],
        "final_stacks": [int(p["final_stack"]) for p in players],
        "faults": [{"seat": pos.get(f["seat"], f["seat"]),
                    "bot": bots[pos[f["seat"]]] if f["seat"] in pos else f"seat {f['seat']}",
                    "kind": str(f["kind"]), "detail": str(f["detail"]),
                    "decision": None if f["action"] is None else n_posts + int(f["action"])}
                   for f in faults],
        "timings": [[pos[a["seat"]], float(a["ms"])] for a in record["actions"] if a.get("ms") is not None],
    }
