"""What a run folder's logs show: training curves (success and complexity of each environment over
steps) and the table of evaluation success before and after training."""

from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from gymverse.run.files import RunFiles


def _smooth(values: Sequence[float], window: int) -> list[float]:
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (no display needed), imported only when a figure is drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str | Path, dpi: int = 110, tight_bbox: bool = False) -> Path:
    """Write ``fig`` to ``path`` (making its folder), close it, and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight" if tight_bbox else None)
    pyplot().close(fig)
    return path


def plot_training_curves(run_dir: str | Path, path: str | Path | None = None, window: int = 5) -> Path | None:
    """Plot ``actor_env_metrics.jsonl`` (and evaluation accuracy, if any) to a PNG; None when nothing is logged."""
    plt = pyplot()

    files = RunFiles(run_dir)
    records = files.read("actor_env_metrics.jsonl")
    if not records:
        return None
    by_env: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_env[record["env_id"]].append(record)
    evals = defaultdict(list)
    for record in files.read("eval_env_metrics.jsonl"):
        evals[(record["env_id"], record["complexity"])].append(record)

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (env_id, rows) in enumerate(sorted(by_env.items())):
        color = colors[k % len(colors)]
        name = env_id.split(":")[-1]
        steps = [r["step"] for r in rows]
        top.plot(
            steps,
            _smooth([r["mean_episode_success"] for r in rows], window),
            color=color,
            label=f"{name} (training, mean of {window} steps)",
        )
        bottom.step(steps, [r["complexity"] for r in rows], where="post", color=color, label=name)
        for (eval_env, level), points in sorted(evals.items()):
            if eval_env == env_id:
                top.plot(
                    [p["step"] for p in points],
                    [p["accuracy"] for p in points],
                    "o--",
                    color=color,
                    alpha=0.6,
                    markersize=4,
                    label=f"{name} (eval, complexity {level})",
                )
    top.set_ylabel("episode success")
    top.set_ylim(-0.03, 1.03)
    top.legend(fontsize=7, loc="lower right")
    top.grid(alpha=0.3)
    bottom.set_ylabel("complexity")
    bottom.set_xlabel("training step")
    bottom.yaxis.get_major_locator().set_params(integer=True)
    bottom.legend(fontsize=7, loc="upper left")
    bottom.grid(alpha=0.3)
    fig.suptitle("PERPO: success and curriculum complexity per environment")
    fig.tight_layout()
    return save_figure(fig, path or Path(run_dir) / "figures" / "training_curves.png", dpi=120)


def print_summary(files: RunFiles, env_ids: list[str]) -> None:
    """A table of evaluation success before and after training, and each environment's complexity."""
    from rich.table import Table

    from gymverse.console import console

    evals = files.read("eval_env_metrics.jsonl")
    metrics = files.read("actor_env_metrics.jsonl")
    if not evals:
        return
    first, last = min(r["step"] for r in evals), max(r["step"] for r in evals)
    table = Table(title=f"Evaluation success before (step {first}) and after (step {last}) training")
    for column in ("environment", "complexity", "before", "after", "curriculum (start -> end)"):
        table.add_column(column)
    for env_id in sorted({r["env_id"] for r in evals}):
        rows = [r for r in metrics if r["env_id"] == env_id]
        course = f"{rows[0]['complexity']} -> {rows[-1]['next_complexity']}" if rows else "-"
        for level in sorted({r["complexity"] for r in evals if r["env_id"] == env_id}):
            at = {r["step"]: r["accuracy"] for r in evals if r["env_id"] == env_id and r["complexity"] == level}
            table.add_row(env_id, str(level), f"{at.get(first, 0):.2f}", f"{at.get(last, 0):.2f}", course)
    console.print(table)
