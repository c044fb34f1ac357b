"""Several seeds of one run: the closing tables of each (``results.json``) as mean and spread per cell.

Each seed's curriculum may stop at another level, so the cells are matched by what they measure, not by level:
each game at its start level and at the level its curriculum reached (``start`` and ``end``); the levels
themselves are listed per seed. The spread is the sample standard deviation over the seeds.
"""

import statistics
from collections.abc import Sequence
from typing import Any

from gymverse.run.before_after import MODES

ROLES = ("start", "end")
CELLS = tuple(f"{mode}_{when}" for mode in MODES for when in ("before", "after"))


def row_at(rows: Sequence[dict[str, Any]], env_id: str, role: str) -> dict[str, Any]:
    """The row of ``env_id`` at its curriculum's ``start`` or ``end`` level."""
    for row in rows:
        if row["env_id"] == env_id and row["level"] == row[f"curriculum_{role}"]:
            return row
    raise KeyError(f"no row of {env_id} at its {role} level")


def mean_spread(values: Sequence[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def aggregate(runs: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per game and role (``start``, ``end``) over the seeds' rows ``runs``: each cell's and each gain's
    mean and spread, the levels per seed and the episodes per cell."""
    env_ids = list(dict.fromkeys(row["env_id"] for row in runs[0]))
    out = []
    for env_id in env_ids:
        for role in ROLES:
            picked = [row_at(rows, env_id, role) for rows in runs]
            row: dict[str, Any] = {
                "env_id": env_id,
                "role": role,
                "levels": [r["level"] for r in picked],
                "episodes": picked[0]["episodes"],
                "seeds": len(picked),
            }
            for cell in CELLS:
                row[cell] = mean_spread([r[cell] for r in picked])
            for mode in MODES:
                row[f"{mode}_gain"] = mean_spread([r[f"{mode}_after"] - r[f"{mode}_before"] for r in picked])
            out.append(row)
    return out


def print_aggregate(rows: Sequence[dict[str, Any]]) -> None:
    from rich.table import Table

    from gymverse.console import console

    if not rows:
        return
    title = f"Success before and after PERPO over {rows[0]['seeds']} seeds: mean ± spread ({rows[0]['episodes']} episodes per cell and seed)"
    table = Table(title=title)
    for column in ("game", "level", "sampled before", "after", "gain", "greedy before", "after", "gain"):
        table.add_column(column)
    for row in rows:
        cells = []
        for mode in MODES:
            for key in (f"{mode}_before", f"{mode}_after", f"{mode}_gain"):
                mean, spread = row[key]
                cells.append(f"{mean:+.2f} ± {spread:.2f}" if key.endswith("gain") else f"{mean:.2f} ± {spread:.2f}")
        levels = ", ".join(map(str, row["levels"]))
        table.add_row(row["env_id"].split(":")[-1], f"{row['role']}: {levels}", *cells)
    console.print(table)
