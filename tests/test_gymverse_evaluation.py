"""GymVerse's Evaluation workflow as a drop-in: run_multi_model_eval.sh with its variables, env_categories.sh,
aggregate_results.py, on gymverse eval's sweep (CPU, scripted policies and the tiny model, small counts)."""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.errors import BadInput
from gymverse.evaluation.aggregate import find_results, summary_report
from gymverse.evaluation.metrics import progressive_levels
from gymverse.evaluation.multi_model import (
    Workflow,
    difficulty_levels,
    parse_categories,
    run_workflow,
    split_round_robin,
    sweep_flags,
)
from gymverse.evaluation.options import SweepOptions

EVALUATION = Path(__file__).resolve().parents[1] / "Evaluation"


def gymverse_schedule(n: int, start: int, end: int) -> list[int]:
    """GymVerse's own loop: difficulty i of n is complexity 1 + int(i / (n - 1) * 9), or 1 when n == 1."""
    return [1 if n == 1 else max(1, min(10, 1 + int((i / (n - 1)) * 9))) for i in range(start, end)]


@pytest.mark.parametrize("n, start, end", [(1, 0, 1), (4, 0, 4), (10, 0, 10), (10, 3, 7), (7, 6, 7), (25, 0, 25)])
def test_difficulty_indices_map_to_complexities_as_in_gymverse(n, start, end):
    assert difficulty_levels(n, start, end) == gymverse_schedule(n, start, end)
    assert difficulty_levels(n) == progressive_levels(n)


@pytest.mark.parametrize(
    "n, start, end, variable",
    [
        (0, 0, 1, "NUM_DIFFICULTIES"),
        (3, 3, None, "START_DIFFICULTY"),
        (3, 1, 1, "END_DIFFICULTY"),
        (3, 0, 4, "END_DIFFICULTY"),
    ],
)
def test_an_impossible_difficulty_range_names_the_variable(n, start, end, variable):
    with pytest.raises(BadInput, match=variable):
        difficulty_levels(n, start, end)


def test_categories_and_the_gpu_split():
    assert parse_categories(["logic=gymverse:A gymverse:B", "mine=example:*"]) == {
        "logic": ["gymverse:A", "gymverse:B"],
        "mine": ["example:*"],
    }
    with pytest.raises(BadInput, match="NAME=ID"):
        parse_categories(["logic"])
    assert split_round_robin(list("abcde"), 2) == [["a", "c", "e"], ["b", "d"]]
    flags = sweep_flags(SweepOptions(levels=[1, 5], instances=3, max_model_len=99), device="cuda")
    assert flags[:3] == ["--levels", "1", "5"] and flags[-2:] == ["--max-model-len", "99"] and "cuda" in flags


def categories(*names: str, script_dir: Path = EVALUATION) -> str:
    """What env_categories.sh gives for ``names`` (bash's status and output)."""
    lines = "; ".join(f"get_envs_for_category {name}" for name in names)
    done = subprocess.run(
        ["bash", "-c", f"source {script_dir / 'env_categories.sh'}; {lines}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHON": sys.executable},  # the interpreter that lists our games
    )
    return done.stdout + done.stderr


def test_env_categories_lists_every_built_in_game_once_in_gymverses_four_categories():
    listed = categories("tool-use", "code", "logic", "game").split()
    assert sorted(listed) == gymverse.env.registered_ids("gymverse")
    assert "unknown category 'chemistry': define CHEMISTRY_ENVS" in categories("chemistry")


def run_script(script: Path, tmp_path: Path, **settings: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, **settings}
    return subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)


@pytest.fixture
def evaluation_copy(tmp_path, gymverse_folder):
    """Evaluation/ copied, with a category of the user's own: every game of GymVerse's folder."""
    folder = tmp_path / "Evaluation"
    shutil.copytree(EVALUATION, folder, ignore=shutil.ignore_patterns("results", "__pycache__"))
    with open(folder / "env_categories.sh", "a") as out:
        out.write('\nMY_GAMES_ENVS=("example:*")\n')
    return folder


def test_the_multi_model_workflow_runs_on_a_cpu_resumes_by_timestamp_and_aggregates(
    evaluation_copy, gymverse_folder, tmp_path, tiny_dir
):
    gymverse.register_env_dir(
        gymverse_folder, trusted=True
    )  # to name its ids here; the script registers them in its own process
    (tmp_path / "model_ckpt.txt").write_text("# checkpoints\nrandom\n" + f"{tiny_dir}\n")
    results = tmp_path / "results"
    settings = dict(
        MODEL_CHECKPOINTS_FILE=str(tmp_path / "model_ckpt.txt"),
        RESULTS_BASE_DIR=str(results),
        START_DIFFICULTY="1",
        END_DIFFICULTY="3",
        NUM_DIFFICULTIES="3",
        RUNS_PER_DIFFICULTY="2",
        ATTEMPTS_PER_INSTANCE="2",
        GPUS="0,1",
        CATEGORIES="logic my-games",
        ENV_DIR=str(gymverse_folder),
        WRAPPERS="none",
        MAX_TOKENS="4",
        MAX_TURNS="4",
        TRUSTED="1",
    )
    done = run_script(evaluation_copy / "run_multi_model_eval.sh", tmp_path, **settings)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "GPUS=0,1: this machine has no GPU that torch can use" in done.stdout
    runs = {folder.name.rsplit("_", 2)[0].split("-")[0]: folder for folder in results.iterdir()}  # tiny-<hash>
    assert sorted(runs) == ["random", "tiny"]
    summary = json.loads((runs["random"] / "my-games" / "summary.json").read_text())
    assert summary["config"]["levels"] == [5, 10]  # difficulties 1 and 2 of 3
    assert sorted(summary["envs"]) == sorted(gymverse.env.registered_ids("example"))
    assert summary["envs"]["example:TruthLedger"]["domain"] == "logic"
    assert summary["overall"]["attempts"] == 8 * 2 * 2 * 2  # games x difficulties x runs x attempts
    assert summary["config"]["max_turns"] == 4 and summary["config"]["wrappers"] == ""

    # resume: a lost summary and a half-written log are finished; nothing finished is played again
    random_run = runs["random"] / "logic"
    (random_run / "summary.json").unlink()
    records = (random_run / "records.jsonl").read_text().splitlines()
    (random_run / "records.jsonl").write_text("\n".join(records[:-9]) + "\n")
    (tmp_path / "model_ckpt.txt").write_text("random\n")
    timestamp = runs["random"].name.split("_", 1)[1]
    again = run_script(evaluation_copy / "run_multi_model_eval.sh", tmp_path, **settings, RESUME_TIMESTAMP=timestamp)
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(list(results.iterdir())) == 2
    assert json.loads((random_run / "summary.json").read_text())["overall"]["attempts"] == 6 * 2 * 2 * 2

    report = results / "report"
    aggregated = subprocess.run(
        [
            sys.executable,
            str(evaluation_copy / "aggregate_results.py"),
            "--results-dir",
            str(results),
            "--output-dir",
            str(report),
        ],
        capture_output=True,
        text=True,
    )
    assert aggregated.returncode == 0, aggregated.stderr
    rows = list(csv.DictReader(open(report / "summary_report.csv")))
    per_model = [("logic", "6"), ("my-games", "8"), ("OVERALL", "2")]  # category, envs: the same for each model
    assert [(r["model"].rsplit("_", 2)[0].split("-")[0], r["category"], r["num_envs"]) for r in rows] == [
        (model, category, envs) for model in ("random", "tiny") for category, envs in per_model
    ]
    data = json.loads((report / "summary_report.json").read_text())[runs["random"].name]
    logic = data["categories"]["logic"]
    assert logic["total_episodes"] == 6 * 2 * 2 * 2 and len(logic["env_details"]) == 6
    means = [data["categories"][c]["avg_success_rate"] for c in ("logic", "my-games")]
    assert data["overall"]["avg_success_rate_across_categories"] == pytest.approx(sum(means) / 2)


def test_bad_settings_stop_the_script_with_one_line(evaluation_copy, gymverse_folder, tmp_path):
    def multi_model_eval(checkpoints="ckpt.txt", **settings):
        return run_script(
            evaluation_copy / "run_multi_model_eval.sh",
            tmp_path,
            MODEL_CHECKPOINTS_FILE=str(tmp_path / checkpoints),
            **settings,
        )

    missing = multi_model_eval("none.txt")
    assert missing.returncode == 1 and "model checkpoints file not found" in missing.stderr
    (tmp_path / "ckpt.txt").write_text("random\n")
    unknown = multi_model_eval(CATEGORIES="logic chemistry")
    assert unknown.returncode == 1 and "unknown category 'chemistry'" in unknown.stderr
    inverted = multi_model_eval(START_DIFFICULTY="2", NUM_DIFFICULTIES="4", END_DIFFICULTY="1")
    assert inverted.returncode == 2 and "END_DIFFICULTY must be in (START_DIFFICULTY=2" in inverted.stderr
    (tmp_path / "ckpt.txt").write_text("epsilon:0.5\n")
    solverless = multi_model_eval(
        CATEGORIES="my-games", ENV_DIR=str(gymverse_folder), RUNS_PER_DIFFICULTY="1", TRUSTED="1"
    )
    assert solverless.returncode == 1
    assert "the epsilon:0.5 policy plays each game's solver; example:GuildRegionsGame" in solverless.stdout
    assert "Traceback" not in inverted.stdout + inverted.stderr + solverless.stdout + solverless.stderr


def test_with_gpus_each_one_plays_every_nth_game_of_a_category_in_its_own_process(tmp_path, gymverse_folder):
    """The GPU layout, run here with a scripted policy (which needs no GPU) in two processes."""
    sweep = SweepOptions(levels=[1], instances=2, attempts=1)
    workflow = Workflow(
        [Path("random")],
        {"my-games": ["example:*"]},
        tmp_path,
        sweep,
        env_dir=[gymverse_folder],
        trusted=True,
        gpus=["0", "1"],
        timestamp="20260101_000000",
    )
    assert run_workflow(workflow, log=lambda line: None) == []
    category = tmp_path / "random_20260101_000000" / "my-games"
    assert sorted(p.name for p in category.iterdir()) == ["gpu_0", "gpu_1", "logs"]
    assert (category / "logs" / "gpu_1.log").read_text()
    split = [sorted(json.loads((category / g / "summary.json").read_text())["envs"]) for g in ("gpu_0", "gpu_1")]
    ids = sorted(gymverse.env.registered_ids("example"))
    assert sorted(split[0] + split[1]) == ids and len(split[0]) == len(split[1]) == 4
    report = summary_report(find_results(tmp_path))
    assert report["random_20260101_000000"]["categories"]["my-games"]["num_envs"] == 8
