"""Secret deals: seeds, keyed derivation, commit then reveal, verification."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.deals import (
    commitment,
    guessable,
    hand_seed,
    hand_seeds,
    match_seed,
    new_seed,
    parse_seed,
    seed_hex,
    seed_warning,
)
from harness.history.files import HistoryWriter
from harness.history.replay import check_history
from harness.tournament.results import ResultsError, read_records
from harness.tournament.runner import run_tournament
from harness.tournament.seeds import REVEAL_FILE, SECRET_FILE, verify_deals
from tests.history_helpers import played_hand
from tests.runner_helpers import fake_config, fake_play


def test_seeds_parse_from_numbers_and_hex_and_are_written_back_as_hex() -> None:
    secret = new_seed()
    assert secret.bit_length() <= 256 and new_seed() != secret
    assert parse_seed(seed_hex(secret)) == secret and len(seed_hex(secret)) == 64
    assert parse_seed("42") == parse_seed(42) == parse_seed("0x2a") == 42
    for bad in (-1, 2**256, "x12", "", True, 1.5):
        with pytest.raises(ValueError):
            parse_seed(bad)  # type: ignore[arg-type]


def test_a_short_user_seed_gets_a_warning_a_drawn_one_none() -> None:
    assert guessable(20261129) and "short enough to guess" in (seed_warning(20261129, "--seed") or "")
    assert seed_warning(2**200 + 7, "--seed") is None


def test_derivation_is_keyed_deterministic_and_the_same_for_every_rotation() -> None:
    assert match_seed(5, ["b", "a"]) == match_seed(5, ("a", "b")) != match_seed(6, ("a", "b"))
    assert match_seed(5, ("a", "b")) != match_seed(5, ("a", "c"))
    assert hand_seed(9, 3) == hand_seed(9, 3) != hand_seed(10, 3)
    assert 0 <= hand_seed(9, 3) < 2**64
    assert hand_seeds(9, 5, 70) == [hand_seed(9, h) for h in range(5, 75)]  # the referee's blocks
    assert commitment(7) == hashlib.sha256((7).to_bytes(32, "big")).hexdigest()


def test_replay_with_the_match_seed_catches_a_deal_not_derived_from_it(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    with HistoryWriter(path) as w:
        for h in range(3):
            w.write(played_hand(h))  # dealt from hand_seed(1, h)
    assert all(c.ok for c in check_history(path, match_seed=1))
    assert [c.ok for c in check_history(path, match_seed=2)] == [False] * 3
    runner = CliRunner()
    assert runner.invoke(app, ["replay", str(path), "--seed", "1"]).exit_code == 0
    assert runner.invoke(app, ["replay", str(path), "--seed", "0x2"]).exit_code == 1


def test_a_tournament_draws_a_secret_keeps_it_on_resume_and_reveals_it_only_at_the_end(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = fake_config(out, ["a", "b", "c"], hands=4)
    cfg = dataclasses.replace(cfg, tournament=dataclasses.replace(cfg.tournament, seed=None))

    def one_match_only(bots, spec, limits, match_dir):  # type: ignore[no-untyped-def]
        if any((out / "matches").glob("*/result.json")):
            raise RuntimeError("not now")  # the other matches fail: the run is incomplete
        return fake_play(bots, spec, limits, match_dir)

    first = run_tournament(cfg, play=one_match_only, quiet=True)
    assert not first.complete and not (out / REVEAL_FILE).exists()  # still secret
    secret = parse_seed((out / SECRET_FILE).read_text())
    assert (out / SECRET_FILE).stat().st_mode & 0o777 == 0o600
    manifest = json.loads((out / "tournament.json").read_text())
    assert manifest["seed_sha256"] == commitment(secret)
    text = (out / "tournament.json").read_text()
    assert seed_hex(secret) not in text and str(secret) not in text
    assert all(str(match_seed(secret, r.result.bots)) not in text for r in read_records(out))

    assert run_tournament(cfg, play=fake_play, quiet=True).complete
    assert parse_seed((out / SECRET_FILE).read_text()) == secret  # the resume kept the deals
    assert json.loads((out / REVEAL_FILE).read_text()) == {"seed": seed_hex(secret), "sha256": commitment(secret)}
    assert all(r.result.seed == match_seed(secret, r.result.bots) for r in read_records(out))


def test_verify_refuses_a_reveal_that_does_not_match_the_commitment(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_tournament(fake_config(out, ["a", "b"], hands=2), play=fake_play, quiet=True).complete
    (out / REVEAL_FILE).write_text(json.dumps({"seed": seed_hex(12345)}))
    with pytest.raises(ResultsError, match="is not the commitment"):
        list(verify_deals(out))
    assert CliRunner().invoke(app, ["replay", str(out)]).exit_code == 2


def test_a_late_entry_after_the_reveal_is_dealt_from_a_new_secret_seed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = fake_config(out, ["a", "b", "c"], hands=4)
    cfg = dataclasses.replace(cfg, tournament=dataclasses.replace(cfg.tournament, seed=None))
    assert run_tournament(cfg, play=fake_play, quiet=True).complete
    first = parse_seed((out / SECRET_FILE).read_text())
    published = json.loads((out / REVEAL_FILE).read_text())
    assert published == {"seed": seed_hex(first), "sha256": commitment(first)}
    before = {r.match_id: r for r in read_records(out)}

    late = fake_config(out, ["a", "b", "c", "d"], hands=4)
    late = dataclasses.replace(late, tournament=dataclasses.replace(late.tournament, seed=None))
    summary = run_tournament(late, play=fake_play, quiet=True)
    assert summary.complete and summary.reuse.reused == 6 and summary.reuse.playing == 6
    seeds = [parse_seed(line) for line in (out / SECRET_FILE).read_text().split()]
    assert seeds[0] == first and len(seeds) == 2
    records = {r.match_id: r for r in read_records(out) if r.match_id in {m.match_id for m in summary.plan.matches}}
    new = [r for mid, r in records.items() if mid not in before]
    assert len(new) == 6 and all("d" in r.result.bots for r in new)
    # No new match is dealt from the published seed; the old ones keep theirs.
    assert all(r.result.seed != match_seed(first, r.result.bots) for r in new)
    assert all(r.result.seed == match_seed(seeds[1], r.result.bots) for r in new)
    assert all(records[mid].result.seed == r.result.seed for mid, r in before.items())
    manifest = json.loads((out / "tournament.json").read_text())
    assert manifest["seed_sha256"] == commitment(first) and manifest["later_seed_sha256"] == [commitment(seeds[1])]
    assert json.loads((out / REVEAL_FILE).read_text())["later"] == [
        {"seed": seed_hex(seeds[1]), "sha256": commitment(seeds[1])}]
    (out / REVEAL_FILE).write_text(json.dumps(published))  # hiding the later seed is caught
    with pytest.raises(ResultsError, match="later deal seeds"):
        list(verify_deals(out))

    # Nothing new to play: no further seed is drawn (and the reveal is written again).
    assert run_tournament(late, play=fake_play, quiet=True).reuse.playing == 0
    assert len((out / SECRET_FILE).read_text().split()) == 2


def test_a_seed_given_in_the_file_stays_the_only_seed_after_the_reveal(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_tournament(fake_config(out, ["a", "b"], hands=2), play=fake_play, quiet=True).complete
    summary = run_tournament(fake_config(out, ["a", "b", "c"], hands=2), play=fake_play, quiet=True)
    assert summary.reuse.reused == 2 and not (out / SECRET_FILE).exists()
    assert "later" not in json.loads((out / REVEAL_FILE).read_text())
