"""Version 1 of the hand record (the first releases' format): its replay, and its upgrade to the current shape.

Nothing writes version 1 any more. Histories of that version are still read: :func:`upgrade` turns
each record into the current one once, on read (:func:`harness.history.files.numbered_records`),
so every reader handles one shape; ``harness replay`` checks the record as written with
:func:`replay` (same seed and actions, same record, every field). :func:`build_record` is that
version's writer, kept so tests can make version-1 records of any hand. A record is JSON-ready:
cards are two-character strings, enums their strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
from harness.engine.state import HandState
from harness.history.record import BY_BOT, BY_OUT, Decision, build, first_difference

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


def play(record: Mapping[str, Any], *, raise_cap: bool = True) -> HandState:
    """Play a version-1 record's actions from its config, stacks, button and seed (nothing compared).

    ``raise_cap=False`` plays under the rule of earlier releases, which offered raises
    beyond what any opponent could match (R3.4, E14).

    Returns:
        the state after the record's last action (complete if the record was).

    Raises:
        ReplayError: a field replay needs is missing, the settings cannot start a hand, or
            an action is refused (naming ``record.actions[i]`` and why).
    """
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
    return state


def replay(record: Mapping[str, Any], *, raise_cap: bool = True) -> HandState:
    """Re-run a version-1 record (:func:`play`) and check every field the engine wrote.

    Returns:
        the replayed state (complete if the record was).

    Raises:
        ReplayError: naming the first difference (a field path such as
            ``record.pots[0].winners``, or the first action refused and why).
    """
    state = play(record, raise_cap=raise_cap)
    mine = build_record(state)
    # Fields the referee added to the line (match id, bot names ...) are not the engine's to check.
    diff = first_difference({k: record.get(k, "<missing>") for k in mine}, mine, "record")
    if diff:
        raise ReplayError(f"replay differs at {diff}")
    return state


#: ``upgraded_from`` of a record read from version 1 (docs/HISTORY.md, "Version 1").
UPGRADED_FROM = 1


def upgrade(record: Mapping[str, Any]) -> dict[str, Any]:
    """The current record (version 3) of a version-1 record, so that readers handle one shape.

    The hand is played again from its seed and actions (:func:`play`, under the earlier raise
    rule, E14, which its ``raise_rule`` then names: ``"all-in"``; under today's if that one
    refuses it), which gives what version 1 did not keep: the chips owed, added and bet "to" per
    decision, the posts, and which replacements came from a reshuffle.
    Seats become match seats (``match_seats``). From the referee's keys: ``bots``, ``match_id``,
    the faults (``action`` and ``put_out`` null: version 1 did not link a fault to a decision),
    and ``timings_ms``: a seat's first decisions take its timings in order (``by`` ``"bot"``),
    any after them were made for it (``by`` ``"out"``); ``out`` is true for a seat none of whose
    decisions was timed. The ``match`` fields version 1 did not record (``hands``, stack mode,
    starting stack, seed commitment, limits) are null, as are ``match.bots`` of seats not in the
    hand. The result carries ``upgraded_from: 1``. Checking the record against the engine is
    :func:`replay`'s job, not this one's.

    Args:
        record: a version-1 record of the right shape (``files.record_problem`` accepts it).

    Raises:
        ReplayError: the engine refuses its actions under either rule, or the hand is not complete.
    """
    try:  # the first releases offered raises up to the all-in (E14): their rule, named in the record
        state = play(record, raise_cap=False)
    except ReplayError:
        state = play(record)
    if not state.is_complete:
        raise ReplayError(f"record.actions: the record ends before the hand does (seat {state.to_act} to act)")
    n = state.n
    seated = list(record.get("match_seats") or range(n))
    names = list(record.get("bots") or [f"seat {m}" for m in seated])
    bots: list[str | None] = [None] * (max(seated) + 1)
    for k, m in enumerate(seated):
        bots[m] = names[k]
    timings: list[list[float]] = [[] for _ in range(n)]
    for s, ms in record.get("timings_ms") or []:
        if 0 <= s < n:
            timings[s].append(float(ms))
    decisions: list[Decision] = []
    asked = [0] * n
    for entry in state.action_log():
        s = entry[0]
        timed = timings[s]
        decisions.append((BY_BOT, None, timed[asked[s]]) if asked[s] < len(timed) else (BY_OUT, None, None))
        asked[s] += 1
    match = {
        "bots": bots, "hands": None, "stack_mode": None, "starting_stack": None, "seed_sha256": None,
        "decision_ms": None, "time_bank_ms": None, "max_faults": None,
    }
    faults = [
        (seated[s] if isinstance(s := f.get("seat"), int) and 0 <= s < n else s, f.get("kind"), f.get("detail", ""),
         None, None)
        for f in record.get("faults") or []
    ]
    upgraded = build(
        state,
        match_id=str(record.get("match_id", "")),
        match=match,
        seated=seated,
        out=[asked[k] > 0 and not timings[k] for k in range(n)],
        decisions=decisions,
        faults=faults,
    )
    upgraded["upgraded_from"] = UPGRADED_FROM
    return upgraded
