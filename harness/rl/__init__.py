"""Reinforcement-learning environments of Seven Card Draw (the optional extra: ``pip install -e '.[rl]'``).

- :func:`env` / :func:`raw_env`: the PettingZoo AEC environment (:mod:`harness.rl.aec`), 2-6 seats, every
  game setting, the referee's deals for a seed;
- :mod:`harness.rl.encoding`: the action and observation encodings, field by field;
- :class:`SingleAgentEnv`: a Gymnasium environment for one seat whose opponents are in-process policies,
  any Python SDK bot among them (:mod:`harness.rl.gym`).

Nothing else in ``harness`` imports this package: the harness runs without PettingZoo and Gymnasium.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"harness.rl needs the optional extra 'rl' ({exc.name} is missing): pip install -e '.[rl]'"
    ) from None

from harness.rl.aec import SevenCardDrawEnv, env, raw_env

__all__ = ["SevenCardDrawEnv", "env", "raw_env"]
