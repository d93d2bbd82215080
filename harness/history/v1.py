"""Version 1 of the hand record (the first releases' format) and its replay: same seed and actions, same record.

Nothing writes version 1 any more; histories of that version are still read and replayed
(:mod:`harness.history.replay`). :func:`build_record` is that version's writer, kept so tests can
make version-1 records of any hand. A record is JSON-ready: cards are two-character strings, enums
their strings. Same seed + same actions give an identical record, so :func:`replay` can re-run any
hand from its seed and actions and check every field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.engine.actions import DRAW, Action, ActionKind
from harness.engine.cards import CARD_STRS, parse_cards
from harness.engine.config import GameConfig
from harness.engine.errors import (
    CardError,
    GameConfigError,
    IllegalActionError,
    InvalidActionError,
    ReplayError,
)

if TYPE_CHECKING:
    from harness.engine.state import HandState

RECORD_VERSION = 1


def _strs(cards: Any) -> list[str]:
    return [CARD_STRS[c] for c in cards]


def build_record(state: HandState) -> dict[str, Any]:
    """The JSON-ready record of a hand (complete or not).

    Keys: ``record_version``, ``hand_id``, ``seed``, ``config``, ``seats``,
    ``button``, ``stacks`` (starting), ``hole_cards`` (dealt, per seat),
    ``history`` (public events, blinds and antes included), ``actions``
    (every decision: ``{"seat", "action", "amount"?, "discards"?,
    "received"?}``; bet/raise amounts are "to" totals, call amounts the chips
    added), ``phase``, ``final_cards``, ``shown`` (showing order R5.7:
    ``{"seat", "five", "category", "value"}``), ``pots`` (``{"amount",
    "eligible", "winners", "shares"}``), ``uncalled`` (``{"seat",
    "amount"}``, R3.9), ``final_stacks`` and ``net``. The last five are
    None / empty until the hand is complete.
    """
    actions = []
    received = state._received
    for entry in state._log:
        seat, kind, payload = entry[0], entry[1], entry[2]
        if kind is DRAW:
            actions.append({
                "seat": seat,
                "action": "draw",
                "discards": _strs(payload),
                "received": _strs(received[seat] or ()),
            })
        elif kind is ActionKind.FOLD or kind is ActionKind.CHECK:
            actions.append({"seat": seat, "action": str(kind)})
        else:
            actions.append({"seat": seat, "action": str(kind), "amount": payload})
    res = state._result
    rec = {
        "record_version": RECORD_VERSION,
        "hand_id": state.hand_id,
        "seed": state.seed,
        "config": state.config.to_dict(),
        "seats": state.n,
        "button": state.button,
        "stacks": list(state.starting_stacks),
        "hole_cards": [_strs(h) for h in state.hole_cards],
        "history": [dict(e) for e in state.history],
        "actions": actions,
        "phase": str(state.phase),
        "final_cards": [_strs(h) for h in state.cards],
        "shown": [
            {"seat": s, "five": _strs(r.five), "category": r.category.label, "value": r.value}
            for s, r in res.shown.items()
        ]
        if res
        else [],
        "pots": [
            {
                "amount": p.amount,
                "eligible": list(p.eligible),
                "winners": list(p.winners),
                "shares": list(p.shares),
            }
            for p in res.pots
        ]
        if res
        else [],
        "uncalled": [{"seat": s, "amount": a} for s, a in res.uncalled] if res else [],
        "final_stacks": list(res.final_stacks) if res else None,
        "net": list(res.net) if res else None,
    }
    if state._stacked:
        rec["deck"] = _strs(state._deck.order)
    return rec


def record_action(entry: dict[str, Any]) -> Action:
    """The ``Action`` for one entry of a record's ``actions`` list.

    Raises:
        ReplayError: the entry is not a valid action.
    """
    try:
        kind = ActionKind(entry["action"])
        if kind is DRAW:
            return Action(DRAW, 0, tuple(parse_cards(entry.get("discards", []))))
        if kind is ActionKind.BET or kind is ActionKind.RAISE:
            return Action(kind, int(entry["amount"]))
        return Action(kind)
    except (KeyError, ValueError, TypeError, CardError) as exc:
        raise ReplayError(f"bad action entry {entry!r}: {exc}") from None


def first_difference(a: Any, b: Any, path: str) -> str | None:
    """The first place where two JSON-ready values differ, e.g. ``"record.pots[0].winners[0]: record has 1,
    replay gives 0"``, or None when they are equal (ints of any type compare by value).
    """
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}: {'missing in record' if key not in a else 'missing in replay'}"
            diff = first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            diff = first_difference(x, y, f"{path}[{i}]")
            if diff:
                return diff
        if len(a) != len(b):
            return f"{path}: record has {len(a)} items, replay {len(b)}"
        return None
    if a != b or type(a) is not type(b) and not (isinstance(a, int) and isinstance(b, int)):
        return f"{path}: record has {a!r}, replay gives {b!r}"
    return None


def replay(record: dict[str, Any], *, raise_cap: bool = True) -> HandState:
    """Re-run a hand record from its config, stacks, button, seed and actions.

    ``raise_cap=False`` replays under the rule of earlier releases, which
    offered raises beyond what any opponent could match (R3.4, E14).

    Returns:
        the replayed state (complete if the record was).

    Raises:
        ReplayError: naming the first difference (a field path such as
            ``record.pots[0].winners``, or the first action refused and why).
    """
    from harness.engine.state import HandState

    try:
        config = GameConfig.from_dict(dict(record["config"]))
        state = HandState.start(
            config,
            record["stacks"],
            record["button"],
            record["seed"],
            record.get("hand_id", 0),
            deck=record.get("deck"),
            raise_cap=raise_cap,
        )
    except KeyError as exc:
        raise ReplayError(f"record lacks the field {exc.args[0]!r}") from None
    except GameConfigError as exc:
        raise ReplayError(f"record cannot be started: {exc}") from None
    for i, entry in enumerate(record.get("actions", [])):
        if state.to_act != entry.get("seat"):
            raise ReplayError(
                f"record.actions[{i}]: seat {entry.get('seat')!r} acts but the engine has "
                f"{state.to_act!r} to act (phase {state.phase})"
            )
        try:
            state.apply(record_action(entry))
        except (InvalidActionError, IllegalActionError) as exc:
            raise ReplayError(f"record.actions[{i}] {entry!r} is refused: {exc}") from None
    mine = build_record(state)
    # Fields a caller added to the line (match id, bot names ...) are not ours to check.
    diff = first_difference({k: record.get(k, "<missing>") for k in mine}, mine, "record")
    if diff:
        raise ReplayError(f"replay differs at {diff}")
    return state
