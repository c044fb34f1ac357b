"""Where a reply is finished: the end of its first complete ``\\boxed{...}`` command.

Game commands are the content of a ``\\boxed{...}``, so a reply can stop as soon as one box with a
command closes; small models otherwise keep writing until the length limit.
"""

from gymverse.env.parsing import box_spans


def first_box_end(text: str) -> int | None:
    """Index just past the closing brace of the first complete, non-empty top-level box, or None.

    Braces nest as in :func:`gymverse.env.parsing.extract_boxed`. An empty box (``\\boxed{}``, as
    when a model repeats the instructions) does not count as a command.
    """
    if "\\boxed{" not in text:
        return None
    for start, end in box_spans(text):
        if end is None:
            return None
        if text[start:end].strip():
            return end + 1
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
