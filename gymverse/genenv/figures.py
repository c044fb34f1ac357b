"""``figures/genenv_curves.png``: what the environment policy earned and what the agent did, step by step."""

from collections import defaultdict
from pathlib import Path

from gymverse.run.figures import pyplot, save_figure
from gymverse.run.files import RunFiles


def plot_genenv(run_dir: str | Path, path: str | Path | None = None) -> Path | None:
    """Mean R_env, the fraction of tasks at the agent's edge, validity and agent success over steps (with the
    held-out success of the online evaluation, per complexity); for games also the mean complexity generated per
    game. None when nothing is logged."""
    plt = pyplot()

    files = RunFiles(run_dir)
    records = files.read("genenv_metrics.jsonl")
    written = [r for r in records if "mean_r_env" in r]
    if not records:
        return None
    complexities: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for r in records:
        for game, levels in (r.get("complexities") or {}).items():
            complexities[game].append((r["step"], sum(levels) / len(levels)))
    panels = 3 if complexities else 2
    fig, axes = plt.subplots(panels, 1, figsize=(8, 3 * panels), sharex=True)
    top, middle = axes[0], axes[1]
    steps = [r["step"] for r in written]
    top.plot(steps, [r["mean_r_env"] for r in written], label="mean R_env (all tasks)")
    top.plot(steps, [r["band_fraction"] for r in written], label="tasks within alpha +- k_min")
    top.plot(steps, [r["valid_rate"] for r in written], label="valid tasks")
    top.set_ylabel("environment policy")
    top.legend(fontsize=7)
    top.grid(alpha=0.3)
    middle.plot(
        [r["step"] for r in records],
        [r.get("agent_success") or 0.0 for r in records],
        label="agent success on its training tasks",
    )
    middle.plot(
        steps,
        [r["mean_p"] if r["mean_p"] is not None else float("nan") for r in written],
        label="agent success p on generated tasks",
    )
    for complexity, points in sorted(held_out_success(files.read("eval_env_metrics.jsonl")).items()):
        middle.plot(
            [s for s, _ in points],
            [a for _, a in points],
            "o--",
            markersize=4,
            label=f"held-out success, complexity {complexity}",
        )
    middle.set_ylabel("agent")
    middle.set_ylim(-0.03, 1.03)
    middle.legend(fontsize=7)
    middle.grid(alpha=0.3)
    if complexities:
        for game, points in sorted(complexities.items()):
            axes[2].plot([s for s, _ in points], [c for _, c in points], label=game.split(":")[-1])
        axes[2].set_ylabel("mean complexity written")
        axes[2].legend(fontsize=7)
        axes[2].grid(alpha=0.3)
    axes[-1].set_xlabel("step")
    fig.suptitle("GenEnv co-evolution")
    fig.tight_layout()
    return save_figure(fig, path or Path(run_dir) / "figures" / "genenv_curves.png")


def held_out_success(evaluations: list[dict]) -> dict[int, list[tuple[int, float]]]:
    """Per complexity, (step, success) of the online evaluation, averaged over the environments evaluated."""
    by_point: dict[tuple[int, int], list[float]] = defaultdict(list)
    for r in evaluations:
        by_point[(r["complexity"], r["step"])].append(r["accuracy"])
    curves: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for (complexity, step), accuracies in sorted(by_point.items()):
        curves[complexity].append((step, sum(accuracies) / len(accuracies)))
    return dict(curves)
