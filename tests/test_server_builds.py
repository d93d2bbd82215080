"""A submission's build is untrusted code: it runs in the bot's sandbox, and no host path reaches a student.

A hostile student's build (``tests/fixtures/hostile/build_spy.sh``) reaches for
``/etc/shadow``, the contest file, the teacher's links file, the data folder and
another student's folder, prints and copies what it finds into its own folder
and writes outside it: over HTTP nothing of theirs shows on the version's page,
its JSON or its code download, and nothing it wrote outside its folder is left.
A build the sandbox cannot run is not run, and the server says so. A refusal's
traceback and the published final report show no path of the server.
Against a real ``harness serve`` (uvicorn on 127.0.0.1); the build tests skip
loudly without bubblewrap.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from harness.host.build import BuildLimits, build_problem, run_build
from harness.host.sandbox import LEASE_DIR, support
from harness.host.trees import MAX_DEPTH, remove_tree, walk
from harness.server.hostpaths import HIDDEN_FRAMES, for_student, host_roots
from harness.specs import SandboxMode, SandboxSettings
from tests.sandbox_helpers import path_without
from tests.server_helpers import (
    HARNESS,
    RAISER,
    ROOT,
    Served,
    contest_file,
    deep_tree,
    free_port,
    group_fds,
    links,
    upload,
    version_state,
    wait_for,
)
from tests.skip_helpers import skip_loudly

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

SPY = ROOT / "tests" / "fixtures" / "hostile" / "build_spy.sh"
BOX = SandboxSettings(mode=SandboxMode.AUTO, scratch_mb=16)


def _need_sandbox() -> None:
    problem = build_problem(BOX)
    if problem:
        skip_loudly(f"SERVER BUILD TEST NOT RUN: builds need the sandbox, which cannot run here ({problem}). "
                    "Install Debian's bubblewrap (apt-get install -y bubblewrap).")


@pytest.fixture
def home() -> Iterator[Path]:
    """The teacher's home: outside /tmp (which every sandbox replaces with its own), removed afterwards."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="harness-teacher-", dir=base))
    os.chmod(path, 0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _tar_gz(files: dict[str, bytes | str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, body in files.items():
            data = body.encode() if isinstance(body, str) else body
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755 if name.endswith(".sh") else 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _everything_fetchable(client: httpx.Client, vid: int) -> str:
    """What the student can fetch of a version: its page, its JSON and every file (name and bytes) of its code
    (none of a refused version: its files are removed)."""
    texts = [client.get(f"/versions/{vid}").text, client.get(f"/api/versions/{vid}").text]
    code = client.get(f"/versions/{vid}/code")
    if client.get(f"/api/versions/{vid}").json()["state"] == "refused":  # a refused version's files are removed
        assert code.status_code == 404
        return "\n".join(texts)
    assert code.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(code.content), mode="r:gz") as tar:
        for member in tar.getmembers():
            texts.append(member.name + " -> " + member.linkname)
            if member.isfile():
                handle = tar.extractfile(member)
                assert handle is not None
                texts.append(handle.read().decode("utf-8", "replace"))
    return "\n".join(texts)


def _shadow_lines() -> list[str]:
    try:
        return [line for line in Path("/etc/shadow").read_text().splitlines() if len(line) > 12]
    except OSError:  # an ordinary user cannot read it: nor can a build of theirs
        return []


def test_a_hostile_build_reads_nothing_of_the_server_and_leaves_nothing_outside_its_folder(home: Path) -> None:
    _need_sandbox()
    marks = {what: f"MARK-{what}-{uuid.uuid4().hex}" for what in ("contest", "links", "data", "bob")}
    contest = contest_file(home, sandbox="auto", build_timeout_s=60, extra=f"# {marks['contest']}\n")
    port = free_port()
    urls = links(contest, port)
    links_file = home / "links.csv"
    links_file.write_text("student,url\n" + "".join(f"{k},{v}\n" for k, v in urls.items())
                          + f"# {marks['links']}\n", encoding="utf-8")
    data = home / "contest-t"
    server = Served(contest, port)
    escapes = [Path(f"/tmp/harness-escape-{uuid.uuid4().hex}"), Path(f"/var/tmp/harness-escape-{uuid.uuid4().hex}"),
               Path(f"/dev/shm/harness-escape-{uuid.uuid4().hex}"), data / "escaped.txt", home / "escaped.txt",
               data / "uploads" / "bob" / "escaped.txt"]
    try:
        (data / "marker.txt").write_text(marks["data"], encoding="utf-8")
        bob = server.client(urls["bob"])
        bob_id = upload(bob, "bot.py", (RAISER + f"\n# {marks['bob']}\n").encode()).json()["id"]
        wait_for(lambda: version_state(bob, bob_id)["state"] != "checking", timeout=180)
        bob_folders = [p for p in (data / "uploads" / "bob").iterdir() if p.is_dir()]
        assert bob_folders and marks["bob"] in (bob_folders[0] / "bot.py").read_text()
        targets = ["/etc/shadow", str(contest), str(links_file), str(data), str(bob_folders[0])]
        escape = " ".join(str(p) for p in escapes)
        bot_toml = (f'command = "python bot.py"\n'
                    f'build = "ESCAPE=\'{escape}\' sh build_spy.sh {" ".join(targets)}"\n')
        alice = server.client(urls["alice"])
        answer = upload(alice, "spy.tar.gz", _tar_gz({"bot.py": RAISER, "build_spy.sh": SPY.read_text(),
                                                       "bot.toml": bot_toml}))
        assert answer.status_code == 201, answer.text
        vid = answer.json()["id"]
        done = wait_for(lambda: (s := version_state(alice, vid))["state"] != "checking" and s, timeout=240)
        assert "shadow: cat: /etc/shadow: No such file" in done["build_output"], done  # it ran; its output is shown
        assert done["state"] == "admitted", done
        seen = _everything_fetchable(alice, vid)
        assert "built.txt" in seen  # what it wrote in its folder stays
        for what, mark in marks.items():
            assert mark not in seen, f"the student's build read the {what}"
        for line in _shadow_lines():
            assert line not in seen, "the student's build read /etc/shadow"
        assert urls["admin"].rsplit("/", 1)[1] not in seen
        for path in escapes:
            assert not path.exists(), f"the build wrote {path} outside its folder"
        # the admin link the student did not get keeps them out of the admin pages
        assert alice.get("/admin").status_code == 404 and alice.get("/admin/export").status_code == 404
    finally:
        server.stop()
        for path in escapes:
            if path.is_file():
                path.unlink()


@pytest.mark.parametrize("why", ["mode-off", "no-bubblewrap"])
def test_a_build_the_sandbox_cannot_run_is_not_run_and_the_server_says_so(tmp_path: Path, why: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``[sandbox] mode = "off"``, and on a machine without bubblewrap (the server's ``PATH`` has none)."""
    if why == "no-bubblewrap":
        monkeypatch.setenv("PATH", path_without(tmp_path / "bin", "bwrap"))  # the server inherits it
    contest = contest_file(tmp_path, sandbox="off" if why == "mode-off" else "auto")
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        warning = wait_for(lambda: [line for line in server.log.read_text().splitlines()
                                    if line.startswith("harness serve: warning:")], timeout=30)
        assert len(warning) == 1 and "no build command is run" in warning[0], warning
        assert ("bubblewrap is not installed" if why == "no-bubblewrap" else 'mode = "off"') in warning[0]
        alice = server.client(urls["alice"])
        toml = 'command = "python bot.py"\nbuild = "echo ran$((6 * 7)) > ran.txt"\n'
        vid = upload(alice, "b.tar.gz", _tar_gz({"bot.py": RAISER, "bot.toml": toml})).json()["id"]
        done = wait_for(lambda: (s := version_state(alice, vid))["state"] != "checking" and s, timeout=120)
        assert done["state"] == "refused" and "the build was not run" in done["reason"], done
        assert "ran42" not in _everything_fetchable(alice, vid)  # what the build would have written
        assert not list((tmp_path / "contest-t" / "uploads").rglob("ran.txt"))
        admin = server.client(urls["admin"])
        assert 'id="builds"' in admin.get("/admin").text and "no build command is run" in admin.get("/admin").text
    finally:
        server.stop()


def test_a_refusal_and_the_final_report_show_no_path_of_the_server(home: Path) -> None:
    """The refusal's traceback keeps the student's own frame (relative), and the final's pages name no host path."""
    contest = contest_file(home)
    data = home / "contest-t"
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    hosts = [str(data), str(data.resolve()), str(ROOT), str(home)]
    try:
        alice, bob = server.client(urls["alice"]), server.client(urls["bob"])
        broken = upload(alice, "bot.py", (b"import os\n\n\ndef main():\n    open(os.getcwd() + '/gone.txt')\n\n\n"
                                          b"main()\n")).json()["id"]
        refused = wait_for(lambda: (s := version_state(alice, broken))["state"] != "checking" and s, timeout=120)
        assert refused["state"] == "refused", refused
        page = alice.get(f"/versions/{broken}").text + alice.get(f"/api/versions/{broken}").text
        assert 'File "./bot.py", line 5, in main' in page.replace("&#34;", '"').replace("&quot;", '"'), page
        assert "./gone.txt" in page
        for host in hosts:
            assert host not in page, f"the refusal shows {host}"
        good = upload(bob, "bot.py", RAISER.encode()).json()["id"]
        wait_for(lambda: version_state(bob, good)["state"] == "admitted", timeout=120)
        admin = server.client(urls["admin"])
        assert admin.post("/admin/final", follow_redirects=False).status_code == 303
        wait_for(lambda: "Final: done" in admin.get("/admin").text, timeout=240)
        index = bob.get("/final/").text
        pages = {"index.html": index}
        for link in sorted(set(re.findall(r'href="([^"#:?]+\.(?:html|md|txt|json))"', index))):
            answer = bob.get(f"/final/{link}")
            if answer.status_code == 200:
                pages[link] = answer.text
        assert len(pages) > 1, re.findall(r'href="([^"]+)"', index)
        for name, text in pages.items():
            for host in hosts:
                assert host not in text, f"the final's {name} shows {host}"
    finally:
        server.stop()


def test_a_traceback_keeps_only_the_students_frames() -> None:
    roots = host_roots(Path("/srv/c/data"), Path("/srv/c"))
    folder = "/srv/c/data/uploads/alice/abc"
    text = ("Traceback (most recent call last):\n"
            f'  File "{folder}/bot.py", line 9, in <module>\n    run(Bot())\n'
            f'  File "{ROOT}/protocol/sdk.py", line 120, in run\n    bot.act(x)\n    ^^^^^^^^^^\n'
            f'  File "{folder}/lib/think.py", line 3, in act\n    1 / 0\n'
            "ZeroDivisionError: division by zero\n"
            f"FileNotFoundError: '/srv/c/links.csv' and '/srv/c/data/contest.db'\n")
    shown = for_student(text, roots, folder)
    assert 'File "./bot.py", line 9' in shown and 'File "./lib/think.py", line 3' in shown and "1 / 0" in shown
    assert "sdk.py" not in shown and "bot.act" not in shown and HIDDEN_FRAMES in shown
    assert "/srv" not in shown and str(ROOT) not in shown
    assert "'[contest]/links.csv' and '[data]/contest.db'" in shown


def test_a_build_is_held_to_its_time_size_and_memory_limits(tmp_path: Path) -> None:
    _need_sandbox()
    folder = tmp_path / "data" / "uploads" / "v"
    folder.mkdir(parents=True)
    looped = run_build("while true; do :; done", folder, settings=BOX, limits=BuildLimits(timeout_s=1.0))
    assert not looped.ok and looped.summary == "the build was stopped after 1 s (the time limit)"
    big = run_build("i=0; while true; do i=$((i+1)); head -c 1048576 /dev/zero > f$i || exit 9; done", folder,
                    settings=BOX, limits=BuildLimits(timeout_s=120.0, disk_mb=8))
    assert not big.ok and "the size limit" in big.summary, big
    hungry = run_build("python3 -c 'x = bytearray(600 * 2**20); print(len(x))'", folder, settings=BOX,
                       limits=BuildLimits(timeout_s=120.0, memory_mb=128))
    assert not hungry.ok and "629145600" not in hungry.output, hungry
    failed = run_build("echo no compiler here; exit 3", folder, settings=BOX, limits=BuildLimits(timeout_s=60.0))
    assert not failed.ok and failed.summary == "the build failed with exit status 3"
    assert "no compiler here" in failed.output


def test_a_build_has_no_network_and_what_it_makes_is_the_servers(tmp_path: Path) -> None:
    _need_sandbox()
    folder = tmp_path / "data" / "uploads" / "alice" / "v"
    folder.mkdir(parents=True)
    (folder / "src.py").write_text("print('hi')\n")
    script = ("python3 -c 'import socket; s=socket.socket(); s.settimeout(2); s.connect((\"1.1.1.1\", 80))' "
              "&& exit 8; cp src.py built.py && chmod 600 built.py && mkfifo pipe && ln -s /etc/passwd out "
              "&& ln -s ../../alice up && ln -s built.py same && echo made")
    result = run_build(script, folder, settings=BOX, limits=BuildLimits(timeout_s=60.0))
    assert result.ok, result
    assert "Network is unreachable" in result.output and "made\n" in result.output
    assert "removed pipe" in result.notes and "removed out" in result.notes and "removed up" in result.notes
    assert not (folder / "out").is_symlink() and not (folder / "up").is_symlink()  # links out of the folder
    assert (folder / "same").is_symlink()  # a link inside it stays
    built = (folder / "built.py").stat()
    assert built.st_uid == os.geteuid() and built.st_mode & 0o777 == 0o644  # every bot's uid may read it
    assert not (folder / "pipe").exists()  # no FIFO, socket or device is left for the server to trip on
    if support().root:  # the build ran as a uid of its own, which owns nothing of the folder afterwards
        assert all(p.lstat().st_uid == 0 for p in folder.rglob("*"))


def test_a_build_runs_in_the_admission_over_http(tmp_path: Path) -> None:
    """Over HTTP: a version's build runs in its admission (what it makes is what the bot runs, its output is
    on the version), and a failing build refuses the version with its exit status and output."""
    _need_sandbox()
    contest = contest_file(tmp_path, sandbox="auto", build_timeout_s=60)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        folder = tmp_path / "alicebot"
        folder.mkdir()
        (folder / "source.py").write_text(RAISER, encoding="utf-8")
        (folder / "bot.toml").write_text('command = "python built.py"\n'
                                         'build = "cp source.py built.py && echo made built.py"\n', encoding="utf-8")
        token = urls["alice"].rsplit("/", 1)[1]
        done = subprocess.run([*HARNESS, "submit", "--server", server.url, "--token", token, str(folder)],
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0 and "admitted: alice.v1" in done.stdout, done.stdout + done.stderr
        alice = server.client(urls["alice"])
        assert "made built.py" in alice.get("/api/versions/1").json()["build_output"]
        # the same bot with a build that fails: refused, the build's words shown, v1 stays active
        (folder / "bot.toml").write_text('command = "python built.py"\n'
                                         'build = "echo no compiler here; exit 3"\n', encoding="utf-8")
        done = subprocess.run([*HARNESS, "submit", "--server", server.url, "--token", token, str(folder)],
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "the build failed with exit status 3" in done.stdout and "no compiler here" in done.stdout
        v2 = alice.get("/api/versions/2").json()
        assert v2["state"] == "refused" and not v2["active"] and alice.get("/api/versions/1").json()["active"]
    finally:
        server.stop()


def _pages_answer(server: Served, urls: dict[str, str], vid: int, *, refused: bool = False) -> tuple[str, list[str]]:
    """GET the version's page, its code and the admin export: each must answer 200 (the code of a ``refused``
    version: 404, its files removed, in one line). Returns the page's text and the code's member names."""
    alice = server.client(urls["alice"])
    page = alice.get(f"/versions/{vid}")
    assert page.status_code == 200, page.text
    code = alice.get(f"/versions/{vid}/code")
    names: list[str] = []
    if refused:
        assert code.status_code == 404 and code.text == "This version's files are no longer on the server.", code.text
    else:
        assert code.status_code == 200, code.text
        with tarfile.open(fileobj=io.BytesIO(code.content), mode="r:gz") as tar:
            names = tar.getnames()
    export = server.client(urls["admin"]).get("/admin/export")
    assert export.status_code == 200, export.text
    with tarfile.open(fileobj=io.BytesIO(export.content), mode="r:gz") as tar:
        assert "t/database.json" in tar.getnames()
    return page.text, names


def test_a_version_folder_1100_folders_deep_still_has_its_pages(tmp_path: Path) -> None:
    """A version's folder holding a tree 1,100 folders deep with a link to /etc/shadow at its bottom (what a build
    past the limits could leave before it was cleaned up): its page, its code and the admin export answer 200,
    show what lies within 32 folders and say what they left out; no traceback in the server's log."""
    contest = contest_file(tmp_path)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    folder = None
    try:
        alice = server.client(urls["alice"])
        vid = upload(alice, "bot.py", RAISER.encode()).json()["id"]
        wait_for(lambda: version_state(alice, vid)["state"] != "checking", timeout=180)
        (folder,) = [p for p in (tmp_path / "contest-t" / "uploads" / "alice").iterdir() if p.is_dir()]
        deep_tree(folder, 1100)
        page, names = _pages_answer(server, urls, vid)
        assert "bot.py" in page and f"deeper than {MAX_DEPTH} folders" in page
        assert "alice.v1/bot.py" in names and "alice.v1/LEFT-OUT.txt" in names
        log = server.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log and "RecursionError" not in log, log
    finally:
        server.stop()
        if folder is not None:
            remove_tree(folder)


def test_a_build_that_leaves_a_tree_1100_folders_deep_is_refused_and_cleaned_up(home: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that makes ``x/a/a/...`` 1,100 deep with a link to /etc/shadow at its bottom: the version is
    refused in one line naming the size limit, its folder is emptied (no link out of it, nothing owned by the
    build's uid), its scratch folder and uid lease are gone, its page and the admin export answer 200 and its code
    404 (a refused version's files are removed)."""
    _need_sandbox()
    scratch = home / "tmp"  # the server's TMPDIR: its builds' scratch folders are looked for there alone
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    contest = contest_file(home, sandbox="auto", build_timeout_s=120)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    data = home / "contest-t"
    try:
        alice = server.client(urls["alice"])
        build = "p=x; i=0; while [ $i -lt 1100 ]; do p=$p/a; i=$((i+1)); done; mkdir -p $p; ln -s /etc/shadow $p/sh"
        answer = upload(alice, "deep.tar.gz", _tar_gz({"bot.py": RAISER, "bot.toml": f"command = \"python bot.py\"\n"
                                                                                       f"build = '{build}'\n"}))
        assert answer.status_code == 201, answer.text
        vid = answer.json()["id"]
        done = wait_for(lambda: (s := version_state(alice, vid))["state"] != "checking" and s, timeout=300)
        assert done["state"] == "refused" and "the size limit" in done["reason"], done
        assert "\n" not in done["reason"]
        tree = walk(data, max_entries=100_000)
        assert tree.complete, tree.left_out()
        for rel, st in tree.entries:
            path = data / rel
            if path.is_symlink():
                assert os.path.realpath(path).startswith(str(data) + "/"), f"{rel} leads out of the data folder"
            assert st.st_uid == os.geteuid(), f"{rel} is owned by uid {st.st_uid}"
        assert not list(scratch.glob("harness-build-*")), list(scratch.iterdir())
        assert not [fd for fd in group_fds(server.proc.pid) if fd.startswith(LEASE_DIR)]
        page, _ = _pages_answer(server, urls, vid, refused=True)
        assert "the size limit" in page
        log = server.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log and "RecursionError" not in log, log
    finally:
        server.stop()
        remove_tree(data)
