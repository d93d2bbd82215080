"""The sequential probability ratio test of ``harness sprt``: is the new version of a bot better?

A *block* is one duplicate set between the two bots: the same deals played
twice, once in each seating (the two rotations of the tournament's duplicate
seating, :func:`harness.tournament.schedule.rotate`). Its score is the new
bot's result over both rotations in bb/100. Blocks are independent and
identically distributed, so they are the paired observations of the test,
exactly as a pair of colour-swapped games is in chess testing.

The test is the generalized SPRT on those paired results as fishtest and
fastchess run it, with Michel Van den Bergh's normal approximation of the
log-likelihood ratio (M. Van den Bergh, "A practical introduction to the
GSPRT" / "GSPRT approximation", used as ``LLR_alt2`` in fishtest's
``server/fishtest/stats/LLRcalc.py``)::

    LLR ~= n * (mu1 - mu0) * (2 * x_bar - mu0 - mu1) / (2 * var)

over the n block scores (``x_bar`` their mean, ``var`` their variance as
the maximum-likelihood estimate, dividing by n), with Wald's bounds
``lower = log(beta / (1 - alpha))`` and ``upper = log((1 - beta) / alpha)``
(A. Wald, "Sequential tests of statistical hypotheses", 1945; the same
bounds as fastchess's ``SPRT::SPRT``). H1 is accepted when the LLR reaches
``upper``, H0 when it falls to ``lower``; ``mu0 = bb0``, ``mu1 = bb1``.

The functions here are pure (no I/O); :func:`run_sprt` plays the blocks
through a match function and stores each block as it finishes, so that the
same command continues an interrupted test.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.deals import SEED_BITS, match_seed
from harness.engine import GameConfig
from harness.engine.games import GAMES, SEVEN_CARD_DRAW, GameDefinition
from harness.errors import HarnessError
from harness.history.files import history_name
from harness.match.verdict import verdicts
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec, SandboxSettings
from harness.tournament.results import LOCK_FILE, ResultsError, lock_out_dir
from harness.tournament.schedule import rotate
from harness.tournament.stats import bb_per_100

__all__ = [
    "MIN_BLOCKS",
    "SETTINGS_FILE",
    "BLOCKS_FILE",
    "Block",
    "BlockFailed",
    "SprtError",
    "SprtSettings",
    "Status",
    "block_seed",
    "bounds",
    "decide",
    "llr",
    "llr_moments",
    "lock_test",
    "read_settings",
    "run_sprt",
    "status",
]

#: Blocks played before the test may stop: the variance in the approximation is estimated from the blocks, and
#: with fewer the estimate (poker results have heavy tails: all-in pots) is too rough to trust the bounds.
MIN_BLOCKS = 16
SETTINGS_FILE = "sprt.json"
BLOCKS_FILE = "blocks.jsonl"
#: The two-sided 95% normal quantile (the bb/100 interval).
Z95 = 1.959963984540054
#: The smallest --alpha / --beta: below about 1e-308 (a subnormal float) ``(1 - beta) / alpha`` overflows and
#: Wald's upper bound is infinite, so the test could never accept H1; 1e-300 keeps a round number clear of it.
MIN_ERROR_RATE = 1e-300


class SprtError(HarnessError, ValueError):
    """A test that cannot be started or continued (bad settings, a different test in --out, a bot that failed)."""


class BlockFailed(SprtError):
    """A block whose match means nothing for a bot (failed start, put out, an error in every decision).

    The block is not an observation of the test: it is not stored, and the same command plays it again.
    The message names the block, the rotation and the bot, as ``harness match`` does (:mod:`harness.match.verdict`).
    """


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))`` of the LLR.

    Args:
        alpha: the probability of accepting H1 when H0 holds (0 < alpha < 1).
        beta: the probability of accepting H0 when H1 holds (0 < beta < 1, alpha + beta < 1).

    Raises:
        SprtError: alpha or beta outside [:data:`MIN_ERROR_RATE`, 1), or alpha + beta >= 1.
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not MIN_ERROR_RATE <= value < 1.0:
            raise SprtError(f"--{name} must be at least {MIN_ERROR_RATE:g} and below 1, got {value}")
    if alpha + beta >= 1.0:
        raise SprtError(f"--alpha + --beta must be below 1, got {alpha} + {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def mean_var(scores: Sequence[float]) -> tuple[float, float]:
    """Mean and maximum-likelihood variance (divided by n) of the scores; (0, 0) for none."""
    n = len(scores)
    if not n:
        return 0.0, 0.0
    mean = math.fsum(scores) / n
    return mean, math.fsum((x - mean) ** 2 for x in scores) / n


def llr(scores: Sequence[float], mu0: float, mu1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (mean ``mu1``) against H0 (mean ``mu0``), normal approximation.

    ``n * (mu1 - mu0) * (2 * x_bar - mu0 - mu1) / (2 * var)`` (Van den Bergh; fishtest ``LLR_alt2``).

    Args:
        scores: the block scores (bb/100 of the new bot), at least 2 for a non-zero LLR.
        mu0, mu1: the two hypotheses in the same unit, ``mu0 < mu1``.

    Returns:
        0.0 with fewer than 2 scores. When every score is the same (variance 0: identical deterministic bots on
        duplicate deals) the data leave no doubt, so the LLR is ``+-inf`` on the side of the midpoint it lies
        (0.0 at the midpoint itself).
    """
    mean, var = mean_var(scores)
    return llr_moments(len(scores), mean, var, mu0, mu1)


def llr_moments(n: int, mean: float, var: float, mu0: float, mu1: float) -> float:
    """:func:`llr` from the count, mean and maximum-likelihood variance of the scores (for running sums)."""
    if n < 2:
        return 0.0
    drift = (mu1 - mu0) * (2.0 * mean - mu0 - mu1)
    if var <= 0.0:
        return 0.0 if drift == 0.0 else math.copysign(math.inf, drift)
    return n * drift / (2.0 * var)


def decide(value: float, blocks: int, hands: int, lower: float, upper: float, max_hands: int | None = None,
           min_blocks: int = MIN_BLOCKS) -> str:
    """``"H1"``, ``"H0"``, ``"inconclusive"`` or ``"continue"`` for an LLR after ``blocks`` blocks (:func:`status`)."""
    if blocks >= min_blocks and value >= upper:
        return "H1"
    if blocks >= min_blocks and value <= lower:
        return "H0"
    if max_hands is not None and hands >= max_hands:
        return "inconclusive"
    return "continue"


@dataclass(frozen=True, slots=True)
class Block:
    """One duplicate block: the two rotations on the same deals.

    Attributes:
        index: 0, 1, ... in play order.
        net: the new bot's net chips in rotation 0 and rotation 1.
        hands: hands played in each rotation.
    """

    index: int
    net: tuple[int, int]
    hands: tuple[int, int]

    def score(self, big_blind: int) -> float:
        """The new bot's bb/100 over the block (both rotations' chips over both rotations' hands)."""
        score: float = bb_per_100(sum(self.net), sum(self.hands), big_blind)
        return score

    def to_dict(self) -> dict[str, Any]:
        """The ``blocks.jsonl`` line."""
        return {"block": self.index, "net": list(self.net), "hands": list(self.hands)}

    @classmethod
    def from_dict(cls, data: Any) -> Block:
        """Read a ``blocks.jsonl`` line (parsed JSON).

        Raises:
            ValueError: not an object of whole numbers ``block`` (>= 0), ``net`` and ``hands`` (two each,
                hands >= 0); the message says what is wrong.
        """
        if not isinstance(data, dict):
            raise ValueError(f"expected an object, got {_kind(data)}")
        for key in ("block", "net", "hands"):
            if key not in data:
                raise ValueError(f'no "{key}"')
        index = data["block"]
        if not _whole(index) or index < 0:
            raise ValueError(f'"block" must be a whole number >= 0, got {_kind(index)}')
        pairs = []
        for key in ("net", "hands"):
            pair = data[key]
            if not isinstance(pair, list) or len(pair) != 2 or not all(_whole(x) for x in pair):
                raise ValueError(f'"{key}" must be two whole numbers, got {_kind(pair)}')
            pairs.append((pair[0], pair[1]))
        if min(pairs[1]) < 0:
            raise ValueError(f'"hands" cannot be negative, got {list(pairs[1])}')
        return cls(index, pairs[0], pairs[1])


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _kind(x: Any) -> str:
    """A JSON value as a message shows it: short, its type when long."""
    text = json.dumps(x)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


@dataclass(frozen=True, slots=True)
class Status:
    """Where a test stands after some blocks.

    Attributes:
        result: ``"H1"`` (accepted: new is at least bb1 better), ``"H0"`` (not bb1 better), ``"inconclusive"`` (hands
            ran out) or ``"continue"`` (neither yet).
        llr: the log-likelihood ratio.
        lower, upper: Wald's bounds.
        blocks: blocks played.
        hands: hands played, both rotations counted.
        bb_per_100: the new bot's mean block score (bb/100).
        ci95: its 95% normal interval ``[low, high]`` (bb/100) from the block scores, ``[-inf, inf]`` before 2.
    """

    result: str
    llr: float
    lower: float
    upper: float
    blocks: int
    hands: int
    bb_per_100: float
    ci95: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: standard JSON (an infinity is the string ``"inf"``/``"-inf"``, a NaN ``null``)."""
        def num(x: float) -> float | str | None:
            if math.isnan(x):  # never from checked settings; null rather than a number it is not
                return None
            return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {"result": self.result, "llr": num(round(self.llr, 4)), "lower": round(self.lower, 4),
                "upper": round(self.upper, 4), "blocks": self.blocks, "hands": self.hands,
                "bb_per_100": round(self.bb_per_100, 3), "ci95": [num(round(c, 3)) for c in self.ci95]}

    def verdict(self, new: str, old: str, bb0: float, bb1: float) -> str:
        """The accepted hypothesis in words that are true of it, with the estimate (``""`` before a decision).

        Accepting H0 says the data favour bb0 over bb1: new is *not* bb1 better than old; it
        bounds nothing from below (new may be far worse), so the estimate and its interval follow.
        """
        low, high = self.ci95
        estimate = f"its estimate {self.bb_per_100:+.1f} bb/100 [{low:+.1f}, {high:+.1f}]"
        if self.result == "H1":
            return f"H1 accepted: {new} is better than {old} by at least {bb1:g} bb/100; {estimate}"
        if self.result == "H0":
            return (f"H0 accepted: {new} is not better than {old} by {bb1:g} bb/100 (the test favours {bb0:g} over "
                    f"{bb1:g}); {estimate}")
        return ""

    def line(self) -> str:
        """The progress line printed after each block."""
        low, high = self.ci95
        return (f"block {self.blocks:>4}  hands {self.hands:>8,}  bb/100 {self.bb_per_100:+8.2f} "
                f"[{low:+.2f}, {high:+.2f}]  LLR {self.llr:+.3f} [{self.lower:+.3f}, {self.upper:+.3f}]"
                + ("" if self.result == "continue" else f"  -> {self.result}"))


def status(scores: Sequence[float], hands: int, mu0: float, mu1: float, alpha: float, beta: float,
           max_hands: int | None = None, min_blocks: int = MIN_BLOCKS) -> Status:
    """Decide after these blocks (pure; the same function the simulation tests drive).

    Args:
        scores: block scores (bb/100), in play order.
        hands: hands played so far (both rotations).
        mu0, mu1: bb0 and bb1 (bb/100), ``mu0 < mu1``.
        alpha, beta: the error probabilities (see :func:`bounds`).
        max_hands: stop as ``"inconclusive"`` once this many hands are played; None: no limit.
        min_blocks: blocks before the test may accept either hypothesis (:data:`MIN_BLOCKS`).

    Raises:
        SprtError: bad alpha/beta, a hypothesis that is not a finite number, or ``mu0 >= mu1``.
    """
    for name, value in (("--bb0", mu0), ("--bb1", mu1)):
        if not math.isfinite(value):
            raise SprtError(f"{name} must be a finite number of bb/100, got {value}")
    if not mu0 < mu1:
        raise SprtError(f"--bb0 must be below --bb1, got {mu0} and {mu1}")
    lower, upper = bounds(alpha, beta)
    value = llr(scores, mu0, mu1)
    n = len(scores)
    mean, var = mean_var(scores)
    if n >= 2:
        half = Z95 * math.sqrt(var * n / (n - 1) / n)
        ci = (mean - half, mean + half)
    else:
        ci = (-math.inf, math.inf)
    result = decide(value, n, hands, lower, upper, max_hands, min_blocks)
    return Status(result, value, lower, upper, n, hands, mean, ci)


def max_score(starting_stack: int, big_blind: int) -> float:
    """The largest block score in bb/100 (either sign): every hand won or lost by a whole stack (reset each hand)."""
    return bb_per_100(starting_stack, 1, big_blind) if big_blind > 0 else math.inf


def block_seed(seed: int, index: int) -> int:
    """The match seed of block ``index``: both rotations of the block deal from it (keyed, :mod:`deals`)."""
    return match_seed(seed, ["sprt", f"block{index}"])


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """Everything that fixes a test; stored in ``sprt.json`` so a resumed test is the same test.

    Attributes:
        new, old: the two bots (names and commands).
        bb0, bb1: the hypotheses, bb/100 of new over old.
        alpha, beta: the error probabilities.
        hands: hands per rotation (a block is twice this).
        seed: the test's seed (blocks' deals derive from it).
        starting_stack: chips per seat, reset every hand.
        game: the game settings.
        max_hands: the hands after which the test stops as inconclusive (None: no limit); may change on resume:
            it decides nothing, it only ends the test undecided.
        limits: the bots' limits (time per decision, ...): they change how a bot plays and when it is put out.
        sandbox: the ``--sandbox`` mode the bots run under (what a bot can reach changes how it plays).
        min_blocks: blocks before the test may stop (:func:`status`): the stopping rule, so the error rates.
        definition: the game played (RULES.md R6), Seven Card Draw by default.
    """

    new: BotSpec
    old: BotSpec
    bb0: float
    bb1: float
    alpha: float
    beta: float
    hands: int
    seed: int
    starting_stack: int = 1000
    game: GameConfig = field(default_factory=GameConfig)
    max_hands: int | None = None
    limits: Limits = field(default_factory=Limits)
    sandbox: str = "auto"
    min_blocks: int = MIN_BLOCKS
    definition: GameDefinition = SEVEN_CARD_DRAW

    def __post_init__(self) -> None:
        """Check the hypotheses and error rates against what a block can score.

        Raises:
            SprtError: as :func:`status` does, or a hypothesis beyond what any block can score.
        """
        status([], 0, self.bb0, self.bb1, self.alpha, self.beta)
        most = max_score(self.starting_stack, self.game.unit)
        for name, value in (("--bb0", self.bb0), ("--bb1", self.bb1)):
            if abs(value) > most:
                raise SprtError(f"{name} must be between {-most:g} and {most:g} bb/100, got {value:g}: a bot wins "
                                f"at most the other's stack ({self.starting_stack} chips) a hand")

    def identity(self) -> dict[str, Any]:
        """The settings a resumed test must share (every one that changes a block or the decision: all but
        ``max_hands``), JSON-ready."""
        return {
            "new": _bot_identity(self.new), "old": _bot_identity(self.old),
            "bb0": self.bb0, "bb1": self.bb1, "alpha": self.alpha, "beta": self.beta,
            "hands_per_rotation": self.hands, "seed": f"{self.seed:x}",
            "starting_stack": self.starting_stack, "game": self.game.to_dict(),
            "limits": dataclasses.asdict(self.limits), "sandbox": self.sandbox, "min_blocks": self.min_blocks,
            "game_name": self.definition.name,
        } | _openers_identity(self.definition)


def _openers_identity(definition: GameDefinition) -> dict[str, str]:
    """``openers`` when a game of openers is played under another rule than its own (R7.2), else nothing: a test
    of the game's own rule keeps the identity it had before the rule could be chosen."""
    own = GAMES.get(definition.name)
    return {"openers": str(definition.openers)} if own is not None and own.openers != definition.openers else {}


def _bot_identity(bot: BotSpec) -> dict[str, Any]:
    """A bot as :meth:`SprtSettings.identity` stores it: its name, command and the directory it runs in (a
    relative command means another program from another directory)."""
    return {"name": bot.name, "command": list(bot.command), "cwd": bot.cwd or os.getcwd()}


#: The option that gives each setting of :meth:`SprtSettings.identity` (``limits`` by its field), for messages.
OPTIONS = {"new": "--bot (new)", "old": "--bot (old)", "bb0": "--bb0", "bb1": "--bb1", "alpha": "--alpha",
           "beta": "--beta", "hands_per_rotation": "--hands", "seed": "--seed", "starting_stack": "--stack",
           "game": "--structure", "game_name": "--game", "openers": "--openers", "sandbox": "--sandbox",
           "min_blocks": "--min-blocks", "limits.decision_ms": "--decision-ms"}


def differences(stored: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """What differs between two :meth:`SprtSettings.identity` dicts, each as ``OPTION (A there, B here)``."""
    def flat(d: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in d.items():
            if key == "limits" and isinstance(value, dict):
                out |= {f"limits.{k}": v for k, v in value.items()}
            else:
                out[key] = value
        return out

    there, here = flat(stored), flat(wanted)
    return [f"{OPTIONS.get(k, k)} ({json.dumps(there.get(k))} there, {json.dumps(here.get(k))} here)"
            for k in sorted(set(there) | set(here), key=lambda k: (OPTIONS.get(k, k), k))
            if there.get(k) != here.get(k)]


PlayMatch = Callable[[list[BotSpec], MatchSpec, Limits, Path], MatchResult]


def _read_text(path: Path) -> str | None:
    """The text of one of the test's files (None when it does not exist).

    Raises:
        SprtError: it cannot be read, or is not UTF-8 (names the file and, for bad bytes, the line).
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SprtError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SprtError(f"{path}:{line}: not UTF-8 text (byte {data[exc.start]:#04x})") from None


def read_settings(out_dir: Path) -> dict[str, Any] | None:
    """The settings stored in ``out_dir/sprt.json`` (None when there is none), checked for its form.

    Returns:
        The JSON object, with a ``seed`` of hex digits (what :meth:`SprtSettings.identity` writes).

    Raises:
        SprtError: one line naming the file and what is wrong (unreadable, not JSON, not an object, no seed).
    """
    path = out_dir / SETTINGS_FILE
    text = _read_text(path)
    if text is None:
        return None
    try:
        stored = json.loads(text)
    except (ValueError, RecursionError):
        raise SprtError(f"{path}: not a JSON file") from None
    if not isinstance(stored, dict):
        raise SprtError(f"{path}: expected the test's settings (a JSON object), got {_kind(stored)}")
    seed = stored.get("seed")
    if not (isinstance(seed, str) and 0 < len(seed) <= SEED_BITS // 4
            and all(c in "0123456789abcdef" for c in seed)):
        raise SprtError(f'{path}: "seed" must be the test\'s seed in hex digits, got {_kind(seed)}')
    return stored


def _read_blocks(path: Path, settings: SprtSettings) -> list[Block]:
    """The blocks stored in ``blocks.jsonl``; a last line without its newline (cut by an interruption) is left out.

    Raises:
        SprtError: ``path:line:`` and what is wrong: unreadable, not UTF-8, not a block, a block out of order,
            or hands or chips no block of these settings can have.
    """
    blocks: list[Block] = []
    text = _read_text(path)
    if text is None:
        return blocks
    # Bytes after the last newline are a line cut by an interruption: that block is played again.
    for number, line in enumerate(text[: text.rfind("\n") + 1].splitlines(), 1):
        if not line.strip():
            continue
        try:
            block = Block.from_dict(json.loads(line))
            problem = _block_problem(block, settings)
        except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deep to parse
            raise SprtError(f"{path}:{number}: not a block result line ({exc})") from None
        if problem:
            raise SprtError(f"{path}:{number}: block {block.index}: {problem}")
        if block.index != len(blocks):
            raise SprtError(f"{path}:{number}: block {block.index} where block {len(blocks)} was expected")
        blocks.append(block)
    return blocks


def _block_problem(block: Block, settings: SprtSettings) -> str | None:
    """What no block of ``settings`` can hold (more hands than a rotation has, more chips than its stacks)."""
    for hands, net in zip(block.hands, block.net, strict=True):
        if hands > settings.hands:
            return f"{hands} hands in a rotation of {settings.hands}"
        if abs(net) > hands * settings.starting_stack:
            return f"{_kind(net)} chips over {hands} hands of {settings.starting_stack}-chip stacks"
    return None


@contextmanager
def lock_test(out_dir: Path) -> Iterator[None]:
    """Create ``out_dir`` and hold its lock while the block runs: one run of a test at a time.

    The lock ``harness run`` takes of its output directory (:func:`harness.tournament.results.lock_out_dir`):
    two runs on one directory would each append every block and delete the other's block directories.

    Raises:
        SprtError: another run holds it (names its pid), or the lock file cannot be made.
        OSError: ``out_dir`` cannot be created.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = lock_out_dir(out_dir)
    except ResultsError as exc:
        raise SprtError(str(exc)) from None
    try:
        yield
    finally:
        os.close(fd)


#: Settings a test started by an earlier harness did not record: the bots' limits, the sandbox, the blocks
#: before a decision, and each bot's directory. Such a test continues with this run's values for them.
UNRECORDED = ("limits", "sandbox", "min_blocks")


def _adopt_unrecorded(stored: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Fill ``stored`` (an earlier harness's settings, changed in place) with this run's values of what it did not
    record (:data:`UNRECORDED`, a bot's ``cwd``; the game, which was Seven Card Draw); True when anything was
    filled in."""
    adopted = False
    if "game_name" not in stored:  # an earlier harness played Seven Card Draw only
        stored["game_name"] = SEVEN_CARD_DRAW.name
        adopted = True
    for key in UNRECORDED:
        if key not in stored:
            stored[key] = wanted[key]
            adopted = True
    for bot in ("new", "old"):
        held = stored.get(bot)
        if isinstance(held, dict) and "cwd" not in held:
            stored[bot] = {**held, "cwd": wanted[bot]["cwd"]}
            adopted = True
    return adopted


def open_test(out_dir: Path, settings: SprtSettings) -> list[Block]:
    """Start a test in ``out_dir`` or read the blocks of the same test there (hold :func:`lock_test` first).

    Raises:
        SprtError: ``out_dir`` holds another test (names what differs) or unreadable files.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / SETTINGS_FILE
    wanted = settings.identity()
    stored = read_settings(out_dir)
    if stored is not None:
        adopted = _adopt_unrecorded(stored, wanted)
        missing = sorted(set(wanted) - set(stored))
        if missing:
            raise SprtError(f"{path}: not a whole test's settings (no {', '.join(missing)})")
        if stored != wanted:
            raise SprtError(f"{out_dir} holds another test (different {'; '.join(differences(stored, wanted))}); "
                            "give the same options to continue it, or another --out")
        if adopted:  # recorded now, so that the next resume checks them
            path.write_text(json.dumps(wanted, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    elif any(p.name != LOCK_FILE for p in out_dir.iterdir()):
        raise SprtError(f"{out_dir} is not empty and holds no test ({SETTINGS_FILE}); give an empty or new --out")
    else:
        path.write_text(json.dumps(wanted, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    blocks = _read_blocks(out_dir / BLOCKS_FILE, settings)
    # Written back whole so that a line cut by an interruption is gone before the next block is appended.
    tmp = out_dir / (BLOCKS_FILE + ".tmp")
    tmp.write_text("".join(json.dumps(b.to_dict()) + "\n" for b in blocks), encoding="utf-8")
    tmp.replace(out_dir / BLOCKS_FILE)
    return blocks


def play_block(settings: SprtSettings, index: int, play: PlayMatch, limits: Limits, out_dir: Path) -> Block:
    """Play block ``index``: both rotations of (new, old) on the block's deals.

    Raises:
        BlockFailed: a rotation means nothing for a bot (:func:`harness.match.verdict.verdicts`: it failed to
            start, was put out, or raised an error in every decision), so the block would mean nothing.
    """
    seed = block_seed(settings.seed, index)
    table = (settings.new, settings.old)
    nets, hands = [], []
    for rotation in (0, 1):
        seated = rotate(table, rotation)
        match_dir = out_dir / "blocks" / f"{index:06d}" / f"r{rotation}"
        if match_dir.exists():  # left by an interrupted run: played again from its first hand
            shutil.rmtree(match_dir)
        match_dir.mkdir(parents=True)
        spec = MatchSpec(game=settings.game, hands=settings.hands, seed=seed, starting_stack=settings.starting_stack,
                         match_id=f"block{index}-r{rotation}", rotation=rotation, definition=settings.definition)
        result = play(list(seated), spec, limits, match_dir)
        seat = seated.index(settings.new)
        failed = [v for v in verdicts(result, match_dir, match_dir / history_name(spec.compress), limits) if v.failed]
        if failed:
            raise BlockFailed(f"block {index + 1} (rotation {rotation}) not counted: {failed[0].line}")
        nets.append(result.net[seat])
        hands.append(result.hands_played)
    return Block(index, (nets[0], nets[1]), (hands[0], hands[1]))


def _append(path: Path, block: Block) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(block.to_dict()) + "\n")
        f.flush()
        os.fsync(f.fileno())


def run_sprt(settings: SprtSettings, out_dir: Path, play: PlayMatch,
             report: Callable[[Status], None] | None = None, *, locked: bool = False) -> Status:
    """Play blocks until the test decides (or ``max_hands`` is reached), storing each block as it finishes.

    Args:
        settings: the test.
        out_dir: where ``sprt.json``, ``blocks.jsonl`` and each block's match directories go; the same directory
            continues an interrupted test (a block cut short is played again, from its first hand).
        play: the match function, ``play(bots, spec, limits, match_dir)`` (:func:`harness.match.referee.play_match`).
        report: called with the status after every block (and once for blocks read back on resume).
        locked: the caller holds :func:`lock_test` of ``out_dir`` (else it is taken for the run).

    Returns:
        The final :class:`Status` (result "H0", "H1" or "inconclusive").

    Raises:
        SprtError: see :func:`lock_test`, :func:`open_test` and :func:`play_block`; KeyboardInterrupt passes
            through (blocks stored).
    """
    if not locked:
        with lock_test(out_dir):
            return run_sprt(settings, out_dir, play, report, locked=True)
    blocks = open_test(out_dir, settings)
    unit = settings.game.unit

    def now() -> Status:
        return status([b.score(unit) for b in blocks], sum(sum(b.hands) for b in blocks), settings.bb0,
                      settings.bb1, settings.alpha, settings.beta, settings.max_hands, settings.min_blocks)

    current = now()
    if blocks and report:
        report(current)
    while current.result == "continue":
        block = play_block(settings, len(blocks), play, settings.limits, out_dir)
        _append(out_dir / BLOCKS_FILE, block)
        blocks.append(block)
        current = now()
        if report:
            report(current)
    return current


def hidden_out(box: SandboxSettings, out_dir: Path) -> SandboxSettings:
    """The sandbox settings with the test's directory hidden from the bots (its seed is in ``sprt.json``)."""
    return dataclasses.replace(box, hidden=(*box.hidden, os.fspath(Path(out_dir).resolve())))
