"""Train a heads-up policy against ``bots.solid`` with masked PPO, in NumPy, then evaluate it on duplicate deals.

Run from the repository's top directory (needs the ``rl`` extra: ``make rl``)::

    python -m examples.train_ppo --updates 30 --steps 4096 --lr 1e-3 --seed 1

The learner plays :class:`harness.rl.gym.SingleAgentEnv` with ``features=True`` and ``seat="rotate"`` (both
seats in turn) against the ``solid`` example bot driven in-process (:class:`~harness.rl.gym.SdkOpponent`); the
hands are the referee's deals of match ``--seed``. Its policy and input are :mod:`examples.ppo_policy`'s.

PPO (J. Schulman et al., "Proximal Policy Optimization Algorithms", 2017) with an action mask (illegal logits
set to minus infinity, as S. Huang and S. Ontañón, "A Closer Look at Invalid Action Masking in Policy Gradient
Algorithms", 2022): per update, ``--steps`` decisions or more (whole hands), advantages by GAE (gamma 1, lambda
0.95: one hand is one episode, its reward the net big blinds at its end, divided by :data:`REWARD_SCALE`), then
:data:`EPOCHS` passes of minibatches of :data:`MINIBATCH` over the clipped surrogate (clip :data:`CLIP`) with an
entropy bonus (:data:`ENTROPY`), Adam, gradients clipped to a global norm of :data:`MAX_NORM`. A separate value
network (inputs -> 32 tanh -> 1) learns the return. Every random draw comes from ``--seed``: the same command
writes the same weights, bit for bit.

At the end it writes the policy's weights (``--out``, default ``examples/ppo_weights.npz``, the weights the
bot plays) and, unless ``--eval-hands 0``, prints :func:`harness.rl.evaluate` against solid: hands
``0..N-1`` of match seed 2026, each in both seats, beside check/fold and always-call on the same deals.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from examples import ppo_policy as pp

__all__ = ["Adam", "init", "policy_loss", "train"]

GAMMA, LAMBDA = 1.0, 0.95
CLIP = 0.2
ENTROPY = 0.01
EPOCHS = 4
MINIBATCH = 256
MAX_NORM = 0.5
REWARD_SCALE = 20.0  # big blinds per unit of the value network's target
HIDDEN = 32


def init(rng: np.random.Generator) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Initial ``(policy, value)`` parameters: scaled normal weights, zero biases, a near-uniform first policy."""
    def layer(n_in: int, n_out: int, gain: float) -> np.ndarray:
        weights: np.ndarray = rng.standard_normal((n_in, n_out)) * gain / np.sqrt(n_in)
        return weights

    n, h, a = pp.N_INPUTS, HIDDEN, len(pp.ACTIONS)
    policy = {"w1": layer(n, h, 1.0), "b1": np.zeros(h), "w2": layer(h, h, 1.0), "b2": np.zeros(h),
              "w3": layer(h, a, 0.01), "b3": np.zeros(a)}
    value = {"v1": layer(n, h, 1.0), "c1": np.zeros(h), "v2": layer(h, 1, 1.0), "c2": np.zeros(1)}
    return policy, value


def _log_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    z = np.where(legal, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    log_p: np.ndarray = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return log_p


def policy_loss(params: dict[str, np.ndarray], x: np.ndarray, legal: np.ndarray, actions: np.ndarray,
                old_logp: np.ndarray, adv: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """The PPO policy loss of a minibatch and its gradient (by hand; a test checks it by finite differences).

    ``loss = -mean(min(r A, clip(r, 1 - CLIP, 1 + CLIP) A)) - ENTROPY * mean(H)``, ``r = exp(logp - old_logp)``,
    ``H`` the entropy over the legal actions. Shapes: ``x`` (B, N_INPUTS), ``legal`` (B, 10) bool, ``actions``,
    ``old_logp``, ``adv`` (B,).
    """
    b = len(x)
    logits, h1, h2 = pp.forward(params, x)
    logp_all = _log_softmax(logits, legal)
    p = np.exp(logp_all)
    logp_safe = np.where(legal, logp_all, 0.0)
    rows = np.arange(b)
    logp = logp_all[rows, actions]
    ratio = np.exp(logp - old_logp)
    clipped = np.clip(ratio, 1 - CLIP, 1 + CLIP)
    surrogate = np.minimum(ratio * adv, clipped * adv)
    entropy = -(p * logp_safe).sum(axis=1)
    loss = float(-surrogate.mean() - ENTROPY * entropy.mean())
    # d loss / d logp: the unclipped term is the minimum where it is active
    active = ratio * adv <= clipped * adv
    d_logp = np.where(active, -ratio * adv, 0.0) / b
    d_logits = -p * d_logp[:, None]
    d_logits[rows, actions] += d_logp
    d_logits += ENTROPY / b * p * (logp_safe + entropy[:, None])  # d(-c H)/dz = c p (log p + H)
    grads = {"w3": h2.T @ d_logits, "b3": d_logits.sum(axis=0)}
    d_h2 = d_logits @ params["w3"].T * (1 - h2 ** 2)
    grads["w2"], grads["b2"] = h1.T @ d_h2, d_h2.sum(axis=0)
    d_h1 = d_h2 @ params["w2"].T * (1 - h1 ** 2)
    grads["w1"], grads["b1"] = x.T @ d_h1, d_h1.sum(axis=0)
    return loss, grads


def value_of(value: dict[str, np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(V (B,), hidden)`` of the value network."""
    h = np.tanh(x @ value["v1"] + value["c1"])
    return (h @ value["v2"] + value["c2"])[:, 0], h


def value_loss(value: dict[str, np.ndarray], x: np.ndarray, target: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """``0.5 * mean((V - target)^2)`` and its gradient."""
    v, h = value_of(value, x)
    d_v = (v - target)[:, None] / len(x)
    d_h = d_v @ value["v2"].T * (1 - h ** 2)
    return float(0.5 * ((v - target) ** 2).mean()), {"v2": h.T @ d_v, "c2": d_v.sum(axis=0), "v1": x.T @ d_h,
                                                     "c1": d_h.sum(axis=0)}


class Adam:
    """Adam (D. Kingma and J. Ba, 2015) over a dict of arrays, with the gradients clipped to a global norm."""

    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict[str, np.ndarray]) -> None:
        norm = np.sqrt(sum(float((g ** 2).sum()) for g in grads.values()))
        scale = min(1.0, MAX_NORM / (norm + 1e-8))
        self.t += 1
        for k, g in grads.items():
            g = g * scale
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m_hat, v_hat = self.m[k] / (1 - 0.9 ** self.t), self.v[k] / (1 - 0.999 ** self.t)
            self.params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def _rollout(env: Any, view: dict[str, Any], policy: dict[str, np.ndarray], value: dict[str, np.ndarray], steps: int,
             rng: np.random.Generator) -> tuple[dict[str, np.ndarray], dict[str, Any], list[float]]:
    """Whole hands until ``steps`` decisions or more: inputs, masks, actions, log-probabilities, advantages,
    returns; the view after the last hand; the learner's net big blinds of each hand."""
    xs, legals, actions, logps, hands, rewards = [], [], [], [], [], []
    nets: list[float] = []
    hand = 0
    while True:
        obs = view["observation"]
        x, legal = pp.inputs(obs), pp.abstract_mask(view["action_mask"])
        logp = _log_softmax(pp.forward(policy, x[None, :])[0], legal[None, :])[0]
        a = int(rng.choice(len(legal), p=np.exp(logp)))
        view, reward, done, _, _ = env.step(pp.index_of(a, obs))
        xs.append(x)
        legals.append(legal)
        actions.append(a)
        logps.append(logp[a])
        hands.append(hand)
        rewards.append(reward / REWARD_SCALE)
        if done:
            nets.append(reward)
            hand += 1
            view, _ = env.reset()
            if len(xs) >= steps:
                break
    x = np.array(xs)
    v = value_of(value, x)[0]
    r, h = np.array(rewards), np.array(hands)
    adv = np.zeros(len(x))
    running = 0.0
    for t in range(len(x) - 1, -1, -1):  # GAE within each hand: the value after a hand's last step is 0
        last = t == len(x) - 1 or h[t + 1] != h[t]
        next_v = 0.0 if last else v[t + 1]
        delta = r[t] + GAMMA * next_v - v[t]
        running = delta + (0.0 if last else GAMMA * LAMBDA * running)
        adv[t] = running
    batch = {"x": x, "legal": np.array(legals), "actions": np.array(actions), "logp": np.array(logps),
             "adv": adv, "ret": adv + v}
    return batch, view, nets


def train(updates: int, steps: int, lr: float, seed: int, log: Any = print) -> dict[str, np.ndarray]:
    """Train against solid (module doc); the policy's parameters (:data:`examples.ppo_policy.PARAMS`)."""
    from bots.solid import Solid
    from harness.rl.gym import SdkOpponent, SingleAgentEnv

    rng = np.random.default_rng(seed)
    policy, value = init(rng)
    p_opt, v_opt = Adam(policy, lr), Adam(value, lr)
    env = SingleAgentEnv([SdkOpponent(Solid(seed=1))], seat="rotate", features=True)
    view, _ = env.reset(seed=seed)
    total = 0
    for update in range(1, updates + 1):
        batch, view, nets = _rollout(env, view, policy, value, steps, rng)
        total += len(nets)
        n = len(batch["x"])
        for _ in range(EPOCHS):
            order = rng.permutation(n)
            for start in range(0, n, MINIBATCH):
                i = order[start:start + MINIBATCH]
                adv = batch["adv"][i]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                _, grads = policy_loss(policy, batch["x"][i], batch["legal"][i], batch["actions"][i],
                                       batch["logp"][i], adv)
                p_opt.step(grads)
                _, grads = value_loss(value, batch["x"][i], batch["ret"][i])
                v_opt.step(grads)
        log(f"update {update:3}/{updates}: {len(nets)} hands, {n} decisions, "
            f"{100 * np.mean(nets):+8.1f} bb/100 while learning (sampled actions), {total} hands in all")
    return policy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.train_ppo", description=__doc__.split("\n")[0])
    parser.add_argument("--updates", type=int, default=30, help="PPO updates (default 30)")
    parser.add_argument("--steps", type=int, default=4096, help="decisions per update, at least (default 4096)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate (default 1e-3)")
    parser.add_argument("--seed", type=int, default=1, help="match seed of the deals and seed of every draw")
    parser.add_argument("--out", type=Path, default=pp.WEIGHTS, help="where the weights go (.npz)")
    parser.add_argument("--eval-hands", type=int, default=300,
                        help="duplicate deals of the evaluation against solid (0: none; default 300)")
    args = parser.parse_args(argv)
    for name in ("updates", "steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_hands == 1 or args.eval_hands < 0:
        parser.error("--eval-hands must be 0 or at least 2 (an interval needs two duplicate sets)")
    if not args.lr > 0:
        parser.error("--lr must be above 0")
    params = train(args.updates, args.steps, args.lr, args.seed)
    np.savez(args.out, **params)  # type: ignore[arg-type]  # numpy's stub types the keywords as allow_pickle
    shown = os.path.relpath(args.out)  # examples/ppo_weights.npz when run from the top directory
    print(f"weights written to {args.out if shown.startswith('..') else shown}")
    if args.eval_hands:
        from bots.solid import Solid
        from harness.rl.gym import SdkOpponent
        from harness.rl.strength import evaluate

        result = evaluate(pp.PpoPolicy(params), lambda: [SdkOpponent(Solid(seed=1))], hands=args.eval_hands,
                          seed=2026, features=True)
        print(f"against solid, hands 0-{args.eval_hands - 1} of seed 2026 in both seats:")
        print(result.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
