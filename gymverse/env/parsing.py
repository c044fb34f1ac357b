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
    for last in box_spans(text):
        pass
    if last is None or last[1] is None:
        return None
    return text[last[0] : last[1]].strip()


def command_cache(parse: Callable[..., T]) -> Callable[..., T]:
    """Cache ``parse(command, *args)``: agents send the same few commands over and over.

    Only short commands are kept (a flood of long, distinct replies must not grow memory), and a command
    that raises :class:`InvalidAction` is parsed again each time, so its message never goes stale.
    """
    cached = functools.lru_cache(maxsize=4096)(parse)

    @functools.wraps(parse)
    def parse_command(command: str, *args: Any) -> T:
        return cached(command, *args) if len(command) <= 64 else parse(command, *args)

    return parse_command


@command_cache
def split_command(command: str) -> tuple[str, tuple[str, ...]]:
    """``"Move 3 4"`` -> ``("move", ("3", "4"))``; commas count as spaces."""
    verb, *args = command.replace(",", " ").split() or [""]
    return verb.lower(), tuple(args)


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
