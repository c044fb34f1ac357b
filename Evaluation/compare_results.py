"""Compare finished sweeps (folders written by `gymverse eval`) in one table and figure.

python Evaluation/compare_results.py eval/base eval/step_100 eval/step_200 --output eval/comparison
"""

import sys
from pathlib import Path

import tyro

from gymverse.entry import call_with_flags, run_command
from gymverse.evaluation.checkpoints import checkpoint_name
from gymverse.evaluation.commands import console, exits_on_bad_input
from gymverse.evaluation.compare import compare_runs


@exits_on_bad_input
def main(folders: tyro.conf.Positional[list[Path]], output: Path = Path("eval-comparison")) -> None:
    """Write comparison.csv, comparison.md and figures for the sweeps in FOLDERS (named by their paths).

    Args:
        folders: Sweep output folders, each with a summary.json.
        output: Folder for the comparison.
    """
    taken: set[str] = set()
    paths = compare_runs({checkpoint_name(folder, taken): folder for folder in folders}, output)
    console.print(f"comparison: {paths['markdown']}")


if __name__ == "__main__":
    sys.exit(run_command(lambda: call_with_flags(main, sys.argv[1:], "Evaluation/compare_results.py")))
