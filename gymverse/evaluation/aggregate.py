"""GymVerse's summary tables of a multi-model evaluation (``Evaluation/aggregate_results.py``).

A results folder holds one folder per checkpoint (``<name>_<timestamp>``), each with one folder per category,
each a sweep (``summary.json``) or one sweep per GPU (``gpu_<id>/summary.json``); a single checkpoint's folder
may be given instead. Per checkpoint and category: the number of games, their mean success rate (each game's
success over all its levels and attempts), mean return and the episodes played; per checkpoint, the mean over
its categories. Written as ``summary_report.json`` and ``summary_report.csv``, as GymVerse names them.
"""

import json
import math
from pathlib import Path
from typing import Callable, TypeVar

from gymverse.evaluation.tables import markdown_table, write_csv

T = TypeVar("T")

OVERALL = "OVERALL"
CSV_FIELDS = ("model", "category", "num_envs", "avg_success_rate", "avg_reward", "total_episodes")


def category_sweeps(folder: Path) -> list[Path]:
    """The sweep folders of a category folder: itself, or its ``gpu_<id>`` folders."""
    if (folder / "summary.json").is_file():
        return [folder]
    return sorted(path.parent for path in folder.glob("gpu_*/summary.json"))


def unfinished_sweeps(folder: Path) -> list[Path]:
    """Sweep folders under ``folder`` that hold records but no summary yet (interrupted runs)."""
    return sorted(p.parent for p in folder.rglob("records.jsonl") if not (p.parent / "summary.json").is_file())


def _by_subfolder(folder: Path, read: Callable[[Path], T]) -> dict[str, T]:
    """``{name: read(subfolder)}`` for the subfolders of ``folder`` where ``read`` finds something."""
    return {sub.name: found for sub in sorted(p for p in folder.iterdir() if p.is_dir()) if (found := read(sub))}


def model_categories(folder: Path) -> dict[str, list[Path]]:
    """``{category: sweep folders}`` of one checkpoint's results folder (``{}`` if it holds none)."""
    return _by_subfolder(folder, category_sweeps)


def find_results(results_dir: Path) -> dict[str, dict[str, list[Path]]]:
    """``{checkpoint folder name: {category: sweep folders}}`` under ``results_dir`` (or for it, if it is one)."""
    own = model_categories(results_dir)
    if own:
        return {results_dir.name: own}
    return _by_subfolder(results_dir, model_categories)


def category_summary(sweeps: list[Path]) -> dict:
    """A category's numbers from its sweeps' ``summary.json`` files, with one row per game in ``env_details``."""
    envs = {}
    for sweep in sweeps:
        envs.update(json.loads((sweep / "summary.json").read_text())["envs"])
    details = [
        {
            "env_id": env_id,
            "domain": env["domain"],
            "success_rate": env["success_rate"],
            "avg_reward": env["mean_return"],
            "total_episodes": env["attempts"],
            **{key: value for key, value in env.items() if key.startswith("pass@")},
        }
        for env_id, env in sorted(envs.items())
    ]
    if not details:
        return {"num_envs": 0, "avg_success_rate": None, "avg_reward": None, "total_episodes": 0, "env_details": []}
    return {
        "num_envs": len(details),
        "avg_success_rate": sum(d["success_rate"] for d in details) / len(details),
        "avg_reward": sum(d["avg_reward"] for d in details) / len(details),
        "total_episodes": sum(d["total_episodes"] for d in details),
        "env_details": details,
    }


def summary_report(results: dict[str, dict[str, list[Path]]]) -> dict:
    """``{model: {"categories": {category: numbers}, "overall": {num_categories, avg_success_rate_across_categories}}}``."""
    report = {}
    for model, categories in results.items():
        numbers = {category: category_summary(sweeps) for category, sweeps in categories.items()}
        rates = [n["avg_success_rate"] for n in numbers.values() if n["avg_success_rate"] is not None]
        report[model] = {
            "categories": numbers,
            "overall": {
                "num_categories": len(rates),
                "avg_success_rate_across_categories": sum(rates) / len(rates) if rates else None,
            },
        }
    return report


def csv_rows(report: dict) -> list[dict]:
    """One row per checkpoint and category, then the checkpoint's OVERALL row (its categories' mean)."""
    rows = []
    for model, data in report.items():
        for category, numbers in data["categories"].items():
            rows.append({"model": model, "category": category, **{k: numbers[k] for k in CSV_FIELDS[2:]}})
        overall = data["overall"]
        rows.append(
            {
                "model": model,
                "category": OVERALL,
                "num_envs": overall["num_categories"],
                "avg_success_rate": overall["avg_success_rate_across_categories"],
                "avg_reward": None,
                "total_episodes": None,
            }
        )
    return rows


def write_summary(report: dict, output_dir: Path) -> dict[str, Path]:
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": output_dir / "summary_report.json", "csv": output_dir / "summary_report.csv"}
    paths["json"].write_text(json.dumps(report, indent=2))
    write_csv(paths["csv"], csv_rows(report))
    return paths


def summary_table(report: dict) -> str:
    """The CSV's rows as a Markdown table ("-" where a value does not apply)."""
    return markdown_table(
        CSV_FIELDS, [[math.nan if row[f] is None else row[f] for f in CSV_FIELDS] for row in csv_rows(report)]
    )
