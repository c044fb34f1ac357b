"""Stage 2's output: the Python module in a model's answer, its file name and its hash."""

import hashlib
import re

FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", flags=re.DOTALL)


def extract_code(text: str) -> str | None:
    """The longest ```python (or unlabelled) fenced block that defines a class; None if there is none."""
    blocks = [
        body
        for lang, body in FENCE.findall(text)
        if lang.lower() in ("python", "py", "python3", "") and re.search(r"^class \w", body, flags=re.M)
    ]
    return max(blocks, key=len).strip() + "\n" if blocks else None


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()
