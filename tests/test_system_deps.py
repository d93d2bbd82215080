"""tools/install-system-deps.sh: the one list of Debian packages, used by `make test` and `.ci/run`.

The script is run on copies whose list holds packages that do not exist, with
``id`` and ``dpkg-query`` faked on ``PATH``, so nothing is ever installed here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "install-system-deps.sh"
BASH = shutil.which("bash")

pytestmark = pytest.mark.skipif(BASH is None, reason="SYSTEM DEPS TEST SKIPPED: no bash on PATH")


def listed(text: str) -> list[str]:
    """The package names of the script's PACKAGES block."""
    block = re.search(r"^PACKAGES='\n(.*?)^'", text, re.S | re.M)
    assert block, "no PACKAGES='...' block"
    return [line.split()[0] for line in block.group(1).splitlines() if line.strip()]


def test_the_list_holds_what_the_tests_need_and_both_entry_points_use_it() -> None:
    packages = listed(SCRIPT.read_text())
    assert {"bubblewrap", "libseccomp2", "chromium", "chromium-driver", "default-jre-headless", "libzmq3-dev",
            "libmsgpack-dev", "libzmq-java", "libmsgpack-java", "tmux"} <= set(packages)
    assert len(packages) == len(set(packages))
    assert os.access(SCRIPT, os.X_OK)
    assert "tools/install-system-deps.sh" in (REPO / ".ci" / "run").read_text()
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^test: system-deps\b", makefile, re.M) and "\t@tools/install-system-deps.sh" in makefile


LOCK_ERROR = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)"
LOCK_ERROR_2 = "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?"


def fake_bin(where: Path, uid: int, installed: set[str], update_ok: bool = False) -> str:
    """A PATH: ``id -u`` says ``uid``, ``dpkg-query`` knows ``installed``, ``apt-get`` logs and fails as apt
    does when another process holds the dpkg lock (but its ``update`` succeeds with ``update_ok``)."""
    bin_dir = where / "bin"
    bin_dir.mkdir()
    scripts = {
        "id": f"#!/bin/sh\necho {uid}\n",
        "dpkg-query": "#!/bin/sh\nfor p; do :; done\ncase \" " + " ".join(sorted(installed)) + " \" in\n"
                      "  *\" $p \"*) printf 'install ok installed' ;;\n  *) exit 1 ;;\nesac\n",
        "apt-get": f"#!/bin/sh\necho \"$@\" >> {where / 'apt.log'}\n"
                   + ('case "$*" in *update*) exit 0 ;; esac\n' if update_ok else "")
                   + f"echo 'W: some warning first' >&2\necho '{LOCK_ERROR}' >&2\n"
                   f"echo '{LOCK_ERROR_2}' >&2\nexit 100\n",
    }
    for name, body in scripts.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    for tool in ("grep", "cat", "sh"):  # what the script itself runs
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def run_copy(tmp_path: Path, packages: str, uid: int, installed: set[str],
             update_ok: bool = False) -> subprocess.CompletedProcess[str]:
    text = SCRIPT.read_text()
    copy = tmp_path / "deps.sh"
    copy.write_text(re.sub(r"^PACKAGES='\n.*?^'", lambda _: f"PACKAGES='\n{packages}'", text, flags=re.S | re.M))
    env = {"PATH": fake_bin(tmp_path, uid, installed, update_ok), "HOME": str(tmp_path)}
    return subprocess.run([str(BASH), str(copy)], env=env, capture_output=True, text=True, timeout=30)


LIST = "present-pkg  -  a test\nmissing-one  -  the first test\nmissing-two  -  the second test\n"


def test_silent_when_every_package_is_present(tmp_path: Path) -> None:
    done = run_copy(tmp_path, LIST, 0, {"present-pkg", "missing-one", "missing-two"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not (tmp_path / "apt.log").exists()


def test_not_root_one_warning_line_per_missing_package_and_exit_0(tmp_path: Path) -> None:
    done = run_copy(tmp_path, LIST, 1000, {"present-pkg"})
    assert done.returncode == 0 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and all(ln.startswith("WARNING: install-system-deps: ") for ln in lines), lines
    assert "missing-one is missing and cannot be installed (not root" in lines[0] and "the first test" in lines[0]
    assert "SKIPPED" in lines[1] and "missing-two" in lines[1]
    assert not (tmp_path / "apt.log").exists()


@pytest.mark.parametrize("update_ok", [False, True], ids=["no-package-source", "unknown-packages"])
def test_as_root_apt_is_asked_and_each_failure_is_one_line(tmp_path: Path, update_ok: bool) -> None:
    done = run_copy(tmp_path, LIST, 0, {"present-pkg"}, update_ok)
    assert done.returncode == 0 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and all(ln.startswith("WARNING: install-system-deps: ") for ln in lines), lines
    assert "missing-one" in lines[0] and "missing-two" in lines[1]
    calls = (tmp_path / "apt.log").read_text().splitlines()
    assert "update" in calls[0]
    # apt waits for a dpkg lock held by another process, and its own error lines are shown
    assert all(re.search(r"-o DPkg::Lock::Timeout=[1-9]\d{2,}", call) for call in calls), calls
    assert all(LOCK_ERROR in ln and LOCK_ERROR_2 in ln and "some warning" not in ln for ln in lines), lines
    if update_ok:  # all at once, then one by one: one unknown package does not keep the others out
        assert [c.split()[-2:] if c.count("missing") == 2 else c.split()[-1:] for c in calls[1:]] == [
            ["missing-one", "missing-two"], ["missing-one"], ["missing-two"]]
        assert "could not install missing-one (apt-get install missing-one failed: E: Could not get lock" in lines[0]
    else:
        assert calls[1:] == [] and "apt-get update failed" in lines[0]


def test_skip_system_deps_checks_nothing(tmp_path: Path) -> None:
    text = SCRIPT.read_text()
    env = {**os.environ, "SKIP_SYSTEM_DEPS": "1", "PATH": fake_bin(tmp_path, 1000, set())}
    done = subprocess.run([str(BASH), "-c", text], env=env, capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stderr) == (0, "")
