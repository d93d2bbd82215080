"""Where a bot's command and the files it names are found (trial finding F).

Shell semantics: a program name without a slash is looked up on the PATH,
one with a slash from the bot's cwd; ``command = "cbot"`` with a ``cbot`` in
cwd is refused with ``did you mean ./cbot?``. Under the sandbox a bot sees
only its cwd: a script named outside it (``cd /tmp && harness check-bot --
python /path/to/bot.py``) fails to start with a note naming the file and
what to do, not a bare "can't open file".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.host import sandbox as sb
from harness.host.botproc import BotStartError, resolve_command
from harness.match.checkbot import check_bot
from harness.specs import BotSpec, SandboxSettings
from harness.tournament.config import ConfigError, load_config
from tests.sandbox_helpers import JAIL_MODE

BOT = "from protocol.sdk import Bot, check, call\n" \
      "class A(Bot):\n" \
      "    def act(self, s): return check() if s.can('check') else call()\n" \
      "    def draw(self, s): return []\n" \
      "raise SystemExit(A().run())\n"


@pytest.fixture
def gina(tmp_path: Path) -> Path:
    folder = tmp_path / "gina"
    folder.mkdir()
    (folder / "cbot").write_text("#!/bin/sh\nexit 0\n")
    (folder / "cbot").chmod(0o755)
    return folder


def test_a_bare_name_is_looked_up_on_the_path_and_the_error_suggests_dot_slash(gina: Path) -> None:
    with pytest.raises(BotStartError, match=r"command 'cbot' not found on PATH; did you mean \./cbot\? "
                                            rf"\(a file of that name is in {gina}"):
        resolve_command(BotSpec("g", ("cbot",), cwd=str(gina)), {"PATH": "/usr/bin:/bin"})
    assert resolve_command(BotSpec("g", ("./cbot",), cwd=str(gina)), {"PATH": "/usr/bin:/bin"}) == ["./cbot"]
    with pytest.raises(BotStartError, match="not found on PATH; install it or give its full path"):
        resolve_command(BotSpec("g", ("nosuch_cbot_xyz",), cwd=str(gina)), {"PATH": "/usr/bin:/bin"})


def test_a_tournament_file_gives_the_same_hint(gina: Path) -> None:
    toml = gina.parent / "t.toml"
    toml.write_text('[[bots]]\nname = "gina"\ncommand = "cbot"\ncwd = "gina"\n'
                    '[[bots]]\nname = "b"\ncommand = "python -m bots.caller"\n')
    with pytest.raises(ConfigError) as err:
        load_config(toml)
    assert err.value.key == "bots[0].command" and "did you mean ./cbot?" in err.value.problem


def test_unseen_files_are_those_named_outside_the_view(tmp_path: Path) -> None:
    cwd, other, hidden = tmp_path / "cwd", tmp_path / "elsewhere", tmp_path / "cwd" / "secret"
    for folder in (cwd, other, hidden):
        folder.mkdir(parents=True, exist_ok=True)
    for path in (cwd / "bot.py", other / "bot.py", hidden / "x.txt"):
        path.write_text("")
    args = ["-u", str(other / "bot.py"), "bot.py", "--model", "secret/x.txt", "-m", "bots.caller", "plain"]
    assert sb._unseen_files(args, str(cwd), [str(cwd)], [str(hidden)]) == [str(other / "bot.py"),
                                                                           str(hidden / "x.txt")]
    assert sb._unseen_files(args, str(cwd), [str(cwd), str(other)], []) == []


@pytest.mark.skipif(not sb.support().namespaces,
                    reason="SANDBOX TEST SKIPPED: bubblewrap cannot run here; install bubblewrap (apt-get install "
                           "bubblewrap; make test does)")
@pytest.mark.parametrize("name", ["there", "t" * 150])
def test_check_bot_says_which_file_the_sandbox_does_not_show(tmp_path: Path, name: str) -> None:
    # a long folder name puts the note past the detail's cap: what to do must still be read whole
    here, there = tmp_path / "here", tmp_path / name
    for folder in (here, there):
        folder.mkdir()
        folder.chmod(0o755)
    tmp_path.chmod(0o755)
    (there / "bot.py").write_text(BOT)
    (there / "bot.py").chmod(0o644)
    on = SandboxSettings(mode=JAIL_MODE, scratch_mb=8)
    report = check_bot(["python", str(there / "bot.py")], cwd=str(here), hands=1, startup_ms=5000, sandbox=on)
    assert not report.ok
    text = report.render()
    if len(name) < 100:
        assert f"the sandbox does not show {there / 'bot.py'} to the bot" in text and f"make {there} its cwd" in text
    else:  # the detail's middle clipped: the file is named under "How to fix", what to do ends the detail
        assert "exited before its hello" in text and str(there / "bot.py") in text
    assert "(--cwd DIR or --bot NAME@DIR=..., [[bots]] cwd) or add it to [sandbox] paths" in text  # check-bot's options
    fixed = check_bot(["python", str(there / "bot.py")], cwd=str(there), hands=1, startup_ms=5000, sandbox=on)
    assert fixed.ok, fixed.render()
    assert os.path.exists(there / "bot.py")
