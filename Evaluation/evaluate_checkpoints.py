"""Evaluate many checkpoints with the same sweep, then compare them in one table and figure.

    python Evaluation/evaluate_checkpoints.py --run-dir runs/my-run --all --levels 1 5 10 --output eval/my-run
    python Evaluation/evaluate_checkpoints.py --checkpoints Evaluation/model_ckpt.txt gymverse:PeakFinder

Each checkpoint's sweep goes to ``OUTPUT/<name>/`` and resumes if interrupted; the comparison goes to
``OUTPUT/comparison.{csv,md}`` with ``models_success_vs_complexity.png`` and ``models_per_env.png``.
"""

from pathlib import Path

import tyro

from gymverse.evaluation.checkpoints import checkpoint_name, find_checkpoints, read_checkpoint_list
from gymverse.evaluation.commands import console, exits_on_bad_input
from gymverse.evaluation.compare import compare_runs
from gymverse.evaluation.metrics import progressive_levels
from gymverse.evaluation.sweep import SweepConfig, run_sweep
from gymverse.errors import BadInput
from gymverse.evaluation.targets import resolve_env_ids


def status_line(status, name: str):
    return lambda done, total, label: status.update(f"{name}: {label} ({done}/{total} instances)")


@exits_on_bad_input
def main(
    ids: tyro.conf.Positional[list[str]] = [],  # noqa: B006
    all: bool = False,  # noqa: A002
    dir: Path | None = None,  # noqa: A002
    checkpoints: Path | None = None,
    run_dir: Path | None = None,
    output: Path = Path("eval-checkpoints"),
    levels: list[int] = [],  # noqa: B006
    num_levels: int = 4,
    instances: int = 8,
    attempts: int = 4,
    template: str = "qwen3_game",
    wrappers: str = "concat",
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_model_len: int | None = None,
    generate_max_length: int = 512,
    device: str = "cpu",
    seed: int = 0,
) -> None:
    """Evaluate checkpoints (from a list file and/or a run folder) and compare them.

    Args:
        ids: Env ids to evaluate.
        all: Evaluate every built-in game.
        dir: Also evaluate every env in this folder of .py files.
        checkpoints: A file with one checkpoint folder (or policy spec) per line; # starts a comment.
        run_dir: A training run folder: every saved model under it, in step order.
        output: Folder for one sweep per checkpoint and the comparison.
        levels: Complexity levels; empty: the progressive schedule of --num-levels levels.
        num_levels: With no --levels: N levels, level i at 1 + int(i / (N - 1) * 9).
        instances: Instances per env and level.
        attempts: Attempts per instance.
        template: Prompt template.
        wrappers: GEM observation wrappers, comma-separated.
        temperature: Sampling temperature.
        top_p: Nucleus sampling.
        max_model_len: Token limit of prompt + reply.
        generate_max_length: Token limit of one reply.
        device: Where the models run (cpu, cuda, cuda:1).
        seed: Seed of the instances and of sampling.
    """
    specs = (read_checkpoint_list(checkpoints) if checkpoints else []) + (find_checkpoints(run_dir) if run_dir else [])
    if not specs:
        raise BadInput("give --checkpoints FILE or --run-dir DIR")
    env_ids = resolve_env_ids(ids, all, dir)
    taken: set[str] = set()
    runs = {}
    for number, spec in enumerate(specs, 1):
        name = checkpoint_name(spec, taken)
        console.print(f"[bold]checkpoint {number}/{len(specs)}[/bold]: {spec}")
        config = SweepConfig(
            env_ids=env_ids, policy=str(spec), levels=list(levels) or progressive_levels(num_levels),
            instances=instances, attempts=attempts, template=template, wrappers=wrappers, seed=seed,
            temperature=temperature, top_p=top_p, max_model_len=max_model_len,
            generate_max_length=generate_max_length, device=device,
        )
        with console.status(f"evaluating {name}") as status:
            summary = run_sweep(config, output / name, on_progress=status_line(status, name))
        console.print(f"  success {summary['overall']['success_rate']:.3f}")
        runs[name] = output / name
    paths = compare_runs(runs, output)
    console.print(f"comparison: {paths['markdown']}")


if __name__ == "__main__":
    tyro.cli(main)
