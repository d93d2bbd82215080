"""The one parser of ``NAME=COMMAND`` (``--bot`` of match, play, sprt; ``--opponent`` of check-bot)."""

from __future__ import annotations

import pytest

from harness.specs import parse_named_command


def test_name_dir_and_command_split_like_a_shell() -> None:
    assert parse_named_command("a=python -m bots.caller") == ("a", None, ("python", "-m", "bots.caller"))
    assert parse_named_command("j@bots/java=./run.sh 'x y'") == ("j", "bots/java", ("./run.sh", "x y"))


@pytest.mark.parametrize(("text", "option", "allow_dir", "message"), [
    ("c", "--bot", True, "--bot 'c' must be NAME=COMMAND or NAME@DIR=COMMAND"),
    ("c=", "--bot", True, "--bot 'c=' must be NAME=COMMAND"),
    ("j@x=./run", "--bot", False, "--bot 'j@x': a name is 1-32 letters, digits, '_', '.' or '-'"),
    ("c/d=x", "--opponent", False, "--opponent 'c/d': a name is 1-32 letters"),
    ("c=x 'open", "--bot", True, "cannot split the command of --bot c: No closing quotation"),
])
def test_a_bad_argument_is_one_line_naming_the_option(text: str, option: str, allow_dir: bool, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_named_command(text, option, allow_dir=allow_dir)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
