"""The shape check of a hand-history line: :func:`record_problem` says what makes a JSON object unfit to be a hand
record (a field missing, or a value of the wrong kind or range), naming the field, or returns None.

Only the shape is judged (fields present, JSON types, ranges, the enumerations of the format: cards, action
kinds, fault kinds, who decided); values against the rules are replay's job (a record of the right shape whose
values the engine refuses *differs*). The format is docs/HISTORY.md (versions 3 and 2, and "Version 1"), with a JSON
Schema in docs/hand-history.schema.json.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.engine.actions import ActionKind
from harness.engine.cards import CARD_STRS
from harness.history.record import RAISE_RULES
from harness.specs import FaultKind

#: Versions of the hand record this harness reads (it writes the last).
READ_VERSIONS: tuple[int, ...] = (1, 2, 3)
#: Fields every version-1 hand record has (the engine's record); replay needs them.
REQUIRED_KEYS: tuple[str, ...] = ("hand_id", "seed", "config", "stacks", "button", "actions")
#: A hand's seed is 64 bits (docs/HISTORY.md, "seed": 0 to 2^64-1).
SEED_MAX = 2**64 - 1
_CARDS = frozenset(CARD_STRS)
_ACTION_KINDS = tuple(kind.value for kind in ActionKind)
_FAULT_KINDS = tuple(kind.value for kind in FaultKind)
_BY = ("bot", "fault", "out", "unsent")  # harness.history.record's BY_BOT, BY_FAULT, BY_OUT, BY_UNSENT


def json_kind(value: Any) -> str:
    """Name the JSON type of ``value`` in a user's words: "a string", "a number", "a list" ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "an unknown value"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_uint(value: Any) -> bool:
    return _whole(value) and value >= 0


def _is_seed(value: Any) -> bool:
    return _whole(value) and 0 <= value <= SEED_MAX


def _is_index(value: Any) -> bool:
    return value is None or _is_uint(value)


def _is_ms(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _is_ms_or_null(value: Any) -> bool:
    return value is None or _is_ms(value)


def _is_card(value: Any) -> bool:
    return isinstance(value, str) and value in _CARDS


def _is_cards(value: Any) -> bool:
    return isinstance(value, list) and all(_is_card(c) for c in value)


def _is_bot(value: Any) -> bool:
    # What pages and terminals show as a seat's name: the harness writes 1-32 of [A-Za-z0-9_.-] (a v1 history
    # "seat N"); a history edited to hold a 10 kB name, a newline or a BiDi override is damaged.
    return isinstance(value, str) and 0 < len(value) <= 64 and value.isprintable()


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(_is_bot(c) for c in value)


def _is_match_id(value: Any) -> bool:
    # A page's title: one line of printable text (the harness's ids are bot names joined and a digest).
    return isinstance(value, str) and len(value) <= 256 and value.isprintable()


def _is_seats(value: Any) -> bool:
    return isinstance(value, list) and all(_is_uint(c) for c in value)


def _is_chip_list(value: Any) -> bool:
    return _is_seats(value)


def _is_action_kind(value: Any) -> bool:
    return isinstance(value, str) and value in _ACTION_KINDS


def _is_fault_kind(value: Any) -> bool:
    return isinstance(value, str) and value in _FAULT_KINDS


#: A check of one field's JSON value.
_Check = Callable[[Any], bool]
_WHAT: dict[_Check, str] = {
    _is_str: "a string",
    _is_bool: "true/false",
    _is_uint: "a whole number >= 0",
    _whole: "a whole number",
    _is_seed: "a whole number from 0 to 2**64-1",
    _is_index: "an index (a whole number >= 0) or null",
    _is_ms: "milliseconds (a number >= 0)",
    _is_ms_or_null: "milliseconds (a number >= 0) or null",
    _is_card: 'a card such as "As" (rank 23456789TJQKA, suit cdhs)',
    _is_cards: 'a list of cards such as ["As", "Td"] (rank 23456789TJQKA, suit cdhs)',
    _is_bot: "a bot name (one line of printable text, 1 to 64 characters)",
    _is_match_id: "a match id (one line of printable text, at most 256 characters)",
    _is_names: "a list of bot names",
    _is_seats: "a list of seats (whole numbers >= 0)",
    _is_chip_list: "a list of chips (whole numbers >= 0)",
    _is_action_kind: f"one of {', '.join(_ACTION_KINDS)}",
    _is_fault_kind: f"one of {', '.join(_FAULT_KINDS)}",
}

#: The check of each element of a list check.
_ELEMENT: dict[_Check, _Check] = {_is_cards: _is_card, _is_names: _is_bot, _is_seats: _is_uint,
                                  _is_chip_list: _is_uint}


def _value_problem(where: str, value: Any, ok: _Check) -> str | None:
    """``where: expected WHAT, got KIND (VALUE)`` when ``ok`` refuses ``value`` (a number of the right kind but
    outside its range, a string that is not one of the format's words: ``where: VALUE is not WHAT``), else None."""
    if ok(value):
        return None
    element = _ELEMENT.get(ok)
    if element is not None and isinstance(value, list):  # name the element refused
        return next(p for i, e in enumerate(value) if (p := _value_problem(f"{where}[{i}]", e, element)))
    what = _WHAT[ok]
    # a float that is a whole number beyond 64 bits: how the fast JSON reader gives one of a nested field
    big = isinstance(value, float) and value.is_integer() and abs(value) >= 2**63
    if (_whole(value) or big) and (ok is _is_uint or ok is _is_seed):
        return f"{where}: {_show(value)} is out of range (expected {what})"
    if isinstance(value, str) and ok in (_is_card, _is_action_kind, _is_fault_kind, _is_bot, _is_match_id):
        return f"{where}: {_show(value)} is not {what}"
    return f"{where}: expected {what}, got {json_kind(value)} ({_show(value)})"


def _settings_problem(settings: Any, key: str, *, null_ok: bool) -> str | None:
    """The game settings under ``key`` (version 1's ``config``, version 2's ``game``): an object of plain values
    (``null_ok``: version 1 wrote some settings as null), or what is wrong with it."""
    if not isinstance(settings, dict):
        return f"{key}: expected an object of game settings, got {json_kind(settings)} ({_show(settings)})"
    for name, value in settings.items():
        if isinstance(value, (list, dict)) or (value is None and not null_ok):
            plain = "a number, string or true/false" if null_ok else "a number or a string"
            return f"{key}.{name}: expected {plain}, got {json_kind(value)}"
    return None


def _list_problem(record: dict[str, Any], key: str, ok: _Check) -> str | None:
    """The first element of the list ``record[key]`` that ``ok`` refuses, named ``key[i]``, or None."""
    value = record[key]
    if not isinstance(value, list):
        return f"{key}: expected a list, got {json_kind(value)} ({_show(value)})"
    for i, element in enumerate(value):
        problem = _value_problem(f"{key}[{i}]", element, ok)
        if problem:
            return problem
    return None


def _fields_problem(obj: Any, fields: dict[str, _Check], where: str, optional: tuple[str, ...] = ()) -> str | None:
    """The first field of the object ``obj`` missing (unless ``optional``) or refused by its check, or None."""
    if not isinstance(obj, dict):
        return f"{where}: expected an object, got {json_kind(obj)} ({_show(obj)})"
    for name, ok in fields.items():
        at = f"{where}{'.' if where else ''}{name}"
        if name not in obj:
            if name in optional:
                continue
            return f"{at}: missing"
        problem = _value_problem(at, obj[name], ok)
        if problem:
            return problem
    return None


def record_version(record: dict[str, Any]) -> int | None:
    """The record's ``record_version`` (1 when absent: the first records had none), or None if not a number."""
    version = record.get("record_version", 1)
    return version if _whole(version) else None


def record_problem(record: dict[str, Any]) -> str | None:
    """Say what makes ``record`` unfit to be a hand-history line, or None if its shape is right.

    Dispatches on ``record_version`` (:data:`READ_VERSIONS`); see the module docstring for what is judged.

    Returns:
        one line naming the field and what is wrong, e.g. ``"hand_id: expected a whole number >= 0, got a
        string (\"x\")"`` or ``"seed: 18446744073709551616 is out of range (expected a whole number from 0 to
        2**64-1)"``; or None.
    """
    version = record_version(record)
    if version == 3 or version == 2:
        return _problem_v2(record, version)
    if version == 1:
        return _version_2_said_1(record) or _problem_v1(record)
    shown = _show(record.get("record_version"))
    return (
        f"record_version: {shown} is not a version this harness reads "
        f"({', '.join(map(str, READ_VERSIONS))}); a newer harness wrote it?"
    )


# ----------------------------------------------------------------------------- version 1

#: Fields of a version-2 record that version 1 never had, and version 1's own that version 2 dropped.
_V2_ONLY: tuple[str, ...] = ("format", "game", "match", "players", "posts", "pots")
_V1_ONLY: tuple[str, ...] = ("config", "stacks")


def _version_2_said_1(record: dict[str, Any]) -> str | None:
    """A version-2 record whose ``record_version`` was lost or damaged into 1: say so in its own field names,
    rather than judge it as version 1 (whose ``config`` and ``stacks`` it has not)."""
    found = [k for k in _V2_ONLY if k in record]
    if not found or any(k in record for k in _V1_ONLY):
        return None
    said = "missing" if "record_version" not in record else f"{_show(record['record_version'])}"
    return (f"record_version: {said}, but the line has version 2's fields ({', '.join(found)}) and not version "
            "1's config and stacks: a damaged version-2 record (docs/HISTORY.md)")


_V1_TOP: dict[str, _Check] = {"hand_id": _is_uint, "seed": _is_seed, "button": _is_uint}
#: Each entry of a version-1 ``actions`` list: ``amount`` is the "to" total of a bet or raise (required for
#: those), the chips added for a call; ``discards`` and ``received`` are a draw's.
_V1_ACTION: dict[str, _Check] = {"seat": _is_uint, "action": _is_action_kind, "amount": _is_uint,
                                 "discards": _is_cards, "received": _is_cards}
_V1_FAULT: dict[str, _Check] = {"seat": _is_uint, "kind": _is_fault_kind, "detail": _is_str}
#: The referee's keys (each optional) whose elements are checked one by one.
_V1_LISTS: tuple[tuple[str, _Check], ...] = (
    ("deck", _is_card), ("bots", _is_bot), ("match_seats", _is_uint), ("hole_cards", _is_cards),
    ("final_cards", _is_cards),
)


def _problem_v1(record: dict[str, Any]) -> str | None:
    """Version 1: the shape of the fields replay and the upgrade read (:data:`REQUIRED_KEYS`; ``deck``,
    ``hole_cards`` and ``final_cards`` when present; each action's ``seat``, ``action``, ``amount``,
    ``discards`` and ``received``) and of the referee's keys when present (``bots``, ``match_seats``,
    ``match_id``, ``faults``, ``timings_ms``): every value of the right JSON kind and range (``seed`` 0 to
    2**64-1, seats and chips >= 0, cards, action and fault kinds of the format)."""
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        return f"missing field(s) {', '.join(missing)} (a hand record has {', '.join(REQUIRED_KEYS)}, ...)"
    problem = _fields_problem(record, _V1_TOP, "")
    if problem:
        return problem
    problem = _settings_problem(record["config"], "config", null_ok=True)
    if problem:
        return problem
    problem = _list_problem(record, "stacks", _is_uint) or _actions_problem_v1(record["actions"])
    if problem:
        return problem
    for key, ok in _V1_LISTS:
        problem = _list_problem(record, key, ok) if key in record else None
        if problem:
            return problem
    problem = _faults_and_timings_problem_v1(record)
    if problem:
        return problem
    if "match_id" in record and not _is_match_id(record["match_id"]):
        return _value_problem("match_id", record["match_id"], _is_match_id)
    for key in ("bots", "match_seats"):
        if key in record and len(record[key]) != len(record["stacks"]):
            return f"{key}: {len(record[key])} entries for {len(record['stacks'])} seats (stacks)"
    seats = record.get("match_seats", [])
    if len(set(seats)) != len(seats):
        twice = next(s for s in seats if seats.count(s) > 1)
        return f"match_seats: seat {twice} is given twice (a match seat is one player)"
    return None


def _actions_problem_v1(actions: Any) -> str | None:
    if not isinstance(actions, list):
        return f"actions: expected a list of actions, got {json_kind(actions)} ({_show(actions)})"
    for i, entry in enumerate(actions):
        if not isinstance(entry, dict):
            return (
                f"actions[{i}]: expected an object like {{\"seat\": 0, \"action\": \"call\"}}, "
                f"got {json_kind(entry)} ({_show(entry)})"
            )
        problem = _fields_problem(entry, _V1_ACTION, f"actions[{i}]", optional=("amount", "discards", "received"))
        if problem:
            return problem
        if entry["action"] in ("bet", "raise") and "amount" not in entry:
            return f"actions[{i}].amount: missing (a {entry['action']} records the total it bets to)"
    return None


def _faults_and_timings_problem_v1(record: dict[str, Any]) -> str | None:
    faults = record.get("faults", [])
    if not isinstance(faults, list):
        return f"faults: expected a list, got {json_kind(faults)} ({_show(faults)})"
    for i, fault in enumerate(faults):
        problem = _fields_problem(fault, _V1_FAULT, f"faults[{i}]", optional=("detail",))
        if problem:
            return problem
    timings = record.get("timings_ms", [])
    if not isinstance(timings, list):
        return f"timings_ms: expected a list, got {json_kind(timings)} ({_show(timings)})"
    for i, pair in enumerate(timings):
        if not isinstance(pair, list) or len(pair) != 2:
            return f"timings_ms[{i}]: expected a [seat, ms] pair (a whole number, a number >= 0), got {_show(pair)}"
        problem = _value_problem(f"timings_ms[{i}][0] (seat)", pair[0], _is_uint) or _value_problem(
            f"timings_ms[{i}][1] (ms)", pair[1], _is_ms)
        if problem:
            return problem
    return None


# ----------------------------------------------------------------------------- version 2

_V2_MATCH: dict[str, _Check] = {"bots": _is_names, "hands": _is_uint, "stack_mode": _is_str, "starting_stack": _is_uint,
             "seed_sha256": _is_str, "decision_ms": _is_uint, "time_bank_ms": _is_uint, "max_faults": _is_uint}
_V2_ITEMS: dict[str, dict[str, _Check]] = {
    "players": {"seat": _is_uint, "bot": _is_bot, "stack": _is_uint, "out": _is_bool, "dealt": _is_cards,
                "final_cards": _is_cards, "final_stack": _is_uint, "net": _whole},
    "posts": {"seat": _is_uint, "kind": _is_str, "chips": _is_uint, "all_in": _is_bool},
    "actions": {"index": _is_uint, "seat": _is_uint, "phase": _is_str, "kind": _is_str, "by": _is_str,
                "fault": _is_index, "ms": _is_ms_or_null},
    "faults": {"seat": _is_uint, "kind": _is_str, "detail": _is_str, "action": _is_index, "put_out": _is_bool},
    "shown": {"seat": _is_uint, "five": _is_cards, "category": _is_str},
    "pots": {"chips": _is_uint, "eligible": _is_seats, "winners": _is_seats, "shares": _is_chip_list},
    "returned": {"seat": _is_uint, "chips": _is_uint},
}
_V2_DRAW: dict[str, _Check] = {"discards": _is_cards, "received": _is_cards, "reshuffled": _is_cards}
_V2_BET: dict[str, _Check] = {"owed": _is_uint, "added": _is_uint, "to": _is_uint, "all_in": _is_bool}
_V2_TOP: dict[str, _Check] = {"format": _is_str, "match_id": _is_match_id, "hand_id": _is_uint, "seed": _whole,
                              "button": _is_uint}


def _problem_v2(record: dict[str, Any], version: int = 2) -> str | None:
    """Versions 2 and 3 (version 2 and ``raise_rule``): the shape of the fields replay reads or copies
    (docs/hand-history.schema.json has all of it)."""
    missing = [k for k in (*_V2_TOP, "match", "game", *_V2_ITEMS) if k not in record]
    if version == 3 and "raise_rule" not in record:
        missing.insert(0, "raise_rule")
    if missing:
        return (f"missing field(s) {', '.join(missing)} (a version-{version} hand record has them all, "
                "docs/HISTORY.md)")
    if version == 3 and record["raise_rule"] not in RAISE_RULES:
        return f"raise_rule: expected one of {', '.join(RAISE_RULES)}, got {_show(record['raise_rule'])}"
    if version == 2 and "raise_rule" in record:
        return "raise_rule: a version-2 record names no raise rule (version 3 does)"
    problem = _fields_problem(record, _V2_TOP, "")
    if problem:
        return problem
    if record["format"] != "sevencard-hand-history":
        return f"format: expected \"sevencard-hand-history\", got {_show(record['format'])}"
    problem = _fields_problem(record["match"], _V2_MATCH, "match")
    if problem:
        return problem
    problem = _settings_problem(record["game"], "game", null_ok=False)
    if problem:
        return problem
    for key, fields in _V2_ITEMS.items():
        items = record[key]
        if not isinstance(items, list):
            return f"{key}: expected a list, got {json_kind(items)} ({_show(items)})"
        for i, item in enumerate(items):
            problem = _fields_problem(item, fields, f"{key}[{i}]")
            if problem:
                return problem
    for i, action in enumerate(record["actions"]):
        extra = _V2_DRAW if action["kind"] == "draw" else _V2_BET
        problem = _fields_problem(action, extra, f"actions[{i}]")
        if problem:
            return problem
        if action["by"] not in _BY:
            return f"actions[{i}].by: expected one of {', '.join(_BY)}, got {_show(action['by'])}"
    for i, fault in enumerate(record["faults"]):
        if fault["kind"] not in _FAULT_KINDS:
            return f"faults[{i}].kind: expected one of {', '.join(_FAULT_KINDS)}, got {_show(fault['kind'])}"
    if "deck" in record and not _is_cards(record["deck"]):
        return f"deck: expected {_WHAT[_is_cards]}"
    return None
