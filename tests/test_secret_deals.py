"""No seed and no hand of a table with a rotation still to play is readable while a tournament runs.

The rotations of a duplicate table share their deals: a finished rotation's
match seed, hand seeds, hand history or bot logs give away every card of the
rotations still to come. The test plays a real tournament (real referee and
bots, the default secret seed) one match at a time; before each match it
writes the live report, as a running ``harness run`` does, and reads every
file of the output directory another user could read, looking for the
current table's seed and hand seeds (decimal and hex, in plain and gzipped
files) and for its hands (its match directories, its records with their
hand-by-hand nets, its matches and hands in the report).
After the last match the seed is revealed and every deal verifies.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

from harness.deals import commitment, hand_seed, seed_hex
from harness.match.referee import play_match
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec, SandboxMode, SandboxSettings
from harness.tournament.config import parse_config
from harness.tournament.results import MATCHES_DIR, PRIVATE_DIR, read_records
from harness.tournament.runner import run_tournament
from harness.tournament.seeds import verify_deals
from harness.tournament.workers import RESULT_FILE

ROOT = Path(__file__).resolve().parents[1]
HANDS = 4


def public_files(out: Path) -> list[Path]:
    """Files under ``out`` that another user could read: not below a mode-0700 directory, group/other-readable."""
    found = []
    for dirpath, dirnames, filenames in os.walk(out):
        if Path(dirpath) != out and stat.S_IMODE(os.stat(dirpath).st_mode) & 0o077 == 0:
            dirnames[:] = []  # private: its owner (the organiser running the referee) alone gets in
            continue
        for name in filenames:
            path = Path(dirpath) / name
            if stat.S_IMODE(os.stat(path).st_mode) & 0o044:
                found.append(path)
    return found


def content(path: Path) -> str:
    """The text of a file; a gzip file (every member, or what is readable of one being written) decompressed."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        raw, data = data, b""
        while raw:
            unzip = zlib.decompressobj(wbits=31)
            data += unzip.decompress(raw)
            raw = unzip.unused_data
    return data.decode("utf-8", "replace")


def secrets_of(seed: int) -> list[str]:
    """Every text that gives a table's deals away: its match seed and each hand's seed, in decimal and hex."""
    seeds = [seed, *(hand_seed(seed, h) for h in range(HANDS))]
    return [str(s) for s in seeds] + [f"{s:x}" for s in seeds] + [seed_hex(seed)]


def spy(out: Path, findings: Path, bots: list[BotSpec], spec: MatchSpec, limits: Limits,
        match_dir: Path) -> MatchResult:
    """Before each match: the live report, then every public file searched for this table's deals."""
    from harness.report.html import write_report

    problems: list[str] = []
    plan = json.loads((out / "tournament.json").read_text())["matches"]
    table = next(row[1] for row in plan if row[0] == spec.match_id)
    siblings = [row[0] for row in plan if row[1] == table]
    recorded = {r.match_id for r in read_records(out, pending=True)}  # the organiser's view, private ones too
    write_report(out, running=True)
    secrets = secrets_of(spec.seed)
    for path in public_files(out):
        text = content(path)
        problems += [f"{path}: holds {s}" for s in secrets if s in text]
        rel = path.relative_to(out).parts
        if rel[0] == MATCHES_DIR and rel[1] in siblings:
            problems.append(f"{path}: a file of table {table}, which has a rotation to play")
        if rel[:2] == ("report", "hands") and path.stem in siblings and '"hand_id"' in text:
            problems.append(f"{path}: the live report shows hands of table {table}")
        if rel[:2] == ("report", "matches") and path.stem in siblings:
            problems.append(f"{path}: the live report shows a match of table {table} (its chips hand by hand)")
        if rel == ("results.jsonl",):
            shown = {json.loads(line)["match_id"] for line in text.splitlines() if line.strip()}
            problems += [f"{path}: the record of {m} (its hand_nets: who won each deal)" for m in shown & set(siblings)]
    private = out / PRIVATE_DIR
    if stat.S_IMODE(os.stat(private).st_mode) != 0o700:
        problems.append(f"{private}: mode {oct(os.stat(private).st_mode)}")
    with open(findings, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"match": spec.match_id, "rotations_done": len(recorded & set(siblings)),
                             "problems": problems}) + "\n")
    return play_match(bots, spec, limits, match_dir, sandbox=SandboxSettings(mode=SandboxMode.OFF))


def test_no_seed_or_hand_of_an_unfinished_table_is_readable_and_all_verify_after(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bots = [{"name": n, "command": f"python -m bots.{n}", "cwd": str(ROOT)} for n in ("caller", "raiser", "solid")]
    config = parse_config({"tournament": {"name": "secret", "output": str(out), "entry_check": False},
                           "schedule": {"hands": HANDS, "jobs": 1}, "bots": bots}, tmp_path / "t.toml")
    assert config.tournament.seed is None  # the default: a secret seed drawn for the run
    findings = tmp_path / "findings.jsonl"
    summary = run_tournament(config, play=functools.partial(spy, out, findings), quiet=True)
    assert summary.complete and summary.matches_run == 6
    seen: list[dict[str, Any]] = [json.loads(line) for line in findings.read_text().splitlines()]
    assert len(seen) == 6
    assert any(row["rotations_done"] for row in seen)  # a table was looked at between its rotations
    assert [p for row in seen for p in row["problems"]] == []

    # After the last match: every table published, the seed revealed, every deal verifies.
    assert not any((out / PRIVATE_DIR / MATCHES_DIR).iterdir())
    revealed = json.loads((out / "seed.json").read_text())
    assert revealed["sha256"] == json.loads((out / "tournament.json").read_text())["seed_sha256"]
    verdicts = list(verify_deals(out))
    assert len(verdicts) == 6 and all(v.ok and v.hands == HANDS for v in verdicts), verdicts
    records = read_records(out)
    assert len(records) == 6  # all published: every table is complete
    for record in records:
        assert record.result.seed is not None and commitment(record.result.seed) == record.seed_sha256
        published = json.loads((out / MATCHES_DIR / record.match_id / RESULT_FILE).read_text())
        assert published["seed"] == record.result.seed
