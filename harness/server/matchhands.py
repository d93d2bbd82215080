"""A match page's hands: read from the match's hand history, each filtered for the person asking, with a notice
for every line that cannot be shown (the page says which line and what is wrong, never leaves it out silently)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.history.files import HistoryError, decision_times, find_history, records_or_problems
from harness.report.hands import hand_view
from harness.report.viewer import hide_cards, viewer_view

#: Hands a match page shows at most.
LIMIT = 200


def viewer_hand(record: dict[str, Any], mine: set[int], admin: bool) -> dict[str, Any]:
    """One hand as the table viewer is given it on this person's match page (the filtering is done here, never in
    the page): the admin gets every card; a student the hole cards and draws of their own seats (``mine``: match
    seats) and, of the other seats, only the five cards shown down (R5.7) and their draws as counts (R4.3).

    Raises:
        KeyError, ValueError, TypeError, IndexError: the record is not a hand record (docs/HISTORY.md).
    """
    view = viewer_view(hand_view(record))
    if admin:
        return view
    seen = [k for k, seat in enumerate(view.get("seats") or range(len(view["bots"]))) if seat in mine]
    return hide_cards(view, seen=seen, shown=True, fault_details=False)


def match_hands(directory: Path, mine: set[int], admin: bool, limit: int = LIMIT, *,
                running: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    """The first ``limit`` hands of the match in ``directory`` as :func:`viewer_hand` gives them, and the notices.

    ``running``: the match is still being played, so a last line not whole yet is the hand being written
    (``HistoryError.at_end``), not a notice. Any other damaged line
    (:func:`harness.history.files.records_or_problems`) or a record the viewer cannot draw is a notice, one line
    naming the file (by its name: the server's folders are not shown), the line and what is wrong; the hands
    after it are shown when the file can be read on, else the notice says they cannot be.

    A finished match (not ``running``) without a hand history, or with one that holds no hand, gets a notice
    saying so.

    Returns:
        ``(hands, notices)``; both empty when a running match has no hand history yet.
    """
    path = find_history(directory)
    hands: list[dict[str, Any]] = []
    notices: list[str] = []
    if path is None:
        if not running:  # the referee writes hands.jsonl as the match starts: gone since
            notices.append("no hand history: hands.jsonl (or hands.jsonl.gz) is missing from this finished match")
        return hands, notices
    try:
        for line, item in records_or_problems(path):
            if isinstance(item, HistoryError):
                if running and item.at_end:
                    break
                notices.append(f"{path.name} line {line}: {item.problem}; {item.then()}")
                continue
            try:
                hands.append(viewer_hand(item, mine, admin))
            except (KeyError, ValueError, TypeError, IndexError) as exc:
                notices.append(f"{path.name} line {line}: a hand record the viewer cannot show "
                               f"({type(exc).__name__}: {exc}); skipped")
            if len(hands) >= limit:
                break
    except OSError as exc:
        notices.append(f"{path.name}: cannot be read ({exc.strerror or exc}); the hands read before are shown")
    if not hands and not notices and not running:
        notices.append(f"{path.name} holds no hand, though the match is finished")
    return hands, notices


def slow_decisions(directory: Path, decision_ms: int) -> dict[str, int]:
    """``{bot: decisions}`` of the match in ``directory`` that took longer than ``decision_ms`` (paid from the
    time bank, PROTOCOL.md section 7), read from its hand history; damaged lines are skipped (the match page
    names them), and no history gives ``{}``."""
    path = find_history(directory)
    if path is None:
        return {}
    slow: dict[str, int] = {}
    try:
        for _, record in records_or_problems(path):
            if isinstance(record, HistoryError):
                continue
            try:
                bots = record["match"]["bots"]
                for seat, ms in decision_times(record):
                    if ms > decision_ms and 0 <= seat < len(bots):
                        slow[bots[seat]] = slow.get(bots[seat], 0) + 1
            except (KeyError, TypeError, ValueError):
                continue
    except OSError:
        return slow
    return slow
