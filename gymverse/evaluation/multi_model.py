"""GymVerse's multi-model evaluation workflow on ``gymverse eval``'s sweep (``Evaluation/run_multi_model_eval.sh``).

Every checkpoint listed in a file is evaluated on every category of games (``Evaluation/env_categories.sh``)
with GymVerse's difficulty schedule: of ``N`` difficulties, difficulty ``i`` is complexity
``1 + int(i / (N - 1) * 9)``, and indices ``start`` to ``end - 1`` are played, ``runs`` instances each
with ``attempts`` attempts per instance. A checkpoint's results go to ``<results>/<name>_<timestamp>/<category>/``
(one sweep folder: records, summary, tables, figures); running again with the same timestamp resumes every
sweep where it stopped. On a machine with GPUs, each GPU of ``--gpus`` runs every n-th game of a category in a
process of its own (``<category>/gpu_<id>/``, its log in ``<category>/logs/gpu_<id>.log``); without a GPU, one
process plays them all on the CPU.
"""

import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable

import tyro

from gymverse.console import console
from gymverse.entry import call_with_flags, run_command
from gymverse.errors import BadInput
from gymverse.evaluation.checkpoints import checkpoint_name, read_checkpoint_list
from gymverse.evaluation.metrics import progressive_levels
from gymverse.evaluation.options import SweepOptions
from gymverse.evaluation.sweep import SweepConfig, load, run_sweep
from gymverse.evaluation.targets import resolve_env_ids


def difficulty_levels(num_difficulties: int, start: int = 0, end: int | None = None) -> list[int]:
    """The complexities of GymVerse's difficulty indices ``start .. end - 1`` of ``num_difficulties`` (end: all)."""
    end = num_difficulties if end is None else end
    if num_difficulties < 1:
        raise BadInput(f"NUM_DIFFICULTIES must be >= 1, got {num_difficulties}")
    if not 0 <= start < num_difficulties:
        raise BadInput(f"START_DIFFICULTY must be in [0, NUM_DIFFICULTIES={num_difficulties}), got {start}")
    if not start < end <= num_difficulties:
        raise BadInput(
            f"END_DIFFICULTY must be in (START_DIFFICULTY={start}, NUM_DIFFICULTIES={num_difficulties}], got {end}"
        )
    return progressive_levels(num_difficulties)[start:end]


def parse_categories(specs: list[str]) -> dict[str, list[str]]:
    """``["logic=gymverse:A gymverse:B", ...]`` -> ``{"logic": ["gymverse:A", "gymverse:B"]}``, in order."""
    categories: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, entries = spec.partition("=")
        if not sep or not name.strip():
            raise BadInput(f"--category {spec!r}: write NAME=ID [ID ...]")
        categories[name.strip()] = entries.replace(",", " ").split()
    return categories


def split_round_robin(items: list[str], parts: int) -> list[list[str]]:
    """Item ``j`` goes to part ``j % parts``, as GymVerse spreads a category's games over its GPUs."""
    return [items[k::parts] for k in range(parts)]


def visible_gpus(gpus: str) -> list[str]:
    """The GPU ids of ``gpus`` ("0,1,2,3") this machine has; ``[]`` when torch sees no GPU."""
    import torch

    asked = [g.strip() for g in gpus.replace(" ", ",").split(",") if g.strip()]
    count = torch.cuda.device_count()
    if not asked or count == 0:
        return []
    missing = [g for g in asked if not g.isdigit() or int(g) >= count]
    if missing:
        raise BadInput(f"GPUS={gpus}: no GPU {', '.join(missing)} here; this machine has GPU 0 to {count - 1}")
    return asked


@dataclass
class Workflow:
    """One run of the workflow: the checkpoints, the categories and the sweep every category gets."""

    models: list[Path]
    categories: dict[str, list[str]]
    results_dir: Path
    sweep: SweepOptions
    env_dir: list[Path] = field(default_factory=list)
    trusted: bool = False  # import the env_dir folders instead of jailing their files
    gpus: list[str] = field(default_factory=list)  # empty: the CPU, in this process
    timestamp: str = ""  # empty: a new one as each checkpoint starts


def run_workflow(workflow: Workflow, log: Callable[[str], None] = print) -> list[str]:
    """Evaluate every checkpoint on every category; return the ``<model folder>/<category>`` runs that failed."""
    from gymverse.run.prepare import register_env_dirs

    register_env_dirs(workflow, log=log)
    taken: set[str] = set()
    names = [checkpoint_name(spec, taken) for spec in workflow.models]
    failed = []
    for number, (spec, name) in enumerate(zip(workflow.models, names), 1):
        folder = workflow.results_dir / f"{name}_{workflow.timestamp or time.strftime('%Y%m%d_%H%M%S')}"
        log(f"model {number}/{len(workflow.models)}: {spec} -> {folder}")
        policy = None
        for category, entries in workflow.categories.items():
            try:
                env_ids = resolve_env_ids(entries, log=log)
                if workflow.gpus:
                    _run_on_gpus(workflow, spec, env_ids, folder / category, log)
                else:
                    policy = policy or load(str(spec), workflow.sweep)
                    _run_here(workflow.sweep, spec, env_ids, folder / category, policy, log)
            except BadInput as error:
                log(f"  failed: {folder.name}/{category}: {error}")
                failed.append(f"{folder.name}/{category}")
    return failed


def _run_here(
    sweep: SweepOptions, spec: Path, env_ids: list[str], output: Path, policy: Any, log: Callable[[str], None]
) -> None:
    """One sweep of a category's games in this process, with the checkpoint's policy already loaded."""
    config = SweepConfig(env_ids=env_ids, policy=str(spec), **asdict(sweep))
    with console.status(output.name) as status:
        summary = run_sweep(
            config,
            output,
            policy=policy,
            on_progress=lambda done, total, label: status.update(f"{output.name}: {label} ({done}/{total} instances)"),
        )
    log(f"  {output.name}: success {summary['overall']['success_rate']:.3f} over {len(env_ids)} games")


def _run_on_gpus(workflow: Workflow, spec: Path, env_ids: list[str], output: Path, log: Callable[[str], None]) -> None:
    """One ``gymverse eval`` process per GPU, each on every n-th game; raises BadInput if any fails."""
    logs = output / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    running = []
    for gpu, share in zip(workflow.gpus, split_round_robin(env_ids, len(workflow.gpus))):
        if not share:
            continue
        command = [
            sys.executable,
            "-m",
            "gymverse.cli",
            "eval",
            *share,
            "--policy",
            str(spec),
            "--output",
            str(output / f"gpu_{gpu}"),
            *sweep_flags(workflow.sweep, device="cuda"),
            *[flag for folder in workflow.env_dir for flag in ("--env-dir", str(folder))],
            *(["--trusted"] if workflow.trusted else []),
        ]
        with open(logs / f"gpu_{gpu}.log", "w") as out:
            process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "CUDA_VISIBLE_DEVICES": gpu}
            )
        log(f"  GPU {gpu}: {len(share)} games -> {output / f'gpu_{gpu}'}")
        running.append((gpu, process))
    broken = [gpu for gpu, process in running if process.wait() != 0]
    if broken:
        raise BadInput(f"GPU {', '.join(broken)} failed; see {logs}")
    log(f"  {output.name}: done on GPU {', '.join(gpu for gpu, _ in running)}")


def sweep_flags(sweep: SweepOptions, device: str) -> list[str]:
    """``gymverse eval``'s flags for ``sweep`` (on ``device``)."""
    flags = [
        "--levels",
        *map(str, sweep.levels),
        "--instances",
        str(sweep.instances),
        "--attempts",
        str(sweep.attempts),
        "--template",
        sweep.template,
        "--wrappers",
        sweep.wrappers,
        "--temperature",
        str(sweep.temperature),
        "--top-p",
        str(sweep.top_p),
        "--generate-max-length",
        str(sweep.generate_max_length),
        "--max-turns",
        str(sweep.max_turns),
        "--batch-instances",
        str(sweep.batch_instances),
        "--seed",
        str(sweep.seed),
        "--device",
        device,
    ]
    if sweep.ks:
        flags += ["--k", *map(str, sweep.ks)]
    if sweep.max_model_len is not None:
        flags += ["--max-model-len", str(sweep.max_model_len)]
    return flags


def main(
    models_file: Path,
    category: list[str],
    results_dir: Path = Path("results"),
    num_difficulties: int = 1,
    start_difficulty: int = 0,
    end_difficulty: int | None = None,
    runs_per_difficulty: int = 16,
    attempts_per_instance: int = 1,
    gpus: str = "",
    resume_timestamp: str = "",
    env_dir: Annotated[list[Path], tyro.conf.UseAppendAction] = [],  # noqa: B006 (tyro reads the default)
    trusted: bool = False,
    seed: int = 42,
    temperature: float = 0.6,
    prompt_template: str = "qwen3_game",
    wrappers: str = "concat",
    max_tokens: int = 8192,
    max_model_len: int | None = None,
    vec_batch_size: int = 8,
    max_turns: int = 200,
) -> None:
    """Evaluate every checkpoint of a list file on every category of games (what run_multi_model_eval.sh runs).

    Args:
        models_file: One checkpoint folder (or policy spec) per line; # starts a comment.
        category: NAME=ID [ID ...] for each category, in order (ids, or patterns such as example:*).
        results_dir: Results go to RESULTS_DIR/<checkpoint>_<timestamp>/<category>/.
        num_difficulties: N difficulties; difficulty i is complexity 1 + int(i / (N - 1) * 9).
        start_difficulty: First difficulty index played (0-based).
        end_difficulty: One past the last difficulty index played (default: N).
        runs_per_difficulty: Instances (distinct seeds) per difficulty and game.
        attempts_per_instance: Attempts per instance (the n of pass@k).
        gpus: GPU ids (0,1,2,3): one process per GPU on a machine that has them; ignored (and said so) on a CPU.
        resume_timestamp: Reuse these results folders (<checkpoint>_<timestamp>) and resume their sweeps.
        env_dir: Register this folder's games so the categories can name them (GymVerse's gem/gem/envs/example).
        trusted: Import the --env-dir folders into this process instead of jailing each file (your own code only).
        seed: Seed of the instances and of the policy's sampling.
        temperature: Sampling temperature.
        prompt_template: Prompt template (qwen3_game, qwen3_general, qwen3_tool, code, no, chat).
        wrappers: GEM observation wrappers (concat, concat_with_action, concat_chat, or none).
        max_tokens: Token limit of one reply.
        max_model_len: Token limit of prompt + reply (default: the model's).
        vec_batch_size: Instances played together in one batch.
        max_turns: Turns after which an episode the game has not ended is a failure.
    """
    from gymverse.policy import check_policy

    models = read_checkpoint_list(models_file)
    for spec in models:
        check_policy(str(spec), f"{models_file}:")
    sweep = SweepOptions(
        levels=difficulty_levels(num_difficulties, start_difficulty, end_difficulty),
        instances=runs_per_difficulty,
        attempts=attempts_per_instance,
        template=prompt_template,
        temperature=temperature,
        wrappers="" if wrappers == "none" else wrappers,
        generate_max_length=max_tokens,
        max_model_len=max_model_len,
        batch_instances=vec_batch_size,
        max_turns=max_turns,
        seed=seed,
    )
    sweep.check()
    categories = parse_categories(category)
    if not categories:
        raise BadInput("no categories to evaluate")
    used = visible_gpus(gpus)
    if gpus and not used:
        console.print(
            f"GPUS={gpus}: this machine has no GPU that torch can use, so every category runs in this "
            "process on the CPU. With GPUs, each one listed runs every n-th game of a category in a "
            "process of its own.",
            markup=False,
        )
    workflow = Workflow(models, categories, results_dir, sweep, env_dir, trusted, used, resume_timestamp)
    try:
        failed = run_workflow(workflow, log=lambda line: console.print(line, markup=False))
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted[/yellow]: what was finished is saved under {results_dir}; run again with "
            "RESUME_TIMESTAMP set to the timestamp of the folder being written to resume"
        )
        raise SystemExit(130) from None
    console.print(
        f"results: {results_dir}; summarize them with "
        f"python Evaluation/aggregate_results.py --results-dir {results_dir}",
        markup=False,
    )
    if failed:
        console.print(f"[red]{len(failed)} failed:[/red] {', '.join(failed)}")
        raise SystemExit(1)


if __name__ == "__main__":
    sys.exit(run_command(lambda: call_with_flags(main, sys.argv[1:], "python -m gymverse.evaluation.multi_model")))
