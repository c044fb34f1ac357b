"""Summarize a multi-model evaluation (run_multi_model_eval.sh) in GymVerse's tables.

    python Evaluation/aggregate_results.py --results-dir results --output-dir results

Writes summary_report.json (per checkpoint: each category's games, mean success and return, episodes, and
the mean over categories) and summary_report.csv (one row per checkpoint and category, then OVERALL), and
prints the table.
"""

import sys
from pathlib import Path

from gymverse.entry import call_with_flags, run_command
from gymverse.errors import BadInput
from gymverse.evaluation.aggregate import find_results, summary_report, summary_table, unfinished_sweeps, write_summary
from gymverse.evaluation.commands import console, exits_on_bad_input


@exits_on_bad_input
def main(results_dir: Path = Path("results"), output_dir: Path = Path("results")) -> None:
    """Aggregate the sweeps under RESULTS_DIR (checkpoint folders, or one checkpoint's folder) into OUTPUT_DIR.

    Args:
        results_dir: What run_multi_model_eval.sh wrote (its RESULTS_BASE_DIR), or one checkpoint's folder in it.
        output_dir: Folder for summary_report.json and summary_report.csv.
    """
    if not results_dir.is_dir():
        raise BadInput(f"--results-dir {results_dir}: no such folder")
    results = find_results(results_dir)
    for sweep in unfinished_sweeps(results_dir):
        console.print(
            f"unfinished, left out: {sweep} (run the evaluation again with RESUME_TIMESTAMP set to "
            "its folder's timestamp to finish it)",
            markup=False,
        )
    if not results:
        raise BadInput(f"--results-dir {results_dir}: no finished evaluation (summary.json) in it")
    report = summary_report(results)
    paths = write_summary(report, output_dir)
    console.print(summary_table(report), markup=False)
    console.print(f"reports: {paths['json']}, {paths['csv']}", markup=False)


if __name__ == "__main__":
    sys.exit(run_command(lambda: call_with_flags(main, sys.argv[1:], "Evaluation/aggregate_results.py")))
