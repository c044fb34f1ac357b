"""GenEnv's dataset task space: parquet files read and written the way GenEnv (veRL) reads them.

A row holds ``prompt`` (a string, or chat messages ``[{"role", "content"}]``) and
``reward_model: {"ground_truth": ...}``; every other column (``data_source``, ``extra_info``, ...) is kept
as it is. A generated task is a copy of the row it was made from with a new prompt (in the same form: the
last user message replaced when the prompt is chat messages) and a new ground truth, written with the
input file's schema, so the augmented file reads wherever the original did.
"""

import copy
import json
import os
from pathlib import Path
from typing import Any

from gymverse.errors import BadInput

REQUIRED_COLUMNS = ("prompt", "reward_model")


class TaskTable:
    """The rows of one parquet file and its schema."""

    def __init__(self, rows: list[dict[str, Any]], schema: Any, source: str) -> None:
        self.rows, self.schema, self.source = rows, schema, source

    def __len__(self) -> int:
        return len(self.rows)


def read_tasks(path: str | Path, flag: str = "data.train_files") -> TaskTable:
    """The tasks of a GenEnv parquet file; a missing file, column or ground truth is a :class:`BadInput`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{flag}={path}: no such file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        raise BadInput(f"{flag}={path}: not a readable parquet file ({error})") from None
    missing = [column for column in REQUIRED_COLUMNS if column not in table.column_names]
    if missing:
        raise BadInput(
            f"{flag}={path}: missing column(s) {', '.join(missing)}; GenEnv's format needs "
            f"`prompt` (text or chat messages) and `reward_model` ({{'ground_truth': ...}})"
        )
    if table.num_rows == 0:
        raise BadInput(f"{flag}={path}: the dataset is empty")
    rows = table.to_pylist()
    for index, row in enumerate(rows):
        problem = _row_problem(row)
        if problem:
            raise BadInput(f"{flag}={path}: row {index}: {problem}")
    return TaskTable(rows, table.schema, str(path))


def _row_problem(row: dict[str, Any]) -> str | None:
    reward_model = row["reward_model"]
    if not isinstance(reward_model, dict) or "ground_truth" not in reward_model:
        return "reward_model has no ground_truth"
    if _empty(reward_model["ground_truth"]):
        return "reward_model.ground_truth is empty (an empty reply would match it)"
    if task_text(row["prompt"]) is None:
        return "prompt is neither text nor chat messages with a user message"
    return None


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (list, tuple, dict)):
        return not value or all(_empty(v) for v in (value.values() if isinstance(value, dict) else value))
    return False


def task_text(prompt: Any) -> str | None:
    """The task a prompt asks: the text itself, or the content of its last user message."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, tuple)):
        for message in reversed(prompt):
            if isinstance(message, dict) and message.get("role") == "user" and isinstance(message.get("content"), str):
                return message["content"]
    return None


def full_prompt_text(prompt: Any) -> str:
    """Every message of a prompt as one text (where tools listed in a system message are found)."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(str(message.get("content", "")) for message in prompt if isinstance(message, dict))


def ground_truth(row: dict[str, Any]) -> Any:
    return row["reward_model"]["ground_truth"]


def agent_prompt(prompt: Any, tokenizer: Any, template: str = "chat") -> str:
    """The text the agent continues: chat messages through the tokenizer's chat template, text through ``template``."""
    from gymverse.prompts import apply_template

    if isinstance(prompt, str):
        return apply_template(template, prompt, tokenizer)
    if tokenizer is None or not getattr(tokenizer, "chat_template", None):
        raise BadInput("chat-message prompts need an agent whose tokenizer has a chat template")
    return tokenizer.apply_chat_template(list(prompt), tokenize=False, add_generation_prompt=True)


def derived_row(
    parent: dict[str, Any], task: str, answer: str, schema: Any
) -> tuple[dict[str, Any] | None, str | None]:
    """A copy of ``parent`` asking ``task`` with ground truth ``answer``: ``(row, None)`` or ``(None, reason)``.

    The answer takes the type of the dataset's ground truth column (text as it is, anything else read as
    JSON); an answer that does not fit the schema is refused with the reason.
    """
    import pyarrow as pa

    row = copy.deepcopy(parent)
    if isinstance(row["prompt"], str):
        row["prompt"] = task
    else:
        messages = list(row["prompt"])
        last_user = max(i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user")
        messages[last_user] = {**messages[last_user], "content": task}
        row["prompt"] = messages
    truth_type = schema.field("reward_model").type.field("ground_truth").type
    if pa.types.is_string(truth_type) or pa.types.is_large_string(truth_type):
        value: Any = answer
    else:
        try:
            value = json.loads(answer)
        except json.JSONDecodeError:
            return None, f"the answer {answer[:60]!r} is not a {truth_type} value like the dataset's ground truths"
    row["reward_model"] = {**row["reward_model"], "ground_truth": value}
    try:
        pa.Table.from_pylist([row], schema=schema)
    except (pa.ArrowException, TypeError, ValueError) as error:
        return None, f"the new row does not fit the dataset's schema ({error})"
    return row, None


def write_tasks(path: str | Path, rows: list[dict[str, Any]], schema: Any) -> Path:
    """Write ``rows`` as parquet with ``schema`` (atomically: a reader never sees half a file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".parquet.partial")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), partial)
    os.replace(partial, path)
    return path


class PromptLimit:
    """veRL's limit on an agent prompt: ``max_length`` tokens (``data.max_prompt_length``), counted with the chat
    template. :meth:`fit` cuts a longer one as ``truncation`` says: ``left`` keeps its last tokens, ``right`` its
    first; ``error`` leaves it (the dataset refuses such rows when it is read)."""

    def __init__(self, tokenizer: Any, max_length: int, truncation: str = "error") -> None:
        self.tokenizer, self.max_length, self.truncation = tokenizer, max_length, truncation

    def length(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def fit(self, text: str) -> str:
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        if len(ids) <= self.max_length or self.truncation == "error":
            return text
        kept = ids[-self.max_length :] if self.truncation == "left" else ids[: self.max_length]
        return self.tokenizer.decode(kept)
