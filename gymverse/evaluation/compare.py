"""Several sweeps (models or checkpoints) side by side: one table and two figures."""

import json
import math
from pathlib import Path

from gymverse.errors import BadInput
from gymverse.evaluation.plots import plot_lines, plot_success_grid
from gymverse.evaluation.report import domain_curves
from gymverse.evaluation.tables import markdown_table, write_csv


def load_summaries(runs: dict[str, Path]) -> dict[str, dict]:
    summaries = {}
    for name, folder in runs.items():
        path = Path(folder) / "summary.json"
        if not path.is_file():
            raise BadInput(f"{folder} has no summary.json: run `gymverse eval` into it first")
        summaries[name] = json.loads(path.read_text())
    return summaries


def comparison_rows(summaries: dict[str, dict]) -> list[dict]:
    rows = []
    for name, summary in summaries.items():
        row = {"model": name, "policy": summary["config"]["policy"]}
        row.update({k: v for k, v in summary["overall"].items() if k not in ("attempts", "instances")})
        row.update({f"success[{domain}]": s["success_rate"] for domain, s in summary["domains"].items()})
        rows.append(row)
    return rows


def compare_runs(runs: dict[str, Path], output: Path) -> dict[str, Path]:
    """Write ``comparison.csv``, ``comparison.md`` and figures for the sweeps in ``runs`` (name -> folder)."""
    summaries = load_summaries(runs)
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    rows = comparison_rows(summaries)
    per_env: dict[str, dict[str, dict[int, float]]] = {}
    for name, summary in summaries.items():
        for env_id, env in summary["envs"].items():
            per_env.setdefault(env_id, {})[name] = {int(lv): s["success_rate"] for lv, s in env["levels"].items()}
    paths = {
        "csv": write_csv(output / "comparison.csv", rows),
        "overall": plot_lines(
            {name: domain_curves(s)["overall"] for name, s in summaries.items()},
            output / "models_success_vs_complexity.png",
            "Models compared: success against complexity",
        ),
        "per_env": plot_success_grid(per_env, output / "models_per_env.png", "Models compared, per environment"),
    }
    columns = list(dict.fromkeys(k for row in rows for k in row if k not in ("model", "policy")))
    paths["markdown"] = output / "comparison.md"
    paths["markdown"].write_text(
        "\n".join(
            [
                "# Models compared",
                "",
                markdown_table(
                    ["model", *columns], [[r["model"], *(r.get(c, math.nan) for c in columns)] for r in rows]
                ),
                "",
                "![overall](models_success_vs_complexity.png)",
                "",
                "![per env](models_per_env.png)",
                "",
            ]
        )
    )
    return paths
