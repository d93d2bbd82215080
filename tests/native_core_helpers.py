"""Helpers for the native core's tests: every hand a test plays on the Python engine, mirrored in the native core.

:func:`mirror_native` patches :meth:`HandState.start`, :meth:`HandState.apply` and :meth:`HandState.capped` for
one test: each hand started is also started in the native core (``harness_core``, built by ``make install``)
with the same arguments, each action is applied to both, and after each the two must show the same hand
(:func:`harness.bench.differential.compare_state`); an action the Python engine refuses must be refused by the
native core with the same error class and message. So every worked example of RULES.md that the rule tests
play through the Python engine passes through the native core too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from harness.bench.differential import Mismatch, compare_state
from harness.engine import Action, ActionKind, HandState, IllegalActionError, InvalidActionError
from harness.engine.actions import BET, RAISE
from harness.engine.native import NativeHand, start_native

_I64 = 2**63


def _as_native(action: object) -> tuple[str, int, list[int]] | None:
    """The native call for an action, or None when its types are beyond what the native API takes."""
    if type(action) is not Action:
        return None
    try:
        kind = ActionKind(action.kind)
        discards = list(action.discards)
    except (ValueError, TypeError):
        return None
    if not all(type(c) is int and -_I64 <= c < _I64 for c in discards):
        return None
    amount = action.amount if kind in (BET, RAISE) else 0
    if type(amount) is not int or not -_I64 <= amount < _I64:
        return None
    return str(kind), amount, discards


def mirror_native(monkeypatch: pytest.MonkeyPatch) -> dict[int, tuple[HandState, NativeHand]]:
    """Mirror every hand of the calling test in the native core (module doc); returns the pairs by ``id(state)``."""
    pairs: dict[int, tuple[HandState, NativeHand]] = {}
    start = HandState.__dict__["start"].__func__
    apply = HandState.apply
    capped = HandState.capped

    def native_of(state: HandState) -> NativeHand | None:
        pair = pairs.get(id(state))
        return pair[1] if pair is not None and pair[0] is state else None

    def mirrored_start(cls: type[HandState], config: Any, stacks: Sequence[int], button: int, seed: int,
                       hand_id: int = 0, *, deck: Any = None, raise_cap: bool = True) -> HandState:
        state: HandState = start(cls, config, stacks, button, seed, hand_id, deck=deck, raise_cap=raise_cap)
        native = start_native(config, stacks, button, seed, deck=deck, raise_cap=raise_cap)
        compare_state(state, native, "native core at the start")
        pairs[id(state)] = (state, native)
        return state

    def mirrored_apply(self: HandState, action: Action) -> None:
        native = native_of(self)
        if native is None:  # a clone, or a hand built before the patch
            return apply(self, action)
        call = _as_native(action)
        try:
            apply(self, action)
        except (InvalidActionError, IllegalActionError) as exc:
            if call is not None:
                try:
                    native.apply(*call)
                except ValueError as refused:
                    if type(refused).__name__ != type(exc).__name__ or str(refused) != str(exc):
                        raise Mismatch(f"native core refuses {action} with {refused!r}, Python with {exc!r}") from None
                else:
                    raise Mismatch(f"native core accepts {action}, Python refuses it: {exc}") from None
            raise
        if call is None:
            raise Mismatch(f"Python accepts {action!r}, which the native API cannot take")
        try:
            native.apply(*call)
        except ValueError as refused:
            raise Mismatch(f"Python accepts {action}, the native core refuses it: {refused}") from None
        compare_state(self, native, f"native core after {action}")

    def mirrored_capped(self: HandState, action: Action) -> Action:
        result = capped(self, action)
        native = native_of(self)
        call = _as_native(action)
        if native is not None and call is not None and call[0] in ("bet", "raise"):
            expected = (str(result.kind), result.amount if result.kind in (BET, RAISE) else 0)
            got = native.capped(call[0], call[1])
            if got != expected:
                raise Mismatch(f"capped({action}): Python {expected}, native core {got}")
        return result

    monkeypatch.setattr(HandState, "start", classmethod(mirrored_start))
    monkeypatch.setattr(HandState, "apply", mirrored_apply)
    monkeypatch.setattr(HandState, "capped", mirrored_capped)
    return pairs
