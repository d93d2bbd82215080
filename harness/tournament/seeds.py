"""The tournament seed: drawn in secret, kept out of the bots' reach, committed, revealed, verified.

Files in the output directory (which no sandboxed bot can see, see
:mod:`harness.host.sandbox`; a table's records and files, which hold its
match seed, stay private until all its rotations are played:
:mod:`harness.tournament.results`):

- ``seed.secret``: the seed as 64 hex digits, mode 0600, written once at the
  first run when the organiser gave no seed, and read by every later run
  (resume) so the deals never change. Later lines are *deal seeds* drawn when
  a finished (revealed) contest gets new matches, a late entry say: a
  published seed never deals a match still to be played
  (:func:`add_deal_seed`; :func:`harness.tournament.plan.make_plan` deals
  each table from the seed of its stored results, a new table from the newest);
- ``tournament.json`` (written before the first match) holds its SHA-256
  as ``seed_sha256`` (the commitment, :func:`harness.deals.commitment`),
  and those of the later deal seeds as ``later_seed_sha256``;
- ``seed.json``, written once every scheduled match is recorded: ``{"seed":
  hex, "sha256": commitment}`` (the reveal), plus ``"later": [{"seed", "sha256"}, ...]``
  when there are later deal seeds.

The seed is never on a command line, in an environment or in a file a bot
can read: workers are forked (not executed) and get it in memory.
:func:`verify_deals` checks a finished output directory: the revealed seed
matches the commitment, each match's seed derives from it, each hand's seed
from the match's, and every hand replays identically.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.deals import commitment, new_seed, parse_seed, seed_hex
from harness.history.files import HistoryError
from harness.history.replay import check_history
from harness.tournament.results import (
    MANIFEST_FILE,
    MATCHES_DIR,
    ResultsError,
    hand_history_path,
    read_manifest,
    read_records,
)
from harness.tournament.schedule import instance_of, table_seed

SECRET_FILE = "seed.secret"
REVEAL_FILE = "seed.json"


def tournament_seed(out_dir: Path, given: int | None) -> int:
    """The seed of the tournament in ``out_dir``: ``given``, else the stored secret, else a new one.

    A new secret is written to ``<out_dir>/seed.secret`` (mode 0600) with an
    atomic link, so two runs racing on a fresh directory agree on one seed.

    Raises:
        ResultsError: the stored secret cannot be read or written.
    """
    return tournament_seeds(out_dir, given)[0]


def tournament_seeds(out_dir: Path, given: int | None) -> list[int]:
    """The tournament seed and the later deal seeds, oldest first (see :func:`tournament_seed`).

    ``[given]`` when the organiser gave a seed (a reproducible run has one seed).

    Raises:
        ResultsError: the stored secret cannot be read or written.
    """
    if given is not None:
        return [given]
    path = Path(out_dir) / SECRET_FILE
    if not path.exists():
        _write_secret(path, [new_seed()], exclusive=True)
    try:
        seeds = [parse_seed(line) for line in path.read_text(encoding="ascii").split()]
        if not seeds:
            raise ValueError("empty")
        return seeds
    except (OSError, ValueError) as exc:
        raise ResultsError(
            f"{path}: the tournament's secret seed is unreadable ({exc}); restore it, or start over in a new --out"
        ) from None


def add_deal_seed(out_dir: Path) -> int:
    """Draw a new secret deal seed for matches added after the reveal; append it to ``seed.secret``.

    Returns:
        The new seed (the caller re-plans with it, :func:`harness.tournament.plan.make_plan`).

    Raises:
        ResultsError: the stored secret cannot be read or written.
    """
    seeds = tournament_seeds(out_dir, None)
    seed = new_seed()
    _write_secret(Path(out_dir) / SECRET_FILE, [*seeds, seed], exclusive=False)
    return seed


def _write_secret(path: Path, seeds: list[int], *, exclusive: bool) -> None:
    """Write the seeds, mode 0600, via a temporary file: linked if ``exclusive`` (first writer wins), else renamed."""
    tmp = path.with_name(f"{SECRET_FILE}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, "".join(seed_hex(s) + "\n" for s in seeds).encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass  # another run was first: use its secret
        else:
            os.replace(tmp, path)
    except OSError as exc:
        raise ResultsError(f"cannot write the secret seed {path}: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)


def reveal(out_dir: Path, seeds: int | list[int]) -> Path:
    """Write ``<out_dir>/seed.json`` (each seed and its commitment) after the last match; return its path."""
    first, *later = [seeds] if isinstance(seeds, int) else seeds
    content: dict[str, Any] = {"seed": seed_hex(first), "sha256": commitment(first)}
    if later:
        content["later"] = [{"seed": seed_hex(s), "sha256": commitment(s)} for s in later]
    path = Path(out_dir) / REVEAL_FILE
    tmp = path.with_name(REVEAL_FILE + ".tmp")
    tmp.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


@dataclass(frozen=True, slots=True)
class MatchDeals:
    """The verdict on one match's deals.

    Attributes:
        match_id: the match.
        hands: hands checked.
        problems: what is wrong (empty when every deal is the committed one and replays).
        unreadable: why the match's hand history could not be checked to its end (one line naming the file,
            the line and the field: a :class:`harness.history.files.HistoryError`'s message), or "".
    """

    match_id: str
    hands: int
    problems: tuple[str, ...]
    unreadable: str = ""

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems and not self.unreadable


def verify_deals(out_dir: Path) -> Iterator[MatchDeals]:
    """Check a finished tournament's deals against the seed revealed in ``seed.json``.

    Yields one verdict per recorded match of the plan in ``tournament.json``
    (results of matches no longer planned are not part of the contest): its
    seed is the keyed function of the revealed seed, its bots and the table's
    copy number (:func:`harness.tournament.schedule.table_seed`),
    each hand's seed that of the match seed and hand number, and every hand
    replays identically (:func:`harness.history.replay.check_history`). A match whose
    hand history is damaged or unreadable is a verdict too (``unreadable``), after the
    hands before the damage; the matches after it are still checked.

    Raises:
        ResultsError: no reveal yet, a reveal that does not match the
            commitment in ``tournament.json``, or damaged results.
    """
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    path = out_dir / REVEAL_FILE
    try:
        revealed = json.loads(path.read_text(encoding="utf-8"))
        seed = parse_seed(revealed["seed"])
        later = [parse_seed(row["seed"]) for row in revealed.get("later", [])]
    except FileNotFoundError:
        raise ResultsError(f"{path}: no revealed seed yet (it is written after the last match)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ResultsError(f"{path}: unreadable ({exc})") from None
    committed = manifest.get("seed_sha256")
    if committed != commitment(seed):
        raise ResultsError(
            f"{path}: the revealed seed's SHA-256 {commitment(seed)} is not the commitment "
            f"{committed!r} in {out_dir / MANIFEST_FILE}: the deals were not the ones fixed before play"
        )
    committed_later = manifest.get("later_seed_sha256") or []
    if committed_later != [commitment(s) for s in later]:
        raise ResultsError(
            f"{path}: the later deal seeds revealed ({len(later)}) are not those committed in "
            f"{out_dir / MANIFEST_FILE} ({len(committed_later)}): the deals were not the ones fixed before play"
        )
    planned = manifest.get("matches")
    plan = {str(row[0]): str(row[3]) for row in planned} if isinstance(planned, list) else None
    for record in read_records(out_dir):
        result = record.result
        if plan is not None and plan.get(record.match_id) != record.fingerprint:
            continue
        candidates = [table_seed(s, result.bots, instance_of(record.table)) for s in (seed, *later)]
        expected = result.seed if result.seed in candidates else candidates[0]
        problems: list[str] = []
        if result.seed != expected:
            problems.append("match seed: not derived from the revealed seed")
        hands = 0
        unreadable = ""
        folder = out_dir / MATCHES_DIR / result.match_id
        history = hand_history_path(folder)
        if history is None:
            problems.append(f"no hand history (no hands.jsonl or hands.jsonl.gz in {folder})")
        else:
            try:
                for check in check_history(history, match_seed=expected):
                    hands += 1
                    if not check.ok:
                        problems.append(f"hand {check.hand_id}: {check.detail}")
            except HistoryError as exc:  # this match cannot be checked past it; the others still are
                unreadable = str(exc)
            except OSError as exc:
                unreadable = f"cannot read {history}: {exc.strerror or exc}"
            if not unreadable and hands != result.hands_played:  # hands lost at the end, or added after it
                problems.append(f"{history.name} holds {hands} hands where the match's result records "
                                f"{result.hands_played}")
        yield MatchDeals(result.match_id, hands, tuple(problems), unreadable)
