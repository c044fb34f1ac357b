"""Lists of env ids as the command lines take them: ``"a|b|c"``."""

from typing import Sequence


def split_env_ids(spec: str | Sequence[str]) -> list[str]:
    """``"a|b|c"`` -> ``["a", "b", "c"]`` (a list is returned as it is), without blanks or repeats."""
    ids = spec.split("|") if isinstance(spec, str) else list(spec)
    return list(dict.fromkeys(i.strip() for i in ids if i.strip()))
