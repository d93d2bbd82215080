"""A submission's files and settings: unpack it, find its ``bot.toml`` (or take the form's fields), hash it.

``bot.toml`` (at the top of the submission)::

    command = "python bot.py"     # how to start the bot, from its folder
    build = "make"                # optional: run once, in the sandbox, no network, with a time limit

The form's (or ``harness submit --command``'s) command overrides the file's.
A single uploaded file without a command is started as ``python FILE`` when
it ends in ``.py``, else as ``./FILE``.

The command's program is a name looked up on the server's PATH (``python``,
``java``, ``node``) or a path inside the submission's folder; a ``#!`` line of
a file there names an interpreter under ``/usr`` or ``/bin`` (``/usr/bin/env
NAME`` included). The sandbox shows a bot the program it starts and that
interpreter with its install folder, so any other path would show a student a
folder of the server's (:func:`check_command`).
"""

from __future__ import annotations

import os
import shlex
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

from harness.host.trees import remove_tree, walk
from harness.match.untrusted import visible
from harness.server.unpack import MAX_ENTRIES, UnpackError, content_hash, unpack

BOT_FILE = "bot.toml"
MAX_COMMAND = 1000
#: Largest ``bot.toml`` (bytes): a command and a build.
MAX_BOT_FILE = 64 * 1024
#: Where a ``#!`` line's interpreter may live (the system's programs; never the server's own folders).
SYSTEM_ROOTS = ("/usr/", "/bin/")


@dataclass(frozen=True, slots=True)
class Unpacked:
    """An accepted submission: its folder (in the staging area), content hash, command and build."""

    folder: Path
    sha256: str
    command: str
    build: str
    files: tuple[str, ...]


def _flatten(folder: Path) -> None:
    """An archive of one top folder (``mybot/...``) is taken as that folder's contents."""
    entries = list(folder.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        inner = entries[0]
        tmp = folder / f".flatten-{uuid.uuid4().hex}"
        inner.rename(tmp)
        for child in tmp.iterdir():
            child.rename(folder / child.name)
        tmp.rmdir()


def prepare(data: bytes, filename: str, staging: Path, command: str = "", build: str = "") -> Unpacked:
    """Unpack an upload into a fresh folder under ``staging`` and settle its command.

    Raises:
        UnpackError: a refusal (one sentence); nothing is left under ``staging``.
    """
    folder = staging / uuid.uuid4().hex
    try:
        files = unpack(data, filename, folder)
        _flatten(folder)
        meta: dict[str, object] = {}
        bot_toml = folder / BOT_FILE
        if bot_toml.is_file():
            if bot_toml.stat().st_size > MAX_BOT_FILE:
                raise UnpackError(f"refused: {BOT_FILE} is more than {MAX_BOT_FILE // 1024} KiB; it holds a command "
                                  "and a build.")
            try:
                meta = tomllib.loads(bot_toml.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise UnpackError(f"refused: {BOT_FILE} is not valid TOML ({exc}).") from None
            except RecursionError:  # tomllib parses nested arrays and tables recursively
                raise UnpackError(f"refused: {BOT_FILE} is not valid TOML (its arrays or tables are nested too "
                                  "deeply).") from None
            unknown = sorted(set(meta) - {"command", "build"})
            if unknown:
                raise UnpackError(f"refused: {BOT_FILE}: unknown key {unknown[0]!r}; expected command and build.")
            for key in ("command", "build"):
                if key in meta and not isinstance(meta[key], str):
                    raise UnpackError(f"refused: {BOT_FILE}: {key} must be a string, e.g. command = \"python bot.py\".")
        command = command.strip() or str(meta.get("command", "")).strip()
        build = build.strip() or str(meta.get("build", "")).strip()
        files = walk(folder, max_entries=MAX_ENTRIES).files()  # unpacked: within MAX_ENTRIES and MAX_DEPTH
        if not command:
            if len(files) == 1:
                only = files[0]
                command = f"python {shlex.quote(only)}" if only.endswith(".py") else f"./{shlex.quote(only)}"
                if not only.endswith(".py"):
                    os.chmod(folder / only, 0o755)
            else:
                raise UnpackError(f"refused: no command; give one in the form or in a {BOT_FILE} at the top of the "
                                  "archive, e.g. command = \"python bot.py\".")
        if len(command) > MAX_COMMAND or len(build) > MAX_COMMAND:
            raise UnpackError(f"refused: the command and the build must be at most {MAX_COMMAND} characters.")
        for field, text in (("command", command), ("build", build.replace("\n", "").replace("\t", ""))):
            if not text.isprintable():  # shown on the teacher's pages: a bidi override could hide what it runs
                raise UnpackError(f"refused: the {field} holds an invisible or direction-changing character (or a "
                                  f"control character): {visible(text)[:200]}")
        try:
            if not shlex.split(command):
                raise ValueError("empty")
        except ValueError as exc:
            raise UnpackError(f"refused: the command {command!r} cannot be split into words ({exc}).") from None
        check_command(command, folder)
        return Unpacked(folder, content_hash(folder), command, build, tuple(files))
    except BaseException:
        remove_tree(folder)
        raise


def check_command(command: str, folder: Path) -> None:
    """Refuse a command whose program, or the ``#!`` interpreter of a file it names, lies outside ``folder``
    and the system's programs.

    ``command`` splits into words (checked before); ``folder`` is the unpacked submission.

    Raises:
        UnpackError: naming the word or the file and its ``#!`` line, and what is accepted.
    """
    program = shlex.split(command)[0]
    if "/" in program:
        inside = not os.path.isabs(program) and ".." not in Path(program).parts and not program.startswith("~")
        if not inside:
            raise UnpackError(f"refused: the command's program {program!r} must be a name on the server's PATH "
                              "(python, java, node) or a path inside your folder (./bot).")
    for name in walk(folder, max_entries=MAX_ENTRIES).files():  # regular files only: links are not followed
        path = folder / name
        try:
            with open(path, "rb") as fh:
                head = fh.readline(256)
        except OSError:
            continue
        if not head.startswith(b"#!"):
            continue
        words = head[2:].decode(errors="replace").split()
        interpreter = words[0] if words else ""
        allowed = interpreter.startswith(SYSTEM_ROOTS) or not os.path.isabs(interpreter)  # relative: in the folder
        if interpreter and not (allowed and ".." not in Path(interpreter).parts):
            name = os.fspath(path.relative_to(folder))
            raise UnpackError(f"refused: {name}: its #! line names {interpreter[:80]!r}; name an interpreter "
                              "under /usr or /bin, e.g. #!/usr/bin/env python3.")
