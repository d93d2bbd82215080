"""Reinforcement-learning environments of Seven Card Draw (the optional extra: ``make rl``).

- :func:`env` / :func:`raw_env`: the PettingZoo AEC environment (:mod:`harness.rl.aec`), 2-6 seats, every
  game setting, the referee's deals for a seed;
- :mod:`harness.rl.encoding`: the action and observation encodings, field by field (the action space's layout
  has its home in :mod:`harness.rl.actions`, which the features use too);
- :func:`as_bot`: a policy as a bot over the real protocol (:mod:`harness.rl.bot`);
- :class:`harness.rl.gym.SingleAgentEnv`: a Gymnasium environment for one seat whose opponents are in-process policies,
  any Python SDK bot among them (:mod:`harness.rl.gym`);
- :func:`evaluate`: a policy's bb/100 with a 95% interval on duplicate deals, beside the check/fold and
  always-call baselines (:mod:`harness.rl.strength`);
- :mod:`harness.rl.features`: the ``features=True`` observation fields and the draw abstraction;
- :func:`lbr`: local best response against an in-process bot, heads-up: a lower bound on its exploitability in
  bb/100 (:mod:`harness.rl.best_response`; ``harness lbr``).

Nothing else in ``harness`` imports this package: the harness runs without PettingZoo and Gymnasium.
"""

from __future__ import annotations

__all__ = ["SevenCardDrawEnv", "as_bot", "env", "evaluate", "lbr", "raw_env"]


def __getattr__(name: str) -> object:  # PEP 562: a bot made by as_bot starts without PettingZoo/Gymnasium
    if name == "as_bot":
        from harness.rl.bot import as_bot

        return as_bot
    if name == "lbr":  # needs numpy only when the bot is a policy (as_bot)
        from harness.rl.best_response import lbr

        return lbr
    if name in ("SevenCardDrawEnv", "env", "raw_env", "evaluate"):
        try:
            from harness.rl import aec
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ImportError(
                f"harness.rl.{name} needs the optional extra 'rl' ({exc.name} is missing): make rl, or "
                "pip install --config-settings editable_mode=compat -e '.[rl]'"
            ) from None
        if name == "evaluate":
            from harness.rl.strength import evaluate

            return evaluate
        return getattr(aec, name)
    raise AttributeError(f"module 'harness.rl' has no attribute {name!r}")
