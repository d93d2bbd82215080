"""The hand record of a hand history, versions 3 and 2 (docs/HISTORY.md): built from a hand, and replayed.

One record per hand, standing alone: the match it belongs to (bots by match
seat, stack mode, starting stack, limits, the SHA-256 commitment of the
match seed), the game settings that apply (and only those), the players
dealt in with their stacks and cards, the posts (antes and blinds), every
decision with its chips (``owed`` before it, ``added``, ``to``) and who made
it (the bot, or the referee's default action and the fault it answers), the
draws with the replacements that came from a reshuffled muck (R4.4), the
faults, the hands shown, the pots and the chips returned unmatched (R3.9).
Every seat number is a *match seat* (the bot's place in the match, fixed for
the whole match), never renumbered after a bust.

:func:`build` makes a record from a complete :class:`HandState` plus what
the referee knows; :func:`replay_v2` re-plays a record through the engine
and checks every field. docs/HISTORY.md documents each field with its unit;
docs/hand-history.schema.json is its JSON Schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from harness.engine import Action, ActionKind, GameConfig, GameConfigError, HandState, ReplayError, Structure
from harness.engine.actions import POSTS
from harness.engine.cards import CARD_STRS, parse_cards
from harness.engine.errors import CardError, IllegalActionError, InvalidActionError
from harness.engine.games import GAMES, SEVEN_CARD_DRAW, GameDefinition, start_hand, with_openers

#: The ``format`` field of every record (a reader can tell our files from others').
FORMAT = "sevencard-hand-history"
#: The ``record_version`` this harness writes; 1 is the format of the first releases, 2 the format before
#: records named their raise rule (docs/HISTORY.md "Versions").
VERSION = 3

#: ``raise_rule`` of a record played under R3.4's bound (bets and raises never above what the deepest
#: opponent can match, E14) and R3.10 (a wager above it is capped): what this harness plays.
RAISE_RULE_CAPPED = "capped"
#: ``raise_rule`` of a hand of the earlier releases: bets and raises up to the player's all-in.
RAISE_RULE_ALL_IN = "all-in"
#: Each ``raise_rule`` and the engine's ``raise_cap`` it stands for (``HandState.start``).
RAISE_RULES: dict[str, bool] = {RAISE_RULE_CAPPED: True, RAISE_RULE_ALL_IN: False}

#: ``by`` of a decision: the bot's reply was applied.
BY_BOT = "bot"
#: ``by``: the referee's default action, for the fault ``fault`` of this request.
BY_FAULT = "fault"
#: ``by``: the bot was out (put out earlier): folded (or stood pat in the draw) without being asked.
BY_OUT = "out"
#: ``by``: the request would have been over the message limit: default action, not asked, no fault.
BY_UNSENT = "unsent"

#: One decision's annotation from the referee: ``(by, fault index or None, ms or None)``.
Decision = tuple[str, int | None, float | None]
#: One fault: ``(match seat, kind, detail, action index or None, put_out)``.
FaultRow = Sequence[Any]

_DRAW = ActionKind.DRAW
_GAME_KEYS = frozenset(("structure", "small_blind", "big_blind", "min_bet", "ante", "cap", "replacements"))
#: The key of a record's ``game`` naming a game other than Seven Card Draw (R6); absent: Seven Card Draw.
GAME_NAME_KEY = "name"
#: The key of a record's ``game`` naming the opening rule of a game of openers (R7.2: ``"jacks"``, ``"jack-card"``,
#: ``"none"``); absent in such a game (records written before it was kept): the game's default, jacks or better.
GAME_OPENERS_KEY = "openers"


@lru_cache(maxsize=64)
def _game_items(config: GameConfig) -> tuple[tuple[str, Any], ...]:
    items: list[tuple[str, Any]] = [("structure", str(config.structure))]
    if config.blinds:
        items += [("small_blind", config.small_blind), ("big_blind", config.big_blind)]
    else:
        items.append(("min_bet", config.min_bet))
    items.append(("ante", config.ante))
    if config.structure is Structure.FIXED_LIMIT:
        items.append(("cap", config.cap))
    items.append(("replacements", str(config.replacements)))
    return tuple(items)


def game_dict(config: GameConfig) -> dict[str, Any]:
    """The settings of ``config`` that apply, as a record's ``game`` (a fresh dict).

    ``small_blind``/``big_blind`` only with blinds, ``min_bet`` only in an
    ante-only game (R2.5), ``cap`` only in fixed-limit (R3.7); ``structure``,
    ``ante`` (0 = none) and ``replacements`` always.
    """
    last = _LAST_GAME
    if last[0] is not config:  # one match, one config: skip the cache's hash of every field
        last[0], last[1] = config, _game_items(config)
    return dict(last[1])


_LAST_GAME: list[Any] = [None, ()]


def game_definition(game: Mapping[str, Any]) -> GameDefinition:
    """The game a record's ``game`` names (``name``; none: Seven Card Draw, R6), under the opening rule it names
    (``openers``, R7.2; none: the game's own).

    Raises:
        GameConfigError: a name that is not one of :data:`harness.engine.games.GAMES`, an unknown opening
            rule, or one in a game without openers.
    """
    name = game.get(GAME_NAME_KEY, SEVEN_CARD_DRAW.name)
    definition = GAMES.get(name) if isinstance(name, str) else None
    if definition is None:
        raise GameConfigError(f"R6: unknown game {name!r}; the games are {', '.join(GAMES)}")
    if GAME_OPENERS_KEY in game:
        if not definition.passed_out:
            raise GameConfigError(f"R6.3: {definition.name} has no openers: game.{GAME_OPENERS_KEY} is only in a game "
                                  "of openers (R7.2)")
        definition = with_openers(definition, game[GAME_OPENERS_KEY])
    return definition


def game_config(game: Mapping[str, Any]) -> GameConfig:
    """The :class:`GameConfig` of a record's ``game`` (its ``name`` is :func:`game_definition`'s).

    Raises:
        GameConfigError: an unknown key, a missing or invalid setting.
    """
    unknown = set(game) - _GAME_KEYS - {GAME_NAME_KEY, GAME_OPENERS_KEY}
    if unknown:
        raise GameConfigError(f"unknown game setting(s) {sorted(unknown)}; known: {sorted(_GAME_KEYS)}")
    settings = dict(game)
    settings.pop(GAME_NAME_KEY, None)
    settings.pop(GAME_OPENERS_KEY, None)
    if "big_blind" not in settings:
        settings["blinds"] = False  # R2.5: an ante-only game names min_bet instead of blinds
        settings.setdefault("min_bet", None)
    return GameConfig(**settings)


def match_dict(*, bots: Sequence[str], hands: int, stack_mode: str, starting_stack: int, seed_sha256: str,
               decision_ms: int, time_bank_ms: int, max_faults: int,
               humans: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """A record's ``match``: what holds for every hand of the match (see docs/HISTORY.md).

    ``humans``: the seats a person answers, with their own clocks (``{seat, name, decision_ms, idle_ms}``);
    the key is present only in a match that has one.
    """
    match = {
        "bots": list(bots),
        "hands": hands,
        "stack_mode": str(stack_mode),
        "starting_stack": starting_stack,
        "seed_sha256": seed_sha256,
        "decision_ms": decision_ms,
        "time_bank_ms": time_bank_ms,
        "max_faults": max_faults,
    }
    if humans:
        match["humans"] = [dict(h) for h in humans]
    return match


def build(
    state: HandState,
    *,
    match_id: str,
    match: Mapping[str, Any],
    seated: Sequence[int],
    out: Sequence[bool],
    decisions: Sequence[Decision],
    faults: Sequence[FaultRow],
) -> dict[str, Any]:
    """The record (version :data:`VERSION`) of a complete hand; its ``raise_rule`` is the state's (``raise_cap``).

    Args:
        state: the complete hand (its hand seats are 0..k-1).
        match_id: the match's name.
        match: the record's ``match`` (:func:`match_dict`; shared, not copied).
        seated: the match seat of each hand seat, ascending.
        out: per hand seat, whether the bot was out when the hand began.
        decisions: per entry of ``state.action_log()``, ``(by, fault, ms)``
            (:data:`Decision`; ``fault`` indexes ``faults``).
        faults: this hand's faults (:data:`FaultRow`, seats are match seats).

    Raises:
        RuntimeError: the hand is not complete.
        ValueError: ``decisions`` does not have one entry per decision.
    """
    res = state.result()
    log = state.action_log()
    if len(decisions) != len(log):
        raise ValueError(f"{len(decisions)} decision annotations for {len(log)} decisions")
    strs = CARD_STRS
    bots = match["bots"]
    starting = state.starting_stacks
    final_cards = state.cards
    players = [
        {
            "seat": m,
            "bot": bots[m],
            "stack": starting[k],
            "out": out[k],
            "dealt": [strs[c] for c in state.hole_cards[k]],
            "final_cards": [strs[c] for c in final_cards[k]],
            "final_stack": res.final_stacks[k],
            "net": res.net[k],
        }
        for k, m in enumerate(seated)
    ]
    posts = []
    for event in state.history:
        kind = event["action"]
        if kind not in POSTS:
            break
        posts.append({"seat": seated[event["seat"]], "kind": kind, "chips": event["amount"],
                      "all_in": "all_in" in event})
    actions = _actions(log, decisions, seated)
    record = {
        "format": FORMAT,
        "record_version": VERSION,
        "raise_rule": RAISE_RULE_CAPPED if state.raise_cap else RAISE_RULE_ALL_IN,
        "match_id": match_id,
        "hand_id": state.hand_id,
        "match": match,
        "game": game_dict(state.config) if state.game is SEVEN_CARD_DRAW else _named_game(state),
        "seed": state.seed,
        "button": seated[state.button],
        "players": players,
        "posts": posts,
        "actions": actions,
        "faults": [
            {"seat": f[0], "kind": f[1], "detail": f[2], "action": f[3], "put_out": f[4]} for f in faults
        ],
        "shown": [
            {"seat": seated[s], "five": [strs[c] for c in r.five], "category": r.category.label}
            for s, r in res.shown.items()
        ],
        "pots": [
            {"chips": p.amount, "eligible": [seated[s] for s in p.eligible],
             "winners": [seated[s] for s in p.winners], "shares": list(p.shares)}
            for p in res.pots
        ],
        "returned": [{"seat": seated[s], "chips": chips} for s, chips in res.uncalled],
    }
    if state.game.passed_out:  # a game of openers (R7): the jackpot's carried chips, the opener and proof
        record["jackpot"] = {
            "carried_in": res.carried_in, "carried_out": res.carried_out, "passed_out": res.passed_out,
            "opener": None if res.opener is None else seated[res.opener], "proof": [strs[c] for c in res.proof],
        }
    if state._stacked:  # a stacked deck (tests, examples): replay needs its order
        record["deck"] = [strs[c] for c in state._deck.order]
    return record


def _named_game(state: HandState) -> dict[str, Any]:
    """A record's ``game`` for a game other than Seven Card Draw: its name, its settings and, in a game of openers,
    the opening rule in force (R7.2)."""
    game = {GAME_NAME_KEY: state.game.name, **game_dict(state.config)}
    if state.game.passed_out:
        game[GAME_OPENERS_KEY] = str(state.game.openers)
    return game


def _carried_in(record: Mapping[str, Any]) -> int:
    """The chips a record's deal was dealt with from passed-out deals (``jackpot.carried_in``, R7.4); 0 if none."""
    jackpot = record.get("jackpot")
    carried = jackpot.get("carried_in", 0) if isinstance(jackpot, Mapping) else 0
    return carried if type(carried) is int else -1  # -1: refused by the engine in one line (R7.4)


def _actions(log: Sequence[tuple[Any, ...]], decisions: Sequence[Decision], seated: Sequence[int]
             ) -> list[dict[str, Any]]:
    """The record's ``actions``: every decision of ``state.action_log()`` with who made it, its fault and time."""
    strs = CARD_STRS
    actions = []
    drawn = False
    for i, entry in enumerate(log):
        by, fault, ms = decisions[i]
        kind = entry[1]
        if kind is _DRAW:
            drawn = True
            received = entry[3]
            again = entry[4]
            actions.append({
                "index": i, "seat": seated[entry[0]], "phase": "draw", "kind": "draw",
                "discards": [strs[c] for c in entry[2]],
                "received": [strs[c] for c in received],
                "reshuffled": [strs[c] for c in received[len(received) - again:]] if again else [],
                "by": by, "fault": fault, "ms": ms,
            })
        else:
            actions.append({
                "index": i, "seat": seated[entry[0]], "phase": "bet2" if drawn else "bet1", "kind": kind.value,
                "owed": entry[3], "added": entry[4], "to": entry[5], "all_in": entry[6],
                "by": by, "fault": fault, "ms": ms,
            })
    return actions


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


def _annotation_problem(record: Mapping[str, Any]) -> str | None:
    """What makes the referee's annotations inconsistent (seats, bots, faults, decisions), or None."""
    bots = record["match"]["bots"]
    for k, p in enumerate(record["players"]):
        if not 0 <= p["seat"] < len(bots) or bots[p["seat"]] != p["bot"]:
            return f"players[{k}].bot: {p['bot']!r} is not match.bots[{p['seat']}]"
    actions = record["actions"]
    faults = record["faults"]
    for i, a in enumerate(actions):
        if a["index"] != i:
            return f"actions[{i}].index: {a['index']} (expected {i})"
        by, fault = a["by"], a["fault"]
        if by == BY_FAULT:
            if not (isinstance(fault, int) and 0 <= fault < len(faults)):
                return f"actions[{i}].fault: {fault!r} is not an index of faults"
            if faults[fault]["action"] != i or faults[fault]["seat"] != a["seat"]:
                return f"actions[{i}].fault: faults[{fault}] is not a fault of seat {a['seat']} at action {i}"
        elif fault is not None:
            return f"actions[{i}].fault: {fault!r} for a decision by {by!r} (only by 'fault' answers one)"
        if (a["ms"] is None) != (by in (BY_OUT, BY_UNSENT)):
            return f"actions[{i}].ms: {a['ms']!r} for a decision by {by!r}"
    for j, f in enumerate(faults):
        at = f["action"]
        if at is not None and not (0 <= at < len(actions) and actions[at]["seat"] == f["seat"]):
            return f"faults[{j}].action: {at!r} is not a decision of seat {f['seat']}"
    return None


def replay_v2(record: Mapping[str, Any], *, raise_cap: bool | None = None) -> HandState:
    """Re-play a record of version 2 or 3 through the engine and check every field.

    The deal comes from ``seed`` (or ``deck``), the decisions from
    ``actions``; everything else (posts, chips of each action, cards
    received, pots, returned chips, shown hands, stacks, net) must be what
    the engine gives. The referee's annotations (``by``, ``fault``, ``ms``,
    faults, ``out``) are taken as recorded but must be consistent.

    Args:
        record: a record whose shape :func:`harness.history.files.record_problem` accepts.
        raise_cap: the raise rule to replay under (``HandState.start``): None
            takes the one the record names (``raise_rule``, version 3), or
            today's for a version-2 record, which names none; False is the
            rule of earlier releases, which offered raises beyond what any
            opponent could match (RULES.md R3.4, E14).

    Returns:
        the replayed, complete state.

    Raises:
        ReplayError: naming the first field that differs, or the action refused and why.
    """
    named = record.get("raise_rule")
    if raise_cap is None:
        raise_cap = RAISE_RULES.get(named, True) if isinstance(named, str) else True
    players = record["players"]
    seated = [p["seat"] for p in players]
    if sorted(set(seated)) != seated:
        raise ReplayError(f"players: seats {seated} are not in ascending order, each once")
    if record["button"] not in seated:
        raise ReplayError(f"button: seat {record['button']} is not a seat of players {seated}")
    try:
        state = start_hand(
            game_definition(record["game"]),
            game_config(record["game"]),
            [p["stack"] for p in players],
            seated.index(record["button"]),
            record["seed"],
            record["hand_id"],
            deck=record.get("deck"),
            raise_cap=raise_cap,
            carried=_carried_in(record),
        )
    except GameConfigError as exc:
        raise ReplayError(f"record cannot be started: {exc}") from None
    for i, entry in enumerate(record["actions"]):
        acting = None if state.to_act is None else seated[state.to_act]
        if entry["seat"] != acting:
            raise ReplayError(
                f"actions[{i}]: seat {entry['seat']} acts but the engine has "
                f"{'nobody' if acting is None else f'seat {acting}'} to act (phase {state.phase})"
            )
        try:
            kind = ActionKind(entry["kind"])
            if kind is _DRAW:
                action = Action(kind, 0, tuple(parse_cards(entry["discards"])))
            elif kind is ActionKind.BET or kind is ActionKind.RAISE:
                action = Action(kind, entry["to"])
            else:
                action = Action(kind)
            state.apply(action)
        except (ValueError, CardError, InvalidActionError, IllegalActionError) as exc:
            raise ReplayError(f"actions[{i}] ({entry['kind']}) is refused: {exc}") from None
    if not state.is_complete:
        acting = state.to_act
        assert acting is not None  # an incomplete hand has a seat to act
        raise ReplayError(f"actions: the record ends before the hand does (seat {seated[acting]} to act)")
    problem = _annotation_problem(record)
    if problem:
        raise ReplayError(f"replay differs at record.{problem}")
    mine = build(
        state,
        match_id=record["match_id"],
        match=record["match"],
        seated=seated,
        out=[p["out"] for p in players],
        decisions=[(a["by"], a["fault"], a["ms"]) for a in record["actions"]],
        faults=[(f["seat"], f["kind"], f["detail"], f["action"], f["put_out"]) for f in record["faults"]],
    )
    if "upgraded_from" in record:  # read from an earlier version (harness.history.v1.upgrade)
        mine["upgraded_from"] = record["upgraded_from"]
    if record.get("record_version") == 2:  # written before records named their raise rule
        mine["record_version"] = 2
        del mine["raise_rule"]
    diff = None if mine == record else first_difference(dict(record), mine, "record")
    if diff:
        raise ReplayError(f"replay differs at {diff}")
    return state
