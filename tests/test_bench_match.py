"""The match benchmark's transport floor and match run real exchanges and leave nothing behind (figures are not checked
against targets)."""

from __future__ import annotations

import pytest

from harness.bench.match import _sample_hand, transport_floor
from tests.fault_helpers import live_descendants

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def test_sample_hand_is_a_heads_up_showdown_of_six_decisions() -> None:
    steps, final = _sample_hand()
    assert len(steps) == 6 and {seat for seat, *_ in steps} == {0, 1}
    assert [draw for _, draw, _, _ in steps].count(True) == 2
    assert len(final.result().shown) == 2


def test_transport_floor_plays_and_stops_its_bots() -> None:
    figures = transport_floor(hands=20)
    assert figures["hands_per_s"] > 0 and figures["us_per_hand"] > 0
    assert figures["cpu_us_per_decision"] > 0  # the loop's own CPU, counted
    assert not live_descendants()


def test_sandbox_start_measures_and_leaves_no_process_or_group() -> None:
    import os

    import pytest

    from harness.bench.match import sandbox_start
    from harness.host import cgroups
    from harness.host.sandbox import support

    sup = support()
    if not (sup.namespaces and sup.cgroups.available):
        pytest.skip("SANDBOX NOT AVAILABLE HERE: install bubblewrap (apt-get install bubblewrap), run as root")
    figures = sandbox_start(n=2)
    assert set(figures) == {"start_ms", "turn_switch_us", "freeze_switch_us"}
    assert figures["turn_switch_us"] > 0 and figures["freeze_switch_us"] > 0
    assert not live_descendants()
    mine = f"harness-{os.getpid()}-"
    assert not [n for _, d in sup.cgroups.parents for n in os.listdir(d) if n.startswith(mine)], cgroups.__name__


def test_match_speed_reports_the_referees_cpu_per_decision() -> None:
    from harness.bench.match import match_speed

    figures = match_speed(2, hands=30, pinned=True)
    assert figures["decisions_per_hand"] >= 2
    # The referee's own CPU over the hand loop (all its threads), per decision: measured, so above zero,
    # and no more than the wall time it had (one CPU, pinned).
    assert 0 < figures["cpu_us_per_decision"] <= figures["us_per_hand"] / figures["decisions_per_hand"]


def test_reply_read_is_measured_with_each_parser_and_decoder() -> None:
    from harness.bench.match import reply_read_us

    figures = reply_read_us(n=50)
    assert set(figures) == {"reply_read_us_python", "reply_read_us_native"}
    assert isinstance(figures["reply_read_us_python"], float)
    assert isinstance(figures["reply_read_us_native"], float) or figures["reply_read_us_native"] == "not built"


def test_the_c_bot_match_is_measured_or_says_why_not(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from harness.bench.match import build_c_bot, match_speed

    bot, why = build_c_bot(str(tmp_path))
    if bot is None:
        import pytest

        pytest.skip(f"C BOT NOT BUILT HERE: {why}")
    figures = match_speed(2, hands=30, pinned=True, command=(bot,))
    assert figures["decisions_per_hand"] >= 2 and figures["decisions_per_s"] > 0


def test_the_acpc_directory_is_checked_before_anything_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from harness.bench.acpc import problem
    from harness.cli import app

    assert "dealer is not an executable" in problem(str(tmp_path))
    for name in ("dealer", "example_player"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    assert "holdem.limit.2p.reverse_blinds.game is missing" in problem(str(tmp_path))
    (tmp_path / "holdem.limit.2p.reverse_blinds.game").write_text("GAMEDEF\n")
    assert problem(str(tmp_path)) == ""
    done = CliRunner().invoke(app, ["bench", "match", "--acpc", str(tmp_path / "none")])
    assert done.exit_code == 2 and "dealer is not an executable" in done.output
    assert "Traceback" not in done.output


def test_the_acpc_dealer_is_measured_when_built_here() -> None:
    import os

    import pytest

    from harness.bench.acpc import dealer_speed, problem

    directory = os.environ.get("HARNESS_ACPC_DIR", "")
    if not directory or problem(directory):
        pytest.skip("ACPC DEALER NOT BUILT HERE: set HARNESS_ACPC_DIR to a built project_acpc_server (docs/speed.md)")
    figures = dealer_speed(directory, 50, max(os.sched_getaffinity(0)))
    assert figures["decisions_per_hand"] > 1 and figures["decisions_per_s"] > 0
    assert not live_descendants()


def test_the_floor_ratio_pairs_the_match_and_the_floor_round_by_round() -> None:
    from harness.bench.match import paired_floor

    match, floor, ratios = paired_floor(hands=20, rounds=2)
    assert len(ratios) == 2 and all(r > 0 for r in ratios)
    assert match["decisions_per_hand"] >= 2 and match["cpu_us_per_decision"] > 0
    assert abs(match["hands_per_s"] - 1e6 / match["us_per_hand"]) < 1e-6 and floor["hands_per_s"] > 0
    assert not live_descendants()
