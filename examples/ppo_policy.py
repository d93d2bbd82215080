"""The policy trained by ``examples/train_ppo.py`` (masked PPO), and the bot that plays it.

Run as a bot (:class:`PpoBot`): ``python -m examples.ppo_policy`` (from the repository's top directory; heads-up
tables only), e.g. ``harness match --bot ppo='python -m examples.ppo_policy' --bot solid='python -m bots.solid'``.

The policy reads the ``features=True`` observation of the environments (:mod:`harness.rl.encoding`,
:mod:`harness.rl.features`) at two seats, so the environment, ``harness.rl.evaluate`` and the bot
(:func:`harness.rl.as_bot`, which rebuilds that observation from each request) give it the same input.

Its input (:func:`inputs`, :data:`N_INPUTS` values), field by field:

====  =========================================================================================
0     1 (a bias)
1-9   ``category``: one-hot category of the best five now (high card .. straight flush, R5.2)
10    ``equity``: chance to beat one random seven-card hand at showdown, 0..1
11    ``outs`` / 10 before the draw (unseen cards that raise the category), 0 after it
12    ``pot_odds``: call / (pot + call), 0 with nothing to call
13    ``position``: 1 on the button (acts last after the draw), 0 in the big blind
14-16 phase: one-hot bet1, draw, bet2
17    log(1 + pot in big blinds) / 4
18    log(1 + chips to call in big blinds) / 4
19-24 the opponent's draw: one-hot not yet, 0, 1, 2, 3, 4 cards (R4.3: public)
25    (own draw count + 1) / 5, 0 before the draw
26    the opponent's bets and raises in this betting round, at most 3, / 3
27    own bets and raises in this betting round, at most 3, / 3
28    the opponent's bets and raises before the draw, at most 3, / 3
====  =========================================================================================

Its actions (:data:`ACTIONS`, ten): the seven betting indices of the encoding (fold, check/call, bet or raise
to the minimum, half the pot, the pot, two pots, all-in) and, at the draw, the three choices of the draw
abstraction (:func:`harness.rl.features.draw_choices`: keep the best keep, the made hand, a four-card draw),
read from the observation's ``choices`` field. A betting action is legal when the environment's mask allows
its index; the three draws are legal at the draw.

The network: inputs -> 32 tanh -> 32 tanh -> 10 logits; illegal actions are masked out; the bot plays the
most probable legal action (greedy). Weights: ``examples/ppo_weights.npz`` (arrays ``w1 b1 w2 b2 w3 b3``,
float64).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.rl import encoding, features
from harness.rl.bot import PolicyBot

__all__ = ["ACTIONS", "N_INPUTS", "WEIGHTS", "PpoBot", "PpoPolicy", "abstract_mask", "forward", "index_of", "inputs",
           "load"]

SEATS = 2
WEIGHTS = Path(__file__).with_name("ppo_weights.npz")
ACTIONS = ("fold", "call", "min", "half_pot", "pot", "two_pots", "all_in", "keep_best", "keep_made", "keep_draw")
N_BET = encoding.DRAW_BASE  # the betting indices 0..6 are the encoding's own
N_INPUTS = 29
PARAMS = ("w1", "b1", "w2", "b2", "w3", "b3")

_BASE = encoding.layout(SEATS)
_FEAT = features.layout(encoding.obs_size(SEATS))
_SIZE = encoding.obs_size(SEATS) + features.SIZE


def _counts(obs: np.ndarray, round_: int, rel: int) -> float:
    """Bets and raises of relative seat ``rel`` in betting round ``round_`` (0 before the draw), capped at 3."""
    at = _BASE["actions"].start + (round_ * SEATS + rel) * 3 + 2
    return min(float(obs[at]), 3.0) / 3.0


def inputs(obs: np.ndarray) -> np.ndarray:
    """The policy's input (module doc) of one ``features=True`` heads-up observation vector.

    Raises:
        ValueError: the observation is not of that length (another table size, or ``features`` off).
    """
    if obs.shape != (_SIZE,):
        raise ValueError(f"the PPO example reads heads-up features=True observations of {_SIZE} values, "
                         f"got shape {obs.shape}")
    x = np.zeros(N_INPUTS)
    x[0] = 1.0
    x[1:10] = obs[_FEAT["category"]]
    x[10] = obs[_FEAT["equity"].start]
    x[11] = obs[_FEAT["outs"].start] / 10.0
    x[12] = obs[_FEAT["pot_odds"].start]
    x[13] = obs[_FEAT["position"].start]
    phase = obs[_BASE["phase"]]
    x[14:17] = phase[:3]
    x[17] = np.log1p(obs[_BASE["pot"].start]) / 4.0
    x[18] = np.log1p(obs[_BASE["legal"].start]) / 4.0
    draws = obs[_BASE["draws"]]  # relative seats: 0 me, 1 the opponent; -1 before a seat's draw
    x[19 + int(draws[1]) + 1] = 1.0
    x[25] = (draws[0] + 1.0) / 5.0 if draws[0] >= 0 else 0.0
    now = 1 if phase[2] else 0
    x[26] = _counts(obs, now, 1)
    x[27] = _counts(obs, now, 0)
    x[28] = _counts(obs, 0, 1)
    return x


def abstract_mask(mask: np.ndarray) -> np.ndarray:
    """The legal :data:`ACTIONS` (bool, 10) of an environment's action mask."""
    out = np.zeros(len(ACTIONS), dtype=bool)
    if mask[encoding.DRAW_BASE]:
        out[N_BET:] = True
    else:
        out[:N_BET] = mask[:N_BET] == 1
    return out


def index_of(action: int, obs: np.ndarray) -> int:
    """The environment's action index of :data:`ACTIONS` ``[action]`` in observation ``obs``."""
    if action < N_BET:
        return action
    return encoding.DRAW_BASE + int(obs[_FEAT["choices"].start + action - N_BET])


def forward(params: dict[str, np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(logits, h1, h2)`` of inputs ``x`` (batch, N_INPUTS): the logits (batch, 10) and the hidden layers."""
    h1 = np.tanh(x @ params["w1"] + params["b1"])
    h2 = np.tanh(h1 @ params["w2"] + params["b2"])
    return h2 @ params["w3"] + params["b3"], h1, h2


def load(path: str | Path = WEIGHTS) -> dict[str, np.ndarray]:
    """The weights in ``path`` (an ``.npz`` with :data:`PARAMS`).

    Raises:
        OSError: the file cannot be read. KeyError: an array is missing.
    """
    with np.load(path) as data:
        return {k: data[k] for k in PARAMS}


class PpoPolicy:
    """The greedy policy of some weights: ``policy(view) -> action index`` (the environments' view)."""

    def __init__(self, params: dict[str, np.ndarray] | None = None) -> None:
        self.params = load() if params is None else params

    def __call__(self, view: dict[str, np.ndarray]) -> int:
        obs = view["observation"]
        logits = forward(self.params, inputs(obs)[None, :])[0][0]
        logits = np.where(abstract_mask(view["action_mask"]), logits, -np.inf)
        return index_of(int(np.argmax(logits)), obs)


class PpoBot(PolicyBot):
    """The bot of the shipped weights: :class:`PpoPolicy` through :func:`harness.rl.as_bot` (heads-up,
    ``features=True``), a ``protocol.sdk.Bot`` (so ``harness lbr --bot examples.ppo_policy`` finds it too)."""

    def __init__(self) -> None:
        super().__init__(PpoPolicy(), seats=SEATS, features=True)
        features.equity(range(7))  # builds the equity table now, at start-up, not within the first decision's time


if __name__ == "__main__":
    raise SystemExit(PpoBot().run())
