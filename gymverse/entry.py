"""How every command ends, decided once: each ``main`` runs its work through :func:`run_command`.

Bad input (a flag, an id, a path, a file) is one line on stderr and exit status 2; a failing resource (an
endpoint, the disk, a game that broke mid-run) one line and 1; Ctrl-C 130; a reader that stops early
(``gymverse envs | head``) ends the command quietly with 1, as rich and Python's own advice end it. tyro's usage errors, which it draws as a box, become the
same one line (:func:`parse_flags`). ``GYMVERSE_DEBUG=1`` shows the traceback instead of the line.
"""

import contextlib
import functools
import io
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from gymverse.env.visible import visible
from gymverse.errors import BadInput, ResourceError

BAD_INPUT, RESOURCE, INTERRUPTED = 2, 1, 130
T = TypeVar("T")


def run_command(
    command: Callable[[], object], argv: Sequence[str] = (), as_typed: Callable[[str], str] | None = None
) -> int:
    """Run ``command`` and return its exit status (its own int, else 0). Messages name flags as ``argv`` typed
    them (``--env-id`` or ``--env_id``), or as ``as_typed`` rewrites them."""
    try:
        result = command()
    except SystemExit as exit_:  # tyro's --help (0), or a command's own status
        return exit_.code if isinstance(exit_.code, int) else BAD_INPUT
    except (BadInput, ValueError, FileNotFoundError) as error:
        return _fail(error, BAD_INPUT, argv, as_typed)
    except ResourceError as error:
        return _fail(error, RESOURCE, argv, as_typed)
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:  # as rich ends it: what is still buffered goes nowhere, and the status is 1
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return RESOURCE
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def _fail(error: Exception, status: int, argv: Sequence[str], as_typed: Callable[[str], str] | None) -> int:
    if os.environ.get("GYMVERSE_DEBUG"):
        raise error
    from gymverse.run.prepare import flags_as_typed

    message = as_typed(str(error)) if as_typed else flags_as_typed(str(error), list(argv))
    print(f"error: {visible(message)}", file=sys.stderr)  # what a game said may be in it
    return status


def parse_flags(parse: Callable[[], T], prog: str) -> T:
    """``parse()`` (a tyro parse) with a usage error raised as :class:`BadInput` in one line, not tyro's box."""
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return parse()
    except SystemExit as exit_:
        if not exit_.code:
            sys.stderr.write(captured.getvalue())
            raise
        raise BadInput(f"{usage_error(captured.getvalue())}; `{prog} --help` lists the flags") from None


_FRAME = "│╭╮╰╯─-"  # tyro's box: borders, and the rules between its sections


def usage_error(box: str) -> str:
    """tyro's error box as one line: its message, and the flag it suggests ("Perhaps you meant: --x")."""
    sections: list[list[str]] = [[]]
    for raw in box.splitlines():
        line = raw.strip().strip("│╭╮╰╯").strip()
        text = line.strip(_FRAME + " ")
        if text and line[0] == "─":  # a title drawn on the box's top border: a section of its own
            sections += [[text], []]
        elif text:
            sections[-1].append(line)
        elif sections[-1]:
            sections.append([])
    body = [s for s in sections if s]
    message = " ".join(body[1] if len(body) > 1 else body[0] if body else ["bad command line"]).rstrip(".")
    for section in body[2:]:
        if section[0].startswith("Perhaps you meant"):
            guesses = [w for line in section[1:] for w in line.split() if w.startswith("--")]
            if guesses:
                message += f" (did you mean {guesses[0]}?)"
    return message


class _Parsed(Exception):
    """Carries a parsed call out of tyro, so that the command runs after the parse, not inside it."""


def _deferred(function: Callable[..., object]) -> Callable[..., object]:
    @functools.wraps(function)
    def parsed(*args: object, **kwargs: object) -> object:
        raise _Parsed(function, args, kwargs)

    return parsed


def call_with_flags(
    target: Callable[..., object] | Mapping[str, Callable[..., object]], argv: Sequence[str], prog: str
) -> object:
    """Parse ``argv`` into the arguments of ``target`` (a function, or subcommands by name) with tyro, usage errors
    as :class:`BadInput` (:func:`parse_flags`), then call it and return what it returns."""
    import tyro

    def parse() -> object:
        if isinstance(target, Mapping):
            commands = {name: _deferred(function) for name, function in target.items()}
            return tyro.extras.subcommand_cli_from_dict(commands, args=list(argv), prog=prog)
        return tyro.cli(_deferred(target), args=list(argv), prog=prog)

    try:
        return parse_flags(parse, prog)
    except _Parsed as parsed:
        function, args, kwargs = parsed.args
        return function(*args, **kwargs)
