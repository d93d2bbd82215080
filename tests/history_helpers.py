"""Hand histories for the format tests: random matches made in-process, the schema, the standalone checker.

:func:`random_match` plays a whole match with random legal decisions through
the engine and writes version-2 records with :func:`harness.history.record.build`,
as the referee does, with the referee's annotations drawn at random too:
faults answered by the default action, bots put out (then folded without
being asked), requests too large to send. Stacks follow the stack mode
(reset, or freezeout with busted seats leaving and the button moving on), so
every game type and stack mode can be covered in a fraction of a second.
"""

from __future__ import annotations

import importlib.util
import json
import random
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.deals import commitment, hand_seed
from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.engine.games import SEVEN_CARD_DRAW, GameDefinition, start_hand
from harness.history import record as handrecord

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "docs" / "hand-history.schema.json"
CHECKER_PATH = ROOT / "tools" / "hhcheck.py"

#: Every game type a record can carry (docs/HISTORY.md has one example of each).
GAMES: dict[str, GameConfig] = {
    "no-limit": GameConfig(),
    "no-limit-ante": GameConfig(ante=2),
    "fixed-limit": GameConfig(structure="fixed-limit", cap=3),
    "fixed-limit-ante": GameConfig(structure="fixed-limit", ante=1, cap=0),
    "ante-only": GameConfig(ante=5, blinds=False, min_bet=10),
    "ante-only-fixed-limit": GameConfig(structure="fixed-limit", ante=3, blinds=False, min_bet=10),
    "per-seat": GameConfig(ante=1, replacements="per-seat"),
}
FAULT_KINDS = ("timeout", "malformed", "illegal", "oversized", "crash", "disconnected")


def _decide(state: HandState, rng: random.Random) -> Action:
    legal = state.legal()
    if ActionKind.DRAW in legal.actions:
        hand = state.cards[state.to_act]  # type: ignore[index]
        counts = (0, 1, 2, 3, 4, 4) if state.game.max_discards == 4 else (0, 1, 2, 3, 4, 5, 5)  # R6.4
        return Action(ActionKind.DRAW, 0, tuple(rng.sample(hand, rng.choice(counts))))
    kinds = [k for k in legal.actions if k is not ActionKind.FOLD or rng.random() < 0.3]
    kind = rng.choice(kinds or legal.actions)
    if kind in (ActionKind.BET, ActionKind.RAISE):
        to = rng.choice((legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to)))
        return Action(kind, to)
    return Action(kind)


def random_match(game: GameConfig, *, seats: int, hands: int, stack_mode: str = "reset", seed: int = 1,
                 starting_stack: int = 200, fault_rate: float = 0.05, match_id: str = "m",
                 uneven: bool = False, definition: GameDefinition = SEVEN_CARD_DRAW) -> list[dict[str, Any]]:
    """Version-2 records of one random match (see the module docstring) of ``definition``'s game.

    ``uneven``: every hand starts from random stacks of 1 .. ``starting_stack`` (side pots, all-in
    posts): the hands stand alone but are no match a referee plays (check them one by one).
    """
    rng = random.Random(seed)
    match_seed = rng.getrandbits(256)
    names = [f"bot{i}" for i in range(seats)]
    match = handrecord.match_dict(bots=names, hands=hands, stack_mode=stack_mode, starting_stack=starting_stack,
                                  seed_sha256=commitment(match_seed), decision_ms=100, time_bank_ms=1000,
                                  max_faults=5)
    stacks = [starting_stack] * seats
    out = [False] * seats
    button = -1
    records = []
    for h in range(hands):
        if stack_mode == "freezeout":
            seated = [m for m in range(seats) if stacks[m] > 0]
            if len(seated) < 2:
                break
            button = next(m for k in range(1, seats + 1) if stacks[m := (button + k) % seats] > 0)
            start = [stacks[m] for m in seated]
        else:
            seated = list(range(seats))
            button = h % seats
            start = [rng.randint(1, starting_stack) if uneven else starting_stack for _ in range(seats)]
        state = start_hand(definition, game, start, seated.index(button), hand_seed(match_seed, h), h)
        out_at_start = [out[m] for m in seated]
        decisions: list[handrecord.Decision] = []
        faults: list[list[Any]] = []
        while state.to_act is not None:
            m = seated[state.to_act]
            if out[m]:
                legal = state.legal()
                fold = ActionKind.FOLD in legal.actions
                state.apply(Action(ActionKind.FOLD) if fold else state.default_action())
                decisions.append((handrecord.BY_OUT, None, None))
                continue
            roll = rng.random()
            ms = round(rng.uniform(0.05, 90.0), 3)
            if roll < fault_rate:
                put_out = rng.random() < 0.2
                faults.append([m, rng.choice(FAULT_KINDS), "a fault drawn at random", len(decisions), put_out])
                out[m] = out[m] or put_out
                state.apply(state.default_action())
                decisions.append((handrecord.BY_FAULT, len(faults) - 1, ms))
            elif roll < fault_rate * 1.1:
                state.apply(state.default_action())
                decisions.append((handrecord.BY_UNSENT, None, None))
            else:
                state.apply(_decide(state, rng))
                decisions.append((handrecord.BY_BOT, None, ms))
        records.append(handrecord.build(state, match_id=match_id, match=match, seated=seated, out=out_at_start,
                                        decisions=decisions, faults=faults))
        if stack_mode == "freezeout":
            for k, m in enumerate(seated):
                stacks[m] = state.result().final_stacks[k]
    return records


def short_stacked(game: GameConfig, *, seats: int, hands: int, seed: int) -> list[dict[str, Any]]:
    """A freezeout from stacks of a few big blinds: all-in posts, side pots and returned chips in most hands."""
    return random_match(game, seats=seats, hands=hands, stack_mode="freezeout", seed=seed,
                        starting_stack=3 * game.unit, fault_rate=0.02)


@cache
def checker() -> ModuleType:
    """tools/hhcheck.py, the standalone checker, loaded from its file (it is not a package module)."""
    spec = importlib.util.spec_from_file_location("hhcheck", CHECKER_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_errors(record: dict[str, Any]) -> list[str]:
    """What the JSON Schema of docs/ says is wrong with a record (``path: message``), empty when valid."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator().iter_errors(record)]


def check_records(records: list[dict[str, Any]], path: Path) -> list[tuple[int, int, list[str]]]:
    """The standalone checker's problems over records written to ``path`` (only the hands with problems)."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return [(line, hand, problems) for line, hand, problems in checker().check_file(path) if problems]


MATCH = handrecord.match_dict(bots=["a", "b", "c"], hands=100, stack_mode="reset", starting_stack=1000,
                              seed_sha256=commitment(1), decision_ms=100, time_bank_ms=0, max_faults=3)


def played_hand(h: int) -> dict[str, Any]:
    """A version-2 record of hand h of a match of seed 1, every decision the default action."""
    state = HandState.start(GameConfig(), [1000, 1000, 1000], h % 3, hand_seed(1, h), h)
    while state.to_act is not None:
        state.apply(state.default_action())
    decisions = [(handrecord.BY_BOT, None, 0.5)] * len(state.action_log())
    return handrecord.build(state, match_id="m", match=MATCH, seated=[0, 1, 2], out=[False] * 3,
                            decisions=decisions, faults=[])


def as_version_2(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as the releases before ``raise_rule`` wrote it: version 2, naming no raise rule."""
    old = {k: v for k, v in json.loads(json.dumps(record)).items() if k != "raise_rule"}
    old["record_version"] = 2
    return old
