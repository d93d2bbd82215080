"""Tournament files: TOML loaded with tomllib and validated into frozen values.

Every mistake (unknown key, wrong type, a table of 7+, duplicate bot
names, a missing command, ...) raises :class:`ConfigError` naming the file,
the key and what is expected, before anything runs. The format, with every
key and its default, is documented in docs/organisers.md "Running a tournament".
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import shlex
import stat
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.deals import parse_seed
from harness.engine.config import MAX_TABLE, MIN_PLAYERS, GameConfig, Replacements, Structure, seat_count_problem
from harness.engine.games import GAMES, SEVEN_CARD_DRAW, GameDefinition, Openers, game_problem, with_openers
from harness.errors import HarnessError
from harness.host.botproc import BotStartError, resolve_command
from harness.match.msgsize import message_problem
from harness.specs import (
    BOT_NAME,
    BOT_NAME_RULE,
    BOUNDS,
    BotSpec,
    CpuPolicy,
    FileView,
    Limits,
    SandboxMode,
    SandboxSettings,
    StackMode,
    bound_problem,
)
from harness.tournament.estimate import DEFAULT_RATES, describe_seconds, effective_jobs, speedup
from harness.tournament.schedule import (
    Format,
    Gauntlet,
    PairingStrategy,
    RoundRobin,
    Sampled,
    ScheduleError,
    default_tables_per_bot,
)

#: Default ``[schedule] max_matches``: about 3 hours of 1,000-hand heads-up matches with 2 jobs on the
#: 2-core machine this is developed on (docs/speed.md); larger plans must say so or use "sampled".
DEFAULT_MAX_MATCHES = 10_000
# Limits that must be at least 1 (the others may be 0 = "no limit").
_POSITIVE_LIMITS = frozenset(
    {"decision_ms", "startup_ms", "max_faults", "open_files", "log_bytes", "max_message_bytes"}
)
# Interpreter names in a bot command that mean "the harness's own Python" (the venv's).
_PYTHON_NAMES = frozenset({"python", "python3"})
#: Dask's default scheduler port (``dask scheduler``).
DASK_PORT = 8786
#: Address schemes of a Dask scheduler the harness connects to (``distributed.comm``).
DASK_SCHEMES = ("tcp", "tls")
_LOCAL_CLUSTER = re.compile(r"^local:(\d+)$")
_ADDRESS = re.compile(r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(?P<port>\d+))?$")


class Backend(StrEnum):
    """``[schedule] backend``: where the matches run."""

    LOCAL = "local"  # forked workers on this machine (harness.tournament.workers.LocalExecutor)
    DASK = "dask"  # tasks on a Dask cluster (harness.tournament.cluster.DaskExecutor)


def parse_cluster(text: str) -> str:
    """Check a Dask cluster address and return it in full (``tcp://HOST:8786`` or ``local:N``).

    Accepted: ``local:N`` (a ``distributed.LocalCluster`` of N single-threaded
    worker processes on this machine, N >= 1), ``tcp://HOST[:PORT]``,
    ``tls://HOST[:PORT]`` or ``HOST:PORT`` (tcp); the port defaults to 8786.

    Raises:
        ValueError: anything else (the message says what is expected).
    """
    expected = "expected local:N (N worker processes on this machine) or tcp://HOST:PORT of a Dask scheduler"
    text = text.strip()
    local = _LOCAL_CLUSTER.match(text)
    if local:
        if int(local.group(1)) < 1:
            raise ValueError(f"{expected}, got {text!r}: N must be at least 1")
        return f"local:{int(local.group(1))}"
    m = _ADDRESS.match(text)
    if not text or m is None or (m.group("scheme") is None and m.group("port") is None):
        raise ValueError(f"{expected}, got {text!r}")
    scheme = m.group("scheme") or "tcp"
    if scheme not in DASK_SCHEMES:
        raise ValueError(f"{expected}, got {text!r}: the scheme must be one of {', '.join(DASK_SCHEMES)}")
    port = int(m.group("port") or DASK_PORT)
    if not 0 < port < 65536:
        raise ValueError(f"{expected}, got {text!r}: port {port} is out of range")
    return f"{scheme}://{m.group('host')}:{port}"


class ConfigError(HarnessError, ValueError):
    """A mistake in a tournament file.

    Attributes:
        file: the TOML file (or the command-line option source).
        key: the offending key, e.g. ``"[schedule] table_size"`` or ``"bots[2].command"``.
        problem: what is wrong and what is expected.
    """

    def __init__(self, file: Path | str, key: str | None, problem: str) -> None:
        self.file = str(file)
        self.key = key
        self.problem = problem
        where = f"{self.file}: {key}: " if key else f"{self.file}: "
        super().__init__(where + problem)


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """``[tournament]``.

    Attributes:
        name: shown on the leaderboard (default: the file's stem).
        seed: tournament seed; all deals derive from it. None (the default):
            a secret 256-bit seed is drawn at the first run and kept in the
            output directory (:mod:`harness.tournament.seeds`).
        output: output directory, relative to the current directory
            (default ``results/<name>``).
        compress: write each match's hand history gzip-compressed as hands are played (default on).
        entry_check: start every bot once and play a few hands before the first
            match; bots that fail are left out of the plan (``--no-entry-check``).
    """

    name: str
    seed: int | None = None
    output: Path = Path("results/tournament")
    compress: bool = True
    entry_check: bool = True


@dataclass(frozen=True, slots=True)
class ScheduleSettings:
    """``[schedule]``.

    Attributes:
        format: round-robin or gauntlet.
        table_size: seats per table, 2..6 (R1.2); 2..8 in Five Card Draw (R6.8, R7.1).
        hands: hands per match.
        duplicate: play each table once per seat rotation on the same deals.
        jobs: parallel matches; 0 = the CPUs this process may use (local backend) or every
            worker thread of the cluster (dask backend).
        pin: each match (its referee and bots) runs on one CPU of its own,
            matches spread over the CPUs the run may use (placement only:
            results do not depend on it).
        backend: ``local`` (forked workers on this machine) or ``dask``.
        scheduler: the Dask cluster (:func:`parse_cluster`): ``tcp://HOST:8786`` or
            ``local:N``; None when not given (a run on the dask backend then needs
            ``--cluster``). Like ``jobs`` and ``pin``, where matches run never
            changes a result.
        challengers: gauntlet only: the bots that play the rest of the field.
        tables_per_bot: sampled only: tables each bot sits at (None: the default,
            :func:`harness.tournament.schedule.default_tables_per_bot`).
        tables: sampled only: the total number of tables instead.
        max_matches: a plan with more matches is refused before anything runs.
        rotations_apart: dask only: the rotations of a table (the matches on the same deals) each
            run on a machine none of the table's other rotations ran on (a machine: a worker host),
            so nothing a bot leaves in one machine's kernel (its page cache, directory-entry cache)
            reaches its next rotation (docs/security.md).
    """

    format: Format = Format.ROUND_ROBIN
    table_size: int = 2
    hands: int = 1000
    duplicate: bool = True
    jobs: int = 0
    pin: bool = True
    challengers: tuple[str, ...] = ()
    tables_per_bot: int | None = None
    tables: int | None = None
    max_matches: int = DEFAULT_MAX_MATCHES
    backend: Backend = Backend.LOCAL
    scheduler: str | None = None
    rotations_apart: bool = False

    def strategy(self, seed: int = 0, previous: tuple[tuple[str, ...], ...] | None = None) -> PairingStrategy:
        """The pairing strategy object for :func:`harness.tournament.schedule.build_schedule`.

        Args:
            seed: the tournament seed (the sampled format draws its tables from it).
            previous: sampled only: the design an earlier run stored, to repair instead of redraw.
        """
        if self.format is Format.GAUNTLET:
            return Gauntlet(challengers=self.challengers, table_size=self.table_size)
        if self.format is Format.SAMPLED:
            return Sampled(table_size=self.table_size, seed=seed, tables_per_bot=self.tables_per_bot,
                           total=self.tables, previous=previous)
        return RoundRobin(table_size=self.table_size)

    @property
    def label(self) -> str:
        """The format's name in ``tournament.json`` and the plan's line (a racing final's rounds say ``racing``)."""
        return str(self.format)

    @property
    def rotations(self) -> int:
        """Matches per table: ``table_size`` with duplicate, else 1."""
        return self.table_size if self.duplicate else 1


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A validated tournament file.

    Attributes:
        path: the TOML file.
        tournament: ``[tournament]``.
        game: ``[game]`` as the engine's settings.
        starting_stack: chips per seat (``[game] starting_stack``).
        stack_mode: reset every hand or freezeout (``[game] stack_mode``).
        schedule: ``[schedule]``.
        limits: ``[limits]`` as the referee's limits.
        bots: ``[[bots]]`` in file order, commands resolved (``python`` ->
            this interpreter), ``cwd`` absolute.
        sandbox: ``[sandbox]``, paths absolute (:mod:`harness.host.sandbox`).
        definition: the game played (``[game] name``, RULES.md R6), Seven Card Draw by default.
    """

    path: Path
    tournament: TournamentSettings
    game: GameConfig
    starting_stack: int
    stack_mode: StackMode
    schedule: ScheduleSettings
    limits: Limits
    bots: tuple[BotSpec, ...]
    sandbox: SandboxSettings = SandboxSettings()
    definition: GameDefinition = SEVEN_CARD_DRAW

    @property
    def bot_names(self) -> tuple[str, ...]:
        """Bot names in file order."""
        return tuple(b.name for b in self.bots)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_char(ch: str) -> str:
    if ch in _TOML_ESCAPES:
        return _TOML_ESCAPES[ch]
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        raise ValueError(f"a lone surrogate (U+{code:04X}) cannot be written to TOML")
    return f"\\u{code:04X}" if code < 0x20 or code == 0x7F else ch


def toml_value(value: Any) -> str:
    """The TOML text of a value (``true``, ``"text"``, ``[1, 2]``, ``{ a = 1 }``): the one TOML writer of the harness.

    Used for error messages and for every TOML file the harness writes. Strings become basic
    strings (TOML 1.0 section "String") with ``"``, ``\\`` and the control characters U+0000-U+001F
    and U+007F escaped and everything else (astral characters too) written as itself, so
    ``tomllib.loads(f"k = {toml_value(s)}")["k"] == s`` for any text ``s``. Other values are
    written as ``str(value)`` (TOML dates and times come back as themselves). Raises ValueError for a lone
    surrogate, which TOML cannot hold.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        return ("inf" if value > 0 else "-inf") if value in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return ("{ " + ", ".join(f"{_toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
                if value else "{}")
    if isinstance(value, (str, os.PathLike)):
        return '"' + "".join(_toml_char(ch) for ch in str(value)) + '"'
    return str(value)


#: The longest ``[tournament] name``: it titles the report's pages and makes the default output ``results/<name>``.
MAX_TOURNAMENT_NAME = 60


def _shown(value: Any) -> str:
    """:func:`toml_value` for an error line: a text longer than 100 characters shown by its start, its end and its
    length, so that a 10 kB value makes a short line."""
    text = toml_value(value)
    return text if len(text) <= 100 else f"{text[:60]}...{text[-20:]} ({len(text):,} characters)"


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else toml_value(key)


class Table:
    """Reads typed keys out of one TOML table and rejects unknown ones."""

    def __init__(self, file: Path, label: str, data: Any) -> None:
        if not isinstance(data, dict):
            raise ConfigError(file, label, f"expected a table, got {type(data).__name__}")
        self.file, self.label, self.data = file, label, data
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.label}.{name}" if self.label.startswith("bots[") else f"{self.label} {name}"

    def error(self, name: str, problem: str) -> ConfigError:
        return ConfigError(self.file, self.key(name), problem)

    def get(self, name: str, kind: type | tuple[type, ...], default: Any, expected: str) -> Any:
        self.used.add(name)
        if name not in self.data:
            return default
        value = self.data[name]
        bad_bool = isinstance(value, bool) and kind in (int, float)
        if bad_bool or not isinstance(value, kind):
            raise self.error(name, f"expected {expected}, got {_shown(value)}")
        return value

    def integer(self, name: str, default: int, minimum: int, maximum: int | None = None) -> int:
        """The key's whole number in ``minimum .. maximum`` (default: its :data:`BOUNDS` maximum)."""
        if maximum is None and name in BOUNDS:
            maximum = BOUNDS[name][1]
        value = self.get(name, int, default, f"an integer >= {minimum}")
        if value < minimum:
            raise self.error(name, f"expected an integer >= {minimum}, got {toml_value(value)}")
        if maximum is not None and value > maximum:
            what = f" ({BOUNDS[name][2]})" if name in BOUNDS else ""
            raise self.error(name, f"expected an integer from {minimum} to {maximum:,}{what}, got {toml_value(value)}")
        return int(value)

    def choice(self, name: str, options: tuple[str, ...], default: str) -> str:
        expected = "one of " + ", ".join(f'"{o}"' for o in options)
        value = self.get(name, str, default, expected)
        if value not in options:
            raise self.error(name, f"expected {expected}, got {_shown(value)}")
        return str(value)

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            known = ", ".join(sorted(self.used))
            raise self.error(unknown[0], f"unknown key; expected one of: {known}")


def read_toml(file: Path, what: str) -> dict[str, Any]:
    """The TOML document in ``file`` (UTF-8, a byte-order mark allowed); ``what`` names the file's kind in errors.

    Raises:
        ConfigError: unreadable file, not UTF-8, or bad TOML (one line naming the file).
    """
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise ConfigError(file, None, f"cannot read the file ({exc.strerror})") from exc
    try:
        # TOML is UTF-8 (toml.io); editors on Windows may add a byte-order mark, which tomllib rejects.
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            file, None,
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); {what} is TOML, "
            "which must be saved as UTF-8: re-save it as UTF-8 in your editor, or check that this is the right file",
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(file, None, f"not valid TOML: {exc}") from exc
    return data


def load_config(path: Path | str) -> TournamentConfig:
    """Read and validate a tournament file.

    Args:
        path: the TOML file.

    Returns:
        The validated configuration.

    Raises:
        ConfigError: unreadable file, bad TOML, or any invalid value.
    """
    file = Path(path)
    data = read_toml(file, "a tournament file")
    return parse_config(data, file)


def parse_config(data: Mapping[str, Any], file: Path) -> TournamentConfig:
    """Validate an already-parsed TOML document (``file`` names it and anchors ``cwd``).

    Raises:
        ConfigError: any invalid value.
    """
    root = Table(file, "top level", dict(data))
    for name in ("tournament", "game", "schedule", "limits", "sandbox"):
        root.get(name, dict, {}, f"a [{name}] table")
    bots_data = root.get("bots", list, None, "an array of [[bots]] tables")
    root.finish()
    base = file.resolve().parent

    tournament = _tournament(Table(file, "[tournament]", data.get("tournament", {})), file)
    schedule = read_schedule(Table(file, "[schedule]", data.get("schedule", {})), game_named(data.get("game", {})))
    game, starting_stack, stack_mode, definition = read_game(Table(file, "[game]", data.get("game", {})), schedule)
    limits = read_limits(Table(file, "[limits]", data.get("limits", {})))
    sandbox = read_sandbox(Table(file, "[sandbox]", data.get("sandbox", {})), base)

    if not bots_data:
        raise ConfigError(file, "[[bots]]", "no bots; add at least two [[bots]] tables with name and command")
    bots = tuple(read_bot(Table(file, f"bots[{i}]", entry), base) for i, entry in enumerate(bots_data))
    seen: set[str] = set()
    for i, bot in enumerate(bots):
        if bot.name in seen:
            raise ConfigError(
                file, f"bots[{i}].name", f"duplicate bot name {toml_value(bot.name)}; names must be unique"
            )
        seen.add(bot.name)

    names = [b.name for b in bots]
    if schedule.format is not Format.GAUNTLET and schedule.table_size > len(bots):
        raise ConfigError(
            file, "[schedule] table_size",
            f"table_size {schedule.table_size} is larger than the number of bots ({len(bots)}); "
            + (f"expected at most {len(bots)}" if len(bots) >= 2 else "a league needs at least two [[bots]]"),
        )
    if schedule.format is Format.GAUNTLET:
        if not schedule.challengers:
            raise ConfigError(file, "[schedule] challengers", "gauntlet needs a list of challenger bot names")
        for c in schedule.challengers:
            if c not in names:
                raise ConfigError(
                    file,
                    "[schedule] challengers",
                    f"{toml_value(c)} is not a bot name; expected one of {toml_value(names)}",
                )
        field_size = len(bots) - len(set(schedule.challengers))
        if field_size < schedule.table_size - 1:
            raise ConfigError(
                file, "[schedule] table_size",
                f"a gauntlet at {schedule.table_size}-seat tables needs at least {schedule.table_size - 1} "
                f"bots besides the challengers, got {field_size}",
            )
    elif schedule.challengers:
        raise ConfigError(file, "[schedule] challengers", 'only used with format = "gauntlet"')
    for i, bot in enumerate(bots):
        check_command(file, i, bot)
    config = TournamentConfig(
        path=file, tournament=tournament, game=game, starting_stack=starting_stack,
        stack_mode=stack_mode, schedule=schedule, limits=limits, bots=bots, sandbox=sandbox, definition=definition,
    )
    plan_size(config, len(bots))
    return config


def plan_size(config: TournamentConfig, bots: int) -> tuple[int, int]:
    """Count the tables and matches of a plan for ``bots`` bots, without building it.

    Args:
        config: the tournament.
        bots: how many bots take part (all of the file's, or those that passed the entry check).

    Returns:
        ``(tables, matches)``.

    Raises:
        ConfigError: fewer bots than seats, sampled parameters no design can meet,
            or more matches than ``[schedule] max_matches`` (the message gives the
            estimated time and points to the sampled format).
    """
    sched = config.schedule
    file = config.path
    if bots < sched.table_size:
        raise ConfigError(
            file, "[schedule] table_size",
            f"table_size {sched.table_size} is larger than the number of bots ({bots}); "
            + (f"expected at most {bots}" if bots >= 2 else "a league needs at least two working bots"),
        )
    try:
        tables = sched.strategy().count(bots)
    except ScheduleError as exc:
        key = "[schedule] tables" if sched.tables is not None else "[schedule] tables_per_bot"
        raise ConfigError(file, key, str(exc)) from None
    matches = tables * sched.rotations
    if matches > sched.max_matches:
        seconds = DEFAULT_RATES.match_seconds(sched.table_size, sched.hands) * matches / speedup(
            effective_jobs(sched.jobs))
        hint = ""
        if sched.format is not Format.SAMPLED and sched.table_size > 2:
            per_bot = default_tables_per_bot(bots, sched.table_size)
            sampled = -(-bots * per_bot // sched.table_size) * sched.rotations
            hint = (f'; use format = "sampled" (e.g. tables_per_bot = {per_bot}: {sampled:,} matches, every pair '
                    "of bots meeting about twice)")
        elif sched.format is not Format.SAMPLED:
            hint = '; use format = "sampled" with tables_per_bot'
        raise ConfigError(
            file, "[schedule] max_matches",
            f"the plan has {matches:,} matches ({tables:,} tables x {sched.rotations} rotations, "
            f"about {describe_seconds(seconds)} here), above max_matches = {sched.max_matches:,}{hint}, "
            "or raise max_matches",
        )
    return tables, matches


def _tournament(t: Table, file: Path) -> TournamentSettings:
    name = t.get("name", str, file.stem, "a string")
    if not name.strip():
        raise t.error("name", "expected a non-empty string")
    if not name.isprintable() or len(name) > MAX_TOURNAMENT_NAME:  # it titles pages and names results/<name>
        what = "the file's name, the default," if "name" not in t.data else "got"
        raise t.error("name", f"expected one line of printable text (no control or BiDi characters) of at most "
                              f"{MAX_TOURNAMENT_NAME} characters; {what} {_shown(name)}")
    seed = t.get("seed", (int, str), None, "a whole number >= 0 or a hex string (64 hex digits)")
    if seed is not None:
        try:
            seed = parse_seed(seed)
        except ValueError as exc:
            raise t.error("seed", str(exc)) from None
    output = t.get("output", str, f"results/{name}", "a directory path (string)")
    if not output.strip():
        raise t.error("output", "expected a non-empty directory path")
    compress = t.get("compress", bool, True, "true or false")
    entry_check = t.get("entry_check", bool, True, "true or false")
    t.finish()
    return TournamentSettings(name=name, seed=seed, output=Path(output), compress=compress, entry_check=entry_check)


def game_named(game: Any) -> GameDefinition | None:
    """The game a ``[game]`` table names (``name``, default Seven Card Draw), or None when it names none of
    :data:`harness.engine.games.GAMES` (:func:`read_game` says so): what ``[schedule] table_size`` is checked
    against before ``[game]`` is read."""
    name = game.get("name", SEVEN_CARD_DRAW.name) if isinstance(game, dict) else SEVEN_CARD_DRAW.name
    return GAMES.get(name) if isinstance(name, str) else None


def read_schedule(t: Table, definition: GameDefinition | None = SEVEN_CARD_DRAW) -> ScheduleSettings:
    """``[schedule]`` (format, table size, hands, jobs, backend...); the contest server reads its own through it.

    Args:
        t: the table.
        definition: the game played (:func:`game_named`): its table bounds ``table_size`` (R1.2: 2 to 6; R6.8:
            2 to 8 in Five Card Draw, R7.1); None (a name :func:`read_game` refuses, or a caller that checks
            the game's own table once ``[game]`` is read): the largest table of any game.

    Raises:
        ConfigError: a key unknown, of the wrong type or out of range (the file and key named).
    """
    fmt = Format(t.choice("format", tuple(f.value for f in Format), Format.ROUND_ROBIN.value))
    most = MAX_TABLE if definition is None else definition.max_seats
    table_size = t.get("table_size", int, 2, f"an integer from {MIN_PLAYERS} to {most}")
    problem = (None if MIN_PLAYERS <= table_size <= MAX_TABLE else f"any game seats {MIN_PLAYERS} to {MAX_TABLE}") \
        if definition is None else seat_count_problem(table_size, definition)
    if problem:
        raise t.error("table_size", f"expected an integer from {MIN_PLAYERS} to {most} ({problem})")
    hands = t.integer("hands", 1000, 1)
    duplicate = t.get("duplicate", bool, True, "true or false")
    jobs = t.integer("jobs", 0, 0)
    pin = t.get("pin", bool, True, "true or false")
    challengers = t.get("challengers", list, [], "a list of bot names")
    if not all(isinstance(c, str) for c in challengers):
        raise t.error("challengers", f"expected a list of bot names (strings), got {toml_value(challengers)}")
    tables_per_bot = t.integer("tables_per_bot", 0, 1) if "tables_per_bot" in t.data else None
    tables = t.integer("tables", 0, 1) if "tables" in t.data else None
    for key, value in (("tables_per_bot", tables_per_bot), ("tables", tables)):
        if value is not None and fmt is not Format.SAMPLED:
            raise t.error(key, 'only used with format = "sampled"')
    if tables_per_bot is not None and tables is not None:
        raise t.error("tables", "give tables_per_bot or tables, not both")
    max_matches = t.integer("max_matches", DEFAULT_MAX_MATCHES, 1)
    backend = Backend(t.choice("backend", tuple(b.value for b in Backend), Backend.LOCAL.value))
    scheduler = t.get("scheduler", str, None, 'a Dask cluster address, e.g. "tcp://HOST:8786" or "local:2"')
    if scheduler is not None:
        try:
            scheduler = parse_cluster(scheduler)
        except ValueError as exc:
            raise t.error("scheduler", str(exc)) from None
        if backend is Backend.LOCAL and "backend" in t.data:
            raise t.error("scheduler", 'only used with backend = "dask"')
        backend = Backend.DASK
    rotations_apart = t.get("rotations_apart", bool, False, "true or false")
    if rotations_apart and backend is not Backend.DASK:
        raise t.error("rotations_apart", 'only used with backend = "dask" (a table\'s rotations on machines of '
                      "their own)")
    t.finish()
    return ScheduleSettings(format=fmt, table_size=table_size, hands=hands, duplicate=duplicate, jobs=jobs,
                            pin=pin, challengers=tuple(challengers), tables_per_bot=tables_per_bot, tables=tables,
                            max_matches=max_matches, backend=backend, scheduler=scheduler,
                            rotations_apart=rotations_apart)


def read_game(t: Table, schedule: ScheduleSettings) -> tuple[GameConfig, int, StackMode, GameDefinition]:
    """``[game]``: the settings (R2, R3), the starting stack in chips, the stack mode and the game
    (``name``, one of :data:`harness.engine.games.GAMES`, default ``"seven-card-draw"``; R6) under its opening rule
    (``openers``, ``"jacks"``, ``"jack-card"`` or ``"none"``, only in a game of openers; R7.2).

    Raises:
        ConfigError: a key unknown, of the wrong type or out of range, or a game these settings or
            ``table_size`` cannot deal (the file and key named).
    """
    defaults = GameConfig()
    definition = GAMES[t.choice("name", tuple(GAMES), SEVEN_CARD_DRAW.name)]
    structure = t.choice("structure", tuple(s.value for s in Structure), defaults.structure.value)
    # Only one blind given: the other follows from small = big / 2 (R2.2), so
    # `big_blind = 20` alone is a 10/20 game rather than an error about a default.
    given_small, given_big = "small_blind" in t.data, "big_blind" in t.data
    small_blind = t.integer("small_blind", defaults.small_blind, 0)
    big_blind = t.integer("big_blind", defaults.big_blind, 0)
    if given_big and not given_small:
        small_blind = big_blind // 2
    elif given_small and not given_big:
        big_blind = small_blind * 2
    ante = t.integer("ante", defaults.ante, 0)
    blinds = t.get("blinds", bool, defaults.blinds, "true or false")
    min_bet = t.integer("min_bet", 0, 2) if "min_bet" in t.data else defaults.min_bet
    cap = t.integer("cap", defaults.cap, 0)
    replacements = t.choice("replacements", ("auto", *(r.value for r in Replacements)), "auto")
    starting_stack = t.integer("starting_stack", 1000, 1)
    stack_mode = StackMode(t.choice("stack_mode", tuple(m.value for m in StackMode), StackMode.RESET.value))
    if "openers" in t.data:  # R7.2: the opening requirement, only in a game of openers (R6.3, R6.10)
        if not definition.passed_out:
            with_rule = ", ".join(toml_value(n) for n, g in GAMES.items() if g.passed_out)
            raise t.error("openers", f"{toml_value(definition.name)} has no opening requirement (R6.3); only "
                          f"{with_rule} takes openers")
        definition = with_openers(definition, t.choice("openers", tuple(Openers), str(definition.openers)))
    t.finish()
    if replacements == "auto":
        # Per-seat replacement cards keep a duplicate deal identical whatever the others draw;
        # 52 cards hold 7 + 4 per seat for at most 4 seats, so larger tables use the stock.
        # They are Seven Card Draw's (R4.4): the other games draw from the stock (R6.9).
        per_seat = schedule.duplicate and schedule.table_size <= 4 and definition == SEVEN_CARD_DRAW
        replacements = Replacements.PER_SEAT.value if per_seat else Replacements.STOCK.value
    elif replacements == Replacements.PER_SEAT.value and schedule.table_size > 4:
        raise t.error("replacements", '"per-seat" needs tables of at most 4 seats; expected "stock" or "auto"')
    try:
        game = GameConfig(
            structure=Structure(structure), small_blind=small_blind, big_blind=big_blind, ante=ante,
            blinds=blinds, min_bet=min_bet, cap=cap, replacements=Replacements(replacements),
        )
    except ValueError as exc:
        raise ConfigError(t.file, "[game]", str(exc)) from exc
    if definition != SEVEN_CARD_DRAW:
        if game.replacements is Replacements.PER_SEAT:
            raise t.error("replacements", f'"per-seat" is Seven Card Draw\'s (R4.4); {definition.name} draws from '
                          'the stock (R6.9): expected "stock" or "auto"')
        problem = game_problem(definition, game, schedule.table_size)
        if problem:
            raise t.error("name", f"{toml_value(definition.name)}: {problem}")
    # A seat must be able to post the forced bets and still decide something: below that,
    # every hand is decided before anyone acts and the leaderboard measures nothing.
    forced = game.ante + game.unit
    if starting_stack < forced:
        bet = "big blind" if game.blinds else "min_bet"
        raise t.error(
            "starting_stack",
            f"starting_stack {starting_stack} is below the ante plus the {bet} ({game.ante} + {game.unit} = "
            f"{forced} chips): seats would be all in before their first decision; expected at least {forced}, "
            f"e.g. {100 * game.unit} (100 big blinds)",
        )
    problem = message_problem(game, schedule.table_size, starting_stack, definition=definition)
    if problem:  # PROTOCOL.md section 7: the longest legal hand's messages must fit
        raise t.error("starting_stack", problem)
    return game, starting_stack, stack_mode, definition


def read_limits(t: Table) -> Limits:
    """``[limits]``: every bot's limits (ms, MiB, processes) within :data:`harness.specs.BOUNDS`.

    Raises:
        ConfigError: a key unknown, of the wrong type or out of bounds (the file and key named).
    """
    values = {}
    for f in dataclasses.fields(Limits):
        if f.name in t.data:
            values[f.name] = t.integer(f.name, 0, 1 if f.name in _POSITIVE_LIMITS else 0)
        t.used.add(f.name)
    t.finish()
    return Limits(**values)


def os_reason(path: Path | str, *, directory: bool = False) -> str | None:
    """Why ``path`` cannot be used, in the OS's words (``No such file or directory``, ``Permission denied``,
    ``Not a directory``...), or None when it is there (and a directory, if ``directory``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    if directory and not stat.S_ISDIR(mode):
        return os.strerror(errno.ENOTDIR)
    return None


def _missing(reason: str) -> str:
    """:func:`os_reason`'s words after a path: ``does not exist`` or ``cannot be used (Permission denied)``."""
    return "does not exist" if reason == os.strerror(errno.ENOENT) else f"cannot be used ({reason})"


def read_sandbox(t: Table, base: Path) -> SandboxSettings:
    """``[sandbox]``: mode, cpu, scratch_mb, uid_range, paths, hidden, resident, view (docs/security.md)."""
    defaults = SandboxSettings()
    mode = SandboxMode(t.choice("mode", tuple(m.value for m in SandboxMode), defaults.mode.value))
    cpu = CpuPolicy(t.choice("cpu", tuple(c.value for c in CpuPolicy), defaults.cpu.value))
    scratch_mb = t.integer("scratch_mb", defaults.scratch_mb, 1)
    resident = t.get("resident", bool, defaults.resident, "true or false")
    view = FileView(t.choice("view", tuple(v.value for v in FileView), defaults.view.value))
    expected = "[first, last]: two uids with 0 < first <= last, e.g. [60100, 61099]"
    uid_range = t.get("uid_range", list, list(defaults.uid_range), expected)
    if (len(uid_range) != 2 or not all(isinstance(u, int) and not isinstance(u, bool) for u in uid_range)
            or not 0 < uid_range[0] <= uid_range[1] < 2**32 - 1):
        raise t.error("uid_range", f"expected {expected}, got {toml_value(uid_range)}")
    lists = {}
    for name in ("paths", "hidden"):
        value = t.get(name, list, [], "a list of paths (strings), relative to the tournament file")
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise t.error(name, f"expected a list of paths (strings), got {toml_value(value)}")
        resolved = tuple(os.fspath((base / v).resolve()) for v in value)
        for text, path in zip(value, resolved, strict=True):
            reason = os_reason(path) if name == "paths" else None
            if reason:
                raise t.error(name, f"{toml_value(text)}: {path} {_missing(reason)}; expected paths to show "
                              "the bots")
        lists[name] = resolved
    t.finish()
    return SandboxSettings(mode=mode, cpu=cpu, scratch_mb=scratch_mb, uid_range=(uid_range[0], uid_range[1]),
                           paths=lists["paths"], hidden=lists["hidden"], resident=resident, view=view)


def read_bot(t: Table, base: Path) -> BotSpec:
    """One ``[[bots]]`` entry (name, command, cwd, env) as a BotSpec; paths relative to ``base``.

    Raises:
        ConfigError: a key unknown, missing or of the wrong type (the file and entry named).
    """
    name = t.get("name", str, None, "a bot name (letters, digits, -_.)")
    if name is None:
        raise t.error("name", "missing; every [[bots]] entry needs a name")
    if not BOT_NAME.match(name):
        raise t.error(
            "name", f"expected {BOT_NAME_RULE}, got {toml_value(name)}"
        )
    command = t.get("command", (str, list), None, 'a command string or a list of strings, e.g. "python -m bots.caller"')
    if command is None:
        raise t.error("command", f"missing; bot {toml_value(name)} needs a command, e.g. \"python -m bots.caller\"")
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise t.error("command", f"cannot split {toml_value(command)}: {exc}") from exc
    else:
        if not all(isinstance(a, str) for a in command):
            raise t.error("command", f"expected a list of strings, got {toml_value(command)}")
        argv = list(command)
    if not argv:
        raise t.error("command", "expected a non-empty command")
    if argv[0] in _PYTHON_NAMES:
        argv[0] = sys.executable  # the harness's own (virtualenv) interpreter
    cwd_text = t.get("cwd", str, ".", "a directory path relative to the tournament file")
    cwd = (base / cwd_text).resolve()
    reason = os_reason(cwd, directory=True)
    if reason:
        raise t.error("cwd", f"{cwd} is not a directory ({reason}); expected a path relative to {base}")
    env = t.get("env", dict, {}, "a table of string values")
    if not all(isinstance(v, str) for v in env.values()):
        raise t.error("env", f"expected a table of string values, got {toml_value(env)}")
    files = t.get("files", list, [], "a list of paths relative to the bot's cwd (files or directories)")
    for i, item in enumerate(files):
        if not isinstance(item, str) or not item:
            raise t.error("files", f"expected a list of paths (strings), got {toml_value(files)}")
        reason = os_reason(cwd / item)
        if reason:
            raise t.error("files", f"item {i} {toml_value(item)}: {cwd / item} {_missing(reason)}; paths "
                          f"are relative to the bot's cwd {cwd}")
    t.finish()
    return BotSpec(name=name, command=tuple(argv), cwd=os.fspath(cwd), env=dict(env), files=tuple(files))


def check_command(file: Path, index: int, bot: BotSpec) -> None:
    """Fail at load time, not after a whole tournament of failed starts, if a bot cannot be launched.

    Uses the referee's own pre-flight check (:func:`harness.host.botproc.resolve_command`):
    the program must exist and be executable (relative paths from the bot's ``cwd``,
    bare names on the PATH the bot will see).

    Raises:
        ConfigError: naming ``bots[i].command`` and how to fix it.
    """
    path = bot.env.get("PATH", os.environ.get("PATH", os.defpath))
    try:
        resolve_command(bot, {"PATH": path})
    except BotStartError as exc:
        raise ConfigError(file, f"bots[{index}].command", str(exc)) from None


def with_overrides(
    config: TournamentConfig,
    *,
    out: Path | None = None,
    jobs: int | None = None,
    hands: int | None = None,
    seed: int | str | None = None,
    pin: bool | None = None,
    sandbox: str | None = None,
    cluster: str | None = None,
) -> TournamentConfig:
    """Apply command-line overrides (``--out``, ``--jobs``, ``--hands``, ``--seed``, ``--pin/--no-pin``, ``--sandbox``,
    ``--cluster``: the Dask backend on that cluster, :func:`parse_cluster`).

    Raises:
        ConfigError: a value out of range (file given as "command line").
    """
    where = "command line"
    if jobs is not None and jobs < 0:
        raise ConfigError(where, "--jobs", f"expected an integer >= 0 (0 = the CPUs this process may use), got {jobs}")
    for option, setting, value in (("--hands", "hands", hands), ("--jobs", "jobs", jobs)):
        problem = None if value is None else bound_problem(setting, value, option)
        if problem:
            raise ConfigError(where, option, problem.removeprefix(f"{option} "))
    if seed is not None:
        try:
            seed = parse_seed(seed)
        except ValueError as exc:
            raise ConfigError(where, "--seed", str(exc)) from None
    modes = tuple(m.value for m in SandboxMode)
    if sandbox is not None and sandbox not in modes:
        raise ConfigError(where, "--sandbox", "expected one of " + ", ".join(modes) + f", got {sandbox!r}")
    tournament = config.tournament
    schedule = config.schedule
    if out is not None:
        tournament = dataclasses.replace(tournament, output=Path(out))
    if seed is not None:
        tournament = dataclasses.replace(tournament, seed=seed)
    if jobs is not None:
        schedule = dataclasses.replace(schedule, jobs=jobs)
    if hands is not None:
        schedule = dataclasses.replace(schedule, hands=hands)
    if pin is not None:
        schedule = dataclasses.replace(schedule, pin=pin)
    box = config.sandbox if sandbox is None else dataclasses.replace(config.sandbox, mode=SandboxMode(sandbox))
    if cluster is not None:
        try:
            address = parse_cluster(cluster)
        except ValueError as exc:
            raise ConfigError(where, "--cluster", str(exc)) from None
        schedule = dataclasses.replace(schedule, backend=Backend.DASK, scheduler=address)
    return dataclasses.replace(config, tournament=tournament, schedule=schedule, sandbox=box)
