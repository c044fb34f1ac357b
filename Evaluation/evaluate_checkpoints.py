"""Evaluate many checkpoints with the same sweep, then compare them in one table and figure.

    python Evaluation/evaluate_checkpoints.py --run-dir runs/my-run --all --levels 1 5 10 --output eval/my-run
    python Evaluation/evaluate_checkpoints.py --checkpoints Evaluation/model_ckpt.txt gymverse:PeakFinder

Each checkpoint's sweep goes to ``OUTPUT/<name>/`` and resumes if interrupted; the comparison goes to
``OUTPUT/comparison.{csv,md}`` with ``models_success_vs_complexity.png`` and ``models_per_env.png``.
"""

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

from gymverse.entry import call_with_flags, run_command
from gymverse.errors import BadInput
from gymverse.evaluation.checkpoints import checkpoint_name, find_checkpoints, read_checkpoint_list
from gymverse.evaluation.commands import console, exits_on_bad_input
from gymverse.evaluation.compare import compare_runs
from gymverse.evaluation.options import FLAT, EvalSelection, SweepOptions
from gymverse.evaluation.sweep import SweepConfig, run_sweep
from gymverse.policy import check_policy


def status_line(status, name: str):
    return lambda done, total, label: status.update(f"{name}: {label} ({done}/{total} instances)")


@exits_on_bad_input
def main(
    envs: Annotated[EvalSelection, FLAT] = EvalSelection(),  # noqa: B008 (tyro reads the default)
    checkpoints: Path | None = None,
    run_dir: Path | None = None,
    output: Path = Path("eval-checkpoints"),
    sweep: Annotated[SweepOptions, FLAT] = SweepOptions(),  # noqa: B008
) -> None:
    """Evaluate checkpoints (from a list file and/or a run folder) and compare them.

    Args:
        checkpoints: A file with one checkpoint folder (or policy spec) per line; # starts a comment.
        run_dir: A training run folder: every saved model under it, in step order.
        output: Folder for one sweep per checkpoint and the comparison.
    """
    sweep.check()
    listed = read_checkpoint_list(checkpoints) if checkpoints else []
    for spec in listed:
        check_policy(str(spec), f"--checkpoints {checkpoints}:")
    specs = listed + (find_checkpoints(run_dir) if run_dir else [])
    if not specs:
        raise BadInput("give --checkpoints FILE or --run-dir DIR")
    env_ids = envs.resolve(log=lambda line: console.print(line, markup=False))
    taken: set[str] = set()
    configs = {
        checkpoint_name(spec, taken): SweepConfig(env_ids=env_ids, policy=str(spec), **asdict(sweep)) for spec in specs
    }
    runs = {}
    for number, (name, config) in enumerate(configs.items(), 1):
        console.print(f"[bold]checkpoint {number}/{len(configs)}[/bold]: {config.policy}")
        with console.status(f"evaluating {name}") as status:
            summary = run_sweep(config, output / name, on_progress=status_line(status, name))
        console.print(f"  success {summary['overall']['success_rate']:.3f}")
        runs[name] = output / name
    paths = compare_runs(runs, output)
    console.print(f"comparison: {paths['markdown']}")


if __name__ == "__main__":
    sys.exit(run_command(lambda: call_with_flags(main, sys.argv[1:], "Evaluation/evaluate_checkpoints.py")))
