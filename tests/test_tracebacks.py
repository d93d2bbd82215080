"""Tracebacks of every language a bot is written in: recognised, named, counted alike, shown with tabs intact."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.host.botproc import find_marked
from harness.host.startcause import start_cause
from harness.host.tracebacks import Trace, describe_traces, find_traces
from harness.match.checkbot import CheckReport, Violation
from harness.report.collect import BotReport, ReportData
from harness.report.markdown import bot_markdown
from harness.specs import FaultKind, Limits
from harness.tournament.entries import Entry, _reason, describe_failure

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "traces"
# fixture file -> (language, text of the line that names the error, last line of the block)
EXPECTED = {
    "python.txt": ("Python", "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'",
                   "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'"),
    "java.txt": ("Java", 'Exception in thread "main" java.lang.IllegalStateException: no legal action', "\t... 3 more"),
    "node.txt": ("Node.js", "TypeError: Cannot read properties of undefined (reading 'toFixed')",
                 "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"),
    "cpp.txt": ("C++", "terminate called after throwing an instance of 'std::out_of_range'",
                "  what():  vector::_M_range_check: __n (which is 7) >= this->size() (which is 7)"),
    "go.txt": ("Go", "panic: runtime error: index out of range [7] with length 7", "exit status 2"),
    "dotnet.txt": (".NET", "Unhandled exception. System.InvalidOperationException: Sequence contains no elements",
                   "   at Bot.Main(String[] args) in /home/s/bot/Bot.cs:line 12"),
    "rust.txt": ("Rust", "thread 'main' panicked at src/main.rs:31:22:",
                 "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"),
}


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_languages_trace_is_one_traceback_named_by_its_language(name: str) -> None:
    language, head, last = EXPECTED[name]
    text = "[bot] started\nhand 3\n" + fixture(name) + "[bot] carrying on\n"
    traces = find_traces(text)
    assert [t.language for t in traces] == [language]
    assert head in traces[0].text and traces[0].text.splitlines()[-1] == last
    assert "[bot] carrying on" not in traces[0].text and "hand 3" not in traces[0].text
    assert describe_traces(traces) == f"1 traceback ({language})"


def test_a_java_trace_keeps_its_caused_by_and_its_tabs() -> None:
    (trace,) = find_traces(fixture("java.txt"))
    assert "Caused by: java.lang.NullPointerException" in trace.text and "\tat JavaBot.pick" in trace.text


def test_mixed_languages_are_counted_per_language() -> None:
    text = fixture("python.txt") + fixture("go.txt") + fixture("python.txt")
    assert describe_traces(find_traces(text)) == "3 tracebacks (Python 2, Go 1)"


def report(traces: list[Trace], **kw: object) -> CheckReport:
    base = dict(command=("./run.sh",), opponents=("caller",), hands=1, decisions=1, violations=(), status="ok",
                slowest_ms=1.0, net=0, limits=Limits())
    base.update(kw)
    return CheckReport(**base, tracebacks=tuple(t.text for t in traces), traces=tuple(traces))  # type: ignore[arg-type]


def test_check_bot_and_the_entry_check_name_the_language_and_keep_tabs() -> None:
    traces = find_traces(fixture("java.txt"))
    text = report(traces).render()
    assert "Tracebacks in the bot's stderr: 1 traceback (Java)." in text
    assert "  | \tat JavaBot.act(JavaBot.java:88)" in text and "\\x09" not in text
    reason = _reason(report(traces))
    assert reason == ('1 traceback (Java) on stderr (first: Exception in thread "main" '
                      "java.lang.IllegalStateException: no legal action)")
    assert "Python" not in reason
    entry = Entry("javabot", False, reason, fixture("java.txt"), "/x/0-javabot.err", 1.0, 0.0, "")
    shown = describe_failure(entry)
    assert "  | \tat JavaBot.act(JavaBot.java:88)" in shown and "\\x09" not in shown
    assert describe_failure(Entry("b", False, "r", "x\x1b[2Jy", "", 1.0, 0.0, "")).endswith("x\\x1b[2Jy")


def test_the_report_names_the_language_and_an_unranked_bot_reads_not_ranked(tmp_path: Path) -> None:
    bot = BotReport("javabot", tracebacks=2, first_traceback=fixture("java.txt"), traceback_where="m/logs/0.err",
                    trace_languages={"Java": 2})
    data = ReportData(tmp_path, "class", ["javabot"], [], 0, {}, [], [], {"javabot": bot})
    text = bot_markdown(bot, data, {"rank": "", "rank_group": "", "note": "failed its entry check: failed to start"})
    assert "2 traceback(s) (Java 2) over its matches" in text and "None recognised" not in text
    assert "Leaderboard: not ranked: failed its entry check: failed to start." in text
    assert "rank group )" not in text and "position  (" not in text
    ranked = bot_markdown(bot, data, {"rank": "2", "rank_group": "1-3", "bb_per_100": "+4.0"})
    assert "Leaderboard: position 2 (rank group 1-3)" in ranked


@pytest.mark.parametrize(
    ("stderr", "status", "words"),
    [
        ("Error: Unable to access jarfile javabot.jar\n", "failed_start: exited before its hello (exit status 1)",
         "the jar javabot.jar cannot be opened (paths are relative to the bot's cwd"),
        ("Error occurred during initialization of VM\nCould not reserve enough space for 1048576KB object heap\n",
         "failed_start: exited before its hello (exit status 1)", "the memory limit (memory_mb = 1024 MiB)"),
        ("[0.01s][warning][os,thread] Failed to start thread - pthread_create failed (EAGAIN)\n"
         "java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource "
         "limits reached\n", "failed_start: exited before its hello (exit status 1)", "the process limit"),
        ("node:internal/modules/cjs/loader:1080\n  throw err;\n\nError: Cannot find module '/b/bot.js'\n",
         "failed_start: exited before its hello (exit status 1)", "the Node.js module /b/bot.js is not found"),
        ("./bot: error while loading shared libraries: libzmq.so.5: cannot open shared object file\n",
         "failed_start: exited before its hello (exit status 127)", "the shared library libzmq.so.5 is not found"),
        ("", "failed_start: no valid hello within 2000 ms", "the start-up limit (startup_ms = 2000 ms)"),
        ("starting\n", "failed_start: exited before its hello (exit status 3)", ""),
    ],
    ids=["jar", "jvm-heap", "threads", "node-module", "shared-library", "silent-timeout", "unknown"],
)
def test_a_failed_start_names_the_limit_or_the_file(stderr: str, status: str, words: str) -> None:
    cause = start_cause(stderr, status, Limits(startup_ms=2000))
    assert (words in cause) if words else cause == ""
    violation = Violation(FaultKind.FAILED_START, None, status.removeprefix("failed_start: "))
    text = report([], violations=(violation,), status=status, counts={FaultKind.FAILED_START: 1},
                  start_cause=cause).render()
    generic = "connect a DEALER to HARNESS_ENDPOINT"
    assert (f"the cause: {words}" in text and generic not in text) if words else generic in text


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node on PATH (a real bot crashing in JavaScript)")
def test_a_real_node_bot_that_crashes_is_one_node_traceback(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    (tmp_path / "bot.js").write_text("const state = undefined;\nconsole.error('starting');\nstate.cards.length;\n")
    result = CliRunner().invoke(app, ["check-bot", "--hands", "1", "--startup-ms", "3000", "--cwd", str(tmp_path),
                                      "--", "node", "bot.js"])
    assert find_marked(owner_pid=os.getpid()) == [], "check-bot left a bot process behind"
    assert result.exit_code == 1, result.output
    assert "Tracebacks in the bot's stderr: 1 traceback (Node.js)." in result.output
    assert "TypeError: Cannot read properties of undefined (reading 'cards')" in result.output
