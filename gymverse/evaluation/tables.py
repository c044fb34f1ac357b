"""Rows of results as Markdown and CSV tables, and JSON that survives NaN and numpy values."""

import csv
import json
import math
from pathlib import Path
from typing import Any, Sequence


def cell(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.3f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_csv(path: Path, rows: Sequence[dict]) -> Path:
    """Rows of dicts; the columns are every key, in first-seen order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)


def plain(value: Any) -> Any:
    """``value`` with numpy scalars/arrays as Python values and NaN as None, ready for ``json``."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def write_json(path: Path, data: Any) -> Path:
    Path(path).write_text(json.dumps(plain(data), indent=2) + "\n")
    return Path(path)
