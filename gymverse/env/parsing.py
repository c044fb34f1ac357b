"""Turning an agent's free-text reply into a game command."""

import functools
import re
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")


class InvalidAction(Exception):
    """A command the game cannot apply; its message is shown to the agent."""


_BOX_OPEN = "\\boxed{"
_TOKENS = re.compile(r"\\boxed\{|[{}]")
_FLAT_BOX = re.compile(r"\\boxed\{([^{}]*)\}")


def box_spans(text: str) -> Iterator[tuple[int, int | None]]:
    """``(start, end)`` of the content of each top-level ``\\boxed{...}`` in ``text``, in order.

    Braces nest. A box still open at the end of the text comes last, with ``end=None``.
    """
    start = None  # index just after the opening brace of the box being read
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if start is None:
            if token == _BOX_OPEN:
                start, depth = match.end(), 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                yield start, match.start()
                start = None
        else:  # "{" or a nested "\boxed{" inside the open box
            depth += 1
    if start is not None:
        yield start, None


def extract_boxed(text: Any) -> str | None:
    """Content of the last complete top-level ``\\boxed{...}`` in ``text``, stripped.

    Braces nest, so ``\\boxed{set {a, b}}`` gives ``set {a, b}``. A box that is never closed
    after the last complete one makes the reply ambiguous and gives ``None``, as does
    a reply that is not a string or holds no box. Runs in one linear scan.
    """
    if not isinstance(text, str):
        return None
    flat = _FLAT_BOX.fullmatch(text)  # the common case first: the reply is one box and no other brace
    if flat:
        return flat.group(1).strip()
    if _BOX_OPEN not in text:
        return None
    last = None
    for last in box_spans(text):  # noqa: B007 (the loop keeps the last span)
        pass
    if last is None or last[1] is None:
        return None
    return text[last[0] : last[1]].strip()


class CommandTable(dict[str, T]):
    """Parsed commands by spelling: ``table[command]`` is ``parse(command, *args)``, kept after the first time.

    Agents send the same few commands over and over, so a game reads its commands through one of these:
    a repeat costs one dict lookup. Only short commands are kept, and the table starts afresh when full (a
    flood of distinct replies cannot grow memory); a command that raises :class:`InvalidAction` is parsed
    again each time, so its message never goes stale.
    """

    __slots__ = ("parse", "args")
    KEPT_LENGTH, SIZE = 64, 4096

    def __init__(self, parse: Callable[..., T], *args: Any) -> None:
        super().__init__()
        self.parse, self.args = parse, args

    def __missing__(self, command: str) -> T:
        parsed = self.parse(command, *self.args)
        if len(command) <= self.KEPT_LENGTH:
            if len(self) >= self.SIZE:
                self.clear()
            self[command] = parsed
        return parsed


@functools.lru_cache(maxsize=256)
def command_table(parse: Callable[..., T], *args: Any) -> CommandTable:
    """The :class:`CommandTable` of ``parse`` for these ``args`` (a board size, a count), shared by every
    episode that has them; call it in ``_new_episode``, read ``table[command]`` in ``_play``."""
    return CommandTable(parse, *args)


def _split(command: str) -> tuple[str, tuple[str, ...]]:
    verb, *args = command.replace(",", " ").split() or [""]
    return verb.lower(), tuple(args)


# "Move 3 4" -> ("move", ("3", "4")); commas count as spaces. A table's lookup itself, with no call around it.
split_command: Callable[[str], tuple[str, tuple[str, ...]]] = CommandTable(_split).__getitem__


def expect_command(command: str, verbs: tuple[str, ...], arity: int, usage: str) -> tuple[str, tuple[str, ...]]:
    """``command`` split as :func:`split_command` does when its verb is one of ``verbs`` and it has ``arity``
    arguments, else :class:`InvalidAction` with ``usage`` (how to write it)."""
    verb, args = split_command(command)
    if verb not in verbs or len(args) != arity:
        raise InvalidAction(usage)
    return verb, args


def parse_int(text: str, low: int, high: int, what: str = "number") -> int:
    """``text`` as an integer in ``[low, high]``, or :class:`InvalidAction` saying what was expected."""
    try:
        value = int(text)
    except ValueError:
        raise InvalidAction(f"{what} must be an integer, got {text[:40]!r}") from None
    if not low <= value <= high:
        raise InvalidAction(f"{what} must be between {low} and {high}, got {value}")
    return value


def parse_index(text: str, size: int, what: str = "index") -> int:
    """``text`` as a 0-based index into a sequence of ``size`` items."""
    return parse_int(text, 0, size - 1, what)
