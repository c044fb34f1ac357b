"""How the environment policy is asked to rewrite a task, and how its reply is read back.

The default follows GenEnv's released behaviour: the model sees a task and its answer and writes
``New Task: ...`` then ``New Answer: ...``. Both halves are replaceable: ``--task_template FILE`` (a text
with ``{task}`` and ``{answer}``) and ``--task_parser module:function`` (text -> ``(task, answer)`` or None).
"""

import importlib
import re
from collections.abc import Callable
from pathlib import Path

from gymverse.errors import BadInput

DEFAULT_TASK_TEMPLATE = (
    "Here is a task with its answer.\n"
    "Task: {task}\n"
    "Answer: {answer}\n"
    "Write one new task of the same kind, a little different, and its answer, in this form:\n"
    "New Task: <the new task>\n"
    "New Answer: <its answer>"
)

_NEW_TASK = re.compile(r"New Task:\s*(.*?)\s*New Answer:\s*(.*)", re.DOTALL | re.IGNORECASE)

Parser = Callable[[str], "tuple[str, str] | None"]


def parse_new_task(text: str) -> tuple[str, str] | None:
    """``(task, answer)`` from the last ``New Task: ... New Answer: ...`` of ``text``; None if absent or empty."""
    start = text.lower().rfind("new task:")
    if start < 0:
        return None
    match = _NEW_TASK.match(text, start)
    if not match:
        return None
    task, answer = match.group(1).strip(), match.group(2).strip()
    return (task, answer) if task and answer else None


def load_task_template(path: str | None) -> str:
    """The template in file ``path`` (None: the default); it must hold ``{task}`` and ``{answer}``."""
    if path is None:
        return DEFAULT_TASK_TEMPLATE
    file = Path(path)
    if not file.is_file():
        raise BadInput(f"--task_template {path}: no such file")
    template = file.read_text()
    try:
        template.format(task="", answer="")
    except (KeyError, IndexError, ValueError) as error:
        raise BadInput(
            f"--task_template {path}: only {{task}} and {{answer}} may appear in braces ({error!r}); "
            "write literal braces as {{ and }}"
        ) from None
    if "{task}" not in template:
        raise BadInput(f"--task_template {path}: the template must contain {{task}}")
    return template


def load_task_parser(spec: str | None) -> Parser:
    """The parser ``module:function`` names (None: :func:`parse_new_task`)."""
    if spec is None:
        return parse_new_task
    module_name, _, name = spec.partition(":")
    try:
        parser = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as error:
        raise BadInput(f"--task_parser {spec!r}: cannot load it, write module:function ({error})") from None
    if not callable(parser):
        raise BadInput(f"--task_parser {spec!r} is not a function")
    return parser
