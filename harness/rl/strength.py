"""How strong is a policy (``harness.rl.evaluate``)? bb/100 on the referee's duplicate deals, with a 95%
interval, beside two baselines.

:func:`evaluate` plays hands ``0 .. hands-1`` of one match seed (the deals of ``harness match --seed S``,
:mod:`harness.rl.aec`) once with the policy in every seat, the opponents in the others: each deal played in
every seat is one duplicate set, so the luck of the cards largely cancels (docs/RULES.md's duplicate, the
tournament's rotations). bb/100 and its interval are the tournament's statistics over those sets
(:func:`harness.tournament.stats.estimate`: Student's t over sets). The same deals are played by two
baselines, :func:`check_fold` and :func:`always_call`: a policy that does not beat them has learned little.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.rl import encoding
from harness.rl.gym import Policy, SdkOpponent, SingleAgentEnv
from harness.tournament.stats import Estimate, estimate

__all__ = ["Evaluation", "always_call", "check_fold", "evaluate"]

Opponents = Sequence[Policy | SdkOpponent] | Callable[[], Sequence[Policy | SdkOpponent]]


def check_fold(view: dict[str, np.ndarray]) -> int:
    """The check/fold baseline: check when free, else fold; stand pat at the draw."""
    mask = view["action_mask"]
    if mask[encoding.DRAW_BASE]:
        return encoding.DRAW_BASE
    return encoding.FOLD if mask[encoding.FOLD] else encoding.CALL


def always_call(view: dict[str, np.ndarray]) -> int:
    """The always-call baseline (a calling station): check or call every bet; stand pat at the draw."""
    return encoding.DRAW_BASE if view["action_mask"][encoding.DRAW_BASE] else encoding.CALL


@dataclass(frozen=True)
class Evaluation:
    """A policy's result and the baselines' on the same duplicate deals (each an :class:`Estimate`: bb/100,
    the 95% interval ``low..high``, duplicate sets, hands)."""

    policy: Estimate
    check_fold: Estimate | None
    always_call: Estimate | None

    def beats(self, baseline: str) -> bool:
        """True when the policy's interval lies wholly above the baseline's bb/100 and its interval
        (``baseline``: ``"check_fold"`` or ``"always_call"``)."""
        other = getattr(self, baseline)
        return (other is not None and self.policy.low is not None and other.high is not None
                and self.policy.low > other.high)

    def summary(self) -> str:
        """Lines ``name +x.x bb/100 (95% low..high, N hands)``, then per baseline whether the policy beats it,
        loses to it (the intervals apart either way) or neither (they overlap)."""
        def line(name: str, e: Estimate) -> str:
            ci = f"95% {e.low:+.1f}..{e.high:+.1f}" if e.low is not None and e.high is not None else "no interval"
            return f"{name:12} {e.bb_per_100:+8.1f} bb/100 ({ci}, {e.hands} hands)"

        lines = [line("policy", self.policy)]
        for name in ("check_fold", "always_call"):
            e = getattr(self, name)
            if e is not None:
                lines.append(line(name, e))
        mine = self.policy
        for name in ("check_fold", "always_call"):
            other = getattr(self, name)
            if other is None:
                continue
            if self.beats(name):
                lines.append(f"the policy beats {name}: its interval lies above {name}'s")
            elif mine.high is not None and other.low is not None and mine.high < other.low:
                lines.append(f"the policy LOSES to {name}: its interval lies below {name}'s")
            else:
                lines.append(f"the policy does not clearly beat {name}: the intervals overlap")
        return "\n".join(lines)


def _sets(policy: Policy, opponents: Opponents, hands: int, seed: int | str, table: dict[str, Any]) -> Estimate:
    n = None
    nets: list[float] = []
    for seat in range(len(opponents() if callable(opponents) else opponents) + 1):
        env = SingleAgentEnv(list(opponents() if callable(opponents) else opponents), seat=seat, **table)
        n = env.aec.num_players
        row = [env.play_hand(policy, h, seed) for h in range(hands)]
        nets = row if not nets else [a + b for a, b in zip(nets, row, strict=True)]
    assert n is not None
    return estimate([(x, n) for x in nets])


def evaluate(policy: Policy, opponents: Opponents, hands: int = 300, seed: int | str = 2026, baselines: bool = True,
             **table: Any) -> Evaluation:
    """bb/100 of ``policy`` against ``opponents`` on duplicate deals (module doc), beside the baselines.

    Args:
        policy: ``policy(view) -> action index`` (:mod:`harness.rl.encoding`), as the environments take it.
        opponents: one per other seat (policies or :class:`~harness.rl.gym.SdkOpponent`), or a function
            returning fresh ones (called once per seat of the policy and per baseline: no memory carries over).
        hands: deals; each is played once with the policy in every seat (``hands * seats`` hands in all).
        seed: the match seed of the deals (as ``harness match --seed``).
        baselines: also play :func:`check_fold` and :func:`always_call` on the same deals.
        **table: the table's settings (``game``, ``starting_stack``, ``features``...), as :class:`SingleAgentEnv`.

    Returns:
        an :class:`Evaluation`.

    Raises:
        ValueError: ``hands`` below 2 (an interval needs two sets), and what :class:`SingleAgentEnv` raises.
    """
    if type(hands) is not int or hands < 2:
        raise ValueError(f"hands must be a whole number >= 2 (an interval needs two duplicate sets), got {hands!r}")
    mine = _sets(policy, opponents, hands, seed, table)
    if not baselines:
        return Evaluation(mine, None, None)
    return Evaluation(mine, _sets(check_fold, opponents, hands, seed, table),
                      _sets(always_call, opponents, hands, seed, table))
