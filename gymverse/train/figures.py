"""Training curves from a run folder's logs: success and complexity of each environment over steps."""

from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from gymverse.train.run_files import RunFiles


def _smooth(values: Sequence[float], window: int) -> list[float]:
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def plot_training_curves(run_dir: str | Path, path: str | Path | None = None, window: int = 5) -> Path | None:
    """Plot ``actor_env_metrics.jsonl`` (and evaluation accuracy, if any) to a PNG; None when nothing is logged."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
        top.plot(steps, _smooth([r["mean_episode_success"] for r in rows], window), color=color,
                 label=f"{name} (training, mean of {window} steps)")
        bottom.step(steps, [r["complexity"] for r in rows], where="post", color=color, label=name)
        for (eval_env, level), points in sorted(evals.items()):
            if eval_env == env_id:
                top.plot([p["step"] for p in points], [p["accuracy"] for p in points], "o--", color=color,
                         alpha=0.6, markersize=4, label=f"{name} (eval, complexity {level})")
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
    path = Path(path) if path is not None else Path(run_dir) / "figures" / "training_curves.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
