"""Read a tournament output directory into what the reports show: pure reading, no writing.

Match records come from ``results.jsonl`` (:func:`harness.tournament.results.read_results`),
hands from each match's hand history through :mod:`harness.report.hands` (the one
adapter), bot logs from ``matches/<id>/logs/<seat>-<name>.err``.
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.history.files import HistoryError
from harness.host.tracebacks import find_traces
from harness.report.chips import ChipsTally, HandLine, counterpart, hand_line
from harness.report.hands import hand_view, numbered_hand_records, read_hand_records
from harness.report.pokerstats import Counts, PokerStats
from harness.specs import FaultKind
from harness.tournament.results import (
    MATCHES_DIR,
    MatchRecord,
    hand_history_path,
    read_manifest,
    read_results,
)
from harness.tournament.stats import FAULT_COLUMNS, Estimate, crosstable, hand_of_deal

#: Lines of a bot's stderr shown from its first failing match.
STDERR_TAIL_LINES = 20
#: Hands of a match kept for the hand viewer by default (faults first, then the largest pots).
VIEWER_HANDS_PER_MATCH = 12


@dataclass(slots=True)
class FaultExample:
    """The first fault of one kind of a bot.

    Attributes:
        kind: fault kind (timeout, illegal, ...).
        count: faults of this kind over the tournament.
        match_id, hand_id: where the first one happened (hand None: outside a hand record).
        decision: index of the decision in the hand's steps, when the history records it (else None).
        detail: what the referee received or what happened (its words).
    """

    kind: str
    count: int
    match_id: str
    hand_id: int | None
    decision: int | None
    detail: str


@dataclass(slots=True)
class Opponent:
    """A bot's results at the tables it shared with one other bot."""

    name: str
    matches: int = 0
    won: int = 0
    lost: int = 0
    net_chips: int = 0
    estimate: Estimate | None = None


@dataclass(slots=True)
class BotReport:
    """Everything the per-bot report shows (``reports/<bot>.md`` and ``report/bots/<bot>.html``).

    Times are milliseconds. ``decision_ms`` is (median, p99, max) over every
    decision the bot made, None without any. ``bank_used_ms`` is the most
    time bank one match used (decision time above ``decision_ms``, capped at
    the bank).
    """

    name: str
    matches: list[str] = field(default_factory=list)
    hands: int = 0
    net_chips: int = 0
    opponents: list[Opponent] = field(default_factory=list)
    faults: list[FaultExample] = field(default_factory=list)
    put_out: list[tuple[str, str]] = field(default_factory=list)
    failing_match: str | None = None
    stderr_path: str | None = None
    stderr_tail: list[str] = field(default_factory=list)
    tracebacks: int = 0
    first_traceback: str = ""
    trace_languages: dict[str, int] = field(default_factory=dict)
    traceback_where: str | None = None
    decisions: int = 0
    decision_ms: tuple[float, float, float] | None = None
    bank_used_ms: float = 0.0
    bank_ms: int | None = None
    replay_command: str | None = None
    stats: Counts = field(default_factory=Counts)
    versus: dict[str, Counts] = field(default_factory=dict)
    chips: ChipsTally = field(default_factory=ChipsTally)
    costly: list[HandLine] = field(default_factory=list)
    best: list[HandLine] = field(default_factory=list)


@dataclass(slots=True)
class MatchInfo:
    """One match for the report: its record, where its files are, the hands kept for the viewer."""

    record: MatchRecord
    history: Path | None
    hands: list[dict[str, Any]] = field(default_factory=list)
    hand_count: int = 0
    problem: str | None = None
    table_complete: bool = True

    @property
    def match_id(self) -> str:
        """The match id."""
        return self.record.match_id


@dataclass(slots=True)
class ReportData:
    """A tournament output directory as the reports see it."""

    out_dir: Path
    name: str
    bots: list[str]
    records: list[MatchRecord]
    matches_total: int
    manifest: dict[str, Any]
    notices: list[str]
    matches: list[MatchInfo]
    bot_reports: dict[str, BotReport]
    stats: PokerStats = field(default_factory=PokerStats)

    @property
    def table_size(self) -> int:
        """Seats per table (from the manifest, else the records)."""
        size = self.manifest.get("table_size")
        if isinstance(size, int):
            return size
        return max((len(r.result.bots) for r in self.records), default=2)


def _limits(manifest: dict[str, Any]) -> dict[str, Any]:
    settings = manifest.get("settings")
    limits = settings.get("[limits]") if isinstance(settings, dict) else None
    return limits if isinstance(limits, dict) else {}


def _percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of sorted values."""
    rank = max(1, -(-len(sorted_values) * p // 100))
    return float(sorted_values[int(rank) - 1])


def _tail(path: Path, lines: int) -> list[str]:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - 16384))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    return text.splitlines()[-lines:]


def _select_hands(views: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """Hands kept for the viewer: all with ``limit`` None; else hand 0, hands with faults, the largest pots."""
    if limit is None or len(views) <= limit:
        return views
    chosen: dict[int, dict[str, Any]] = {}
    for view in views[:1] + [v for v in views if v["faults"]]:
        if len(chosen) >= max(1, limit // 2):
            break
        chosen.setdefault(view["hand_id"], view)
    for view in sorted(views, key=lambda v: (-sum(p["amount"] for p in v["pots"]), v["hand_id"])):
        if len(chosen) >= limit:
            break
        chosen.setdefault(view["hand_id"], view)
    return sorted(chosen.values(), key=lambda v: v["hand_id"])


def _read_match(rec: MatchRecord, match_dir: Path, bots: Mapping[str, BotReport], pstats: PokerStats,
                complete: bool, viewer_hands: int | None, notices: list[str]) -> tuple[MatchInfo, list[dict[str, Any]]]:
    """One match's hand history read once: its viewer hands, each bot's chips and the poker statistics
    (``complete``: every rotation of its table is recorded, so its hands may be shown)."""
    res = rec.result
    history = hand_history_path(match_dir)
    info = MatchInfo(rec, history)
    views: list[dict[str, Any]] = []
    info.table_complete = complete
    if history is not None:
        line = 0
        try:
            for line, record in numbered_hand_records(history):  # noqa: B007 - the except names the line
                view = hand_view(record)
                view["match_id"] = res.match_id  # a record upgraded from version 1 may lack it
                views.append(view)
                pstats.add_hand(view)
                for pos, name in enumerate(view["bots"]):
                    if name in bots:
                        bots[name].chips.add(view, pos, listed=info.table_complete)
        except HistoryError as exc:
            info.problem = str(exc)
            notices.append(str(exc))
        except OSError as exc:
            info.problem = f"cannot read {history}: {exc.strerror or exc}"
            notices.append(info.problem)
        except (KeyError, TypeError, ValueError, IndexError) as exc:  # lines of JSON that are not hand records
            info.problem = (f"not a hand history: {history} line {line}: not a hand record of this harness "
                            f"({type(exc).__name__}: {exc})")
            notices.append(info.problem)
    info.hand_count = len(views)
    if info.table_complete:
        info.hands = _select_hands(views, viewer_hands)
    return info, views


def _seat_files(bot: BotReport, match_id: str, err: Path, failing: bool, history: Path | None) -> None:
    """What a seat's stderr log tells of its bot: the first failing match's tail, the tracebacks by language."""
    if failing and bot.failing_match is None:
        bot.failing_match = match_id
        bot.stderr_path = str(err)
        bot.stderr_tail = _tail(err, STDERR_TAIL_LINES)
    try:
        text = err.read_text(encoding="utf-8", errors="replace") if err.is_file() else ""
    except OSError:
        text = ""
    found = find_traces(text)
    if found:
        if not bot.tracebacks:
            bot.first_traceback, bot.traceback_where = found[0].text, str(err)
        bot.tracebacks += len(found)
        for trace in found:
            bot.trace_languages[trace.language] = bot.trace_languages.get(trace.language, 0) + 1
    if bot.replay_command is None and history is not None:
        bot.replay_command = f"harness replay {history}"


def _finish_bot(bot: BotReport, names: Sequence[str], counts: dict[str, int],
                first_fault: Mapping[tuple[str, str], FaultExample], times: list[float],
                cells: Mapping[tuple[str, str], Any], records: Sequence[MatchRecord], pstats: PokerStats) -> None:
    """A bot's faults with their first example, its decision times and its results per opponent."""
    name = bot.name
    kinds: list[str] = [kind for kind, _ in FAULT_COLUMNS]
    for kind in sorted(counts, key=lambda k: (kinds.index(k) if k in kinds else len(kinds), k)):
        if not counts[kind]:
            continue
        example = first_fault.get((name, kind)) or FaultExample(kind, 0, "", None, None, "")
        if kind == FaultKind.FAILED_START and not example.match_id:
            first = next(((m, s) for m, s in bot.put_out if s.startswith(FaultKind.FAILED_START)), None)
            example.match_id, example.detail = (first or ("", ""))
        example.count = counts[kind]
        bot.faults.append(example)
    ordered = sorted(times)
    bot.decisions = len(ordered)
    if ordered:
        bot.decision_ms = (float(statistics.median(ordered)), _percentile(ordered, 99), ordered[-1])
    for other in names:
        if other == name:
            continue
        opp = Opponent(other, estimate=cells.get((name, other)))
        for rec in records:
            res = rec.result
            if name in res.bots and other in res.bots:
                net = res.net[res.bots.index(name)]
                opp.matches += 1
                opp.won += net > 0
                opp.lost += net < 0
                opp.net_chips += net
        if opp.matches:
            bot.opponents.append(opp)
    bot.stats = pstats.bots.get(name, Counts())
    bot.versus = {o: pstats.versus[(name, o)] for o in names if (name, o) in pstats.versus}


def collect(out_dir: Path, *, viewer_hands: int | None = VIEWER_HANDS_PER_MATCH,
            records: Sequence[MatchRecord] | None = None, match_dirs: Mapping[str, Path] | None = None) -> ReportData:
    """Read everything the reports need from a tournament output directory.

    Args:
        out_dir: the output directory of ``harness run``.
        viewer_hands: hands per match kept for the hand viewer (None: all).
        records: the records to show (default: those of ``results.jsonl``).
        match_dirs: where a match's files are, by match id, when not in
            ``out_dir/matches/<id>/`` (a lone match of ``harness match``: its
            folder; its hands are shown without waiting for other rotations).

    Raises:
        harness.tournament.results.ResultsError: no such directory, or damaged results.
    """
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    notices: list[str] = []
    if records is None:
        stored = read_results(out_dir)
        records, notices = stored.records, list(stored.notices)
    records = sorted(records, key=lambda r: (r.table, r.rotation, r.match_id))
    names = [str(b) for b in manifest.get("bots") or []]
    for rec in records:
        for name in rec.result.bots:
            if name not in names:
                names.append(name)
    planned = manifest.get("matches")
    total = len(planned) if isinstance(planned, list) else len(records)
    limits = _limits(manifest)
    decision_limit = limits.get("decision_ms")
    bank = limits.get("time_bank_ms")
    bots = {name: BotReport(name, bank_ms=bank if isinstance(bank, int) else None) for name in names}
    times: dict[str, list[float]] = {name: [] for name in names}
    first_fault: dict[tuple[str, str], FaultExample] = {}
    # Duplicate: the other rotations of a table replay the same deals, so a table's hands are shown only
    # once all its rotations are recorded (a running report must not show deals still to be played).
    duplicate = manifest.get("duplicate", True) is not False and not match_dirs
    pstats = PokerStats()
    per_table: dict[str, int] = {}
    for rec in records:
        per_table[rec.table] = per_table.get(rec.table, 0) + 1
    matches = []
    for rec in records:
        res = rec.result
        match_dir = (match_dirs or {}).get(res.match_id) or out_dir / MATCHES_DIR / res.match_id
        complete = not duplicate or per_table[rec.table] >= len(rec.result.bots)
        info, views = _read_match(rec, match_dir, bots, pstats, complete, viewer_hands, notices)
        matches.append(info)
        bank_used = {name: 0.0 for name in res.bots}
        for view in views:
            for seat, ms in view["timings"]:
                name = view["bots"][seat]
                if name in times:
                    times[name].append(ms)
                    if isinstance(decision_limit, int):
                        bank_used[name] += max(0.0, ms - decision_limit)
            for fault in view["faults"]:
                key = (fault["bot"], fault["kind"])
                if key not in first_fault:
                    first_fault[key] = FaultExample(fault["kind"], 0, res.match_id, view["hand_id"],
                                                    fault["decision"], fault["detail"])
        for seat, name in enumerate(res.bots):
            bot = bots[name]
            bot.matches.append(res.match_id)
            bot.hands += res.hands_played
            bot.net_chips += res.net[seat]
            used = bank_used.get(name, 0.0)
            bot.bank_used_ms = max(bot.bank_used_ms, min(used, bank) if isinstance(bank, int) else used)
            failing = res.status[seat] != "ok" or any(res.faults[seat].values())
            if res.status[seat] != "ok":
                bot.put_out.append((res.match_id, res.status[seat]))
            _seat_files(bot, res.match_id, match_dir / "logs" / f"{seat}-{name}.err", failing, info.history)
    counts: dict[str, dict[str, int]] = {name: {} for name in names}
    for rec in records:
        for seat, name in enumerate(rec.result.bots):
            for kind, count in rec.result.faults[seat].items():
                counts[name][kind] = counts[name].get(kind, 0) + count
    cells = crosstable(records, names)
    for name, bot in bots.items():
        _finish_bot(bot, names, counts[name], first_fault, times[name], cells, records, pstats)
    _list_hands(matches, bots, match_dirs or {}, out_dir)
    return ReportData(out_dir, str(manifest.get("name") or out_dir.name), names, list(records), total, manifest,
                      notices, matches, bots, pstats)


def _list_hands(matches: list[MatchInfo], bots: Mapping[str, BotReport], match_dirs: Mapping[str, Path],
                out_dir: Path) -> None:
    """Describe each bot's costliest and best hands (a second reading of the matches they are in) and,
    in duplicate play, what the table's other rotations did with the same cards; add those hands to
    the viewer's hands of their matches (so every listed hand opens in the viewer)."""
    by_id = {info.match_id: info for info in matches}
    twins: dict[str, list[MatchInfo]] = {}
    for info in matches:
        twins.setdefault(info.record.table, []).append(info)
    # A hand's deal, and where each rotation dealt it (each rotation has its own secret order: harness.deals).
    deals = {info.match_id: info.record.result.deal_numbers() for info in matches}
    hands_of = {info.match_id: hand_of_deal(info.record) for info in matches}

    def same_deal(match_id: str, hand_id: int, twin: MatchInfo) -> int | None:
        """The hand of ``twin`` that dealt what hand ``hand_id`` of ``match_id`` dealt (None: not played)."""
        own = deals[match_id]
        return hands_of[twin.match_id].get(own[hand_id]) if 0 <= hand_id < len(own) else None

    wanted: dict[str, set[int]] = {}
    for bot in bots.values():
        for which in ("costly", "best"):
            for match_id, hand_id, _ in bot.chips.extremes(which):
                for twin in twins[by_id[match_id].record.table]:
                    twin_hand = same_deal(match_id, hand_id, twin)
                    if twin_hand is not None:
                        wanted.setdefault(twin.match_id, set()).add(twin_hand)
    views: dict[tuple[str, int], dict[str, Any]] = {}
    for match_id, hand_ids in wanted.items():
        info = by_id[match_id]
        kept = {v["hand_id"] for v in info.hands}
        if info.history is None or info.problem or not info.table_complete:
            continue
        try:
            for record in read_hand_records(info.history):
                if int(record["hand_id"]) in hand_ids:
                    view = hand_view(record)
                    view["match_id"] = match_id
                    views[(match_id, view["hand_id"])] = view
                    if view["hand_id"] not in kept:
                        info.hands.append(view)
        except (HistoryError, KeyError, TypeError, ValueError):
            continue  # already told in the notices of the first reading
        info.hands.sort(key=lambda v: v["hand_id"])
    for bot in bots.values():
        for which in ("costly", "best"):
            lines = []
            for match_id, hand_id, pos in bot.chips.extremes(which):
                extreme = views.get((match_id, hand_id))
                if extreme is None:
                    continue
                info = by_id[match_id]
                line = hand_line(extreme, pos, table=info.record.table, rotation=info.record.rotation)
                for twin in sorted(twins[info.record.table], key=lambda t: t.record.rotation):
                    twin_hand = same_deal(match_id, hand_id, twin)
                    other = views.get((twin.match_id, twin_hand)) if twin_hand is not None else None
                    if twin is info or other is None:
                        continue
                    found = counterpart(other, line.dealt, rotation=twin.record.rotation)
                    if found is not None:
                        line.counterparts.append(found)
                lines.append(line)
            setattr(bot, which, lines)


def safe_name(text: str) -> str:
    """A file name for a bot or match id (they are already restricted; this guards the report's own paths)."""
    return re.sub(r"[^A-Za-z0-9_.+~-]", "_", text)  # "+" and "~" join the bot names of a match id
