"""``harness bench serve``: concurrent signed-in clients against a real server while its ladder plays, and every
failure of the bench one line (figures are not checked against targets)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from harness.bench import serve as bench  # noqa: E402
from harness.server import db, store  # noqa: E402
from harness.server.contest import load_contest  # noqa: E402
from tests.fault_helpers import live_descendants  # noqa: E402
from tests.server_helpers import HARNESS  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def test_the_bench_signs_in_concurrent_clients_and_reports_per_route_and_the_burst(tmp_path: Path) -> None:
    out = subprocess.run([*HARNESS, "bench", "serve", "--json", "--clients", "10", "--uploads", "2", "--limit", "1"],
                         capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert (figures["clients"], figures["admins"], figures["signed_in"], figures["uploads"]) == (10, 1, 10, 2)
    assert figures["answers_per_s"] > 0, figures
    # a page slower than the client's timeout on a busy machine is a figure the bench reports, not a fault;
    # any other error (a 500, a refused request) is
    kinds = [k for k in figures["error_kinds"].split(", ") if k != "-"]
    counted = sum(int(k.rsplit("x", 1)[1]) for k in kinds)
    assert all(" timeout x" in k for k in kinds) and figures["errors"] == counted, figures["error_kinds"]
    routes = {k.removeprefix("p95_ms ") for k in figures if k.startswith("p95_ms /")}
    assert routes and routes <= {*bench.STUDENT_ROUTES, *bench.ADMIN_ROUTES}  # each client polls its pages in turn
    assert all(figures[f"p95_ms {route}"] > 0 for route in routes) and figures["p95_ms_all"] > 0
    waited = 2 - figures["first_block_s_missing"]
    assert (figures["first_block_s_median"] is None) == (waited == 0)
    assert set(figures) >= {"first_block_s_max", "load_1min", "p95_ms_worst"}
    assert not live_descendants()


def test_a_server_that_cannot_start_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(folder: Path, database: str = "") -> Path:
        path = folder / "contest.toml"
        path.write_text('[contest]\nname = "bench"\n[ladder]\ntable_size = 9\n', encoding="utf-8")
        return path

    monkeypatch.setattr(bench, "_contest", broken)
    with pytest.raises(bench.BenchServeError) as err:
        bench.run(clients=2, uploads=0)
    text = str(err.value)
    assert text.startswith("harness serve --links failed: ") and "table_size" in text and "\n" not in text


def test_the_populated_contest_has_every_old_version_played_as_the_ladder_counts_blocks(tmp_path: Path) -> None:
    """The stored blocks name their seats as the ladder counts them (:func:`harness.server.store.tally`): every
    old active version has a block, so after a burst only the new versions wait for a first block."""
    contest = load_contest(bench._contest(tmp_path))
    bench._populate(tmp_path / "contest.toml")
    engine = db.open_database(contest.database)
    try:
        given = store.tally(engine).given
        active = store.active_versions(engine)
    finally:
        engine.dispose()
    assert len(active) == bench.STUDENTS
    assert [a["id"] for a in active if not given.get(f"v{a['id']}")] == []
    assert given["rcaller"] == bench.MATCHES // 2


def test_postgres_where_it_cannot_be_made_is_skipped_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from harness.bench import postgres
    from harness.cli import app

    monkeypatch.setattr(postgres, "_bin", lambda name: None)
    result = CliRunner().invoke(app, ["bench", "serve", "--db", "postgres", "--clients", "2"])
    assert result.exit_code == 0, result.output
    assert result.output == ("harness bench serve: --db postgres skipped: initdb and pg_ctl were not found "
                             "(PostgreSQL is not installed)\n")


def test_the_bench_runs_on_a_throwaway_postgresql(tmp_path: Path) -> None:
    from harness.bench.postgres import _bin

    if not (_bin("initdb") and _bin("pg_ctl")):
        from tests.postgres_helpers import skip_loudly

        skip_loudly("initdb and pg_ctl were not found")
    out = subprocess.run([*HARNESS, "bench", "serve", "--json", "--db", "postgres", "--clients", "4", "--uploads",
                          "1", "--limit", "1"], capture_output=True, text=True, timeout=1800, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["db"] == "postgres" and figures["signed_in"] == 4 and figures["answers_per_s"] > 0, figures
    assert figures["uploads"] == 1, figures  # the stored versions' ids advanced PostgreSQL's sequences
    assert not live_descendants()
