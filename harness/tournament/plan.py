"""The plan of a tournament: its matches, each with a fingerprint of what decides it.

A match is decided by the bots at its table (each one's command, cwd, env and
the files it runs, :func:`bot_files`), their seats, the game, the stacks, the limits,
the number of hands and the match seed, and by nothing else: not by the other
bots of the contest, not by where the match sits in the schedule. The
fingerprint of a match is SHA-256 over exactly these, so results are kept per
match: a changed or added bot changes the fingerprints of its own matches
only, and every other stored result is reused. The seed enters the hash, never
a file in clear.

Match ids are the seated bot names and the first 8 hex digits of the
fingerprint (``"alice+bob-3fa2b1c0"``): a match replayed after a change gets a
new id and a new directory, so the earlier result stays on disk (never counted
again, see :mod:`harness.tournament.stats`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import __version__
from harness.deals import commitment
from harness.engine.games import GAMES, SEVEN_CARD_DRAW
from harness.specs import BotSpec
from harness.tournament.config import TournamentConfig, plan_size
from harness.tournament.design import Balance, balance
from harness.tournament.leaderboard import plural
from harness.tournament.results import MatchRecord
from harness.tournament.schedule import Format, ScheduledMatch, build_schedule

#: Files named on a bot's command line larger than this are fingerprinted by size and time, not content.
_HASH_LIMIT_BYTES = 64 * 1024 * 1024
_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}


def command_files(bot: BotSpec) -> list[Path]:
    """Files a bot's command names: its program when given as a path, script arguments, ``-m`` modules.

    ``python`` (the harness's interpreter) and programs found on the PATH are
    not included: they are the machine's, not the entrant's.
    """
    cwd = Path(bot.cwd or ".")
    found: list[Path] = []
    argv = list(bot.command)
    for i, arg in enumerate(argv):
        if i == 0 and (arg == sys.executable or "/" not in arg):
            continue
        if i > 0 and argv[i - 1] == "-m":
            base = cwd / Path(*arg.split("."))
            for candidate in (base.with_suffix(".py"), base / "__main__.py"):
                if candidate.is_file():
                    found.append(candidate)
                    break
            continue
        if arg.startswith("-"):
            continue
        path = Path(arg) if os.path.isabs(arg) else cwd / arg
        try:
            if path.is_file():
                found.append(path)
        except OSError:
            continue
    return found


def file_digest(path: Path) -> str:
    """SHA-256 of a file's content (size and mtime for files over 64 MiB); cached per run."""
    try:
        st = path.stat()
    except OSError:
        return "missing"
    key = (os.fspath(path), st.st_size, st.st_mtime_ns)
    if key in _FILE_DIGESTS:
        return _FILE_DIGESTS[key]
    if st.st_size > _HASH_LIMIT_BYTES:
        digest = f"size {st.st_size} mtime {st.st_mtime_ns}"
    else:
        h = hashlib.sha256()
        try:
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            digest = h.hexdigest()
        except OSError:
            digest = "unreadable"
    _FILE_DIGESTS[key] = digest
    return digest


#: A bot's cwd tree with more files than this is not walked: only its command's files (and ``files``) count.
TREE_MAX_FILES = 5000
#: Bytes of one tree whose content is hashed; files past it count by (size, mtime_ns).
TREE_HASH_BYTES = 256 * 1024 * 1024
#: Directories never walked: version control, caches a run writes (bytecode, test and lint caches).
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
#: A directory holding one of these is an output directory of this harness (a tournament's or a match's).
_HARNESS_ROOT = os.path.realpath(Path(__file__).resolve().parents[2])
_OUTPUT_MARKERS = (".harness-tournament", "tournament.json", "results.jsonl", "hands.jsonl", "hands.jsonl.gz")


def _walk(root: Path, limit: int | None) -> list[Path] | None:
    """Files under ``root`` (sorted, symlinks not followed), skipping :data:`_SKIP_DIRS`, ``*.pyc``
    and output directories; None when there are more than ``limit``."""
    found: list[Path] = []
    for here, dirs, names in os.walk(root):
        if here != os.fspath(root) and any(m in names for m in _OUTPUT_MARKERS):
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(names):
            if name.endswith(".pyc"):
                continue
            path = Path(here, name)
            if path.is_file():
                found.append(path)
                if limit is not None and len(found) > limit:
                    return None
    return found


def _tree_digest(cwd: Path, paths: Sequence[Path]) -> str:
    """SHA-256 over (relative path, digest) of ``paths``: content up to :data:`TREE_HASH_BYTES`, then stat."""
    h = hashlib.sha256()
    budget = TREE_HASH_BYTES
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        key = (os.fspath(path), st.st_size, st.st_mtime_ns)
        if key in _FILE_DIGESTS or st.st_size <= min(budget, _HASH_LIMIT_BYTES):
            if key not in _FILE_DIGESTS:
                budget -= st.st_size
            digest = file_digest(path)
        else:
            digest = f"size {st.st_size} mtime {st.st_mtime_ns}"
        try:
            label = os.fspath(path.relative_to(cwd))
        except ValueError:
            label = os.fspath(path)
        h.update(json.dumps([label, digest]).encode())
    return h.hexdigest()


def shared_cwds(bots: Sequence[BotSpec]) -> frozenset[str]:
    """The cwds that more than one of ``bots`` has (their trees cannot tell whose file changed)."""
    seen: dict[str, int] = {}
    for bot in bots:
        key = os.path.realpath(bot.cwd or ".")
        seen[key] = seen.get(key, 0) + 1
    return frozenset(k for k, n in seen.items() if n > 1)


def bot_files(bot: BotSpec, *, shared: frozenset[str] = frozenset()) -> dict[str, Any]:
    """What a bot runs, for its fingerprint: ``{"tree": ...}`` besides the files its command names.

    - ``bot.files`` given (``files = [...]`` in the tournament file): those
      paths (files, or directories walked whole), relative to its cwd.
    - else its cwd when the bot has it to itself: every file under it
      (a rebuilt jar behind ``./run.sh`` changes the bot), skipping
      version control, bytecode and test caches and this harness's output
      directories; over :data:`TREE_MAX_FILES` files, not walked.
    - else (a cwd shared with other bots, the harness's own directory, or
      too big): nothing more than the command's files.

    Returns:
        ``{"tree": "<sha256>", "tree_files": N}``, or ``{"tree": "not walked: <why>"}``.
    """
    cwd = Path(bot.cwd or ".")
    if bot.files:
        paths: list[Path] = []
        for name in bot.files:
            path = cwd / name
            paths += (_walk(path, None) or []) if path.is_dir() else [path]
        return {"tree": _tree_digest(cwd, paths), "tree_files": len(paths), "listed": list(bot.files)}
    if os.path.realpath(cwd) in shared:
        return {"tree": "not walked: cwd shared with other bots (give files = [...])"}
    if os.path.realpath(cwd) == _HARNESS_ROOT:  # its bots.* are the machine's, like the harness version
        return {"tree": "not walked: the harness's own directory (give files = [...])"}
    walked = _walk(cwd, TREE_MAX_FILES)
    if walked is None:
        return {"tree": f"not walked: more than {TREE_MAX_FILES} files under cwd (give files = [...])"}
    return {"tree": _tree_digest(cwd, walked), "tree_files": len(walked)}


def bot_setup(bot: BotSpec, *, shared: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A bot's launch settings as written, for fingerprints and ``tournament.json``.

    The interpreter path is recorded as ``python`` (what the file says), so
    resuming through another name of the same venv (``.venv/bin/harness``
    vs ``.venv/bin/python -m harness.cli``) is not a change. ``files`` maps each
    file the command names (:func:`command_files`) to its SHA-256: an entrant
    who replaces ``mybot.py`` has changed the bot; ``run`` is :func:`bot_files`
    (its cwd's tree, or its ``files``), so a bot rebuilt behind a wrapper
    script has changed too. ``shared``: :func:`shared_cwds` of the tournament.
    """
    command = ["python" if i == 0 and arg == sys.executable else arg for i, arg in enumerate(bot.command)]
    cwd = Path(bot.cwd or ".")
    files = {}
    for path in command_files(bot):
        try:
            label = os.fspath(path.relative_to(cwd))
        except ValueError:
            label = os.fspath(path)
        files[label] = file_digest(path)
    return {"command": command, "cwd": bot.cwd, "env": dict(sorted(bot.env.items())), "files": files,
            "run": bot_files(bot, shared=shared)}


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def settings(config: TournamentConfig) -> dict[str, Any]:
    """What decides every match besides its bots and seed, keyed by where it is set (for messages). The game's
    name and opening rule are there only when they are not the defaults (Seven Card Draw, the game's own openers,
    R6, R7.2), so the fingerprints of a tournament that sets neither stay those of before they could be set."""
    decided = {
        "[game]": config.game.to_dict(),
        "[game] starting_stack": config.starting_stack,
        "[game] stack_mode": str(config.stack_mode),
        "[schedule] hands": config.schedule.hands,
        "[limits]": dataclasses.asdict(config.limits),
        "harness version": __version__,
    }
    definition = config.definition
    if definition != SEVEN_CARD_DRAW:
        decided["[game] name"] = definition.name
        if definition.openers != GAMES[definition.name].openers:
            decided["[game] openers"] = str(definition.openers)
    return decided


def match_fingerprint(settings_digest: str, seed: int, seats: Sequence[tuple[str, str]]) -> str:
    """SHA-256 (hex) of a match: the shared settings, its seed and each seat's bot (name, digest), by seat.

    The names count: bots are told who sits where (``match_start``), and two
    copies of one program are two entrants.
    """
    return _digest({"settings": settings_digest, "seed": seed, "seats": [list(s) for s in seats]})


@dataclass(frozen=True, slots=True)
class Plan:
    """The matches a run will hold, with fingerprints, and what it needs to report on them.

    Attributes:
        bots: the bots in the plan (file order; bots that failed their entry check are not).
        matches: every match, ``match_id`` and ``fingerprint`` set.
        tables: number of tables.
        hands: hands per match.
        table_size: seats per table.
        design: the sampled format's tables (each sorted by name), else None.
        settings: :func:`settings` of the configuration.
        settings_digest: digest of ``settings``.
        seed_sha256: the commitment to the tournament seed (:func:`harness.deals.commitment`).
        bot_digests: per bot, the digest of its :func:`bot_setup`.
        later_seed_sha256: commitments to the later deal seeds (drawn when matches had to be
            played after a reveal, :func:`harness.tournament.seeds.add_deal_seed`), oldest first.
    """

    bots: tuple[str, ...]
    matches: tuple[ScheduledMatch, ...]
    tables: int
    hands: int
    table_size: int
    design: tuple[tuple[str, ...], ...] | None
    settings: Mapping[str, Any]
    settings_digest: str
    seed_sha256: str
    bot_digests: Mapping[str, str] = field(default_factory=dict)
    later_seed_sha256: tuple[str, ...] = ()

    @property
    def total_hands(self) -> int:
        """Hands over every match of the plan."""
        return len(self.matches) * self.hands

    def balance(self) -> Balance | None:
        """How balanced the tables are (None for heads-up round-robin, where every pair meets once)."""
        if not self.matches:
            return None
        tables: dict[str, tuple[str, ...]] = {}
        for m in self.matches:
            tables.setdefault(m.table, m.bots)
        return balance(list(tables.values()), self.bots)

    def manifest_matches(self) -> list[list[Any]]:
        """``[[match_id, table, rotation, fingerprint], ...]`` for ``tournament.json``."""
        return [[m.match_id, m.table, m.rotation, m.fingerprint] for m in self.matches]


def make_plan(config: TournamentConfig, bots: Sequence[BotSpec] | None = None, *, seed: int | None = None,
              previous_design: Sequence[Sequence[str]] | None = None, later_seeds: Sequence[int] = (),
              done: Mapping[str, str] | None = None) -> Plan:
    """Build the plan for ``bots`` (default: every bot of the file).

    Args:
        config: the tournament.
        bots: the bots taking part (e.g. those that passed the entry check), in file order.
        seed: the tournament seed (:func:`harness.tournament.seeds.tournament_seed`); default
            ``[tournament] seed``, or 0 when the file gives none (enough to count and list
            the matches, not to deal them).
        previous_design: the sampled design stored by an earlier run in the output
            directory; it is repaired (only the tables of added or removed bots change)
            instead of drawn afresh. Ignored by the other formats.
        later_seeds: deal seeds drawn after the tournament seed was revealed
            (:mod:`harness.tournament.seeds`), oldest first. The tables (and the
            sampled design) always come from ``seed``; each table is dealt from the
            seed its stored results were dealt from, and a table with no stored
            result from the newest seed, so that no new match is dealt from a
            seed already published.
        done: fingerprints of the stored results, by match id (to find each table's seed).

    Returns:
        The plan.

    Raises:
        harness.tournament.config.ConfigError: too few bots, parameters that cannot be
            met, or more matches than ``[schedule] max_matches``.
    """
    bots = list(config.bots if bots is None else bots)
    names = [b.name for b in bots]
    tables, _ = plan_size(config, len(bots))
    sched = config.schedule
    previous = None
    if sched.format is Format.SAMPLED and previous_design:
        previous = tuple(tuple(t) for t in previous_design)
    if seed is None:
        seed = config.tournament.seed or 0
    strategy = sched.strategy(seed=seed, previous=previous)
    conf = settings(config)
    conf_digest = _digest(conf)
    shared = shared_cwds(config.bots)
    digests = {b.name: _digest(bot_setup(b, shared=shared)) for b in bots}

    def fingerprinted(deal_seed: int) -> list[ScheduledMatch]:
        out = []
        for p in build_schedule(strategy, names, seed=deal_seed, duplicate=sched.duplicate):
            fp = match_fingerprint(conf_digest, p.seed, [(name, digests[name]) for name in p.bots])
            out.append(dataclasses.replace(p, match_id=f"{p.match_id}-{fp[:8]}", fingerprint=fp))
        return out

    pairings = matches = fingerprinted(seed)
    if later_seeds:
        # Oldest seed first: a table keeps the seed of its stored results; a new table takes the newest seed.
        stored = done or {}
        grouped: list[dict[str, list[ScheduledMatch]]] = []
        for planned in [matches, *(fingerprinted(s) for s in later_seeds)]:
            rows: dict[str, list[ScheduledMatch]] = {}
            for p in planned:
                rows.setdefault(p.table, []).append(p)
            grouped.append(rows)
        matches = []
        for table in grouped[0]:
            dealt = next((g[table] for g in grouped if any(stored.get(p.match_id) == p.fingerprint for p in g[table])),
                         grouped[-1][table])
            matches.extend(dealt)
    design = None
    if sched.format is Format.SAMPLED:
        seen: dict[str, tuple[str, ...]] = {}
        for p in pairings:
            seen.setdefault(p.table, tuple(sorted(p.bots)))
        design = tuple(seen.values())
    return Plan(
        bots=tuple(names), matches=tuple(matches), tables=tables, hands=sched.hands, table_size=sched.table_size,
        design=design, settings=conf, settings_digest=conf_digest, seed_sha256=commitment(seed),
        bot_digests=digests, later_seed_sha256=tuple(commitment(s) for s in later_seeds),
    )


@dataclass(frozen=True, slots=True)
class Reuse:
    """How a plan meets what an output directory already holds.

    Attributes:
        reused: planned matches whose result is stored (same fingerprint).
        playing: planned matches still to play.
        dropped: matches of the previous plan, with a stored result, that are not in this one
            (their results stay on disk and are not counted).
        reasons: why nothing could be reused, e.g. ``["[game] changed"]`` (empty otherwise).
    """

    reused: int
    playing: int
    dropped: int
    reasons: tuple[str, ...] = ()

    def describe(self) -> str:
        """``"reused 540 matches, playing 12, dropped 0"`` plus the reason when nothing is reusable."""
        text = f"reused {plural(self.reused, 'match')}, playing {self.playing}, dropped {self.dropped}"
        if self.reasons:
            text += f" ({'; '.join(self.reasons)}: no earlier result can be reused)"
        return text


def compare(plan: Plan, done: Mapping[str, str], previous: Mapping[str, Any] | None) -> Reuse:
    """Count reused, new and dropped matches.

    Args:
        plan: the new plan.
        done: fingerprints of stored results, by match id.
        previous: the earlier ``tournament.json`` (or None).
    """
    planned = {m.match_id: m.fingerprint for m in plan.matches}
    reused = sum(1 for mid, fp in planned.items() if done.get(mid) == fp)
    dropped = 0
    reasons: list[str] = []
    if previous:
        old = previous.get("matches") or []
        dropped = sum(1 for row in old if isinstance(row, list) and row and row[0] not in planned and row[0] in done)
        before = previous.get("settings") or {}
        if isinstance(before, dict):
            reasons += [f"{key} changed" for key in sorted(set(before) | set(plan.settings))
                        if before.get(key) != plan.settings.get(key)]
        if previous.get("seed_sha256") not in (None, plan.seed_sha256):
            reasons.append("[tournament] seed changed")
        if reused:
            reasons = []
    return Reuse(reused=reused, playing=len(planned) - reused, dropped=dropped, reasons=tuple(reasons))


@dataclass(frozen=True)
class Planned:
    """A plan set against what an output directory holds (:func:`plan_against`).

    Attributes:
        plan: the plan.
        records: the stored results the plan reuses (same match id and fingerprint).
        todo: the planned matches left to play, in schedule order.
        reuse: what was reused, new and dropped (:func:`compare`).
    """

    plan: Plan
    records: list[MatchRecord]
    todo: list[ScheduledMatch]
    reuse: Reuse


def plan_against(config: TournamentConfig, bots: Sequence[BotSpec], seeds: Sequence[int],
                 stored: Mapping[str, MatchRecord], previous: Mapping[str, Any] | None) -> Planned:
    """The plan of ``bots`` for an output directory: ``harness run`` plays it, ``harness plan`` shows it.

    Args:
        config: the tournament.
        bots: the entries that play.
        seeds: the tournament seed, then any later deal seeds (:func:`make_plan`).
        stored: the results already stored, by match id (pending ones included).
        previous: the directory's earlier ``tournament.json``, or None: its design is kept
            when the table size is the same.

    Raises:
        ConfigError: the plan cannot be made (e.g. above ``max_matches``).
    """
    design = previous.get("design") if previous and previous.get("table_size") == config.schedule.table_size else None
    done = {mid: rec.fingerprint for mid, rec in stored.items()}
    plan = make_plan(config, bots, seed=seeds[0], later_seeds=seeds[1:], done=done, previous_design=design)
    planned = {m.match_id: m.fingerprint for m in plan.matches}
    records = [rec for mid, rec in stored.items() if planned.get(mid) == rec.fingerprint]
    recorded = {rec.match_id for rec in records}
    todo = [m for m in plan.matches if m.match_id not in recorded]
    return Planned(plan, records, todo, compare(plan, done, previous))
