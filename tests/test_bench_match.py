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


def test_the_load_option_is_checked_before_anything_runs() -> None:
    from typer.testing import CliRunner

    from harness.cli import app

    for value in ("-1", "65"):
        done = CliRunner().invoke(app, ["bench", "match", "--load", value])
        assert done.exit_code == 2 and "Traceback" not in done.output
        assert done.output.strip().splitlines() == [f"harness bench match: --load must be 0 to 64 CPU burners, got "
                                                    f"{value}"]
    done = CliRunner().invoke(app, ["bench", "match", "--load", "four"])
    assert done.exit_code == 2 and "Traceback" not in done.output and "--load" in done.output


def test_the_mit_directory_is_checked_before_anything_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from harness.bench.mit import problem
    from harness.cli import app

    assert "engine.py is missing" in problem(str(tmp_path))
    done = CliRunner().invoke(app, ["bench", "match", "--mit", str(tmp_path)])
    assert done.exit_code == 2 and "engine.py is missing" in done.output and "Traceback" not in done.output
    (tmp_path / "engine.py").write_text("server_socket.listen()\n")
    (tmp_path / "python_skeleton").mkdir()
    for name in ("player.py", "commands.json"):
        (tmp_path / "python_skeleton" / name).write_text("\n")
    assert "listening line" in problem(str(tmp_path))  # another engine: not patched blindly
    (tmp_path / "engine.py").write_text("server_socket.bind(('', 0))\n")
    assert problem(str(tmp_path), dependencies=False) == ""


def test_the_options_reach_the_bench_and_its_notices_are_one_line_each(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    import harness.bench.match as bench_match
    from harness.cli import app

    seen = {}

    def fake_run(**kwargs):  # type: ignore[no-untyped-def]
        seen.update(kwargs)
        kwargs["notice"]("the MIT Pokerbots engine is not measured: no --mit DIR")
        return {"hands_per_s_heads_up": 1.0}

    monkeypatch.setattr(bench_match, "run", fake_run)
    monkeypatch.delenv("HARNESS_MIT_DIR", raising=False)
    done = CliRunner().invoke(app, ["bench", "match", "--json", "--load", "4", "--hands", "300"])
    assert done.exit_code == 0, done.output
    assert seen["load"] == 4 and seen["hands_heads_up"] == 300 and seen["mit_dir"] is None
    assert "harness bench match: notice: the MIT Pokerbots engine is not measured: no --mit DIR\n" in done.output


def test_a_missing_anchor_is_one_notice_line_and_left_out(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from harness.bench.anchored import probes

    found, notes = probes(None, None, None)
    assert list(found) == ["python"]
    assert len(notes) == 2 and all("\n" not in n for n in notes)
    assert "MIT Pokerbots engine is not measured" in notes[0] and "ACPC dealer is not measured" in notes[1]
    found, notes = probes(str(tmp_path), None, str(tmp_path))
    assert list(found) == ["python"]
    assert "engine.py is missing" in notes[0] and "dealer is not an executable" in notes[1]


def test_the_rounds_alternate_idle_and_loaded_and_leave_no_burner() -> None:
    from harness.bench.anchored import rounds

    burners_seen: list[int] = []

    def ours(hands: int) -> dict[str, float]:
        burners_seen.append(len(live_descendants()))  # the burners are this process's only children here
        return {"hands_per_s_heads_up_whole": 10.0 if burners_seen[-1] == 0 else 5.0}

    def broken(hands: int) -> dict[str, float]:
        raise RuntimeError("the ACPC dealer exited with 1")

    def mit(hands: int) -> dict[str, float]:
        return {"mit_hands_per_s_heads_up": 4.0}

    notes: list[str] = []
    figures = rounds({"python": ours, "acpc": broken, "mit": mit}, 10, 3, 2, notes.append)
    assert burners_seen == [0, 2, 0, 2, 0, 2]
    assert figures["hands_per_s_heads_up_whole"] == 10.0 and figures["hands_per_s_heads_up_whole_load2"] == 5.0
    assert figures["hands_per_s_heads_up_whole_load2_over_idle"] == 0.5
    assert figures["hands_over_mit"] == 2.5 and figures["hands_over_mit_load2"] == 1.25
    assert notes == ["the ACPC dealer is not measured: the ACPC dealer exited with 1"]  # once, then left out
    assert not [k for k in figures if k.startswith("acpc")]
    assert not live_descendants()


def test_a_failure_of_our_own_match_stops_the_rounds_and_their_burners() -> None:
    from harness.bench.anchored import rounds

    def ours(hands: int) -> dict[str, float]:
        if live_descendants():
            raise RuntimeError("benchmark bots failed")
        return {"total_cpu_us_per_decision": 1.0}

    with pytest.raises(RuntimeError, match="benchmark bots failed"):
        rounds({"python": ours}, 10, 2, 3)
    assert not live_descendants()


def test_the_mit_engines_log_counts_rounds_and_decisions() -> None:
    from harness.bench.mit import count_decisions

    log = "\n".join(["6.9630 MIT Pokerbots - A vs B", "", "Round #1, A (0), B (0)", "A posts the blind of 1",
                     "B posts the blind of 2", "A dealt [Ah Kd]", "A calls", "B checks",
                     "Flop [2c 3d 4h], A (2), B (2)",
                     "B bets 4", "A raises to 12", "B folds", "A awarded 6", "B awarded -6", "", "Round #2, B (-6)",
                     "B folds", "Final, A (7), B (-7)"])
    assert count_decisions(log) == (2, 6)


def test_the_mit_engine_is_measured_when_a_checkout_is_given() -> None:
    import os

    from harness.bench.mit import engine_run, problem

    directory = os.environ.get("HARNESS_MIT_DIR", "")
    if not directory or problem(directory):
        pytest.skip("MIT POKERBOTS ENGINE NOT HERE: set HARNESS_MIT_DIR to a checkout of its engine, with eval7 "
                    "(docs/speed.md)")
    run = engine_run(directory, 20, max(os.sched_getaffinity(0)))
    assert run.hands == 20 and run.decisions >= 40 and run.cpu_s > 0
    assert not live_descendants()
