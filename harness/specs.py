"""Values shared by the referee, the bot processes and the tournament runner.

They live in their own module so that ``botproc``, ``referee`` and the
tournament code can all import them without importing each other.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from harness.engine.config import MAX_CAP, MAX_CHIPS, GameConfig
from harness.engine.games import SEVEN_CARD_DRAW, GameDefinition
from harness.errors import HarnessError


class SettingsError(HarnessError, ValueError):
    """A setting refused before anything starts (a bound, a seat, a name, an option of the entry check): the
    message names the setting and what it may be. The CLI says it as a usage error (exit status 2)."""


#: A bot's name: 1-32 letters, digits, ``_``, ``.`` or ``-``, starting with a letter or digit (file names,
#: table and match ids, hand histories and leaderboards carry it as it is).
BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
#: The rule of :data:`BOT_NAME` in words, for every message that refuses a name.
BOT_NAME_RULE = "1-32 letters, digits, '_', '.' or '-', starting with a letter or digit"

#: Most hands in one match: hand ids and counts stay far inside the wire's bound (2**40), and a
#: match stays a few hours at most (about 1,000 hands/s heads-up here); play more matches for more.
MAX_HANDS = 10_000_000
_DAY_MS = 86_400_000
_DAY = "one day"

#: ``{setting: (lowest, highest, what the highest is)}`` of every whole-number setting that reaches
#: the wire (``match_start``: hands, stack, game, limits; PROTOCOL.md section 7), the engine or a
#: kernel limit (setrlimit, control groups). The tournament file's keys, ``harness match`` and
#: ``harness check-bot`` check against it before anything is started or written.
BOUNDS: dict[str, tuple[int, int, str]] = {
    "hands": (1, MAX_HANDS, "hands per match"),
    "starting_stack": (1, MAX_CHIPS, "chips: six stacks must fit the protocol's 2^40"),
    "small_blind": (0, MAX_CHIPS, "chips"),
    "big_blind": (0, MAX_CHIPS, "chips"),
    "ante": (0, MAX_CHIPS, "chips"),
    "min_bet": (2, MAX_CHIPS, "chips"),
    "cap": (0, MAX_CAP, "bets per round"),
    "decision_ms": (1, _DAY_MS, _DAY),
    "time_bank_ms": (0, _DAY_MS, _DAY),
    "startup_ms": (1, _DAY_MS, _DAY),
    "max_faults": (1, 1_000_000, "faults"),
    "memory_mb": (0, 1 << 20, "MiB: 1 TiB"),
    "cpu_seconds": (0, 2**31 - 1, "seconds"),
    "open_files": (1, 1 << 20, "the kernel's nr_open"),
    "max_processes": (0, 1 << 22, "the kernel's pid_max"),
    "log_bytes": (1, 1 << 40, "bytes: 1 TiB"),
    "max_message_bytes": (1, 1 << 24, "bytes: 16 MiB"),
    "scratch_mb": (1, 1 << 20, "MiB: 1 TiB"),
    "jobs": (0, 4096, "parallel matches"),
    "tables": (1, 1_000_000, "tables"),
    "tables_per_bot": (1, 100_000, "tables per bot"),
    "max_matches": (1, 10_000_000, "matches"),
}


def bound_problem(setting: str, value: int, label: str | None = None) -> str | None:
    """The one-line error for ``value`` outside :data:`BOUNDS` ``[setting]``, or None when it is inside.

    Args:
        setting: a key of :data:`BOUNDS` (a tournament file's key, e.g. ``"decision_ms"``).
        value: the value given.
        label: how the user named it (``"--decision-ms"``, ``"[limits] decision_ms"``); default ``setting``.

    Returns:
        ``"--decision-ms must be at least 1, got 0"`` or ``"... must be from 1 to 86,400,000 (one day),
        got 99999999999999999999"``; None when the value is allowed.
    """
    low, high, what = BOUNDS[setting]
    label = label or setting
    if value < low:
        return f"{label} must be at least {low}, got {value}"
    if value > high:
        return f"{label} must be from {low} to {high:,} ({what}), got {value}"
    return None


class FaultKind(StrEnum):
    """Why a bot's reply was not used: one kind per cause (PROTOCOL.md section 7).

    ``timeout``: no reply by the deadline. ``malformed``: not a valid message,
    or the wrong reply type. ``illegal``: a valid message the rules or the
    protocol forbid (an action not legal, a reply with a ``seq`` that answers
    no request, messages out of turn). ``oversized``: a message over
    ``max_message_bytes``. ``crash``: the bot's process exited.
    ``disconnected``: its connection dropped while the process runs (it
    closed its socket). A bound of the wire broken (ZMTP, frames, size far
    over the limit) is ``malformed``, ``illegal`` or ``oversized``, and fatal.
    ``failed_start``: no valid ``hello`` in time.
    """

    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    OVERSIZED = "oversized"
    CRASH = "crash"
    DISCONNECTED = "disconnected"
    FAILED_START = "failed_start"


class StackMode(StrEnum):
    """Stacks reset every hand (cash-game scoring, as in ACPC) or carry over."""

    RESET = "reset"
    FREEZEOUT = "freezeout"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to launch one bot.

    Attributes:
        name: unique display name (letters, digits, ``-_.``).
        command: argv of the bot, e.g. ``("python", "-m", "bots.caller")``.
        cwd: working directory, or None for the referee's.
        env: extra environment variables for the bot.
        files: paths relative to ``cwd`` (files or directories) that make up the
            bot, for tournament fingerprints; empty: its whole cwd
            (:func:`harness.tournament.plan.bot_files`).
    """

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits applied to every bot of a match (PROTOCOL.md "Limits").

    Raises:
        SettingsError: a value above its :data:`BOUNDS` (the lower bounds are the callers').

    Attributes:
        decision_ms: time allowed per decision before the time bank is used (ms).
        time_bank_ms: extra thinking time for the whole match (ms).
        startup_ms: time from launch to a valid ``hello`` (ms).
        max_faults: faults after which the bot is out for the rest of the match.
        memory_mb: memory limit (MiB), 0 = none: under the sandbox, of all the bot's
            processes together (a control group, its scratch files included;
            without control groups, each process's RLIMIT_DATA and the sum of
            their private resident memory, checked every 50 ms); with the
            sandbox off, each process's private writable memory (RLIMIT_DATA).
        cpu_seconds: CPU-time limit of the bot process (s), 0 = none.
        open_files: limit on open file descriptors.
        max_processes: processes and threads: under the sandbox, of the bot's
            processes together (0 = the sandbox's default,
            :data:`harness.host.sandbox.DEFAULT_PIDS`; without control groups,
            RLIMIT_NPROC inside the bot's user namespace); with the sandbox
            off, of the bot's user (RLIMIT_NPROC, per user, so 0 = none by default).
        log_bytes: cap per captured stdout/stderr log file, and of the
            referee's own ``referee.log`` (bytes).
        max_message_bytes: largest message a bot may send (bytes).
    """

    decision_ms: int = 1000
    time_bank_ms: int = 30000
    startup_ms: int = 10000
    max_faults: int = 10
    memory_mb: int = 1024
    cpu_seconds: int = 0
    open_files: int = 256
    max_processes: int = 0
    log_bytes: int = 1_000_000
    max_message_bytes: int = 65536

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:  # beyond BOUNDS a value would break the wire or a kernel limit
            value = getattr(self, name)
            if type(value) is int and value > BOUNDS[name][1]:
                raise SettingsError(bound_problem(name, value))


class SandboxMode(StrEnum):
    """``[sandbox] mode``: isolate every bot where possible, always, or never."""

    AUTO = "auto"  # on where bubblewrap and cgroups work, else a loud warning
    REQUIRED = "required"  # refuse to start without them (contests)
    OFF = "off"  # bots run as the harness's user, with rlimits only


class FileView(StrEnum):
    """``[sandbox] view``: what a bot's sandbox shows of the host's files (docs/security.md)."""

    PRIVATE = "private"  # its own copies of the files it needs, on a tmpfs of its own (harness.host.privateview)
    SHARED = "shared"  # the host's /usr, venv and SDK bound read-only: their caches are shared between bots


class CpuPolicy(StrEnum):
    """``[sandbox] cpu``: how a bot's background work is kept off another bot's decision (PROTOCOL.md 7)."""

    WEIGHT = "weight"  # the bot on move gets the CPU weight; waiting bots get only idle CPU
    FREEZE = "freeze"  # bots not on move are frozen: no thinking on the opponent's time at all
    NONE = "none"  # no CPU policy (accounting only)


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How bots are isolated (``[sandbox]``; :mod:`harness.host.sandbox`).

    Attributes:
        mode: auto, required or off.
        cpu: the fair-CPU policy.
        scratch_mb: size of the private writable ``/tmp`` (HOME, TMPDIR) of each bot (MiB).
        uid_range: (first, last) uids for the seats when the harness runs as root;
            each running bot gets one of its own.
        paths: extra host paths shown read-only to every bot (interpreters,
            model files outside the bot's directory).
        hidden: host paths never shown to a bot even inside a directory it
            sees (the tournament's output directory; the match's own output
            directory and the other bots' directories are always hidden).
        resident: before each bot starts, every file its sandbox shows is made resident in the
            page cache (:mod:`harness.host.residency`), so no bot can pass bits through which
            pages are cached; costs the memory of those files and a walk of them per match
            (1-3 s where pages stay cached, 20-60 s where the kernel keeps paging them out), so
            off unless asked for (``[sandbox] resident = true``).
        view: ``private`` (default): each bot sees its own copies of the files it needs, so no two
            sandboxes share a cached page, a directory entry or an access time of what they can read
            (:mod:`harness.host.privateview`); ``shared``: the host's files bound read-only, as before
            (cheaper; bots at one table can pass bits through the kernel's caches of them).
    """

    mode: SandboxMode = SandboxMode.AUTO
    cpu: CpuPolicy = CpuPolicy.WEIGHT
    scratch_mb: int = 64
    uid_range: tuple[int, int] = (60100, 61099)
    paths: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    resident: bool = False
    view: FileView = FileView.PRIVATE


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One match: ``hands`` hands at one table, deals derived from ``seed``.

    Raises:
        SettingsError: ``hands`` or ``starting_stack`` outside :data:`BOUNDS`.

    Attributes:
        game: the game's settings (blinds, structure, ...).
        hands: hands to play.
        seed: match seed; a hand's seed derives from (seed, its deal) only.
        rotation: the seat rotation of a duplicate set this match plays: its hands deal the
            match's deals in that rotation's secret order (:func:`harness.deals.deal_of`);
            None (a match outside a duplicate set): hand h deals deal h.
        starting_stack: chips each seat starts every hand (reset) or the match (freezeout).
        stack_mode: reset (default) or freezeout.
        match_id: name used in records and paths.
        compress: write the hand history gzip-compressed as hands are played
            (``hands.jsonl.gz``, readable up to the last hand while it grows)
            instead of ``hands.jsonl``; the name never changes during the match.
        definition: the game played (RULES.md R6; ``[game] name``), Seven Card Draw by default.
    """

    game: GameConfig
    hands: int
    seed: int
    starting_stack: int = 1000
    stack_mode: StackMode = StackMode.RESET
    match_id: str = "match"
    compress: bool = False
    rotation: int | None = None
    definition: GameDefinition = SEVEN_CARD_DRAW

    def __post_init__(self) -> None:
        for name, value in (("hands", self.hands), ("starting_stack", self.starting_stack)):
            problem = bound_problem(name, value)
            if problem:
                raise SettingsError(problem)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What one match produced; JSON-ready through :meth:`to_dict`.

    Attributes:
        match_id: the MatchSpec's id.
        seed: the match seed.
        hands_played: hands completed.
        bots: bot names by seat.
        net: net chips per seat over the match (sums to 0).
        hand_nets: per hand, net chips per seat.
        faults: per seat, fault counts keyed by :class:`FaultKind` value.
        status: per seat, "ok" or why the bot was put out.
        duration_s: wall-clock seconds the match took.
        deals: per hand, the deal it dealt (:func:`harness.deals.deal_of`), when the match
            played a rotation's secret order; None: hand h dealt deal h. Duplicate sets pair
            the rotations' hands by deal (:mod:`harness.tournament.stats`).
        interrupted: the match was stopped (Ctrl-C) before its last hand; the other fields are
            the hands played until then (in the JSON only when true).
    """

    match_id: str
    seed: int
    hands_played: int
    bots: list[str]
    net: list[int]
    hand_nets: list[list[int]]
    faults: list[dict[str, int]]
    status: list[str]
    duration_s: float = 0.0
    deals: list[int] | None = None
    interrupted: bool = False

    def deal_numbers(self) -> list[int]:
        """Per hand played, the deal it dealt (``range(hands_played)`` in the natural order)."""
        return list(range(len(self.hand_nets))) if self.deals is None else list(self.deals)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (the results-store line; ``deals`` only when the order was secret,
        ``interrupted`` only when true)."""
        out: dict[str, Any] = {**({"interrupted": True} if self.interrupted else {}),
            "match_id": self.match_id,
            "seed": self.seed,
            "hands_played": self.hands_played,
            "bots": list(self.bots),
            "net": list(self.net),
            "hand_nets": [list(h) for h in self.hand_nets],
            "faults": [dict(f) for f in self.faults],
            "status": list(self.status),
            "duration_s": self.duration_s,
        }
        if self.deals is not None:
            out["deals"] = list(self.deals)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchResult:
        """Rebuild from :meth:`to_dict` output. Raises KeyError/TypeError on a bad dict."""
        return cls(
            match_id=str(data["match_id"]),
            seed=int(data["seed"]),
            hands_played=int(data["hands_played"]),
            bots=[str(b) for b in data["bots"]],
            net=[int(x) for x in data["net"]],
            hand_nets=[[int(x) for x in h] for h in data["hand_nets"]],
            faults=[{str(k): int(v) for k, v in f.items()} for f in data["faults"]],
            status=[str(s) for s in data["status"]],
            duration_s=float(data.get("duration_s", 0.0)),
            deals=None if data.get("deals") is None else [int(d) for d in data["deals"]],
            interrupted=data.get("interrupted", False) is True,
        )


def parse_named_command(text: str, option: str = "--bot", *, allow_dir: bool = True
                        ) -> tuple[str, str | None, tuple[str, ...]]:
    """The one parser of a bot given as ``NAME=COMMAND`` (or ``NAME@DIR=COMMAND`` when ``allow_dir``) on a
    command line; COMMAND is split like a shell does.

    Returns:
        ``(name, dir or None, argv)``.

    Raises:
        SettingsError: one line naming ``option`` and what is wrong (no ``=``, an empty part, a name that breaks
            :data:`BOT_NAME_RULE`, a command a shell could not split).
    """
    name, sep, command = text.partition("=")
    name, at, folder = name.strip().partition("@") if allow_dir else (name.strip(), "", "")
    if not sep or not name or not command.strip() or (at and not folder):
        form = "NAME=COMMAND or NAME@DIR=COMMAND" if allow_dir else "NAME=COMMAND"
        raise SettingsError(f"{option} {text!r} must be {form}, e.g. {option} caller='python -m bots.caller'"
                         + (" or --bot java@bots/java='./run.sh'" if allow_dir and option == "--bot" else ""))
    if not BOT_NAME.match(name):
        raise SettingsError(f"{option} {name!r}: a name is {BOT_NAME_RULE}")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise SettingsError(f"cannot split the command of {option} {name}: {exc}") from None
    return name, folder or None, argv
