"""``harness bench match``'s anchored rounds: our matches and the anchors' (the ACPC dealer, the MIT Pokerbots
engine) alternated in rounds, idle and beside busy processes (``--load N``), so that each ratio compares runs
that saw about the same machine.

Each round plays, in this order, every probe that can run here (:func:`probes`):

- ``python``: two ``python -m bots.caller`` heads-up under our referee, pinned to one CPU; a long and a short
  match (a tenth of its hands), whole (start-up to exit): ``total_cpu_us_per_decision`` is the CPU of the
  referee and both bots per decision beyond the short match's, ``hands_per_s_heads_up_whole`` the hands/s
  the same way (:func:`harness.bench.whole.per_decision`); ``referee_cpu_us_per_decision`` and
  ``hands_per_s_heads_up_pinned`` of the long match's hand loop, as :func:`harness.bench.match.match_speed`
  measures them.
- ``mit``: the MIT Pokerbots engine and its two Python example bots (:mod:`harness.bench.mit`), long and short,
  the same way: ``mit_total_cpu_us_per_decision``, ``mit_hands_per_s_heads_up``.
- ``c``: two C example bots (bots/c) under our referee, pinned: ``decisions_per_s_heads_up_c``,
  ``referee_cpu_us_per_decision_c``.
- ``acpc``: the ACPC dealer and its two example players (:mod:`harness.bench.acpc`): ``acpc_decisions_per_s``.

With ``load`` N > 0 every round plays its probes twice, idle then beside N CPU burners
(:class:`harness.bench.burners.Burners`, started and stopped around that half of the round); each figure then
also has ``<figure>_load<N>`` (the median under load) and ``<figure>_load<N>_over_idle``. Figures are medians
over the rounds; the ratios (``total_cpu_over_mit`` ...) are of the medians.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.bench import acpc, mit
from harness.bench.burners import Burners
from harness.bench.whole import Run, per_decision, short_of
from harness.engine import GameConfig
from harness.match.referee import BotSpec, Limits, MatchSpec, Referee
from harness.specs import SandboxMode, SandboxSettings

#: A probe: its figures for one round, given the hands of its long run.
Probe = Callable[[int], dict[str, float]]


def pin_cpu() -> int:
    """The CPU the probes pin to: the last one this process may use."""
    return max(os.sched_getaffinity(0))


def _cpu_so_far() -> float:
    """CPU seconds of this process and of its reaped children (a match's bots once it has stopped them)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def our_run(hands: int, command: tuple[str, ...] | None = None) -> tuple[Run, Referee]:
    """One heads-up match under our referee in this process, pinned, bots ``python -m bots.caller`` (or
    ``command``), no sandbox: the whole run's :class:`Run` and the referee (its hand-loop figures).

    Its CPU is this process's and its reaped children's over the run: burners running beside it are not
    reaped until they stop, so theirs is not counted.

    Raises:
        RuntimeError: a bot did not end its match "ok".
    """
    root = Path(__file__).resolve().parents[2]
    argv = command or (sys.executable, "-m", "bots.caller")
    bots = [BotSpec(f"caller{i}", argv, cwd=str(root)) for i in range(2)]
    spec = MatchSpec(GameConfig(), hands=hands, seed=12345, match_id="bench-anchored")
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as out:
        t0, cpu0 = time.perf_counter(), _cpu_so_far()
        ref = Referee(bots, spec, Limits(), Path(out), cpus={pin_cpu()}, sandbox=SandboxSettings(mode=SandboxMode.OFF))
        result = ref.run()
        wall, cpu = time.perf_counter() - t0, _cpu_so_far() - cpu0
    if result.status != ["ok", "ok"]:
        raise RuntimeError(f"benchmark bots failed: {result.status}")
    return Run(hands, ref.decisions, wall, cpu), ref


def python_probe(hands: int) -> dict[str, float]:
    """Our referee with two Python callers: the long and the short match (module docstring)."""
    long, ref = our_run(hands)
    short, _ = our_run(short_of(hands))
    whole = per_decision(long, short)
    return {
        "total_cpu_us_per_decision": whole["cpu_us_per_decision"],
        "hands_per_s_heads_up_whole": whole["hands_per_s"],
        "hands_per_s_heads_up_pinned": hands / ref.hands_seconds,
        "referee_cpu_us_per_decision": ref.hands_cpu_seconds / max(1, ref.decisions) * 1e6,
    }


def mit_probe(directory: str) -> Probe:
    """The MIT Pokerbots engine with its Python bots, long and short (module docstring)."""
    def probe(hands: int) -> dict[str, float]:
        whole = per_decision(mit.engine_run(directory, hands, pin_cpu()), mit.engine_run(directory, short_of(hands),
                                                                                         pin_cpu()))
        return {"mit_total_cpu_us_per_decision": whole["cpu_us_per_decision"],
                "mit_hands_per_s_heads_up": whole["hands_per_s"]}
    return probe


def c_probe(bot: str) -> Probe:
    """Our referee with two C example bots (the built ``bot``), pinned: its hand loop's figures."""
    def probe(hands: int) -> dict[str, float]:
        _, ref = our_run(hands, (bot,))
        return {"hands_per_s_heads_up_c": hands / ref.hands_seconds,
                "decisions_per_s_heads_up_c": ref.decisions / ref.hands_seconds,
                "referee_cpu_us_per_decision_c": ref.hands_cpu_seconds / max(1, ref.decisions) * 1e6}
    return probe


def acpc_probe(directory: str) -> Probe:
    """The ACPC dealer and its example players, pinned (:func:`harness.bench.acpc.dealer_speed`)."""
    def probe(hands: int) -> dict[str, float]:
        speed = acpc.dealer_speed(directory, hands, pin_cpu())
        return {"acpc_hands_per_s": speed["hands_per_s"], "acpc_decisions_per_s": speed["decisions_per_s"]}
    return probe


def probes(mit_dir: str | None, c_bot: str | None, acpc_dir: str | None) -> tuple[dict[str, Probe], list[str]]:
    """The probes that can run here, and one notice line per anchor that cannot (and is left out)."""
    found: dict[str, Probe] = {"python": python_probe}
    notes = []
    if not mit_dir:
        notes.append("the MIT Pokerbots engine is not measured: no --mit DIR (a checkout of its public engine; "
                     "docs/speed.md)")
    elif why := mit.problem(mit_dir):
        notes.append(f"the MIT Pokerbots engine is not measured: {why}")
    else:
        found["mit"] = mit_probe(mit_dir)
    if c_bot:
        found["c"] = c_probe(c_bot)
    if not acpc_dir:
        notes.append(f"{ANCHORS['acpc']} is not measured: no --acpc DIR (a built project_acpc_server; docs/speed.md)")
    elif why := acpc.problem(acpc_dir):
        notes.append(f"the ACPC dealer is not measured: {why}")
    else:
        found["acpc"] = acpc_probe(acpc_dir)
    return found, notes


#: The anchors' probes, by name, as the notices name them; a failure of one of them leaves it out.
ANCHORS = {"mit": "the MIT Pokerbots engine", "acpc": "the ACPC dealer", "c": "the C bots' match"}

#: The ratios printed beside the figures: name -> (numerator, denominator).
RATIOS = {
    "total_cpu_over_mit": ("total_cpu_us_per_decision", "mit_total_cpu_us_per_decision"),
    "hands_over_mit": ("hands_per_s_heads_up_whole", "mit_hands_per_s_heads_up"),
    "c_over_acpc_decisions": ("decisions_per_s_heads_up_c", "acpc_decisions_per_s"),
}


def _ratios(figures: dict[str, float], suffix: str = "") -> dict[str, float]:
    return {name + suffix: figures[top + suffix] / figures[bottom + suffix]
            for name, (top, bottom) in RATIOS.items() if top + suffix in figures and bottom + suffix in figures}


def rounds(found: dict[str, Probe], hands: int, n_rounds: int, load: int,
           notice: Callable[[str], None] = lambda _line: None) -> dict[str, float]:
    """Play every probe ``n_rounds`` times (``hands`` each), idle and, with ``load`` > 0, beside ``load`` burners.

    Returns:
        the median of each figure over the rounds, the ratios of :data:`RATIOS`, and with a load each figure's
        ``_load<N>`` twin and ``_load<N>_over_idle`` ratio (module docstring). Every burner is gone when this
        returns or raises (a Ctrl-C included).

    An anchor that fails (its dealer or engine exits with an error) is said in one line to ``notice`` and left
    out of this and the later rounds, its figures with it.

    Raises:
        RuntimeError: our own referee's match failed.
    """
    seen: dict[str, dict[str, list[float]]] = {"idle": {}, "load": {}}
    found = dict(found)
    made: dict[str, set[str]] = {}  # each probe's figures
    failed: set[str] = set()
    for _ in range(n_rounds):
        for phase in ("idle", "load") if load else ("idle",):
            with Burners(load if phase == "load" else 0):
                for name, probe in list(found.items()):
                    try:
                        figures = probe(hands)
                    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                        if name not in ANCHORS:
                            raise
                        notice(f"{ANCHORS[name]} is not measured: {exc}")
                        del found[name]
                        failed.add(name)
                        continue
                    made.setdefault(name, set()).update(figures)
                    for key, value in figures.items():
                        seen[phase].setdefault(key, []).append(value)
    for by_key in seen.values():  # a failed anchor's earlier rounds would stand alone
        for name in failed:
            for key in made.get(name, ()):
                by_key.pop(key, None)
    idle = {key: statistics.median(values) for key, values in seen["idle"].items()}
    out: dict[str, float] = {**idle, **_ratios(idle)}
    if load:
        suffix = f"_load{load}"
        loaded = {key + suffix: statistics.median(values) for key, values in seen["load"].items()}
        loaded.update(_ratios(loaded, suffix))
        for key, value in loaded.items():
            out[key] = value
            base = key[: -len(suffix)]
            if base not in RATIOS and out.get(base):
                out[f"{key}_over_idle"] = value / out[base]
    return out


def measure(found: dict[str, Probe], hands: int, n_rounds: int, load: int,
            notice: Callable[[str], None] = lambda _line: None) -> dict[str, Any]:
    """The anchored figures of the probes ``found`` (:func:`probes`): :func:`rounds` of ``hands / n_rounds``
    hands each (at least 100: fewer leave the long run's start-up noise in its figures), rounded.

    Raises:
        RuntimeError, OSError, subprocess.TimeoutExpired: a probe failed.
    """
    figures = rounds(found, max(100, hands // n_rounds), n_rounds, load, notice)
    return {key: round(value, 3 if abs(value) < 10 else 1) for key, value in figures.items()}
