"""Contest files: TOML checked like a tournament file, one-line errors naming the file and the key.

Format (every key but ``[contest] name`` and ``[[reference]]`` optional)::

    [contest]
    name = "cs101"            # letters, digits, -_.
    data = "contest-cs101"    # database, uploads and matches (relative to the file)
    database = "postgresql://user@host/db"   # default: SQLite file <data>/contest.db

    [game]      # as in tournament files
    [limits]    # as in tournament files (the admission check uses them too)
    [sandbox]   # as in tournament files

    [ladder]
    hands = 200               # hands per match
    table_size = 2            # seats; a block plays every rotation (duplicate)
    jobs = 2                  # local worker processes (0: the CPUs), or
    cluster = "tcp://h:8786"  # a Dask scheduler
    challenges_per_hour = 5   # quota per student
    build_timeout_s = 60      # a submission's build command: its time, memory and folder size
    build_memory_mb = 2048
    build_disk_mb = 500
    pause_after_faulty_blocks = 3   # a version with a fault in each of its last 3 blocks is paused (0: never)

    [play]                    # a student plays a reference bot or their own version in the browser
    hands = 50                # hands per game
    max_games = 4             # games at once (each holds a bot process); 0: no games
    idle_s = 300              # a game with no answer for this long ends and its bot is stopped

    [final]                   # the final: its own format, hands and time budget
    format = "round-robin"    # or "sampled" (each bot at tables_per_bot tables)
    hands = 200               # hands per match (default: [ladder] hands)
    table_size = 2            # default: [ladder] table_size
    tables_per_bot = 8        # sampled only (default: each pair meets about twice)
    budget_min = 60           # plan to this many minutes: fewer hands per match if needed (0: no budget)
    # format = "racing": heads-up pairs play duplicate tables until their order is clear (harness.tournament.racing)
    error_rate = 0.05         # racing only: the chance, at most, that any pair stops in the wrong order
    min_tables = 1            # racing only: tables every pair plays before its first look
    max_tables = 4            # racing only: the cap; a pair level there stops, not separated

    [[reference]]             # house bots every student plays
    name = "caller"
    command = "python -m bots.caller"
    cwd = "."

    [[students]]
    name = "alice"
    email = "alice@example.org"

Students are read again from the file at every ``--links`` and when the
server reloads the roster (admin page): adding one needs no restart.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.engine.config import MAX_TABLE, MIN_PLAYERS, GameConfig, seat_count_problem
from harness.engine.games import GameDefinition
from harness.specs import BOT_NAME, BOT_NAME_RULE, BotSpec, Limits, SandboxSettings, StackMode
from harness.tournament.config import (
    ConfigError,
    Table,
    TournamentConfig,
    TournamentSettings,
    check_command,
    game_named,
    parse_cluster,
    read_bot,
    read_game,
    read_limits,
    read_sandbox,
    read_schedule,
    read_toml,
    toml_value,
)

#: Longest student name: its versions play as ``<name>.v<N>`` (a bot name, at most 32 characters).
MAX_NAME = 24
#: Largest class the server is sized for (students in the file).
MAX_STUDENTS = 1000


class _Entry(Table):
    """A table of an array (``reference[0]``, ``students[3]``): keys shown as ``reference[0].name``."""

    def key(self, name: str) -> str:
        return f"{self.label}.{name}"


@dataclass(frozen=True, slots=True)
class Student:
    """``[[students]]``: a login name (as a bot name: 1-32 letters, digits, -_.) and an optional email."""

    name: str
    email: str = ""


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """``[ladder]``.

    Attributes:
        hands: hands per match (one rotation of a block).
        table_size: seats per table, 2..6 (R1.2); a block plays ``table_size`` rotations on the same deals.
        jobs: parallel matches on local workers (0: the CPUs this process may use).
        cluster: a Dask scheduler address (:func:`harness.tournament.config.parse_cluster`) or None.
        challenges_per_hour: challenges one student may ask for in any hour (0: none).
        build_timeout_s: seconds a submission's ``build`` command may take (seconds).
        build_memory_mb: memory of all a build's processes together, its ``/tmp`` included (MiB).
        build_disk_mb: the most a version's folder may hold after its build (MiB).
        pause_after_faulty_blocks: a version with a fault (timeout, malformed, illegal, oversized, crash,
            disconnected, failed_start) in each of its last this many blocks gets no more blocks until a new
            version comes or the admin resumes it (0: never paused).
    """

    hands: int = 200
    table_size: int = 2
    jobs: int = 0
    cluster: str | None = None
    challenges_per_hour: int = 5
    build_timeout_s: int = 60
    build_memory_mb: int = 2048
    build_disk_mb: int = 500
    pause_after_faulty_blocks: int = 3


@dataclass(frozen=True, slots=True)
class FinalSettings:
    """``[final]``: the final's own plan (:mod:`harness.server.final`).

    Attributes:
        format: ``round-robin`` (every table of ``table_size`` bots) or ``sampled`` (each bot at
            ``tables_per_bot`` tables drawn so that pairs meet about equally often:
            :class:`harness.tournament.schedule.Sampled`).
        hands: hands per match (None: ``[ladder] hands``).
        table_size: seats per table (None: ``[ladder] table_size``).
        tables_per_bot: sampled only (None: :func:`harness.tournament.schedule.default_tables_per_bot`).
        budget_min: minutes the final should take at most (0: no budget); the plan then cuts the hands per match
            to fit, down to :data:`harness.server.final.MIN_HANDS`, from the ladder's own match times (a racing
            final: its worst case fits).
        error_rate: racing only: the chance, at most, that the race stops any pair with the wrong order
            (:class:`harness.tournament.racing.RaceRule` ``delta``).
        min_tables: racing only: duplicate tables every pair plays before its first look.
        max_tables: racing only: the cap; a pair not separated there stops, its order not claimed.
    ``format = "racing"`` (heads-up only) is a race over the round robin's pairs (:mod:`harness.tournament.racing`).
    """

    format: str = "round-robin"
    hands: int | None = None
    table_size: int | None = None
    tables_per_bot: int | None = None
    budget_min: int = 0
    error_rate: float = 0.05
    min_tables: int = 1
    max_tables: int = 4


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """``[play]``: games a logged-in student plays in the browser against a reference bot or their own version.

    Attributes:
        hands: hands per game.
        max_games: games at once on the server (each holds a bot process); 0 turns games off.
        idle_s: a game whose player has not answered for this long ends (its bot is stopped), seconds.
    """

    hands: int = 50
    max_games: int = 4
    idle_s: int = 300


@dataclass(frozen=True, slots=True)
class SubmissionSettings:
    """``[submissions]``: what one student may submit (the admin, submitting for a student, is not limited).

    Attributes:
        per_hour: new versions one student may submit in any hour (a repeat of an earlier version makes none);
            once reached, every submission is refused until the oldest of them is an hour old.
        disk_mb: the most one student's kept versions may hold on the server together (MiB); a refused
            version's files are removed, so only admitted and waiting versions count.
    The ladder checks one version of a student at a time (the others wait), so one student's submissions
    never hold more than one of the ladder's slots.
    """

    per_hour: int = 6
    disk_mb: int = 1000


@dataclass(frozen=True, slots=True)
class Contest:
    """A validated contest file.

    Attributes:
        path: the TOML file.
        name: ``[contest] name``.
        data: the data folder (absolute).
        database: the SQLAlchemy URL (``sqlite:///<data>/contest.db`` by default).
        tournament: the tournament settings every block and the final play under
            (game, stacks, limits, sandbox; ``bots`` are the reference bots).
        ladder: ``[ladder]``.
        references: ``[[reference]]`` in file order.
        students: ``[[students]]`` in file order.
        play: ``[play]``.
        submissions: ``[submissions]``.
        final: ``[final]``.
    """

    path: Path
    name: str
    data: Path
    database: str
    tournament: TournamentConfig
    ladder: LadderSettings
    references: tuple[BotSpec, ...]
    students: tuple[Student, ...]
    play: PlaySettings = PlaySettings()
    submissions: SubmissionSettings = SubmissionSettings()
    final: FinalSettings = FinalSettings()
    raw: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    @property
    def game(self) -> GameConfig:
        return self.tournament.game

    @property
    def definition(self) -> GameDefinition:
        """The game played (``[game] name``, RULES.md R6)."""
        return self.tournament.definition

    @property
    def limits(self) -> Limits:
        return self.tournament.limits

    @property
    def sandbox(self) -> SandboxSettings:
        return self.tournament.sandbox

    @property
    def starting_stack(self) -> int:
        return self.tournament.starting_stack

    @property
    def stack_mode(self) -> StackMode:
        return self.tournament.stack_mode


def load_contest(path: Path | str) -> Contest:
    """Read and check a contest file.

    Raises:
        ConfigError: unreadable file, bad TOML or any invalid value (one line: file, key, problem).
    """
    file = Path(path)
    data = read_toml(file, "a contest file")
    return parse_contest(data, file)


def parse_contest(data: dict[str, Any], file: Path) -> Contest:
    """Check an already-parsed contest document (``file`` names it and anchors relative paths).

    Raises:
        ConfigError: any invalid value.
    """
    root = Table(file, "top level", dict(data))
    for name in ("contest", "game", "ladder", "limits", "sandbox", "play", "submissions", "final"):
        root.get(name, dict, {}, f"a [{name}] table")
    refs_data = root.get("reference", list, [], "an array of [[reference]] tables")
    students_data = root.get("students", list, [], "an array of [[students]] tables")
    root.finish()
    base = file.resolve().parent

    c = Table(file, "[contest]", data.get("contest", {}))
    name = c.get("name", str, None, "a contest name (letters, digits, -_.)")
    if name is None:
        raise c.error("name", 'missing; expected e.g. name = "cs101"')
    if not BOT_NAME.match(name):
        raise c.error("name", f"expected {BOT_NAME_RULE}, got {toml_value(name)}")
    data_dir = (base / c.get("data", str, f"contest-{name}", "a folder path (string)")).resolve()
    database = c.get("database", str, f"sqlite:///{data_dir / 'contest.db'}",
                     'an SQLite path or a URL: "sqlite:///PATH" or "postgresql://USER@HOST/DB"')
    if not database.startswith(("sqlite:", "postgresql:", "postgresql+psycopg:")):
        if "://" in database:
            raise c.error("database", f'expected "sqlite:///PATH" or "postgresql://USER@HOST/DB", '
                          f"got {toml_value(database)}")
        database = f"sqlite:///{(base / database).resolve()}"  # a plain path: an SQLite file
    if database.startswith("postgresql://"):
        database = "postgresql+psycopg://" + database.removeprefix("postgresql://")
    c.finish()

    ladder = _ladder(Table(file, "[ladder]", data.get("ladder", {})))
    play = _play(Table(file, "[play]", data.get("play", {})))
    submissions = _submissions(Table(file, "[submissions]", data.get("submissions", {})))
    final = _final(Table(file, "[final]", data.get("final", {})))
    if final.format == "racing" and final.table_size is None and ladder.table_size != 2:
        raise ConfigError(file, "[final] table_size", f"a racing final is heads-up: [ladder] table_size is "
                          f"{ladder.table_size}; set table_size = 2 under [final]")
    named = game_named(data.get("game", {}))  # None: a name read_game refuses
    for key, size in (("[ladder] table_size", ladder.table_size), ("[final] table_size", final.table_size)):
        problem = None if size is None or named is None else seat_count_problem(size, named)
        if problem:  # R1.2; R6.8: 8 seats in Five Card Draw (R7.1)
            raise ConfigError(file, key, f"expected an integer from {MIN_PLAYERS} to "
                              f"{named.max_seats if named else MAX_TABLE} ({problem})")
    schedule = read_schedule(Table(file, "[schedule]", {"hands": ladder.hands, "table_size": ladder.table_size,
                                                     "jobs": ladder.jobs}), named)
    game, stack, mode, definition = read_game(Table(file, "[game]", data.get("game", {})), schedule)
    limits = read_limits(Table(file, "[limits]", data.get("limits", {})))
    sandbox = read_sandbox(Table(file, "[sandbox]", data.get("sandbox", {})), base)

    refs = []
    for i, entry in enumerate(refs_data):
        bot = read_bot(_Entry(file, f"reference[{i}]", entry), base)
        try:
            check_command(file, i, bot)
        except ConfigError as exc:
            raise ConfigError(file, f"reference[{i}].command", exc.problem) from None
        refs.append(bot)
    if not refs:
        raise ConfigError(file, "[[reference]]", "no reference bots; add at least one, e.g. "
                          '[[reference]] name = "caller" command = "python -m bots.caller"')
    students = []
    for i, entry in enumerate(students_data):
        s = _Entry(file, f"students[{i}]", entry)
        sname = s.get("name", str, None, "a student name (letters, digits, -_.)")
        if sname is None:
            raise s.error("name", "missing; every [[students]] entry needs a name")
        if not BOT_NAME.match(sname) or len(sname) > MAX_NAME:
            raise s.error("name", f"expected {BOT_NAME_RULE} (at most {MAX_NAME} for a student), "
                          f"got {toml_value(sname)}")
        if sname == "admin":  # the links file's row of the teacher's own link
            raise s.error("name", "'admin' is the teacher's row in the links file (harness serve --links); give "
                          "this student another name")
        email = s.get("email", str, "", "an email address (string)")
        s.finish()
        students.append(Student(sname, email))
    seen: set[str] = set()
    for i, bot in enumerate(refs):
        if bot.name in seen:
            raise ConfigError(file, f"reference[{i}].name", f"duplicate name {toml_value(bot.name)}")
        seen.add(bot.name)
    for i, st in enumerate(students):
        if st.name in seen:
            raise ConfigError(file, f"students[{i}].name",
                              f"duplicate name {toml_value(st.name)} (students and reference bots share names)")
        seen.add(st.name)
    if len(students) > MAX_STUDENTS:
        raise ConfigError(file, "[[students]]", f"{len(students)} students; expected at most {MAX_STUDENTS}")
    tournament = TournamentConfig(
        path=file, tournament=TournamentSettings(name=name, output=data_dir / "final"), game=game,
        starting_stack=stack, stack_mode=mode, schedule=schedule, limits=limits, bots=tuple(refs), sandbox=sandbox,
        definition=definition)
    return Contest(path=file, name=name, data=data_dir, database=database, tournament=tournament, ladder=ladder,
                   references=tuple(refs), students=tuple(students), play=play, submissions=submissions,
                   final=final, raw=dict(data))


def _ladder(t: Table) -> LadderSettings:
    hands = t.integer("hands", 200, 1)
    table_size = t.integer("table_size", 2, MIN_PLAYERS, MAX_TABLE)  # the game's own table: read_schedule's
    jobs = t.integer("jobs", 0, 0, 256)
    cluster = t.get("cluster", str, None, 'a Dask scheduler address, e.g. "tcp://HOST:8786" or "local:2"')
    if cluster is not None:
        try:
            cluster = parse_cluster(cluster)
        except ValueError as exc:
            raise t.error("cluster", str(exc)) from None
        if "jobs" in t.data:
            raise t.error("cluster", "give jobs (local workers) or cluster (a Dask scheduler), not both")
    quota = t.integer("challenges_per_hour", 5, 0, 1000)
    build = t.integer("build_timeout_s", 60, 1, 3600)
    build_memory = t.integer("build_memory_mb", 2048, 64, 65536)
    build_disk = t.integer("build_disk_mb", 500, 1, 100_000)
    pause_after = t.integer("pause_after_faulty_blocks", 3, 0, 1000)
    t.finish()
    return LadderSettings(hands=hands, table_size=table_size, jobs=jobs, cluster=cluster,
                          challenges_per_hour=quota, build_timeout_s=build, build_memory_mb=build_memory,
                          build_disk_mb=build_disk, pause_after_faulty_blocks=pause_after)


def _play(t: Table) -> PlaySettings:
    hands = t.integer("hands", 50, 1, 10_000)
    max_games = t.integer("max_games", 4, 0, 64)
    idle_s = t.integer("idle_s", 300, 5, 86_400)
    t.finish()
    return PlaySettings(hands=hands, max_games=max_games, idle_s=idle_s)


def _submissions(t: Table) -> SubmissionSettings:
    per_hour = t.integer("per_hour", 6, 1, 10_000)
    disk_mb = t.integer("disk_mb", 1000, 1, 10_000_000)
    t.finish()
    return SubmissionSettings(per_hour=per_hour, disk_mb=disk_mb)


def _final(t: Table) -> FinalSettings:
    fmt = t.choice("format", ("round-robin", "sampled", "racing"), "round-robin")
    hands = t.integer("hands", 0, 1) if "hands" in t.data else None
    table_size = t.integer("table_size", 2, MIN_PLAYERS, MAX_TABLE) if "table_size" in t.data else None
    tables_per_bot = t.integer("tables_per_bot", 1, 1, 10_000) if "tables_per_bot" in t.data else None
    if tables_per_bot is not None and fmt != "sampled":
        raise t.error("tables_per_bot", 'goes with format = "sampled"')
    budget = t.integer("budget_min", 0, 0, 100_000)
    for key in ("error_rate", "min_tables", "max_tables"):
        if key in t.data and fmt != "racing":
            raise t.error(key, 'goes with format = "racing"')
    error_rate = float(t.get("error_rate", (int, float), 0.05, "a number between 0 and 1, e.g. 0.05"))
    if not 0 < error_rate < 1:
        raise t.error("error_rate", f"expected a number between 0 and 1 (not included), got {error_rate}")
    least = t.integer("min_tables", 1, 1, 1000)
    most = t.integer("max_tables", max(4, least), least, 1000)
    if fmt == "racing" and table_size not in (None, 2):
        raise t.error("table_size", f'a racing final is heads-up: expected 2, got {table_size}')
    t.finish()
    return FinalSettings(format=fmt, hands=hands, table_size=table_size, tables_per_bot=tables_per_bot,
                         budget_min=budget, error_rate=error_rate, min_tables=least, max_tables=most)
