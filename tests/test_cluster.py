"""The dask backend on a LocalCluster: same results as the local backend, faults, Ctrl-C, resume.

One small cluster (2 single-threaded workers, in a session of its own, as
``--cluster local:2`` starts it) is shared by the module; one test runs on
``local:1`` and loses its scheduler. Every test checks that no bot is left,
and no worker or scheduler is at the end.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.specs import BotSpec
from harness.tournament.cluster import (
    ClusterError,
    DaskExecutor,
    _Task,
    abort_tasks,
    client_config,
    code_digest,
    expected_sandbox,
    hide,
    preflight,
    run_task,
    sandboxes_of,
    start_local_cluster,
    stop_local_cluster,
)
from harness.tournament.config import (
    Backend,
    ConfigError,
    TournamentConfig,
    load_config,
    parse_cluster,
    with_overrides,
)
from harness.tournament.results import match_files, read_records
from harness.tournament.runner import RunSummary, run_tournament
from harness.tournament.workers import Job
from tests.runner_helpers import EXCLUSIVE_DIR, exclusive_play, fake_config, wait_no_bots
from tests.runner_helpers import marked_processes as bots_of_mark


def run_on_cluster(config: TournamentConfig, **kwargs: Any) -> RunSummary:
    """``run_tournament`` on the config's Dask cluster, its executor made and closed as ``harness run`` does."""
    with DaskExecutor.for_config(config) as executor:
        return run_tournament(config, executor=executor, **kwargs)

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]
HANDS = 60
#: The mark of the runs compared with the local backend's (the bots' env is part of what decides a match).
MARK = uuid.uuid4().hex


def league(tmp_path: Path, mark: str, *, hands: int = HANDS, extra: str = "", bots: int = 3,
           sandbox: str = "auto") -> Path:
    """A small heads-up duplicate round-robin of deterministic bots, each carrying ``mark`` in its env.

    The runs compared with the local backend keep the sandbox (on where it works, as locally); the
    others turn it off: what they test does not depend on it, and a sandboxed start costs time.
    """
    entries = [
        ("caller", "python -m bots.caller", ""),
        ("raiser", "python -m bots.raiser", ""),
        ("random", "python -m bots.random_bot", 'RANDOM_BOT_SEED = "3", '),
        ("solid", "python -m bots.solid", ""),
    ][:bots]
    text = (f'[tournament]\nname = "dask"\nseed = 5\n[schedule]\nhands = {hands}\n{extra}\n'
            # Generous limits: a fault that only a loaded machine causes would make two runs differ.
            f'[limits]\ndecision_ms = 3000\nstartup_ms = 30000\n[sandbox]\nmode = "{sandbox}"\n')
    for name, command, env in entries:
        text += (f'[[bots]]\nname = "{name}"\ncommand = "{command}"\ncwd = "{ROOT}"\n'
                 f'env = {{ {env}TEST_MARK = "{mark}" }}\n')
    path = tmp_path / "league.toml"
    path.write_text(text)
    return path


def session_processes(leader: int) -> list[psutil.Process]:
    """Live processes of a session (a local cluster's scheduler, nannies and workers)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == leader and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (ProcessLookupError, psutil.NoSuchProcess, PermissionError):
            continue
    return found


def comparable(out: Path) -> dict[str, str]:
    """results.jsonl lines by match id, timings aside."""
    lines = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        data = json.loads(line)
        data["result"].pop("duration_s")
        lines[data["result"]["match_id"]] = json.dumps(data, sort_keys=True)
    return lines


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 single-threaded workers in its own session: (helper process, scheduler address).

    It speaks TLS with its own certificate; the module's clients (and ``--cluster ADDRESS`` runs, as an organiser's
    cluster would be reached) get it through Dask's configuration."""
    import dask

    proc, address, security = start_local_cluster(2, timeout_s=600)  # an outer limit only
    try:
        with dask.config.set(client_config(security)):
            yield proc, address
    finally:
        stop_local_cluster(proc)
        deadline = time.monotonic() + 120
        while session_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = session_processes(proc.pid)
        for p in left:
            p.kill()
        assert not left, f"cluster processes left: {left}"


def tls_environment() -> dict[str, str]:
    """The cluster fixture's TLS settings as the environment of a ``harness run`` process (Dask reads them there)."""
    import dask

    keys = ["tls.ca-file", "tls.client.cert", "tls.client.key", "require-encryption"]
    return {"DASK_DISTRIBUTED__COMM__" + key.upper().replace(".", "__").replace("-", "_"):
            str(dask.config.get("distributed.comm." + key)) for key in keys}


def test_the_local_cluster_refuses_a_client_without_its_certificate(cluster) -> None:
    """Another local user reaching the scheduler's port (plain TCP, or TLS with a certificate of their own) cannot
    connect, so cannot run code as the harness's user; the run's own certificate can."""
    import dask
    from distributed import Client, Security

    _, address = cluster
    assert address.startswith("tls://127.0.0.1:")
    outsider = {"distributed.comm.require-encryption": False, "distributed.comm.tls.ca-file": None,
                "distributed.comm.tls.client.cert": None, "distributed.comm.tls.client.key": None}
    with dask.config.set(outsider):
        for target, security in [(address.replace("tls://", "tcp://"), Security()), (address, Security.temporary())]:
            with pytest.raises((OSError, TimeoutError)):
                Client(target, security=security, set_as_default=False, timeout=10).close()
    assert len(worker_pids(address)) == 2


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The league played on the local backend."""
    tmp = tmp_path_factory.mktemp("local")
    config = with_overrides(load_config(league(tmp, MARK)), out=tmp / "out", jobs=2)
    summary = run_tournament(config, quiet=True, entry_check=False)
    assert summary.complete and wait_no_bots(MARK) == []
    return tmp / "out"


def worker_pids(address: str) -> dict[str, int]:
    from distributed import Client

    with Client(address, set_as_default=False, timeout=300) as client:
        return client.run(os.getpid)


# ---------------------------------------------------------------- configuration


def test_cluster_addresses_are_checked() -> None:
    assert parse_cluster("local:2") == "local:2"
    assert parse_cluster("tcp://10.0.0.5") == "tcp://10.0.0.5:8786"
    assert parse_cluster("node7:9000") == "tcp://node7:9000"
    assert parse_cluster("tls://[::1]:8786") == "tls://[::1]:8786"
    for bad in ("local:0", "local:x", "node7", "http://x:1", "tcp://x:99999", ""):
        with pytest.raises(ValueError, match="expected local:N"):
            parse_cluster(bad)


def test_backend_keys_and_the_cluster_option(tmp_path: Path) -> None:
    mark = "x"
    cfg = load_config(league(tmp_path, mark, extra='backend = "dask"\nscheduler = "tcp://head:8786"'))
    assert (cfg.schedule.backend, cfg.schedule.scheduler) == (Backend.DASK, "tcp://head:8786")
    cfg = with_overrides(load_config(league(tmp_path, mark)), cluster="local:3")
    assert (cfg.schedule.backend, cfg.schedule.scheduler) == (Backend.DASK, "local:3")
    with pytest.raises(ConfigError, match=r"\[schedule\] scheduler: expected local:N"):
        load_config(league(tmp_path, mark, extra='scheduler = "head"'))
    with pytest.raises(ConfigError, match='only used with backend = "dask"'):
        load_config(league(tmp_path, mark, extra='backend = "local"\nscheduler = "tcp://head:8786"'))
    with pytest.raises(ConfigError, match="--cluster"):
        with_overrides(load_config(league(tmp_path, mark)), cluster="head")
    # backend = "dask" alone needs an address: a clear error before anything runs.
    result = CliRunner().invoke(app, ["run", str(league(tmp_path, mark, extra='backend = "dask"')),
                                      "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and 'backend = "dask" needs scheduler' in result.output
    # The runner makes no cluster connection of its own: the caller passes the executor.
    dask_config = with_overrides(load_config(league(tmp_path, mark)), out=tmp_path / "r", cluster="local:1")
    with pytest.raises(ValueError, match="the caller makes the executor"):
        run_tournament(dask_config, quiet=True)
    assert not (tmp_path / "r").exists()  # refused before the output directory is touched
    # The plan's estimate counts the cluster's workers (local:N has N; a scheduler is asked).
    planned = CliRunner().invoke(app, ["plan", str(league(tmp_path, mark)), "--out", str(tmp_path / "p"),
                                       "--no-measure", "--cluster", "local:3"])
    assert planned.exit_code == 0 and "with 3 jobs" in planned.output, planned.output


def test_the_local_backend_imports_nothing_of_dask(tmp_path: Path) -> None:
    """A whole local run (entry check, matches, leaderboard) with the modules it imported listed at the end."""
    mark = uuid.uuid4().hex
    script = (
        "import sys\n"
        "from harness.tournament.config import load_config, with_overrides\n"
        "from harness.tournament.runner import RunSummary, run_tournament\n"
        f"cfg = with_overrides(load_config({str(league(tmp_path, mark, hands=3, bots=2))!r}), "
        f"out={str(tmp_path / 'out')!r})\n"
        "from harness.tournament.estimate import DEFAULT_RATES\n"
        "assert run_tournament(cfg, quiet=True, rates=DEFAULT_RATES).complete\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert wait_no_bots(mark) == []


def test_a_match_failing_on_every_retry_is_recorded_as_failed(tmp_path: Path) -> None:
    """What the executor makes of a task Dask gave up on (its workers died `allowed-failures` times)."""
    from types import SimpleNamespace

    from distributed.scheduler import KilledWorker

    executor = DaskExecutor.__new__(DaskExecutor)
    job = Job("a+b-1", lambda: {}, (), tmp_path)
    task = _Task(job, None, "harness-a+b-1-x")
    gave_up = KilledWorker("harness-a+b-1-x", SimpleNamespace(address="tcp://10.0.0.7:4000"), 3)
    done = executor._outcome(task, "error", gave_up)
    assert done is not None and done.result is None and "KilledWorker" in done.error
    assert "died on every attempt" in (tmp_path / "error.txt").read_text()


def test_no_code_is_shipped_and_workers_run_the_runners_code(tmp_path: Path) -> None:
    executor = DaskExecutor.__new__(DaskExecutor)  # submit's check comes before any cluster call
    with pytest.raises(TypeError, match="importable on the workers"):
        executor.submit(Job("m", lambda: {}, (), tmp_path))
    bot = BotSpec("b", (sys.executable, "-m", "bots.caller"), cwd=str(ROOT))
    assert preflight([bot], code_digest(), "w") is None
    refusal = preflight([bot], "0" * 64, "tcp://w:1")
    assert refusal is not None and refusal.bot is None and "runs other harness code" in refusal.reason
    ghost = BotSpec("ghost", (str(tmp_path / "nowhere"),), cwd=str(tmp_path))
    refusal = preflight([ghost], code_digest(), "tcp://w:1")
    assert refusal is not None and refusal.bot == "ghost" and "shared file system" in refusal.reason
    assert abort_tasks(["not-running"]) == []


def _must_not_run(marker: str) -> dict:
    Path(marker).write_text("ran")
    return {}


def test_a_task_that_starts_after_its_stop_was_asked_plays_nothing(tmp_path: Path) -> None:
    """Ctrl-C races a dispatch: the worker was asked to stop a key before that task registered."""
    key = f"harness-late-{uuid.uuid4().hex}"
    marker = tmp_path / "ran"
    assert abort_tasks([key]) == []  # not running yet: nothing to interrupt, but remembered
    job = tmp_path / "job"  # run_task maps paths under it into scratch space: the marker is outside
    payload = run_task(_must_not_run, (str(marker),), job, key, code_digest(), False)
    assert payload["aborted"] and payload["result"] is None and not marker.exists()
    other = run_task(_must_not_run, (str(marker),), job, key + "-other", code_digest(), False)
    assert not other["aborted"] and marker.exists()  # any other key still runs


def test_a_task_whose_interrupt_is_lost_still_stops_at_the_next_hand(tmp_path: Path, monkeypatch) -> None:
    """The KeyboardInterrupt raised in a task's thread can be lost (raised inside a finalizer, Python prints
    "Exception ignored" and goes on): the stop was also asked, so the referee stops at its next hand."""
    from harness.engine import GameConfig
    from harness.host.marks import find_marked
    from harness.match.referee import Limits, MatchSpec, play_match
    from harness.tournament import cluster

    def lose_it(ident: int, exc: type[BaseException] | None) -> None:  # every interrupt lost on its way
        return None

    monkeypatch.setattr(cluster, "_set_async_exc", lose_it)
    key = f"harness-lost-{uuid.uuid4().hex}"
    bots = [BotSpec(n, (sys.executable, "-m", f"bots.{n}"), cwd=str(ROOT)) for n in ("caller", "raiser")]
    limits = Limits(decision_ms=5000, time_bank_ms=10000, startup_ms=60000)
    job = tmp_path / "job"
    payload: dict[str, Any] = {}
    task = threading.Thread(target=lambda: payload.update(run_task(
        play_match, (bots, MatchSpec(GameConfig(), hands=3000, seed=5), limits, job), job, key, code_digest(),
        False)))
    task.start()
    try:
        deadline = time.monotonic() + 600  # an outer limit only: the wait is for the bots
        while time.monotonic() < deadline and task.is_alive() and len(find_marked(owner_pid=os.getpid())) < 2:
            time.sleep(0.02)
        assert task.is_alive(), f"the match ended before it was stopped: {payload}"
        while abort_tasks([key]) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        task.join(timeout=600)
    assert payload["aborted"] and payload["result"] is None, "the match played on to its end"
    assert find_marked(owner_pid=os.getpid()) == [], "a bot outlived its stopped match"


def test_workers_sandbox_bots_as_the_runner_does_and_hide_their_own_space(tmp_path: Path, monkeypatch) -> None:
    import functools

    from harness.host import sandbox
    from harness.match.referee import play_match
    from harness.specs import SandboxMode, SandboxSettings

    box = SandboxSettings(hidden=("/out",))
    play = functools.partial(play_match, sandbox=box)
    assert sandboxes_of((play, ([], 1))) == [box]
    hidden = hide((play, [play]), tmp_path)
    assert hidden[0].keywords["sandbox"].hidden == ("/out", str(tmp_path)) == hidden[1][0].keywords["sandbox"].hidden
    assert hide(box, tmp_path).mode is SandboxMode.AUTO and box.hidden == ("/out",)

    bot = BotSpec("b", (sys.executable, "-m", "bots.caller"), cwd=str(ROOT))
    weak = sandbox.Isolation(False, True, box.cpu, "no bwrap", "partly on (cgroup v1): bwrap missing")
    monkeypatch.setattr(sandbox, "decide_isolation", lambda settings, **kw: weak)
    refusal = preflight([bot], code_digest(), "tcp://w:1", [box], (True, True))
    assert refusal is not None and refusal.bot is None
    assert "cannot sandbox the bots as the runner's machine does (no bubblewrap: partly on" in refusal.reason
    assert preflight([bot], code_digest(), "tcp://w:1", [box], (False, True)) is None  # asks only what it has

    def refuse(settings, **kw):  # mode "required" where the sandbox cannot run
        raise sandbox.SandboxError("[sandbox] mode = \"required\" but the sandbox cannot run here: no bwrap")

    monkeypatch.setattr(sandbox, "decide_isolation", refuse)
    refusal = preflight([bot], code_digest(), "tcp://w:1", [dataclasses.replace(box, mode=SandboxMode.REQUIRED)])
    assert refusal is not None and "worker tcp://w:1 cannot sandbox the bots: [sandbox] mode" in refusal.reason
    monkeypatch.undo()
    off = dataclasses.replace(box, mode=SandboxMode.OFF)
    assert expected_sandbox([off]) == (False, False)
    assert expected_sandbox([dataclasses.replace(box, mode=SandboxMode.REQUIRED)]) == (True, True)


# ---------------------------------------------------------------- on a cluster


def test_the_cluster_gives_the_local_backends_results_and_leaderboard(tmp_path: Path, reference: Path,
                                                                     cluster) -> None:
    """Entry checks and matches through `harness run --cluster ADDRESS`: byte-identical results, timings aside."""
    _, address = cluster
    mark = MARK
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(league(tmp_path, mark)), "--out", str(out), "--cluster", address])
    assert result.exit_code == 0, result.output
    assert f"cluster: {address}, 2 workers, 2 threads" in result.output
    assert "with 2 jobs" in result.output  # the estimate counts the cluster's workers
    assert "entry check: 3 of 3 bots pass" in result.output
    assert comparable(out) == comparable(reference)
    for name in ("leaderboard.csv", "leaderboard.md", "los.csv"):
        assert (out / name).read_text() == (reference / name).read_text()
    # Stored as the local backend stores them: hand history gzipped, logs, result.json; entry logs mapped back.
    for record in read_records(out):
        match = out / "matches" / record.match_id
        assert {p.name for p in match.iterdir()} == {"hands.jsonl.gz", "logs", "result.json"}
        assert json.loads((match / "result.json").read_text())["match_id"] == record.match_id
        assert (match / "logs" / "referee.log").exists()
    entries = json.loads((out / "entries.json").read_text())
    assert entries["bots"]["caller"]["log"] in {str(out / "entries" / "caller" / "logs" / f"{seat}-caller.err")
                                                for seat in range(2)}  # the seat of a match: any
    assert wait_no_bots(mark) == []


def test_matches_of_one_deal_are_never_in_flight_together_on_the_cluster(tmp_path: Path, cluster) -> None:
    """Two jobs queued per worker thread, yet a table's rotations (same cards) never run at once."""
    _, address = cluster
    marks = tmp_path / "marks"
    marks.mkdir()
    config = with_overrides(fake_config(tmp_path / "out", ["a", "b", "c", "d"], hands=3, jobs=0,
                                        env={EXCLUSIVE_DIR: str(marks)}), cluster=address)
    summary = run_on_cluster(config, play=exclusive_play, quiet=True)
    assert summary.complete and summary.matches_run == 12 and not summary.failed
    assert not (marks / "overlaps").exists(), (marks / "overlaps").read_text()
    assert max(int(n) for n in (marks / "concurrency").read_text().split()) == 2


def test_a_worker_killed_mid_match_changes_nothing(tmp_path: Path, reference: Path, cluster) -> None:
    _, address = cluster
    mark = MARK
    workers = set(worker_pids(address).values())
    killed: list[int] = []

    def kill_a_worker_running_a_match() -> None:
        deadline = time.monotonic() + 600  # an outer limit: the wait is for a bot under a worker
        while time.monotonic() < deadline and not killed and not run_over.is_set():
            for bot in bots_of_mark(mark):
                try:
                    parent = bot.ppid()
                except psutil.Error:
                    continue
                if parent in workers:
                    os.kill(parent, signal.SIGKILL)
                    killed.append(parent)
                    return
            time.sleep(0.05)

    run_over = threading.Event()
    killer = threading.Thread(target=kill_a_worker_running_a_match)
    killer.start()
    config = with_overrides(load_config(league(tmp_path, mark)), out=tmp_path / "out", cluster=address)
    try:
        summary = run_on_cluster(config, quiet=True, entry_check=False)
    finally:
        run_over.set()
        killer.join()
    assert killed, "no worker was caught running a match"
    assert summary.complete and not summary.failed and summary.matches_run == 6
    assert comparable(tmp_path / "out") == comparable(reference)
    assert (tmp_path / "out" / "leaderboard.csv").read_text() == (reference / "leaderboard.csv").read_text()
    assert wait_no_bots(mark) == [], "bots of the killed worker survived it"


def test_ctrl_c_cancels_the_tasks_and_a_rerun_resumes(tmp_path: Path, cluster) -> None:
    _, address = cluster
    mark = uuid.uuid4().hex
    out = tmp_path / "out"
    # Matches long enough that, with 1 or 2 of the 6 recorded, at least two more must be played whole before the
    # run could end: Ctrl-C always lands in the middle of it, however slow the machine (with 60 hands, the last
    # match's bots still stopping after the last record let Ctrl-C come after the end).
    config = league(tmp_path, mark, hands=600, sandbox="off")
    command = [sys.executable, "-m", "harness.cli", "run", str(config), "--out", str(out), "--cluster", address,
               "--no-entry-check"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **tls_environment()})
    try:
        deadline = time.monotonic() + 900  # an outer limit only: the wait is for the first record
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "results.jsonl").exists() and 1 <= len(read_records(out, pending=True)) <= 2:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before Ctrl-C"
        assert 1 <= len(read_records(out, pending=True)) <= 2, "the first records were never seen"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted: run the same command again to resume" in err
    assert wait_no_bots(mark) == [], "the running matches' bots were not stopped"
    from distributed import Client

    with Client(address, set_as_default=False, timeout=300) as client:
        assert not any(client.processing().values()), "tasks of the interrupted run still run"
    recorded = {r.match_id: (match_files(out, r.match_id) / "result.json").stat().st_mtime_ns
                for r in read_records(out, pending=True)}  # those of unfinished tables too (private)
    assert 1 <= len(recorded) < 6

    again = run_on_cluster(with_overrides(load_config(config), out=out, cluster=address), quiet=True,
                           entry_check=False)
    assert again.complete and again.matches_run == 6 - len(recorded)
    assert again.reuse is not None and f"reused {len(recorded)} match" in again.reuse.describe()
    for match_id, mtime in recorded.items():  # never played again (published, whole, once its table was)
        assert (out / "matches" / match_id / "result.json").stat().st_mtime_ns == mtime
    assert wait_no_bots(mark) == []


def test_a_bot_missing_on_the_workers_fails_its_matches_clearly(tmp_path: Path, cluster) -> None:
    """Also: the bots that play get the runner's environment, not what Dask's nanny sets (PYTHONHASHSEED)."""
    _, address = cluster
    mark = uuid.uuid4().hex
    config_path = league(tmp_path, mark, hands=20, bots=1, sandbox="off")
    script = tmp_path / "ghost.sh"
    script.write_text("#!/bin/sh\nexec python3 -m bots.caller\n")
    script.chmod(0o755)
    env_bot = ("import os, runpy, sys; print('HASHSEED', os.environ.get('PYTHONHASHSEED'), file=sys.stderr,"
               " flush=True); runpy.run_module('bots.caller', run_name='__main__')")
    config_path.write_text(config_path.read_text() + f'[[bots]]\nname = "ghost"\ncommand = "{script}"\n'
                           f'cwd = "{ROOT}"\n[[bots]]\nname = "envbot"\ncommand = ["python", "-c", "{env_bot}"]\n'
                           f'cwd = "{ROOT}"\nenv = {{ TEST_MARK = "{mark}" }}\n')
    config = with_overrides(load_config(config_path), out=tmp_path / "out", cluster=address)
    script.unlink()  # there when the file was loaded, not on the workers
    summary = run_on_cluster(config, quiet=True, entry_check=False)
    played = {p.name for p in (tmp_path / "out" / ".private" / "matches").iterdir()}  # tables unfinished
    assert sorted(summary.failed) == sorted(m for m in played if "ghost" in m)
    assert len(summary.failed) == 4 and len(summary.records) == 2
    for match_id in summary.failed:
        error = (match_files(tmp_path / "out", match_id) / "error.txt").read_text()
        assert "no worker can run this job" in error and error.count("on worker tls://127.0.0.1:") == 2, error
        assert f"bot 'ghost': command {str(script)!r} not found" in error and "shared file system" in error
    for record in summary.records:
        seat = record.result.bots.index("envbot")
        log = match_files(tmp_path / "out", record.match_id) / "logs" / f"{seat}-envbot.err"
        assert log.read_text().startswith(f"HASHSEED {os.environ.get('PYTHONHASHSEED')}\n")
    assert wait_no_bots(mark) == []


def test_local_1_losing_its_scheduler_stops_the_run_clearly_and_it_resumes(tmp_path: Path, cluster) -> None:
    """`local:N` (a cluster of the run's own); its whole session killed mid-match: a clear stop, then a resume."""
    shared, address = cluster
    mark = uuid.uuid4().hex
    out = tmp_path / "out"
    config = with_overrides(load_config(league(tmp_path, mark, bots=2, sandbox="off")), out=out, cluster="local:1")
    sessions: list[int] = []

    def lose_the_scheduler() -> None:
        deadline = time.monotonic() + 600  # an outer limit: the wait is for the bots
        while time.monotonic() < deadline and not bots_of_mark(mark):
            time.sleep(0.05)
        for child in psutil.Process().children():
            try:
                ours = child.pid != shared.pid and "harness.tournament.cluster" in " ".join(child.cmdline())
            except psutil.Error:  # a short-lived child (a calibration bot) already gone
                continue
            if ours:
                sessions.append(child.pid)
                os.killpg(child.pid, signal.SIGKILL)  # scheduler, nanny and worker at once

    killer = threading.Thread(target=lose_the_scheduler)
    killer.start()
    try:
        summary = run_on_cluster(config, quiet=True, entry_check=False)
    finally:
        killer.join()
    assert sessions, "no local cluster was found"
    assert summary.stopped.startswith("lost the Dask scheduler at local:1") and "resume" in summary.stopped
    assert not summary.complete and len(read_records(out, pending=True)) < 2
    assert wait_no_bots(mark) == [], "bots outlived their cluster"
    assert not session_processes(sessions[0])
    gone = address.rsplit(":", 1)[0] + ":1"  # nothing listens on port 1
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at {gone} within 1 s"):
        DaskExecutor.connect(gone, timeout_s=1)
    summary = run_on_cluster(with_overrides(config, cluster=address), quiet=True, entry_check=False)
    assert summary.complete and not summary.failed
    assert wait_no_bots(mark) == []


def test_a_spy_on_a_worker_reaches_neither_the_scheduler_nor_the_workers_memory(tmp_path: Path, cluster) -> None:
    """The sandbox on a worker, as locally: the worker's memory holds the match seed, its scheduler runs code."""
    import functools
    import shutil
    import sysconfig

    from harness.engine.config import GameConfig
    from harness.host import sandbox as sb
    from harness.match.referee import play_match
    from harness.specs import Limits, MatchSpec, SandboxMode, SandboxSettings
    from harness.tournament.matchjob import play_and_store
    from harness.tournament.workers import run_all

    support = sb.support()
    if not (support.namespaces and support.cgroups.available):
        pytest.skip("SANDBOX NOT AVAILABLE: install bubblewrap (apt-get install bubblewrap; make test does) and run as "
                    f"root or in a delegated cgroup ({support.namespaces_problem or support.cgroups.reason})")
    _, address = cluster
    tmp_path.chmod(0o755)  # the bots' uids read their directories
    home = tmp_path / "spy"
    shutil.copytree(ROOT / "tests" / "fixtures" / "hostile", home, ignore=shutil.ignore_patterns("__pycache__"))
    port = int(address.rsplit(":", 1)[1])
    token = uuid.uuid4().hex[:12]
    env = {"SPY_TOKEN": token, "SPY_TCP_PORT": str(port), "SPY_LISTEN_PORT": "1", "SPY_SOURCE_DIR": str(home),
           "SPY_SCRATCH_MB": "8"}
    bots = [BotSpec("spy", ("python", "spy.py"), cwd=str(home), env=env),
            BotSpec("victim", (sys.executable, "-m", "bots.caller"), cwd=str(ROOT))]
    box = SandboxSettings(mode=SandboxMode.REQUIRED, scratch_mb=8)
    directory = tmp_path / "out" / "m"
    directory.mkdir(parents=True)
    spec = MatchSpec(GameConfig(), hands=4, seed=7, match_id="m", compress=True)
    job = Job("m", play_and_store, (functools.partial(play_match, sandbox=box), bots, spec, Limits(startup_ms=30000),
                                    directory), directory)
    done: list = []
    planted = Path(sysconfig.get_paths()["purelib"]) / f"hostile-{token}.pth"  # where an unboxed spy writes
    try:
        with DaskExecutor.connect(address) as executor:
            run_all(executor, [job], done.append)
    finally:
        planted.unlink(missing_ok=True)
    assert done[0].error == "" and done[0].result["hands_played"] == 4, done[0].error
    report = {}
    for line in (directory / "logs" / "0-spy.err").read_text().splitlines():
        if line.startswith("ATTACK "):
            name, _, what = line[len("ATTACK "):].partition(" ")
            report[name] = what
    for attack in ("tcp-connect", "referee-memory", "opponent-environment"):
        assert report[attack].startswith("FAILED"), report
    assert done[0].result["faults"][1] == {}
