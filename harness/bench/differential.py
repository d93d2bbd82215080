"""The differential test of the native core: random hands through both engines, compared after every action.

The pure-Python engine (:class:`harness.engine.HandState`) is the oracle. Each hand draws its settings
(2-6 seats, no-limit and fixed-limit with caps, blinds and/or antes or ante-only, per-seat replacements,
short and deep stacks, any button, any int seed; one in ten under the earlier releases' raise rule, E14)
and then actions from a seeded chooser: mostly legal ones
(amounts anywhere in ``min_to..max_to``, draws of 0..4 held cards), and one in five malformed or against
the rules (an over-reaching raise, a raise below the minimum, the wrong kind, a card not held, a
discard twice, five discards) that both engines must refuse with the same error class and message, and
whose :meth:`HandState.capped` both must agree on. After every action both show the same phase, seat to
act, legal set, pot, stacks, bets, contributions, folds, all-ins, cards, draw counts and default action;
at the end the same history, action log (chips owed and added, cards received, R4.4 reshuffles) and result
(pots, winners, shares, shown hands, returned chips, net).

``tests/test_native_core.py`` runs it under hypothesis and for some thousands of seeded hands;
``harness bench engine --differential N`` runs N hands and prints the count.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from harness.engine import Action, ActionKind, GameConfig, HandState, Replacements, Structure
from harness.engine.actions import BET, DRAW, RAISE
from harness.engine.errors import IllegalActionError, InvalidActionError
from harness.engine.native import NativeHand, start_native
from harness.errors import HarnessError

__all__ = ["Mismatch", "choose", "compare_state", "compare_result", "random_config", "random_table",
           "play_differential", "run"]

_NATIVE_ERRORS = {"InvalidActionError": InvalidActionError, "IllegalActionError": IllegalActionError}


class Mismatch(HarnessError, AssertionError):
    """The two engines disagree; the message names the field, both values and how to replay the hand."""


def random_config(rnd: random.Random, n: int) -> GameConfig:
    """Settings for a table of ``n``: any structure, blinds and/or antes or ante-only, caps, replacements."""
    structure = rnd.choice((Structure.NO_LIMIT, Structure.FIXED_LIMIT))
    unit = rnd.choice((2, 4, 10, 20, 100))
    replacements = Replacements.PER_SEAT if n <= 4 and rnd.random() < 0.3 else Replacements.STOCK
    cap = rnd.choice((0, 1, 2, 3, 4, 4, 4))
    if rnd.random() < 0.2:  # ante-only (R2.5)
        return GameConfig(structure=structure, blinds=False, ante=rnd.randint(1, unit), min_bet=unit, cap=cap,
                          replacements=replacements)
    ante = rnd.randint(1, unit // 2 + 1) if rnd.random() < 0.35 else 0
    return GameConfig(structure=structure, small_blind=unit // 2, big_blind=unit, ante=ante, cap=cap,
                      replacements=replacements)


def _stack(rnd: random.Random, unit: int) -> int:
    kind = rnd.random()
    if kind < 0.25:  # short: all-in on the blinds or soon after (R2.6)
        return rnd.randint(1, 3 * unit)
    if kind < 0.8:
        return rnd.randint(3 * unit, 60 * unit)
    return rnd.randint(60 * unit, 400 * unit)


def _seed(rnd: random.Random) -> int:
    kind = rnd.random()
    if kind < 0.05:
        return -rnd.getrandbits(40)
    if kind < 0.1:
        return rnd.getrandbits(130)  # more than 64 bits: CPython's key of several words
    return rnd.getrandbits(63)


def choose(state: HandState, rnd: random.Random) -> Action:
    """A legal action most of the time, else one that should be refused or capped."""
    lg = state.legal()
    s: int = state.to_act  # type: ignore[assignment]
    held = state.cards[s]
    if rnd.random() < 0.8:
        kind = rnd.choice(lg.actions)
        if kind is DRAW:
            return Action(DRAW, 0, tuple(rnd.sample(held, rnd.randint(0, 4))))
        if kind is BET or kind is RAISE:
            pick = rnd.random()
            to = lg.min_to if pick < 0.3 else lg.max_to if pick < 0.5 else rnd.randint(lg.min_to, lg.max_to)
            return Action(kind, to)
        return Action(kind)
    wrong = rnd.randrange(7)
    all_in = state.bets[s] + state.stacks[s]
    if wrong == 0:  # over-reaching: beyond the all-in or the deepest reach (R3.4, E14, E15)
        return Action(rnd.choice((BET, RAISE)), all_in + rnd.randint(0, 3 * state.config.unit))
    if wrong == 1:  # below the minimum, or any amount
        return Action(rnd.choice((BET, RAISE)), rnd.randint(0, max(1, lg.min_to)))
    if wrong == 2:
        return Action(rnd.choice(tuple(ActionKind)), rnd.randint(0, all_in + 1))
    if wrong == 3:  # a card not held (R4.1)
        other = [c for c in range(52) if c not in held]
        return Action(DRAW, 0, (rnd.choice(held), rnd.choice(other)))
    if wrong == 4:  # a discard twice
        c = rnd.choice(held)
        return Action(DRAW, 0, (c, c))
    if wrong == 5:  # five discards
        return Action(DRAW, 0, tuple(held[:5]))
    return Action(rnd.choice(tuple(ActionKind)))


def _legal_of(state: HandState) -> tuple[Any, ...]:
    lg = state.legal()
    return [str(k) for k in lg.actions], lg.call_amount, lg.min_to, lg.max_to, lg.max_discards


def _fail(what: str, py: object, native: object, where: str) -> Mismatch:
    return Mismatch(f"{where}: {what} differ: python {py!r}, native {native!r}")


def compare_state(state: HandState, native: NativeHand, where: str) -> None:
    """Raise :class:`Mismatch` unless both engines show the same hand now (the fields of the module doc)."""
    pairs: tuple[tuple[str, Any, Any], ...] = (
        ("phase", str(state.phase), native.phase),
        ("to_act", state.to_act, native.to_act),
        ("legal", _legal_of(state), tuple(native.legal())),
        ("pot", state.pot, native.pot),
        ("stacks", state.stacks, native.stacks),
        ("bets", state.bets, native.bets),
        ("contrib", state.contrib, native.contrib),
        ("folded", state.folded, native.folded),
        ("all_in", state.all_in, native.all_in),
        ("cards", state.cards, native.cards),
        ("draws", state.draws, native.draws),
    )
    for what, py, nat in pairs:
        if py != nat:
            raise _fail(what, py, nat, where)
    if not state.is_complete:
        py_default = str(state.default_action().kind)
        if py_default != native.default_action():
            raise _fail("default action", py_default, native.default_action(), where)
    else:
        compare_result(state, native, where)


def _history(state: HandState) -> list[tuple[int, str, int, bool]]:
    return [(e["seat"], e["action"], e.get("amount", e.get("count", 0)), e.get("all_in", False))
            for e in state.history]


def _log(state: HandState) -> list[tuple[Any, ...]]:
    return [(e[0], str(e[1]), *e[2:]) for e in state.action_log()]


def compare_result(state: HandState, native: NativeHand, where: str) -> None:
    """Raise :class:`Mismatch` unless the complete hands have the same history, action log and result."""
    if _history(state) != native.events():
        raise _fail("history", _history(state), native.events(), where)
    if _log(state) != native.action_log():
        raise _fail("action log", _log(state), native.action_log(), where)
    r = state.result()
    net, pots, shown, uncalled, final = native.result()
    py_pots = [(p.amount, list(p.eligible), list(p.winners), list(p.shares)) for p in r.pots]
    py_shown = [(s, h.value, list(h.five)) for s, h in r.shown.items()]
    for what, py, nat in (("net", list(r.net), net), ("pots", py_pots, [tuple(p) for p in pots]),
                          ("shown", py_shown, [tuple(x) for x in shown]),
                          ("uncalled", [tuple(u) for u in r.uncalled], [tuple(u) for u in uncalled]),
                          ("final stacks", list(r.final_stacks), final)):
        if py != nat:
            raise _fail(what, py, nat, where)


def apply_both(state: HandState, native: NativeHand, action: Action, where: str) -> bool:
    """Apply ``action`` to both; both must accept it, or both refuse it with the same error and message.

    Returns:
        True if it was applied.
    """
    py_error: Exception | None = None
    try:
        state.apply(action)
    except (InvalidActionError, IllegalActionError) as exc:
        py_error = exc
    try:
        native.apply(str(action.kind), action.amount, list(action.discards))
    except ValueError as exc:
        name = type(exc).__name__
        if py_error is None or _NATIVE_ERRORS.get(name) is not type(py_error) or str(exc) != str(py_error):
            raise _fail(f"refusal of {action}", py_error, exc, where) from None
        return False
    if py_error is not None:
        raise _fail(f"refusal of {action}", py_error, None, where)
    return True


def play_differential(config: GameConfig, stacks: list[int], button: int, seed: int, rnd: random.Random,
                      *, raise_cap: bool = True, max_actions: int = 400) -> int:
    """One hand through both engines with actions from ``rnd``, compared after every one.

    ``raise_cap`` False plays the earlier releases' rule (raises up to the all-in, RULES.md E14).

    Returns:
        the number of actions applied.

    Raises:
        Mismatch: the first difference, with how to replay the hand.
    """
    state = HandState.start(config, stacks, button, seed, raise_cap=raise_cap)
    native = start_native(config, stacks, button, seed, raise_cap=raise_cap)
    applied = 0
    step = -1
    action = None
    try:
        compare_state(state, native, "")
        while step + 1 < max_actions:
            step += 1
            if state.is_complete:
                return applied
            action = choose(state, rnd)
            if action.kind is BET or action.kind is RAISE:
                py_capped = state.capped(action)
                nat_capped = native.capped(str(action.kind), action.amount)
                if (str(py_capped.kind), py_capped.amount if py_capped.kind in (BET, RAISE) else 0) != nat_capped:
                    raise _fail("capped", py_capped, nat_capped, "")
                if rnd.random() < 0.5:
                    action = py_capped  # what the referee plays (R3.10)
            applied += apply_both(state, native, action, "")
            compare_state(state, native, "")
        raise Mismatch(f"not complete after {max_actions} actions")
    except Mismatch as exc:  # the place is written only when needed: formatting it costs more than the check
        where = f"config {config.to_dict()} stacks {stacks} button {button} seed {seed} raise_cap {raise_cap}"
        at = " at the start" if step < 0 else f", action {step} ({action}) after {state.history}"
        raise Mismatch(f"{where}{at}{exc}") from None


def random_table(rnd: random.Random) -> tuple[GameConfig, list[int], int, int]:
    """Settings, stacks, button and seed of one random hand."""
    n = rnd.randint(2, 6)
    config = random_config(rnd, n)
    return config, [_stack(rnd, config.unit) for _ in range(n)], rnd.randrange(n), _seed(rnd)


def run(hands: int, seed: int = 1, progress: Callable[[int], None] | None = None) -> dict[str, int]:
    """``hands`` random hands through both engines.

    Returns:
        ``{"hands": ..., "actions": ..., "seed": ...}``.

    Raises:
        Mismatch: the first difference.
    """
    rnd = random.Random(seed)
    actions = 0
    for h in range(hands):
        config, stacks, button, hand_seed = random_table(rnd)
        actions += play_differential(config, stacks, button, hand_seed, rnd, raise_cap=rnd.random() >= 0.1)
        if progress is not None and (h + 1) % 10_000 == 0:
            progress(h + 1)
    return {"hands": hands, "actions": actions, "seed": seed}
