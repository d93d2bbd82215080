"""The one adapter between hand histories and the report.

Everything in :mod:`harness.report` reads a hand through :func:`hand_view`;
a new hand-history format (or version) only needs this module to change.

A hand view is JSON-ready (it is embedded in the HTML report as data)::

    {"match_id": str, "hand_id": int, "bots": [name by hand seat],
     "button": hand seat, "game": "seven-card-draw"|"deuce-to-seven-triple-draw"|...,
     "structure": "no-limit"|"fixed-limit",
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
            "by": "post"|"bot"|"fault"|"out"|"unsent",   # who decided
            "fault": kind of the fault a default action answers, or None,
            "discards": [cards], "received": [cards]}      # draws only (discards/received may be
                                                           # absent from a format that hides them)

Seats in a view are positions 0..n-1 among the players dealt in (``seats``
gives each one's match seat); ``decision`` of a fault indexes ``steps``.

Source: the hand-history format (docs/HISTORY.md), in its current shape
(``players``, ``posts``, ``actions`` with ``added``/``to``/``by``, ``returned``);
the reader upgrades records of earlier versions (:mod:`harness.history.files`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harness.history.files import HistoryError, numbered_records, read_history
from harness.history.shape import record_problem


def read_hand_records(path: Path) -> Iterator[dict[str, Any]]:
    """The hand records of a hand history file (plain or gzip; any version, upgraded), in file order.

    Raises:
        harness.history.files.HistoryError: the file is not a hand history.
    """
    return read_history(path)


def numbered_hand_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, hand record)`` of a hand history file, as :func:`read_hand_records` gives the records.

    Raises:
        harness.history.files.HistoryError: the file is not a hand history.
    """
    return numbered_records(path)


def read_hand_views(path: Path) -> Iterator[dict[str, Any]]:
    """Every hand of a hand history file as a view (:func:`hand_view`), in file order.

    Raises:
        OSError: the file cannot be opened or read.
        harness.history.files.HistoryError: the file is not a hand history, or a record of it is not of a hand
            history's shape (:func:`harness.history.shape.record_problem`; its line named).
    """
    for line, record in numbered_records(path):
        problem = record_problem(record)
        if problem:
            raise HistoryError(path, line, problem)
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
    return _view(record, steps)


def _view(record: Mapping[str, Any], steps: bool) -> dict[str, Any]:
    """:func:`hand_view` of a record (docs/HISTORY.md): chips come straight from the record."""
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
        "game": str(game.get("name", "seven-card-draw")),  # docs/HISTORY.md: no name is Seven Card Draw
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
