"""Where a reply is finished: the end of its first complete ``\\boxed{...}`` command.

Game commands are the content of a ``\\boxed{...}``, so a reply can stop as soon as one box with a
command closes; small models otherwise keep writing until the length limit.
"""

import re

_BOX_OPEN = "\\boxed{"
_TOKENS = re.compile(r"\\boxed\{|[{}]")


def first_box_end(text: str) -> int | None:
    """Index just past the closing brace of the first complete, non-empty top-level box, or None.

    Braces nest like in :func:`gymverse.env.parsing.extract_boxed`. An empty box (``\\boxed{}``, as
    when a model repeats the instructions) does not count as a command.
    """
    if _BOX_OPEN not in text:
        return None
    start = None
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if start is None:
            if token == _BOX_OPEN:
                start, depth = match.end(), 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                if text[start : match.start()].strip():
                    return match.end()
                start = None
        else:
            depth += 1
    return None


def cut_after_box(text: str) -> str:
    """``text`` up to the end of its first complete box (all of it when it has none)."""
    end = first_box_end(text)
    return text if end is None else text[:end]


def closing_token_ids(tokenizer) -> frozenset[int]:
    """Ids of the tokens that contain a closing brace: only they can complete a box."""
    tokens = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    return frozenset(i for i, token in enumerate(tokens) if token and "}" in token)


def tokens_through_box(tokenizer, response_ids: list[int], closing_ids: frozenset[int]) -> int | None:
    """How many of ``response_ids`` it takes to complete the first box, or None if they never do."""
    for count, token in enumerate(response_ids, start=1):
        if token in closing_ids and first_box_end(tokenizer.decode(response_ids[:count])) is not None:
            return count
    return None
